//! Redirect stubs (`testdata/redirect/`: a meta refresh, a one-link
//! "moved" page) are redirects: the library's verdict names the target
//! (the stub is judged on its own text like any page); the crawl follows the target as
//! a redirect hop (same depth, seen set, a bounded chain) and writes no
//! verdict for the stub. Real axum server on 127.0.0.1 for the crawl.

use neardup::Config;
use neardup::Deduper;
use neardup::VerdictKind;
use neardup::{Redirect, RedirectKind};
use neardup_output::VerdictLine;
use neardup_serve::dto::VerdictBody;
use serde_json::Value;

use crate::crawl_manners::{crawl, test_config};
use crate::site::{Answer, Site};

fn fixture(name: &str) -> Vec<u8> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/redirect")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn a_stub_verdict_names_its_target() {
    let mut d = Deduper::new(Config::default()).expect("deduper");
    let stub = fixture("meta-refresh.html");
    let first = d
        .check("https://e.com/guide/old/widgets.html", &stub, None)
        .expect("check");
    assert_eq!(first.kind, VerdictKind::Unique);
    assert_eq!(first.matched, None);
    let to = "https://e.com/guide/reference/widgets.html";
    assert_eq!(
        first.redirect,
        Some(Redirect {
            to: to.into(),
            kind: RedirectKind::MetaRefresh
        })
    );
    assert!(
        first
            .warnings
            .iter()
            .any(|w| w.starts_with(&format!("redirect_stub: meta refresh to {to}"))),
        "{:?}",
        first.warnings
    );
    // The same stub text at another URL is a copy of the first (judged on
    // its text like any page), and still names its own target.
    let again = d
        .check("https://e.com/guide/old2/widgets.html", &stub, None)
        .expect("check");
    assert_eq!(again.kind, VerdictKind::Duplicate);
    assert_eq!(
        again.matched.as_ref().map(|m| m.url.as_str()),
        Some("https://e.com/guide/old/widgets.html")
    );
    assert_eq!(again.redirect.as_ref().map(|r| r.to.as_str()), Some(to));
    let link = d
        .check(
            "https://e.com/install.html",
            &fixture("link-stub.html"),
            None,
        )
        .expect("check");
    assert_eq!(
        link.redirect.as_ref().map(|r| (r.to.as_str(), r.kind)),
        Some(("https://e.com/manual/install.html", RedirectKind::LinkStub))
    );
    assert_eq!(d.stats().verdicts.unique, 2);
    assert_eq!(d.stats().verdicts.duplicates, 1);

    // The short real page is a page: judged and indexed.
    let page = d
        .check(
            "https://e.com/contact/sent.html",
            &fixture("short-page.html"),
            None,
        )
        .expect("check");
    assert_eq!(page.redirect, None);
    assert!(page.indexed_as.is_some());

    // The file line and the API body carry the target.
    let line = VerdictLine::of_page(
        "old",
        "https://e.com/guide/old/widgets.html",
        "e.com",
        1,
        &first,
    );
    assert_eq!(line.verdict, "unique");
    assert_eq!(line.redirect_to.as_deref(), Some(to));
    assert_eq!(line.redirect_kind.as_deref(), Some("meta_refresh"));
    assert_eq!(line.indexed, Some(true));
    let json: Value =
        serde_json::from_str(&serde_json::to_string(&line).expect("json")).expect("parse");
    assert_eq!(json["redirect_to"], to);
    let page_line = VerdictLine::of_page("p", "https://e.com/p", "e.com", 1, &page);
    let json = serde_json::to_value(&page_line).expect("json");
    assert!(json.get("redirect_to").is_none(), "{json}");
    let body = serde_json::to_value(VerdictBody::from(first)).expect("json");
    assert_eq!(body["redirect"]["to"], to);
    assert_eq!(body["redirect"]["kind"], "meta_refresh");
}

#[test]
fn with_redirect_stubs_off_a_stub_is_judged_as_a_page() {
    let mut config = Config::default();
    config.extract.redirect_stubs = false;
    let mut d = Deduper::new(config).expect("deduper");
    let stub = fixture("meta-refresh.html");
    let first = d
        .check("https://e.com/a/w.html", &stub, None)
        .expect("check");
    assert_eq!(first.redirect, None);
    let again = d
        .check("https://e.com/b/w.html", &stub, None)
        .expect("check");
    assert_eq!(again.kind, VerdictKind::Duplicate);
}

fn words(n: usize) -> String {
    format!(
        "<p>Page number {n} has its own words: {}.</p>",
        (0..30)
            .map(|i| format!("s{}y{}", n * 37 + i, i * 5))
            .collect::<Vec<_>>()
            .join(" ")
    )
}

fn refresh(to: &str) -> Answer {
    Answer::html_head(
        &format!("<meta http-equiv=refresh content='0; url={to}'><title>Redirection</title>"),
        &format!("<p>Redirecting to <a href='{to}'>{to}</a>...</p>"),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_crawl_follows_stubs_as_redirect_hops() {
    let site = Site::new(vec![
        ("/robots.txt", Answer::typed("text/plain", "User-agent: *\nAllow: /\n")),
        (
            "/",
            Answer::html(&format!(
                "{}<a href=/old.html>a</a> <a href=/gone.html>b</a> <a href=/loop-a.html>c</a> \
                 <a href=/c1.html>d</a>",
                words(0)
            )),
        ),
        // A meta refresh to a page nothing else links to, one level deeper
        // in the site but at the stub's depth in the crawl.
        ("/old.html", refresh("/moved/new.html")),
        ("/moved/new.html", Answer::html(&words(1))),
        // A one-link stub.
        (
            "/gone.html",
            Answer::html_head(
                "<title>301 Moved Permanently</title>",
                "<h1>Moved Permanently</h1><p>The document has moved <a href=/only-here.html>here</a>.</p>",
            ),
        ),
        ("/only-here.html", Answer::html(&words(2))),
        // A loop of stubs ends at the seen set.
        ("/loop-a.html", refresh("/loop-b.html")),
        ("/loop-b.html", refresh("/loop-a.html")),
        // A chain longer than crawl.fetch.max_redirects (2).
        ("/c1.html", refresh("/c2.html")),
        ("/c2.html", refresh("/c3.html")),
        ("/c3.html", refresh("/c4.html")),
        ("/c4.html", Answer::html(&words(3))),
    ]);
    let addr = site.clone().start().await;
    let mut config = test_config();
    {
        let c = &mut config.crawl;
        c.scope.max_depth = 1;
        c.fetch.max_redirects = 2;
    }
    let fetcher = neardup_crawl::fetch::Fetcher::new(&config.crawl).expect("fetcher");
    let (summary, pages, verdicts) = crawl(&config, &[format!("http://{addr}/")], fetcher).await;
    let hits = site.hits();
    let count = |p: &str| hits.iter().filter(|h| *h == p).count();

    // Reached only through a stub, although one link deeper than
    // max_depth allows: a stub does not add depth.
    assert_eq!(count("/moved/new.html"), 1, "{hits:?}");
    assert_eq!(count("/only-here.html"), 1, "{hits:?}");
    // The loop: each stub fetched once.
    assert_eq!(count("/loop-a.html"), 1, "{hits:?}");
    assert_eq!(count("/loop-b.html"), 1, "{hits:?}");
    // The chain: c1 -> c2 -> c3 followed, c3's target is one stub too many.
    assert_eq!(count("/c3.html"), 1, "{hits:?}");
    assert_eq!(count("/c4.html"), 0, "{hits:?}");
    assert_eq!(summary.skipped.get("redirect_stub_limit"), Some(&1));

    // Verdicts only for pages; none for the six stubs.
    let mut judged: Vec<String> = verdicts.iter().map(crate::crawl_manners::path_of).collect();
    judged.sort();
    assert_eq!(judged, ["/", "/moved/new.html", "/only-here.html"]);
    assert!(
        verdicts.iter().all(|v| v["verdict"] == "unique"),
        "{verdicts:?}"
    );
    assert_eq!(summary.redirect_stubs, 7);
    assert_eq!(summary.pages, 3);

    // pages.jsonl records each stub's target.
    let line = |p: &str| {
        pages
            .iter()
            .find(|l| crate::crawl_manners::path_of(l) == p)
            .unwrap_or_else(|| panic!("no pages.jsonl line for {p}"))
    };
    assert_eq!(
        line("/old.html")["redirect_to"],
        format!("http://{addr}/moved/new.html")
    );
    assert_eq!(line("/old.html")["redirect_kind"], "meta_refresh");
    assert_eq!(
        line("/gone.html")["redirect_to"],
        format!("http://{addr}/only-here.html")
    );
    assert_eq!(line("/gone.html")["redirect_kind"], "link_stub");
    assert!(line("/moved/new.html").get("redirect_to").is_none());
}
