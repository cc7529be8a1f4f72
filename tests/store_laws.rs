//! The store law suite: what every `DocStore` must do, written once and run
//! on each backend, `MemoryStore`, `RedbStore` (a file in a temp dir) and
//! `RedisStore` (a private `redis-server` on 127.0.0.1, see
//! `crate::redis::RedisServer`; with `CI` set a missing `redis-server`
//! fails the test).
//!
//! The laws: ids are dense from 0, in insertion order, never reused (a
//! shared log also spends one on each removal); a record is read back
//! equal; removal returns the record once and counts; `sync` of a store
//! written by one process reports nothing; what was flushed survives a
//! reopen and a crash (the store dropped without closing: a copy of the
//! redb file taken while it is open, a Redis connection leaked), and a
//! reopened store continues the ids; another detector chain or other
//! signature settings are refused, naming both.

use std::sync::Arc;

use neardup::Result;
use neardup::{
    Change, DocRecord, DocStore, Evidence, MemoryStore, RecordKind, RedbStore, RedisLocation,
    RedisStore, StoreIdentity,
};
use neardup_api::Signature;

use crate::redis::RedisServer;
use crate::util::Dir;

/// The identity of the stores of the laws (and of `store`'s tests).
pub(crate) fn identity() -> StoreIdentity {
    StoreIdentity {
        detectors: vec!["exact".into(), "chunks".into()],
        settings: [("chunks.avg_size".to_owned(), "32".to_owned())].into(),
        legacy_fingerprint: None,
    }
}

/// Record `n`: its own key, URL, site, kind, signatures, evidence and
/// fetch time.
pub(crate) fn record(n: u32) -> DocRecord {
    let kind = [
        RecordKind::Kept,
        RecordKind::NearDuplicate,
        RecordKind::Observation,
    ][n as usize % 3];
    // Sorted sets with gaps up to the largest hashes.
    let spread = |k: u32| (0..n % 7).map(move |i| i * (u32::MAX / 7) + k).collect();
    DocRecord {
        // Half the keys are the URL's end (a manifest id that is its path),
        // which the redb store keeps as a part of the URL.
        key: if n % 2 == 0 {
            format!("p/{n}")
        } else {
            format!("k{n}")
        },
        url: format!("https://s{}.example/p/{n}", n % 3),
        site: format!("s{}.example", n % 3),
        kind,
        signatures: if kind == RecordKind::Observation {
            Vec::new()
        } else {
            vec![
                Signature::Fingerprint(u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
                Signature::Set((0..n).map(|i| i * 7 + n).collect()),
            ]
        },
        evidence: Evidence {
            blocks: spread(n),
            modulus: if kind == RecordKind::Observation {
                0
            } else {
                1 << (n % 5)
            },
            sample: if kind == RecordKind::Observation {
                Vec::new()
            } else {
                spread(n + 1)
            },
            visible: u64::from(n) << 40 | 7,
            title: spread(3),
            lang: n % 2,
            main_words: n * 11,
        },
        fetched_at: 1_700_000_000 + u64::from(n),
    }
}

/// One backend: how to make, reopen and crash its stores.
trait Backend {
    /// A new store (fresh file or namespace) with [`identity`]; later
    /// calls of `reopen` and `crash` refer to it.
    fn create(&mut self) -> Box<dyn DocStore>;
    /// The last created store opened again with `identity` (its earlier
    /// handle closed by the caller), or `None` if nothing outlives a
    /// handle (memory).
    fn reopen(&mut self, identity: &StoreIdentity) -> Option<Result<Box<dyn DocStore>>>;
    /// What a crash of the process holding `store` leaves, opened; `None`
    /// for memory. `store` is never closed.
    fn crash(&mut self, store: Box<dyn DocStore>) -> Option<Box<dyn DocStore>>;
    /// Whether fetch times are kept (`touch`, and across a reopen).
    fn keeps_times(&self) -> bool;
    /// Whether a removal spends an id (a log's tombstone).
    fn removal_spends_id(&self) -> bool;
}

/// `sync` on a store only this process writes: nothing to report.
fn sync_alone(store: &mut dyn DocStore) {
    store
        .sync(&mut |c| panic!("sync reported a change no other process made: {c:?}"))
        .unwrap();
}

/// The first `sync` of a reopened store: a shared log replays every
/// write (the earlier handle was another writer), a file store reports
/// nothing. Either way the changes, applied in order, give what is present
/// (when any are reported).
fn catch_up(store: &mut dyn DocStore) {
    let mut replayed = std::collections::BTreeMap::new();
    let mut reported = false;
    store
        .sync(&mut |c| {
            reported = true;
            match c {
                Change::Added(id, r) => assert!(replayed.insert(id, DocRecord::clone(r)).is_none()),
                Change::Removed(id, r) => assert_eq!(replayed.remove(&id).as_ref(), Some(&**r)),
            }
        })
        .unwrap();
    if reported {
        let replayed: Vec<(u32, DocRecord)> = replayed.into_iter().collect();
        assert_eq!(
            replayed,
            contents(store),
            "sync's changes vs the records present"
        );
    }
    sync_alone(store);
}

/// Records present, in id order.
fn contents(store: &dyn DocStore) -> Vec<(u32, DocRecord)> {
    let mut seen = Vec::new();
    store
        .for_each(&mut |id, rec: &Arc<DocRecord>| seen.push((id, DocRecord::clone(rec))))
        .unwrap();
    seen
}

/// `record(n)` as a store that keeps no times gives it back after a reopen.
fn reread(b: &dyn Backend, n: u32) -> DocRecord {
    let mut r = record(n);
    if !b.keeps_times() {
        r.fetched_at = 0;
    }
    r
}

/// Ids, records read back, removal, counts, `for_each`, `touch`, `sync`.
fn law_ids_records_removal(b: &mut dyn Backend) {
    let mut store = b.create();
    sync_alone(store.as_mut());
    assert!(store.is_empty());
    assert_eq!(store.len(), 0);
    assert_eq!(store.get(0).unwrap(), None);
    assert!(contents(store.as_ref()).is_empty());
    let ids: Vec<u32> = (0..4).map(|n| store.insert(record(n)).unwrap()).collect();
    assert_eq!(ids, [0, 1, 2, 3], "dense ids in insertion order from 0");
    assert_eq!(store.len(), 4);
    for n in 0..4 {
        assert_eq!(store.get(n).unwrap().as_deref(), Some(&record(n)));
    }
    assert_eq!(store.get(4).unwrap(), None);
    assert_eq!(store.get(u32::MAX).unwrap(), None);
    // Removal returns the record once, and counts.
    assert_eq!(store.remove(1).unwrap().as_deref(), Some(&record(1)));
    assert_eq!(store.remove(1).unwrap(), None);
    assert_eq!(store.remove(99).unwrap(), None);
    assert_eq!(store.get(1).unwrap(), None);
    assert_eq!(store.len(), 3);
    // Removing the highest id does not make it available again.
    assert!(store.remove(3).unwrap().is_some());
    assert_eq!(store.len(), 2);
    sync_alone(store.as_mut());
    let next = if b.removal_spends_id() { 6 } else { 4 };
    assert_eq!(
        store.insert(record(10)).unwrap(),
        next,
        "ids are never reused"
    );
    assert_eq!(
        contents(store.as_ref()),
        [(0, record(0)), (2, record(2)), (next, record(10))]
    );
    // Fetch times: touch refreshes a present record only.
    assert_eq!(store.touch(0, 5).unwrap(), b.keeps_times());
    let expect = if b.keeps_times() {
        5
    } else {
        record(0).fetched_at
    };
    assert_eq!(store.get(0).unwrap().unwrap().fetched_at, expect);
    assert!(!store.touch(1, 5).unwrap(), "removed");
    store.flush().unwrap();
    assert_eq!(
        store.get(0).unwrap().unwrap().fetched_at,
        expect,
        "after flush"
    );
    assert_eq!(store.len(), 3);
    assert!(!store.is_empty());
    assert!(store.heap_bytes() > 0);
    sync_alone(store.as_mut());
}

/// What was flushed is there after the store is closed and opened again,
/// removals included, and ids continue after the highest ever assigned.
fn law_durable_across_reopen(b: &mut dyn Backend) {
    let mut store = b.create();
    sync_alone(store.as_mut());
    for n in 0..5 {
        assert_eq!(store.insert(record(n)).unwrap(), n);
    }
    store.remove(2).unwrap();
    store.remove(4).unwrap();
    store.flush().unwrap();
    drop(store);
    let Some(reopened) = b.reopen(&identity()) else {
        return;
    };
    let mut store = reopened.unwrap();
    catch_up(store.as_mut());
    assert_eq!(store.len(), 3);
    let expect: Vec<(u32, DocRecord)> = [0, 1, 3].map(|n| (n, reread(b, n))).into();
    assert_eq!(contents(store.as_ref()), expect);
    for n in [0, 1, 3] {
        assert_eq!(store.get(n).unwrap().as_deref(), Some(&reread(b, n)));
    }
    assert_eq!(store.get(2).unwrap(), None);
    assert_eq!(store.get(4).unwrap(), None);
    // 0..5 assigned (and two tombstones in a log): never handed out again.
    let next = if b.removal_spends_id() { 7 } else { 5 };
    assert_eq!(store.insert(record(7)).unwrap(), next, "continues the ids");
    assert_eq!(store.get(next).unwrap().as_deref(), Some(&record(7)));
    store.flush().unwrap();
    drop(store);
    let mut store = b.reopen(&identity()).unwrap().unwrap();
    catch_up(store.as_mut());
    assert_eq!(store.len(), 4);
    assert_eq!(store.get(next).unwrap().as_deref(), Some(&reread(b, 7)));
}

/// A crash (no close, no drop) loses nothing flushed; a write after the
/// last flush may be lost, but nothing appears that was not written.
fn law_crash_loses_nothing_flushed(b: &mut dyn Backend) {
    let mut store = b.create();
    sync_alone(store.as_mut());
    for n in 0..6 {
        store.insert(record(n)).unwrap();
    }
    store.remove(1).unwrap();
    store.flush().unwrap();
    // Not flushed: may or may not survive.
    sync_alone(store.as_mut());
    let late = store.insert(record(20)).unwrap();
    let Some(mut after) = b.crash(store) else {
        return;
    };
    catch_up(after.as_mut());
    let seen = contents(after.as_ref());
    let committed: Vec<(u32, DocRecord)> = [0, 2, 3, 4, 5].map(|n| (n, reread(b, n))).into();
    let with_late: Vec<(u32, DocRecord)> = committed
        .iter()
        .cloned()
        .chain([(late, reread(b, 20))])
        .collect();
    assert!(
        seen == committed || seen == with_late,
        "after a crash: {seen:?}"
    );
    assert_eq!(after.len(), seen.len());
    // New ids stay above every flushed one.
    let id = after.insert(record(30)).unwrap();
    assert!(id > 5, "id {id} after a crash reuses a flushed id");
}

/// Another chain or other signature settings are refused, naming both;
/// the same identity opens.
fn law_identity_refused(b: &mut dyn Backend) {
    let mut store = b.create();
    store.insert(record(1)).unwrap();
    store.flush().unwrap();
    drop(store);
    let other_chain = StoreIdentity {
        detectors: vec!["exact".into(), "simhash".into()],
        ..identity()
    };
    let Some(refused) = b.reopen(&other_chain) else {
        return;
    };
    let msg = refused.err().expect("another chain opened").to_string();
    assert!(
        msg.contains("[exact, chunks]") && msg.contains("[exact, simhash]"),
        "{msg}"
    );
    let other_settings = StoreIdentity {
        settings: [("chunks.avg_size".to_owned(), "64".to_owned())].into(),
        ..identity()
    };
    let msg = b
        .reopen(&other_settings)
        .unwrap()
        .err()
        .expect("other settings opened")
        .to_string();
    assert!(
        msg.contains("`chunks.avg_size` = 32 in the index, 64 now"),
        "{msg}"
    );
    let mut store = b.reopen(&identity()).unwrap().unwrap();
    catch_up(store.as_mut());
    assert_eq!(store.len(), 1, "refusals changed nothing");
}

fn laws(b: &mut dyn Backend) {
    law_ids_records_removal(b);
    law_durable_across_reopen(b);
    law_crash_loses_nothing_flushed(b);
    law_identity_refused(b);
}

struct Memory;

impl Backend for Memory {
    fn create(&mut self) -> Box<dyn DocStore> {
        Box::new(MemoryStore::default())
    }
    fn reopen(&mut self, _: &StoreIdentity) -> Option<Result<Box<dyn DocStore>>> {
        None
    }
    fn crash(&mut self, _: Box<dyn DocStore>) -> Option<Box<dyn DocStore>> {
        None
    }
    fn keeps_times(&self) -> bool {
        true
    }
    fn removal_spends_id(&self) -> bool {
        false
    }
}

/// Redb files in one temp dir, a new file per `create`.
struct Redb {
    dir: Dir,
    files: usize,
}

impl Redb {
    fn path(&self) -> std::path::PathBuf {
        self.dir.join(&format!("i{}.redb", self.files))
    }
}

impl Backend for Redb {
    fn create(&mut self) -> Box<dyn DocStore> {
        self.files += 1;
        Box::new(RedbStore::open(&self.path(), &identity()).unwrap())
    }
    fn reopen(&mut self, identity: &StoreIdentity) -> Option<Result<Box<dyn DocStore>>> {
        Some(RedbStore::open(&self.path(), identity).map(|s| Box::new(s) as Box<dyn DocStore>))
    }
    /// The file as the killed process leaves it: copied while the store is
    /// open (its page cache is what the kernel keeps); then the store is
    /// dropped without flushing, so the copy alone decides.
    fn crash(&mut self, store: Box<dyn DocStore>) -> Option<Box<dyn DocStore>> {
        let from = self.path();
        self.files += 1;
        std::fs::copy(&from, self.path()).unwrap();
        let opened = RedbStore::open(&self.path(), &identity()).unwrap();
        drop(store);
        Some(Box::new(opened))
    }
    fn keeps_times(&self) -> bool {
        true
    }
    fn removal_spends_id(&self) -> bool {
        false
    }
}

/// Namespaces of one private redis-server, a new one per `create`.
struct Redis {
    server: RedisServer,
    namespaces: usize,
}

impl Redis {
    fn location(&self) -> RedisLocation {
        RedisLocation::parse(&self.server.url(&format!("laws{}", self.namespaces))).unwrap()
    }
}

impl Backend for Redis {
    fn create(&mut self) -> Box<dyn DocStore> {
        self.namespaces += 1;
        Box::new(RedisStore::open(&self.location(), &identity()).unwrap())
    }
    fn reopen(&mut self, identity: &StoreIdentity) -> Option<Result<Box<dyn DocStore>>> {
        Some(RedisStore::open(&self.location(), identity).map(|s| Box::new(s) as Box<dyn DocStore>))
    }
    /// The process dies: its connection is never closed (leaked here).
    fn crash(&mut self, store: Box<dyn DocStore>) -> Option<Box<dyn DocStore>> {
        std::mem::forget(store);
        Some(self.reopen(&identity())?.unwrap())
    }
    fn keeps_times(&self) -> bool {
        false
    }
    fn removal_spends_id(&self) -> bool {
        true
    }
}

#[test]
fn memory_store_obeys_the_store_laws() {
    laws(&mut Memory);
}

#[test]
fn redb_store_obeys_the_store_laws() {
    laws(&mut Redb {
        dir: Dir::new(),
        files: 0,
    });
}

#[test]
fn redis_store_obeys_the_store_laws() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    laws(&mut Redis {
        server,
        namespaces: 0,
    });
}
