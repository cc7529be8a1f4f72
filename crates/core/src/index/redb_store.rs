//! [`RedbStore`]: the document store in an embedded ACID file (redb).
//!
//! # Layout
//! - table `groups`: consecutive records grouped several to a value of
//!   at most 8 KiB, one leaf (`super::redb_group`: redb splits a full
//!   leaf in half, so one record a value left leaves 68% full), keyed by
//!   an id at or below the group's first. A group's first record is
//!   written alone, each other against it (`super::delta`: what it shares
//!   with the first, a URL prefix and the values of its sets, is written
//!   as positions in the first's): key, url, site, kind, fetch time, one
//!   signature per detector of the chain, the content evidence; every
//!   sorted set of hashes (the chunk set, the evidence's blocks, shingle
//!   sample and title words) in Rice codes, about `log2(2^32 / n) + 1.5`
//!   bits a value for a set of n (`super::codec`);
//! - table `meta`: `format` (u32 LE, [`FORMAT_VERSION`]), `next_id` (u32 LE,
//!   the id the next insert gets: ids are never reused, also after removals
//!   of the highest id), `identity` (postcard [`StoreIdentity`]: detector
//!   chain and signature settings; formats 1 and 2: chain and a config
//!   fingerprint, upgraded on open when the config matches).
//!
//! Older formats are upgraded in place when opened, each in one
//! transaction (a crash during an upgrade leaves the file as it was):
//! - format 1 (before fetch times) had no time in its records and a `urls`
//!   table: every record gets the time of the upgrade as its fetch time,
//!   and `urls` is dropped (the URL map is derived state, rebuilt by the
//!   deduper on open);
//! - format 6 stored the same groups in a table `records`, each record
//!   alone in format 5's form: they are written again into `groups` and
//!   `records` is dropped;
//! - format 5 stored its records one to a value in a table `docs`: they
//!   are grouped into `groups` and `docs` is dropped (every older format
//!   is upgraded the same way, after the steps below);
//! - format 4 stored the same fields as format 5, its sets as varint
//!   gaps and its key and site in full: each record is written again in
//!   format 5's compact forms (`super::codec`);
//! - formats 1 to 3 stored the content evidence as five signatures after
//!   the chain's (`crate::content::EVIDENCE_SLOTS`) and no kind: a record
//!   whose shingle sample was empty (modulus 0) becomes an observation,
//!   every other one a kept page (an indexed near duplicate cannot be told
//!   from a kept page in those formats).
//!
//! # Memory
//! Records live in the file. RAM holds a bounded cache of them: a
//! least-recently-used cache of decoded records (3/4 of the budget,
//! counted in record heap bytes) and redb's own page cache (1/4), plus the
//! writes not yet flushed. A read that misses the cache reads the record's
//! group from the file (one B-tree lookup through a read transaction kept
//! open until the next commit: the same one page a lone record took) and
//! decodes that record and the group's first, which it is written
//! against. The candidate indexes, which the deduper keeps
//! in RAM, are rebuilt from the file on open.
//!
//! # Durability contract
//! `insert`, `remove` and `touch` are buffered (reads see them at once);
//! [`DocStore::flush`] commits every buffered write in one redb
//! transaction with `Durability::Immediate` (fsync), and only then are
//! they durable. A crash loses exactly the writes since the last successful
//! flush, and those ids are given out again after reopening (nobody can
//! have been told about them if callers acknowledge only after a flush, as
//! the batch driver does: it flushes each window before writing its
//! verdicts). Dropping the store flushes on a best-effort basis. Commits
//! are two-phase (redb's `set_two_phase_commit`): the newest commit is
//! always whole, so a checksum failure in it means damage.
//!
//! # Damaged files
//! Every open checks what redb's header does not checksum
//! ([`super::redb_file`]), then runs redb's integrity check (every page
//! checksum verified, the allocator state rebuilt: after a crash whose
//! recovery bit was lost, too), holding redb's writes until both passed. A
//! panic of redb on a damaged file, while opening, reading, committing or
//! closing, is caught and becomes [`Error::Store`]; from then on the store
//! writes nothing to the file (see `RedbStore::guard`). What is detected
//! and what cannot be: docs/usage.md, "When the index file is damaged".

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use neardup_api::DocId;
use redb::{Database, ReadOnlyTable, ReadableTable, TableDefinition, WriteTransaction};

use super::record_cache::{CacheStats, Lru};
use super::redb_errors::{
    check_file, corrupt, err, open_error, panicked, redb_error, unsupported, DAMAGED_HINT,
};
use super::redb_file::{caught, check_header, read_header, GuardedFile, Shared};
use super::redb_group::{self as group, Packer};
use super::redb_legacy::read_old;
use super::store::{record_bytes, DocRecord, DocStore};
use crate::identity::{LegacyIdentity, StoreIdentity};
use crate::Result;
use crate::{Error, StoreError};

/// Version of the on-disk layout; bumped on any incompatible change.
/// Format 3 records the signature settings in `identity` (formats 1 and 2:
/// a fingerprint; see [`StoreIdentity`]); format 4 stores typed records
/// (kind and evidence as fields of their own); format 5 stores them
/// compactly ([`super::codec`]: sets in Rice codes, key and site as parts
/// of the URL); format 6 groups consecutive records into one value
/// ([`super::redb_group`]); format 7 writes each record of a group but
/// the first against the first (`super::delta`).
pub const FORMAT_VERSION: u32 = 7;

/// Groups of records ([`super::redb_group`]), keyed by an id at or below
/// their first record's.
const GROUPS: TableDefinition<u32, &[u8]> = TableDefinition::new("groups");
/// Format 6: the same groups, each record alone in format 5's form
/// (dropped by the upgrade to format 7).
const RECORDS_V6: TableDefinition<u32, &[u8]> = TableDefinition::new("records");
/// Formats 1 to 5: id -> one record (dropped by the upgrade to format 6).
const DOCS: TableDefinition<u32, &[u8]> = TableDefinition::new("docs");
/// Format 1 only: URL -> id (dropped by the upgrade to format 2).
const URLS_V1: TableDefinition<&str, u32> = TableDefinition::new("urls");
const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");

/// The `identity` metadata of format 3.
fn encode_identity(path: &Path, identity: &StoreIdentity) -> Result<Vec<u8>> {
    postcard::to_allocvec(identity).map_err(|x| err(path, format!("cannot encode identity: {x}")))
}

/// A write not yet committed: the latest state of one id.
#[derive(Debug)]
enum Pending {
    Put(Arc<DocRecord>),
    Removed,
}

/// A [`DocStore`] in a redb file, with a bounded cache of records in RAM.
/// See the module documentation for the layout, memory and durability.
pub struct RedbStore {
    /// The `docs` table as of the last commit, for cache misses (declared
    /// before `db`: it holds a read transaction of it).
    reader: Mutex<Option<ReadOnlyTable<u32, &'static [u8]>>>,
    /// `None` only while dropping (see the `Drop` impl).
    db: Option<Database>,
    /// The file under redb: writes held while opening, refused once damaged.
    file: Arc<Shared>,
    /// Why the store stopped: redb panicked on the file, a read found it
    /// damaged, or a commit failed. Nothing is written to the file after
    /// that, not even on drop; every later call returns this error.
    damaged: OnceLock<String>,
    path: PathBuf,
    /// Signatures per record (the chain's length), checked on every read.
    detectors: usize,
    next_id: u32,
    live: usize,
    pending: BTreeMap<DocId, Pending>,
    pending_bytes: usize,
    cache: Mutex<Lru>,
}

impl std::fmt::Debug for RedbStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedbStore")
            .field("path", &self.path)
            .field("len", &self.live)
            .field("pending", &self.pending.len())
            .finish()
    }
}

fn u32_of(path: &Path, name: &str, bytes: &[u8]) -> Result<u32> {
    let arr: [u8; 4] = bytes.try_into().map_err(|_| {
        corrupt(
            path,
            format!("metadata `{name}` is not 4 bytes: corrupt index"),
        )
    })?;
    Ok(u32::from_le_bytes(arr))
}

/// A write transaction with two-phase commit: the commit is made the
/// primary only once its pages are on disk, so redb's recovery trusts it
/// and a checksum failure in it is an error (with one-phase commit redb
/// would roll back to the commit before, silently losing the last one).
fn begin_write(db: &Database, path: &Path) -> Result<WriteTransaction> {
    let mut txn = db.begin_write().map_err(|e| redb_error(path, e.into()))?;
    txn.set_two_phase_commit(true);
    Ok(txn)
}

/// The metadata of an opened file.
struct Meta {
    next_id: u32,
    format: u32,
}

impl RedbStore {
    /// Opens the index file at `path` with the default record cache
    /// (`index.cache_bytes`), creating it if it does not exist.
    ///
    /// # Errors
    /// As [`RedbStore::open_with`].
    pub fn open(path: &Path, identity: &StoreIdentity) -> Result<RedbStore> {
        let cache = super::config::IndexConfig::default().cache_bytes;
        Self::open_with(path, identity, cache)
    }

    /// Opens the index file at `path`, creating it if it does not exist,
    /// with `cache_bytes` of RAM for records (see the module docs). A
    /// format-1 file is upgraded in place, its records stamped with `now`
    /// (Unix seconds) as their fetch time.
    ///
    /// # Errors
    /// [`Error::Store`] if the file cannot be opened (corrupt, not a redb
    /// file, locked by another process), is not a neardup index, has
    /// another format version, or was built with another identity (the
    /// message names both chains).
    pub fn open_with(
        path: &Path,
        identity: &StoreIdentity,
        cache_bytes: usize,
    ) -> Result<RedbStore> {
        Self::open_at(path, identity, cache_bytes, super::store::unix_now())
    }

    /// [`RedbStore::open_with`] with the upgrade time given (for tests).
    ///
    /// # Errors
    /// As [`RedbStore::open_with`].
    pub fn open_at(
        path: &Path,
        identity: &StoreIdentity,
        cache_bytes: usize,
        now: u64,
    ) -> Result<RedbStore> {
        if !path.exists() {
            Self::create_new(path, identity)?;
        }
        check_file(path)?;
        let header = read_header(path).map_err(|e| err(path, format!("cannot open: {e}")))?;
        check_header(&header)
            .map_err(|why| corrupt(path, format!("cannot open: {why}: {DAMAGED_HINT}")))?;
        let file = Shared::open(path).map_err(|e| open_error(path, e))?;
        match caught(|| Self::open_checked(path, identity, cache_bytes, now, &file)) {
            Ok(opened) => opened,
            Err(what) => {
                file.freeze();
                Err(corrupt(path, panicked(&what)))
            }
        }
    }

    /// [`RedbStore::open_at`] once the file exists, is a regular file and
    /// its header passed [`check_header`]; redb's writes are held by
    /// `file` until its integrity check passed, and refused if anything
    /// fails.
    fn open_checked(
        path: &Path,
        identity: &StoreIdentity,
        cache_bytes: usize,
        now: u64,
        file: &Arc<Shared>,
    ) -> Result<RedbStore> {
        let page_cache = (cache_bytes / 4).max(1 << 20);
        let mut db = Database::builder()
            .set_cache_size(page_cache)
            .create_with_backend(GuardedFile(Arc::clone(file)))
            .map_err(|e| {
                file.freeze();
                open_error(path, e)
            })?;
        let (meta, live) = match Self::check_db(&mut db, path, identity, now, file) {
            Ok(checked) => checked,
            Err(e) => {
                // Before `db` is dropped: its close writes nothing.
                file.freeze();
                return Err(e);
            }
        };
        Ok(RedbStore {
            reader: Mutex::new(None),
            db: Some(db),
            file: Arc::clone(file),
            damaged: OnceLock::new(),
            path: path.to_owned(),
            detectors: identity.chain().len(),
            next_id: meta.next_id,
            live,
            pending: BTreeMap::new(),
            pending_bytes: 0,
            cache: Mutex::new(Lru::new(cache_bytes - cache_bytes / 4)),
        })
    }

    /// Checks an opened file: redb's integrity check (every checksum; the
    /// allocator state rebuilt if it was stale, as after a crash whose
    /// recovery bit was lost), then the held writes go to the file, then
    /// the metadata and the records' ids. Returns the metadata and the
    /// number of records.
    fn check_db(
        db: &mut Database,
        path: &Path,
        identity: &StoreIdentity,
        now: u64,
        file: &Shared,
    ) -> Result<(Meta, usize)> {
        let clean = db.check_integrity().map_err(|e| {
            corrupt(
                path,
                format!("redb's integrity check failed ({e}): {DAMAGED_HINT}"),
            )
        })?;
        if !clean {
            tracing::warn!(
                path = %path.display(),
                "index file was not closed cleanly: redb repaired its allocator state \
                 (every checksum verified)"
            );
        }
        file.apply()
            .map_err(|e| err(path, format!("cannot write: {e}")))?;
        let meta = Self::check_meta(db, path, identity)?;
        if meta.format < FORMAT_VERSION {
            Self::upgrade(db, path, identity, meta.format, now)?;
            // Every record was written again in one transaction, so the
            // file holds the old pages as free space (a rust-doc index of
            // 72 MB grew to 144); moving the live pages down gives most
            // of it back (62 MB). Failing to is no error: the file is whole.
            if let Err(e) = db.compact() {
                tracing::warn!(path = %path.display(), "index not compacted after its upgrade: {e}");
            }
        }
        let read = db.begin_read().map_err(|e| redb_error(path, e.into()))?;
        let records = read
            .open_table(GROUPS)
            .map_err(|e| redb_error(path, e.into()))?;
        let (live, last) = group::census(path, &records)?;
        let live = usize::try_from(live).map_err(|_| err(path, "too many records"))?;
        if let Some(last) = last {
            if last >= meta.next_id {
                return Err(corrupt(
                    path,
                    format!(
                        "record id {last} is not below next_id {}: corrupt index",
                        meta.next_id
                    ),
                ));
            }
        }
        Ok((meta, live))
    }

    /// Rewrites every record of format `from` (1 and 3 to 6; a format-2
    /// file's identity was brought to format 3 by
    /// [`RedbStore::check_meta`]) in this build's format, grouped into
    /// `groups` ([`read_old`]: a format-1 record gets `now` as its fetch
    /// time), and drops the old tables; one transaction, which also sets
    /// the format.
    fn upgrade(
        db: &Database,
        path: &Path,
        identity: &StoreIdentity,
        from: u32,
        now: u64,
    ) -> Result<()> {
        let e = |x: redb::Error| redb_error(path, x);
        let detectors = identity.chain().len();
        let txn = begin_write(db, path)?;
        {
            let mut records = txn.open_table(GROUPS).map_err(|x| e(x.into()))?;
            let mut packer = Packer::new(None);
            let mut add = |id: DocId, bytes: &[u8]| -> Result<()> {
                let damaged = |x: String| corrupt(path, format!("record {id} is corrupt: {x}"));
                let record = read_old(bytes, from, identity, now, detectors).map_err(damaged)?;
                let full = packer
                    .push(id, &Arc::new(record))
                    .map_err(|why| err(path, format!("cannot encode {why}")))?;
                if let Some((key, group)) = full {
                    records
                        .insert(key, group.as_slice())
                        .map_err(|x| e(x.into()))?;
                }
                Ok(())
            };
            if from == 6 {
                let old = txn.open_table(RECORDS_V6).map_err(|x| e(x.into()))?;
                for entry in old.iter().map_err(|x| e(x.into()))? {
                    let (key, bytes) = entry.map_err(|x| e(x.into()))?;
                    let key = key.value();
                    for (id, record) in group::entries(key, bytes.value())
                        .map_err(|x| group::damaged(path, key, &x))?
                    {
                        add(id, record)?;
                    }
                }
            } else {
                let docs = txn.open_table(DOCS).map_err(|x| e(x.into()))?;
                for entry in docs.iter().map_err(|x| e(x.into()))? {
                    let (id, bytes) = entry.map_err(|x| e(x.into()))?;
                    add(id.value(), bytes.value())?;
                }
            }
            if let Some((key, group)) = packer.finish() {
                records
                    .insert(key, group.as_slice())
                    .map_err(|x| e(x.into()))?;
            }
        }
        if from == 6 {
            txn.delete_table(RECORDS_V6).map_err(|x| e(x.into()))?;
        } else {
            txn.delete_table(DOCS).map_err(|x| e(x.into()))?;
        }
        if from == 1 {
            txn.delete_table(URLS_V1).map_err(|x| e(x.into()))?;
        }
        {
            let mut meta = txn.open_table(META).map_err(|x| e(x.into()))?;
            meta.insert("format", FORMAT_VERSION.to_le_bytes().as_slice())
                .map_err(|x| e(x.into()))?;
            meta.insert("identity", encode_identity(path, identity)?.as_slice())
                .map_err(|x| e(x.into()))?;
        }
        txn.commit().map_err(|x| e(x.into()))?;
        tracing::info!(path = %path.display(), "index upgraded from format {from} to {FORMAT_VERSION}");
        Ok(())
    }

    /// Creates a new index beside `path` and renames it into place once its
    /// metadata is committed, so a crash while creating never leaves a
    /// half-initialized file behind that later opens fail on.
    fn create_new(path: &Path, identity: &StoreIdentity) -> Result<()> {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let mut builder = tempfile::Builder::new();
        builder.prefix(".neardup-index.").suffix(".tmp");
        // Temporary files are owner-only; the index gets the usual mode of
        // created files (0666 less the umask).
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let tmp = builder
            .tempfile_in(dir)
            .map_err(|e| err(path, format!("cannot create: {e}")))?;
        {
            let db = Database::create(tmp.path())
                .map_err(|e| err(path, format!("cannot create: {e}")))?;
            Self::check_meta(&db, path, identity)?;
        }
        tmp.persist_noclobber(path)
            .map_err(|e| err(path, format!("cannot create: {}", e.error)))?;
        // Make the rename itself durable.
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }

    /// Checks (or, for a new file, writes) the metadata; returns `next_id`
    /// and the format (a format-2 identity is upgraded here, to format 3;
    /// the records of formats 1 to 4 by the caller).
    fn check_meta(db: &Database, path: &Path, identity: &StoreIdentity) -> Result<Meta> {
        let e = |e: redb::Error| redb_error(path, e);
        let txn = begin_write(db, path)?;
        let had_tables = txn.list_tables().map_err(|x| e(x.into()))?.count() > 0;
        let meta_out = {
            let mut meta = txn.open_table(META).map_err(|x| e(x.into()))?;
            let format = match meta.get("format").map_err(|x| e(x.into()))? {
                None => None,
                Some(guard) => Some(u32_of(path, "format", guard.value())?),
            };
            match format {
                None => {
                    if had_tables {
                        return Err(unsupported(path, "a redb file, but not a neardup index"));
                    }
                    let id_bytes = encode_identity(path, identity)?;
                    meta.insert("format", FORMAT_VERSION.to_le_bytes().as_slice())
                        .map_err(|x| e(x.into()))?;
                    meta.insert("identity", id_bytes.as_slice())
                        .map_err(|x| e(x.into()))?;
                    meta.insert("next_id", 0u32.to_le_bytes().as_slice())
                        .map_err(|x| e(x.into()))?;
                    Meta {
                        next_id: 0,
                        format: FORMAT_VERSION,
                    }
                }
                Some(version) => {
                    if !(1..=FORMAT_VERSION).contains(&version) {
                        return Err(unsupported(
                            path,
                            format!(
                                "index format version {version}, this build reads {FORMAT_VERSION}"
                            ),
                        ));
                    }
                    let stored =
                        meta.get("identity")
                            .map_err(|x| e(x.into()))?
                            .ok_or_else(|| {
                                corrupt(path, "metadata `identity` missing: corrupt index")
                            })?;
                    let damaged = |x: postcard::Error| {
                        corrupt(path, format!("metadata `identity` is corrupt: {x}"))
                    };
                    let refused = |why: String, stored: StoreIdentity| {
                        Error::store(
                            path,
                            StoreError::Incompatible {
                                why: format!(
                                    "{why}; use the same detector chain and signature \
                                     settings, or a new index file"
                                ),
                                stored: Box::new(stored),
                                wanted: Box::new(identity.clone()),
                            },
                        )
                    };
                    if version >= 3 {
                        let stored: StoreIdentity =
                            postcard::from_bytes(stored.value()).map_err(damaged)?;
                        if let Some(why) = stored.mismatch(identity) {
                            return Err(refused(why, stored));
                        }
                    } else {
                        // Formats 1 and 2 recorded a fingerprint only.
                        let stored: LegacyIdentity =
                            postcard::from_bytes(stored.value()).map_err(damaged)?;
                        if let Some(why) = identity.legacy_mismatch(&stored) {
                            return Err(refused(why, stored.identity()));
                        }
                    }
                    drop(stored);
                    let mut version = version;
                    if version == 2 {
                        // Same config: record its settings (format 3, whose
                        // records are format 2's; the caller upgrades them).
                        // A format-1 file gets them in its upgrade, with
                        // the format, so the two never disagree.
                        meta.insert("identity", encode_identity(path, identity)?.as_slice())
                            .map_err(|x| e(x.into()))?;
                        meta.insert("format", 3u32.to_le_bytes().as_slice())
                            .map_err(|x| e(x.into()))?;
                        tracing::info!(path = %path.display(), "index identity upgraded to format 3");
                        version = 3;
                    }
                    let next = meta
                        .get("next_id")
                        .map_err(|x| e(x.into()))?
                        .ok_or_else(|| {
                            corrupt(path, "metadata `next_id` missing: corrupt index")
                        })?;
                    Meta {
                        next_id: u32_of(path, "next_id", next.value())?,
                        format: version,
                    }
                }
            }
        };
        // Create the other tables so readers always find them.
        txn.open_table(GROUPS).map_err(|x| e(x.into()))?;
        txn.commit().map_err(|x| e(x.into()))?;
        Ok(meta_out)
    }

    /// The index file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes not yet committed by [`DocStore::flush`].
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Hits, misses and size of the record cache so far.
    pub fn cache_stats(&self) -> CacheStats {
        self.lock_cache().stats()
    }

    /// Records in the file, as of the last flush (for checks and reports).
    ///
    /// # Errors
    /// If the file cannot be read.
    pub fn stored_len(&self) -> Result<u64> {
        self.guard(|| {
            let e = |x: redb::Error| redb_error(&self.path, x);
            let read = self.db()?.begin_read().map_err(|x| e(x.into()))?;
            let records = read.open_table(GROUPS).map_err(|x| e(x.into()))?;
            Ok(group::census(&self.path, &records)?.0)
        })
    }

    /// The database (present until the store is dropped).
    fn db(&self) -> Result<&Database> {
        self.db.as_ref().ok_or_else(|| err(&self.path, "closed"))
    }

    /// Runs `f`, which calls redb, unless the store is damaged. A panic
    /// inside redb or an error of `f` marks the store damaged: from then on
    /// nothing is written to the file (not even on drop) and every call
    /// returns the error. An error means the file is damaged, or a commit
    /// failed (after which redb needs its recovery on the next open).
    fn guard<T>(&self, f: impl FnOnce() -> Result<T>) -> Result<T> {
        if let Some(why) = self.damaged.get() {
            return Err(err(
                &self.path,
                format!("not used after an earlier error: {why}"),
            ));
        }
        let outcome = match caught(f) {
            Ok(outcome) => outcome,
            Err(what) => Err(corrupt(&self.path, panicked(&what))),
        };
        if let Err(e) = &outcome {
            self.mark_damaged(e);
        }
        outcome
    }

    /// Stops the store after `e`: the file refuses every write from now on.
    fn mark_damaged(&self, e: &Error) {
        self.file.freeze();
        let why = match e {
            Error::Store { kind, .. } => kind.to_string(),
            other => other.to_string(),
        };
        let _ = self.damaged.set(why);
    }

    /// The cache, usable again after a panic elsewhere (it is then
    /// emptied: a cache may always forget).
    fn lock_cache(&self) -> MutexGuard<'_, Lru> {
        match self.cache.lock() {
            Ok(c) => c,
            Err(poisoned) => {
                let mut c = poisoned.into_inner();
                c.clear();
                c
            }
        }
    }

    /// Reads a committed record from the file; a panic inside redb on a
    /// damaged page comes back as an error (see `RedbStore::guard`).
    fn read_committed(&self, id: DocId) -> Result<Option<DocRecord>> {
        self.guard(|| self.read_committed_unguarded(id))
    }

    fn read_committed_unguarded(&self, id: DocId) -> Result<Option<DocRecord>> {
        let e = |x: redb::Error| redb_error(&self.path, x);
        let mut reader = match self.reader.lock() {
            Ok(r) => r,
            Err(poisoned) => {
                let mut r = poisoned.into_inner();
                *r = None;
                r
            }
        };
        if reader.is_none() {
            let read = self.db()?.begin_read().map_err(|x| e(x.into()))?;
            *reader = Some(read.open_table(GROUPS).map_err(|x| e(x.into()))?);
        }
        let Some(table) = reader.as_ref() else {
            return Ok(None);
        };
        let Some(entry) = table.range(..=id).map_err(|x| e(x.into()))?.next_back() else {
            return Ok(None);
        };
        let (key, bytes) = entry.map_err(|x| e(x.into()))?;
        let key = key.value();
        group::find(key, bytes.value(), id, self.detectors)
            .map_err(|x| group::damaged(&self.path, key, &x))
    }

    fn set_pending(&mut self, id: DocId, op: Pending) {
        if let Pending::Put(r) = &op {
            self.pending_bytes += record_bytes(r);
        }
        if let Some(Pending::Put(old)) = self.pending.insert(id, op) {
            self.pending_bytes -= record_bytes(&old);
        }
    }

    fn commit(&mut self) -> Result<()> {
        let path = self.path.clone();
        let e = |x: redb::Error| redb_error(&path, x);
        // redb's default durability is `Immediate`: fsync before commit returns.
        let txn = begin_write(self.db()?, &path)?;
        {
            let mut records = txn.open_table(GROUPS).map_err(|x| e(x.into()))?;
            let changes: Vec<(DocId, Option<Arc<DocRecord>>)> = self
                .pending
                .iter()
                .map(|(id, op)| {
                    let rec = match op {
                        Pending::Put(rec) => Some(Arc::clone(rec)),
                        Pending::Removed => None,
                    };
                    (*id, rec)
                })
                .collect();
            group::write(&path, &mut records, &changes, self.detectors)?;
            let mut meta = txn.open_table(META).map_err(|x| e(x.into()))?;
            meta.insert("next_id", self.next_id.to_le_bytes().as_slice())
                .map_err(|x| e(x.into()))?;
        }
        txn.commit().map_err(|x| e(x.into()))?;
        // Committed records move to the cache: they were just used.
        let pending = std::mem::take(&mut self.pending);
        self.pending_bytes = 0;
        let mut cache = self.lock_cache();
        for (id, op) in pending {
            if let Pending::Put(rec) = op {
                cache.insert(id, rec);
            }
        }
        drop(cache);
        // Later misses must see this commit.
        match self.reader.get_mut() {
            Ok(r) => *r = None,
            Err(poisoned) => *poisoned.into_inner() = None,
        }
        Ok(())
    }
}

impl DocStore for RedbStore {
    fn insert(&mut self, record: DocRecord) -> Result<DocId> {
        let id = self.next_id;
        self.next_id = id.checked_add(1).ok_or_else(|| {
            Error::store(
                &self.path,
                StoreError::Full("more than u32::MAX documents: the id space is exhausted".into()),
            )
        })?;
        self.set_pending(id, Pending::Put(Arc::new(record)));
        self.live += 1;
        Ok(id)
    }

    fn get(&self, id: DocId) -> Result<Option<Arc<DocRecord>>> {
        match self.pending.get(&id) {
            Some(Pending::Put(rec)) => return Ok(Some(Arc::clone(rec))),
            Some(Pending::Removed) => return Ok(None),
            None => {}
        }
        if id >= self.next_id {
            return Ok(None);
        }
        if let Some(rec) = self.lock_cache().get(id) {
            return Ok(Some(rec));
        }
        let Some(rec) = self.read_committed(id)? else {
            return Ok(None);
        };
        let rec = Arc::new(rec);
        self.lock_cache().insert(id, Arc::clone(&rec));
        Ok(Some(rec))
    }

    fn remove(&mut self, id: DocId) -> Result<Option<Arc<DocRecord>>> {
        let Some(rec) = self.get(id)? else {
            return Ok(None);
        };
        self.lock_cache().remove(id);
        self.set_pending(id, Pending::Removed);
        self.live -= 1;
        Ok(Some(rec))
    }

    fn touch(&mut self, id: DocId, fetched_at: u64) -> Result<bool> {
        let Some(rec) = self.get(id)? else {
            return Ok(false);
        };
        if rec.fetched_at != fetched_at {
            let mut updated = DocRecord::clone(&rec);
            updated.fetched_at = fetched_at;
            self.lock_cache().remove(id);
            self.set_pending(id, Pending::Put(Arc::new(updated)));
        }
        Ok(true)
    }

    /// Reads the file (as of the last flush) with the unflushed writes
    /// applied over it; records read here bypass the cache, so rebuilding
    /// the candidate indexes of a large file does not evict the hot set.
    /// A panic inside redb while walking a damaged file comes back as an
    /// [`Error::Store`] (see `RedbStore::guard`).
    fn for_each(&self, f: &mut dyn FnMut(DocId, &Arc<DocRecord>)) -> Result<()> {
        self.guard(|| self.for_each_unguarded(f))
    }

    /// A panic inside redb while committing to a damaged file comes back
    /// as an [`Error::Store`] (see `RedbStore::guard`); what was
    /// committed before stays as it was (redb's commit is atomic), and
    /// after a failed commit the store commits nothing more.
    fn flush(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        if let Some(why) = self.damaged.get() {
            return Err(err(
                &self.path,
                format!("not flushed after an earlier error: {why}"),
            ));
        }
        let e = match caught(|| self.commit()) {
            Ok(Ok(())) => return Ok(()),
            Ok(Err(e)) => e,
            Err(what) => corrupt(&self.path, panicked(&what)),
        };
        self.mark_damaged(&e);
        Err(e)
    }

    fn len(&self) -> usize {
        self.live
    }

    fn heap_bytes(&self) -> usize {
        self.lock_cache().heap_bytes()
            + self.pending_bytes
            + self.pending.len() * std::mem::size_of::<(DocId, Pending)>() * 2
    }
}

impl RedbStore {
    /// [`DocStore::for_each`] without the panic guard.
    fn for_each_unguarded(&self, f: &mut dyn FnMut(DocId, &Arc<DocRecord>)) -> Result<()> {
        let e = |x: redb::Error| redb_error(&self.path, x);
        let read = self.db()?.begin_read().map_err(|x| e(x.into()))?;
        let records = read.open_table(GROUPS).map_err(|x| e(x.into()))?;
        // Pending records already given, in place of their committed form.
        let mut given = std::collections::HashSet::new();
        group::for_each(&self.path, &records, self.detectors, &mut |id, record| {
            match self.pending.get(&id) {
                Some(Pending::Removed) => {}
                Some(Pending::Put(rec)) => {
                    given.insert(id);
                    f(id, rec);
                }
                None => f(id, &Arc::new(record)),
            }
            Ok(())
        })?;
        // Unflushed new records: ids above every committed one.
        for (id, op) in &self.pending {
            if let Pending::Put(rec) = op {
                if !given.contains(id) {
                    f(*id, rec);
                }
            }
        }
        Ok(())
    }
}

/// Closing: the unflushed writes are committed (best effort) unless the
/// store is damaged, then redb closes the file (clearing its
/// recovery-required bit), all with panics caught; a damaged store's file
/// refuses every write, so a damaged file is never committed to on close.
impl Drop for RedbStore {
    fn drop(&mut self) {
        let reader = match self.reader.get_mut() {
            Ok(r) => r.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        if std::thread::panicking() {
            // Unwinding from a panic elsewhere: a second panic inside redb
            // here would abort the process. Nothing is written and nothing
            // of redb is dropped; the next open recovers the file.
            self.file.freeze();
            std::mem::forget(reader);
            std::mem::forget(self.db.take());
            return;
        }
        if self.damaged.get().is_none() {
            if let Err(what) = caught(move || drop(reader)) {
                self.file.freeze();
                let _ = self.damaged.set(panicked(&what));
            } else if let Err(e) = self.flush() {
                tracing::warn!(error = %e, "index not flushed on close");
            }
        } else if caught(move || drop(reader)).is_err() {
            self.file.freeze();
        }
        let db = self.db.take();
        // redb's close commits its allocator state: refused by a frozen
        // file, and a panic there is caught.
        if let Err(what) = caught(move || drop(db)) {
            self.file.freeze();
            tracing::warn!(path = %self.path.display(), "redb failed closing the index: {what}");
        }
    }
}
