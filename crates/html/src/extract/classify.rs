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

use std::collections::HashMap;

use super::tags::Tag;
use super::tree::{flag, Parsed, RawBlock, NONE};

const STRIP_UNLIKELY: u8 = 1;
const WEIGHT_CLASSES: u8 = 1 << 1;
const CLEAN_CONDITIONALLY: u8 = 1 << 2;

/// Readability's `charThreshold`: a result shorter than this retries with
/// relaxed filters.
const CHAR_THRESHOLD: u32 = 500;
/// Candidates remembered when looking for a common ancestor.
const TOP_CANDIDATES: usize = 5;
/// Paragraph score is credited to this many ancestors.
const SCORE_LEVELS: usize = 5;

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

/// Readability's main text: the strictest pass that keeps
/// [`CHAR_THRESHOLD`] characters, else the longest.
fn readability(p: &Parsed<'_>, ctx: &Context) -> Vec<bool> {
    let mut best: Option<(Vec<bool>, u32)> = None;
    for flags in [
        STRIP_UNLIKELY | WEIGHT_CLASSES | CLEAN_CONDITIONALLY,
        WEIGHT_CLASSES | CLEAN_CONDITIONALLY,
        CLEAN_CONDITIONALLY,
        0,
    ] {
        let (mask, chars) = grab(p, ctx, flags);
        if chars >= CHAR_THRESHOLD {
            return mask;
        }
        if best.as_ref().is_none_or(|(_, c)| chars > *c) {
            best = Some((mask, chars));
        }
    }
    best.map(|b| b.0).unwrap_or_default()
}

/// Words of `text` as the decision layer counts them
/// (the core's `PageContent`): Unicode words, each CJK character
/// one, words without a letter or digit skipped unless ASCII; and how
/// many of them are bare numbers.
fn count_words(text: &str) -> (u32, u32) {
    let (mut words, mut numbers) = (0u32, 0u32);
    neardup_text::for_each_word(text, |w| {
        if w.is_ascii() || w.chars().any(char::is_alphanumeric) {
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
    let mut main = title;
    for (b, _) in p.blocks.iter().zip(mask).filter(|(_, &m)| m) {
        main += text_words(p, b);
    }
    let bound = u32::try_from(u64::from(main) + rest_chars).unwrap_or(u32::MAX);
    if has_article(main, bound) {
        return true;
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

/// Facts that do not depend on the flags.
struct Context {
    /// `HAS_BLOCK_DESC` propagated to all ancestors.
    has_block_desc: Vec<bool>,
    /// Some owned block reads like a sentence.
    sentence_end: Vec<bool>,
    /// The byline node readability removes (first short byline element).
    byline: u32,
    /// Inside a data table (kept whole by the cleaner).
    in_data_table: Vec<bool>,
    /// Title variants for the "single h2 equals title" rule.
    titles: Vec<String>,
    /// Text of each heading node, lowercased (only for h2s).
    h2_text: HashMap<u32, String>,
}

impl Context {
    fn new(p: &Parsed<'_>) -> Context {
        let n = p.nodes.len();
        let mut has_block_desc: Vec<bool> = p
            .nodes
            .iter()
            .map(|x| x.flags & flag::HAS_BLOCK_DESC != 0)
            .collect();
        for i in (1..n).rev() {
            if has_block_desc.get(i).copied().unwrap_or(false) {
                let parent = p.nodes.get(i).map_or(NONE, |x| x.parent);
                if let Some(h) = has_block_desc.get_mut(parent as usize) {
                    *h = true;
                }
            }
        }
        let mut direct_chars = vec![0u32; n];
        let mut sentence_end = vec![false; n];
        let mut h2_text: HashMap<u32, String> = HashMap::new();
        for b in &p.blocks {
            let o = b.owner as usize;
            if let Some(c) = direct_chars.get_mut(o) {
                *c += b.chars;
            }
            if b.sentence_end {
                if let Some(s) = sentence_end.get_mut(o) {
                    *s = true;
                }
            }
            if p.nodes.get(o).is_some_and(|x| x.tag == Tag::H2) {
                let e = h2_text.entry(b.owner).or_default();
                if !e.is_empty() {
                    e.push(' ');
                }
                e.push_str(&b.text);
            }
        }
        // Subtree text of every node, for the byline length test.
        let mut sub = direct_chars.clone();
        for i in (1..n).rev() {
            let parent = p.nodes.get(i).map_or(NONE, |x| x.parent) as usize;
            let v = sub.get(i).copied().unwrap_or(0);
            if let Some(s) = sub.get_mut(parent) {
                *s += v;
            }
        }
        let byline = (1..n)
            .find(|&i| {
                p.nodes.get(i).is_some_and(|x| x.flags & flag::BYLINE != 0)
                    && sub.get(i).is_some_and(|&c| c > 0 && c < 100)
            })
            .map_or(NONE, |i| i as u32);
        let mut in_data_table = vec![false; n];
        for i in 1..n {
            let Some(x) = p.nodes.get(i) else { continue };
            let own = x.tag == Tag::Table && (x.flags & flag::DATA_TABLE != 0 || x.rows >= 10);
            let inherited = in_data_table
                .get(x.parent as usize)
                .copied()
                .unwrap_or(false);
            if let Some(d) = in_data_table.get_mut(i) {
                *d = own || inherited;
            }
        }
        let mut titles = Vec::new();
        let t = p.title.trim();
        if !t.is_empty() {
            titles.push(t.to_lowercase());
            for sep in [" | ", " - ", " – ", " — ", " :: ", " » ", " / "] {
                if let Some((a, b)) = t.split_once(sep) {
                    titles.push(a.trim().to_lowercase());
                    titles.push(b.trim().to_lowercase());
                }
            }
        }
        Context {
            has_block_desc,
            sentence_end,
            byline,
            in_data_table,
            titles,
            h2_text,
        }
    }
}

fn base_score(tag: Tag) -> f32 {
    match tag {
        Tag::Div => 5.0,
        Tag::Pre | Tag::Td | Tag::Blockquote => 3.0,
        Tag::Address | Tag::Ol | Tag::Ul | Tag::Dl | Tag::Dd | Tag::Dt | Tag::Li | Tag::Form => {
            -3.0
        }
        Tag::H1 | Tag::H2 | Tag::H3 | Tag::H4 | Tag::H5 | Tag::H6 | Tag::Th => -5.0,
        _ => 0.0,
    }
}

/// Tags removed from the article wherever they are (readability
/// `_clean`), plus navigation and asides.
fn always_removed(tag: Tag) -> bool {
    matches!(
        tag,
        Tag::H1
            | Tag::Footer
            | Tag::Aside
            | Tag::Nav
            | Tag::Object
            | Tag::Button
            | Tag::Select
            | Tag::Textarea
            | Tag::Iframe
            | Tag::Label
            | Tag::Dialog
    )
}

#[derive(Clone, Copy, Default)]
struct Agg {
    text: u32,
    link: u32,
    commas: u32,
    p: u32,
    img: u32,
    li: u32,
    input: u32,
    embed: u32,
    heading: u32,
}

/// One readability pass with `flags`: the per-block main-content mask and
/// its characters. The steps, in readability's order: drop unlikely
/// nodes ([`Pass::new`]), score paragraphs into their ancestors
/// ([`Pass::score_paragraphs`]), keep the best candidates
/// ([`Pass::top_candidates`]), pick the article's subtrees
/// ([`Pass::article_roots`]), then clean them ([`Pass::clean`]).
fn grab(p: &Parsed<'_>, ctx: &Context, flags: u8) -> (Vec<bool>, u32) {
    let mut pass = Pass::new(p, ctx, flags);
    pass.score_paragraphs();
    let top = pass.top_candidates();
    let (roots, top_node) = pass.article_roots(&top);
    let in_art = pass.clean(&roots, top_node);

    let mut mask = Vec::with_capacity(p.blocks.len());
    let mut chars = 0u32;
    for b in &p.blocks {
        let keep = in_art.get(b.owner as usize).copied().unwrap_or(false);
        if keep {
            chars += b.chars;
        }
        mask.push(keep);
    }
    (mask, chars)
}

/// The state of one [`grab`] pass: per-node arrays indexed like
/// `p.nodes`, filled by its steps in turn.
struct Pass<'a, 'p> {
    p: &'a Parsed<'p>,
    ctx: &'a Context,
    flags: u8,
    /// The `<body>` (or the root when there is none): the article when no
    /// candidate is better.
    body: u32,
    /// Removed before scoring (hidden, the byline, unlikely candidates),
    /// inherited by descendants.
    dead: Vec<bool>,
    /// Subtree characters of live blocks.
    text: Vec<u32>,
    /// Subtree link characters of live blocks.
    link: Vec<u32>,
    /// Readability's content score of each candidate.
    score: Vec<f32>,
    /// Whether a node's score was initialised (it is a candidate).
    init: Vec<bool>,
    /// Candidates in the order they were first credited (ties keep it).
    candidates: Vec<u32>,
}

impl<'a, 'p> Pass<'a, 'p> {
    /// Steps 1 and 2: the nodes removed before scoring (readability's node
    /// prepping) and the subtree text and link characters of what is left.
    fn new(p: &'a Parsed<'p>, ctx: &'a Context, flags: u8) -> Self {
        let n = p.nodes.len();
        let mut dead = vec![false; n];
        for i in 1..n {
            let Some(x) = p.nodes.get(i) else { continue };
            let inherited = dead.get(x.parent as usize).copied().unwrap_or(false);
            let own = x.flags & flag::HIDDEN != 0
                || i as u32 == ctx.byline
                || (flags & STRIP_UNLIKELY != 0
                    && (x.flags & (flag::UNLIKELY | flag::ROLE_UNLIKELY) != 0
                        || matches!(x.tag, Tag::Nav | Tag::Aside | Tag::Footer)));
            if let Some(d) = dead.get_mut(i) {
                *d = inherited || own;
            }
        }
        let mut pass = Pass {
            p,
            ctx,
            flags,
            body: if p.body != NONE { p.body } else { 0 },
            dead,
            text: vec![0u32; n],
            link: vec![0u32; n],
            score: vec![0f32; n],
            init: vec![false; n],
            candidates: Vec::new(),
        };
        pass.sum_text();
        pass
    }

    /// Step 2: subtree text and link characters of live blocks, one
    /// reverse pass (children come after their parents).
    fn sum_text(&mut self) {
        let p = self.p;
        for b in &p.blocks {
            if self.alive(b.owner) {
                if let Some(t) = self.text.get_mut(b.owner as usize) {
                    *t += b.chars;
                }
                if let Some(l) = self.link.get_mut(b.owner as usize) {
                    *l += b.link_chars;
                }
            }
        }
        for i in (1..p.nodes.len()).rev() {
            let par = self.parent_of(i) as usize;
            let (t, l) = (
                self.text.get(i).copied().unwrap_or(0),
                self.link.get(i).copied().unwrap_or(0),
            );
            if let Some(x) = self.text.get_mut(par) {
                *x += t;
            }
            if let Some(x) = self.link.get_mut(par) {
                *x += l;
            }
        }
    }

    fn parent_of(&self, i: usize) -> u32 {
        self.p.nodes.get(i).map_or(NONE, |x| x.parent)
    }

    fn tag_of(&self, i: u32) -> Tag {
        self.p.nodes.get(i as usize).map_or(Tag::Root, |x| x.tag)
    }

    fn alive(&self, o: u32) -> bool {
        !self.dead.get(o as usize).copied().unwrap_or(true)
    }

    /// Link characters over text characters of a node's subtree.
    fn density(&self, i: u32) -> f32 {
        let t = self.text.get(i as usize).copied().unwrap_or(0);
        if t == 0 {
            0.0
        } else {
            self.link.get(i as usize).copied().unwrap_or(0) as f32 / t as f32
        }
    }

    /// A node's class weight when this pass weighs classes, else 0.
    fn class_weight(&self, i: u32) -> f32 {
        if self.flags & WEIGHT_CLASSES != 0 {
            self.p
                .nodes
                .get(i as usize)
                .map_or(0.0, |x| f32::from(x.class_weight))
        } else {
            0.0
        }
    }

    /// The body, the root or above: never an article candidate.
    fn is_top_level(&self, i: u32) -> bool {
        i == self.body
            || i == 0
            || i == NONE
            || matches!(self.tag_of(i), Tag::Body | Tag::Html | Tag::Root)
    }

    /// Credits a paragraph's score `s` to `start` (full), its parent
    /// (half) and further ancestors (`1/(3*level)`), up to
    /// [`SCORE_LEVELS`] of them; an ancestor met for the first time
    /// becomes a candidate with its tag's base score and class weight.
    fn credit(&mut self, start: u32, s: f32) {
        let mut a = start;
        for level in 0..SCORE_LEVELS {
            if a == NONE || a == 0 {
                break;
            }
            let ai = a as usize;
            if !self.init.get(ai).copied().unwrap_or(true) {
                if let Some(v) = self.init.get_mut(ai) {
                    *v = true;
                }
                let w = self.class_weight(a);
                let base = base_score(self.tag_of(a));
                if let Some(v) = self.score.get_mut(ai) {
                    *v = base + w;
                }
                self.candidates.push(a);
            }
            let divider = match level {
                0 => 1.0,
                1 => 2.0,
                l => l as f32 * 3.0,
            };
            if let Some(v) = self.score.get_mut(ai) {
                *v += s / divider;
            }
            a = self.parent_of(ai);
        }
    }

    /// Step 3: paragraph scores credited to ancestors. Paragraph elements
    /// aggregate their blocks; inline text directly in a div with block
    /// children is its own paragraph (readability wraps it in a `<p>`).
    fn score_paragraphs(&mut self) {
        let para_score = |chars: u32, commas: u32| -> f32 {
            1.0 + (commas + 1) as f32 + (chars / 100).min(3) as f32
        };
        let p = self.p;
        let mut para_chars: HashMap<u32, (u32, u32)> = HashMap::new();
        for b in &p.blocks {
            if !self.alive(b.owner) {
                continue;
            }
            let o = b.owner;
            let t = self.tag_of(o);
            let is_para = match t {
                Tag::P | Tag::Td | Tag::Pre | Tag::Section => true,
                Tag::H2 | Tag::H3 | Tag::H4 | Tag::H5 | Tag::H6 => true,
                Tag::Div => !self
                    .ctx
                    .has_block_desc
                    .get(o as usize)
                    .copied()
                    .unwrap_or(false),
                _ => false,
            };
            if is_para {
                let e = para_chars.entry(o).or_insert((0, 0));
                e.0 += b.chars;
                e.1 += b.commas;
            } else if t == Tag::Div && b.chars >= 25 {
                self.credit(o, para_score(b.chars, b.commas));
            }
        }
        let mut paras: Vec<(u32, u32, u32)> = para_chars
            .into_iter()
            .map(|(k, (c, m))| (k, c, m))
            .collect();
        // Document order keeps candidate order (ties) deterministic.
        paras.sort_unstable_by_key(|x| x.0);
        for (node, chars, commas) in paras {
            if chars >= 25 {
                let parent = self.parent_of(node as usize);
                self.credit(parent, para_score(chars, commas));
            }
        }
    }

    /// Step 4: every candidate's score scaled by `1 - link density`, and
    /// the best [`TOP_CANDIDATES`], best first (earlier wins ties).
    fn top_candidates(&mut self) -> Vec<u32> {
        for i in 0..self.candidates.len() {
            let Some(&c) = self.candidates.get(i) else {
                continue;
            };
            let d = self.density(c);
            if let Some(v) = self.score.get_mut(c as usize) {
                *v *= 1.0 - d;
            }
        }
        let mut top: Vec<u32> = Vec::with_capacity(TOP_CANDIDATES + 1);
        for &c in &self.candidates {
            let pos = top
                .iter()
                .position(|&t| at(&self.score, c) > at(&self.score, t))
                .unwrap_or(top.len());
            if pos < TOP_CANDIDATES {
                top.insert(pos, c);
                top.truncate(TOP_CANDIDATES);
            }
        }
        top
    }

    /// Step 5: the subtrees that make the article, and the top node (or
    /// [`NONE`] when the article is the whole body). The best candidate
    /// moves up to a shared ancestor ([`Pass::common_ancestor`]), a
    /// better-scoring parent ([`Pass::better_parent`]) and past only
    /// children; then its siblings that score well or read like prose
    /// join it ([`Pass::siblings`]).
    fn article_roots(&mut self, top: &[u32]) -> (Vec<u32>, u32) {
        let body = self.body;
        let mut t = match top.first().copied() {
            None => return (vec![body], NONE),
            Some(t) if self.is_top_level(t) => return (vec![body], NONE),
            Some(t) => t,
        };
        t = self.common_ancestor(t, top);
        t = self.better_parent(t);
        // An only child is as good as its parent (siblings are found one
        // level up).
        let mut a = self.parent_of(t as usize);
        while !self.is_top_level(a) && live_children(self.p, &self.dead, a) == 1 {
            t = a;
            a = self.parent_of(a as usize);
        }
        if !self.init.get(t as usize).copied().unwrap_or(true) {
            let w = self.class_weight(t);
            let base = base_score(self.tag_of(t));
            if let Some(v) = self.score.get_mut(t as usize) {
                *v = base + w;
            }
        }
        if self.is_top_level(t) {
            (vec![body], NONE)
        } else {
            (self.siblings(t), t)
        }
    }

    /// Several strong candidates (at least 3 within 75% of the best's
    /// score) under one ancestor of the best `t`: that ancestor.
    fn common_ancestor(&self, mut t: u32, top: &[u32]) -> u32 {
        let ts = at(&self.score, t);
        let mut counts: HashMap<u32, u8> = HashMap::new();
        let mut lists = 0;
        for &c in top.iter().skip(1) {
            if ts > 0.0 && at(&self.score, c) / ts >= 0.75 {
                lists += 1;
                let mut a = self.parent_of(c as usize);
                while a != NONE {
                    *counts.entry(a).or_insert(0) += 1;
                    a = self.parent_of(a as usize);
                }
            }
        }
        if lists >= 3 {
            let mut a = self.parent_of(t as usize);
            while !self.is_top_level(a) {
                if counts.get(&a).copied().unwrap_or(0) >= 3 {
                    t = a;
                    break;
                }
                a = self.parent_of(a as usize);
            }
        }
        t
    }

    /// A scored ancestor of `t` scoring higher than the one below it
    /// (before the scores drop under a third of `t`'s): it unifies split
    /// content.
    fn better_parent(&self, mut t: u32) -> u32 {
        let mut a = self.parent_of(t as usize);
        let mut last = at(&self.score, t);
        let threshold = last / 3.0;
        while !self.is_top_level(a) {
            if !self.init.get(a as usize).copied().unwrap_or(false) {
                a = self.parent_of(a as usize);
                continue;
            }
            let s = at(&self.score, a);
            if s < threshold {
                break;
            }
            if s > last {
                t = a;
                break;
            }
            last = s;
            a = self.parent_of(a as usize);
        }
        t
    }

    /// The live children of `t`'s parent that join the article, in
    /// document order: `t` itself, siblings scoring at least a fifth of
    /// it (at least 10; same class as `t` adds a bonus), and paragraphs
    /// that read like prose (long with few links, or short, link-free and
    /// ending a sentence).
    fn siblings(&self, t: u32) -> Vec<u32> {
        let nodes = &self.p.nodes;
        let ctx = self.ctx;
        let ts = self.score.get(t as usize).copied().unwrap_or(0.0);
        let threshold = (ts * 0.2).max(10.0);
        let top_class = nodes.get(t as usize).map_or(0, |x| x.class_hash);
        let mut roots = Vec::new();
        let mut s = nodes
            .get(self.parent_of(t as usize) as usize)
            .map_or(NONE, |x| x.first_child);
        while s != NONE {
            let next = nodes.get(s as usize).map_or(NONE, |x| x.next_sibling);
            if !self.alive(s) {
                s = next;
                continue;
            }
            let append = if s == t {
                true
            } else {
                let x = nodes.get(s as usize);
                let bonus = if top_class != 0 && x.is_some_and(|x| x.class_hash == top_class) {
                    ts * 0.2
                } else {
                    0.0
                };
                let st = self.tag_of(s);
                let para_like = st == Tag::P
                    || (st == Tag::Div
                        && !ctx.has_block_desc.get(s as usize).copied().unwrap_or(false));
                if self.init.get(s as usize).copied().unwrap_or(false)
                    && at(&self.score, s) + bonus >= threshold
                {
                    true
                } else if para_like {
                    let len = self.text.get(s as usize).copied().unwrap_or(0);
                    let d = self.density(s);
                    (len > 80 && d < 0.25)
                        || (len < 80
                            && len > 0
                            && d == 0.0
                            && ctx.sentence_end.get(s as usize).copied().unwrap_or(false))
                } else {
                    false
                }
            };
            if append {
                roots.push(s);
            }
            s = next;
        }
        roots
    }

    /// Step 6: cleans the article under `roots` (readability
    /// `_prepArticle`) and says which nodes are in it: the static
    /// removals ([`Pass::static_removals`]), then, when this pass cleans
    /// conditionally, the forms, tables, lists and divs that look like
    /// navigation ([`Pass::clean_conditionally`]).
    fn clean(&self, roots: &[u32], top_node: u32) -> Vec<bool> {
        let n = self.p.nodes.len();
        let mut is_root = vec![false; n];
        for &r in roots {
            if let Some(v) = is_root.get_mut(r as usize) {
                *v = true;
            }
        }
        let mut removed = vec![false; n];
        let mut in_art = vec![false; n];
        self.in_article(&is_root, &removed, &mut in_art);
        self.static_removals(&is_root, &in_art, &mut removed);
        self.in_article(&is_root, &removed, &mut in_art);
        if self.flags & CLEAN_CONDITIONALLY != 0 {
            self.clean_conditionally(top_node, &is_root, &mut removed, &mut in_art);
        }
        in_art
    }

    /// Which nodes are in the article: a root, or a live, not removed
    /// child of a node in it (one forward pass).
    fn in_article(&self, is_root: &[bool], removed: &[bool], in_art: &mut [bool]) {
        for i in 0..self.p.nodes.len() {
            let par = self.parent_of(i);
            let v = is_root.get(i).copied().unwrap_or(false)
                || (par != NONE
                    && in_art.get(par as usize).copied().unwrap_or(false)
                    && !self.dead.get(i).copied().unwrap_or(true)
                    && !removed.get(i).copied().unwrap_or(false));
            if let Some(x) = in_art.get_mut(i) {
                *x = v;
            }
        }
    }

    /// Marks removed, below the roots, what readability's `_clean` drops
    /// wherever it is ([`always_removed`]), short share bars, headers with
    /// a negative class weight, and the article's only `h2` when it
    /// repeats the title.
    fn static_removals(&self, is_root: &[bool], in_art: &[bool], removed: &mut [bool]) {
        let n = self.p.nodes.len();
        let h2_in_article: Vec<u32> = (0..n as u32)
            .filter(|&i| {
                self.tag_of(i) == Tag::H2 && in_art.get(i as usize).copied().unwrap_or(false)
            })
            .collect();
        let single_h2_is_title =
            h2_in_article.len() == 1 && h2_in_article.first().is_some_and(|&h| self.h2_is_title(h));
        for i in 1..n {
            if !in_art.get(i).copied().unwrap_or(false) || is_root.get(i).copied().unwrap_or(false)
            {
                continue;
            }
            let Some(x) = self.p.nodes.get(i) else {
                continue;
            };
            let mut rm = always_removed(x.tag);
            if x.flags & flag::SHARE != 0 && self.text.get(i).copied().unwrap_or(0) < 500 {
                rm = true;
            }
            if self.flags & WEIGHT_CLASSES != 0
                && matches!(x.tag, Tag::H1 | Tag::H2)
                && x.class_weight < 0
            {
                rm = true;
            }
            if single_h2_is_title && x.tag == Tag::H2 {
                rm = true;
            }
            if rm {
                if let Some(r) = removed.get_mut(i) {
                    *r = true;
                }
            }
        }
    }

    /// Whether the text of `h2` is one of the title's variants, give or
    /// take half its length (readability's header-duplicates-title test).
    fn h2_is_title(&self, h: u32) -> bool {
        self.ctx.h2_text.get(&h).is_some_and(|t| {
            let t = t.to_lowercase();
            self.ctx.titles.iter().any(|title| {
                let (hl, tl) = (t.chars().count() as f32, title.chars().count() as f32);
                if tl == 0.0 {
                    return false;
                }
                let rate = (hl - tl) / tl;
                rate.abs() < 0.5
                    && if rate > 0.0 {
                        t.contains(title.as_str())
                    } else {
                        title.contains(t.as_str())
                    }
            })
        })
    }

    /// Readability's `_cleanConditionally`, one pass per tag group (forms,
    /// tables, lists, divs): a node in the article whose subtree counts
    /// ([`Agg`], summed bottom-up over what is still in it) look like
    /// navigation ([`remove_conditionally`]) is removed, except the top
    /// node, data tables and code.
    fn clean_conditionally(
        &self,
        top_node: u32,
        is_root: &[bool],
        removed: &mut [bool],
        in_art: &mut [bool],
    ) {
        let nodes = &self.p.nodes;
        let own = self.own_counts();
        let passes: [&[Tag]; 4] = [
            &[Tag::Form, Tag::Fieldset],
            &[Tag::Table],
            &[Tag::Ul],
            &[Tag::Div],
        ];
        for pass in passes {
            let mut agg = own.clone();
            for i in (1..nodes.len()).rev() {
                if !in_art.get(i).copied().unwrap_or(false) {
                    continue;
                }
                let Some(x) = nodes.get(i) else { continue };
                let a = agg.get(i).copied().unwrap_or_default();
                if pass.contains(&x.tag)
                    && i as u32 != top_node
                    && !self.ctx.in_data_table.get(i).copied().unwrap_or(false)
                    && x.flags & flag::IN_CODE == 0
                {
                    let weight = if self.flags & WEIGHT_CLASSES != 0 {
                        i32::from(x.class_weight)
                    } else {
                        0
                    };
                    if remove_conditionally(x.tag, x.flags, weight, &a) {
                        if let Some(r) = removed.get_mut(i) {
                            *r = true;
                        }
                        continue;
                    }
                }
                if let Some(pa) = agg.get_mut(x.parent as usize) {
                    pa.text += a.text;
                    pa.link += a.link;
                    pa.commas += a.commas;
                    pa.p += a.p + u32::from(x.tag == Tag::P);
                    pa.img += a.img;
                    pa.li += a.li + u32::from(x.tag == Tag::Li);
                    pa.input += a.input;
                    pa.embed += a.embed;
                    pa.heading += a.heading;
                }
            }
            self.in_article(is_root, removed, in_art);
        }
    }

    /// Each node's own counts: text, links, commas and heading text of its
    /// live blocks, and its images, inputs and embeds.
    fn own_counts(&self) -> Vec<Agg> {
        let nodes = &self.p.nodes;
        let mut own = vec![Agg::default(); nodes.len()];
        for b in &self.p.blocks {
            if !self.alive(b.owner) {
                continue;
            }
            let heading = self.tag_of(b.owner).is_heading();
            if let Some(a) = own.get_mut(b.owner as usize) {
                a.text += b.chars;
                a.link += b.link_chars;
                a.commas += b.commas;
                if heading {
                    a.heading += b.chars;
                }
            }
        }
        for (i, a) in own.iter_mut().enumerate() {
            if let Some(x) = nodes.get(i) {
                a.img = u32::from(x.img);
                a.input = u32::from(x.input);
                a.embed = u32::from(x.embed);
            }
        }
        own
    }
}

fn live_children(p: &Parsed<'_>, dead: &[bool], node: u32) -> u32 {
    let mut c = p.nodes.get(node as usize).map_or(NONE, |x| x.first_child);
    let mut count = 0;
    while c != NONE {
        if !dead.get(c as usize).copied().unwrap_or(true) {
            count += 1;
            if count > 1 {
                break;
            }
        }
        c = p.nodes.get(c as usize).map_or(NONE, |x| x.next_sibling);
    }
    count
}

/// Readability's `_cleanConditionally` test for one table/list/div/form.
fn remove_conditionally(tag: Tag, flags: u32, weight: i32, a: &Agg) -> bool {
    if weight < 0 {
        return true;
    }
    if a.commas >= 10 {
        return false;
    }
    let is_list = matches!(tag, Tag::Ul | Tag::Ol);
    let in_figure = flags & flag::IN_FIGURE != 0;
    let p = a.p as f32;
    let img = a.img as f32;
    let li = a.li as f32 - 100.0;
    let input = a.input as f32;
    let len = a.text;
    let heading_density = if len == 0 {
        0.0
    } else {
        a.heading as f32 / len as f32
    };
    let ld = if len == 0 {
        0.0
    } else {
        a.link as f32 / len as f32
    };
    (img > 1.0 && p / img < 0.5 && !in_figure)
        || (!is_list && li > p)
        || (input > (p / 3.0).floor())
        || (!is_list
            && heading_density < 0.9
            && len < 25
            && (a.img == 0 || a.img > 2)
            && !in_figure)
        || (!is_list && weight < 25 && ld > 0.2)
        || (weight >= 25 && ld > 0.5)
        || (a.embed == 1 && len < 75)
        || a.embed > 1
}

fn at(v: &[f32], i: u32) -> f32 {
    v.get(i as usize).copied().unwrap_or(0.0)
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
