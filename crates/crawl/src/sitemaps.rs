//! The start's sitemaps: read before the first dispatch of a new crawl,
//! their URLs offered like links.

use std::collections::HashSet;

use url::Url;

use crate::config::CrawlConfig;
use crate::frontier::pending::Frontier;
use crate::frontier::{Canonicalizer, SkipReason};
use crate::shared::Shared;
use crate::summary::CrawlSummary;

/// The page URLs of the start's sitemaps, with the depth they are queued
/// at, and what reading them counted.
#[derive(Default)]
pub(crate) struct SitemapUrls {
    pub(crate) urls: Vec<(Url, u32)>,
    pub(crate) files: u64,
    pub(crate) listed: u64,
    pub(crate) problems: u64,
}

impl SitemapUrls {
    /// Offers the URLs to the frontier like links (requested as listed,
    /// keyed by their canonical form; scope, seen set) and adds the counts
    /// to the summary.
    pub(crate) fn offer(
        self,
        canon: &Canonicalizer,
        frontier: &mut Frontier,
        summary: &mut CrawlSummary,
    ) {
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
pub(crate) async fn read_sitemaps(
    shared: &Shared,
    crawl: &CrawlConfig,
    seeds: &[Url],
) -> SitemapUrls {
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
