//! [`IndexLocation`]: where a persistent index lives, parsed once from the
//! text a user gave (`--index`), so no caller has to guess a path's kind
//! from its spelling.

use std::fmt;
use std::path::PathBuf;

use crate::Error;
use crate::Result;

/// Where a persistent index lives: a redb file, or a namespace of a shared
/// Redis index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IndexLocation {
    /// An embedded redb file (created if missing where a command creates
    /// indexes).
    File(PathBuf),
    /// A shared index in Redis (`redis://`, `rediss://`, `redis+unix://`).
    Redis(RedisLocation),
}

/// The URL schemes of a Redis index.
const REDIS_SCHEMES: [&str; 3] = ["redis", "rediss", "redis+unix"];

impl IndexLocation {
    /// Parses an index location: text that starts with a URL scheme and
    /// `://` is a URL, and must be a Redis one
    /// (`redis://HOST:PORT[/DB][?ns=NAME]`, see [`RedisLocation::parse`]);
    /// anything else is a file path (write `./x://y` for a file whose
    /// name looks like a URL).
    ///
    /// # Errors
    /// [`Error::Argument`] for empty text, a URL of another scheme, or a
    /// malformed Redis URL (the message says what is wrong; a password in
    /// it is hidden).
    pub fn parse(text: &str) -> Result<IndexLocation> {
        let bad = |message: String| Error::Argument {
            name: "index".into(),
            message,
        };
        if text.is_empty() {
            return Err(bad(
                "empty: give a redb file path or redis://HOST:PORT[/DB][?ns=NAME]".into(),
            ));
        }
        let Some(scheme) = url_scheme(text) else {
            return Ok(IndexLocation::File(PathBuf::from(text)));
        };
        if !REDIS_SCHEMES.contains(&scheme.to_ascii_lowercase().as_str()) {
            return Err(bad(format!(
                "unsupported scheme `{scheme}://`: give a redb file path or \
                 redis://HOST:PORT[/DB][?ns=NAME] (also rediss://, redis+unix://)"
            )));
        }
        RedisLocation::parse(text).map(IndexLocation::Redis)
    }

    /// Returns true if and only if this is a shared Redis index.
    pub fn is_redis(&self) -> bool {
        matches!(self, IndexLocation::Redis(_))
    }
}

impl std::str::FromStr for IndexLocation {
    type Err = Error;

    fn from_str(text: &str) -> Result<IndexLocation> {
        IndexLocation::parse(text)
    }
}

impl fmt::Display for IndexLocation {
    /// The path, or the Redis URL with any password hidden.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IndexLocation::File(path) => write!(f, "{}", path.display()),
            IndexLocation::Redis(location) => f.write_str(&location.display()),
        }
    }
}

/// The scheme of `text` if it starts like a URL: `ALPHA *( ALPHA / DIGIT /
/// "+" / "-" / "." )` then `://` (RFC 3986 section 3.1).
fn url_scheme(text: &str) -> Option<&str> {
    let (scheme, _) = text.split_once("://")?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then_some(scheme)
}

/// Where a Redis index lives: `redis://HOST:PORT[/DB][?ns=NAME]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RedisLocation {
    /// The connection URL without the `ns` parameter.
    pub url: String,
    /// The namespace (hash tag) of this index.
    pub namespace: String,
}

impl RedisLocation {
    /// Parses `redis://HOST:PORT[/DB][?ns=NAME]` (also `rediss://` and
    /// `redis+unix://`, as the redis crate accepts them). The namespace
    /// defaults to `default`; it may hold letters, digits, `-`, `_`, `.`
    /// only, so it can never break the `{...}` hash tag.
    ///
    /// # Errors
    /// [`Error::Argument`] naming the problem for a malformed URL, an
    /// unknown query parameter or a bad namespace.
    pub fn parse(text: &str) -> Result<RedisLocation> {
        let bad = |message: String| Error::Argument {
            name: format!("index {}", redact(text)),
            message,
        };
        let mut url = url::Url::parse(text).map_err(|e| bad(format!("not a redis:// URL: {e}")))?;
        if !matches!(url.scheme(), "redis" | "rediss" | "redis+unix") {
            return Err(bad(format!(
                "scheme {:?}: expected redis://HOST:PORT[/DB][?ns=NAME]",
                url.scheme()
            )));
        }
        let mut namespace = String::from("default");
        for (k, v) in url.query_pairs() {
            match &*k {
                "ns" => namespace = v.into_owned(),
                other => {
                    return Err(bad(format!(
                        "unknown parameter {other:?} (only ns=NAME is understood)"
                    )))
                }
            }
        }
        let ok = !namespace.is_empty()
            && namespace.len() <= 64
            && namespace
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        if !ok {
            return Err(bad(format!(
                "namespace {namespace:?}: use 1-64 letters, digits, '-', '_' or '.'"
            )));
        }
        url.set_query(None);
        Ok(RedisLocation {
            url: url.into(),
            namespace,
        })
    }

    /// The log key of this namespace.
    pub fn log_key(&self) -> String {
        format!("{{nd:{}}}:log", self.namespace)
    }

    /// The metadata key of this namespace.
    pub fn meta_key(&self) -> String {
        format!("{{nd:{}}}:meta", self.namespace)
    }

    /// The URL for messages: any password replaced by `***`.
    pub fn display(&self) -> String {
        format!("{}?ns={}", redact(&self.url), self.namespace)
    }
}

/// `text` with the password of a URL hidden, for error messages.
pub(crate) fn redact(text: &str) -> String {
    match url::Url::parse(text) {
        Ok(mut u) if u.password().is_some() => {
            // Cannot fail: the URL has a host since it has a password.
            let _ = u.set_password(Some("***"));
            u.into()
        }
        Ok(_) => text.to_owned(),
        // Unparsable: hide any userinfo of what looks like the authority.
        Err(_) => match text.split_once("://") {
            Some((scheme, rest)) => {
                let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
                match rest[..end].rfind('@') {
                    Some(at) => format!("{scheme}://***{}", &rest[at..]),
                    None => text.to_owned(),
                }
            }
            None => text.to_owned(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_files_and_redis_urls_are_redis() {
        for path in [
            "index.redb",
            "/var/lib/neardup/i.redb",
            "./redis://x",
            "dir/with:colon",
            "C:\\data\\i.redb",
        ] {
            assert_eq!(
                IndexLocation::parse(path).unwrap(),
                IndexLocation::File(PathBuf::from(path)),
                "{path}"
            );
        }
        let IndexLocation::Redis(r) =
            IndexLocation::parse("redis://127.0.0.1:6379/0?ns=a").unwrap()
        else {
            panic!("not redis");
        };
        assert_eq!(
            (r.url.as_str(), r.namespace.as_str()),
            ("redis://127.0.0.1:6379/0", "a")
        );
        for url in ["rediss://h:1", "redis+unix:///tmp/r.sock", "REDIS://h:1"] {
            assert!(IndexLocation::parse(url).unwrap().is_redis(), "{url}");
        }
    }

    #[test]
    fn bad_locations_are_argument_errors_that_say_why() {
        let msg = |text: &str| {
            let e = IndexLocation::parse(text).unwrap_err();
            assert!(matches!(e, Error::Argument { .. }), "{e:?}");
            e.to_string()
        };
        let m = msg("http://example.org/index");
        assert!(m.contains("unsupported scheme `http://`"), "{m}");
        assert!(m.contains("redis://HOST:PORT"), "{m}");
        let m = msg("redis://127.0.0.1:1?nx=a");
        assert!(m.contains("unknown parameter \"nx\""), "{m}");
        let m = msg("redis://127.0.0.1:1?ns=a b");
        assert!(m.contains("namespace"), "{m}");
        let m = msg("redis://user:secret@[::1");
        assert!(!m.contains("secret"), "{m}");
        assert!(msg("").contains("empty"));
    }

    #[test]
    fn display_hides_a_password() {
        let l = IndexLocation::parse("redis://u:secret@127.0.0.1:6379?ns=x").unwrap();
        assert_eq!(l.to_string(), "redis://u:***@127.0.0.1:6379?ns=x");
        let f = IndexLocation::parse("a/b.redb").unwrap();
        assert_eq!(f.to_string(), "a/b.redb");
    }
}
