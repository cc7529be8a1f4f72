//! [`AppState`]: what every handler and middleware of the server shares.

use std::sync::Arc;

use neardup::{Analyzer, SharedDeduper};
use tokio::sync::Semaphore;

use crate::decider::Decider;
use crate::metrics::Metrics;
use crate::options::ServeOptions;

/// What every handler shares.
pub(crate) struct AppState {
    pub(crate) deduper: SharedDeduper,
    /// Analysis needs no lock: pages are analyzed while the decider holds
    /// the deduper for a decision or a commit.
    pub(crate) analyzer: Arc<Analyzer>,
    /// `canonical.max_url_len`: the longest `url` (and `key`) accepted, as
    /// the crawl accepts no longer URL.
    pub(crate) max_url_len: usize,
    /// Decides pages in arrival order and commits them in groups.
    pub(crate) decider: Decider,
    pub(crate) options: ServeOptions,
    /// Permits for requests in flight on `/v1/*`.
    pub(crate) in_flight: Arc<Semaphore>,
    /// One permit per byte of request body held in memory.
    pub(crate) body_memory: Arc<Semaphore>,
    /// Permits `body_memory` started with.
    pub(crate) body_budget: usize,
    pub(crate) metrics: Metrics,
    /// Work off the runtime (pages over `INLINE_MAX`, stats reads, handing
    /// a job to a full decider queue): a fixed pool, one thread per core, rather than
    /// tokio's blocking pool, which grows a thread per waiting request.
    pub(crate) workers: rayon::ThreadPool,
    /// Where batches run, their pages analyzed in parallel; apart from
    /// `workers` so that one large batch does not hold up single checks.
    pub(crate) batch_workers: rayon::ThreadPool,
}

pub(crate) type Shared = Arc<AppState>;
