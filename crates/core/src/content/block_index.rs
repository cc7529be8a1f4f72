//! Kept pages by their blocks (`BlockIndex`): the fallback candidates when no detector matched.

// Keyed by block hashes and ids: foldhash, not SipHash (see the crate's
// Cargo.toml).
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use super::page::PageContent;
use super::templates::SiteTemplate;

/// Kept pages by the blocks they hold: candidates for a page whose own
/// content the detectors' main-text signatures miss (a page without an
/// article, a copy whose main text differs only in a path in its heading).
///
/// A block held by more than [`MAX_BLOCK_POSTINGS`] kept pages is dropped
/// from the index for good: it is template or boilerplate somewhere, and
/// its postings would only cost memory and time.
#[derive(Debug, Default)]
pub struct BlockIndex {
    pub(super) postings: HashMap<u32, Vec<neardup_api::DocId>>,
}

/// Kept pages listed per block at most.
pub const MAX_BLOCK_POSTINGS: usize = 32;

/// The posting list of a block held by too many kept pages.
pub(super) const SATURATED: neardup_api::DocId = neardup_api::DocId::MAX;

/// Candidates returned per lookup at most.
pub(super) const MAX_BLOCK_CANDIDATES: usize = 16;

impl BlockIndex {
    /// Lists a kept page under each of its blocks.
    pub fn insert(&mut self, id: neardup_api::DocId, blocks: &[u32]) {
        for &b in blocks {
            let list = self.postings.entry(b).or_default();
            if list.as_slice() == [SATURATED] {
                continue;
            }
            if list.len() < MAX_BLOCK_POSTINGS {
                list.push(id);
            } else {
                *list = vec![SATURATED];
            }
        }
    }

    /// Undoes [`BlockIndex::insert`] (a saturated block stays saturated).
    pub fn remove(&mut self, id: neardup_api::DocId, blocks: &[u32]) {
        for b in blocks {
            if let Some(list) = self.postings.get_mut(b) {
                if let Some(i) = list.iter().position(|&x| x == id) {
                    list.swap_remove(i);
                    if list.is_empty() {
                        self.postings.remove(b);
                    }
                }
            }
        }
    }

    /// Kept pages sharing most of `page`'s own words (outside `template`),
    /// best first (ties: the earliest page).
    pub fn candidates(
        &self,
        page: &PageContent,
        template: SiteTemplate<'_>,
        out: &mut Vec<neardup_api::DocId>,
    ) {
        let mut score: HashMap<neardup_api::DocId, u32> = HashMap::new();
        let mut seen = HashSet::new();
        for b in &page.blocks {
            if template.contains(b.hash) || !seen.insert(b.hash) {
                continue;
            }
            let Some(list) = self.postings.get(&b.hash) else {
                continue;
            };
            for &id in list {
                if id != SATURATED {
                    *score.entry(id).or_insert(0) += b.words();
                }
            }
        }
        let mut ranked: Vec<(u32, neardup_api::DocId)> =
            score.into_iter().map(|(id, s)| (s, id)).collect();
        ranked.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        out.clear();
        out.extend(
            ranked
                .into_iter()
                .take(MAX_BLOCK_CANDIDATES)
                .map(|(_, id)| id),
        );
    }

    /// Approximate heap bytes.
    pub fn heap_bytes(&self) -> usize {
        self.postings.values().map(|l| l.capacity() * 4 + 40).sum()
    }
}
