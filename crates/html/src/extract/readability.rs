//! Readability's article pick over the tree of the streaming pass (the
//! algorithm is described in `classify`'s module docs): the passes with
//! their filters relaxed one by one ([`readability`]), each scoring,
//! choosing and cleaning the candidate subtrees ([`Pass`]; the cleaning
//! is in `clean`).

use std::collections::HashMap;

use super::tags::Tag;
use super::tree::{flag, Parsed, NONE};

pub(super) const STRIP_UNLIKELY: u8 = 1;
pub(super) const WEIGHT_CLASSES: u8 = 1 << 1;
pub(super) const CLEAN_CONDITIONALLY: u8 = 1 << 2;

/// Readability's `charThreshold`: a result shorter than this retries with
/// relaxed filters.
pub(super) const CHAR_THRESHOLD: u32 = 500;
/// Candidates remembered when looking for a common ancestor.
pub(super) const TOP_CANDIDATES: usize = 5;
/// The least share of the best candidate's earned score (see
/// [`Pass::earned`]) that another candidate must have earned to count
/// towards their common ancestor ([`Pass::common_ancestor`]). Readability's
/// split steps earn a third to a half of the best's (ehow's how-to pages).
pub(super) const ALTERNATIVE_MIN_EARNED: f32 = 0.25;

/// Paragraph score is credited to this many ancestors.
pub(super) const SCORE_LEVELS: usize = 5;

/// Readability's main text: the strictest pass that keeps
/// [`CHAR_THRESHOLD`] characters, else the longest.
///
/// The last two passes (conditional cleaning alone, then nothing) differ
/// only in that cleaning, which comes last in a pass: the last pass's
/// article is the third's before it ([`grab`] returns both), so it is
/// not computed again. Pages of short prose run every pass: 104 of the
/// repository's 192 test pages (rustdoc, Doxygen, man and Sphinx pages
/// among them) do.
pub(super) fn readability(p: &Parsed<'_>, ctx: &Context) -> Vec<bool> {
    let mut best: Option<Article> = None;
    for flags in [
        STRIP_UNLIKELY | WEIGHT_CLASSES | CLEAN_CONDITIONALLY,
        WEIGHT_CLASSES | CLEAN_CONDITIONALLY,
        CLEAN_CONDITIONALLY,
    ] {
        let last = flags == CLEAN_CONDITIONALLY;
        let (grabbed, uncleaned) = grab(p, ctx, flags, last);
        for (mask, chars) in std::iter::once(grabbed).chain(uncleaned) {
            if chars >= CHAR_THRESHOLD {
                return mask;
            }
            if best.as_ref().is_none_or(|(_, c)| chars > *c) {
                best = Some((mask, chars));
            }
        }
    }
    best.map(|b| b.0).unwrap_or_default()
}

/// Facts that do not depend on the flags.
pub(super) struct Context {
    /// `HAS_BLOCK_DESC` propagated to all ancestors.
    pub(super) has_block_desc: Vec<bool>,
    /// Some owned block reads like a sentence.
    pub(super) sentence_end: Vec<bool>,
    /// The byline node readability removes (first short byline element).
    pub(super) byline: u32,
    /// Inside a data table (kept whole by the cleaner).
    pub(super) in_data_table: Vec<bool>,
    /// Title variants for the "single h2 equals title" rule.
    pub(super) titles: Vec<String>,
    /// Text of each heading node, lowercased (only for h2s).
    pub(super) h2_text: HashMap<u32, String>,
    /// One past the last node of each node's subtree. The builder attaches
    /// a node only under the open element on top of its stack, and a
    /// closed element never reopens, so a subtree is the contiguous range
    /// `i..subtree_end[i]` of document order: the cleaner walks the
    /// article's ranges, not the whole page.
    pub(super) subtree_end: Vec<u32>,
}

/// Where a title splits into the page's name and the site's (`Name | Site`).
const TITLE_SEPARATORS: [&str; 7] = [" | ", " - ", " – ", " — ", " :: ", " » ", " / "];

impl Context {
    pub(super) fn new(p: &Parsed<'_>) -> Context {
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
        let mut subtree_end: Vec<u32> = (1..=n as u32).collect();
        for i in (1..n).rev() {
            let parent = p.nodes.get(i).map_or(NONE, |x| x.parent) as usize;
            let end = subtree_end.get(i).copied().unwrap_or(0);
            if let Some(e) = subtree_end.get_mut(parent) {
                *e = (*e).max(end);
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
            // Only the separators the title holds (most hold none).
            let present = neardup_text::separators_in(t, &TITLE_SEPARATORS);
            for (sep, _) in TITLE_SEPARATORS.iter().zip(present).filter(|&(_, p)| p) {
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
            subtree_end,
        }
    }
}

pub(super) fn base_score(tag: Tag) -> f32 {
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

/// One readability pass with `flags`: the per-block main-content mask and
/// its characters. The steps, in readability's order: drop unlikely
/// nodes ([`Pass::new`]), score paragraphs into their ancestors
/// ([`Pass::score_paragraphs`]), keep the best candidates
/// ([`Pass::top_candidates`]), pick the article's subtrees
/// ([`Pass::article_roots`]), then clean them ([`Pass::clean`]). With
/// `uncleaned`, also the article of the same pass without conditional
/// cleaning (when this pass cleans conditionally).
pub(super) fn grab(
    p: &Parsed<'_>,
    ctx: &Context,
    flags: u8,
    uncleaned: bool,
) -> (Article, Option<Article>) {
    let mut pass = Pass::new(p, ctx, flags);
    pass.score_paragraphs();
    let top = pass.top_candidates();
    let (roots, top_node) = pass.article_roots(&top);
    let (in_art, before) = pass.clean(&roots, top_node, uncleaned);
    let masked = |in_art: &[bool]| {
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
    };
    (masked(&in_art), before.map(|b| masked(&b)))
}

/// A pass's article: which blocks are in it, and their characters.
pub(super) type Article = (Vec<bool>, u32);

/// The state of one [`grab`] pass: per-node arrays indexed like
/// `p.nodes`, filled by its steps in turn.
pub(super) struct Pass<'a, 'p> {
    pub(super) p: &'a Parsed<'p>,
    pub(super) ctx: &'a Context,
    pub(super) flags: u8,
    /// The `<body>` (or the root when there is none): the article when no
    /// candidate is better.
    pub(super) body: u32,
    /// Removed before scoring (hidden, the byline, unlikely candidates),
    /// inherited by descendants.
    pub(super) dead: Vec<bool>,
    /// Subtree characters of live blocks.
    pub(super) text: Vec<u32>,
    /// Subtree link characters of live blocks.
    pub(super) link: Vec<u32>,
    /// Readability's content score of each candidate.
    pub(super) score: Vec<f32>,
    /// Whether a node's score was initialised (it is a candidate).
    pub(super) init: Vec<bool>,
    /// Candidates in the order they were first credited (ties keep it).
    pub(super) candidates: Vec<u32>,
}

impl<'a, 'p> Pass<'a, 'p> {
    /// Steps 1 and 2: the nodes removed before scoring (readability's node
    /// prepping) and the subtree text and link characters of what is left.
    pub(super) fn new(p: &'a Parsed<'p>, ctx: &'a Context, flags: u8) -> Self {
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
    pub(super) fn sum_text(&mut self) {
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

    pub(super) fn parent_of(&self, i: usize) -> u32 {
        self.p.nodes.get(i).map_or(NONE, |x| x.parent)
    }

    pub(super) fn tag_of(&self, i: u32) -> Tag {
        self.p.nodes.get(i as usize).map_or(Tag::Root, |x| x.tag)
    }

    pub(super) fn alive(&self, o: u32) -> bool {
        !self.dead.get(o as usize).copied().unwrap_or(true)
    }

    /// Link characters over text characters of a node's subtree.
    pub(super) fn density(&self, i: u32) -> f32 {
        let t = self.text.get(i as usize).copied().unwrap_or(0);
        if t == 0 {
            0.0
        } else {
            self.link.get(i as usize).copied().unwrap_or(0) as f32 / t as f32
        }
    }

    /// A node's class weight when this pass weighs classes, else 0.
    pub(super) fn class_weight(&self, i: u32) -> f32 {
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
    pub(super) fn is_top_level(&self, i: u32) -> bool {
        i == self.body
            || i == 0
            || i == NONE
            || matches!(self.tag_of(i), Tag::Body | Tag::Html | Tag::Root)
    }

    /// Credits a paragraph's score `s` to `start` (full), its parent
    /// (half) and further ancestors (`1/(3*level)`), up to
    /// [`SCORE_LEVELS`] of them; an ancestor met for the first time
    /// becomes a candidate with its tag's base score and class weight.
    pub(super) fn credit(&mut self, start: u32, s: f32) {
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
    pub(super) fn score_paragraphs(&mut self) {
        let para_score = |chars: u32, commas: u32| -> f32 {
            1.0 + (commas + 1) as f32 + (chars / 100).min(3) as f32
        };
        let p = self.p;
        // (paragraph, chars, commas) per block; summed per paragraph below.
        let mut paras: Vec<(u32, u32, u32)> = Vec::new();
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
                paras.push((o, b.chars, b.commas));
            } else if t == Tag::Div && b.chars >= 25 {
                self.credit(o, para_score(b.chars, b.commas));
            }
        }
        // Document order keeps candidate order (ties) deterministic. A
        // sort and one pass, not a map: a page has a few hundred blocks,
        // and hashing each into a map cost more than sorting them.
        paras.sort_unstable_by_key(|x| x.0);
        paras.dedup_by(|next, first| {
            let same = next.0 == first.0;
            if same {
                first.1 += next.1;
                first.2 += next.2;
            }
            same
        });
        for (node, chars, commas) in paras {
            if chars >= 25 {
                let parent = self.parent_of(node as usize);
                self.credit(parent, para_score(chars, commas));
            }
        }
    }

    /// Step 4: every candidate's score scaled by `1 - link density`, and
    /// the best [`TOP_CANDIDATES`], best first (earlier wins ties).
    pub(super) fn top_candidates(&mut self) -> Vec<u32> {
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
    pub(super) fn article_roots(&mut self, top: &[u32]) -> (Vec<u32>, u32) {
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
    /// score) under one ancestor of the best `t`: that ancestor. A
    /// candidate counts only when its text earned it at least
    /// [`ALTERNATIVE_MIN_EARNED`] of what the best's earned it: a div
    /// starts at 5 points and a positive class adds 25, so a headline
    /// card's body (`BaseTile__Body`, one short heading: 2 points) would
    /// otherwise count as the article split in parts, and the article be
    /// widened to the page holding both (National Geographic's gated
    /// articles and their carousel of further reading, on neardup-dev2).
    pub(super) fn common_ancestor(&self, mut t: u32, top: &[u32]) -> u32 {
        let ts = at(&self.score, t);
        let te = self.earned(t);
        let mut counts: HashMap<u32, u8> = HashMap::new();
        let mut lists = 0;
        for &c in top.iter().skip(1) {
            if ts > 0.0
                && at(&self.score, c) / ts >= 0.75
                && self.earned(c) >= ALTERNATIVE_MIN_EARNED * te
            {
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

    /// What a candidate's text earned it: its score less what its tag and
    /// class gave it to start with (both scaled by `1 - link density`,
    /// as in [`Pass::top_candidates`]).
    pub(super) fn earned(&self, c: u32) -> f32 {
        let start = base_score(self.tag_of(c)) + self.class_weight(c);
        at(&self.score, c) - start * (1.0 - self.density(c))
    }

    /// A scored ancestor of `t` scoring higher than the one below it
    /// (before the scores drop under a third of `t`'s): it unifies split
    /// content.
    pub(super) fn better_parent(&self, mut t: u32) -> u32 {
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
    pub(super) fn siblings(&self, t: u32) -> Vec<u32> {
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
}

pub(super) fn live_children(p: &Parsed<'_>, dead: &[bool], node: u32) -> u32 {
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

pub(super) fn at(v: &[f32], i: u32) -> f32 {
    v.get(i as usize).copied().unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::tree::parse;

    /// Every HTML file under `dir`, recursively.
    fn pages(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let path = e.path();
            if path.is_dir() {
                pages(&path, out);
            } else if path.extension().is_some_and(|x| x == "html") {
                out.push(path);
            }
        }
    }

    fn testdata_pages() -> Vec<std::path::PathBuf> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata");
        let mut files = Vec::new();
        pages(&root, &mut files);
        files.sort();
        assert!(files.len() > 50, "{} pages", files.len());
        files
    }

    /// A subtree is the range `i..subtree_end[i]`: every node in it has
    /// `i` among its ancestors, and none after it does (checked on every
    /// testdata page and on malformed markup).
    #[test]
    fn subtrees_are_contiguous_ranges() {
        let mut html: Vec<String> = testdata_pages()
            .iter()
            .filter_map(|f| std::fs::read_to_string(f).ok())
            .collect();
        html.push("<p>a<div>b<p>c<table><td>d<p>e</table>f</div><li>g<li>h<ul><li>i</p>".into());
        html.push("<body><b><i>x</b>y</i><body class=z><p>w</html><div>after".into());
        for h in &html {
            let p = parse(h);
            let ctx = Context::new(&p);
            let n = p.nodes.len();
            for i in 0..n {
                let end = ctx.subtree_end[i] as usize;
                for j in i..n {
                    let mut a = j as u32;
                    while a != NONE && a as usize > i {
                        a = p.nodes[a as usize].parent;
                    }
                    assert_eq!(a as usize == i, j < end, "node {j} against {i}..{end}");
                }
            }
        }
    }

    /// A page whose article takes in a sibling of the best candidate (the
    /// same class) that conditional cleaning then removes (a fifth of its
    /// text is a link): a root, so it stays in the article.
    fn page_with_a_removed_root() -> String {
        let prose = "<p>The river rose slowly through the night, and by morning the \
            lower streets were under water, the shops closed, the bridges shut, \
            and the town waited for the rain to stop.</p>";
        format!(
            "<html><head><title>Flood</title></head><body><div id=page>\
             <div class=post>{}</div><div class=post><p>One more short note \
             about the flood <a href=/x>read the whole story here</a> in the \
             paper tomorrow morning.</p></div></div></body></html>",
            prose.repeat(6)
        )
    }

    /// The cleaner walks only the roots' ranges and takes a removed node's
    /// subtree out of the article as it goes: the same article as whole-page
    /// walks, and the same as the whole forward pass over what it removed.
    #[test]
    fn cleaning_the_ranges_is_cleaning_the_page() {
        let (mut removals, mut removed_roots) = (0, 0);
        let mut html: Vec<(String, String)> = testdata_pages()
            .iter()
            .filter_map(|f| Some((f.display().to_string(), std::fs::read_to_string(f).ok()?)))
            .collect();
        html.push(("a removed root".into(), page_with_a_removed_root()));
        for (f, html) in html {
            let p = parse(&html);
            let ctx = Context::new(&p);
            let n = p.nodes.len();
            for flags in [
                STRIP_UNLIKELY | WEIGHT_CLASSES | CLEAN_CONDITIONALLY,
                WEIGHT_CLASSES | CLEAN_CONDITIONALLY,
                CLEAN_CONDITIONALLY,
            ] {
                let mut pass = Pass::new(&p, &ctx, flags);
                pass.score_paragraphs();
                let top = pass.top_candidates();
                let (roots, top_node) = pass.article_roots(&top);
                let (in_ranges, _) = pass.clean(&roots, top_node, false);
                // The whole page as the one range to walk.
                let page = 0..n;
                let whole = std::slice::from_ref(&page);
                let mut is_root = vec![false; n];
                for &r in &roots {
                    is_root[r as usize] = true;
                }
                let mut removed = vec![false; n];
                let mut in_art = vec![false; n];
                pass.in_article(whole, &is_root, &removed, &mut in_art);
                pass.static_removals(whole, &is_root, &in_art, &mut removed);
                pass.in_article(whole, &is_root, &removed, &mut in_art);
                let before = removed.iter().filter(|&&r| r).count();
                pass.clean_conditionally(whole, top_node, &is_root, &mut removed, &mut in_art);
                removals += removed.iter().filter(|&&r| r).count() - before;
                removed_roots += roots.iter().filter(|&&r| removed[r as usize]).count();
                let mut recomputed = vec![false; n];
                pass.in_article(whole, &is_root, &removed, &mut recomputed);
                assert_eq!(in_art, recomputed, "{f}");
                assert_eq!(in_ranges, in_art, "{f}");
            }
        }
        assert!(removals > 100, "{removals} conditional removals");
        assert!(removed_roots > 0, "no root was removed");
    }

    /// The pick as four whole passes, the last without conditional
    /// cleaning: what [`readability`] computed before the last pass was
    /// taken from the third.
    fn four_passes(p: &Parsed<'_>, ctx: &Context) -> Vec<bool> {
        let mut best: Option<(Vec<bool>, u32)> = None;
        for flags in [
            STRIP_UNLIKELY | WEIGHT_CLASSES | CLEAN_CONDITIONALLY,
            WEIGHT_CLASSES | CLEAN_CONDITIONALLY,
            CLEAN_CONDITIONALLY,
            0,
        ] {
            let ((mask, chars), _) = grab(p, ctx, flags, false);
            if chars >= CHAR_THRESHOLD {
                return mask;
            }
            if best.as_ref().is_none_or(|(_, c)| chars > *c) {
                best = Some((mask, chars));
            }
        }
        best.map(|b| b.0).unwrap_or_default()
    }

    /// On the repository's pages (generator sites, extraction fixtures):
    /// the third pass's article before conditional cleaning is the fourth
    /// pass's, and the pick is the four whole passes' pick. Pages whose
    /// pick needs the last pass are among them, and pages where
    /// conditional cleaning changes the article (both counted, so the test
    /// cannot pass without them).
    #[test]
    fn the_last_pass_is_the_third_before_cleaning() {
        let files = testdata_pages();
        let (mut reach_last, mut cleaning_differs) = (0, 0);
        for f in &files {
            let Ok(html) = std::fs::read_to_string(f) else {
                continue;
            };
            let p = parse(&html);
            let ctx = Context::new(&p);
            let (_, uncleaned) = grab(&p, &ctx, CLEAN_CONDITIONALLY, true);
            let (last, _) = grab(&p, &ctx, 0, false);
            if grab(&p, &ctx, CLEAN_CONDITIONALLY, false).0 != last {
                cleaning_differs += 1;
            }
            assert_eq!(uncleaned, Some(last), "{}", f.display());
            let passes = [
                STRIP_UNLIKELY | WEIGHT_CLASSES | CLEAN_CONDITIONALLY,
                WEIGHT_CLASSES | CLEAN_CONDITIONALLY,
                CLEAN_CONDITIONALLY,
            ];
            if passes
                .iter()
                .all(|&flags| grab(&p, &ctx, flags, false).0 .1 < CHAR_THRESHOLD)
            {
                reach_last += 1;
            }
            assert_eq!(
                readability(&p, &ctx),
                four_passes(&p, &ctx),
                "{}",
                f.display()
            );
        }
        assert!(reach_last > 10, "{reach_last} pages reach the last pass");
        // And the two passes differ on some: the equality above is not
        // that of two identical results.
        assert!(cleaning_differs > 10, "{cleaning_differs}");
    }
}
