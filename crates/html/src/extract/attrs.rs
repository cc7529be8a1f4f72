//! What the streaming pass reads of a start tag's attributes
//! ([`ElementAttrs`]): class/id pattern bits and weight (Readability's
//! patterns, one Aho-Corasick pass), visibility, role, link target and
//! `rel`, and the `content` of a meta refresh.

use std::sync::{LazyLock, OnceLock};

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::dfa::DFA;
use aho_corasick::{Anchored, MatchKind};
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

/// [`PATTERNS`] as a dense automaton over byte classes: every pattern that
/// ends at a byte, overlapping ones included, ASCII case-insensitive.
///
/// aho-corasick builds the automaton; its states are then renumbered into
/// a table walked with one load a byte, each state carrying the bits of
/// every pattern that ends there, so a search is a loop of a table lookup
/// and an OR. Every element with a class or id is matched (on dev2 the
/// values are an eighth of the HTML's bytes): an overlapping `AhoCorasick`
/// search cost about 1,000 instructions a value, so its answers were
/// cached per class; this walk costs about 8 instructions a byte and is
/// faster without the cache than the cache was.
struct Matcher {
    /// Each byte's class: bytes that no pattern tells apart share one.
    class_of: [u8; 256],
    /// `step[state + class]`, for a state's row offset `state` (the start
    /// state's is 0): the next state's row offset, shifted left by 8, with
    /// the bits of the patterns that end there in the low byte.
    step: Vec<u32>,
}

impl Matcher {
    fn build() -> Option<Matcher> {
        // Standard semantics report every pattern that ends at a byte; no
        // prefilter, so the only special states are match states.
        let dfa = DFA::builder()
            .match_kind(MatchKind::Standard)
            .ascii_case_insensitive(true)
            .prefilter(false)
            .build(PATTERNS.iter().map(|p| p.0))
            .ok()?;
        let start = dfa.start_state(Anchored::No).ok()?;
        // Matching ignores ASCII case, so a byte is told apart only by its
        // lowercase form, and only if some pattern holds it: every other
        // byte sends every state where it sends any.
        let mut class_of = [0u8; 256];
        let mut representative = vec![0u8];
        for (byte, class) in (0..=255u8).zip(class_of.iter_mut()) {
            let lower = byte.to_ascii_lowercase();
            if !PATTERNS.iter().any(|p| p.0.as_bytes().contains(&lower)) {
                continue;
            }
            let c = match representative.iter().position(|&r| r == lower) {
                Some(c) => c,
                None => {
                    representative.push(lower);
                    representative.len() - 1
                }
            };
            *class = u8::try_from(c).ok()?;
        }
        let classes = representative.len();
        // Number the reachable states breadth first, start first.
        let mut number: FxHashMap<StateID, u16> = FxHashMap::default();
        number.insert(start, 0);
        let mut states = vec![start];
        let mut next: Vec<u16> = Vec::new();
        let mut i = 0;
        while let Some(&sid) = states.get(i) {
            for &byte in &representative {
                let to = dfa.next_state(Anchored::No, sid, byte);
                let n = u16::try_from(states.len()).ok()?;
                next.push(*number.entry(to).or_insert_with(|| {
                    states.push(to);
                    n
                }));
            }
            i += 1;
        }
        let bits: Vec<u8> = states
            .iter()
            .map(|&sid| {
                if !dfa.is_match(sid) {
                    return 0;
                }
                (0..dfa.match_len(sid))
                    .filter_map(|k| PATTERNS.get(dfa.match_pattern(sid, k).as_usize()))
                    .fold(0, |acc, p| acc | p.1)
            })
            .collect();
        let step = next
            .iter()
            .map(|&to| {
                let row = u32::from(to) * u32::try_from(classes).ok()?;
                (row < 1 << 24)
                    .then(|| row << 8 | u32::from(bits.get(usize::from(to)).copied().unwrap_or(0)))
            })
            .collect::<Option<Vec<u32>>>()?;
        Some(Matcher { class_of, step })
    }
}

fn matcher() -> Option<&'static Matcher> {
    static M: OnceLock<Option<Matcher>> = OnceLock::new();
    M.get_or_init(Matcher::build).as_ref()
}

/// Pattern bits of a class or id value, in any case.
pub(super) fn pattern_bits(value: &[u8]) -> u8 {
    let Some(m) = matcher() else { return 0 };
    let mut bits = 0u8;
    let mut row = 0usize;
    for &b in value {
        let step = m
            .step
            .get(row + usize::from(m.class_of[usize::from(b)]))
            .copied()
            .unwrap_or(0);
        row = (step >> 8) as usize;
        bits |= step as u8;
    }
    if bits & P_HID != 0 {
        // "hid" only as a whole class token.
        let tok = value
            .split(|b| b.is_ascii_whitespace())
            .any(|t| t.eq_ignore_ascii_case(b"hid"));
        bits &= !P_HID;
        if tok {
            bits |= P_NEGATIVE;
        }
    }
    bits
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
                5 if k.eq_ignore_ascii_case(b"class") => a.class = v,
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
        // Only an aria-hidden element asks whether its (last) class is a
        // fallback image: most elements have a class, few are aria-hidden.
        if aria_hidden && FALLBACK_IMAGE.find(a.class).is_none() {
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

/// `part` as text, when it is a slice of `src` cut where characters begin
/// (an attribute value is cut at ASCII quotes, spaces and `>`): the same
/// characters taken from `src` by their place, which checks two
/// boundaries instead of validating every byte again (every link of
/// every page asks). Anything else is [`as_str`].
pub(super) fn str_within<'a>(src: &'a str, part: &'a [u8]) -> &'a str {
    (part.as_ptr() as usize)
        .checked_sub(src.as_ptr() as usize)
        .and_then(|at| src.get(at..at.checked_add(part.len())?))
        .unwrap_or_else(|| as_str(part))
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

    /// Every slice of a page, at character boundaries or not, reads as
    /// `from_utf8` reads it; so does a slice of other memory.
    #[test]
    fn str_within_reads_as_from_utf8() {
        let src = "<a href=\"/caf\u{e9}/\u{6771}\">x</a>";
        let bytes = src.as_bytes();
        for a in 0..=bytes.len() {
            for b in a..=bytes.len() {
                let part = &bytes[a..b];
                assert_eq!(str_within(src, part), as_str(part), "{a}..{b}");
                let whole = std::str::from_utf8(part).is_ok();
                assert_eq!(str_within(src, part).len(), if whole { b - a } else { 0 });
            }
        }
        let other = String::from("/caf\u{e9}/");
        assert_eq!(str_within(src, other.as_bytes()), "/caf\u{e9}/");
        assert_eq!(str_within(src, &other.as_bytes()[..4]), "/caf");
    }

    /// Every pattern that occurs in the value, in any case, overlapping
    /// or not, with "hid" counted only as a whole token: the bits by plain
    /// substring search.
    fn naive_bits(value: &str) -> u8 {
        let lower = value.to_ascii_lowercase();
        let mut bits = PATTERNS
            .iter()
            .filter(|(p, _)| lower.contains(p))
            .fold(0, |acc, &(_, b)| acc | b);
        if bits & P_HID != 0 {
            bits &= !P_HID;
            if lower.split_ascii_whitespace().any(|t| t == "hid") {
                bits |= P_NEGATIVE;
            }
        }
        bits
    }

    #[test]
    fn aria_hidden_hides_all_but_a_fallback_image() {
        let hidden = |attrs: &[(&str, &str)]| {
            let attrs: Vec<Attr<'_>> = attrs
                .iter()
                .map(|(k, v)| (k.as_bytes(), v.as_bytes()))
                .collect();
            ElementAttrs::parse(&attrs).hidden
        };
        assert!(hidden(&[("aria-hidden", "true"), ("class", "icon")]));
        assert!(hidden(&[("aria-hidden", "true")]));
        assert!(!hidden(&[
            ("class", "img fallback-image"),
            ("aria-hidden", "true")
        ]));
        assert!(!hidden(&[
            ("aria-hidden", "true"),
            ("class", "fallback-image")
        ]));
        assert!(!hidden(&[("aria-hidden", "false"), ("class", "icon")]));
        // The last class attribute is the one read.
        assert!(hidden(&[
            ("class", "fallback-image"),
            ("class", "icon"),
            ("aria-hidden", "true")
        ]));
    }

    #[test]
    fn pattern_bits_examples() {
        // Overlapping patterns: "hentry" holds "entry", "post-body" both
        // "post" and "body".
        assert_eq!(pattern_bits(b"HEntry"), P_POSITIVE);
        assert_eq!(pattern_bits(b"Post-Body"), P_POSITIVE | P_OKMAYBE);
        assert_eq!(pattern_bits(b"x SIDEBAR"), P_UNLIKELY | P_NEGATIVE);
        assert_eq!(pattern_bits(b"is-hid"), 0);
        assert_eq!(pattern_bits(b"a HID b"), P_NEGATIVE);
        assert_eq!(pattern_bits(b"plain"), 0);
        assert_eq!(pattern_bits(b""), 0);
    }

    proptest::proptest! {
        /// The DFA walk finds what substring search finds, on values built
        /// from pieces of patterns (so matches overlap and nearly match)
        /// in mixed case.
        #[test]
        fn pattern_bits_is_substring_search(
            pieces in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(PATTERNS.iter().map(|p| p.0).collect::<Vec<_>>()),
                    proptest::sample::select(vec!["-", " ", "h", "en", "try", "x", "HID", "Sid", "ebar", "\u{e9}"]),
                ],
                0..8,
            ),
            upper in proptest::collection::vec(proptest::bool::ANY, 64),
        ) {
            let value: String = pieces
                .concat()
                .chars()
                .zip(upper.iter().cycle())
                .map(|(c, &u)| if u { c.to_ascii_uppercase() } else { c })
                .collect();
            proptest::prop_assert_eq!(pattern_bits(value.as_bytes()), naive_bits(&value), "{:?}", value);
        }
    }
}
