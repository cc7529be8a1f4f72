//! `neardup report`: the model (URL-pattern hints, cross-site clusters,
//! CSV exports, missing texts), escaping of page-derived strings, and the
//! rendered page in a real headless Chromium (skipped when absent).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use neardup_report::{named_url_hints, url_hints, Basis, FiredCount, Report};

use crate::util::{block_role, read_verdicts, Dir, SITE_TEMPLATE};

fn keys(urls: &[&str]) -> Vec<String> {
    url_hints(urls).into_iter().map(|h| h.key).collect()
}

#[test]
fn session_id_is_the_only_hint_when_only_it_differs() {
    let hints = url_hints(&[
        "https://shop.example/item/42?sessionid=a1&lang=en",
        "https://shop.example/item/42?lang=en&sessionid=b2",
        "https://shop.example/item/42?sessionid=c3&lang=en",
    ]);
    assert_eq!(hints.len(), 1, "{hints:?}");
    assert_eq!(hints[0].key, "query:sessionid");
    assert!(
        hints[0].text.contains("varies (3 values)"),
        "{}",
        hints[0].text
    );
}

#[test]
fn url_hints_name_the_part_that_differs() {
    // A parameter on some URLs only.
    assert_eq!(
        keys(&["https://a.example/p", "https://a.example/p?utm_source=x"]),
        ["query:utm_source"]
    );
    // One path segment at the same depth (the second).
    assert_eq!(
        keys(&[
            "https://a.example/news/1/print",
            "https://a.example/news/1/amp"
        ]),
        ["path:3"]
    );
    assert_eq!(
        keys(&["https://a.example/a/x.html", "https://a.example/b/x.html"]),
        ["path:1"]
    );
    assert_eq!(
        keys(&["https://a.example/docs/", "https://a.example/docs"]),
        ["path:trailing-slash"]
    );
    assert_eq!(
        keys(&[
            "https://a.example/Docs/Intro",
            "https://a.example/docs/intro"
        ]),
        ["path:case"]
    );
    assert_eq!(
        keys(&["http://a.example/x", "https://b.example/x"]),
        ["host", "scheme"]
    );
    // Identical URLs, or one URL: nothing to say.
    assert!(keys(&["https://a.example/x", "https://a.example/x"]).is_empty());
    assert!(keys(&["https://a.example/x"]).is_empty());
    assert!(keys(&["not a url", "https://a.example/x"]).is_empty());
}

fn named_keys(pages: &[(&str, &str)]) -> Vec<String> {
    let pages: Vec<(&str, Option<&str>)> = pages.iter().map(|&(u, t)| (u, Some(t))).collect();
    named_url_hints(&pages).into_iter().map(|h| h.key).collect()
}

/// A URL-pattern hint merges only pages of one name: URLs that differ by
/// a query or path piece whose titles name different items get none; the
/// same pieces under one title still do. Words of where a page lives (its
/// host and folders) are no part of its name.
#[test]
fn url_hints_never_merge_differently_named_pages() {
    // A query piece: two items, then one item under two session ids.
    assert!(named_keys(&[
        ("https://shop.example/item?id=1", "Widget A | Shop"),
        ("https://shop.example/item?id=2", "Widget B | Shop"),
    ])
    .is_empty());
    assert_eq!(
        named_keys(&[
            (
                "https://shop.example/item?id=1&sessionid=a",
                "Widget A | Shop"
            ),
            (
                "https://shop.example/item?id=1&sessionid=b",
                "Widget A | Shop"
            ),
        ]),
        ["query:sessionid"]
    );
    // A path piece: a page and its translation, then one page under two
    // edition folders whose titles name the folder.
    assert!(named_keys(&[
        ("https://docs.example/en/intro.html", "Introduction"),
        ("https://docs.example/de/intro.html", "Einführung"),
    ])
    .is_empty());
    assert_eq!(
        named_keys(&[
            (
                "https://docs.example/std/vec/struct.Vec.html",
                "Vec in std::vec - Rust"
            ),
            (
                "https://docs.example/alloc/vec/struct.Vec.html",
                "Vec in alloc::vec - Rust"
            ),
        ]),
        ["path:1"]
    );
    // The file name: two commands' pages, then one page in two cases.
    assert!(named_keys(&[
        (
            "https://man.example/1/ls.html",
            "ls(1) - list directory contents"
        ),
        (
            "https://man.example/1/dir.html",
            "dir(1) - list directory contents"
        ),
    ])
    .is_empty());
    assert_eq!(
        named_keys(&[
            (
                "https://man.example/1/ls.html",
                "ls(1) - list directory contents"
            ),
            (
                "https://man.example/1/LS.html",
                "LS(1) - List directory contents"
            ),
        ]),
        ["path:case"]
    );
    // Within one cluster, only pages of one name are compared: the
    // session id varies among the copies of item 1; item 2, named
    // otherwise, does not make `id` a hint.
    assert_eq!(
        named_keys(&[
            ("https://shop.example/item?id=1&s=x", "Widget A"),
            ("https://shop.example/item?id=1&s=y", "Widget A"),
            ("https://shop.example/item?id=2&s=z", "Widget B"),
        ]),
        ["query:s"]
    );
    // Unknown titles (an older output): the URLs alone, as before.
    assert_eq!(
        named_url_hints(&[
            ("https://shop.example/item?id=1", None),
            ("https://shop.example/item?id=2", None),
        ])
        .into_iter()
        .map(|h| h.key)
        .collect::<Vec<_>>(),
        ["query:id"]
    );
}

/// The report takes each page's name from its `verdicts.jsonl` title: a
/// cluster whose kept page and exact copy carry different names offers no
/// URL pattern, on the cluster or its site; one whose titles agree does.
#[test]
fn report_hints_come_only_from_pages_carrying_one_name() {
    let dir = Dir::new();
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let member = |id: &str, of: &str| {
        serde_json::json!({"doc_id": id, "url": format!("https://shop.example/{id}"),
            "site": "shop.example", "verdict": "duplicate", "of": of, "similarity": 1.0,
            "containment": 1.0, "detector": "exact"})
    };
    let cluster = |id: &str, copy: &str| {
        serde_json::json!({"id": id, "size": 2, "representative": id,
            "representative_url": format!("https://shop.example/{id}"),
            "representative_site": "shop.example", "sites": ["shop.example"],
            "members": [member(copy, id)]})
    };
    let clusters = serde_json::json!({
        "totals": {"pages": 4, "unique": 2, "duplicates": 2, "near_duplicates": 0},
        "sites": {"shop.example": {"pages": 4, "unique": 2, "clusters": [
            cluster("item?id=1", "item?id=2"),
            cluster("gadget?sessionid=1", "gadget?sessionid=2"),
        ]}},
        "cross_site": []
    });
    std::fs::write(out.join("clusters.json"), clusters.to_string()).unwrap();
    let line = |id: &str, verdict: &str, title: &str| {
        serde_json::json!({"doc_id": id, "url": format!("https://shop.example/{id}"),
            "site": "shop.example", "title": title, "verdict": verdict,
            "detector": (verdict != "unique").then_some("exact"), "bytes": 10, "warnings": []})
        .to_string()
    };
    let verdicts = [
        line("item?id=1", "unique", "Widget A | Shop"),
        line("item?id=2", "duplicate", "Widget B | Shop"),
        line("gadget?sessionid=1", "unique", "Gadget | Shop"),
        line("gadget?sessionid=2", "duplicate", "Gadget | Shop"),
    ];
    std::fs::write(out.join("verdicts.jsonl"), verdicts.join("\n") + "\n").unwrap();
    let r = Report::load(&out).unwrap();
    let hints = |id: &str| -> Vec<String> {
        let c = r.clusters.iter().find(|c| c.id == id).unwrap();
        c.hints.iter().map(|h| h.key.clone()).collect()
    };
    assert!(hints("item?id=1").is_empty(), "{:?}", hints("item?id=1"));
    assert_eq!(hints("gadget?sessionid=1"), ["query:sessionid"]);
    let site: Vec<&str> = r.sites[0]
        .hints
        .iter()
        .map(|h| h.hint.key.as_str())
        .collect();
    assert_eq!(site, ["query:sessionid"]);
}

/// A hand-written output directory: site `a.example` with one cluster
/// whose members differ by `sessionid`, site `b.example` with no cluster,
/// and one cross-site cluster (`m1` on a.example, mirrored on c.example).
fn hand_made_dir(dir: &Dir) -> PathBuf {
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let tricky = "https://a.example/x?q=\"a,b\"\nc";
    let clusters = serde_json::json!({
        "totals": {"pages": 7, "unique": 3, "duplicates": 3, "near_duplicates": 1,
                   "duplicate_rate": 4.0 / 7.0, "clusters": 2, "input_errors": 0},
        "sites": {
            "a.example": {"pages": 4, "unique": 1, "duplicates": 2, "near_duplicates": 1,
                "duplicate_rate": 0.75, "clusters": [{
                    "id": "p1", "size": 3, "representative": "p1",
                    "representative_url": "https://a.example/p?sessionid=1",
                    "representative_site": "a.example", "sites": ["a.example"],
                    "members": [
                        {"doc_id": "p2", "url": "https://a.example/p?sessionid=2", "site": "a.example",
                         "verdict": "duplicate", "of": "p1", "similarity": 1.0, "containment": 1.0, "detector": "exact"},
                        {"doc_id": "p3", "url": tricky, "site": "a.example",
                         "verdict": "near_duplicate", "of": "p1", "similarity": 0.9, "containment": 0.95, "detector": "simhash"}
                    ]}]},
            "b.example": {"pages": 1, "unique": 1, "duplicates": 0, "near_duplicates": 0,
                "duplicate_rate": 0.0, "clusters": []},
            "c.example": {"pages": 2, "unique": 1, "duplicates": 1, "near_duplicates": 0,
                "duplicate_rate": 0.5, "clusters": []}
        },
        "cross_site": [{
            "id": "m1", "size": 2, "representative": "m1",
            "representative_url": "https://a.example/story", "representative_site": "a.example",
            "sites": ["a.example", "c.example"],
            "members": [{"doc_id": "m2", "url": "https://c.example/story", "site": "c.example",
                "verdict": "duplicate", "of": "m1", "similarity": 1.0, "containment": 1.0, "detector": "exact"}]
        }],
        "input_errors": []
    });
    std::fs::write(out.join("clusters.json"), clusters.to_string()).unwrap();
    let line = |id: &str, verdict: &str, det: Option<&str>, reason: Option<&str>, bytes: u64| {
        let site = match id.as_bytes()[0] {
            b'b' => "b.example",
            b'c' => "c.example",
            b'm' if id == "m2" => "c.example",
            _ => "a.example",
        };
        serde_json::json!({"doc_id": id, "url": "u", "site": site, "verdict": verdict,
            "detector": det, "reason": reason, "bytes": bytes, "warnings": []})
        .to_string()
    };
    let verdicts = [
        line("p1", "unique", None, None, 100),
        line(
            "p2",
            "duplicate",
            Some("exact"),
            Some("identical normalized text"),
            100,
        ),
        line(
            "p3",
            "near_duplicate",
            Some("simhash"),
            Some("hamming 2"),
            300,
        ),
        line("m1", "unique", None, None, 50),
        line(
            "m2",
            "duplicate",
            Some("exact"),
            Some("identical normalized text"),
            50,
        ),
        line("b1", "unique", None, None, 10),
        line("c9", "unique", None, None, 1),
    ];
    std::fs::write(out.join("verdicts.jsonl"), verdicts.join("\n") + "\n").unwrap();
    out
}

#[test]
fn model_counts_sites_clusters_and_cross_site() {
    let dir = Dir::new();
    let out = hand_made_dir(&dir);
    let r = Report::load(&out).unwrap();
    assert_eq!(r.overview.pages, 7);
    assert_eq!(r.overview.bytes_total, 611);
    assert_eq!(r.overview.bytes_saved, 450);
    assert_eq!(r.overview.index_entries_saved, 4);
    assert_eq!(
        r.overview.detectors,
        [("exact".to_owned(), 2), ("simhash".to_owned(), 1)]
    );
    // Cross-site: only m1, and it is listed on both of its sites.
    let cross = r.cross_site();
    assert_eq!(cross.len(), 1);
    assert_eq!(r.clusters[cross[0]].id, "m1");
    let site = |n: &str| r.sites.iter().find(|s| s.name == n).unwrap();
    assert!(site("c.example").clusters.contains(&cross[0]));
    assert!(site("a.example").clusters.contains(&cross[0]));
    assert!(site("b.example").clusters.is_empty());
    // a.example: the 3-page cluster first, then the 2-page cross-site one.
    let a = site("a.example");
    assert_eq!(a.largest, 3);
    assert_eq!(r.clusters[a.clusters[0]].id, "p1");
    assert_eq!(a.dropped, 3);
    // The reason comes from verdicts.jsonl.
    let p1 = &r.clusters[a.clusters[0]];
    assert_eq!(p1.pages[0].verdict, "representative");
    assert_eq!(p1.pages[2].reason, "hamming 2");
    // URL hints come from the kept page and its exact copies only: the
    // session id differs between them; the near duplicate's other path and
    // query are no canonicalization candidates.
    let hints: Vec<&str> = p1.hints.iter().map(|h| h.key.as_str()).collect();
    assert_eq!(hints, ["query:sessionid"]);
    // No texts.jsonl: the report says why.
    assert!(r.texts.is_empty());
    assert!(r.texts_missing.as_deref().unwrap().contains("texts.jsonl"));
}

/// Drops split by verdict and by what fired: a detector of the chain, the
/// content-evidence fallback, or the URL; over the run and per site, in the
/// model and in `sites.csv`.
#[test]
fn drops_are_counted_by_what_fired_per_verdict_and_site() {
    let dir = Dir::new();
    let out = hand_made_dir(&dir);
    // Three more drops on b.example and c.example, found otherwise than by
    // a detector, and an unreadable record (no site, not a drop).
    let more = [
        r#"{"doc_id":"b2","site":"b.example","verdict":"near_duplicate","detector":"content","bytes":5}"#,
        r#"{"doc_id":"b3","site":"b.example","verdict":"duplicate","detector":"canonical","bytes":5}"#,
        r#"{"doc_id":"c7","site":"c.example","verdict":"duplicate","detector":"redirect","bytes":5}"#,
        r#"{"doc_id":null,"site":null,"verdict":"error","location":"x.warc:9","warnings":["bad"]}"#,
    ];
    let verdicts = dir.read("out/verdicts.jsonl") + &more.join("\n") + "\n";
    std::fs::write(out.join("verdicts.jsonl"), verdicts).unwrap();
    let r = Report::load(&out).unwrap();
    let counts = |list: &[FiredCount]| -> Vec<(String, Basis, u64)> {
        list.iter()
            .map(|c| (c.detector.clone(), c.basis, c.pages))
            .collect()
    };
    let f = &r.overview.fired;
    assert_eq!(
        counts(&f.duplicates),
        [
            ("exact".to_owned(), Basis::Detector, 2),
            ("canonical".to_owned(), Basis::Url, 1),
            ("redirect".to_owned(), Basis::Url, 1),
        ]
    );
    assert_eq!(
        counts(&f.near_duplicates),
        [
            ("content".to_owned(), Basis::Content, 1),
            ("simhash".to_owned(), Basis::Detector, 1),
        ]
    );
    assert_eq!(f.duplicates[0].label, "exact text");
    assert_eq!(f.near_duplicates[0].label, "content evidence");
    assert_eq!(
        (
            f.by_basis(Basis::Detector),
            f.by_basis(Basis::Content),
            f.by_basis(Basis::Url)
        ),
        (3, 1, 2)
    );
    let site = |n: &str| &r.sites.iter().find(|s| s.name == n).unwrap().fired;
    assert_eq!(
        counts(&site("a.example").duplicates),
        [("exact".to_owned(), Basis::Detector, 1)]
    );
    assert_eq!(
        counts(&site("a.example").near_duplicates),
        [("simhash".to_owned(), Basis::Detector, 1)]
    );
    assert_eq!(site("b.example").by_basis(Basis::Detector), 0);
    assert_eq!(site("b.example").by_basis(Basis::Content), 1);
    assert_eq!(site("c.example").by_basis(Basis::Url), 1);
    assert_eq!(site("c.example").by_basis(Basis::Detector), 1);

    r.write(&out).unwrap();
    let mut rd = csv::Reader::from_path(out.join("sites.csv")).unwrap();
    let headers = rd.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = rd.records().map(Result::unwrap).collect();
    let b = rows.iter().find(|r| &r[0] == "b.example").unwrap();
    assert_eq!(&b[col("duplicates")], "1");
    assert_eq!(&b[col("near_duplicates")], "1");
    assert_eq!(&b[col("by_detector")], "0");
    assert_eq!(&b[col("by_content")], "1");
    assert_eq!(&b[col("by_url")], "1");
    assert_eq!(
        &b[col("fired")],
        "duplicate: canonical 1; near_duplicate: content 1"
    );
    let a = rows.iter().find(|r| &r[0] == "a.example").unwrap();
    assert_eq!(&a[col("by_detector")], "2");
}

#[test]
fn csv_exports_round_trip_commas_quotes_and_newlines() {
    let dir = Dir::new();
    let out = hand_made_dir(&dir);
    dir.run(&["report", "out"]).expect_code(0);
    let mut rd = csv::Reader::from_path(out.join("clusters.csv")).unwrap();
    let headers = rd.headers().unwrap().clone();
    assert_eq!(&headers[4], "url");
    let rows: Vec<csv::StringRecord> = rd.records().map(Result::unwrap).collect();
    // 3 pages of p1, 2 of m1.
    assert_eq!(rows.len(), 5);
    let tricky = rows.iter().find(|r| &r[3] == "p3").unwrap();
    assert_eq!(&tricky[4], "https://a.example/x?q=\"a,b\"\nc");
    assert_eq!(&tricky[6], "near_duplicate");
    assert_eq!(&tricky[8], "0.9000");
    let mut rd = csv::Reader::from_path(out.join("sites.csv")).unwrap();
    let sites: Vec<csv::StringRecord> = rd.records().map(Result::unwrap).collect();
    assert_eq!(sites.len(), 3);
    let a = sites.iter().find(|r| &r[0] == "a.example").unwrap();
    assert_eq!(&a[3], "3"); // dropped
    assert_eq!(&a[5], "2"); // clusters, the cross-site one included
    assert_eq!(&a[6], "3"); // largest
}

#[test]
fn report_of_a_directory_without_outputs_is_a_clear_error() {
    let dir = Dir::new();
    std::fs::create_dir_all(dir.join("empty")).unwrap();
    let run = dir.run(&["report", "empty"]).expect_code(2);
    assert!(run.stderr().contains("clusters.json"), "{}", run.stderr());
    dir.write("bad/clusters.json", "{\"totals\": 3}");
    let run = dir.run(&["report", "bad"]).expect_code(2);
    assert!(
        run.stderr().contains("not a neardup clusters.json"),
        "{}",
        run.stderr()
    );
}

const EVIL: &str = "</script><script>document.title='pwned';document.body.setAttribute('data-pwned','1')</script><!--";

/// Two near-identical pages whose text and URLs carry script tags.
fn evil_dir(dir: &Dir) {
    let body = |extra: &str| {
        format!(
            "<html><head><title>t</title></head><body><nav>Home | News</nav><article>\
             <p>{e} The harbour master reported that the ferry timetable changes on Monday \
             because of the storm repairs on the northern pier.</p>\
             <p>Passengers should check the board at the terminal before travelling, and \
             the cafe stays open late during the works.</p><p>{extra}</p></article></body></html>",
            e = EVIL.replace('<', "&lt;")
        )
    };
    dir.write("docs/a.html", body("First edition."));
    dir.write("docs/b.html", body("Second edition."));
    dir.write(
        "manifest.tsv",
        format!(
            "doc_id\turl\tpath\n\
             a</script>\thttps://x.example/a?{EVIL}\tdocs/a.html\n\
             b\thttps://x.example/b?s=</script>\tdocs/b.html\n"
        ),
    );
}

#[test]
fn page_text_and_urls_cannot_break_out_of_the_data_block() {
    let dir = Dir::new();
    evil_dir(&dir);
    dir.run(&["dedup", "manifest.tsv", "--out", "out", "-q"])
        .expect_code(0);
    let html = dir.read("out/report.html");
    // The page's own two script elements only, and the texts are there
    // (escaped) so the test does check something.
    assert_eq!(
        html.matches("</script>").count(),
        2,
        "a script tag broke out"
    );
    assert_eq!(html.matches("<script").count(), 2);
    assert!(html.contains("\\u003c/script\\u003e\\u003cscript\\u003edocument.title"));
    assert!(!dir.read("out/texts.jsonl").is_empty());
}

// ---- the rendered page in a real browser ----

/// Chromium's binary; else the caller skips ([`crate::skip::missing`]: a
/// failure under CI).
fn chromium() -> Option<PathBuf> {
    let found = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists());
    if found.is_none() {
        crate::skip::missing("chromium (apt-get install chromium)");
    }
    found
}

/// Runs headless Chromium on `file://REPORT#HASH`; returns the rendered DOM.
fn dump_dom(chrome: &Path, report: &Path, hash: &str, screenshot: Option<&Path>) -> String {
    let profile = tempfile::tempdir().unwrap();
    let url = format!("file://{}#{hash}", report.display());
    let mut cmd = Command::new(chrome);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--virtual-time-budget=5000",
    ])
    .arg(format!("--user-data-dir={}", profile.path().display()));
    match screenshot {
        Some(p) => {
            cmd.arg(format!("--screenshot={}", p.display()))
                .arg("--window-size=1280,900");
        }
        None => {
            cmd.arg("--dump-dom");
        }
    }
    let out = cmd.arg(&url).output().expect("run chromium");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Dropped pages per (verdict, detector) in `verdicts.jsonl` lines, of one
/// site or of all.
fn fired_counts(
    verdicts: &[serde_json::Value],
    site: Option<&str>,
) -> BTreeMap<(&'static str, String), usize> {
    let mut counts = BTreeMap::new();
    for v in verdicts {
        if site.is_some_and(|s| v["site"] != s) {
            continue;
        }
        let kind = match v["verdict"].as_str() {
            Some("duplicate") => "duplicate",
            Some("near_duplicate") => "near_duplicate",
            _ => continue,
        };
        let det = v["detector"].as_str().expect("a drop names its detector");
        *counts.entry((kind, det.to_owned())).or_default() += 1;
    }
    counts
}

/// The rendered "What fired" panel holds exactly `fired`: per verdict its
/// total, and one item per detector with its count and its basis (told
/// here from the detector name: the block-index fallback, the URL, or a
/// detector of the chain).
fn assert_fired(dom: &str, fired: &BTreeMap<(&'static str, String), usize>, view: &str) {
    for (kind, noun) in [
        ("duplicate", "duplicate"),
        ("near_duplicate", "near duplicate"),
    ] {
        let total: usize = fired
            .iter()
            .filter(|((k, _), _)| *k == kind)
            .map(|(_, n)| n)
            .sum();
        let s = if total == 1 { "" } else { "s" };
        let want = format!("data-fired-total=\"{kind}\"><strong>{total} {noun}{s}");
        assert!(dom.contains(&want), "{view}: no {want:?}");
    }
    for ((kind, det), n) in fired {
        let basis = match det.as_str() {
            "content" => "content",
            "canonical" | "redirect" | "same_url" => "url",
            _ => "detector",
        };
        let want = format!("<span class=\"fired {basis}\" data-fired=\"{kind}/{det}\">{n} ");
        assert!(dom.contains(&want), "{view}: no {want:?}");
    }
    assert_eq!(
        dom.matches("data-fired=\"").count(),
        fired.len(),
        "{view}: items other than the verdicts' detectors"
    );
}

fn enc(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes())
        .collect::<String>()
        .replace('+', "%20")
}

#[test]
fn demo_crawl_report_renders_in_chromium() {
    let Some(chrome) = chromium() else {
        return;
    };
    let dir = Dir::new();
    dir.run(&["crawl", "--demo", "--out", "out", "-q"])
        .expect_code(0);
    let out = dir.join("out");
    let report = out.join("report.html");
    let clusters: serde_json::Value = serde_json::from_str(&dir.read("out/clusters.json")).unwrap();
    let sites: Vec<String> = clusters["sites"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(sites.len(), 2, "{sites:?}");

    // Overview: the `duplicate` and `near_duplicate` verdicts (any
    // detector), each split by what fired, as counted here from
    // verdicts.jsonl.
    let verdicts = read_verdicts(&dir.read("out/verdicts.jsonl"));
    let fired = fired_counts(&verdicts, None);
    let duplicates = verdicts
        .iter()
        .filter(|v| v["verdict"] == "duplicate")
        .count();
    let exact = fired.get(&("duplicate", "exact".to_owned())).copied();
    assert!(
        exact.unwrap_or(0) < duplicates,
        "the demo's duplicates are not all exact copies"
    );
    assert!(
        fired.keys().any(|(k, _)| *k == "near_duplicate"),
        "the demo has near duplicates"
    );
    let dom = dump_dom(&chrome, &report, "/", None);
    let card = |value: usize, label: &str| {
        format!("<div class=\"v\">{value}</div><div class=\"k\">{label}</div>")
    };
    assert!(
        dom.contains(&card(duplicates, "duplicates")),
        "duplicates card"
    );
    assert_fired(&dom, &fired, "overview");

    // Sites table: one row per demo host, built by the script.
    let dom = dump_dom(&chrome, &report, "/sites", None);
    for s in &sites {
        assert!(
            dom.contains(&format!("data-site=\"{s}\"")),
            "no row for {s}"
        );
    }
    assert!(dom.contains("data-chart=\"duplicate-rate\""));

    // A cluster with a near duplicate: members and the side-by-side view.
    let all: Vec<&serde_json::Value> = clusters["sites"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|s| s["clusters"].as_array().unwrap())
        .chain(clusters["cross_site"].as_array().unwrap())
        .collect();
    let (cluster, n) = all
        .iter()
        .find_map(|c| {
            let members = c["members"].as_array().unwrap();
            members
                .iter()
                .position(|m| m["verdict"] == "near_duplicate")
                .map(|p| (c, p + 1))
        })
        .expect("the demo has a near duplicate in a cluster");
    let id = cluster["id"].as_str().unwrap();
    let dom = dump_dom(&chrome, &report, &format!("/cluster/{}/{n}", enc(id)), None);
    let members = cluster["members"].as_array().unwrap();
    for m in members {
        let doc = m["doc_id"].as_str().unwrap();
        assert!(
            dom.contains(&format!("data-member=\"{doc}\"")),
            "no member row {doc}"
        );
    }
    assert!(dom.contains("data-diff="), "no side-by-side view");
    assert!(dom.contains("data-block=\"shared\""));
    assert!(dom.contains("data-block=\"differs\""));
    assert!(dom.contains("data-block=\"boilerplate\""));
    assert!(
        dom.contains("<mark>"),
        "no marked words in differing blocks"
    );

    // Site page: its clusters and URL-pattern hints.
    let site = cluster["sites"][0].as_str().unwrap();
    let dom = dump_dom(&chrome, &report, &format!("/site/{}", enc(site)), None);
    assert!(dom.contains(&format!("data-cluster=\"{id}\"")));
    assert!(dom.contains("data-hint="));
    // The site's own drops by what fired.
    assert_fired(&dom, &fired_counts(&verdicts, Some(site)), site);

    // A screenshot, kept for a look (docs/report.png comes from one).
    let shot = out.join("report.png");
    dump_dom(
        &chrome,
        &report,
        &format!("/cluster/{}/{n}", enc(id)),
        Some(&shot),
    );
    assert!(std::fs::metadata(&shot).unwrap().len() > 10_000);
}

/// A drop found by the content-evidence fallback (no detector matched:
/// with `--detector exact`, the edited copy is found through its own
/// blocks) is shown apart from the detector's matches.
#[test]
fn content_evidence_drops_render_apart_in_chromium() {
    let Some(chrome) = chromium() else {
        return;
    };
    let dir = Dir::new();
    dir.copy_testdata("pages", "pages");
    dir.run(&[
        "dedup",
        "pages",
        "--out",
        "out",
        "-q",
        "--detector",
        "exact",
    ])
    .expect_code(0);
    let verdicts = read_verdicts(&dir.read("out/verdicts.jsonl"));
    let fired = fired_counts(&verdicts, None);
    assert!(
        fired.contains_key(&("near_duplicate", "content".to_owned())),
        "the edited copy is a content-evidence drop: {fired:?}"
    );
    assert!(fired.contains_key(&("duplicate", "exact".to_owned())));
    let dom = dump_dom(&chrome, &dir.join("out/report.html"), "/", None);
    assert_fired(&dom, &fired, "overview");
}

#[test]
fn script_in_page_text_does_not_run_in_chromium() {
    let Some(chrome) = chromium() else {
        return;
    };
    let dir = Dir::new();
    evil_dir(&dir);
    dir.run(&["dedup", "manifest.tsv", "--out", "out", "-q"])
        .expect_code(0);
    let clusters: serde_json::Value = serde_json::from_str(&dir.read("out/clusters.json")).unwrap();
    let id = clusters["sites"]["x.example"]["clusters"][0]["id"]
        .as_str()
        .expect("the two pages form a cluster");
    let dom = dump_dom(
        &chrome,
        &dir.join("out/report.html"),
        &format!("/cluster/{}/1", enc(id)),
        None,
    );
    // Rendered (the diff is there, with the text as text) but not run.
    assert!(dom.contains("data-diff="));
    assert!(dom.contains("document.title='pwned'"));
    // The text mentions data-pwned; only the attribute would mean it ran.
    assert!(!dom.contains("data-pwned=\"1\""));
    assert!(dom.contains("<title>neardup report</title>"));
}

/// The side-by-side view shows what was compared: `texts.jsonl` records
/// each block's role when its page was judged, the site's template apart
/// from the page's own blocks, and the report draws template blocks as
/// such.
#[test]
fn texts_record_which_blocks_were_template_and_which_compared() {
    let dir = Dir::new();
    let site = SITE_TEMPLATE;
    let pages = [
        "index.html",
        "guides/index.html",
        "api/index.html",
        "about.html",
        "contact.html",
        "api/fn.alpha.html",
        "api/fn.beta.html",
        "manual/chapter-1.html",
        "mirror/chapter-1.html",
    ];
    let mut manifest = String::from("doc_id\turl\tpath\n");
    for p in pages {
        manifest.push_str(&format!("{p}\thttp://docs.example/{p}\t{site}/{p}\n"));
    }
    dir.write("manifest.tsv", manifest);
    dir.run(&["dedup", "manifest.tsv", "--out", "out", "-q"])
        .expect_code(0);
    let texts: Vec<serde_json::Value> = dir
        .read("out/texts.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mirror = texts
        .iter()
        .find(|t| t["doc_id"] == "mirror/chapter-1.html")
        .expect("the mirror is in a cluster, so its text is kept");
    let role = |starts: &str| block_role(mirror, starts);
    assert_eq!(role("Installing widgets"), "template");
    assert_eq!(role("Every widget has a shape"), "compared");

    let Some(chrome) = chromium() else {
        return;
    };
    let clusters: serde_json::Value = serde_json::from_str(&dir.read("out/clusters.json")).unwrap();
    let id = clusters["sites"]["docs.example"]["clusters"][0]["id"]
        .as_str()
        .expect("one cluster");
    let dom = dump_dom(
        &chrome,
        &dir.join("out/report.html"),
        &format!("/cluster/{}/1", enc(id)),
        None,
    );
    assert!(
        dom.contains("data-block=\"template\""),
        "no template block drawn"
    );
    assert!(dom.contains("data-block=\"shared\""));
}

/// The `data` block of a written `report.html`, parsed (the report's JSON:
/// what the page renders).
fn report_data(html: &str) -> serde_json::Value {
    let start = "<script type=\"application/json\" id=\"data\">";
    let from = html.find(start).expect("a data block") + start.len();
    let len = html[from..].find("</script>").expect("the block ends");
    serde_json::from_str(&html[from..from + len]).expect("the data block is JSON")
}

/// A part of an all-in-one page is kept and its verdict says
/// `contained_in`: the report lists it per site as a relation between two
/// kept pages (in the model, `sites.csv`, the page's JSON and the rendered
/// site view), never as a drop or a cluster member.
#[test]
fn pages_contained_in_a_larger_page_are_listed_per_site_not_as_drops() {
    let dir = Dir::new();
    let mut manifest = String::from("doc_id\turl\tpath\n");
    for p in ["genindex/all.html", "genindex/a.html"] {
        manifest.push_str(&format!(
            "{p}\thttp://docs.example/{p}\t{SITE_TEMPLATE}/{p}\n"
        ));
    }
    dir.write("manifest.tsv", manifest);
    dir.run(&["dedup", "manifest.tsv", "--out", "out", "-q"])
        .expect_code(0);
    let verdicts = read_verdicts(&dir.read("out/verdicts.jsonl"));
    assert!(
        verdicts.iter().all(|v| v["verdict"] == "unique"),
        "{verdicts:?}"
    );
    // Each line carries its page's title (the report's page names).
    assert!(
        verdicts
            .iter()
            .all(|v| v["title"].as_str().is_some_and(|t| !t.is_empty())),
        "{verdicts:?}"
    );

    let r = Report::load(&dir.join("out")).unwrap();
    assert_eq!(r.overview.contained, 1);
    assert_eq!(r.overview.duplicates + r.overview.near_duplicates, 0);
    assert!(r.clusters.is_empty(), "{:?}", r.clusters);
    let site = r.sites.iter().find(|s| s.name == "docs.example").unwrap();
    assert_eq!(site.dropped, 0);
    let [c] = site.contained.as_slice() else {
        panic!("one contained page: {:?}", site.contained)
    };
    assert_eq!(c.doc_id, "genindex/a.html");
    assert_eq!(c.url, "http://docs.example/genindex/a.html");
    assert_eq!(c.of, "genindex/all.html");
    assert_eq!(c.of_url, "http://docs.example/genindex/all.html");
    assert!(c.covered.is_some_and(|x| x >= 0.9), "{c:?}");
    assert!(c.reason.contains("contained in it"), "{}", c.reason);

    // Written at the end of the run: sites.csv and the page's JSON.
    let mut rd = csv::Reader::from_path(dir.join("out/sites.csv")).unwrap();
    let headers = rd.headers().unwrap().clone();
    let col = headers.iter().position(|h| h == "contained").unwrap();
    let row = rd.records().next().unwrap().unwrap();
    assert_eq!((&row[0], &row[col]), ("docs.example", "1"));
    let html = dir.read("out/report.html");
    let data = report_data(&html);
    assert_eq!(data["overview"]["contained"], 1);
    let listed = &data["sites"][0]["contained"][0];
    assert_eq!(listed["doc_id"], "genindex/a.html");
    assert_eq!(listed["of_url"], "http://docs.example/genindex/all.html");

    let Some(chrome) = chromium() else {
        return;
    };
    let dom = dump_dom(
        &chrome,
        &dir.join("out/report.html"),
        "/site/docs.example",
        None,
    );
    assert!(
        dom.contains("data-contained=\"genindex/a.html\" data-of=\"genindex/all.html\""),
        "no contained row in the site view"
    );
    assert!(dom.contains("Kept inside a larger page (1)"));
    assert!(dom.contains("http://docs.example/genindex/all.html"));
}
