//! Unit tests of the deduper.

use super::*;
use crate::verdict::MatchBasis;
use proptest::prelude::*;

fn page(words: &str) -> Vec<u8> {
    format!(
        "<html><head><title>t</title></head><body><article><p>{words}</p></article></body></html>"
    )
    .into_bytes()
}

const LONG: &str = "Researchers at the harbour institute measured how quickly the tide \
    returned after the storm, comparing sensor logs from twelve buoys with satellite \
    images taken every hour, and found that the water rose faster near the old pier \
    than anywhere else along the northern coast of the bay during that week.";

#[test]
fn shrunk_analyses_get_the_same_verdicts() {
    let edited = LONG.replace("twelve", "eleven");
    let pages: Vec<(&str, Vec<u8>)> = vec![
        ("a", page(LONG)),
        ("b", page(LONG)),
        ("c", page(&edited)),
        ("d", page("too short")),
        ("e", page("too short")),
        ("f", page("")),
    ];
    let mut plain = Deduper::new(Config::default()).unwrap();
    let mut shrunk = Deduper::new(Config::default()).unwrap();
    for (key, body) in &pages {
        let url = format!("http://example.com/{key}");
        let want = plain.decide(plain.analyze(key, &url, body, None)).unwrap();
        let mut a = shrunk.analyze(key, &url, body, None);
        shrunk.shrink_for_decide(&mut a);
        assert!(a.doc.words.len() <= 1 && a.doc.text.is_empty());
        let got = shrunk.decide(a).unwrap();
        assert_eq!(got, want, "{key}");
    }
}

#[test]
fn exact_copy_is_a_duplicate_of_the_first_page() {
    let mut d = Deduper::new(Config::default()).unwrap();
    let a = d.check("https://a.example/1", &page(LONG), None).unwrap();
    assert_eq!(a.kind, VerdictKind::Unique);
    assert_eq!(a.indexed_as, Some(0));
    // Different markup and case, same words.
    let copy = format!(
        "<html><head><title>t</title></head><body>\n<div><P>{}</P></div></body></html>",
        LONG.to_uppercase()
    );
    let b = d
        .check("https://b.example/2", copy.as_bytes(), None)
        .unwrap();
    assert_eq!(b.kind, VerdictKind::Duplicate);
    let m = b.matched.unwrap();
    assert_eq!(
        (m.id, &m.basis),
        (Some(0), &MatchBasis::Detector("exact".into()))
    );
    assert_eq!(m.url, "https://a.example/1");
    assert_eq!(b.indexed_as, None, "exact duplicates are not indexed");
    assert_eq!(d.stats().verdicts.duplicates, 1);
}

#[test]
fn inserted_page_is_matched_without_having_been_checked() {
    let mut d = Deduper::new(Config::default()).unwrap();
    let analyzed = d.analyze("seed-1", "https://a.example/1", &page(LONG), None);
    let id = d.insert(analyzed).unwrap().unwrap();
    assert_eq!(d.stats().checked, 0, "insert does not count as a check");
    let v = d.check("https://b.example/2", &page(LONG), None).unwrap();
    assert_eq!(v.kind, VerdictKind::Duplicate);
    let m = v.matched.unwrap();
    assert_eq!((m.id, m.key.as_str()), (Some(id), "seed-1"));
    let empty = d.analyze("e", "https://a.example/e", b"", None);
    assert_eq!(d.insert(empty).unwrap(), None);
}

#[test]
fn without_links_stops_collecting_links_and_earlier_handles_keep_them() {
    let html = b"<html><body><p>Some text about links.</p>\
        <a href=/a.html>a</a> <a href=/b.html>b</a></body></html>";
    let url = "http://e.com/page.html";
    let links = |a: &Analyzer| a.analyze("k", url, html, None).extracted.links;
    let with = Deduper::new(Config::default()).unwrap();
    assert_eq!(links(&with.analyzer()).len(), 2);
    let without = Deduper::new(Config::default()).unwrap().without_links();
    assert!(links(&without.analyzer()).is_empty());
    // A handle taken before keeps collecting; the deduper's own stops.
    let shared = Deduper::new(Config::default()).unwrap();
    let earlier = shared.analyzer();
    let shared = shared.without_links();
    assert_eq!(links(&earlier).len(), 2);
    assert!(links(&shared.analyzer()).is_empty());
}

#[test]
fn removed_page_no_longer_matches() {
    let mut d = Deduper::new(Config::default()).unwrap();
    let id = d
        .check("https://a.example/1", &page(LONG), None)
        .unwrap()
        .indexed_as
        .unwrap();
    assert!(d.remove(id).unwrap());
    assert!(!d.remove(id).unwrap(), "second removal finds nothing");
    let again = d.check("https://a.example/1", &page(LONG), None).unwrap();
    assert_eq!(again.kind, VerdictKind::Unique);
}

#[test]
fn short_pages_are_only_compared_exactly() {
    let mut d = Deduper::new(Config::default()).unwrap();
    let a = d
        .check("https://a.example/1", &page("contact us today"), None)
        .unwrap();
    assert_eq!(a.kind, VerdictKind::Unique);
    assert!(
        a.warnings.iter().any(|w| w.contains("short page")),
        "{:?}",
        a.warnings
    );
    let b = d
        .check("https://a.example/2", &page("contact us tomorrow"), None)
        .unwrap();
    assert_eq!(b.kind, VerdictKind::Unique);
    let c = d
        .check("https://a.example/3", &page("Contact us today"), None)
        .unwrap();
    assert_eq!(c.kind, VerdictKind::Duplicate);
}

#[test]
fn binary_and_empty_bodies_warn_and_are_not_indexed() {
    let mut d = Deduper::new(Config::default()).unwrap();
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10";
    let v = d.check("https://a.example/img", png, None).unwrap();
    assert_eq!(v.kind, VerdictKind::Unique);
    assert!(
        v.warnings.iter().any(|w| w.contains("binary")),
        "{:?}",
        v.warnings
    );
    assert_eq!(v.indexed_as, None);
    let e = d.check("https://a.example/empty", b"", None).unwrap();
    assert!(
        e.warnings.iter().any(|w| w.contains("no text")),
        "{:?}",
        e.warnings
    );
    assert_eq!(e.indexed_as, None);
    assert_eq!(d.stats().indexed, 0);
}

#[test]
fn oversized_body_is_truncated_with_a_warning() {
    let mut config = Config::default();
    config.extract.max_body_bytes = 4096;
    let mut d = Deduper::new(config).unwrap();
    let big = page(&LONG.repeat(100));
    let v = d.check("https://a.example/big", &big, None).unwrap();
    assert!(
        v.warnings.iter().any(|w| w.contains("truncated")),
        "{:?}",
        v.warnings
    );
}

#[test]
fn text_input_signs_like_the_same_words_in_html() {
    let d = Deduper::new(Config::default()).unwrap();
    let from_html = d.analyze("k", "https://a.example/1", &page(LONG), None);
    let text = format!("  {}\n\n", LONG.replace(", ", ",\n"));
    let from_text = d.analyze_text("k", "https://a.example/1", &text);
    assert_eq!(from_text.doc.words, from_html.doc.words);
    // The detectors' signatures; the content evidence after them also
    // holds the HTML page's title, which text input has not.
    let n = d.detector_names().len();
    assert_eq!(from_text.signatures[..n], from_html.signatures[..n]);
    assert!(from_text.warnings.is_empty(), "{:?}", from_text.warnings);
    // Paragraphs become blocks, all of them main content.
    let two = d.analyze_text("k", "https://a.example/2", "first part\n\n\nsecond part");
    let blocks: Vec<&str> = two
        .extracted
        .blocks
        .iter()
        .map(|b| b.text.as_str())
        .collect();
    assert_eq!(blocks, ["first part", "second part"]);
    assert!(two.extracted.blocks.iter().all(|b| b.is_main));
}

#[test]
fn text_bytes_are_decoded_by_their_charset_then_taken_as_text() {
    let d = Deduper::new(Config::default()).unwrap();
    let analyzer = d.analyzer();
    let text = "Le garçon déjà célèbre préféra la forêt\n\nUne deuxième idée très économe";
    let latin1: Vec<u8> = text.chars().map(|c| c as u8).collect();
    let from_text = d.analyze_text("k", "https://a.example/1", text);
    let from_bytes = analyzer.analyze_text_bytes(
        "k",
        "https://a.example/1",
        &latin1,
        Some("text/plain; charset=iso-8859-1"),
    );
    assert_eq!(from_bytes.doc.words, from_text.doc.words);
    assert_eq!(from_bytes.signatures, from_text.signatures);
    assert_eq!(from_bytes.bytes, latin1.len());
    assert!(from_bytes.warnings.is_empty(), "{:?}", from_bytes.warnings);
    // Markup in a text body is not parsed: its tags stay words.
    let markup = analyzer.analyze_text_bytes("k", "https://a.example/2", b"<b>bold</b>", None);
    assert_eq!(markup.extracted.blocks[0].text, "<b>bold</b>");
    // Binary bytes get no words and say why.
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend([0u8; 64]);
    let binary = analyzer.analyze_text_bytes("k", "https://a.example/3", &png, None);
    assert!(binary.doc.words.is_empty());
    assert!(
        binary.warnings.iter().any(|w| w.contains("PNG")),
        "{:?}",
        binary.warnings
    );
}

#[test]
fn oversized_text_is_cut_on_a_character_boundary() {
    let mut config = Config::default();
    config.extract.max_body_bytes = 1025;
    let d = Deduper::new(config).unwrap();
    // 'é' is two bytes: byte 1025 falls inside one.
    let a = d.analyze_text("k", "https://a.example/1", &"é".repeat(1000));
    assert_eq!(a.bytes, 1024);
    assert!(
        a.warnings.iter().any(|w| w.contains("truncated")),
        "{:?}",
        a.warnings
    );
}

#[test]
fn unknown_detector_is_a_clear_error() {
    let mut config = Config::default();
    config.decide.detectors = vec!["exact".into(), "nope".into()];
    let err = Deduper::new(config).unwrap_err().to_string();
    assert!(err.contains("nope") && err.contains("simhash"), "{err}");
}

/// A build without a backend says which feature it lacks, as ripgrep
/// does for PCRE2 (`cargo test -p neardup --no-default-features`, run by
/// CI: in the workspace the CLI turns every feature on).
#[cfg(not(all(feature = "redb", feature = "redis")))]
#[test]
fn a_build_without_a_backend_names_the_feature() {
    let registry = Registry::default();
    #[cfg(not(feature = "redis"))]
    {
        let location = IndexLocation::parse("redis://127.0.0.1:1/0").unwrap();
        let e = Deduper::open_at(Config::default(), &registry, &location).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("no Redis support") && msg.contains("feature `redis`"),
            "{msg}"
        );
    }
    #[cfg(not(feature = "redb"))]
    {
        let location = IndexLocation::parse("index.redb").unwrap();
        let e = Deduper::open_at(Config::default(), &registry, &location).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("no redb support") && msg.contains("feature `redb`"),
            "{msg}"
        );
    }
}

#[cfg(feature = "tokio")]
#[test]
fn shared_deduper_checks_from_async_tasks() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let shared = crate::SharedDeduper::new(Deduper::new(Config::default()).unwrap());
    let kinds = rt.block_on(async {
        let first = shared
            .check("https://a.example/1".into(), page(LONG), None)
            .await
            .unwrap();
        let second = shared
            .check("https://b.example/1".into(), page(LONG), None)
            .await
            .unwrap();
        (first.kind, second.kind)
    });
    assert_eq!(kinds, (VerdictKind::Unique, VerdictKind::Duplicate));
    assert_eq!(shared.with(|d| d.stats().checked).unwrap(), 2);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn check_never_panics_on_arbitrary_bytes(body in proptest::collection::vec(any::<u8>(), 0..4096),
                                              ct in proptest::option::of("[ -~]{0,40}")) {
        let mut d = Deduper::new(Config::default()).unwrap();
        let v = d.check("https://p.example/x", &body, ct.as_deref()).unwrap();
        let again = d.check("https://p.example/y", &body, ct.as_deref()).unwrap();
        if v.indexed_as.is_some() {
            prop_assert!(again.kind.is_drop());
        }
    }

    #[test]
    fn check_never_panics_on_html_like_text(body in "(<[a-z/!]{0,8}[^<>]{0,20}>|[^<]{0,30}){0,60}") {
        let mut d = Deduper::new(Config::default()).unwrap();
        let _ = d.check("https://p.example/x", body.as_bytes(), Some("text/html")).unwrap();
    }
}

/// The stop-word vote must not change any page's language: on every page
/// of ../shared it runs with the vote on and off, and the vote must have
/// settled most of them (else this test would prove nothing).
/// It lives here, not in `text`, because it needs HTML extraction.
/// `cargo test --release --lib stop_word_vote -- --nocapture`
#[test]
fn stop_word_vote_agrees_with_whatlang_on_real_pages() {
    use neardup_html::extract;
    use neardup_html::{ExtractConfig, ExtractMode};
    use neardup_text::{Normalizer, TextConfig};
    let (Some(dev), Some(pan)) = (
        crate::skip::shared("bench/neardup-dev/docs"),
        crate::skip::shared("datasets/pan-text-alignment/susp"),
    ) else {
        return;
    };
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    for dir in [dev, pan] {
        let rd = std::fs::read_dir(&dir).unwrap();
        files.extend(rd.filter_map(|e| e.ok().map(|e| e.path())));
    }
    assert!(!files.is_empty(), "no pages in ../shared");
    files.sort();
    let on = Normalizer::new(&TextConfig::default());
    let off = Normalizer::new(&TextConfig {
        stop_word_vote: false,
        ..TextConfig::default()
    });
    let c = ExtractConfig::default();
    let (mut pages, mut voted) = (0usize, 0usize);
    let mut differ = Vec::new();
    for f in &files {
        let Ok(bytes) = std::fs::read(f) else {
            continue;
        };
        let html = String::from_utf8_lossy(&bytes);
        let e = extract(&html, None, &c);
        let text = e.text(ExtractMode::Main);
        let a = on.normalize(&text, e.lang.as_deref());
        let b = off.normalize(&text, e.lang.as_deref());
        pages += 1;
        voted += usize::from(on.settled_by_vote(&text));
        if a != b {
            differ.push((f.display().to_string(), a.lang, b.lang));
        }
    }
    eprintln!(
        "{pages} pages, {voted} settled by the vote, {} differ",
        differ.len()
    );
    assert!(differ.is_empty(), "{differ:?}");
    assert!(
        voted * 2 > pages,
        "the vote settled only {voted} of {pages}"
    );
}
