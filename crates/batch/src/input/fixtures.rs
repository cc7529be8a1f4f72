//! Reader tests on fixtures built in the test (WARC/ARC bytes written here,
//! gzipped with flate2), so every expected value comes from how the fixture
//! was made, not from the reader's output.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{open_with, read, Item, Limits, Page};

fn gz(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).ok();
    e.finish().unwrap_or_default()
}

fn warc_record(wtype: &str, headers: &[(&str, &str)], block: &[u8]) -> Vec<u8> {
    let mut r = format!("WARC/1.0\r\nWARC-Type: {wtype}\r\n");
    for (k, v) in headers {
        r.push_str(&format!("{k}: {v}\r\n"));
    }
    r.push_str(&format!("Content-Length: {}\r\n\r\n", block.len()));
    let mut r = r.into_bytes();
    r.extend_from_slice(block);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

fn http(status: &str, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut r = format!("HTTP/1.1 {status}\r\n");
    for (k, v) in headers {
        r.push_str(&format!("{k}: {v}\r\n"));
    }
    r.push_str("\r\n");
    let mut r = r.into_bytes();
    r.extend_from_slice(body);
    r
}

fn html_response(id: &str, url: &str, body: &str) -> Vec<u8> {
    warc_record(
        "response",
        &[
            ("WARC-Record-ID", &format!("<urn:uuid:{id}>")),
            ("WARC-Target-URI", &format!("<{url}>")),
            ("Content-Type", "application/http; msgtype=response"),
        ],
        &http(
            "200 OK",
            &[("Content-Type", "text/html; charset=utf-8")],
            body.as_bytes(),
        ),
    )
}

/// A WARC with one page among records that must all be skipped.
fn mixed_records() -> Vec<Vec<u8>> {
    vec![
        warc_record(
            "warcinfo",
            &[("Content-Type", "application/warc-fields")],
            b"software: test\r\n",
        ),
        warc_record(
            "request",
            &[
                ("WARC-Target-URI", "http://a.example/"),
                ("Content-Type", "application/http; msgtype=request"),
            ],
            b"GET / HTTP/1.1\r\nHost: a.example\r\n\r\n",
        ),
        html_response("1", "http://a.example/", "<html><p>page one</p></html>"),
        warc_record(
            "response",
            &[
                ("WARC-Record-ID", "<urn:uuid:2>"),
                ("WARC-Target-URI", "http://a.example/logo.png"),
            ],
            &http(
                "200 OK",
                &[("Content-Type", "image/png")],
                b"\x89PNG\r\n\x1a\n",
            ),
        ),
        warc_record(
            "response",
            &[
                ("WARC-Record-ID", "<urn:uuid:3>"),
                ("WARC-Target-URI", "http://a.example/old"),
            ],
            &http(
                "301 Moved Permanently",
                &[("Content-Type", "text/html"), ("Location", "/")],
                b"<html>moved</html>",
            ),
        ),
        warc_record(
            "revisit",
            &[
                ("WARC-Record-ID", "<urn:uuid:4>"),
                ("WARC-Target-URI", "http://a.example/"),
            ],
            &http("200 OK", &[("Content-Type", "text/html")], b""),
        ),
        warc_record(
            "metadata",
            &[("WARC-Target-URI", "http://a.example/")],
            b"via: x\r\n",
        ),
    ]
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap_or_else(|e| panic!("write {}: {e}", p.display()));
    p
}

fn items(path: &Path) -> Vec<Item> {
    read(path).unwrap_or_else(|e| panic!("open {}: {e}", path.display()))
}

fn items_with(path: &Path, limits: Limits) -> Vec<Item> {
    open_with(path, limits)
        .unwrap_or_else(|e| panic!("open {}: {e}", path.display()))
        .collect()
}

fn pages(items: &[Item]) -> Vec<&Page> {
    items
        .iter()
        .filter_map(|i| match i {
            Item::Page(p) => Some(p),
            Item::Warning(_) => None,
        })
        .collect()
}

fn warnings(items: &[Item]) -> Vec<String> {
    items
        .iter()
        .filter_map(|i| match i {
            Item::Warning(w) => Some(w.to_string()),
            Item::Page(_) => None,
        })
        .collect()
}

#[test]
fn warc_yields_only_html_2xx_responses_in_every_packaging() {
    let dir = tempfile::tempdir().unwrap();
    let recs = mixed_records();
    let plain: Vec<u8> = recs.concat();
    let per_record: Vec<u8> = recs.iter().map(|r| gz(r)).collect::<Vec<_>>().concat();
    let whole = gz(&plain);
    let mut lz4 = lz4_flex::frame::FrameEncoder::new(Vec::new());
    lz4.write_all(&plain).ok();
    let lz4 = lz4.finish().unwrap_or_default();
    for (name, bytes) in [
        ("plain.warc", &plain),
        ("per-record.warc.gz", &per_record),
        ("whole.warc.gz", &whole),
        // No telling name: compression and format are sniffed.
        ("mystery.bin", &per_record),
        ("x.warc.lz4", &lz4),
    ] {
        let p = write(dir.path(), name, bytes);
        let got = items(&p);
        assert_eq!(warnings(&got), Vec::<String>::new(), "{name}");
        let pg = pages(&got);
        assert_eq!(pg.len(), 1, "{name}");
        assert_eq!(pg[0].key, "urn:uuid:1");
        assert_eq!(pg[0].url, "http://a.example/");
        assert_eq!(pg[0].body, b"<html><p>page one</p></html>");
        assert_eq!(
            pg[0].content_type.as_deref(),
            Some("text/html; charset=utf-8")
        );
    }
}

#[test]
fn truncated_record_warns_with_its_offset_and_stops() {
    let dir = tempfile::tempdir().unwrap();
    let first = html_response("1", "http://a.example/", "<html>one</html>");
    let second = html_response("2", "http://a.example/2", "<html>two, cut off</html>");
    let mut bytes = first.clone();
    bytes.extend_from_slice(second.get(..second.len() - 12).unwrap_or(&[]));
    let p = write(dir.path(), "t.warc", &bytes);
    let got = items(&p);
    assert_eq!(pages(&got).len(), 1);
    let w = warnings(&got);
    assert_eq!(w.len(), 1, "{w:?}");
    let expect = format!("truncated record at offset {}", first.len());
    assert!(w[0].contains(&expect), "{w:?} should contain {expect}");
}

#[test]
fn truncated_gzip_member_warns_and_keeps_earlier_records() {
    let dir = tempfile::tempdir().unwrap();
    let a = gz(&html_response("1", "http://a.example/", "<html>one</html>"));
    let b = gz(&html_response(
        "2",
        "http://a.example/2",
        &"<p>two</p>".repeat(500),
    ));
    let mut bytes = a.clone();
    bytes.extend_from_slice(b.get(..b.len() / 2).unwrap_or(&[]));
    let p = write(dir.path(), "t.warc.gz", &bytes);
    let got = items(&p);
    let pg = pages(&got);
    assert_eq!(pg.len(), 1);
    assert_eq!(pg[0].key, "urn:uuid:1");
    let w = warnings(&got);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("truncated gzip member"), "{w:?}");
    assert!(
        w[0].contains(&format!("gzip member at byte {}", a.len())),
        "{w:?}"
    );
}

#[test]
fn corrupt_gzip_member_is_skipped_and_reading_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let a = gz(&html_response(
        "1",
        "http://a.example/1",
        "<html>one</html>",
    ));
    let mut b = gz(&html_response(
        "2",
        "http://a.example/2",
        &"<p>two</p>".repeat(200),
    ));
    let c = gz(&html_response(
        "3",
        "http://a.example/3",
        "<html>three</html>",
    ));
    for x in b.iter_mut().skip(20).take(8) {
        *x ^= 0xa5;
    }
    let p = write(dir.path(), "c.warc.gz", &[a, b, c].concat());
    let got = items(&p);
    let keys: Vec<&str> = pages(&got).iter().map(|p| p.key.as_str()).collect();
    assert_eq!(keys, ["urn:uuid:1", "urn:uuid:3"]);
    let w = warnings(&got);
    assert!(!w.is_empty());
    assert!(w.iter().all(|w| w.contains("gzip member")), "{w:?}");
}

#[test]
fn bad_content_length_resyncs_on_next_record() {
    let dir = tempfile::tempdir().unwrap();
    let good = html_response("9", "http://a.example/9", "<html>nine</html>");
    let bad = b"WARC/1.0\r\nWARC-Type: response\r\nContent-Length: lots\r\n\r\nHTTP/1.1 200 OK\r\n\r\n<html>x</html>\r\n\r\n";
    let missing =
        b"WARC/1.0\r\nWARC-Type: response\r\n\r\nHTTP/1.1 200 OK\r\n\r\n<html>y</html>\r\n\r\n";
    let p = write(
        dir.path(),
        "cl.warc",
        &[&bad[..], &missing[..], &good].concat(),
    );
    let got = items(&p);
    let pg = pages(&got);
    assert_eq!(pg.len(), 1);
    assert_eq!(pg[0].key, "urn:uuid:9");
    let w = warnings(&got);
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(
        w[0].contains("bad Content-Length \"lots\"") && w[0].contains("offset 0"),
        "{w:?}"
    );
    assert!(w[1].contains("no Content-Length"), "{w:?}");
}

#[test]
fn content_length_too_short_warns_and_next_record_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let block = http(
        "200 OK",
        &[("Content-Type", "text/html")],
        b"<html>one and more</html>",
    );
    // Claim 5 bytes fewer than the block has.
    let mut short = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:1>\r\nWARC-Target-URI: http://a.example/1\r\nContent-Length: {}\r\n\r\n",
        block.len() - 5
    )
    .into_bytes();
    short.extend_from_slice(&block);
    short.extend_from_slice(b"\r\n\r\n");
    let next = html_response("2", "http://a.example/2", "<html>two</html>");
    let p = write(dir.path(), "short.warc", &[short, next].concat());
    let got = items(&p);
    let keys: Vec<&str> = pages(&got).iter().map(|p| p.key.as_str()).collect();
    assert_eq!(keys, ["urn:uuid:1", "urn:uuid:2"]);
    let w = warnings(&got);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("does not end at a record boundary"), "{w:?}");
}

#[test]
fn garbage_between_records_is_skipped_with_one_warning() {
    let dir = tempfile::tempdir().unwrap();
    let a = html_response("1", "http://a.example/1", "<html>one</html>");
    let junk = b"junk line 1\nWARC is not at line start: WARC/1.0\njunk 2\n".repeat(50);
    let b = html_response("2", "http://a.example/2", "<html>two</html>");
    let p = write(dir.path(), "g.warc", &[a.clone(), junk, b].concat());
    let got = items(&p);
    assert_eq!(pages(&got).len(), 2);
    let w = warnings(&got);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains(&format!("offset {}", a.len())), "{w:?}");
}

#[test]
fn chunked_payloads_are_dechunked_or_kept_raw_with_warning() {
    let dir = tempfile::tempdir().unwrap();
    let chunked = warc_record(
        "response",
        &[
            ("WARC-Record-ID", "<urn:uuid:c>"),
            ("WARC-Target-URI", "http://a.example/c"),
        ],
        &http(
            "200 OK",
            &[
                ("Content-Type", "text/html"),
                ("Transfer-Encoding", "chunked"),
            ],
            b"6\r\n<html>\r\n7\r\n</html>\r\n0\r\n\r\n",
        ),
    );
    let broken_body = b"6\r\n<html>\r\nnot-hex\r\n</html>";
    let broken = warc_record(
        "response",
        &[
            ("WARC-Record-ID", "<urn:uuid:b>"),
            ("WARC-Target-URI", "http://a.example/b"),
        ],
        &http(
            "200 OK",
            &[
                ("Content-Type", "text/html"),
                ("Transfer-Encoding", "chunked"),
            ],
            broken_body,
        ),
    );
    let p = write(dir.path(), "ch.warc", &[chunked, broken].concat());
    let got = items(&p);
    let pg = pages(&got);
    assert_eq!(pg.len(), 2);
    assert_eq!(pg[0].body, b"<html></html>");
    assert_eq!(pg[1].body, broken_body);
    let w = warnings(&got);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("bad chunked encoding"), "{w:?}");
}

/// 1 GiB of zeros as 1024 concatenated gzip members of 1 MiB each (a valid
/// gzip stream, ~1 MB on disk), built without ever holding the 1 GiB.
fn gzip_bomb_1gib() -> Vec<u8> {
    let member = gz(&vec![0u8; 1 << 20]);
    member.repeat(1024)
}

#[test]
fn gzip_bomb_in_content_encoding_stops_at_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let bomb = gzip_bomb_1gib();
    assert!(bomb.len() < 2 << 20, "bomb is {} bytes", bomb.len());
    let rec = warc_record(
        "response",
        &[
            ("WARC-Record-ID", "<urn:uuid:bomb>"),
            ("WARC-Target-URI", "http://a.example/bomb"),
        ],
        &http(
            "200 OK",
            &[("Content-Type", "text/html"), ("Content-Encoding", "gzip")],
            &bomb,
        ),
    );
    let after = html_response("after", "http://a.example/after", "<html>after</html>");
    let p = write(dir.path(), "bomb.warc", &[rec, after].concat());
    let limits = Limits::default();
    let got = items_with(&p, limits);
    let keys: Vec<&str> = pages(&got).iter().map(|p| p.key.as_str()).collect();
    assert_eq!(keys, ["urn:uuid:after"]);
    let w = warnings(&got);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains(&format!("exceeds the {}-byte cap", limits.max_body)),
        "{w:?}"
    );
}

#[test]
fn oversized_record_is_skipped_without_reading_it_into_memory() {
    let dir = tempfile::tempdir().unwrap();
    let big = html_response("big", "http://a.example/big", &"x".repeat(10_000));
    let small = html_response("small", "http://a.example/small", "<html>s</html>");
    let p = write(dir.path(), "big.warc.gz", &gz(&[big, small].concat()));
    let limits = Limits {
        max_record: 4096,
        ..Limits::default()
    };
    let got = items_with(&p, limits);
    let keys: Vec<&str> = pages(&got).iter().map(|p| p.key.as_str()).collect();
    assert_eq!(keys, ["urn:uuid:small"]);
    let w = warnings(&got);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("exceeds the 4096-byte limit"), "{w:?}");
}

#[test]
fn resource_records_with_html_are_pages() {
    let dir = tempfile::tempdir().unwrap();
    let res = warc_record(
        "resource",
        &[
            ("WARC-Record-ID", "<urn:uuid:r>"),
            ("WARC-Target-URI", "file:///site/index.html"),
            ("Content-Type", "text/html"),
        ],
        b"<html>resource</html>",
    );
    let png = warc_record(
        "resource",
        &[
            ("WARC-Target-URI", "file:///site/a.png"),
            ("Content-Type", "image/png"),
        ],
        b"\x89PNG",
    );
    let p = write(dir.path(), "r.warc", &[res, png].concat());
    let got = items(&p);
    let pg = pages(&got);
    assert_eq!(pg.len(), 1);
    assert_eq!(pg[0].url, "file:///site/index.html");
    assert_eq!(pg[0].body, b"<html>resource</html>");
}

fn arc_record(url: &str, date: &str, ct: &str, payload: &[u8]) -> Vec<u8> {
    let mut r = format!("{url} 1.2.3.4 {date} {ct} {}\n", payload.len()).into_bytes();
    r.extend_from_slice(payload);
    r.push(b'\n');
    r
}

fn arc_file(records: &[Vec<u8>]) -> Vec<u8> {
    let desc = b"1 0 Test\nURL IP-address Archive-date Content-type Archive-length\n";
    let mut out = arc_record("filedesc://t.arc", "20080101000000", "text/plain", desc);
    for r in records {
        out.extend_from_slice(r);
    }
    out
}

#[test]
fn arc_records_become_pages_keyed_by_date_and_url() {
    let dir = tempfile::tempdir().unwrap();
    let page = http(
        "200 OK",
        &[("Content-Type", "text/html")],
        b"<html>arc page</html>",
    );
    let img = http("200 OK", &[("Content-Type", "image/gif")], b"GIF89a");
    let spaced = http(
        "200 OK",
        &[("Content-Type", "text/html")],
        b"<html>spaces</html>",
    );
    let bytes = arc_file(&[
        arc_record("http://b.example/", "20080102030405", "text/html", &page),
        arc_record(
            "http://b.example/i.gif",
            "20080102030406",
            "image/gif",
            &img,
        ),
        arc_record(
            "http://b.example/a b",
            "20080102030407",
            "text/html",
            &spaced,
        ),
    ]);
    for (name, data) in [("t.arc", bytes.clone()), ("t.arc.gz", gz(&bytes))] {
        let p = write(dir.path(), name, &data);
        let got = items(&p);
        assert_eq!(warnings(&got), Vec::<String>::new(), "{name}");
        let pg = pages(&got);
        assert_eq!(pg.len(), 2, "{name}");
        assert_eq!(pg[0].key, "20080102030405/http://b.example/");
        assert_eq!(pg[0].url, "http://b.example/");
        assert_eq!(pg[0].body, b"<html>arc page</html>");
        assert_eq!(pg[1].url, "http://b.example/a b");
    }
}

#[test]
fn arc_bad_header_and_truncation_are_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let page = http(
        "200 OK",
        &[("Content-Type", "text/html")],
        b"<html>ok</html>",
    );
    let good = arc_record("http://b.example/ok", "20080102030405", "text/html", &page);
    let bad = b"http://b.example/bad 1.2.3.4 20080102030405 text/html twelve\nHTTP/1.1 200 OK\nContent-Type: text/html\n\n<html>\n".to_vec();
    let cut = arc_record("http://b.example/cut", "20080102030409", "text/html", &page);
    let cut = cut.get(..cut.len() - 6).unwrap_or(&[]).to_vec();
    let bytes = arc_file(&[bad.clone(), good, cut]);
    let p = write(dir.path(), "bad.arc", &bytes);
    let got = items(&p);
    let pg = pages(&got);
    assert_eq!(pg.len(), 1);
    assert_eq!(pg[0].url, "http://b.example/ok");
    let w = warnings(&got);
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(w[0].contains("bad ARC record header"), "{w:?}");
    assert!(w[1].contains("truncated record"), "{w:?}");
}

#[test]
fn manifest_bad_lines_are_warnings_with_line_numbers() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("docs")).unwrap();
    write(dir.path(), "docs/a.html", b"<p>a</p>");
    write(dir.path(), "docs/b.html", b"<p>b</p>");
    // Columns in an unusual order, with an extra one.
    let manifest = "path\textra\tdoc_id\turl\n\
                    docs/a.html\tx\tA\thttp://m.example/a\n\
                    docs/b.html\tx\n\
                    \n\
                    docs/b.html\tx\t\thttp://m.example/b\n\
                    docs/missing.html\tx\tM\thttp://m.example/m\n\
                    docs/b.html\tx\tA\thttp://m.example/a2\n\
                    docs/b.html\tx\tB\thttp://m.example/b\r\n";
    let p = write(dir.path(), "manifest.tsv", manifest.as_bytes());
    let got = items(&p);
    let pg = pages(&got);
    let got_pages: Vec<(&str, &str, &[u8])> = pg
        .iter()
        .map(|p| (p.key.as_str(), p.url.as_str(), p.body.as_slice()))
        .collect();
    assert_eq!(
        got_pages,
        [
            ("A", "http://m.example/a", &b"<p>a</p>"[..]),
            ("B", "http://m.example/b", &b"<p>b</p>"[..])
        ]
    );
    let w = warnings(&got);
    assert_eq!(w.len(), 4, "{w:?}");
    let m = p.display().to_string();
    assert!(w[0].starts_with(&format!("{m}:3: expected 4")), "{w:?}");
    assert!(w[1].starts_with(&format!("{m}:5: empty doc_id")), "{w:?}");
    assert!(
        w[2].starts_with(&format!("{m}:6: ")) && w[2].contains("missing.html"),
        "{w:?}"
    );
    assert!(
        w[3].starts_with(&format!("{m}:7: doc_id \"A\" listed again")),
        "{w:?}"
    );
}

#[test]
fn manifest_without_required_columns_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "m.tsv", b"id\turl\tfile\nx\ty\tz\n");
    assert!(matches!(read(&p), Err(neardup::Error::Input { .. })));
}

#[test]
fn directory_is_recursive_byte_ordered_with_stem_collisions_resolved() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join("sub")).unwrap();
    for name in [
        "b.html",
        "a.html",
        "a.htm",
        "B.html",
        "sub/z.html",
        ".hidden.html",
        "style.css",
        "c",
    ] {
        write(root, name, name.as_bytes());
    }
    let got = items(root);
    let w = warnings(&got);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("\"a\"") && w[0].contains("a.htm, a.html"),
        "{w:?}"
    );
    let pg = pages(&got);
    let keys: Vec<&str> = pg.iter().map(|p| p.key.as_str()).collect();
    assert_eq!(keys, ["B", "a.htm", "a.html", "b", "c", "sub/z"]);
    let bodies: Vec<&[u8]> = pg.iter().map(|p| p.body.as_slice()).collect();
    assert_eq!(
        bodies,
        [
            &b"B.html"[..],
            b"a.htm",
            b"a.html",
            b"b.html",
            b"c",
            b"sub/z.html"
        ]
    );
    assert!(pg.iter().all(|p| p.url.starts_with("file:///")));
    assert!(pg[5].url.ends_with("/sub/z.html"), "{}", pg[5].url);
}

#[test]
fn directory_files_over_the_limit_are_warnings() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "big.html", &[b'x'; 2000]);
    write(dir.path(), "small.html", b"<p>");
    let got = items_with(
        dir.path(),
        Limits {
            max_record: 1000,
            ..Limits::default()
        },
    );
    assert_eq!(pages(&got).len(), 1);
    let w = warnings(&got);
    assert_eq!(w.len(), 1);
    assert!(
        w[0].contains("big.html") && w[0].contains("1000-byte limit"),
        "{w:?}"
    );
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    fn sample() -> Vec<u8> {
        let mut recs = mixed_records();
        recs.push(html_response(
            "5",
            "http://a.example/5",
            "<html>five</html>",
        ));
        recs.concat()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]

        /// Random byte edits and a random cut of a plain and a gzipped WARC
        /// (and the same bytes read as ARC): the reader must end, without
        /// panicking, and never yield more pages than the file has records.
        #[test]
        fn mutated_archives_terminate(
            edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..12),
            cut in any::<usize>(),
            gzipped in any::<bool>(),
            as_arc in any::<bool>(),
        ) {
            let plain = sample();
            let mut bytes = if gzipped {
                mixed_records().iter().map(|r| gz(r)).collect::<Vec<_>>().concat()
            } else {
                plain
            };
            let n = bytes.len();
            for (pos, val) in edits {
                if let Some(b) = bytes.get_mut(pos % n) {
                    *b = val;
                }
            }
            bytes.truncate(cut % (n + 1));
            let dir = tempfile::tempdir().unwrap();
            let name = if as_arc { "m.arc" } else { "m.warc" };
            let p = write(dir.path(), name, &bytes);
            if let Ok(it) = super::super::open(&p) {
                let got: Vec<Item> = it.take(10_000).collect();
                prop_assert!(got.len() < 10_000);
                prop_assert!(pages(&got).len() <= 8);
            }
        }
    }
}

#[test]
fn corrupt_whole_file_gzip_loses_the_rest_with_few_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let recs: Vec<Vec<u8>> = (0..200)
        .map(|i| {
            html_response(
                &i.to_string(),
                &format!("http://a.example/{i}"),
                &format!("<html>{i} {}</html>", "text ".repeat(i)),
            )
        })
        .collect();
    let mut bytes = gz(&recs.concat());
    let mid = bytes.len() / 2;
    for b in bytes.iter_mut().skip(mid).take(16) {
        *b ^= 0xff;
    }
    let p = write(dir.path(), "whole.warc.gz", &bytes);
    let got = items(&p);
    let n = pages(&got).len();
    // Pages before the damage survive, the rest of the single member is lost.
    assert!(n > 0 && n < 200, "{n} pages");
    let keys: Vec<String> = (0..n).map(|i| format!("urn:uuid:{i}")).collect();
    let got_keys: Vec<String> = pages(&got).iter().map(|p| p.key.clone()).collect();
    assert_eq!(got_keys, keys);
    // Deflate decodes damaged data into garbage without noticing until the
    // member's CRC; the first symptom is a broken record. One warning per
    // lost stretch, not one per garbage line.
    let w = warnings(&got);
    assert!(!w.is_empty() && w.len() <= 2, "{w:?}");
}
