//! Chunk tier (placeholder: plain postings with candidate counting).

use std::collections::HashMap;

use neardup_api::{CandidateIndex, DocId, Signature};

/// Inverted index chunk hash -> documents.
#[derive(Debug)]
pub struct ChunkIndex {
    max_postings: usize,
    postings: HashMap<u32, Vec<DocId>>,
    docs: usize,
}

impl ChunkIndex {
    /// An empty index; chunks in more than `max_postings` documents stop
    /// yielding candidates.
    pub fn new(max_postings: usize) -> ChunkIndex {
        ChunkIndex {
            max_postings,
            postings: HashMap::new(),
            docs: 0,
        }
    }
}

impl CandidateIndex for ChunkIndex {
    fn candidates(&self, sig: &Signature, out: &mut Vec<DocId>) {
        let Signature::Set(set) = sig else { return };
        let mut counts: HashMap<DocId, u32> = HashMap::new();
        for h in set {
            if let Some(p) = self.postings.get(h) {
                if p.len() <= self.max_postings {
                    for id in p {
                        *counts.entry(*id).or_default() += 1;
                    }
                }
            }
        }
        let mut c: Vec<(DocId, u32)> = counts.into_iter().collect();
        c.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        out.extend(c.into_iter().map(|(id, _)| id));
    }

    fn insert(&mut self, id: DocId, sig: &Signature) {
        let Signature::Set(set) = sig else { return };
        for h in set {
            self.postings.entry(*h).or_default().push(id);
        }
        self.docs += 1;
    }

    fn remove(&mut self, id: DocId, sig: &Signature) {
        let Signature::Set(set) = sig else { return };
        for h in set {
            if let Some(p) = self.postings.get_mut(h) {
                p.retain(|x| *x != id);
            }
        }
        self.docs = self.docs.saturating_sub(1);
    }

    fn len(&self) -> usize {
        self.docs
    }

    fn heap_bytes(&self) -> usize {
        self.postings.values().map(|p| p.capacity() * 4 + 40).sum()
    }
}
