//! Main content vs boilerplate over the tree of the streaming pass.
//!
//! Two kinds of page, one definition between them ([`has_article`]):
//!
//! - **Articles** (news, blog posts, documentation chapters): the main text
//!   is what readability's scoring picks (below).
//! - **Pages without an article** (tables of contents, indexes, API items,
//!   glossaries, data tables): readability's pick is too small to be the
//!   page (fewer than [`ARTICLE_MIN_WORDS`] words, title included) or a
//!   sliver of its text (less than [`ARTICLE_MIN_SHARE`] of it); on such a
//!   page it is typically the site footer or a notice. Their main text is
//!   instead every content block (`page_content`): headings, lists,
//!   tables, definition lists, code signatures (`pre`), paragraphs, minus
//!   the page's chrome, found by structure and link density only
//!   (navigation, banners, footers, asides, forms, boilerplate class names
//!   outside the main landmark, link lists before the `h1`), never by a
//!   site's strings.
//!
//! The decision layer (the core's `content` module) uses the same test on the page
//! minus its site's template to say whether a drop rests on an article or
//! on the whole page; a page this classifier found no article in is judged
//! on the whole page ([`MainText::Page`]).
//!
//! The article algorithm is readability's (Mozilla Readability.js, itself Arc90's):
//! score paragraphs by length and commas, credit the score to their parent
//! (full), grandparent (half) and further ancestors (`1/(3*level)`), scale
//! each candidate by `1 - link density`, take the best candidate (moving up
//! when several strong candidates share an ancestor or a parent scores
//! higher), add its siblings that score well or read like prose, then clean
//! the chosen subtrees: drop headers with negative class weight, share bars,
//! forms, and tables/lists/divs that look like navigation (the shallow text
//! features of Kohlschütter et al. 2010: link density, text length, element
//! counts). Elements whose class/id/role/tag say boilerplate (nav, footer,
//! aside, sidebar, comments, cookie banners, related links...) are removed
//! before scoring; if the result is short (< 500 characters) the pass is
//! repeated with the filters relaxed one by one and the longest result kept,
//! so a page that is all content keeps all of it.
//!
//! Everything runs on index arrays in document order: subtree sums are one
//! reverse pass (children come after parents), inheritance one forward pass,
//! so there is no recursion and the cost is linear in the number of
//! elements.

use super::readability::{readability, Context};
use super::tags::Tag;
use super::tree::{flag, Parsed, RawBlock, NONE};

/// Least words (title included) of readability's main text for a page to
/// have an article.
pub const ARTICLE_MIN_WORDS: u32 = 100;
/// Least share of the page's text (navigation excluded) that an article's
/// main text holds: less is a sliver (a notice, a footer), not the page.
pub const ARTICLE_MIN_SHARE: f64 = 0.1;

/// Whether a page whose main text has `main_words` of its `text_words`
/// words (title included, navigation blocks excluded from both: see
/// `count_words`) has an article. The one definition of "article" for
/// the classifier (on the page alone) and the decision layer (on the page
/// minus its site's template, the core's `content` module).
pub fn has_article(main_words: u32, text_words: u32) -> bool {
    main_words >= ARTICLE_MIN_WORDS
        && f64::from(main_words) >= ARTICLE_MIN_SHARE * f64::from(text_words)
}

/// What a page's main text is made of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MainText {
    /// The page has an article ([`has_article`]): its main text is
    /// readability's pick.
    #[default]
    Article,
    /// The page has no article: its main text is its content blocks minus
    /// chrome (`page_content`).
    Page,
}

/// Per-block main-content decision for a parsed page, and what kind of
/// main text it is: readability's article when the page has one
/// ([`has_article`]), otherwise the page's content blocks.
pub fn classify(p: &Parsed<'_>) -> (Vec<bool>, MainText) {
    let ctx = Context::new(p);
    let article = readability(p, &ctx);
    if is_article(p, &article) {
        (article, MainText::Article)
    } else {
        (page_content(p), MainText::Page)
    }
}

/// Words of `text` as the decision layer counts them
/// (the core's `PageContent`): Unicode words, each CJK character
/// one, words without a letter or digit skipped unless ASCII; and how
/// many of them are bare numbers.
fn count_words(text: &str) -> (u32, u32) {
    let (mut words, mut numbers) = (0u32, 0u32);
    neardup_text::for_each_word(text, |w| {
        if w.is_ascii() || w.chars().any(neardup_text::is_alphanumeric) {
            words += 1;
            numbers += u32::from(w.bytes().all(|b| b.is_ascii_digit()));
        }
    });
    (words, numbers)
}

/// Words of a block that count as text for [`has_article`]: none for
/// navigation, which is (as in the core's `content` module) a block that is not a
/// heading and is mostly link text (link density at least one half) or a
/// run of bare numbers (line numbers, pagination).
fn text_words(p: &Parsed<'_>, b: &RawBlock) -> u32 {
    let heading = p
        .nodes
        .get(b.owner as usize)
        .is_some_and(|x| x.tag.is_heading());
    if !heading && b.chars > 0 && b.link_chars as f32 / b.chars as f32 >= 0.5 {
        return 0;
    }
    let (words, numbers) = count_words(&b.text);
    if !heading && words >= 3 && numbers * 5 >= words * 4 {
        return 0;
    }
    words
}

/// [`has_article`] for readability's `mask` over the page: main words
/// counted first, the rest only while the answer is still open (a block
/// has at most as many words as characters).
fn is_article(p: &Parsed<'_>, mask: &[bool]) -> bool {
    let title = if p.title.trim().is_empty() {
        0
    } else {
        count_words(&p.title).0
    };
    let (mut main_chars, mut rest_chars) = (u64::from(title), 0u64);
    for (b, &m) in p.blocks.iter().zip(mask) {
        if m {
            main_chars += u64::from(b.chars);
        } else {
            rest_chars += u64::from(b.chars);
        }
    }
    if main_chars < u64::from(ARTICLE_MIN_WORDS) {
        return false;
    }
    // The answer is yes as soon as the main words counted so far would
    // be an article even if every other character were a word: counting
    // more main words cannot undo that (`has_article` only grows with the
    // main words when the rest is fixed), so a long article is not
    // counted to its end.
    let bound = |main: u32| u32::try_from(u64::from(main) + rest_chars).unwrap_or(u32::MAX);
    let mut main = title;
    if has_article(main, bound(main)) {
        return true;
    }
    for (b, _) in p.blocks.iter().zip(mask).filter(|(_, &m)| m) {
        main += text_words(p, b);
        if has_article(main, bound(main)) {
            return true;
        }
    }
    if !has_article(main, main) {
        return false;
    }
    let mut all = main;
    for (b, _) in p.blocks.iter().zip(mask).filter(|(_, &m)| !m) {
        all += text_words(p, b);
        if !has_article(main, all) {
            return false;
        }
    }
    true
}

/// The main text of a page without an article: every visible block except
/// chrome. Chrome is
///
/// - navigation, banners, footers and asides by tag (`nav`, `aside`,
///   `footer`, a `header` outside `main`/`article`/`section`) or ARIA role
///   (navigation, banner, contentinfo, complementary, menu, dialog...);
/// - forms and their controls (search boxes, buttons, selects, labels),
///   unless the form wraps the page (a whole-page `<form>`, as ASP.NET
///   writes them);
/// - outside the main landmark, readability's boilerplate class names
///   (sidebar, menu, header, footer, breadcrumbs, comments...), except on
///   headings, code and wrappers (an element holding most of the page's
///   text and its `h1` is not a sidebar);
/// - everything outside the main landmark (`<main>`, `role=main`) when
///   the page marks one that holds its `h1` or a quarter of its text;
/// - link lists before the first `h1` (breadcrumbs, top menus): blocks
///   whose text is mostly links.
///
/// Lists, tables, definition lists, `pre` and headings are content here
/// whatever their link density: a table of contents is its links.
fn page_content(p: &Parsed<'_>) -> Vec<bool> {
    let nodes = &p.nodes;
    let n = nodes.len();
    let parent_of = |i: usize| nodes.get(i).map_or(NONE, |x| x.parent) as usize;
    // Visible text per subtree (for "holds most of the page").
    let mut visible = vec![0u32; n];
    let mut hidden = vec![false; n];
    for i in 1..n {
        let Some(x) = nodes.get(i) else { continue };
        let h =
            x.flags & flag::HIDDEN != 0 || hidden.get(x.parent as usize).copied().unwrap_or(false);
        if let Some(v) = hidden.get_mut(i) {
            *v = h;
        }
    }
    for b in &p.blocks {
        if !hidden.get(b.owner as usize).copied().unwrap_or(true) {
            if let Some(v) = visible.get_mut(b.owner as usize) {
                *v += b.chars;
            }
        }
    }
    for i in (1..n).rev() {
        let v = visible.get(i).copied().unwrap_or(0);
        if let Some(x) = visible.get_mut(parent_of(i)) {
            *x += v;
        }
    }
    let total = visible.first().copied().unwrap_or(0);
    // A wrapper is not chrome whatever its class says: an element holding
    // most of the page's text and its first visible `h1`, if any (a footer
    // may be long, a banner may hold a logo `h1`).
    let mut holds_h1 = vec![false; n];
    let h1 = p.blocks.iter().find(|b| {
        !hidden.get(b.owner as usize).copied().unwrap_or(true)
            && nodes
                .get(b.owner as usize)
                .is_some_and(|x| x.tag == Tag::H1)
    });
    if let Some(b) = h1 {
        let mut a = b.owner as usize;
        while let Some(h) = holds_h1.get_mut(a) {
            *h = true;
            a = parent_of(a);
        }
    }
    let wrapper = |i: usize| {
        2 * u64::from(visible.get(i).copied().unwrap_or(0)) > u64::from(total)
            && (h1.is_none() || holds_h1.get(i).copied().unwrap_or(false))
    };

    // Chrome, inherited; inside the main landmark; inside a sectioning
    // element (where a `header` is the section's, not the site's).
    let mut chrome = vec![false; n];
    let mut in_main = vec![false; n];
    let mut in_section = vec![false; n];
    for i in 1..n {
        let Some(x) = nodes.get(i) else { continue };
        let par = x.parent as usize;
        let (pc, pm, ps) = (
            chrome.get(par).copied().unwrap_or(false),
            in_main.get(par).copied().unwrap_or(false),
            in_section.get(par).copied().unwrap_or(false),
        );
        let main = pm || x.flags & flag::MAIN_LANDMARK != 0;
        let own = hidden.get(i).copied().unwrap_or(true)
            || x.flags & flag::ROLE_UNLIKELY != 0
            || matches!(
                x.tag,
                Tag::Nav
                    | Tag::Aside
                    | Tag::Footer
                    | Tag::Button
                    | Tag::Select
                    | Tag::Textarea
                    | Tag::Label
                    | Tag::Dialog
            )
            || (x.tag == Tag::Header && !ps)
            || (x.tag == Tag::Form && !wrapper(i))
            || (x.flags & flag::UNLIKELY != 0
                && !pm
                && !x.tag.is_heading()
                && x.flags & flag::IN_CODE == 0
                && x.tag != Tag::Pre
                && !wrapper(i));
        if let Some(v) = chrome.get_mut(i) {
            *v = pc || own;
        }
        if let Some(v) = in_main.get_mut(i) {
            *v = main;
        }
        if let Some(v) = in_section.get_mut(i) {
            *v = ps || main || matches!(x.tag, Tag::Main | Tag::Article | Tag::Section);
        }
    }
    let live = |o: u32| !chrome.get(o as usize).copied().unwrap_or(true);

    // The main landmark, when it holds the page's `h1` or a quarter of
    // its live text.
    let (mut live_chars, mut main_chars) = (0u64, 0u64);
    let mut main_h1 = false;
    for b in p.blocks.iter().filter(|b| live(b.owner)) {
        live_chars += u64::from(b.chars);
        if in_main.get(b.owner as usize).copied().unwrap_or(false) {
            main_chars += u64::from(b.chars);
            main_h1 |= h1.is_some_and(|h| std::ptr::eq(h, b));
        }
    }
    let landmark = main_chars > 0 && (main_h1 || 4 * main_chars >= live_chars);
    let kept = |o: u32| live(o) && (!landmark || in_main.get(o as usize).copied().unwrap_or(false));

    // Link lists before the first h1 are navigation.
    let first_h1 = p.blocks.iter().position(|b| {
        kept(b.owner)
            && nodes
                .get(b.owner as usize)
                .is_some_and(|x| x.tag == Tag::H1)
    });
    p.blocks
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let before_h1 = first_h1.is_some_and(|h| i < h);
            kept(b.owner) && !(before_h1 && b.chars > 0 && 2 * b.link_chars >= b.chars)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::{extract, Extracted};
    use crate::extract::{ExtractConfig, ExtractMode};

    fn ex(html: &str) -> Extracted {
        extract(html, None, &ExtractConfig::default())
    }

    fn fixture(name: &str) -> Extracted {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../testdata/extract")
            .join(name);
        ex(&std::fs::read_to_string(p).unwrap())
    }

    proptest::proptest! {
        /// Whether the page has an article under a mask is `has_article`
        /// of all its main words against all its text words, however
        /// early the count stops: on pages of paragraphs, link lists and
        /// number runs of every size, any of them main.
        #[test]
        fn article_is_decided_on_all_the_words(
            blocks in proptest::collection::vec(
                (0usize..1200, 0u8..3, proptest::bool::weighted(0.2)),
                0..12,
            ),
            title in 0usize..5,
        ) {
            let mut html = format!("<html><head><title>{}</title></head><body>", "t ".repeat(title));
            for (words, kind, _) in &blocks {
                let text = "w ".repeat(*words);
                html.push_str(&match kind {
                    0 => format!("<p>{text}</p>"),
                    1 => format!("<p><a href=\"/x\">{text}</a></p>"),
                    _ => format!("<p>{}</p>", "7 ".repeat(*words)),
                });
            }
            html.push_str("</body></html>");
            let parsed = crate::extract::tree::parse(&html);
            let mask: Vec<bool> = parsed
                .blocks
                .iter()
                .zip(blocks.iter().map(|b| b.2).chain(std::iter::repeat(false)))
                .map(|(_, m)| m)
                .collect();
            let title = if parsed.title.trim().is_empty() { 0 } else { count_words(&parsed.title).0 };
            let main: u32 = title + parsed.blocks.iter().zip(&mask).filter(|(_, &m)| m).map(|(b, _)| text_words(&parsed, b)).sum::<u32>();
            let all: u32 = title + parsed.blocks.iter().map(|b| text_words(&parsed, b)).sum::<u32>();
            proptest::prop_assert_eq!(is_article(&parsed, &mask), has_article(main, all));
        }
    }

    /// The main text's lines.
    fn main_lines(e: &Extracted) -> Vec<String> {
        e.text(ExtractMode::Main)
            .lines()
            .map(String::from)
            .collect()
    }

    fn assert_lines(e: &Extracted, has: &[&str], lacks: &[&str]) {
        let lines = main_lines(e);
        for want in has {
            assert!(
                lines.iter().any(|l| l == want),
                "main text lacks {want:?}: {lines:#?}"
            );
        }
        for unwanted in lacks {
            assert!(
                !lines.iter().any(|l| l.contains(unwanted)),
                "main text has {unwanted:?}: {lines:#?}"
            );
        }
    }

    #[test]
    fn article_needs_enough_words_and_share() {
        assert!(has_article(100, 1000));
        assert!(!has_article(99, 99));
        assert!(!has_article(100, 1001));
        assert!(has_article(400, 4000));
    }

    #[test]
    fn toc_page_is_its_table_of_contents_not_its_footer() {
        let e = fixture("toc-page.html");
        assert_lines(
            &e,
            &[
                "Tutorials",
                "Each tutorial walks through one task.",
                "Installing the gadget toolkit",
                "On Windows",
                "Saving power on batteries",
            ],
            // Footer (class), sidebar (class), top bar (role).
            &["Copyright", "Quick search", "Frequently asked", "modules"],
        );
        assert_eq!(e.main_text, MainText::Page);
    }

    #[test]
    fn api_item_is_its_heading_signature_and_description() {
        let e = fixture("api-item.html");
        assert_lines(
            &e,
            &[
                "Function gizmo::cli::parse_flags",
                "pub fn parse_flags(args: &[String], strict: bool) -> Result<Options>",
                "Parses command-line flags into options.",
                "Auto Trait Implementations",
            ],
            // Sidebar (nav) and search form (in a nav, in main).
            &["In gizmo::cli", "print_help", "?"],
        );
        assert_eq!(e.main_text, MainText::Page);
    }

    #[test]
    fn glossary_is_its_definition_list() {
        let e = fixture("glossary.html");
        assert_lines(
            &e,
            &[
                "Glossary",
                "flange",
                "The rim around a widget's base.",
                "spindle",
                "A rod that a widget turns on.",
            ],
            // Footer (id), menu column (class, outside the main landmark),
            // masthead (role).
            &["volunteers", "Getting started", "Download"],
        );
        assert_eq!(e.main_text, MainText::Page);
    }

    #[test]
    fn data_table_page_is_its_table() {
        let e = fixture("data-table.html");
        assert_lines(
            &e,
            &["Release dates", "Supported until", "4.1", "2025-09-14"],
            // Site header and footer (tags).
            &["trademark", "About", "Documentation"],
        );
        assert_eq!(e.main_text, MainText::Page);
    }

    #[test]
    fn article_with_a_sidebar_list_is_the_article_only() {
        let e = fixture("article-sidebar.html");
        let lines = main_lines(&e);
        assert_eq!(lines.len(), 3, "{lines:#?}");
        assert!(
            lines.iter().all(|l| l.split(' ').count() > 30),
            "{lines:#?}"
        );
        assert!(lines.iter().any(|l| l.starts_with("Visitors often ask")));
        assert_lines(&e, &[], &["Recent posts", "lighthouse", "storm of 1953"]);
        assert_eq!(e.main_text, MainText::Article);
    }

    #[test]
    fn a_wrapper_is_not_chrome_whatever_its_class_or_form() {
        let list =
            "<ul><li><a href=/a>Alpha widgets</a></li><li><a href=/b>Beta widgets</a></li></ul>";
        for wrap in [
            "<form id=aspnetForm action=/x>",
            "<div class='layout with-sidebar'>",
        ] {
            let close = if wrap.starts_with("<form") {
                "</form>"
            } else {
                "</div>"
            };
            let e = ex(&format!(
                "<body>{wrap}<h1>Catalogue</h1>{list}\
                 <div class=sidebar><a href=/c>Sidebar link</a></div>{close}</body>"
            ));
            assert_lines(
                &e,
                &["Catalogue", "Alpha widgets", "Beta widgets"],
                &["Sidebar"],
            );
        }
    }

    #[test]
    fn the_main_landmark_bounds_a_page_without_article() {
        let html = "<body><div class=columns><ul><li><a href=/o>Other page</a></li>\
             <li><a href=/p>Plain note outside</a></li></ul><p>Unmarked aside text</p></div>\
             <div role=main><h1>Index</h1><ul><li><a href=/a>Alpha</a></li><li><a href=/b>Beta</a></li></ul></div></body>";
        let e = ex(html);
        assert_lines(&e, &["Index", "Alpha", "Beta"], &["Other page", "Unmarked"]);
    }

    #[test]
    fn link_lists_before_the_h1_are_navigation() {
        let e = ex(
            "<body><div><a href=/>Home</a> / <a href=/docs/>Docs</a></div>\
             <div><h1>Changelog</h1><ul><li><a href=/v2>Version 2</a></li>\
             <li><a href=/v1>Version 1</a></li></ul></div></body>",
        );
        assert_lines(
            &e,
            &["Changelog", "Version 2", "Version 1"],
            &["Home", "Docs"],
        );
    }

    #[test]
    fn cjk_articles_count_characters_as_words() {
        // 150 characters of Chinese prose in one paragraph, no spaces: an
        // article by the decision layer's word count (one per character).
        let prose = "我们的城市在河边有一座很古老的石桥每天早上很多人从桥上走过去上班".repeat(5);
        let e = ex(&format!(
            "<html><head><title>石桥</title></head><body><div><p>{prose}。{prose}。</p></div>\
             <div class=sidebar><a href=/a>链接</a></div></body></html>"
        ));
        assert_eq!(e.main_text, MainText::Article);
    }
}
