//! The crawl loop's limits (`[crawl.limits]`).

use crate::config;

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
