//! The document stores beyond the laws every store obeys (those are in
//! `store_laws`, run on memory, redb and Redis): the deduper over a
//! persistent index across reopen (ids, matches, removal), identity and
//! corruption errors, `dedup --index` over two runs, and a crash-safety
//! test that SIGKILLs the real binary mid-run.

use std::collections::HashMap;

use redb::ReadableTable;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use neardup::Config;
use neardup::Deduper;
use neardup::Error;
use neardup::Registry;
use neardup::StoreError;
use neardup::VerdictKind;
use neardup::{DocRecord, DocStore, Evidence, MemoryStore, RecordKind, RedbStore, StoreIdentity};
use neardup_api::Signature;

use crate::store_laws::{identity, record};
use crate::util::{read_verdicts, Dir};

/// The redb store's own counters around a flush (the laws every store
/// obeys, durability included, are in `store_laws`).
#[test]
fn redb_store_counts_pending_writes_until_flush() {
    let dir = Dir::new();
    let mut s = RedbStore::open(&dir.join("i.redb"), &identity()).unwrap();
    for n in 0..5 {
        s.insert(record(n)).unwrap();
    }
    s.remove(2).unwrap();
    assert_eq!(
        s.pending(),
        5,
        "four puts and a removal (of a put never written)"
    );
    assert_eq!(s.stored_len().unwrap(), 0, "nothing committed yet");
    s.flush().unwrap();
    assert_eq!(s.pending(), 0);
    assert_eq!(s.stored_len().unwrap(), 4);
    s.remove(4).unwrap();
    assert_eq!(s.pending(), 1);
    assert_eq!(s.stored_len().unwrap(), 4, "a removal counts once flushed");
    s.flush().unwrap();
    assert_eq!(s.stored_len().unwrap(), 3);
}

#[test]
fn garbage_and_foreign_files_are_clear_errors() {
    let dir = Dir::new();
    // Deterministic noise, large enough to look like a database header.
    let noise = crate::util::noise(0x2545_F491_4F6C_DD1D, 65_536);
    let garbage = dir.write("garbage.redb", &noise);
    let err = RedbStore::open(&garbage, &identity()).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Store {
                kind: StoreError::Corrupt(_),
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("garbage.redb"), "{err}");
    let text = dir.write("text.redb", "not a database at all\n".repeat(100));
    assert!(matches!(
        RedbStore::open(&text, &identity()),
        Err(Error::Store {
            kind: StoreError::Corrupt(_),
            ..
        })
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
    let err = RedbStore::open(&foreign, &identity()).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Store {
                kind: StoreError::Unsupported(_),
                ..
            }
        ),
        "a redb file of someone else's is not damaged: {err:?}"
    );
    assert!(err.to_string().contains("not a neardup index"), "{err}");
}

fn page(words: &str) -> Vec<u8> {
    format!(
        "<html><head><title>t</title></head><body><article><p>{words}</p></article></body></html>"
    )
    .into_bytes()
}

/// A page of `n` words drawn deterministically from `seed`: different seeds
/// give unrelated pages (a 20,000-word vocabulary, `util::pseudo_words`).
fn text(seed: u64, n: usize) -> String {
    crate::util::pseudo_words(seed, n, 20_000)
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
        assert_eq!((m.id, m.url.as_str()), (Some(0), "https://a.example/1"));
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
    assert_eq!(c_copy.matched.and_then(|m| m.id), Some(2));
}

#[test]
fn deduper_with_another_chain_or_settings_refuses_the_index() {
    let dir = Dir::new();
    let path = dir.join("i.redb");
    let registry = Registry::default();
    drop(Deduper::open(Config::default(), &registry, &path).unwrap());
    let mut chain = Config::default();
    chain.decide.detectors = vec!["exact".into()];
    let err = Deduper::open(chain, &registry, &path).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("detector chain"), "{msg}");
    // Typed: both identities, so a caller can show or compare them.
    match err {
        Error::Store {
            kind: StoreError::Incompatible { stored, wanted, .. },
            ..
        } => {
            assert_eq!(stored.chain(), ["exact", "simhash", "chunks"]);
            assert_eq!(wanted.chain(), ["exact"]);
        }
        other => panic!("not an incompatible index: {other:?}"),
    }
    // Each setting that changes stored signatures or evidence is refused,
    // named with both values.
    type Change = fn(&mut Config);
    let cases: [(&str, Change); 5] = [
        ("`chunks.avg_size` = 32 in the index, 64 now", |c| {
            c.chunks.avg_size = 64
        }),
        ("`simhash.shingle` = 3 in the index, 4 now", |c| {
            c.simhash.shingle = 4
        }),
        ("`text.stem` = false in the index, true now", |c| {
            c.text.stem = true
        }),
        ("`text.stop_words` = true in the index, false now", |c| {
            c.text.stop_words = false
        }),
        (
            "`extract.mode` = \"main\" in the index, \"full\" now",
            |c| c.extract.mode = neardup::ExtractMode::Full,
        ),
    ];
    for (want, change) in cases {
        let mut config = Config::default();
        change(&mut config);
        let err = Deduper::open(config, &registry, &path).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains(want), "{msg}");
        assert!(msg.contains("new index file"), "{msg}");
        let Error::Store {
            kind: StoreError::Incompatible { stored, wanted, .. },
            ..
        } = err
        else {
            panic!("not an incompatible index: {err:?}");
        };
        let key = want.split('`').nth(1).unwrap_or_default();
        assert_ne!(
            stored.settings.get(key),
            wanted.settings.get(key),
            "{key} differs between the two identities"
        );
    }
}

#[test]
fn deduper_reopens_its_index_with_other_decision_thresholds() {
    let dir = Dir::new();
    let path = dir.join("i.redb");
    let registry = Registry::default();
    let (a, b) = (page(&text(1, 80)), page(&text(2, 80)));
    {
        let mut d = Deduper::open(Config::default(), &registry, &path).unwrap();
        d.check("https://a.example/1", &a, None).unwrap();
        d.check("https://a.example/2", &b, None).unwrap();
        d.flush().unwrap();
    }
    // Thresholds, index parameters and crawl settings: none changes what
    // is stored, so the index opens with its pages.
    let mut config = Config::default();
    config.chunks.duplicate = 0.9;
    config.chunks.near_duplicate = 0.5;
    config.chunks.containment = 0.7;
    config.chunks.containment_min_chunks = 20;
    config.chunks.max_postings = 10;
    config.simhash.max_distance = 2;
    config.decide.min_terms = 30;
    config.decide.min_coverage = 0.9;
    config.decide.index_near_duplicates = true;
    config.index.ttl_secs = 3600;
    config.index.cache_bytes = 1 << 20;
    config.extract.max_links = 10;
    config.crawl = toml::from_str("[scope]\nmax_depth = 3\n").unwrap();
    let mut d = Deduper::open(config, &registry, &path).unwrap();
    assert!(!d.store_is_remote(), "a file in this process");
    assert_eq!(d.stats().indexed, 2);
    let copy = d.check("https://b.example/copy", &a, None).unwrap();
    assert_eq!(copy.kind, VerdictKind::Duplicate);
    assert_eq!(copy.matched.unwrap().url, "https://a.example/1");
}

/// Writes a format-2 index of no pages whose identity is the old form: the
/// default chain and `fingerprint`.
fn write_format_2(path: &Path, fingerprint: u64) {
    let meta: redb::TableDefinition<&str, &[u8]> = redb::TableDefinition::new("meta");
    let docs: redb::TableDefinition<u32, &[u8]> = redb::TableDefinition::new("docs");
    let chain = neardup::store_identity(&Config::default(), &Registry::default())
        .unwrap()
        .detectors;
    let db = redb::Database::create(path).unwrap();
    let txn = db.begin_write().unwrap();
    {
        let mut m = txn.open_table(meta).unwrap();
        m.insert("format", 2u32.to_le_bytes().as_slice()).unwrap();
        let id = postcard::to_allocvec(&LegacyIdentity {
            detectors: &chain,
            fingerprint,
        })
        .unwrap();
        m.insert("identity", id.as_slice()).unwrap();
        m.insert("next_id", 0u32.to_le_bytes().as_slice()).unwrap();
        txn.open_table(docs).unwrap();
    }
    txn.commit().unwrap();
}

#[test]
fn format_2_index_opens_with_its_own_config_and_then_takes_new_thresholds() {
    let dir = Dir::new();
    let registry = Registry::default();
    let own = neardup::store_identity(&Config::default(), &registry)
        .unwrap()
        .legacy_fingerprint
        .unwrap();
    // Built with another config: which setting differs is unknown, so it is
    // refused with what to do.
    let other = dir.join("other.redb");
    write_format_2(&other, own ^ 1);
    let err = Deduper::open(Config::default(), &registry, &other).unwrap_err();
    let msg = err.to_string();
    let Error::Store {
        kind: StoreError::Incompatible { stored, .. },
        ..
    } = err
    else {
        panic!("not an incompatible index: {err:?}");
    };
    assert_eq!(stored.legacy_fingerprint, Some(own ^ 1));
    assert!(stored.settings.is_empty(), "format 2 recorded no settings");
    assert!(msg.contains("older neardup"), "{msg}");
    assert!(msg.contains("config it was built with"), "{msg}");
    // Built with this config: opens, and records its settings...
    let path = dir.join("i.redb");
    write_format_2(&path, own);
    let mut thresholds = Config::default();
    thresholds.chunks.duplicate = 0.95;
    assert!(
        Deduper::open(thresholds.clone(), &registry, &path).is_err(),
        "a format-2 fingerprint covered thresholds too"
    );
    drop(Deduper::open(Config::default(), &registry, &path).unwrap());
    // ...so that now a threshold change is accepted and a signature change
    // is refused by name.
    drop(Deduper::open(thresholds, &registry, &path).unwrap());
    let mut window = Config::default();
    window.chunks.window = 32;
    let msg = Deduper::open(window, &registry, &path)
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("`chunks.window` = 16 in the index, 32 now"),
        "{msg}"
    );
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

/// Verdict lines of a killed run: `verdicts.jsonl.partial` (no hidden
/// temporary file), complete lines only (the last one may be cut).
fn written_lines(out: &Path) -> Vec<serde_json::Value> {
    let Ok(entries) = std::fs::read_dir(out) else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        assert!(
            !name.starts_with(".verdicts"),
            "hidden verdicts file {name}"
        );
        if name == "verdicts.jsonl" || name == "verdicts.jsonl.partial" {
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

/// A near copy of `text(seed, n)`: every 20th word replaced.
fn edited(seed: u64, n: usize) -> String {
    text(seed, n)
        .split(' ')
        .enumerate()
        .map(|(i, w)| if i % 20 == 7 { "zzyzx" } else { w })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A deduper in memory, or over a new redb file in `dir`, with `config`.
fn deduper(dir: Option<&Dir>, config: Config) -> Deduper {
    match dir {
        None => Deduper::with_registry(config, &Registry::default(), Box::<MemoryStore>::default())
            .unwrap(),
        Some(dir) => Deduper::open(config, &Registry::default(), &dir.join("r.redb")).unwrap(),
    }
}

fn recrawl_suite(dir: Option<&Dir>) {
    let mut d = deduper(dir, Config::default());
    let (old, new) = (page(&text(40, 150)), page(&edited(40, 150)));
    let first = d.check("https://a.example/news", &old, None).unwrap();
    let id0 = first.indexed_as.unwrap();
    // Unchanged re-fetch: named as such, nothing added.
    let same = d.check("https://a.example/news", &old, None).unwrap();
    assert_eq!(same.kind, VerdictKind::Duplicate);
    let m = same.matched.unwrap();
    assert_eq!((m.id, &m.basis), (Some(id0), &neardup::MatchBasis::SameUrl));
    assert!(m.reason.contains("unchanged"), "{}", m.reason);
    assert_eq!(same.indexed_as, None);
    assert_eq!(d.stats().indexed, 1);
    // Changed at the same URL (another spelling of it): unique, replaces.
    let changed = d
        .check("HTTPS://A.example:443/news#top", &new, None)
        .unwrap();
    assert_eq!(changed.kind, VerdictKind::Unique, "{changed:?}");
    let id1 = changed.indexed_as.unwrap();
    assert_ne!(id1, id0);
    assert_eq!(d.stats().indexed, 1, "the old version is gone");
    assert_eq!(d.id_of_url("https://a.example/news").unwrap(), Some(id1));
    // The old version no longer matches anything but the new one does.
    let old_copy = d.check("https://b.example/old", &old, None).unwrap();
    assert_eq!(
        old_copy.matched.and_then(|m| m.id),
        Some(id1),
        "near copy of the new version"
    );
    let new_copy = d.check("https://b.example/new", &new, None).unwrap();
    assert_eq!(new_copy.kind, VerdictKind::Duplicate);
    assert_eq!(new_copy.matched.unwrap().id, Some(id1));

    // A new version that copies another page: the verdict names that page
    // and the old version is removed all the same.
    let other = d
        .check("https://c.example/x", &page(&text(41, 150)), None)
        .unwrap();
    let other_id = other.indexed_as.unwrap();
    let moved = d
        .check("https://a.example/news", &page(&text(41, 150)), None)
        .unwrap();
    assert_eq!(moved.kind, VerdictKind::Duplicate);
    let m = moved.matched.unwrap();
    assert_eq!(
        (m.id, m.url.as_str()),
        (Some(other_id), "https://c.example/x")
    );
    assert_eq!(d.id_of_url("https://a.example/news").unwrap(), None);
    d.flush().unwrap();
    if let Some(dir) = dir {
        drop(d);
        let d = deduper(Some(dir), Config::default());
        assert_eq!(d.id_of_url("https://a.example/news").unwrap(), None);
        assert_eq!(
            d.id_of_url("https://c.example/x").unwrap(),
            Some(other_id),
            "URL map rebuilt on open"
        );
    }
}

#[test]
fn recrawl_of_a_changed_page_is_unique_and_replaces_in_memory() {
    recrawl_suite(None);
}

#[test]
fn recrawl_of_a_changed_page_is_unique_and_replaces_in_redb() {
    recrawl_suite(Some(&Dir::new()));
}

#[test]
fn without_replace_same_url_a_changed_page_matches_its_old_version() {
    let mut config = Config::default();
    config.index.replace_same_url = false;
    let mut d = deduper(None, config);
    d.check("https://a.example/news", &page(&text(40, 150)), None)
        .unwrap();
    let changed = d
        .check("https://a.example/news", &page(&edited(40, 150)), None)
        .unwrap();
    assert_eq!(changed.kind, VerdictKind::NearDuplicate);
}

#[test]
fn a_tracking_parameter_variant_is_a_copy_not_a_recrawl() {
    // The frontier merges `?utm_*` variants before fetching, but a caller of
    // `check` may pass one: its near copy must be reported against the
    // page, not replace it as a new version of the same URL.
    let mut d = deduper(None, Config::default());
    let first = d
        .check("https://a.example/news", &page(&text(40, 150)), None)
        .unwrap();
    let variant = d
        .check(
            "https://a.example/news?utm_source=feed",
            &page(&edited(40, 150)),
            None,
        )
        .unwrap();
    assert_eq!(variant.kind, VerdictKind::NearDuplicate, "{variant:?}");
    assert_eq!(variant.matched.unwrap().id, Some(first.indexed_as.unwrap()));
    assert_eq!(
        d.id_of_url("https://a.example/news").unwrap(),
        first.indexed_as,
        "the page at the plain URL is still indexed"
    );
}

#[test]
fn delete_by_url_then_an_identical_page_is_unique() {
    let dir = Dir::new();
    let body = page(&text(50, 120));
    {
        let mut d = deduper(Some(&dir), Config::default());
        let id = d
            .check("https://a.example/p?x=1", &body, None)
            .unwrap()
            .indexed_as
            .unwrap();
        assert_eq!(d.remove_url("https://a.example/other").unwrap(), None);
        assert_eq!(d.remove_url("https://A.EXAMPLE/p?x=1").unwrap(), Some(id));
        assert_eq!(
            d.remove_url("https://a.example/p?x=1").unwrap(),
            None,
            "once"
        );
        d.flush().unwrap();
    }
    let mut d = deduper(Some(&dir), Config::default());
    assert_eq!(d.stats().indexed, 0, "removal is durable");
    let v = d.check("https://b.example/copy", &body, None).unwrap();
    assert_eq!(v.kind, VerdictKind::Unique);
}

/// A clock the test steps by hand.
fn manual_clock(d: &mut Deduper, start: u64) -> Arc<std::sync::atomic::AtomicU64> {
    let now = Arc::new(std::sync::atomic::AtomicU64::new(start));
    let c = Arc::clone(&now);
    d.set_clock(move || c.load(std::sync::atomic::Ordering::SeqCst));
    now
}

fn ttl_suite(dir: Option<&Dir>) {
    use std::sync::atomic::Ordering::SeqCst;
    let mut config = Config::default();
    config.index.ttl_secs = 100;
    let mut d = deduper(dir, config.clone());
    let now = manual_clock(&mut d, 1_000);
    let (a, b) = (page(&text(60, 120)), page(&text(61, 120)));
    let ida = d
        .check("https://a.example/a", &a, None)
        .unwrap()
        .indexed_as
        .unwrap();
    now.store(1_010, SeqCst);
    d.check("https://a.example/b", &b, None).unwrap();
    now.store(1_099, SeqCst);
    let copy = d.check("https://z.example/1", &a, None).unwrap();
    assert_eq!(copy.kind, VerdictKind::Duplicate, "not expired yet");
    // An unchanged re-fetch keeps `a` alive from now on.
    let refetch = d.check("https://a.example/a", &a, None).unwrap();
    assert_eq!(refetch.matched.unwrap().id, Some(ida));
    now.store(1_110, SeqCst);
    // `b` (fetched at 1010) expired at 1110; `a` (re-fetched at 1099) lives.
    let b_copy = d.check("https://z.example/2", &b, None).unwrap();
    assert_eq!(
        b_copy.kind,
        VerdictKind::Unique,
        "expired pages no longer match"
    );
    let a_copy = d.check("https://z.example/3", &a, None).unwrap();
    assert_eq!(a_copy.kind, VerdictKind::Duplicate);
    assert_eq!(d.stats().indexed, 2, "a, and b's copy z/2 (b removed)");
    assert_eq!(d.id_of_url("https://a.example/b").unwrap(), None);
    d.flush().unwrap();
    if let Some(dir) = dir {
        // Fetch times persist: after reopening, expiry goes on from them.
        drop(d);
        let mut d = deduper(Some(dir), config);
        let now = manual_clock(&mut d, 1_150);
        assert_eq!(d.expire().unwrap(), 0, "a (1099) and z/2 (1110) live");
        now.store(1_199, SeqCst);
        assert_eq!(d.expire().unwrap(), 1, "a expires at 1199");
        now.store(1_210, SeqCst);
        assert_eq!(d.expire().unwrap(), 1, "z/2 expires at 1210");
        assert_eq!(d.stats().indexed, 0);
        d.flush().unwrap();
        drop(d);
        assert_eq!(deduper(Some(dir), Config::default()).stats().indexed, 0);
    } else {
        now.store(1_210, SeqCst);
        assert_eq!(d.expire().unwrap(), 2);
        assert_eq!(d.stats().indexed, 0);
    }
}

#[test]
fn ttl_expires_pages_by_the_injected_clock_in_memory() {
    ttl_suite(None);
}

#[test]
fn ttl_expires_pages_by_the_injected_clock_in_redb() {
    ttl_suite(Some(&Dir::new()));
}

#[test]
fn ttl_with_a_redis_index_is_refused_clearly() {
    let mut config = Config::default();
    config.index.ttl_secs = 60;
    // Refused before connecting: nothing listens on port 1.
    let loc = neardup::RedisLocation::parse("redis://127.0.0.1:1").unwrap();
    let err = Deduper::open_redis(config, &Registry::default(), &loc)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("index.ttl_secs") && err.contains("Redis"),
        "{err}"
    );
}

/// The identity as formats 1 and 2 stored it: the chain and a fingerprint.
#[derive(serde::Serialize)]
struct LegacyIdentity<'a> {
    detectors: &'a [String],
    fingerprint: u64,
}

/// [`identity`] as a format-1 or 2 file built with it recorded it.
fn legacy_identity_bytes(fingerprint: u64) -> Vec<u8> {
    postcard::to_allocvec(&LegacyIdentity {
        detectors: &identity().detectors,
        fingerprint,
    })
    .unwrap()
}

/// The format-1 record layout (no fetch time), as written before format 2.
#[derive(serde::Serialize)]
struct RecordV1<'a> {
    key: &'a str,
    url: &'a str,
    site: &'a str,
    signatures: &'a [Signature],
}

#[test]
fn format_1_file_is_upgraded_in_place_with_the_open_time() {
    let dir = Dir::new();
    let path = dir.join("v1.redb");
    let meta: redb::TableDefinition<&str, &[u8]> = redb::TableDefinition::new("meta");
    let docs: redb::TableDefinition<u32, &[u8]> = redb::TableDefinition::new("docs");
    let urls: redb::TableDefinition<&str, u32> = redb::TableDefinition::new("urls");
    {
        let db = redb::Database::create(&path).unwrap();
        let txn = db.begin_write().unwrap();
        {
            let mut m = txn.open_table(meta).unwrap();
            m.insert("format", 1u32.to_le_bytes().as_slice()).unwrap();
            m.insert("identity", legacy_identity_bytes(42).as_slice())
                .unwrap();
            m.insert("next_id", 4u32.to_le_bytes().as_slice()).unwrap();
            let mut d = txn.open_table(docs).unwrap();
            let mut u = txn.open_table(urls).unwrap();
            for n in [0u32, 1, 3] {
                let r = record(n);
                let bytes = postcard::to_allocvec(&RecordV1 {
                    key: &r.key,
                    url: &r.url,
                    site: &r.site,
                    signatures: &r.signatures,
                })
                .unwrap();
                d.insert(n, bytes.as_slice()).unwrap();
                u.insert(r.url.as_str(), n).unwrap();
            }
        }
        txn.commit().unwrap();
    }
    let legacy = StoreIdentity {
        legacy_fingerprint: Some(42),
        ..identity()
    };
    {
        let mut s = RedbStore::open_at(&path, &legacy, 1 << 20, 777).unwrap();
        assert_eq!(s.len(), 3);
        for n in [0, 1, 3] {
            // No evidence in this identity's chain: kept pages without it.
            let want = DocRecord {
                fetched_at: 777,
                kind: RecordKind::Kept,
                evidence: Evidence::default(),
                ..record(n)
            };
            assert_eq!(s.get(n).unwrap().as_deref(), Some(&want));
        }
        assert_eq!(s.insert(record(9)).unwrap(), 4, "next_id kept");
        s.flush().unwrap();
    }
    // Now format 4 (typed records, settings recorded): opens without
    // upgrading again (times stay 777), also without a legacy fingerprint.
    let s = RedbStore::open_at(&path, &identity(), 1 << 20, 999).unwrap();
    assert_eq!(s.get(0).unwrap().unwrap().fetched_at, 777);
    assert_eq!(s.get(4).unwrap().as_deref(), Some(&record(9)));
    let db_tables = {
        drop(s);
        let db = redb::Database::open(&path).unwrap();
        let read = db.begin_read().unwrap();
        read.list_tables()
            .unwrap()
            .map(|t| redb::TableHandle::name(&t).to_owned())
            .collect::<Vec<_>>()
    };
    assert!(!db_tables.contains(&"urls".to_owned()), "{db_tables:?}");
}

/// A format-2 or 3 record: the content evidence as five signatures after
/// the chain's, no kind.
#[derive(serde::Serialize)]
struct RecordV3<'a> {
    key: &'a str,
    url: &'a str,
    site: &'a str,
    signatures: &'a [Signature],
    fetched_at: u64,
}

/// Writes a format-3 index of the default chain holding `records` (id,
/// signatures and evidence slots).
fn write_format_3(path: &Path, records: &[(u32, Vec<Signature>)]) {
    let encoded: Vec<(u32, Vec<u8>)> = records
        .iter()
        .map(|(id, signatures)| {
            let bytes = postcard::to_allocvec(&RecordV3 {
                key: &format!("k{id}"),
                url: &format!("https://s.example/{id}"),
                site: "s.example",
                signatures,
                fetched_at: 1000 + u64::from(*id),
            })
            .unwrap();
            (*id, bytes)
        })
        .collect();
    write_legacy(path, 3, &encoded);
}

/// The format a redb index file says it is in (`meta`'s `format`).
fn file_format(read: &redb::ReadTransaction) -> u32 {
    let meta: redb::TableDefinition<&str, &[u8]> = redb::TableDefinition::new("meta");
    let t = read.open_table(meta).unwrap();
    let bytes = t.get("format").unwrap().unwrap().value().to_vec();
    u32::from_le_bytes(bytes.try_into().expect("format is a u32"))
}

/// Opening `bad`, a file of `format` whose record 1 cannot be read, fails
/// naming that record as corrupt, and the file keeps its format (the
/// upgrade wrote nothing).
fn refused_and_left_as_it_was(bad: &Path, identity: &StoreIdentity, format: u32) {
    let msg = match RedbStore::open_at(bad, identity, 1 << 20, 999) {
        Ok(_) => panic!("format {format}: a damaged record was upgraded"),
        Err(
            e @ Error::Store {
                kind: StoreError::Corrupt(_),
                ..
            },
        ) => e.to_string(),
        Err(e) => panic!("format {format}: not named corrupt: {e:?}"),
    };
    assert!(msg.contains("record 1 is corrupt"), "{msg}");
    let db = redb::Database::open(bad).unwrap();
    let read = db.begin_read().unwrap();
    assert_eq!(file_format(&read), format);
}

/// Writes an index of the default chain in `format` holding `records`
/// (id, record as that format encoded it).
fn write_legacy(path: &Path, format: u32, records: &[(u32, Vec<u8>)]) {
    let meta: redb::TableDefinition<&str, &[u8]> = redb::TableDefinition::new("meta");
    let docs: redb::TableDefinition<u32, &[u8]> = redb::TableDefinition::new("docs");
    let identity = neardup::store_identity(&Config::default(), &Registry::default()).unwrap();
    let db = redb::Database::create(path).unwrap();
    let txn = db.begin_write().unwrap();
    {
        let mut m = txn.open_table(meta).unwrap();
        m.insert("format", format.to_le_bytes().as_slice()).unwrap();
        m.insert(
            "identity",
            postcard::to_allocvec(&identity).unwrap().as_slice(),
        )
        .unwrap();
        let next = records.iter().map(|r| r.0 + 1).max().unwrap_or(0);
        m.insert("next_id", next.to_le_bytes().as_slice()).unwrap();
        let mut d = txn.open_table(docs).unwrap();
        for (id, bytes) in records {
            d.insert(id, bytes.as_slice()).unwrap();
        }
    }
    txn.commit().unwrap();
}

/// The default chain's signatures (exact, simhash, chunks) and, after
/// them, evidence slots as redb formats 1 to 3 and Redis log formats 1
/// and 2 stored them; `modulus` 0 marked an observation.
pub(crate) fn legacy_slots(modulus: u32) -> Vec<Signature> {
    let sample = if modulus == 0 {
        vec![0]
    } else {
        vec![modulus, 8, 16, 4_000_000_000]
    };
    vec![
        Signature::Fingerprint(11),
        Signature::Fingerprint(12),
        Signature::Set(vec![3, 4, 5]),
        Signature::Set(vec![1, 5, 9]),
        Signature::Sketch(sample),
        Signature::Fingerprint(77),
        Signature::Set(vec![2, 3]),
        Signature::Sketch(vec![5, 120]),
    ]
}

#[test]
fn format_3_file_is_upgraded_to_typed_records() {
    let dir = Dir::new();
    let path = dir.join("v3.redb");
    let mut observed = legacy_slots(0);
    observed[..3].fill(Signature::Empty);
    write_format_3(&path, &[(0, legacy_slots(4)), (2, observed)]);
    let registry = Registry::default();
    let identity = neardup::store_identity(&Config::default(), &registry).unwrap();
    {
        let s = RedbStore::open_at(&path, &identity, 1 << 20, 999).unwrap();
        let kept = s.get(0).unwrap().unwrap();
        assert_eq!(kept.kind, RecordKind::Kept);
        assert_eq!(kept.signatures, legacy_slots(4)[..3]);
        assert_eq!(
            kept.evidence,
            Evidence {
                blocks: vec![1, 5, 9],
                modulus: 4,
                sample: vec![8, 16, 4_000_000_000],
                visible: 77,
                title: vec![2, 3],
                lang: 5,
                main_words: 120,
            }
        );
        assert_eq!(
            (kept.key.as_str(), kept.fetched_at),
            ("k0", 1000),
            "kept as stored"
        );
        let obs = s.get(2).unwrap().unwrap();
        assert_eq!(obs.kind, RecordKind::Observation);
        assert_eq!((obs.evidence.modulus, obs.evidence.sample.len()), (0, 0));
        assert_eq!(obs.evidence.blocks, [1, 5, 9]);
        assert!(obs.signatures.is_empty(), "an observation is in no index");
    }
    // Upgraded once: the file says this build's format and opens as such.
    {
        let db = redb::Database::open(&path).unwrap();
        let read = db.begin_read().unwrap();
        assert_eq!(file_format(&read), 7);
    }
    let d = Deduper::open(Config::default(), &registry, &path).unwrap();
    assert_eq!(
        d.stats().indexed,
        1,
        "the observation is not an indexed page"
    );
    drop(d);

    // Slots that do not decode are a corrupt record, named, and the file
    // is left as it was.
    let bad = dir.join("bad.redb");
    let mut slots = legacy_slots(4);
    slots[4] = Signature::Fingerprint(1);
    write_format_3(&bad, &[(0, legacy_slots(4)), (1, slots)]);
    refused_and_left_as_it_was(&bad, &identity, 3);
}

/// A record as redb format 4 encoded it: the same fields as format 5, its
/// sets as varint gaps (`Evidence`'s own serde, `Signature`'s), its key
/// and site in full.
#[derive(serde::Serialize)]
struct RecordV4<'a> {
    key: &'a str,
    url: &'a str,
    site: &'a str,
    kind: RecordKind,
    signatures: &'a [Signature],
    evidence: &'a Evidence,
    fetched_at: u64,
}

fn encode_v4(r: &DocRecord) -> Vec<u8> {
    postcard::to_allocvec(&RecordV4 {
        key: &r.key,
        url: &r.url,
        site: &r.site,
        kind: r.kind,
        signatures: &r.signatures,
        evidence: &r.evidence,
        fetched_at: r.fetched_at,
    })
    .unwrap()
}

#[test]
fn format_4_file_is_upgraded_to_compact_records() {
    let dir = Dir::new();
    let path = dir.join("v4.redb");
    let registry = Registry::default();
    let identity = neardup::store_identity(&Config::default(), &registry).unwrap();
    // Records the size of rust-doc's (about 37 blocks, 73 sampled
    // shingles, 20 chunks: random 32-bit hashes) with the default chain's
    // three signatures; keys that are and are not the URL's end, a site
    // that is not in the URL.
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut hashes = |n: usize, unit: u32| -> Vec<u32> {
        let mut v: Vec<u32> = (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 32) as u32 / unit * unit
            })
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let mut records: Vec<DocRecord> = (0..6).map(record).collect();
    for (i, r) in records.iter_mut().enumerate() {
        r.evidence.blocks = hashes(37, 1);
        r.evidence.title = hashes(5, 1);
        r.evidence.visible = u64::MAX / 3 + i as u64;
        if r.kind.is_indexed() {
            r.evidence.sample = hashes(73, r.evidence.modulus);
            r.signatures = vec![
                Signature::Fingerprint(u64::MAX / 5 + i as u64),
                Signature::Fingerprint(u64::MAX / 7 + i as u64),
                Signature::Set(hashes(20, 1)),
            ];
        }
    }
    records[1].site = "elsewhere.example".into();
    let encoded: Vec<(u32, Vec<u8>)> = (0u32..).zip(records.iter().map(encode_v4)).collect();
    write_legacy(&path, 4, &encoded);
    let v4_bytes: usize = encoded.iter().map(|(_, b)| b.len()).sum();
    {
        let s = RedbStore::open_at(&path, &identity, 1 << 20, 999).unwrap();
        for (id, want) in (0u32..).zip(&records) {
            assert_eq!(*s.get(id).unwrap().unwrap(), *want, "record {id}");
        }
    }
    let db = redb::Database::open(&path).unwrap();
    {
        let read = db.begin_read().unwrap();
        assert_eq!(file_format(&read), 7);
        let v7_bytes = group_bytes(&read);
        // Rice codes, fixed-width fingerprints and keys in the URL (these
        // random sets share nothing a group could save): under nine
        // tenths (0.79 on the rust-doc index, before grouping).
        assert!(
            v7_bytes * 10 < v4_bytes * 9,
            "format 7 takes {v7_bytes} bytes, format 4 took {v4_bytes}"
        );
    }
    drop(db);
    // Opened again, nothing is upgraded twice.
    let s = RedbStore::open_at(&path, &identity, 1 << 20, 999).unwrap();
    assert_eq!(*s.get(5).unwrap().unwrap(), records[5]);
    drop(s);

    // A format-4 record that does not decode is named, and the file is
    // left in format 4.
    let bad = dir.join("bad4.redb");
    let mut broken = encode_v4(&records[2]);
    broken.truncate(broken.len() / 2);
    write_legacy(&bad, 4, &[(0, encode_v4(&records[0])), (1, broken)]);
    refused_and_left_as_it_was(&bad, &identity, 4);
}

/// The records of a format-6 file (id, record as format 5 encoded it),
/// read as format 6 laid them out, without neardup's decoder: each value
/// of `records` is a count, then per record its id's gap from the one
/// before (the first from the key) and its length, then the records.
fn format_6_records(read: &redb::ReadTransaction) -> Vec<(u32, Vec<u8>)> {
    fn varint(b: &mut &[u8]) -> u64 {
        let mut v = 0;
        for i in 0.. {
            let byte = b[0];
            *b = &b[1..];
            v |= u64::from(byte & 0x7f) << (7 * i);
            if byte < 0x80 {
                break;
            }
        }
        v
    }
    let records: redb::TableDefinition<u32, &[u8]> = redb::TableDefinition::new("records");
    let docs: redb::TableDefinition<u32, &[u8]> = redb::TableDefinition::new("docs");
    assert!(read.open_table(docs).is_err(), "format 6 has no `docs`");
    let mut out = Vec::new();
    for entry in read.open_table(records).unwrap().iter().unwrap() {
        let (key, value) = entry.unwrap();
        let mut b = value.value();
        let count = varint(&mut b);
        let mut id = u64::from(key.value());
        let mut heads = Vec::new();
        for _ in 0..count {
            id += varint(&mut b);
            heads.push((id as u32, varint(&mut b) as usize));
        }
        for (id, len) in heads {
            out.push((id, b[..len].to_vec()));
            b = &b[len..];
        }
        assert!(b.is_empty(), "a group's lengths add up");
    }
    out
}

/// Bytes of the values of a format-7 file's `groups` table.
fn group_bytes(read: &redb::ReadTransaction) -> usize {
    let groups: redb::TableDefinition<u32, &[u8]> = redb::TableDefinition::new("groups");
    let t = read.open_table(groups).unwrap();
    t.iter().unwrap().map(|e| e.unwrap().1.value().len()).sum()
}

/// What testdata/index/format-6.redb.gz holds, as its README says it was
/// made: record `n * 3` of the laws with the default chain's signatures,
/// for n below 40, then id 7 removed.
fn format_6_fixture_records() -> Vec<(u32, DocRecord)> {
    (0u32..40)
        .map(|n| {
            let rec = DocRecord {
                signatures: vec![
                    Signature::Fingerprint(u64::from(n) * 0x9E37_79B9),
                    Signature::Fingerprint(u64::from(n) << 20),
                    Signature::Set((0..n * 10).map(|i| i * 977 + n).collect()),
                ],
                ..record(n * 3)
            };
            (n, rec)
        })
        .filter(|(id, _)| *id != 7)
        .collect()
}

/// testdata/index/format-6.redb.gz, a file written by the last build of
/// format 6 (ac61c8a), unpacked into `dir` as `name`.
fn format_6_fixture(dir: &Dir, name: &str) -> std::path::PathBuf {
    let gz = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/index/format-6.redb.gz");
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(std::fs::File::open(gz).unwrap()),
        &mut bytes,
    )
    .unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// The records of a store, walked.
fn walked(s: &RedbStore) -> Vec<(u32, DocRecord)> {
    let mut out = Vec::new();
    s.for_each(&mut |id, r| out.push((id, DocRecord::clone(r))))
        .unwrap();
    out
}

/// The tables of the file at `path`.
fn tables(path: &Path) -> Vec<String> {
    let db = redb::Database::open(path).unwrap();
    let read = db.begin_read().unwrap();
    read.list_tables()
        .unwrap()
        .map(|t| redb::TableHandle::name(&t).to_owned())
        .collect()
}

#[test]
fn format_6_file_is_upgraded_to_records_written_against_their_group() {
    let dir = Dir::new();
    let identity = neardup::store_identity(&Config::default(), &Registry::default()).unwrap();
    let path = format_6_fixture(&dir, "v6.redb");
    let want = format_6_fixture_records();
    {
        let db = redb::Database::open(&path).unwrap();
        let read = db.begin_read().unwrap();
        assert_eq!(file_format(&read), 6);
        assert_eq!(format_6_records(&read).len(), want.len());
    }
    {
        let s = RedbStore::open_at(&path, &identity, 1 << 20, 999).unwrap();
        assert_eq!(s.len(), want.len());
        assert_eq!(walked(&s), want);
        for (id, rec) in &want {
            assert_eq!(s.get(*id).unwrap().as_deref(), Some(rec), "record {id}");
        }
        assert_eq!(s.get(7).unwrap(), None, "removed before");
    }
    assert!(
        !tables(&path).contains(&"records".to_owned()),
        "format 6's table dropped"
    );
    {
        let db = redb::Database::open(&path).unwrap();
        let read = db.begin_read().unwrap();
        assert_eq!(file_format(&read), 7);
        let v6: usize = {
            let made = format_6_fixture(&dir, "again.redb");
            let db = redb::Database::open(&made).unwrap();
            let r = db.begin_read().unwrap();
            format_6_records(&r).iter().map(|(_, b)| b.len()).sum()
        };
        // Neighbours share their URL's start and the site in it.
        let v7 = group_bytes(&read);
        assert!(v7 < v6, "format 7 takes {v7} bytes, format 6 took {v6}");
    }
    // Opened again, nothing is upgraded twice; writes go on from id 40.
    let mut s = RedbStore::open_at(&path, &identity, 1 << 20, 999).unwrap();
    assert_eq!(walked(&s), want);
    assert_eq!(s.insert(record(1)).unwrap(), 40);
    drop(s);

    // A format-6 record that does not decode is named, and the file is
    // left in format 6.
    let bad = dir.join("bad6.redb");
    let good = format_6_fixture(&dir, "good.redb");
    let mut records = {
        let db = redb::Database::open(&good).unwrap();
        let read = db.begin_read().unwrap();
        format_6_records(&read)
    };
    records.truncate(3);
    let half = records[1].1.len() / 2;
    records[1].1.truncate(half);
    write_format_6(&bad, &records);
    refused_and_left_as_it_was(&bad, &identity, 6);
}

/// Writes a format-6 index of the default chain holding `records` (id,
/// record as format 5 encoded it) in one group, laid out as
/// [`format_6_records`] reads it.
fn write_format_6(path: &Path, records: &[(u32, Vec<u8>)]) {
    fn varint(mut v: u64, out: &mut Vec<u8>) {
        while v >= 0x80 {
            out.push(v as u8 | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }
    write_legacy(path, 6, &[]);
    let mut group = Vec::new();
    varint(records.len() as u64, &mut group);
    let mut last = records[0].0;
    for (id, bytes) in records {
        varint(u64::from(id - last), &mut group);
        varint(bytes.len() as u64, &mut group);
        last = *id;
    }
    for (_, bytes) in records {
        group.extend_from_slice(bytes);
    }
    let meta: redb::TableDefinition<&str, &[u8]> = redb::TableDefinition::new("meta");
    let table: redb::TableDefinition<u32, &[u8]> = redb::TableDefinition::new("records");
    let db = redb::Database::open(path).unwrap();
    let txn = db.begin_write().unwrap();
    {
        let next = records.iter().map(|r| r.0 + 1).max().unwrap_or(0);
        txn.open_table(meta)
            .unwrap()
            .insert("next_id", next.to_le_bytes().as_slice())
            .unwrap();
        txn.open_table(table)
            .unwrap()
            .insert(records[0].0, group.as_slice())
            .unwrap();
    }
    txn.delete_table(redb::TableDefinition::<u32, &[u8]>::new("docs"))
        .unwrap();
    txn.commit().unwrap();
}

#[test]
fn format_5_file_is_upgraded_to_grouped_records() {
    let dir = Dir::new();
    let registry = Registry::default();
    let identity = neardup::store_identity(&Config::default(), &registry).unwrap();
    // Format-5 records: format 6 held them as they were, in groups.
    let fixture = format_6_fixture(&dir, "made.redb");
    let v5: Vec<(u32, Vec<u8>)> = {
        let db = redb::Database::open(&fixture).unwrap();
        format_6_records(&db.begin_read().unwrap())
    };
    assert_eq!(v5.len(), 39);
    let path = dir.join("v5.redb");
    write_legacy(&path, 5, &v5);
    {
        let s = RedbStore::open_at(&path, &identity, 1 << 20, 999).unwrap();
        assert_eq!(s.len(), 39);
        assert_eq!(walked(&s), format_6_fixture_records());
        assert_eq!(s.get(7).unwrap(), None, "removed before");
    }
    {
        let db = redb::Database::open(&path).unwrap();
        let read = db.begin_read().unwrap();
        assert_eq!(file_format(&read), 7);
    }
    assert!(
        !tables(&path).contains(&"docs".to_owned()),
        "format 5's table dropped"
    );
    // A format-5 record that does not decode is named, and the file is
    // left in format 5.
    let bad = dir.join("bad5.redb");
    let mut cut = v5[..3].to_vec();
    let half = cut[1].1.len() / 2;
    cut[1].1.truncate(half);
    write_legacy(&bad, 5, &cut);
    refused_and_left_as_it_was(&bad, &identity, 5);
}

#[test]
fn redb_store_within_a_small_cache_reads_records_back_from_the_file() {
    let dir = Dir::new();
    let path = dir.join("small.redb");
    let mut s = RedbStore::open_with(&path, &identity(), 4096).unwrap();
    for n in 0..200 {
        s.insert(record(n)).unwrap();
        if n % 50 == 49 {
            s.flush().unwrap();
        }
    }
    s.flush().unwrap();
    for n in (0..200).rev() {
        assert_eq!(s.get(n).unwrap().as_deref(), Some(&record(n)));
    }
    let c = s.cache_stats();
    assert!(c.bytes <= 3 * 1024, "cache within 3/4 of 4096 bytes: {c:?}");
    assert!(c.misses >= 150, "most reads went to the file: {c:?}");
    assert!(s.heap_bytes() < 16 * 1024, "{}", s.heap_bytes());
}

/// A record of about `bytes` bytes once encoded (its chunk set grows with
/// `n`): record `n` of the laws with a set of `bytes / 2` small gaps.
fn sized_record(n: u32, bytes: u32) -> DocRecord {
    let mut r = record(n);
    if r.kind != RecordKind::Observation {
        r.signatures[1] = Signature::Set((0..bytes * 2).map(|i| i * 7 + n).collect());
    }
    r
}

/// The store groups records several to a redb value, each written against
/// its group's first; a model of the store
/// (a map of id to record) under random inserts, removals and touches
/// across many groups, records larger than a group among them, with
/// flushes, reopens and a cache too small to hold anything: every read
/// and walk of the file agrees with the model.
#[test]
fn redb_store_groups_records_and_agrees_with_a_model() {
    let dir = Dir::new();
    let path = dir.join("groups.redb");
    let mut model: std::collections::BTreeMap<u32, DocRecord> = Default::default();
    let mut next = 0u32;
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut rand = move |m: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % m
    };
    for round in 0..3 {
        let mut s = RedbStore::open_with(&path, &identity(), 4096).unwrap();
        assert_eq!(s.len(), model.len(), "round {round}: counted on open");
        for _ in 0..400 {
            match rand(10) {
                0..=5 => {
                    // Mostly a few hundred bytes, one in twenty over a page.
                    let bytes = if rand(20) == 0 {
                        6_000
                    } else {
                        50 + rand(900) as u32
                    };
                    let r = sized_record(next, bytes);
                    assert_eq!(s.insert(r.clone()).unwrap(), next);
                    model.insert(next, r);
                    next += 1;
                }
                6 | 7 if !model.is_empty() => {
                    let id = *model.keys().nth(rand(model.len() as u64) as usize).unwrap();
                    assert_eq!(s.remove(id).unwrap().as_deref(), model.remove(&id).as_ref());
                }
                8 if !model.is_empty() => {
                    let id = *model.keys().nth(rand(model.len() as u64) as usize).unwrap();
                    let at = 2_000_000_000 + rand(1 << 20);
                    assert!(s.touch(id, at).unwrap());
                    model.get_mut(&id).unwrap().fetched_at = at;
                }
                _ => s.flush().unwrap(),
            }
        }
        s.flush().unwrap();
        for id in 0..next + 2 {
            assert_eq!(
                s.get(id).unwrap().as_deref(),
                model.get(&id),
                "round {round}, id {id}"
            );
        }
        let mut walked = Vec::new();
        s.for_each(&mut |id, r| walked.push((id, DocRecord::clone(r))))
            .unwrap();
        let want: Vec<(u32, DocRecord)> = model.iter().map(|(k, v)| (*k, v.clone())).collect();
        assert_eq!(walked, want, "round {round}");
        assert_eq!(s.stored_len().unwrap(), model.len() as u64);
        assert!(s.cache_stats().misses > 0, "reads went to the file");
    }
    // Several records share a value: far fewer values than records.
    let db = redb::Database::open(&path).unwrap();
    let read = db.begin_read().unwrap();
    let records: redb::TableDefinition<u32, &[u8]> = redb::TableDefinition::new("groups");
    let t = read.open_table(records).unwrap();
    let groups = redb::ReadableTableMetadata::len(&t).unwrap();
    assert!(
        groups * 3 < model.len() as u64,
        "{groups} groups for {} records",
        model.len()
    );
}

/// What grouping is for: the leaf pages of an index are nearly full.
/// Records of one to seven hundred bytes, appended and committed in
/// batches as `dedup` does, one record a value, left leaves 60-70% full
/// (redb splits a full leaf in half).
#[test]
fn redb_store_fills_its_leaf_pages() {
    let dir = Dir::new();
    let path = dir.join("fill.redb");
    {
        let mut s = RedbStore::open(&path, &identity()).unwrap();
        for n in 0..3_000u32 {
            s.insert(sized_record(n, 100 + n * 37 % 600)).unwrap();
            if n % 128 == 127 {
                s.flush().unwrap();
            }
        }
    }
    let db = redb::Database::open(&path).unwrap();
    let read = db.begin_read().unwrap();
    let records: redb::TableDefinition<u32, &[u8]> = redb::TableDefinition::new("groups");
    let stats = redb::ReadableTableMetadata::stats(&read.open_table(records).unwrap()).unwrap();
    // Of the table's pages, the share that holds records (the rest is
    // page headers, branch pages and room left free).
    let used = stats.stored_bytes();
    let full = used as f64 / (used + stats.metadata_bytes() + stats.fragmented_bytes()) as f64;
    assert!(
        full > 0.85,
        "pages {full:.2} full: {used} bytes in {} leaves",
        stats.leaf_pages()
    );
}

/// Pages with near and exact copies, deterministic.
fn mixed_pages() -> Vec<(String, Vec<u8>)> {
    (0..240u64)
        .map(|n| {
            let body = match n % 6 {
                0..=2 => page(&text(1000 + n, 120)),
                3 => page(&text(1000 + n - 3, 120)),
                4 => page(&edited(1000 + n - 4, 120)),
                _ => page(&text(1000 + n / 12, 40)),
            };
            // Every 8th page re-fetches an earlier URL (recrawls).
            let url = if n % 8 == 7 {
                format!("https://s.example/{}", n - 5)
            } else {
                format!("https://s.example/{n}")
            };
            (url, body)
        })
        .collect()
}

#[test]
fn budgeted_store_gives_the_same_verdicts_as_memory() {
    let pages = mixed_pages();
    let mut mem = deduper(None, Config::default());
    let dir = Dir::new();
    let mut config = Config::default();
    config.index.cache_bytes = 0; // every committed read goes to the file
    let mut disk = deduper(Some(&dir), config);
    let mut kinds = HashMap::new();
    for (i, (url, body)) in pages.iter().enumerate() {
        let a = mem.check(url, body, None).unwrap();
        let b = disk.check(url, body, None).unwrap();
        assert_eq!(
            (
                a.kind,
                a.matched.as_ref().map(|m| (m.id, &m.basis)),
                a.indexed_as
            ),
            (
                b.kind,
                b.matched.as_ref().map(|m| (m.id, &m.basis)),
                b.indexed_as
            ),
            "page {i} {url}"
        );
        *kinds.entry(a.kind).or_insert(0) += 1;
        if i % 16 == 15 {
            disk.flush().unwrap();
        }
    }
    // The data exercises every verdict.
    assert_eq!(kinds.len(), 3, "{kinds:?}");
    assert_eq!(mem.stats().indexed, disk.stats().indexed);
}
