//! Exact all-pairs Jaccard (`neardup-allpairs`) on generated corpora of
//! 2,000 (join vs the paper's index-free scan), 10,000 and 100,000
//! documents.
//!
//! Each document is a shingle set of log-uniform size in 50..2000 (mean
//! about 530): 99% private shingles (random 64-bit ids, as real 5-shingles
//! mostly are) and 1% drawn from a pool of 100,000 common shingles (shared
//! phrases, so the join has real posting lists to walk). 10% of the
//! documents are planted near-duplicates: a copy of an earlier document
//! with 0-10% of its shingles replaced and 0-5% added. Shingle multiplicity
//! (for the repetition-weighted length) is 1, plus 1-3 for 5% of shingles.
//! SplitMix64 with fixed seeds: every run sees the same corpus.
//!
//! Run with `cargo bench --bench allpairs`. Before criterion's estimates it
//! prints, for each corpus, the counters of one run per method and the
//! process's peak RSS (VmHWM) so far. `NEARDUP_BENCH_DOCS=20000` replaces
//! the 100,000-document corpus by a smaller one for a quick run.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;
use neardup_allpairs::{all_pairs, length_scan, DocSet, LengthFilter, Options};

// The workspace's seeded generator.
use neardup_api::SplitMix64 as Rng;

const COMMON_POOL: usize = 100_000;

/// A shingle sequence (with repetitions) for a new document.
fn fresh(rng: &mut Rng) -> Vec<u64> {
    // Log-uniform size in 50..2000.
    let size = (50.0 * (40f64).powf(rng.unit())) as usize;
    let mut seq = Vec::with_capacity(size + size / 10);
    for _ in 0..size {
        let id = if rng.below(100) == 0 {
            // Common shingles: ids 0..COMMON_POOL hashed apart.
            Rng(rng.below(COMMON_POOL) as u64).next_u64()
        } else {
            rng.next_u64()
        };
        seq.push(id);
        if rng.below(20) == 0 {
            for _ in 0..1 + rng.below(3) {
                seq.push(id);
            }
        }
    }
    seq
}

/// A near copy of `base`: some shingles replaced, some added.
fn near_copy(rng: &mut Rng, base: &[u64]) -> Vec<u64> {
    let replace = rng.unit() * 0.10;
    let add = rng.unit() * 0.05;
    let mut seq: Vec<u64> = base
        .iter()
        .map(|&id| {
            if rng.unit() < replace {
                rng.next_u64()
            } else {
                id
            }
        })
        .collect();
    for _ in 0..(base.len() as f64 * add) as usize {
        seq.push(rng.next_u64());
    }
    seq
}

fn corpus(n: usize, seed: u64) -> Vec<DocSet> {
    let mut rng = Rng(seed);
    let mut seqs: Vec<Vec<u64>> = Vec::with_capacity(n);
    for i in 0..n {
        let seq = if i > 0 && rng.below(10) == 0 {
            let from = rng.below(i);
            near_copy(&mut rng, &seqs[from])
        } else {
            fresh(&mut rng)
        };
        seqs.push(seq);
    }
    seqs.into_iter().map(DocSet::from_shingles).collect()
}

fn peak_rss() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM"))
                .map(str::to_owned)
        })
        .unwrap_or_else(|| "VmHWM unknown".to_owned())
}

fn options(filter: LengthFilter, count_unfiltered: bool) -> Options {
    Options {
        threshold: 0.9,
        filter,
        count_unfiltered,
    }
}

/// The join variants: name, options.
fn variants() -> Vec<(&'static str, Options)> {
    vec![
        ("join_set_window", options(LengthFilter::Set, false)),
        ("join_set_full_walk", options(LengthFilter::Set, true)),
        ("join_no_filter", options(LengthFilter::None, true)),
        (
            "join_weighted_window",
            options(LengthFilter::Weighted, false),
        ),
    ]
}

fn report(name: &str, docs: &[DocSet], scan: bool) {
    let total: usize = docs.iter().map(DocSet::len).sum();
    println!(
        "corpus {name}: {} docs, {total} shingles (mean {:.0}); {}",
        docs.len(),
        total as f64 / docs.len() as f64,
        peak_rss()
    );
    for (v, o) in variants() {
        let t = Instant::now();
        let Ok(out) = all_pairs(docs, &o) else { return };
        println!(
            "  {v}: {:.2} s {:?}",
            t.elapsed().as_secs_f64(),
            out.counters
        );
    }
    if scan {
        for weighted in [false, true] {
            let t = Instant::now();
            let Ok((pairs, comparisons)) = length_scan(docs, 0.9, weighted) else {
                return;
            };
            println!(
                "  scan weighted={weighted}: {:.2} s, {comparisons} comparisons, {} pairs",
                t.elapsed().as_secs_f64(),
                pairs.len()
            );
        }
    }
    println!("  after runs: {}", peak_rss());
}

fn main() {
    let mut c = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));

    // The paper's index-free scan against the join, where the scan still
    // runs in about a second.
    let tiny = corpus(2_000, 3);
    report("2k", &tiny, true);
    {
        let mut g = c.benchmark_group("allpairs_2k");
        let o = options(LengthFilter::Set, false);
        g.bench_function("join_set_window", |b| {
            b.iter(|| black_box(all_pairs(black_box(&tiny), &o)))
        });
        for weighted in [false, true] {
            let name = if weighted {
                "scan_weighted"
            } else {
                "scan_set"
            };
            g.bench_function(name, |b| {
                b.iter(|| black_box(length_scan(black_box(&tiny), 0.9, weighted)))
            });
        }
        g.finish();
    }
    drop(tiny);

    let small = corpus(10_000, 1);
    report("10k", &small, false);
    {
        let mut g = c.benchmark_group("allpairs_10k");
        for (v, o) in variants() {
            g.bench_function(v, |b| {
                b.iter(|| black_box(all_pairs(black_box(&small), &o)))
            });
        }
        g.finish();
    }
    drop(small);

    let n = std::env::var("NEARDUP_BENCH_DOCS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let big = corpus(n, 2);
    // The scan is O(comparisons x set size): about 10^11 merge steps at
    // 100k documents, so only the join runs here.
    report("big", &big, false);
    let mut g = c.benchmark_group(format!("allpairs_{n}"));
    g.measurement_time(Duration::from_secs(20));
    for (v, o) in variants()
        .into_iter()
        .filter(|(v, _)| *v != "join_no_filter")
    {
        g.bench_function(v, |b| b.iter(|| black_box(all_pairs(black_box(&big), &o))));
    }
    g.finish();
    c.final_summary();
}
