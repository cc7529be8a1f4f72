//! robots.txt rules for one product token, matched as Google's open-source
//! matcher (google/robotstxt) and RFC 9309 do.
//!
//! Parsing is the `robotstxt` crate's (a port of Google's parser: typos
//! such as `disalow`, a missing colon, `\r`/`\n`/`\r\n` line ends,
//! lines cut at 16,664 bytes, patterns percent-encoded with uppercase
//! hex); a UTF-8 byte order mark (whole or its first bytes) at the start
//! of the file is skipped here, on bytes, as Google's parser does (the
//! crate looks for it among decoded characters and misses it). The parse
//! keeps only what this crawler needs, once per file: the rules of the
//! groups naming our token and of the `*` groups, the Crawl-delay of
//! each, and the `Sitemap:` URLs. Matching is done here, with Google's
//! semantics (longest match, allow wins a tie, `*` and a final `$`,
//! `index.htm*` allow also allowing the directory) in O(pattern x path)
//! per rule, instead of the crate's per-URL re-parse of the whole file.
//!
//! Groups (RFC 9309 2.1, 2.2.1): a `User-agent` line's product token is
//! read up to the first character that is not a letter, `-` or `_`
//! (`FooBot/1.0` and `FOO BAR` name `FooBot` and `FOO`) and compared ASCII
//! case-insensitively; rules before any `User-agent` line belong to no
//! group and are ignored. Consecutive `User-agent` lines share a group,
//! and only an `Allow` or `Disallow` line ends the list of agents: a
//! `Sitemap:`, `Crawl-delay:` or unknown line between two `User-agent`
//! lines does not (Google's parser since 2021, its test
//! `ID_LineSyntax_Groups_OtherRules`), so `User-agent: neardup` /
//! `Crawl-delay: 10` / `User-agent: *` / `Disallow: /` is one group that
//! disallows everything to us. A Crawl-delay belongs to the group it is
//! written in, whichever of the group's agent lines come after it.
//!
//! Escapes (RFC 9309 2.2.2): octets outside US-ASCII are percent-encoded
//! and the hex digits of `%XX` escapes uppercased, in patterns (by the
//! parser) and in the URL path (here), so `Disallow: /caf%c3%a9` matches a
//! request for `/caf%C3%A9.html` and `/caf%c3%a9.html` alike.
//!
//! Percent-encoded unreserved characters (`A-Z a-z 0-9 - . _ ~`, RFC 3986
//! 2.3): RFC 9309 2.2.2 compares them decoded (`/raw%7Etilde` is
//! `/raw~tilde`), Google's matcher compares them as written (its test
//! `ID_Encoding`: `Allow: /foo/bar/%62%61%7A` does not allow
//! `/foo/bar/baz`). A URL is fetched only if both readings allow it: the
//! rules are matched as written (Google) and again with such escapes
//! decoded in patterns and path (RFC 9309). So `Disallow: /raw~tilde`
//! stops `/raw%7etilde` and `Disallow: /raw%7Etilde` stops `/raw~tilde`,
//! and every Google case still holds. Escapes of other characters (`%2F`,
//! `%3F`, UTF-8 octets) are never decoded: they mean something else than
//! the character.

use std::borrow::Cow;

use robotstxt::RobotsParseHandler;

/// One `Allow` or `Disallow` rule (pattern already escaped by the parser).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Rule {
    allow: bool,
    pattern: String,
}

/// The rules that concern the token, in one spelling of their patterns.
#[derive(Clone, Debug, Default, PartialEq)]
struct Lists {
    /// Rules of the groups naming the token.
    specific: Vec<Rule>,
    /// Rules of the `*` groups.
    global: Vec<Rule>,
}

/// The rules of one robots.txt that concern one product token.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RobotsRules {
    /// Patterns as the parser gave them (Google's reading).
    raw: Lists,
    /// The same rules with escaped unreserved characters decoded (RFC 9309
    /// 2.2.2); kept only if `decoding_differs` (else `raw` serves for both).
    decoded: Lists,
    /// Some pattern has an escaped unreserved character.
    decoding_differs: bool,
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

/// The UTF-8 byte order mark, skipped (whole or its first bytes) at the
/// start of a robots.txt, as Google's parser does.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The text the parser reads from a robots.txt body: a leading byte order
/// mark (or its first one or two bytes) removed, then decoded as UTF-8
/// with invalid sequences replaced (they can only spoil the lines that
/// hold them).
pub fn robots_text(body: &[u8]) -> Cow<'_, str> {
    let skip = body.iter().zip(BOM).take_while(|(a, b)| a == b).count();
    String::from_utf8_lossy(&body[skip..])
}

/// The body of a robots.txt cut at the size cap: its lines up to the last
/// line end (`\n` or `\r`), without the line the cap cut in half, which
/// would otherwise be parsed as written so far (`Allow: /zzzz...` read as
/// `Allow: /`). A body without any line end is dropped whole.
pub fn complete_lines(body: &[u8]) -> &[u8] {
    let end = body
        .iter()
        .rposition(|&b| b == b'\n' || b == b'\r')
        .map_or(0, |i| i + 1);
    &body[..end]
}

pub use crate::config::valid_product_token;

impl RobotsRules {
    /// Parses `body` (see [`robots_text`]) for the product `token`.
    pub fn parse(body: &[u8], token: &str) -> RobotsRules {
        let text = robots_text(body);
        let mut collector = Collector {
            token,
            rules: RobotsRules::default(),
            in_specific: false,
            in_global: false,
            separator: false,
            in_group: false,
            group_delay: None,
        };
        robotstxt::parse_robotstxt(&text, &mut collector);
        collector.rules
    }

    /// Whether the URL may be fetched. `url` is an absolute URL (or a
    /// path) whose non-ASCII octets are percent-encoded, as `Url::as_str`
    /// gives it; its path, parameters and query are matched, once as
    /// written and once with escaped unreserved characters decoded: both
    /// must allow it (see the module documentation).
    pub fn allowed(&self, url: &str) -> bool {
        let path = robotstxt::get_path_params_query(url);
        let path = uppercase_escapes(&path);
        let mut matcher = Matcher::default();
        if !self.allowed_in(&self.raw, path.as_bytes(), &mut matcher) {
            return false;
        }
        let decoded = decode_unreserved(&path);
        if !self.decoding_differs && matches!(decoded, Cow::Borrowed(_)) {
            // Same rules, same path: same answer.
            return true;
        }
        let lists = if self.decoding_differs {
            &self.decoded
        } else {
            &self.raw
        };
        self.allowed_in(lists, decoded.as_bytes(), &mut matcher)
    }

    /// Google's decision for `path` under one spelling of the rules.
    fn allowed_in(&self, lists: &Lists, path: &[u8], matcher: &mut Matcher) -> bool {
        let rules = if self.has_specific {
            // A group names us: `*` is not consulted, and no matching
            // rule (or only empty patterns) means allowed.
            &lists.specific
        } else {
            &lists.global
        };
        let (allow, disallow) = matcher.best(rules, path);
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
    /// An `Allow` or `Disallow` line was seen since the last `User-agent`
    /// line: the next `User-agent` line starts a new group.
    separator: bool,
    /// A `User-agent` line (any agent) was seen since the last group ended.
    in_group: bool,
    /// The first Crawl-delay of the current group, recorded for the
    /// group's agents when the group ends (an agent line naming us or `*`
    /// may follow it).
    group_delay: Option<f64>,
}

impl Collector<'_> {
    fn rule(&mut self, allow: bool, pattern: &str) {
        if !(self.in_specific || self.in_global) {
            // Outside any group (before the first User-agent line).
            return;
        }
        self.separator = true;
        let decoded = decode_unreserved(pattern);
        if matches!(decoded, Cow::Owned(_)) {
            self.rules.decoding_differs = true;
        }
        let (raw, dec) = if self.in_specific {
            (
                &mut self.rules.raw.specific,
                &mut self.rules.decoded.specific,
            )
        } else {
            (&mut self.rules.raw.global, &mut self.rules.decoded.global)
        };
        push_rule(raw, allow, pattern);
        push_rule(dec, allow, &decoded);
    }

    /// Ends the current group: its Crawl-delay goes to its agents.
    fn end_group(&mut self) {
        if let Some(secs) = self.group_delay.take() {
            if self.in_specific {
                self.rules.delay_specific.get_or_insert(secs);
            }
            if self.in_global {
                self.rules.delay_global.get_or_insert(secs);
            }
        }
        self.in_specific = false;
        self.in_global = false;
        self.in_group = false;
        self.separator = false;
    }
}

/// Appends a rule, and for Google's `Allow: /dir/index.htm[l]` the extra
/// exact rule `/dir/$` that also allows the directory.
fn push_rule(list: &mut Vec<Rule>, allow: bool, pattern: &str) {
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
    list.push(Rule {
        allow,
        pattern: pattern.to_owned(),
    });
    list.extend(extra);
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

    fn handle_robots_end(&mut self) {
        self.end_group();
        if !self.rules.decoding_differs {
            // Same as `raw`: do not keep a second copy per cached origin.
            self.rules.decoded = Lists::default();
        }
    }

    fn handle_user_agent(&mut self, _line: u32, value: &str) {
        if self.separator {
            self.end_group();
        }
        self.in_group = true;
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
        // Not a group member, and it does not end the group either.
        if !value.is_empty() {
            self.rules.sitemaps.push(value.to_owned());
        }
    }

    fn handle_unknown_action(&mut self, _line: u32, action: &str, value: &str) {
        // Unknown lines (Crawl-delay included) do not end the group.
        if !action.eq_ignore_ascii_case("crawl-delay") {
            return;
        }
        let Ok(secs) = value.trim().parse::<f64>() else {
            return;
        };
        if self.in_group {
            self.group_delay.get_or_insert(secs);
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

/// The character an `%XX` escape at `b[i..]` stands for, if it is an
/// unreserved one (RFC 3986 2.3: letters, digits, `-`, `.`, `_`, `~`).
fn escaped_unreserved(b: &[u8], i: usize) -> Option<u8> {
    if b.get(i) != Some(&b'%') {
        return None;
    }
    let hex = |c: u8| char::from(c).to_digit(16);
    let value = hex(*b.get(i + 1)?)? * 16 + hex(*b.get(i + 2)?)?;
    let c = u8::try_from(value).ok()?;
    (c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~')).then_some(c)
}

/// Decodes the `%XX` escapes of unreserved characters (RFC 9309 2.2.2,
/// RFC 3986 6.2.2.2: `%7E` is `~`, `%62` is `b`); every other escape and
/// character is kept.
fn decode_unreserved(s: &str) -> Cow<'_, str> {
    let b = s.as_bytes();
    if !(0..b.len()).any(|i| escaped_unreserved(b, i).is_some()) {
        return Cow::Borrowed(s);
    }
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if let Some(c) = escaped_unreserved(b, i) {
            out.push(c);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    // Only ASCII escapes were replaced by ASCII: still UTF-8.
    Cow::Owned(String::from_utf8(out).unwrap_or_else(|_| s.to_owned()))
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
                      Disallow: /x\nUser-agent: neardup\nCrawl-delay: 0.5\nDisallow:\n\
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
    fn only_allow_and_disallow_end_a_list_of_agents() {
        // Crawl-delay, Sitemap and unknown lines between two User-agent
        // lines leave them one group (Google's parser since 2021).
        for between in [
            "Crawl-delay: 10",
            "Sitemap: http://e.com/s.xml",
            "Invalid-Unknown-Line: x",
            "# a comment",
            "",
        ] {
            let robots = format!("User-agent: neardup\n{between}\nUser-agent: *\nDisallow: /\n");
            for token in ["neardup", "other"] {
                assert!(
                    !allowed(&robots, token, "http://e.com/"),
                    "{between}: {token}"
                );
                assert!(
                    !allowed(&robots, token, "http://e.com/p"),
                    "{between}: {token}"
                );
            }
        }
        // A Crawl-delay is the group's, whichever agent line comes after it.
        let robots = "User-agent: neardup\nCrawl-delay: 10\nUser-agent: *\nDisallow: /\n";
        for token in ["neardup", "other"] {
            let r = RobotsRules::parse(robots.as_bytes(), token);
            assert_eq!(r.crawl_delay(), Some(10.0), "{token}");
        }
        let robots = "User-agent: *\nCrawl-delay: 3\nUser-agent: neardup\nDisallow: /p\n\
                      User-agent: other\nCrawl-delay: 4\n";
        let r = RobotsRules::parse(robots.as_bytes(), "neardup");
        assert_eq!(r.crawl_delay(), Some(3.0));
        assert!(!r.allowed("http://e.com/p"));
        assert_eq!(
            RobotsRules::parse(robots.as_bytes(), "other").crawl_delay(),
            Some(4.0)
        );
        // Allow and Disallow still end the list.
        let robots = "User-agent: neardup\nAllow: /\nUser-agent: *\nDisallow: /\n";
        assert!(allowed(robots, "neardup", "http://e.com/p"));
        assert!(!allowed(robots, "other", "http://e.com/p"));
    }

    #[test]
    fn escaped_unreserved_characters_match_both_ways() {
        for (rule, url) in [
            ("/raw~tilde", "/raw%7etilde"),
            ("/raw~tilde", "/raw%7Etilde"),
            ("/raw%7Etilde", "/raw~tilde"),
            ("/raw%7etilde", "/raw~tilde"),
            ("/%61dmin", "/admin"),
            ("/admin", "/%61dmin"),
            ("/a-b_c.d", "/a%2Db%5Fc%2Ed"),
        ] {
            let robots = format!("User-agent: *\nDisallow: {rule}\n");
            assert!(
                !allowed(&robots, "neardup", &format!("http://e.com{url}")),
                "{rule} {url}"
            );
        }
        // Reserved characters and UTF-8 octets stay escaped: `%2F` is not `/`.
        let robots = "User-agent: *\nDisallow: /a%2Fb\nDisallow: /q%3Fx\n";
        assert!(allowed(robots, "neardup", "http://e.com/a/b"));
        assert!(!allowed(robots, "neardup", "http://e.com/a%2fb"));
        assert!(allowed(robots, "neardup", "http://e.com/q?x"));
        // Google's ID_Encoding case: an allow written with escapes does not
        // allow the decoded path (Google's reading forbids it).
        let robots = "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n";
        assert!(!allowed(robots, "FooBot", "http://foo.bar/foo/bar/baz"));
        assert!(allowed(
            robots,
            "FooBot",
            "http://foo.bar/foo/bar/%62%61%7A"
        ));
        assert_eq!(decode_unreserved("/%7e%2F%41%zz%4"), "/~%2FA%zz%4");
        assert!(matches!(
            decode_unreserved("/a%2Fb%C3%A9"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn a_byte_order_mark_is_skipped_on_bytes() {
        for bom in [&b"\xEF\xBB\xBF"[..], b"\xEF\xBB", b"\xEF"] {
            let mut body = bom.to_vec();
            body.extend_from_slice(b"User-agent: *\nDisallow: /\n");
            let r = RobotsRules::parse(&body, "neardup");
            assert!(!r.allowed("http://e.com/x"), "{bom:?}");
        }
        assert_eq!(robots_text(b"\xEF\x11\xBFx"), "\u{11}\u{FFFD}x");
    }

    #[test]
    fn the_line_cut_by_the_size_cap_is_dropped() {
        assert_eq!(complete_lines(b"a\nb\nAllow: /zz"), b"a\nb\n");
        assert_eq!(complete_lines(b"a\r\nb\r"), b"a\r\nb\r");
        assert_eq!(complete_lines(b"Allow: /zz"), b"");
        assert_eq!(complete_lines(b""), b"");
    }

    #[test]
    fn product_tokens_are_letters_dash_and_underscore() {
        for ok in ["neardup", "Foo-Bar", "foo_bar"] {
            assert!(valid_product_token(ok), "{ok}");
        }
        for bad in ["", "bot2", "Foobot/2.1", "Foo Bar", "ツ", "Foobot*"] {
            assert!(!valid_product_token(bad), "{bad}");
        }
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
