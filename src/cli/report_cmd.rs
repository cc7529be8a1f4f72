//! `neardup report DIR`, and the report written at the end of `dedup` and
//! `crawl` (see [`neardup_report`]).

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context as _;
use neardup_report as report;

use super::args::ReportArgs;

/// Runs the command.
pub fn run(a: &ReportArgs) -> anyhow::Result<ExitCode> {
    let started = std::time::Instant::now();
    let r = report::generate(&a.dir)
        .with_context(|| format!("write the report for {}", a.dir.display()))?;
    eprintln!(
        "neardup: wrote {} ({} sites, {} clusters), {}, {} in {} ({:.2}s)",
        report::REPORT_HTML,
        r.sites.len(),
        r.clusters.len(),
        report::SITES_CSV,
        report::CLUSTERS_CSV,
        a.dir.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}

/// Writes the run's config beside its outputs, for the report.
pub fn write_config(dir: &Path, config: &neardup::Config) -> anyhow::Result<()> {
    neardup_output::write_config(dir, config)
        .with_context(|| format!("write {}", dir.join(neardup_output::CONFIG_TOML).display()))
}

/// The report at the end of a run.
pub fn after_run(dir: &Path, quiet: bool) -> anyhow::Result<()> {
    report::generate(dir).with_context(|| format!("write the report for {}", dir.display()))?;
    if !quiet {
        eprintln!(
            "neardup: wrote {}, {}, {} in {}",
            report::REPORT_HTML,
            report::SITES_CSV,
            report::CLUSTERS_CSV,
            dir.display()
        );
    }
    Ok(())
}
