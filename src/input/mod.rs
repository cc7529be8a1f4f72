//! Where pages come from in batch runs: a directory of HTML files, a
//! manifest TSV, or WARC/ARC files.

use std::path::{Path, PathBuf};

/// One page to check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    /// The caller's identifier: manifest doc_id, file stem, or WARC record id.
    pub key: String,
    /// The page URL.
    pub url: String,
    /// The raw body.
    pub body: Vec<u8>,
    /// The HTTP Content-Type, when known.
    pub content_type: Option<String>,
}

/// A problem with one record or file that does not stop the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputWarning {
    /// Where (file, and record offset or line where known).
    pub location: String,
    /// What was wrong.
    pub message: String,
}

/// Something an input yields: a page, or a warning about one that was lost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// A page to check.
    Page(Page),
    /// A record or file that could not be read; the run goes on.
    Warning(InputWarning),
}

/// Reads every page of `path`: a directory (HTML files sorted by name), a
/// manifest (`.tsv`), or a WARC/ARC file.
///
/// # Errors
/// Only when the input as a whole cannot be opened; per-record problems
/// come back as [`Item::Warning`].
pub fn read(path: &Path) -> crate::Result<Vec<Item>> {
    if path.is_dir() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(|e| crate::Error::io(path, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        let mut out = Vec::new();
        for f in files {
            match std::fs::read(&f) {
                Ok(body) => out.push(Item::Page(Page {
                    key: f
                        .file_stem()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                    url: url::Url::from_file_path(std::fs::canonicalize(&f).unwrap_or(f.clone()))
                        .map(|u| u.to_string())
                        .unwrap_or_default(),
                    body,
                    content_type: None,
                })),
                Err(e) => out.push(Item::Warning(InputWarning {
                    location: f.display().to_string(),
                    message: e.to_string(),
                })),
            }
        }
        return Ok(out);
    }
    if path.extension().is_some_and(|e| e == "tsv") {
        return read_manifest(path);
    }
    Err(crate::Error::Input {
        path: path.to_owned(),
        message: "unsupported input (not yet)".into(),
    })
}

/// Stub manifest reader (batch branch, replaced by the real input module at
/// merge): header with `doc_id`, `url`, `path` columns in any order, paths
/// relative to the manifest's directory.
fn read_manifest(path: &Path) -> crate::Result<Vec<Item>> {
    let text = std::fs::read_to_string(path).map_err(|e| crate::Error::io(path, e))?;
    let base = path.parent().unwrap_or(Path::new("."));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split('\t').collect();
    let col = |name: &str| header.iter().position(|h| h.trim() == name);
    let (Some(id_col), Some(url_col), Some(path_col)) = (col("doc_id"), col("url"), col("path"))
    else {
        return Err(crate::Error::Input {
            path: path.to_owned(),
            message: "manifest header must name doc_id, url and path columns".into(),
        });
    };
    let mut out = Vec::new();
    for (i, line) in lines.enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let location = format!("{}:{}", path.display(), i + 2);
        let (Some(key), Some(url), Some(rel)) = (
            fields.get(id_col),
            fields.get(url_col),
            fields.get(path_col),
        ) else {
            out.push(Item::Warning(InputWarning {
                location,
                message: "expected doc_id, url and path fields".into(),
            }));
            continue;
        };
        match std::fs::read(base.join(rel)) {
            Ok(body) => out.push(Item::Page(Page {
                key: (*key).to_owned(),
                url: (*url).to_owned(),
                body,
                content_type: None,
            })),
            Err(e) => out.push(Item::Warning(InputWarning {
                location,
                message: format!("{rel}: {e}"),
            })),
        }
    }
    Ok(out)
}
