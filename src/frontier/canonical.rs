//! URL canonicalization: one string per resource, the key of the seen set.
//!
//! Parsing with the `url` crate (WHATWG URL standard) already lowercases the
//! scheme and host, converts IDN hosts to punycode, drops default ports and
//! resolves `.`/`..` segments (also `%2e` spellings). On top of that,
//! [`Canonicalizer`] applies the switchable rules of
//! [`CanonicalConfig`](crate::config::CanonicalConfig), in this order:
//!
//! 1. only `http` and `https` URLs with a host are accepted;
//! 2. trailing dots of the host are removed (`strip_host_dot`);
//! 3. the fragment is dropped (`drop_fragment`);
//! 4. path: percent-escapes of unreserved characters decoded and hex
//!    uppercased (`normalize_percent`), `;name=value` path parameters named
//!    in `drop_params` removed (`drop_path_params`), trailing slashes
//!    removed (`trailing_slash = "strip"`); dot segments that this exposes
//!    are resolved again;
//! 5. query: pairs normalized as the path, empty pairs and an empty query
//!    removed (`drop_empty_query`), tracking/session parameters removed
//!    (`drop_params`), then sorted by name, stably (`sort_query`);
//! 6. the result longer than `max_url_len` is rejected.
//!
//! Canonicalizing a canonical URL returns it unchanged (a property test
//! checks this on arbitrary input).

use std::collections::HashSet;

use url::Url;

use crate::config::{CanonicalConfig, TrailingSlash};

/// Why a string has no canonical URL.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CanonError {
    /// Not a URL, or not resolvable against the base.
    #[error("unparseable URL: {0}")]
    Unparseable(String),
    /// A scheme other than http and https (javascript:, mailto:, data:...).
    #[error("unsupported scheme `{0}`")]
    Scheme(String),
    /// An http(s) URL without a host name.
    #[error("URL has no host")]
    NoHost,
    /// Longer than `crawl.canonical.max_url_len`.
    #[error("URL is {len} bytes, longer than the {max}-byte limit")]
    TooLong {
        /// Length of the URL (canonical form, or raw input when far too long).
        len: usize,
        /// The configured limit.
        max: usize,
    },
}

/// Applies the configured canonicalization rules. Cheap to share (`&self`).
#[derive(Clone, Debug)]
pub struct Canonicalizer {
    config: CanonicalConfig,
    /// Lowercased parameter names dropped exactly.
    drop_exact: HashSet<String>,
    /// Lowercased parameter name prefixes (entries ending in `*`).
    drop_prefix: Vec<String>,
}

impl Canonicalizer {
    /// A canonicalizer with these rules.
    pub fn new(config: &CanonicalConfig) -> Canonicalizer {
        let mut drop_exact = HashSet::new();
        let mut drop_prefix = Vec::new();
        for p in &config.drop_params {
            let p = p.to_ascii_lowercase();
            match p.strip_suffix('*') {
                Some(prefix) => drop_prefix.push(prefix.to_owned()),
                None => {
                    drop_exact.insert(p);
                }
            }
        }
        Canonicalizer {
            config: config.clone(),
            drop_exact,
            drop_prefix,
        }
    }

    /// The canonical form of an absolute URL.
    ///
    /// # Errors
    /// [`CanonError`] saying why the string is not a crawlable URL.
    pub fn canonicalize(&self, input: &str) -> Result<Url, CanonError> {
        self.check_raw_len(input)?;
        let url = Url::parse(input).map_err(|e| CanonError::Unparseable(e.to_string()))?;
        self.normalize(url)
    }

    /// The canonical form of `href` resolved against `base` (a link).
    ///
    /// # Errors
    /// As [`Canonicalizer::canonicalize`].
    pub fn join(&self, base: &Url, href: &str) -> Result<Url, CanonError> {
        self.check_raw_len(href)?;
        let url = base
            .join(href)
            .map_err(|e| CanonError::Unparseable(e.to_string()))?;
        self.normalize(url)
    }

    /// Applies the rules to a parsed URL.
    ///
    /// # Errors
    /// As [`Canonicalizer::canonicalize`].
    pub fn normalize(&self, mut url: Url) -> Result<Url, CanonError> {
        let c = &self.config;
        if url.scheme() != "http" && url.scheme() != "https" {
            return Err(CanonError::Scheme(url.scheme().to_owned()));
        }
        let host = url.host_str().ok_or(CanonError::NoHost)?;
        if host.is_empty() {
            return Err(CanonError::NoHost);
        }
        if c.strip_host_dot && host.ends_with('.') {
            let trimmed = host.trim_end_matches('.').to_owned();
            if trimmed.is_empty() {
                return Err(CanonError::NoHost);
            }
            url.set_host(Some(&trimmed))
                .map_err(|e| CanonError::Unparseable(e.to_string()))?;
        }
        if c.drop_fragment {
            url.set_fragment(None);
        }

        let path = self.canonical_path(url.path());
        if path != url.path() {
            // The path setter re-parses, so dot segments exposed by the
            // rules above (`/a/.;sid=1/b`) are resolved as in a full parse.
            url.set_path(&path);
        }

        if let Some(query) = url.query() {
            let query = self.canonical_query(query);
            match query {
                Some(q) if q != url.query().unwrap_or_default() => url.set_query(Some(&q)),
                Some(_) => {}
                None => url.set_query(None),
            }
        }

        let len = url.as_str().len();
        if len > c.max_url_len {
            return Err(CanonError::TooLong {
                len,
                max: c.max_url_len,
            });
        }
        Ok(url)
    }

    /// Rejects absurdly long input before parsing it: percent-encoding can
    /// at most triple a URL and normalization only shrinks, so input this
    /// long can never fit.
    fn check_raw_len(&self, input: &str) -> Result<(), CanonError> {
        let max = self.config.max_url_len;
        if input.len() > max.saturating_mul(4) {
            return Err(CanonError::TooLong {
                len: input.len(),
                max,
            });
        }
        Ok(())
    }

    fn canonical_path(&self, path: &str) -> String {
        let c = &self.config;
        let mut out = String::with_capacity(path.len());
        for (i, segment) in path.split('/').enumerate() {
            if i > 0 {
                out.push('/');
            }
            let segment = if c.normalize_percent {
                normalize_percent(segment)
            } else {
                segment.to_owned()
            };
            if c.drop_path_params && segment.contains(';') {
                let mut parts = segment.split(';');
                out.push_str(parts.next().unwrap_or_default());
                for param in parts {
                    let name = param.split('=').next().unwrap_or_default();
                    if !self.is_dropped(name) {
                        out.push(';');
                        out.push_str(param);
                    }
                }
            } else {
                out.push_str(&segment);
            }
        }
        if c.trailing_slash == TrailingSlash::Strip && out.len() > 1 {
            let trimmed = out.trim_end_matches('/');
            out = if trimmed.is_empty() {
                "/".to_owned()
            } else {
                trimmed.to_owned()
            };
        }
        out
    }

    /// The canonical query, `None` when it should be removed.
    fn canonical_query(&self, query: &str) -> Option<String> {
        let c = &self.config;
        let mut pairs: Vec<String> = Vec::new();
        for pair in query.split('&') {
            if pair.is_empty() && c.drop_empty_query {
                continue;
            }
            let pair = if c.normalize_percent {
                normalize_percent(pair)
            } else {
                pair.to_owned()
            };
            let name = pair.split('=').next().unwrap_or_default();
            if self.is_dropped(name) {
                continue;
            }
            pairs.push(pair);
        }
        if c.sort_query {
            // Stable: `a=2&a=1` keeps its order (arrays, repeated filters).
            pairs.sort_by(|a, b| param_name(a).cmp(param_name(b)));
        }
        if pairs.is_empty() && c.drop_empty_query {
            return None;
        }
        Some(pairs.join("&"))
    }

    fn is_dropped(&self, raw_name: &str) -> bool {
        if self.drop_exact.is_empty() && self.drop_prefix.is_empty() {
            return false;
        }
        // Compare on the decoded spelling so `utm%5Fsource` is caught even
        // with `normalize_percent` off.
        let name = normalize_percent(raw_name).to_ascii_lowercase();
        self.drop_exact.contains(&name) || self.drop_prefix.iter().any(|p| name.starts_with(p))
    }
}

fn param_name(pair: &str) -> &str {
    pair.split('=').next().unwrap_or_default()
}

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Decodes `%XX` escapes of unreserved characters and uppercases the hex of
/// the others (RFC 3986 6.2.2.1-2). A `%` not followed by two hex digits is
/// left alone.
pub fn normalize_percent(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' {
            let hi = bytes.get(i + 1).copied().and_then(hex_value);
            let lo = bytes.get(i + 2).copied().and_then(hex_value);
            if let (Some(hi), Some(lo)) = (hi, lo) {
                let v = hi * 16 + lo;
                if is_unreserved(v) {
                    out.push(char::from(v));
                } else {
                    out.push('%');
                    out.push(char::from(b"0123456789ABCDEF"[usize::from(hi)]));
                    out.push(char::from(b"0123456789ABCDEF"[usize::from(lo)]));
                }
                i += 3;
                continue;
            }
        }
        // Copy the whole UTF-8 sequence starting here (non-ASCII bytes of a
        // parsed URL are already escaped, but this stays correct on any str).
        let len = utf8_len(b);
        out.push_str(s.get(i..i + len).unwrap_or_default());
        i += len;
    }
    out
}

fn utf8_len(first: u8) -> usize {
    match first {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn canon(input: &str) -> String {
        Canonicalizer::new(&CanonicalConfig::default())
            .canonicalize(input)
            .map(|u| u.to_string())
            .unwrap_or_else(|e| format!("ERR {e}"))
    }

    fn canon_with(config: &CanonicalConfig, input: &str) -> String {
        Canonicalizer::new(config)
            .canonicalize(input)
            .map(|u| u.to_string())
            .unwrap_or_else(|e| format!("ERR {e}"))
    }

    #[test]
    fn always_on_rules_from_the_url_standard() {
        let cases = [
            // Lowercase scheme and host; path case is kept.
            ("HTTP://Example.COM/A/b", "http://example.com/A/b"),
            // IDN to punycode.
            ("http://Bücher.example/", "http://xn--bcher-kva.example/"),
            // Default ports dropped, others kept.
            ("http://example.com:80/", "http://example.com/"),
            ("https://example.com:443/", "https://example.com/"),
            ("http://example.com:8080/", "http://example.com:8080/"),
            // Dot segments, also percent-encoded ones.
            ("http://example.com/a/./b/../c", "http://example.com/a/c"),
            ("http://example.com/a/%2E%2e/c", "http://example.com/c"),
            // Empty path becomes `/`.
            ("http://example.com", "http://example.com/"),
        ];
        for (input, want) in cases {
            assert_eq!(canon(input), want, "input {input}");
        }
    }

    #[test]
    fn fragment_rule() {
        assert_eq!(canon("http://e.com/a#top"), "http://e.com/a");
        let keep = CanonicalConfig {
            drop_fragment: false,
            ..CanonicalConfig::default()
        };
        assert_eq!(
            canon_with(&keep, "http://e.com/a#top"),
            "http://e.com/a#top"
        );
    }

    #[test]
    fn percent_rule() {
        let cases = [
            // Unreserved decoded, in path and query.
            ("http://e.com/%7Euser/%41%62", "http://e.com/~user/Ab"),
            ("http://e.com/?q=%2d%5F", "http://e.com/?q=-_"),
            // Reserved kept, hex uppercased.
            ("http://e.com/a%2fb?x=%3d%26", "http://e.com/a%2Fb?x=%3D%26"),
            // A stray `%` stays.
            ("http://e.com/100%", "http://e.com/100%"),
        ];
        for (input, want) in cases {
            assert_eq!(canon(input), want, "input {input}");
        }
        let off = CanonicalConfig {
            normalize_percent: false,
            ..CanonicalConfig::default()
        };
        assert_eq!(
            canon_with(&off, "http://e.com/%7euser"),
            "http://e.com/%7euser"
        );
    }

    #[test]
    fn query_sort_rule_is_stable() {
        assert_eq!(
            canon("http://e.com/?b=1&a=2&a=1"),
            "http://e.com/?a=2&a=1&b=1"
        );
        let off = CanonicalConfig {
            sort_query: false,
            ..CanonicalConfig::default()
        };
        assert_eq!(
            canon_with(&off, "http://e.com/?b=1&a=2"),
            "http://e.com/?b=1&a=2"
        );
    }

    #[test]
    fn tracking_and_session_params_rule() {
        let cases = [
            (
                "http://e.com/p?utm_source=x&id=3&UTM_Medium=y",
                "http://e.com/p?id=3",
            ),
            (
                "http://e.com/p?gclid=1&fbclid=2&msclkid=3",
                "http://e.com/p",
            ),
            (
                "http://e.com/p?PHPSESSID=ab&page=2",
                "http://e.com/p?page=2",
            ),
            ("http://e.com/p?utm%5Fsource=x&k=v", "http://e.com/p?k=v"),
            // Only whole names match (no `*`): `sidebar` is kept.
            ("http://e.com/p?sidebar=1&sid=9", "http://e.com/p?sidebar=1"),
            // Path parameters.
            (
                "http://e.com/cart;jsessionid=0A1B?x=1",
                "http://e.com/cart?x=1",
            ),
            ("http://e.com/a;JSESSIONID=1;v=2/b", "http://e.com/a;v=2/b"),
        ];
        for (input, want) in cases {
            assert_eq!(canon(input), want, "input {input}");
        }
        let keep = CanonicalConfig {
            drop_params: Vec::new(),
            ..CanonicalConfig::default()
        };
        assert_eq!(
            canon_with(&keep, "http://e.com/p?gclid=1"),
            "http://e.com/p?gclid=1"
        );
        let no_path = CanonicalConfig {
            drop_path_params: false,
            ..CanonicalConfig::default()
        };
        assert_eq!(
            canon_with(&no_path, "http://e.com/cart;jsessionid=1"),
            "http://e.com/cart;jsessionid=1"
        );
    }

    #[test]
    fn empty_query_rule() {
        assert_eq!(canon("http://e.com/a?"), "http://e.com/a");
        assert_eq!(canon("http://e.com/a?x=1&&y=2&"), "http://e.com/a?x=1&y=2");
        let keep = CanonicalConfig {
            drop_empty_query: false,
            ..CanonicalConfig::default()
        };
        assert_eq!(canon_with(&keep, "http://e.com/a?"), "http://e.com/a?");
    }

    #[test]
    fn host_dot_rule() {
        assert_eq!(canon("http://example.com./a"), "http://example.com/a");
        assert_eq!(canon("http://.../a"), "ERR URL has no host");
        let keep = CanonicalConfig {
            strip_host_dot: false,
            ..CanonicalConfig::default()
        };
        assert_eq!(
            canon_with(&keep, "http://example.com./a"),
            "http://example.com./a"
        );
    }

    #[test]
    fn trailing_slash_policy() {
        assert_eq!(canon("http://e.com/dir/"), "http://e.com/dir/");
        let strip = CanonicalConfig {
            trailing_slash: TrailingSlash::Strip,
            ..CanonicalConfig::default()
        };
        assert_eq!(canon_with(&strip, "http://e.com/dir//"), "http://e.com/dir");
        assert_eq!(canon_with(&strip, "http://e.com/"), "http://e.com/");
        assert_eq!(
            canon_with(&strip, "http://e.com/a/?q=1"),
            "http://e.com/a?q=1"
        );
    }

    #[test]
    fn rejections_have_reasons() {
        let c = Canonicalizer::new(&CanonicalConfig::default());
        assert_eq!(
            c.canonicalize("mailto:a@b.c"),
            Err(CanonError::Scheme("mailto".into()))
        );
        assert_eq!(
            c.canonicalize("ftp://e.com/"),
            Err(CanonError::Scheme("ftp".into()))
        );
        assert!(matches!(
            c.canonicalize("not a url"),
            Err(CanonError::Unparseable(_))
        ));
        assert!(matches!(
            c.canonicalize("http://[::1/"),
            Err(CanonError::Unparseable(_))
        ));
        let long = format!("http://e.com/{}", "a".repeat(2048));
        assert_eq!(
            c.canonicalize(&long),
            Err(CanonError::TooLong {
                len: long.len(),
                max: 2048
            })
        );
        // Exactly at the limit is fine.
        let fits = format!("http://e.com/{}", "a".repeat(2048 - 13));
        assert_eq!(fits.len(), 2048);
        assert!(c.canonicalize(&fits).is_ok());
    }

    #[test]
    fn join_resolves_relative_links() {
        let c = Canonicalizer::new(&CanonicalConfig::default());
        let base = Url::parse("http://e.com/a/b/page.html?x=1").unwrap();
        let cases = [
            ("../c?utm_campaign=z", "http://e.com/a/c"),
            ("//Other.COM/x#f", "http://other.com/x"),
            ("?b=2&a=1", "http://e.com/a/b/page.html?a=1&b=2"),
            ("  next.html  ", "http://e.com/a/b/next.html"),
        ];
        for (href, want) in cases {
            assert_eq!(c.join(&base, href).unwrap().as_str(), want, "href {href}");
        }
        assert_eq!(
            c.join(&base, "javascript:void(0)"),
            Err(CanonError::Scheme("javascript".into()))
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn never_panics_on_arbitrary_strings(s in ".{0,200}") {
            let c = Canonicalizer::new(&CanonicalConfig::default());
            let _ = c.canonicalize(&s);
            let base = Url::parse("http://e.com/a/b").unwrap();
            let _ = c.join(&base, &s);
        }

        #[test]
        fn idempotent_on_url_like_strings(
            path in "(/[a-zA-Z0-9%.;=_~-]{0,8}){0,5}/?",
            query in proptest::option::of("[a-zA-Z0-9%=&_;.~+-]{0,30}"),
            frag in proptest::option::of("[a-z]{0,5}"),
            host in "(Ex|ex|xn--bcher-kva|b\u{fc}cher)\\.(com|co\\.uk)\\.?",
            strip in any::<bool>(),
        ) {
            let mut config = CanonicalConfig::default();
            if strip {
                config.trailing_slash = TrailingSlash::Strip;
            }
            let c = Canonicalizer::new(&config);
            let mut s = format!("http://{host}{path}");
            if let Some(q) = query { s.push('?'); s.push_str(&q); }
            if let Some(f) = frag { s.push('#'); s.push_str(&f); }
            if let Ok(once) = c.canonicalize(&s) {
                let twice = c.canonicalize(once.as_str());
                prop_assert_eq!(twice.as_ref().map(Url::as_str), Ok(once.as_str()), "input {}", s);
            }
        }

        #[test]
        fn idempotent_on_arbitrary_strings(s in "(http|HTTP|https)://.{0,80}") {
            let c = Canonicalizer::new(&CanonicalConfig::default());
            if let Ok(once) = c.canonicalize(&s) {
                let twice = c.canonicalize(once.as_str());
                prop_assert_eq!(twice.as_ref().map(Url::as_str), Ok(once.as_str()), "input {:?}", s);
            }
        }
    }
}
