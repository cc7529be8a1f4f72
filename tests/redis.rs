//! The shared Redis index (`--index redis://...`) against a private, real
//! `redis-server` started per test on a free 127.0.0.1 port (no
//! persistence), killed at the end. Skipped with a note when
//! `redis-server` is not installed (`.ci/run` installs it).
//!
//! Covers: the atomic conditional append between two stores; concurrent
//! `neardup dedup` processes getting the same pages at the same moment
//! (exactly one keeps each); a restarted worker rebuilding from the log
//! (near-duplicate detection included, not only exact hashes); two `serve`
//! instances hit concurrently, and removal seen by the other instance; a
//! mismatched detector chain refused; Redis down as a clear error; a second
//! `crawl` over the shared index.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use neardup::Config;
use neardup::Deduper;
use neardup::Registry;
use neardup::SharedDeduper;
use neardup::VerdictKind;
use neardup::{
    Change, DocRecord, DocStore, Evidence, RecordKind, RedisLocation, RedisStore, StoreIdentity,
};
use neardup_api::Signature;
use neardup_serve::{self as serve, ServeOptions};
use serde_json::{json, Value};

use crate::store::legacy_slots;
use crate::util::{read_verdicts, Dir};

/// A private redis-server, killed on drop.
pub(crate) struct RedisServer {
    child: Child,
    port: u16,
    _dir: Dir,
}

impl RedisServer {
    /// Starts one, or returns `None` (after a note) without redis-server.
    pub(crate) fn start() -> Option<RedisServer> {
        if !crate::skip::have("redis-server", "--version", "apt-get install redis-server") {
            return None;
        }
        let dir = Dir::new();
        // A free port: bind :0, read it, release it; retried if taken.
        for _ in 0..5 {
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .map(|a| a.port())
                .expect("free port");
            if let Some(child) = spawn_redis(port, &dir) {
                return Some(RedisServer {
                    child,
                    port,
                    _dir: dir,
                });
            }
        }
        panic!("redis-server did not start");
    }

    /// Kills the server and starts an empty one on the same port (what a
    /// restart without persistence does).
    fn restart_empty(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.child = spawn_redis(self.port, &self._dir).expect("restart redis-server");
    }

    pub(crate) fn url(&self, ns: &str) -> String {
        format!("redis://127.0.0.1:{}/0?ns={ns}", self.port)
    }

    fn con(&self) -> redis::Connection {
        redis::Client::open(format!("redis://127.0.0.1:{}/0", self.port))
            .and_then(|c| c.get_connection())
            .expect("connect")
    }

    fn log_len(&self, ns: &str) -> usize {
        redis::cmd("LLEN")
            .arg(format!("{{nd:{ns}}}:log"))
            .query(&mut self.con())
            .expect("LLEN")
    }
}

/// A redis-server on `port`, once it answers PING; `None` if it exited
/// (port taken).
fn spawn_redis(port: u16, dir: &Dir) -> Option<Child> {
    let mut child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no"])
        .arg("--dir")
        .arg(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn redis-server");
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if ping(port) {
            return Some(child);
        }
        if let Ok(Some(_)) = child.try_wait() {
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

fn ping(port: u16) -> bool {
    redis::Client::open(format!("redis://127.0.0.1:{port}"))
        .and_then(|c| c.get_connection_with_timeout(Duration::from_millis(200)))
        .and_then(|mut c| redis::cmd("PING").query::<String>(&mut c))
        .is_ok()
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Page `i`: 150 pseudo-random words from a 4096-word synthetic
/// vocabulary, so any two pages share almost nothing.
fn page_text(i: u64) -> String {
    crate::util::pseudo_words(i, 150, 4096)
}

fn page_html(i: u64) -> String {
    format!(
        "<html><head><title>page {i}</title></head><body><article><p>{}</p></article></body></html>",
        page_text(i)
    )
}

fn identity() -> StoreIdentity {
    StoreIdentity {
        detectors: vec!["exact".into()],
        ..StoreIdentity::default()
    }
}

fn record(n: u64) -> DocRecord {
    DocRecord {
        key: format!("k{n}"),
        url: format!("https://a.example/{n}"),
        site: "a.example".into(),
        kind: RecordKind::Kept,
        signatures: vec![Signature::Fingerprint(n)],
        evidence: Evidence::default(),
        // The log keeps no fetch times: records read back have 0.
        fetched_at: 0,
    }
}

#[test]
fn conditional_append_lets_exactly_one_of_two_stale_writers_win() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let loc = RedisLocation::parse(&redis.url("cas")).unwrap();
    let mut a = RedisStore::open(&loc, &identity()).unwrap();
    let mut b = RedisStore::open(&loc, &identity()).unwrap();
    let mut none = |_: Change<'_>| panic!("nothing written yet");
    a.sync(&mut none).unwrap();
    b.sync(&mut none).unwrap();
    // Both decided at position 0; A appends first, so B must be refused
    // and get its record back.
    assert_eq!(a.insert_if_current(record(1)).unwrap().unwrap(), 0);
    let back = b.insert_if_current(record(2)).unwrap().unwrap_err();
    assert_eq!(back, record(2));
    assert_eq!(redis.log_len("cas"), 1);
    // B catches up, sees A's record, and can then append.
    let mut seen = Vec::new();
    b.sync(&mut |c| match c {
        Change::Added(id, r) => seen.push((id, r.key.clone())),
        Change::Removed(..) => panic!("no removal"),
    })
    .unwrap();
    assert_eq!(seen, [(0, "k1".to_owned())]);
    assert_eq!(b.insert_if_current(record(2)).unwrap().unwrap(), 1);
    // A removes its record: a tombstone B applies on its next sync.
    let removed = a.remove(0).unwrap().unwrap();
    assert_eq!(removed.key, "k1");
    assert!(a.remove(0).unwrap().is_none(), "second removal is a no-op");
    let mut changes = Vec::new();
    b.sync(&mut |c| match c {
        Change::Added(id, _) => changes.push(format!("add {id}")),
        Change::Removed(id, _) => changes.push(format!("remove {id}")),
    })
    .unwrap();
    assert_eq!(changes, ["remove 0"]);
    assert_eq!(b.len(), 1);
    assert!(b.get(0).unwrap().is_none());
    assert_eq!(b.get(1).unwrap().unwrap().key, "k2");
    // A third store opened now reads the whole log: only k2 is left.
    let mut c = RedisStore::open(&loc, &identity()).unwrap();
    c.sync(&mut |_| {}).unwrap();
    let mut keys = Vec::new();
    c.for_each(&mut |id, r| keys.push((id, r.key.clone())))
        .unwrap();
    assert_eq!(keys, [(1, "k2".to_owned())]);
}

#[test]
fn concurrent_dedup_processes_keep_each_page_exactly_once() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    const WORKERS: usize = 4;
    const PAGES: u64 = 200;
    let dir = Dir::new();
    for i in 0..PAGES {
        dir.write(&format!("pages/p{i:03}.html"), page_html(i));
    }
    // Every worker reads the same pages, in the same order, from a
    // manifest on a named pipe: each process blocks opening its pipe until
    // all of them are running, then all get their input at the same
    // moment and race on every page.
    let mut pipes = Vec::new();
    for w in 0..WORKERS {
        let pipe = dir.join(&format!("in{w}.tsv"));
        let made = Command::new("mkfifo").arg(&pipe).status();
        if !made.is_ok_and(|s| s.success()) {
            crate::skip::missing("mkfifo (a named pipe for the process race)");
            return;
        }
        let mut manifest = String::from("doc_id\turl\tpath\n");
        for i in 0..PAGES {
            manifest.push_str(&format!(
                "p{i:03}-w{w}\thttps://w{w}.example/{i}\tpages/p{i:03}.html\n"
            ));
        }
        pipes.push((pipe, manifest));
    }
    let url = redis.url("race");
    let children: Vec<Child> = (0..WORKERS)
        .map(|w| {
            dir.cmd()
                .args(["dedup", &format!("in{w}.tsv"), "--out", &format!("out{w}")])
                .args(["--index", &url, "--quiet"])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn neardup")
        })
        .collect();
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(WORKERS));
    let writers: Vec<_> = pipes
        .into_iter()
        .map(|(pipe, manifest)| {
            let barrier = std::sync::Arc::clone(&barrier);
            std::thread::spawn(move || {
                // Blocks until the worker opens its end.
                let mut f = std::fs::OpenOptions::new()
                    .write(true)
                    .open(&pipe)
                    .expect("open pipe");
                barrier.wait();
                std::io::Write::write_all(&mut f, manifest.as_bytes()).expect("write pipe");
            })
        })
        .collect();
    for w in writers {
        w.join().expect("writer thread");
    }
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // page -> (worker that kept it, the others' verdicts)
    let mut keepers: HashMap<u64, Vec<String>> = HashMap::new();
    let mut dropped: Vec<(u64, String)> = Vec::new();
    for w in 0..WORKERS {
        for v in read_verdicts(&dir.read(&format!("out{w}/verdicts.jsonl"))) {
            let id = v["doc_id"].as_str().unwrap().to_owned();
            let page: u64 = id[1..4].parse().unwrap();
            match v["verdict"].as_str().unwrap() {
                "unique" => keepers.entry(page).or_default().push(id),
                "duplicate" => dropped.push((page, v["of"].as_str().unwrap().to_owned())),
                other => panic!("{id}: unexpected verdict {other}"),
            }
        }
    }
    for i in 0..PAGES {
        let k = keepers.get(&i).map_or(0, Vec::len);
        assert_eq!(k, 1, "page {i} kept {k} times: {:?}", keepers.get(&i));
    }
    assert_eq!(dropped.len(), PAGES as usize * (WORKERS - 1));
    for (page, of) in &dropped {
        assert_eq!(&keepers[page][0], of, "page {page}: copy points elsewhere");
    }
    assert_eq!(redis.log_len("race"), PAGES as usize);
}

#[test]
fn restarted_worker_rebuilds_from_the_log() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let dir = Dir::new();
    let pages = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/pages");
    let read = |name: &str| std::fs::read(pages.join(name)).unwrap();
    dir.write("first/article.html", read("article.html"));
    dir.write("first/unrelated.html", read("unrelated.html"));
    let url = redis.url("restart");
    dir.run(&["dedup", "first", "--out", "o1", "--index", &url, "-q"])
        .expect_code(0);
    let v1 = read_verdicts(&dir.read("o1/verdicts.jsonl"));
    assert!(v1.iter().all(|v| v["verdict"] == "unique"), "{v1:?}");
    assert_eq!(redis.log_len("restart"), 2);
    // A new process knows the first run's pages from the log only. The
    // near copy must be found by a similarity detector, so whole
    // signatures came back, not just exact hashes.
    dir.write("second/near.html", read("near.html"));
    dir.write("second/article-again.html", read("article.html"));
    dir.run(&["dedup", "second", "--out", "o2", "--index", &url, "-q"])
        .expect_code(0);
    let v2 = read_verdicts(&dir.read("o2/verdicts.jsonl"));
    let by_id = |id: &str| {
        v2.iter()
            .find(|v| v["doc_id"] == id)
            .unwrap_or_else(|| panic!("{id} missing: {v2:?}"))
            .clone()
    };
    let article = by_id("article-again");
    assert_eq!(article["verdict"], "duplicate", "{article}");
    assert_eq!(article["of"], "article");
    let near = by_id("near");
    assert_eq!(near["verdict"], "near_duplicate", "{near}");
    assert_eq!(near["of"], "article");
    assert_ne!(near["detector"], "exact", "{near}");
}

#[test]
fn mismatched_chain_is_refused_and_redis_down_is_a_clear_error() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let dir = Dir::new();
    dir.copy_testdata("pages", "in");
    let url = redis.url("chain");
    dir.run(&["dedup", "in", "--out", "o1", "--index", &url, "-q"])
        .expect_code(0);
    let before = redis.log_len("chain");
    let run = dir
        .run(&[
            "dedup",
            "in",
            "--out",
            "o2",
            "--index",
            &url,
            "--detector",
            "exact",
        ])
        .expect_code(2);
    let err = run.stderr();
    assert!(err.contains("built with detector chain"), "{err}");
    assert!(err.contains("ns=chain"), "{err}");
    assert_eq!(redis.log_len("chain"), before, "nothing written");
    // Another namespace takes the other chain.
    let other = redis.url("chain-exact");
    dir.run(&[
        "dedup",
        "in",
        "--out",
        "o3",
        "--index",
        &other,
        "--detector",
        "exact",
    ])
    .expect_code(0);
    // A bad URL and an unreachable server: exit 2 with the reason.
    let bad = dir
        .run(&[
            "dedup",
            "in",
            "--out",
            "o4",
            "--index",
            "redis://127.0.0.1:1?nx=a",
        ])
        .expect_code(2);
    assert!(
        bad.stderr().contains("unknown parameter"),
        "{}",
        bad.stderr()
    );
    let port = redis.port;
    drop(redis);
    let down = dir
        .run(&[
            "dedup",
            "in",
            "--out",
            "o5",
            "--index",
            &format!("redis://127.0.0.1:{port}"),
        ])
        .expect_code(2);
    assert!(
        down.stderr().contains("cannot connect to Redis"),
        "{}",
        down.stderr()
    );
}

/// A `serve` instance over the shared index, in this process.
async fn start_serve(url: &str) -> SocketAddr {
    let loc = RedisLocation::parse(url).unwrap();
    let deduper = Deduper::open_redis(Config::default(), &Registry::default(), &loc).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(serve::run(
        listener,
        SharedDeduper::new(deduper),
        ServeOptions::default(),
        std::future::pending::<()>(),
    ));
    addr
}

#[test]
fn two_serve_instances_hit_at_once_keep_each_page_once() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let url = redis.url("serve");
        let servers = [start_serve(&url).await, start_serve(&url).await];
        let http = reqwest::Client::new();
        const PAGES: u64 = 40;
        // Each page goes to both instances at once.
        let mut tasks = Vec::new();
        for i in 0..PAGES {
            for (s, addr) in servers.iter().enumerate() {
                let http = http.clone();
                let target = format!("http://{addr}/v1/check");
                tasks.push(tokio::spawn(async move {
                    let body =
                        json!({"url": format!("https://s{s}.example/{i}"), "html": page_html(i)});
                    let resp = http.post(target).json(&body).send().await.unwrap();
                    assert_eq!(resp.status().as_u16(), 200);
                    let v: Value = resp.json().await.unwrap();
                    (i, s, v)
                }));
            }
        }
        let mut results = Vec::new();
        for t in tasks {
            results.push(t.await.unwrap());
        }
        for i in 0..PAGES {
            let mine: Vec<&Value> = results
                .iter()
                .filter(|(p, _, _)| *p == i)
                .map(|(_, _, v)| v)
                .collect();
            let kinds: Vec<&str> = mine.iter().map(|v| v["kind"].as_str().unwrap()).collect();
            let unique = kinds.iter().filter(|k| **k == "unique").count();
            assert_eq!(unique, 1, "page {i}: {kinds:?}");
            let kept = mine.iter().find(|v| v["kind"] == "unique").unwrap();
            let dup = mine.iter().find(|v| v["kind"] == "duplicate").unwrap();
            assert_eq!(dup["matched"]["id"], kept["indexed_as"], "page {i}");
        }
        assert_eq!(redis.log_len("serve"), PAGES as usize);
        // Deleting on one instance is seen by the other.
        let kept0 = results
            .iter()
            .find(|(p, _, v)| *p == 0 && v["kind"] == "unique")
            .map(|(_, _, v)| v["indexed_as"].as_u64().unwrap())
            .unwrap();
        let del: Value = http
            .delete(format!("http://{}/v1/docs/{kept0}", servers[0]))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(del["removed"], true, "{del}");
        let again: Value = http
            .post(format!("http://{}/v1/check", servers[1]))
            .json(&json!({"url": "https://s9.example/0", "html": page_html(0)}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(again["kind"], "unique", "{again}");
    });
}

#[test]
fn second_crawl_over_the_shared_index_finds_the_first_crawls_pages() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let dir = Dir::new();
    let url = redis.url("crawl");
    // Links of duplicates are not followed (crawl.scope.duplicate_hops =
    // 0), so the second crawl stops at its duplicate seeds and never meets
    // a page the first crawl dropped as a duplicate of another page.
    dir.write("hops0.toml", "[crawl.scope]\nduplicate_hops = 0\n");
    dir.run(&[
        "--config",
        "hops0.toml",
        "crawl",
        "--demo",
        "--out",
        "c1",
        "--index",
        &url,
        "-q",
    ])
    .expect_code(0);
    let first = read_verdicts(&dir.read("c1/verdicts.jsonl"));
    let unique = first.iter().filter(|v| v["verdict"] == "unique").count();
    assert!(unique >= 5, "{first:?}");
    // The log also holds observations (duplicates' blocks, for their
    // sites' templates); the pages kept and the near duplicates (each
    // verdict says `indexed`) are what a worker indexes.
    let in_index = first.iter().filter(|v| v["indexed"] == true).count();
    assert!(in_index >= unique, "{first:?}");
    let indexed = || {
        let loc = RedisLocation::parse(&url).unwrap();
        let d = Deduper::open_redis(Config::default(), &Registry::default(), &loc).unwrap();
        d.stats().indexed as usize
    };
    assert_eq!(indexed(), in_index);
    assert!(redis.log_len("crawl") >= in_index);
    // The demo sites come up on new ports: same pages, new URLs. Every
    // page the second crawl reaches is a copy of one the first crawl kept.
    dir.run(&[
        "--config",
        "hops0.toml",
        "crawl",
        "--demo",
        "--out",
        "c2",
        "--index",
        &url,
        "-q",
    ])
    .expect_code(0);
    let second = read_verdicts(&dir.read("c2/verdicts.jsonl"));
    assert!(!second.is_empty());
    let first_urls: Vec<&str> = first.iter().map(|v| v["url"].as_str().unwrap()).collect();
    for v in &second {
        assert_eq!(v["verdict"], "duplicate", "{v}");
        let of = v["of_url"].as_str().unwrap();
        assert!(first_urls.contains(&of), "{v}");
    }
    assert_eq!(indexed(), in_index, "nothing new indexed");
}

#[test]
fn redis_going_away_mid_run_is_an_error_not_a_hang() {
    let Some(mut redis) = RedisServer::start() else {
        return;
    };
    let loc = RedisLocation::parse(&redis.url("away")).unwrap();
    let mut d = Deduper::open_redis(Config::default(), &Registry::default(), &loc).unwrap();
    let v = d
        .check("https://a.example/0", page_html(0).as_bytes(), None)
        .unwrap();
    assert_eq!(v.indexed_as, Some(0));
    // Down: the page is not decided, with the reason.
    let _ = redis.child.kill();
    let _ = redis.child.wait();
    let down = d
        .check("https://a.example/1", page_html(1).as_bytes(), None)
        .unwrap_err();
    assert!(
        matches!(
            down,
            neardup::Error::Store {
                kind: neardup::StoreError::Backend(_),
                ..
            }
        ),
        "Redis away is the backend's failure, not damage: {down:?}"
    );
    let down = down.to_string();
    assert!(down.contains("ns=away"), "{down}");
    assert_eq!(d.stats().checked, 1, "a failed check is not counted");
    // Back, but empty (no persistence): the worker reconnects, and keeping
    // a page fails clearly instead of retrying forever.
    redis.restart_empty();
    let lost = d
        .check("https://a.example/2", page_html(2).as_bytes(), None)
        .unwrap_err()
        .to_string();
    assert!(lost.contains("lost"), "{lost}");
    assert_eq!(redis.log_len("away"), 0, "nothing appended to the new log");
}

#[test]
fn recrawl_on_one_worker_replaces_the_page_for_every_worker() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let loc = RedisLocation::parse(&redis.url("recrawl")).unwrap();
    // Near copies are indexed here, so a later copy can match one.
    let mut config = Config::default();
    config.decide.index_near_duplicates = true;
    let open = || Deduper::open_redis(config.clone(), &Registry::default(), &loc).unwrap();
    let (mut a, mut b) = (open(), open());
    let v1 = page_html(1);
    // Page 1 with every 30th word changed: a near copy of v1.
    let v2 = page_html(1).replacen(
        &page_text(1),
        &{
            page_text(1)
                .split(' ')
                .enumerate()
                .map(|(i, w)| if i % 30 == 3 { "changed" } else { w })
                .collect::<Vec<_>>()
                .join(" ")
        },
        1,
    );
    let first = a
        .check("https://a.example/news", v1.as_bytes(), None)
        .unwrap();
    let old = first.indexed_as.unwrap();
    // Worker B fetches the URL again, unchanged: named as such.
    let same = b
        .check("https://a.example/news", v1.as_bytes(), None)
        .unwrap();
    let m = same.matched.unwrap();
    assert_eq!((m.id, &m.basis), (Some(old), &neardup::MatchBasis::SameUrl));
    // Then changed: unique, the old version tombstoned in the log.
    let changed = b
        .check("https://a.example/news", v2.as_bytes(), None)
        .unwrap();
    assert_eq!(changed.kind, VerdictKind::Unique, "{changed:?}");
    let new = changed.indexed_as.unwrap();
    // Worker A sees the replacement: the old text now matches the new
    // version (a near copy), not the removed one.
    let old_copy = a
        .check("https://b.example/copy", v1.as_bytes(), None)
        .unwrap();
    assert_eq!(
        old_copy.matched.and_then(|m| m.id),
        Some(new),
        "{:?}",
        old_copy.kind
    );
    assert_eq!(a.id_of_url("https://a.example/news").unwrap(), Some(new));
    // Delete by URL on A reaches B.
    assert_eq!(a.remove_url("https://a.example/news").unwrap(), Some(new));
    // B no longer matches the removed page: the copy of v2 finds only the
    // near copy A indexed at b.example/copy.
    let again = b
        .check("https://c.example/copy", v2.as_bytes(), None)
        .unwrap();
    assert_eq!(
        again.matched.map(|m| m.url),
        Some("https://b.example/copy".to_owned()),
        "{:?}",
        again.kind
    );
    // And with that one removed too, v2 is unique again.
    assert!(b.remove_url("https://b.example/copy").unwrap().is_some());
    assert!(b.remove_url("https://c.example/copy").unwrap().is_some());
    let last = a
        .check("https://d.example/copy", v2.as_bytes(), None)
        .unwrap();
    assert_eq!(last.kind, VerdictKind::Unique, "{last:?}");
}

#[test]
fn namespace_reopens_with_other_thresholds_and_refuses_other_signatures() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let loc = RedisLocation::parse(&redis.url("identity")).unwrap();
    let registry = Registry::default();
    {
        let mut d = Deduper::open_redis(Config::default(), &registry, &loc).unwrap();
        d.check("https://a.example/1", page_html(1).as_bytes(), None)
            .unwrap();
    }
    // A worker with other decision thresholds joins and sees the page.
    let mut thresholds = Config::default();
    thresholds.chunks.duplicate = 0.9;
    thresholds.chunks.near_duplicate = 0.5;
    thresholds.decide.min_coverage = 0.9;
    let mut d = Deduper::open_redis(thresholds, &registry, &loc).unwrap();
    assert!(
        d.store_is_remote(),
        "a crawl decides off the runtime over it"
    );
    let copy = d
        .check("https://b.example/1", page_html(1).as_bytes(), None)
        .unwrap();
    assert_eq!(copy.kind, VerdictKind::Duplicate, "{copy:?}");
    // One with another shingle size is refused, the setting named.
    let mut shingle = Config::default();
    shingle.simhash.shingle = 5;
    let err = Deduper::open_redis(shingle, &registry, &loc).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("`simhash.shingle` = 3 in the index, 5 now"),
        "{msg}"
    );
    let neardup::Error::Store {
        kind: neardup::StoreError::Incompatible { stored, wanted, .. },
        ..
    } = err
    else {
        panic!("not an incompatible namespace: {err:?}");
    };
    assert_eq!(
        (
            stored.settings.get("simhash.shingle").map(String::as_str),
            wanted.settings.get("simhash.shingle").map(String::as_str)
        ),
        (Some("3"), Some("5"))
    );
    assert!(msg.contains("ns=identity"), "{msg}");
}

/// The metadata as log format 1 wrote it: the chain and a fingerprint.
#[derive(serde::Serialize)]
struct LegacyMeta<'a> {
    format: u32,
    detectors: &'a [String],
    fingerprint: u64,
}

#[test]
fn format_1_namespace_opens_with_its_own_config_and_is_rewritten() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let registry = Registry::default();
    let own = neardup::store_identity(&Config::default(), &registry).unwrap();
    let write_legacy = |ns: &str, fingerprint: u64| {
        let bytes = postcard::to_allocvec(&LegacyMeta {
            format: 1,
            detectors: &own.detectors,
            fingerprint,
        })
        .unwrap();
        let _: () = redis::cmd("SET")
            .arg(format!("{{nd:{ns}}}:meta"))
            .arg(bytes)
            .query(&mut redis.con())
            .unwrap();
    };
    let fingerprint = own.legacy_fingerprint.unwrap();
    write_legacy("other", fingerprint ^ 1);
    let loc = RedisLocation::parse(&redis.url("other")).unwrap();
    let msg = Deduper::open_redis(Config::default(), &registry, &loc)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("older neardup"), "{msg}");
    write_legacy("own", fingerprint);
    let loc = RedisLocation::parse(&redis.url("own")).unwrap();
    drop(Deduper::open_redis(Config::default(), &registry, &loc).unwrap());
    // Rewritten with its settings: thresholds may change from now on.
    let mut thresholds = Config::default();
    thresholds.chunks.duplicate = 0.9;
    drop(Deduper::open_redis(thresholds, &registry, &loc).unwrap());
    let meta: Vec<u8> = redis::cmd("GET")
        .arg("{nd:own}:meta")
        .query(&mut redis.con())
        .unwrap();
    assert_eq!(meta.first(), Some(&4), "format 4 now");
}

/// A log entry as formats 1 and 2 wrote it: the content evidence as
/// signatures after the chain's, no kind.
#[derive(serde::Serialize)]
enum EntryV2 {
    Add {
        key: String,
        url: String,
        site: String,
        signatures: Vec<Signature>,
    },
    Remove(u32),
}

#[test]
fn format_2_log_is_rewritten_with_typed_records() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let registry = Registry::default();
    let identity = neardup::store_identity(&Config::default(), &registry).unwrap();
    let add = |n: u32, modulus: u32| EntryV2::Add {
        key: format!("k{n}"),
        url: format!("https://a.example/{n}"),
        site: "a.example".into(),
        signatures: legacy_slots(modulus),
    };
    let entries = [add(0, 4), add(1, 0), EntryV2::Remove(0), add(3, 2)];
    let mut con = redis.con();
    let meta = postcard::to_allocvec(&(2u32, &identity)).unwrap();
    let _: () = redis::cmd("SET")
        .arg("{nd:old}:meta")
        .arg(meta)
        .query(&mut con)
        .unwrap();
    for e in &entries {
        let _: () = redis::cmd("RPUSH")
            .arg("{nd:old}:log")
            .arg(postcard::to_allocvec(e).unwrap())
            .query(&mut con)
            .unwrap();
    }
    let loc = RedisLocation::parse(&redis.url("old")).unwrap();
    for round in 0..2 {
        // Rewritten on the first open; the second reads format 4 as is.
        let mut store = RedisStore::open(&loc, &identity).unwrap();
        let mut changes = Vec::new();
        store
            .sync(&mut |c| match c {
                Change::Added(id, r) => changes.push(format!("add {id} {:?}", r.kind)),
                Change::Removed(id, _) => changes.push(format!("remove {id}")),
            })
            .unwrap();
        assert_eq!(
            changes,
            ["add 0 Kept", "add 1 Observation", "remove 0", "add 3 Kept"],
            "round {round}"
        );
        let kept = store.get(3).unwrap().unwrap();
        assert_eq!(kept.signatures, legacy_slots(2)[..3]);
        assert_eq!(
            (kept.evidence.modulus, &kept.evidence.sample),
            (2, &vec![8, 16, 4_000_000_000])
        );
        assert_eq!((kept.evidence.visible, kept.evidence.main_words), (77, 120));
        let meta: Vec<u8> = redis::cmd("GET")
            .arg("{nd:old}:meta")
            .query(&mut con)
            .unwrap();
        assert_eq!(meta.first(), Some(&4), "format 4 now");
        let left: i64 = redis::cmd("EXISTS")
            .arg("{nd:old}:log:rewrite")
            .query(&mut con)
            .unwrap();
        assert_eq!(left, 0, "no converted list left behind");
    }
    // A Deduper over it counts the one kept page as indexed.
    let d = Deduper::open_redis(Config::default(), &registry, &loc).unwrap();
    assert_eq!(d.stats().indexed, 1);
}

/// A log entry as format 3 wrote it: typed, its sets as varint gaps
/// (`Evidence`'s and `Signature`'s own serde), key and site in full.
#[derive(serde::Serialize)]
enum EntryV3 {
    Add {
        key: String,
        url: String,
        site: String,
        kind: RecordKind,
        signatures: Vec<Signature>,
        evidence: Evidence,
    },
    Remove(u32),
}

#[test]
fn format_3_log_is_rewritten_in_compact_form() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let registry = Registry::default();
    let identity = neardup::store_identity(&Config::default(), &registry).unwrap();
    let spread = |n: u32, step: u32| -> Vec<u32> { (1..=n).map(|i| i * step).collect() };
    let record = |n: u32, kind: RecordKind| DocRecord {
        // Even keys are the URL's end, odd ones are not.
        key: if n % 2 == 0 {
            format!("p/{n}")
        } else {
            format!("k{n}")
        },
        url: format!("https://a.example/p/{n}"),
        site: if n == 3 {
            "b.example".into()
        } else {
            "a.example".into()
        },
        kind,
        signatures: if kind.is_indexed() {
            vec![
                Signature::Fingerprint(u64::MAX / 3 + u64::from(n)),
                Signature::Fingerprint(u64::from(n)),
                Signature::Set(spread(20, 200_000_000)),
            ]
        } else {
            Vec::new()
        },
        evidence: Evidence {
            blocks: spread(30, 100_000_000),
            modulus: if kind.is_indexed() { 4 } else { 0 },
            sample: if kind.is_indexed() {
                spread(50, 80_000_000)
            } else {
                Vec::new()
            },
            visible: u64::MAX - u64::from(n),
            title: vec![5, 9],
            lang: 3,
            main_words: 100 + n,
        },
        fetched_at: 0,
    };
    let records = [
        record(0, RecordKind::Kept),
        record(1, RecordKind::Observation),
        record(2, RecordKind::NearDuplicate),
        record(3, RecordKind::Kept),
    ];
    let v3 = |r: &DocRecord| EntryV3::Add {
        key: r.key.clone(),
        url: r.url.clone(),
        site: r.site.clone(),
        kind: r.kind,
        signatures: r.signatures.clone(),
        evidence: r.evidence.clone(),
    };
    let mut entries: Vec<EntryV3> = records.iter().map(v3).collect();
    entries.insert(2, EntryV3::Remove(1));
    let mut con = redis.con();
    let meta = postcard::to_allocvec(&(3u32, &identity)).unwrap();
    let _: () = redis::cmd("SET")
        .arg("{nd:v3}:meta")
        .arg(meta)
        .query(&mut con)
        .unwrap();
    let mut v3_bytes = 0;
    for e in &entries {
        let bytes = postcard::to_allocvec(e).unwrap();
        v3_bytes += bytes.len();
        let _: () = redis::cmd("RPUSH")
            .arg("{nd:v3}:log")
            .arg(bytes)
            .query(&mut con)
            .unwrap();
    }
    let loc = RedisLocation::parse(&redis.url("v3")).unwrap();
    let mut store = RedisStore::open(&loc, &identity).unwrap();
    store.sync(&mut |_| {}).unwrap();
    for (id, want) in [(0, &records[0]), (3, &records[2]), (4, &records[3])] {
        assert_eq!(*store.get(id).unwrap().unwrap(), *want, "entry {id}");
    }
    assert!(store.get(1).unwrap().is_none(), "removed by the tombstone");
    let meta: Vec<u8> = redis::cmd("GET")
        .arg("{nd:v3}:meta")
        .query(&mut con)
        .unwrap();
    assert_eq!(meta.first(), Some(&4), "format 4 now");
    let log: Vec<Vec<u8>> = redis::cmd("LRANGE")
        .arg("{nd:v3}:log")
        .arg(0)
        .arg(-1)
        .query(&mut con)
        .unwrap();
    let v4_bytes: usize = log.iter().map(Vec::len).sum();
    assert_eq!(log.len(), entries.len());
    assert!(
        v4_bytes * 10 < v3_bytes * 9,
        "format 4 takes {v4_bytes} bytes, format 3 took {v3_bytes}"
    );
}
