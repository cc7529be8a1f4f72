//! ARC reader (Internet Archive ARC v1 and v2; plain or gzip).
//!
//! An ARC file is a `filedesc://` header record followed by records of the
//! form
//!
//! ```text
//! URL IP-address Archive-date Content-type Archive-length\n   (v1)
//! URL IP-address Archive-date Content-type Result-code Checksum Location Offset Filename Archive-length\n   (v2)
//! <Archive-length bytes: the HTTP response>\n
//! ```
//!
//! Fields are read from the right (the length is last) so URLs containing
//! spaces survive. The version is taken from the filedesc record's second
//! line (`1 ...` or `2 ...`); v1 is assumed when it is missing.
//!
//! Key: `<Archive-date>/<URL>`, the Wayback Machine's notation for a
//! capture (stable; two captures of one URL in the same second would share
//! it). Pages are chosen as for WARC responses (HTML, 2xx, see
//! [`super::warc`]); a record whose payload is not an HTTP response (e.g.
//! `dns:` records) is taken as a resource described by the ARC
//! Content-type field.
//!
//! Recovery: a header line that does not parse yields one warning, then
//! lines are skipped until one parses as a record header.

use std::path::Path;

use super::http::{self, Payload};
use super::item::{Item, Limits, Page};
use super::record::{next_item, RecordCursor, StepReader};
use super::stream::{Line, Stream};
use super::warc::preview;

/// Longest header line we accept.
const MAX_LINE: usize = 64 * 1024;

/// A parsed ARC record header line.
#[derive(Debug, PartialEq, Eq)]
struct Header {
    url: String,
    date: String,
    content_type: String,
    length: u64,
}

/// Parses a record header line of ARC `version` (1 or 2).
fn parse_header(line: &[u8], version: u8) -> Option<Header> {
    let line = String::from_utf8_lossy(line);
    let fields: Vec<&str> = line.split_ascii_whitespace().collect();
    // Fields after the URL: v1 has 4, v2 has 9.
    let after = if version == 2 && fields.len() >= 10 {
        9
    } else {
        4
    };
    if fields.len() < after + 1 {
        return None;
    }
    let n = fields.len();
    let url = fields.get(..n - after)?.join(" ");
    let date = (*fields.get(n - after + 1)?).to_string();
    let content_type = (*fields.get(n - after + 2)?).to_string();
    let length = fields.get(n - 1)?.parse::<u64>().ok()?;
    // A real header has a URL scheme and a numeric date; this keeps HTTP
    // header lines from parsing as records while resynchronizing.
    if !url.contains(':') || date.len() < 8 || !date.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(Header {
        url,
        date,
        content_type,
        length,
    })
}

/// Streams the pages of one ARC file.
pub struct ArcReader {
    cur: RecordCursor,
    limits: Limits,
    version: u8,
}

impl ArcReader {
    /// A reader over an already opened (and decompressing) stream;
    /// `first` are warnings raised while sniffing the format.
    pub(crate) fn new(path: &Path, stream: Stream, limits: Limits, first: Vec<Item>) -> Self {
        ArcReader {
            cur: RecordCursor::new(path, stream, first),
            limits,
            version: 1,
        }
    }

    /// Reads one record or skips one line; always consumes input or ends.
    fn advance(&mut self) {
        if let Err(e) = self.cur.stream.skip_blank() {
            let at = self.cur.stream.pos();
            return self.cur.lost(at, &e);
        }
        let start = self.cur.stream.pos();
        let line = match self.cur.stream.read_line(MAX_LINE) {
            Err(e) => return self.cur.lost(start, &e),
            Ok(Line::Eof) => {
                self.cur.done = true;
                return;
            }
            Ok(Line::TooLong(n)) => {
                if !self.cur.resync {
                    self.cur.warn(
                        start,
                        format!("record header line of {n} bytes; skipping to the next record"),
                    );
                    self.cur.resync = true;
                }
                return;
            }
            Ok(Line::Text(l)) => l,
        };
        let line = line.strip_suffix(b"\r").unwrap_or(&line).to_vec();
        let Some(h) = parse_header(&line, self.version) else {
            if !self.cur.resync {
                self.cur.warn(
                    start,
                    format!(
                        "bad ARC record header {:?}; skipping to the next record",
                        preview(&line)
                    ),
                );
                self.cur.resync = true;
            }
            return;
        };
        self.cur.resync = false;
        let is_filedesc = h.url.starts_with("filedesc://");
        if h.length > self.limits.max_record || !(is_filedesc || h.url.contains("://")) {
            if h.length > self.limits.max_record {
                let max = self.limits.max_record;
                self.cur.warn(
                    start,
                    format!(
                        "record of {} bytes exceeds the {max}-byte limit; skipped",
                        h.length
                    ),
                );
            }
            match self.cur.stream.skip(h.length) {
                Err(e) => self.cur.lost(start, &e),
                Ok(n) if n < h.length => self.truncated(start, h.length, n),
                Ok(_) => {}
            }
            return;
        }
        let mut block = Vec::new();
        match self.cur.stream.read_into(h.length, &mut block) {
            Err(e) => return self.cur.lost(start, &e),
            Ok(n) if n < h.length => return self.truncated(start, h.length, n),
            Ok(_) => {}
        }
        if is_filedesc {
            // Second line: "<major> <minor> <organization>".
            if let Some(v) = block.first().filter(|b| b.is_ascii_digit()) {
                self.version = if *v == b'2' { 2 } else { 1 };
            }
            return;
        }
        let mut warnings = Vec::new();
        let payload = if block.starts_with(b"HTTP/") {
            http::http_payload(&block, self.limits.max_body, &mut warnings)
        } else if http::is_html_type(&http::media_type(&h.content_type))
            || (h.content_type.eq_ignore_ascii_case("no-type") || h.content_type == "-")
                && http::sniff_html(&block)
        {
            Payload::Page(
                block,
                Some(h.content_type.clone()).filter(|c| c.contains('/')),
            )
        } else {
            Payload::Skip
        };
        for w in warnings {
            self.cur.warn(start, w);
        }
        if let Payload::Page(body, content_type) = payload {
            self.cur.pending.push_back(Item::Page(Page {
                key: format!("{}/{}", h.date, h.url),
                url: h.url,
                body,
                content_type,
            }));
        }
    }

    fn truncated(&mut self, start: u64, len: u64, got: u64) {
        self.cur.warn(
            start,
            format!("truncated record at offset {start}: Archive-length {len} but the file ends after {got} bytes"),
        );
        self.cur.done = true;
    }
}

impl StepReader for ArcReader {
    fn cursor(&mut self) -> &mut RecordCursor {
        &mut self.cur
    }

    fn step(&mut self) {
        self.advance();
    }
}

impl Iterator for ArcReader {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        next_item(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_fields_from_the_right() {
        let h = parse_header(b"http://a.b/x y 1.2.3.4 20080101000000 text/html 12", 1).unwrap();
        assert_eq!(h.url, "http://a.b/x y");
        assert_eq!(h.date, "20080101000000");
        assert_eq!(h.content_type, "text/html");
        assert_eq!(h.length, 12);
        let v2 = b"http://a.b/ 1.2.3.4 20080101000000 text/html 200 abc - 0 f.arc 34";
        let h = parse_header(v2, 2).unwrap();
        assert_eq!((h.url.as_str(), h.length), ("http://a.b/", 34));
        assert!(parse_header(b"Content-Type: text/html", 1).is_none());
        assert!(parse_header(b"http://a/ 1.2.3.4 20140101 text/html -1", 1).is_none());
        assert!(parse_header(b"http://a/ 1.2.3.4 20140101 text/html abc", 1).is_none());
    }
}
