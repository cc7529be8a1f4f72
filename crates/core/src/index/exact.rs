//! The exact tier: fingerprint -> first document with it.
//!
//! One flat open-addressing table, linear probing, struct of arrays
//! (`u64` fingerprints, `u32` ids: 12 bytes per slot, no padding; a
//! `HashMap<u64, u32>` pads its `(u64, u32)` slot to 16 bytes plus a
//! control byte and doubles, 19-37 bytes per page). The capacity is not a
//! power of two, so the table grows by 1.2x at a load of 0.85 and the load
//! stays within 0.71-0.85: **14.1-16.9 bytes per page**.
//! Measured (`cargo bench --bench index`): 16.8 B per page at 1 M pages,
//! 15.0 at 10 M.
//!
//! Only the first document with a fingerprint is kept: a later one with the
//! same fingerprint is an exact duplicate of it and is not recorded, and
//! removing the first document forgets the fingerprint. Id `u32::MAX` marks
//! free slots and cannot be indexed (it is ignored).

use neardup_api::{CandidateIndex, DocId, Signature};

/// Id value of a free slot.
const FREE: DocId = DocId::MAX;

/// Grow when the load would pass 85%...
const MAX_LOAD_PERCENT: usize = 85;

/// ...to 1.2x the capacity (120%).
const GROWTH_PERCENT: usize = 120;

/// Smallest non-empty table.
const MIN_CAPACITY: usize = 64;

/// Home slot of a fingerprint: multiply-shift onto `0..cap`. The
/// fingerprint is already a uniform hash; the multiplication guards against
/// structured ones.
fn home(fp: u64, cap: usize) -> usize {
    let mixed = fp.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (fp >> 29);
    ((u128::from(mixed) * cap as u128) >> 64) as usize
}

/// Exact-hash index.
#[derive(Debug, Default)]
pub struct ExactIndex {
    /// Fingerprint of each slot (meaningless where the id is [`FREE`]).
    fps: Vec<u64>,
    /// Document of each slot, [`FREE`] if unused.
    ids: Vec<DocId>,
    /// Occupied slots (= documents).
    len: usize,
}

impl ExactIndex {
    /// Position of `fp`'s slot, if present.
    fn find(&self, fp: u64) -> Option<usize> {
        let cap = self.ids.len();
        if cap == 0 {
            return None;
        }
        let mut i = home(fp, cap);
        for _ in 0..cap {
            if *self.ids.get(i)? == FREE {
                return None;
            }
            if *self.fps.get(i)? == fp {
                return Some(i);
            }
            i = if i + 1 == cap { 0 } else { i + 1 };
        }
        None
    }

    /// Writes at the first free slot from the home; the caller guarantees
    /// one exists and that `fp` is absent.
    fn place(&mut self, fp: u64, id: DocId) {
        let cap = self.ids.len();
        let mut i = home(fp, cap);
        for _ in 0..cap {
            if let (Some(slot_id), Some(slot_fp)) = (self.ids.get_mut(i), self.fps.get_mut(i)) {
                if *slot_id == FREE {
                    *slot_id = id;
                    *slot_fp = fp;
                    return;
                }
            }
            i = if i + 1 == cap { 0 } else { i + 1 };
        }
    }

    /// Makes room for one more entry under the maximum load.
    fn reserve_one(&mut self) {
        let cap = self.ids.len();
        if (self.len + 1) * 100 <= cap * MAX_LOAD_PERCENT {
            return;
        }
        let new_cap = (cap * GROWTH_PERCENT / 100).max(MIN_CAPACITY);
        let fps = std::mem::replace(&mut self.fps, vec![0; new_cap]);
        let ids = std::mem::replace(&mut self.ids, vec![FREE; new_cap]);
        for (fp, id) in fps.into_iter().zip(ids) {
            if id != FREE {
                self.place(fp, id);
            }
        }
    }

    /// Frees slot `pos` by backward shifting the rest of its run (no
    /// tombstones): an entry moves into the hole unless its home lies
    /// cyclically in `(hole, j]`.
    fn delete_at(&mut self, pos: usize) {
        let cap = self.ids.len();
        let mut hole = pos;
        let mut j = pos;
        for _ in 0..cap {
            j = if j + 1 == cap { 0 } else { j + 1 };
            let (Some(&id), Some(&fp)) = (self.ids.get(j), self.fps.get(j)) else {
                break;
            };
            if id == FREE {
                break;
            }
            let h = home(fp, cap);
            let stays = if hole <= j {
                hole < h && h <= j
            } else {
                hole < h || h <= j
            };
            if !stays {
                if let (Some(dst_id), Some(dst_fp)) =
                    (self.ids.get_mut(hole), self.fps.get_mut(hole))
                {
                    *dst_id = id;
                    *dst_fp = fp;
                }
                hole = j;
            }
        }
        if let Some(dst) = self.ids.get_mut(hole) {
            *dst = FREE;
        }
        self.len -= 1;
    }
}

impl CandidateIndex for ExactIndex {
    fn candidates(&self, sig: &Signature, out: &mut Vec<DocId>) {
        if let Signature::Fingerprint(fp) = sig {
            out.extend(self.find(*fp).and_then(|i| self.ids.get(i).copied()));
        }
    }

    fn insert(&mut self, id: DocId, sig: &Signature) {
        let Signature::Fingerprint(fp) = sig else {
            return;
        };
        if id == FREE || self.find(*fp).is_some() {
            return;
        }
        self.reserve_one();
        self.place(*fp, id);
        self.len += 1;
    }

    fn remove(&mut self, id: DocId, sig: &Signature) {
        let Signature::Fingerprint(fp) = sig else {
            return;
        };
        if let Some(pos) = self.find(*fp) {
            if self.ids.get(pos) == Some(&id) {
                self.delete_at(pos);
            }
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    fn heap_bytes(&self) -> usize {
        self.fps.capacity() * std::mem::size_of::<u64>()
            + self.ids.capacity() * std::mem::size_of::<DocId>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn query(idx: &ExactIndex, fp: u64) -> Vec<DocId> {
        let mut out = Vec::new();
        idx.candidates(&Signature::Fingerprint(fp), &mut out);
        out
    }

    /// The index laws (`neardup_api::conformance::check_index`).
    #[test]
    fn obeys_the_index_laws() {
        let mut rng = neardup_api::SplitMix64::new(3);
        let sigs: Vec<Signature> = (0..30)
            .map(|_| Signature::Fingerprint(rng.next_u64()))
            .collect();
        neardup_api::conformance::check_index(&|| Box::new(ExactIndex::default()), &sigs);
    }

    #[test]
    fn first_document_wins() {
        let mut idx = ExactIndex::default();
        idx.insert(3, &Signature::Fingerprint(77));
        idx.insert(8, &Signature::Fingerprint(77));
        assert_eq!(query(&idx, 77), vec![3]);
        assert_eq!(idx.len(), 1);
        assert_eq!(query(&idx, 78), Vec::<DocId>::new());
    }

    #[test]
    fn remove_needs_the_recorded_id() {
        let mut idx = ExactIndex::default();
        let s = Signature::Fingerprint(5);
        idx.insert(1, &s);
        // Another id with the same fingerprint was never recorded: no-op.
        idx.remove(2, &s);
        assert_eq!(query(&idx, 5), vec![1]);
        idx.remove(1, &s);
        assert_eq!(query(&idx, 5), Vec::<DocId>::new());
        assert!(idx.is_empty());
        // The fingerprint can be taken again after removal.
        idx.insert(2, &s);
        assert_eq!(query(&idx, 5), vec![2]);
    }

    #[test]
    fn other_signatures_are_ignored() {
        let mut idx = ExactIndex::default();
        idx.insert(0, &Signature::Set(vec![1]));
        idx.insert(FREE, &Signature::Fingerprint(1));
        assert!(idx.is_empty());
        assert_eq!(query(&idx, 1), Vec::<DocId>::new());
    }

    proptest! {
        /// Behaves like a map that keeps the first id, through growth and
        /// backward-shift deletion; small fingerprint ranges force shared
        /// home slots.
        #[test]
        fn matches_a_model(
            ops in prop::collection::vec((any::<bool>(), 0u64..300, 0u32..4), 1..400),
        ) {
            use std::collections::BTreeMap;
            let mut idx = ExactIndex::default();
            let mut model: BTreeMap<u64, u32> = BTreeMap::new();
            for (is_insert, fp, id) in ops {
                // Spread small values over the whole key space sometimes too.
                let fp = if fp % 3 == 0 { fp << 40 } else { fp };
                let s = Signature::Fingerprint(fp);
                if is_insert {
                    idx.insert(id, &s);
                    model.entry(fp).or_insert(id);
                } else {
                    idx.remove(id, &s);
                    if model.get(&fp) == Some(&id) {
                        model.remove(&fp);
                    }
                }
                prop_assert_eq!(idx.len(), model.len());
            }
            for fp in (0u64..300).chain((0u64..300).map(|f| f << 40)) {
                prop_assert_eq!(query(&idx, fp), model.get(&fp).copied().into_iter().collect::<Vec<_>>());
            }
        }
    }
}
