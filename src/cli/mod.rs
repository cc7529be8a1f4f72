//! The commands: raw arguments ([`args`]) -> checked [`neardup::Config`]
//! ([`setup`]) -> library calls -> exit code. No detection logic lives
//! here.

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
mod setup;
mod train;

use std::process::ExitCode;

use anyhow::Context as _;
use clap::Parser;

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

/// `RUST_LOG` (tracing-subscriber's env filter syntax) to stderr. Without
/// it, only neardup's own warnings (dependencies such as html5ever log
/// parser trivia at warn level that users cannot act on) and `serve`'s
/// access log, one info line per request
/// (`RUST_LOG=neardup=warn,neardup_serve::access=off` turns it off).
/// "neardup's own" is every crate of the workspace, each its own target.
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
