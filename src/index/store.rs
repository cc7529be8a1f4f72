//! The document store: what the index keeps about every kept page.
//!
//! Ground truth for the derived candidate indexes: a persistent or shared
//! implementation replaces [`MemoryStore`] without touching detector code.

use std::sync::Arc;

use neardup_api::{DocId, Signature};

/// What is kept about an indexed document.
#[derive(Clone, Debug, PartialEq)]
pub struct DocRecord {
    /// Caller's identifier (manifest doc_id, file stem, WARC record id).
    pub key: String,
    /// The page URL.
    pub url: String,
    /// The page's site (host).
    pub site: String,
    /// One signature per detector of the chain, in chain order.
    pub signatures: Vec<Signature>,
}

/// Storage of kept documents.
///
/// Contract: ids are dense and assigned in insertion order starting at 0; a
/// removed id is never reused. A record returned by `get` is immutable.
pub trait DocStore: Send + Sync {
    /// Stores a record and returns its new id.
    fn insert(&mut self, record: DocRecord) -> DocId;
    /// The record with this id, if present.
    fn get(&self, id: DocId) -> Option<Arc<DocRecord>>;
    /// Removes and returns a record.
    fn remove(&mut self, id: DocId) -> Option<Arc<DocRecord>>;
    /// Number of records present.
    fn len(&self) -> usize;
    /// Returns true if and only if the store holds no record.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Approximate heap bytes used.
    fn heap_bytes(&self) -> usize;
}

/// In-memory store: a vector indexed by id. The default and the test double.
#[derive(Debug, Default)]
pub struct MemoryStore {
    records: Vec<Option<Arc<DocRecord>>>,
    live: usize,
    bytes: usize,
}

fn record_bytes(r: &DocRecord) -> usize {
    std::mem::size_of::<DocRecord>()
        + r.key.capacity()
        + r.url.capacity()
        + r.site.capacity()
        + r.signatures.capacity() * std::mem::size_of::<Signature>()
        + r.signatures
            .iter()
            .map(Signature::heap_bytes)
            .sum::<usize>()
}

impl DocStore for MemoryStore {
    fn insert(&mut self, record: DocRecord) -> DocId {
        let id = DocId::try_from(self.records.len()).expect("more than u32::MAX documents");
        self.bytes += record_bytes(&record);
        self.records.push(Some(Arc::new(record)));
        self.live += 1;
        id
    }

    fn get(&self, id: DocId) -> Option<Arc<DocRecord>> {
        self.records.get(id as usize).and_then(Clone::clone)
    }

    fn remove(&mut self, id: DocId) -> Option<Arc<DocRecord>> {
        let r = self.records.get_mut(id as usize)?.take()?;
        self.live -= 1;
        self.bytes -= record_bytes(&r);
        Some(r)
    }

    fn len(&self) -> usize {
        self.live
    }

    fn heap_bytes(&self) -> usize {
        self.bytes + self.records.capacity() * std::mem::size_of::<Option<Arc<DocRecord>>>()
    }
}
