//! Extraction throughput: our streaming extractor (tokenize + tree +
//! classify + links) vs scraper (html5ever DOM) parse + text walk, on the
//! readability test pages (../shared) or, without them, on the fixtures in
//! testdata/extract. Reports MB/s of HTML (criterion "thrpt").
//!
//! `cargo bench --bench extract`

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use neardup::{ExtractConfig, ExtractMode};
use url::Url;

fn page_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = root.join("../shared/datasets/readability-test-pages/test/test-pages");
    let mut files: Vec<PathBuf> = Vec::new();
    if let Ok(rd) = std::fs::read_dir(&shared) {
        for e in rd.flatten() {
            let f = e.path().join("source.html");
            if f.is_file() {
                files.push(f);
            }
        }
    }
    if files.is_empty() {
        eprintln!("note: ../shared absent; benchmarking testdata/extract fixtures");
        if let Ok(rd) = std::fs::read_dir(root.join("testdata/extract")) {
            files.extend(
                rd.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "html")),
            );
        }
    }
    files.sort();
    files
}

fn pages() -> Vec<String> {
    page_files()
        .iter()
        .filter_map(|f| std::fs::read(f).ok())
        .map(|b| neardup_html::decode(&b, None).text.into_owned())
        .collect()
}

/// Decoding: the raw page bytes (mostly UTF-8 with a declaration: the fast
/// path), and the same text re-encoded as windows-1252 with no declaration
/// (the detection path).
fn decode(c: &mut Criterion) {
    let raw: Vec<Vec<u8>> = page_files()
        .iter()
        .filter_map(|f| std::fs::read(f).ok())
        .collect();
    let latin: Vec<Vec<u8>> = pages()
        .iter()
        .map(|p| encoding_rs::WINDOWS_1252.encode(p).0.into_owned())
        .collect();
    let mut g = c.benchmark_group("decode");
    g.sample_size(10);
    for (name, set) in [("as_served", &raw), ("windows1252_detected", &latin)] {
        let total: usize = set.iter().map(Vec::len).sum();
        g.throughput(Throughput::Bytes(total as u64));
        g.bench_function(name, |b| {
            b.iter(|| {
                set.iter()
                    .map(|p| neardup_html::decode(p, Some("text/html")).text.len())
                    .sum::<usize>()
            })
        });
    }
    g.finish();
}

fn bench(c: &mut Criterion) {
    let pages = pages();
    let total: usize = pages.iter().map(String::len).sum();
    let config = ExtractConfig::default();
    let url = Url::parse("https://example.com/a/b.html").ok();
    let mut g = c.benchmark_group("extract");
    g.throughput(Throughput::Bytes(total as u64));
    g.sample_size(10);
    g.bench_function("neardup_extract", |b| {
        b.iter(|| {
            let mut n = 0;
            for p in &pages {
                let e = neardup_html::extract(p, url.as_ref(), &config);
                n += e.text(ExtractMode::Main).len();
            }
            n
        })
    });
    g.bench_function("scraper_parse_text", |b| {
        b.iter(|| {
            let mut n = 0;
            for p in &pages {
                let doc = scraper::Html::parse_document(p);
                for t in doc.root_element().text() {
                    n += t.split_whitespace().count();
                }
            }
            n
        })
    });
    g.finish();
}

criterion_group!(benches, bench, decode);
criterion_main!(benches);
