//! Redirect hops in a crawl are checked like links: a redirect to a path
//! robots.txt disallows, or to a host outside the crawl's scope, is not
//! requested, and its `pages.jsonl` line says why. Real axum server on
//! 127.0.0.1; the library crawl loop.

use std::sync::Arc;

use neardup::Deduper;
use neardup::SharedDeduper;
use neardup_crawl::fetch::Fetcher;
use neardup_crawl::Crawler;
use neardup_output::OutputDir;
use serde_json::Value;
use url::Url;

use crate::site::{Answer, Site};
use crate::util::Dir;

/// robots.txt disallows /private/; the home page links to a redirect into
/// /private/, a redirect to the same server under the name `localhost`
/// (another host: off scope), and an allowed redirect.
fn site() -> Site {
    Site::new(vec![
        (
            "/robots.txt",
            Answer::text("User-agent: *\nDisallow: /private/\n"),
        ),
        (
            "/",
            Answer::html(
                "<p>Home page of the redirect test site, with three redirects.</p>\
                 <a href=\"/to-private.html\">a</a> <a href=\"/to-other-host.html\">b</a>\
                 <a href=\"/to-open.html\">c</a>",
            ),
        ),
        (
            "/to-private.html",
            Answer::redirect(302, "/private/secret.html"),
        ),
        ("/to-open.html", Answer::redirect(302, "/open.html")),
        (
            "/open.html",
            Answer::html("<p>An open page reached through an allowed redirect.</p>"),
        ),
        ("/private/secret.html", Answer::html("<p>Private.</p>")),
        ("/elsewhere.html", Answer::html("<p>Another host.</p>")),
    ])
    .route("/to-other-host.html", |r| {
        Answer::redirect(
            302,
            &format!("http://localhost:{}/elsewhere.html", r.port()),
        )
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redirects_out_of_robots_or_scope_are_refused() {
    let site = site();
    let addr = site.clone().start().await;
    let dir = Dir::new();
    let mut config = neardup_crawl::CrawlSettings::default();
    {
        let c = &mut config.crawl;
        c.allow_private = true;
        c.fetch.host_delay_ms = 0;
        c.fetch.retries = 0;
    }
    let deduper = SharedDeduper::new(Deduper::new(config.core.clone()).expect("deduper"));
    let fetcher = Arc::new(Fetcher::new(&config.crawl).expect("fetcher"));
    let mut sink = OutputDir::create(&dir.join("out")).expect("out dir");
    let mut pages = Vec::new();
    let seeds = vec![Url::parse(&format!("http://{addr}/")).expect("seed")];
    Crawler::new(&config, deduper, fetcher)
        .seeds(seeds)
        .run(&mut pages, &mut sink, std::future::pending())
        .await
        .expect("crawl");
    let pages: Vec<Value> = std::str::from_utf8(&pages)
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    // Host and path of every request the server saw.
    let hits: Vec<String> = site
        .requests()
        .iter()
        .map(|r| format!("{}{}", r.host, r.path))
        .collect();
    let line = |path: &str| {
        let url = format!("http://{addr}{path}");
        pages
            .iter()
            .find(|p| p["url"] == url.as_str())
            .unwrap_or_else(|| panic!("no line for {url}: {pages:#?}"))
    };

    // Neither refused target was requested.
    assert!(
        !hits.iter().any(|h| h.ends_with("/private/secret.html")),
        "{hits:?}"
    );
    assert!(
        !hits.iter().any(|h| h.ends_with("/elsewhere.html")),
        "{hits:?}"
    );
    assert!(!hits.iter().any(|h| h.starts_with("localhost")), "{hits:?}");

    let private = line("/to-private.html");
    assert!(private["status"].is_null(), "{private}");
    let error = private["error"].as_str().expect("error");
    assert!(error.starts_with("redirect_refused"), "{error}");
    assert!(error.contains("/private/secret.html"), "{error}");
    assert!(error.contains("robots_disallowed"), "{error}");

    let other = line("/to-other-host.html");
    assert!(other["status"].is_null(), "{other}");
    let error = other["error"].as_str().expect("error");
    assert!(error.starts_with("redirect_refused"), "{error}");
    assert!(error.contains("localhost"), "{error}");
    assert!(error.contains("off_site"), "{error}");

    // An allowed, in-scope redirect is still followed.
    let open = line("/to-open.html");
    assert_eq!(open["status"], 200, "{open}");
    assert_eq!(open["final_url"], format!("http://{addr}/open.html"));
    assert!(hits.iter().any(|h| h.ends_with("/open.html")), "{hits:?}");
}
