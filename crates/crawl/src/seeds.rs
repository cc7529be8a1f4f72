//! Seed lists: one URL per line, `#` comments, blank lines ignored.

use url::Url;

/// A seed line that is not an http(s) URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadSeed {
    /// 1-based line number.
    pub line: usize,
    /// The line's text (trimmed).
    pub text: String,
    /// Why it was rejected.
    pub message: String,
}

impl std::fmt::Display for BadSeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {:?}: {}", self.line, self.text, self.message)
    }
}

/// Parses a seed list. A `#` starts a comment anywhere on a line (URLs
/// with a fragment lose it, which the canonical form drops anyway). Bad
/// lines are returned with their line numbers; the good ones are kept in
/// order. No length limit: see [`parse_seeds_bytes`].
pub fn parse_seeds(text: &str) -> (Vec<Url>, Vec<BadSeed>) {
    parse_seeds_bytes(text.as_bytes(), usize::MAX)
}

/// Longest text of a bad line kept in its [`BadSeed`] (a 100,000-character
/// line is shown by its start).
const SHOWN_CHARS: usize = 120;

/// [`parse_seeds`] over the raw bytes of a seeds file, with a length cap.
///
/// A line that is not UTF-8 is a bad line with its number (shown with
/// U+FFFD for the bad bytes); the other lines are still used. A seed
/// longer than `max_len` bytes is a bad line too, saying so: the crawl
/// passes `canonical.max_url_len` (2,048 by default), the length
/// above which the frontier would refuse the URL anyway, so it is never
/// dropped silently.
pub fn parse_seeds_bytes(bytes: &[u8], max_len: usize) -> (Vec<Url>, Vec<BadSeed>) {
    let mut seeds = Vec::new();
    let mut bad = Vec::new();
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let Ok(raw) = std::str::from_utf8(raw) else {
            let lossy = String::from_utf8_lossy(raw);
            bad.push(BadSeed {
                line: i + 1,
                text: shown(lossy.trim()),
                message: "not UTF-8".into(),
            });
            continue;
        };
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if line.len() > max_len {
            bad.push(BadSeed {
                line: i + 1,
                text: shown(line),
                message: format!(
                    "URL of {} bytes is longer than the {max_len}-byte limit \
                     (canonical.max_url_len)",
                    line.len()
                ),
            });
            continue;
        }
        match parse_seed(line) {
            Ok(url) => seeds.push(url),
            Err(message) => bad.push(BadSeed {
                line: i + 1,
                text: line.to_owned(),
                message,
            }),
        }
    }
    (seeds, bad)
}

/// The start of a long line, marked as cut.
fn shown(text: &str) -> String {
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((at, _)) => format!("{}...", text.get(..at).unwrap_or(text)),
        None => text.to_owned(),
    }
}

/// One seed URL: absolute http(s) with a host.
///
/// # Errors
/// A message saying what is wrong.
pub fn parse_seed(text: &str) -> Result<Url, String> {
    let url = Url::parse(text.trim()).map_err(|e| e.to_string())?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("scheme `{}` is not http or https", url.scheme()));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err("no host".into());
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_blanks_and_bad_lines() {
        let text = "# seeds\n\nhttp://a.example/\n  https://b.example/x # trailing\nnot a url\nftp://c.example/\n";
        let (seeds, bad) = parse_seeds(text);
        let seeds: Vec<&str> = seeds.iter().map(Url::as_str).collect();
        assert_eq!(seeds, ["http://a.example/", "https://b.example/x"]);
        let lines: Vec<usize> = bad.iter().map(|b| b.line).collect();
        assert_eq!(lines, [5, 6]);
        assert!(bad[1].message.contains("ftp"), "{}", bad[1]);
    }

    #[test]
    fn a_non_utf8_line_and_an_overlong_seed_are_skipped_with_their_numbers() {
        let long = format!("http://a.example/{}", "x".repeat(100_000));
        let mut bytes = b"http://a.example/1\r\nhttp://b.example/\xff\xfe\n".to_vec();
        bytes.extend_from_slice(long.as_bytes());
        bytes.extend_from_slice(b"\nhttp://c.example/3\n");
        let (seeds, bad) = parse_seeds_bytes(&bytes, 2048);
        let seeds: Vec<&str> = seeds.iter().map(Url::as_str).collect();
        assert_eq!(seeds, ["http://a.example/1", "http://c.example/3"]);
        let lines: Vec<usize> = bad.iter().map(|b| b.line).collect();
        assert_eq!(lines, [2, 3]);
        assert!(bad[0].message.contains("UTF-8"), "{}", bad[0]);
        assert!(bad[1].message.contains("100017 bytes"), "{}", bad[1]);
        assert!(bad[1].text.len() < 200, "shown cut: {}", bad[1].text.len());
    }
}
