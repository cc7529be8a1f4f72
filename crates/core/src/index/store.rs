//! The document store: what the index keeps about every kept page.
//!
//! Ground truth for the derived candidate indexes: a persistent or shared
//! implementation replaces [`MemoryStore`] without touching detector code.

use std::sync::Arc;

use neardup_api::{DocId, Signature};
use serde::{Deserialize, Serialize};

use crate::content::Evidence;
#[cfg(any(feature = "redb", feature = "redis"))]
use crate::identity::StoreIdentity;
use crate::Result;
use crate::{Error, StoreError};

/// What is kept about an indexed document: written once, read as is by
/// every decision (no part of it is encoded inside another).
#[derive(Clone, Debug, PartialEq)]
pub struct DocRecord {
    /// Caller's identifier (manifest doc_id, file stem, WARC record id).
    pub key: String,
    /// The page URL.
    pub url: String,
    /// The page's site (host).
    pub site: String,
    /// What the page is to later pages.
    pub kind: RecordKind,
    /// One signature per detector of the chain, in chain order; none for
    /// an observation ([`RecordKind::signatures`]).
    pub signatures: Vec<Signature>,
    /// The page's content evidence (`crate::content`): what a later page's
    /// own content is looked up in, and what the site's template learns.
    pub evidence: Evidence,
    /// When the page was last fetched (checked), in Unix seconds; what
    /// `index.ttl_secs` counts from. 0 when unknown (a Redis log keeps no
    /// times).
    pub fetched_at: u64,
}

/// What a stored page is to the pages checked after it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum RecordKind {
    /// A page kept (unique when checked, or seeded): a candidate, and the
    /// kept side of a drop.
    #[default]
    Kept,
    /// A near duplicate indexed (`decide.index_near_duplicates`): a
    /// candidate like a kept page, so a later variant can match it; fetched
    /// again unchanged, it is judged again against the pages before it and
    /// reported as their copy.
    NearDuplicate,
    /// A page not kept, stored for its site's template only (its blocks and
    /// title words, [`Evidence::observation`]): never a candidate, holds no
    /// URL, not counted as indexed.
    Observation,
}

impl RecordKind {
    /// Returns true if and only if the page is a candidate for later pages
    /// (kept or an indexed near duplicate).
    pub fn is_indexed(self) -> bool {
        self != RecordKind::Observation
    }

    /// How many signatures a record of this kind holds with a chain of
    /// `chain` detectors: one per detector, none for an observation (it is
    /// in no candidate index).
    pub fn signatures(self, chain: usize) -> usize {
        if self.is_indexed() {
            chain
        } else {
            0
        }
    }
}

/// A record as stored before records were typed (redb formats 1 to 3,
/// Redis log formats 1 and 2): `signatures` holds the chain's, then (when
/// the identity names them) the five evidence slots. A record whose
/// shingle sample is empty (modulus 0) was an observation, any other a
/// kept page (an indexed near duplicate cannot be told from one). Typed,
/// or why not.
#[cfg(any(feature = "redb", feature = "redis"))]
pub(crate) fn from_slots(
    identity: &StoreIdentity,
    (key, url, site): (String, String, String),
    mut signatures: Vec<Signature>,
    fetched_at: u64,
) -> std::result::Result<DocRecord, String> {
    if signatures.len() != identity.detectors.len() {
        return Err(format!(
            "{} signatures for {} slots",
            signatures.len(),
            identity.detectors.len()
        ));
    }
    let slots = signatures.split_off(identity.chain().len());
    let (kind, evidence) = if slots.is_empty() {
        (RecordKind::Kept, Evidence::default())
    } else {
        let evidence = evidence_from_slots(&slots).ok_or("malformed evidence slots")?;
        if evidence.modulus == 0 {
            // Its chain slots were `Empty` placeholders.
            signatures.clear();
            (RecordKind::Observation, evidence)
        } else {
            (RecordKind::Kept, evidence)
        }
    };
    Ok(DocRecord {
        key,
        url,
        site,
        kind,
        signatures,
        evidence,
        fetched_at,
    })
}

/// The evidence as formats 1 to 3 stored it: blocks and title as sets,
/// the shingle sample as a sketch whose first value is the modulus, the
/// visible text's hash as a fingerprint, language and main words as a
/// sketch of two.
#[cfg(any(feature = "redb", feature = "redis"))]
fn evidence_from_slots(slots: &[Signature]) -> Option<Evidence> {
    let [blocks, sample, visible, title, about] = slots else {
        return None;
    };
    fn set(s: &Signature) -> Option<Vec<u32>> {
        match s {
            Signature::Set(b) => Some(b.clone()),
            Signature::Empty => Some(Vec::new()),
            _ => None,
        }
    }
    let Signature::Sketch(sample) = sample else {
        return None;
    };
    let (modulus, sample) = sample.split_first()?;
    let Signature::Fingerprint(visible) = visible else {
        return None;
    };
    let Signature::Sketch(about) = about else {
        return None;
    };
    let [lang, main_words] = about.as_slice() else {
        return None;
    };
    let evidence = Evidence {
        blocks: set(blocks)?,
        modulus: *modulus,
        sample: sample.to_vec(),
        visible: *visible,
        title: set(title)?,
        lang: *lang,
        main_words: *main_words,
    };
    evidence.is_consistent().then_some(evidence)
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
    /// Returns true if and only if the store lives in another process and
    /// its calls are network round trips (Redis): async callers make them
    /// on a blocking thread. Stores in this process (memory, a redb file)
    /// say false, the default.
    fn is_remote(&self) -> bool {
        false
    }
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
        + r.evidence.heap_bytes()
}

impl MemoryStore {
    /// The id the next insert will get.
    pub fn next_id(&self) -> usize {
        self.records.len()
    }
}

impl DocStore for MemoryStore {
    fn insert(&mut self, record: DocRecord) -> Result<DocId> {
        let id = DocId::try_from(self.records.len()).map_err(|_| {
            Error::store(
                "<memory>",
                StoreError::Full("more than u32::MAX documents: the id space is exhausted".into()),
            )
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

/// The current time in Unix seconds (0 if the clock is before 1970).
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
