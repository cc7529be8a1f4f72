//! What the commands set up the same way from their flags: the checked
//! [`Config`] ([`load_config`], or [`read_config`] for `crawl`, which
//! checks `[crawl]` itself), the deduper over `--index`, the batch options
//! and the shutdown on a signal.

use std::path::Path;

use anyhow::Context as _;
use neardup::{Config, IndexLocation};

use super::args::Args;

/// The config file (or the defaults), with the `--detector` chain, checked.
pub(super) fn load_config(file: Option<&Path>, detectors: &[String]) -> anyhow::Result<Config> {
    let config = read_config(file, detectors)?;
    // `[crawl]` belongs to the crawler, which checks it; a typo there is
    // reported by every command, not only when a crawl starts.
    neardup_crawl::CrawlConfig::from_config(&config).context("invalid configuration")?;
    Ok(config)
}

/// The config file (or the defaults), with the `--detector` chain; the
/// core's settings checked, `[crawl]` left to the caller
/// ([`load_config`], or `crawl`, which parses it into its settings).
pub(super) fn read_config(file: Option<&Path>, detectors: &[String]) -> anyhow::Result<Config> {
    let mut config = match file {
        Some(path) => match Config::from_file(path) {
            Ok(c) => c,
            // Parse errors already name the file; range errors name only
            // the key, so say which file holds it.
            Err(e @ neardup::Error::ConfigParse { .. }) => return Err(e.into()),
            Err(e) => {
                return Err(anyhow::Error::new(e).context(format!("config file {}", path.display())))
            }
        },
        None => Config::default(),
    };
    if !detectors.is_empty() {
        config.decide.detectors = detectors.to_vec();
    }
    config.validate().context("invalid configuration")?;
    Ok(config)
}

/// The deduper over `--index`: in memory without one, else the redb file
/// or the shared Redis index it names.
pub(super) fn open_deduper(
    config: Config,
    index: Option<&IndexLocation>,
) -> anyhow::Result<neardup::Deduper> {
    let registry = neardup::plugins::registry();
    let deduper = match index {
        None => neardup::Deduper::with_registry(
            config,
            &registry,
            Box::<neardup::MemoryStore>::default(),
        )?,
        Some(location) => neardup::Deduper::open_at(config, &registry, location)?,
    };
    Ok(deduper)
}

/// The batch options of the global flags.
pub(super) fn batch_options(args: &Args) -> neardup_batch::Options {
    neardup_batch::Options {
        threads: args.threads,
        ..neardup_batch::Options::default()
    }
}

/// Completes on Ctrl-C or, on Unix, SIGTERM (what service managers send),
/// after printing `message` (what the command does before it exits).
///
/// The handlers are installed by this call, not when the future is first
/// polled: a server that has announced its address must already own
/// SIGINT, or a signal sent right after its first answer (before the task
/// holding this future ran again) would kill it on the spot, skipping the
/// flush. Call it inside the runtime, before announcing anything.
pub(super) fn shutdown_signal(message: &'static str) -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    let (interrupt, terminate) = {
        use tokio::signal::unix::{signal, SignalKind};
        (
            signal(SignalKind::interrupt()).ok(),
            signal(SignalKind::terminate()).ok(),
        )
    };
    async move {
        #[cfg(unix)]
        {
            // A handler that could not be installed never fires: the other
            // one (or a kill) still ends the command.
            let wait = |s: Option<tokio::signal::unix::Signal>| async move {
                match s {
                    Some(mut s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = wait(interrupt) => {}
                () = wait(terminate) => {}
            }
        }
        #[cfg(not(unix))]
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
        eprintln!("{message}");
    }
}
