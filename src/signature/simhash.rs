//! Charikar's SimHash over word shingles: near-exact copies at a small
//! Hamming distance, and a cheap candidate filter.
//!
//! # Features
//! The `n`-word shingles of the document's `terms` (stop words dropped,
//! stemmed). Each term is hashed once with the seeded xxh3
//! ([`super::hash64`]); a shingle's hash is the seeded xxh3 of its terms'
//! hashes (8 little-endian bytes each), so no joined string is allocated and
//! the value is stable across runs and platforms. A page with fewer terms
//! than `n` has one shingle of all its terms; a page without terms has
//! [`Signature::Empty`].
//!
//! # Weights
//! `binary`: each distinct shingle counts once (repeated boilerplate lines do
//! not dominate). `log`: a shingle seen `c` times counts `1 + ln c`. Raw
//! counts are not offered: on the dev benchmark raw-tf unigram SimHash
//! collapsed long unrelated pages together (`detection-findings.md`).
//!
//! # Decision
//! Hamming distance `d <= max_distance` is a match. `d == 0` is reported as
//! a duplicate: all 64 feature-majority bits agree, which for shingles of
//! stemmed content words means at most tiny edits; `1..=max_distance` is a
//! near duplicate. Identical normalized text is caught earlier by the exact
//! detector, so SimHash's duplicates are the "same text up to stop words,
//! inflection or a few shingles" case.

use neardup_api::{CandidateIndex, Detector, Document, Judgement, Level, Signature, Similarity};

use crate::config::{SimhashConfig, SimhashWeights};
use crate::index::SimhashIndex;

/// SimHash detector: near-exact copies at a small Hamming distance.
#[derive(Clone, Debug)]
pub struct SimhashDetector {
    /// Shingle size, weights and the distance threshold, as configured.
    config: SimhashConfig,
}

impl SimhashDetector {
    /// A SimHash detector with the given settings.
    pub fn new(config: &SimhashConfig) -> SimhashDetector {
        SimhashDetector {
            config: config.clone(),
        }
    }
}

/// Largest shingle size hashed without allocating; longer shingles (not
/// allowed by config validation) are cut to this many terms.
const MAX_SHINGLE: usize = 8;

/// Stable hashes of the `n`-word shingles of `terms`, in text order (with
/// repeats). Fewer terms than `n` give one shingle of all terms.
pub fn shingle_hashes(terms: &[String], n: usize) -> Vec<u64> {
    let n = n.clamp(1, MAX_SHINGLE);
    let words: Vec<u64> = terms.iter().map(|t| super::hash64(t.as_bytes())).collect();
    if words.is_empty() {
        return Vec::new();
    }
    let n = n.min(words.len());
    let mut buf = [0u8; 8 * MAX_SHINGLE];
    words
        .windows(n)
        .map(|w| {
            for (slot, h) in buf.chunks_exact_mut(8).zip(w) {
                slot.copy_from_slice(&h.to_le_bytes());
            }
            super::hash64(buf.get(..8 * n).unwrap_or(&buf))
        })
        .collect()
}

/// SimHash of the `n`-word shingles of `terms` under `weights`, or `None`
/// when there are no terms.
pub fn simhash(terms: &[String], n: usize, weights: SimhashWeights) -> Option<u64> {
    let mut hashes = shingle_hashes(terms, n);
    if hashes.is_empty() {
        return None;
    }
    // Sorting makes the result independent of any iteration order and groups
    // repeats for the weights.
    hashes.sort_unstable();
    Some(match weights {
        SimhashWeights::Binary => {
            hashes.dedup();
            binary_fingerprint(&hashes)
        }
        SimhashWeights::Log => log_fingerprint(&hashes),
    })
}

/// Bit `b` is set when more than half of `hashes` have bit `b` set (ties
/// give 0). Counting ones per bit is the same as summing +1/-1, cheaper.
fn binary_fingerprint(hashes: &[u64]) -> u64 {
    let mut ones = [0u32; 64];
    for &h in hashes {
        for (bit, count) in ones.iter_mut().enumerate() {
            *count += ((h >> bit) & 1) as u32;
        }
    }
    let total = hashes.len() as u64;
    ones.iter().enumerate().fold(0u64, |fp, (bit, &c)| {
        if 2 * u64::from(c) > total {
            fp | 1 << bit
        } else {
            fp
        }
    })
}

/// `hashes` sorted; each distinct value weighs `1 + ln(count)`.
fn log_fingerprint(hashes: &[u64]) -> u64 {
    let mut acc = [0f64; 64];
    for run in hashes.chunk_by(|a, b| a == b) {
        let Some(&h) = run.first() else { continue };
        let w = 1.0 + (run.len() as f64).ln();
        for (bit, a) in acc.iter_mut().enumerate() {
            if (h >> bit) & 1 == 1 {
                *a += w;
            } else {
                *a -= w;
            }
        }
    }
    acc.iter().enumerate().fold(
        0u64,
        |fp, (bit, &a)| if a > 0.0 { fp | 1 << bit } else { fp },
    )
}

impl Detector for SimhashDetector {
    fn name(&self) -> &str {
        "simhash"
    }

    fn sign(&self, doc: &Document) -> Signature {
        match simhash(&doc.terms, self.config.shingle, self.config.weights) {
            Some(fp) => Signature::Fingerprint(fp),
            None => Signature::Empty,
        }
    }

    fn similarity(&self, query: &Signature, earlier: &Signature) -> Similarity {
        match (query, earlier) {
            (Signature::Fingerprint(a), Signature::Fingerprint(b)) => {
                Similarity::symmetric(1.0 - f64::from((a ^ b).count_ones()) / 64.0)
            }
            _ => Similarity::default(),
        }
    }

    /// Hamming distance 0 is a duplicate, `1..=max_distance` a near
    /// duplicate (see the module docs).
    fn classify(&self, q: &Signature, e: &Signature, sim: Similarity) -> Option<Judgement> {
        let (Signature::Fingerprint(a), Signature::Fingerprint(b)) = (q, e) else {
            return None;
        };
        let d = (a ^ b).count_ones();
        (d <= self.config.max_distance).then(|| Judgement {
            level: if d == 0 {
                Level::Duplicate
            } else {
                Level::NearDuplicate
            },
            score: sim.resemblance,
            reason: format!(
                "SimHash Hamming distance {d} <= {}",
                self.config.max_distance
            ),
        })
    }

    fn new_index(&self) -> Box<dyn CandidateIndex> {
        Box::new(SimhashIndex::new(self.config.max_distance))
    }
}
