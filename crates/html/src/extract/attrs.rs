//! What the streaming pass reads of a start tag's attributes
//! ([`ElementAttrs`]): class/id pattern bits and weight (Readability's
//! patterns, one Aho-Corasick pass), visibility, role, link target and
//! `rel`, and the `content` of a meta refresh.

use std::cell::RefCell;
use std::sync::{LazyLock, OnceLock};

use aho_corasick::AhoCorasick;
use memchr::{memchr, memmem};
use rustc_hash::FxHashMap;

use super::tokenizer::Attr;

// Pattern bits for class/id matching.
pub(super) const P_UNLIKELY: u8 = 1;
pub(super) const P_OKMAYBE: u8 = 1 << 1;
pub(super) const P_POSITIVE: u8 = 1 << 2;
pub(super) const P_NEGATIVE: u8 = 1 << 3;
pub(super) const P_SHARE: u8 = 1 << 4;
pub(super) const P_BYLINE: u8 = 1 << 5;
pub(super) const P_HID: u8 = 1 << 6;

/// Readability's class/id patterns (Readability.js `REGEXPS`), plus a few
/// modern boilerplate names (cookie/consent banners, newsletter boxes).
pub(super) const PATTERNS: &[(&str, u8)] = &[
    ("-ad-", P_UNLIKELY | P_NEGATIVE),
    ("ai2html", P_UNLIKELY),
    ("banner", P_UNLIKELY | P_NEGATIVE),
    ("breadcrumbs", P_UNLIKELY),
    ("combx", P_UNLIKELY | P_NEGATIVE),
    ("comment", P_UNLIKELY | P_NEGATIVE),
    ("community", P_UNLIKELY),
    ("cover-wrap", P_UNLIKELY),
    ("disqus", P_UNLIKELY),
    ("extra", P_UNLIKELY),
    ("footer", P_UNLIKELY | P_NEGATIVE),
    ("gdpr", P_UNLIKELY | P_NEGATIVE),
    ("header", P_UNLIKELY),
    ("legends", P_UNLIKELY),
    ("menu", P_UNLIKELY),
    ("related", P_UNLIKELY | P_NEGATIVE),
    ("remark", P_UNLIKELY),
    ("replies", P_UNLIKELY),
    ("rss", P_UNLIKELY),
    ("shoutbox", P_UNLIKELY | P_NEGATIVE),
    ("sidebar", P_UNLIKELY | P_NEGATIVE),
    ("skyscraper", P_UNLIKELY | P_NEGATIVE),
    ("social", P_UNLIKELY),
    ("sponsor", P_UNLIKELY | P_NEGATIVE),
    ("supplemental", P_UNLIKELY),
    ("ad-break", P_UNLIKELY),
    ("agegate", P_UNLIKELY),
    ("pagination", P_UNLIKELY | P_POSITIVE),
    ("pager", P_UNLIKELY),
    ("popup", P_UNLIKELY),
    ("yom-remote", P_UNLIKELY),
    ("cookie", P_UNLIKELY | P_NEGATIVE),
    ("consent", P_UNLIKELY | P_NEGATIVE),
    ("newsletter", P_UNLIKELY | P_NEGATIVE),
    ("subscribe", P_UNLIKELY | P_NEGATIVE),
    ("and", P_OKMAYBE),
    ("article", P_OKMAYBE | P_POSITIVE),
    ("body", P_OKMAYBE | P_POSITIVE),
    ("column", P_OKMAYBE),
    ("content", P_OKMAYBE | P_POSITIVE),
    ("main", P_OKMAYBE | P_POSITIVE),
    ("mathjax", P_OKMAYBE),
    ("shadow", P_OKMAYBE),
    ("entry", P_POSITIVE),
    ("hentry", P_POSITIVE),
    ("h-entry", P_POSITIVE),
    ("page", P_POSITIVE),
    ("post", P_POSITIVE),
    ("text", P_POSITIVE),
    ("blog", P_POSITIVE),
    ("story", P_POSITIVE),
    ("hidden", P_NEGATIVE),
    ("hid", P_HID),
    ("com-", P_NEGATIVE),
    ("contact", P_NEGATIVE),
    ("masthead", P_NEGATIVE),
    ("media", P_NEGATIVE),
    ("meta", P_NEGATIVE),
    ("outbrain", P_NEGATIVE),
    ("promo", P_NEGATIVE),
    ("scroll", P_NEGATIVE),
    ("share", P_NEGATIVE | P_SHARE),
    ("shopping", P_NEGATIVE),
    ("tags", P_NEGATIVE),
    ("widget", P_NEGATIVE),
    ("byline", P_BYLINE),
    ("author", P_BYLINE),
    ("dateline", P_BYLINE),
    ("writtenby", P_BYLINE),
];

/// Searchers for the attribute values read on every element, built once
/// (building a `memmem::Finder` costs more than one short search).
static FALLBACK_IMAGE: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new("fallback-image"));
static DISPLAY_NONE: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new("display:none"));
static VISIBILITY_HIDDEN: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new("visibility:hidden"));
static ARTICLE_BODY: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new("articlebody"));
static AUTHOR: LazyLock<memmem::Finder<'static>> = LazyLock::new(|| memmem::Finder::new("author"));

pub(super) fn matcher() -> Option<&'static AhoCorasick> {
    static AC: OnceLock<Option<AhoCorasick>> = OnceLock::new();
    AC.get_or_init(|| AhoCorasick::new(PATTERNS.iter().map(|p| p.0)).ok())
        .as_ref()
}

/// Pattern bits of a lowercased class or id value.
pub(super) fn pattern_bits(lower: &[u8]) -> u8 {
    if lower.is_empty() {
        return 0;
    }
    let Some(ac) = matcher() else { return 0 };
    let mut bits = 0u8;
    for m in ac.find_overlapping_iter(lower) {
        bits |= PATTERNS.get(m.pattern().as_usize()).map_or(0, |p| p.1);
    }
    if bits & P_HID != 0 {
        // "hid" only as a whole class token.
        let tok = lower
            .split(|b| b.is_ascii_whitespace())
            .any(|t| t == b"hid");
        bits &= !P_HID;
        if tok {
            bits |= P_NEGATIVE;
        }
    }
    bits
}

/// How many `class` values [`class_pattern_bits`] remembers per thread
/// before it forgets them all: a few sites' templates. With values of at
/// most [`CLASS_CACHE_MAX_LEN`] bytes that bounds the cache near 5 MB a
/// thread; typical values (tens of bytes) keep it near 1 MB.
const CLASS_CACHE_ENTRIES: usize = 16_384;
/// Longer `class` values are matched each time rather than remembered.
const CLASS_CACHE_MAX_LEN: usize = 256;

/// Pattern bits of a raw `class` value (any case). A page repeats its
/// classes on most of its elements, and a site's pages share their
/// template's classes, so the answers are remembered per thread across
/// pages. The bits are a function of the value alone, so the cache
/// changes no result.
pub(super) fn class_pattern_bits(class: &[u8]) -> u8 {
    thread_local! {
        static SEEN: RefCell<FxHashMap<Box<[u8]>, u8>> = RefCell::default();
    }
    let compute = || pattern_bits(&class.to_ascii_lowercase());
    if class.len() > CLASS_CACHE_MAX_LEN {
        return compute();
    }
    SEEN.with_borrow_mut(|seen| {
        if let Some(&bits) = seen.get(class) {
            return bits;
        }
        let bits = compute();
        if seen.len() >= CLASS_CACHE_ENTRIES {
            seen.clear();
        }
        seen.insert(class.into(), bits);
        bits
    })
}

pub(super) fn weight_of(bits: u8) -> i8 {
    let mut w = 0i8;
    if bits & P_NEGATIVE != 0 {
        w -= 25;
    }
    if bits & P_POSITIVE != 0 {
        w += 25;
    }
    w
}

/// The attributes of a start tag that the classifier and metadata read.
#[derive(Default)]
pub(super) struct ElementAttrs<'a> {
    pub(super) class: &'a [u8],
    pub(super) id: &'a [u8],
    /// `hidden`, an inline style hiding it, or `aria-hidden="true"` (except
    /// on a fallback image).
    pub(super) hidden: bool,
    /// A role that is chrome (menu, navigation, banner, dialog, ...).
    pub(super) role_unlikely: bool,
    /// `role="main"`.
    pub(super) role_main: bool,
    /// `rel="author"` or an `itemprop` naming the author.
    pub(super) byline: bool,
    /// An `itemprop` naming the article body.
    pub(super) article_body: bool,
    pub(super) href: Option<&'a [u8]>,
    /// The `rel` keywords ([`LinkRels`]).
    pub(super) rel_bits: u8,
}

impl<'a> ElementAttrs<'a> {
    pub(super) fn parse(attrs: &[Attr<'a>]) -> Self {
        let mut a = ElementAttrs::default();
        let mut fallback_image = false;
        let mut aria_hidden = false;
        for &(k, v) in attrs {
            match k.len() {
                2 if k.eq_ignore_ascii_case(b"id") => a.id = v,
                3 if k.eq_ignore_ascii_case(b"rel") => {
                    if v.eq_ignore_ascii_case(b"author") {
                        a.byline = true;
                    }
                    a.rel_bits = LinkRels::parse(v).0;
                }
                4 if k.eq_ignore_ascii_case(b"href") => a.href = Some(v),
                4 if k.eq_ignore_ascii_case(b"role") => {
                    let r = v.trim_ascii();
                    a.role_main = r.eq_ignore_ascii_case(b"main");
                    a.role_unlikely = [
                        &b"menu"[..],
                        b"menubar",
                        b"complementary",
                        b"navigation",
                        b"alert",
                        b"alertdialog",
                        b"dialog",
                        b"banner",
                        b"contentinfo",
                    ]
                    .iter()
                    .any(|x| r.eq_ignore_ascii_case(x));
                }
                5 if k.eq_ignore_ascii_case(b"class") => {
                    a.class = v;
                    fallback_image = FALLBACK_IMAGE.find(v).is_some();
                }
                5 if k.eq_ignore_ascii_case(b"style") && memchr(b':', v).is_some() => {
                    let s: Vec<u8> = v
                        .iter()
                        .filter(|b| !b.is_ascii_whitespace())
                        .map(u8::to_ascii_lowercase)
                        .collect();
                    if DISPLAY_NONE.find(&s).is_some() || VISIBILITY_HIDDEN.find(&s).is_some() {
                        a.hidden = true;
                    }
                }
                6 if k.eq_ignore_ascii_case(b"hidden") => a.hidden = true,
                8 if k.eq_ignore_ascii_case(b"itemprop") => {
                    let lower = v.to_ascii_lowercase();
                    if ARTICLE_BODY.find(&lower).is_some() {
                        a.article_body = true;
                    }
                    if AUTHOR.find(&lower).is_some() {
                        a.byline = true;
                    }
                }
                11 if k.eq_ignore_ascii_case(b"aria-hidden") => {
                    aria_hidden = v.trim_ascii().eq_ignore_ascii_case(b"true");
                }
                _ => {}
            }
        }
        if aria_hidden && !fallback_image {
            a.hidden = true;
        }
        a
    }
}

pub(super) fn name_hash(name: &str) -> u32 {
    // FNV-1a over the lowercased name; only compared within one page.
    let mut h: u32 = 0x811c_9dc5;
    for b in name.bytes() {
        h ^= u32::from(b.to_ascii_lowercase());
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

pub(super) fn as_str(b: &[u8]) -> &str {
    std::str::from_utf8(b).unwrap_or("")
}

pub(super) fn decode_attr(b: &[u8]) -> String {
    html_escape::decode_html_entities(as_str(b))
        .trim()
        .to_string()
}

/// The `content` of a `<meta http-equiv=refresh content=...>` tag given
/// its raw attributes (entities decoded, trimmed), `None` for any other
/// meta tag.
pub(super) fn refresh_content(attrs: &[Attr<'_>]) -> Option<String> {
    let mut refresh = false;
    let mut content = None;
    for &(k, v) in attrs {
        if k.eq_ignore_ascii_case(b"http-equiv") {
            refresh = v.trim_ascii().eq_ignore_ascii_case(b"refresh");
        } else if k.eq_ignore_ascii_case(b"content") {
            content = Some(v);
        }
    }
    content
        .filter(|c| refresh && c.len() <= 4096)
        .map(decode_attr)
}

/// The `rel` tokens of a link that mean "do not follow" to a crawler, as
/// bits: `nofollow`, and the two finer kinds search engines introduced in
/// 2019 and treat the same way, `ugc` (user-generated content) and
/// `sponsored` (paid links). Which of them the crawler obeys is
/// `crawl.directives.nofollow_rels`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkRels(pub u8);

impl LinkRels {
    /// `rel=nofollow`.
    pub const NOFOLLOW: u8 = 1;
    /// `rel=ugc`.
    pub const UGC: u8 = 2;
    /// `rel=sponsored`.
    pub const SPONSORED: u8 = 4;

    /// The bit of one token name (`"nofollow"`, `"ugc"`, `"sponsored"`,
    /// ASCII case-insensitive), `None` for any other.
    pub fn bit(token: &str) -> Option<u8> {
        [
            ("nofollow", Self::NOFOLLOW),
            ("ugc", Self::UGC),
            ("sponsored", Self::SPONSORED),
        ]
        .iter()
        .find(|(name, _)| token.eq_ignore_ascii_case(name))
        .map(|&(_, bit)| bit)
    }

    /// The bits of a `rel` attribute value (space-separated tokens).
    pub fn parse(value: &[u8]) -> LinkRels {
        let mut bits = 0;
        for token in value.split(u8::is_ascii_whitespace) {
            if let Some(b) = std::str::from_utf8(token).ok().and_then(Self::bit) {
                bits |= b;
            }
        }
        LinkRels(bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The remembered answer is the matcher's, whatever the case, the
    /// length, the order of calls, and after the cache is full and cleared.
    #[test]
    fn class_bits_are_the_matchers_through_the_cache() {
        let long = format!("sidebar {}", "x".repeat(CLASS_CACHE_MAX_LEN));
        let classes = [
            "Post-Body article",
            "SIDEBAR",
            "comment-list",
            "plain",
            &long,
        ];
        let expect = |c: &str| pattern_bits(c.to_ascii_lowercase().as_bytes());
        assert_ne!(expect("SIDEBAR"), expect("plain"), "the cases differ");
        for round in 0..2 {
            for c in classes {
                assert_eq!(
                    class_pattern_bits(c.as_bytes()),
                    expect(c),
                    "{c} round {round}"
                );
            }
        }
        for i in 0..CLASS_CACHE_ENTRIES + 10 {
            let c = format!("x{i} {}", classes[i % 4]);
            assert_eq!(class_pattern_bits(c.as_bytes()), expect(&c), "{c}");
        }
        for c in classes {
            assert_eq!(
                class_pattern_bits(c.as_bytes()),
                expect(c),
                "{c} after clearing"
            );
        }
    }
}
