//! Multi-reference cosine (Mohammadi and Khasteh, "A fast text similarity
//! measure for large document collections using multireference cosine and
//! genetic algorithm", 2020).
//!
//! A *reference text* is a sequence of character 3-grams split into `P`
//! contiguous parts. A document's signature is the vector of `P` cosines
//! between the document's 3-gram term-frequency vector and each part's
//! (section 3.4), so every component lies in `0..=1`. Two documents are
//! compared by the cosine between their signature vectors (section 3.5)
//! and classified with two thresholds: duplicate at `s >= t1`, near
//! duplicate at `t2 <= s < t1`.
//!
//! The reference is trained by the genetic algorithm of section 3.6
//! ([`mod@train`]); the trained reference shipped with neardup is embedded
//! ([`Reference::shipped`]).
//!
//! 3-grams are taken over the document's normalized words joined by single
//! spaces (lowercased, NFKC), so markup and case do not count.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

use neardup_api::{
    CandidateIndex, Detector, Document, Judgement, Level, SettingError, Signature, Similarity,
};
use serde::Deserialize;

mod index;
mod signer;
pub mod train;

pub use index::HyperplaneIndex;
pub use signer::{gram_hash, grams, signature_cosine, Reference, Signer, TfVector};
pub use train::{train, TrainOptions, TrainReport};

/// `[plugins.multiref]` settings.
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// A reference file written by `neardup train-reference`; empty means
    /// the shipped reference.
    pub reference: String,
    /// Duplicate at signature cosine `>= t1`.
    pub t1: f64,
    /// Near duplicate at `t2 <= s < t1`.
    pub t2: f64,
    /// LSH bands of the candidate index.
    pub bands: usize,
    /// Hyperplane bits per band.
    pub rows: usize,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            reference: String::new(),
            t1: 0.99,
            t2: 0.98,
            bands: 16,
            rows: 12,
        }
    }
}

/// The multi-reference cosine detector.
#[derive(Debug)]
pub struct MultirefDetector {
    signer: Signer,
    parts: usize,
    settings: Settings,
}

impl MultirefDetector {
    /// Builds the detector, loading the reference file if one is named.
    ///
    /// # Errors
    /// A [`SettingError`] for an unreadable reference or bad thresholds.
    pub fn new(settings: Settings) -> Result<MultirefDetector, SettingError> {
        let reference = if settings.reference.is_empty() {
            Reference::shipped()
        } else {
            std::fs::read_to_string(&settings.reference)
                .map_err(|e| e.to_string())
                .and_then(|t| Reference::parse(&t))
        }
        .map_err(|e| SettingError {
            key: "reference".into(),
            value: settings.reference.clone(),
            allowed: format!("a reference file written by `neardup train-reference` ({e})"),
        })?;
        Self::with_reference(&reference, settings)
    }

    /// Builds the detector over an explicit reference (the `reference`
    /// setting is ignored).
    ///
    /// # Errors
    /// A [`SettingError`] for bad thresholds or index shape.
    pub fn with_reference(
        reference: &Reference,
        settings: Settings,
    ) -> Result<MultirefDetector, SettingError> {
        SettingError::unit("t1", settings.t1, 1.0)?;
        SettingError::unit("t2", settings.t2, settings.t1)?;
        SettingError::range("bands", settings.bands, 1, 256)?;
        SettingError::range("rows", settings.rows, 1, 64)?;
        Ok(MultirefDetector {
            signer: Signer::new(reference),
            parts: reference.parts(),
            settings,
        })
    }
}

impl Detector for MultirefDetector {
    fn name(&self) -> &str {
        "multiref"
    }

    fn sign(&self, doc: &Document) -> Signature {
        let tf = TfVector::of_words(&doc.words);
        if tf.entries.is_empty() {
            return Signature::Empty;
        }
        Signature::Vector(self.signer.signature(&tf))
    }

    fn similarity(&self, query: &Signature, earlier: &Signature) -> Similarity {
        match (query, earlier) {
            (Signature::Vector(a), Signature::Vector(b)) => {
                Similarity::symmetric(signature_cosine(a, b))
            }
            _ => Similarity::default(),
        }
    }

    fn classify(&self, _q: &Signature, _e: &Signature, sim: Similarity) -> Option<Judgement> {
        let s = sim.resemblance;
        let (level, rule) = if s >= self.settings.t1 {
            (Level::Duplicate, format!(">= t1 {:.2}", self.settings.t1))
        } else if s >= self.settings.t2 {
            (
                Level::NearDuplicate,
                format!(">= t2 {:.2}", self.settings.t2),
            )
        } else {
            return None;
        };
        Some(Judgement {
            level,
            score: s,
            reason: format!("multi-reference cosine {s:.3} {rule}").into(),
        })
    }

    fn new_index(&self) -> Box<dyn CandidateIndex> {
        Box::new(HyperplaneIndex::new(
            self.parts,
            self.settings.bands,
            self.settings.rows,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup_api::conformance::{check_detector, doc, words};

    fn w(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn grams_span_word_boundaries() {
        assert_eq!(grams(w("ab cd")), vec!["ab ", "b c", " cd"]);
        assert!(grams(w("ab")).is_empty());
    }

    #[test]
    fn tf_cosine_matches_hand_computation() {
        // "aaaa" -> {aaa:2}; "aaab" -> {aaa:1, aab:1}: cos = 2/(2*sqrt2).
        let a = TfVector::of_words(w("aaaa"));
        let b = TfVector::of_words(w("aaab"));
        assert!((a.cosine(&b) - 1.0 / 2f64.sqrt()).abs() < 1e-6);
        assert_eq!(a.cosine(&TfVector::default()), 0.0);
    }

    #[test]
    fn signature_is_cosine_with_each_part() {
        let grams: Vec<String> = ["aaa", "xyz", "aab", "zzz"].map(String::from).to_vec();
        let r = Reference::new(grams, 2).unwrap();
        let s = Signer::new(&r).signature(&TfVector::of_words(w("aaab")));
        // Part 0 {aaa, xyz}: dot 1, norms sqrt2*sqrt2 -> 0.5.
        // Part 1 {aab, zzz}: dot 1 -> 0.5.
        assert!((s[0] - 0.5).abs() < 1e-6, "{s:?}");
        assert!((s[1] - 0.5).abs() < 1e-6, "{s:?}");
        let none = Signer::new(&r).signature(&TfVector::of_words(w("qqqq")));
        assert_eq!(none, vec![0.0, 0.0]);
    }

    #[test]
    fn parts_cover_the_reference_exactly_once() {
        let grams: Vec<String> = (0..10).map(|i| format!("g{i:02}")).collect();
        let r = Reference::new(grams.clone(), 3).unwrap();
        let joined: Vec<String> = (0..3).flat_map(|i| r.part(i).to_vec()).collect();
        assert_eq!(joined, grams);
        assert!(Reference::new(grams.clone(), 11).is_err());
        assert!(Reference::new(vec!["ab".into()], 1).is_err());
    }

    #[test]
    fn text_format_round_trips_grams_with_spaces() {
        let grams: Vec<String> = ["a b", " th", "he "].map(String::from).to_vec();
        let r = Reference::new(grams, 2).unwrap();
        let text = r.to_text("made by a test\nsecond line");
        assert_eq!(Reference::parse(&text).unwrap(), r);
        assert!(Reference::parse("abc\n").is_err());
    }

    #[test]
    fn shipped_reference_loads() {
        let r = Reference::shipped().unwrap();
        assert!(
            (450..=1000).contains(&r.grams().len()),
            "{}",
            r.grams().len()
        );
        assert!(r.parts() >= 10);
    }

    #[test]
    fn signature_cosine_bounds() {
        assert_eq!(signature_cosine(&[1.0, 0.0], &[0.0, 1.0]), 0.0);
        assert!((signature_cosine(&[0.3, 0.4], &[0.6, 0.8]) - 1.0).abs() < 1e-9);
        assert_eq!(signature_cosine(&[0.0, 0.0], &[0.6, 0.8]), 0.0);
        assert_eq!(signature_cosine(&[1.0], &[1.0, 0.0]), 0.0);
    }

    #[test]
    fn conformance() {
        let d = MultirefDetector::new(Settings::default()).unwrap();
        check_detector(&d, 0.96, 0.96);
    }

    #[test]
    fn document_signature_values_are_in_unit_range() {
        let d = MultirefDetector::new(Settings::default()).unwrap();
        let Signature::Vector(v) = d.sign(&doc(words(7, 300))) else {
            panic!("not a vector")
        };
        assert_eq!(v.len(), Reference::shipped().unwrap().parts());
        assert!(v.iter().all(|x| (0.0..=1.0).contains(x)));
        assert!(v.iter().any(|x| *x > 0.0));
        assert_eq!(d.sign(&Document::default()), Signature::Empty);
    }
}
