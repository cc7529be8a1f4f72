//! Readability's cleaning of the article it picked (`_prepArticle`), the
//! last step of a pass ([`Pass::clean`]): the static removals, then the
//! forms, tables, lists and divs that look like navigation. It walks only
//! the article's subtrees, which are ranges of document order
//! (`Context::subtree_end`).

use std::ops::Range;

use super::readability::{Pass, CLEAN_CONDITIONALLY, WEIGHT_CLASSES};
use super::tags::Tag;
use super::tree::{flag, Node, NONE};

/// Tags removed from the article wherever they are (readability
/// `_clean`), plus navigation and asides.
pub(super) fn always_removed(tag: Tag) -> bool {
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

/// A subtree's counts that conditional cleaning tests
/// ([`remove_conditionally`]), summed over what is still in the article.
#[derive(Clone, Copy, Default)]
pub(super) struct Agg {
    pub(super) text: u32,
    pub(super) link: u32,
    pub(super) commas: u32,
    pub(super) p: u32,
    pub(super) img: u32,
    pub(super) li: u32,
    pub(super) input: u32,
    pub(super) embed: u32,
    pub(super) heading: u32,
}

impl Agg {
    /// The field-wise sum.
    fn plus(self, o: &Agg) -> Agg {
        Agg {
            text: self.text + o.text,
            link: self.link + o.link,
            commas: self.commas + o.commas,
            p: self.p + o.p,
            img: self.img + o.img,
            li: self.li + o.li,
            input: self.input + o.input,
            embed: self.embed + o.embed,
            heading: self.heading + o.heading,
        }
    }
}

impl Pass<'_, '_> {
    /// Step 6: cleans the article under `roots` (readability
    /// `_prepArticle`) and says which nodes are in it: the static
    /// removals ([`Pass::static_removals`]), then, when this pass cleans
    /// conditionally, the forms, tables, lists and divs that look like
    /// navigation ([`Pass::clean_conditionally`]).
    ///
    /// With `uncleaned`, a pass that cleans conditionally also returns its
    /// article as it was before that cleaning: the article of the same
    /// pass without [`CLEAN_CONDITIONALLY`], the flag read nowhere else.
    pub(super) fn clean(
        &self,
        roots: &[u32],
        top_node: u32,
        uncleaned: bool,
    ) -> (Vec<bool>, Option<Vec<bool>>) {
        let n = self.p.nodes.len();
        let mut is_root = vec![false; n];
        for &r in roots {
            if let Some(v) = is_root.get_mut(r as usize) {
                *v = true;
            }
        }
        // The roots are siblings in document order: their subtrees are
        // disjoint ranges in order, and nothing outside them is in the
        // article.
        let ranges: Vec<Range<usize>> = roots
            .iter()
            .map(|&r| r as usize..self.subtree_end(r as usize))
            .collect();
        let mut removed = vec![false; n];
        let mut in_art = vec![false; n];
        self.in_article(&ranges, &is_root, &removed, &mut in_art);
        self.static_removals(&ranges, &is_root, &in_art, &mut removed);
        self.in_article(&ranges, &is_root, &removed, &mut in_art);
        let mut before = None;
        if self.flags & CLEAN_CONDITIONALLY != 0 {
            before = uncleaned.then(|| in_art.clone());
            self.clean_conditionally(&ranges, top_node, &is_root, &mut removed, &mut in_art);
        }
        (in_art, before)
    }

    /// One past the last node of `i`'s subtree.
    pub(super) fn subtree_end(&self, i: usize) -> usize {
        self.ctx.subtree_end.get(i).map_or(i + 1, |&e| e as usize)
    }

    /// Which nodes are in the article: a root, or a live, not removed
    /// child of a node in it (one forward pass over the roots' `ranges`;
    /// the nodes outside them stay out).
    pub(super) fn in_article(
        &self,
        ranges: &[Range<usize>],
        is_root: &[bool],
        removed: &[bool],
        in_art: &mut [bool],
    ) {
        for i in ranges.iter().flat_map(Clone::clone) {
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
    pub(super) fn static_removals(
        &self,
        ranges: &[Range<usize>],
        is_root: &[bool],
        in_art: &[bool],
        removed: &mut [bool],
    ) {
        let h2_in_article: Vec<u32> = ranges
            .iter()
            .flat_map(Clone::clone)
            .map(|i| i as u32)
            .filter(|&i| {
                self.tag_of(i) == Tag::H2 && in_art.get(i as usize).copied().unwrap_or(false)
            })
            .collect();
        let single_h2_is_title =
            h2_in_article.len() == 1 && h2_in_article.first().is_some_and(|&h| self.h2_is_title(h));
        for i in ranges.iter().flat_map(|r| r.start.max(1)..r.end) {
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
    pub(super) fn h2_is_title(&self, h: u32) -> bool {
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
    pub(super) fn clean_conditionally(
        &self,
        ranges: &[Range<usize>],
        top_node: u32,
        is_root: &[bool],
        removed: &mut [bool],
        in_art: &mut [bool],
    ) {
        let nodes = &self.p.nodes;
        let passes: [&[Tag]; 4] = [
            &[Tag::Form, Tag::Fieldset],
            &[Tag::Table],
            &[Tag::Ul],
            &[Tag::Div],
        ];
        let removable = |i: usize, x: &Node| {
            i as u32 != top_node
                && !self.ctx.in_data_table.get(i).copied().unwrap_or(false)
                && x.flags & flag::IN_CODE == 0
        };
        // The groups with a node that may be removed: a pass over a group
        // with none removes nothing (and leaves `below` as it found it),
        // and the article only shrinks, so one look before the passes
        // tells which to skip (a page's article often has no form or
        // table).
        let mut present = [false; 4];
        for i in ranges.iter().flat_map(|r| r.start.max(1)..r.end) {
            let Some(x) = nodes.get(i) else { continue };
            if in_art.get(i).copied().unwrap_or(false) && removable(i, x) {
                for (seen, pass) in present.iter_mut().zip(passes) {
                    *seen |= pass.contains(&x.tag);
                }
            }
        }
        if !present.contains(&true) {
            return;
        }
        let own = self.own_counts();
        // What each node's children in the article add to its own counts
        // in this pass. A node's slot is read and reset when it is visited:
        // its children come after it in document order, so all of them are
        // in by then, and the next pass starts from zero without copying a
        // table per pass. A node that leaves the article never comes back
        // (removals only grow), so what its slot gathers is never read.
        let mut below = vec![Agg::default(); nodes.len()];
        for (pass, _) in passes.into_iter().zip(present).filter(|&(_, p)| p) {
            for i in ranges
                .iter()
                .rev()
                .flat_map(|r| (r.start.max(1)..r.end).rev())
            {
                if !in_art.get(i).copied().unwrap_or(false) {
                    continue;
                }
                let Some(x) = nodes.get(i) else { continue };
                let children = below.get_mut(i).map(std::mem::take).unwrap_or_default();
                let a = own.get(i).copied().unwrap_or_default().plus(&children);
                if pass.contains(&x.tag) && removable(i, x) {
                    let weight = if self.flags & WEIGHT_CLASSES != 0 {
                        i32::from(x.class_weight)
                    } else {
                        0
                    };
                    if remove_conditionally(x.tag, x.flags, weight, &a) {
                        if let Some(r) = removed.get_mut(i) {
                            *r = true;
                        }
                        // Its subtree leaves the article, unless it is a
                        // root (a root stays in): what the whole forward
                        // pass (`in_article`) would find after this pass.
                        // Its nodes come after it, so this pass visited
                        // them already.
                        if !is_root.get(i).copied().unwrap_or(false) {
                            let end = self.subtree_end(i);
                            if let Some(sub) = in_art.get_mut(i..end) {
                                sub.fill(false);
                            }
                        }
                        continue;
                    }
                }
                if let Some(pa) = below.get_mut(x.parent as usize) {
                    *pa = pa.plus(&a);
                    pa.p += u32::from(x.tag == Tag::P);
                    pa.li += u32::from(x.tag == Tag::Li);
                }
            }
        }
    }

    /// Each node's own counts: text, links, commas and heading text of its
    /// live blocks, and its images, inputs and embeds.
    pub(super) fn own_counts(&self) -> Vec<Agg> {
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

/// Readability's `_cleanConditionally` test for one table/list/div/form.
pub(super) fn remove_conditionally(tag: Tag, flags: u32, weight: i32, a: &Agg) -> bool {
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
