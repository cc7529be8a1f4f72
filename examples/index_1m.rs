//! The persistent index at scale: bytes per page in RAM and on disk, and
//! check latency with the record cache hit or missed.
//!
//! ```text
//! cargo run --release --example index_1m -- build PATH [PAGES] [CACHE_BYTES]
//! cargo run --release --example index_1m -- probe PATH [PAGES] [CACHE_BYTES]
//! ```
//!
//! `build` creates the redb index at PATH and ingests PAGES (default
//! 1,000,000) generated pages through the real pipeline
//! (`Deduper::analyze_text` on 2 threads, `decide` in order, a flush every
//! 16,384 pages). Pages are generated text, not crawled HTML: 250 words
//! each from a 20,000-word vocabulary (xorshift, seeded by page number);
//! every 10th page is a near copy of an earlier page (8 words changed).
//! `probe` reopens the index in a fresh process (so RSS is not inflated by
//! the ingest's freed memory), prints RSS, the file size and the heap per
//! tier, then times `decide` on 2,000 exact copies (at new URLs) of the
//! most recently indexed pages (records in the cache) and of the first
//! pages (evicted: read from the file), then on near copies of random
//! earlier pages and on new pages, printing p50 and p99. With
//! `DROP_CACHES=1` (Linux, root) the OS page cache is dropped before the
//! cache-miss and near-copy probes, so their record reads hit the disk.

use std::path::Path;
use std::time::Instant;

use neardup::Config;
use neardup::Deduper;
use neardup::VerdictKind;
use rayon::prelude::*;

const WORDS: usize = 250;
const WINDOW: usize = 1024;
/// Pages per flush (one fsynced redb commit): a crawler flushes before it
/// acknowledges; here commits are batched so the run measures the index,
/// not the disk's fsync latency.
const FLUSH_EVERY: u64 = 16 * 1024;
const PROBES: usize = 2000;

/// Deterministic page text: page `n`'s words, or for every 10th page a
/// near copy of an earlier page.
fn text(n: u64) -> String {
    let (base, edits) = if n % 10 == 9 && n > 100 {
        (n * 7 % (n - 1), 8)
    } else {
        (n, 0)
    };
    let mut x = base.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut e = n.wrapping_mul(0xD1B5_4A32_D192_ED03) | 1;
    let mut out = String::with_capacity(WORDS * 7);
    for i in 0..WORDS {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let mut w = x % 20_000;
        if edits > 0 && i % (WORDS / edits) == 3 {
            e ^= e << 13;
            e ^= e >> 7;
            e ^= e << 17;
            w = e % 20_000;
        }
        for _ in 0..3 + (x >> 40) % 4 {
            out.push(char::from(b'a' + (w % 26) as u8));
            w = w / 26 + 7;
        }
        out.push(if i % 12 == 11 { '\n' } else { ' ' });
    }
    out
}

fn url(n: u64) -> String {
    format!("https://site{}.example/page/{n}", n % 5000)
}

/// `VmRSS` and `VmHWM` of this process, in bytes.
fn rss() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
            .map_or(0, |kb| kb * 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn mib(b: u64) -> f64 {
    b as f64 / (1024.0 * 1024.0)
}

fn open(path: &Path, cache: usize) -> anyhow::Result<Deduper> {
    let mut config = Config::default();
    config.index.cache_bytes = cache;
    Ok(Deduper::open(config, &neardup::Registry::default(), path)?)
}

fn report(d: &Deduper, path: &Path, pages: u64) -> anyhow::Result<()> {
    let (rss, hwm) = rss();
    let file = std::fs::metadata(path)?.len();
    let indexed = d.stats().indexed.max(1);
    println!(
        "indexed {indexed} of {pages} pages; RSS {:.1} MiB ({:.0} B/indexed page), peak {:.1} MiB; \
         file {:.1} MiB ({:.0} B/indexed page)",
        mib(rss),
        rss as f64 / indexed as f64,
        mib(hwm),
        mib(file),
        file as f64 / indexed as f64
    );
    let tiers: Vec<String> = d
        .memory()
        .iter()
        .map(|(t, b)| format!("{t} {:.0}", *b as f64 / indexed as f64))
        .collect();
    println!("heap B/indexed page: {}", tiers.join(", "));
    Ok(())
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Times `decide` alone on exact copies of pages `seeds`, at new URLs.
fn probe(d: &mut Deduper, label: &str, seeds: impl Iterator<Item = u64>) -> anyhow::Result<()> {
    let mut times = Vec::new();
    let mut dups = 0;
    for (i, n) in seeds.enumerate() {
        let a = d.analyze_text(
            "probe",
            &format!(
                "https://probe.example/{:x}/{i}",
                neardup_api::hash64(label.as_bytes())
            ),
            &text(n),
        );
        let t = Instant::now();
        let v = d.decide(a)?;
        times.push(t.elapsed().as_secs_f64() * 1e6);
        if v.kind != VerdictKind::Unique {
            dups += 1;
        }
    }
    times.sort_by(f64::total_cmp);
    println!(
        "decide, {label}: p50 {:.0} us, p99 {:.0} us ({dups} of {} matched)",
        percentile(&times, 0.5),
        percentile(&times, 0.99),
        times.len()
    );
    Ok(())
}

/// With `DROP_CACHES=1` (Linux, root): writes the index's dirty pages and
/// drops the OS page cache, so the next record-cache misses read the disk
/// rather than memory. Returns a note for the probe's label.
fn drop_os_cache() -> &'static str {
    if std::env::var_os("DROP_CACHES").is_none_or(|v| v != "1") {
        return "";
    }
    let synced = std::process::Command::new("sync")
        .status()
        .is_ok_and(|s| s.success());
    match std::fs::write("/proc/sys/vm/drop_caches", "1") {
        Ok(()) if synced => ", OS page cache dropped first",
        Ok(()) | Err(_) => {
            eprintln!("note: could not drop the OS page cache (needs root on Linux)");
            ""
        }
    }
}

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_default();
    let path = std::path::PathBuf::from(args.next().unwrap_or_else(|| "index-1m.redb".into()));
    let pages: u64 = args.next().map_or(Ok(1_000_000), |s| s.parse())?;
    let cache: usize = args.next().map_or(Ok(64 << 20), |s| s.parse())?;
    match mode.as_str() {
        "build" => {
            anyhow::ensure!(
                !path.exists(),
                "{} exists: build starts from nothing",
                path.display()
            );
            let started = Instant::now();
            let mut d = open(&path, cache)?;
            let mut next = 0u64;
            while next < pages {
                let end = (next + WINDOW as u64).min(pages);
                let analyzed: Vec<_> = (next..end)
                    .into_par_iter()
                    .map(|n| d.analyze_text(&format!("p{n}"), &url(n), &text(n)))
                    .collect();
                for a in analyzed {
                    d.decide(a)?;
                }
                next = end;
                if next % FLUSH_EVERY == 0 || next == pages {
                    d.flush()?;
                }
                if next % 100_000 == 0 {
                    eprintln!("{next} pages, {:.0} s", started.elapsed().as_secs_f64());
                }
            }
            let s = d.stats();
            println!(
                "built {pages} pages in {:.0} s ({:.0} pages/s): {} unique, {} duplicates, {} near duplicates",
                started.elapsed().as_secs_f64(),
                pages as f64 / started.elapsed().as_secs_f64(),
                s.verdicts.unique,
                s.verdicts.duplicates,
                s.verdicts.near_duplicates
            );
            report(&d, &path, pages)?;
        }
        "probe" => {
            let started = Instant::now();
            let mut d = open(&path, cache)?;
            println!(
                "reopened (candidate indexes rebuilt from the file) in {:.1} s, cache_bytes {cache}",
                started.elapsed().as_secs_f64()
            );
            report(&d, &path, pages)?;
            // Warm the cache with the newest pages, then probe them (hits)
            // and the oldest (misses: evicted, or never read since open).
            let hot = pages.saturating_sub(PROBES as u64)..pages;
            for n in hot.clone() {
                let a = d.analyze_text("warm", &format!("https://warm.example/{n}"), &text(n));
                d.decide(a)?;
            }
            let hot = hot.filter(|n| n % 10 != 9);
            probe(&mut d, "exact copies of the newest pages (cache hits)", hot)?;
            let cold = drop_os_cache();
            probe(
                &mut d,
                &format!("exact copies of the oldest pages (cache misses{cold})"),
                (0..PROBES as u64).filter(|n| n % 10 != 9),
            )?;
            let cold = drop_os_cache();
            // Pages beyond the index: text(n) for n % 10 == 9 is a near copy
            // of a random earlier page (mostly not cached), other n are new.
            let beyond = pages + 1_000_000;
            probe(
                &mut d,
                &format!("near copies of random earlier pages{cold}"),
                (beyond..).filter(|n| n % 10 == 9).take(PROBES),
            )?;
            probe(
                &mut d,
                "new pages",
                (beyond..).filter(|n| n % 10 != 9).take(PROBES),
            )?;
            let (rss, hwm) = rss();
            println!(
                "after probes: RSS {:.1} MiB, peak {:.1} MiB",
                mib(rss),
                mib(hwm)
            );
        }
        _ => anyhow::bail!("usage: index_1m build|probe PATH [PAGES] [CACHE_BYTES]"),
    }
    Ok(())
}
