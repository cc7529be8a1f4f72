//! Main content vs boilerplate over the tree of the streaming pass.
//!
//! The algorithm is readability's (Mozilla Readability.js, itself Arc90's):
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
use super::tree::{flag, Parsed, NONE};

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

/// Per-block main-content decision for a parsed page.
pub fn classify(p: &Parsed<'_>) -> Vec<bool> {
    let ctx = Context::new(p);
    let mut best: Option<(Vec<bool>, u32)> = None;
    for flags in [
        STRIP_UNLIKELY | WEIGHT_CLASSES | CLEAN_CONDITIONALLY,
        WEIGHT_CLASSES | CLEAN_CONDITIONALLY,
        CLEAN_CONDITIONALLY,
        0,
    ] {
        let (mask, chars) = grab(p, &ctx, flags);
        if chars >= CHAR_THRESHOLD {
            return mask;
        }
        if best.as_ref().is_none_or(|(_, c)| chars > *c) {
            best = Some((mask, chars));
        }
    }
    best.map(|b| b.0).unwrap_or_default()
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

fn grab(p: &Parsed<'_>, ctx: &Context, flags: u8) -> (Vec<bool>, u32) {
    let nodes = &p.nodes;
    let n = nodes.len();
    let parent_of = |i: usize| nodes.get(i).map_or(NONE, |x| x.parent);
    let tag_of = |i: u32| nodes.get(i as usize).map_or(Tag::Root, |x| x.tag);
    let body = if p.body != NONE { p.body } else { 0 };

    // 1. Removed before scoring (readability's node prepping).
    let mut dead = vec![false; n];
    for i in 1..n {
        let Some(x) = nodes.get(i) else { continue };
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
    let alive = |o: u32| !dead.get(o as usize).copied().unwrap_or(true);

    // 2. Subtree text and link characters of live blocks.
    let mut text = vec![0u32; n];
    let mut link = vec![0u32; n];
    for b in &p.blocks {
        if alive(b.owner) {
            if let Some(t) = text.get_mut(b.owner as usize) {
                *t += b.chars;
            }
            if let Some(l) = link.get_mut(b.owner as usize) {
                *l += b.link_chars;
            }
        }
    }
    for i in (1..n).rev() {
        let par = parent_of(i) as usize;
        let (t, l) = (
            text.get(i).copied().unwrap_or(0),
            link.get(i).copied().unwrap_or(0),
        );
        if let Some(x) = text.get_mut(par) {
            *x += t;
        }
        if let Some(x) = link.get_mut(par) {
            *x += l;
        }
    }
    let density = |i: u32| {
        let t = text.get(i as usize).copied().unwrap_or(0);
        if t == 0 {
            0.0
        } else {
            link.get(i as usize).copied().unwrap_or(0) as f32 / t as f32
        }
    };

    // 3. Paragraph scores credited to ancestors.
    let mut score = vec![0f32; n];
    let mut init = vec![false; n];
    let mut candidates: Vec<u32> = Vec::new();
    let mut credit = |start: u32, s: f32, score: &mut Vec<f32>, init: &mut Vec<bool>| {
        let mut a = start;
        for level in 0..SCORE_LEVELS {
            if a == NONE || a == 0 {
                break;
            }
            let ai = a as usize;
            if !init.get(ai).copied().unwrap_or(true) {
                if let Some(v) = init.get_mut(ai) {
                    *v = true;
                }
                let x = nodes.get(ai);
                let w = if flags & WEIGHT_CLASSES != 0 {
                    x.map_or(0.0, |x| f32::from(x.class_weight))
                } else {
                    0.0
                };
                if let Some(v) = score.get_mut(ai) {
                    *v = base_score(tag_of(a)) + w;
                }
                candidates.push(a);
            }
            let divider = match level {
                0 => 1.0,
                1 => 2.0,
                l => l as f32 * 3.0,
            };
            if let Some(v) = score.get_mut(ai) {
                *v += s / divider;
            }
            a = parent_of(ai);
        }
    };
    let para_score = |chars: u32, commas: u32| -> f32 {
        1.0 + (commas + 1) as f32 + (chars / 100).min(3) as f32
    };
    // Paragraph elements aggregate their blocks; inline text directly in a
    // div with block children is its own paragraph (readability wraps it
    // in a <p>).
    let mut para_chars: HashMap<u32, (u32, u32)> = HashMap::new();
    for b in &p.blocks {
        if !alive(b.owner) {
            continue;
        }
        let o = b.owner;
        let t = tag_of(o);
        let is_para = match t {
            Tag::P | Tag::Td | Tag::Pre | Tag::Section => true,
            Tag::H2 | Tag::H3 | Tag::H4 | Tag::H5 | Tag::H6 => true,
            Tag::Div => !ctx.has_block_desc.get(o as usize).copied().unwrap_or(false),
            _ => false,
        };
        if is_para {
            let e = para_chars.entry(o).or_insert((0, 0));
            e.0 += b.chars;
            e.1 += b.commas;
        } else if t == Tag::Div && b.chars >= 25 {
            credit(o, para_score(b.chars, b.commas), &mut score, &mut init);
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
            credit(
                parent_of(node as usize),
                para_score(chars, commas),
                &mut score,
                &mut init,
            );
        }
    }

    // 4. Link density scaling, top candidates.
    for &c in &candidates {
        let d = density(c);
        if let Some(v) = score.get_mut(c as usize) {
            *v *= 1.0 - d;
        }
    }
    let mut top: Vec<u32> = Vec::with_capacity(TOP_CANDIDATES + 1);
    for &c in &candidates {
        let pos = top
            .iter()
            .position(|&t| at(&score, c) > at(&score, t))
            .unwrap_or(top.len());
        if pos < TOP_CANDIDATES {
            top.insert(pos, c);
            top.truncate(TOP_CANDIDATES);
        }
    }

    let is_top_level = |i: u32| {
        i == body || i == 0 || i == NONE || matches!(tag_of(i), Tag::Body | Tag::Html | Tag::Root)
    };
    let mut roots: Vec<u32> = Vec::new();
    let mut top_node = NONE;
    match top.first().copied() {
        None => roots.push(body),
        Some(t) if is_top_level(t) => roots.push(body),
        Some(mut t) => {
            // Several strong candidates under one ancestor: take it.
            let ts = at(&score, t);
            let mut counts: HashMap<u32, u8> = HashMap::new();
            let mut lists = 0;
            for &c in top.iter().skip(1) {
                if ts > 0.0 && at(&score, c) / ts >= 0.75 {
                    lists += 1;
                    let mut a = parent_of(c as usize);
                    while a != NONE {
                        *counts.entry(a).or_insert(0) += 1;
                        a = parent_of(a as usize);
                    }
                }
            }
            if lists >= 3 {
                let mut a = parent_of(t as usize);
                while !is_top_level(a) {
                    if counts.get(&a).copied().unwrap_or(0) >= 3 {
                        t = a;
                        break;
                    }
                    a = parent_of(a as usize);
                }
            }
            // A parent scoring higher than the child unifies split content.
            let mut a = parent_of(t as usize);
            let mut last = at(&score, t);
            let threshold = last / 3.0;
            while !is_top_level(a) {
                if !init.get(a as usize).copied().unwrap_or(false) {
                    a = parent_of(a as usize);
                    continue;
                }
                let s = at(&score, a);
                if s < threshold {
                    break;
                }
                if s > last {
                    t = a;
                    break;
                }
                last = s;
                a = parent_of(a as usize);
            }
            // An only child is as good as its parent (siblings are found
            // one level up).
            let mut a = parent_of(t as usize);
            while !is_top_level(a) && live_children(p, &dead, a) == 1 {
                t = a;
                a = parent_of(a as usize);
            }
            if !init.get(t as usize).copied().unwrap_or(true) {
                let w = if flags & WEIGHT_CLASSES != 0 {
                    nodes
                        .get(t as usize)
                        .map_or(0.0, |x| f32::from(x.class_weight))
                } else {
                    0.0
                };
                if let Some(v) = score.get_mut(t as usize) {
                    *v = base_score(tag_of(t)) + w;
                }
            }
            if is_top_level(t) {
                roots.push(body);
            } else {
                top_node = t;
                let ts = score.get(t as usize).copied().unwrap_or(0.0);
                let threshold = (ts * 0.2).max(10.0);
                let top_class = nodes.get(t as usize).map_or(0, |x| x.class_hash);
                let mut s = nodes
                    .get(parent_of(t as usize) as usize)
                    .map_or(NONE, |x| x.first_child);
                while s != NONE {
                    let next = nodes.get(s as usize).map_or(NONE, |x| x.next_sibling);
                    if alive(s) {
                        let append = if s == t {
                            true
                        } else {
                            let x = nodes.get(s as usize);
                            let bonus =
                                if top_class != 0 && x.is_some_and(|x| x.class_hash == top_class) {
                                    ts * 0.2
                                } else {
                                    0.0
                                };
                            let st = tag_of(s);
                            let para_like = st == Tag::P
                                || (st == Tag::Div
                                    && !ctx
                                        .has_block_desc
                                        .get(s as usize)
                                        .copied()
                                        .unwrap_or(false));
                            if init.get(s as usize).copied().unwrap_or(false)
                                && at(&score, s) + bonus >= threshold
                            {
                                true
                            } else if para_like {
                                let len = text.get(s as usize).copied().unwrap_or(0);
                                let d = density(s);
                                (len > 80 && d < 0.25)
                                    || (len < 80
                                        && len > 0
                                        && d == 0.0
                                        && ctx
                                            .sentence_end
                                            .get(s as usize)
                                            .copied()
                                            .unwrap_or(false))
                            } else {
                                false
                            }
                        };
                        if append {
                            roots.push(s);
                        }
                    }
                    s = next;
                }
            }
        }
    }

    // 5. Clean the article (readability `_prepArticle`).
    let mut is_root = vec![false; n];
    for &r in &roots {
        if let Some(v) = is_root.get_mut(r as usize) {
            *v = true;
        }
    }
    let mut removed = vec![false; n];
    let mut in_art = vec![false; n];
    let compute_in_art = |in_art: &mut Vec<bool>, removed: &Vec<bool>| {
        for i in 0..n {
            let par = parent_of(i);
            let v = is_root.get(i).copied().unwrap_or(false)
                || (par != NONE
                    && in_art.get(par as usize).copied().unwrap_or(false)
                    && !dead.get(i).copied().unwrap_or(true)
                    && !removed.get(i).copied().unwrap_or(false));
            if let Some(x) = in_art.get_mut(i) {
                *x = v;
            }
        }
    };
    compute_in_art(&mut in_art, &removed);

    // Static removals.
    let h2_in_article: Vec<u32> = (0..n as u32)
        .filter(|&i| tag_of(i) == Tag::H2 && in_art.get(i as usize).copied().unwrap_or(false))
        .collect();
    let single_h2_is_title = h2_in_article.len() == 1
        && h2_in_article.first().is_some_and(|h| {
            ctx.h2_text.get(h).is_some_and(|t| {
                let t = t.to_lowercase();
                ctx.titles.iter().any(|title| {
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
        });
    for i in 1..n {
        if !in_art.get(i).copied().unwrap_or(false) || is_root.get(i).copied().unwrap_or(false) {
            continue;
        }
        let Some(x) = nodes.get(i) else { continue };
        let mut rm = always_removed(x.tag);
        if x.flags & flag::SHARE != 0 && text.get(i).copied().unwrap_or(0) < 500 {
            rm = true;
        }
        if flags & WEIGHT_CLASSES != 0 && matches!(x.tag, Tag::H1 | Tag::H2) && x.class_weight < 0 {
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
    compute_in_art(&mut in_art, &removed);

    if flags & CLEAN_CONDITIONALLY != 0 {
        // Direct (own) contributions per node from live blocks.
        let mut own = vec![Agg::default(); n];
        for b in &p.blocks {
            if !alive(b.owner) {
                continue;
            }
            if let Some(a) = own.get_mut(b.owner as usize) {
                a.text += b.chars;
                a.link += b.link_chars;
                a.commas += b.commas;
                if tag_of(b.owner).is_heading() {
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
        let passes: [&[Tag]; 4] = [
            &[Tag::Form, Tag::Fieldset],
            &[Tag::Table],
            &[Tag::Ul],
            &[Tag::Div],
        ];
        for pass in passes {
            let mut agg = own.clone();
            for i in (1..n).rev() {
                if !in_art.get(i).copied().unwrap_or(false) {
                    continue;
                }
                let Some(x) = nodes.get(i) else { continue };
                let a = agg.get(i).copied().unwrap_or_default();
                if pass.contains(&x.tag)
                    && i as u32 != top_node
                    && !ctx.in_data_table.get(i).copied().unwrap_or(false)
                    && x.flags & flag::IN_CODE == 0
                {
                    let weight = if flags & WEIGHT_CLASSES != 0 {
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
            compute_in_art(&mut in_art, &removed);
        }
    }

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
