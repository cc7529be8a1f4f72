//! Text normalization throughput in words per second (NFKC, lowercase,
//! segmentation, language detection, stop words, stemming: end to end).
//!
//! `cargo bench --bench text`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use neardup::TextConfig;
use neardup_text::Normalizer;

#[path = "text_corpus.rs"]
mod corpus;

fn normalize(c: &mut Criterion) {
    let (pages, real) = corpus::pages();
    let n = Normalizer::new(&TextConfig::default());
    let english: Vec<&String> = pages
        .iter()
        .filter(|p| n.normalize(p, None).lang == "eng")
        .collect();
    let all: Vec<&String> = pages.iter().collect();
    let source = if real { "readability" } else { "generated" };

    let mut group = c.benchmark_group("normalize");
    for (name, set) in [("english", &english), ("all_languages", &all)] {
        let words: usize = set.iter().map(|p| n.normalize(p, None).words.len()).sum();
        let bytes: usize = set.iter().map(|p| p.len()).sum();
        eprintln!(
            "{source}/{name}: {} pages, {words} words, {bytes} bytes",
            set.len()
        );
        group.throughput(Throughput::Elements(words as u64));
        group.bench_function(format!("{source}_{name}_words"), |b| {
            b.iter(|| {
                let mut total = 0;
                for p in set.iter() {
                    total += n.normalize(black_box(p), None).words.len();
                }
                assert_eq!(total, words);
            })
        });
    }
    group.finish();

    // The machine is shared: wall-clock throughput above depends on load.
    // Also report words per second of this thread's CPU time, with the
    // stop-word vote (the default) and with whatlang on every page,
    // alternating so both see the same machine.
    let whatlang_only = Normalizer::new(&TextConfig {
        stop_word_vote: false,
        ..TextConfig::default()
    });
    for (name, set) in [("english", &english), ("all_languages", &all)] {
        for (variant, norm) in [("vote", &n), ("whatlang_only", &whatlang_only)] {
            let (Some(t0), mut words) = (thread_cpu_ns(), 0usize) else {
                return;
            };
            for _ in 0..20 {
                for p in set.iter() {
                    words += norm.normalize(black_box(p), None).words.len();
                }
            }
            if let Some(t1) = thread_cpu_ns() {
                let secs = (t1 - t0) as f64 / 1e9;
                eprintln!(
                    "{source}/{name}/{variant}: {:.2} M words per CPU-second ({words} words in {secs:.2} s CPU)",
                    words as f64 / secs / 1e6
                );
            }
        }
    }
}

/// This thread's CPU time in nanoseconds (Linux `/proc/thread-self/schedstat`).
fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

criterion_group!(benches, normalize);
criterion_main!(benches);
