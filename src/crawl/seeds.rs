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
/// order.
pub fn parse_seeds(text: &str) -> (Vec<Url>, Vec<BadSeed>) {
    let mut seeds = Vec::new();
    let mut bad = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
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
}
