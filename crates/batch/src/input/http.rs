//! HTTP response payloads as archived in WARC/ARC records: status line,
//! headers, `Transfer-Encoding: chunked`, `Content-Encoding`, and the
//! "is this an HTML page" decision.
//!
//! Archives are full of quirks: CommonCrawl's 2008 ARC files and ClueWeb09
//! keep `Transfer-Encoding: chunked` / `Content-Encoding: gzip` headers on
//! payloads that were already decoded. So each decoding step first checks
//! that the payload really is encoded (a chunk-size line, gzip magic) and
//! silently uses it as it is when not.

use std::io::Read;

/// Longest HTTP header block we look for the end of.
const MAX_HEADER: usize = 256 * 1024;

/// A parsed HTTP response.
#[derive(Debug)]
pub(crate) struct Response<'a> {
    /// Status code (0 when the status line has none).
    pub status: u16,
    /// Headers in order, names as written.
    pub headers: Vec<(String, String)>,
    /// The bytes after the header block.
    pub body: &'a [u8],
}

impl Response<'_> {
    /// First header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Parses `block` as an HTTP response (status line, headers, blank line,
/// body). Lines may end in `\r\n` or `\n`.
pub(crate) fn parse_response(block: &[u8]) -> Result<Response<'_>, String> {
    if !block.starts_with(b"HTTP/") {
        return Err("payload does not start with an HTTP status line".into());
    }
    let (head_len, body_start) =
        find_header_end(block).ok_or_else(|| "HTTP header block has no end".to_string())?;
    let head = String::from_utf8_lossy(block.get(..head_len).unwrap_or(&[]));
    let mut lines = head.split('\n').map(|l| l.trim_end_matches('\r'));
    let status_line = lines.next().unwrap_or_default();
    let status = status_line
        .split_ascii_whitespace()
        .nth(1)
        .and_then(|s| s.parse::<u16>().ok())
        .unwrap_or(0);
    let mut headers: Vec<(String, String)> = Vec::new();
    for line in lines {
        if line.starts_with([' ', '\t']) {
            // Obsolete header folding: continues the previous value.
            if let Some(last) = headers.last_mut() {
                last.1.push(' ');
                last.1.push_str(line.trim());
            }
            continue;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_string(), value.trim().to_string()));
        }
    }
    Ok(Response {
        status,
        headers,
        body: block.get(body_start..).unwrap_or(&[]),
    })
}

/// Finds the blank line ending the header block: returns (end of the
/// headers, start of the body).
fn find_header_end(block: &[u8]) -> Option<(usize, usize)> {
    let limit = block.len().min(MAX_HEADER);
    let hay = block.get(..limit)?;
    let mut from = 0;
    while let Some(i) = memchr::memchr(b'\n', hay.get(from..)?) {
        let nl = from + i;
        let rest = hay.get(nl + 1..).unwrap_or(&[]);
        if rest.first() == Some(&b'\n') {
            return Some((nl, nl + 2));
        }
        if rest.starts_with(b"\r\n") {
            return Some((nl, nl + 3));
        }
        from = nl + 1;
    }
    // Headers that run to the end of the block: a response without body.
    if block.len() <= MAX_HEADER {
        return Some((block.len(), block.len()));
    }
    None
}

/// The media type of a Content-Type value, lowercased, without parameters.
pub(crate) fn media_type(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// Whether a media type is one we treat as an HTML page.
pub(crate) fn is_html_type(media: &str) -> bool {
    media == "text/html" || media == "application/xhtml+xml"
}

/// WHATWG MIME sniffing's HTML patterns: after optional whitespace, one of
/// these tags (case-insensitive) followed by a space or `>`.
pub(crate) fn sniff_html(body: &[u8]) -> bool {
    const TAGS: [&[u8]; 17] = [
        b"<!DOCTYPE HTML",
        b"<HTML",
        b"<HEAD",
        b"<SCRIPT",
        b"<IFRAME",
        b"<H1",
        b"<DIV",
        b"<FONT",
        b"<TABLE",
        b"<A",
        b"<STYLE",
        b"<TITLE",
        b"<B",
        b"<BODY",
        b"<BR",
        b"<P",
        b"<!--",
    ];
    let body = body.strip_prefix(b"\xef\xbb\xbf").unwrap_or(body);
    let start = body
        .iter()
        .position(|b| !matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' '))
        .unwrap_or(body.len());
    let rest = body.get(start..).unwrap_or(&[]);
    TAGS.iter().any(|tag| {
        rest.len() > tag.len()
            && rest
                .get(..tag.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(tag))
            && (tag == b"<!--" || matches!(rest.get(tag.len()), Some(b' ' | b'>')))
    })
}

/// Outcome of decoding an HTTP body.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Decoded {
    /// The body to use, or None when the record must be skipped.
    pub body: Option<Vec<u8>>,
    /// Problems worth a warning (the record may still be used).
    pub warnings: Vec<String>,
}

/// Undoes `Transfer-Encoding: chunked`. `Ok(None)` when the body does not
/// look chunked at all (an archive that stored the decoded body but kept the
/// header); `Err` when it starts like chunked data but breaks off.
pub(crate) fn dechunk(body: &[u8]) -> Result<Option<Vec<u8>>, String> {
    let mut out = Vec::with_capacity(body.len());
    let mut pos = 0usize;
    let mut first = true;
    loop {
        let rest = body.get(pos..).unwrap_or(&[]);
        if rest.is_empty() {
            // Ended on a chunk boundary without the final 0-size chunk:
            // a common, harmless truncation.
            return if first { Ok(None) } else { Ok(Some(out)) };
        }
        let Some(nl) = memchr::memchr(b'\n', rest.get(..rest.len().min(1024)).unwrap_or(&[]))
        else {
            return if first {
                Ok(None)
            } else {
                Err(format!("chunk size line at body offset {pos} has no end"))
            };
        };
        let line = String::from_utf8_lossy(rest.get(..nl).unwrap_or(&[]));
        let size_text = line.split(';').next().unwrap_or_default().trim();
        let size = if !size_text.is_empty() && size_text.bytes().all(|b| b.is_ascii_hexdigit()) {
            u64::from_str_radix(size_text, 16).ok()
        } else {
            None
        };
        let Some(size) = size else {
            return if first {
                Ok(None)
            } else {
                Err(format!("bad chunk size {size_text:?} at body offset {pos}"))
            };
        };
        first = false;
        pos += nl + 1;
        if size == 0 {
            return Ok(Some(out));
        }
        let avail = (body.len() - pos) as u64;
        if size > avail {
            return Err(format!(
                "chunk of {size} bytes at body offset {pos} runs past the end ({avail} left)"
            ));
        }
        // size <= avail <= usize::MAX here.
        let size = size as usize;
        out.extend_from_slice(body.get(pos..pos + size).unwrap_or(&[]));
        pos += size;
        let after = body.get(pos..).unwrap_or(&[]);
        if after.starts_with(b"\r\n") {
            pos += 2;
        } else if after.starts_with(b"\n") {
            pos += 1;
        } else if !after.is_empty() {
            return Err(format!(
                "chunk data at body offset {pos} not followed by CRLF"
            ));
        }
    }
}

/// Decompresses with `reader`, stopping at `cap` output bytes.
pub(crate) fn inflate_capped(mut reader: impl Read, cap: usize) -> (Vec<u8>, Result<(), String>) {
    let mut out = Vec::new();
    let limit = (cap as u64).saturating_add(1);
    match (&mut reader).take(limit).read_to_end(&mut out) {
        Ok(_) if out.len() > cap => {
            out.truncate(cap);
            (out, Err(format!("decoded body exceeds the {cap}-byte cap")))
        }
        Ok(_) => (out, Ok(())),
        Err(e) => (out, Err(e.to_string())),
    }
}

/// Applies `Transfer-Encoding` and `Content-Encoding` to an HTTP body.
pub(crate) fn decode_body(resp: &Response<'_>, max_body: usize) -> Decoded {
    let mut warnings = Vec::new();
    let mut body: std::borrow::Cow<'_, [u8]> = resp.body.into();
    if resp
        .header("transfer-encoding")
        .is_some_and(|te| te.to_ascii_lowercase().contains("chunked"))
    {
        match dechunk(&body) {
            Ok(Some(d)) => body = d.into(),
            Ok(None) => {}
            Err(e) => warnings.push(format!("bad chunked encoding ({e}); using the raw payload")),
        }
    }
    let encodings: Vec<String> = resp
        .header("content-encoding")
        .unwrap_or_default()
        .split(',')
        .map(|s| s.trim().to_ascii_lowercase())
        .filter(|s| !s.is_empty() && s != "identity" && s != "none")
        .collect();
    // Encodings apply in the order listed, so undo them in reverse.
    for enc in encodings.iter().rev() {
        match enc.as_str() {
            "gzip" | "x-gzip" => {
                if !body.starts_with(&crate::input::stream::GZIP_MAGIC) {
                    // Already decoded by the archiver; keep as is.
                    continue;
                }
                let (out, res) =
                    inflate_capped(flate2::read::MultiGzDecoder::new(&body[..]), max_body);
                match res {
                    Ok(()) => body = out.into(),
                    Err(e) if e.contains("cap") => {
                        warnings.push(format!("gzip Content-Encoding: {e}; record skipped"));
                        return Decoded {
                            body: None,
                            warnings,
                        };
                    }
                    Err(e) if !out.is_empty() => {
                        warnings.push(format!(
                            "gzip Content-Encoding broken after {} bytes ({e}); using the decoded part",
                            out.len()
                        ));
                        body = out.into();
                    }
                    Err(e) => {
                        warnings.push(format!(
                            "gzip Content-Encoding undecodable ({e}); record skipped"
                        ));
                        return Decoded {
                            body: None,
                            warnings,
                        };
                    }
                }
            }
            "deflate" => {
                // "deflate" means zlib-wrapped deflate, but many servers send
                // raw deflate; the zlib header tells them apart.
                let zlib = matches!(body.get(..2), Some([a, b])
                    if a & 0x0f == 8 && (u16::from(*a) << 8 | u16::from(*b)) % 31 == 0);
                let (out, res) = if zlib {
                    inflate_capped(flate2::read::ZlibDecoder::new(&body[..]), max_body)
                } else {
                    inflate_capped(flate2::read::DeflateDecoder::new(&body[..]), max_body)
                };
                match res {
                    Ok(()) => body = out.into(),
                    Err(_) if sniff_html(&body) => {}
                    Err(e) => {
                        warnings.push(format!("deflate Content-Encoding: {e}; record skipped"));
                        return Decoded {
                            body: None,
                            warnings,
                        };
                    }
                }
            }
            other => {
                if sniff_html(&body) {
                    continue;
                }
                warnings.push(format!(
                    "unsupported Content-Encoding {other:?}; record skipped"
                ));
                return Decoded {
                    body: None,
                    warnings,
                };
            }
        }
    }
    Decoded {
        body: Some(body.into_owned()),
        warnings,
    }
}

/// What an archive record's payload turned into.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Payload {
    /// An HTML page: body and Content-Type (if any was given).
    Page(Vec<u8>, Option<String>),
    /// Not a page we want (not HTML, not 2xx); no warning needed.
    Skip,
}

/// Turns an archived HTTP response into an HTML page, or a skip.
/// Warnings are appended to `warnings`.
pub(crate) fn http_payload(block: &[u8], max_body: usize, warnings: &mut Vec<String>) -> Payload {
    let resp = match parse_response(block) {
        Ok(r) => r,
        Err(e) => {
            warnings.push(format!("{e}; record skipped"));
            return Payload::Skip;
        }
    };
    if !(200..300).contains(&resp.status) {
        return Payload::Skip;
    }
    let content_type = resp
        .header("content-type")
        .map(str::to_string)
        .filter(|c| !c.is_empty());
    if let Some(ct) = &content_type {
        if !is_html_type(&media_type(ct)) {
            return Payload::Skip;
        }
    }
    let decoded = decode_body(&resp, max_body);
    warnings.extend(decoded.warnings);
    match decoded.body {
        Some(body) if content_type.is_some() || sniff_html(&body) => {
            Payload::Page(body, content_type)
        }
        _ => Payload::Skip,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn parses_status_and_headers_with_lf_only() {
        let r =
            parse_response(b"HTTP/1.1 200 OK\nContent-Type:text/html\nX: a\n  b\n\n<p>x").unwrap();
        assert_eq!(r.status, 200);
        assert_eq!(r.header("content-type"), Some("text/html"));
        assert_eq!(r.header("x"), Some("a b"));
        assert_eq!(r.body, b"<p>x");
    }

    #[test]
    fn dechunks_and_detects_breakage() {
        assert_eq!(
            dechunk(b"5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n").unwrap(),
            Some(b"hello world".to_vec())
        );
        assert_eq!(dechunk(b"<html>not chunked</html>").unwrap(), None);
        assert!(dechunk(b"5\r\nhello\r\nzz\r\nxx").is_err());
        assert!(dechunk(b"ff\r\nshort").is_err());
        assert!(dechunk(b"3\r\nabcX").is_err());
    }

    #[test]
    fn bad_chunking_falls_back_to_raw_with_warning() {
        let block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n<p>hi\r\nZZ\r\n";
        let mut w = Vec::new();
        let p = http_payload(block, 1 << 20, &mut w);
        assert_eq!(
            p,
            Payload::Page(b"5\r\n<p>hi\r\nZZ\r\n".to_vec(), Some("text/html".into()))
        );
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("bad chunked encoding"), "{w:?}");
    }

    #[test]
    fn gzip_content_encoding_and_archiver_quirk() {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(b"<html>zipped</html>").ok();
        let mut block =
            b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Type: text/html\r\n\r\n"
                .to_vec();
        block.extend_from_slice(&e.finish().unwrap_or_default());
        let mut w = Vec::new();
        assert_eq!(
            http_payload(&block, 1 << 20, &mut w),
            Payload::Page(b"<html>zipped</html>".to_vec(), Some("text/html".into()))
        );
        // Header says gzip but the archiver stored the decoded body.
        let plain = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Type: text/html\r\n\r\n<html>plain</html>";
        assert_eq!(
            http_payload(plain, 1 << 20, &mut w),
            Payload::Page(b"<html>plain</html>".to_vec(), Some("text/html".into()))
        );
        assert!(w.is_empty(), "{w:?}");
    }

    #[test]
    fn deflate_zlib_and_raw() {
        for zlib in [true, false] {
            let data = b"<html>deflated</html>";
            let comp = if zlib {
                let mut e =
                    flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
                e.write_all(data).ok();
                e.finish().unwrap_or_default()
            } else {
                let mut e =
                    flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
                e.write_all(data).ok();
                e.finish().unwrap_or_default()
            };
            let mut block = b"HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\n\r\n".to_vec();
            block.extend_from_slice(&comp);
            let mut w = Vec::new();
            assert_eq!(
                http_payload(&block, 1 << 20, &mut w),
                Payload::Page(data.to_vec(), None)
            );
        }
    }

    #[test]
    fn non_html_and_non_2xx_are_skipped_silently() {
        let mut w = Vec::new();
        assert_eq!(
            http_payload(
                b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n\x89PNG",
                1 << 20,
                &mut w
            ),
            Payload::Skip
        );
        assert_eq!(
            http_payload(
                b"HTTP/1.1 301 Moved\r\nContent-Type: text/html\r\n\r\n<html>",
                1 << 20,
                &mut w
            ),
            Payload::Skip
        );
        // No Content-Type: sniffed.
        assert_eq!(
            http_payload(
                b"HTTP/1.0 200 OK\r\n\r\n  <!doctype html><p>",
                1 << 20,
                &mut w
            ),
            Payload::Page(b"  <!doctype html><p>".to_vec(), None)
        );
        assert_eq!(
            http_payload(b"HTTP/1.0 200 OK\r\n\r\n{\"json\": 1}", 1 << 20, &mut w),
            Payload::Skip
        );
        assert!(w.is_empty());
    }

    #[test]
    fn sniffing() {
        assert!(sniff_html(b"\xef\xbb\xbf\n <HTML lang=en>"));
        assert!(sniff_html(b"<!-- c --><p>"));
        assert!(!sniff_html(b"<abbr>"));
        assert!(!sniff_html(b"<?xml version"));
        assert!(!sniff_html(b"<p"));
    }
}
