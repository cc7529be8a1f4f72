//! `neardup dedup INPUT... --out DIR [--index PATH] [-g GLOB]... [--strict]`.
//!
//! Exit status: 0, or 1 with `--strict` when a record could not be read,
//! 2 on an error that stops the run (a damaged index among them).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use neardup_batch as batch;
use neardup_batch::input::{self, filter::PageFilter};
use neardup_batch::BatchSink;
use neardup_output::OutputDir;

use super::args::{Args, DedupArgs};
use super::report::{memory_line, summary_line, StderrReporter};

/// Runs the command.
pub fn run(args: &Args, a: &DedupArgs) -> anyhow::Result<ExitCode> {
    let config = super::setup::load_config(args.config.as_deref(), &a.detectors.detectors)?;
    // Verdicts never read a page's links: only `crawl` follows them.
    let mut deduper = super::setup::open_deduper(config, a.index.as_ref())?.without_links();
    let before = deduper.stats().indexed;
    let filter = PageFilter::new(&a.globs)?;
    let total = total_of(&a.inputs, &filter);
    let items = items_of(&a.inputs, filter)?;
    let mut out = OutputDir::create(&a.out)?;
    super::report_cmd::write_config(&a.out, deduper.config())?;
    let mut reporter = StderrReporter::with_total(a.quiet, total);
    let mut sinks: Vec<&mut dyn BatchSink> = vec![&mut out, &mut reporter];
    let summary = batch::run_items(
        items,
        &mut deduper,
        &super::setup::batch_options(args),
        &mut sinks,
    )?;
    deduper.flush()?;
    if !a.quiet {
        eprintln!("neardup: {}", summary_line(&summary));
        eprintln!("neardup: {}", memory_line(&deduper));
        if let Some(index) = &a.index {
            eprintln!(
                "neardup: index {index}: {} documents ({} before this run)",
                deduper.stats().indexed,
                before
            );
        }
        eprintln!(
            "neardup: wrote {}, {}, {} in {}",
            OutputDir::VERDICTS,
            OutputDir::CLUSTERS_TSV,
            OutputDir::CLUSTERS_JSON,
            a.out.display()
        );
    }
    if !a.no_report {
        super::report_cmd::after_run(&a.out, a.quiet)?;
    }
    if a.strict && summary.input_errors > 0 {
        eprintln!(
            "neardup: --strict: {} input records could not be read (see verdicts.jsonl)",
            summary.input_errors
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// The inputs' items, one input after the other, each opened when the one
/// before is exhausted; `-` is a manifest on standard input.
///
/// # Errors
/// Immediately if an input (other than `-`) does not exist.
fn items_of(inputs: &[PathBuf], filter: PageFilter) -> anyhow::Result<batch::Items> {
    for path in inputs.iter().filter(|p| !is_stdin(p)) {
        std::fs::metadata(path).with_context(|| format!("input {}", path.display()))?;
    }
    let inputs = inputs.to_vec();
    Ok(Box::new(inputs.into_iter().flat_map(move |path| {
        let limits = input::Limits::default();
        let opened = if is_stdin(&path) {
            input::open_stdin(limits)
        } else {
            input::open_filtered(&path, limits, &filter)
        };
        let items: Box<dyn Iterator<Item = neardup::Result<input::Item>> + Send> = match opened {
            Ok(items) => Box::new(items.map(Ok)),
            Err(e) => Box::new(std::iter::once(Err(e))),
        };
        items
    })))
}

/// The number of items of all inputs when each one's is known up front
/// (directories, manifest files; not archives or standard input).
fn total_of(inputs: &[PathBuf], filter: &PageFilter) -> Option<u64> {
    inputs.iter().try_fold(0u64, |sum, path| {
        if is_stdin(path) {
            return None;
        }
        Some(sum + input::count_items(path, filter)?)
    })
}

fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}
