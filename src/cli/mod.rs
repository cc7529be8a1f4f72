//! The commands: raw arguments ([`args`]) -> checked [`Config`] -> library
//! calls -> exit code. No detection logic lives here.

mod args;
mod compare;
mod crawl;
mod dedup;
mod detectors;
mod eval;
mod export;
mod extract;
mod pairs;
mod quality;
mod report;
mod report_cmd;
mod score;
mod serve;
mod train;

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Parser;
use neardup::Config;
use neardup::IndexLocation;

use args::{Args, Command};

/// Writes the completion script for `shell`, generated from the same clap
/// definition that parses the arguments, so it never falls out of date.
fn completions(shell: clap_complete::Shell) -> anyhow::Result<ExitCode> {
    use clap::CommandFactory as _;
    let mut command = Args::command();
    let name = command.get_name().to_string();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, name, &mut script);
    use std::io::Write as _;
    match std::io::stdout().lock().write_all(&script) {
        // `neardup completions bash | head` is not an error.
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(e).context("writing the completion script")
        }
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// Parses arguments, sets up logging and runs the command.
pub fn run() -> anyhow::Result<ExitCode> {
    let args = Args::parse();
    init_logging();
    match &args.command {
        Command::Dedup(a) => dedup::run(&args, a),
        Command::Eval(a) => eval::run(&args, a),
        Command::Extract(a) => extract::run(&args, a),
        Command::Score(a) => score::run(a),
        Command::Serve(a) => serve::serve(&args, a),
        Command::Load(a) => serve::load(a),
        Command::Pairs(a) => pairs::run(&args, a),
        Command::Crawl(a) => crawl::run(&args, a),
        Command::Report(a) => report_cmd::run(a),
        Command::TrainReference(a) => train::run(&args, a),
        Command::Compare(a) => compare::run(&args, a),
        Command::Detectors(a) => detectors::run(&args, a),
        Command::Export(a) => export::run(&args, a),
        Command::Completions(a) => completions(a.shell),
    }
}

/// `RUST_LOG` (tracing-subscriber's env filter syntax) to stderr. Without
/// it, only neardup's own warnings (dependencies such as html5ever log
/// parser trivia at warn level that users cannot act on) and `serve`'s
/// access log, one info line per request
/// (`RUST_LOG=neardup=warn,neardup_serve::access=off` turns it off).
/// "neardup's own" is every crate of the workspace, each its own target.
/// The log targets of the workspace's crates.
const OUR_CRATES: [&str; 10] = [
    "neardup",
    "neardup_api",
    "neardup_text",
    "neardup_html",
    "neardup_output",
    "neardup_batch",
    "neardup_report",
    "neardup_crawl",
    "neardup_serve",
    "neardup_cli",
];

fn init_logging() {
    use std::io::IsTerminal as _;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| {
        let ours = OUR_CRATES.map(|c| format!("{c}=warn")).join(",");
        tracing_subscriber::EnvFilter::new(format!("{ours},neardup_serve::access=info"))
    });
    // A second init (never in the binary) is harmless, hence try_init.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(neardup_crawl::log_writer)
        .with_ansi(std::io::stderr().is_terminal())
        .try_init();
}

/// The config file (or the defaults), with the `--detector` chain, checked.
fn load_config(file: Option<&Path>, detectors: &[String]) -> anyhow::Result<Config> {
    let config = read_config(file, detectors)?;
    // `[crawl]` belongs to the crawler, which checks it; a typo there is
    // reported by every command, not only when a crawl starts.
    neardup_crawl::CrawlConfig::from_config(&config).context("invalid configuration")?;
    Ok(config)
}

/// The config file (or the defaults), with the `--detector` chain; the
/// core's settings checked, `[crawl]` left to the caller
/// ([`load_config`], or `crawl`, which parses it into its settings).
fn read_config(file: Option<&Path>, detectors: &[String]) -> anyhow::Result<Config> {
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
fn open_deduper(config: Config, index: Option<&IndexLocation>) -> anyhow::Result<neardup::Deduper> {
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
fn batch_options(args: &Args) -> neardup_batch::Options {
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
pub(crate) fn shutdown_signal(message: &'static str) -> impl std::future::Future<Output = ()> {
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
