//! `neardup crawl --warc-out`: the WARC written during a real crawl of a
//! local site, read back with our reader and parsed independently here
//! (record types, SHA-1 payload digests computed in the test, revisit
//! references), also across a SIGKILL and `--resume`.

use std::collections::BTreeMap;
use std::io::Read;
use std::process::Stdio;
use std::time::{Duration, Instant};

use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Router;
use sha1::{Digest, Sha1};

use crate::util::Dir;

const ARTICLE: &str =
    "Solar panels on the school roof now cover most of the building's power needs, \
    the head teacher said on Monday. The project took two years of fundraising by parents, \
    teachers and pupils, and the installation was finished during the summer holidays. \
    Pupils follow the daily production on a screen in the entrance hall.";

fn html(body: &str, extra: &str) -> String {
    format!("<html><head><title>News</title></head><body><article><p>{body}</p>{extra}</article></body></html>")
}

/// `/` links to the others; `/copy` is byte-identical to `/a`; `/tracked`
/// has the same text as `/a` with a comment (other bytes); `/near` adds an
/// "Updated" time; `/gone` is a 404.
fn page(path: &str) -> Option<String> {
    let a = html(ARTICLE, "");
    Some(match path {
        "/" => html(
            "Front page of the test news site with its latest stories.",
            "<a href=\"/a\">a</a> <a href=\"/copy\">copy</a> <a href=\"/tracked\">t</a> \
             <a href=\"/near\">near</a> <a href=\"/gone\">gone</a>",
        ),
        "/a" | "/copy" => a,
        "/tracked" => html(ARTICLE, "<!-- served by edge 2 -->"),
        "/near" => html(ARTICLE, "<p class=\"updated\">Updated 10:42</p>"),
        _ => return None,
    })
}

fn start_site(rt: &tokio::runtime::Runtime, delay: Duration) -> std::net::SocketAddr {
    async fn handle(
        axum::extract::State(delay): axum::extract::State<Duration>,
        uri: Uri,
    ) -> Response {
        if uri.path() == "/robots.txt" {
            return "User-agent: *\nAllow: /\n".into_response();
        }
        tokio::time::sleep(delay).await;
        match page(uri.path()) {
            Some(h) => ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], h).into_response(),
            None => (StatusCode::NOT_FOUND, "no").into_response(),
        }
    }
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let app = Router::new().fallback(handle).with_state(delay);
    rt.spawn(async move { axum::serve(listener, app).await });
    addr
}

/// One WARC record as parsed here.
#[derive(Debug)]
struct Rec {
    headers: BTreeMap<String, String>,
    block: Vec<u8>,
}

impl Rec {
    fn h(&self, name: &str) -> &str {
        self.headers.get(name).map_or("", String::as_str)
    }
    /// The HTTP payload: the block after the HTTP head.
    fn payload(&self) -> &[u8] {
        let at = self
            .block
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("HTTP head end");
        &self.block[at + 4..]
    }
}

/// Parses a whole (gunzipped) WARC file; panics on any framing error.
fn parse_warc(bytes: &[u8]) -> Vec<Rec> {
    let mut recs = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let end = rest
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("header end");
        let head = std::str::from_utf8(&rest[..end]).expect("utf-8 head");
        let mut lines = head.split("\r\n");
        assert_eq!(lines.next(), Some("WARC/1.1"));
        let headers: BTreeMap<String, String> = lines
            .map(|l| {
                let (k, v) = l.split_once(": ").expect("field");
                (k.to_owned(), v.to_owned())
            })
            .collect();
        let len: usize = headers["Content-Length"].parse().expect("length");
        let block = rest[end + 4..end + 4 + len].to_vec();
        assert_eq!(
            &rest[end + 4 + len..end + 8 + len],
            b"\r\n\r\n",
            "record end"
        );
        rest = &rest[end + 8 + len..];
        recs.push(Rec { headers, block });
    }
    recs
}

fn gunzip(path: &std::path::Path) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(path).expect("open"))
        .read_to_end(&mut out)
        .expect("gunzip");
    out
}

fn digest(payload: &[u8]) -> String {
    format!(
        "sha1:{}",
        data_encoding::BASE32.encode(&Sha1::digest(payload))
    )
}

fn config(dir: &Dir) {
    dir.write(
        "crawl.toml",
        "[crawl]\nallow_private = true\n\n[crawl.fetch]\nhost_delay_ms = 5\nretries = 0\n",
    );
}

fn path_of(url: &str) -> String {
    url::Url::parse(url).expect("URL").path().to_owned()
}

/// Checks the records of a crawl of the site: one record per URL (or a
/// response plus its metadata), digests, revisit references.
fn check_records(recs: &[Rec]) {
    assert_eq!(recs[0].h("WARC-Type"), "warcinfo");
    let mut by_path: BTreeMap<String, Vec<&Rec>> = BTreeMap::new();
    for r in &recs[1..] {
        by_path
            .entry(path_of(r.h("WARC-Target-URI")))
            .or_default()
            .push(r);
    }
    let types = |p: &str| -> Vec<&str> { by_path[p].iter().map(|r| r.h("WARC-Type")).collect() };
    assert_eq!(types("/"), ["response"]);
    assert_eq!(types("/a"), ["response"]);
    assert_eq!(types("/gone"), ["response"]);
    assert!(by_path["/gone"][0].block.starts_with(b"HTTP/1.1 404"));
    assert_eq!(types("/copy"), ["revisit"], "byte-identical copy");
    assert_eq!(
        types("/tracked"),
        ["response", "metadata"],
        "same text, other bytes"
    );
    assert_eq!(types("/near"), ["response", "metadata"]);
    assert_eq!(by_path.len(), 6, "{:?}", by_path.keys());

    // Payload digests, computed here.
    for r in recs.iter().filter(|r| r.h("WARC-Type") == "response") {
        assert_eq!(r.h("WARC-Payload-Digest"), digest(r.payload()), "{r:?}");
    }
    let a = by_path["/a"][0];
    assert_eq!(a.payload(), page("/a").expect("a").as_bytes());
    // The revisit points at /a's response with the same digest.
    let copy = by_path["/copy"][0];
    assert_eq!(
        copy.h("WARC-Profile"),
        "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"
    );
    assert_eq!(copy.h("WARC-Payload-Digest"), a.h("WARC-Payload-Digest"));
    assert_eq!(copy.h("WARC-Refers-To"), a.h("WARC-Record-ID"));
    assert_eq!(copy.h("WARC-Refers-To-Target-URI"), a.h("WARC-Target-URI"));
    assert_eq!(copy.h("WARC-Refers-To-Date"), a.h("WARC-Date"));
    assert!(copy.block.starts_with(b"HTTP/1.1 200"));
    assert!(copy.payload().is_empty(), "a revisit carries no payload");
    // The near duplicate's metadata names the page it matched.
    let (resp, meta) = (by_path["/near"][0], by_path["/near"][1]);
    assert_eq!(meta.h("WARC-Concurrent-To"), resp.h("WARC-Record-ID"));
    let fields = String::from_utf8_lossy(&meta.block);
    assert!(
        fields.contains("neardup-verdict: near_duplicate"),
        "{fields}"
    );
    assert!(
        fields.contains(&format!("neardup-of: {}", a.h("WARC-Target-URI"))),
        "{fields}"
    );
    assert!(
        fields.contains(&format!("neardup-of-record: {}", a.h("WARC-Record-ID"))),
        "{fields}"
    );
    let ids: std::collections::BTreeSet<&str> =
        recs.iter().map(|r| r.h("WARC-Record-ID")).collect();
    assert_eq!(ids.len(), recs.len(), "record ids are unique");
}

#[test]
fn crawl_writes_a_warc_that_reads_back() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let addr = start_site(&rt, Duration::ZERO);
    let dir = Dir::new();
    config(&dir);
    let seed = format!("http://{addr}/");
    dir.run(&[
        "--config",
        "crawl.toml",
        "crawl",
        "--seed",
        &seed,
        "--out",
        "out",
        "--warc-out",
        "crawl.warc.gz",
    ])
    .expect_code(0);
    let path = dir.join("crawl.warc.gz");
    // Gzip per record: the file is several gzip members.
    let raw = std::fs::read(&path).expect("read");
    let members = raw.windows(3).filter(|w| *w == [0x1f, 0x8b, 0x08]).count();
    let recs = parse_warc(&gunzip(&path));
    assert!(
        members >= recs.len(),
        "{members} gzip members for {} records",
        recs.len()
    );
    check_records(&recs);

    // Our reader: the 2xx HTML responses are pages (revisits and metadata
    // are not), keyed by record id, with the body as fetched.
    let pages: Vec<neardup_batch::input::Page> = neardup_batch::input::open(&path)
        .expect("open")
        .map(|i| match i {
            neardup_batch::input::Item::Page(p) => p,
            neardup_batch::input::Item::Warning(w) => panic!("warning reading back: {w:?}"),
        })
        .collect();
    let mut got: Vec<String> = pages.iter().map(|p| path_of(&p.url)).collect();
    got.sort();
    assert_eq!(got, ["/", "/a", "/near", "/tracked"]);
    for p in &pages {
        assert_eq!(p.body, page(&path_of(&p.url)).expect("page").as_bytes());
        assert!(p.key.starts_with("urn:uuid:"), "{}", p.key);
    }
}

#[test]
fn warc_survives_sigkill_and_resume() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let addr = start_site(&rt, Duration::from_millis(150));
    let dir = Dir::new();
    config(&dir);
    let seed = format!("http://{addr}/");
    let mut child = dir
        .cmd()
        .args([
            "--config",
            "crawl.toml",
            "crawl",
            "--seed",
            &seed,
            "--out",
            "out",
            "--warc-out",
            "crawl.warc",
            "--checkpoint-pages",
            "1",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    // Kill once the first page is decided.
    let started = Instant::now();
    while std::fs::read_to_string(dir.join("out/verdicts.jsonl")).map_or(0, |t| t.lines().count())
        < 2
        && started.elapsed() < Duration::from_secs(30)
        && child.try_wait().expect("wait").is_none()
    {
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = child.kill();
    child.wait().expect("wait");
    dir.run(&[
        "--config",
        "crawl.toml",
        "crawl",
        "--resume",
        "out",
        "--checkpoint-pages",
        "1",
    ])
    .expect_code(0);
    let recs = parse_warc(&std::fs::read(dir.join("crawl.warc")).expect("read"));
    check_records(&recs);
}
