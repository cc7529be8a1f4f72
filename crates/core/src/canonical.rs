//! URL canonicalization: one string per resource, the key of the seen set
//! and of dedup. A key is an identity, never a URL to request: the crawler
//! requests the URL as linked ([`Canonicalizer::request`]), because sites
//! exist where parameter order or spelling matters.
//!
//! Parsing with the `url` crate (WHATWG URL standard) already lowercases the
//! scheme and host, converts IDN hosts to punycode, drops default ports and
//! resolves `.`/`..` segments (also `%2e` spellings). On top of that,
//! [`Canonicalizer`] applies always-on rules and the switchable rules of
//! [`CanonicalConfig`], in this order:
//!
//! 1. only `http` and `https` URLs with a host are accepted; a host with a
//!    label over 63 bytes or longer than 253 bytes (after punycode) is
//!    rejected (DNS cannot resolve it: an invalid IDN label punycodes into
//!    such a label);
//! 2. userinfo (`user:pw@`) is removed: credentials are not part of the
//!    resource's identity (and the crawler does not send credentials it
//!    finds in links);
//! 3. trailing dots of the host are removed (`strip_host_dot`);
//! 4. the fragment is dropped (`drop_fragment`);
//! 5. path: percent-escapes of unreserved characters decoded and hex
//!    uppercased (`normalize_percent`); escapes of `|`, `^`, `[`, `]`
//!    decoded, as the URL standard leaves them raw in a path (so `%7C` and
//!    `|` are one key); `;name=value` path parameters named in
//!    `drop_params` removed (`drop_path_params`), trailing slashes
//!    removed (`trailing_slash = "strip"`: all of them, so that a key is a
//!    fixed point); dot segments that this exposes are resolved again;
//! 6. query: pairs normalized as the path, `%20` written `+` (one
//!    spelling of a space in a form-encoded query), the characters the URL
//!    standard leaves raw in a query but RFC 3986 does not allow there
//!    (`|`, `^`, `` ` ``, `[`, `]`, `{`, `}`, `\`) percent-encoded (so `|` and
//!    `%7C` are one key); empty pairs and an empty query removed
//!    (`drop_empty_query`), tracking/session parameters removed
//!    (`drop_params`), then sorted by name, stably (`sort_query`);
//! 7. the result longer than `max_url_len` is rejected.
//!
//! Canonicalizing a canonical URL returns it unchanged (a property test
//! checks this on arbitrary input), two spellings of one URL give one key
//! (another property test), and the decided differences from w3lib's
//! `canonicalize_url` are a table test.

use neardup_api::SettingError;
use serde::{Deserialize, Serialize};

use std::borrow::Cow;
use std::collections::HashSet;

use url::Url;

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
    /// A host DNS cannot resolve: a label over 63 bytes or a name over
    /// 253 bytes (after punycode).
    #[error("host name too long for DNS: {0}")]
    BadHost(String),
    /// Longer than `canonical.max_url_len`.
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

    /// The URL to request for a parsed link or seed: the URL as the URL
    /// standard parser left it (resolved against its base, scheme and host
    /// lowercased, default port dropped, dot segments resolved, characters
    /// the standard encodes percent-encoded), with userinfo removed and the
    /// fragment too when `drop_fragment` is on (it is never sent). Query
    /// order and spelling are kept: the server sees what the page linked.
    /// Its key is `normalize(request)`.
    ///
    /// # Errors
    /// As [`Canonicalizer::canonicalize`] (the key is checked too, so a
    /// request always has a key).
    pub fn request(&self, url: Url) -> Result<Url, CanonError> {
        self.request_and_key(url).map(|(url, _)| url)
    }

    /// The request URL and the key of `href` resolved against `base` (a
    /// link): see [`Canonicalizer::request`].
    ///
    /// # Errors
    /// As [`Canonicalizer::canonicalize`].
    pub fn resolve(&self, base: &Url, href: &str) -> Result<(Url, Url), CanonError> {
        self.check_raw_len(href)?;
        let url = base
            .join(href)
            .map_err(|e| CanonError::Unparseable(e.to_string()))?;
        self.request_and_key(url)
    }

    /// [`Canonicalizer::resolve`] of a link the extractor has resolved
    /// already (`Extracted::links`): the same request URL and key, without
    /// serializing and parsing the URL again.
    ///
    /// # Errors
    /// As [`Canonicalizer::resolve`].
    pub fn resolve_parsed(&self, url: Url) -> Result<(Url, Url), CanonError> {
        self.check_raw_len(url.as_str())?;
        self.request_and_key(url)
    }

    /// The request URL and key of a resolved link (the common tail of
    /// [`Canonicalizer::resolve`] and [`Canonicalizer::resolve_parsed`]).
    fn request_and_key(&self, mut url: Url) -> Result<(Url, Url), CanonError> {
        check_http_host(&url)?;
        strip_userinfo(&mut url);
        if self.config.drop_fragment {
            url.set_fragment(None);
        }
        let key = self.normalize(url.clone())?;
        Ok((url, key))
    }

    /// Applies the rules to a parsed URL.
    ///
    /// # Errors
    /// As [`Canonicalizer::canonicalize`].
    pub fn normalize(&self, mut url: Url) -> Result<Url, CanonError> {
        let c = &self.config;
        check_http_host(&url)?;
        strip_userinfo(&mut url);
        let host = url.host_str().unwrap_or_default();
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
            let path = path.into_owned();
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

    fn canonical_path<'p>(&self, path: &'p str) -> Cow<'p, str> {
        let c = &self.config;
        // Segments change only through their escapes and their parameters:
        // most paths have neither and are kept as they are.
        let mut out = if path.bytes().any(|b| b == b'%' || b == b';') {
            Cow::Owned(self.canonical_segments(path))
        } else {
            Cow::Borrowed(path)
        };
        if c.trailing_slash == TrailingSlash::Strip && out.len() > 1 && out.ends_with('/') {
            let trimmed = out.trim_end_matches('/');
            out = if trimmed.is_empty() {
                Cow::Borrowed("/")
            } else {
                Cow::Owned(trimmed.to_owned())
            };
        }
        out
    }

    /// A path's segments with their escapes normalized and dropped path
    /// parameters removed.
    fn canonical_segments(&self, path: &str) -> String {
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
            let segment = decode_path_raw(&segment);
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
            let pair = encode_query_raw(&pair);
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

/// Rejects what is not an http(s) URL with a host DNS can resolve.
fn check_http_host(url: &Url) -> Result<(), CanonError> {
    if url.scheme() != "http" && url.scheme() != "https" {
        return Err(CanonError::Scheme(url.scheme().to_owned()));
    }
    let host = url.host_str().ok_or(CanonError::NoHost)?;
    if host.is_empty() {
        return Err(CanonError::NoHost);
    }
    if let Some(url::Host::Domain(name)) = url.host() {
        let name = name.strip_suffix('.').unwrap_or(name);
        if name.len() > 253 || name.split('.').any(|label| label.len() > 63) {
            return Err(CanonError::BadHost(name.chars().take(80).collect()));
        }
    }
    Ok(())
}

/// Removes `user:password@` (setters fail only on URLs without a host,
/// which are rejected before).
fn strip_userinfo(url: &mut Url) {
    if !url.username().is_empty() {
        let _ = url.set_username("");
    }
    if url.password().is_some() {
        let _ = url.set_password(None);
    }
}

/// Decodes `%7C`, `%5E`, `%5B`, `%5D` (any hex case) in a path: the URL
/// standard leaves `|`, `^`, `[`, `]` raw in a path, so the raw spelling is
/// the one a re-parse keeps.
fn decode_path_raw(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    let mut rest = segment;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let esc = rest.get(at..at + 3).unwrap_or(&rest[at..]);
        let decoded = match esc.to_ascii_uppercase().as_str() {
            "%7C" => Some('|'),
            "%5E" => Some('^'),
            "%5B" => Some('['),
            "%5D" => Some(']'),
            _ => None,
        };
        match decoded {
            Some(ch) => {
                out.push(ch);
                rest = &rest[at + 3..];
            }
            None => {
                out.push('%');
                rest = &rest[at + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Percent-encodes, in a query pair, the characters the URL standard
/// leaves raw there but RFC 3986 does not allow in a query (`|` `^` `` ` ``
/// `[` `]` `{` `}` `\`), and writes a space `+` instead of `%20`: one
/// spelling for each (w3lib's `canonicalize_url` agrees).
fn encode_query_raw(pair: &str) -> String {
    let mut out = String::with_capacity(pair.len());
    let mut rest = pair;
    while let Some((at, ch)) = rest
        .char_indices()
        .find(|&(i, c)| "|^`[]{}\\".contains(c) || rest[i..].starts_with("%20"))
    {
        out.push_str(&rest[..at]);
        if ch == '%' {
            out.push('+');
            rest = &rest[at + 3..];
        } else {
            out.push_str(&format!("%{:02X}", u32::from(ch)));
            rest = &rest[at + 1..];
        }
    }
    out.push_str(rest);
    out
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
/// written `%25`, as w3lib does: left alone, it could meet a decoded hex
/// digit (`%%30a` -> `%0a`) and the next pass would read an escape, so the
/// key would not be a fixed point.
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
            out.push_str("%25");
            i += 1;
            continue;
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

/// What to do with a trailing slash at the end of a URL path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrailingSlash {
    /// Leave paths as they are: `/a` and `/a/` stay distinct (they can be
    /// different resources; servers usually redirect one to the other).
    Keep,
    /// Remove the trailing slashes (all of them, so a key is a fixed
    /// point: `/a//` -> `/a`) from any path but `/`.
    Strip,
}

/// URL canonicalization rules (see [`Canonicalizer`]): they make the
/// key of a URL (seen set, dedup), never the URL requested. Lowercasing the
/// scheme and host, IDN to punycode, dropping default ports and resolving
/// dot segments are done by every URL parse (WHATWG URL standard) and are
/// always on: they never merge distinct resources; so are removing
/// userinfo and the one-spelling rules for `| ^ [ ] { }` and `%20`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CanonicalConfig {
    /// Drop `#fragment`s (never sent to the server).
    pub drop_fragment: bool,
    /// Decode percent-encoded unreserved characters (`%7E` -> `~`) and
    /// uppercase the hex digits of the remaining escapes (RFC 3986 6.2.2).
    pub normalize_percent: bool,
    /// Sort query parameters by name (stable: repeated names keep order).
    pub sort_query: bool,
    /// Remove query parameters with these names (ASCII case-insensitive; a
    /// trailing `*` matches a prefix).
    pub drop_params: Vec<String>,
    /// Also remove `;name=value` path parameters whose name is in
    /// `drop_params` (`/a;jsessionid=X` -> `/a`).
    pub drop_path_params: bool,
    /// Remove an empty query (`/a?` -> `/a`) and empty `&&` pairs.
    pub drop_empty_query: bool,
    /// Remove the trailing dot of a fully qualified host (`example.com.`).
    pub strip_host_dot: bool,
    /// Trailing-slash policy.
    pub trailing_slash: TrailingSlash,
    /// Longest canonical URL in bytes; longer URLs are rejected.
    pub max_url_len: usize,
}

impl Default for CanonicalConfig {
    fn default() -> Self {
        let params = [
            "utm_*",
            "gclid",
            "dclid",
            "gbraid",
            "wbraid",
            "fbclid",
            "msclkid",
            "yclid",
            "mc_cid",
            "mc_eid",
            "_ga",
            "_hsenc",
            "_hsmi",
            "igshid",
            "sessionid",
            "session_id",
            "jsessionid",
            "phpsessid",
            "aspsessionid*",
            "cfid",
            "cftoken",
            "sid",
        ];
        CanonicalConfig {
            drop_fragment: true,
            normalize_percent: true,
            sort_query: true,
            drop_params: params.iter().map(|p| (*p).to_owned()).collect(),
            drop_path_params: true,
            drop_empty_query: true,
            strip_host_dot: true,
            trailing_slash: TrailingSlash::Keep,
            max_url_len: 2048,
        }
    }
}

impl CanonicalConfig {
    /// Checks every range of `[canonical]`.
    ///
    /// # Errors
    /// The first bad key, its value and what is allowed.
    pub fn validate(&self) -> Result<(), SettingError> {
        SettingError::range("canonical.max_url_len", self.max_url_len, 64, 65_536)?;
        for p in &self.drop_params {
            if p.is_empty() || p == "*" {
                return Err(SettingError::new(
                    "canonical.drop_params",
                    format!("{p:?}"),
                    "entries must be names or prefixes ending in `*`, not empty",
                ));
            }
        }
        Ok(())
    }
}

/// The site of a URL: its lowercased host, or `"-"` when it has none.
///
/// The decision layer asks this of the URL of every page it compares a
/// page with (same site, same folder depth), so the common spelling is
/// read directly (`plain_host`); anything else is what the `url` crate's
/// parse says.
pub fn site_of(url: &str) -> String {
    if let Some(host) = plain_host(url) {
        return host.to_ascii_lowercase();
    }
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
        .unwrap_or_else(|| "-".into())
}

/// The host of `url` when it is spelled so plainly that the URL standard
/// leaves it as written (up to ASCII case): `http://` or `https://`, then
/// an authority of a host and an optional port (a number up to 65535),
/// nothing else (no userinfo, no escapes, no space), ended by `/`, `?`,
/// `#` or the end. The host is dot-separated labels of ASCII letters,
/// digits and hyphens, none empty and none punycode (`xn--`, which the
/// standard validates); its last label starts with a letter (a number
/// there makes the standard parse the host as an IPv4 address and
/// rewrite it: `0x7f.1` is `127.0.0.1`), or the whole host is an IPv4
/// address in its canonical form (four decimal parts up to 255, no
/// leading zeros). `None` for anything else: the caller parses.
fn plain_host(url: &str) -> Option<&str> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))?;
    let end = rest.find(['/', '?', '#', '\\']).unwrap_or(rest.len());
    let authority = rest.get(..end)?;
    let (host, port) = match authority.split_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (authority, None),
    };
    let port_ok = |p: &str| {
        p.len() <= 5
            && p.bytes().all(|b| b.is_ascii_digit())
            && (p.is_empty() || p.parse::<u32>().is_ok_and(|n| n <= 65535))
    };
    if port.is_some_and(|p| !port_ok(p)) {
        return None;
    }
    let mut labels = host.split('.');
    let last = labels.next_back()?;
    let plain_label = |l: &str| {
        !l.is_empty()
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !l.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("xn--"))
    };
    let named = plain_label(last)
        && last.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
        && labels.all(plain_label);
    (named || canonical_ipv4(host)).then_some(host)
}

/// Whether `host` is an IPv4 address as the URL standard serializes one:
/// four decimal parts, each 0 to 255 without leading zeros.
fn canonical_ipv4(host: &str) -> bool {
    let mut parts = 0;
    for part in host.split('.') {
        parts += 1;
        let plain = !part.is_empty()
            && part.len() <= 3
            && part.bytes().all(|b| b.is_ascii_digit())
            && (part == "0" || !part.starts_with('0'))
            && part.parse::<u16>().is_ok_and(|n| n <= 255);
        if !plain {
            return false;
        }
    }
    parts == 4
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

    /// What `site_of` gave before its plain path: the `url` crate's host.
    fn parsed_host(u: &str) -> String {
        url::Url::parse(u)
            .ok()
            .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
            .unwrap_or_else(|| "-".into())
    }

    /// `site_of`'s plain path against the `url` crate's parse, on the
    /// spellings that decide which path is taken.
    #[test]
    fn plain_hosts_are_what_the_url_standard_says() {
        let cases = [
            "http://example.com/a",
            "https://Docs.Example.ORG:8443/x?y#z",
            "http://127.0.0.1:18082/std/index.html",
            "http://0x7f.1/",
            "http://1.2.3/",
            "http://127.0.0.01/",
            "http://256.1.1.1/",
            "http://a..b/",
            "http://a.b./",
            "http://xn--nxasmq6b.com/",
            "http://user@example.com/",
            "http://example.com:99999/",
            "http://exa%41mple.com/",
            "http://example.com\\path",
            "HTTP://example.com/",
            " http://example.com/",
            "http://-a-.com/",
            "http://a.123/",
            "http://a.1b/",
            "http:///a.com/",
            "http://",
            "mailto:a@b.c",
        ];
        for u in cases {
            assert_eq!(site_of(u), parsed_host(u), "{u}");
        }
        assert_eq!(plain_host("http://127.0.0.1:18082/a"), Some("127.0.0.1"));
        assert_eq!(
            plain_host("https://Docs.Example.ORG:8443/x"),
            Some("Docs.Example.ORG")
        );
        assert_eq!(plain_host("http://0x7f.1/"), None);
        assert_eq!(plain_host("http://user@example.com/"), None);
    }

    proptest! {
        /// The same on URLs built from the pieces that matter: letters of
        /// both cases, digits, hyphens, dots, ports, userinfo, escapes.
        #[test]
        fn site_of_is_the_parsed_host(
            scheme in prop::sample::select(vec!["http://", "https://", "HTTP://", "ftp://"]),
            labels in prop::collection::vec(prop::sample::select(vec![
                "a", "Zb", "0", "00", "1", "255", "256", "0x7f", "0X1f", "x", "xn--a", "XN--nxa", "",
                "-", "a-b", "%41", "u@h", "1a", "a1", "é",
            ]), 1..5),
            port in prop::sample::select(vec!["", ":", ":80", ":8080", ":65535", ":65536", ":123456", ":x", ":1:2"]),
            path in prop::sample::select(vec!["", "/", "/a/b.html", "?q", "#f", "\\p"]),
        ) {
            let u = format!("{scheme}{}{port}{path}", labels.join("."));
            prop_assert_eq!(site_of(&u), parsed_host(&u), "{}", u);
        }
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
            // A stray `%` is escaped, so a decoded hex digit after it
            // never forms an escape on the next pass.
            ("http://e.com/100%", "http://e.com/100%25"),
            ("http://Ex.com?%%30a", "http://ex.com/?%250a"),
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
        // Every trailing slash: stripping one would not be a fixed point
        // (`/dir//` -> `/dir/` -> `/dir`).
        assert_eq!(canon_with(&strip, "http://e.com/dir//"), "http://e.com/dir");
        assert_eq!(canon_with(&strip, "http://e.com/"), "http://e.com/");
        assert_eq!(
            canon_with(&strip, "http://e.com/a/?q=1"),
            "http://e.com/a?q=1"
        );
    }

    /// The decided differences from w3lib's `canonicalize_url` (w3lib 2.x
    /// outputs recorded by running it), and where the two agree on the
    /// cases issue 16 named. Each row: input, w3lib's result, ours.
    #[test]
    fn decided_differences_from_w3lib() {
        let long_label = format!("http://{}.com/", "\u{e9}".repeat(77));
        let rows: [(&str, &str, &str); 16] = [
            // Credentials are not identity (w3lib keeps them).
            (
                "http://user:pw@e.com/a",
                "http://user:pw@e.com/a",
                "http://e.com/a",
            ),
            // A space in a query: `+` and `%20` are one spelling (agree).
            (
                "http://e.com/s?q=a%20b",
                "http://e.com/s?q=a+b",
                "http://e.com/s?q=a+b",
            ),
            (
                "http://e.com/s?q=a+b",
                "http://e.com/s?q=a+b",
                "http://e.com/s?q=a+b",
            ),
            // A literal plus stays distinct (agree).
            (
                "http://e.com/s?x=a%2Bb",
                "http://e.com/s?x=a%2Bb",
                "http://e.com/s?x=a%2Bb",
            ),
            // Raw `| ^ [ ] { }` in a query are encoded (agree).
            (
                "http://e.com/s?x=a|b^c",
                "http://e.com/s?x=a%7Cb%5Ec",
                "http://e.com/s?x=a%7Cb%5Ec",
            ),
            (
                "http://e.com/s?x=a%7Cb%5Ec",
                "http://e.com/s?x=a%7Cb%5Ec",
                "http://e.com/s?x=a%7Cb%5Ec",
            ),
            (
                "http://e.com/s?x=[1]",
                "http://e.com/s?x=%5B1%5D",
                "http://e.com/s?x=%5B1%5D",
            ),
            (
                "http://e.com/s?x=a{b}",
                "http://e.com/s?x=a%7Bb%7D",
                "http://e.com/s?x=a%7Bb%7D",
            ),
            // ... and decoded in a path, where the URL standard keeps them
            // raw (agree for `|`).
            ("http://e.com/a%7Cb", "http://e.com/a|b", "http://e.com/a|b"),
            // Default port dropped (w3lib keeps `:80`).
            (
                "http://E.com:80/a/./b/../c",
                "http://e.com:80/a/c",
                "http://e.com/a/c",
            ),
            // Host trailing dot removed (w3lib keeps it).
            (
                "http://example.com./a",
                "http://example.com./a",
                "http://example.com/a",
            ),
            // Tracking and session parameters removed (w3lib keeps them).
            (
                "http://e.com/a?gclid=1&id=3",
                "http://e.com/a?gclid=1&id=3",
                "http://e.com/a?id=3",
            ),
            (
                "http://e.com/cart;jsessionid=0A1B?x=1",
                "http://e.com/cart;jsessionid=0A1B?x=1",
                "http://e.com/cart?x=1",
            ),
            // Unreserved escapes decoded (agree).
            (
                "http://e.com/%7euser/%41",
                "http://e.com/~user/A",
                "http://e.com/~user/A",
            ),
            // Empty pairs and an empty query removed (agree).
            (
                "http://e.com/a?x=1&&y=2",
                "http://e.com/a?x=1&y=2",
                "http://e.com/a?x=1&y=2",
            ),
            // Sorted query (agree).
            (
                "http://e.com/?b=1&a=2",
                "http://e.com/?a=2&b=1",
                "http://e.com/?a=2&b=1",
            ),
        ];
        let mut differ = 0;
        for (input, w3lib, ours) in rows {
            assert_eq!(canon(input), ours, "input {input}");
            differ += usize::from(w3lib != ours);
        }
        assert_eq!(differ, 5, "decided differences");
        // A 77-character IDN label punycodes into a label DNS cannot carry:
        // rejected (w3lib leaves the Unicode host as it is).
        assert!(
            canon(&long_label).starts_with("ERR host name too long"),
            "{}",
            canon(&long_label)
        );
        assert!(matches!(
            Canonicalizer::new(&CanonicalConfig::default()).canonicalize(&long_label),
            Err(CanonError::BadHost(_))
        ));
        // 63 bytes is still a label.
        let ok = format!("http://{}.com/", "a".repeat(63));
        assert_eq!(canon(&ok), ok);
    }

    #[test]
    fn request_urls_keep_what_was_linked() {
        let c = Canonicalizer::new(&CanonicalConfig::default());
        let base = Url::parse("http://e.com/a/page.html").unwrap();
        let (request, key) = c
            .resolve(&base, "list.html?b=1&a=2&utm_source=x#top")
            .unwrap();
        assert_eq!(
            request.as_str(),
            "http://e.com/a/list.html?b=1&a=2&utm_source=x"
        );
        assert_eq!(key.as_str(), "http://e.com/a/list.html?a=2&b=1");
        let (request, key) = c.resolve(&base, "/caf%c3%a9.html").unwrap();
        assert_eq!(request.as_str(), "http://e.com/caf%c3%a9.html");
        assert_eq!(key.as_str(), "http://e.com/caf%C3%A9.html");
        // Credentials found in a link are not sent.
        let (request, _) = c.resolve(&base, "http://u:p@e.com/x").unwrap();
        assert_eq!(request.as_str(), "http://e.com/x");
        assert_eq!(
            c.request(Url::parse("http://e.com/x?z=1&a=2#f").unwrap())
                .unwrap()
                .as_str(),
            "http://e.com/x?z=1&a=2"
        );
        assert_eq!(
            c.resolve(&base, "mailto:a@b.c"),
            Err(CanonError::Scheme("mailto".into()))
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

    /// Characters of a path segment or query part, each with the ways of
    /// writing it that the URL standard or RFC 3986 treat as the same.
    const PATH_CHARS: &[char] = &[
        'a', 'Z', '7', '-', '_', '~', '|', '^', '[', ']', ' ', '\u{e9}',
    ];
    const QUERY_CHARS: &[char] = &[
        'a', 'Z', '7', '-', '_', '~', '|', '^', '[', ']', '{', '}', '`', '\\', ' ', '\'', '\u{e9}',
    ];

    /// One spelling of `c`, picked by `pick`: raw, or percent-encoded
    /// (UTF-8) in upper or lower case hex; a space in a query may be `+`.
    fn spell(c: char, pick: u8, query: bool) -> String {
        let mut buf = [0u8; 4];
        let bytes = c.encode_utf8(&mut buf).as_bytes().to_vec();
        let enc = |lower: bool| {
            bytes
                .iter()
                .map(|b| {
                    if lower {
                        format!("%{b:02x}")
                    } else {
                        format!("%{b:02X}")
                    }
                })
                .collect::<String>()
        };
        // A raw space at the end of the input is trimmed by the parser: not
        // a spelling of the same URL.
        let raw = if c == ' ' {
            "%20".to_owned()
        } else {
            c.to_string()
        };
        match pick % 4 {
            1 => enc(false),
            2 => enc(true),
            3 if query && c == ' ' => "+".to_owned(),
            _ => raw,
        }
    }

    /// Characters with the spelling picks of the first and second URL.
    type Spelled = Vec<(char, u8, u8)>;

    fn spell_url(
        host: &str,
        segments: &[Spelled],
        pairs: &[(Spelled, Spelled)],
        second: bool,
        variant: u8,
    ) -> String {
        let pick = |&(_, a, b): &(char, u8, u8)| if second { b } else { a };
        let host: String = if second && variant & 1 == 1 {
            host.to_ascii_uppercase()
        } else {
            host.to_owned()
        };
        let mut s = format!("http://{host}");
        if second && variant & 2 == 2 {
            s.push_str(":80");
        }
        for seg in segments {
            s.push('/');
            if second && variant & 4 == 4 {
                s.push_str("./");
            }
            for ch in seg {
                s.push_str(&spell(ch.0, pick(ch), false));
            }
        }
        if segments.is_empty() {
            s.push('/');
        }
        for (i, (name, value)) in pairs.iter().enumerate() {
            s.push(if i == 0 { '?' } else { '&' });
            for ch in name {
                s.push_str(&spell(ch.0, pick(ch), true));
            }
            s.push('=');
            for ch in value {
                s.push_str(&spell(ch.0, pick(ch), true));
            }
        }
        if second && variant & 8 == 8 {
            s.push_str("#frag");
        }
        s
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Two spellings of one URL (host case, default port, dot
        /// segments, fragment, raw or percent-encoded characters in either
        /// hex case, `+` or `%20` for a query space) give one key.
        #[test]
        fn spellings_of_one_url_give_one_key(
            host in "[a-z][a-z0-9]{0,8}\\.(com|org)",
            segments in proptest::collection::vec(
                proptest::collection::vec((proptest::sample::select(PATH_CHARS), any::<u8>(), any::<u8>()), 1..6),
                0..4,
            ),
            pairs in proptest::collection::vec(
                (
                    proptest::collection::vec((proptest::sample::select(QUERY_CHARS), any::<u8>(), any::<u8>()), 1..4),
                    proptest::collection::vec((proptest::sample::select(QUERY_CHARS), any::<u8>(), any::<u8>()), 0..4),
                ),
                0..4,
            ),
            variant in any::<u8>(),
        ) {
            let c = Canonicalizer::new(&CanonicalConfig::default());
            let a = spell_url(&host, &segments, &pairs, false, variant);
            let b = spell_url(&host, &segments, &pairs, true, variant);
            let ka = c.canonicalize(&a).map(|u| u.to_string());
            let kb = c.canonicalize(&b).map(|u| u.to_string());
            prop_assert_eq!(&ka, &kb, "{} vs {}", a, b);
            // And the key is a fixed point.
            if let Ok(k) = ka {
                prop_assert_eq!(c.canonicalize(&k).map(|u| u.to_string()), Ok(k.clone()));
            }
        }

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

    proptest::proptest! {
        /// The fast path of `canonical_path` (a path without `%` or `;` is
        /// kept) is what the segment rules give: they change nothing there.
        #[test]
        fn paths_without_escapes_or_parameters_are_their_own_segments(
            path in "(/[a-zA-Z0-9._~!$&'()*+,=:@-]{0,8}){0,6}/?"
        ) {
            for config in [CanonicalConfig::default(), CanonicalConfig { drop_path_params: false, ..CanonicalConfig::default() }] {
                let c = Canonicalizer::new(&config);
                proptest::prop_assert_eq!(c.canonical_segments(&path), path.clone());
            }
        }
    }
}
