//! `neardup serve` and `neardup load`: flags to options, a tokio runtime,
//! and the library's [`neardup_serve`] calls.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use neardup::IndexLocation;
use neardup::SharedDeduper;
use neardup_cli::load::LoadOptions;
use neardup_serve::ServeOptions;

use super::args::{Args, LoadArgs, ServeArgs};

/// Serves until Ctrl-C or SIGTERM, then drains in-flight requests.
///
/// Everything that can fail without touching the index (the config, the
/// runtime, binding the address) is done first, so a start that fails (a
/// bad `--listen`, a port in use) creates no index file.
pub fn serve(args: &Args, a: &ServeArgs) -> anyhow::Result<ExitCode> {
    let config = super::setup::load_config(args.config.as_deref(), &a.detectors.detectors)?;
    let index = (!a.in_memory).then_some(&a.index);

    let options = ServeOptions {
        max_body: a.max_body,
        timeout: Duration::from_millis(a.timeout_ms),
        body_timeout: Duration::from_millis(a.body_timeout_ms),
        max_body_memory: a.max_body_memory,
        header_timeout: Duration::from_millis(a.header_timeout_ms),
        idle_timeout: Duration::from_millis(a.idle_timeout_ms),
        max_connections_per_address: a.max_connections_per_address,
        max_concurrency: a.max_concurrency,
        max_batch: a.max_batch,
        token: a.token.clone().filter(|t| !t.is_empty()),
        workers: args.threads,
    };
    // Single checks are analyzed on the runtime's threads (one per core, or
    // --threads), batches on the worker pool.
    let mut rt = tokio::runtime::Builder::new_multi_thread();
    if args.threads > 0 {
        rt.worker_threads(args.threads);
    }
    let rt = rt.enable_all().build().context("start the async runtime")?;
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(&a.listen)
            .await
            .with_context(|| format!("listen on {}", a.listen))?;
        let addr = listener.local_addr().context("bound address")?;
        // Opened only once the address is ours; off the runtime, as it may
        // read the whole index.
        // Verdicts never read a page's links: only `crawl` follows them.
        let deduper = tokio::task::block_in_place(|| super::setup::open_deduper(config, index))?
            .without_links();
        let deduper = SharedDeduper::new(deduper);
        // Owns SIGINT and SIGTERM from here on, before the address is
        // announced (see shutdown_signal); while the index opens, Ctrl-C
        // still ends the process at once.
        let shutdown =
            super::setup::shutdown_signal("neardup: shutting down: finishing requests in flight");
        // First line on stderr: scripts and tests read the address there.
        eprintln!("neardup: listening on http://{addr}");
        match index {
            Some(IndexLocation::File(path)) => {
                eprintln!("neardup: index {}", path.display());
            }
            Some(IndexLocation::Redis(_)) => {}
            None => eprintln!("neardup: index in memory (--in-memory): lost at exit"),
        }
        neardup_serve::run(listener, deduper, options, shutdown).await?;
        eprintln!("neardup: shut down");
        anyhow::Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// Runs the load generator and prints its report as one JSON object.
pub fn load(a: &LoadArgs) -> anyhow::Result<ExitCode> {
    let options = LoadOptions {
        target: a.target.clone(),
        clients: a.clients,
        requests: a.requests,
        page_bytes: a.page_bytes,
        text_share: a.text_share,
        duplicate_share: a.duplicate_share,
        max_time: Duration::from_secs(a.max_seconds),
        seed: a.seed,
        token: a.token.clone().filter(|t| !t.is_empty()),
        words: a.words,
        raw: a.raw,
    };
    // One thread: the generator usually shares the machine with the server
    // it measures, and one thread drives many keep-alive connections.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("start the async runtime")?;
    let report = rt.block_on(neardup_cli::load::run(&options))?;
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(ExitCode::SUCCESS)
}
