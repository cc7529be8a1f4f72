//! HTML to text blocks, metadata and links; main content vs boilerplate.

mod attrs;
pub mod classify;
mod clean;
mod joins;
mod readability;
mod scan;
pub mod tags;
pub mod tokenizer;
pub mod tree;

use hashbrown::HashTable;
use neardup_api::SettingError;
use serde::{Deserialize, Serialize};
use std::hash::BuildHasher;
use url::Url;

pub use attrs::LinkRels;
pub use classify::MainText;
use tags::Tag;

/// One block of text (a paragraph, heading, list item, table cell...).
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// Whitespace-collapsed text of the block.
    pub text: String,
    /// The block-level tag that delimited it (`p`, `h2`, `li`, `div`...).
    pub tag: &'static str,
    /// Share of the block's characters inside links, `0.0..=1.0`.
    pub link_density: f32,
    /// Whether the classifier kept it as main content.
    pub is_main: bool,
}

/// What extraction found in a page.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Extracted {
    /// `<title>` text.
    pub title: String,
    /// `<link rel=canonical>` resolved against the base URL.
    pub canonical: Option<String>,
    /// `<meta name=robots>` content, lowercased.
    pub robots: Option<String>,
    /// `<base href>` as written.
    pub base_href: Option<String>,
    /// `<html lang>` as written.
    pub lang: Option<String>,
    /// Outgoing links (`<a href>`), resolved, http(s) only, fragments removed:
    /// each distinct target once, in page order, never the page itself.
    /// Kept parsed: a crawler canonicalizes them without parsing again.
    pub links: Vec<Url>,
    /// [`LinkRels`] bits of each link in `links` (same order): the `rel`
    /// tokens that *every* `<a>` to that target carries, so a target also
    /// linked without `rel=nofollow` counts as followed (as search engines
    /// treat it).
    pub link_rels: Vec<u8>,
    /// `<meta>` name/content pairs carrying `noindex`, `nofollow` or `none`
    /// (names lowercased: `robots`, `googlebot`, `neardup`, ...).
    pub directive_metas: Vec<(String, String)>,
    /// Text blocks in document order.
    pub blocks: Vec<Block>,
    /// Set when the page is a redirect stub (`extract.redirect_stubs`, see
    /// `redirect_of`).
    pub redirect: Option<Redirect>,
    /// Whether the main blocks are the page's article or, on a page
    /// without one, its content blocks (`classify`).
    pub main_text: MainText,
    /// Problems worth telling the user.
    pub warnings: Vec<String>,
}

impl Extracted {
    /// The text the signatures see under `mode`: the text of the main
    /// blocks, or of all, joined by newlines (none before the first block
    /// with text).
    pub fn text(&self, mode: ExtractMode) -> String {
        let mut out = String::new();
        for (_, b) in self.selected(mode) {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&b.text);
        }
        out
    }

    /// The blocks whose text [`Extracted::text`] joins under `mode`, with
    /// their index in `blocks`.
    pub fn selected(&self, mode: ExtractMode) -> impl Iterator<Item = (usize, &Block)> + '_ {
        self.blocks
            .iter()
            .enumerate()
            .filter(move |(_, b)| mode == ExtractMode::Full || b.is_main)
    }
}

/// Extracts text blocks, metadata and links from `html`. `page_url` resolves
/// relative links (after any `<base href>`).
///
/// One streaming pass (`tokenizer` + a stack of open elements) builds the
/// blocks and a light element tree; `classify` then marks main-content
/// blocks. Never panics; cost is linear in the input.
pub fn extract(html: &str, page_url: Option<&Url>, config: &ExtractConfig) -> Extracted {
    let mut parsed = tree::parse(html);
    let (mask, main_text) = classify::classify(&parsed);
    let mut warnings = Vec::new();

    // Base URL: <base href> resolved against the page URL (or absolute on
    // its own); a base that does not parse is ignored with a warning.
    let base = match (&parsed.base_href, page_url) {
        (Some(b), Some(page)) => match page.join(b) {
            Ok(u) => Some(u),
            Err(_) => {
                warnings.push(format!("ignored unparseable <base href> {b:?}"));
                Some(page.clone())
            }
        },
        (Some(b), None) => Url::parse(b).ok(),
        (None, Some(page)) => Some(page.clone()),
        (None, None) => None,
    };
    let resolve = |raw: &str| -> Option<Url> {
        let raw = raw.trim();
        if raw.is_empty() {
            return None;
        }
        let joined = match &base {
            Some(b) => b.join(raw).ok()?,
            None => Url::parse(raw).ok()?,
        };
        matches!(joined.scheme(), "http" | "https").then_some(joined)
    };

    let this_page = page_url.map(|u| {
        let mut u = u.clone();
        u.set_fragment(None);
        String::from(u)
    });
    let (links, link_rels) = collect_links(
        &parsed,
        &resolve,
        base.as_ref(),
        this_page.as_deref(),
        config.max_links,
    );
    let canonical = parsed
        .canonical
        .as_deref()
        .and_then(resolve)
        .map(String::from);

    // The blocks' texts move into the result: nothing below reads the
    // parsed blocks, and copying them cost a page's text again.
    let raw_blocks = std::mem::take(&mut parsed.blocks);
    let blocks: Vec<Block> = raw_blocks
        .into_iter()
        .zip(mask.iter().copied().chain(std::iter::repeat(false)))
        .map(|(b, is_main)| Block {
            tag: parsed
                .nodes
                .get(b.owner as usize)
                .map_or("body", |n| match n.tag {
                    Tag::Root | Tag::Html => "body",
                    t => t.name(),
                }),
            link_density: if b.chars == 0 {
                0.0
            } else {
                b.link_chars as f32 / b.chars as f32
            },
            is_main,
            text: b.text,
        })
        .collect();

    // Without links (`max_links` 0) a one-link stub still needs its link.
    let stub_links = if config.max_links == 0 && parsed.hrefs.len() <= 2 {
        collect_links(&parsed, &resolve, base.as_ref(), this_page.as_deref(), 2).0
    } else {
        Vec::new()
    };
    let redirect = if config.redirect_stubs {
        redirect_of(
            &parsed,
            &blocks,
            if config.max_links == 0 {
                &stub_links
            } else {
                &links
            },
            this_page.as_deref(),
            config.refresh_max_delay_secs,
            resolve,
        )
    } else {
        None
    };

    Extracted {
        title: parsed.title,
        canonical,
        robots: parsed.robots,
        base_href: parsed.base_href,
        lang: parsed.lang,
        links,
        link_rels,
        directive_metas: parsed.directive_metas,
        blocks,
        redirect,
        main_text,
        warnings,
    }
}

/// The page's first `max` distinct link targets, resolved by `resolve`,
/// fragments removed, never `this_page`, with the `rel` bits every `<a>` to
/// each carries. Each target is kept once: source listings and long
/// references repeat `#line` anchors tens of thousands of times, which would
/// fill `max` (and memory) with one URL the frontier drops anyway.
///
/// An href of only a fragment (`#x`) is the `base` without its fragment,
/// not parsed; nor is an href repeated on the page: resolving a URL is most
/// of the cost of a page's links (documentation sidebars and anchors repeat
/// them by the hundred).
fn collect_links(
    parsed: &tree::Parsed<'_>,
    resolve: &impl Fn(&str) -> Option<Url>,
    base: Option<&Url>,
    this_page: Option<&str>,
    max: usize,
) -> (Vec<Url>, Vec<u8>) {
    let mut links: Vec<Url> = Vec::new();
    let mut link_rels: Vec<u8> = Vec::new();
    if max == 0 {
        return (links, link_rels);
    }
    let fragment_target = base
        .filter(|b| matches!(b.scheme(), "http" | "https"))
        .map(|b| {
            let mut b = b.clone();
            b.set_fragment(None);
            b
        });
    let fragment_target = fragment_target.as_ref();
    // Hashed with a keyed hash (SipHash), so a page cannot make its hrefs
    // or links collide; each table keeps the hash beside its entry. The
    // keys are the thread's, so that remembered joins (`joins`) keep their
    // target's hash too.
    let hasher = joins::hasher();
    // Joins of most hrefs depend on the base's directory only: remembered
    // across pages under the directory and the href as written.
    let dir = base
        .and_then(joins::dir_of)
        .map(|d| (d, joins::dir_hash(&hasher, d)));
    let size = parsed.hrefs.len().min(1 << 12);
    // Each distinct href as written, and what it came to: the index of its
    // target in `links`, or None for none (unresolvable, not http(s), the
    // page itself). Resolution depends on the href alone (one base).
    let mut by_href: HashTable<(u64, &str, Option<u32>)> = HashTable::with_capacity(size);
    // The index in `links` of each target.
    let mut targets: HashTable<(u64, u32)> = HashTable::with_capacity(size.min(max));
    for (i, &raw) in parsed.hrefs.iter().enumerate() {
        let rels = parsed.href_rels.get(i).copied().unwrap_or(0);
        let hash = hasher.hash_one(raw);
        let known = by_href.find(hash, |&(h, r, _)| h == hash && r == raw);
        if let Some(&(_, _, target)) = known {
            if let Some(r) = target.and_then(|at| link_rels.get_mut(at as usize)) {
                *r &= rels;
            }
            continue;
        }
        let resolved = || resolve_link(raw, resolve, base, fragment_target);
        let found = match dir {
            Some((dir, dir_hash)) => {
                joins::remembered(&hasher, dir, hash ^ dir_hash, raw, resolved)
            }
            None => resolved().0.map(|u| (hasher.hash_one(u.as_str()), u)),
        };
        let Some((target_hash, u)) = found.filter(|(_, u)| this_page != Some(u.as_str())) else {
            by_href.insert_unique(hash, (hash, raw, None), |e| e.0);
            continue;
        };
        let seen = targets
            .find(target_hash, |&(h, at)| {
                h == target_hash && links.get(at as usize) == Some(&u)
            })
            .map(|&(_, at)| at);
        let at = seen.unwrap_or(links.len() as u32);
        by_href.insert_unique(hash, (hash, raw, Some(at)), |e| e.0);
        if seen.is_some() {
            if let Some(r) = link_rels.get_mut(at as usize) {
                *r &= rels;
            }
            continue;
        }
        targets.insert_unique(target_hash, (target_hash, at), |e| e.0);
        link_rels.push(rels);
        links.push(u);
        if links.len() >= max {
            break;
        }
    }
    (links, link_rels)
}

/// One href's target without its fragment, or None (unresolvable, not
/// http(s)); and whether that depends on the base only through its
/// directory, so that it can be remembered (`joins`). A fragment-only href
/// is `fragment_target` without parsing it: joining `#x` to a base keeps
/// the base up to its fragment.
fn resolve_link(
    raw: &str,
    resolve: &impl Fn(&str) -> Option<Url>,
    base: Option<&Url>,
    fragment_target: Option<&Url>,
) -> (Option<Url>, bool) {
    let decoded = html_escape::decode_html_entities(raw);
    let href = decoded.trim();
    if href.starts_with('#') {
        return (fragment_target.cloned(), false);
    }
    match base.filter(|b| joins::dir_of(b).is_some()) {
        Some(base) => (
            joins::target(base, href),
            joins::cacheable(href, base.scheme()),
        ),
        None => {
            let u = resolve(href).map(|mut u| {
                u.set_fragment(None);
                u
            });
            (u, false)
        }
    }
}

/// Most visible words (all blocks, link text included, title not) of a
/// one-link stub, and of a page whose `<noscript>` meta refresh counts.
/// Real stubs say a handful ("Redirecting to page.html...", "Moved
/// Permanently. The document has moved here."); a real page with one link
/// says more, or says nothing about moving.
pub const STUB_MAX_WORDS: usize = 12;

/// Word starts (ASCII-lowercased tokens, trimmed of punctuation) that say
/// a page moved, in the languages of the common generators' and servers'
/// stubs; and phrases for scripts written without spaces.
const MOVED_WORDS: [&str; 12] = [
    "redirect",
    "redirig",
    "redirecion",
    "weiterleit",
    "weitergeleitet",
    "reindirizz",
    "przekierow",
    "moved",
    "relocated",
    "verschoben",
    "déplacé",
    "перенаправ",
];
const MOVED_PHRASES: [&str; 4] = ["重定向", "跳转", "リダイレクト", "移動しました"];

/// Whether `text` has a word saying the page moved ([`MOVED_WORDS`]).
fn says_moved(text: &str) -> bool {
    text.split_whitespace().any(|w| {
        let w = w
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        MOVED_WORDS.iter().any(|m| w.starts_with(m))
    }) || MOVED_PHRASES.iter().any(|p| text.contains(p))
}

/// Parses the `content` of a `<meta http-equiv=refresh>` as the HTML
/// standard's shared declarative refresh steps do: the delay's integer
/// part (fractions ignored; `None` if there is no number), then, after
/// `;`, `,` or spaces, an optional `url=` (any case, spaces around `=`),
/// an optional quote that ends the URL where it closes. Returns the delay
/// and the URL as written; no URL (`"5"`, `"0;"`) is a reload of the page
/// itself.
pub fn parse_refresh(content: &str) -> Option<(u64, Option<&str>)> {
    let ws = |c: char| c.is_ascii_whitespace();
    let s = content.trim_start_matches(ws);
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (number, rest) = s.split_at(digits);
    if number.is_empty() && !rest.starts_with('.') {
        return None;
    }
    // An absurdly long number is an absurdly long delay.
    let delay = number
        .parse::<u64>()
        .unwrap_or(if number.is_empty() { 0 } else { u64::MAX });
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
    if rest.is_empty() {
        return Some((delay, None));
    }
    if !rest.starts_with([';', ',']) && !rest.starts_with(ws) {
        return None;
    }
    let rest = rest.trim_start_matches(ws);
    let rest = rest.strip_prefix([';', ',']).unwrap_or(rest);
    let mut url = rest.trim_start_matches(ws);
    if url.len() >= 3 && url.as_bytes()[..3].eq_ignore_ascii_case(b"url") {
        if let Some(after) = url[3..].trim_start_matches(ws).strip_prefix('=') {
            url = after.trim_start_matches(ws);
        }
    }
    if let Some(q) = url.chars().next().filter(|c| *c == '"' || *c == '\'') {
        let inner = &url[1..];
        url = inner.split(q).next().unwrap_or(inner);
    }
    let url = url.trim();
    Some((delay, (!url.is_empty()).then_some(url)))
}

/// Whether the page is a redirect stub, and to where: a pointer to
/// another URL, as an HTTP 3xx is, rather than a page of its own.
///
/// - **Meta refresh**: the first `<meta http-equiv=refresh>` (outside
///   `<template>`) names a URL, other than the page itself, with a delay of
///   at most `max_delay` seconds (`extract.refresh_max_delay_secs`). A
///   refresh without URL reloads the page; a long delay is a page meant to
///   be read first. One inside `<noscript>` (Sphinx's redirect pages put it
///   there, beside a script that does the same) fires only without
///   scripts: it counts only on a page that shows at most
///   [`STUB_MAX_WORDS`] words.
/// - **One-link stub**: no meta refresh, exactly one link target
///   (http(s), not the page itself; at most two `<a href>`), no image,
///   embed or form field, at most [`STUB_MAX_WORDS`] visible words, and a
///   word saying it moved in the text or title ([`MOVED_WORDS`]:
///   "Redirecting to ...", "The document has moved here"). A short real
///   page with one link ("Thanks! Back to the home page") does not say it
///   moved; one that does is a pointer.
///
/// The target is resolved like links (against `<base href>` and the page
/// URL), fragment removed; `None` when it is not http(s).
fn redirect_of(
    parsed: &tree::Parsed<'_>,
    blocks: &[Block],
    links: &[Url],
    this_page: Option<&str>,
    max_delay: u64,
    resolve: impl Fn(&str) -> Option<Url>,
) -> Option<Redirect> {
    let words = || {
        blocks
            .iter()
            .map(|b| b.text.split_whitespace().count())
            .sum::<usize>()
    };
    let target = |raw: &str| {
        let mut u = resolve(raw)?;
        u.set_fragment(None);
        let u = String::from(u);
        (this_page != Some(u.as_str())).then_some(u)
    };
    let refresh = match (&parsed.refresh, &parsed.noscript_refresh) {
        (Some(c), _) => Some(c),
        (None, Some(c)) if words() <= STUB_MAX_WORDS => Some(c),
        _ => None,
    };
    if let Some((delay, Some(url))) = refresh.and_then(|c| parse_refresh(c)) {
        if delay <= max_delay {
            let decoded = html_escape::decode_html_entities(url);
            if let Some(to) = target(&decoded) {
                return Some(Redirect {
                    to,
                    kind: RedirectKind::MetaRefresh,
                });
            }
        }
        return None;
    }
    let [link] = links else { return None };
    if parsed.hrefs.len() > 2
        || parsed
            .nodes
            .iter()
            .any(|n| (n.img | n.embed | n.input) != 0)
        || words() > STUB_MAX_WORDS
    {
        return None;
    }
    let said = blocks.iter().any(|b| says_moved(&b.text)) || says_moved(&parsed.title);
    said.then(|| Redirect {
        to: link.as_str().to_owned(),
        kind: RedirectKind::LinkStub,
    })
}

/// How a page says it has moved (see `redirect_of`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RedirectKind {
    /// `<meta http-equiv="refresh" content="N; url=URL">` with a short
    /// delay.
    MetaRefresh,
    /// A tiny page of one link and a few words saying it moved.
    LinkStub,
}

impl RedirectKind {
    /// The snake_case name used in output files.
    pub fn as_str(self) -> &'static str {
        match self {
            RedirectKind::MetaRefresh => "meta_refresh",
            RedirectKind::LinkStub => "link_stub",
        }
    }
}

/// A redirect stub's target: the page is a pointer, like an HTTP 3xx, not
/// a page of its own.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Redirect {
    /// The target, resolved against the page URL (and its `<base>`),
    /// without fragment.
    pub to: String,
    /// How the page says so.
    pub kind: RedirectKind,
}

/// Which text of a page the signatures see.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExtractMode {
    /// Main content only (boilerplate removed): the default, and what makes
    /// the same article on two sites match.
    Main,
    /// All visible text.
    Full,
}

/// Decoding and extraction settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExtractConfig {
    /// `main` or `full`.
    pub mode: ExtractMode,
    /// Bytes of a body that are looked at; the rest is ignored with a warning.
    pub max_body_bytes: usize,
    /// Outgoing links kept per page; 0 keeps none (a one-link redirect
    /// stub is still recognised).
    pub max_links: usize,
    /// Recognise redirect stubs (a `<meta http-equiv=refresh>` to another
    /// URL within `refresh_max_delay_secs`, or a tiny page of one link and
    /// a few words saying it moved): they are redirects, not pages (see
    /// `extract::redirect_of`).
    pub redirect_stubs: bool,
    /// Longest delay, in seconds, of a meta refresh that counts as a
    /// redirect; a longer one is a page that reloads or moves on after
    /// being read (a slideshow, a dashboard).
    pub refresh_max_delay_secs: u64,
}

impl Default for ExtractConfig {
    fn default() -> Self {
        ExtractConfig {
            mode: ExtractMode::Main,
            max_body_bytes: 8 * 1024 * 1024,
            max_links: 2000,
            redirect_stubs: true,
            refresh_max_delay_secs: 5,
        }
    }
}

impl ExtractConfig {
    /// Checks every range of `[extract]`.
    ///
    /// # Errors
    /// The first bad key, its value and what is allowed.
    pub fn validate(&self) -> Result<(), SettingError> {
        SettingError::range("extract.max_body_bytes", self.max_body_bytes, 1024, 1 << 30)?;
        SettingError::range("extract.max_links", self.max_links, 0, 1_000_000)?;
        SettingError::range64(
            "extract.refresh_max_delay_secs",
            self.refresh_max_delay_secs,
            0,
            3600,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page's links as strings.
    fn link_strs(e: &Extracted) -> Vec<&str> {
        e.links.iter().map(Url::as_str).collect()
    }

    fn ex(html: &str) -> Extracted {
        extract(html, None, &ExtractConfig::default())
    }

    fn ex_url(html: &str, url: &str) -> Extracted {
        let u = Url::parse(url).unwrap();
        extract(html, Some(&u), &ExtractConfig::default())
    }

    fn fixture(name: &str) -> String {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../testdata/extract")
            .join(name);
        std::fs::read_to_string(p).unwrap()
    }

    #[test]
    fn nofollow_rels_and_directive_metas() {
        let e = ex_url(
            "<html><head><meta name=robots content='NOINDEX, follow'>\
             <meta name=\"Neardup\" content=nofollow><meta name=description content='a page'>\
             <meta name=googlebot content=none></head><body>\
             <a href=/a rel='external NoFollow'>a</a><a href=/b rel=ugc>b</a>\
             <a href=/b>b again</a><a href=/c rel='sponsored ugc'>c</a><a href=/d>d</a>\
             </body></html>",
            "https://example.com/",
        );
        assert_eq!(
            link_strs(&e),
            [
                "https://example.com/a",
                "https://example.com/b",
                "https://example.com/c",
                "https://example.com/d"
            ]
        );
        // /b is also linked without rel: followed.
        assert_eq!(
            e.link_rels,
            [
                LinkRels::NOFOLLOW,
                0,
                LinkRels::UGC | LinkRels::SPONSORED,
                0
            ]
        );
        assert_eq!(
            e.directive_metas,
            [
                ("robots".to_owned(), "noindex, follow".to_owned()),
                ("neardup".to_owned(), "nofollow".to_owned()),
                ("googlebot".to_owned(), "none".to_owned()),
            ]
        );
        assert_eq!(e.robots.as_deref(), Some("noindex, follow"));
    }

    #[test]
    fn article_vs_boilerplate_on_fixture() {
        let e = ex_url(
            &fixture("news-article.html"),
            "https://example.com/news/x?id=1",
        );
        let main = e.text(ExtractMode::Main);
        assert!(main.contains("voted on Tuesday to approve"), "{main}");
        assert!(main.contains("Funding and timeline"), "{main}");
        assert!(main.contains("private donations"), "{main}");
        for junk in [
            "Sport",
            "cookies",
            "Most read",
            "Storm closes",
            "Great news",
            "All rights",
            "Tweet",
            "Accept",
        ] {
            assert!(
                !main.contains(junk),
                "{junk:?} leaked into main text: {main}"
            );
        }
        let full = e.text(ExtractMode::Full);
        for t in [
            "Sport",
            "Most read",
            "All rights reserved",
            "voted on Tuesday",
        ] {
            assert!(full.contains(t), "{t:?} missing from full text");
        }
        // Per block: the nav list is boilerplate with high link density.
        let nav = e.blocks.iter().find(|b| b.text == "Sport").unwrap();
        assert!(!nav.is_main);
        assert!(nav.link_density > 0.99);
        let para = e
            .blocks
            .iter()
            .find(|b| b.text.starts_with("The city council voted"))
            .unwrap();
        assert!(para.is_main);
        assert_eq!(para.tag, "p");
        assert_eq!(para.link_density, 0.0);
    }

    #[test]
    fn a_carousel_of_headline_cards_does_not_take_the_article_over() {
        // A gated magazine article: three paragraphs in a content section,
        // under a wrapper whose class reads as negative ("scroll"), and a
        // carousel of twelve headline cards whose bodies' classes read as
        // positive ("body"). Each card starts as a candidate nearly as good
        // as the article by its class alone, but its text earned it two
        // points to the article's ten: the cards are not the article split
        // into parts, so the article is not widened to the page holding
        // both (where the cleaner then drops the "scroll" wrapper and the
        // cards are all that is left).
        let para = |i: usize| {
            format!(
                "<p>Paragraph {i} of the story, with a clause, another clause, and a third one \
                 that runs on about the history of toys, the catalogs that sold them, the \
                 studies that measured what children learn from play, and what parents \
                 can do about it at home.</p>"
            )
        };
        let cards: String = (0..12)
            .map(|i| {
                format!(
                    "<div class=\"card\"><div class=\"tile-body\"><h3>Read this next: \
                     headline number {i} of the carousel</h3></div></div>"
                )
            })
            .collect();
        let html = format!(
            "<html><head><title>Toys</title></head><body><div class=\"layout\">\
             <div class=\"scrollspy-container\"><article class=\"article-wrapper\">\
             <section class=\"article-content\"><div>{}{}{}</div></section></article></div>\
             <div class=\"carousel\"><h2>Read This Next</h2>{cards}</div></div></body></html>",
            para(1),
            para(2),
            para(3)
        );
        let e = ex_url(&html, "https://example.com/magazine/toys");
        let main = e.text(ExtractMode::Main);
        assert!(main.contains("Paragraph 1 of the story"), "{main}");
        assert!(main.contains("Paragraph 3 of the story"), "{main}");
        assert!(!main.contains("headline number"), "{main}");
    }

    #[test]
    fn metadata() {
        let e = ex_url(
            &fixture("news-article.html"),
            "https://example.com/news/x?id=1",
        );
        assert_eq!(e.title, "City council approves new library | Example Times");
        assert_eq!(
            e.canonical.as_deref(),
            Some("https://example.com/news/2024/library.html")
        );
        assert_eq!(e.robots.as_deref(), Some("noindex, follow"));
        assert_eq!(e.lang.as_deref(), Some("en"));
        assert!(link_strs(&e).contains(&"https://example.com/sport"));
        assert!(link_strs(&e).contains(&"https://twitter.com/share"));
    }

    #[test]
    fn links_resolve_against_base_href_and_skip_non_http() {
        let html = r#"<html><head><base href="/docs/v2/"></head><body>
            <a href="page.html">rel</a>
            <a href="../up.html#frag">up</a>
            <a href="//cdn.example.org/x">proto-rel</a>
            <a href="javascript:void(0)">js</a>
            <a href="mailto:a@b.c">mail</a>
            <a href="data:text/html,hi">data</a>
            <a href="http://[bad">bad</a>
            <a href="ftp://example.com/f">ftp</a>
            <a href="?q=1&amp;r=2">query</a>
            <a>no href</a>
        </body></html>"#;
        let e = ex_url(html, "https://example.com/start/index.html");
        assert_eq!(e.base_href.as_deref(), Some("/docs/v2/"));
        assert_eq!(
            link_strs(&e),
            vec![
                "https://example.com/docs/v2/page.html",
                "https://example.com/docs/up.html",
                "https://cdn.example.org/x",
                "https://example.com/docs/v2/?q=1&r=2",
            ]
        );
    }

    #[test]
    fn links_are_distinct_and_skip_the_page_itself() {
        let mut html = String::new();
        for i in 0..1000 {
            html.push_str(&format!("<a href=\"#l{i}\">{i}</a> "));
        }
        html.push_str(
            r#"<a href="other.html">o</a><a href="other.html#x">o2</a>
               <a href="page.html?a=1">q</a><a href="b.html">b</a>"#,
        );
        let page = Url::parse("https://e.com/d/page.html").unwrap();
        let config = ExtractConfig {
            max_links: 3,
            ..ExtractConfig::default()
        };
        let e = extract(&html, Some(&page), &config);
        // The 1000 anchors into the page itself neither appear nor use up
        // the cap; a repeated target counts once.
        assert_eq!(
            link_strs(&e),
            vec![
                "https://e.com/d/other.html",
                "https://e.com/d/page.html?a=1",
                "https://e.com/d/b.html",
            ]
        );
    }

    #[test]
    fn links_are_capped_and_need_a_base_when_relative() {
        let mut html = String::new();
        for i in 0..50 {
            html.push_str(&format!(
                "<a href=\"https://e.com/{i}\">l</a><a href=\"/rel{i}\">r</a>"
            ));
        }
        let config = ExtractConfig {
            max_links: 10,
            ..ExtractConfig::default()
        };
        let e = extract(&html, None, &config);
        // Without a page URL, relative links cannot be resolved.
        assert_eq!(e.links.len(), 10);
        assert!(link_strs(&e)
            .iter()
            .all(|l| l.starts_with("https://e.com/")));
        let none = extract(
            &html,
            None,
            &ExtractConfig {
                max_links: 0,
                ..config
            },
        );
        assert!(none.links.is_empty());
    }

    #[test]
    fn script_style_and_friends_dropped() {
        let e = ex("<html><head><title>T</title><style>.a{}</style></head><body>\
            <script>document.write('<p>evil</p>')</script><noscript>enable js</noscript>\
            <template><p>tmpl</p></template><svg><text>svgtext</text></svg>\
            <p>visible text</p><div hidden>hidden one</div><div style=\"display: none\">hidden two</div>\
            <span aria-hidden=\"true\">hidden three</span></body></html>");
        let full = e.text(ExtractMode::Full);
        assert_eq!(full, "visible text");
        assert_eq!(e.title, "T");
    }

    #[test]
    fn entities_decoded_and_whitespace_collapsed() {
        let e = ex("<p>Fish &amp; chips &lt;3 &eacute;t&#233; &#x4E2D;\n\n   caf&eacute;&nbsp;x</p><p>  a\tb  </p>");
        let full = e.text(ExtractMode::Full);
        assert_eq!(full, "Fish & chips <3 été 中 café\u{a0}x\na b");
    }

    #[test]
    fn cjk_text_kept() {
        let para = "北京是中华人民共和国的首都，也是全国的政治、文化和国际交往中心。这座城市有着三千多年的建城史。";
        let html = format!(
            "<html><body><nav><a href=/>首页</a> <a href=/n>新闻</a></nav><article><p>{para}</p><p>{para}</p></article></body></html>"
        );
        let e = ex(&html);
        let main = e.text(ExtractMode::Main);
        assert!(main.contains("北京是中华人民共和国的首都"), "{main}");
        assert!(!main.contains("首页"), "{main}");
    }

    #[test]
    fn deeply_nested_divs_do_not_overflow() {
        let depth = 100_000;
        let mut html = String::with_capacity(depth * 12);
        for _ in 0..depth {
            html.push_str("<div>");
        }
        html.push_str("deep text at the bottom of the well");
        for _ in 0..depth {
            html.push_str("</div>");
        }
        html.push_str("<p>after</p>");
        let e = ex(&html);
        let full = e.text(ExtractMode::Full);
        assert!(full.contains("deep text at the bottom of the well"));
        assert!(full.contains("after"));
        // Unclosed variant, with stray end tags.
        let unclosed = format!(
            "{}text{}",
            "<div><span>".repeat(50_000),
            "</p></b>".repeat(50_000)
        );
        let e = ex(&unclosed);
        assert_eq!(e.text(ExtractMode::Full), "text");
    }

    #[test]
    fn all_boilerplate_page_has_little_main_text() {
        let html = "<html><body><header class=header><a href=/>Home</a><a href=/a>About</a></header>\
            <nav><ul><li><a href=/1>One</a></li><li><a href=/2>Two</a></li><li><a href=/3>Three</a></li></ul></nav>\
            <footer><a href=/p>Privacy</a> <a href=/t>Terms</a> Copyright 2024</footer></body></html>";
        let e = ex(html);
        let main = e.text(ExtractMode::Main);
        assert!(
            !main.contains("Privacy") && !main.contains("One"),
            "{main:?}"
        );
        assert!(e.text(ExtractMode::Full).contains("Privacy"));
    }

    #[test]
    fn short_page_that_is_all_content_keeps_it() {
        let html = "<html><head><title>Note</title></head><body><h1>Note</h1>\
            <p>The meeting moved to Thursday.</p><p>Bring the quarterly numbers, please.</p></body></html>";
        let main = ex(html).text(ExtractMode::Main);
        assert!(main.contains("The meeting moved to Thursday."), "{main:?}");
        assert!(main.contains("Bring the quarterly numbers"), "{main:?}");
    }

    #[test]
    fn malformed_markup() {
        let e = ex("<p>one<p>two<li>three<table><tr><td>cell<td>cell2</table><b><i>x</b></i><div class=\"a>b\">quoted</div><a href='x");
        let full = e.text(ExtractMode::Full);
        assert!(
            full.contains("one")
                && full.contains("two")
                && full.contains("cell2")
                && full.contains("quoted"),
            "{full}"
        );
        assert_eq!(e.blocks.iter().filter(|b| b.text == "one").count(), 1);
    }

    #[test]
    fn big_page() {
        // ~50 MB of paragraphs: linear time, no panic.
        let para = "<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.</p>\n";
        let html = para.repeat(50 * 1024 * 1024 / para.len());
        let e = ex(&html);
        assert_eq!(e.blocks.len(), 50 * 1024 * 1024 / para.len());
        assert!(e.blocks.iter().all(|b| b.is_main));
    }

    fn redirect_fixture(name: &str, url: &str) -> Option<Redirect> {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../testdata/redirect")
            .join(name);
        ex_url(&std::fs::read_to_string(p).unwrap(), url).redirect
    }

    #[test]
    fn refresh_content_spellings() {
        for (content, want) in [
            ("0;URL=a.html", Some((0, Some("a.html")))),
            ("0; url=a.html", Some((0, Some("a.html")))),
            (
                "  3 ,  Url = 'a b.html' trailing",
                Some((3, Some("a b.html"))),
            ),
            ("0;url=\"a.html\"", Some((0, Some("a.html")))),
            ("1.5; url=a.html", Some((1, Some("a.html")))),
            (".5;a.html", Some((0, Some("a.html")))),
            ("0 a.html", Some((0, Some("a.html")))),
            ("0;urla.html", Some((0, Some("urla.html")))),
            ("30", Some((30, None))),
            ("0;", Some((0, None))),
            ("0; url=", Some((0, None))),
            (
                "99999999999999999999999; url=a",
                Some((u64::MAX, Some("a"))),
            ),
            ("url=a.html", None),
            ("0x; url=a.html", None),
            ("", None),
        ] {
            assert_eq!(parse_refresh(content), want, "{content:?}");
        }
    }

    #[test]
    fn meta_refresh_stub_is_a_redirect_resolved_against_the_page() {
        let r = redirect_fixture("meta-refresh.html", "https://e.com/guide/old/widgets.html");
        assert_eq!(
            r,
            Some(Redirect {
                to: "https://e.com/guide/reference/widgets.html".into(),
                kind: RedirectKind::MetaRefresh,
            })
        );
        // A <base href> moves the target like any link; entities decoded.
        let e = ex_url(
            "<head><base href=/v2/><meta http-equiv=refresh content='0;url=a.html?x=1&amp;y=2'></head>",
            "https://e.com/v1/page.html",
        );
        assert_eq!(
            e.redirect.map(|r| r.to).as_deref(),
            Some("https://e.com/v2/a.html?x=1&y=2")
        );
    }

    #[test]
    fn refresh_that_reloads_or_waits_is_not_a_redirect() {
        // A long delay: a page meant to be read (a slideshow).
        assert_eq!(
            redirect_fixture("long-delay.html", "https://e.com/photos/slide-1.html"),
            None
        );
        for head in [
            // No URL: the page reloads itself.
            "<meta http-equiv=refresh content=300>",
            // A URL that is the page itself (fragment aside).
            "<meta http-equiv=refresh content='0; url=page.html#x'>",
            // Not http(s).
            "<meta http-equiv=refresh content='0; url=javascript:go()'>",
            // Inside a template: inert.
            "<template><meta http-equiv=refresh content='0; url=b.html'></template>",
            // Another http-equiv.
            "<meta http-equiv=content-type content='0; url=b.html'>",
        ] {
            let e = ex_url(
                &format!("<html><head>{head}</head><body><p>Text.</p></body></html>"),
                "https://e.com/d/page.html",
            );
            assert_eq!(e.redirect, None, "{head}");
        }
        // Within the configured delay, and switched off.
        let html = "<meta http-equiv=refresh content='5; url=b.html'><p>x</p>";
        let page = Url::parse("https://e.com/a.html").unwrap();
        let at = |secs, on| {
            let config = ExtractConfig {
                refresh_max_delay_secs: secs,
                redirect_stubs: on,
                ..ExtractConfig::default()
            };
            extract(html, Some(&page), &config).redirect.is_some()
        };
        assert!(at(5, true));
        assert!(!at(4, true));
        assert!(!at(5, false));
    }

    #[test]
    fn noscript_refresh_counts_only_on_a_page_that_shows_nothing_else() {
        assert_eq!(
            redirect_fixture("noscript-stub.html", "https://e.com/old/page.html"),
            Some(Redirect {
                to: "https://e.com/old/new/location.html".into(),
                kind: RedirectKind::MetaRefresh,
            })
        );
        // A page with content sends only browsers without scripts away.
        assert_eq!(
            redirect_fixture("noscript-app.html", "https://e.com/track.html"),
            None
        );
    }

    #[test]
    fn one_link_stub_is_a_redirect_and_a_short_real_page_is_not() {
        assert_eq!(
            redirect_fixture("link-stub.html", "https://e.com/install.html"),
            Some(Redirect {
                to: "https://e.com/manual/install.html".into(),
                kind: RedirectKind::LinkStub,
            })
        );
        // One link, few words, but nothing says the page moved.
        assert_eq!(
            redirect_fixture("short-page.html", "https://e.com/contact/sent.html"),
            None
        );
        let stub = |body: &str| {
            ex_url(
                &format!("<html><body>{body}</body></html>"),
                "https://e.com/a.html",
            )
            .redirect
        };
        assert!(stub("<p>Weitergeleitet nach <a href=b.html>b.html</a></p>").is_some());
        // Without links (`max_links` 0, as `dedup` and `serve` run) the
        // stub's one link is still found, and no link is returned.
        let html = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../testdata/redirect/link-stub.html"),
        )
        .unwrap();
        let page = Url::parse("https://e.com/install.html").unwrap();
        let linkless = ExtractConfig {
            max_links: 0,
            ..ExtractConfig::default()
        };
        let e = extract(&html, Some(&page), &linkless);
        assert!(e.links.is_empty());
        assert_eq!(
            e.redirect.map(|r| r.to),
            Some("https://e.com/manual/install.html".to_string())
        );
        // Two link targets, an image, or a longer text: not a stub.
        assert_eq!(
            stub("<p>Moved to <a href=b.html>b</a> or <a href=c.html>c</a></p>"),
            None
        );
        assert_eq!(
            stub("<img src=x.png><p>Moved to <a href=b.html>b</a></p>"),
            None
        );
        assert_eq!(
            stub(
                "<p>We moved our office downtown last spring; the new address and opening \
                 hours are on <a href=b.html>the contact page</a>.</p>"
            ),
            None
        );
        // "removed" is not "moved".
        assert_eq!(
            stub("<p>This item was removed. <a href=/>Home</a></p>"),
            None
        );
    }

    /// A paragraph's text, characters, link characters and commas as the
    /// parse defines them: the runs of its text between ASCII whitespace,
    /// one space between two runs that whitespace separated (also across
    /// inline tags); a run's characters, and the space before it, count
    /// as link text inside `<a>`; commas are ASCII, full-width and
    /// ideographic ones.
    fn paragraph_model(segments: &[(String, bool)]) -> (String, u32, u32, u32) {
        let (mut text, mut links, mut pending) = (String::new(), 0u32, false);
        for (segment, in_link) in segments {
            let mut rest = segment.as_str();
            while !rest.is_empty() {
                let run_end = rest
                    .find(|c: char| c.is_ascii_whitespace())
                    .unwrap_or(rest.len());
                let (run, after) = rest.split_at(run_end);
                if !run.is_empty() {
                    let mut pushed = 0;
                    if pending && !text.is_empty() {
                        text.push(' ');
                        pushed += 1;
                    }
                    pending = false;
                    text.push_str(run);
                    pushed += run.chars().count() as u32;
                    if *in_link {
                        links += pushed;
                    }
                }
                let ws_end = after
                    .find(|c: char| !c.is_ascii_whitespace())
                    .unwrap_or(after.len());
                pending |= ws_end > 0;
                rest = &after[ws_end..];
            }
        }
        let chars = text.chars().count() as u32;
        let commas = text
            .chars()
            .filter(|c| matches!(c, ',' | '\u{FF0C}' | '\u{3001}'))
            .count() as u32;
        (text, chars, links, commas)
    }

    /// Links as the extractor collected them before hrefs were resolved
    /// once each: every href resolved on its own (entities decoded, joined
    /// to the base, fragment removed), the page itself and repeats skipped
    /// (a repeat's rel bits ANDed into its first), the first `max` kept.
    fn links_model(html: &str, page: Option<&Url>, max: usize) -> (Vec<String>, Vec<u8>) {
        let parsed = tree::parse(html);
        let base = match (&parsed.base_href, page) {
            (Some(b), Some(page)) => Some(page.join(b).unwrap_or_else(|_| page.clone())),
            (Some(b), None) => Url::parse(b).ok(),
            (None, page) => page.cloned(),
        };
        let this_page = page.map(|u| {
            let mut u = u.clone();
            u.set_fragment(None);
            String::from(u)
        });
        let (mut links, mut rels): (Vec<String>, Vec<u8>) = (Vec::new(), Vec::new());
        for (raw, &r) in parsed.hrefs.iter().zip(&parsed.href_rels) {
            if links.len() >= max {
                break;
            }
            let decoded = html_escape::decode_html_entities(raw);
            let raw = decoded.trim();
            if raw.is_empty() {
                continue;
            }
            let joined = match &base {
                Some(b) => b.join(raw),
                None => Url::parse(raw),
            };
            let Ok(mut u) = joined else { continue };
            if !matches!(u.scheme(), "http" | "https") {
                continue;
            }
            u.set_fragment(None);
            if this_page.as_deref() == Some(u.as_str()) {
                continue;
            }
            match links.iter().position(|l| l == u.as_str()) {
                Some(at) => rels[at] &= r,
                None => {
                    links.push(String::from(u));
                    rels.push(r);
                }
            }
        }
        (links, rels)
    }

    proptest::proptest! {
        /// Text appended to a block, piece by piece across inline tags and
        /// links, has the whitespace, characters, link characters and
        /// commas of [`paragraph_model`]: single spaces (the fast path) and
        /// every other whitespace run, at either end or inside.
        #[test]
        fn block_text_collapses_whitespace_and_counts_as_the_model(
            segments in proptest::collection::vec(
                ("([a-zé,，、]{1,6}|[ ]{1,3}|[\t\n\r\x0c]|\u{a0}|\x0b){0,8}", proptest::bool::ANY),
                1..6,
            ),
        ) {
            let mut html = String::from("<html><body><p>");
            for (segment, link) in &segments {
                if *link {
                    html.push_str(&format!("<a href=\"/x\">{segment}</a>"));
                } else {
                    html.push_str(&format!("<span>{segment}</span>"));
                }
            }
            html.push_str("</p></body></html>");
            let parsed = tree::parse(&html);
            let (text, chars, links, commas) = paragraph_model(&segments);
            let got: Vec<_> = parsed.blocks.iter().map(|b| (b.text.clone(), b.chars, b.link_chars, b.commas)).collect();
            if text.is_empty() {
                proptest::prop_assert!(got.is_empty(), "{:?}", got);
            } else {
                proptest::prop_assert_eq!(got, vec![(text, chars, links, commas)]);
            }
        }

        /// Each distinct href is resolved once and a fragment-only one not
        /// at all, with the links, their order and rel bits of resolving
        /// every href ([`links_model`]): repeated, fragment-only, escaped,
        /// padded, relative and foreign hrefs, with and without a `<base>`
        /// and a page URL, under a cap.
        #[test]
        fn links_are_those_of_resolving_every_href(
            hrefs in proptest::collection::vec((0usize..18, proptest::bool::ANY), 0..40),
            base in 0usize..6,
            page in 0usize..3,
            max in 1usize..12,
        ) {
            const HREFS: [&str; 18] = [
                "#a", " #b ", "&#35;c", "#", "x.html", "x.html#f", "../y.html", "/z",
                "https://o.example/p#q", "javascript:x()", "", "?q=1&amp;r=2", "page.html",
                "page.html#top", "http://[bad", "//cdn.example/s", "\u{3000}#w", "mailto:a@b.c",
            ];
            const BASES: [Option<&str>; 6] = [
                None, Some("/docs/"), Some("https://other.example/b/#frag"), Some("ftp://f.example/"),
                Some("page.html"), Some("http://[bad"),
            ];
            const PAGES: [Option<&str>; 3] = [
                Some("https://e.com/d/page.html"), Some("https://e.com/d/page.html#at"), None,
            ];
            let mut html = String::from("<html><head>");
            if let Some(b) = BASES[base] {
                html.push_str(&format!("<base href=\"{b}\">"));
            }
            html.push_str("</head><body>");
            for &(h, nofollow) in &hrefs {
                let rel = if nofollow { " rel=\"nofollow\"" } else { "" };
                html.push_str(&format!("<a href=\"{}\"{rel}>l</a> ", HREFS[h]));
            }
            html.push_str("</body></html>");
            let page = PAGES[page].map(|p| Url::parse(p).unwrap());
            let config = ExtractConfig { max_links: max, ..ExtractConfig::default() };
            let e = extract(&html, page.as_ref(), &config);
            let got: Vec<String> = e.links.iter().map(|u| u.to_string()).collect();
            proptest::prop_assert_eq!((got, e.link_rels), links_model(&html, page.as_ref(), max));
        }

        #[test]
        fn extract_never_panics(s in "\\PC{0,400}") {
            let e = ex(&s);
            let _ = e.text(ExtractMode::Main);
        }

        #[test]
        fn extract_never_panics_on_tag_soup(s in "(<|>|/|=|\"|'|&|;|!|-|p|div|a|href|script|title| |x|#|:|\\.){0,300}") {
            let u = Url::parse("https://example.com/").unwrap();
            let e = extract(&s, Some(&u), &ExtractConfig::default());
            // Every block is collapsed text: no leading/trailing spaces.
            for b in &e.blocks {
                proptest::prop_assert!(!b.text.is_empty());
                proptest::prop_assert_eq!(b.text.trim(), b.text.as_str());
                proptest::prop_assert!((0.0..=1.0).contains(&b.link_density));
            }
        }
    }
}
