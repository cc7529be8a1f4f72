//! Candidate index benchmarks: SimHash query + insert latency at 10 M
//! fingerprints, chunk `candidates()` latency at 1 M documents, and bytes
//! per page of every tier (exact and SimHash at 10 M pages, chunks at 1 M
//! and 10 M pages of 150 chunk hashes).
//!
//! All signatures are generated (uniform random, SplitMix64 with fixed
//! seeds), so runs are reproducible. Run with
//! `cargo bench --bench index`; it prints a memory table and a per-op
//! latency table (individually timed operations, p50/p90/p99) to stdout
//! before criterion's own estimates. Peak memory is about 4 GB (the 10 M
//! page chunk table while it grows) and the run takes a few minutes.
//! `NEARDUP_BENCH_PAGES=1000000` scales the 10 M sizes down for a quick run;
//! `NEARDUP_BENCH_TIERS=simhash` (a comma list of exact, simhash, chunk)
//! runs only some tiers.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;
use neardup::{ChunkIndex, ExactIndex, SimhashIndex};
use neardup_api::{CandidateIndex, DocId, Signature};

// The workspace's seeded generator.
use neardup_api::SplitMix64 as Rng;

/// Chunk hashes per generated page.
const SET_LEN: usize = 150;

/// Refills `sig` with a sorted, deduplicated set of `SET_LEN` random hashes.
fn fill_set(rng: &mut Rng, sig: &mut Signature) {
    if let Signature::Set(v) = sig {
        v.clear();
        while v.len() < SET_LEN {
            let x = rng.next_u64();
            v.push(x as u32);
            v.push((x >> 32) as u32);
        }
        v.truncate(SET_LEN);
        v.sort_unstable();
        v.dedup();
    }
}

/// Pages for the "10 M" rows (overridable for quick runs).
fn big_n() -> usize {
    std::env::var("NEARDUP_BENCH_PAGES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000_000)
}

/// Returns true if and only if the tier was selected (all by default).
fn selected(tier: &str) -> bool {
    std::env::var("NEARDUP_BENCH_TIERS").map_or(true, |s| s.split(',').any(|t| t.trim() == tier))
}

fn row(table: &mut Vec<String>, tier: &str, idx: &dyn CandidateIndex, build: Duration) {
    table.push(format!(
        "{:<22} {:>11} {:>10.1} {:>12.1} {:>9.1}",
        tier,
        idx.len(),
        idx.heap_bytes() as f64 / idx.len().max(1) as f64,
        idx.heap_bytes() as f64 / (1 << 20) as f64,
        build.as_secs_f64()
    ));
}

fn percentiles(mut ns: Vec<u64>) -> String {
    ns.sort_unstable();
    let at = |p: f64| {
        ns.get(((ns.len() as f64 - 1.0) * p) as usize)
            .copied()
            .unwrap_or(0)
    };
    format!(
        "p50 {:>6} ns  p90 {:>6} ns  p99 {:>6} ns  ({} ops)",
        at(0.5),
        at(0.9),
        at(0.99),
        ns.len()
    )
}

fn main() {
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    let n = big_n();
    let mut mem = vec![format!(
        "{:<22} {:>11} {:>10} {:>12} {:>9}",
        "tier", "pages", "bytes/page", "heap MiB", "build s"
    )];
    let mut lat = Vec::new();

    // Exact tier.
    if selected("exact") {
        let mut rng = Rng(1);
        let mut idx = ExactIndex::default();
        let t = Instant::now();
        for id in 0..n as DocId {
            idx.insert(id, &Signature::Fingerprint(rng.next_u64()));
        }
        row(&mut mem, "exact", &idx, t.elapsed());
    }

    // SimHash tier, k = 3.
    if selected("simhash") {
        let mut rng = Rng(2);
        let mut idx = SimhashIndex::new(3);
        let t = Instant::now();
        for id in 0..n as DocId {
            idx.insert(id, &Signature::Fingerprint(rng.next_u64()));
        }
        row(&mut mem, "simhash k=3", &idx, t.elapsed());

        // Individually timed query + insert of new fingerprints (removed
        // again afterwards, so the index stays at n).
        let mut next_id = n as DocId;
        let mut out = Vec::new();
        let mut ns = Vec::with_capacity(200_000);
        let (mut q_ns, mut i_ns) = (Vec::with_capacity(200_000), Vec::with_capacity(200_000));
        let mut added = Vec::with_capacity(200_000);
        for _ in 0..200_000 {
            let sig = Signature::Fingerprint(rng.next_u64());
            let t = Instant::now();
            out.clear();
            idx.candidates(&sig, &mut out);
            let t_mid = Instant::now();
            idx.insert(next_id, &sig);
            let t_end = Instant::now();
            ns.push((t_end - t).as_nanos() as u64);
            q_ns.push((t_mid - t).as_nanos() as u64);
            i_ns.push((t_end - t_mid).as_nanos() as u64);
            added.push((next_id, sig));
            next_id += 1;
        }
        for (id, sig) in added.drain(..) {
            idx.remove(id, &sig);
        }
        lat.push(format!(
            "simhash k=3 query+insert @{n}: {}",
            percentiles(ns)
        ));
        lat.push(format!("  of which query: {}", percentiles(q_ns)));
        lat.push(format!("  of which insert: {}", percentiles(i_ns)));

        // A query 3 bits away from an indexed fingerprint must find it.
        let mut probe = Rng(2);
        let known: Vec<u64> = (0..1000).map(|_| probe.next_u64()).collect();
        c.bench_function(&format!("simhash_k3_query_insert_{n}"), |b| {
            b.iter_custom(|iters| {
                let mut added = Vec::with_capacity(iters as usize);
                let start = Instant::now();
                for i in 0..iters {
                    let fp = rng.next_u64();
                    out.clear();
                    idx.candidates(&Signature::Fingerprint(fp), &mut out);
                    idx.insert(next_id, &Signature::Fingerprint(fp));
                    added.push((next_id, fp));
                    next_id += 1;
                    if i % 1024 == 0 {
                        let j = (i / 1024) as usize % known.len();
                        let q = known.get(j).copied().unwrap_or(0) ^ 0b1011;
                        out.clear();
                        idx.candidates(&Signature::Fingerprint(q), &mut out);
                        assert!(out.contains(&(j as DocId)), "missed a match");
                    }
                }
                let elapsed = start.elapsed();
                for (id, fp) in added {
                    idx.remove(id, &Signature::Fingerprint(fp));
                }
                black_box(&out);
                elapsed
            })
        });
        assert_eq!(idx.len(), n);
    }

    // Chunk tier: 1 M pages (memory, then candidates latency), then 10 M.
    if selected("chunk") {
        let mut rng = Rng(3);
        let mut idx = ChunkIndex::new(1000);
        let mut sig = Signature::Set(Vec::with_capacity(SET_LEN + 1));
        let small = n.min(1_000_000);
        // Keep some pages to derive near-duplicate queries from.
        let mut kept: Vec<(DocId, Vec<u32>)> = Vec::new();
        let t = Instant::now();
        for id in 0..small as DocId {
            fill_set(&mut rng, &mut sig);
            idx.insert(id, &sig);
            if id % 1000 == 0 {
                if let Signature::Set(v) = &sig {
                    kept.push((id, v.clone()));
                }
            }
        }
        row(&mut mem, "chunks (bottom-16)", &idx, t.elapsed());

        // Queries: an indexed page with 40% of its chunks replaced
        // (resemblance ~0.43), so each query has a true candidate.
        let queries: Vec<(DocId, Signature)> = kept
            .iter()
            .map(|(id, v)| {
                let mut q: Vec<u32> = v
                    .iter()
                    .map(|&x| {
                        if rng.next_u64() % 10 < 4 {
                            rng.next_u64() as u32
                        } else {
                            x
                        }
                    })
                    .collect();
                q.sort_unstable();
                q.dedup();
                (*id, Signature::Set(q))
            })
            .collect();
        let mut out = Vec::new();
        let mut ns = Vec::new();
        for (id, q) in &queries {
            let t = Instant::now();
            out.clear();
            idx.candidates(q, &mut out);
            ns.push(t.elapsed().as_nanos() as u64);
            assert_eq!(out.first(), Some(id), "near duplicate not ranked first");
        }
        lat.push(format!("chunks candidates @{small}: {}", percentiles(ns)));
        let mut qi = 0usize;
        c.bench_function(&format!("chunk_candidates_{small}"), |b| {
            b.iter(|| {
                let (id, q) = &queries[qi % queries.len()];
                qi += 1;
                out.clear();
                idx.candidates(q, &mut out);
                assert_eq!(out.first(), Some(id));
            })
        });

        if n > small {
            let t = Instant::now();
            for id in small as DocId..n as DocId {
                fill_set(&mut rng, &mut sig);
                idx.insert(id, &sig);
            }
            row(&mut mem, "chunks (bottom-16)", &idx, t.elapsed());
        }
    }

    println!("\n== index memory (heap bytes / pages; build s = insert time since the tier's previous row) ==");
    for l in &mem {
        println!("{l}");
    }
    println!("\n== per-op latency (individually timed) ==");
    for l in &lat {
        println!("{l}");
    }
    println!();
    c.final_summary();
}
