//! What the fetch workers of a crawl share ([`Shared`]): the fetcher,
//! robots.txt cache, analyzer, URL rules and the crawl's limits.

use std::sync::Arc;

use url::Url;

use crate::error::Result;
use neardup::SharedDeduper;

use crate::config::CrawlConfig;
use crate::fetch::Fetcher;
use crate::frontier::{Canonicalizer, RobotsCache};
use crate::options::Options;
use crate::{hops, manners};

/// A page at least this large (bytes of body) is analyzed alone: its
/// analysis holds about ten times its size in transient memory.
pub(crate) const LARGE_PAGE: usize = 1 << 20;

pub(crate) struct Shared {
    pub(crate) fetcher: Arc<Fetcher>,
    pub(crate) robots: RobotsCache,
    /// The analysis half of the deduper: pages are analyzed without its
    /// lock, so a decision (which takes the write lock) never waits for
    /// the analyses in progress, nor they for it.
    pub(crate) analyzer: Arc<neardup::Analyzer>,
    /// Scope test for redirect targets.
    pub(crate) hops: hops::HopScope,
    /// The crawl's URL rules, applied by the workers to a page's URLs.
    pub(crate) canon: Canonicalizer,
    /// `extract.max_links`.
    pub(crate) max_links: usize,
    /// Pages analyzed at once: one per core. Analysis is CPU work, so
    /// more at once is not faster, and each analysis of a large page
    /// holds many times its size in transient memory: a page larger than
    /// [`LARGE_PAGE`] takes every permit (it is analyzed alone).
    pub(crate) analysis: tokio::sync::Semaphore,
    /// Permits of `analysis`.
    pub(crate) analysis_permits: u32,
    /// Whether the outputs need the bodies after analysis (WARC); if not,
    /// a body is freed as soon as the page is analyzed.
    pub(crate) keep_bodies: bool,
    /// `crawl.fetch` limits with the crawl's body budget.
    pub(crate) fetch_options: crate::fetch::FetchOptions,
    /// `crawl.directives`.
    pub(crate) directives: crate::config::DirectivesConfig,
    /// `crawl.robots_token`, for `<meta name=TOKEN>` and `X-Robots-Tag`.
    pub(crate) robots_token: String,
    /// [`manners::nofollow_mask`] of `crawl.directives`.
    pub(crate) nofollow_mask: u8,
}

impl Shared {
    /// What the workers share: the fetcher, robots.txt cache, analyzer,
    /// URL rules and the crawl's limits.
    pub(crate) fn new(
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
