//! `report.html`: a static shell, the data as JSON in a script block, and
//! the script that renders the view named by the URL fragment.

use std::io::Write;

use super::Report;

const CSS: &str = include_str!("report.css");
const JS: &str = include_str!("report.js");

/// Writes the self-contained page for `report`.
///
/// # Errors
/// Write errors.
pub fn render_html(report: &Report, out: &mut dyn Write) -> std::io::Result<()> {
    let data = serde_json::to_string(report).map_err(std::io::Error::other)?;
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
    out.write_all(escape_script_json(&data).as_bytes())?;
    out.write_all(b"</script>\n<script>\n")?;
    out.write_all(JS.as_bytes())?;
    out.write_all(b"</script>\n</body>\n</html>\n")
}

/// JSON safe inside `<script>`: `<`, `>` and `&` become `\u` escapes (the
/// JSON value is unchanged), so no `</script>` or `<!--` can appear.
pub(crate) fn escape_script_json(json: &str) -> String {
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
}
