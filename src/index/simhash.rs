//! SimHash tier (placeholder: a linear scan; to be replaced by blocked tables).

use neardup_api::{CandidateIndex, DocId, Signature};

/// Finds fingerprints within a Hamming distance.
#[derive(Debug)]
pub struct SimhashIndex {
    max_distance: u32,
    entries: Vec<(u64, DocId)>,
}

impl SimhashIndex {
    /// An empty index answering queries within `max_distance` bits.
    pub fn new(max_distance: u32) -> SimhashIndex {
        SimhashIndex {
            max_distance,
            entries: Vec::new(),
        }
    }
}

impl CandidateIndex for SimhashIndex {
    fn candidates(&self, sig: &Signature, out: &mut Vec<DocId>) {
        if let Signature::Fingerprint(fp) = sig {
            for (f, id) in &self.entries {
                if (f ^ fp).count_ones() <= self.max_distance {
                    out.push(*id);
                }
            }
        }
    }

    fn insert(&mut self, id: DocId, sig: &Signature) {
        if let Signature::Fingerprint(fp) = sig {
            self.entries.push((*fp, id));
        }
    }

    fn remove(&mut self, id: DocId, _: &Signature) {
        self.entries.retain(|(_, i)| *i != id);
    }

    fn len(&self) -> usize {
        self.entries.len()
    }

    fn heap_bytes(&self) -> usize {
        self.entries.capacity() * 16
    }
}
