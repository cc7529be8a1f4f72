//! Manifest TSV: a header line naming the columns, then one page per line.
//!
//! Columns are found by header name: `doc_id` and `path` are required,
//! `url` is optional (without it the page's `file://` URL is used); other
//! columns are ignored. `path` is relative to the manifest's directory (an
//! absolute path is used as is). Lines are processed in file order and each
//! page file is read when the iterator reaches its line.
//!
//! A line with too few fields, an empty `doc_id` or `path`, a `doc_id` seen
//! before, or a file that cannot be read becomes a warning with the line
//! number and reading goes on (a FIFO or device named on a line is refused
//! without being opened; gzip files are decompressed, see
//! [`super::read_page_file`]). Empty lines are skipped. A manifest without
//! the required columns cannot be used at all: that is an `Err`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::file::{file_url, read_page};
use super::item::{Item, Limits, Page};
use super::stream::{Line, Stream};

/// Longest manifest line we accept.
const MAX_LINE: usize = 1024 * 1024;

/// Streams the pages listed in a manifest.
pub struct ManifestReader {
    path: String,
    base: PathBuf,
    stream: Stream,
    limits: Limits,
    line_no: u64,
    col_id: usize,
    col_url: Option<usize>,
    col_path: usize,
    seen: HashSet<String>,
    done: bool,
}

impl ManifestReader {
    /// Opens the manifest and reads its header.
    ///
    /// # Errors
    /// When the file cannot be read or its header lacks `doc_id` or `path`.
    pub(crate) fn open(path: &Path, limits: Limits) -> neardup::Result<ManifestReader> {
        let file = std::fs::File::open(path).map_err(|e| neardup::Error::io(path, e))?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Self::from_reader(path, base, Box::new(file), limits)
    }

    /// A manifest read from `raw` (standard input: `neardup dedup -`);
    /// `name` is used in messages, relative paths are taken from `base`.
    ///
    /// # Errors
    /// As [`ManifestReader::open`].
    pub(crate) fn from_reader(
        name: &Path,
        base: PathBuf,
        raw: Box<dyn std::io::Read + Send>,
        limits: Limits,
    ) -> neardup::Result<ManifestReader> {
        let path = name;
        let (mut stream, _) = Stream::new(raw).map_err(|e| neardup::Error::io(path, e))?;
        let bad = |message: String| neardup::Error::Input {
            path: path.to_owned(),
            message,
        };
        let header = match stream
            .read_line(MAX_LINE)
            .map_err(|e| neardup::Error::io(path, e))?
        {
            Line::Text(l) => l,
            Line::TooLong(_) => return Err(bad("header line too long".into())),
            Line::Eof => return Err(bad("empty manifest (no header line)".into())),
        };
        let header = String::from_utf8_lossy(&header);
        let header = header.trim_start_matches('\u{feff}').trim_end_matches('\r');
        let cols: Vec<&str> = header.split('\t').map(str::trim).collect();
        let find = |name: &str| cols.iter().position(|c| c.eq_ignore_ascii_case(name));
        let (Some(col_id), Some(col_path)) = (find("doc_id"), find("path")) else {
            return Err(bad(format!(
                "header {header:?} must name the columns doc_id and path (url optional), tab-separated"
            )));
        };
        Ok(ManifestReader {
            path: path.display().to_string(),
            base,
            stream,
            limits,
            line_no: 1,
            col_id,
            col_url: find("url"),
            col_path,
            seen: HashSet::new(),
            done: false,
        })
    }

    fn warn(&self, message: impl Into<String>) -> Item {
        Item::warning(format!("{}:{}", self.path, self.line_no), message)
    }

    /// The item for one line, or None for an empty line.
    fn line(&mut self, raw: &[u8]) -> Option<Item> {
        let Ok(text) = std::str::from_utf8(raw) else {
            return Some(self.warn("line is not UTF-8; skipped"));
        };
        let text = text.trim_end_matches('\r');
        if text.trim().is_empty() {
            return None;
        }
        let fields: Vec<&str> = text.split('\t').collect();
        let need = 1 + self
            .col_id
            .max(self.col_path)
            .max(self.col_url.unwrap_or(0));
        if fields.len() < need {
            return Some(self.warn(format!(
                "expected {need} tab-separated fields, found {}; skipped",
                fields.len()
            )));
        }
        let id = fields
            .get(self.col_id)
            .map(|s| s.trim())
            .unwrap_or_default();
        let rel = fields
            .get(self.col_path)
            .map(|s| s.trim())
            .unwrap_or_default();
        if id.is_empty() || rel.is_empty() {
            return Some(self.warn("empty doc_id or path; skipped"));
        }
        if self.seen.contains(id) {
            return Some(self.warn(format!("doc_id {id:?} listed again; skipped")));
        }
        let file = self.base.join(rel);
        let body = match read_page(&file, self.limits) {
            Ok(b) => b,
            Err(e) => return Some(self.warn(format!("{}: {e}", file.display()))),
        };
        self.seen.insert(id.to_string());
        let url = self
            .col_url
            .and_then(|c| fields.get(c))
            .map(|u| u.trim().to_string())
            .filter(|u| !u.is_empty())
            .unwrap_or_else(|| file_url(&file));
        Some(Item::Page(Page {
            key: id.to_string(),
            url,
            body,
            content_type: None,
        }))
    }
}

impl Iterator for ManifestReader {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        while !self.done {
            let line = self.stream.read_line(MAX_LINE);
            self.line_no += 1;
            match line {
                Ok(Line::Text(l)) => {
                    if let Some(item) = self.line(&l) {
                        return Some(item);
                    }
                }
                Ok(Line::TooLong(n)) => {
                    return Some(self.warn(format!("line of {n} bytes; skipped")));
                }
                Ok(Line::Eof) => self.done = true,
                Err(e) => {
                    self.done = true;
                    return Some(self.warn(format!("read error: {e}; rest of manifest not read")));
                }
            }
        }
        None
    }
}
