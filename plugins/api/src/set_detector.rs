//! The glue every set-based detector shares (`bsw`, `mod_n`, `min_n`,
//! `sentence`; the core's `chunks` decides by the same [`SetRule`]): a
//! [`Signature`] from a set of features, the similarity of two set
//! signatures, the thresholds' validation by config key, and
//! [`SetDetector`], which answers `similarity`, `classify` and `new_index`
//! for a detector whose signature is a set.

use crate::{
    set_similarity, CandidateIndex, Judgement, SetIndex, SetRule, SettingError, Signature,
    Similarity,
};

impl Signature {
    /// The signature of a set of features given in any order: sorted and
    /// deduplicated, or [`Signature::Empty`] when there is none.
    pub fn from_set(mut features: Vec<u32>) -> Signature {
        if features.is_empty() {
            return Signature::Empty;
        }
        features.sort_unstable();
        features.dedup();
        Signature::Set(features)
    }
}

impl Similarity {
    /// Resemblance and containment of two set signatures
    /// ([`set_similarity`]); zero for any other pair (a foreign or empty
    /// signature).
    pub fn of_sets(query: &Signature, earlier: &Signature) -> Similarity {
        match (query, earlier) {
            (Signature::Set(a), Signature::Set(b)) => set_similarity(a, b),
            _ => Similarity::default(),
        }
    }
}

/// Checks the two thresholds of a detector: each in `0.0..=1.0`
/// (keys `duplicate`, `near_duplicate`), and `near_duplicate <= duplicate`.
///
/// # Errors
/// The first bad key.
pub fn check_thresholds(duplicate: f64, near_duplicate: f64) -> Result<(), SettingError> {
    SettingError::unit("duplicate", duplicate, 1.0)?;
    SettingError::unit("near_duplicate", near_duplicate, 1.0)?;
    if near_duplicate > duplicate {
        return Err(SettingError {
            key: "near_duplicate".into(),
            value: near_duplicate.to_string(),
            allowed: format!("must be <= duplicate ({duplicate})"),
        });
    }
    Ok(())
}

impl SetRule {
    /// A rule from its four thresholds, in the order of the fields.
    pub fn new(duplicate: f64, near_duplicate: f64, containment: f64, min_features: usize) -> Self {
        SetRule {
            duplicate,
            near_duplicate,
            containment,
            min_features,
        }
    }

    /// Checks the thresholds under the keys a plugin's table gives them:
    /// [`check_thresholds`], `containment` in `0.0..=2.0` (above 1.0 turns
    /// the rule off), `containment_min_features` in `1..=100000`.
    ///
    /// # Errors
    /// The first bad key.
    pub fn validate(&self) -> Result<(), SettingError> {
        check_thresholds(self.duplicate, self.near_duplicate)?;
        SettingError::unit("containment", self.containment, 2.0)?;
        SettingError::range("containment_min_features", self.min_features, 1, 100_000)
    }
}

/// What a detector whose signature is a set of features answers the same
/// way as every other such detector: set similarity, the decision by a
/// [`SetRule`], and an inverted index ([`SetIndex`]) for candidates. The
/// detector keeps one and forwards those three methods to it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SetDetector {
    /// What a feature is called in verdict reasons ("bsw chunk").
    pub what: &'static str,
    /// The decision rule.
    pub rule: SetRule,
    /// A feature held by more documents than this yields no candidates.
    pub max_postings: usize,
}

impl SetDetector {
    /// [`Detector::similarity`](crate::Detector::similarity):
    /// [`Similarity::of_sets`].
    pub fn similarity(&self, query: &Signature, earlier: &Signature) -> Similarity {
        Similarity::of_sets(query, earlier)
    }

    /// [`Detector::classify`](crate::Detector::classify): the rule.
    pub fn classify(
        &self,
        query: &Signature,
        earlier: &Signature,
        sim: Similarity,
    ) -> Option<Judgement> {
        self.rule.judge(self.what, query, earlier, sim)
    }

    /// [`Detector::new_index`](crate::Detector::new_index): a [`SetIndex`]
    /// whose candidates share at least one feature.
    pub fn new_index(&self) -> Box<dyn CandidateIndex> {
        Box::new(SetIndex::new(self.max_postings, 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Level;

    #[test]
    fn from_set_sorts_dedups_and_is_empty_without_features() {
        assert_eq!(
            Signature::from_set(vec![3, 1, 3, 2]),
            Signature::Set(vec![1, 2, 3])
        );
        assert_eq!(Signature::from_set(Vec::new()), Signature::Empty);
    }

    #[test]
    fn of_sets_is_zero_for_foreign_signatures() {
        let a = Signature::Set(vec![1, 2]);
        assert_eq!(Similarity::of_sets(&a, &a), Similarity::symmetric(1.0));
        assert_eq!(
            Similarity::of_sets(&a, &Signature::Sketch(vec![1, 2])),
            Similarity::default()
        );
        assert_eq!(
            Similarity::of_sets(&Signature::Empty, &a),
            Similarity::default()
        );
    }

    #[test]
    fn validate_names_the_first_bad_key() {
        let ok = SetRule::new(0.8, 0.4, 0.8, 10);
        assert_eq!(ok.validate(), Ok(()));
        let key = |r: SetRule| r.validate().unwrap_err().key;
        assert_eq!(key(SetRule::new(1.5, 0.4, 0.8, 10)), "duplicate");
        assert_eq!(key(SetRule::new(0.4, 0.8, 0.8, 10)), "near_duplicate");
        assert_eq!(key(SetRule::new(0.8, 0.4, f64::NAN, 10)), "containment");
        assert_eq!(
            key(SetRule::new(0.8, 0.4, 0.8, 0)),
            "containment_min_features"
        );
    }

    #[test]
    fn set_detector_decides_by_its_rule() {
        let d = SetDetector {
            what: "chunk",
            rule: SetRule::new(0.8, 0.5, 0.8, 2),
            max_postings: 10,
        };
        let a = Signature::Set(vec![1, 2, 3, 4]);
        let b = Signature::Set(vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        let sim = d.similarity(&a, &b);
        let j = d.classify(&a, &b, sim).unwrap();
        assert_eq!(j.level, Level::NearDuplicate);
        assert!(
            j.reason.to_string().contains("chunk containment 1.00"),
            "{}",
            j.reason
        );
        let mut index = d.new_index();
        index.insert(4, &b);
        let mut out = Vec::new();
        index.candidates(&a, &mut out);
        assert_eq!(out, [4]);
    }
}
