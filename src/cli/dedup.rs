//! `neardup dedup INPUT... --out DIR [--index PATH]`.

use std::process::ExitCode;

use neardup::batch;
use neardup::output::{OutputDir, Sink};

use super::args::{Args, DedupArgs};
use super::report::{memory_line, summary_line, StderrReporter};

/// Runs the command.
pub fn run(args: &Args, a: &DedupArgs) -> anyhow::Result<ExitCode> {
    let config = super::load_config(args.config.as_deref(), &a.detectors.detectors)?;
    let mut deduper = super::open_deduper(config, a.index.as_deref())?;
    let before = deduper.stats().indexed;
    let items = batch::items_of(&a.inputs)?;
    let mut out = OutputDir::create(&a.out)?;
    super::report_cmd::write_config(&a.out, deduper.config())?;
    let mut reporter = StderrReporter::new(a.quiet);
    let mut sinks: Vec<&mut dyn Sink> = vec![&mut out, &mut reporter];
    let summary = batch::run_items(items, &mut deduper, &super::batch_options(args), &mut sinks)?;
    deduper.flush()?;
    if !a.quiet {
        eprintln!("neardup: {}", summary_line(&summary));
        eprintln!("neardup: {}", memory_line(&deduper));
        if let Some(path) = &a.index {
            eprintln!(
                "neardup: index {}: {} documents ({} before this run)",
                path.display(),
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
    Ok(ExitCode::SUCCESS)
}
