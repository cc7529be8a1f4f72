//! The crawl loop: seeds in, a deduplicated crawl out.
//!
//! ```text
//! frontier (this task) --jobs--> fetch workers (robots, Fetcher, analyze,
//!     canonicalize links) --results--> frontier:
//!     reorder, decide, sinks, links -> frontier
//! ```
//!
//! - The frontier is a breadth-first queue of URLs to request with their
//!   depth, a seen set of canonical keys, the [`Scope`](crate::frontier::Scope) (depth
//!   and page budgets) and a size cap ([`Options::max_frontier`], over all
//!   hosts): a link that finds the queue full is skipped with reason
//!   `frontier_full`.
//! - The queue is one FIFO per host ([`HostQueues`](crate::frontier::HostQueues), keyed as the
//!   fetcher's politeness limiter keys hosts: the host name, without
//!   port). A URL is dispatched only when its host is ready: fewer of its
//!   pages being fetched (dispatched, fetch not over; analysis does not
//!   count, the fetcher's limiter does not count it either) than
//!   `crawl.fetch.host_concurrency`, and its next politeness slot (host
//!   delay, robots.txt Crawl-delay, `Retry-After`, as the [`Fetcher`]'s
//!   limiter reports them) has come. Among ready hosts, the one whose
//!   oldest queued URL was queued first goes. When no host is ready the
//!   loop sleeps until the earliest slot (still receiving results and the
//!   shutdown signal). So a polite or slow host does not fill the workers
//!   and the dispatch window while other hosts idle; the fetcher's own
//!   limiter stays in force as the safety net.
//! - Workers fetch, run the CPU-heavy analysis with the deduper's
//!   [`neardup::Analyzer`] (no lock: a decision never waits for analyses,
//!   nor they for it) and canonicalize the page's links, so the sequential
//!   part does as little as it can. A page of up to 1 MiB is analyzed
//!   on the runtime thread that fetched it (a hand-off per page cost a
//!   fifth of the crawl's speed, and memory); a larger one on the
//!   blocking pool, alone, so that a long analysis does not hold up
//!   other fetches. At most one analysis per core runs at a time.
//! - Results are decided in dispatch order (a reorder buffer bounded by
//!   [`Options::max_in_flight`]); decisions run one at a time on the
//!   frontier task itself (a hand-off to the blocking pool waited for a
//!   core held by analyses: four times the decision's own time).
//! - Every channel is bounded and in-flight work is capped: memory stays
//!   bounded by the frontier cap, the seen set (bounded by the page
//!   budget) and `max_in_flight` bodies.
//!
//! # Determinism
//! Verdicts follow the dispatch order, never the order fetches finish in.
//! - One host (the politeness key: two ports of one host are one host):
//!   dispatch order is exactly breadth-first queue order, so a crawl of
//!   the same site gives the same pages, verdicts and output order,
//!   whatever the timing.
//! - Several hosts with no host delay and a host concurrency at least
//!   [`Options::max_in_flight`]: every host is always ready and dispatch
//!   order is the global queue order (one FIFO over all hosts), again
//!   independent of timing.
//! - Several hosts with politeness (a delay, or fewer slots per host than
//!   pages in flight): each host's pages are dispatched in its own
//!   queue order, but how hosts interleave depends on fetch timing. Per
//!   page, what can change between runs: a page whose copy is on another
//!   host (a cross-host mirror) is unique in one run and a duplicate of
//!   the other copy in another (which copy is kept depends on which was
//!   dispatched first), the output order, and with budgets
//!   (`max_pages`) or a full frontier, which pages are reached at all.
//!   Verdicts among one host's own pages do not depend on other hosts'
//!   timing unless a page has a near match on another host.
//!
//! # Which URL is which
//! A link is requested as linked: resolved against the page's base and
//! parsed per the URL standard ([`Canonicalizer::request`]: userinfo and,
//! by default, the fragment removed), never rewritten by the
//! canonicalization heuristics (query order, tracking parameters,
//! percent-escapes), because sites exist where they matter. robots.txt is
//! matched against that request URL. Its canonical form
//! ([`Canonicalizer::normalize`]) is the page's *key*: the seen set,
//! scope patterns, dedup (`doc_id`) and redirect/canonical matching use
//! it. The first spelling of a key to be queued is the one requested; the
//! others are the same page and are not fetched again. So:
//! - `pages.jsonl`: `url` is the URL requested, `final_url` the URL that
//!   answered (after redirects), `key` the canonical key;
//! - `verdicts.jsonl`: `doc_id` is the key, `url` the URL requested;
//! - WARC records (`--warc-out`) name the URL that answered
//!   (`WARC-Target-URI`), as sent on the wire;
//! - the crawl state (`--resume`) stores request URLs; keys are derived.
//!
//! # Decisions
//! - A page whose `<link rel=canonical>` (canonicalized) names another URL
//!   that was already fetched is a duplicate of that page, reason
//!   `canonical`, without content comparison. A page whose redirect target
//!   was already fetched is a duplicate with reason `redirect`. A redirect
//!   target is marked fetched: it is not queued again, and dropped from
//!   the queue if waiting there (reason `already_fetched`); if it was
//!   already dispatched when the redirect is decided, it is fetched twice
//!   (and then found a duplicate by content).
//! - Links of unique pages and of near duplicates are expanded (a near
//!   duplicate often differs in its links: the next page of a list, an
//!   added section). Links of duplicates (exact or near-exact content,
//!   canonical, redirect) are expanded only while at most
//!   `crawl.scope.duplicate_hops` duplicates (default 1) come in a row on
//!   the link path ending at the page: a copy whose text equals another
//!   page's can still link to pages nothing else links to (rust-doc's
//!   `core::ops` index is a text duplicate of `std::ops`, but only it
//!   links to `core`-only items), while a mirror or a URL trap serving the
//!   same page under new URLs costs one level of links, not the whole
//!   mirror. With 0, a duplicate's links are never expanded. Every URL
//!   still passes the seen set, the depth and the page budgets.
//! - Only 2xx HTML answers are checked for duplicates; other statuses,
//!   skipped content types and fetch errors go to `pages.jsonl` only.
//! - A redirect stub (`extract.redirect_stubs`: a `<meta http-equiv=refresh>`
//!   to another URL with a short delay, or a tiny page of one link saying
//!   it moved) is a redirect hop, not a page: no verdict, not indexed, its
//!   `pages.jsonl` line has `redirect_to` and `redirect_kind`, and its
//!   target is queued at the stub's depth (see `Decider::redirect_stub`).
//! - Robots directives (`manners`, `crawl.directives`): a `noindex` page
//!   is not checked nor indexed (its `pages.jsonl` line has `robots`), a
//!   `nofollow` page's links and `rel=nofollow` links are not followed.
//! - Sitemaps (seed sitemaps, `Sitemap:` lines of the seeds' robots.txt)
//!   are read before the first dispatch of a new crawl and their URLs
//!   offered like links ([`crate::frontier::sitemap`]).
//! - A URL disallowed by robots.txt is not fetched: its `pages.jsonl` line
//!   has `status: null` and `error: "robots_disallowed"` (or
//!   `"robots_unreachable"` when robots.txt could not be fetched: RFC 9309
//!   then disallows the whole host for a while).
//! - Each redirect hop is checked like a link (scope at the page's depth,
//!   then the target host's robots.txt) before it is requested; a refused
//!   hop ends the fetch with `error: "redirect_refused: redirect to URL
//!   refused: REASON"` (module `hops`).
//!
//! Shutdown (the `shutdown` future resolving, Ctrl-C in the CLI) stops
//! dispatching, drains the work in flight (its verdicts are written) and
//! finishes the sinks, so every output file is complete.
//!
//! [`Crawler::run`] writes to plain writers and keeps nothing on disk; the
//! CLI uses [`Crawler::run_in_dir`], the same loop with checkpoints so `--resume`
//! can continue a crawl stopped by Ctrl-C or killed (see `state`), an
//! optional WARC output (`warc`) and a progress bar (`progress`).
#![deny(missing_docs)]
#![forbid(unsafe_code)]

// The fetcher and the frontier's parts are usable alone (`pub`); the
// loop's parts are the crate's own: `worker` (fetch and analyze a job),
// `event_loop` (dispatch, reorder, checkpoint), `decider` (results in
// dispatch order to lines, verdicts and links), `sitemaps`, `summary`;
// the frontier's crawl state is `frontier::pending`.
mod config;
mod crawl_state;
mod decider;
mod error;
mod event_loop;
pub mod fetch;
pub mod frontier;
mod hops;
mod manners;
mod options;
mod outputs;
mod progress;
mod seeds;
mod shared;
mod site;
mod sitemaps;
mod state;
mod summary;
mod warc;
mod worker;

pub use config::{
    CrawlConfig, CrawlSettings, DirectivesConfig, FetchConfig, LimitsConfig, Oversize,
    RobotsConfig, ScopeConfig, SiteScope, SitemapConfig,
};
pub use crawl_state::CrawlState;
pub use error::{CrawlError, Result};
pub use manners::{nofollow_mask, parse_list, Directives};
pub use options::Options;
pub use progress::{format_line, format_log_line, log_writer, LogWriter, Progress};
pub use seeds::{parse_seed, parse_seeds, parse_seeds_bytes, BadSeed};
pub use site::{site_with_port, HostKey, ScopeSite};
pub use state::{
    clusters_from_verdicts, write_clusters, Checkpoint, CheckpointPolicy, CrawlDir, Resumed, INDEX,
    PAGES, STATE,
};
pub use summary::{format_summary, CrawlSummary};
pub use warc::{payload_digest, Kept, WarcOut, WarcState, IDENTICAL_PAYLOAD};

use std::collections::{BTreeMap, HashMap, HashSet};
use std::future::Future;
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use url::Url;

use crate::fetch::Fetcher;
use crate::frontier::Canonicalizer;
use neardup::SharedDeduper;
use neardup_output::Sink;
use neardup_output::Summary;

use crate::decider::Decider;
use crate::event_loop::Loop;
use crate::frontier::pending::Frontier;
use crate::outputs::{Outputs, Plain};
use crate::shared::Shared;
use crate::sitemaps::read_sitemaps;
use crate::worker::spawn_workers;

/// A crawl to run: what every crawl needs is given to [`Crawler::new`],
/// the seeds and the loop's [`Options`] by builder methods (defaults: no
/// seeds, [`Options::default`]). [`Crawler::run`] crawls to plain
/// writers; [`Crawler::run_in_dir`] into a crawl directory, with
/// checkpoints.
///
/// ```no_run
/// # async fn f(
/// #     settings: &neardup_crawl::CrawlSettings,
/// #     deduper: neardup::SharedDeduper,
/// #     fetcher: std::sync::Arc<neardup_crawl::fetch::Fetcher>,
/// #     sink: &mut dyn neardup_output::Sink,
/// # ) -> neardup_crawl::Result<()> {
/// let seed = url::Url::parse("http://127.0.0.1:8080/").expect("seed");
/// let mut pages = Vec::new();
/// let summary = neardup_crawl::Crawler::new(settings, deduper, fetcher)
///     .seeds(vec![seed])
///     .run(&mut pages, sink, std::future::pending())
///     .await?;
/// # Ok(()) }
/// ```
pub struct Crawler<'c> {
    settings: &'c CrawlSettings,
    deduper: SharedDeduper,
    fetcher: Arc<Fetcher>,
    seeds: Vec<Url>,
    options: Options,
}

impl<'c> Crawler<'c> {
    /// A crawl under `settings`, deciding with `deduper` and fetching with
    /// `fetcher`.
    pub fn new(settings: &'c CrawlSettings, deduper: SharedDeduper, fetcher: Arc<Fetcher>) -> Self {
        Crawler {
            settings,
            deduper,
            fetcher,
            seeds: Vec::new(),
            options: Options::default(),
        }
    }

    /// The URLs the crawl starts from (they also define its scope).
    #[must_use]
    pub fn seeds(mut self, seeds: Vec<Url>) -> Self {
        self.seeds = seeds;
        self
    }

    /// The crawl-loop settings that are not part of the config.
    #[must_use]
    pub fn options(mut self, options: Options) -> Self {
        self.options = options;
        self
    }

    /// Crawls from the seeds until the frontier is empty and nothing is
    /// in flight, or until `shutdown` resolves (then in-flight work is
    /// drained). Writes one `pages.jsonl` line per fetch attempt to
    /// `pages` and pushes every checked page to `sink` (verdicts,
    /// clusters), then calls [`Sink::finish`].
    ///
    /// # Errors
    /// Invalid scope patterns, sink or `pages` write errors, a poisoned
    /// deduper. Fetch errors are outcomes, not errors.
    pub async fn run(
        self,
        pages: &mut dyn Write,
        sink: &mut dyn Sink,
        shutdown: impl Future<Output = ()>,
    ) -> Result<CrawlSummary> {
        let mut out = Plain { pages, sink };
        self.drive(None, &mut out, shutdown).await
    }

    /// Crawls into `dir` (fresh or resumed) from its seeds (those given
    /// to [`Crawler::seeds`] are not used) with the deduper opened
    /// on [`CrawlDir::index_path`]: pages indexed after the last
    /// checkpoint are dropped first, and the cluster files are rebuilt
    /// from `verdicts.jsonl` at the end. On `shutdown` the work in flight
    /// is drained and a final checkpoint is written, so `--resume`
    /// continues from there.
    ///
    /// # Errors
    /// As [`Crawler::run`], and index or state write errors.
    pub async fn run_in_dir(
        self,
        dir: &mut CrawlDir,
        shutdown: impl Future<Output = ()>,
    ) -> Result<CrawlSummary> {
        dir.drop_unsaved(&self.deduper)?;
        let seeds = dir.seeds();
        let restored = dir.take_restored();
        let summary = self.seeds(seeds).drive(restored, dir, shutdown).await?;
        dir.finish()?;
        Ok(summary)
    }

    /// The crawl loop. `restored` is the state of an interrupted crawl to
    /// continue (then the seeds only define the scope). The steps: the
    /// frontier and the workers are set up ([`Shared::new`],
    /// [`spawn_workers`]), the start's sitemaps read, then the loop runs
    /// ([`Loop::run`]) and the outputs are finished ([`Loop::finish`]).
    pub(crate) async fn drive(
        self,
        restored: Option<CrawlState>,
        out: &mut dyn Outputs,
        shutdown: impl Future<Output = ()>,
    ) -> Result<CrawlSummary> {
        let start = Instant::now();
        let Crawler {
            settings,
            deduper,
            fetcher,
            seeds,
            options,
        } = self;
        let crawl = &settings.crawl;
        let canon = Canonicalizer::new(&settings.core.canonical);
        let mut frontier = Frontier::new(crawl, &options, &canon, &seeds)?;
        let workers = match options.workers {
            0 => crawl.fetch.concurrency.max(1),
            n => n,
        };
        let max_in_flight = match options.max_in_flight {
            0 => workers.saturating_mul(4),
            n => n,
        }
        .max(1);
        let keep_bodies = out.keeps_bodies();
        let shared = Arc::new(Shared::new(
            crawl,
            &options,
            &deduper,
            &fetcher,
            &seeds,
            canon,
            keep_bodies,
        )?);
        let (mut channels, handles) = spawn_workers(workers, max_in_flight, &shared);

        let mut summary = CrawlSummary::default();
        out.sink().begin()?;
        let mut decider = Decider {
            positions: HashMap::new(),
            fetched: HashMap::new(),
            records: 0,
            watermark: 0,
            batch: Summary::default(),
            remote_store: deduper.read(neardup::Deduper::store_is_remote)?,
        };
        if let Some(r) = restored {
            r.restore(&mut frontier, &mut decider, &mut summary);
        }
        tokio::pin!(shutdown);
        // Sitemaps are read once per crawl, before the first dispatch (a
        // resumed crawl has their URLs in its restored queue); the shutdown
        // signal stops the reading like the crawl.
        let mut stopped_early = false;
        if !frontier.sitemaps_read {
            tokio::select! {
                biased;
                () = &mut shutdown => stopped_early = true,
                found = read_sitemaps(&shared, crawl, &seeds) => {
                    found.offer(&shared.canon, &mut frontier, &mut summary);
                    frontier.sitemaps_read = true;
                }
            }
        }
        if stopped_early {
            summary.interrupted = true;
        }
        let mut l = Loop {
            frontier,
            decider,
            summary,
            deduper,
            out,
            in_flight_urls: BTreeMap::new(),
            since_checkpoint: 0,
            holding: HashSet::new(),
            next_dispatch: 0,
            next_decide: 0,
            reorder: BTreeMap::new(),
            // A shutdown seen while reading sitemaps: `shutdown` is done
            // and must not be polled again.
            stopping: stopped_early,
            max_in_flight: max_in_flight as u64,
        };
        if l.out.durable() {
            // The starting point is a checkpoint too: a crash before the
            // first periodic one resumes from here.
            l.checkpoint().await?;
        }
        l.run(shutdown, &mut channels, fetcher.politeness()).await?;
        // Closing the job channel ends the workers.
        channels.job_tx.take();
        for h in handles {
            let _ = h.await;
        }
        l.finish(start, workers).await
    }
}
