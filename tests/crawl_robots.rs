//! robots.txt and the request URL in a crawl, end to end against a real
//! site on 127.0.0.1 that records every request (path and query as sent):
//! a Disallow written with lowercase escapes, a Disallow with a query,
//! `User-agent` lines naming the product token with a version or a second
//! word, a rule before any `User-agent` line (ignored), and links requested
//! as linked (query order kept) while keyed canonically. Also the
//! private-address guard refusing a seed: `private_address`, not a robots
//! refusal. Group forms as Google parses them today (`Sitemap:`,
//! `Crawl-delay:` and unknown lines do not end a list of agents), escaped
//! unreserved characters, and a robots.txt cut by the size cap.

use std::sync::Arc;

use neardup::Deduper;
use neardup::SharedDeduper;
use neardup_crawl::fetch::{FetchError, Fetcher};
use neardup_crawl::frontier::robots::RobotsSource;
use neardup_crawl::frontier::RobotsCache;
use neardup_crawl::CrawlSettings;
use neardup_crawl::{CrawlSummary, Crawler, Options};
use neardup_output::OutputDir;
use serde_json::Value;
use url::Url;

use crate::site::{Answer, Site};
use crate::util::Dir;

/// A site whose home page links to disallowed and allowed pages; every
/// request's path and query are recorded as the server received them.
async fn site(robots: &'static str) -> (std::net::SocketAddr, Site) {
    let site = Site::new(vec![
        ("/robots.txt", Answer::text(robots)),
        (
            "/",
            Answer::html(
                "<p>The home page of a small site with a menu, lists and a café.</p>\
                 <a href=\"/caf%c3%a9.html\">cafe, lowercase escapes</a>\
                 <a href=\"/café-menu.html\">cafe menu, raw UTF-8</a>\
                 <a href=\"/list.html?b=1&amp;a=2\">a disallowed list</a>\
                 <a href=\"/list.html?z=9&amp;y=8\">an allowed list</a>\
                 <a href=\"/list.html?y=8&amp;z=9\">the same list, sorted</a>\
                 <a href=\"/everything-ok.html\">ok</a>",
            ),
        ),
        (
            "/everything-ok.html",
            Answer::html("<p>A page only a rule outside any group would have blocked.</p>"),
        ),
    ])
    .route("/list.html", |r| {
        Answer::html(&format!(
            "<p>A list page whose query is {}, with enough words to check.</p>",
            r.query.as_deref().unwrap_or("")
        ))
    });
    (site.clone().start().await, site)
}

/// Every request's path and query, as the server received them.
fn targets(site: &Site) -> Vec<String> {
    site.requests().iter().map(|r| r.target()).collect()
}

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l:?}: {e}")))
        .collect()
}

async fn crawl(
    config: &CrawlSettings,
    seed: &str,
    out: &std::path::Path,
) -> (CrawlSummary, Vec<Value>) {
    let deduper = SharedDeduper::new(Deduper::new(config.core.clone()).expect("deduper"));
    let fetcher = Arc::new(Fetcher::new(&config.crawl).expect("fetcher"));
    let mut sink = OutputDir::create(out).expect("out dir");
    let mut pages = Vec::new();
    let options = Options {
        workers: 1,
        max_in_flight: 1,
        ..Options::default()
    };
    let summary = Crawler::new(config, deduper, fetcher)
        .seeds(vec![Url::parse(seed).expect("seed")])
        .options(options.clone())
        .run(&mut pages, &mut sink, std::future::pending())
        .await
        .expect("crawl");
    let pages = json_lines(std::str::from_utf8(&pages).expect("utf-8"));
    (summary, pages)
}

fn local_config() -> CrawlSettings {
    let mut config = CrawlSettings::default();
    {
        let c = &mut config.crawl;
        c.allow_private = true;
        c.fetch.host_delay_ms = 0;
        c.fetch.retries = 0;
    }
    config
}

/// The rule before the first group would block `/everything-ok.html`; the
/// `*` group blocks everything, so each page fetched proves our group was
/// chosen. `{UA}` is replaced by a spelling of the `neardup` token.
const ROBOTS: &str = "Disallow: /everything\n\
                      \n\
                      User-agent: *\n\
                      Disallow: /\n\
                      \n\
                      User-agent: {UA}\n\
                      Disallow: /caf%c3%a9\n\
                      Disallow: /list.html?b=1&a=\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disallowed_pages_are_never_requested_and_links_keep_their_query() {
    for ua in ["Neardup/1.0", "NEARDUP crawler"] {
        let robots: &'static str = Box::leak(ROBOTS.replace("{UA}", ua).into_boxed_str());
        let (addr, hits) = site(robots).await;
        let dir = Dir::new();
        let (summary, pages) = crawl(
            &local_config(),
            &format!("http://{addr}/"),
            &dir.join("out"),
        )
        .await;
        let hits = targets(&hits);

        // Point 1: lowercase escapes in the rule, lowercase or raw UTF-8
        // in the link: never requested.
        assert!(
            !hits.iter().any(|h| h.starts_with("/caf")),
            "{ua}: {hits:?}"
        );
        // Point 2: the rule's query, in the link's order: never requested,
        // in either order.
        assert!(
            !hits
                .iter()
                .any(|h| h.starts_with("/list.html?b=1") || h.starts_with("/list.html?a=2")),
            "{ua}: {hits:?}"
        );
        // The allowed list is requested as linked, once: its sorted
        // spelling is the same key and is not fetched again.
        let lists: Vec<&String> = hits
            .iter()
            .filter(|h| h.starts_with("/list.html"))
            .collect();
        assert_eq!(lists, ["/list.html?z=9&y=8"], "{ua}: {hits:?}");
        // Point 3: our group was chosen (the `*` group disallows all), and
        // the rule before any group applies to no one.
        assert!(
            hits.iter().any(|h| h == "/everything-ok.html"),
            "{ua}: {hits:?}"
        );
        assert_eq!(hits.iter().filter(|h| *h == "/robots.txt").count(), 1);

        // pages.jsonl: `url` as requested, `key` canonical.
        let line = |url: &str| -> &Value {
            pages
                .iter()
                .find(|p| p["url"] == url)
                .unwrap_or_else(|| panic!("{ua}: no line for {url}: {pages:#?}"))
        };
        let cafe = line(&format!("http://{addr}/caf%c3%a9.html"));
        assert_eq!(cafe["error"], "robots_disallowed");
        assert_eq!(cafe["key"], format!("http://{addr}/caf%C3%A9.html"));
        assert_eq!(
            line(&format!("http://{addr}/caf%C3%A9-menu.html"))["error"],
            "robots_disallowed"
        );
        let list = line(&format!("http://{addr}/list.html?b=1&a=2"));
        assert_eq!(list["error"], "robots_disallowed");
        assert_eq!(list["key"], format!("http://{addr}/list.html?a=2&b=1"));
        let ok = line(&format!("http://{addr}/list.html?z=9&y=8"));
        assert_eq!(ok["status"], 200);
        assert_eq!(ok["key"], format!("http://{addr}/list.html?y=8&z=9"));
        assert_eq!(summary.robots_disallowed, 3, "{ua}: {pages:#?}");

        // verdicts.jsonl: doc_id is the key, url the URL requested.
        let verdicts = json_lines(&dir.read("out/verdicts.jsonl"));
        let v = verdicts
            .iter()
            .find(|v| v["doc_id"] == format!("http://{addr}/list.html?y=8&z=9"))
            .unwrap_or_else(|| panic!("{ua}: {verdicts:#?}"));
        assert_eq!(v["url"], format!("http://{addr}/list.html?z=9&y=8"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seed_refused_by_the_address_guard_is_private_address() {
    let (addr, hits) = site("User-agent: *\nAllow: /\n").await;
    let mut config = local_config();
    config.crawl.allow_private = false;
    let dir = Dir::new();
    for seed in [
        format!("http://{addr}/"),
        // 6to4 embedding 127.0.0.1: refused before connecting.
        format!("http://[2002:7f00:1::]:{}/", addr.port()),
    ] {
        let (summary, pages) = crawl(&config, &seed, &dir.join("out")).await;
        assert_eq!(pages.len(), 1, "{pages:#?}");
        let error = pages[0]["error"].as_str().unwrap_or_default();
        assert!(error.starts_with("private_address"), "{seed}: {error}");
        assert_eq!(summary.robots_disallowed, 0, "{seed}");
        assert_eq!(summary.fetch_errors, 1, "{seed}");
    }
    assert!(hits.requests().is_empty(), "nothing is requested");
}

/// The guard refusing a robots.txt's redirect target is not the guard
/// refusing the origin: the origin's robots.txt is unreachable (all
/// disallowed for a while, RFC 9309), while an origin the guard refuses
/// itself carries the guard's error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn robots_redirect_to_a_refused_host_is_not_the_origin_refused() {
    fn only_127_0_0_2(ip: std::net::IpAddr) -> bool {
        ip == std::net::IpAddr::from([127, 0, 0, 2])
    }
    let addr = Site::new(vec![(
        "/robots.txt",
        Answer::redirect(301, "http://127.0.0.2:9/robots.txt"),
    )])
    .start()
    .await;
    let mut config = local_config();
    config.crawl.allow_private = false;
    let fetcher = Fetcher::with_address_filter(&config.crawl, only_127_0_0_2).expect("fetcher");
    let cache = RobotsCache::new(&config.crawl);
    let page = Url::parse(&format!("http://{addr}/page")).expect("url");
    let d = cache.check(&fetcher, &page).await;
    assert_eq!(d.source, RobotsSource::Unreachable, "{d:?}");
    assert!(!d.allowed && d.refused.is_none(), "{d:?}");
    let refused = Url::parse("http://127.0.0.2:9/page").expect("url");
    let d = cache.check(&fetcher, &refused).await;
    assert_eq!(d.source, RobotsSource::Refused, "{d:?}");
    assert!(
        matches!(d.refused, Some(FetchError::PrivateAddress { ref host }) if host == "127.0.0.2"),
        "{d:?}"
    );
}

/// The links of the group-forms site's home page, as requested.
const GROUP_LINKS: [&str; 4] = [
    "/open.html",
    "/private/secret.html",
    "/raw%7etilde.html",
    "/raw~tilde-2.html",
];

/// A site whose home page links to [`GROUP_LINKS`].
async fn group_site(robots: &'static str) -> (std::net::SocketAddr, Site) {
    let links: String = GROUP_LINKS
        .iter()
        .map(|l| format!("<a href=\"{l}\">a link</a>"))
        .collect();
    let mut pages = vec![
        ("/robots.txt", Answer::text(robots)),
        (
            "/",
            Answer::html(&format!(
                "<p>The home page of a site whose robots.txt groups agents in odd ways.</p>{links}"
            )),
        ),
    ];
    for (i, link) in GROUP_LINKS.iter().enumerate() {
        pages.push((
            link,
            Answer::html(&format!(
                "<p>Page {i} of the site, with words of its own: {link}.</p>"
            )),
        ));
    }
    let site = Site::new(pages);
    (site.clone().start().await, site)
}

/// Google's grouping (a `Sitemap:`, `Crawl-delay:` or unknown line does
/// not end a list of `User-agent` lines, only `Allow`/`Disallow` do) and
/// escaped unreserved characters, in a real crawl: for each robots.txt
/// form, every URL it disallows to `neardup` is never requested, every
/// other linked URL is. Crawl-delay 10 is capped to 0 here
/// (`crawl.robots.max_crawl_delay_secs`) to keep the test fast.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn group_forms_as_google_parses_them_request_no_disallowed_url() {
    let all: Vec<&str> = std::iter::once("/")
        .chain(GROUP_LINKS.iter().copied())
        .collect();
    let forms: [(&str, &[&str]); 6] = [
        // The form: one group for neardup and `*`, all disallowed.
        (
            "User-agent: neardup\nCrawl-delay: 10\nUser-agent: *\nDisallow: /\n",
            &all,
        ),
        (
            "User-agent: neardup\nSitemap: /sitemap.xml\nUser-agent: *\n\
             Disallow: /private/\nDisallow: /raw~tilde\n\nUser-agent: other\nDisallow: /\n",
            &GROUP_LINKS[1..],
        ),
        (
            "User-agent: Neardup/2.0\nInvalid-Unknown-Line: x\nUser-agent: *\n\
             Disallow: /private/\nDisallow: /raw%7Etilde\n",
            &GROUP_LINKS[1..],
        ),
        (
            "User-agent: *\nCrawl-delay: 10\nUser-agent: neardup\nDisallow: /private/\n\
             Disallow: /raw~tilde\n",
            &GROUP_LINKS[1..],
        ),
        (
            "User-agent: neardup\n# a comment\n\nUser-agent: *\nDisallow: /private\n\
             Disallow: /raw~\n",
            &GROUP_LINKS[1..],
        ),
        // Control: an Allow line does end the list, so `*`'s Disallow is
        // not ours and everything is fetched.
        (
            "User-agent: neardup\nAllow: /nothing\nUser-agent: *\nDisallow: /\n",
            &[],
        ),
    ];
    // The form through the robots cache with the default cap:
    // disallowed, and the group's Crawl-delay is ours.
    let (addr, _) = group_site(forms[0].0).await;
    let defaults = local_config().crawl;
    let cache = RobotsCache::new(&defaults);
    let fetcher = Fetcher::new(&defaults).expect("fetcher");
    let d = cache
        .check(
            &fetcher,
            &Url::parse(&format!("http://{addr}/")).expect("url"),
        )
        .await;
    assert!(!d.allowed, "{d:?}");
    assert_eq!(
        d.crawl_delay,
        Some(std::time::Duration::from_secs(10)),
        "{d:?}"
    );

    let mut config = local_config();
    config.crawl.robots.max_crawl_delay_secs = 0;
    for (robots, disallowed) in forms {
        let (addr, site) = group_site(robots).await;
        let dir = Dir::new();
        let (summary, pages) = crawl(&config, &format!("http://{addr}/"), &dir.join("out")).await;
        let hits = targets(&site);
        for path in disallowed {
            assert!(
                !hits.iter().any(|h| h == path),
                "{robots:?}: {path} was requested: {hits:?}"
            );
        }
        let expected = all.iter().filter(|p| !disallowed.contains(p)).count();
        let fetched = all.iter().filter(|p| hits.iter().any(|h| h == *p)).count();
        assert_eq!(fetched, expected, "{robots:?}: {hits:?}");
        // A disallowed home page hides its links: only it is refused.
        let want_refused = if disallowed.contains(&"/") {
            1
        } else {
            disallowed.len()
        };
        let refused = pages
            .iter()
            .filter(|p| p["error"] == "robots_disallowed")
            .count();
        assert_eq!(refused, want_refused, "{robots:?}: {pages:#?}");
        assert_eq!(
            summary.robots_disallowed as usize, want_refused,
            "{robots:?}"
        );
    }
}

/// A robots.txt over `crawl.robots.max_bytes`, cut right after `Allow: /`
/// of a longer rule: the partial line is dropped, not read as `Allow: /`
/// (which would tie with `Disallow: /` and allow everything).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_cut_by_the_robots_size_cap_is_not_parsed() {
    let config = local_config();
    let crawl_config = config.crawl;
    let cap = crawl_config.robots.max_bytes;
    assert_eq!(cap, 512 * 1024);
    let mut robots = String::from("User-agent: *\nDisallow: /\n");
    while robots.len() + 200 < cap - "Allow: /".len() {
        robots.push_str(&format!("# filler {:090}\n", robots.len()));
    }
    // One comment line of the length left, then the rule the cap cuts.
    let room = cap - "Allow: /".len() - robots.len();
    robots.push_str(&format!("#{}\n", "-".repeat(room - 2)));
    assert_eq!(robots.len() + "Allow: /".len(), cap);
    robots.push_str(&format!("Allow: /{}\n", "z".repeat(1000)));
    let robots: &'static str = Box::leak(robots.into_boxed_str());
    let addr = Site::new(vec![("/robots.txt", Answer::text(robots))])
        .start()
        .await;
    let fetcher = Fetcher::new(&crawl_config).expect("fetcher");
    let cache = RobotsCache::new(&crawl_config);
    for path in ["/", "/page.html", "/zzzz"] {
        let url = Url::parse(&format!("http://{addr}{path}")).expect("url");
        let d = cache.check(&fetcher, &url).await;
        assert_eq!(d.source, RobotsSource::Parsed, "{d:?}");
        assert!(!d.allowed, "{path}: {d:?}");
    }
    // The whole rule, under the cap, does allow its own path.
    let whole = format!("User-agent: *\nDisallow: /\nAllow: /{}\n", "z".repeat(1000));
    let whole: &'static str = Box::leak(whole.into_boxed_str());
    let addr = Site::new(vec![("/robots.txt", Answer::text(whole))])
        .start()
        .await;
    let url = Url::parse(&format!("http://{addr}/{}", "z".repeat(1000))).expect("url");
    assert!(cache.check(&fetcher, &url).await.allowed);
}
