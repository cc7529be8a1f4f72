//! Charikar's SimHash over word shingles: near-exact copies at a small
//! Hamming distance, and a cheap candidate filter.
//!
//! # Features
//! The `n`-word shingles of the document's `terms` (stop words dropped,
//! stemmed). Each term is hashed once with the seeded xxh3
//! ([`neardup_api::hash64`]); a shingle's hash is the seeded xxh3 of its terms'
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

use neardup_api::SettingError;
use neardup_api::{
    CandidateIndex, Detector, Document, Judgement, Level, Signature, Similarity, Words,
};
use serde::{Deserialize, Serialize};

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
pub fn shingle_hashes(terms: &Words, n: usize) -> Vec<u64> {
    let n = n.clamp(1, MAX_SHINGLE);
    let words: Vec<u64> = terms
        .iter()
        .map(|t| neardup_api::hash64(t.as_bytes()))
        .collect();
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
            neardup_api::hash64(buf.get(..8 * n).unwrap_or(&buf))
        })
        .collect()
}

/// SimHash of the `n`-word shingles of `terms` under `weights`, or `None`
/// when there are no terms.
pub fn simhash(terms: &Words, n: usize, weights: SimhashWeights) -> Option<u64> {
    let mut hashes = shingle_hashes(terms, n);
    if hashes.is_empty() {
        return None;
    }
    // Sorting makes the result independent of any iteration order and groups
    // repeats for the weights.
    crate::hashsort::sort_hashed(&mut hashes);
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
///
/// The ones are counted eight bits at a time: `(h >> k) & 0x0101..01`
/// puts bits `k, k + 8, ..., k + 56` of a hash in the eight byte lanes of
/// a word, so eight adds count all 64 bits. A lane holds at most 255, so
/// the lanes are emptied into the per-bit counts every 255 hashes.
fn binary_fingerprint(hashes: &[u64]) -> u64 {
    const LANES: u64 = 0x0101_0101_0101_0101;
    let mut ones = [0u32; 64];
    for chunk in hashes.chunks(255) {
        let mut lanes = [0u64; 8];
        for &h in chunk {
            for (k, lane) in lanes.iter_mut().enumerate() {
                *lane += (h >> k) & LANES;
            }
        }
        for (k, lane) in lanes.iter().enumerate() {
            for byte in 0..8 {
                if let Some(count) = ones.get_mut(8 * byte + k) {
                    *count += ((lane >> (8 * byte)) & 0xFF) as u32;
                }
            }
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
            )
            .into(),
        })
    }

    fn new_index(&self) -> Box<dyn CandidateIndex> {
        Box::new(SimhashIndex::new(self.config.max_distance))
    }

    /// Shingle size and weights; `max_distance` is a threshold (and the
    /// index's block count), so it may change over one index.
    fn signature_settings(&self) -> Option<Vec<(String, String)>> {
        Some(super::settings::settings_of(
            "simhash",
            &self.config,
            &["shingle", "weights"],
        ))
    }

    fn describe(&self) -> Vec<String> {
        let c = &self.config;
        let k = c.max_distance;
        vec![
            format!(
                "64-bit SimHash of {}-term shingles ({:?} weights): Hamming distance 0 is a duplicate, 1..={k} a near duplicate (similarity >= {:.3})",
                c.shingle,
                c.weights,
                1.0 - f64::from(k) / 64.0
            ),
            format!(
                "index: {} blocked tables (Manku et al. 2007), every fingerprint within distance {k} is found, no linear scan",
                k + 1
            ),
        ]
    }
}

/// How SimHash features are weighted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SimhashWeights {
    /// Each distinct shingle counts once.
    Binary,
    /// A shingle seen `n` times counts `1 + ln n`.
    Log,
}

/// SimHash detector settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SimhashConfig {
    /// Run the SimHash detector; `false` is the older way of leaving
    /// `simhash` out of `decide.detectors`
    /// ([`Config::detector_chain`](crate::Config::detector_chain)).
    pub enabled: bool,
    /// Words per shingle.
    pub shingle: usize,
    /// Feature weights.
    pub weights: SimhashWeights,
    /// Largest Hamming distance (of 64 bits) that counts as a match; the
    /// index splits fingerprints into `max_distance + 1` blocks.
    pub max_distance: u32,
}

impl Default for SimhashConfig {
    fn default() -> Self {
        SimhashConfig {
            enabled: true,
            shingle: 3,
            weights: SimhashWeights::Binary,
            max_distance: 3,
        }
    }
}

impl SimhashConfig {
    /// Checks every range of `[simhash]`.
    ///
    /// # Errors
    /// The first bad key, its value and what is allowed.
    pub fn validate(&self) -> Result<(), SettingError> {
        SettingError::range("simhash.shingle", self.shingle, 1, 8)?;
        SettingError::range("simhash.max_distance", self.max_distance as usize, 0, 7)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup_api::conformance::{check_detector, doc, edit, words};

    fn detector(weights: SimhashWeights) -> SimhashDetector {
        SimhashDetector::new(&SimhashConfig {
            weights,
            ..SimhashConfig::default()
        })
    }

    fn distance(a: &Signature, b: &Signature) -> u32 {
        match (a, b) {
            (Signature::Fingerprint(x), Signature::Fingerprint(y)) => (x ^ y).count_ones(),
            _ => 64,
        }
    }

    #[test]
    fn conformance() {
        // The suite's near copy has 1% of its words replaced: beyond the
        // default k = 3 (a near-exact test), within the largest k = 7.
        // Unrelated: Hamming > 20, i.e. resemblance < 1 - 20/64.
        for weights in [SimhashWeights::Binary, SimhashWeights::Log] {
            let d = SimhashDetector::new(&SimhashConfig {
                weights,
                max_distance: 7,
                ..SimhashConfig::default()
            });
            check_detector(&d, 1.0 - 20.0 / 64.0, 1.0 - 7.0 / 64.0);
        }
    }

    #[test]
    fn near_identical_close_unrelated_far() {
        let d = detector(SimhashWeights::Binary);
        let mut near = Vec::new();
        for seed in 0..20 {
            let base = words(100 + seed, 500);
            let sa = d.sign(&doc(base.clone()));
            // One word replaced: 3 of ~500 shingles change.
            let sb = d.sign(&doc(edit(&base, 1, seed)));
            near.push(distance(&sa, &sb));
            let other = d.sign(&doc(words(900 + seed, 500)));
            let far = distance(&sa, &other);
            assert!(far > 20, "unrelated pages at distance {far}");
        }
        let mean = near.iter().sum::<u32>() as f64 / near.len() as f64;
        assert!(mean <= 6.0, "one-word edits: distances {near:?}");
        assert!(near.iter().all(|&x| x <= 12), "{near:?}");
    }

    #[test]
    fn binary_weights_ignore_repeats_log_weights_do_not() {
        let base = words(5, 300);
        let mut repeated = base.clone();
        // Repeat one 3-term run (one shingle) many times.
        let run = base[..3].to_vec();
        for _ in 0..200 {
            repeated.extend(run.iter().cloned());
        }
        let b = detector(SimhashWeights::Binary);
        let l = detector(SimhashWeights::Log);
        let (b1, b2) = (b.sign(&doc(base.clone())), b.sign(&doc(repeated.clone())));
        let (l1, l2) = (l.sign(&doc(base)), l.sign(&doc(repeated)));
        // Binary: the repeats add only the few new shingles at the joins.
        assert!(distance(&b1, &b2) <= 8, "{}", distance(&b1, &b2));
        // Log: the repeated shingle weighs 1 + ln(200) ~ 6.3 and pulls bits.
        assert!(distance(&l1, &l2) > distance(&b1, &b2));
    }

    #[test]
    fn shingles_do_not_depend_on_word_boundaries_inside_strings() {
        // "a b" + "c" and "a" + "b c" are different shingles: the hash is
        // over the terms' own hashes, not a joined string.
        let x = shingle_hashes(&Words::from_iter(["a b", "c"]), 2);
        let y = shingle_hashes(&Words::from_iter(["a", "b c"]), 2);
        assert_ne!(x, y);
    }

    #[test]
    fn short_pages_shingle_what_there_is() {
        let d = detector(SimhashWeights::Binary);
        let one = d.sign(&doc(vec!["alpha".into()]));
        let two = d.sign(&doc(vec!["alpha".into(), "beta".into()]));
        assert!(matches!(one, Signature::Fingerprint(_)));
        assert!(matches!(two, Signature::Fingerprint(_)));
        assert_ne!(one, two);
        assert_eq!(
            shingle_hashes(&Words::from_iter(["alpha", "beta"]), 3).len(),
            1
        );
        assert_eq!(d.sign(&doc(Vec::new())), Signature::Empty);
    }

    proptest::proptest! {
        /// Counting eight bits at a time gives each bit's majority as
        /// counting bit by bit does: on up to 700 hashes (past the 255 a
        /// byte lane holds), dense in ones, sparse or random.
        #[test]
        fn lane_counts_are_bit_counts(
            hashes in proptest::collection::vec(proptest::num::u64::ANY, 0..700),
            mask in proptest::sample::select(vec![u64::MAX, 0xFFFF_0000_FFFF_0000, 1 << 63 | 1]),
            or in proptest::sample::select(vec![0, u64::MAX, 0x8000_0000_0000_0001]),
        ) {
            let hashes: Vec<u64> = hashes.iter().map(|h| h & mask | or).collect();
            let mut expected = 0u64;
            for bit in 0..64 {
                let ones = hashes.iter().filter(|&&h| (h >> bit) & 1 == 1).count();
                if 2 * ones > hashes.len() {
                    expected |= 1 << bit;
                }
            }
            proptest::prop_assert_eq!(binary_fingerprint(&hashes), expected);
        }
    }

    #[test]
    fn order_of_features_does_not_matter() {
        // The fingerprint is a function of the shingle multiset: the same
        // shingles in another order (here, the hashes reversed) give the
        // same fingerprint.
        let terms = Words::from(words(11, 200));
        let mut hashes = shingle_hashes(&terms, 3);
        hashes.sort_unstable();
        hashes.dedup();
        let forward = binary_fingerprint(&hashes);
        hashes.reverse();
        assert_eq!(binary_fingerprint(&hashes), forward);
        assert_eq!(simhash(&terms, 3, SimhashWeights::Binary), Some(forward));
    }

    #[test]
    fn classify_reasons_name_the_distance() {
        let d = detector(SimhashWeights::Binary);
        let a = Signature::Fingerprint(0);
        let b = Signature::Fingerprint(0b101);
        let j = d.classify(&a, &b, d.similarity(&a, &b)).unwrap();
        assert_eq!(j.level, Level::NearDuplicate);
        assert_eq!(j.reason.to_string(), "SimHash Hamming distance 2 <= 3");
        let c = Signature::Fingerprint(0b1111);
        assert!(d.classify(&a, &c, d.similarity(&a, &c)).is_none());
    }
}
