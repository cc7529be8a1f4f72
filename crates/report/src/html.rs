//! `report.html`: a static shell, the data as JSON in a script block, and
//! the script that renders the view named by the URL fragment.

use std::io::Write;

use crate::model::Report;

const CSS: &str = include_str!("report.css");
const JS: &str = include_str!("report.js");

/// Writes the self-contained page for `report`.
///
/// # Errors
/// Write errors.
pub fn render_html(report: &Report, out: &mut dyn Write) -> std::io::Result<()> {
    out.write_all(
        b"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
          <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
          <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
          style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n\
          <title>neardup report</title>\n<style>\n",
    )?;
    out.write_all(CSS.as_bytes())?;
    out.write_all(
        b"</style>\n</head>\n<body>\n<header><a class=\"brand\" href=\"#/\">neardup</a>\
          <nav><a href=\"#/\" data-nav=\"overview\">Overview</a>\
          <a href=\"#/sites\" data-nav=\"sites\">Sites</a>\
          <a href=\"#/cross\" data-nav=\"cross\">Cross-site clusters</a></nav></header>\n\
          <main id=\"app\"><noscript>This report needs JavaScript; the same data is in \
          sites.csv and clusters.csv beside this file.</noscript></main>\n\
          <script type=\"application/json\" id=\"data\">",
    )?;
    // Streamed: the data can be tens of megabytes (the texts of every
    // clustered page); no copy of it is held.
    // serde_json writes token by token; buffered, the escaping sees runs of
    // 64 KiB and copies the clean stretches between escapes whole.
    let mut safe = ScriptSafe::new(&mut *out);
    {
        let mut buffered = std::io::BufWriter::with_capacity(1 << 16, &mut safe);
        serde_json::to_writer(&mut buffered, report).map_err(std::io::Error::other)?;
        buffered.flush()?;
    }
    safe.finish()?;
    out.write_all(b"</script>\n<script>\n")?;
    out.write_all(JS.as_bytes())?;
    out.write_all(b"</script>\n</body>\n</html>\n")
}

/// A writer applying [`escape_script_json`] to JSON streamed through it
/// (U+2028 and U+2029 may arrive split across writes).
struct ScriptSafe<'a> {
    out: &'a mut dyn Write,
    /// Leading bytes of a possible U+2028/U+2029 (`E2 80`) held back: 0-2.
    held: u8,
    buf: Vec<u8>,
}

impl<'a> ScriptSafe<'a> {
    fn new(out: &'a mut dyn Write) -> ScriptSafe<'a> {
        ScriptSafe {
            out,
            held: 0,
            buf: Vec::with_capacity(1 << 16),
        }
    }

    fn push(&mut self, b: u8) {
        match (self.held, b) {
            (0, 0xE2) => self.held = 1,
            (1, 0x80) => self.held = 2,
            (2, 0xA8) => {
                self.held = 0;
                self.buf.extend_from_slice(b"\\u2028");
            }
            (2, 0xA9) => {
                self.held = 0;
                self.buf.extend_from_slice(b"\\u2029");
            }
            (held, b) => {
                self.release(held);
                match b {
                    0xE2 => self.held = 1,
                    b'<' => self.buf.extend_from_slice(b"\\u003c"),
                    b'>' => self.buf.extend_from_slice(b"\\u003e"),
                    b'&' => self.buf.extend_from_slice(b"\\u0026"),
                    b => self.buf.push(b),
                }
            }
        }
    }

    /// Writes out held-back bytes that turned out not to start U+2028/9.
    fn release(&mut self, held: u8) {
        if held >= 1 {
            self.buf.push(0xE2);
        }
        if held == 2 {
            self.buf.push(0x80);
        }
        self.held = 0;
    }

    fn finish(mut self) -> std::io::Result<()> {
        let held = self.held;
        self.release(held);
        self.flush()
    }
}

/// Length of the run at the start of `data` that [`ScriptSafe`] copies as
/// it is: up to the first `<`, `>`, `&` or `E2` (the lead byte of U+2028
/// and U+2029, and of much typography: quotes, dashes). Searched with
/// `memchr` rather than a byte at a time: the report's data block is tens
/// of megabytes on a large crawl.
fn clean_run(data: &[u8]) -> usize {
    let markup = memchr::memchr3(b'<', b'>', b'&', data).unwrap_or(data.len());
    memchr::memchr(0xE2, &data[..markup]).unwrap_or(markup)
}

impl Write for ScriptSafe<'_> {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        let mut rest = data;
        while let Some((&first, after)) = rest.split_first() {
            if self.held == 0 {
                // Most of the data is text with nothing to escape: copy
                // each run up to the next byte that may need it at once.
                let clean = clean_run(rest);
                if clean > 0 {
                    self.buf.extend_from_slice(&rest[..clean]);
                    rest = &rest[clean..];
                    continue;
                }
            }
            self.push(first);
            rest = after;
        }
        if self.buf.len() >= 1 << 16 {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        self.out.flush()
    }
}

/// JSON safe inside `<script>` (the string version of [`ScriptSafe`],
/// kept as the tests' reference): `<`, `>` and `&` become `\u` escapes (the
/// JSON value is unchanged), so no `</script>` or `<!--` can appear.
#[cfg(test)]
fn escape_script_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len() + json.len() / 32);
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            // Valid in JSON, but line terminators in old JS parsers.
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_json_has_no_markup_and_parses_back() {
        let json = serde_json::to_string(&serde_json::json!({"t": "</script><!-- & >"})).unwrap();
        let esc = escape_script_json(&json);
        assert!(!esc.contains('<') && !esc.contains('>') && !esc.contains('&'));
        let back: serde_json::Value = serde_json::from_str(&esc).unwrap();
        assert_eq!(back["t"], "</script><!-- & >");
    }

    #[test]
    fn streamed_escaping_equals_the_string_version_whatever_the_splits() {
        // Long clean runs too, so that the vector search's full blocks
        // and tails both meet each special byte.
        let long = "x".repeat(70);
        let json = serde_json::to_string(&serde_json::json!({
            "t": "a\u{2028}b\u{2029}c</script>&\u{e2}\u{20ac}\u{2027}\u{2030}é<>",
            "u": format!("{long}<{long}\u{2028}{long}&{long}\u{201c}{long}>{long}"),
        }))
        .unwrap();
        let want = escape_script_json(&json);
        let bytes = json.as_bytes();
        // Pieces of 1 to 7 bytes, of 33 and 64, and the whole in one write.
        for split in (1..8).chain([33, 64, bytes.len()]) {
            let mut out = Vec::new();
            let mut safe = ScriptSafe::new(&mut out);
            for piece in bytes.chunks(split) {
                safe.write_all(piece).unwrap();
            }
            safe.finish().unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), want, "split {split}");
        }
    }
}
