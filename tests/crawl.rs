//! The crawl loop against real HTTP servers on 127.0.0.1: the built-in
//! demo through the binary (expected duplicates, canonicalized tracking
//! URLs, the calendar trap bounded, robots.txt, a 404), seed-file errors,
//! and the library loop against a test server (robots disallow, fetch
//! errors in pages.jsonl, frontier cap, shutdown).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Router;
use neardup::Deduper;
use neardup::SharedDeduper;
use neardup_crawl::fetch::Fetcher;
use neardup_crawl::CrawlSettings;
use neardup_crawl::{Crawler, Options};
use neardup_output::OutputDir;
use serde_json::Value;
use url::Url;

use crate::site::{Answer, Site};
use crate::util::Dir;

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l:?}: {e}")))
        .collect()
}

fn path_of(url: &str) -> String {
    let u = Url::parse(url).expect("URL");
    match u.query() {
        Some(q) => format!("{}?{q}", u.path()),
        None => u.path().to_owned(),
    }
}

fn port_of(url: &str) -> Option<u16> {
    Url::parse(url).expect("URL").port()
}

/// The verdict line of the page with this path (and port, if given).
fn verdict<'a>(verdicts: &'a [Value], path: &str) -> &'a Value {
    let found: Vec<&Value> = verdicts
        .iter()
        .filter(|v| path_of(v["url"].as_str().unwrap_or("")) == path)
        .collect();
    assert_eq!(found.len(), 1, "one verdict for {path}: {verdicts:#?}");
    found[0]
}

#[test]
fn demo_crawl_finds_the_expected_duplicates() {
    let dir = Dir::new();
    let run = dir.run(&["crawl", "--demo", "--out", "out"]).expect_code(0);
    let verdicts = json_lines(&dir.read("out/verdicts.jsonl"));
    let pages = json_lines(&dir.read("out/pages.jsonl"));

    let solar = verdict(&verdicts, "/articles/solar.html");
    assert_eq!(solar["verdict"], "unique");
    let solar_url = solar["url"].as_str().expect("url");
    let site_a = port_of(solar_url);

    // Printer-friendly view: dropped, as a copy of the article.
    let print = verdict(&verdicts, "/articles/solar-print.html");
    assert_ne!(print["verdict"], "unique", "{print}");
    assert_eq!(print["of_url"], solar_url);

    // AMP view: dropped by its rel=canonical.
    let amp = verdict(&verdicts, "/amp/solar.html");
    assert_eq!(amp["verdict"], "duplicate", "{amp}");
    assert_eq!(amp["detector"], "canonical");
    assert_eq!(amp["of_url"], solar_url);
    assert!(
        amp["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("canonical: http")),
        "{amp}"
    );

    // The mirror on the other host: dropped, of the original.
    let mirror = verdict(&verdicts, "/news/schools-solar.html");
    assert_ne!(port_of(mirror["url"].as_str().expect("url")), site_a);
    assert_ne!(mirror["verdict"], "unique", "{mirror}");
    assert_eq!(mirror["of_url"], solar_url);

    // Tag and archive pages list the same posts as "view all".
    let all = verdict(&verdicts, "/posts/all.html");
    assert_eq!(all["verdict"], "unique");
    for p in ["/tags/energy.html", "/archive/2026.html"] {
        let v = verdict(&verdicts, p);
        assert_ne!(v["verdict"], "unique", "{v}");
        assert_eq!(v["of_url"], all["url"], "{v}");
    }

    // Similar product pages are different products.
    for p in ["/products/lamp-a100.html", "/products/lamp-a200.html"] {
        assert_eq!(verdict(&verdicts, p)["verdict"], "unique", "{p}");
    }

    // Tracking and session-id links: one fetch of the article, none with
    // the parameters (both hosts).
    let fetched: Vec<String> = pages
        .iter()
        .map(|p| path_of(p["url"].as_str().expect("url")))
        .collect();
    assert_eq!(
        fetched
            .iter()
            .filter(|p| p.starts_with("/articles/solar.html"))
            .count(),
        1,
        "{fetched:?}"
    );
    assert!(
        !fetched
            .iter()
            .any(|p| p.contains("utm_") || p.contains("sessionid")),
        "{fetched:?}"
    );
    // Each URL fetched once.
    let mut seen = std::collections::HashSet::new();
    for p in &pages {
        assert!(
            seen.insert(p["url"].as_str().expect("url").to_owned()),
            "{p}"
        );
    }

    // The calendar trap stops at the demo's max depth (5): months 1..=5.
    let mut months: Vec<u64> = fetched
        .iter()
        .filter_map(|p| p.strip_prefix("/calendar?month="))
        .map(|m| m.parse().expect("month"))
        .collect();
    months.sort_unstable();
    assert_eq!(months, [1, 2, 3, 4, 5]);
    assert!(pages.iter().all(|p| p["depth"].as_u64() <= Some(5)));

    // robots.txt disallows /private/: recorded, not fetched.
    let private: Vec<&Value> = pages
        .iter()
        .filter(|p| path_of(p["url"].as_str().expect("url")) == "/private/drafts.html")
        .collect();
    assert_eq!(private.len(), 1);
    assert_eq!(private[0]["error"], "robots_disallowed");
    assert!(private[0]["status"].is_null());

    // The dead link is one pages.jsonl line with its 404, and no verdict.
    let missing: Vec<&Value> = pages
        .iter()
        .filter(|p| path_of(p["url"].as_str().expect("url")) == "/missing.html")
        .collect();
    assert_eq!(missing.len(), 1);
    assert_eq!(missing[0]["status"], 404);
    assert!(!verdicts
        .iter()
        .any(|v| path_of(v["url"].as_str().unwrap_or("")) == "/missing.html"));

    // Clusters and the printed report.
    let clusters: Value =
        serde_json::from_str(&dir.read("out/clusters.json")).expect("clusters.json");
    assert_eq!(
        clusters["totals"]["pages"].as_u64(),
        Some(verdicts.len() as u64)
    );
    let stdout = run.stdout();
    assert!(stdout.contains("duplicate rate"), "{stdout}");
    assert!(
        stdout.contains("/amp/solar.html duplicate by canonical"),
        "{stdout}"
    );
}

#[test]
fn seeds_file_bad_lines_are_reported_with_line_numbers() {
    let dir = Dir::new();
    // Nothing listens on port 9 of 127.0.0.1 (discard, not served): the
    // good seed is attempted and fails, which is enough to check the run.
    dir.write(
        "seeds.txt",
        "# seeds\n\nnot a url\nhttp://127.0.0.1:9/\nftp://example.invalid/\n",
    );
    let run = dir
        .run(&[
            "crawl",
            "--seeds",
            "seeds.txt",
            "--out",
            "out",
            "--allow-private",
        ])
        .expect_code(0);
    let err = run.stderr();
    assert!(err.contains("line 3"), "{err}");
    assert!(err.contains("line 5"), "{err}");
    assert!(!err.contains("line 4"), "{err}");
    let pages = json_lines(&dir.read("out/pages.jsonl"));
    assert_eq!(pages.len(), 1, "{pages:?}");
    assert_eq!(pages[0]["url"], "http://127.0.0.1:9/");
    assert_eq!(pages[0]["error"], "robots_unreachable", "{}", pages[0]);

    dir.write("none.txt", "# nothing\nmailto:a@b.c\n");
    let run = dir.run(&["crawl", "--seeds", "none.txt", "--out", "out2"]);
    assert_ne!(run.code(), 0);
    assert!(run.stderr().contains("line 2"), "{}", run.stderr());
}

/// A site: robots.txt disallows /secret/, the home page links to an
/// allowed page, a secret page, a 404, a redirect loop and a port nothing
/// listens on.
fn test_site() -> Site {
    Site::new(vec![
        ("/robots.txt", Answer::text("User-agent: *\nDisallow: /secret/\n")),
        (
            "/",
            Answer::html(
                "<p>Home of the test site with several links to follow.</p>\
                 <a href=\"/open.html\">open</a> <a href=\"/secret/plans.html\">secret</a>\
                 <a href=\"/moved.html\">moved</a> <a href=\"/renamed.html\">renamed</a> <a href=\"/gone.html\">gone</a> <a href=\"/loop.html\">loop</a> <a href=\"http://127.0.0.1:9/\">closed</a>",
            ),
        ),
        (
            "/open.html",
            Answer::html(
                "<p>An open page that anyone may read and crawl.</p><a href=\"/new.html\">new</a>",
            ),
        ),
        ("/secret/plans.html", Answer::html("<p>Secret plans.</p>")),
        ("/moved.html", Answer::redirect(301, "/open.html")),
        ("/renamed.html", Answer::redirect(301, "/new.html")),
        (
            "/new.html",
            Answer::html("<p>The new home of a renamed page, with its own text to read.</p>"),
        ),
        ("/loop.html", Answer::redirect(302, "/loop.html")),
    ])
}

fn test_config() -> CrawlSettings {
    let mut config = CrawlSettings::default();
    {
        let c = &mut config.crawl;
        c.allow_private = true;
        c.fetch.host_delay_ms = 0;
        c.fetch.retries = 0;
        c.fetch.connect_timeout_ms = 2000;
    }
    // The scope is per host: 127.0.0.1:9 is the same host, in scope.
    config
}

async fn crawl(
    addr: std::net::SocketAddr,
    options: &Options,
    out: &std::path::Path,
    shutdown: impl std::future::Future<Output = ()>,
) -> (neardup_crawl::CrawlSummary, Vec<Value>) {
    let config = test_config();
    let deduper = SharedDeduper::new(Deduper::new(config.core.clone()).expect("deduper"));
    let fetcher = Arc::new(Fetcher::new(&config.crawl).expect("fetcher"));
    let mut sink = OutputDir::create(out).expect("out dir");
    let mut pages = Vec::new();
    let seeds = vec![Url::parse(&format!("http://{addr}/")).expect("seed")];
    let summary = Crawler::new(&config, deduper, fetcher)
        .seeds(seeds)
        .options(options.clone())
        .run(&mut pages, &mut sink, shutdown)
        .await
        .expect("crawl");
    let pages = json_lines(std::str::from_utf8(&pages).expect("utf-8"));
    (summary, pages)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn robots_disallow_and_errors_in_the_loop() {
    let site = test_site();
    let addr = site.clone().start().await;
    let dir = Dir::new();
    // One page in flight at a time: new.html (queued from open.html) is
    // not dispatched before the redirect to it is decided. With more in
    // flight it may already be fetching then, and is fetched twice.
    let options = Options {
        workers: 1,
        max_in_flight: 1,
        ..Options::default()
    };
    let (summary, pages) = crawl(addr, &options, &dir.join("out"), std::future::pending()).await;
    let hits = site.hits();
    assert!(!hits.iter().any(|h| h.starts_with("/secret/")), "{hits:?}");
    assert!(hits.iter().any(|h| h == "/open.html"), "{hits:?}");

    let by_path: BTreeMap<String, &Value> = pages
        .iter()
        .map(|p| (p["url"].as_str().expect("url").to_owned(), p))
        .collect();
    let url = |p: &str| format!("http://{addr}{p}");
    assert_eq!(pages.len(), 8, "{pages:#?}");
    assert_eq!(
        by_path[&url("/secret/plans.html")]["error"],
        "robots_disallowed"
    );
    assert_eq!(by_path[&url("/gone.html")]["status"], 404);
    assert_eq!(by_path[&url("/open.html")]["status"], 200);
    let looped = by_path[&url("/loop.html")];
    assert!(looped["status"].is_null());
    assert!(
        looped["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("redirect_loop")),
        "{looped}"
    );
    // Nothing listens there, so its robots.txt is unreachable: the host is
    // disallowed (RFC 9309), and the line says why.
    let closed = by_path["http://127.0.0.1:9/"];
    assert!(closed["status"].is_null());
    assert_eq!(closed["error"], "robots_unreachable");
    assert_eq!(summary.attempts, 8);
    assert_eq!(summary.robots_disallowed, 2);
    assert_eq!(summary.fetch_errors, 1);
    // Only the 200 answers are checked: home, open, moved (-> open) and
    // renamed (-> new).
    assert_eq!(summary.pages, 4);
    assert_eq!(summary.skipped.get("already_fetched"), Some(&1));
    assert!(!summary.interrupted);
    let verdicts = json_lines(&dir.read("out/verdicts.jsonl"));
    assert_eq!(verdicts.len(), 4, "{verdicts:#?}");

    // A redirect to a page fetched before is a duplicate of it (both URLs
    // recorded); a redirect target is not fetched again from a link queued
    // before the redirect was seen (open.html links new.html).
    let moved = verdicts
        .iter()
        .find(|v| v["url"] == url("/moved.html"))
        .expect("moved verdict");
    assert_eq!(moved["verdict"], "duplicate");
    assert_eq!(moved["detector"], "redirect");
    assert_eq!(moved["of_url"], url("/open.html"));
    assert_eq!(moved["reason"], format!("redirect: {}", url("/open.html")));
    assert_eq!(moved["similarity"], 1.0);
    assert!(moved.get("covered").is_none(), "{moved}");
    assert_eq!(by_path[&url("/moved.html")]["final_url"], url("/open.html"));
    assert_eq!(
        hits.iter().filter(|h| *h == "/new.html").count(),
        1,
        "{hits:?}"
    );
    assert!(!by_path.contains_key(&url("/new.html")), "{pages:#?}");
    assert_eq!(
        by_path[&url("/renamed.html")]["final_url"],
        url("/new.html")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frontier_cap_skips_with_a_reason() {
    let addr = test_site().start().await;
    let dir = Dir::new();
    let options = Options {
        max_frontier: 1,
        ..Options::default()
    };
    let (summary, pages) = crawl(addr, &options, &dir.join("out"), std::future::pending()).await;
    // The home page queues one link (open); the other six find the queue
    // full. Open's link to new finds the queue empty again.
    assert_eq!(
        summary.skipped.get("frontier_full"),
        Some(&6),
        "{summary:?}"
    );
    assert_eq!(pages.len(), 3, "{pages:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_stops_dispatching_and_flushes_outputs() {
    let site = test_site();
    let addr = site.clone().start().await;
    let dir = Dir::new();
    let (summary, pages) = crawl(
        addr,
        &Options::default(),
        &dir.join("out"),
        std::future::ready(()),
    )
    .await;
    assert!(summary.interrupted);
    assert_eq!(summary.attempts, 0);
    assert!(pages.is_empty());
    assert!(site.hits().is_empty());
    // The sinks were finished: every output file is in place.
    assert_eq!(dir.read("out/verdicts.jsonl"), "");
    assert!(dir
        .read("out/clusters.tsv")
        .starts_with("doc_id\tcluster_id"));
    assert!(dir.join("out/clusters.json").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_drains_pages_in_flight() {
    async fn handle(State(hits): State<Arc<Mutex<Vec<String>>>>, uri: Uri) -> Response {
        let path = uri.path().to_owned();
        hits.lock().expect("lock").push(path.clone());
        let html = |body: &str| {
            (
                [(header::CONTENT_TYPE, "text/html")],
                format!("<html><body>{body}</body></html>"),
            )
                .into_response()
        };
        match path.as_str() {
            "/" => html(
                "<p>Home page of a site with one slow page.</p><a href=\"/slow.html\">slow</a>",
            ),
            "/slow.html" => {
                tokio::time::sleep(std::time::Duration::from_millis(800)).await;
                html("<p>A slow page that links further.</p><a href=\"/after.html\">after</a>")
            }
            "/after.html" => html("<p>Reached only after the slow page.</p>"),
            _ => (StatusCode::NOT_FOUND, "no").into_response(),
        }
    }
    let hits = Arc::new(Mutex::new(Vec::new()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let app = Router::new().fallback(handle).with_state(Arc::clone(&hits));
    tokio::spawn(async move { axum::serve(listener, app).await });

    // The signal comes while slow.html is being served.
    let shutdown = {
        let hits = Arc::clone(&hits);
        async move {
            while !hits.lock().expect("lock").iter().any(|h| h == "/slow.html") {
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
        }
    };
    let dir = Dir::new();
    let (summary, pages) = crawl(addr, &Options::default(), &dir.join("out"), shutdown).await;
    assert!(summary.interrupted);
    // slow.html was in flight: drained, fetched and decided.
    let slow: Vec<&Value> = pages
        .iter()
        .filter(|p| p["url"] == format!("http://{addr}/slow.html"))
        .collect();
    assert_eq!(slow.len(), 1, "{pages:#?}");
    assert_eq!(slow[0]["status"], 200);
    let verdicts = json_lines(&dir.read("out/verdicts.jsonl"));
    assert_eq!(verdicts.len(), 2, "{verdicts:#?}");
    // Nothing is dispatched after the signal.
    assert!(!hits
        .lock()
        .expect("lock")
        .iter()
        .any(|h| h == "/after.html"));
}

/// A site where a copy links to pages its original does not: the home
/// page links to an article and to its copy (same text); only the copy
/// links to `/only-in-copy.html` (unique text) and to `/copy-2.html`,
/// another copy, which links to `/behind-two-copies.html`. Links have no
/// text, so the copies' text equals the article's.
async fn copies_site(hits: Arc<Mutex<Vec<String>>>) -> std::net::SocketAddr {
    async fn handle(State(hits): State<Arc<Mutex<Vec<String>>>>, uri: Uri) -> Response {
        let path = uri.path().to_owned();
        hits.lock().expect("lock").push(path.clone());
        let article = "<p>The same long article text, word for word, on every copy of \
                       this page, about rivers, bridges and the towns along them.</p>";
        let html = |body: String| {
            (
                [(header::CONTENT_TYPE, "text/html")],
                format!("<html><body>{body}</body></html>"),
            )
                .into_response()
        };
        match path.as_str() {
            "/robots.txt" => "User-agent: *\nAllow: /\n".into_response(),
            "/" => html(
                "<p>Home page of a site that keeps copies of one article.</p>\
                 <a href=\"/article.html\">article</a> <a href=\"/copy.html\">copy</a>"
                    .into(),
            ),
            "/article.html" => html(article.to_owned()),
            "/copy.html" => html(format!(
                "{article}<a href=\"/only-in-copy.html\"></a><a href=\"/copy-2.html\"></a>"
            )),
            "/copy-2.html" => html(format!("{article}<a href=\"/behind-two-copies.html\"></a>")),
            "/only-in-copy.html" => {
                html("<p>A page that only the copy links to, with its own words.</p>".into())
            }
            "/behind-two-copies.html" => {
                html("<p>A page reached only through two copies in a row.</p>".into())
            }
            _ => (StatusCode::NOT_FOUND, "no").into_response(),
        }
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let app = Router::new().fallback(handle).with_state(hits);
    tokio::spawn(async move { axum::serve(listener, app).await });
    addr
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_of_duplicates_follow_duplicate_hops() {
    for (hops, want_only, want_behind) in [(0, false, false), (1, true, false), (2, true, true)] {
        let hits = Arc::new(Mutex::new(Vec::new()));
        let addr = copies_site(Arc::clone(&hits)).await;
        let mut config = test_config();
        config.crawl.scope.duplicate_hops = hops;
        let deduper = SharedDeduper::new(Deduper::new(config.core.clone()).expect("deduper"));
        let fetcher = Arc::new(Fetcher::new(&config.crawl).expect("fetcher"));
        let dir = Dir::new();
        let mut sink = OutputDir::create(&dir.join("out")).expect("out dir");
        let mut pages = Vec::new();
        // One at a time: article.html is decided before copy.html.
        let options = Options {
            workers: 1,
            max_in_flight: 1,
            ..Options::default()
        };
        let seeds = vec![Url::parse(&format!("http://{addr}/")).expect("seed")];
        let summary = Crawler::new(&config, deduper, fetcher)
            .seeds(seeds)
            .options(options.clone())
            .run(&mut pages, &mut sink, std::future::pending())
            .await
            .expect("crawl");
        let hits = hits.lock().expect("lock").clone();
        let fetched = |p: &str| hits.iter().any(|h| h == p);
        assert!(fetched("/copy.html"), "{hits:?}");
        assert_eq!(
            summary.verdicts.duplicates,
            1 + u64::from(hops >= 1),
            "hops {hops}: {hits:?}"
        );
        assert_eq!(fetched("/copy-2.html"), hops >= 1, "hops {hops}: {hits:?}");
        assert_eq!(
            fetched("/only-in-copy.html"),
            want_only,
            "hops {hops}: {hits:?}"
        );
        assert_eq!(
            fetched("/behind-two-copies.html"),
            want_behind,
            "hops {hops}: {hits:?}"
        );
    }
}

/// Pages above the crawl's inline limit (256 KiB) are analyzed on the
/// blocking pool, smaller ones on the runtime thread that fetched them:
/// both are analyzed, so a copy of each is found, with its source.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn small_and_large_pages_are_both_analyzed() {
    let page = |text: String| Answer::html(&format!("<article><p>{text}</p></article>"));
    // About 330 KB of text: over the inline limit.
    let large = crate::util::pseudo_words(7, 50_000, 5_000);
    let small = words(8);
    let site = Site::new(vec![
        ("/robots.txt", Answer::text("User-agent: *\nAllow: /\n")),
        (
            "/",
            Answer::html(
                "<p>An index of large and small pages.</p>\
                 <a href=\"/large.html\">l</a> <a href=\"/large-copy.html\">lc</a>\
                 <a href=\"/small.html\">s</a> <a href=\"/small-copy.html\">sc</a>",
            ),
        ),
        ("/large.html", page(large.clone())),
        ("/large-copy.html", page(large)),
        ("/small.html", page(small.clone())),
        ("/small-copy.html", page(small)),
    ]);
    let addr = site.clone().start().await;
    let dir = Dir::new();
    let (summary, pages) = crawl(
        addr,
        &Options::default(),
        &dir.join("out"),
        std::future::pending(),
    )
    .await;
    let url = |p: &str| format!("http://{addr}{p}");
    let bytes = |p: &str| {
        pages
            .iter()
            .find(|x| x["url"] == url(p))
            .and_then(|x| x["bytes"].as_u64())
            .unwrap_or_else(|| panic!("no bytes for {p}: {pages:#?}"))
    };
    assert!(bytes("/large-copy.html") > 256 * 1024);
    assert!(bytes("/small-copy.html") < 256 * 1024);
    assert_eq!(summary.pages, 5);
    let verdicts = json_lines(&dir.read("out/verdicts.jsonl"));
    for (copy, source) in [
        ("/large-copy.html", "/large.html"),
        ("/small-copy.html", "/small.html"),
    ] {
        let v = verdicts
            .iter()
            .find(|v| v["url"] == url(copy))
            .unwrap_or_else(|| panic!("no verdict for {copy}: {verdicts:#?}"));
        assert_eq!(v["verdict"], "duplicate", "{v}");
        assert_eq!(v["of_url"], url(source), "{v}");
    }
}

/// Deterministic text for page `i` of a generated site: 80 words from a
/// 500-word vocabulary (`util::pseudo_words`), so no two pages are duplicates.
fn words(i: u64) -> String {
    crate::util::pseudo_words(i, 80, 500)
}

/// A generated site's link graph: the paths a page links to, in order;
/// `None` for a 404.
type Links = fn(&str) -> Option<Vec<String>>;

/// A generated site serving the pages of `links`. Every page has its own text (`salt` keeps
/// two sites' texts apart). Serves until the runtime ends; records hits.
async fn graph_site(
    salt: u64,
    links: Links,
    hits: Arc<Mutex<Vec<String>>>,
) -> std::net::SocketAddr {
    type St = (u64, Links, Arc<Mutex<Vec<String>>>);
    async fn handle(State((salt, links, hits)): State<St>, uri: Uri) -> Response {
        let path = uri.path().to_owned();
        hits.lock().expect("lock").push(path.clone());
        let Some(targets) = links(&path) else {
            return (StatusCode::NOT_FOUND, "no").into_response();
        };
        let id = path
            .bytes()
            .fold(salt, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
        let anchors: String = targets
            .iter()
            .map(|t| format!("<a href=\"{t}\"></a>"))
            .collect();
        (
            [(header::CONTENT_TYPE, "text/html")],
            format!("<html><body><p>{}</p>{anchors}</body></html>", words(id)),
        )
            .into_response()
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let app = Router::new()
        .fallback(handle)
        .with_state((salt, links, hits));
    tokio::spawn(async move { axum::serve(listener, app).await });
    addr
}

/// A star: the home page links to `/p/1` ... `/p/N`, which link nowhere.
fn star<const N: u32>(path: &str) -> Option<Vec<String>> {
    match path {
        "/" => Some((1..=N).map(|i| format!("/p/{i}")).collect()),
        p => {
            let i: u32 = p.strip_prefix("/p/")?.parse().ok()?;
            (1..=N).contains(&i).then(Vec::new)
        }
    }
}

/// A tree with cross links: `/` links `/a`, `/b`, `/c`; each of those links
/// three children (`/a/1`...) and back to `/` and to its right sibling;
/// each child links to the next child of the next branch (a page already
/// queued) and one leaf of its own (`/a/1/x`).
fn tree(path: &str) -> Option<Vec<String>> {
    let branches = ["a", "b", "c"];
    let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
    match parts.as_slice() {
        [""] => Some(branches.iter().map(|b| format!("/{b}")).collect()),
        [b] if branches.contains(b) => {
            let i = branches.iter().position(|x| x == b)?;
            let mut l: Vec<String> = (1..=3).map(|k| format!("/{b}/{k}")).collect();
            l.push("/".into());
            l.push(format!("/{}", branches[(i + 1) % 3]));
            Some(l)
        }
        [b, k] if branches.contains(b) => {
            let i = branches.iter().position(|x| x == b)?;
            let k: usize = k.parse().ok().filter(|k| (1..=3).contains(k))?;
            Some(vec![
                format!("/{}/{}", branches[(i + 1) % 3], k % 3 + 1),
                format!("/{b}/{k}/x"),
            ])
        }
        [b, k, "x"] if branches.contains(b) && ["1", "2", "3"].contains(k) => Some(Vec::new()),
        _ => None,
    }
}

/// The breadth-first order from the sites' home pages (one seed each, in
/// this order) over their link graphs, computed here independently of the
/// crawler: one FIFO over all sites, a seen set.
fn bfs(sites: &[(String, Links)]) -> Vec<String> {
    let mut queue: std::collections::VecDeque<(usize, String)> =
        (0..sites.len()).map(|s| (s, "/".to_owned())).collect();
    let mut seen: std::collections::HashSet<(usize, String)> = queue.iter().cloned().collect();
    let mut order = Vec::new();
    while let Some((s, path)) = queue.pop_front() {
        let (base, links) = &sites[s];
        order.push(format!("{base}{path}"));
        for t in links(&path).unwrap_or_default() {
            if seen.insert((s, t.clone())) {
                queue.push_back((s, t));
            }
        }
    }
    order
}

/// Crawls `seeds` with `config` through the library loop; `pages.jsonl`.
async fn crawl_seeds(config: &CrawlSettings, seeds: &[String], options: &Options) -> Vec<Value> {
    let deduper = SharedDeduper::new(Deduper::new(config.core.clone()).expect("deduper"));
    let fetcher = Arc::new(Fetcher::new(&config.crawl).expect("fetcher"));
    let dir = Dir::new();
    let mut sink = OutputDir::create(&dir.join("out")).expect("out dir");
    let mut pages = Vec::new();
    let seeds = seeds.iter().map(|s| Url::parse(s).expect("seed")).collect();
    Crawler::new(config, deduper, fetcher)
        .seeds(seeds)
        .options(options.clone())
        .run(&mut pages, &mut sink, std::future::pending())
        .await
        .expect("crawl");
    json_lines(std::str::from_utf8(&pages).expect("utf-8"))
}

fn urls(pages: &[Value]) -> Vec<String> {
    pages
        .iter()
        .map(|p| p["url"].as_str().expect("url").to_owned())
        .collect()
}

/// One host (the politeness key is the host name: `127.0.0.1` on two
/// ports is one host): pages are dispatched, and so decided and written,
/// in exact breadth-first order, with politeness on and with several
/// pages in flight.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_host_is_crawled_in_exact_breadth_first_order() {
    let a = graph_site(1, tree, Arc::default()).await;
    let b = graph_site(2, star::<7>, Arc::default()).await;
    let sites = [
        (format!("http://{a}"), tree as Links),
        (format!("http://{b}"), star::<7>),
    ];
    let want = bfs(&sites);
    assert_eq!(want.len(), 1 + 3 + 9 + 9 + 1 + 7);
    let seeds: Vec<String> = sites.iter().map(|(s, _)| format!("{s}/")).collect();
    for (delay, host_concurrency) in [(0, 1), (0, 4), (20, 1), (5, 3)] {
        let mut config = test_config();
        config.crawl.fetch.host_delay_ms = delay;
        {
            let c = &mut config.crawl;
            c.fetch.host_concurrency = host_concurrency
        }
        let pages = crawl_seeds(&config, &seeds, &Options::default()).await;
        assert_eq!(
            urls(&pages),
            want,
            "delay {delay} ms, host concurrency {host_concurrency}"
        );
    }
}

/// Several hosts without politeness (no delay, a host concurrency above
/// the pages in flight): every host is always ready, so the per-host
/// queues hand out URLs in the global breadth-first order, as one FIFO.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hosts_without_politeness_are_crawled_in_global_breadth_first_order() {
    let a = graph_site(1, tree, Arc::default()).await;
    let b = graph_site(2, star::<7>, Arc::default()).await;
    let c = graph_site(3, tree, Arc::default()).await;
    // Three hosts: 127.0.0.1, localhost and 127.0.0.1 again (a second
    // port of the first host).
    let sites = [
        (format!("http://{a}"), tree as Links),
        (format!("http://localhost:{}", b.port()), star::<7>),
        (format!("http://{c}"), tree),
    ];
    let want = bfs(&sites);
    let seeds: Vec<String> = sites.iter().map(|(s, _)| format!("{s}/")).collect();
    let mut config = test_config();
    {
        let c = &mut config.crawl;
        c.fetch.host_delay_ms = 0;
        c.fetch.host_concurrency = 64;
    }
    let options = Options {
        workers: 8,
        max_in_flight: 32,
        ..Options::default()
    };
    let pages = crawl_seeds(&config, &seeds, &options).await;
    assert_eq!(urls(&pages), want);
}

/// Two hosts with a host delay: A has 20 pages behind its home page, B 7.
/// A's links were all queued before B's, so one global FIFO dispatched
/// (and decided) every A page before any B page, and B waited for A. The
/// per-host queues interleave the hosts: checked by order, not by time,
/// every B page is decided before A's 16th page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_polite_host_does_not_hold_back_the_others() {
    let a = graph_site(1, star::<20>, Arc::default()).await;
    let b = graph_site(2, star::<7>, Arc::default()).await;
    let a_base = format!("http://{a}");
    let b_base = format!("http://localhost:{}", b.port());
    let mut config = test_config();
    {
        let c = &mut config.crawl;
        c.fetch.host_delay_ms = 200;
        c.fetch.host_concurrency = 1;
    }
    let seeds = [format!("{a_base}/"), format!("{b_base}/")];
    let pages = crawl_seeds(&config, &seeds, &Options::default()).await;
    let order = urls(&pages);
    assert_eq!(order.len(), 21 + 8, "{order:#?}");
    let a_pages: Vec<usize> = (0..order.len())
        .filter(|&i| order[i].starts_with(&a_base))
        .collect();
    let b_pages: Vec<usize> = (0..order.len())
        .filter(|&i| order[i].starts_with(&b_base))
        .collect();
    assert_eq!((a_pages.len(), b_pages.len()), (21, 8), "{order:#?}");
    // A's 16th page (its home page and 15 links).
    let a16 = a_pages[15];
    assert!(
        b_pages.iter().all(|&b| b < a16),
        "B's pages wait behind A's: {order:#?}"
    );
    // Each host's own pages still come in its breadth-first order.
    let a_order: Vec<&String> = a_pages.iter().map(|&i| &order[i]).collect();
    let mut want: Vec<String> = vec![format!("{a_base}/")];
    want.extend((1..=20).map(|i| format!("{a_base}/p/{i}")));
    assert_eq!(a_order, want.iter().collect::<Vec<_>>());
}

/// A store in memory that says it is remote (as `RedisStore` does) or
/// not, and records the threads its `sync` runs on (the deduper calls it
/// before every decision).
struct ThreadRecordingStore {
    inner: neardup::MemoryStore,
    remote: bool,
    threads: Arc<Mutex<Vec<std::thread::ThreadId>>>,
}

impl neardup::DocStore for ThreadRecordingStore {
    fn insert(&mut self, record: neardup::DocRecord) -> neardup::Result<u32> {
        self.inner.insert(record)
    }
    fn get(&self, id: u32) -> neardup::Result<Option<Arc<neardup::DocRecord>>> {
        self.inner.get(id)
    }
    fn remove(&mut self, id: u32) -> neardup::Result<Option<Arc<neardup::DocRecord>>> {
        self.inner.remove(id)
    }
    fn for_each(&self, f: &mut dyn FnMut(u32, &Arc<neardup::DocRecord>)) -> neardup::Result<()> {
        self.inner.for_each(f)
    }
    fn sync(&mut self, apply: &mut dyn FnMut(neardup::Change<'_>)) -> neardup::Result<()> {
        self.threads
            .lock()
            .expect("lock")
            .push(std::thread::current().id());
        self.inner.sync(apply)
    }
    fn len(&self) -> usize {
        self.inner.len()
    }
    fn heap_bytes(&self) -> usize {
        self.inner.heap_bytes()
    }
    fn is_remote(&self) -> bool {
        self.remote
    }
}

/// Crawls the test site on a current-thread runtime (the runtime is this
/// thread) with a store that is remote or not; returns the verdict lines
/// and the threads the store's `sync` ran on.
fn crawl_recording(remote: bool) -> (Vec<Value>, Vec<std::thread::ThreadId>) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let threads = Arc::new(Mutex::new(Vec::new()));
    let store = ThreadRecordingStore {
        inner: neardup::MemoryStore::default(),
        remote,
        threads: Arc::clone(&threads),
    };
    let dir = Dir::new();
    rt.block_on(async {
        let addr = test_site().start().await;
        let config = test_config();
        let deduper = Deduper::with_registry(
            config.core.clone(),
            &neardup::Registry::default(),
            Box::new(store),
        )
        .expect("deduper");
        let fetcher = Arc::new(Fetcher::new(&config.crawl).expect("fetcher"));
        let mut sink = OutputDir::create(&dir.join("out")).expect("out dir");
        let options = Options {
            workers: 1,
            max_in_flight: 1,
            ..Options::default()
        };
        let seeds = vec![Url::parse(&format!("http://{addr}/")).expect("seed")];
        Crawler::new(&config, SharedDeduper::new(deduper), fetcher)
            .seeds(seeds)
            .options(options.clone())
            .run(&mut Vec::new(), &mut sink, std::future::pending())
            .await
            .expect("crawl");
    });
    let verdicts = json_lines(&dir.read("out/verdicts.jsonl"))
        .into_iter()
        .map(|mut v| {
            // The test site's port differs between the two runs.
            for field in ["url", "doc_id", "of", "of_url", "site", "reason"] {
                if let Some(s) = v[field].as_str() {
                    let s = s.split_once("127.0.0.1:").map_or(s.to_owned(), |(a, b)| {
                        format!(
                            "{a}HOST{}",
                            b.trim_start_matches(|c: char| c.is_ascii_digit())
                        )
                    });
                    v[field] = Value::String(s);
                }
            }
            v
        })
        .collect();
    let threads = threads.lock().expect("lock").clone();
    (verdicts, threads)
}

/// A remote store's calls (Redis round trips) are made on a blocking
/// thread, never on the runtime's thread, and the crawl decides the same
/// pages the same way as with a store in this process, which is called
/// inline.
#[test]
fn decisions_over_a_remote_store_run_off_the_async_runtime() {
    let runtime_thread = std::thread::current().id();
    let (remote_verdicts, remote_threads) = crawl_recording(true);
    let (local_verdicts, local_threads) = crawl_recording(false);
    assert!(!remote_threads.is_empty(), "the store was used");
    assert!(
        remote_threads.iter().all(|t| *t != runtime_thread),
        "a remote store was called on the runtime's thread"
    );
    assert!(
        local_threads.iter().all(|t| *t == runtime_thread),
        "a local store is called inline"
    );
    assert!(!remote_verdicts.is_empty());
    assert_eq!(remote_verdicts, local_verdicts);
}
