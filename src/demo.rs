//! The built-in demo: two small sites (from `testdata/sites/`, embedded in
//! the binary so an installed `neardup` runs it offline) served on
//! 127.0.0.1, on two ports, so they are two sites to the crawler's scope
//! and reports (one host to its politeness, which is per host name: the
//! crawl order is the deterministic breadth-first one).
//!
//! Site `a` (a local paper) holds an article with printer-friendly and AMP
//! views, tracking and session-id links to it, a paginated post list, a
//! "view all" page, tag and archive pages listing the same posts, two
//! similar product pages that are different products, a robots.txt
//! disallowing `/private/`, a dead link and an infinite calendar
//! (`/calendar?month=N` links to `N+1` forever). Site `b` mirrors the
//! article.

use std::collections::HashMap;
use std::net::SocketAddr;

use axum::extract::{Query, State};
use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Router;

use neardup_crawl::CrawlConfig;

/// `(path, body)` of site `a`.
const SITE_A: &[(&str, &str)] = &[
    ("/", include_str!("../testdata/sites/a/index.html")),
    (
        "/robots.txt",
        include_str!("../testdata/sites/a/robots.txt"),
    ),
    (
        "/articles/solar.html",
        include_str!("../testdata/sites/a/articles/solar.html"),
    ),
    (
        "/articles/solar-print.html",
        include_str!("../testdata/sites/a/articles/solar-print.html"),
    ),
    (
        "/amp/solar.html",
        include_str!("../testdata/sites/a/amp/solar.html"),
    ),
    (
        "/articles/bridge.html",
        include_str!("../testdata/sites/a/articles/bridge.html"),
    ),
    (
        "/posts/all.html",
        include_str!("../testdata/sites/a/posts/all.html"),
    ),
    (
        "/tags/energy.html",
        include_str!("../testdata/sites/a/tags/energy.html"),
    ),
    (
        "/archive/2026.html",
        include_str!("../testdata/sites/a/archive/2026.html"),
    ),
    (
        "/products/lamp-a100.html",
        include_str!("../testdata/sites/a/products/lamp-a100.html"),
    ),
    (
        "/products/lamp-a200.html",
        include_str!("../testdata/sites/a/products/lamp-a200.html"),
    ),
];

/// Site `a`'s paginated list: `/posts?page=N`.
const POSTS: &[&str] = &[
    include_str!("../testdata/sites/a/posts/page1.html"),
    include_str!("../testdata/sites/a/posts/page2.html"),
];

/// `(path, body)` of site `b`.
const SITE_B: &[(&str, &str)] = &[
    ("/", include_str!("../testdata/sites/b/index.html")),
    (
        "/news/schools-solar.html",
        include_str!("../testdata/sites/b/news/schools-solar.html"),
    ),
];

/// Which demo site a server serves.
#[derive(Clone, Copy, Debug)]
enum Site {
    A,
    B,
}

/// The two running demo sites.
#[derive(Debug)]
pub struct DemoSites {
    /// Site `a`'s address.
    pub a: SocketAddr,
    /// Site `b`'s address.
    pub b: SocketAddr,
}

impl DemoSites {
    /// Starts both sites on 127.0.0.1 (ephemeral ports) on the current
    /// tokio runtime; they run until the runtime stops.
    ///
    /// # Errors
    /// If a port cannot be bound.
    pub async fn start() -> std::io::Result<DemoSites> {
        let a = spawn(Site::A).await?;
        let b = spawn(Site::B).await?;
        Ok(DemoSites { a, b })
    }

    /// The seed URLs: the home pages of `a` then `b`.
    pub fn seeds(&self) -> Vec<url::Url> {
        [self.a, self.b]
            .iter()
            .filter_map(|addr| url::Url::parse(&format!("http://{addr}/")).ok())
            .collect()
    }
}

/// The demo's crawl settings: private addresses allowed (the sites are on
/// loopback), no politeness delay, and limits that stop the calendar
/// trap: depth 5, 60 pages per site.
pub fn demo_config(crawl: &mut CrawlConfig) {
    crawl.allow_private = true;
    crawl.fetch.host_delay_ms = 0;
    crawl.fetch.host_concurrency = 4;
    crawl.fetch.concurrency = 8;
    crawl.fetch.retries = 0;
    crawl.scope.max_depth = 5;
    crawl.scope.max_pages_per_site = 60;
}

async fn spawn(site: Site) -> std::io::Result<SocketAddr> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let app = Router::new().fallback(handle).with_state(site);
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            tracing::warn!("demo site stopped: {e}");
        }
    });
    Ok(addr)
}

fn html(body: String) -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response()
}

async fn handle(
    State(site): State<Site>,
    uri: Uri,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let path = uri.path();
    let files = match site {
        Site::A => SITE_A,
        Site::B => SITE_B,
    };
    if let Site::A = site {
        let number = |name: &str| query.get(name).and_then(|v| v.parse::<u64>().ok());
        if path == "/calendar" {
            return html(calendar(number("month").unwrap_or(1)));
        }
        if path == "/posts" {
            let page = number("page").unwrap_or(1);
            return match usize::try_from(page)
                .ok()
                .and_then(|p| p.checked_sub(1))
                .and_then(|i| POSTS.get(i))
            {
                Some(body) => html((*body).to_owned()),
                None => not_found(),
            };
        }
    }
    match files.iter().find(|(p, _)| *p == path) {
        Some((p, body)) if p.ends_with(".txt") => {
            ([(header::CONTENT_TYPE, "text/plain")], *body).into_response()
        }
        Some((_, body)) => html((*body).to_owned()),
        None => not_found(),
    }
}

fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        "<html><body><h1>Not found</h1></body></html>",
    )
        .into_response()
}

/// An empty month that links to the next one: a crawler trap with no end.
fn calendar(month: u64) -> String {
    let next = month.saturating_add(1);
    format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Events, month {month}</title></head>\
         <body><h1>Events calendar: month {month}</h1><p>No events are planned for month {month}.</p>\
         <p><a href=\"/calendar?month={next}\">Next month</a></p></body></html>"
    )
}
