//! Exact duplicates: one stable hash of the normalized word stream.

use neardup_api::{CandidateIndex, Detector, Document, Judgement, Level, Signature, Similarity};

use crate::index::ExactIndex;

/// Matches pages whose normalized words are identical (case, Unicode form,
/// whitespace and markup differences do not count).
#[derive(Clone, Debug, Default)]
pub struct ExactDetector;

impl ExactDetector {
    /// The exact-hash detector.
    pub fn new() -> ExactDetector {
        ExactDetector
    }
}

/// The exact hash of a word sequence: words joined by one space.
pub fn exact_hash(words: &[String]) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::with_seed(neardup_api::HASH_SEED);
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            h.update(b" ");
        }
        h.update(w.as_bytes());
    }
    h.digest()
}

impl Detector for ExactDetector {
    fn name(&self) -> &str {
        "exact"
    }

    fn sign(&self, doc: &Document) -> Signature {
        if doc.words.is_empty() {
            Signature::Empty
        } else {
            Signature::Fingerprint(exact_hash(&doc.words))
        }
    }

    fn similarity(&self, query: &Signature, earlier: &Signature) -> Similarity {
        match (query, earlier) {
            (Signature::Fingerprint(a), Signature::Fingerprint(b)) if a == b => {
                Similarity::symmetric(1.0)
            }
            _ => Similarity::default(),
        }
    }

    /// No settings: the hash seed is recorded by the core.
    fn signature_settings(&self) -> Option<Vec<(String, String)>> {
        Some(Vec::new())
    }

    fn classify(&self, _: &Signature, _: &Signature, sim: Similarity) -> Option<Judgement> {
        (sim.resemblance >= 1.0).then(|| Judgement {
            level: Level::Duplicate,
            score: 1.0,
            reason: "identical normalized text".into(),
        })
    }

    fn new_index(&self) -> Box<dyn CandidateIndex> {
        Box::new(ExactIndex::default())
    }

    fn handles_short_pages(&self) -> bool {
        true
    }
}
