//! `neardup eval BENCH_DIR`: dedup over the benchmark's manifest, scored
//! like score.py. The last line printed is `pairF1=<x> dropF1=<y>`.

use std::collections::HashMap;
use std::io::Write as _;
use std::process::ExitCode;

use anyhow::Context as _;
use neardup::Deduper;
use neardup::MemoryStore;
use neardup_batch as batch;
use neardup_batch::eval;
use neardup_batch::BatchSink;
use neardup_output::{ClusterSink, OutputDir};

use super::args::{Args, EvalArgs};
use super::report::{memory_line, summary_line, StderrReporter};

/// Runs the command.
pub fn run(args: &Args, a: &EvalArgs) -> anyhow::Result<ExitCode> {
    let config = super::setup::load_config(args.config.as_deref(), &a.detectors.detectors)?;
    let manifest = a.bench.join("manifest.tsv");
    let labels_path = a.bench.join("labels.tsv");
    let order_path = a.bench.join("order.txt");
    // Read the gold first: a wrong directory fails before the long part.
    let labels = eval::read_labels(&labels_path)?;
    let order = eval::read_order(&order_path)?;
    let mut deduper = Deduper::with_registry(
        config,
        &neardup::plugins::registry(),
        Box::<MemoryStore>::default(),
    )?
    .without_links();
    let name = format!("neardup [{}]", deduper.detector_names().join(","));

    let items = batch::items_of(std::slice::from_ref(&manifest))?;
    let mut clusters = ClusterSink::new();
    let mut out_dir = a.out.as_deref().map(OutputDir::create).transpose()?;
    let mut reporter = StderrReporter::new(a.quiet);
    let mut sinks: Vec<&mut dyn BatchSink> = vec![&mut clusters, &mut reporter];
    if let Some(dir) = out_dir.as_mut() {
        sinks.push(dir);
    }
    let summary = batch::run_items(
        items,
        &mut deduper,
        &super::setup::batch_options(args),
        &mut sinks,
    )
    .with_context(|| format!("dedup of {}", manifest.display()))?;

    let pred: HashMap<String, String> = clusters
        .assignment()
        .into_iter()
        .map(|(d, c)| (d.to_owned(), c.to_owned()))
        .collect();
    super::score::note_missing(&labels, &pred);
    let score = eval::score(&labels, &pred, &order);
    let mut out = std::io::stdout().lock();
    write!(
        out,
        "{}",
        score.report(&name, &labels_path.display().to_string(), &labels)
    )?;
    writeln!(out, "throughput: {}", summary_line(&summary))?;
    writeln!(out, "{}", memory_line(&deduper))?;
    if let Some(dir) = &out_dir {
        writeln!(out, "output: {}", dir.dir().display())?;
    }
    writeln!(out, "{}", score.last_line())?;
    Ok(ExitCode::SUCCESS)
}
