//! Batch throughput: `batch::run_items` over 512 in-memory pages built from
//! the fixture pages (numbered word changes, so exact copies, near
//! duplicates and unique pages mix), into a cluster collector, at 1 and 2
//! analysis threads. Measures the driver plus the whole per-page pipeline;
//! file I/O and output formatting are left out.
//!
//!     cargo bench --bench batch

use std::path::Path;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use neardup::Config;
use neardup::Deduper;
use neardup_batch::input::{Item, Page};
use neardup_batch::{run_items, Options};
use neardup_output::ClusterSink;

fn pages() -> Vec<Page> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/pages");
    let article = std::fs::read_to_string(root.join("article.html")).unwrap_or_default();
    let unrelated = std::fs::read_to_string(root.join("unrelated.html")).unwrap_or_default();
    (0..512)
        .map(|i| {
            let base = i % 97;
            let mut body = if base % 2 == 0 {
                article.replace("storm", &format!("storm{base}"))
            } else {
                unrelated.replace("tomatoes", &format!("tomatoes{base}"))
            };
            if i % 3 == 0 {
                body = body.replace("morning", &format!("morning{i}"));
            }
            Page {
                key: format!("p{i}"),
                url: format!("https://s{}.example/p{i}", i % 7),
                body: body.into_bytes(),
                content_type: None,
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let pages = pages();
    let bytes: usize = pages.iter().map(|p| p.body.len()).sum();
    let mut group = c.benchmark_group("batch");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(20);
    for threads in [1, 2] {
        group.bench_with_input(BenchmarkId::new("run_items", threads), &threads, |b, &t| {
            b.iter(|| {
                let mut deduper = Deduper::new(Config::default()).unwrap();
                let mut sink = ClusterSink::new();
                let items = pages.clone().into_iter().map(|p| Ok(Item::Page(p)));
                let options = Options {
                    threads: t,
                    ..Options::default()
                };
                let summary =
                    run_items(Box::new(items), &mut deduper, &options, &mut sink).unwrap();
                // The input holds copies: a run that finds none is broken.
                assert!(summary.verdicts.unique < summary.pages);
                summary
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
