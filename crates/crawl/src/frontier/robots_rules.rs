//! robots.txt rules for one product token, matched as Google's open-source
//! matcher (google/robotstxt) and RFC 9309 do.
//!
//! Parsing is the `robotstxt` crate's (a port of Google's parser: typos
//! such as `disalow`, a missing colon, BOM, `\r`/`\n`/`\r\n` line ends,
//! lines cut at 16,664 bytes, patterns percent-encoded with uppercase
//! hex). The parse keeps only what this crawler needs, once per file:
//! the rules of the groups naming our token and of the `*` groups, the
//! Crawl-delay of each, and the `Sitemap:` URLs. Matching is done here,
//! with Google's semantics (longest match, allow wins a tie, `*` and a
//! final `$`, `index.htm*` allow also allowing the directory) in
//! O(pattern x path) per rule, instead of the crate's per-URL re-parse of
//! the whole file.
//!
//! Groups (RFC 9309 2.2.1): a `User-agent` line's product token is read up
//! to the first character that is not a letter, `-` or `_`
//! (`FooBot/1.0` and `FOO BAR` name `FooBot` and `FOO`) and compared ASCII
//! case-insensitively; rules before any `User-agent` line belong to no
//! group and are ignored. Consecutive `User-agent` lines share a group.
//!
//! Escapes (RFC 9309 2.2.2): octets outside US-ASCII are percent-encoded
//! and the hex digits of `%XX` escapes uppercased, in patterns (by the
//! parser) and in the URL path (here), so `Disallow: /caf%c3%a9` matches a
//! request for `/caf%C3%A9.html` and `/caf%c3%a9.html` alike. Escapes are
//! not decoded (`%62` does not match `b`, as in Google's matcher).

use std::borrow::Cow;

use robotstxt::RobotsParseHandler;

/// One `Allow` or `Disallow` rule (pattern already escaped by the parser).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Rule {
    allow: bool,
    pattern: String,
}

/// The rules of one robots.txt that concern one product token.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RobotsRules {
    /// Rules of the groups naming the token.
    specific: Vec<Rule>,
    /// Rules of the `*` groups.
    global: Vec<Rule>,
    /// Some group names the token (then `*` groups do not apply, even if
    /// the token's groups have no rules).
    has_specific: bool,
    /// First Crawl-delay, in seconds, of the token's groups.
    delay_specific: Option<f64>,
    /// First Crawl-delay of the `*` groups.
    delay_global: Option<f64>,
    /// `Sitemap:` URLs, in file order (they belong to no group).
    sitemaps: Vec<String>,
}

impl RobotsRules {
    /// Parses `body` (lossy UTF-8) for the product `token`.
    pub fn parse(body: &[u8], token: &str) -> RobotsRules {
        let text = String::from_utf8_lossy(body);
        let mut collector = Collector {
            token,
            rules: RobotsRules::default(),
            in_specific: false,
            in_global: false,
            separator: false,
        };
        robotstxt::parse_robotstxt(&text, &mut collector);
        collector.rules
    }

    /// Whether the URL may be fetched. `url` is an absolute URL (or a
    /// path) whose non-ASCII octets are percent-encoded, as `Url::as_str`
    /// gives it; its path, parameters and query are matched.
    pub fn allowed(&self, url: &str) -> bool {
        let path = robotstxt::get_path_params_query(url);
        let path = uppercase_escapes(&path);
        let path = path.as_bytes();
        let mut matcher = Matcher::default();
        if self.has_specific {
            let (allow, disallow) = matcher.best(&self.specific, path);
            if allow > 0 || disallow > 0 {
                return disallow <= allow;
            }
            // A group names us but no rule (or only empty patterns)
            // matched: allowed, `*` is not consulted.
            return true;
        }
        let (allow, disallow) = matcher.best(&self.global, path);
        if allow > 0 || disallow > 0 {
            return disallow <= allow;
        }
        true
    }

    /// The Crawl-delay that applies to the token, in seconds: its own
    /// groups' if any names it, else the `*` groups'.
    pub fn crawl_delay(&self) -> Option<f64> {
        if self.has_specific {
            self.delay_specific
        } else {
            self.delay_global
        }
    }

    /// The `Sitemap:` URLs of the file, as written (not resolved).
    pub fn sitemaps(&self) -> &[String] {
        &self.sitemaps
    }
}

/// The parse handler: Google's group logic (`RobotsMatcher`'s
/// `HandleUserAgent` and friends), recording rules instead of matching.
struct Collector<'a> {
    token: &'a str,
    rules: RobotsRules,
    /// The current group names the token.
    in_specific: bool,
    /// The current group is a `*` group.
    in_global: bool,
    /// A non-`User-agent` line was seen since the last `User-agent` line:
    /// the next `User-agent` line starts a new group.
    separator: bool,
}

impl Collector<'_> {
    fn rule(&mut self, allow: bool, pattern: &str) {
        if !(self.in_specific || self.in_global) {
            // Outside any group (before the first User-agent line).
            return;
        }
        self.separator = true;
        let rule = Rule {
            allow,
            pattern: pattern.to_owned(),
        };
        // Google: an `Allow: /dir/index.htm[l]` also allows `/dir/`
        // (exactly): the extra pattern `/dir/$`.
        let extra = allow
            .then(|| {
                pattern
                    .rfind('/')
                    .filter(|&slash| pattern[slash..].starts_with("/index.htm"))
                    .map(|slash| Rule {
                        allow: true,
                        pattern: format!("{}$", &pattern[..=slash]),
                    })
            })
            .flatten();
        let list = if self.in_specific {
            &mut self.rules.specific
        } else {
            &mut self.rules.global
        };
        list.push(rule);
        list.extend(extra);
    }
}

/// The product token of a `User-agent` value: up to the first character
/// that is not a letter, `-` or `_`.
fn product_token(value: &str) -> &str {
    let end = value
        .find(|c: char| !(c.is_ascii_alphabetic() || c == '-' || c == '_'))
        .unwrap_or(value.len());
    &value[..end]
}

impl RobotsParseHandler for Collector<'_> {
    fn handle_robots_start(&mut self) {}

    fn handle_robots_end(&mut self) {}

    fn handle_user_agent(&mut self, _line: u32, value: &str) {
        if self.separator {
            self.in_specific = false;
            self.in_global = false;
            self.separator = false;
        }
        // Google: `*` followed by a space and more is still `*`.
        let global = value.starts_with('*')
            && value[1..]
                .chars()
                .next()
                .is_none_or(|c| c.is_ascii_whitespace());
        if global {
            self.in_global = true;
        } else if !self.token.is_empty() && product_token(value).eq_ignore_ascii_case(self.token) {
            self.in_specific = true;
            self.rules.has_specific = true;
        }
    }

    fn handle_allow(&mut self, _line: u32, value: &str) {
        self.rule(true, value);
    }

    fn handle_disallow(&mut self, _line: u32, value: &str) {
        self.rule(false, value);
    }

    fn handle_sitemap(&mut self, _line: u32, value: &str) {
        self.separator = true;
        if !value.is_empty() {
            self.rules.sitemaps.push(value.to_owned());
        }
    }

    fn handle_unknown_action(&mut self, _line: u32, action: &str, value: &str) {
        self.separator = true;
        if !action.eq_ignore_ascii_case("crawl-delay") {
            return;
        }
        let Ok(secs) = value.trim().parse::<f64>() else {
            return;
        };
        if self.in_specific {
            self.rules.delay_specific.get_or_insert(secs);
        } else if self.in_global {
            self.rules.delay_global.get_or_insert(secs);
        }
    }
}

/// Reusable buffers for [`matches`].
#[derive(Default)]
struct Matcher {
    pos: Vec<usize>,
    next: Vec<usize>,
}

impl Matcher {
    /// The longest matching allow and disallow patterns' lengths (-1: none
    /// matches), Google's match priorities.
    fn best(&mut self, rules: &[Rule], path: &[u8]) -> (i64, i64) {
        let mut allow = -1i64;
        let mut disallow = -1i64;
        for rule in rules {
            let len = i64::try_from(rule.pattern.len()).unwrap_or(i64::MAX);
            let best = if rule.allow {
                &mut allow
            } else {
                &mut disallow
            };
            if len > *best && self.matches(path, rule.pattern.as_bytes()) {
                *best = len;
            }
        }
        (allow, disallow)
    }

    /// Whether `pattern` matches a prefix of `path` (the whole path when
    /// it ends in `$`); `*` matches any run of bytes. The set of path
    /// positions reachable after each pattern byte is kept sorted, as in
    /// Google's `Matches`: O(pattern x path), no backtracking blow-up.
    fn matches(&mut self, path: &[u8], pattern: &[u8]) -> bool {
        self.pos.clear();
        self.pos.push(0);
        for (i, &p) in pattern.iter().enumerate() {
            if p == b'$' && i + 1 == pattern.len() {
                return self.pos.last() == Some(&path.len());
            }
            if p == b'*' {
                let first = self.pos.first().copied().unwrap_or(0);
                self.pos.clear();
                self.pos.extend(first..=path.len());
            } else {
                self.next.clear();
                for &at in &self.pos {
                    if path.get(at) == Some(&p) {
                        self.next.push(at + 1);
                    }
                }
                std::mem::swap(&mut self.pos, &mut self.next);
                if self.pos.is_empty() {
                    return false;
                }
            }
        }
        true
    }
}

/// Uppercases the hex digits of `%XX` escapes (equivalent spellings, RFC
/// 3986 6.2.2.1); everything else is kept.
fn uppercase_escapes(s: &str) -> Cow<'_, str> {
    let b = s.as_bytes();
    let lower = |i: usize| {
        b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
            && (b[i + 1].is_ascii_lowercase() || b[i + 2].is_ascii_lowercase())
    };
    if !(0..b.len()).any(|i| b[i] == b'%' && lower(i)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
        {
            out.push('%');
            out.push(char::from(b[i + 1].to_ascii_uppercase()));
            out.push(char::from(b[i + 2].to_ascii_uppercase()));
            i += 3;
        } else {
            // `%` and ASCII are one byte; copy a whole UTF-8 sequence.
            let len = s[i..].chars().next().map_or(1, char::len_utf8);
            out.push_str(&s[i..i + len]);
            i += len;
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed(robots: &str, token: &str, url: &str) -> bool {
        RobotsRules::parse(robots.as_bytes(), token).allowed(url)
    }

    #[test]
    fn lowercase_escapes_in_pattern_and_path_match() {
        let robots = "User-agent: *\nDisallow: /caf%c3%a9\n";
        assert!(!allowed(robots, "neardup", "http://e.com/caf%C3%A9.html"));
        assert!(!allowed(robots, "neardup", "http://e.com/caf%c3%a9.html"));
        let raw = "User-agent: *\nDisallow: /café\n";
        assert!(!allowed(raw, "neardup", "http://e.com/caf%c3%a9"));
        assert!(allowed(robots, "neardup", "http://e.com/cafe"));
    }

    #[test]
    fn query_rules_match_the_query_as_requested() {
        let robots = "User-agent: *\nDisallow: /list.html?b=1&a=\n";
        assert!(!allowed(
            robots,
            "neardup",
            "http://e.com/list.html?b=1&a=2"
        ));
        // The sorted spelling is another request: not this rule.
        assert!(allowed(robots, "neardup", "http://e.com/list.html?a=2&b=1"));
    }

    #[test]
    fn user_agent_product_tokens_and_rules_outside_groups() {
        let robots = "Disallow: /\nUser-agent: FooBot/1.0\nDisallow: /foo\n\
                      User-Agent: NEARDUP crawler\nDisallow: /nd\n";
        assert!(!allowed(robots, "foobot", "http://e.com/foo"));
        assert!(allowed(robots, "foobot", "http://e.com/other"));
        assert!(!allowed(robots, "neardup", "http://e.com/nd"));
        // The rule before any group applies to nobody.
        assert!(allowed(robots, "otherbot", "http://e.com/x"));
    }

    #[test]
    fn crawl_delay_and_sitemaps() {
        let robots = "Sitemap: http://e.com/a.xml\nUser-agent: *\nCrawl-delay: 2\n\
                      User-agent: neardup\nCrawl-delay: 0.5\nDisallow:\n\
                      Sitemap: http://e.com/b.xml\n";
        let r = RobotsRules::parse(robots.as_bytes(), "neardup");
        assert_eq!(r.crawl_delay(), Some(0.5));
        assert_eq!(
            RobotsRules::parse(robots.as_bytes(), "other").crawl_delay(),
            Some(2.0)
        );
        assert_eq!(r.sitemaps(), ["http://e.com/a.xml", "http://e.com/b.xml"]);
    }

    #[test]
    fn hostile_patterns_stay_polynomial() {
        let pattern = "/*a".repeat(500);
        let robots = format!("User-agent: *\nDisallow: {pattern}b\n");
        let url = format!("http://e.com/{}", "a".repeat(4000));
        assert!(allowed(&robots, "x", &url));
    }

    #[test]
    fn escapes_uppercased_only_where_valid() {
        assert_eq!(uppercase_escapes("/a%2fb%zz%a"), "/a%2Fb%zz%a");
        assert!(matches!(uppercase_escapes("/a%2F"), Cow::Borrowed(_)));
    }
}
