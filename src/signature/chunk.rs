//! Content-defined chunks of the normalized text (placeholder; see the
//! helper's work).

use neardup_api::{
    set_similarity, CandidateIndex, Detector, Document, Judgement, Level, Signature, Similarity,
};

use crate::config::ChunkConfig;
use crate::index::ChunkIndex;

/// Chunk-set detector: resemblance and containment of content-defined chunks.
#[derive(Clone, Debug)]
pub struct ChunkDetector {
    config: ChunkConfig,
}

impl ChunkDetector {
    /// A chunk detector with the given settings.
    pub fn new(config: &ChunkConfig) -> ChunkDetector {
        ChunkDetector {
            config: config.clone(),
        }
    }
}

impl Detector for ChunkDetector {
    fn name(&self) -> &str {
        "chunks"
    }

    fn sign(&self, doc: &Document) -> Signature {
        let mut set: Vec<u32> = doc
            .terms
            .chunks(4)
            .map(|c| super::hash64(c.join(" ").as_bytes()) as u32)
            .collect();
        set.sort_unstable();
        set.dedup();
        if set.is_empty() {
            Signature::Empty
        } else {
            Signature::Set(set)
        }
    }

    fn similarity(&self, query: &Signature, earlier: &Signature) -> Similarity {
        match (query, earlier) {
            (Signature::Set(a), Signature::Set(b)) => set_similarity(a, b),
            _ => Similarity::default(),
        }
    }

    fn classify(&self, _: &Signature, _: &Signature, sim: Similarity) -> Option<Judgement> {
        let c = &self.config;
        if sim.resemblance >= c.duplicate {
            Some(Judgement {
                level: Level::Duplicate,
                score: sim.resemblance,
                reason: format!(
                    "chunk resemblance {:.2} >= {}",
                    sim.resemblance, c.duplicate
                ),
            })
        } else if sim.resemblance >= c.near_duplicate {
            Some(Judgement {
                level: Level::NearDuplicate,
                score: sim.resemblance,
                reason: format!(
                    "chunk resemblance {:.2} >= {}",
                    sim.resemblance, c.near_duplicate
                ),
            })
        } else {
            None
        }
    }

    fn new_index(&self) -> Box<dyn CandidateIndex> {
        Box::new(ChunkIndex::new(self.config.max_postings))
    }
}
