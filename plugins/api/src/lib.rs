//! The seam between neardup's core and its detectors.
//!
//! Both the `neardup` core and every crate under `plugins/` depend on this
//! small crate (it needs only `serde`), so a plugin never depends on the core
//! and the core never names a plugin type: there is no Cargo cycle.
//!
//! # The contract in one paragraph
//!
//! The core turns a page into a [`Document`] (main text, normalized words,
//! stemmed terms). Each enabled [`Detector`] turns that document into a
//! [`Signature`], asks its own [`CandidateIndex`] for earlier documents that
//! may match, and the core compares the new signature with each candidate's
//! stored signature through [`Detector::similarity`]. [`Detector::classify`]
//! turns that [`Similarity`] into a [`Level`] (duplicate or near duplicate).
//! Detectors run in a configured chain; the first one that classifies a
//! candidate decides the verdict, and its name is reported with it.
//!
//! Implementers write `name`, `sign`, `similarity`, `classify` and
//! `new_index`; everything else has a default.
//!
//! # Decisions that need the whole index
//!
//! `classify` sees one pair. A method whose rule is about everything seen
//! before (sentence hashing: "share of this page's sentences that appear in
//! *any* earlier page") cannot be written pairwise. Two default methods make
//! it expressible without changing existing detectors:
//! [`CandidateIndex::coverage`] (share of the query's features present in
//! the index at all) and [`Detector::classify_in_context`], which the core
//! calls instead of `classify`, handing it the detector's own index. Their
//! defaults return `None` and call `classify`, so pairwise detectors are
//! unaffected.
//!
//! Helpers for plugin authors: [`SetIndex`] (an inverted index over
//! [`Signature::Set`] features with candidate counting), [`SetDetector`]
//! (similarity, decision and index of a detector whose signature is a set:
//! [`Signature::from_set`], [`Similarity::of_sets`], [`SetRule`]) and
//! [`SettingError`] (a rejected plugin setting; [`check_thresholds`],
//! [`SetRule::validate`]). With the `testing`
//! feature, `conformance` checks the properties every detector must have.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod detector;
mod rng;
mod set_detector;
mod set_index;
mod set_rule;
mod sorted;
mod words;
pub use detector::{
    hash64, CandidateIndex, Detector, DocId, Document, Judgement, Level, Reason, SetReason,
    SettingError, Signature, Similarity, HASH_SEED,
};
pub use rng::SplitMix64;
pub use set_detector::{check_thresholds, SetDetector};
pub use set_index::SetIndex;
pub use set_rule::{intersection_size, set_similarity, SetRule};
pub use sorted::{membership, shared_count};
pub use words::{Iter as WordsIter, Words};

#[cfg(feature = "testing")]
pub mod conformance;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_similarity_counts_shared_elements() {
        let s = set_similarity(&[1, 2, 3, 4], &[3, 4, 5, 6, 7, 8]);
        assert!((s.resemblance - 2.0 / 8.0).abs() < 1e-12);
        assert!((s.containment - 2.0 / 4.0).abs() < 1e-12);
    }

    #[test]
    fn set_similarity_of_empty_is_zero() {
        assert_eq!(set_similarity(&[], &[1]), Similarity::default());
        assert_eq!(set_similarity(&[], &[]), Similarity::default());
    }

    #[test]
    fn identical_sets_are_one() {
        let s = set_similarity(&[5, 9, 11], &[5, 9, 11]);
        assert_eq!(s, Similarity::symmetric(1.0));
    }
}
