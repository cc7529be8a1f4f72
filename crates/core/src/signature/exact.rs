//! Exact duplicates: one stable hash of the normalized word stream.

use neardup_api::{
    CandidateIndex, Detector, Document, Judgement, Level, Signature, Similarity, Words,
};

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

/// The exact hash of a word sequence: the seeded xxh3 of the words joined
/// by one space ([`Words::joined`], already one buffer).
pub fn exact_hash(words: &Words) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(words.joined().as_bytes(), neardup_api::HASH_SEED)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Words {
        s.split(' ').filter(|w| !w.is_empty()).collect()
    }

    #[test]
    fn exact_hash_is_the_seeded_xxh3_of_the_words_joined_by_spaces() {
        // Stored fingerprints: the value must stay what it always was.
        let mut streamed = xxhash_rust::xxh3::Xxh3::with_seed(neardup_api::HASH_SEED);
        streamed.update(b"the cat");
        streamed.update(b" sat on ");
        streamed.update(b"the mat");
        let expected = streamed.digest();
        assert_eq!(exact_hash(&words("the cat sat on the mat")), expected);
        assert_eq!(
            exact_hash(&Words::new()),
            xxhash_rust::xxh3::xxh3_64_with_seed(b"", neardup_api::HASH_SEED)
        );
        assert_ne!(exact_hash(&words("the cat")), exact_hash(&words("thecat")));
        // Long enough for xxh3's long-input path.
        let long = "word ".repeat(400);
        assert_eq!(
            exact_hash(&words(&long)),
            xxhash_rust::xxh3::xxh3_64_with_seed(
                long.trim_end().as_bytes(),
                neardup_api::HASH_SEED
            )
        );
    }
}
