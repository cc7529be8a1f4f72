//! BSW_n (`../shared/papers/syntactic-similarity-shingling-vs-content-chunking.txt`,
//! section 2): a w-byte window slides over the normalized text (the
//! document's words joined by single spaces); its fingerprint F_k is a
//! Rabin-Karp polynomial hash finished with a 64-bit mixer. Position k ends
//! a chunk when `F_k mod n = 0` (chunks average about n bytes). Instead of
//! hashing the whole chunk, as the Basic Sliding Window algorithm does, the
//! chunk is represented by the numerically smallest window fingerprint
//! inside it, so a small edit inside a chunk usually leaves its feature
//! unchanged.
//!
//! Signature: the set of chunk features ([`Signature::Set`]). Table 1 of the
//! paper: resemblance and containment are both supported. Candidates come
//! from an inverted index feature -> documents ([`SetIndex`](neardup_api::SetIndex)).
//!
//! Compared with the core's `chunks` detector (a hash of each whole chunk of
//! about 32 bytes), BSW_n chunks are coarser by default and tolerate edits
//! inside a chunk; see docs/detectors.md for both on the dev benchmark.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

use neardup_api::{
    CandidateIndex, Detector, Document, Judgement, SetDetector, SetRule, SettingError, Signature,
    Similarity,
};
use serde::{Deserialize, Serialize};

/// Multiplier of the polynomial rolling hash (odd, so it is invertible mod
/// 2^64 and every byte position matters).
const P: u64 = 0x100_0000_01b3;

/// Stable 64-bit finalizer (MurmurHash3 fmix64): the polynomial hash's low
/// bits depend on few input bits, and `mod n` reads the low bits.
fn fmix64(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// The fingerprint of every w-byte window of `bytes`, in order (one
/// fingerprint of everything when `bytes` is shorter than `w`, none when
/// empty). O(len) whatever `w` is.
pub fn window_fingerprints(bytes: &[u8], w: usize) -> Vec<u64> {
    let w = w.max(1);
    if bytes.is_empty() {
        return Vec::new();
    }
    let poly = |s: &[u8]| {
        s.iter().fold(0u64, |h, &b| {
            h.wrapping_mul(P).wrapping_add(u64::from(b) + 1)
        })
    };
    if bytes.len() < w {
        return vec![fmix64(poly(bytes))];
    }
    // P^(w-1): the weight of the byte leaving the window.
    let top = (1..w).fold(1u64, |p, _| p.wrapping_mul(P));
    let mut h = poly(&bytes[..w]);
    let mut out = Vec::with_capacity(bytes.len() - w + 1);
    out.push(fmix64(h));
    for (&old, &new) in bytes.iter().zip(&bytes[w..]) {
        h = h
            .wrapping_sub((u64::from(old) + 1).wrapping_mul(top))
            .wrapping_mul(P)
            .wrapping_add(u64::from(new) + 1);
        out.push(fmix64(h));
    }
    out
}

/// BSW_n features of a byte string: for each chunk (ended where the window
/// fingerprint is 0 mod `n`, or by the end of the text), its smallest window
/// fingerprint's high 32 bits. Sorted, distinct.
pub fn features(bytes: &[u8], w: usize, n: usize) -> Vec<u32> {
    let n = n.max(1) as u64;
    let mut out = Vec::new();
    let mut chunk_min = u64::MAX;
    for f in window_fingerprints(bytes, w) {
        chunk_min = chunk_min.min(f);
        if f % n == 0 {
            out.push((chunk_min >> 32) as u32);
            chunk_min = u64::MAX;
        }
    }
    if chunk_min != u64::MAX {
        out.push((chunk_min >> 32) as u32);
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Settings of `[plugins.bsw]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// Window width w in bytes.
    pub window: usize,
    /// Sampling frequency n: a chunk boundary where the window fingerprint
    /// is 0 mod n (average chunk about n bytes).
    pub n: usize,
    /// A feature held by more documents than this yields no candidates.
    pub max_postings: usize,
    /// The thresholds on chunk sets (keys `duplicate`, `near_duplicate`,
    /// `containment`, `containment_min_features` in this table).
    #[serde(flatten)]
    pub rule: SetRule,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            window: 40,
            n: 32,
            max_postings: 1000,
            rule: SetRule::default(),
        }
    }
}

impl Settings {
    /// Checks every range.
    ///
    /// # Errors
    /// The first bad key, relative to `[plugins.bsw]`.
    pub fn validate(&self) -> Result<(), SettingError> {
        SettingError::range("window", self.window, 1, 1024)?;
        SettingError::range("n", self.n, 1, 1_000_000)?;
        SettingError::range("max_postings", self.max_postings, 1, 100_000_000)?;
        self.rule.validate()
    }

    /// Similarity, decision and index of these settings.
    fn set_detector(&self) -> SetDetector {
        SetDetector {
            what: "bsw chunk",
            rule: self.rule,
            max_postings: self.max_postings,
        }
    }
}

/// The `bsw` detector.
#[derive(Clone, Debug)]
pub struct BswDetector {
    settings: Settings,
    set: SetDetector,
}

impl BswDetector {
    /// A detector with checked settings.
    ///
    /// # Errors
    /// As [`Settings::validate`].
    pub fn new(settings: Settings) -> Result<BswDetector, SettingError> {
        settings.validate()?;
        let set = settings.set_detector();
        Ok(BswDetector { settings, set })
    }
}

impl Detector for BswDetector {
    fn name(&self) -> &str {
        "bsw"
    }

    fn sign(&self, doc: &Document) -> Signature {
        Signature::from_set(features(
            doc.words.joined().as_bytes(),
            self.settings.window,
            self.settings.n,
        ))
    }

    fn similarity(&self, query: &Signature, earlier: &Signature) -> Similarity {
        self.set.similarity(query, earlier)
    }

    fn classify(
        &self,
        query: &Signature,
        earlier: &Signature,
        sim: Similarity,
    ) -> Option<Judgement> {
        self.set.classify(query, earlier, sim)
    }

    fn new_index(&self) -> Box<dyn CandidateIndex> {
        self.set.new_index()
    }

    /// Window and modulus; `max_postings` and the thresholds may change
    /// over one index.
    fn signature_settings(&self) -> Option<Vec<(String, String)>> {
        let s = &self.settings;
        Some(vec![
            ("plugins.bsw.window".into(), s.window.to_string()),
            ("plugins.bsw.n".into(), s.n.to_string()),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup_api::conformance::{check_detector, doc, words};
    use neardup_api::Level;

    #[test]
    fn conformance() {
        let d = BswDetector::new(Settings::default()).unwrap();
        check_detector(&d, 0.1, 0.7);
    }

    #[test]
    fn rolling_hash_equals_hash_of_each_window() {
        let text = b"the quick brown fox jumps over the lazy dog";
        let rolled = window_fingerprints(text, 7);
        assert_eq!(rolled.len(), text.len() - 6);
        for (k, f) in rolled.iter().enumerate() {
            assert_eq!(*f, window_fingerprints(&text[k..k + 7], 7)[0], "window {k}");
        }
        // Equal windows, equal fingerprints; different windows differ.
        let twice = window_fingerprints(b"abcdefgXabcdefg", 7);
        assert_eq!(twice.first(), twice.last());
        assert_ne!(twice[0], twice[1]);
    }

    #[test]
    fn chunks_average_about_n_bytes() {
        let text = words(5, 3000).join(" ");
        for n in [32usize, 100] {
            let chunks = features(text.as_bytes(), 20, n).len();
            let avg = text.len() as f64 / chunks as f64;
            // Geometric chunk lengths: the average is n, give or take the
            // sampling noise of a few hundred chunks and feature collisions.
            assert!(
                (0.8 * n as f64..1.25 * n as f64).contains(&avg),
                "n={n}: {avg}"
            );
        }
    }

    #[test]
    fn a_small_edit_inside_a_chunk_usually_keeps_its_feature() {
        // Insert "a " at 10 places: with chunks of ~100 bytes, whole-chunk
        // hashes would lose about 10 of ~230 chunks plus neighbours; the
        // smallest-window feature survives when the edit misses the
        // minimal window.
        let base = words(8, 4000);
        let mut edited = base.clone();
        for i in 0..10 {
            edited.insert(50 + i * 397, "a".into());
        }
        let d = BswDetector::new(Settings {
            n: 100,
            ..Settings::default()
        })
        .unwrap();
        let (a, b) = (d.sign(&doc(base)), d.sign(&doc(edited)));
        let sim = d.similarity(&a, &b);
        assert!(sim.resemblance > 0.9, "{sim:?}");
        assert!(sim.resemblance < 1.0, "{sim:?}");
    }

    #[test]
    fn containment_of_an_excerpt() {
        let full = words(11, 2000);
        let part = full[..500].to_vec();
        let d = BswDetector::new(Settings::default()).unwrap();
        let (a, b) = (d.sign(&doc(part)), d.sign(&doc(full)));
        let sim = d.similarity(&a, &b);
        assert!(sim.containment > 0.95, "{sim:?}");
        assert!(sim.resemblance < 0.4, "{sim:?}");
        let j = d.classify(&a, &b, sim).unwrap();
        assert_eq!(j.level, Level::NearDuplicate);
    }

    #[test]
    fn bad_settings_name_the_key() {
        let e = BswDetector::new(Settings {
            window: 0,
            ..Settings::default()
        })
        .unwrap_err();
        assert_eq!(e.key, "window");
    }
}
