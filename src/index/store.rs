//! The document store: what the index keeps about every kept page.
//!
//! Ground truth for the derived candidate indexes: a persistent or shared
//! implementation replaces [`MemoryStore`] without touching detector code.

use std::sync::Arc;

use neardup_api::{DocId, Signature};

use crate::{Error, Result};

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
    /// When the page was last fetched (checked), in Unix seconds; what
    /// `index.ttl_secs` counts from. 0 when unknown (a Redis log keeps no
    /// times).
    pub fetched_at: u64,
}

/// A write another process made to a shared store, reported by
/// [`DocStore::sync`] so the caller can update its candidate indexes.
#[derive(Clone, Copy, Debug)]
pub enum Change<'a> {
    /// A record was stored under this id.
    Added(DocId, &'a Arc<DocRecord>),
    /// The record with this id was removed.
    Removed(DocId, &'a Arc<DocRecord>),
}

/// Storage of kept documents.
///
/// Contract: ids are dense and assigned in insertion order (from 0 for a new
/// store, continuing after the highest id ever assigned for a reopened one);
/// a removed id is never reused (a shared log store such as `RedisStore`
/// also spends an id on each removal, so its ids have gaps). A record
/// returned by `get` is immutable.
///
/// Durability: writes may be buffered; a record inserted or removed is
/// durable (survives a crash of the process) once [`DocStore::flush`] has
/// returned `Ok`. In-memory stores have nothing to flush.
pub trait DocStore: Send + Sync {
    /// Stores a record and returns its new id.
    ///
    /// # Errors
    /// If the store cannot take the record (id space exhausted, storage
    /// failure).
    fn insert(&mut self, record: DocRecord) -> Result<DocId>;
    /// The record with this id, if present.
    ///
    /// # Errors
    /// If the storage cannot be read.
    fn get(&self, id: DocId) -> Result<Option<Arc<DocRecord>>>;
    /// Removes and returns a record.
    ///
    /// # Errors
    /// If the storage fails.
    fn remove(&mut self, id: DocId) -> Result<Option<Arc<DocRecord>>>;
    /// Calls `f` on every record present, in id order (used to rebuild the
    /// candidate indexes of a reopened store).
    ///
    /// # Errors
    /// If the storage cannot be read.
    fn for_each(&self, f: &mut dyn FnMut(DocId, &Arc<DocRecord>)) -> Result<()>;
    /// Makes every earlier insert and removal durable.
    ///
    /// # Errors
    /// If the storage cannot commit; the buffered writes stay pending and a
    /// later `flush` retries them.
    fn flush(&mut self) -> Result<()> {
        Ok(())
    }
    /// Catches up with writes other processes made to a shared store since
    /// the last call, reporting each to `apply` in order. Stores owned by
    /// one process have nothing to report (the default).
    ///
    /// # Errors
    /// If the shared storage cannot be read.
    fn sync(&mut self, apply: &mut dyn FnMut(Change<'_>)) -> Result<()> {
        let _ = apply;
        Ok(())
    }
    /// Stores a record only if no other process wrote to the store since
    /// the last [`DocStore::sync`]: `Ok(Err(record))` hands it back when one
    /// did, so the caller can sync, decide again and retry. This is the
    /// atomic check-and-insert of shared stores; the default (one process)
    /// always inserts.
    ///
    /// # Errors
    /// As [`DocStore::insert`].
    fn insert_if_current(
        &mut self,
        record: DocRecord,
    ) -> Result<std::result::Result<DocId, DocRecord>> {
        self.insert(record).map(Ok)
    }
    /// Sets the fetch time of a present record (an unchanged re-fetch keeps
    /// the page alive under `index.ttl_secs`). Returns whether the record
    /// was present and the store keeps times; stores without times (the
    /// default) do nothing.
    ///
    /// # Errors
    /// If the storage fails.
    fn touch(&mut self, id: DocId, fetched_at: u64) -> Result<bool> {
        let _ = (id, fetched_at);
        Ok(false)
    }
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

/// Approximate heap bytes of one record (what caches account).
pub(crate) fn record_bytes(r: &DocRecord) -> usize {
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

impl MemoryStore {
    /// The id the next insert will get.
    pub fn next_id(&self) -> usize {
        self.records.len()
    }
}

impl DocStore for MemoryStore {
    fn insert(&mut self, record: DocRecord) -> Result<DocId> {
        let id = DocId::try_from(self.records.len()).map_err(|_| Error::Store {
            path: "<memory>".into(),
            message: "more than u32::MAX documents: the id space is exhausted".into(),
        })?;
        self.bytes += record_bytes(&record);
        self.records.push(Some(Arc::new(record)));
        self.live += 1;
        Ok(id)
    }

    fn get(&self, id: DocId) -> Result<Option<Arc<DocRecord>>> {
        Ok(self.records.get(id as usize).and_then(Clone::clone))
    }

    fn remove(&mut self, id: DocId) -> Result<Option<Arc<DocRecord>>> {
        let Some(r) = self.records.get_mut(id as usize).and_then(Option::take) else {
            return Ok(None);
        };
        self.live -= 1;
        self.bytes -= record_bytes(&r);
        Ok(Some(r))
    }

    fn for_each(&self, f: &mut dyn FnMut(DocId, &Arc<DocRecord>)) -> Result<()> {
        for (id, rec) in (0..).zip(&self.records) {
            if let Some(rec) = rec {
                f(id, rec);
            }
        }
        Ok(())
    }

    fn touch(&mut self, id: DocId, fetched_at: u64) -> Result<bool> {
        let Some(slot) = self.records.get_mut(id as usize) else {
            return Ok(false);
        };
        let Some(rec) = slot else {
            return Ok(false);
        };
        if rec.fetched_at != fetched_at {
            Arc::make_mut(rec).fetched_at = fetched_at;
        }
        Ok(true)
    }

    fn len(&self) -> usize {
        self.live
    }

    fn heap_bytes(&self) -> usize {
        self.bytes + self.records.capacity() * std::mem::size_of::<Option<Arc<DocRecord>>>()
    }
}
