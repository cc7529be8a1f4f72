//! `neardup pairs INPUT... --threshold J --shingle K`: every pair of pages
//! whose word-shingle sets have Jaccard >= J, exactly, with the counters of
//! what each filter saved.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context as _;
use neardup::Deduper;
use neardup_allpairs::{
    all_pairs, length_scan, shingle_ids, Counters, DocSet, LengthFilter, Options,
};
use neardup_batch::input::Item;
use rayon::prelude::*;

use super::args::{Args, PairsArgs};

/// Pages analyzed per parallel window: bounds the bodies held in memory.
const WINDOW: usize = 256;

/// One document: its key and its shingles.
struct Doc {
    key: String,
    set: DocSet,
}

/// The documents, split into keys and sets (the join wants a slice of
/// sets; no copy of them is made).
struct Docs {
    keys: Vec<String>,
    sets: Vec<DocSet>,
}

impl Docs {
    fn from(docs: Vec<Doc>) -> Docs {
        let (keys, sets) = docs.into_iter().map(|d| (d.key, d.set)).unzip();
        Docs { keys, sets }
    }
}

/// Runs the command.
pub fn run(args: &Args, a: &PairsArgs) -> anyhow::Result<ExitCode> {
    if !(a.threshold > 0.0 && a.threshold <= 1.0) {
        anyhow::bail!("--threshold must be in (0, 1], got {}", a.threshold);
    }
    if a.shingle == 0 {
        anyhow::bail!("--shingle must be at least 1");
    }
    // Only the terms are needed: the cheapest detector keeps analyze from
    // computing signatures nobody reads.
    let config = super::setup::load_config(args.config.as_deref(), &["exact".to_owned()])?;
    let threads = super::setup::batch_options(args).effective_threads();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("cannot start the thread pool")?;
    let start = Instant::now();
    let docs = pool.install(|| {
        if a.text {
            read_text(&a.inputs, &config, a.shingle)
        } else {
            read_pages(&a.inputs, config, a.shingle)
        }
    })?;
    let read_secs = start.elapsed().as_secs_f64();
    let docs = Docs::from(docs);
    let sets = &docs.sets;
    let start = Instant::now();
    let filter = if a.no_length_filter {
        LengthFilter::None
    } else if a.weighted_length {
        LengthFilter::Weighted
    } else {
        LengthFilter::Set
    };
    let (pairs, counters, comparisons) = pool.install(|| -> anyhow::Result<_> {
        if a.scan {
            let (pairs, comparisons) = length_scan(sets, a.threshold, a.weighted_length)?;
            Ok((pairs, None, comparisons))
        } else {
            let options = Options {
                threshold: a.threshold,
                filter,
                count_unfiltered: !a.no_unfiltered_count,
            };
            let outcome = all_pairs(sets, &options)?;
            let verified = outcome.counters.verified;
            Ok((outcome.pairs, Some(outcome.counters), verified))
        }
    })?;
    let join_secs = start.elapsed().as_secs_f64();

    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for p in &pairs {
        let (a_i, b_i) = (p.a as usize, p.b as usize);
        let (Some(ka), Some(kb), Some(sa), Some(sb)) = (
            docs.keys.get(a_i),
            docs.keys.get(b_i),
            sets.get(a_i),
            sets.get(b_i),
        ) else {
            continue;
        };
        if a.json {
            let obj = serde_json::json!({
                "a": ka,
                "b": kb,
                "jaccard": p.jaccard,
                "size_a": sa.len(),
                "size_b": sb.len(),
                "shared": p.shared,
            });
            writeln!(out, "{obj}")?;
        } else {
            writeln!(
                out,
                "{}\t{}\t{:.4}\t{}\t{}\t{}",
                ka,
                kb,
                p.jaccard,
                sa.len(),
                sb.len(),
                p.shared
            )?;
        }
    }
    out.flush()?;
    report(
        a,
        docs.keys.len(),
        counters.as_ref(),
        comparisons,
        pairs.len(),
        read_secs,
        join_secs,
    )?;
    Ok(ExitCode::SUCCESS)
}

/// The counters, on stderr.
fn report(
    a: &PairsArgs,
    n: usize,
    counters: Option<&Counters>,
    comparisons: u64,
    output: usize,
    read_secs: f64,
    join_secs: f64,
) -> anyhow::Result<()> {
    let method = if a.scan { "scan" } else { "join" };
    let mut err = std::io::stderr().lock();
    let n = n as u64;
    if a.json {
        let mut obj = serde_json::json!({
            "method": method,
            "threshold": a.threshold,
            "shingle": a.shingle,
            "weighted_length": a.weighted_length,
            "docs": n,
            "comparisons": comparisons,
            "output": output,
            "read_secs": read_secs,
            "pairs_secs": join_secs,
        });
        if let (Some(c), Some(map)) = (counters, obj.as_object_mut()) {
            map.insert("all_pairs".into(), c.all_pairs.into());
            map.insert("length_pairs".into(), c.length_pairs.into());
            map.insert("weighted_pairs".into(), c.weighted_pairs.into());
            map.insert("postings".into(), c.postings.into());
            map.insert("postings_kept".into(), c.postings_kept.into());
            map.insert("shingles".into(), c.shingles.into());
            map.insert("shingles_kept".into(), c.shingles_kept.into());
            map.insert("joined".into(), c.joined.into());
            map.insert("joined_length".into(), c.joined_length.into());
            map.insert("joined_weighted".into(), c.joined_weighted.into());
            map.insert("verified".into(), c.verified.into());
            map.insert("lost_by_weighted".into(), c.lost_by_weighted.into());
        }
        writeln!(err, "{obj}")?;
        return Ok(());
    }
    let opt = |v: Option<u64>| v.map_or_else(|| "-".to_owned(), |v| v.to_string());
    writeln!(
        err,
        "neardup pairs: {n} docs, J={} k={} method={method}{}",
        a.threshold,
        a.shingle,
        if a.weighted_length {
            " +weighted-length"
        } else {
            ""
        }
    )?;
    if let Some(c) = counters {
        writeln!(err, "  all pairs (brute force)          {}", c.all_pairs)?;
        writeln!(err, "  within set-length bound          {}", c.length_pairs)?;
        writeln!(
            err,
            "  within weighted-length bound     {}",
            c.weighted_pairs
        )?;
        writeln!(
            err,
            "  postings                         {} ({} kept: shingle in >= 2 docs; {} of {} shingles)",
            c.postings, c.postings_kept, c.shingles_kept, c.shingles
        )?;
        writeln!(err, "  join: pairs sharing a shingle    {}", opt(c.joined))?;
        writeln!(
            err,
            "  join + set-length filter         {}",
            opt(c.joined_length)
        )?;
        writeln!(
            err,
            "  join + weighted filter           {}",
            opt(c.joined_weighted)
        )?;
        writeln!(err, "  verified (Jaccard computed)      {}", c.verified)?;
        if let Some(lost) = c.lost_by_weighted {
            writeln!(err, "  pairs >= J lost by weighted      {lost}")?;
        }
    } else {
        writeln!(err, "  comparisons (sorted merges)      {comparisons}")?;
    }
    writeln!(err, "  output pairs                     {output}")?;
    writeln!(
        err,
        "  time: read+analyze {read_secs:.3} s, pairs {join_secs:.3} s"
    )?;
    Ok(())
}

/// Pages through the deduper's analysis (decode, extract main content,
/// normalize), in parallel windows; input warnings go to stderr.
fn read_pages(inputs: &[PathBuf], config: neardup::Config, k: usize) -> anyhow::Result<Vec<Doc>> {
    let deduper = Deduper::new(config)?;
    let mut items = neardup_batch::items_of(inputs)?;
    let mut docs = Vec::new();
    loop {
        let mut window = Vec::with_capacity(WINDOW);
        for item in items.by_ref() {
            match item? {
                Item::Page(p) => window.push(p),
                Item::Warning(w) => eprintln!("neardup: warning: {w}"),
            }
            if window.len() == WINDOW {
                break;
            }
        }
        if window.is_empty() {
            return Ok(docs);
        }
        let analyzed: Vec<Doc> = window
            .par_iter()
            .map(|p| {
                let an = deduper.analyze(&p.key, &p.url, &p.body, p.content_type.as_deref());
                let terms: Vec<&str> = an.doc.terms.iter().collect();
                Doc {
                    key: p.key.clone(),
                    set: DocSet::from_shingles(shingle_ids(&terms, k)),
                }
            })
            .collect();
        docs.extend(analyzed);
    }
}

/// Plain-text files (directories: every file below, sorted by path), read
/// and normalized in parallel windows.
fn read_text(inputs: &[PathBuf], config: &neardup::Config, k: usize) -> anyhow::Result<Vec<Doc>> {
    let mut files = Vec::new();
    for input in inputs {
        let meta = std::fs::metadata(input).with_context(|| format!("{}", input.display()))?;
        if meta.is_dir() {
            let mut found = Vec::new();
            walk(input, &mut found)?;
            found.sort();
            files.extend(found);
        } else {
            files.push(input.clone());
        }
    }
    let normalizer = neardup_text::Normalizer::new(&config.text);
    let mut docs = Vec::with_capacity(files.len());
    for window in files.chunks(WINDOW) {
        let read: Vec<anyhow::Result<Doc>> = window
            .par_iter()
            .map(|path| {
                let bytes = std::fs::read(path).with_context(|| format!("{}", path.display()))?;
                let text = String::from_utf8_lossy(&bytes);
                let normalized = normalizer.normalize(&text, None);
                let terms: Vec<&str> = normalized.terms.iter().collect();
                Ok(Doc {
                    key: path.display().to_string(),
                    set: DocSet::from_shingles(shingle_ids(&terms, k)),
                })
            })
            .collect();
        for d in read {
            docs.push(d?);
        }
    }
    Ok(docs)
}

/// Every regular file below `dir`.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("{}", dir.display()))? {
        let entry = entry.with_context(|| format!("{}", dir.display()))?;
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            walk(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}
