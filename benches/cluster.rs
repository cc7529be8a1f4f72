//! Clustering: union-find assignment and per-site summaries over one million
//! pages with a realistic share of matches (a third of pages match an earlier
//! one, in chains and stars).
//!
//! `cargo bench --bench cluster`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use neardup::VerdictKind;
use neardup::{assign, summarize, Member};

fn members(n: usize) -> Vec<Member> {
    // A fixed seed keeps the input identical across runs.
    let mut rng = neardup_api::SplitMix64::new(0x9E37_79B9_7F4A_7C15);
    (0..n)
        .map(|i| {
            let r = rng.next_u64();
            let of = (i > 0 && r % 3 == 0).then(|| rng.below(i));
            Member {
                key: format!("doc-{i:07}"),
                url: format!("https://site{}.example/p/{i}", r % 1000),
                site: format!("site{}.example", r % 1000),
                kind: if of.is_some() {
                    VerdictKind::NearDuplicate
                } else {
                    VerdictKind::Unique
                },
                of,
                similarity: 0.9,
                containment: 0.9,
                detector: of.map(|_| "chunks".to_owned()),
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let n = 1_000_000;
    let m = members(n);
    let mut g = c.benchmark_group("cluster");
    g.sample_size(10);
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("assign_1m", |b| b.iter(|| assign(&m)));
    let roots = assign(&m);
    g.bench_function("summarize_1m", |b| b.iter(|| summarize(&m, &roots)));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
