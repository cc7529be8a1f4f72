//! One verdict, three encodings: the library's `Verdict`, the HTTP API's
//! JSON and a `verdicts.jsonl` line. The same pages go through all three:
//! each line of the file must be the library's verdict for that page under
//! the documented mapping (`VerdictLine::of_page`), and the API's JSON must
//! be the library's verdict in its wire form.

use std::path::PathBuf;

use neardup::Config;
use neardup::Deduper;
use neardup::SharedDeduper;
use neardup::VerdictKind;
use neardup_output::VerdictLine;
use neardup_serve::{self as serve, dto::VerdictBody, ServeOptions};
use serde_json::{json, Value};

use crate::util::Dir;

/// The pages of `testdata/pages` and the site-template fixture, in a fixed
/// order, as `(doc_id, url, path)`: copies, near copies, template-sharing
/// pages and unique ones.
fn pages() -> Vec<(String, String, PathBuf)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut out = Vec::new();
    for (dir, host) in [("pages", "news.example"), ("site-template", "docs.example")] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .expect("read testdata")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "html"))
            .collect();
        files.sort();
        for path in files {
            let name = path
                .file_name()
                .expect("name")
                .to_string_lossy()
                .into_owned();
            out.push((
                format!("{dir}/{name}"),
                format!("http://{host}/{name}"),
                path,
            ));
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verdicts_jsonl_api_and_library_agree_page_by_page() {
    let pages = pages();
    assert!(pages.len() >= 10, "fixture pages: {}", pages.len());

    // verdicts.jsonl, from the batch command.
    let dir = Dir::new();
    let manifest: String = std::iter::once("doc_id\turl\tpath\n".to_owned())
        .chain(
            pages
                .iter()
                .map(|(id, url, path)| format!("{id}\t{url}\t{}\n", path.display())),
        )
        .collect();
    std::fs::write(dir.join("manifest.tsv"), manifest).expect("write manifest");
    let run = dir.run(&["dedup", "manifest.tsv", "--out", "out", "--no-report"]);
    assert_eq!(run.code(), 0, "{}", run.stderr());
    let lines = dir.read("out/verdicts.jsonl");
    let from_file: Vec<_> = lines
        .lines()
        .map(|l| VerdictLine::parse(l).expect("a format-1 line"))
        .collect();
    assert_eq!(from_file.len(), pages.len());

    // The library, page by page.
    let mut deduper = Deduper::new(Config::default()).expect("deduper");
    // The API, from an in-memory server.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let shared = SharedDeduper::new(Deduper::new(Config::default()).expect("deduper"));
    let server = tokio::spawn(serve::run(
        listener,
        shared,
        ServeOptions::default(),
        async {
            let _ = stopped.await;
        },
    ));
    let http = reqwest::Client::new();

    let mut drops = 0;
    for ((id, url, path), record) in pages.iter().zip(&from_file) {
        let body = std::fs::read(path).expect("read page");
        let analyzed = deduper.analyze(id, url, &body, None);
        let title = analyzed.extracted.title.clone();
        let library = deduper.decide(analyzed).expect("check");
        let site = record.site.clone().expect("a page line names its site");
        assert_eq!(
            *record,
            VerdictLine::of_page(id, url, &site, body.len(), &library).with_title(&title),
            "{id}: file line vs library"
        );

        let api: Value = http
            .post(format!("http://{addr}/v1/check"))
            .json(&json!({ "key": id, "url": url, "html": String::from_utf8_lossy(&body) }))
            .send()
            .await
            .expect("post")
            .json()
            .await
            .expect("json");
        let wire = serde_json::to_value(VerdictBody::from(library.clone())).expect("to json");
        assert_eq!(api, wire, "{id}: API vs file line");
        drops += usize::from(library.kind != VerdictKind::Unique);
    }
    // The comparison means something only if the fixtures make drops with
    // a matched page (whose fields the mapping moves most).
    assert!(drops >= 3, "only {drops} drops");
    let _ = stop.send(());
    server.await.expect("join").expect("serve");
}
