//! [`SetIndex`]: an inverted index feature -> documents with candidate
//! counting, shared by the set-signature plugins (Min_n, Mod_n, BSW_n,
//! sentences) and usable for any `u32` keys (LSH band keys).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::{CandidateIndex, DocId, Signature};

/// Hasher for keys that are already hash values: one multiplication spreads
/// them over all 64 bits (the table uses the high bits). Not stored, so it
/// need not be stable, but it is anyway.
#[derive(Default, Clone, Copy)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.0 = u64::from(n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// The documents holding one key. Most keys of a crawl belong to a single
/// document, which then costs no heap allocation (the enum is as large as
/// the `Vec` alone, thanks to its non-null pointer niche).
#[derive(Clone, Debug)]
enum Postings {
    One(DocId),
    Many(Vec<DocId>),
}

impl Postings {
    fn as_slice(&self) -> &[DocId] {
        match self {
            Postings::One(id) => std::slice::from_ref(id),
            Postings::Many(v) => v,
        }
    }

    fn push(&mut self, id: DocId) {
        match self {
            Postings::One(first) => *self = Postings::Many(vec![*first, id]),
            Postings::Many(v) => v.push(id),
        }
    }

    /// Removes `id`; returns true if the list is now empty.
    fn remove(&mut self, id: DocId) -> bool {
        match self {
            Postings::One(x) => *x == id,
            Postings::Many(v) => {
                v.retain(|&x| x != id);
                match v.as_slice() {
                    [] => true,
                    [only] => {
                        *self = Postings::One(*only);
                        false
                    }
                    _ => false,
                }
            }
        }
    }

    fn heap_bytes(&self) -> usize {
        match self {
            Postings::One(_) => 0,
            Postings::Many(v) => v.capacity() * std::mem::size_of::<DocId>(),
        }
    }
}

/// An inverted index `u32 key -> documents`, answering "which documents
/// share keys with this set, most shared first".
///
/// Keys held by more than `max_postings` documents (site chrome, common
/// sentences) stop yielding candidates but still count for
/// [`CandidateIndex::coverage`]. A candidate must share at least
/// `min_shared` keys.
#[derive(Clone, Debug)]
pub struct SetIndex {
    postings: HashMap<u32, Postings, BuildHasherDefault<KeyHasher>>,
    docs: usize,
    max_postings: usize,
    min_shared: u32,
}

impl SetIndex {
    /// An empty index. `max_postings` and `min_shared` are clamped to at
    /// least 1.
    pub fn new(max_postings: usize, min_shared: usize) -> SetIndex {
        SetIndex {
            postings: HashMap::default(),
            docs: 0,
            max_postings: max_postings.max(1),
            min_shared: u32::try_from(min_shared.max(1)).unwrap_or(u32::MAX),
        }
    }

    /// Candidates sharing keys with `keys` (any order, duplicates counted
    /// once each time they appear), appended to `out`: most shared keys
    /// first, then lower ids.
    pub fn candidates_of(&self, keys: &[u32], out: &mut Vec<DocId>) {
        let mut counts: HashMap<DocId, u32, BuildHasherDefault<KeyHasher>> = HashMap::default();
        for k in keys {
            if let Some(p) = self.postings.get(k) {
                let ids = p.as_slice();
                if ids.len() <= self.max_postings {
                    for &id in ids {
                        *counts.entry(id).or_insert(0) += 1;
                    }
                }
            }
        }
        let mut found: Vec<(u32, DocId)> = counts
            .into_iter()
            .filter(|&(_, c)| c >= self.min_shared)
            .map(|(id, c)| (c, id))
            .collect();
        found.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        out.extend(found.into_iter().map(|(_, id)| id));
    }

    /// Adds document `id` under each key (keys should be distinct).
    pub fn insert_keys(&mut self, id: DocId, keys: &[u32]) {
        for &k in keys {
            self.postings
                .entry(k)
                .and_modify(|p| p.push(id))
                .or_insert(Postings::One(id));
        }
        self.docs += 1;
    }

    /// Removes document `id` from each key.
    pub fn remove_keys(&mut self, id: DocId, keys: &[u32]) {
        for k in keys {
            if let Some(p) = self.postings.get_mut(k) {
                if p.remove(id) {
                    self.postings.remove(k);
                }
            }
        }
        self.docs = self.docs.saturating_sub(1);
    }

    /// Share of `keys` present in the index (0 for no keys).
    pub fn coverage_of(&self, keys: &[u32]) -> f64 {
        if keys.is_empty() {
            return 0.0;
        }
        let seen = keys
            .iter()
            .filter(|k| self.postings.contains_key(k))
            .count();
        seen as f64 / keys.len() as f64
    }

    /// Number of distinct keys held.
    pub fn keys(&self) -> usize {
        self.postings.len()
    }
}

impl CandidateIndex for SetIndex {
    fn candidates(&self, sig: &Signature, out: &mut Vec<DocId>) {
        if let Signature::Set(keys) = sig {
            self.candidates_of(keys, out);
        }
    }

    fn insert(&mut self, id: DocId, sig: &Signature) {
        if let Signature::Set(keys) = sig {
            self.insert_keys(id, keys);
        }
    }

    fn remove(&mut self, id: DocId, sig: &Signature) {
        if let Signature::Set(keys) = sig {
            self.remove_keys(id, keys);
        }
    }

    fn len(&self) -> usize {
        self.docs
    }

    fn heap_bytes(&self) -> usize {
        // Table slot: key + postings + one control byte.
        let slot = std::mem::size_of::<u32>() + std::mem::size_of::<Postings>() + 1;
        self.postings.capacity() * slot
            + self
                .postings
                .values()
                .map(Postings::heap_bytes)
                .sum::<usize>()
    }

    fn coverage(&self, sig: &Signature) -> Option<f64> {
        match sig {
            Signature::Set(keys) => Some(self.coverage_of(keys)),
            _ => Some(0.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_are_ordered_by_shared_keys_and_filtered() {
        let mut ix = SetIndex::new(100, 2);
        ix.insert_keys(0, &[1, 2, 3]);
        ix.insert_keys(1, &[1, 2, 3, 4]);
        ix.insert_keys(2, &[4, 9]);
        let mut out = Vec::new();
        ix.candidates_of(&[1, 2, 3, 4], &mut out);
        // 1 shares 4 keys, 0 shares 3, 2 shares only 1 (< min_shared 2).
        assert_eq!(out, vec![1, 0]);
        assert_eq!(ix.len(), 3);
        assert!((ix.coverage_of(&[1, 9, 10, 11]) - 0.5).abs() < 1e-12);
    }

    /// The trait's default `best_candidates` (`SetIndex` keeps it): the
    /// first `limit` accepted candidates in order, appended after what
    /// `out` already held.
    #[test]
    fn best_candidates_are_the_first_accepted_appended() {
        let mut ix = SetIndex::new(100, 1);
        for id in 0..6 {
            ix.insert_keys(id, &(0..=id).collect::<Vec<u32>>());
        }
        let query = Signature::Set((0..6).collect());
        let mut all = Vec::new();
        ix.candidates(&query, &mut all);
        assert_eq!(all, vec![5, 4, 3, 2, 1, 0]);
        let accept = |id: DocId| id != 4;
        for limit in [0, 1, 3, 10] {
            let mut out = vec![99];
            ix.best_candidates(&query, limit, &accept, &mut out);
            let want: Vec<DocId> = std::iter::once(99)
                .chain(all.iter().copied().filter(|&id| accept(id)).take(limit))
                .collect();
            assert_eq!(out, want, "limit {limit}");
        }
    }

    #[test]
    fn frequent_keys_stop_yielding_candidates_but_count_as_seen() {
        let mut ix = SetIndex::new(1, 1);
        ix.insert_keys(0, &[7]);
        ix.insert_keys(1, &[7]);
        let mut out = Vec::new();
        ix.candidates_of(&[7], &mut out);
        assert!(out.is_empty());
        assert_eq!(ix.coverage_of(&[7]), 1.0);
    }

    #[test]
    fn remove_undoes_insert() {
        let mut ix = SetIndex::new(100, 1);
        ix.insert_keys(0, &[1, 2]);
        ix.insert_keys(1, &[2, 3]);
        ix.insert_keys(2, &[2]);
        ix.remove_keys(1, &[2, 3]);
        ix.remove_keys(0, &[1, 2]);
        let mut out = Vec::new();
        ix.candidates_of(&[1, 2, 3], &mut out);
        assert_eq!(out, vec![2]);
        assert_eq!(ix.keys(), 1);
        assert_eq!(ix.len(), 1);
        assert_eq!(ix.coverage_of(&[1, 3]), 0.0);
    }
}
