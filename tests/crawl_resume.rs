//! `neardup crawl --resume` and Ctrl-C on the real binary against a slow
//! local site: SIGKILL at several moments then resume, SIGINT then resume;
//! the final verdicts equal an uninterrupted crawl's, every page once, and
//! refetches are bounded by the pages in flight. The same with two hosts
//! (per-host queues in the checkpoint): nothing lost or repeated, each
//! host's pages in the same order and with the same verdicts.

use std::collections::BTreeMap;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Router;
use serde_json::Value;

use crate::util::Dir;

/// Pages of the site; with a few duplicates and near duplicates.
const PAGES: usize = 40;
/// Pages fetched but not decided, at most (`--max-in-flight`).
const IN_FLIGHT: usize = 4;

type Hits = Arc<Mutex<BTreeMap<String, usize>>>;

/// Deterministic text for page `i`: 120 words drawn from a 400-word
/// vocabulary (`util::pseudo_words`), so pages are unrelated to each other.
fn text_of(i: usize) -> String {
    crate::util::pseudo_words(i as u64, 120, 400)
}

/// `/p/i` links to the next two pages; every third page has an exact copy
/// at `/dup/i`, every fifth a near copy (one sentence added) at `/near/i`.
/// Texts are those of pages `salt + i` (two sites with different salts
/// share no text).
fn page(path: &str, salt: usize) -> Option<String> {
    let (kind, n) = path.trim_start_matches('/').split_once('/')?;
    let i: usize = n.parse().ok()?;
    if i >= PAGES {
        return None;
    }
    let mut links = String::new();
    for j in [i + 1, i + 2] {
        if j < PAGES {
            links.push_str(&format!("<a href=\"/p/{j}\">next</a> "));
        }
    }
    if i % 3 == 0 {
        links.push_str(&format!("<a href=\"/dup/{i}\">copy</a> "));
    }
    if i % 5 == 0 {
        links.push_str(&format!("<a href=\"/near/{i}\">near</a> "));
    }
    let body = match kind {
        "p" => text_of(salt + i),
        "dup" if i % 3 == 0 => text_of(salt + i),
        "near" if i % 5 == 0 => {
            format!("{} and one added closing sentence here", text_of(salt + i))
        }
        _ => return None,
    };
    Some(format!(
        "<html><head><title>Page {i}</title></head><body><article><p>{body}</p></article>{links}</body></html>"
    ))
}

/// The number of distinct pages the crawl reaches from `/p/0`.
fn site_size() -> usize {
    PAGES + PAGES.div_ceil(3) + PAGES.div_ceil(5)
}

/// Serves the site with a delay per page; counts hits per path.
fn start_site(rt: &tokio::runtime::Runtime, hits: Hits, delay: Duration) -> std::net::SocketAddr {
    start_salted_site(rt, hits, delay, 0)
}

/// [`start_site`] with the texts of pages `salt + i`.
fn start_salted_site(
    rt: &tokio::runtime::Runtime,
    hits: Hits,
    delay: Duration,
    salt: usize,
) -> std::net::SocketAddr {
    type St = (Hits, Duration, usize);
    async fn handle(State((hits, delay, salt)): State<St>, uri: Uri) -> Response {
        let path = uri.path().to_owned();
        *hits.lock().expect("lock").entry(path.clone()).or_insert(0) += 1;
        if path == "/robots.txt" {
            return "User-agent: *\nAllow: /\n".into_response();
        }
        tokio::time::sleep(delay).await;
        match page(&path, salt) {
            Some(html) => ([(header::CONTENT_TYPE, "text/html")], html).into_response(),
            None => (StatusCode::NOT_FOUND, "no").into_response(),
        }
    }
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let app = Router::new()
        .fallback(handle)
        .with_state((hits, delay, salt));
    rt.spawn(async move { axum::serve(listener, app).await });
    addr
}

fn write_config(dir: &Dir) {
    dir.write(
        "crawl.toml",
        "[crawl]\nallow_private = true\n\n[crawl.scope]\nmax_depth = 100\n\n[crawl.fetch]\nhost_delay_ms = 5\nretries = 0\n",
    );
}

fn crawl_args<'a>(seed: &'a str, out: &'a str) -> Vec<&'a str> {
    vec![
        "--config",
        "crawl.toml",
        "crawl",
        "--seed",
        seed,
        "--out",
        out,
        "--checkpoint-pages",
        "1",
        "--max-in-flight",
        "4",
    ]
}

fn resume_args(out: &str) -> Vec<&str> {
    vec![
        "--config",
        "crawl.toml",
        "crawl",
        "--resume",
        out,
        "--checkpoint-pages",
        "1",
        "--max-in-flight",
        "4",
    ]
}

fn spawn(dir: &Dir, args: &[&str]) -> Child {
    dir.cmd()
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn neardup")
}

fn lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l:?}: {e}")))
        .collect()
}

/// Page fetches (robots.txt excluded: each run fetches it once).
fn page_hits(hits: &Hits) -> BTreeMap<String, usize> {
    let mut h = hits.lock().expect("lock").clone();
    h.remove("/robots.txt");
    h
}

/// Paths of `verdicts.jsonl` or `pages.jsonl` lines, in order.
fn paths(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .map(|v| {
            let u = v["url"].as_str().expect("url");
            url::Url::parse(u).expect("URL").path().to_owned()
        })
        .collect()
}

/// Lines in `out/verdicts.jsonl` now (0 when it does not exist yet).
fn verdict_count(dir: &Dir) -> usize {
    std::fs::read_to_string(dir.join("out/verdicts.jsonl"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

/// An uninterrupted crawl: its verdicts, and the hits it made.
fn reference(rt: &tokio::runtime::Runtime) -> Vec<Value> {
    let dir = Dir::new();
    write_config(&dir);
    let hits = Hits::default();
    let addr = start_site(rt, Arc::clone(&hits), Duration::ZERO);
    let seed = format!("http://{addr}/p/0");
    dir.run(&crawl_args(&seed, "out")).expect_code(0);
    let verdicts = lines(&dir.read("out/verdicts.jsonl"));
    // Independent of the program: every page of the site, each once.
    assert_eq!(verdicts.len(), site_size());
    assert!(page_hits(&hits).values().all(|&n| n == 1), "{hits:?}");
    verdicts
}

/// Verdicts without the host:port (the reference ran on another port).
fn normalized(verdicts: &[Value], addr: &str) -> Vec<String> {
    verdicts
        .iter()
        .map(|v| v.to_string().replace(addr, "HOST"))
        .collect()
}

#[test]
fn sigkill_at_random_moments_then_resume_loses_and_repeats_nothing() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let reference = reference(&rt);
    let ref_addr = url::Url::parse(reference[0]["url"].as_str().expect("url")).expect("URL");
    let ref_host = format!("127.0.0.1:{}", ref_addr.port().expect("port"));

    let dir = Dir::new();
    write_config(&dir);
    let hits = Hits::default();
    let addr = start_site(&rt, Arc::clone(&hits), Duration::from_millis(40));
    let seed = format!("http://{addr}/p/0");
    let host = format!("127.0.0.1:{}", addr.port());

    let (kills, mid_crawl) = kill_rounds(
        &dir,
        20_261_122,
        400,
        &crawl_args(&seed, "out"),
        site_size(),
    );
    assert!(
        kills >= 3 && mid_crawl >= 2,
        "the site is too fast: {kills} kills, {mid_crawl} mid-crawl"
    );
    let run = dir.run(&resume_args("out")).expect_code(0);
    assert!(run.stderr().contains("resuming"), "{}", run.stderr());

    let verdicts = lines(&dir.read("out/verdicts.jsonl"));
    let got = paths(&verdicts);
    let mut unique = got.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), got.len(), "a page decided twice: {got:?}");
    assert_eq!(got.len(), site_size(), "pages lost: {got:?}");
    assert_eq!(
        normalized(&verdicts, &host),
        normalized(&reference, &ref_host),
        "verdicts differ from an uninterrupted crawl"
    );
    let pages = paths(&lines(&dir.read("out/pages.jsonl")));
    assert_eq!(pages, got, "pages.jsonl lines lost or repeated");
    // The cluster files were rebuilt from every run's verdicts.
    let clusters: Value =
        serde_json::from_str(&dir.read("out/clusters.json")).expect("clusters.json");
    assert_eq!(clusters["totals"]["pages"], site_size());

    // Refetches: per kill, at most the pages in flight at the last
    // checkpoint plus those dispatched while it was being decided.
    let h = page_hits(&hits);
    let refetched: usize = h.values().map(|n| n - 1).sum();
    eprintln!("{kills} kills, {refetched} pages fetched twice: {h:?}");
    assert_eq!(h.len(), site_size(), "{h:?}");
    assert!(
        refetched <= kills * 2 * IN_FLIGHT,
        "{refetched} refetches after {kills} kills: {h:?}"
    );

    // A resume of the finished crawl does nothing and says so.
    let before = page_hits(&hits);
    let run = dir.run(&resume_args("out")).expect_code(0);
    assert!(run.stderr().contains("nothing to do"), "{}", run.stderr());
    assert_eq!(page_hits(&hits), before, "a finished crawl fetched again");
    assert_eq!(lines(&dir.read("out/verdicts.jsonl")), verdicts);
}

#[test]
fn resume_with_another_chain_or_no_state_is_refused() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let dir = Dir::new();
    write_config(&dir);
    let hits = Hits::default();
    let addr = start_site(&rt, Arc::clone(&hits), Duration::from_millis(40));
    let seed = format!("http://{addr}/p/0");
    let mut child = spawn(&dir, &crawl_args(&seed, "out"));
    std::thread::sleep(Duration::from_millis(600));
    child.kill().expect("SIGKILL");
    child.wait().expect("wait");

    let mut args = resume_args("out");
    args.extend(["--detector", "exact"]);
    let run = dir.run(&args);
    assert_ne!(run.code(), 0);
    assert!(run.stderr().contains("detector chain"), "{}", run.stderr());

    let run = dir.run(&resume_args("nowhere"));
    assert_ne!(run.code(), 0);
    assert!(run.stderr().contains("crawl state"), "{}", run.stderr());
}

#[test]
fn ctrl_c_stops_promptly_with_complete_files_and_resume_finishes() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let dir = Dir::new();
    write_config(&dir);
    let hits = Hits::default();
    let addr = start_site(&rt, Arc::clone(&hits), Duration::from_millis(40));
    let seed = format!("http://{addr}/p/0");
    let child = spawn(&dir, &crawl_args(&seed, "out"));
    // Interrupt once the crawl is fetching (its signal handler is in place
    // by then), not after a fixed sleep: opening the index can take seconds
    // on a busy disk, and SIGINT before the handler kills the process.
    let ready = Instant::now();
    while page_hits(&hits).len() < 2 {
        assert!(
            ready.elapsed() < Duration::from_secs(60),
            "the crawl never started fetching"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    let sent = Instant::now();
    let ok = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill -INT");
    assert!(ok.success());
    let out = child.wait_with_output().expect("wait");
    let took = sent.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(took < Duration::from_secs(10), "exit took {took:?}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");

    // Every file is complete: each line parses, the cluster files exist.
    let verdicts = lines(&dir.read("out/verdicts.jsonl"));
    let pages = lines(&dir.read("out/pages.jsonl"));
    assert!(
        !verdicts.is_empty() && verdicts.len() < site_size(),
        "{}",
        verdicts.len()
    );
    assert_eq!(paths(&pages), paths(&verdicts));
    let clusters: Value =
        serde_json::from_str(&dir.read("out/clusters.json")).expect("clusters.json");
    assert_eq!(clusters["totals"]["pages"], verdicts.len());
    let state: Value =
        serde_json::from_str(&dir.read("out/crawl-state.json")).expect("crawl-state.json");
    assert_eq!(state["finished"], false);

    // A graceful stop leaves nothing in flight: the resume fetches no page
    // twice.
    dir.run(&resume_args("out")).expect_code(0);
    let verdicts = lines(&dir.read("out/verdicts.jsonl"));
    assert_eq!(verdicts.len(), site_size());
    let h = page_hits(&hits);
    assert!(h.values().all(|&n| n == 1), "refetched after Ctrl-C: {h:?}");
}

/// Two sites: `127.0.0.1:P` and, under the name `localhost`, another port:
/// two politeness hosts. Their texts differ, so no page matches across
/// hosts and each page's verdict depends only on its own host's order.
fn two_sites(rt: &tokio::runtime::Runtime, delay: Duration) -> ([Hits; 2], [String; 2]) {
    let hits = [Hits::default(), Hits::default()];
    let a = start_salted_site(rt, Arc::clone(&hits[0]), delay, 0);
    let b = start_salted_site(rt, Arc::clone(&hits[1]), delay, 1000);
    (
        hits,
        [
            format!("http://{a}"),
            format!("http://localhost:{}", b.port()),
        ],
    )
}

/// Per host (by base URL), its verdict lines in order, bases replaced by
/// `HOST0`/`HOST1` and similarities left out (a near duplicate's score is
/// not what this checks).
fn per_host(verdicts: &[Value], bases: &[String; 2]) -> [Vec<String>; 2] {
    let norm = |v: &Value, f: &str| {
        let mut s = v[f].as_str().unwrap_or("-").to_owned();
        for (i, b) in bases.iter().enumerate() {
            s = s.replace(b.as_str(), &format!("HOST{i}"));
        }
        s
    };
    let mut out = [Vec::new(), Vec::new()];
    for v in verdicts {
        let url = v["url"].as_str().expect("url");
        let host = bases
            .iter()
            .position(|b| url.starts_with(&format!("{b}/")))
            .unwrap_or_else(|| panic!("{url} is on neither host"));
        out[host].push(format!(
            "{} {} {} {}",
            norm(v, "url"),
            norm(v, "verdict"),
            norm(v, "of_url"),
            norm(v, "detector")
        ));
    }
    out
}

fn multi_args<'a>(seeds: &'a [String; 2], out: &'a str) -> Vec<&'a str> {
    let mut args = crawl_args(&seeds[0], out);
    args.extend(["--seed", &seeds[1]]);
    args
}

#[test]
fn sigkill_then_resume_with_two_hosts_loses_and_repeats_nothing() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    // An uninterrupted crawl of both hosts.
    let reference = {
        let dir = Dir::new();
        write_config(&dir);
        let (hits, bases) = two_sites(&rt, Duration::ZERO);
        let seeds = bases.clone().map(|b| format!("{b}/p/0"));
        dir.run(&multi_args(&seeds, "out")).expect_code(0);
        let verdicts = lines(&dir.read("out/verdicts.jsonl"));
        assert_eq!(verdicts.len(), 2 * site_size());
        for h in &hits {
            assert!(page_hits(h).values().all(|&n| n == 1), "{h:?}");
        }
        per_host(&verdicts, &bases)
    };
    assert_eq!(reference[0].len(), site_size());
    assert_eq!(reference[1].len(), site_size());

    let dir = Dir::new();
    write_config(&dir);
    let (hits, bases) = two_sites(&rt, Duration::from_millis(40));
    let seeds = bases.clone().map(|b| format!("{b}/p/0"));
    let (kills, mid_crawl) = kill_rounds(
        &dir,
        20_261_124,
        300,
        &multi_args(&seeds, "out"),
        2 * site_size(),
    );
    assert!(
        kills >= 3 && mid_crawl >= 2,
        "the sites are too fast: {kills} kills, {mid_crawl} mid-crawl"
    );
    let run = dir.run(&resume_args("out")).expect_code(0);
    assert!(run.stderr().contains("resuming"), "{}", run.stderr());

    let verdicts = lines(&dir.read("out/verdicts.jsonl"));
    let urls: Vec<&str> = verdicts
        .iter()
        .map(|v| v["url"].as_str().expect("url"))
        .collect();
    let mut unique = urls.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), urls.len(), "a page decided twice: {urls:?}");
    assert_eq!(urls.len(), 2 * site_size(), "pages lost: {urls:?}");
    // Each host's pages in the same order, with the same verdicts, as the
    // uninterrupted crawl: its queue survived the checkpoints.
    assert_eq!(per_host(&verdicts, &bases), reference);
    let pages = lines(&dir.read("out/pages.jsonl"));
    let page_urls: Vec<&str> = pages
        .iter()
        .map(|p| p["url"].as_str().expect("url"))
        .collect();
    assert_eq!(page_urls, urls, "pages.jsonl lines lost or repeated");
    let mut refetched = 0;
    for h in &hits {
        let h = page_hits(h);
        assert_eq!(h.len(), site_size(), "{h:?}");
        refetched += h.values().map(|n| n - 1).sum::<usize>();
    }
    eprintln!("{kills} kills, {refetched} pages fetched twice");
    assert!(
        refetched <= kills * 2 * IN_FLIGHT,
        "{refetched} refetches after {kills} kills"
    );
}

/// Four rounds (the first with `first`, the others `--resume`), each
/// SIGKILLed once it has decided a new page plus 0..`max_ms` ms from a
/// fixed seed (start-up time varies a lot on a loaded machine).
/// Returns (kills, rounds that left a crawl of `total` pages half done).
fn kill_rounds(dir: &Dir, seed: u64, max_ms: u64, first: &[&str], total: usize) -> (usize, usize) {
    let mut rng = neardup_api::SplitMix64::new(seed);
    let (mut kills, mut mid_crawl) = (0, 0);
    for round in 0..4 {
        let after = Duration::from_millis(rng.below(max_ms as usize) as u64);
        let args = if round == 0 {
            first.to_vec()
        } else {
            resume_args("out")
        };
        let before = verdict_count(dir);
        let mut child = spawn(dir, &args);
        let started = Instant::now();
        while verdict_count(dir) <= before
            && started.elapsed() < Duration::from_secs(30)
            && child.try_wait().expect("wait").is_none()
        {
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(after);
        if child.try_wait().expect("wait").is_none() {
            child.kill().expect("SIGKILL");
            kills += 1;
        }
        let out = child.wait_with_output().expect("wait");
        eprintln!(
            "round {round}: killed after {after:?}: {:?} {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        let decided = verdict_count(dir);
        if decided > 0 && decided < total {
            mid_crawl += 1;
        }
    }
    (kills, mid_crawl)
}

/// A crawl killed mid-run whose index file is then damaged (the damage
/// matrix of `corrupt_index.rs`: truncated by a full disk or a partial
/// copy, bytes flipped in the header, byte 9's recovery bit cleared among
/// them, or in pages, pages zeroed): `--resume` refuses it with exit 2 and a
/// message naming the file, or, where the damage cannot matter, finishes
/// the crawl with the verdicts of an uninterrupted one; never a panic
/// (101) or an abort (134).
#[test]
fn resume_with_a_damaged_index_is_a_clear_error_or_harmless() {
    use crate::corrupt_index::{damage_matrix, refused, Expect};
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let reference = reference(&rt);
    let ref_addr = url::Url::parse(reference[0]["url"].as_str().expect("url")).expect("URL");
    let ref_host = format!("127.0.0.1:{}", ref_addr.port().expect("port"));
    let dir = Dir::new();
    write_config(&dir);
    let hits = Hits::default();
    let addr = start_site(&rt, Arc::clone(&hits), Duration::from_millis(40));
    let host = format!("127.0.0.1:{}", addr.port());
    let seed = format!("http://{addr}/p/0");
    let mut child = spawn(&dir, &crawl_args(&seed, "out"));
    // Killed once a few pages are checkpointed, long before the end.
    let start = std::time::Instant::now();
    while verdict_count(&dir) < 3 && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().expect("SIGKILL");
    child.wait().expect("wait");
    let snapshot: Vec<(std::ffi::OsString, Vec<u8>)> = std::fs::read_dir(dir.join("out"))
        .expect("out")
        .map(|e| {
            let e = e.expect("entry");
            (e.file_name(), std::fs::read(e.path()).expect("read"))
        })
        .collect();
    let index = dir.join("out/index.redb");
    let good = std::fs::read(&index).expect("the crawl made its index");
    assert_ne!(
        good[9] & 0x02,
        0,
        "the killed crawl left its recovery bit set"
    );
    let mut outcomes = Vec::new();
    // Every case but the single pages, of which two (each exit-0 case
    // resumes the whole crawl).
    let mut pages = 0;
    let matrix = damage_matrix(&good, true).into_iter().filter(|d| {
        let single = d.name.starts_with("flip-page-") || d.name.starts_with("zeroed-page-");
        pages += usize::from(single);
        !single || pages <= 2
    });
    for d in matrix {
        std::fs::remove_dir_all(dir.join("out")).expect("clear");
        std::fs::create_dir(dir.join("out")).expect("mkdir");
        for (name, bytes) in &snapshot {
            std::fs::write(dir.join("out").join(name), bytes).expect("restore");
        }
        std::fs::write(&index, &d.bytes).expect("damage");
        let run = dir.run(&resume_args("out"));
        outcomes.push(format!("{} {}", d.name, run.code()));
        if run.code() != 0 || d.expect == Expect::Refused {
            assert_ne!(d.expect, Expect::Harmless, "{}: {}", d.name, run.stderr());
            refused(&run, &format!("crawl --resume ({})", d.name), "index.redb");
            continue;
        }
        let verdicts = lines(&dir.read("out/verdicts.jsonl"));
        assert_eq!(
            normalized(&verdicts, &host),
            normalized(&reference, &ref_host),
            "{}: exit 0, but the verdicts differ from an uninterrupted crawl",
            d.name
        );
    }
    eprintln!(
        "crawl --resume on the damage matrix (exit codes): {}",
        outcomes.join(", ")
    );
}
