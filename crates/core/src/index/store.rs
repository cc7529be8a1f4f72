//! The document store: what the index keeps about every kept page.
//!
//! Ground truth for the derived candidate indexes: a persistent or shared
//! implementation replaces [`MemoryStore`] without touching detector code.

use std::collections::BTreeMap;
use std::sync::Arc;

use neardup_api::{DocId, Signature};
use serde::{Deserialize, Serialize};

use crate::content::Evidence;
use crate::Error;
use crate::Result;

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

/// What the stored signatures were computed with: an index remembers it
/// and refuses to open with another, because signatures made another way
/// would be compared as if they were comparable.
///
/// # The rule: what changes a stored record, not what decides
/// An identity holds
/// - the detector chain (one stored signature per name), then the names of
///   the content evidence's parts (`crate::content::EVIDENCE_SLOTS`);
/// - [`settings`](StoreIdentity::settings): every setting that changes a
///   stored signature or evidence for the same page, by dotted config key:
///   the hash seed; `analysis_version` (`crate::content::ANALYSIS_VERSION`:
///   bumped when this code computes other signatures or evidence for the
///   same bytes); `extract.mode` and `extract.max_body_bytes` (which text
///   is signed); all of `text.*` (normalisation, stop words, stemming, the
///   language detection that picks stop words and stemmer); and what each
///   detector reports through
///   [`Detector::signature_settings`](neardup_api::Detector::signature_settings)
///   (`simhash.shingle`, `simhash.weights`, `chunks.chunker`,
///   `chunks.avg_size`, `chunks.min_size`, `chunks.max_size`,
///   `chunks.window`; the plugins' shingles, sketch sizes, moduli, windows,
///   e.g. `plugins.minhash.num_perm`; a plugin that does not say, such as
///   `multiref`, counts with its whole `[plugins.NAME]` table).
///
/// Left out on purpose, so they may change between runs over one index:
/// decision thresholds (`chunks.duplicate`, `chunks.near_duplicate`,
/// `chunks.containment`, `chunks.containment_min_chunks`,
/// `simhash.max_distance`, the plugins' thresholds, `decide.*`:
/// `min_terms`, `min_coverage`, `index_near_duplicates`), parameters of the
/// derived candidate indexes (`chunks.max_postings`, the simhash tables,
/// LSH bands and rows), `index.*` (ttl, recrawl rule, cache size),
/// `extract.max_links` and everything under `crawl`.
/// A detector's `enabled` switch changes the chain, which is checked as
/// such.
///
/// # Indexes written before settings were recorded
/// Older indexes (redb format 1 and 2, Redis log format 1) recorded only a
/// fingerprint: a hash of the whole extract, text, simhash, chunks and
/// plugins sections, thresholds included. Such an index opens when that
/// fingerprint equals [`legacy_fingerprint`](StoreIdentity::legacy_fingerprint)
/// (it was built with exactly this config), and its identity is then
/// rewritten in the new form; otherwise it is refused with a message saying
/// to open it once with the config it was built with, or to rebuild it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreIdentity {
    /// Detector names, in chain order (one stored signature per name),
    /// then the names of the content evidence's parts.
    pub detectors: Vec<String>,
    /// Dotted config key -> value (as JSON) of every setting that changes
    /// stored signatures or evidence (see the rule above).
    pub settings: BTreeMap<String, String>,
    /// The fingerprint an index written before settings were recorded has
    /// for this config; `None` accepts no such index. Not stored.
    #[serde(skip)]
    pub legacy_fingerprint: Option<u64>,
}

/// The identity as indexes before settings were recorded stored it.
#[cfg(any(feature = "redb", feature = "redis"))]
#[derive(Debug, Deserialize)]
pub(crate) struct LegacyIdentity {
    pub(crate) detectors: Vec<String>,
    pub(crate) fingerprint: u64,
}

impl StoreIdentity {
    /// The detector chain: the names before the content evidence's parts
    /// (`crate::content::EVIDENCE_SLOTS`); a record holds one signature per
    /// name of the chain.
    pub fn chain(&self) -> &[String] {
        chain_of(&self.detectors)
    }

    /// A stable hash of the detector names and settings (for metadata such
    /// as an export's; the store compares the settings themselves).
    pub fn fingerprint(&self) -> u64 {
        let mut bytes = Vec::new();
        for name in &self.detectors {
            bytes.extend_from_slice(name.as_bytes());
            bytes.push(0);
        }
        for (key, value) in &self.settings {
            bytes.extend_from_slice(key.as_bytes());
            bytes.push(b'=');
            bytes.extend_from_slice(value.as_bytes());
            bytes.push(0);
        }
        neardup_api::hash64(&bytes)
    }

    /// Why an index built with `self` cannot be opened with `now`, or
    /// `None` if it can: names the chains, or each differing setting with
    /// both values. The caller adds what to do instead.
    pub fn mismatch(&self, now: &StoreIdentity) -> Option<String> {
        if let Some(why) = chain_mismatch(&self.detectors, &now.detectors) {
            return Some(why);
        }
        let keys: std::collections::BTreeSet<&String> =
            self.settings.keys().chain(now.settings.keys()).collect();
        let shown = |v: Option<&String>| v.map_or("(not recorded)".to_owned(), Clone::clone);
        let differing: Vec<String> = keys
            .into_iter()
            .filter(|k| self.settings.get(*k) != now.settings.get(*k))
            .map(|k| {
                format!(
                    "`{k}` = {} in the index, {} now",
                    shown(self.settings.get(k)),
                    shown(now.settings.get(k))
                )
            })
            .collect();
        (!differing.is_empty()).then(|| {
            format!(
                "built with other signature settings ({}): signatures made with other \
                 settings are not comparable",
                differing.join(", ")
            )
        })
    }

    /// Why an index whose identity was stored in the old form (`stored`)
    /// cannot be opened with `self`, or `None` if it was built with exactly
    /// this config.
    #[cfg(any(feature = "redb", feature = "redis"))]
    pub(crate) fn legacy_mismatch(&self, stored: &LegacyIdentity) -> Option<String> {
        if let Some(why) = chain_mismatch(&stored.detectors, &self.detectors) {
            return Some(why);
        }
        (self.legacy_fingerprint != Some(stored.fingerprint)).then(|| {
            format!(
                "built by an older neardup that recorded only a fingerprint of all its \
                 settings, thresholds included ({:016x}; this config gives {}), so it cannot \
                 tell which setting differs: open it once with the config it was built with \
                 (that records its settings, and later threshold changes are accepted), or \
                 rebuild it",
                stored.fingerprint,
                self.legacy_fingerprint
                    .map_or("none".to_owned(), |f| format!("{f:016x}"))
            )
        })
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

/// The names before the evidence slots.
fn chain_of(detectors: &[String]) -> &[String] {
    let end = detectors
        .iter()
        .position(|n| crate::content::EVIDENCE_SLOTS.contains(&n.as_str()))
        .unwrap_or(detectors.len());
    &detectors[..end]
}

/// Why an index with detector slots `stored` cannot be read with `now`.
fn chain_mismatch(stored: &[String], now: &[String]) -> Option<String> {
    if stored == now {
        return None;
    }
    if chain_of(stored) == chain_of(now) {
        return Some(
            "built by an older neardup, without the content evidence every verdict now \
             rests on (`content.*`): rebuild it with this version"
                .into(),
        );
    }
    Some(format!(
        "built with detector chain [{}], opened with [{}]",
        chain_of(stored).join(", "),
        chain_of(now).join(", ")
    ))
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

/// The current time in Unix seconds (0 if the clock is before 1970).
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
