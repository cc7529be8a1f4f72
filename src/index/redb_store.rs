//! [`RedbStore`]: the document store in an embedded ACID file (redb).
//!
//! # Layout
//! - table `docs`: doc id (`u32`) -> record, postcard-encoded (key, url,
//!   site, one signature per detector; integers are varints, so a chunk set
//!   costs about 4-5 bytes per hash);
//! - table `urls`: URL -> id of the latest record stored for it;
//! - table `meta`: `format` (u32 LE, [`FORMAT_VERSION`]), `next_id` (u32 LE,
//!   the id the next insert gets: ids are never reused, also after removals
//!   of the highest id), `identity` (postcard [`StoreIdentity`]: detector
//!   chain and config fingerprint).
//!
//! # Memory
//! Every record is also kept in RAM (a [`MemoryStore`] mirror loaded at
//! open), so reads never touch the disk and never fail. The file is the
//! ground truth; the mirror and the candidate indexes are rebuilt from it.
//! A memory budget (records paged out) is not implemented yet.
//!
//! # Durability contract
//! `insert` and `remove` apply to the mirror at once and are buffered;
//! [`DocStore::flush`] commits every buffered write in one redb
//! transaction with `Durability::Immediate` (fsync), and only then are
//! they durable. A crash loses exactly the writes since the last successful
//! flush, and those ids are given out again after reopening (nobody can
//! have been told about them if callers acknowledge only after a flush, as
//! the batch driver does: it flushes each window before writing its
//! verdicts). Dropping the store flushes on a best-effort basis.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use neardup_api::{DocId, Signature};
use redb::{Database, ReadableTable, ReadableTableMetadata, TableDefinition};
use serde::{Deserialize, Serialize};

use super::store::{DocRecord, DocStore, MemoryStore};
use crate::{Error, Result};

/// Version of the on-disk layout; bumped on any incompatible change.
pub const FORMAT_VERSION: u32 = 1;

const DOCS: TableDefinition<u32, &[u8]> = TableDefinition::new("docs");
const URLS: TableDefinition<&str, u32> = TableDefinition::new("urls");
const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");

/// What the stored signatures were computed with. Reopening a store with a
/// different identity is an error: signatures of another chain or config
/// would be compared as if they were comparable.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreIdentity {
    /// Detector names, in chain order (one stored signature per name).
    pub detectors: Vec<String>,
    /// Stable hash of every setting that changes signatures.
    pub fingerprint: u64,
}

/// A record as encoded in the `docs` table (borrowing, for writes).
#[derive(Serialize)]
struct RecordRef<'a> {
    key: &'a str,
    url: &'a str,
    site: &'a str,
    signatures: &'a [Signature],
}

/// A record as decoded from the `docs` table.
#[derive(Deserialize)]
struct RecordOwned {
    key: String,
    url: String,
    site: String,
    signatures: Vec<Signature>,
}

/// A write not yet committed.
#[derive(Debug)]
enum Pending {
    Put(DocId, Arc<DocRecord>),
    Remove(DocId, Arc<DocRecord>),
}

/// A [`DocStore`] in a redb file, with an in-memory mirror of the records.
/// See the module documentation for the layout and durability contract.
pub struct RedbStore {
    db: Database,
    path: PathBuf,
    mem: MemoryStore,
    pending: Vec<Pending>,
}

impl std::fmt::Debug for RedbStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedbStore")
            .field("path", &self.path)
            .field("len", &self.mem.len())
            .field("pending", &self.pending.len())
            .finish()
    }
}

fn err(path: &Path, message: impl std::fmt::Display) -> Error {
    Error::Store {
        path: path.to_owned(),
        message: message.to_string(),
    }
}

fn u32_of(path: &Path, name: &str, bytes: &[u8]) -> Result<u32> {
    let arr: [u8; 4] = bytes.try_into().map_err(|_| {
        err(
            path,
            format!("metadata `{name}` is not 4 bytes: corrupt index"),
        )
    })?;
    Ok(u32::from_le_bytes(arr))
}

/// Encodes a record for the `docs` table.
fn encode(path: &Path, r: &DocRecord) -> Result<Vec<u8>> {
    postcard::to_allocvec(&RecordRef {
        key: &r.key,
        url: &r.url,
        site: &r.site,
        signatures: &r.signatures,
    })
    .map_err(|e| err(path, format!("cannot encode record: {e}")))
}

impl RedbStore {
    /// Opens the index file at `path`, creating it if it does not exist.
    ///
    /// # Errors
    /// [`Error::Store`] if the file cannot be opened (corrupt, not a redb
    /// file, locked by another process), is not a neardup index, has
    /// another format version, or was built with another identity (the
    /// message names both chains).
    pub fn open(path: &Path, identity: &StoreIdentity) -> Result<RedbStore> {
        if !path.exists() {
            Self::create_new(path, identity)?;
        }
        let db = Database::open(path).map_err(|e| err(path, format!("cannot open: {e}")))?;
        let next_id = Self::check_meta(&db, path, identity)?;
        let mut slots: Vec<Option<Arc<DocRecord>>> = vec![None; next_id as usize];
        let read = db.begin_read().map_err(|e| err(path, e))?;
        let docs = read.open_table(DOCS).map_err(|e| err(path, e))?;
        for entry in docs.iter().map_err(|e| err(path, e))? {
            let (id, bytes) = entry.map_err(|e| err(path, e))?;
            let id = id.value();
            let rec: RecordOwned = postcard::from_bytes(bytes.value())
                .map_err(|e| err(path, format!("record {id} is corrupt: {e}")))?;
            if rec.signatures.len() != identity.detectors.len() {
                return Err(err(
                    path,
                    format!(
                        "record {id} has {} signatures for a chain of {} detectors: corrupt index",
                        rec.signatures.len(),
                        identity.detectors.len()
                    ),
                ));
            }
            let slot = slots.get_mut(id as usize).ok_or_else(|| {
                err(
                    path,
                    format!("record id {id} is not below next_id {next_id}: corrupt index"),
                )
            })?;
            *slot = Some(Arc::new(DocRecord {
                key: rec.key,
                url: rec.url,
                site: rec.site,
                signatures: rec.signatures,
            }));
        }
        drop(docs);
        drop(read);
        Ok(RedbStore {
            db,
            path: path.to_owned(),
            mem: MemoryStore::from_slots(slots),
            pending: Vec::new(),
        })
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

    /// Checks (or, for a new file, writes) the metadata; returns `next_id`.
    fn check_meta(db: &Database, path: &Path, identity: &StoreIdentity) -> Result<u32> {
        let e = |e: redb::Error| err(path, e);
        let txn = db.begin_write().map_err(|x| e(x.into()))?;
        let had_tables = txn.list_tables().map_err(|x| e(x.into()))?.count() > 0;
        let next_id = {
            let mut meta = txn.open_table(META).map_err(|x| e(x.into()))?;
            let format = meta.get("format").map_err(|x| e(x.into()))?;
            match format {
                None => {
                    drop(format);
                    if had_tables {
                        return Err(err(path, "a redb file, but not a neardup index"));
                    }
                    let id_bytes = postcard::to_allocvec(identity)
                        .map_err(|x| err(path, format!("cannot encode identity: {x}")))?;
                    meta.insert("format", FORMAT_VERSION.to_le_bytes().as_slice())
                        .map_err(|x| e(x.into()))?;
                    meta.insert("identity", id_bytes.as_slice())
                        .map_err(|x| e(x.into()))?;
                    meta.insert("next_id", 0u32.to_le_bytes().as_slice())
                        .map_err(|x| e(x.into()))?;
                    0
                }
                Some(format) => {
                    let version = u32_of(path, "format", format.value())?;
                    drop(format);
                    if version != FORMAT_VERSION {
                        return Err(err(
                            path,
                            format!(
                                "index format version {version}, this build reads {FORMAT_VERSION}"
                            ),
                        ));
                    }
                    let stored = meta
                        .get("identity")
                        .map_err(|x| e(x.into()))?
                        .ok_or_else(|| err(path, "metadata `identity` missing: corrupt index"))?;
                    let stored: StoreIdentity = postcard::from_bytes(stored.value())
                        .map_err(|x| err(path, format!("metadata `identity` is corrupt: {x}")))?;
                    if stored.detectors != identity.detectors {
                        return Err(err(
                            path,
                            format!(
                                "built with detector chain [{}], opened with [{}]: use the same \
                                 chain or a new index file",
                                stored.detectors.join(", "),
                                identity.detectors.join(", ")
                            ),
                        ));
                    }
                    if stored.fingerprint != identity.fingerprint {
                        return Err(err(
                            path,
                            format!(
                                "built with other extraction/text/detector settings (config \
                                 fingerprint {:016x}, now {:016x}): use the same config or a \
                                 new index file",
                                stored.fingerprint, identity.fingerprint
                            ),
                        ));
                    }
                    let next = meta
                        .get("next_id")
                        .map_err(|x| e(x.into()))?
                        .ok_or_else(|| err(path, "metadata `next_id` missing: corrupt index"))?;
                    u32_of(path, "next_id", next.value())?
                }
            }
        };
        // Create the other tables so readers always find them.
        txn.open_table(DOCS).map_err(|x| e(x.into()))?;
        txn.open_table(URLS).map_err(|x| e(x.into()))?;
        txn.commit().map_err(|x| e(x.into()))?;
        Ok(next_id)
    }

    /// The index file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes not yet committed by [`DocStore::flush`].
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// The id of the latest record stored for `url`, as of the last flush.
    ///
    /// # Errors
    /// If the file cannot be read.
    pub fn id_of_url(&self, url: &str) -> Result<Option<DocId>> {
        let e = |x: redb::Error| err(&self.path, x);
        let read = self.db.begin_read().map_err(|x| e(x.into()))?;
        let urls = read.open_table(URLS).map_err(|x| e(x.into()))?;
        let id = urls.get(url).map_err(|x| e(x.into()))?;
        Ok(id.map(|v| v.value()))
    }

    /// Records in the file, as of the last flush (for checks and reports).
    ///
    /// # Errors
    /// If the file cannot be read.
    pub fn stored_len(&self) -> Result<u64> {
        let e = |x: redb::Error| err(&self.path, x);
        let read = self.db.begin_read().map_err(|x| e(x.into()))?;
        let docs = read.open_table(DOCS).map_err(|x| e(x.into()))?;
        docs.len().map_err(|x| e(x.into()))
    }

    fn commit(&mut self) -> Result<()> {
        let path = self.path.clone();
        let e = |x: redb::Error| err(&path, x);
        let next_id = u32::try_from(self.mem.next_id())
            .map_err(|_| err(&path, "more than u32::MAX documents"))?;
        let txn = self.db.begin_write().map_err(|x| e(x.into()))?;
        {
            let mut docs = txn.open_table(DOCS).map_err(|x| e(x.into()))?;
            let mut urls = txn.open_table(URLS).map_err(|x| e(x.into()))?;
            for op in &self.pending {
                match op {
                    Pending::Put(id, rec) => {
                        docs.insert(*id, encode(&path, rec)?.as_slice())
                            .map_err(|x| e(x.into()))?;
                        urls.insert(rec.url.as_str(), *id)
                            .map_err(|x| e(x.into()))?;
                    }
                    Pending::Remove(id, rec) => {
                        docs.remove(*id).map_err(|x| e(x.into()))?;
                        let current = urls
                            .get(rec.url.as_str())
                            .map_err(|x| e(x.into()))?
                            .map(|v| v.value());
                        if current == Some(*id) {
                            urls.remove(rec.url.as_str()).map_err(|x| e(x.into()))?;
                        }
                    }
                }
            }
            let mut meta = txn.open_table(META).map_err(|x| e(x.into()))?;
            meta.insert("next_id", next_id.to_le_bytes().as_slice())
                .map_err(|x| e(x.into()))?;
        }
        txn.commit().map_err(|x| e(x.into()))?;
        self.pending.clear();
        Ok(())
    }
}

impl DocStore for RedbStore {
    fn insert(&mut self, record: DocRecord) -> Result<DocId> {
        let id = self.mem.insert(record)?;
        if let Some(rec) = self.mem.get(id)? {
            self.pending.push(Pending::Put(id, rec));
        }
        Ok(id)
    }

    fn get(&self, id: DocId) -> Result<Option<Arc<DocRecord>>> {
        self.mem.get(id)
    }

    fn remove(&mut self, id: DocId) -> Result<Option<Arc<DocRecord>>> {
        let removed = self.mem.remove(id)?;
        if let Some(rec) = &removed {
            self.pending.push(Pending::Remove(id, Arc::clone(rec)));
        }
        Ok(removed)
    }

    fn for_each(&self, f: &mut dyn FnMut(DocId, &Arc<DocRecord>)) -> Result<()> {
        self.mem.for_each(f)
    }

    fn flush(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        self.commit()
    }

    fn len(&self) -> usize {
        self.mem.len()
    }

    fn heap_bytes(&self) -> usize {
        self.mem.heap_bytes()
    }
}

impl Drop for RedbStore {
    fn drop(&mut self) {
        if let Err(e) = self.flush() {
            tracing::warn!(error = %e, "index not flushed on close");
        }
    }
}
