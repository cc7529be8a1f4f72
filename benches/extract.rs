//! Extraction throughput: our streaming extractor (tokenize + tree +
//! classify + links) vs scraper (html5ever DOM) parse + text walk, on the
//! readability test pages (../shared) or, without them, on the fixtures in
//! testdata/extract. Reports MB/s of HTML (criterion "thrpt").
//!
//! `cargo bench --bench extract`

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use neardup::config::{ExtractConfig, ExtractMode};
use url::Url;

fn pages() -> Vec<String> {
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
        .iter()
        .filter_map(|f| std::fs::read(f).ok())
        .map(|b| neardup::decode::decode(&b, None).text)
        .collect()
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
                let e = neardup::extract::extract(p, url.as_ref(), &config);
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

criterion_group!(benches, bench);
criterion_main!(benches);
