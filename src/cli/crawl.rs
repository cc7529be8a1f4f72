//! `neardup crawl`: seeds and flags to a [`neardup::crawl::run`] call on a
//! tokio runtime; `--demo` first starts the built-in sites.

use std::io::BufWriter;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use neardup::crawl::demo::{demo_config, DemoSites};
use neardup::crawl::seeds::{parse_seed, parse_seeds};
use neardup::crawl::{format_report, Options};
use neardup::deduper::SharedDeduper;
use neardup::fetch::Fetcher;
use neardup::index::MemoryStore;
use neardup::output::OutputDir;
use neardup::Deduper;

use super::args::{Args, CrawlArgs};

/// Runs the command.
pub fn run(args: &Args, a: &CrawlArgs) -> anyhow::Result<ExitCode> {
    let mut config = super::load_config(args.config.as_deref(), &a.detectors.detectors)?;
    if a.allow_private {
        config.crawl.allow_private = true;
    }
    if a.demo {
        config = demo_config(config);
    }
    let mut seeds = Vec::new();
    if let Some(path) = &a.seeds {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("read seeds file {}", path.display()))?;
        let (good, bad) = parse_seeds(&text);
        for b in &bad {
            eprintln!("neardup: {}: skipped seed {b}", path.display());
        }
        seeds.extend(good);
    }
    for s in &a.seed {
        match parse_seed(s) {
            Ok(u) => seeds.push(u),
            Err(e) => eprintln!("neardup: skipped --seed {s:?}: {e}"),
        }
    }
    if seeds.is_empty() && !a.demo {
        anyhow::bail!("no valid seed URL (give --seeds FILE or --seed URL)");
    }
    let out_dir = a
        .out
        .clone()
        .unwrap_or_else(|| std::path::PathBuf::from("neardup-demo"));
    let deduper = SharedDeduper::new(Deduper::with_registry(
        config.clone(),
        &super::plugins::registry(),
        Box::<MemoryStore>::default(),
    )?);
    let fetcher = Arc::new(Fetcher::new(&config.crawl).context("build the HTTP client")?);
    let mut out = OutputDir::create(&out_dir)?;
    super::report_cmd::write_config(&out_dir, &config)?;
    let pages_path = out_dir.join("pages.jsonl");
    let pages_file = std::fs::File::create(&pages_path)
        .with_context(|| format!("create {}", pages_path.display()))?;
    let mut pages = BufWriter::new(pages_file);
    let options = Options {
        max_frontier: a.max_frontier,
        ..Options::default()
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("start the async runtime")?;
    let summary = rt.block_on(async {
        if a.demo {
            let sites = DemoSites::start().await.context("start the demo sites")?;
            if !a.quiet {
                eprintln!(
                    "neardup: demo sites on http://{} and http://{}",
                    sites.a, sites.b
                );
            }
            seeds = sites.seeds();
        }
        let summary = neardup::crawl::run(
            seeds,
            &config,
            &options,
            deduper,
            fetcher,
            &mut pages,
            &mut out,
            super::shutdown_signal("neardup: stopping: finishing the pages in flight"),
        )
        .await?;
        anyhow::Ok(summary)
    })?;
    if !a.quiet {
        if a.demo {
            print!("{}", format_report(&out.clusters().report()));
        }
        eprintln!(
            "neardup: {} fetches ({} errors, {} disallowed by robots.txt), {} pages checked: {} unique, {} duplicates ({} by rel=canonical), {} near duplicates in {:.2}s{}",
            summary.attempts,
            summary.fetch_errors,
            summary.robots_disallowed,
            summary.pages,
            summary.unique,
            summary.duplicates,
            summary.canonical_duplicates,
            summary.near_duplicates,
            summary.elapsed.as_secs_f64(),
            if summary.interrupted { " (interrupted)" } else { "" }
        );
        let skipped: Vec<String> = summary
            .skipped
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        if !skipped.is_empty() {
            eprintln!("neardup: links not crawled: {}", skipped.join(", "));
        }
        eprintln!(
            "neardup: wrote pages.jsonl, {}, {}, {} in {}",
            OutputDir::VERDICTS,
            OutputDir::CLUSTERS_TSV,
            OutputDir::CLUSTERS_JSON,
            out_dir.display()
        );
    }
    if !a.no_report {
        // pages.jsonl is still open: flush it so the report counts it all.
        std::io::Write::flush(&mut pages).context("write pages.jsonl")?;
        super::report_cmd::after_run(&out_dir, a.quiet)?;
    }
    Ok(ExitCode::SUCCESS)
}
