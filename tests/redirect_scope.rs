//! Redirect hops in a crawl are checked like links: a redirect to a path
//! robots.txt disallows, or to a host outside the crawl's scope, is not
//! requested, and its `pages.jsonl` line says why. Real axum server on
//! 127.0.0.1; the library crawl loop.

use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Router;
use neardup::Config;
use neardup::Deduper;
use neardup::SharedDeduper;
use neardup_batch::OutputDir;
use neardup_crawl::fetch::Fetcher;
use neardup_crawl::Crawler;
use serde_json::Value;
use url::Url;

use crate::util::Dir;

type Hits = Arc<Mutex<Vec<String>>>;

/// robots.txt disallows /private/; the home page links to a redirect into
/// /private/, a redirect to the same server under the name `localhost`
/// (another host: off scope), and an allowed redirect.
async fn site(hits: Hits) -> std::net::SocketAddr {
    async fn handle(State(hits): State<Hits>, headers: HeaderMap, uri: Uri) -> Response {
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let path = uri.path().to_owned();
        hits.lock().expect("lock").push(format!("{host}{path}"));
        let port = host.rsplit(':').next().unwrap_or("").to_owned();
        let html = |body: &str| {
            (
                [(header::CONTENT_TYPE, "text/html")],
                format!("<html><body>{body}</body></html>"),
            )
                .into_response()
        };
        let redirect = |to: String| (StatusCode::FOUND, [(header::LOCATION, to)]).into_response();
        match path.as_str() {
            "/robots.txt" => "User-agent: *\nDisallow: /private/\n".into_response(),
            "/" => html(
                "<p>Home page of the redirect test site, with three redirects.</p>\
                 <a href=\"/to-private.html\">a</a> <a href=\"/to-other-host.html\">b</a>\
                 <a href=\"/to-open.html\">c</a>",
            ),
            "/to-private.html" => redirect("/private/secret.html".into()),
            "/to-other-host.html" => redirect(format!("http://localhost:{port}/elsewhere.html")),
            "/to-open.html" => redirect("/open.html".into()),
            "/open.html" => html("<p>An open page reached through an allowed redirect.</p>"),
            "/private/secret.html" => html("<p>Private.</p>"),
            "/elsewhere.html" => html("<p>Another host.</p>"),
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
async fn redirects_out_of_robots_or_scope_are_refused() {
    let hits: Hits = Arc::new(Mutex::new(Vec::new()));
    let addr = site(Arc::clone(&hits)).await;
    let dir = Dir::new();
    let mut config = Config::default();
    neardup_crawl::CrawlConfig::edit(&mut config, |c| c.allow_private = true).unwrap();
    neardup_crawl::CrawlConfig::edit(&mut config, |c| c.fetch.host_delay_ms = 0).unwrap();
    neardup_crawl::CrawlConfig::edit(&mut config, |c| c.fetch.retries = 0).unwrap();
    let deduper = SharedDeduper::new(Deduper::new(config.clone()).expect("deduper"));
    let fetcher = Arc::new(
        Fetcher::new(&neardup_crawl::CrawlConfig::from_config(&config).unwrap()).expect("fetcher"),
    );
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
    let hits = hits.lock().expect("lock").clone();
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
