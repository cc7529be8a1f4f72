//! Crawler manners against real HTTP servers on 127.0.0.1: robots meta
//! tags, `X-Robots-Tag` and `rel=nofollow`; the status breakdown of the
//! summary; progress lines when stderr is not a terminal; `--resume`
//! with the saved config; an HTTP proxy and the private-address guard;
//! sitemaps from robots.txt and seeds.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use neardup::Deduper;
use neardup::SharedDeduper;
use neardup_crawl::fetch::Fetcher;
use neardup_crawl::CrawlSettings;
use neardup_crawl::{CrawlSummary, Crawler, Options};
use neardup_output::OutputDir;
use serde_json::Value;
use url::Url;

use crate::site::{Answer, Site};
use crate::util::Dir;

pub fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l:?}: {e}")))
        .collect()
}

pub fn path_of(v: &Value) -> String {
    Url::parse(v["url"].as_str().expect("url"))
        .expect("URL")
        .path()
        .to_owned()
}

pub fn test_config() -> CrawlSettings {
    let mut config = CrawlSettings::default();
    {
        let c = &mut config.crawl;
        c.allow_private = true;
        c.fetch.host_delay_ms = 0;
        c.fetch.retries = 0;
        c.fetch.connect_timeout_ms = 2000;
    }
    config
}

/// Crawls from `seeds` with the library loop; returns the summary, the
/// `pages.jsonl` lines and the `verdicts.jsonl` lines.
pub async fn crawl(
    config: &CrawlSettings,
    seeds: &[String],
    fetcher: Fetcher,
) -> (CrawlSummary, Vec<Value>, Vec<Value>) {
    let dir = Dir::new();
    let deduper = SharedDeduper::new(Deduper::new(config.core.clone()).expect("deduper"));
    let mut sink = OutputDir::create(&dir.join("out")).expect("out dir");
    let mut pages = Vec::new();
    let seeds = seeds.iter().map(|s| Url::parse(s).expect("seed")).collect();
    let options = Options {
        workers: 1,
        max_in_flight: 1,
        ..Options::default()
    };
    let summary = Crawler::new(config, deduper, Arc::new(fetcher))
        .seeds(seeds)
        .options(options.clone())
        .run(&mut pages, &mut sink, std::future::pending())
        .await
        .expect("crawl");
    let pages = json_lines(std::str::from_utf8(&pages).expect("utf-8"));
    let verdicts = json_lines(&dir.read("out/verdicts.jsonl"));
    (summary, pages, verdicts)
}

fn words(n: usize) -> String {
    format!(
        "<p>Page number {n} has its own words: {}.</p>",
        (0..30)
            .map(|i| format!("w{}x{}", n * 31 + i, i * 7))
            .collect::<Vec<_>>()
            .join(" ")
    )
}

/// Every robots directive once: meta robots noindex (links followed),
/// meta nofollow, `X-Robots-Tag: noindex, nofollow`, `<meta name=neardup>`,
/// a header for another crawler, and links with `rel` nofollow, sponsored,
/// ugc, or nofollow on one link and none on another to the same target.
fn directives_site() -> Site {
    Site::new(vec![
        ("/robots.txt", Answer::typed("text/plain", "User-agent: *\nAllow: /\n")),
        (
            "/",
            Answer::html(&format!(
                "{}<a href=/noindex.html>a</a> <a href=/nofollow.html>b</a> \
                 <a href=/header.html>c</a> <a href=/token.html>d</a> <a href=/other-bot.html>e</a> \
                 <a href=/rel-nofollow.html rel=nofollow>f</a> <a href=/rel-sponsored.html rel='sponsored noopener'>g</a> \
                 <a href=/rel-ugc.html rel=UGC>h</a> <a href=/twice.html rel=nofollow>i</a> <a href=/twice.html>j</a>",
                words(0)
            )),
        ),
        (
            "/noindex.html",
            Answer::html_head(
                "<meta name=robots content='noindex, follow'>",
                &format!("{}<a href=/from-noindex.html>k</a>", words(1)),
            ),
        ),
        (
            "/nofollow.html",
            Answer::html_head(
                "<meta name=ROBOTS content=NOFOLLOW>",
                &format!("{}<a href=/from-nofollow.html>l</a>", words(2)),
            ),
        ),
        (
            "/header.html",
            Answer::html(&format!("{}<a href=/from-header.html>m</a>", words(3)))
                .with("x-robots-tag", "noindex, nofollow"),
        ),
        (
            "/token.html",
            Answer::html_head("<meta name=neardup content=noindex>", &words(4)),
        ),
        (
            "/other-bot.html",
            Answer::html(&format!("{}<a href=/from-other-bot.html>n</a>", words(5)))
                .with("x-robots-tag", "otherbot: noindex, nofollow"),
        ),
        ("/from-noindex.html", Answer::html(&words(6))),
        ("/from-nofollow.html", Answer::html(&words(7))),
        ("/from-header.html", Answer::html(&words(8))),
        ("/from-other-bot.html", Answer::html(&words(9))),
        ("/rel-nofollow.html", Answer::html(&words(10))),
        ("/rel-sponsored.html", Answer::html(&words(11))),
        ("/rel-ugc.html", Answer::html(&words(12))),
        ("/twice.html", Answer::html(&words(13))),
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn robots_directives_and_nofollow_links_are_obeyed() {
    let site = directives_site();
    let addr = site.clone().start().await;
    let config = test_config();
    let fetcher = Fetcher::new(&config.crawl).expect("fetcher");
    let (summary, pages, verdicts) = crawl(&config, &[format!("http://{addr}/")], fetcher).await;
    let hits = site.hits();
    let fetched = |p: &str| hits.iter().any(|h| h == p);

    // Followed: a noindex page's links, a page whose header is for
    // another crawler, a target also linked without rel=nofollow.
    for p in ["/from-noindex.html", "/from-other-bot.html", "/twice.html"] {
        assert!(fetched(p), "{p} not fetched: {hits:?}");
    }
    // Not followed: links of nofollow pages (meta, header), and links
    // whose rel is nofollow, sponsored or ugc.
    for p in [
        "/from-nofollow.html",
        "/from-header.html",
        "/rel-nofollow.html",
        "/rel-sponsored.html",
        "/rel-ugc.html",
    ] {
        assert!(!fetched(p), "{p} fetched: {hits:?}");
    }

    // noindex pages have no verdict (not checked, not indexed); their
    // pages.jsonl line says why.
    let judged: Vec<String> = verdicts.iter().map(path_of).collect();
    for p in ["/noindex.html", "/header.html", "/token.html"] {
        assert!(!judged.contains(&p.to_owned()), "{p} judged: {judged:?}");
    }
    for p in [
        "/",
        "/nofollow.html",
        "/other-bot.html",
        "/from-noindex.html",
    ] {
        assert!(judged.contains(&p.to_owned()), "{p} not judged: {judged:?}");
    }
    let line = |p: &str| {
        pages
            .iter()
            .find(|l| path_of(l) == p)
            .unwrap_or_else(|| panic!("no pages.jsonl line for {p}"))
    };
    assert_eq!(line("/noindex.html")["robots"], "noindex (meta robots)");
    assert_eq!(line("/nofollow.html")["robots"], "nofollow (meta robots)");
    assert_eq!(
        line("/header.html")["robots"],
        "noindex (X-Robots-Tag), nofollow (X-Robots-Tag)"
    );
    assert_eq!(line("/token.html")["robots"], "noindex (meta neardup)");
    assert!(line("/other-bot.html").get("robots").is_none());
    assert!(line("/").get("robots").is_none());

    assert_eq!(summary.noindex, 3);
    assert_eq!(summary.nofollow_pages, 2);
    assert_eq!(summary.skipped.get("rel_nofollow"), Some(&3));
    assert_eq!(summary.skipped.get("meta_nofollow"), Some(&2));
    assert_eq!(summary.pages, verdicts.len() as u64);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn directives_are_ignored_when_not_obeyed() {
    let site = directives_site();
    let addr = site.clone().start().await;
    let mut config = test_config();
    config.crawl.directives.obey = false;
    let fetcher = Fetcher::new(&config.crawl).expect("fetcher");
    let (summary, _pages, verdicts) = crawl(&config, &[format!("http://{addr}/")], fetcher).await;
    let hits = site.hits();
    for p in [
        "/from-nofollow.html",
        "/from-header.html",
        "/rel-nofollow.html",
        "/rel-sponsored.html",
        "/rel-ugc.html",
    ] {
        assert!(hits.iter().any(|h| h == p), "{p} not fetched: {hits:?}");
    }
    let judged: Vec<String> = verdicts.iter().map(path_of).collect();
    assert!(judged.contains(&"/noindex.html".to_owned()), "{judged:?}");
    assert_eq!(summary.noindex, 0);

    // Only some rels obeyed: ugc links are followed, nofollow ones not.
    let mut config = test_config();
    {
        let c = &mut config.crawl;
        c.directives.nofollow_rels = vec!["nofollow".into()]
    }
    let site = directives_site();
    let addr = site.clone().start().await;
    let fetcher = Fetcher::new(&config.crawl).expect("fetcher");
    crawl(&config, &[format!("http://{addr}/")], fetcher).await;
    let hits = site.hits();
    assert!(hits.iter().any(|h| h == "/rel-ugc.html"), "{hits:?}");
    assert!(!hits.iter().any(|h| h == "/rel-nofollow.html"), "{hits:?}");
}

/// A site where most links are broken: one page, five 404s, one 500.
fn broken_site(delay: Duration) -> Site {
    let mut links = String::new();
    for i in 0..5 {
        links.push_str(&format!("<a href=/missing-{i}.html>x</a> "));
    }
    links.push_str("<a href=/error.html>e</a>");
    Site::new(vec![
        (
            "/robots.txt",
            Answer::typed("text/plain", "User-agent: *\nAllow: /\n"),
        ),
        ("/", Answer::html(&format!("{}{links}", words(1)))),
        (
            "/error.html",
            Answer {
                status: 500,
                ..Answer::html("broken")
            },
        ),
    ])
    .delayed(delay)
}

fn write_crawl_config(dir: &Dir, name: &str, host_delay_ms: u64) {
    dir.write(
        name,
        format!(
            "[crawl]\nallow_private = true\n\n[crawl.fetch]\nhost_delay_ms = {host_delay_ms}\nretries = 0\n"
        ),
    );
}

#[test]
fn summary_breaks_down_statuses_and_progress_lines_go_to_a_pipe() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    // Slow pages, so that the crawl lasts several progress intervals.
    let site = broken_site(Duration::from_millis(150));
    let addr = rt.block_on(site.clone().start());
    let dir = Dir::new();
    write_crawl_config(&dir, "c.toml", 0);
    let seed = format!("http://{addr}/");
    let run = dir
        .run(&[
            "--config",
            "c.toml",
            "crawl",
            "--seed",
            &seed,
            "--out",
            "out",
            "--no-report",
            "--progress-secs",
            "0.1",
        ])
        .expect_code(0);
    let err = run.stderr();
    assert!(
        err.contains("HTTP status: 2xx 1 (200 1), 4xx 5 (404 5), 5xx 1 (500 1)"),
        "{err}"
    );
    assert!(
        err.contains("errors: 6 HTTP 4xx/5xx answers, 0 fetch errors, 0 disallowed"),
        "{err}"
    );
    // stderr is a pipe here: progress comes as lines.
    let progress: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("neardup: progress: "))
        .collect();
    assert!(!progress.is_empty(), "{err}");
    assert!(progress.iter().all(|l| l.contains(" fetched (")), "{err}");

    let summary: Value =
        serde_json::from_str(&dir.read("out/crawl-summary.json")).expect("summary JSON");
    assert_eq!(summary["attempts"], 7);
    let statuses: BTreeMap<String, u64> =
        serde_json::from_value(summary["statuses"].clone()).expect("statuses");
    assert_eq!(
        statuses,
        BTreeMap::from([("200".into(), 1), ("404".into(), 5), ("500".into(), 1)])
    );
    assert_eq!(summary["fetch_errors"], 0);

    // --progress-secs 0: no lines.
    let run = dir
        .run(&[
            "--config",
            "c.toml",
            "crawl",
            "--seed",
            &seed,
            "--out",
            "out2",
            "--no-report",
            "--progress-secs",
            "0",
        ])
        .expect_code(0);
    assert!(
        !run.stderr().contains("neardup: progress:"),
        "{}",
        run.stderr()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fetch_errors_are_counted_by_kind() {
    let site = broken_site(Duration::ZERO);
    let addr = site.start().await;
    let config = test_config();
    let fetcher = Fetcher::new(&config.crawl).expect("fetcher");
    // A port nothing listens on, with robots.txt not obeyed so that the
    // page itself is requested.
    let mut config = config;
    config.crawl.robots.obey = false;
    {
        let c = &mut config.crawl;
        c.scope.sites = neardup_crawl::SiteScope::Any
    }
    let (summary, _, _) = crawl(
        &config,
        &[format!("http://{addr}/"), "http://127.0.0.1:9/".into()],
        fetcher,
    )
    .await;
    assert_eq!(summary.errors.get("connect"), Some(&1), "{summary:?}");
    assert_eq!(summary.fetch_errors, 1);
    assert_eq!(summary.statuses.get(&404), Some(&5));
    let text = neardup_crawl::format_summary(&summary).join("\n");
    assert!(text.contains("1 fetch errors (connect 1)"), "{text}");
}

#[test]
fn resume_reads_the_saved_config() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let addr = rt.block_on(broken_site(Duration::ZERO).start());
    let dir = Dir::new();
    // Not the default config: a resume with the default one is refused.
    write_crawl_config(&dir, "c.toml", 7);
    write_crawl_config(&dir, "other.toml", 8);
    let seed = format!("http://{addr}/");
    dir.run(&[
        "--config",
        "c.toml",
        "crawl",
        "--seed",
        &seed,
        "--out",
        "out",
        "--no-report",
    ])
    .expect_code(0);
    // No --config: the crawl's own DIR/config.toml is used.
    let run = dir
        .run(&["crawl", "--resume", "out", "--no-report"])
        .expect_code(0);
    assert!(run.stderr().contains("had finished"), "{}", run.stderr());
    // The same --config again is fine.
    dir.run(&[
        "--config",
        "c.toml",
        "crawl",
        "--resume",
        "out",
        "--no-report",
    ])
    .expect_code(0);
    // Another one is refused, and the message says where the saved one is.
    let run = dir.run(&[
        "--config",
        "other.toml",
        "crawl",
        "--resume",
        "out",
        "--no-report",
    ]);
    assert_ne!(run.code(), 0);
    assert!(run.stderr().contains("another config"), "{}", run.stderr());
    assert!(run.stderr().contains("config.toml"), "{}", run.stderr());
}

/// A tiny HTTP proxy on 127.0.0.1 that records each request line and
/// answers itself (it reaches nothing): the site behind it is a home
/// page linking to `/b.html`; robots.txt is missing.
async fn start_proxy() -> (std::net::SocketAddr, Arc<Mutex<Vec<String>>>) {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let log = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&log);
    tokio::spawn(async move {
        loop {
            let Ok((mut conn, _)) = listener.accept().await else {
                return;
            };
            let seen = Arc::clone(&seen);
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match conn.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let text = String::from_utf8_lossy(&head).into_owned();
                let line = text.lines().next().unwrap_or_default().to_owned();
                seen.lock().expect("lock").push(line.clone());
                let target = line.split(' ').nth(1).unwrap_or_default();
                let path = Url::parse(target)
                    .map(|u| u.path().to_owned())
                    .unwrap_or_default();
                let (status, body) = match path.as_str() {
                    "/" => (
                        "200 OK",
                        format!(
                            "<html><body>{}<a href=/b.html>b</a></body></html>",
                            words(20)
                        ),
                    ),
                    "/b.html" => ("200 OK", format!("<html><body>{}</body></html>", words(21))),
                    _ => ("404 Not Found", "no".to_owned()),
                };
                let answer = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = conn.write_all(answer.as_bytes()).await;
                let _ = conn.shutdown().await;
            });
        }
    });
    (addr, log)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crawl_goes_through_the_proxy() {
    let (proxy, log) = start_proxy().await;
    let mut config = test_config();
    config.crawl.fetch.proxy = format!("http://{proxy}");
    let fetcher = Fetcher::new(&config.crawl).expect("fetcher");
    // The host does not resolve: only the proxy can answer for it.
    let (summary, pages, _) = crawl(&config, &["http://site.invalid/".into()], fetcher).await;
    let log = log.lock().expect("lock").clone();
    assert_eq!(
        log,
        [
            "GET http://site.invalid/robots.txt HTTP/1.1",
            "GET http://site.invalid/ HTTP/1.1",
            "GET http://site.invalid/b.html HTTP/1.1"
        ]
    );
    assert_eq!(summary.pages, 2, "{pages:#?}");
    assert_eq!(summary.statuses.get(&200), Some(&2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_private_address_guard_holds_behind_a_proxy() {
    use neardup_crawl::fetch::FetchError;
    let (proxy, log) = start_proxy().await;
    let mut crawl_config = neardup_crawl::CrawlConfig::default();
    crawl_config.fetch.proxy = format!("http://{proxy}");
    crawl_config.fetch.retries = 0;
    // Default guard: the proxy itself is on loopback (allowed), the
    // targets are not: a literal IP, and a name resolving to loopback.
    let fetcher = Fetcher::new(&crawl_config).expect("fetcher");
    for target in ["http://127.0.0.1:8080/", "http://localhost:8080/"] {
        let err = fetcher
            .fetch(&Url::parse(target).expect("url"))
            .await
            .expect_err("refused");
        assert!(
            matches!(err, FetchError::PrivateAddress { .. }),
            "{target}: {err:?}"
        );
    }
    assert!(log.lock().expect("lock").is_empty(), "{log:?}");

    // A guard that blocks only 10/8: the same name passes (the check
    // resolves it, then the proxy carries the request).
    fn ten_only(ip: std::net::IpAddr) -> bool {
        matches!(ip, std::net::IpAddr::V4(v4) if v4.octets()[0] == 10)
    }
    let fetcher = Fetcher::with_address_filter(&crawl_config, ten_only).expect("fetcher");
    let outcome = fetcher
        .fetch(&Url::parse("http://localhost:8080/").expect("url"))
        .await
        .expect("through the proxy");
    assert_eq!(outcome.status, 200);
    assert_eq!(
        log.lock().expect("lock").clone(),
        ["GET http://localhost:8080/ HTTP/1.1"]
    );
}

#[test]
fn proxy_flag_of_the_cli() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let (proxy, log) = rt.block_on(start_proxy());
    let dir = Dir::new();
    write_crawl_config(&dir, "c.toml", 0);
    let proxy_url = format!("http://{proxy}");
    dir.run(&[
        "--config",
        "c.toml",
        "crawl",
        "--seed",
        "http://site.invalid/",
        "--out",
        "out",
        "--no-report",
        "--proxy",
        &proxy_url,
    ])
    .expect_code(0);
    let pages = json_lines(&dir.read("out/pages.jsonl"));
    assert_eq!(pages.len(), 2, "{pages:#?}");
    assert!(pages.iter().all(|p| p["status"] == 200), "{pages:#?}");
    assert_eq!(log.lock().expect("lock").len(), 3);

    let run = dir.run(&[
        "crawl",
        "--seed",
        "http://site.invalid/",
        "--out",
        "out2",
        "--proxy",
        "socks5://127.0.0.1:1080",
    ]);
    assert_eq!(run.code(), 2);
    assert!(
        run.stderr().contains("crawl.fetch.proxy"),
        "{}",
        run.stderr()
    );
}

fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(data).expect("gzip");
    gz.finish().expect("gzip")
}

fn urlset(base: &str, paths: &[&str]) -> String {
    let urls: String = paths
        .iter()
        .map(|p| format!("<url><loc>{base}{p}</loc><changefreq>daily</changefreq></url>"))
        .collect();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">{urls}</urlset>"
    )
}

fn index(base: &str, paths: &[&str]) -> String {
    let maps: String = paths
        .iter()
        .map(|p| format!("<sitemap><loc>{base}{p}</loc></sitemap>"))
        .collect();
    format!(
        "<?xml version=\"1.0\"?><sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">{maps}</sitemapindex>"
    )
}

/// A site whose robots.txt lists a sitemap index; the index lists a
/// gzip-compressed sitemap (served as application/gzip) and a plain one.
/// The home page links to nothing: every other page is reached only
/// through the sitemaps. One listed URL is excluded by the scope, one is
/// on another host, one is disallowed by robots.txt.
fn sitemap_site(base: &str) -> Site {
    let pages = urlset(
        base,
        &[
            "/only-in-sitemap.html",
            "/excluded/page.html",
            "/secret/page.html",
        ],
    );
    let more = urlset(base, &["/from-plain-sitemap.html"]).replace(
        "</urlset>",
        "<url><loc>http://other.invalid/elsewhere.html</loc></url></urlset>",
    );
    Site::new(vec![
        (
            "/robots.txt",
            Answer::typed(
                "text/plain",
                format!("User-agent: *\nDisallow: /secret/\n\nSitemap: {base}/sitemap_index.xml\n"),
            ),
        ),
        ("/", Answer::html(&words(30))),
        (
            "/sitemap_index.xml",
            Answer::typed(
                "application/xml",
                index(base, &["/sitemap-pages.xml.gz", "/sitemap-more.xml"]),
            ),
        ),
        (
            "/sitemap-pages.xml.gz",
            Answer::typed("application/gzip", gzip(pages.as_bytes())),
        ),
        ("/sitemap-more.xml", Answer::typed("text/xml", more)),
        ("/only-in-sitemap.html", Answer::html(&words(31))),
        ("/from-plain-sitemap.html", Answer::html(&words(32))),
        ("/excluded/page.html", Answer::html(&words(33))),
        ("/secret/page.html", Answer::html(&words(34))),
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_listed_only_in_sitemaps_are_crawled() {
    // The answers name the site's own address: bind first, then serve.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    drop(listener);
    let base = format!("http://{addr}");
    let site = sitemap_site(&base);
    let served = site.clone().start_on(addr).await;
    assert_eq!(served, addr);
    let mut config = test_config();
    config.crawl.scope.exclude = vec!["/excluded/".into()];
    let fetcher = Fetcher::new(&config.crawl).expect("fetcher");
    let (summary, pages, verdicts) = crawl(&config, &[format!("{base}/")], fetcher).await;
    let hits = site.hits();
    for p in ["/only-in-sitemap.html", "/from-plain-sitemap.html"] {
        assert!(hits.iter().any(|h| h == p), "{p} not fetched: {hits:?}");
        assert!(
            verdicts.iter().any(|v| path_of(v) == p),
            "{p} not judged: {verdicts:#?}"
        );
    }
    // Scope rules and robots.txt apply to sitemap URLs as to links.
    assert!(!hits.iter().any(|h| h == "/excluded/page.html"), "{hits:?}");
    assert!(!hits.iter().any(|h| h == "/secret/page.html"), "{hits:?}");
    assert!(
        !pages
            .iter()
            .any(|p| p["url"] == "http://other.invalid/elsewhere.html"),
        "{pages:#?}"
    );
    assert_eq!(summary.skipped.get("excluded"), Some(&1), "{summary:?}");
    assert_eq!(summary.skipped.get("off_site"), Some(&1), "{summary:?}");
    // The sitemaps themselves are not pages.
    assert!(
        !pages
            .iter()
            .any(|p| path_of(p).ends_with(".xml") || path_of(p).ends_with(".gz")),
        "{pages:#?}"
    );
    assert_eq!(summary.sitemap_files, 3);
    assert_eq!(summary.sitemap_urls, 5);
    assert_eq!(summary.sitemap_errors, 0);
    // Sitemap pages sit at depth 1, like the home page's links.
    let only = pages
        .iter()
        .find(|p| path_of(p) == "/only-in-sitemap.html")
        .expect("line");
    assert_eq!(only["depth"], 1);

    // Not read when turned off.
    let mut config = test_config();
    config.crawl.sitemaps.from_robots = false;
    let site = sitemap_site("http://127.0.0.1:1");
    let addr = site.clone().start().await;
    let fetcher = Fetcher::new(&config.crawl).expect("fetcher");
    let (summary, _, _) = crawl(&config, &[format!("http://{addr}/")], fetcher).await;
    assert_eq!(summary.sitemap_files, 0);
    assert!(
        !site.hits().iter().any(|h| h.contains("sitemap")),
        "{:?}",
        site.hits()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seed_sitemap_with_limits() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    drop(listener);
    let base = format!("http://{addr}");
    // An index nested three deep, and a sitemap over the URL limit.
    let site = Site::new(vec![
        (
            "/robots.txt",
            Answer::typed("text/plain", "User-agent: *\nAllow: /\n"),
        ),
        (
            "/sitemap.xml",
            Answer::typed(
                "application/xml",
                index(&base, &["/a-sitemap.xml", "/nested-sitemap.xml"]),
            ),
        ),
        (
            "/a-sitemap.xml",
            Answer::typed(
                "application/xml",
                urlset(&base, &["/p1.html", "/p2.html", "/p3.html"]),
            ),
        ),
        (
            "/nested-sitemap.xml",
            Answer::typed("application/xml", index(&base, &["/deeper-sitemap.xml"])),
        ),
        (
            "/deeper-sitemap.xml",
            Answer::typed("application/xml", urlset(&base, &["/too-deep.html"])),
        ),
        ("/p1.html", Answer::html(&words(40))),
        ("/p2.html", Answer::html(&words(41))),
        ("/p3.html", Answer::html(&words(42))),
        ("/too-deep.html", Answer::html(&words(43))),
    ]);
    site.clone().start_on(addr).await;
    let mut config = test_config();
    {
        let c = &mut config.crawl;
        c.sitemaps.max_urls = 2;
        c.sitemaps.max_depth = 1;
    }
    // Seed sitemap URLs are seeds: depth 0 is enough.
    config.crawl.scope.max_depth = 0;
    let fetcher = Fetcher::new(&config.crawl).expect("fetcher");
    let (summary, pages, _) = crawl(&config, &[format!("{base}/sitemap.xml")], fetcher).await;
    let fetched: Vec<String> = pages.iter().map(path_of).collect();
    assert_eq!(fetched, ["/p1.html", "/p2.html"], "{pages:#?}");
    let hits = site.hits();
    assert!(!hits.iter().any(|h| h == "/deeper-sitemap.xml"), "{hits:?}");
    // sitemap.xml, a-sitemap.xml, nested-sitemap.xml.
    assert_eq!(summary.sitemap_files, 3);
    // p3 over the URL limit, deeper-sitemap.xml too deep.
    assert_eq!(summary.sitemap_errors, 2);
}
