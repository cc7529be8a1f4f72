//! Our MinHash + LSH (the `minhash` plugin) on exported shingle sets, the
//! Rust half of `scripts/datasketch-compare.sh`.
//!
//! ```text
//! cargo run --release --example minhash_bench -- export SHINGLES.tsv DIR...
//! cargo run --release --example minhash_bench -- bench SHINGLES.tsv PAIRS.tsv
//! ```
//!
//! `export` normalizes every `*.txt` file of the directories (sorted by
//! path) with neardup's normalizer and writes one line per document:
//! `key<TAB>shingle<TAB>shingle...`, the distinct word 5-shingles of its
//! terms, each shingle its 5 terms joined by single spaces. Both sides then
//! hash exactly these strings.
//!
//! `bench` reads that file (not timed), then times, per document in file
//! order: hashing each shingle (xxh3, the plugin's seed), the 128-value
//! one-permutation sketch, an LSH query (b = 32, r = 4) and the insert;
//! exactly what the Python side times with datasketch. It prints
//! `rust_seconds=<s> docs=<n> shingles=<n> candidate_pairs=<n>` and writes
//! the candidate pairs (query key, earlier key) to PAIRS.tsv.

use std::io::{BufRead as _, BufWriter, Write as _};
use std::path::{Path, PathBuf};
use std::time::Instant;

use neardup::CandidateIndex;
use neardup::Config;
use neardup::Deduper;
use neardup::Signature;
use neardup_minhash::{shingle::SEED, sketch, LshIndex, MinhashSettings};
use xxhash_rust::xxh3::xxh3_64_with_seed;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("export") if args.len() >= 3 => {
            let dirs: Vec<PathBuf> = args.iter().skip(2).map(PathBuf::from).collect();
            export(Path::new(&args[1]), &dirs)
        }
        Some("bench") if args.len() == 3 => bench(Path::new(&args[1]), Path::new(&args[2])),
        _ => {
            Err("usage: minhash_bench export OUT.tsv DIR... | bench SHINGLES.tsv PAIRS.tsv".into())
        }
    }
}

fn export(out: &Path, dirs: &[PathBuf]) -> Result<()> {
    let deduper = Deduper::new(Config::default())?;
    let mut files = Vec::new();
    for dir in dirs {
        for entry in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
            let path = entry?.path();
            if path.extension().is_some_and(|e| e == "txt") {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut w = BufWriter::new(std::fs::File::create(out)?);
    let (mut docs, mut total) = (0usize, 0usize);
    for path in &files {
        let bytes = std::fs::read(path)?;
        let text = String::from_utf8_lossy(&bytes);
        let key = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let analyzed = deduper.analyze_text(&key, &format!("file:///{key}"), &text);
        let terms: Vec<&str> = analyzed.doc.terms.iter().collect();
        let mut shingles: Vec<String> = terms.windows(5).map(|w| w.join(" ")).collect();
        shingles.sort();
        shingles.dedup();
        if shingles.is_empty() {
            continue;
        }
        docs += 1;
        total += shingles.len();
        write!(w, "{key}")?;
        for s in &shingles {
            write!(w, "\t{s}")?;
        }
        writeln!(w)?;
    }
    w.flush()?;
    eprintln!(
        "exported {docs} documents, {total} shingles to {}",
        out.display()
    );
    Ok(())
}

fn bench(input: &Path, pairs_out: &Path) -> Result<()> {
    let file = std::fs::File::open(input).map_err(|e| format!("{}: {e}", input.display()))?;
    let mut docs: Vec<(String, Vec<String>)> = Vec::new();
    for line in std::io::BufReader::new(file).lines() {
        let line = line?;
        let mut fields = line.split('\t');
        let Some(key) = fields.next() else { continue };
        docs.push((key.to_owned(), fields.map(str::to_owned).collect()));
    }
    let s = MinhashSettings::default();
    let shingles: usize = docs.iter().map(|(_, v)| v.len()).sum();

    let start = Instant::now();
    let mut index = LshIndex::new(s.bands, s.rows, s.max_postings);
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    let mut cands = Vec::new();
    let mut fps = Vec::new();
    for (id, (_, set)) in docs.iter().enumerate() {
        let id = u32::try_from(id)?;
        fps.clear();
        fps.extend(set.iter().map(|x| xxh3_64_with_seed(x.as_bytes(), SEED)));
        fps.sort_unstable();
        fps.dedup();
        let sig = Signature::Sketch(sketch::sketch(&fps, s.num_perm, s.scheme));
        cands.clear();
        index.candidates(&sig, &mut cands);
        pairs.extend(cands.iter().map(|c| (id, *c)));
        index.insert(id, &sig);
    }
    let secs = start.elapsed().as_secs_f64();

    let mut w = BufWriter::new(std::fs::File::create(pairs_out)?);
    for (q, e) in &pairs {
        let name = |i: u32| docs.get(i as usize).map_or("?", |d| d.0.as_str());
        writeln!(w, "{}\t{}", name(*q), name(*e))?;
    }
    w.flush()?;
    println!(
        "rust_seconds={secs:.4} docs={} shingles={shingles} candidate_pairs={}",
        docs.len(),
        pairs.len()
    );
    Ok(())
}
