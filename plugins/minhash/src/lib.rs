//! Broder's shingle samplers as neardup detectors (see
//! `../shared/papers/syntactic-similarity-shingling-vs-content-chunking.txt`,
//! section 2 and Table 1):
//!
//! | detector | signature | resemblance | containment | candidates |
//! |---|---|---|---|---|
//! | `minhash` ([`MinhashDetector`], Sketch_n) | `Sketch`: n minima | share of agreeing positions | no (= resemblance) | LSH banding ([`LshIndex`]) |
//! | `min_n` ([`MinNDetector`]) | `Set`: the n smallest fingerprints | among the n smallest of the union, the share in both | no (= resemblance) | inverted index |
//! | `mod_n` ([`ModNDetector`]) | `Set`: fingerprints = 0 mod n | Jaccard of the samples | yes | inverted index |
//!
//! Shingles are w-word shingles of the document's terms, or w-byte windows
//! of its normalized text ([`Unit`]).
//!
//! # Sketch_n: one-permutation hashing vs independent seeds
//!
//! The default [`Scheme::Oph`] hashes each shingle once (one-permutation
//! hashing with Shrivastava's optimal densification) instead of n times.
//! The test `sketch::tests::oph_estimates_jaccard_as_well_as_independent_seeds`
//! measures the mean absolute error of the Jaccard estimate against the
//! exact Jaccard over 200 random set pairs (50..1000 elements, Jaccard
//! 0.1..0.95), `cargo test -p neardup-minhash oph -- --nocapture`:
//!
//! | n | OPH + densification | n seeded xxh3 |
//! |---|---|---|
//! | 64 | 0.0398 | 0.0449 |
//! | 128 | 0.0266 | 0.0306 |
//! | 256 | 0.0176 | 0.0194 |
//!
//! OPH is as accurate (slightly better: sampling without replacement across
//! bins) at 1/n of the hashing cost, so it is the default.
//!
//! # LSH banding
//!
//! The sketch is cut into `bands` bands of `rows` values; two documents
//! become candidates if any band is equal. A pair of resemblance s does so
//! with probability [`s_curve`] `1 - (1 - s^r)^b`, about 1/2 at
//! [`lsh_threshold`] `(1/b)^(1/r)`. Defaults b = 32, r = 4 (of 128):
//! threshold 0.42, and s = 0.3 / 0.5 / 0.7 / 0.9 are found with probability
//! 0.23 / 0.87 / 1.00 / 1.00.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod shingle;
pub mod sketch;

pub use shingle::Unit;
pub use sketch::{lsh_threshold, s_curve, Scheme};

use neardup_api::{
    check_thresholds, CandidateIndex, Detector, DocId, Document, Judgement, Level, SetDetector,
    SetIndex, SetRule, SettingError, Signature, Similarity,
};
use serde::{Deserialize, Serialize};

fn check_shingle(unit: Unit, w: usize) -> Result<(), SettingError> {
    match unit {
        Unit::Word => SettingError::range("shingle", w, 1, 32),
        Unit::Byte => SettingError::range("shingle", w, 1, 1024),
    }
}

/// Two-threshold decision on one score.
fn level_of(score: f64, duplicate: f64, near: f64) -> Option<Level> {
    if score >= duplicate {
        Some(Level::Duplicate)
    } else if score >= near {
        Some(Level::NearDuplicate)
    } else {
        None
    }
}

/// Settings of `[plugins.minhash]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MinhashSettings {
    /// Shingle unit.
    pub unit: Unit,
    /// Shingle width w (words or bytes).
    pub shingle: usize,
    /// Values per sketch (n of Sketch_n, datasketch's `num_perm`).
    pub num_perm: usize,
    /// How the minima are computed.
    pub scheme: Scheme,
    /// LSH bands b.
    pub bands: usize,
    /// LSH rows per band r (`bands * rows <= num_perm`).
    pub rows: usize,
    /// A band key held by more documents than this yields no candidates.
    pub max_postings: usize,
    /// Estimated resemblance at or above which a page is a duplicate.
    pub duplicate: f64,
    /// Estimated resemblance at or above which a page is a near duplicate.
    pub near_duplicate: f64,
}

impl Default for MinhashSettings {
    fn default() -> Self {
        MinhashSettings {
            unit: Unit::Word,
            shingle: 5,
            num_perm: 128,
            scheme: Scheme::Oph,
            bands: 32,
            rows: 4,
            max_postings: 1000,
            duplicate: 0.8,
            near_duplicate: 0.4,
        }
    }
}

impl MinhashSettings {
    /// Checks every range.
    ///
    /// # Errors
    /// The first bad key, relative to the `[plugins.minhash]` table.
    pub fn validate(&self) -> Result<(), SettingError> {
        check_shingle(self.unit, self.shingle)?;
        SettingError::range("num_perm", self.num_perm, 1, 4096)?;
        SettingError::range("bands", self.bands, 1, 4096)?;
        SettingError::range("rows", self.rows, 1, 4096)?;
        if self.bands * self.rows > self.num_perm {
            return Err(SettingError {
                key: "bands".into(),
                value: self.bands.to_string(),
                allowed: format!(
                    "bands * rows ({} * {}) must be <= num_perm ({})",
                    self.bands, self.rows, self.num_perm
                ),
            });
        }
        SettingError::range("max_postings", self.max_postings, 1, 100_000_000)?;
        check_thresholds(self.duplicate, self.near_duplicate)
    }
}

/// Sketch_n: MinHash over shingles, LSH banding for candidates.
#[derive(Clone, Debug)]
pub struct MinhashDetector {
    settings: MinhashSettings,
}

impl MinhashDetector {
    /// A detector with checked settings.
    ///
    /// # Errors
    /// As [`MinhashSettings::validate`].
    pub fn new(settings: MinhashSettings) -> Result<MinhashDetector, SettingError> {
        settings.validate()?;
        Ok(MinhashDetector { settings })
    }

    /// The settings in force.
    pub fn settings(&self) -> &MinhashSettings {
        &self.settings
    }
}

impl Detector for MinhashDetector {
    fn name(&self) -> &str {
        "minhash"
    }

    fn sign(&self, doc: &Document) -> Signature {
        let s = &self.settings;
        let fps = shingle::fingerprints(doc, s.unit, s.shingle);
        let sk = sketch::sketch(&fps, s.num_perm, s.scheme);
        if sk.is_empty() {
            Signature::Empty
        } else {
            Signature::Sketch(sk)
        }
    }

    fn similarity(&self, query: &Signature, earlier: &Signature) -> Similarity {
        match (query, earlier) {
            (Signature::Sketch(a), Signature::Sketch(b)) => {
                Similarity::symmetric(sketch::agreement(a, b))
            }
            _ => Similarity::default(),
        }
    }

    fn classify(&self, _: &Signature, _: &Signature, sim: Similarity) -> Option<Judgement> {
        let s = &self.settings;
        let r = sim.resemblance;
        let level = level_of(r, s.duplicate, s.near_duplicate)?;
        let bound = if level == Level::Duplicate {
            s.duplicate
        } else {
            s.near_duplicate
        };
        Some(Judgement {
            level,
            score: r,
            reason: format!("minhash resemblance {r:.2} >= {bound:.2}").into(),
        })
    }

    fn new_index(&self) -> Box<dyn CandidateIndex> {
        let s = &self.settings;
        Box::new(LshIndex::new(s.bands, s.rows, s.max_postings))
    }

    /// What the sketch is made of; the LSH bands, `max_postings` and the
    /// thresholds may change over one index.
    fn signature_settings(&self) -> Option<Vec<(String, String)>> {
        let s = &self.settings;
        Some(vec![
            ("plugins.minhash.unit".into(), format!("{:?}", s.unit)),
            ("plugins.minhash.shingle".into(), s.shingle.to_string()),
            ("plugins.minhash.num_perm".into(), s.num_perm.to_string()),
            ("plugins.minhash.scheme".into(), format!("{:?}", s.scheme)),
        ])
    }

    fn describe(&self) -> Vec<String> {
        let s = &self.settings;
        let mut lines = vec![format!(
            "Sketch_n: {} minima ({:?}) of {}-{} shingles; duplicate >= {}, near duplicate >= {}",
            s.num_perm,
            s.scheme,
            s.shingle,
            match s.unit {
                Unit::Word => "word",
                Unit::Byte => "byte",
            },
            s.duplicate,
            s.near_duplicate
        )];
        lines.extend(sketch::describe_banding(s.bands, s.rows));
        let at_near = s_curve(s.near_duplicate, s.bands, s.rows);
        lines.push(format!(
            "a pair at the near-duplicate threshold {} becomes a candidate with probability {at_near:.4}",
            s.near_duplicate
        ));
        lines
    }
}

/// LSH banding index over MinHash sketches: band key -> documents, in a
/// [`SetIndex`] (a document id costs 4 bytes per band; a key held by one
/// document needs no allocation). Candidates sharing more bands come first.
#[derive(Clone, Debug)]
pub struct LshIndex {
    bands: usize,
    rows: usize,
    keys: SetIndex,
}

impl LshIndex {
    /// An empty index of `bands` bands of `rows` rows.
    pub fn new(bands: usize, rows: usize, max_postings: usize) -> LshIndex {
        LshIndex {
            bands,
            rows,
            keys: SetIndex::new(max_postings, 1),
        }
    }

    /// The similarity at which a pair becomes a candidate with probability
    /// about 1/2.
    pub fn threshold(&self) -> f64 {
        lsh_threshold(self.bands, self.rows)
    }

    fn keys_of(&self, sig: &Signature) -> Vec<u32> {
        match sig {
            Signature::Sketch(s) => sketch::band_keys(s, self.bands, self.rows),
            _ => Vec::new(),
        }
    }
}

impl CandidateIndex for LshIndex {
    fn candidates(&self, sig: &Signature, out: &mut Vec<DocId>) {
        self.keys.candidates_of(&self.keys_of(sig), out);
    }

    fn insert(&mut self, id: DocId, sig: &Signature) {
        let keys = self.keys_of(sig);
        self.keys.insert_keys(id, &keys);
    }

    fn remove(&mut self, id: DocId, sig: &Signature) {
        let keys = self.keys_of(sig);
        self.keys.remove_keys(id, &keys);
    }

    fn len(&self) -> usize {
        self.keys.len()
    }

    fn heap_bytes(&self) -> usize {
        self.keys.heap_bytes()
    }
}

/// Settings of `[plugins.min_n]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MinNSettings {
    /// Shingle unit.
    pub unit: Unit,
    /// Shingle width w.
    pub shingle: usize,
    /// Fingerprints kept: the n numerically smallest.
    pub n: usize,
    /// A fingerprint held by more documents than this yields no candidates.
    pub max_postings: usize,
    /// Estimated resemblance for a duplicate.
    pub duplicate: f64,
    /// Estimated resemblance for a near duplicate.
    pub near_duplicate: f64,
}

impl Default for MinNSettings {
    fn default() -> Self {
        MinNSettings {
            unit: Unit::Word,
            shingle: 5,
            n: 128,
            max_postings: 1000,
            duplicate: 0.8,
            near_duplicate: 0.5,
        }
    }
}

impl MinNSettings {
    /// Checks every range.
    ///
    /// # Errors
    /// The first bad key, relative to `[plugins.min_n]`.
    pub fn validate(&self) -> Result<(), SettingError> {
        check_shingle(self.unit, self.shingle)?;
        SettingError::range("n", self.n, 1, 65_536)?;
        SettingError::range("max_postings", self.max_postings, 1, 100_000_000)?;
        check_thresholds(self.duplicate, self.near_duplicate)
    }
}

/// Min_n: the n numerically smallest shingle fingerprints.
#[derive(Clone, Debug)]
pub struct MinNDetector {
    settings: MinNSettings,
}

impl MinNDetector {
    /// A detector with checked settings.
    ///
    /// # Errors
    /// As [`MinNSettings::validate`].
    pub fn new(settings: MinNSettings) -> Result<MinNDetector, SettingError> {
        settings.validate()?;
        Ok(MinNDetector { settings })
    }
}

/// 32-bit fingerprints (high half of each 64-bit hash), sorted, distinct.
fn fingerprints32(fps: &[u64]) -> Vec<u32> {
    let mut v: Vec<u32> = fps.iter().map(|h| (h >> 32) as u32).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Broder's Min_n estimate: among the `n` smallest of `a ∪ b` (both sorted
/// samples of their documents' `n` smallest), the share present in both.
/// When both documents have fewer than `n` fingerprints this is their exact
/// Jaccard.
pub fn min_n_resemblance(a: &[u32], b: &[u32], n: usize) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let (mut i, mut j, mut taken, mut both) = (0, 0, 0usize, 0usize);
    while taken < n {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x == y => {
                both += 1;
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x < y => i += 1,
            (Some(_), Some(_)) => j += 1,
            (Some(_), None) => i += 1,
            (None, Some(_)) => j += 1,
            (None, None) => break,
        }
        taken += 1;
    }
    if taken == 0 {
        0.0
    } else {
        both as f64 / taken as f64
    }
}

impl Detector for MinNDetector {
    fn name(&self) -> &str {
        "min_n"
    }

    fn sign(&self, doc: &Document) -> Signature {
        let s = &self.settings;
        let mut fps = fingerprints32(&shingle::fingerprints(doc, s.unit, s.shingle));
        fps.truncate(s.n);
        Signature::from_set(fps)
    }

    fn similarity(&self, query: &Signature, earlier: &Signature) -> Similarity {
        match (query, earlier) {
            // Table 1: Min_n cannot estimate containment.
            (Signature::Set(a), Signature::Set(b)) => {
                Similarity::symmetric(min_n_resemblance(a, b, self.settings.n))
            }
            _ => Similarity::default(),
        }
    }

    fn classify(&self, _: &Signature, _: &Signature, sim: Similarity) -> Option<Judgement> {
        let s = &self.settings;
        let r = sim.resemblance;
        let level = level_of(r, s.duplicate, s.near_duplicate)?;
        Some(Judgement {
            level,
            score: r,
            reason: format!("min_n resemblance {r:.2} (n = {})", s.n).into(),
        })
    }

    fn new_index(&self) -> Box<dyn CandidateIndex> {
        Box::new(SetIndex::new(self.settings.max_postings, 1))
    }

    /// Shingles and `n`; `max_postings` and the thresholds may change over
    /// one index.
    fn signature_settings(&self) -> Option<Vec<(String, String)>> {
        let s = &self.settings;
        Some(vec![
            ("plugins.min_n.unit".into(), format!("{:?}", s.unit)),
            ("plugins.min_n.shingle".into(), s.shingle.to_string()),
            ("plugins.min_n.n".into(), s.n.to_string()),
        ])
    }
}

/// Settings of `[plugins.mod_n]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ModNSettings {
    /// Shingle unit.
    pub unit: Unit,
    /// Shingle width w.
    pub shingle: usize,
    /// Keep fingerprints that are 0 mod n (about 1 shingle in n).
    pub n: usize,
    /// A fingerprint held by more documents than this yields no candidates.
    pub max_postings: usize,
    /// The thresholds on the samples (keys `duplicate`, `near_duplicate`,
    /// `containment`, `containment_min_features` in this table; features
    /// are sampled fingerprints).
    #[serde(flatten)]
    pub rule: SetRule,
}

impl Default for ModNSettings {
    fn default() -> Self {
        ModNSettings {
            unit: Unit::Word,
            shingle: 5,
            n: 8,
            max_postings: 1000,
            rule: SetRule::default(),
        }
    }
}

impl ModNSettings {
    /// Checks every range.
    ///
    /// # Errors
    /// The first bad key, relative to `[plugins.mod_n]`.
    pub fn validate(&self) -> Result<(), SettingError> {
        check_shingle(self.unit, self.shingle)?;
        SettingError::range("n", self.n, 1, 1_000_000)?;
        SettingError::range("max_postings", self.max_postings, 1, 100_000_000)?;
        self.rule.validate()
    }

    /// Similarity, decision and index of these settings.
    fn set_detector(&self) -> SetDetector {
        SetDetector {
            what: "mod_n shingle",
            rule: self.rule,
            max_postings: self.max_postings,
        }
    }
}

/// Mod_n: every shingle fingerprint that is 0 mod n.
#[derive(Clone, Debug)]
pub struct ModNDetector {
    settings: ModNSettings,
    set: SetDetector,
}

impl ModNDetector {
    /// A detector with checked settings.
    ///
    /// # Errors
    /// As [`ModNSettings::validate`].
    pub fn new(settings: ModNSettings) -> Result<ModNDetector, SettingError> {
        settings.validate()?;
        let set = settings.set_detector();
        Ok(ModNDetector { settings, set })
    }
}

impl Detector for ModNDetector {
    fn name(&self) -> &str {
        "mod_n"
    }

    fn sign(&self, doc: &Document) -> Signature {
        let s = &self.settings;
        let n = s.n as u64;
        // Select on the low bits, store the high half: the stored value is
        // independent of the selection.
        let fps: Vec<u64> = shingle::fingerprints(doc, s.unit, s.shingle)
            .into_iter()
            .filter(|h| h % n == 0)
            .collect();
        Signature::from_set(fingerprints32(&fps))
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

    /// Shingles and `n`; `max_postings` and the thresholds may change over
    /// one index.
    fn signature_settings(&self) -> Option<Vec<(String, String)>> {
        let s = &self.settings;
        Some(vec![
            ("plugins.mod_n.unit".into(), format!("{:?}", s.unit)),
            ("plugins.mod_n.shingle".into(), s.shingle.to_string()),
            ("plugins.mod_n.n".into(), s.n.to_string()),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup_api::conformance::{check_detector, doc, edit, words};

    #[test]
    fn conformance_minhash() {
        for unit in [Unit::Word, Unit::Byte] {
            let shingle = if unit == Unit::Word { 5 } else { 20 };
            let d = MinhashDetector::new(MinhashSettings {
                unit,
                shingle,
                ..MinhashSettings::default()
            })
            .unwrap();
            check_detector(&d, 0.1, 0.8);
        }
    }

    #[test]
    fn conformance_min_n() {
        let d = MinNDetector::new(MinNSettings::default()).unwrap();
        check_detector(&d, 0.1, 0.8);
    }

    #[test]
    fn conformance_mod_n() {
        let d = ModNDetector::new(ModNSettings::default()).unwrap();
        check_detector(&d, 0.1, 0.8);
    }

    #[test]
    fn min_n_is_exact_jaccard_below_n_and_samples_above() {
        // Both below n: exact Jaccard 2/4.
        assert_eq!(min_n_resemblance(&[1, 2, 3], &[2, 3, 4], 10), 0.5);
        // n = 2: the two smallest of the union are 1 and 2; only 2 is in
        // both.
        assert_eq!(min_n_resemblance(&[1, 2, 3], &[2, 3, 4], 2), 0.5);
        // n = 3: 1, 2, 3 -> 2 and 3 in both.
        assert!((min_n_resemblance(&[1, 2, 3], &[2, 3, 4], 3) - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(min_n_resemblance(&[], &[1], 3), 0.0);
    }

    #[test]
    fn mod_n_finds_containment_of_an_excerpt_min_n_cannot() {
        let full = words(11, 2000);
        let part = full[..500].to_vec();
        let m = ModNDetector::new(ModNSettings::default()).unwrap();
        let (a, b) = (m.sign(&doc(part.clone())), m.sign(&doc(full.clone())));
        let sim = m.similarity(&a, &b);
        assert!(sim.containment > 0.95, "{sim:?}");
        assert!(sim.resemblance < 0.4, "{sim:?}");
        let j = m.classify(&a, &b, sim).unwrap();
        assert_eq!(j.level, Level::NearDuplicate);
        assert!(j.reason.to_string().contains("containment"), "{}", j.reason);

        // Min_n: containment is not estimated (Table 1).
        let m = MinNDetector::new(MinNSettings::default()).unwrap();
        let sim = m.similarity(&m.sign(&doc(part)), &m.sign(&doc(full)));
        assert_eq!(sim.containment, sim.resemblance);
    }

    #[test]
    fn estimates_track_exact_shingle_jaccard_on_texts() {
        // Word 3-shingles of a 1000-word text with k edits: compare each
        // detector's estimate with the exact Jaccard of the shingle sets.
        let a = doc(words(21, 1000));
        let fa = shingle::fingerprints(&a, Unit::Word, 3);
        let mh = MinhashDetector::new(MinhashSettings {
            shingle: 3,
            num_perm: 256,
            bands: 64,
            ..MinhashSettings::default()
        })
        .unwrap();
        let mn = MinNDetector::new(MinNSettings {
            shingle: 3,
            n: 256,
            ..MinNSettings::default()
        })
        .unwrap();
        for k in [10, 50, 150] {
            let b = doc(edit(&a.terms, k, 5));
            let fb = shingle::fingerprints(&b, Unit::Word, 3);
            let exact = exact_jaccard(&fa, &fb);
            for d in [&mh as &dyn Detector, &mn] {
                let est = d.similarity(&d.sign(&b), &d.sign(&a)).resemblance;
                // 4 standard errors of a 256-sample estimate: 0.125.
                assert!(
                    (est - exact).abs() < 0.125,
                    "{} k={k}: {est} vs {exact}",
                    d.name()
                );
            }
        }
    }

    fn exact_jaccard(a: &[u64], b: &[u64]) -> f64 {
        let shared = a.iter().filter(|x| b.binary_search(x).is_ok()).count();
        shared as f64 / (a.len() + b.len() - shared) as f64
    }

    #[test]
    fn bad_settings_name_the_key() {
        let e = MinhashDetector::new(MinhashSettings {
            num_perm: 0,
            ..MinhashSettings::default()
        })
        .unwrap_err();
        assert_eq!(e.key, "num_perm");
        let e = MinhashDetector::new(MinhashSettings {
            bands: 64,
            rows: 4,
            ..MinhashSettings::default()
        })
        .unwrap_err();
        assert_eq!(e.key, "bands");
        assert!(e.allowed.contains("num_perm"), "{e}");
        let e = ModNDetector::new(ModNSettings {
            rule: SetRule {
                near_duplicate: 0.9,
                ..SetRule::default()
            },
            ..ModNSettings::default()
        })
        .unwrap_err();
        assert_eq!(e.key, "near_duplicate");
    }
}
