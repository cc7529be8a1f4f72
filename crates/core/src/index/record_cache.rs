//! The record cache of [`super::RedbStore`]: decoded records, least
//! recently used first out, bounded in bytes.

use std::sync::Arc;

use neardup_api::DocId;

use super::store::{record_bytes, DocRecord};

/// Fixed bytes a cached record costs beyond its own heap bytes (the
/// node, the map entry): keeps a cache of tiny records bounded too.
pub(crate) const NODE_BYTES: usize = 64;

/// A least-recently-used cache of records, bounded in bytes (the `lru`
/// crate keeps the order; this wrapper counts bytes and evicts).
#[derive(Debug)]
pub(crate) struct Lru {
    capacity: usize,
    bytes: usize,
    /// id -> (record, bytes it is charged).
    entries: lru::LruCache<DocId, (Arc<DocRecord>, usize)>,
    hits: u64,
    misses: u64,
}

impl Lru {
    pub(crate) fn new(capacity: usize) -> Lru {
        Lru {
            capacity,
            bytes: 0,
            entries: lru::LruCache::unbounded(),
            hits: 0,
            misses: 0,
        }
    }

    pub(crate) fn get(&mut self, id: DocId) -> Option<Arc<DocRecord>> {
        let found = self.entries.get(&id).map(|(rec, _)| Arc::clone(rec));
        if found.is_some() {
            self.hits += 1;
        } else {
            self.misses += 1;
        }
        found
    }

    pub(crate) fn remove(&mut self, id: DocId) {
        if let Some((_, bytes)) = self.entries.pop(&id) {
            self.bytes -= bytes;
        }
    }

    pub(crate) fn insert(&mut self, id: DocId, rec: Arc<DocRecord>) {
        self.remove(id);
        let bytes = record_bytes(&rec) + NODE_BYTES;
        if bytes > self.capacity {
            return;
        }
        while self.bytes + bytes > self.capacity {
            match self.entries.pop_lru() {
                Some((_, (_, evicted))) => self.bytes -= evicted,
                None => break,
            }
        }
        self.entries.push(id, (rec, bytes));
        self.bytes += bytes;
    }

    pub(crate) fn clear(&mut self) {
        *self = Lru::new(self.capacity);
    }

    /// Hits, misses and size so far.
    pub(crate) fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits,
            misses: self.misses,
            bytes: self.bytes,
            records: self.entries.len(),
        }
    }

    /// Heap bytes: the records plus [`NODE_BYTES`] per entry for the
    /// cache's own node and table slot.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.bytes
    }
}

/// Hits and misses of the record cache of a [`RedbStore`](super::RedbStore).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Reads answered from the cache.
    pub hits: u64,
    /// Reads that went to the file.
    pub misses: u64,
    /// Bytes the cache holds now.
    pub bytes: usize,
    /// Records the cache holds now.
    pub records: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::Evidence;
    use crate::index::RecordKind;
    use neardup_api::Signature;

    fn rec(n: u32, payload: usize) -> Arc<DocRecord> {
        Arc::new(DocRecord {
            key: format!("k{n}"),
            url: String::new(),
            site: String::new(),
            kind: RecordKind::Kept,
            signatures: vec![Signature::Set(vec![n; payload])],
            evidence: Evidence::default(),
            fetched_at: 0,
        })
    }

    #[test]
    fn lru_evicts_least_recently_used_within_its_byte_budget() {
        let one = record_bytes(&rec(0, 10)) + NODE_BYTES;
        let mut lru = Lru::new(3 * one);
        for n in 0..3 {
            lru.insert(n, rec(n, 10));
        }
        assert!(lru.get(0).is_some(), "0 is now most recent");
        lru.insert(3, rec(3, 10));
        assert!(lru.get(1).is_none(), "1 was least recently used");
        for n in [0, 2, 3] {
            assert_eq!(lru.get(n).map(|r| r.key.clone()), Some(format!("k{n}")));
        }
        assert!(lru.bytes <= 3 * one);
        lru.remove(2);
        assert!(lru.get(2).is_none());
        assert_eq!(lru.entries.len(), 2);
        // A record larger than the whole budget is not cached.
        lru.insert(9, rec(9, 10_000));
        assert!(lru.get(9).is_none());
        assert_eq!((lru.hits, lru.misses), (4, 3));
    }
}
