//! The document stores: one conformance suite for `MemoryStore` and
//! `RedbStore`; the persistent index across reopen (ids, matches, removal),
//! identity and corruption errors, `dedup --index` over two runs, and a
//! crash-safety test that SIGKILLs the real binary mid-run.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use neardup::index::{DocRecord, DocStore, MemoryStore, RedbStore, StoreIdentity};
use neardup::signature::Registry;
use neardup::{Config, Deduper, Error, VerdictKind};
use neardup_api::Signature;

use crate::util::{read_verdicts, Dir};

fn identity() -> StoreIdentity {
    StoreIdentity {
        detectors: vec!["exact".into(), "chunks".into()],
        fingerprint: 42,
    }
}

fn record(n: u32) -> DocRecord {
    DocRecord {
        key: format!("k{n}"),
        url: format!("https://s{}.example/p/{n}", n % 3),
        site: format!("s{}.example", n % 3),
        signatures: vec![
            Signature::Fingerprint(u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            Signature::Set((0..n).map(|i| i * 7 + n).collect()),
        ],
        fetched_at: 1_700_000_000 + u64::from(n),
    }
}

/// What every store must do, whatever it keeps its records in. The store
/// must be new (no record ever inserted).
fn store_suite(store: &mut dyn DocStore) {
    assert!(store.is_empty());
    assert_eq!(store.len(), 0);
    assert_eq!(store.get(0).unwrap(), None);
    let ids: Vec<u32> = (0..4).map(|n| store.insert(record(n)).unwrap()).collect();
    assert_eq!(ids, [0, 1, 2, 3], "dense ids in insertion order from 0");
    assert_eq!(store.len(), 4);
    for n in 0..4 {
        assert_eq!(store.get(n).unwrap().as_deref(), Some(&record(n)));
    }
    assert_eq!(store.get(4).unwrap(), None);
    assert_eq!(store.get(u32::MAX).unwrap(), None);
    // Removal returns the record once.
    assert_eq!(store.remove(1).unwrap().as_deref(), Some(&record(1)));
    assert_eq!(store.remove(1).unwrap(), None);
    assert_eq!(store.remove(99).unwrap(), None);
    assert_eq!(store.get(1).unwrap(), None);
    assert_eq!(store.len(), 3);
    // Removing the highest id does not make it available again.
    assert!(store.remove(3).unwrap().is_some());
    assert_eq!(store.insert(record(10)).unwrap(), 4, "ids are never reused");
    let mut seen = Vec::new();
    store
        .for_each(&mut |id, rec: &Arc<DocRecord>| seen.push((id, rec.key.clone())))
        .unwrap();
    assert_eq!(
        seen,
        [
            (0, "k0".to_owned()),
            (2, "k2".to_owned()),
            (4, "k10".to_owned())
        ]
    );
    store.flush().unwrap();
    assert_eq!(store.len(), 3);
    assert!(!store.is_empty());
    assert!(store.heap_bytes() > 0);
}

#[test]
fn memory_store_passes_the_store_suite() {
    store_suite(&mut MemoryStore::default());
}

#[test]
fn redb_store_passes_the_store_suite() {
    let dir = Dir::new();
    let mut store = RedbStore::open(&dir.join("i.redb"), &identity()).unwrap();
    store_suite(&mut store);
}

#[test]
fn redb_store_reopens_with_records_removals_and_next_id() {
    let dir = Dir::new();
    let path = dir.join("i.redb");
    {
        let mut s = RedbStore::open(&path, &identity()).unwrap();
        for n in 0..5 {
            s.insert(record(n)).unwrap();
        }
        s.remove(2).unwrap();
        s.remove(4).unwrap();
        s.flush().unwrap();
        assert_eq!(s.pending(), 0);
        assert_eq!(s.stored_len().unwrap(), 3);
    }
    let mut s = RedbStore::open(&path, &identity()).unwrap();
    assert_eq!(s.len(), 3);
    for n in [0, 1, 3] {
        assert_eq!(s.get(n).unwrap().as_deref(), Some(&record(n)));
    }
    assert_eq!(s.get(2).unwrap(), None);
    assert_eq!(s.get(4).unwrap(), None);
    assert_eq!(
        s.insert(record(7)).unwrap(),
        5,
        "continues after removed id 4"
    );
}

#[test]
fn redb_store_with_another_identity_is_a_clear_error() {
    let dir = Dir::new();
    let path = dir.join("i.redb");
    drop(RedbStore::open(&path, &identity()).unwrap());
    let other_chain = StoreIdentity {
        detectors: vec!["exact".into(), "simhash".into()],
        ..identity()
    };
    let msg = RedbStore::open(&path, &other_chain)
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("[exact, chunks]") && msg.contains("[exact, simhash]"),
        "{msg}"
    );
    let other_config = StoreIdentity {
        fingerprint: 43,
        ..identity()
    };
    let msg = RedbStore::open(&path, &other_config)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("settings"), "{msg}");
}

#[test]
fn garbage_and_foreign_files_are_clear_errors() {
    let dir = Dir::new();
    // Deterministic noise, large enough to look like a database header.
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let noise: Vec<u8> = (0..65_536)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    let garbage = dir.write("garbage.redb", &noise);
    let err = RedbStore::open(&garbage, &identity()).unwrap_err();
    assert!(matches!(err, Error::Store { .. }), "{err:?}");
    assert!(err.to_string().contains("garbage.redb"), "{err}");
    let text = dir.write("text.redb", "not a database at all\n".repeat(100));
    assert!(matches!(
        RedbStore::open(&text, &identity()),
        Err(Error::Store { .. })
    ));
    // A valid redb file written by someone else.
    let foreign = dir.join("foreign.redb");
    {
        let db = redb::Database::create(&foreign).unwrap();
        let txn = db.begin_write().unwrap();
        {
            let def: redb::TableDefinition<u64, u64> = redb::TableDefinition::new("theirs");
            txn.open_table(def).unwrap().insert(1, 2).unwrap();
        }
        txn.commit().unwrap();
    }
    let msg = RedbStore::open(&foreign, &identity())
        .unwrap_err()
        .to_string();
    assert!(msg.contains("not a neardup index"), "{msg}");
}

fn page(words: &str) -> Vec<u8> {
    format!(
        "<html><head><title>t</title></head><body><article><p>{words}</p></article></body></html>"
    )
    .into_bytes()
}

/// A page of `n` words drawn deterministically from `seed`: different seeds
/// give unrelated pages (words of 3 to 6 letters from a 20,000-word space).
fn text(seed: u64, n: usize) -> String {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mut w = x % 20_000;
            let mut word = String::new();
            for _ in 0..3 + (x >> 40) % 4 {
                word.push(char::from(b'a' + (w % 26) as u8));
                w = w / 26 + 7;
            }
            word
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn deduper_reopens_matches_continues_ids_and_keeps_removals() {
    let dir = Dir::new();
    let path = dir.join("i.redb");
    let registry = Registry::default();
    let (a, b, c) = (page(&text(1, 80)), page(&text(2, 80)), page(&text(3, 80)));
    {
        let mut d = Deduper::open(Config::default(), &registry, &path).unwrap();
        let va = d.check("https://a.example/1", &a, None).unwrap();
        let vb = d.check("https://a.example/2", &b, None).unwrap();
        assert_eq!((va.indexed_as, vb.indexed_as), (Some(0), Some(1)));
        d.flush().unwrap();
    }
    {
        let mut d = Deduper::open(Config::default(), &registry, &path).unwrap();
        assert_eq!(d.stats().indexed, 2);
        let copy = d.check("https://b.example/copy", &a, None).unwrap();
        assert_eq!(copy.kind, VerdictKind::Duplicate);
        let m = copy.matched.unwrap();
        assert_eq!((m.id, m.url.as_str()), (0, "https://a.example/1"));
        let vc = d.check("https://a.example/3", &c, None).unwrap();
        assert_eq!(vc.indexed_as, Some(2), "ids continue");
        assert!(d.remove(1).unwrap());
        d.flush().unwrap();
    }
    let mut d = Deduper::open(Config::default(), &registry, &path).unwrap();
    assert_eq!(d.stats().indexed, 2);
    let again = d.check("https://b.example/2", &b, None).unwrap();
    assert_eq!(again.kind, VerdictKind::Unique, "removal persisted");
    assert_eq!(again.indexed_as, Some(3), "removed id 1 is not reused");
    let c_copy = d.check("https://b.example/3", &c, None).unwrap();
    assert_eq!(c_copy.matched.map(|m| m.id), Some(2));
}

#[test]
fn deduper_with_another_chain_or_settings_refuses_the_index() {
    let dir = Dir::new();
    let path = dir.join("i.redb");
    let registry = Registry::default();
    drop(Deduper::open(Config::default(), &registry, &path).unwrap());
    let mut chain = Config::default();
    chain.decide.detectors = vec!["exact".into()];
    let msg = Deduper::open(chain, &registry, &path)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("detector chain"), "{msg}");
    let mut settings = Config::default();
    settings.chunks.avg_size *= 2;
    let msg = Deduper::open(settings, &registry, &path)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("settings"), "{msg}");
}

fn write_pages(dir: &Dir, sub: &str, seeds: std::ops::Range<u64>) {
    for s in seeds {
        dir.write(&format!("{sub}/p{s:05}.html"), page(&text(s, 120)));
    }
}

#[test]
fn dedup_second_run_matches_pages_of_the_first() {
    let dir = Dir::new();
    write_pages(&dir, "one", 0..10);
    // Run two: copies of pages 3 and 7 under new names, and new pages.
    dir.write("two/copy3.html", page(&text(3, 120)));
    dir.write("two/copy7.html", page(&text(7, 120)));
    write_pages(&dir, "two", 100..104);
    dir.run(&["dedup", "one", "--out", "o1", "--index", "i.redb", "-q"])
        .expect_code(0);
    let run = dir.run(&["dedup", "two", "--out", "o2", "--index", "i.redb", "-q"]);
    let run = run.expect_code(0);
    let _ = run;
    let v = read_verdicts(&dir.read("o2/verdicts.jsonl"));
    let of: HashMap<&str, Option<&str>> = v
        .iter()
        .map(|l| (l["doc_id"].as_str().unwrap(), l["of"].as_str()))
        .collect();
    assert_eq!(of["copy3"], Some("p00003"));
    assert_eq!(of["copy7"], Some("p00007"));
    for s in 100..104 {
        assert_eq!(of[format!("p{s:05}").as_str()], None);
    }
    // Chain mismatch from the command line: a clear error, exit code != 0.
    let bad = dir.run(&[
        "dedup",
        "two",
        "--out",
        "o3",
        "--index",
        "i.redb",
        "--detector",
        "exact",
        "-q",
    ]);
    assert_ne!(bad.code(), 0);
    assert!(bad.stderr().contains("detector chain"), "{}", bad.stderr());
}

/// Verdict lines of a killed run: the temporary verdicts file, complete
/// lines only (the last one may be cut).
fn written_lines(out: &Path) -> Vec<serde_json::Value> {
    let Ok(entries) = std::fs::read_dir(out) else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name == "verdicts.jsonl" || name.starts_with(".verdicts.jsonl.") {
            let text = std::fs::read_to_string(e.path()).unwrap_or_default();
            let complete = text.rfind('\n').map_or("", |end| &text[..end]);
            lines.extend(
                complete
                    .lines()
                    .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()),
            );
        }
    }
    lines
}

#[cfg(unix)]
#[test]
fn killed_runs_lose_no_acknowledged_page_and_keep_none_twice() {
    let dir = Dir::new();
    const PAGES: u64 = 1500;
    write_pages(&dir, "in", 0..PAGES);
    let index = dir.join("i.redb");
    // Delays spread over a run (a debug build takes a few seconds).
    let delays_ms = [150u64, 400, 700, 1100, 1600, 2300];
    let mut kept_in: HashMap<String, usize> = HashMap::new();
    let mut acknowledged = 0usize;
    for (round, delay) in delays_ms.iter().enumerate() {
        let out = dir.join(&format!("o{round}"));
        let mut child = dir
            .cmd()
            .args(["dedup", "in", "--out"])
            .arg(&out)
            .arg("--index")
            .arg(&index)
            .args(["-q", "--threads", "2"])
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(*delay));
        // SIGKILL: no destructor, no flush.
        let _ = child.kill();
        let _ = child.wait();
        let lines = written_lines(&out);
        acknowledged += lines.len();
        for l in &lines {
            if l["verdict"] == "unique" {
                let key = l["doc_id"].as_str().unwrap().to_owned();
                if let Some(earlier) = kept_in.insert(key.clone(), round) {
                    panic!("{key} kept in round {earlier} and again in round {round}");
                }
            }
        }
        // Every page acknowledged as kept is in the reopened index: checked
        // again, it is an exact duplicate of itself.
        let mut d = Deduper::open(Config::default(), &Registry::default(), &index).unwrap();
        for key in kept_in.keys() {
            let n: u64 = key.trim_start_matches('p').parse().unwrap();
            let v = d
                .check("https://check.example/x", &page(&text(n, 120)), None)
                .unwrap();
            assert_eq!(
                v.kind,
                VerdictKind::Duplicate,
                "{key} lost after round {round}"
            );
            assert_eq!(v.matched.unwrap().key, *key);
        }
        assert!(d.stats().indexed as usize >= kept_in.len());
    }
    // A last run to the end. Pages made durable but not yet written out
    // when a run was killed come back as duplicates of themselves; no page
    // is kept twice, and every page ends up in the index exactly once.
    let out = dir.join("final");
    let status = dir
        .cmd()
        .args(["dedup", "in", "--out"])
        .arg(&out)
        .arg("--index")
        .arg(&index)
        .arg("-q")
        .status()
        .unwrap();
    assert!(status.success());
    let last = read_verdicts(&std::fs::read_to_string(out.join("verdicts.jsonl")).unwrap());
    assert_eq!(last.len() as u64, PAGES);
    let mut durable_unacknowledged = 0;
    for l in &last {
        let key = l["doc_id"].as_str().unwrap().to_owned();
        match l["verdict"].as_str().unwrap() {
            "unique" => {
                assert!(
                    kept_in.insert(key.clone(), 99).is_none(),
                    "{key} kept twice"
                );
            }
            _ => {
                assert_eq!(l["of"].as_str(), Some(key.as_str()), "{l}");
                if !kept_in.contains_key(&key) {
                    durable_unacknowledged += 1;
                }
            }
        }
    }
    for (key, round) in &kept_in {
        if *round != 99 {
            let l = last.iter().find(|l| l["doc_id"] == key.as_str()).unwrap();
            assert_eq!(l["of"].as_str(), Some(key.as_str()), "{key} lost");
        }
    }
    let d = Deduper::open(Config::default(), &Registry::default(), &index).unwrap();
    assert_eq!(d.stats().indexed, PAGES, "every page indexed exactly once");
    eprintln!(
        "crash test: {acknowledged} verdict lines acknowledged before kills, \
         {durable_unacknowledged} pages durable but not yet written out"
    );
}
