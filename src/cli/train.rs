//! `neardup train-reference`: reads a corpus (pages through the deduper's
//! analysis, or plain text), runs the multi-reference cosine genetic
//! algorithm and writes the reference with a header saying how it was made.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use neardup::Deduper;
use neardup_batch::input::Item;
use neardup_multiref::{train, TrainOptions};
use rayon::prelude::*;

use super::args::{Args, TrainReferenceArgs};

/// Trains and writes the reference; the errors on stderr.
pub fn run(args: &Args, a: &TrainReferenceArgs) -> anyhow::Result<ExitCode> {
    let config = super::setup::load_config(args.config.as_deref(), &["exact".to_owned()])?;
    let threads = super::setup::batch_options(args).effective_threads();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("cannot start the thread pool")?;
    let options = TrainOptions {
        seed: a.seed,
        generations: a.generations,
        population: a.population,
        parts: a.parts,
        length: a.length,
        sample: a.sample,
        ..TrainOptions::default()
    };
    let (docs, report) = pool.install(|| -> anyhow::Result<_> {
        let docs = if a.text {
            read_text(&a.inputs, &config)?
        } else {
            read_pages(&a.inputs, config)?
        };
        let report = train(&docs, &options).map_err(anyhow::Error::msg)?;
        Ok((docs, report))
    })?;
    let inputs: Vec<String> = a.inputs.iter().map(|p| p.display().to_string()).collect();
    let header = format!(
        "multi-reference cosine reference, written by neardup train-reference\n\
         command: neardup train-reference{} {} --seed {} --generations {} --population {} \
         --parts {} --length {} --sample {}\n\
         documents: {}; fitness pairs: {} train, {} holdout\n\
         mean absolute error: train {:.4}, holdout {:.4}\n\
         best train error per generation: {}",
        if a.text { " --text" } else { "" },
        inputs.join(" "),
        a.seed,
        a.generations,
        a.population,
        a.parts,
        a.length,
        a.sample,
        docs.len(),
        report.pairs.0,
        report.pairs.1,
        report.train_mae,
        report.holdout_mae,
        report
            .history
            .iter()
            .map(|e| format!("{e:.4}"))
            .collect::<Vec<_>>()
            .join(" "),
    );
    std::fs::write(&a.out, report.reference.to_text(&header))
        .with_context(|| format!("cannot write {}", a.out.display()))?;
    eprintln!(
        "neardup: {} documents, {} 3-grams in {} parts: mean absolute error train {:.4}, holdout {:.4} -> {}",
        docs.len(),
        a.length,
        a.parts,
        report.train_mae,
        report.holdout_mae,
        a.out.display()
    );
    // One line for tables: length, parts, train error, holdout error,
    // best train error of the random initial population.
    println!(
        "{}\t{}\t{:.4}\t{:.4}\t{:.4}",
        a.length,
        a.parts,
        report.train_mae,
        report.holdout_mae,
        report.history.first().copied().unwrap_or(f64::NAN)
    );
    Ok(ExitCode::SUCCESS)
}

/// Normalized words of every page (main text via the deduper's analysis).
fn read_pages(inputs: &[PathBuf], config: neardup::Config) -> anyhow::Result<Vec<Vec<String>>> {
    let deduper = Deduper::new(config)?;
    let mut pages = Vec::new();
    for item in neardup_batch::items_of(inputs)? {
        match item? {
            Item::Page(p) => pages.push(p),
            Item::Warning(w) => eprintln!("neardup: warning: {w}"),
        }
    }
    Ok(pages
        .par_iter()
        .map(|p| {
            deduper
                .analyze(&p.key, &p.url, &p.body, p.content_type.as_deref())
                .doc
                .words
                .to_vec()
        })
        .collect())
}

/// Normalized words of plain-text files (directories: every file below,
/// sorted by path; `.csv` files skipped so a dataset's metadata does not
/// count as a document).
fn read_text(inputs: &[PathBuf], config: &neardup::Config) -> anyhow::Result<Vec<Vec<String>>> {
    let mut files = Vec::new();
    for input in inputs {
        let meta = std::fs::metadata(input).with_context(|| format!("{}", input.display()))?;
        if meta.is_dir() {
            let mut found = Vec::new();
            walk(input, &mut found)?;
            found.retain(|p| p.extension().is_none_or(|e| e != "csv"));
            found.sort();
            files.extend(found);
        } else {
            files.push(input.clone());
        }
    }
    let normalizer = neardup_text::Normalizer::new(&config.text);
    files
        .par_iter()
        .map(|path| {
            let bytes = std::fs::read(path).with_context(|| format!("{}", path.display()))?;
            Ok(normalizer
                .normalize(&String::from_utf8_lossy(&bytes), None)
                .words
                .to_vec())
        })
        .collect()
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
