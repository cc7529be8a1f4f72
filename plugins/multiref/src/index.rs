//! Candidate index over signature vectors: random-hyperplane LSH (Charikar)
//! in `bands` bands of `rows` bits. Two vectors at angle `theta` agree on
//! one bit with probability `1 - theta/pi`, so a band matches with
//! `(1 - theta/pi)^rows` and the pair becomes a candidate with
//! `1 - (1 - (1 - theta/pi)^rows)^bands`. With the defaults (16 x 12) a
//! pair at signature cosine 0.98 (the default t2, 11.5 degrees) is found
//! with probability 0.9999 and one at 0.96 with 0.998; at 0.90 it is still
//! 0.93. Signature vectors of unrelated texts have high cosines too
//! (all components are non-negative), so the index also returns many
//! false candidates that verification rejects: it bounds work, it does
//! not make it sublinear for corpora of one topic.

use std::collections::HashMap;

use neardup_api::{CandidateIndex, DocId, Signature};

/// Random-hyperplane LSH over [`Signature::Vector`]s.
#[derive(Debug)]
pub struct HyperplaneIndex {
    dims: usize,
    bands: usize,
    rows: usize,
    /// `bands * rows` hyperplanes of `dims` coefficients each, row-major.
    planes: Vec<f32>,
    buckets: HashMap<(u32, u64), Vec<DocId>>,
    len: usize,
}

/// Deterministic coefficient in `[-1, 1)` for plane `k`, dimension `d`
/// (a SplitMix64 step of the pair: stable across runs and platforms).
fn coefficient(k: usize, d: usize) -> f32 {
    let mut z = ((k as u64) << 32 | d as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    ((z >> 40) as f32 / (1u64 << 23) as f32) - 1.0
}

impl HyperplaneIndex {
    /// An empty index for vectors of `dims` components.
    pub fn new(dims: usize, bands: usize, rows: usize) -> HyperplaneIndex {
        let planes = (0..bands * rows)
            .flat_map(|k| (0..dims).map(move |d| coefficient(k, d)))
            .collect();
        HyperplaneIndex {
            dims,
            bands,
            rows,
            planes,
            buckets: HashMap::new(),
            len: 0,
        }
    }

    /// One key per band; none for a foreign signature.
    fn keys(&self, sig: &Signature) -> Option<Vec<(u32, u64)>> {
        let Signature::Vector(v) = sig else {
            return None;
        };
        if v.len() != self.dims {
            return None;
        }
        let mut keys = Vec::with_capacity(self.bands);
        let mut planes = self.planes.chunks_exact(self.dims.max(1));
        for b in 0..self.bands {
            let mut key = 0u64;
            for _ in 0..self.rows {
                let dot: f32 = planes
                    .next()
                    .map(|p| p.iter().zip(v).map(|(a, x)| a * x).sum())
                    .unwrap_or(0.0);
                key = key << 1 | u64::from(dot >= 0.0);
            }
            keys.push((b as u32, key));
        }
        Some(keys)
    }
}

impl CandidateIndex for HyperplaneIndex {
    fn candidates(&self, sig: &Signature, out: &mut Vec<DocId>) {
        let Some(keys) = self.keys(sig) else { return };
        let start = out.len();
        // Count band hits: more shared bands means a closer angle, so the
        // best candidates come first.
        let mut hits: HashMap<DocId, u32> = HashMap::new();
        for k in &keys {
            if let Some(ids) = self.buckets.get(k) {
                for &id in ids {
                    *hits.entry(id).or_insert(0) += 1;
                }
            }
        }
        let mut ranked: Vec<(DocId, u32)> = hits.into_iter().collect();
        ranked.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        out.extend(ranked.into_iter().map(|(id, _)| id));
        debug_assert!(out.len() >= start);
    }

    fn insert(&mut self, id: DocId, sig: &Signature) {
        let Some(keys) = self.keys(sig) else { return };
        for k in keys {
            self.buckets.entry(k).or_default().push(id);
        }
        self.len += 1;
    }

    fn remove(&mut self, id: DocId, sig: &Signature) {
        let Some(keys) = self.keys(sig) else { return };
        let mut found = false;
        for k in keys {
            if let Some(ids) = self.buckets.get_mut(&k) {
                if let Some(pos) = ids.iter().position(|&x| x == id) {
                    ids.swap_remove(pos);
                    found = true;
                }
                if ids.is_empty() {
                    self.buckets.remove(&k);
                }
            }
        }
        if found {
            self.len = self.len.saturating_sub(1);
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    fn heap_bytes(&self) -> usize {
        self.planes.capacity() * 4
            + self
                .buckets
                .values()
                .map(|v| v.capacity() * 4 + 32)
                .sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_vectors_share_a_band_and_insert_remove_balance() {
        let mut idx = HyperplaneIndex::new(4, 16, 8);
        let a = Signature::Vector(vec![0.9, 0.1, 0.4, 0.2]);
        let near = Signature::Vector(vec![0.9, 0.1, 0.41, 0.2]);
        idx.insert(7, &a);
        assert_eq!(idx.len(), 1);
        let mut out = Vec::new();
        idx.candidates(&near, &mut out);
        assert_eq!(out, vec![7]);
        idx.candidates(&Signature::Vector(vec![1.0]), &mut out);
        assert_eq!(out, vec![7], "wrong-length vector gives no candidates");
        idx.remove(7, &a);
        assert_eq!(idx.len(), 0);
        out.clear();
        idx.candidates(&near, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn coefficients_are_spread_in_unit_range() {
        let c: Vec<f32> = (0..1000).map(|k| coefficient(k, 3)).collect();
        assert!(c.iter().all(|x| (-1.0..1.0).contains(x)));
        assert!(c.iter().filter(|x| **x < 0.0).count() > 400);
        assert!(c.iter().filter(|x| **x > 0.0).count() > 400);
    }
}
