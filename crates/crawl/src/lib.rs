//! The crawl loop: seeds in, a deduplicated crawl out.
//!
//! ```text
//! frontier (this task) --jobs--> fetch workers (robots, Fetcher, analyze
//!     on the blocking pool, canonicalize links) --results--> frontier:
//!     reorder, decide, sinks, links -> frontier
//! ```
//!
//! - The frontier is a breadth-first queue of URLs to request with their
//!   depth, a seen set of canonical keys, the [`Scope`] (depth
//!   and page budgets) and a size cap ([`Options::max_frontier`], over all
//!   hosts): a link that finds the queue full is skipped with reason
//!   `frontier_full`.
//! - The queue is one FIFO per host ([`HostQueues`], keyed as the
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
//! - Workers fetch, run the CPU-heavy analysis on the blocking pool with
//!   the deduper's [`neardup::Analyzer`] (no lock: a decision never
//!   waits for analyses, nor they for it) and canonicalize the page's
//!   links, so the sequential part does as little as it can.
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

// The fetcher and the frontier's parts are usable alone and stay modules;
// the rest is one flat list at the crate root.
mod config;
pub mod fetch;
pub mod frontier;
mod hops;
mod manners;
mod progress;
mod seeds;
mod state;
mod warc;

pub use config::{
    CrawlConfig, DirectivesConfig, FetchConfig, LimitsConfig, Oversize, RobotsConfig, ScopeConfig,
    SiteScope, SitemapConfig,
};
pub use manners::{nofollow_mask, parse_list, Directives};
pub use progress::{format_line, format_log_line, log_writer, LogWriter, Progress};
pub use seeds::{parse_seed, parse_seeds, parse_seeds_bytes, BadSeed};
pub use state::{
    clusters_from_verdicts, write_clusters, Checkpoint, CheckpointPolicy, CrawlDir, CrawlState,
    Resumed, INDEX, PAGES, STATE,
};
pub use warc::{payload_digest, Kept, WarcOut, WarcState, IDENTICAL_PAYLOAD};

use std::collections::{BTreeMap, HashMap, HashSet};
use std::future::Future;
use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use url::Url;

use crate::fetch::Politeness;
use crate::fetch::{FetchError, FetchOutcome, Fetcher};
use crate::frontier::queue::Poll;
use crate::frontier::robots::RobotsSource;
use crate::frontier::Links;
use crate::frontier::{Canonicalizer, HostQueues, RobotsCache, Scope, SkipReason};
use neardup::Config;
use neardup::{Analyzed, SharedDeduper};
use neardup::{Error, Result};
use neardup::{Match, MatchBasis, Redirect, RedirectKind, Verdict, VerdictKind};
use neardup_batch::Sink;
use neardup_batch::{PageRecord, Summary};

/// A page at least this large (bytes of body) is analyzed alone: its
/// analysis holds about ten times its size in transient memory.
const LARGE_PAGE: usize = 1 << 20;

/// The crawl loop's limits: `[crawl.limits]` ([`Options::from_limits`]),
/// or set in code.
#[derive(Clone, Debug)]
pub struct Options {
    /// Fetch workers; 0 uses `crawl.fetch.concurrency` (the fetcher's
    /// global limit applies either way).
    pub workers: usize,
    /// Largest number of URLs waiting in the frontier queue (all hosts
    /// together).
    pub max_frontier: usize,
    /// Largest number of pages dispatched but not yet decided (bodies held
    /// in memory); 0 uses four per worker.
    pub max_in_flight: usize,
    /// Response-body bytes held at once, fetched and not yet analyzed (or
    /// not yet decided when the outputs keep bodies, as the WARC output
    /// does): a fetch waits for room before reading its body (see
    /// [`crate::fetch::budget`]). Each body is also capped by
    /// `crawl.fetch.max_body_bytes`.
    pub max_body_memory: usize,
}

impl Default for Options {
    /// The defaults of `[crawl.limits]`.
    fn default() -> Self {
        Options::from_limits(&config::LimitsConfig::default())
    }
}

impl Options {
    /// The loop settings of `[crawl.limits]`.
    pub fn from_limits(limits: &config::LimitsConfig) -> Options {
        Options {
            workers: limits.workers,
            max_frontier: limits.max_frontier,
            max_in_flight: limits.max_in_flight,
            max_body_memory: limits.max_body_memory_mib.saturating_mul(1 << 20),
        }
    }
}

/// Counts of a finished (or interrupted) crawl.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CrawlSummary {
    /// Lines written to `pages.jsonl` (fetch attempts and robots skips).
    pub attempts: u64,
    /// Fetches that failed without a response.
    pub fetch_errors: u64,
    /// URLs not fetched because robots.txt disallows them or is
    /// unreachable.
    pub robots_disallowed: u64,
    /// Pages checked for duplicates (2xx HTML answers).
    pub pages: u64,
    /// Unique pages.
    pub unique: u64,
    /// Duplicates (content, `canonical` or `redirect`).
    pub duplicates: u64,
    /// Near duplicates.
    pub near_duplicates: u64,
    /// Duplicates by `<link rel=canonical>`.
    pub canonical_duplicates: u64,
    /// Links not crawled, by reason (`off_site`, `too_deep`,
    /// `frontier_full`, `rel_nofollow`, `meta_nofollow`, ...). Links to
    /// URLs already seen are not counted.
    pub skipped: BTreeMap<String, u64>,
    /// Final HTTP status of every answer (after redirects), by code.
    #[serde(default)]
    pub statuses: BTreeMap<u16, u64>,
    /// Fetches that failed without a response, by kind (`connect`, `dns`,
    /// `read_timeout`, `redirect_loop`, ..., `internal`).
    #[serde(default)]
    pub errors: BTreeMap<String, u64>,
    /// 2xx HTML pages not checked because a robots directive says
    /// `noindex` (see `manners`).
    #[serde(default)]
    pub noindex: u64,
    /// Pages whose links were not followed because a robots directive
    /// says `nofollow`.
    #[serde(default)]
    pub nofollow_pages: u64,
    /// 2xx HTML pages that were redirect stubs (meta refresh or one-link
    /// page, `extract.redirect_stubs`): not checked, their target followed
    /// as a redirect hop.
    #[serde(default)]
    pub redirect_stubs: u64,
    /// Sitemap files read (see [`crate::frontier::sitemap`]).
    #[serde(default)]
    pub sitemap_files: u64,
    /// Page URLs the sitemaps listed (before scope and the seen set).
    #[serde(default)]
    pub sitemap_urls: u64,
    /// Sitemaps that could not be read, or only in part, and entries
    /// dropped (over `crawl.sitemaps.max_urls`, not http(s)).
    #[serde(default)]
    pub sitemap_errors: u64,
    /// Body bytes fetched.
    pub bytes: u64,
    /// Wall time.
    pub elapsed: Duration,
    /// The crawl stopped on the shutdown signal, not on an empty frontier.
    pub interrupted: bool,
}

impl CrawlSummary {
    /// Answers with a 4xx or 5xx final status (fetch errors apart).
    pub fn http_errors(&self) -> u64 {
        self.statuses
            .iter()
            .filter(|(code, _)| **code >= 400)
            .map(|(_, n)| n)
            .sum()
    }
}

/// One line of `pages.jsonl`.
#[derive(Debug, Serialize)]
struct PageLine<'a> {
    /// The URL requested (as linked).
    url: &'a str,
    /// Its canonical key (`doc_id` in verdicts.jsonl).
    key: &'a str,
    final_url: Option<&'a str>,
    status: Option<u16>,
    bytes: usize,
    ms: u64,
    content_type: Option<&'a str>,
    depth: u32,
    error: Option<String>,
}

struct Job {
    seq: u64,
    /// The URL to request (as linked).
    url: Url,
    /// Its canonical key.
    key: Url,
    depth: u32,
    /// Duplicates in a row on the link path ending at the page that
    /// linked here (see `crawl.scope.duplicate_hops`).
    dups: u32,
}

enum Fetched {
    /// robots.txt forbids the URL (or is unreachable: RFC 9309 says
    /// disallow all then).
    Disallowed {
        unreachable: bool,
    },
    Failed(FetchError, Duration),
    /// The fetch task panicked.
    Internal(String),
    Done {
        outcome: Box<FetchOutcome>,
        /// The final URL, canonicalized (the URL itself if it does not
        /// canonicalize).
        final_url: Url,
        analyzed: Option<Box<Page>>,
    },
}

/// An analyzed page with its URLs resolved by the worker, so that the
/// sequential decider only looks them up: canonicalizing a page's
/// hundreds of links is CPU work that runs in parallel.
struct Page {
    analyzed: Analyzed,
    /// `<link rel=canonical>`, joined to the final URL and canonicalized.
    canonical: Option<Url>,
    /// The page's links, canonicalized against its base URL (without
    /// those dropped for their `rel`).
    links: Links,
    /// Links dropped for a `rel` in `crawl.directives.nofollow_rels`.
    rel_nofollow: u64,
    /// The page's robots directives (meta, `X-Robots-Tag`).
    directives: manners::Directives,
}

struct Done {
    job: Job,
    fetched: Fetched,
}

struct Shared {
    fetcher: Arc<Fetcher>,
    robots: RobotsCache,
    /// The analysis half of the deduper: pages are analyzed without its
    /// lock, so a decision (which takes the write lock) never waits for
    /// the analyses in progress, nor they for it.
    analyzer: Arc<neardup::Analyzer>,
    /// Scope test for redirect targets.
    hops: hops::HopScope,
    /// The crawl's URL rules, applied by the workers to a page's URLs.
    canon: Canonicalizer,
    /// `extract.max_links`.
    max_links: usize,
    /// Pages analyzed at once: one per core. Analysis is CPU work, so
    /// more at once is not faster, and each analysis of a large page
    /// holds many times its size in transient memory: a page larger than
    /// [`LARGE_PAGE`] takes every permit (it is analyzed alone).
    analysis: tokio::sync::Semaphore,
    /// Permits of `analysis`.
    analysis_permits: u32,
    /// Whether the outputs need the bodies after analysis (WARC); if not,
    /// a body is freed as soon as the page is analyzed.
    keep_bodies: bool,
    /// `crawl.fetch` limits with the crawl's body budget.
    fetch_options: crate::fetch::FetchOptions,
    /// `crawl.directives`.
    directives: crate::config::DirectivesConfig,
    /// `crawl.robots_token`, for `<meta name=TOKEN>` and `X-Robots-Tag`.
    robots_token: String,
    /// [`manners::nofollow_mask`] of `crawl.directives`.
    nofollow_mask: u8,
}

/// Where the crawl loop writes, and when and how it checkpoints.
pub(crate) trait Outputs {
    /// The `pages.jsonl` writer.
    fn pages(&mut self) -> &mut dyn Write;
    /// Where checked pages go.
    fn sink(&mut self) -> &mut dyn Sink;
    /// Whether a checkpoint is due, `decided` pages after the last one.
    fn checkpoint_due(&self, _decided: u64) -> bool {
        false
    }
    /// Makes the outputs durable and records `state` (the index is already
    /// flushed).
    fn checkpoint(&mut self, _state: &state::CrawlState) -> Result<()> {
        Ok(())
    }
    /// Whether [`Outputs::answer`] reads the response bodies (the WARC
    /// output does); if not, bodies are freed right after analysis.
    fn keeps_bodies(&self) -> bool {
        false
    }
    /// Whether [`Outputs::checkpoint`] does anything (then the index is
    /// flushed before each one).
    fn durable(&self) -> bool {
        false
    }
    /// An HTTP answer, with the page's verdict when it was checked (for
    /// the WARC output).
    fn answer(
        &mut self,
        _key: &str,
        _outcome: &FetchOutcome,
        _verdict: Option<&Verdict>,
    ) -> Result<()> {
        Ok(())
    }
    /// Counters after each decision, for a progress display.
    fn progress(&mut self, _summary: &CrawlSummary, _queued: usize, _in_flight: u64) {}
}

/// The outputs of [`Crawler::run`]: plain writers, no checkpoints.
struct Plain<'a> {
    pages: &'a mut dyn Write,
    sink: &'a mut dyn Sink,
}

impl Outputs for Plain<'_> {
    fn pages(&mut self) -> &mut dyn Write {
        self.pages
    }
    fn sink(&mut self) -> &mut dyn Sink {
        self.sink
    }
}

/// A crawl to run: what every crawl needs is given to [`Crawler::new`],
/// the seeds and the loop's [`Options`] by builder methods (defaults: no
/// seeds, [`Options::default`]). [`Crawler::run`] crawls to plain
/// writers; [`Crawler::run_in_dir`] into a crawl directory, with
/// checkpoints.
///
/// ```no_run
/// # async fn f(
/// #     config: &neardup::Config,
/// #     deduper: neardup::SharedDeduper,
/// #     fetcher: std::sync::Arc<neardup_crawl::fetch::Fetcher>,
/// #     sink: &mut dyn neardup_batch::Sink,
/// # ) -> neardup::Result<()> {
/// let seed = url::Url::parse("http://127.0.0.1:8080/").expect("seed");
/// let mut pages = Vec::new();
/// let summary = neardup_crawl::Crawler::new(config, deduper, fetcher)
///     .seeds(vec![seed])
///     .run(&mut pages, sink, std::future::pending())
///     .await?;
/// # Ok(()) }
/// ```
pub struct Crawler<'c> {
    config: &'c Config,
    deduper: SharedDeduper,
    fetcher: Arc<Fetcher>,
    seeds: Vec<Url>,
    options: Options,
}

impl<'c> Crawler<'c> {
    /// A crawl under `config`, deciding with `deduper` and fetching with
    /// `fetcher`.
    pub fn new(config: &'c Config, deduper: SharedDeduper, fetcher: Arc<Fetcher>) -> Self {
        Crawler {
            config,
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

    /// The crawl loop. `restored` is the state of an interrupted crawl to
    /// continue (then the seeds only define the scope). The steps: the
    /// frontier and the workers are set up ([`Shared::new`],
    /// [`spawn_workers`]), the start's sitemaps read, then the loop runs
    /// ([`Loop::run`]) and the outputs are finished ([`Loop::finish`]).
    pub(crate) async fn drive(
        self,
        restored: Option<state::CrawlState>,
        out: &mut dyn Outputs,
        shutdown: impl Future<Output = ()>,
    ) -> Result<CrawlSummary> {
        let start = Instant::now();
        let Crawler {
            config,
            deduper,
            fetcher,
            seeds,
            options,
        } = self;
        let crawl = &CrawlConfig::from_config(config)?;
        let canon = Canonicalizer::new(&config.canonical);
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

impl Shared {
    /// What the workers share: the fetcher, robots.txt cache, analyzer,
    /// URL rules and the crawl's limits.
    fn new(
        crawl: &CrawlConfig,
        options: &Options,
        deduper: &SharedDeduper,
        fetcher: &Arc<Fetcher>,
        seeds: &[Url],
        canon: Canonicalizer,
        keep_bodies: bool,
    ) -> Result<Shared> {
        let cores = std::thread::available_parallelism()
            .map_or(1, std::num::NonZeroUsize::get)
            .min(1024) as u32;
        Ok(Shared {
            fetcher: Arc::clone(fetcher),
            robots: RobotsCache::new(crawl),
            analyzer: deduper.read(|d| d.analyzer())?,
            hops: hops::HopScope::new(canon.clone(), &crawl.scope, seeds)?,
            canon,
            max_links: deduper.read(|d| d.config().extract.max_links)?,
            analysis: tokio::sync::Semaphore::new(cores as usize),
            analysis_permits: cores,
            keep_bodies,
            fetch_options: crate::fetch::FetchOptions {
                body_budget: Some(crate::fetch::BodyBudget::new(options.max_body_memory)),
                ..crate::fetch::FetchOptions::from_config(&crawl.fetch)
            },
            directives: crawl.directives.clone(),
            robots_token: crawl.robots_token.clone(),
            nofollow_mask: manners::nofollow_mask(&crawl.directives),
        })
    }
}

/// The frontier's ends of the channels to and from the workers.
struct Channels {
    /// Jobs to fetch; `None` once closed (which ends the workers).
    job_tx: Option<mpsc::Sender<Job>>,
    /// Fetched and analyzed pages, in the order they finish.
    done_rx: mpsc::Receiver<Done>,
    /// Sequence numbers of pages whose fetch is over (analysis follows):
    /// their host's slot is free for the next URL.
    fetched_rx: mpsc::Receiver<u64>,
}

/// Starts `workers` fetch workers sharing one job queue.
fn spawn_workers(
    workers: usize,
    max_in_flight: usize,
    shared: &Arc<Shared>,
) -> (Channels, Vec<tokio::task::JoinHandle<()>>) {
    let (job_tx, job_rx) = mpsc::channel::<Job>(workers);
    let (done_tx, done_rx) = mpsc::channel::<Done>(workers);
    // At most one fetch-over message per page in flight, so a send never
    // finds the channel full.
    let (fetched_tx, fetched_rx) = mpsc::channel::<u64>(max_in_flight);
    let job_rx = Arc::new(tokio::sync::Mutex::new(job_rx));
    let mut handles = Vec::with_capacity(workers);
    for _ in 0..workers {
        let rx = Arc::clone(&job_rx);
        let tx = done_tx.clone();
        let fetched = fetched_tx.clone();
        let shared = Arc::clone(shared);
        handles.push(tokio::spawn(worker(rx, tx, fetched, shared)));
    }
    let channels = Channels {
        job_tx: Some(job_tx),
        done_rx,
        fetched_rx,
    };
    (channels, handles)
}

/// The frontier task's state while the crawl loop runs.
struct Loop<'o> {
    frontier: Frontier,
    decider: Decider,
    summary: CrawlSummary,
    deduper: SharedDeduper,
    out: &'o mut dyn Outputs,
    /// Dispatched and not yet decided, by sequence number: a checkpoint
    /// records them at the head of the queue, to be fetched again.
    in_flight_urls: BTreeMap<u64, Queued>,
    /// Pages decided since the last checkpoint.
    since_checkpoint: u64,
    /// Dispatched pages still counted against their host's concurrency:
    /// until their fetch is over (or, failing that signal, their result
    /// comes).
    holding: HashSet<u64>,
    next_dispatch: u64,
    next_decide: u64,
    /// Results that came before an earlier dispatched page's.
    reorder: BTreeMap<u64, Done>,
    /// No more dispatching: the shutdown signal came (it must not be
    /// polled again) or every worker is gone.
    stopping: bool,
    max_in_flight: u64,
}

impl Loop<'_> {
    /// Dispatches, receives and decides until the frontier is empty and
    /// nothing is in flight, or, after a shutdown, until the work in
    /// flight is drained.
    async fn run(
        &mut self,
        mut shutdown: std::pin::Pin<&mut impl Future<Output = ()>>,
        ch: &mut Channels,
        politeness: &Politeness,
    ) -> Result<()> {
        loop {
            let in_flight = self.next_dispatch - self.next_decide;
            if in_flight == 0 && (self.frontier.queue.is_empty() || self.stopping) {
                return Ok(());
            }
            let can_dispatch =
                !self.stopping && !self.frontier.queue.is_empty() && in_flight < self.max_in_flight;
            // Which host may go now; if none, when the first one may.
            // Idle: every host with queued URLs is at its concurrency, so a
            // result must come first (there is one in flight).
            let poll = if can_dispatch {
                self.frontier
                    .queue
                    .poll(tokio::time::Instant::now(), politeness)
            } else {
                Poll::Idle
            };
            let ready = poll == Poll::Ready;
            let wake = match poll {
                Poll::Until(at) => Some(at),
                Poll::Ready | Poll::Idle => None,
            };
            let stopping = self.stopping;
            let job_tx = &ch.job_tx;
            // Biased: a shutdown is seen at once, and finished work is
            // decided before more is dispatched (fewer bodies held).
            tokio::select! {
                biased;
                () = &mut shutdown, if !stopping => {
                    tracing::info!("shutdown: draining {in_flight} pages in flight");
                    self.stopping = true;
                    self.summary.interrupted = true;
                }
                Some(seq) = ch.fetched_rx.recv(), if in_flight > 0 => self.fetch_over(seq),
                done = ch.done_rx.recv(), if in_flight > 0 => {
                    let Some(done) = done else {
                        return Err(worker_gone());
                    };
                    self.receive(done).await?;
                }
                permit = async { match job_tx { Some(tx) => tx.reserve().await.ok(), None => None } }, if ready => {
                    match permit {
                        Some(permit) => self.dispatch(permit, politeness),
                        // Every worker is gone: nothing more can be fetched.
                        None => self.stopping = true,
                    }
                }
                // No host is ready: wait for the first slot (results and
                // the shutdown signal still come in meanwhile).
                () = async { if let Some(at) = wake { tokio::time::sleep_until(at).await } }, if wake.is_some() => {}
            }
        }
    }

    /// A page's fetch is over: its host's slot is free.
    fn fetch_over(&mut self, seq: u64) {
        if self.holding.remove(&seq) {
            if let Some(queued) = self.in_flight_urls.get(&seq) {
                self.frontier.queue.done(&host_key(&queued.url));
            }
        }
    }

    /// A page's result: decided with every result now in dispatch order
    /// ([`Decider::process`]), then progress and, when due, a checkpoint.
    async fn receive(&mut self, done: Done) -> Result<()> {
        if self.holding.remove(&done.job.seq) {
            self.frontier.queue.done(&host_key(&done.job.url));
        }
        self.reorder.insert(done.job.seq, done);
        while let Some(done) = self.reorder.remove(&self.next_decide) {
            self.next_decide += 1;
            self.in_flight_urls.remove(&done.job.seq);
            self.decider
                .process(
                    done,
                    &mut self.frontier,
                    &self.deduper,
                    &mut *self.out,
                    &mut self.summary,
                )
                .await?;
            self.since_checkpoint += 1;
        }
        self.out.progress(
            &self.summary,
            self.frontier.queue.len(),
            self.next_dispatch - self.next_decide,
        );
        if self.out.checkpoint_due(self.since_checkpoint) {
            self.checkpoint().await?;
            self.since_checkpoint = 0;
        }
        Ok(())
    }

    /// Sends the next URL of a ready host to a worker. None is sent when
    /// the host's slot moved while the permit was awaited (a redirect or
    /// robots.txt fetch took it): the next turn waits for it.
    fn dispatch(&mut self, permit: mpsc::Permit<'_, Job>, politeness: &Politeness) {
        if let Some(queued) = self.frontier.next(tokio::time::Instant::now(), politeness) {
            let seq = self.next_dispatch;
            self.in_flight_urls.insert(seq, queued.clone());
            let Queued { url, depth, dups } = queued;
            self.holding.insert(seq);
            let key = self.frontier.key(&url);
            permit.send(Job {
                seq,
                url,
                key,
                depth,
                dups,
            });
            self.next_dispatch += 1;
        }
    }

    /// See [`checkpoint`].
    async fn checkpoint(&mut self) -> Result<()> {
        checkpoint(
            &mut *self.out,
            &self.deduper,
            &self.frontier,
            &self.decider,
            &self.summary,
            &self.in_flight_urls,
        )
        .await
    }

    /// After the loop: flushes `pages.jsonl`, finishes the sink, writes the
    /// last checkpoint (nothing in flight; an empty queue and no
    /// interruption mark the crawl finished) and returns the summary.
    async fn finish(mut self, start: Instant, workers: usize) -> Result<CrawlSummary> {
        self.out
            .pages()
            .flush()
            .map_err(|e| Error::io(std::path::Path::new("pages.jsonl"), e))?;
        self.summary.elapsed = start.elapsed();
        self.decider.batch.elapsed = self.summary.elapsed;
        self.decider.batch.threads = workers;
        self.out.sink().finish(&self.decider.batch)?;
        if self.out.durable() {
            self.checkpoint().await?;
        }
        self.summary.skipped = std::mem::take(&mut self.frontier.skipped);
        Ok(self.summary)
    }
}

/// Flushes the index (on the blocking pool: it fsyncs), then lets `out`
/// sync its files and record the crawl state. The state names the index
/// watermark, so pages indexed after it are dropped on resume.
async fn checkpoint(
    out: &mut dyn Outputs,
    deduper: &SharedDeduper,
    frontier: &Frontier,
    decider: &Decider,
    summary: &CrawlSummary,
    in_flight: &BTreeMap<u64, Queued>,
) -> Result<()> {
    let d = deduper.clone();
    tokio::task::spawn_blocking(move || d.with(|d| d.flush()))
        .await
        .map_err(|_| worker_gone())???;
    let state = state::CrawlState::capture(frontier, decider, summary, in_flight.values());
    out.checkpoint(&state)
}

/// A fetch worker or blocking task ended without its result (it panicked
/// or was cancelled).
fn worker_gone() -> Error {
    Error::runtime(
        "crawl worker",
        "stopped unexpectedly (panicked or cancelled)",
    )
}

async fn worker(
    jobs: Arc<tokio::sync::Mutex<mpsc::Receiver<Job>>>,
    done: mpsc::Sender<Done>,
    fetch_over: mpsc::Sender<u64>,
    shared: Arc<Shared>,
) {
    loop {
        // The lock is held only while waiting for the next job.
        let job = { jobs.lock().await.recv().await };
        let Some(job) = job else { return };
        // A panic while fetching (a bug) must not lose the job: the
        // frontier waits for every dispatched job, so it would never end.
        let over = FetchOver {
            tx: fetch_over.clone(),
            seq: job.seq,
        };
        let task = tokio::spawn(fetch_one(
            Arc::clone(&shared),
            job.url.clone(),
            job.key.clone(),
            job.depth,
            over,
        ));
        let fetched = match task.await {
            Ok(f) => f,
            Err(e) => Fetched::Internal(e.to_string()),
        };
        if done.send(Done { job, fetched }).await.is_err() {
            return;
        }
    }
}

/// Tells the frontier a page's fetch is over (its host's slot is free)
/// before the page is analyzed.
struct FetchOver {
    tx: mpsc::Sender<u64>,
    seq: u64,
}

impl FetchOver {
    fn send(self) {
        // Never full (one per page in flight); if it were, or the frontier
        // were gone, the page's result frees the slot instead.
        let _ = self.tx.try_send(self.seq);
    }
}

/// Fetches the request URL `url` (robots.txt matched against it, not
/// against the key) and analyzes the page under its key.
async fn fetch_one(
    shared: Arc<Shared>,
    url: Url,
    key: Url,
    depth: u32,
    over: FetchOver,
) -> Fetched {
    let started = Instant::now();
    let robots = shared.robots.check(&shared.fetcher, &url).await;
    if let Some(e) = robots.refused {
        // The fetcher refuses the host itself (private-address guard).
        return Fetched::Failed(e, started.elapsed());
    }
    if !robots.allowed {
        return Fetched::Disallowed {
            unreachable: robots.source == RobotsSource::Unreachable,
        };
    }
    let guard = hops::CrawlGuard {
        scope: &shared.hops,
        robots: &shared.robots,
        fetcher: &shared.fetcher,
        depth,
    };
    let fetched = shared
        .fetcher
        .fetch_guarded(&url, &shared.fetch_options, Some(&guard))
        .await;
    over.send();
    let mut outcome = match fetched {
        Ok(o) => o,
        Err(e) => return Fetched::Failed(e, started.elapsed()),
    };
    let canonical_final = shared
        .canon
        .normalize(outcome.final_url.clone())
        .unwrap_or_else(|_| outcome.final_url.clone());
    let checkable = (200..300).contains(&outcome.status)
        && !outcome.skipped_content_type
        && !outcome.body.is_empty();
    let analyzed = if checkable {
        let analyzer = Arc::clone(&shared.analyzer);
        let key = key.as_str().to_owned();
        let final_url = outcome.final_url.as_str().to_owned();
        // The body is not needed after analysis: move it, do not copy.
        let body = std::mem::take(&mut outcome.body);
        let ct = outcome.content_type.clone();
        let keep_body = shared.keep_bodies;
        // Closed never: the semaphore lives as long as `shared`.
        let permits = if body.len() > LARGE_PAGE {
            shared.analysis_permits
        } else {
            1
        };
        let _permit = shared.analysis.acquire_many(permits).await.ok();
        let analyzed = tokio::task::spawn_blocking(move || {
            let mut a = analyzer.analyze(&key, &final_url, &body, ct.as_deref());
            // Held until decided: keep only what deciding, link expansion
            // and the evidence spool read.
            analyzer.shrink_for_decide(&mut a);
            neardup_batch::trim_blocks(&mut a.extracted.blocks);
            (a, keep_body.then_some(body))
        })
        .await
        .ok();
        // The body comes back for the WARC output only (held until
        // decided, as bounded by `max_in_flight`), and with it its share
        // of the body budget.
        let analyzed = analyzed.map(|(a, body)| {
            outcome.body = body.unwrap_or_default();
            Box::new(resolve_urls(
                &shared,
                a,
                &outcome.final_url,
                &canonical_final,
                &outcome.robots_tags,
            ))
        });
        if !keep_body {
            outcome.reservation = None;
        }
        analyzed
    } else {
        None
    };
    Fetched::Done {
        outcome: Box::new(outcome),
        final_url: canonical_final,
        analyzed,
    }
}

/// Resolves an analyzed page's canonical link and links (see [`Page`]).
fn resolve_urls(
    shared: &Shared,
    mut analyzed: Analyzed,
    fetched: &Url,
    final_url: &Url,
    robots_tags: &[String],
) -> Page {
    let canonical = analyzed
        .extracted
        .canonical
        .as_deref()
        .and_then(|c| shared.canon.join(fetched, c).ok());
    let base = analyzed
        .extracted
        .base_href
        .as_deref()
        .and_then(|b| fetched.join(b).ok())
        .unwrap_or_else(|| fetched.clone());
    let mut hrefs = std::mem::take(&mut analyzed.extracted.links);
    let rels = std::mem::take(&mut analyzed.extracted.link_rels);
    let before = hrefs.len();
    if shared.nofollow_mask != 0 {
        let mut i = 0;
        hrefs.retain(|_| {
            let keep = rels.get(i).is_none_or(|r| r & shared.nofollow_mask == 0);
            i += 1;
            keep
        });
    }
    let rel_nofollow = (before - hrefs.len()) as u64;
    let directives = manners::Directives::of_page(
        &shared.directives,
        &shared.robots_token,
        &std::mem::take(&mut analyzed.extracted.directive_metas),
        robots_tags,
    );
    let links = Scope::links(
        &shared.canon,
        final_url,
        &base,
        hrefs.iter().map(String::as_str),
        shared.max_links,
    );
    Page {
        analyzed,
        canonical,
        links,
        rel_nofollow,
        directives,
    }
}

/// A URL waiting in the frontier (or fetched and not yet decided).
#[derive(Clone, Debug)]
struct Queued {
    /// The URL to request (as linked).
    url: Url,
    /// Links followed from a seed to reach it.
    depth: u32,
    /// Duplicates in a row on the link path ending at the page that
    /// linked here (see `crawl.scope.duplicate_hops`).
    dups: u32,
}

/// The politeness key of a URL (its host): the queue's per-host key.
fn host_key(url: &Url) -> String {
    Politeness::host_key(url).unwrap_or_default()
}

/// The queue, seen set and scope.
struct Frontier {
    /// Keys of queued URLs (the queue holds request URLs).
    canon: Canonicalizer,
    scope: Scope,
    /// One FIFO per host, in breadth-first order within each.
    queue: HostQueues<Queued>,
    seen: HashSet<String>,
    /// Redirect targets fetched (at most one per page fetched).
    targets: HashSet<String>,
    /// Keys queued as the target of a redirect stub -> redirect stubs in a
    /// row that led there (see [`Decider::redirect_stub`]); removed when
    /// the page is decided.
    stub_hops: HashMap<String, u32>,
    /// `crawl.fetch.max_redirects`: the longest chain of redirect stubs
    /// followed.
    max_stub_hops: u32,
    max_frontier: usize,
    /// `crawl.scope.duplicate_hops`.
    duplicate_hops: u32,
    skipped: BTreeMap<String, u64>,
    /// The start's sitemaps were read (see [`read_sitemaps`]).
    sitemaps_read: bool,
}

impl Frontier {
    fn new(
        crawl: &CrawlConfig,
        options: &Options,
        canon: &Canonicalizer,
        seeds: &[Url],
    ) -> Result<Frontier> {
        // Each seed is requested as given (parsed), keyed canonically.
        let seeds: Vec<(Url, Url)> = seeds
            .iter()
            .filter_map(|s| {
                let request = canon.request(s.clone()).ok()?;
                let key = canon.normalize(request.clone()).ok()?;
                Some((request, key))
            })
            .collect();
        let keys: Vec<Url> = seeds.iter().map(|(_, k)| k.clone()).collect();
        let scope = Scope::new(&crawl.scope, &keys).map_err(|e| Error::Config {
            key: "crawl.scope".into(),
            value: e.to_string(),
            allowed: "valid regexes".into(),
        })?;
        let mut f = Frontier {
            canon: canon.clone(),
            scope,
            queue: HostQueues::new(),
            seen: HashSet::new(),
            targets: HashSet::new(),
            stub_hops: HashMap::new(),
            max_stub_hops: u32::try_from(crawl.fetch.max_redirects).unwrap_or(u32::MAX),
            max_frontier: options.max_frontier.max(1),
            duplicate_hops: crawl.scope.duplicate_hops,
            skipped: BTreeMap::new(),
            sitemaps_read: false,
        };
        for (request, key) in seeds {
            // A sitemap seed is read before the crawl starts (its URLs are
            // the seeds), not fetched as a page.
            if !(crawl.sitemaps.from_seeds && crate::frontier::sitemap::is_sitemap_url(&request)) {
                f.offer(request, &key, 0, 0);
            }
        }
        Ok(f)
    }

    /// The canonical key of a request URL (the URL itself if it has none:
    /// only URLs that have one are queued).
    fn key(&self, url: &Url) -> Url {
        self.canon
            .normalize(url.clone())
            .unwrap_or_else(|_| url.clone())
    }

    fn skip(&mut self, reason: &SkipReason) {
        self.skip_n(reason, 1);
    }

    /// Counts `n` links not crawled for `reason`.
    fn skip_n(&mut self, reason: &SkipReason, n: u64) {
        if n > 0 {
            *self.skipped.entry(reason.name().to_owned()).or_insert(0) += n;
        }
    }

    /// Offers a page's links at the next depth (the page's own link skips
    /// counted), or, when `follow` is false because the page says
    /// `nofollow`, counts them as skipped with reason `meta_nofollow`.
    fn expand(&mut self, page: PageLinks, depth: u32, dups: u32) {
        let PageLinks {
            links,
            rel_nofollow,
            follow,
        } = page;
        if !follow {
            self.skip_n(&SkipReason::MetaNofollow, links.accepted.len() as u64);
            return;
        }
        self.skip_n(&SkipReason::RelNofollow, rel_nofollow);
        for (_, reason) in &links.skipped {
            self.skip(reason);
        }
        self.skip_n(&SkipReason::TooManyLinks, links.over_cap as u64);
        for link in links.accepted {
            self.offer(link.url, &link.key, depth + 1, dups);
        }
    }

    /// Queues a request URL if its key is new, in scope and fits; true if
    /// it was queued.
    fn offer(&mut self, url: Url, key: &Url, depth: u32, dups: u32) -> bool {
        if self.seen.contains(key.as_str()) {
            return false;
        }
        if self.queue.len() >= self.max_frontier {
            self.skip(&SkipReason::FrontierFull);
            return false;
        }
        match self.scope.admit(key, depth) {
            Ok(()) => {
                self.seen.insert(key.as_str().to_owned());
                self.queue
                    .push(&host_key(&url), Queued { url, depth, dups });
                true
            }
            Err(reason) => {
                self.skip(&reason);
                false
            }
        }
    }

    /// Marks a URL as fetched as a redirect target: not queued again, and
    /// dropped from the queue if it is already waiting there.
    fn mark_fetched_target(&mut self, url: &Url) {
        self.seen.insert(url.as_str().to_owned());
        self.targets.insert(url.as_str().to_owned());
    }

    /// The next URL to fetch (of a host ready at `now`), skipping those
    /// already fetched as redirect targets while they waited.
    fn next(&mut self, now: tokio::time::Instant, politeness: &Politeness) -> Option<Queued> {
        let targets = &self.targets;
        let canon = &self.canon;
        let mut already = 0;
        let next = self.queue.pop(now, politeness, |queued| {
            let fetched = !targets.is_empty()
                && canon
                    .normalize(queued.url.clone())
                    .is_ok_and(|k| targets.contains(k.as_str()));
            already += u64::from(fetched);
            fetched
        });
        self.skip_n(&SkipReason::AlreadyFetched, already);
        next.map(|(_, queued)| queued)
    }
}

/// The sequential half: verdicts, positions, sinks.
struct Decider {
    /// Key (canonical URL) -> position in processing order.
    positions: HashMap<String, usize>,
    /// Canonical URL fetched (requested or final) -> key of the page.
    fetched: HashMap<String, String>,
    records: usize,
    /// One past the highest index id given to a page decided so far.
    watermark: u32,
    batch: Summary,
    /// The deduper's store makes network round trips (Redis): decisions
    /// run on a blocking thread, not on the runtime.
    remote_store: bool,
}

impl Decider {
    /// A redirect stub (`extract.redirect_stubs`: a meta refresh or a
    /// one-link page) is a redirect hop, not a page: it is not decided (no
    /// verdict line) nor indexed, and its target is offered to the
    /// frontier as an HTTP redirect's target is requested: at the stub's
    /// depth, with the duplicates in a row unchanged, through the scope
    /// test and the seen set (a stub loop ends there), robots.txt when it
    /// is fetched. At most `crawl.fetch.max_redirects` stubs in a row are
    /// followed (a generated chain of new URLs would otherwise never get
    /// deeper); one more is skipped with reason `redirect_stub_limit`. The
    /// stub's other links are not followed, as an HTTP 3xx's body's are
    /// not; a one-link stub under `nofollow` (meta or `rel`) is not
    /// followed either.
    fn redirect_stub(
        &mut self,
        frontier: &mut Frontier,
        redirect: &Redirect,
        job: &Job,
        hops: u32,
    ) {
        if hops >= frontier.max_stub_hops {
            frontier.skip(&SkipReason::RedirectStubLimit);
            return;
        }
        // The target is absolute (resolved at extraction); resolving it
        // like a link gives the request URL and its key in one pass.
        let Ok((request, target)) = frontier.canon.resolve(&job.url, &redirect.to) else {
            frontier.skip(&SkipReason::BadUrl);
            return;
        };
        if frontier.offer(request, &target, job.depth, job.dups) {
            frontier
                .stub_hops
                .insert(target.as_str().to_owned(), hops + 1);
        }
    }

    /// Decides one fetch result, in dispatch order. The steps: its
    /// `pages.jsonl` line ([`write_page_line`]); for a 2xx HTML page, a
    /// redirect stub is followed ([`Decider::follow_stub`]), a `noindex`
    /// page only has its links expanded, any other page is checked
    /// ([`Decider::check`]).
    async fn process(
        &mut self,
        done: Done,
        frontier: &mut Frontier,
        deduper: &SharedDeduper,
        out: &mut dyn Outputs,
        summary: &mut CrawlSummary,
    ) -> Result<()> {
        let Done { job, fetched } = done;
        let key = job.key.as_str().to_owned();
        // Redirect stubs in a row that led here; the entry is not needed
        // any more.
        let stub_hops = frontier.stub_hops.remove(&key).unwrap_or(0);
        summary.attempts += 1;
        count_outcome(&fetched, summary);
        write_page_line(out.pages(), &job, &key, &fetched, summary)?;

        let Fetched::Done {
            outcome,
            final_url,
            analyzed,
        } = fetched
        else {
            return Ok(());
        };
        let redirected = final_url != job.key;
        if redirected {
            // Whatever the answer, the target was fetched: a link to it
            // later is not fetched again.
            frontier.mark_fetched_target(&final_url);
        }
        let Some(analyzed) = analyzed else {
            return out.answer(&key, &outcome, None);
        };
        let Page {
            mut analyzed,
            canonical: page_canonical,
            links,
            rel_nofollow,
            directives,
        } = *analyzed;
        let follow = directives.nofollow.is_none();
        if !follow {
            summary.nofollow_pages += 1;
        }
        if let Some(redirect) = analyzed.extracted.redirect.take() {
            summary.redirect_stubs += 1;
            out.answer(&key, &outcome, None)?;
            self.follow_stub(frontier, &redirect, &job, stub_hops, follow, rel_nofollow);
            return Ok(());
        }
        let page_links = PageLinks {
            links,
            rel_nofollow,
            follow,
        };
        if directives.noindex.is_some() {
            // Not checked, not indexed; a hub page's links still lead on
            // (unless nofollow). Neither unique nor a duplicate: the
            // duplicates in a row on the path stay as they were.
            summary.noindex += 1;
            out.answer(&key, &outcome, None)?;
            frontier.expand(page_links, job.depth, job.dups);
            return Ok(());
        }
        self.check(
            Checked {
                job,
                key,
                outcome,
                final_url,
                redirected,
                analyzed,
                canonical: page_canonical,
                links: page_links,
            },
            frontier,
            deduper,
            out,
            summary,
        )
        .await
    }

    /// Decides a checked page: its verdict by URL ([`Decider::known_match`])
    /// or by content ([`Decider::judge`]), counted ([`Decider::tally`]) and
    /// sent to the sink; its links are expanded unless too many duplicates
    /// came in a row.
    async fn check(
        &mut self,
        page: Checked,
        frontier: &mut Frontier,
        deduper: &SharedDeduper,
        out: &mut dyn Outputs,
        summary: &mut CrawlSummary,
    ) -> Result<()> {
        let Checked {
            job,
            key,
            outcome,
            final_url,
            redirected,
            mut analyzed,
            canonical: page_canonical,
            links: page_links,
        } = page;
        // For the report's diff view; deciding does not read the blocks.
        let blocks = std::mem::take(&mut analyzed.extracted.blocks);
        let title = analyzed.extracted.title.clone();
        let bytes = analyzed.bytes;
        let known = self.known_match(&job, &final_url, redirected, page_canonical.as_ref());
        let (verdict, roles) = match known {
            Some((of, basis, via)) => {
                if basis == MatchBasis::Canonical {
                    summary.canonical_duplicates += 1;
                }
                // What each block counts as is known only when the
                // page's content is judged.
                let roles = vec![None; blocks.len()];
                (url_duplicate(of, basis, via, analyzed.warnings), roles)
            }
            None => {
                let (judged, verdict) = self.judge(deduper, analyzed).await?;
                let roles = neardup_batch::block_roles(blocks.len(), &judged);
                (verdict?, roles)
            }
        };
        self.fetched.insert(key.clone(), key.clone());
        if redirected {
            self.fetched
                .entry(final_url.as_str().to_owned())
                .or_insert_with(|| key.clone());
        }
        out.answer(&key, &outcome, Some(&verdict))?;
        let (position, of) = self.tally(&key, &verdict, bytes, summary);
        // Duplicates in a row ending at this page: its links are followed
        // while they do not exceed `crawl.scope.duplicate_hops`.
        let dups = match verdict.kind {
            VerdictKind::Duplicate => job.dups.saturating_add(1),
            _ => 0,
        };
        let expand = dups <= frontier.duplicate_hops;
        out.sink().page(&PageRecord {
            position,
            key: key.clone(),
            url: job.url.as_str().to_owned(),
            site: site_with_port(&job.url),
            bytes,
            title,
            verdict,
            of,
            blocks,
            roles,
        })?;
        if expand {
            frontier.expand(page_links, job.depth, dups);
        }
        Ok(())
    }

    /// A redirect stub's target is followed ([`Decider::redirect_stub`])
    /// unless the stub is a one-link page whose link is `nofollow` (by the
    /// page's robots directive or the link's `rel`).
    fn follow_stub(
        &mut self,
        frontier: &mut Frontier,
        redirect: &Redirect,
        job: &Job,
        stub_hops: u32,
        follow: bool,
        rel_nofollow: u64,
    ) {
        let refused = match redirect.kind {
            RedirectKind::MetaRefresh => None,
            RedirectKind::LinkStub if !follow => Some(SkipReason::MetaNofollow),
            RedirectKind::LinkStub if rel_nofollow > 0 => Some(SkipReason::RelNofollow),
            RedirectKind::LinkStub => None,
        };
        match refused {
            Some(reason) => frontier.skip(&reason),
            None => self.redirect_stub(frontier, redirect, job, stub_hops),
        }
    }

    /// The page fetched before that this page is, by URL alone: the
    /// target of its redirect, else the page its `<link rel=canonical>`
    /// names (when that is another URL); with the basis and the URL that
    /// matched.
    fn known_match<'u>(
        &self,
        job: &Job,
        final_url: &'u Url,
        redirected: bool,
        page_canonical: Option<&'u Url>,
    ) -> Option<(String, MatchBasis, &'u str)> {
        // A redirect target fetched before: this page is that page.
        let by_redirect = redirected
            .then(|| self.fetched.get(final_url.as_str()).cloned())
            .flatten()
            .map(|of| (of, MatchBasis::Redirect, final_url.as_str()));
        let by_canonical = page_canonical
            .filter(|c| **c != job.key && *c != final_url)
            .and_then(|c| {
                Some((
                    self.fetched.get(c.as_str()).cloned()?,
                    MatchBasis::Canonical,
                    c.as_str(),
                ))
            });
        by_redirect.or(by_canonical)
    }

    /// The deduper's verdict on `analyzed`, with what its blocks counted
    /// as.
    async fn judge(
        &self,
        deduper: &SharedDeduper,
        analyzed: Analyzed,
    ) -> Result<(Vec<(u32, neardup::Role)>, Result<Verdict>)> {
        let decide = move |d: &mut neardup::Deduper| {
            let judged = d.content_roles(&analyzed).1;
            (judged, d.decide(analyzed))
        };
        if self.remote_store {
            // A shared store (Redis) makes synchronous network round trips
            // while deciding (catch up, conditional append): on a blocking
            // thread, so the runtime's workers keep fetching meanwhile. The
            // loop still waits for the verdict before the next page: the
            // order of decisions is unchanged.
            let d = deduper.clone();
            tokio::task::spawn_blocking(move || d.with(decide))
                .await
                .map_err(|_| worker_gone())?
        } else {
            // A store in this process: inline, not on the blocking pool.
            // Deciding is short (about a tenth of a page's analysis; a redb
            // record not in the cache is a local page read) and on the
            // crawl's critical path, and a hand-off to a pool thread waits
            // for a core held by the analyses (measured: four times the
            // decision itself).
            deduper.with(decide)
        }
    }

    /// Counts a decided page (index watermark, position, summary and batch
    /// counters); returns its position and that of the page it matched,
    /// if that one was decided in this crawl.
    fn tally(
        &mut self,
        key: &str,
        verdict: &Verdict,
        bytes: usize,
        summary: &mut CrawlSummary,
    ) -> (usize, Option<usize>) {
        if let Some(id) = verdict.indexed_as.or(verdict.stored_as) {
            self.watermark = self.watermark.max(id.saturating_add(1));
        }
        let of = verdict
            .matched
            .as_ref()
            .and_then(|m| self.positions.get(&m.key).copied());
        let position = self.records;
        self.records += 1;
        self.positions.insert(key.to_owned(), position);
        summary.pages += 1;
        let b = &mut self.batch;
        b.pages += 1;
        b.bytes += bytes as u64;
        if !verdict.warnings.is_empty() {
            b.pages_with_warnings += 1;
            b.warnings += verdict.warnings.len() as u64;
        }
        match verdict.kind {
            VerdictKind::Unique => {
                summary.unique += 1;
                b.unique += 1;
            }
            VerdictKind::Duplicate => {
                summary.duplicates += 1;
                b.duplicates += 1;
            }
            VerdictKind::NearDuplicate => {
                summary.near_duplicates += 1;
                b.near_duplicates += 1;
            }
        }
        (position, of)
    }
}

/// The verdict of a page that is the page `of` by URL (`basis`: its
/// redirect target or canonical link `via` was fetched before), without
/// content comparison.
fn url_duplicate(of: String, basis: MatchBasis, via: &str, warnings: Vec<String>) -> Verdict {
    let reason = format!("{basis}: {via}");
    Verdict {
        kind: VerdictKind::Duplicate,
        // The page fetched at that URL, known by key: it may itself be a
        // duplicate, so it has no index id.
        contained_in: None,
        matched: Some(Match::by_url(None, of.clone(), of, basis, reason)),
        indexed_as: None,
        stored_as: None,
        redirect: None,
        warnings,
    }
}

/// Writes the `pages.jsonl` line of a fetch attempt (with the page's
/// robots directives and redirect stub target, if any) and counts robots
/// refusals, fetch errors and bytes in `summary`.
fn write_page_line(
    pages: &mut dyn Write,
    job: &Job,
    key: &str,
    fetched: &Fetched,
    summary: &mut CrawlSummary,
) -> Result<()> {
    let (robots_note, stub) = match fetched {
        Fetched::Done {
            analyzed: Some(page),
            ..
        } => (
            page.directives.describe(),
            page.analyzed.extracted.redirect.as_ref(),
        ),
        _ => (None, None),
    };
    let mut line = PageLine {
        url: job.url.as_str(),
        key,
        final_url: None,
        status: None,
        bytes: 0,
        ms: 0,
        content_type: None,
        depth: job.depth,
        error: None,
    };
    match fetched {
        Fetched::Disallowed { unreachable } => {
            summary.robots_disallowed += 1;
            line.error = Some(if *unreachable {
                "robots_unreachable".into()
            } else {
                "robots_disallowed".into()
            });
        }
        Fetched::Failed(e, elapsed) => {
            summary.fetch_errors += 1;
            line.ms = millis(*elapsed);
            line.error = Some(format!("{}: {e}", e.name()));
        }
        Fetched::Internal(message) => {
            summary.fetch_errors += 1;
            line.error = Some(format!("internal: {message}"));
        }
        Fetched::Done { outcome, .. } => {
            summary.bytes += outcome.bytes as u64;
            line.final_url = Some(outcome.final_url.as_str());
            line.status = Some(outcome.status);
            line.bytes = outcome.bytes;
            line.ms = millis(outcome.elapsed);
            line.content_type = outcome.content_type.as_deref();
            line.error = outcome
                .skipped_content_type
                .then(|| "skipped_content_type".to_owned());
        }
    }
    let io = |e: std::io::Error| Error::io(std::path::Path::new("pages.jsonl"), e);
    let line = LineWithRobots {
        line,
        robots: robots_note,
        redirect_to: stub.map(|r| r.to.as_str()),
        redirect_kind: stub.map(|r| r.kind.as_str()),
    };
    serde_json::to_writer(&mut *pages, &line).map_err(|e| io(e.into()))?;
    pages.write_all(b"\n").map_err(io)
}

/// The page URLs of the start's sitemaps, with the depth they are queued
/// at, and what reading them counted.
#[derive(Default)]
struct SitemapUrls {
    urls: Vec<(Url, u32)>,
    files: u64,
    listed: u64,
    problems: u64,
}

impl SitemapUrls {
    /// Offers the URLs to the frontier like links (requested as listed,
    /// keyed by their canonical form; scope, seen set) and adds the counts
    /// to the summary.
    fn offer(self, canon: &Canonicalizer, frontier: &mut Frontier, summary: &mut CrawlSummary) {
        summary.sitemap_files += self.files;
        summary.sitemap_urls += self.listed;
        summary.sitemap_errors += self.problems;
        for (url, depth) in self.urls {
            let keyed = canon
                .request(url)
                .and_then(|request| Ok((request.clone(), canon.normalize(request)?)));
            match keyed {
                Ok((request, key)) => {
                    frontier.offer(request, &key, depth, 0);
                }
                Err(_) => frontier.skip(&SkipReason::BadUrl),
            }
        }
    }
}

/// Reads the sitemaps of the crawl's start: seeds that are sitemaps
/// (their URLs at depth 0), then, per distinct seed origin in seed order,
/// those its robots.txt lists (depth 1). Runs before the first dispatch;
/// robots.txt files are fetched concurrently, sitemaps one after another
/// in that order, so the queue (and the crawl) is the same on every run.
async fn read_sitemaps(shared: &Shared, crawl: &CrawlConfig, seeds: &[Url]) -> SitemapUrls {
    use crate::frontier::sitemap;
    use futures_util::StreamExt as _;
    let sm = &crawl.sitemaps;
    let mut starts: Vec<(Vec<Url>, u32)> = Vec::new();
    if sm.from_seeds {
        let direct: Vec<Url> = seeds
            .iter()
            .filter(|s| sitemap::is_sitemap_url(s))
            .cloned()
            .collect();
        if !direct.is_empty() {
            starts.push((direct, 0));
        }
    }
    if sm.from_robots && crawl.robots.obey {
        let mut origins = HashSet::new();
        let firsts: Vec<&Url> = seeds
            .iter()
            .filter(|s| origins.insert(s.origin().ascii_serialization()))
            .collect();
        let listed: Vec<Vec<String>> = futures_util::stream::iter(firsts)
            .map(|s| shared.robots.sitemaps(&shared.fetcher, s))
            .buffered(32)
            .collect()
            .await;
        let urls: Vec<Url> = listed
            .into_iter()
            .flatten()
            .filter_map(|u| Url::parse(u.trim()).ok())
            .filter(|u| matches!(u.scheme(), "http" | "https"))
            .collect();
        if !urls.is_empty() {
            starts.push((urls, 1));
        }
    }
    let mut budget = sm.max_files;
    let mut out = SitemapUrls::default();
    for (start, depth) in starts {
        let found =
            sitemap::read_all(&shared.fetcher, &shared.robots, sm, start, &mut budget).await;
        out.files += found.files;
        out.listed += found.urls.len() as u64;
        out.problems += found.errors.len() as u64 + found.dropped;
        for (url, error) in &found.errors {
            tracing::warn!(sitemap = %url, %error, "sitemap not read in full");
        }
        out.urls.extend(found.urls.into_iter().map(|u| (u, depth)));
    }
    out
}

/// A page to check for duplicates (a 2xx HTML answer, not a redirect
/// stub, not `noindex`), as [`Decider::process`] hands it to
/// [`Decider::check`].
struct Checked {
    job: Job,
    /// The page's canonical key.
    key: String,
    outcome: Box<FetchOutcome>,
    /// The URL that answered, canonicalized.
    final_url: Url,
    /// The answer came from another URL than the key.
    redirected: bool,
    analyzed: Analyzed,
    /// `<link rel=canonical>`, canonicalized.
    canonical: Option<Url>,
    links: PageLinks,
}

/// A page's links with what decides whether they are followed.
struct PageLinks {
    links: Links,
    /// Links dropped for their `rel`, counted when the page's links are
    /// expanded.
    rel_nofollow: u64,
    /// False when a robots directive says `nofollow`.
    follow: bool,
}

/// A `pages.jsonl` line with the page's robots directives, if any
/// (`"robots": "noindex (meta robots)"`).
#[derive(Serialize)]
struct LineWithRobots<'a> {
    #[serde(flatten)]
    line: PageLine<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    robots: Option<String>,
    /// A redirect stub's target (see [`Decider::redirect_stub`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    redirect_to: Option<&'a str>,
    /// `meta_refresh` or `link_stub`.
    #[serde(skip_serializing_if = "Option::is_none")]
    redirect_kind: Option<&'static str>,
}

/// Counts an attempt's status or error kind in the summary.
fn count_outcome(fetched: &Fetched, summary: &mut CrawlSummary) {
    let kind = match fetched {
        Fetched::Done { outcome, .. } => {
            *summary.statuses.entry(outcome.status).or_insert(0) += 1;
            return;
        }
        Fetched::Failed(e, _) => e.name(),
        Fetched::Internal(_) => "internal",
        Fetched::Disallowed { .. } => return,
    };
    *summary.errors.entry(kind.to_owned()).or_insert(0) += 1;
}

/// The crawl summary as the CLI prints it: counts, then the HTTP statuses
/// by class (and code), then what went wrong: HTTP error answers, fetch
/// errors by kind, robots.txt refusals. A crawl whose answers were mostly
/// 404 says so; "0 fetch errors" only means every request got an answer.
pub fn format_summary(s: &CrawlSummary) -> Vec<String> {
    let mut lines = vec![format!(
        "{} fetches, {} pages checked: {} unique, {} duplicates ({} by rel=canonical), {} near duplicates, {} noindex, {} redirect stubs in {:.2}s{}",
        s.attempts,
        s.pages,
        s.unique,
        s.duplicates,
        s.canonical_duplicates,
        s.near_duplicates,
        s.noindex,
        s.redirect_stubs,
        s.elapsed.as_secs_f64(),
        if s.interrupted {
            " (interrupted: continue with --resume)"
        } else {
            ""
        }
    )];
    let mut classes: BTreeMap<u16, (u64, Vec<String>)> = BTreeMap::new();
    for (&code, &n) in &s.statuses {
        let class = classes.entry(code / 100).or_default();
        class.0 += n;
        class.1.push(format!("{code} {n}"));
    }
    if !classes.is_empty() {
        let parts: Vec<String> = classes
            .iter()
            .map(|(class, (n, codes))| format!("{class}xx {n} ({})", codes.join(", ")))
            .collect();
        lines.push(format!("HTTP status: {}", parts.join(", ")));
    }
    let http_errors = s.http_errors();
    if s.sitemap_files > 0 || s.sitemap_errors > 0 {
        lines.push(format!(
            "sitemaps: {} files read, {} URLs listed, {} problems (see the warnings)",
            s.sitemap_files, s.sitemap_urls, s.sitemap_errors
        ));
    }
    let kinds: Vec<String> = s.errors.iter().map(|(k, n)| format!("{k} {n}")).collect();
    lines.push(format!(
        "errors: {http_errors} HTTP 4xx/5xx answers, {} fetch errors{}, {} disallowed by robots.txt",
        s.fetch_errors,
        if kinds.is_empty() {
            String::new()
        } else {
            format!(" ({})", kinds.join(", "))
        },
        s.robots_disallowed
    ));
    lines
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The site of a crawled URL for reports: its host, with the port when it
/// is not the scheme's default (two local test servers on one address are
/// two sites).
pub fn site_with_port(url: &Url) -> String {
    let host = url.host_str().unwrap_or("-").to_ascii_lowercase();
    match url.port() {
        Some(p) => format!("{host}:{p}"),
        None => host,
    }
}
