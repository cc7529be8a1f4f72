//! WARC reader (versions 0.17 to 1.1; plain, gzip per record or whole file,
//! LZ4).
//!
//! A small hand-written reader rather than the `warc` crate: we need
//! streaming over multi-member gzip with recovery from a corrupt member,
//! resynchronization after a bad record, bounded header and record sizes,
//! and byte offsets for warnings.
//!
//! What becomes a page:
//! - `response` records holding an HTTP response with status 2xx and an HTML
//!   Content-Type (`text/html`, `application/xhtml+xml`), or no Content-Type
//!   and a body that sniffs as HTML. Chunked transfer encoding and
//!   gzip/deflate content encoding are undone (`super::http`).
//! - `resource` records (a capture without HTTP headers) whose WARC
//!   Content-Type is HTML, or absent with an HTML-sniffing body.
//!
//! Everything else (`request`, `metadata`, `warcinfo`, `revisit` - which
//! has no payload of its own -, `conversion`, non-HTML or non-2xx
//! responses) is skipped without a warning.
//!
//! Keys are the `WARC-Record-ID` without its angle brackets
//! (`urn:uuid:...`); records without one get `<file name>@<offset>`. The URL
//! is `WARC-Target-URI`, angle brackets trimmed.
//!
//! Recovery: a record whose header block is malformed, whose Content-Length
//! is missing, or which sits in a corrupt gzip member yields one warning and
//! is lost; the reader then skips to the next line starting with `WARC/`. A
//! record whose block is not followed by a record boundary is still used
//! (the length is usually right and the padding odd) with a warning, and
//! the reader resynchronizes the same way. A record cut off by the end of
//! the file yields "truncated record at offset N" (no page: a partial page
//! would be a misleading near-duplicate of the full one) and ends the file.

use std::path::Path;

use super::http::{self, Payload};
use super::item::{Item, Limits, Page};
use super::record::{next_item, RecordCursor, StepReader};
use super::stream::{Line, Stream};

/// Longest WARC header line we accept.
const MAX_LINE: usize = 64 * 1024;
/// Largest WARC header block we accept.
const MAX_HEADER_BLOCK: usize = 1024 * 1024;

/// The named fields of a WARC record's header block, in file order.
struct Headers(Vec<(String, String)>);

impl Headers {
    /// The first field named `name` (case-insensitive).
    fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Streams the pages of one WARC file.
pub struct WarcReader {
    cur: RecordCursor,
    file_name: String,
    limits: Limits,
}

impl WarcReader {
    /// A reader over an already opened (and decompressing) stream;
    /// `first` are warnings raised while sniffing the format.
    pub(crate) fn new(path: &Path, stream: Stream, limits: Limits, first: Vec<Item>) -> Self {
        WarcReader {
            cur: RecordCursor::new(path, stream, first),
            file_name: path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            limits,
        }
    }

    /// Reads one record (or skips one line while resynchronizing), pushing
    /// what it yields onto `pending`. Every call consumes input or ends the
    /// file, so the iterator always terminates. The steps: the version
    /// line ([`WarcReader::version_line`]), the header block
    /// ([`WarcReader::header_block`]), then the block
    /// ([`WarcReader::record`]).
    fn advance(&mut self) {
        let Some(start) = self.version_line() else {
            return;
        };
        self.cur.resync = false;
        let Some(headers) = self.header_block(start) else {
            return;
        };
        self.record(start, &headers);
    }

    /// Skips blank lines and reads the `WARC/` version line a record starts
    /// with, returning the record's offset. Anything else is skipped (one
    /// warning per run of junk, while resynchronizing) and gives `None`, as
    /// do the end of the file and a read error.
    fn version_line(&mut self) -> Option<u64> {
        if let Err(e) = self.cur.stream.skip_blank() {
            let at = self.cur.stream.pos();
            self.cur.lost(at, &e);
            return None;
        }
        let start = self.cur.stream.pos();
        match self.cur.stream.read_line(MAX_LINE) {
            Err(e) => {
                self.cur.lost(start, &e);
                None
            }
            Ok(Line::Eof) => {
                self.cur.done = true;
                None
            }
            Ok(Line::TooLong(n)) => {
                if !self.cur.resync {
                    self.cur.warn(
                        start,
                        format!("expected a WARC/ version line, found {n} bytes without a line break; skipping to the next record"),
                    );
                    self.cur.resync = true;
                }
                None
            }
            Ok(Line::Text(l)) => {
                if l.starts_with(b"WARC/") {
                    return Some(start);
                }
                if !self.cur.resync {
                    self.cur.warn(
                        start,
                        format!(
                            "expected a WARC/ version line, found {:?}; skipping to the next record",
                            preview(&l)
                        ),
                    );
                    self.cur.resync = true;
                }
                None
            }
        }
    }

    /// The named fields of the record at `start`, up to the blank line
    /// that ends them (continuation lines folded into the field before).
    /// A header line over [`MAX_LINE`] or a block over
    /// [`MAX_HEADER_BLOCK`] loses the record; the end of the file ends it
    /// with a warning.
    fn header_block(&mut self, start: u64) -> Option<Headers> {
        let mut headers: Vec<(String, String)> = Vec::new();
        let mut total = 0usize;
        loop {
            match self.cur.stream.read_line(MAX_LINE) {
                Err(e) => {
                    self.cur.lost(start, &e);
                    return None;
                }
                Ok(Line::Eof) => {
                    self.cur.warn(
                        start,
                        format!("truncated record at offset {start}: header block has no end"),
                    );
                    self.cur.done = true;
                    return None;
                }
                Ok(Line::TooLong(n)) => {
                    self.cur
                        .warn(start, format!("header line of {n} bytes; record skipped"));
                    self.cur.resync = true;
                    return None;
                }
                Ok(Line::Text(l)) => {
                    let l = l.strip_suffix(b"\r").unwrap_or(&l);
                    if l.is_empty() {
                        return Some(Headers(headers));
                    }
                    total += l.len();
                    if total > MAX_HEADER_BLOCK {
                        self.cur
                            .warn(start, "header block over 1 MiB; record skipped");
                        self.cur.resync = true;
                        return None;
                    }
                    let l = String::from_utf8_lossy(l);
                    if l.starts_with([' ', '\t']) {
                        if let Some(last) = headers.last_mut() {
                            last.1.push(' ');
                            last.1.push_str(l.trim());
                        }
                    } else if let Some((n, v)) = l.split_once(':') {
                        headers.push((n.trim().to_string(), v.trim().to_string()));
                    }
                }
            }
        }
    }

    /// The block of the record at `start`: skipped unless a `response` or
    /// `resource` within the size limit, else read whole and turned into a
    /// page ([`WarcReader::page`]); then the record boundary is checked.
    fn record(&mut self, start: u64, headers: &Headers) {
        let Some(len) = headers
            .get("content-length")
            .and_then(|v| v.parse::<u64>().ok())
        else {
            let v = headers.get("content-length").map(str::to_string);
            self.cur.warn(
                start,
                match v {
                    Some(v) => format!("bad Content-Length {v:?}; record skipped"),
                    None => "no Content-Length; record skipped".to_string(),
                },
            );
            self.cur.resync = true;
            return;
        };
        let wtype = headers
            .get("warc-type")
            .unwrap_or_default()
            .to_ascii_lowercase();
        let wanted = wtype == "response" || wtype == "resource";
        if !wanted || len > self.limits.max_record {
            if wanted {
                let max = self.limits.max_record;
                self.cur.warn(
                    start,
                    format!("record of {len} bytes exceeds the {max}-byte limit; skipped"),
                );
            }
            match self.cur.stream.skip(len) {
                Err(e) => return self.cur.lost(start, &e),
                Ok(n) if n < len => return self.truncated(start, len, n),
                Ok(_) => {}
            }
            self.check_trailer(start, len);
            return;
        }
        let mut block = Vec::new();
        match self.cur.stream.read_into(len, &mut block) {
            Err(e) => return self.cur.lost(start, &e),
            Ok(n) if n < len => return self.truncated(start, len, n),
            Ok(_) => {}
        }
        self.page(start, headers, &wtype, block);
        // A bad boundary is warned about, but the record is still used:
        // in practice the length was right and the padding is odd (warcio's
        // example-trunc.warc pads with NULs); if the length was wrong the
        // page has a little junk at its end or misses its tail.
        self.check_trailer(start, len);
    }

    /// The page of a `response` (an HTTP message, `super::http`) or
    /// `resource` record's `block`, if it is one, pushed with its key
    /// and URL; warnings about the payload go out with it.
    fn page(&mut self, start: u64, headers: &Headers, wtype: &str, block: Vec<u8>) {
        let key = match headers.get("warc-record-id") {
            Some(id) if !id.is_empty() => strip_angle(id).to_string(),
            _ => format!("{}@{start}", self.file_name),
        };
        let url =
            strip_angle(headers.get("warc-target-uri").unwrap_or_default().trim()).to_string();
        let warc_ct = headers.get("content-type").map(str::to_string);
        let is_http = block.starts_with(b"HTTP/")
            || warc_ct
                .as_deref()
                .is_some_and(|c| http::media_type(c) == "application/http");
        let mut warnings = Vec::new();
        let payload = if wtype == "response" && is_http {
            http::http_payload(&block, self.limits.max_body, &mut warnings)
        } else {
            resource_payload(block, warc_ct)
        };
        for w in warnings {
            self.cur.warn(start, w);
        }
        if let Payload::Page(body, content_type) = payload {
            if url.is_empty() {
                self.cur
                    .warn(start, "HTML record without WARC-Target-URI; skipped");
            } else {
                self.cur.pending.push_back(Item::Page(Page {
                    key,
                    url,
                    body,
                    content_type,
                }));
            }
        }
    }

    fn truncated(&mut self, start: u64, len: u64, got: u64) {
        self.cur.warn(
            start,
            format!(
                "truncated record at offset {start}: Content-Length {len} but the file ends after {got} bytes"
            ),
        );
        self.cur.done = true;
    }

    /// After a block: optional blank lines, then the next `WARC/` or the
    /// end. Anything else means Content-Length was wrong or the file has
    /// junk between records: warn and resynchronize on the next `WARC/`.
    fn check_trailer(&mut self, start: u64, len: u64) {
        if let Err(e) = self.cur.stream.skip_blank() {
            let at = self.cur.stream.pos();
            return self.cur.lost(at, &e);
        }
        let here = self.cur.stream.pos();
        match self.cur.stream.peek(5) {
            Ok(b) if b.is_empty() || b.starts_with(b"WARC/") => {}
            Ok(b) => {
                let seen = preview(b);
                self.cur.warn(
                    start,
                    format!(
                        "Content-Length {len} does not end at a record boundary (found {seen:?} at offset {here}); skipping to the next record"
                    ),
                );
                self.cur.resync = true;
            }
            Err(e) => self.cur.lost(here, &e),
        }
    }
}

/// A `resource` record (or a non-HTTP `response`): the WARC Content-Type
/// describes the block itself.
fn resource_payload(block: Vec<u8>, content_type: Option<String>) -> Payload {
    match content_type.filter(|c| !c.is_empty()) {
        Some(ct) if http::is_html_type(&http::media_type(&ct)) => Payload::Page(block, Some(ct)),
        Some(_) => Payload::Skip,
        None if http::sniff_html(&block) => Payload::Page(block, None),
        None => Payload::Skip,
    }
}

/// The start of some bytes, for messages.
pub(crate) fn preview(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(b.get(..b.len().min(40)).unwrap_or(&[]));
    s.trim_end_matches(['\r', '\n']).to_string()
}

impl StepReader for WarcReader {
    fn cursor(&mut self) -> &mut RecordCursor {
        &mut self.cur
    }

    fn step(&mut self) {
        self.advance();
    }
}

impl Iterator for WarcReader {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        next_item(self)
    }
}

/// Trims one pair of surrounding `<` `>` (WARC 1.0 writes some URIs in
/// angle brackets, WARC 1.1 does not).
fn strip_angle(s: &str) -> &str {
    s.strip_prefix('<')
        .and_then(|s| s.strip_suffix('>'))
        .unwrap_or(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_angle_brackets_once() {
        assert_eq!(strip_angle("<urn:uuid:1>"), "urn:uuid:1");
        assert_eq!(strip_angle("http://a/"), "http://a/");
        assert_eq!(strip_angle("<http://a/"), "<http://a/");
    }
}
