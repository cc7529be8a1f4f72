//! A directory of page files.
//!
//! - Recursive: a saved site keeps its pages in subdirectories. Files come
//!   in order of their relative path compared component by component, each
//!   component by the bytes of its name (so `a/z.html` comes before
//!   `b.html`, and `B` before `a`). Directory symlinks are not followed
//!   (no cycles); file symlinks are. Hidden entries (name starting with
//!   `.`) are skipped; so is anything deeper than 64 levels.
//! - Which files are pages: [`super::filter`] (by default HTML-ish and text
//!   extensions, extensionless files, and those gzip-compressed; `--glob`
//!   changes it). Others are skipped silently. gzip files are recognized by
//!   their magic bytes and decompressed ([`super::read_page_file`]).
//! - A FIFO, socket or device in the tree is a warning, never opened.
//! - key: the relative path without its last extension, `/`-separated
//!   (`page` for `page.html`, `blog/post` for `blog/post.html`, `page.html`
//!   for `page.html.gz`). When two
//!   files would share a key (`a.html` and `a.htm`) each of them uses its
//!   relative path with extension instead, with one warning per clash.
//! - url: the file's absolute `file://` URL; content type: none.
//! - Bodies are read one file at a time as the iterator advances; files
//!   over [`Limits::max_record`] and unreadable files become warnings.

use std::collections::{HashMap, VecDeque};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::file::{file_url, not_regular, read_page};
use super::filter::PageFilter;
use super::item::{Item, Limits, Page};

/// Deepest directory level visited.
const MAX_DEPTH: usize = 64;

struct Entry {
    path: PathBuf,
    key: String,
}

/// Streams the pages of a directory.
pub struct DirReader {
    entries: std::vec::IntoIter<Entry>,
    pending: VecDeque<Item>,
    limits: Limits,
}

impl DirReader {
    /// Lists the directory tree (names only; bodies are read lazily).
    ///
    /// # Errors
    /// When the top directory cannot be listed.
    pub(crate) fn open(
        root: &Path,
        limits: Limits,
        filter: &PageFilter,
    ) -> neardup::Result<DirReader> {
        let mut files: Vec<(Vec<OsString>, PathBuf)> = Vec::new();
        let mut pending = VecDeque::new();
        // The root must be listable; deeper failures are warnings.
        std::fs::read_dir(root).map_err(|e| neardup::Error::io(root, e))?;
        walk(root, &mut Vec::new(), &mut files, &mut pending, filter);

        // Keys: relative path without extension, unless that clashes.
        let stem_key = |rel: &[OsString]| -> String {
            let mut parts: Vec<String> = rel
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            if let Some(last) = rel.last() {
                let stem = Path::new(last)
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                if let Some(l) = parts.last_mut() {
                    *l = stem;
                }
            }
            parts.join("/")
        };
        let full_key = |rel: &[OsString]| -> String {
            rel.iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/")
        };
        let stems: Vec<String> = files.iter().map(|(rel, _)| stem_key(rel)).collect();
        let mut count: HashMap<&str, usize> = HashMap::new();
        for s in &stems {
            *count.entry(s.as_str()).or_default() += 1;
        }
        let mut warned: Vec<&str> = Vec::new();
        let mut keys: Vec<String> = Vec::with_capacity(files.len());
        for ((rel, _), stem) in files.iter().zip(&stems) {
            if count.get(stem.as_str()).copied().unwrap_or(0) > 1 {
                if !warned.contains(&stem.as_str()) {
                    warned.push(stem.as_str());
                    let clash: Vec<String> = files
                        .iter()
                        .zip(&stems)
                        .filter(|(_, s)| *s == stem)
                        .map(|((r, _), _)| full_key(r))
                        .collect();
                    pending.push_back(Item::warning(
                        root.join(stem).display().to_string(),
                        format!(
                            "files share the key {stem:?}: {}; using their file names as keys",
                            clash.join(", ")
                        ),
                    ));
                }
                keys.push(full_key(rel));
            } else {
                keys.push(stem.clone());
            }
        }
        // A full name can still equal another file's stem key (`a.b` vs
        // `a.b.html`); number the later ones so keys stay unique.
        let mut seen: HashMap<String, usize> = HashMap::new();
        for key in &mut keys {
            let n = seen.entry(key.clone()).or_default();
            *n += 1;
            if *n > 1 {
                *key = format!("{key}~{n}");
            }
        }
        let entries: Vec<Entry> = files
            .into_iter()
            .zip(keys)
            .map(|((_, path), key)| Entry { path, key })
            .collect();
        Ok(DirReader {
            entries: entries.into_iter(),
            pending,
            limits,
        })
    }
}

/// Depth-first walk in byte order of names; pushes (relative components,
/// path) of every wanted file.
pub(super) fn walk(
    dir: &Path,
    rel: &mut Vec<OsString>,
    out: &mut Vec<(Vec<OsString>, PathBuf)>,
    warnings: &mut VecDeque<Item>,
    filter: &PageFilter,
) {
    if rel.len() > MAX_DEPTH {
        warnings.push_back(Item::warning(
            dir.display().to_string(),
            format!("deeper than {MAX_DEPTH} levels; not read"),
        ));
        return;
    }
    let listing = match std::fs::read_dir(dir) {
        Ok(l) => l,
        Err(e) => {
            warnings.push_back(Item::warning(
                dir.display().to_string(),
                format!("cannot list: {e}"),
            ));
            return;
        }
    };
    let mut names: Vec<OsString> = Vec::new();
    for entry in listing {
        match entry {
            Ok(e) => names.push(e.file_name()),
            Err(e) => warnings.push_back(Item::warning(
                dir.display().to_string(),
                format!("cannot list an entry: {e}"),
            )),
        }
    }
    names.sort_by(|a, b| a.as_encoded_bytes().cmp(b.as_encoded_bytes()));
    for name in names {
        if name.as_encoded_bytes().first() == Some(&b'.') {
            continue;
        }
        let path = dir.join(&name);
        let Ok(lmeta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if lmeta.is_dir() {
            rel.push(name);
            walk(&path, rel, out, warnings, filter);
            rel.pop();
            continue;
        }
        // Follows file symlinks; a symlink to a directory is not a file.
        let target = if lmeta.file_type().is_symlink() {
            std::fs::metadata(&path).ok()
        } else {
            Some(lmeta)
        };
        let Some(target) = target.filter(|m| !m.is_dir()) else {
            continue;
        };
        let mut r = rel.clone();
        r.push(name);
        let rel_text = r
            .iter()
            .map(|p| p.to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        if !filter.is_page(&rel_text) {
            continue;
        }
        if target.is_file() {
            out.push((r, path));
        } else {
            // A FIFO would block the run forever once opened: say so now.
            warnings.push_back(Item::warning(
                path.display().to_string(),
                not_regular(&target),
            ));
        }
    }
}

impl Iterator for DirReader {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        if let Some(w) = self.pending.pop_front() {
            return Some(w);
        }
        let e = self.entries.next()?;
        Some(match read_page(&e.path, self.limits) {
            Ok(body) => Item::Page(Page {
                key: e.key,
                url: file_url(&e.path),
                body,
                content_type: None,
            }),
            Err(msg) => Item::warning(e.path.display().to_string(), msg),
        })
    }
}
