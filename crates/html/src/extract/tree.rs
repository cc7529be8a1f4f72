//! The streaming pass: tokens to a light element tree (no text nodes) plus
//! text blocks in document order, and the page metadata.
//!
//! The tree is an arena of [`Node`]s linked by index, built with an explicit
//! stack of open elements (never recursion, so 100,000 nested elements are
//! fine). Tree repair is a handful of WHATWG implied-end-tag rules (`<p>`
//! closed by a block start, `<li>` by `<li>`, table cells, headings) plus
//! bounded stack searches, so malformed pages cost linear time. Each node
//! carries what the classifier needs, computed once here: class/id pattern
//! bits and weight, visibility, role (read from the start tag by `attrs`),
//! and element counts.

use memchr::{memchr, memmem};
use std::sync::LazyLock;

use super::attrs::{
    decode_attr, name_hash, pattern_bits, refresh_content, str_within, weight_of, ElementAttrs,
    P_BYLINE, P_OKMAYBE, P_POSITIVE, P_SHARE, P_UNLIKELY,
};
use super::scan::TextCounts;
use super::tags::{Tag, TAG_COUNT};
use super::tokenizer::{Attr, Token, Tokenizer};

/// The searchers of the text passes, built once: building a
/// `memmem::Finder` costs more than searching a short text with it, and
/// these run on every text token and block.
static SENTENCE_GAP: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new(". "));
static FULLWIDTH_COMMA: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new("\u{FF0C}"));
static IDEOGRAPHIC_COMMA: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new("\u{3001}"));

/// "No node" in links.
pub const NONE: u32 = u32::MAX;

/// Searches down the open-element stack stop after this many entries, so
/// a page of 100,000 unclosed elements and stray end tags stays linear.
const MAX_STACK_SCAN: usize = 512;

/// Node flags.
pub mod flag {
    /// class/id look like boilerplate (readability "unlikely candidates").
    pub const UNLIKELY: u32 = 1;
    /// `role` is navigation/menu/complementary/banner/contentinfo/dialog...
    pub const ROLE_UNLIKELY: u32 = 1 << 1;
    /// Not displayed (`hidden`, `aria-hidden=true`, `display:none`).
    pub const HIDDEN: u32 = 1 << 2;
    /// class/id contains "share".
    pub const SHARE: u32 = 1 << 3;
    /// class/id/rel/itemprop says byline/author.
    pub const BYLINE: u32 = 1 << 4;
    /// Has a `<figure>` ancestor.
    pub const IN_FIGURE: u32 = 1 << 5;
    /// Has a `<code>`/`<pre>` ancestor.
    pub const IN_CODE: u32 = 1 << 6;
    /// Has a descendant that readability counts as block content (a,
    /// blockquote, dl, div, img, ol, p, pre, table, ul, select); a `div`
    /// without one is a paragraph.
    pub const HAS_BLOCK_DESC: u32 = 1 << 7;
    /// A table with data-table markers (th, thead, tfoot, caption,
    /// colgroup): kept whole by the cleaner.
    pub const DATA_TABLE: u32 = 1 << 8;
    /// class/id matches a positive pattern (article, content, post...).
    pub const POSITIVE: u32 = 1 << 9;
    /// `itemprop=articleBody` or similar explicit article markup.
    pub const ARTICLE_BODY: u32 = 1 << 10;
    /// The page's main landmark: a `<main>` element or `role=main`.
    pub const MAIN_LANDMARK: u32 = 1 << 11;
}

/// One element (text is in blocks, not nodes).
#[derive(Clone, Debug)]
pub struct Node {
    /// The element.
    pub tag: Tag,
    /// Parent index (`NONE` for the root).
    pub parent: u32,
    /// First child element.
    pub first_child: u32,
    /// Next sibling element.
    pub next_sibling: u32,
    /// Readability class weight: +-25 for class and for id.
    pub class_weight: i8,
    /// [`flag`] bits.
    pub flags: u32,
    /// Hash of the class attribute (0 if none, never 0 otherwise):
    /// siblings with the same class as the chosen container get a bonus.
    /// 32 bits tell a page's few class values apart and keep a node at 32
    /// bytes (a source listing has hundreds of thousands).
    pub class_hash: u32,
    /// Direct `<img>` children.
    pub img: u16,
    /// Direct `<input>` children.
    pub input: u16,
    /// Direct `<embed>`/`<object>`/`<iframe>` children.
    pub embed: u16,
    /// Rows (for tables).
    pub rows: u16,
}

// A page's nodes are its largest allocation after its text; keep them small.
const _: () = assert!(std::mem::size_of::<Node>() == 32);

/// A text block before classification.
#[derive(Clone, Debug)]
pub struct RawBlock {
    /// Whitespace-collapsed, entity-decoded text.
    pub text: String,
    /// The innermost block-level (or flagged) element holding it.
    pub owner: u32,
    /// Characters.
    pub chars: u32,
    /// Characters inside `<a>`.
    pub link_chars: u32,
    /// Commas (ASCII and CJK).
    pub commas: u32,
    /// Contains ". " or ends with "." (readability's sentence test).
    pub sentence_end: bool,
}

/// Most `<meta>` robots-directive pairs kept per page (a page repeating
/// them thousands of times costs nothing more).
pub const MAX_DIRECTIVE_METAS: usize = 16;

/// Result of the streaming pass.
#[derive(Debug, Default)]
pub struct Parsed<'a> {
    /// Element arena; index 0 is the document root.
    pub nodes: Vec<Node>,
    /// Blocks in document order.
    pub blocks: Vec<RawBlock>,
    /// `<title>` text.
    pub title: String,
    /// Raw canonical href.
    pub canonical: Option<String>,
    /// `<meta name=robots>` content, lowercased.
    pub robots: Option<String>,
    /// `<base href>`.
    pub base_href: Option<String>,
    /// `<html lang>`.
    pub lang: Option<String>,
    /// Raw `<a href>` values in page order (entities not decoded).
    pub hrefs: Vec<&'a str>,
    /// The `rel` tokens of each `<a href>` that crawlers read as "do not
    /// follow" ([`crate::extract::LinkRels`] bits), parallel to `hrefs`.
    pub href_rels: Vec<u8>,
    /// `<meta name=NAME content=CONTENT>` pairs that can carry robots
    /// directives: the content names `noindex`, `nofollow` or `none`
    /// (name trimmed and lowercased, content lowercased; at most
    /// [`MAX_DIRECTIVE_METAS`]). The crawler picks the names it obeys
    /// (`robots` and its own product token).
    pub directive_metas: Vec<(String, String)>,
    /// `content` of the first `<meta http-equiv=refresh>` (entities
    /// decoded, trimmed), outside `<noscript>` and `<template>`.
    pub refresh: Option<String>,
    /// `content` of the first `<meta http-equiv=refresh>` inside a
    /// `<noscript>` (raw text here, scanned for it): it fires only in a
    /// browser without scripts, so extraction counts it only on a page
    /// that shows next to nothing else.
    pub noscript_refresh: Option<String>,
    /// The `<body>` node, if any.
    pub body: u32,
}

#[derive(Clone, Copy)]
struct Open {
    tag: Tag,
    node: u32,
    /// Owner of text written while this is the innermost open element.
    owner: u32,
    /// Lowercased-name hash for `Tag::Other` (matching end tags).
    name_hash: u32,
    /// Starts a skipped (invisible) region.
    skip: bool,
    /// Text-block boundary on open and close.
    boundary: bool,
}

/// The builder state for one page.
struct Builder<'a> {
    nodes: Vec<Node>,
    /// Last child of each node (parallel to `nodes`), for O(1) appends.
    last_child: Vec<u32>,
    stack: Vec<Open>,
    open_count: [u32; TAG_COUNT],
    skip_depth: u32,
    link_depth: u32,
    /// Open `<table>` nodes (for row and data-table markers).
    tables: Vec<u32>,
    figure_depth: u32,
    code_depth: u32,
    cur: String,
    cur_chars: u32,
    cur_links: u32,
    cur_commas: u32,
    pending_space: bool,
    last_was_br: bool,
    raw_tag: Tag,
    decoded: String,
    /// The page, of which attribute values are slices.
    html: &'a str,
    /// Pattern bits and hash of each class value met (up to
    /// [`MAX_CLASSES`] distinct ones): a page repeats a few class values
    /// on most of its elements, and both cost a walk over the value's
    /// bytes. Seeded per process, so that no page can be crafted to
    /// collide its class values.
    classes: foldhash::HashMap<&'a [u8], (u8, u32)>,
    out: Parsed<'a>,
}

/// Distinct class values [`Builder::classes`] remembers: a page with more
/// (generated ones) has the rest computed each time, its memory bounded.
const MAX_CLASSES: usize = 4096;

/// Runs the streaming pass over `html`.
pub fn parse(html: &str) -> Parsed<'_> {
    let root = Node {
        tag: Tag::Root,
        parent: NONE,
        first_child: NONE,
        next_sibling: NONE,
        class_weight: 0,
        flags: 0,
        class_hash: 0,
        img: 0,
        input: 0,
        embed: 0,
        rows: 0,
    };
    let mut b = Builder {
        nodes: Vec::with_capacity(html.len() / 200 + 16),
        last_child: vec![NONE],
        stack: Vec::with_capacity(64),
        open_count: [0; TAG_COUNT],
        skip_depth: 0,
        link_depth: 0,
        tables: Vec::new(),
        figure_depth: 0,
        code_depth: 0,
        cur: String::new(),
        cur_chars: 0,
        cur_links: 0,
        cur_commas: 0,
        pending_space: false,
        last_was_br: false,
        raw_tag: Tag::Other,
        decoded: String::new(),
        html,
        classes: foldhash::HashMap::default(),
        out: Parsed {
            body: NONE,
            ..Parsed::default()
        },
    };
    b.nodes.push(root);
    b.stack.push(Open {
        tag: Tag::Root,
        node: 0,
        owner: 0,
        name_hash: 0,
        skip: false,
        boundary: true,
    });
    let mut tokens = Tokenizer::new(html);
    while let Some(tok) = tokens.next() {
        match tok {
            Token::Text(t) => b.text(t),
            Token::Raw(t) => b.raw(t),
            Token::Start {
                name, self_closing, ..
            } => b.start(name, tokens.attributes(), self_closing),
            Token::End { name } => b.end(name),
        }
    }
    b.flush();
    b.out.nodes = b.nodes;
    b.out
}

impl<'a> Builder<'a> {
    fn top(&self) -> Open {
        // The root entry is never popped.
        self.stack.last().copied().unwrap_or(Open {
            tag: Tag::Root,
            node: 0,
            owner: 0,
            name_hash: 0,
            skip: false,
            boundary: true,
        })
    }

    fn text(&mut self, t: &str) {
        if self.skip_depth > 0 {
            return;
        }
        let blank = t.bytes().all(|b| b.is_ascii_whitespace());
        if blank {
            self.pending_space = true;
            return;
        }
        if self.open_count[Tag::Head as usize] > 0 {
            self.close_tag(Tag::Head);
            if self.skip_depth > 0 {
                return;
            }
        }
        self.last_was_br = false;
        if memchr(b'&', t.as_bytes()).is_some() {
            let mut d = std::mem::take(&mut self.decoded);
            d.clear();
            d.push_str(&html_escape::decode_html_entities(t));
            self.append(&d);
            self.decoded = d;
        } else {
            self.append(t);
        }
    }

    /// Appends text, collapsing whitespace runs to one space.
    ///
    /// Most text is words between single spaces: that is pushed whole,
    /// and only text with other whitespace (newlines, indentation, runs)
    /// is cut into runs. What this needs of the text (other whitespace,
    /// double spaces, commas, characters) is counted first in one pass
    /// over its bytes that the compiler vectorizes ([`TextCounts`]).
    fn append(&mut self, s: &str) {
        let bytes = s.as_bytes();
        let before = self.cur.len();
        let counts = TextCounts::of(bytes);
        if counts.simple() {
            let (lead, rest) = match s.strip_prefix(' ') {
                Some(rest) => (true, rest),
                None => (false, s),
            };
            let (core, trail) = match rest.strip_suffix(' ') {
                Some(core) => (core, true),
                None => (rest, false),
            };
            self.pending_space |= lead;
            if !core.is_empty() {
                self.push_run(core);
            }
            self.pending_space |= trail;
        } else {
            let mut run_start = 0;
            for (i, b) in bytes.iter().enumerate() {
                if b.is_ascii_whitespace() {
                    if i > run_start {
                        self.push_run(s.get(run_start..i).unwrap_or(""));
                    }
                    self.pending_space = true;
                    run_start = i + 1;
                }
            }
            if run_start < bytes.len() {
                self.push_run(s.get(run_start..).unwrap_or(""));
            }
        }
        // Characters pushed (a space put between runs counts): only ASCII
        // whitespace was dropped, so the UTF-8 continuation bytes pushed
        // are the text's. Commas: ASCII, full-width U+FF0C and
        // ideographic U+3001.
        let added = self.cur.len() - before;
        let chars = u32::try_from(added)
            .unwrap_or(u32::MAX)
            .saturating_sub(counts.continuation);
        let mut commas = counts.commas;
        if counts.continuation > 0 {
            commas += FULLWIDTH_COMMA.find_iter(bytes).count() as u32;
            commas += IDEOGRAPHIC_COMMA.find_iter(bytes).count() as u32;
        }
        self.cur_chars += chars;
        if self.link_depth > 0 {
            self.cur_links += chars;
        }
        self.cur_commas += commas;
    }

    fn push_run(&mut self, run: &str) {
        if self.pending_space && !self.cur.is_empty() {
            self.cur.push(' ');
        }
        self.pending_space = false;
        self.cur.push_str(run);
    }

    fn flush(&mut self) {
        self.pending_space = false;
        if self.cur.is_empty() {
            return;
        }
        // `cur` keeps its capacity from block to block; the block gets an
        // exact copy (one allocation, where growing a fresh string to the
        // block's length took one per doubling).
        let text = self.cur.as_str().to_owned();
        self.cur.clear();
        let sentence_end = text.ends_with('.') || SENTENCE_GAP.find(text.as_bytes()).is_some();
        let owner = self.top().owner;
        self.out.blocks.push(RawBlock {
            text,
            owner,
            chars: self.cur_chars,
            link_chars: self.cur_links.min(self.cur_chars),
            commas: self.cur_commas,
            sentence_end,
        });
        self.cur_chars = 0;
        self.cur_links = 0;
        self.cur_commas = 0;
    }

    fn raw(&mut self, t: &str) {
        if self.raw_tag == Tag::Title && self.out.title.is_empty() {
            let decoded = html_escape::decode_html_entities(t);
            self.out.title = decoded.split_whitespace().collect::<Vec<_>>().join(" ");
        }
        if self.raw_tag == Tag::Noscript
            && self.out.noscript_refresh.is_none()
            && memmem::find(t.as_bytes(), b"efresh").is_some()
        {
            let mut tokens = Tokenizer::new(t);
            while let Some(tok) = tokens.next() {
                if let Token::Start { name, .. } = tok {
                    if name.eq_ignore_ascii_case("meta") {
                        self.out.noscript_refresh = refresh_content(tokens.attributes());
                        if self.out.noscript_refresh.is_some() {
                            break;
                        }
                    }
                }
            }
        }
        self.raw_tag = Tag::Other;
    }

    fn pop(&mut self) {
        if self.stack.len() <= 1 {
            return;
        }
        let Some(&top) = self.stack.last() else {
            return;
        };
        if top.boundary {
            self.flush();
        }
        self.stack.pop();
        let c = &mut self.open_count[top.tag as usize];
        *c = c.saturating_sub(1);
        if top.skip {
            self.skip_depth = self.skip_depth.saturating_sub(1);
        }
        match top.tag {
            Tag::A => self.link_depth = self.link_depth.saturating_sub(1),
            Tag::Table => {
                self.tables.pop();
            }
            Tag::Figure => self.figure_depth = self.figure_depth.saturating_sub(1),
            Tag::Code | Tag::Pre => self.code_depth = self.code_depth.saturating_sub(1),
            _ => {}
        }
    }

    /// Pops through the nearest open `tag`, searching at most
    /// `MAX_STACK_SCAN` entries and stopping at `stop` elements.
    fn close_until(&mut self, tag: Tag, hash: u32, stop: impl Fn(Tag) -> bool) -> bool {
        if self.open_count[tag as usize] == 0 {
            return false;
        }
        let n = self.stack.len();
        let mut found = None;
        for (k, e) in self.stack.iter().rev().enumerate().take(MAX_STACK_SCAN) {
            if e.tag == tag && (tag != Tag::Other || e.name_hash == hash) {
                found = Some(n - 1 - k);
                break;
            }
            if stop(e.tag) {
                break;
            }
        }
        let Some(idx) = found else { return false };
        if idx == 0 {
            return false;
        }
        while self.stack.len() > idx {
            self.pop();
        }
        true
    }

    fn close_tag(&mut self, tag: Tag) {
        self.close_until(tag, 0, |t| t == Tag::Root);
    }

    /// A start tag: raw-text and document-level elements are handled by
    /// [`Builder::special_start`], void elements by [`Builder::void`];
    /// anything else becomes a node (unless inside skipped content) with
    /// the flags its attributes give it ([`Builder::element_flags`]) and
    /// is pushed on the open-element stack.
    fn start(&mut self, name: &'a str, attrs: &[Attr<'a>], self_closing: bool) {
        let tag = Tag::from_name(name);
        if tag != Tag::Br {
            self.last_was_br = false;
        }
        // Anything but head content ends an open <head>.
        if self.open_count[Tag::Head as usize] > 0
            && !tag.is_head_content()
            && !matches!(tag, Tag::Head | Tag::Html)
        {
            self.close_tag(Tag::Head);
        }
        let foreign =
            self.open_count[Tag::Svg as usize] > 0 || self.open_count[Tag::Math as usize] > 0;
        if self.special_start(tag, attrs, self_closing, foreign) {
            return;
        }
        if !foreign {
            self.implied_ends(tag);
        }
        if tag.is_void() || (foreign && self_closing) {
            self.void(tag, attrs);
            return;
        }

        let a = ElementAttrs::parse(attrs);
        let (class_bits, class_hash) = if self.skip_depth == 0 {
            self.class_facts(a.class)
        } else {
            (0, 0)
        };
        let (flags, class_weight) = self.element_flags(tag, &a, class_bits);
        let flagged = flags
            & (flag::UNLIKELY | flag::ROLE_UNLIKELY | flag::HIDDEN | flag::SHARE | flag::BYLINE)
            != 0;
        let boundary = tag.is_block() || flagged;
        let skip = tag.is_skip() || a.hidden;
        if boundary || skip {
            self.flush();
        }

        let parent = self.top();
        let node = if self.skip_depth == 0 {
            self.push_node(tag, parent.node, class_hash, flags, class_weight)
        } else {
            parent.node
        };
        if tag == Tag::Body {
            self.out.body = node;
        }

        let owner = if boundary && self.skip_depth == 0 {
            node
        } else {
            parent.owner
        };
        self.stack.push(Open {
            tag,
            node,
            owner,
            name_hash: if tag == Tag::Other {
                name_hash(name)
            } else {
                0
            },
            skip,
            boundary,
        });
        self.open_count[tag as usize] += 1;
        if skip {
            self.skip_depth += 1;
        }
        match tag {
            Tag::A => {
                self.link_depth += 1;
                if let Some(h) = a.href {
                    if self.skip_depth == 0 {
                        self.out.hrefs.push(str_within(self.html, h));
                        self.out.href_rels.push(a.rel_bits);
                    }
                }
            }
            Tag::Table => self.tables.push(node),
            Tag::Figure => self.figure_depth += 1,
            Tag::Code | Tag::Pre => self.code_depth += 1,
            _ => {}
        }
    }

    /// Start tags that open no element: `<html>` (its `lang` is read), a
    /// second `<body>` or `<head>`, and raw-text elements (`title`,
    /// `script`, `style`, ...), whose content the tokenizer delivers before
    /// their end tag. Returns whether the tag was handled here.
    fn special_start(
        &mut self,
        tag: Tag,
        attrs: &[Attr<'a>],
        self_closing: bool,
        foreign: bool,
    ) -> bool {
        match tag {
            Tag::Html => {
                if self.out.lang.is_none() {
                    for &(k, v) in attrs {
                        if k.eq_ignore_ascii_case(b"lang") || k.eq_ignore_ascii_case(b"xml:lang") {
                            let v = decode_attr(v);
                            if !v.is_empty() {
                                self.out.lang = Some(v);
                            }
                        }
                    }
                }
                true
            }
            Tag::Body if self.out.body != NONE => true,
            Tag::Head if self.out.body != NONE || self.open_count[Tag::Head as usize] > 0 => true,
            Tag::Title
            | Tag::Script
            | Tag::Style
            | Tag::Textarea
            | Tag::Xmp
            | Tag::Iframe
            | Tag::Noembed
            | Tag::Noframes
            | Tag::Noscript
            | Tag::Plaintext
                if !self_closing =>
            {
                // Raw text: the tokenizer delivers content then the end
                // tag; nothing is pushed. An iframe counts as an embed.
                if tag == Tag::Iframe && self.skip_depth == 0 {
                    let n = self.top().node as usize;
                    if let Some(node) = self.nodes.get_mut(n) {
                        node.embed = node.embed.saturating_add(1);
                    }
                }
                if tag == Tag::Title && foreign {
                    self.raw_tag = Tag::Other;
                } else {
                    self.raw_tag = tag;
                }
                if matches!(tag, Tag::Textarea | Tag::Xmp | Tag::Plaintext | Tag::Iframe) {
                    self.flush();
                }
                true
            }
            _ => false,
        }
    }

    /// A class value's pattern bits ([`pattern_bits`]) and its hash
    /// for [`Node::class_hash`] (0 for none, never 0 otherwise).
    fn class_facts(&mut self, class: &'a [u8]) -> (u8, u32) {
        if class.is_empty() {
            return (0, 0);
        }
        if let Some(&facts) = self.classes.get(class) {
            return facts;
        }
        let facts = (
            pattern_bits(class),
            (neardup_api::hash64(class) as u32).max(1),
        );
        if self.classes.len() < MAX_CLASSES {
            self.classes.insert(class, facts);
        }
        facts
    }

    /// The classifier's flags for an element (boilerplate and positive
    /// class/id patterns, role, hidden, byline, landmark, inside a figure
    /// or code) and its class weight, given its class value's pattern
    /// bits. Class and id patterns are only read outside skipped content.
    fn element_flags(&mut self, tag: Tag, a: &ElementAttrs<'a>, bits_class: u8) -> (u32, i8) {
        let mut bits_id = 0u8;
        if self.skip_depth == 0 {
            bits_id = pattern_bits(a.id);
        }
        let bits = bits_class | bits_id;
        let mut flags = 0u32;
        if bits & P_UNLIKELY != 0 && bits & P_OKMAYBE == 0 && !matches!(tag, Tag::Body | Tag::A) {
            flags |= flag::UNLIKELY;
        }
        if a.role_unlikely {
            flags |= flag::ROLE_UNLIKELY;
        }
        if a.hidden {
            flags |= flag::HIDDEN;
        }
        if bits & P_SHARE != 0 {
            flags |= flag::SHARE;
        }
        if bits & P_BYLINE != 0 || a.byline {
            flags |= flag::BYLINE;
        }
        if bits & P_POSITIVE != 0 {
            flags |= flag::POSITIVE;
        }
        if a.article_body {
            flags |= flag::ARTICLE_BODY;
        }
        if a.role_main || tag == Tag::Main {
            flags |= flag::MAIN_LANDMARK;
        }
        if self.figure_depth > 0 {
            flags |= flag::IN_FIGURE;
        }
        if self.code_depth > 0 {
            flags |= flag::IN_CODE;
        }
        (flags, weight_of(bits_class) + weight_of(bits_id))
    }

    /// Appends the node of a new element under `parent` and returns its
    /// index; block-like children mark their parent `HAS_BLOCK_DESC`
    /// (readability turns a div without them into a paragraph).
    fn push_node(
        &mut self,
        tag: Tag,
        parent: u32,
        class_hash: u32,
        flags: u32,
        class_weight: i8,
    ) -> u32 {
        let idx = self.nodes.len() as u32;
        self.nodes.push(Node {
            tag,
            parent,
            first_child: NONE,
            next_sibling: NONE,
            class_weight,
            flags,
            class_hash,
            img: 0,
            input: 0,
            embed: 0,
            rows: 0,
        });
        self.link_child(parent, idx);
        if matches!(
            tag,
            Tag::A
                | Tag::Blockquote
                | Tag::Dl
                | Tag::Div
                | Tag::Ol
                | Tag::P
                | Tag::Pre
                | Tag::Table
                | Tag::Ul
                | Tag::Select
        ) {
            if let Some(p) = self.nodes.get_mut(parent as usize) {
                p.flags |= flag::HAS_BLOCK_DESC;
            }
        }
        self.table_marker(tag);
        idx
    }

    /// Appends `child` to `parent`'s child list in O(1) via `last_child`.
    fn link_child(&mut self, parent: u32, child: u32) {
        self.last_child.push(NONE);
        let last = self
            .last_child
            .get(parent as usize)
            .copied()
            .unwrap_or(NONE);
        if last == NONE {
            if let Some(p) = self.nodes.get_mut(parent as usize) {
                p.first_child = child;
            }
        } else if let Some(l) = self.nodes.get_mut(last as usize) {
            l.next_sibling = child;
        }
        if let Some(s) = self.last_child.get_mut(parent as usize) {
            *s = child;
        }
    }

    fn table_marker(&mut self, tag: Tag) {
        let Some(&t) = self.tables.last() else { return };
        let Some(table) = self.nodes.get_mut(t as usize) else {
            return;
        };
        match tag {
            Tag::Th | Tag::Thead | Tag::Tfoot | Tag::Caption | Tag::Colgroup => {
                table.flags |= flag::DATA_TABLE;
            }
            Tag::Tr => table.rows = table.rows.saturating_add(1),
            _ => {}
        }
    }

    fn void(&mut self, tag: Tag, attrs: &[Attr<'a>]) {
        match tag {
            Tag::Br => {
                if self.skip_depth > 0 {
                    return;
                }
                if self.last_was_br {
                    // <br><br>: a paragraph break (readability's replaceBrs).
                    self.flush();
                } else {
                    self.pending_space = true;
                }
                self.last_was_br = true;
            }
            Tag::Hr => self.flush(),
            Tag::Img | Tag::Input | Tag::Embed => {
                if self.skip_depth > 0 {
                    return;
                }
                let n = self.top().node as usize;
                if let Some(node) = self.nodes.get_mut(n) {
                    match tag {
                        Tag::Img => node.img = node.img.saturating_add(1),
                        Tag::Input => node.input = node.input.saturating_add(1),
                        _ => node.embed = node.embed.saturating_add(1),
                    }
                    if tag == Tag::Img {
                        node.flags |= flag::HAS_BLOCK_DESC;
                    }
                }
            }
            Tag::Base if self.out.base_href.is_none() => {
                if let Some((_, v)) = attrs.iter().find(|(k, _)| k.eq_ignore_ascii_case(b"href")) {
                    self.out.base_href = Some(decode_attr(v));
                }
            }
            Tag::Link => {
                if self.out.canonical.is_some() {
                    return;
                }
                let mut canonical = false;
                let mut href = None;
                for &(k, v) in attrs {
                    if k.eq_ignore_ascii_case(b"rel") {
                        canonical = v
                            .split(|b| b.is_ascii_whitespace())
                            .any(|t| t.eq_ignore_ascii_case(b"canonical"));
                    } else if k.eq_ignore_ascii_case(b"href") {
                        href = Some(v);
                    }
                }
                if let (true, Some(h)) = (canonical, href) {
                    self.out.canonical = Some(decode_attr(h));
                }
            }
            Tag::Meta => {
                if self.out.refresh.is_none() && self.open_count[Tag::Template as usize] == 0 {
                    if let Some(c) = refresh_content(attrs) {
                        self.out.refresh = Some(c);
                        return;
                    }
                }
                let mut name: Option<&[u8]> = None;
                let mut content = None;
                for &(k, v) in attrs {
                    if k.eq_ignore_ascii_case(b"name") {
                        name = Some(v.trim_ascii());
                    } else if k.eq_ignore_ascii_case(b"content") {
                        content = Some(v);
                    }
                }
                let (Some(name), Some(c)) = (name, content) else {
                    return;
                };
                let robots = name.eq_ignore_ascii_case(b"robots");
                if robots && self.out.robots.is_none() {
                    self.out.robots = Some(decode_attr(c).to_ascii_lowercase());
                }
                if self.out.directive_metas.len() < MAX_DIRECTIVE_METAS
                    && name.len() <= 64
                    && c.len() <= 1024
                {
                    let lower = decode_attr(c).to_ascii_lowercase();
                    let directive = lower
                        .split(|ch: char| ch == ',' || ch.is_ascii_whitespace())
                        .any(|t| matches!(t, "noindex" | "nofollow" | "none"));
                    if directive {
                        let name = String::from_utf8_lossy(name).to_ascii_lowercase();
                        self.out.directive_metas.push((name, lower));
                    }
                }
            }
            _ => {}
        }
    }

    /// WHATWG implied end tags, simplified.
    fn implied_ends(&mut self, tag: Tag) {
        if tag.closes_p() && self.open_count[Tag::P as usize] > 0 {
            self.close_until(Tag::P, 0, |t| t.is_scope_boundary() || t == Tag::Button);
        }
        match tag {
            Tag::Li => {
                self.close_until(Tag::Li, 0, |t| {
                    t.is_special() && !matches!(t, Tag::Address | Tag::Div | Tag::P)
                });
            }
            Tag::Dd | Tag::Dt => {
                let stop = |t: Tag| {
                    t.is_special()
                        && !matches!(t, Tag::Address | Tag::Div | Tag::P | Tag::Dd | Tag::Dt)
                };
                if !self.close_until(Tag::Dd, 0, stop) {
                    self.close_until(Tag::Dt, 0, stop);
                }
            }
            Tag::H1 | Tag::H2 | Tag::H3 | Tag::H4 | Tag::H5 | Tag::H6
                if self.top().tag.is_heading() =>
            {
                self.pop();
            }
            Tag::Tr | Tag::Thead | Tag::Tbody | Tag::Tfoot => {
                let stop = |t: Tag| matches!(t, Tag::Table | Tag::Root);
                for t in [Tag::Td, Tag::Th, Tag::Tr] {
                    self.close_until(t, 0, stop);
                }
                if tag != Tag::Tr {
                    for t in [Tag::Thead, Tag::Tbody, Tag::Tfoot] {
                        self.close_until(t, 0, stop);
                    }
                }
            }
            Tag::Td | Tag::Th => {
                let stop = |t: Tag| matches!(t, Tag::Table | Tag::Tr | Tag::Root);
                if !self.close_until(Tag::Td, 0, stop) {
                    self.close_until(Tag::Th, 0, stop);
                }
            }
            Tag::Option if self.top().tag == Tag::Option => self.pop(),
            Tag::A => {
                self.close_until(Tag::A, 0, |t| t.is_scope_boundary());
            }
            _ => {}
        }
    }

    fn end(&mut self, name: &str) {
        let tag = Tag::from_name(name);
        match tag {
            Tag::Html | Tag::Body => return,
            Tag::Br => {
                self.void(Tag::Br, &[]);
                return;
            }
            _ => {}
        }
        if self.open_count[tag as usize] == 0 {
            return;
        }
        let hash = if tag == Tag::Other {
            name_hash(name)
        } else {
            0
        };
        let foreign =
            self.open_count[Tag::Svg as usize] > 0 || self.open_count[Tag::Math as usize] > 0;
        if foreign {
            // Inside SVG/MathML every element is generic: match by name.
            self.close_until(tag, hash, |t| t == Tag::Root);
            return;
        }
        match tag {
            Tag::Table | Tag::Tbody | Tag::Thead | Tag::Tfoot | Tag::Tr => {
                self.close_until(tag, hash, |t| {
                    matches!(t, Tag::Root | Tag::Table | Tag::Template)
                });
            }
            Tag::Td | Tag::Th => {
                self.close_until(tag, hash, |t| matches!(t, Tag::Root | Tag::Table));
            }
            _ if !tag.is_special() => {
                self.close_until(tag, hash, |t| t.is_special());
            }
            _ => {
                self.close_until(tag, hash, |t| t.is_scope_boundary() && t != tag);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The class cache answers as the computation does, for values met
    /// again and past its cap: each node's class hash and class weight
    /// are those of its own class value.
    #[test]
    fn class_facts_are_those_of_the_value() {
        let classes: Vec<String> = (0..MAX_CLASSES + 500)
            .map(|i| match i % 3 {
                0 => format!("sidebar-{i}"),
                1 => format!("post entry-{i}"),
                _ => format!("c{i}"),
            })
            .collect();
        let mut html = String::from("<html><body>");
        for c in classes.iter().chain(&classes) {
            html.push_str(&format!("<div class=\"{c}\">x</div>"));
        }
        let p = parse(&html);
        let divs: Vec<&Node> = p.nodes.iter().filter(|n| n.tag == Tag::Div).collect();
        assert_eq!(divs.len(), 2 * classes.len());
        let mut weights = [0; 3];
        for (n, c) in divs.iter().zip(classes.iter().chain(&classes)) {
            let c = c.as_bytes();
            assert_eq!(n.class_hash, (neardup_api::hash64(c) as u32).max(1));
            assert_eq!(n.class_weight, weight_of(pattern_bits(c)));
            weights[(n.class_weight.signum() + 1) as usize] += 1;
        }
        // Negative, zero and positive weights all occur.
        assert!(weights.iter().all(|&w| w > 1000), "{weights:?}");
    }
}
