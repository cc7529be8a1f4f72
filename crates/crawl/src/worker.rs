//! The fetch workers: a job in, the page fetched, analyzed (on the
//! worker's own runtime thread, or for a large page on the blocking pool)
//! and its links resolved, a result out (module docs of the crate).

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use url::Url;

use crate::fetch::{FetchError, FetchOutcome};
use crate::frontier::robots::RobotsSource;
use crate::frontier::Links;
use crate::frontier::Scope;
use crate::shared::{Shared, LARGE_PAGE};
use neardup::{Analyzed, Error};

/// Largest body, in bytes, analyzed on the runtime thread that fetched it:
/// every page not analyzed alone ([`LARGE_PAGE`]).
///
/// Such a page costs at most tens of milliseconds of CPU. Handing it to
/// the blocking pool instead cost two thread wake-ups per page: on
/// rust-doc (two cores) the crawl fetched 2,510-2,588 pages/s that way and
/// 2,781-3,026 inline, with 15% less CPU (docs/results.md, issue 27's
/// seventeenth pass). It also cost memory: what a blocking thread
/// allocated for a page is freed on the decider's thread, and mimalloc
/// keeps those blocks committed until the thread that allocated them
/// collects, which an idle blocking thread does not; with pages up to
/// 1 MiB inline rather than 256 KiB, the peak RSS on rust-doc went from
/// 248-257 MB to 239-244 MB (twenty-first pass). A larger page, up to
/// hundreds of milliseconds of analysis, goes to the blocking pool so
/// that the runtime's threads keep other fetches and timers moving (the
/// reason for `serve`'s split too, at 256 KiB there: a check's latency
/// counts, a crawl's throughput does).
const INLINE_MAX: usize = LARGE_PAGE;

pub(crate) struct Job {
    pub(crate) seq: u64,
    /// The URL to request (as linked).
    pub(crate) url: Url,
    /// Its canonical key.
    pub(crate) key: Url,
    pub(crate) depth: u32,
    /// Duplicates in a row on the link path ending at the page that
    /// linked here (see `crawl.scope.duplicate_hops`).
    pub(crate) dups: u32,
}

pub(crate) enum Fetched {
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
pub(crate) struct Page {
    pub(crate) analyzed: Analyzed,
    /// `<link rel=canonical>`, joined to the final URL and canonicalized.
    pub(crate) canonical: Option<Url>,
    /// The page's links, canonicalized against its base URL (without
    /// those dropped for their `rel`).
    pub(crate) links: Links,
    /// Links dropped for a `rel` in `crawl.directives.nofollow_rels`.
    pub(crate) rel_nofollow: u64,
    /// The page's robots directives (meta, `X-Robots-Tag`).
    pub(crate) directives: crate::manners::Directives,
}

pub(crate) struct Done {
    pub(crate) job: Job,
    pub(crate) fetched: Fetched,
}

/// The frontier's ends of the channels to and from the workers.
pub(crate) struct Channels {
    /// Jobs to fetch; `None` once closed (which ends the workers).
    pub(crate) job_tx: Option<mpsc::Sender<Job>>,
    /// Fetched and analyzed pages, in the order they finish.
    pub(crate) done_rx: mpsc::Receiver<Done>,
    /// Sequence numbers of pages whose fetch is over (analysis follows):
    /// their host's slot is free for the next URL.
    pub(crate) fetched_rx: mpsc::Receiver<u64>,
}

/// Starts `workers` fetch workers sharing one job queue.
pub(crate) fn spawn_workers(
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

pub(crate) async fn worker(
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
pub(crate) struct FetchOver {
    pub(crate) tx: mpsc::Sender<u64>,
    pub(crate) seq: u64,
}

impl FetchOver {
    pub(crate) fn send(self) {
        // Never full (one per page in flight); if it were, or the frontier
        // were gone, the page's result frees the slot instead.
        let _ = self.tx.try_send(self.seq);
    }
}

/// Fetches the request URL `url` (robots.txt matched against it, not
/// against the key) and analyzes the page under its key.
pub(crate) async fn fetch_one(
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
    let guard = crate::hops::CrawlGuard {
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
        let inline = body.len() <= INLINE_MAX;
        let analyze = move || {
            let mut a = analyzer.analyze(&key, &final_url, &body, ct.as_deref());
            // Held until decided: keep only what deciding, link expansion
            // and the evidence spool read.
            analyzer.shrink_for_decide(&mut a);
            neardup_output::trim_blocks(&mut a.extracted.blocks);
            (a, keep_body.then_some(body))
        };
        // A page whose analysis panics (it never should) is not analyzed,
        // on this thread as on the blocking pool: the crawl goes on.
        let analyzed = if inline {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(analyze)).ok()
        } else {
            tokio::task::spawn_blocking(analyze).await.ok()
        };
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
pub(crate) fn resolve_urls(
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
    let directives = crate::manners::Directives::of_page(
        &shared.directives,
        &shared.robots_token,
        &std::mem::take(&mut analyzed.extracted.directive_metas),
        robots_tags,
    );
    // Resolved against the page's base by the extractor already.
    let links = Scope::resolved_links(&shared.canon, final_url, hrefs, shared.max_links);
    Page {
        analyzed,
        canonical,
        links,
        rel_nofollow,
        directives,
    }
}

/// A fetch worker or blocking task ended without its result (it panicked
/// or was cancelled).
pub(crate) fn worker_gone() -> Error {
    Error::runtime(
        "crawl worker",
        "stopped unexpectedly (panicked or cancelled)",
    )
}
