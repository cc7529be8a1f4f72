//! [`RedisStore`]: one document store shared by many worker processes,
//! kept in Redis as an append-only log.
//!
//! # Layout (namespace `NS`, from `?ns=NS`, default `default`)
//! - `{nd:NS}:log` — a list; entry `i` is either a stored document (its
//!   record: key, URL, site, kind, one signature per detector of the
//!   chain, the content evidence, postcard-encoded like
//!   [`super::RedbStore`]'s `docs` table without the fetch time) or a tombstone
//!   naming an earlier entry. **A document's id is its position in the
//!   log**, so ids are assigned in insertion order and never reused; a
//!   tombstone takes a position too (that id simply never holds a record).
//! - `{nd:NS}:meta` — postcard of (format version, [`StoreIdentity`]):
//!   written once by the first worker (`SET NX`); every later worker must
//!   present the same detector chain and signature settings or is refused.
//!
//! Both keys carry the hash tag `{nd:NS}`, so on Redis Cluster a namespace
//! lives in one slot and the check-and-insert script below stays legal
//! (a script may only touch keys of one slot). Sharding is by namespace.
//!
//! # Workers
//! Each worker keeps every record and its candidate indexes in RAM, as with
//! the other stores, plus its position in the log. Before each decision it
//! catches up ([`DocStore::sync`]: one `LRANGE log pos -1`, a single round
//! trip when nothing is new) and applies new records and tombstones to its
//! candidate indexes. A kept page is appended with a Lua script that pushes
//! only if the log length still equals the position the decision was made
//! at ([`DocStore::insert_if_current`]); if another worker appended in
//! between, the worker catches up and decides again. Redis runs scripts one
//! at a time, so of two workers that get copies of one page at the same
//! moment exactly one appends it; the other sees it on catching up and
//! reports a duplicate. Every detector works, plugins included, because the
//! log carries whole signatures.
//!
//! # Older logs
//! Log formats 1 and 2 held the content evidence as signatures after the
//! chain's and no record kind; format 3 held typed records with their sets
//! as varint gaps and key and site in full (format 4 stores them in the
//! redb store's compact forms, [`super::codec`]). The first worker of this
//! build to open such a namespace (with the config it was built with)
//! rewrites it: every entry converted into a new list, which replaces the
//! log and the metadata in one script only if the log did not grow
//! meanwhile (else it starts again). Workers of an older build are refused
//! from then on ("log format 4"): upgrade every worker of a namespace
//! together.
//!
//! # Durability
//! A write is acknowledged once Redis has executed it; whether it survives
//! a Redis restart is Redis's persistence setting (AOF with
//! `appendfsync everysec` or `always` for a crawl that must not lose
//! pages). [`DocStore::flush`] has nothing to do.

use std::sync::Arc;

use neardup_api::{DocId, Signature};
use serde::{Deserialize, Serialize};

use super::codec;
use super::location::RedisLocation;
use super::store::{from_slots, record_bytes, Change, DocRecord, DocStore, RecordKind};
use crate::content::Evidence;
use crate::identity::{LegacyIdentity, StoreIdentity};
use crate::Result;
use crate::{Error, StoreError};

/// Version of the log layout and its metadata; bumped on any incompatible
/// change. Format 2 records the signature settings in the metadata (format
/// 1: a fingerprint; see [`StoreIdentity`]); format 3 logs typed records
/// (kind and evidence as fields of their own); format 4 logs them in the
/// redb store's compact forms ([`super::codec`]).
pub const FORMAT_VERSION: u32 = 4;

/// Entries fetched per `LRANGE` while catching up, so a worker joining a
/// large log never asks Redis for one huge reply.
const SYNC_BATCH: isize = 4096;

/// Appends `ARGV[2]` to the log `KEYS[1]` only if the log still has
/// `ARGV[1]` entries; returns -1 if appended, else the log's length (more:
/// another writer was first; fewer: the log lost entries).
const APPEND_IF_LEN: &str = r"
local n = redis.call('LLEN', KEYS[1])
if n ~= tonumber(ARGV[1]) then return n end
redis.call('RPUSH', KEYS[1], ARGV[2])
return -1
";

/// Replaces the log `KEYS[1]` by the converted list `KEYS[2]` and sets the
/// metadata `KEYS[3]` to `ARGV[2]`, only if the log still has `ARGV[1]`
/// entries and the metadata is still `ARGV[3]`; returns 1 if replaced, 0
/// if another worker wrote meanwhile (the converted list is deleted).
const REPLACE_LOG: &str = r"
if redis.call('LLEN', KEYS[1]) ~= tonumber(ARGV[1]) or redis.call('GET', KEYS[3]) ~= ARGV[3] then
  redis.call('DEL', KEYS[2])
  return 0
end
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('RENAME', KEYS[2], KEYS[1])
else
  redis.call('DEL', KEYS[1])
end
redis.call('SET', KEYS[3], ARGV[2])
return 1
";

/// Connect, read and write timeout: a stalled server must not hang a
/// worker forever.
const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// A log entry as written (borrowing): a record in the stored form both
/// stores share ([`codec::RecordRef`]), or a tombstone.
#[derive(Serialize)]
enum EntryRef<'a> {
    Add(codec::RecordRef<'a>),
    Remove(DocId),
}

impl<'a> EntryRef<'a> {
    /// The entry that adds `r`.
    fn add(r: &'a DocRecord) -> EntryRef<'a> {
        EntryRef::Add(codec::RecordRef::new(r))
    }
}

/// A log entry as read.
#[derive(Deserialize)]
enum EntryOwned<'a> {
    #[serde(borrow)]
    Add(codec::RecordOwned<'a>),
    Remove(DocId),
}

/// A log entry of format 3 (sets as varint gaps, key and site in full),
/// read only to rewrite the log.
#[derive(Deserialize)]
enum EntryV3 {
    Add {
        key: String,
        url: String,
        site: String,
        kind: RecordKind,
        signatures: Vec<Signature>,
        evidence: Evidence,
    },
    Remove(DocId),
}

/// A log entry of formats 1 and 2, read only to rewrite the log.
#[derive(Deserialize)]
enum EntryV2 {
    Add {
        key: String,
        url: String,
        site: String,
        signatures: Vec<Signature>,
    },
    Remove(DocId),
}

/// Rewrites a log of format `from` (1 to 3) in this build's format (see
/// "Older logs" in the module docs): `meta` is (the metadata as read, the
/// metadata to write).
/// Starts again while other workers write; fails on an entry that cannot
/// be converted, leaving the log as it was.
fn rewrite_log(
    con: &mut redis::Connection,
    location: &RedisLocation,
    identity: &StoreIdentity,
    from: u32,
    (old_meta, new_meta): (&[u8], &[u8]),
) -> std::result::Result<(), StoreError> {
    let (log_key, meta_key) = (location.log_key(), location.meta_key());
    // Same hash tag as the log: one Redis Cluster slot.
    let tmp_key = format!("{log_key}:rewrite");
    let replace = redis::Script::new(REPLACE_LOG);
    loop {
        let len: isize = redis::cmd("LLEN")
            .arg(&log_key)
            .query(con)
            .map_err(|e| StoreError::Backend(format!("cannot read {log_key}: {e}")))?;
        let _: () = redis::cmd("DEL")
            .arg(&tmp_key)
            .query(con)
            .map_err(|e| StoreError::Backend(format!("cannot write {tmp_key}: {e}")))?;
        let mut start = 0isize;
        while start < len {
            let end = (start + SYNC_BATCH).min(len) - 1;
            let entries: Vec<Vec<u8>> = redis::cmd("LRANGE")
                .arg(&log_key)
                .arg(start)
                .arg(end)
                .query(con)
                .map_err(|e| StoreError::Backend(format!("cannot read {log_key}: {e}")))?;
            if entries.is_empty() {
                break;
            }
            let mut converted = Vec::with_capacity(entries.len());
            for (id, bytes) in (start..).zip(&entries) {
                converted.push(convert_entry(identity, from, bytes).map_err(|why| {
                    StoreError::Corrupt(format!(
                        "log entry {id} cannot be converted to log format {FORMAT_VERSION}: {why}"
                    ))
                })?);
            }
            let _: () = redis::cmd("RPUSH")
                .arg(&tmp_key)
                .arg(converted)
                .query(con)
                .map_err(|e| StoreError::Backend(format!("cannot write {tmp_key}: {e}")))?;
            start += entries.len() as isize;
        }
        let replaced: i64 = replace
            .key(&log_key)
            .key(&tmp_key)
            .key(&meta_key)
            .arg(start)
            .arg(new_meta)
            .arg(old_meta)
            .invoke(con)
            .map_err(|e| StoreError::Backend(format!("cannot replace {log_key}: {e}")))?;
        if replaced == 1 {
            tracing::info!(log = %log_key, entries = start, "Redis log rewritten in format {FORMAT_VERSION}");
            return Ok(());
        }
        // Another worker wrote (an older build's, or this build's
        // rewrite finished first): read the metadata again.
        let now: Vec<u8> = redis::cmd("GET")
            .arg(&meta_key)
            .query(con)
            .map_err(|e| StoreError::Backend(format!("cannot read {meta_key}: {e}")))?;
        if now == new_meta {
            return Ok(());
        }
        if now != old_meta {
            return Err(StoreError::Backend(format!(
                "{meta_key} changed while the log was being rewritten: open the store again"
            )));
        }
    }
}

/// One log entry of format `from` (1 to 3) in this build's format.
fn convert_entry(
    identity: &StoreIdentity,
    from: u32,
    bytes: &[u8],
) -> std::result::Result<Vec<u8>, String> {
    let record = if from == 3 {
        match postcard::from_bytes(bytes).map_err(|e| e.to_string())? {
            EntryV3::Add {
                key,
                url,
                site,
                kind,
                signatures,
                evidence,
            } => DocRecord {
                key,
                url,
                site,
                kind,
                signatures,
                evidence,
                fetched_at: 0,
            },
            EntryV3::Remove(id) => return encode_entry(&EntryRef::Remove(id)),
        }
    } else {
        match postcard::from_bytes(bytes).map_err(|e| e.to_string())? {
            EntryV2::Add {
                key,
                url,
                site,
                signatures,
            } => from_slots(identity, (key, url, site), signatures, 0)?,
            EntryV2::Remove(id) => return encode_entry(&EntryRef::Remove(id)),
        }
    };
    encode_entry(&EntryRef::add(&record))
}

fn encode_entry(entry: &EntryRef<'_>) -> std::result::Result<Vec<u8>, String> {
    postcard::to_allocvec(entry).map_err(|e| e.to_string())
}

/// A connection with [`TIMEOUT`] on connect, reads and writes.
fn connect(client: &redis::Client) -> std::result::Result<redis::Connection, String> {
    let con = client
        .get_connection_with_timeout(TIMEOUT)
        .map_err(|e| format!("cannot connect to Redis: {e}"))?;
    con.set_read_timeout(Some(TIMEOUT))
        .and_then(|()| con.set_write_timeout(Some(TIMEOUT)))
        .map_err(|e| format!("cannot set socket timeouts: {e}"))?;
    Ok(con)
}

/// The document store shared through Redis. See the module docs.
pub struct RedisStore {
    client: redis::Client,
    /// `None` after a failed command: the next one reconnects (a reply may
    /// still be pending on the old socket, so it is never reused).
    con: Option<redis::Connection>,
    location: RedisLocation,
    log_key: String,
    append: Arc<redis::Script>,
    detectors: usize,
    /// Every log position read so far: `Some` for a live record.
    records: Vec<Option<Arc<DocRecord>>>,
    live: usize,
    bytes: usize,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("location", &self.location.display())
            .field("position", &self.records.len())
            .field("live", &self.live)
            .finish()
    }
}

impl RedisStore {
    /// Connects to the index at `location` (an empty namespace is created)
    /// and checks its identity. Reads no record yet: the first
    /// [`DocStore::sync`] loads the whole log.
    ///
    /// # Errors
    /// [`Error::Store`] if Redis cannot be reached (within 5 s), the
    /// namespace was created with another detector chain, signature
    /// settings or format, or its metadata is corrupt.
    pub fn open(location: &RedisLocation, identity: &StoreIdentity) -> Result<RedisStore> {
        let shown = location.display();
        let err = |message: String| Error::store(shown.clone(), StoreError::Backend(message));
        let store_error = |kind: StoreError| Error::store(shown.clone(), kind);
        let client = redis::Client::open(location.url.as_str())
            .map_err(|e| err(format!("bad Redis URL: {e}")))?;
        let mut con = connect(&client).map_err(err)?;
        let meta = postcard::to_allocvec(&(FORMAT_VERSION, identity))
            .map_err(|e| err(format!("cannot encode identity: {e}")))?;
        let meta_key = location.meta_key();
        // The first worker writes the identity; everyone compares with it.
        let _: Option<String> = redis::cmd("SET")
            .arg(&meta_key)
            .arg(&meta)
            .arg("NX")
            .query(&mut con)
            .map_err(|e| err(format!("cannot write {meta_key}: {e}")))?;
        let stored: Vec<u8> = redis::cmd("GET")
            .arg(&meta_key)
            .query(&mut con)
            .map_err(|e| err(format!("cannot read {meta_key}: {e}")))?;
        let corrupt = |e: postcard::Error| {
            store_error(StoreError::Corrupt(format!("{meta_key} is corrupt: {e}")))
        };
        let (format, rest): (u32, &[u8]) = postcard::take_from_bytes(&stored).map_err(corrupt)?;
        let refused = |why: String, stored: StoreIdentity| {
            store_error(StoreError::Incompatible {
                why: format!(
                    "{why}; use the same detector chain and signature settings, or another \
                     namespace (?ns=NAME)"
                ),
                stored: Box::new(stored),
                wanted: Box::new(identity.clone()),
            })
        };
        match format {
            2..=FORMAT_VERSION => {
                let stored: StoreIdentity = postcard::from_bytes(rest).map_err(corrupt)?;
                if let Some(why) = stored.mismatch(identity) {
                    return Err(refused(why, stored));
                }
            }
            1 => {
                // Format 1 recorded a fingerprint only: accepted when this
                // config is the one it was built with, and then recorded in
                // the new form when the log is rewritten below.
                let stored: LegacyIdentity = postcard::from_bytes(rest).map_err(corrupt)?;
                if let Some(why) = identity.legacy_mismatch(&stored) {
                    return Err(refused(why, stored.identity()));
                }
            }
            other => {
                return Err(store_error(StoreError::Unsupported(format!(
                    "log format {other}, this build reads {FORMAT_VERSION}"
                ))))
            }
        }
        if format < FORMAT_VERSION {
            rewrite_log(&mut con, location, identity, format, (&stored, &meta))
                .map_err(store_error)?;
        }
        Ok(RedisStore {
            client,
            con: Some(con),
            location: location.clone(),
            log_key: location.log_key(),
            append: Arc::new(redis::Script::new(APPEND_IF_LEN)),
            detectors: identity.chain().len(),
            records: Vec::new(),
            live: 0,
            bytes: 0,
        })
    }

    /// Where this store lives (password hidden).
    pub fn location(&self) -> String {
        self.location.display()
    }

    /// The number of log entries applied so far (records and tombstones).
    pub fn position(&self) -> usize {
        self.records.len()
    }

    /// Runs `f` on the connection, reconnecting first if the last command
    /// failed; any failure drops the connection.
    fn run<T>(
        &mut self,
        what: &str,
        f: impl FnOnce(&mut redis::Connection) -> redis::RedisResult<T>,
    ) -> Result<T> {
        let mut con = match self.con.take() {
            Some(con) => con,
            None => connect(&self.client).map_err(|m| self.err(m))?,
        };
        match f(&mut con) {
            Ok(v) => {
                self.con = Some(con);
                Ok(v)
            }
            Err(e) => Err(self.err(format!("{what}: {e}"))),
        }
    }

    /// Redis failed, or refused what this worker asked.
    fn err(&self, message: String) -> Error {
        Error::store(self.location.display(), StoreError::Backend(message))
    }

    /// The log is damaged.
    fn corrupt(&self, message: String) -> Error {
        Error::store(self.location.display(), StoreError::Corrupt(message))
    }

    /// The next id, as a `u32`, or an error when the id space is exhausted.
    fn next_id(&self) -> Result<DocId> {
        DocId::try_from(self.records.len()).map_err(|_| {
            Error::store(
                self.location.display(),
                StoreError::Full(
                    "more than u32::MAX log entries: the id space is exhausted".into(),
                ),
            )
        })
    }

    fn encode(&self, entry: &EntryRef<'_>) -> Result<Vec<u8>> {
        postcard::to_allocvec(entry).map_err(|e| self.err(format!("cannot encode entry: {e}")))
    }

    fn push_live(&mut self, record: Arc<DocRecord>) {
        self.bytes += record_bytes(&record);
        self.live += 1;
        self.records.push(Some(record));
    }

    fn take(&mut self, id: DocId) -> Option<Arc<DocRecord>> {
        let r = self.records.get_mut(id as usize).and_then(Option::take)?;
        self.live -= 1;
        self.bytes -= record_bytes(&r);
        Some(r)
    }
}

impl DocStore for RedisStore {
    /// Appends unconditionally is not possible without losing the dense
    /// log positions, so this is [`DocStore::insert_if_current`] and fails
    /// when another worker wrote since the last [`DocStore::sync`].
    fn insert(&mut self, record: DocRecord) -> Result<DocId> {
        match self.insert_if_current(record)? {
            Ok(id) => Ok(id),
            Err(_) => {
                Err(self.err("another worker appended since the last sync: sync and retry".into()))
            }
        }
    }

    fn insert_if_current(
        &mut self,
        record: DocRecord,
    ) -> Result<std::result::Result<DocId, DocRecord>> {
        let id = self.next_id()?;
        let bytes = self.encode(&EntryRef::add(&record))?;
        let script = Arc::clone(&self.append);
        let key = self.log_key.clone();
        let what = format!("append to {key}");
        let len: i64 = self.run(&what, |con| script.key(&key).arg(id).arg(bytes).invoke(con))?;
        if len >= 0 {
            if len < i64::from(id) {
                // Retrying could never succeed: the log lost entries this
                // worker has applied (Redis restarted without persistence,
                // or the key was deleted).
                return Err(self.err(format!(
                    "the log has {len} entries but this worker has read {id}: Redis lost \
                     data (restarted without persistence, or the key was deleted); \
                     restart the workers on a fresh namespace"
                )));
            }
            return Ok(Err(record));
        }
        self.push_live(Arc::new(record));
        Ok(Ok(id))
    }

    fn get(&self, id: DocId) -> Result<Option<Arc<DocRecord>>> {
        Ok(self.records.get(id as usize).and_then(Clone::clone))
    }

    /// Appends a tombstone (unconditionally: removing is idempotent) and
    /// forgets the record here; other workers drop it on their next sync.
    fn remove(&mut self, id: DocId) -> Result<Option<Arc<DocRecord>>> {
        if self.get(id)?.is_none() {
            return Ok(None);
        }
        let bytes = self.encode(&EntryRef::Remove(id))?;
        let key = self.log_key.clone();
        let what = format!("append tombstone to {key}");
        let _: i64 = self.run(&what, |con| {
            redis::cmd("RPUSH").arg(&key).arg(bytes).query(con)
        })?;
        // The tombstone's own position is filled when sync reads it.
        Ok(self.take(id))
    }

    fn for_each(&self, f: &mut dyn FnMut(DocId, &Arc<DocRecord>)) -> Result<()> {
        for (id, rec) in (0..).zip(&self.records) {
            if let Some(rec) = rec {
                f(id, rec);
            }
        }
        Ok(())
    }

    fn sync(&mut self, apply: &mut dyn FnMut(Change<'_>)) -> Result<()> {
        loop {
            let start = self.records.len() as isize;
            let key = self.log_key.clone();
            let what = format!("read {key}");
            let entries: Vec<Vec<u8>> = self.run(&what, |con| {
                redis::cmd("LRANGE")
                    .arg(&key)
                    .arg(start)
                    .arg(start + SYNC_BATCH - 1)
                    .query(con)
            })?;
            let n = entries.len();
            for bytes in entries {
                let id = self.next_id()?;
                // A corrupt entry stops the worker rather than being
                // skipped: every worker must see the same log.
                let entry: EntryOwned = postcard::from_bytes(&bytes).map_err(|e| {
                    self.corrupt(format!(
                        "log entry {id} is corrupt ({} bytes): {e}",
                        bytes.len()
                    ))
                })?;
                match entry {
                    EntryOwned::Add(stored) => {
                        // A Redis log keeps no fetch times.
                        let rec = stored.into_record(self.detectors, 0).map_err(|why| {
                            self.corrupt(format!("log entry {id} is corrupt: {why}"))
                        })?;
                        let rec = Arc::new(rec);
                        self.push_live(Arc::clone(&rec));
                        apply(Change::Added(id, &rec));
                    }
                    EntryOwned::Remove(target) => {
                        self.records.push(None);
                        if let Some(rec) = self.take(target) {
                            apply(Change::Removed(target, &rec));
                        }
                    }
                }
            }
            if n < SYNC_BATCH as usize {
                return Ok(());
            }
        }
    }

    fn len(&self) -> usize {
        self.live
    }

    fn heap_bytes(&self) -> usize {
        self.bytes + self.records.capacity() * std::mem::size_of::<Option<Arc<DocRecord>>>()
    }

    fn is_remote(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn location_parses_namespace_and_db() {
        let l = RedisLocation::parse("redis://127.0.0.1:6379/2?ns=site-a").unwrap();
        assert_eq!(l.url, "redis://127.0.0.1:6379/2");
        assert_eq!(l.namespace, "site-a");
        assert_eq!(l.log_key(), "{nd:site-a}:log");
        assert_eq!(l.meta_key(), "{nd:site-a}:meta");
        let d = RedisLocation::parse("redis://localhost").unwrap();
        assert_eq!(d.namespace, "default");
    }

    #[test]
    fn location_rejects_bad_input_clearly() {
        for (text, needle) in [
            ("http://x:1", "scheme"),
            ("redis://x:1?db=3", "unknown parameter"),
            ("redis://x:1?ns=a}b", "namespace"),
            ("redis://x:1?ns=", "namespace"),
            ("not a url", "not a redis"),
        ] {
            let e = RedisLocation::parse(text).unwrap_err().to_string();
            assert!(e.contains(needle), "{text}: {e}");
        }
    }

    #[test]
    fn password_is_hidden_in_messages() {
        let l = RedisLocation::parse("redis://:secret@127.0.0.1:1/0?ns=a").unwrap();
        assert!(!l.display().contains("secret"), "{}", l.display());
        let e = RedisLocation::parse("redis://:secret@h:1?x=1")
            .unwrap_err()
            .to_string();
        assert!(!e.contains("secret"), "{e}");
    }
}
