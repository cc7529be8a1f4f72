//! `neardup crawl`: seeds and flags to a [`neardup_crawl::Crawler`] run on a
//! tokio runtime; `--demo` first starts the built-in sites.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use neardup::Config;
use neardup::Deduper;
use neardup::SharedDeduper;
use neardup_cli::demo::{demo_config, DemoSites};
use neardup_crawl::fetch::Fetcher;
use neardup_crawl::CrawlConfig;
use neardup_crawl::CrawlSettings;
use neardup_crawl::Progress;
use neardup_crawl::{format_summary, CrawlSummary, Crawler, Options};
use neardup_crawl::{parse_seed, parse_seeds_bytes};
use neardup_crawl::{CheckpointPolicy, CrawlDir, Resumed};
use neardup_output::OutputDir;
use url::Url;

use super::args::{Args, CrawlArgs};

/// Runs the command: the config ([`crawl_settings`]), seeds
/// ([`read_seeds`]) and checkpoint policy ([`checkpoint_policy`]) from
/// the flags, then, on a tokio runtime, the demo sites if asked, the
/// crawl directory ([`open_dir`]) and the crawl; then the summary and
/// report ([`print_results`]).
pub fn run(args: &Args, a: &CrawlArgs) -> anyhow::Result<ExitCode> {
    crate::allocator::keep_crawl_memory_low();
    let settings = crawl_settings(args, a)?;
    let (config, crawl) = (&settings.core, &settings.crawl);
    let mut seeds = read_seeds(a, config)?;
    let out_dir = a
        .resume
        .clone()
        .or_else(|| a.out.clone())
        .unwrap_or_else(|| std::path::PathBuf::from("neardup-demo"));
    let policy = checkpoint_policy(a, crawl)?;
    let registry = neardup::plugins::registry();
    // The chain's names, as the index and the crawl state record them.
    let detectors = Deduper::with_registry(
        config.clone(),
        &registry,
        Box::<neardup::MemoryStore>::default(),
    )?
    .detector_names();
    let fetcher = Arc::new(Fetcher::new(crawl).context("build the HTTP client")?);
    let options = Options::from_limits(&crawl.limits);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("start the async runtime")?;
    let summary = rt.block_on(async {
        // The demo sites must run before the seeds exist.
        let _sites = if a.demo {
            let sites = DemoSites::start().await.context("start the demo sites")?;
            if !a.quiet {
                eprintln!(
                    "neardup: demo sites on http://{} and http://{}",
                    sites.a, sites.b
                );
            }
            seeds = sites.seeds();
            Some(sites)
        } else {
            None
        };
        let Some(mut dir) = open_dir(a, &settings, detectors, &seeds, policy, &out_dir)? else {
            return anyhow::Ok(None);
        };
        let deduper = SharedDeduper::new(match &a.index {
            Some(shared) => super::setup::open_deduper(config.clone(), Some(shared))?,
            None => Deduper::open(config.clone(), &registry, &dir.index_path())
                .with_context(|| format!("open the index {}", dir.index_path().display()))?,
        });
        let summary = Crawler::new(&settings, deduper, fetcher)
            .options(options)
            .run_in_dir(
                &mut dir,
                super::setup::shutdown_signal("neardup: stopping: finishing the pages in flight"),
            )
            .await?;
        anyhow::Ok(Some(summary))
    })?;
    let Some(summary) = summary else {
        return Ok(ExitCode::SUCCESS);
    };
    print_results(a, &out_dir, &summary)?;
    Ok(ExitCode::SUCCESS)
}

/// The crawl's settings: a resumed crawl reads the config it saved, unless
/// one is given (then the crawl state's config hash must match, as
/// before); `--allow-private`, `--proxy`, the limit flags and `--demo`
/// apply on top, to the typed settings. Warns when the user agent names
/// no contact.
fn crawl_settings(args: &Args, a: &CrawlArgs) -> anyhow::Result<CrawlSettings> {
    let saved = a
        .resume
        .as_ref()
        .map(|d| d.join(neardup_output::CONFIG_TOML))
        .filter(|p| args.config.is_none() && p.is_file());
    let config_file = args.config.as_deref().or(saved.as_deref());
    let config = super::setup::read_config(config_file, &a.detectors.detectors)?;
    let mut settings = CrawlSettings::new(config).context("invalid configuration")?;
    let crawl = &mut settings.crawl;
    if a.allow_private {
        crawl.allow_private = true;
    }
    if let Some(proxy) = &a.proxy {
        crawl.fetch.proxy = proxy.trim().to_owned();
        crawl.validate().context("invalid --proxy")?;
    }
    let limits = &mut crawl.limits;
    limits.max_frontier = a.max_frontier.unwrap_or(limits.max_frontier);
    limits.max_in_flight = a.max_in_flight.unwrap_or(limits.max_in_flight);
    limits.max_body_memory_mib = a.max_body_memory.unwrap_or(limits.max_body_memory_mib);
    limits.checkpoint_pages = a.checkpoint_pages.unwrap_or(limits.checkpoint_pages);
    limits.checkpoint_secs = a.checkpoint_secs.unwrap_or(limits.checkpoint_secs);
    if a.demo {
        demo_config(crawl);
    } else if !crawl.user_agent_has_contact() {
        eprintln!(
            "neardup: warning: crawl.user_agent {:?} names no contact URL or e-mail; \
             site operators cannot reach you (see configs/default.toml)",
            crawl.user_agent
        );
    }
    // The effective settings, flags included, are what the crawl state
    // hashes and config.toml records.
    crawl.validate().context("invalid crawl flags")?;
    Ok(settings)
}

/// The seeds of `--seeds FILE` and `--seed URL` (bad ones skipped with a
/// message); an error when there are none and neither `--demo` nor
/// `--resume` supplies them.
fn read_seeds(a: &CrawlArgs, config: &Config) -> anyhow::Result<Vec<Url>> {
    let mut seeds = Vec::new();
    if let Some(path) = &a.seeds {
        let bytes =
            std::fs::read(path).with_context(|| format!("read seeds file {}", path.display()))?;
        let (good, bad) = parse_seeds_bytes(&bytes, config.canonical.max_url_len);
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
    if seeds.is_empty() && !a.demo && a.resume.is_none() {
        anyhow::bail!("no valid seed URL (give --seeds FILE or --seed URL)");
    }
    Ok(seeds)
}

/// Checks the flags that cannot go together (`--index` other than a
/// shared redis index, or with `--resume`) and the durations, and
/// returns the checkpoint policy.
fn checkpoint_policy(a: &CrawlArgs, crawl: &CrawlConfig) -> anyhow::Result<CheckpointPolicy> {
    if let Some(index) = &a.index {
        // The crawl's own index lives in DIR/index.redb so that --resume can
        // roll it back to the last checkpoint; a shared index holds other
        // workers' pages too and cannot be rolled back.
        if !index.is_redis() {
            anyhow::bail!(
                "crawl keeps its own index in DIR/index.redb; --index takes only a shared redis:// index"
            );
        }
        if a.resume.is_some() {
            anyhow::bail!(
                "--resume needs the crawl's own embedded index; it cannot be combined with a shared --index redis://..."
            );
        }
    }
    if !(a.progress_secs.is_finite() && a.progress_secs >= 0.0) {
        anyhow::bail!("--progress-secs must be a number of seconds >= 0");
    }
    Ok(CheckpointPolicy {
        pages: crawl.limits.checkpoint_pages.max(1),
        interval: std::time::Duration::from_secs_f64(crawl.limits.checkpoint_secs),
    })
}

/// The crawl directory: resumed (`None` when that crawl had finished:
/// nothing to do) or created in `out_dir`; its config is written, and a
/// progress bar attached unless `--quiet`.
fn open_dir(
    a: &CrawlArgs,
    settings: &CrawlSettings,
    detectors: Vec<String>,
    seeds: &[Url],
    policy: CheckpointPolicy,
    out_dir: &std::path::Path,
) -> anyhow::Result<Option<CrawlDir>> {
    let mut dir = match &a.resume {
        Some(d) => match CrawlDir::resume(d, settings, detectors, policy)
            .with_context(|| format!("resume the crawl in {}", d.display()))?
        {
            Resumed::Finished(s) => {
                if !a.quiet {
                    eprintln!(
                        "neardup: the crawl in {} had finished ({} pages checked): nothing to do",
                        d.display(),
                        s.pages
                    );
                }
                return Ok(None);
            }
            Resumed::Ready(dir) => *dir,
        },
        None => CrawlDir::create(
            out_dir,
            settings,
            detectors,
            seeds,
            policy,
            a.warc_out.as_deref(),
        )
        .with_context(|| format!("start the crawl in {}", out_dir.display()))?,
    };
    super::report_cmd::write_config(dir.dir(), &settings.to_config()?)?;
    if let (Some(n), false) = (dir.resumed_pages(), a.quiet) {
        eprintln!(
            "neardup: resuming the crawl in {} after {n} pages checked",
            out_dir.display()
        );
    }
    if !a.quiet {
        if let Some(p) = Progress::for_stderr(std::time::Duration::from_secs_f64(a.progress_secs)) {
            dir.show_progress(p);
        }
    }
    Ok(Some(dir))
}

/// After the crawl: `crawl-summary.json`, then (unless `--quiet`) the demo's
/// cluster report, the summary and skipped links on stderr, and the
/// report (unless `--no-report`).
fn print_results(
    a: &CrawlArgs,
    out_dir: &std::path::Path,
    summary: &CrawlSummary,
) -> anyhow::Result<()> {
    write_summary(out_dir, summary)?;
    if !a.quiet {
        if a.demo {
            let clusters = neardup_crawl::clusters_from_verdicts(out_dir)?;
            print!("{}", format_report(&clusters.report()));
        }
        for line in format_summary(summary) {
            eprintln!("neardup: {line}");
        }
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
        super::report_cmd::after_run(out_dir, a.quiet)?;
    }
    Ok(())
}

/// Writes `DIR/crawl-summary.json`: the run's counters (this run's, over
/// every run of the crawl after `--resume`), HTTP statuses by code and
/// fetch errors by kind included, for scripts.
fn write_summary(dir: &std::path::Path, summary: &CrawlSummary) -> anyhow::Result<()> {
    let path = dir.join("crawl-summary.json");
    let mut json = serde_json::to_value(summary).context("serialize the crawl summary")?;
    if let Some(o) = json.as_object_mut() {
        o.insert(
            "elapsed_secs".into(),
            serde_json::json!(summary.elapsed.as_secs_f64()),
        );
        o.remove("elapsed");
    }
    let text = serde_json::to_string_pretty(&json).context("serialize the crawl summary")?;
    std::fs::write(&path, text + "\n").with_context(|| format!("write {}", path.display()))
}

/// The per-site duplicate report printed by `neardup crawl --demo`: per
/// site its pages, duplicate rate and clusters (members with verdict,
/// detector and the page they duplicate), then clusters spanning sites.
fn format_report(report: &neardup::ClusterReport) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let cluster = |out: &mut String, c: &neardup::ClusterSummary| {
        let _ = writeln!(
            out,
            "    cluster of {}: kept {}",
            c.size, c.representative_url
        );
        for m in c
            .members
            .iter()
            .filter(|m| m.verdict != neardup::VerdictKind::Unique)
        {
            let _ = writeln!(
                out,
                "      {} {} by {} ({:.2}) of {}",
                m.url,
                m.verdict.as_str(),
                m.detector,
                m.similarity,
                m.of
            );
        }
    };
    for (site, s) in &report.sites {
        let _ = writeln!(
            out,
            "{site}: {} pages, {} unique, {} duplicates, {} near duplicates, duplicate rate {:.1}%",
            s.pages,
            s.verdicts.unique,
            s.verdicts.duplicates,
            s.verdicts.near_duplicates,
            s.duplicate_rate * 100.0
        );
        for c in &s.clusters {
            cluster(&mut out, c);
        }
    }
    if !report.cross_site.is_empty() {
        let _ = writeln!(out, "across sites:");
        for c in &report.cross_site {
            cluster(&mut out, c);
        }
    }
    out
}
