//! Redirect hops in a crawl: every target a redirect points to must be in
//! the crawl's scope and allowed by its host's robots.txt, exactly like a
//! link would have to be, or a redirect becomes a way out of the scope or
//! around robots.txt. A refused hop is not requested: the fetch ends with
//! [`FetchError::RedirectRefused`], recorded in `pages.jsonl`.

use std::future::Future;
use std::pin::Pin;

use url::Url;

use crate::config::ScopeConfig;
use crate::error::Result;
use crate::fetch::{FetchError, Fetcher, RedirectGuard};
use crate::frontier::robots::RobotsSource;
use crate::frontier::scope::SkipReason;
use crate::frontier::{Canonicalizer, RobotsCache, Scope};

/// The read-only scope test for redirect targets (the frontier's own
/// [`Scope`] also counts budgets and lives on the frontier task).
#[derive(Debug)]
pub(super) struct HopScope {
    canon: Canonicalizer,
    scope: Scope,
}

impl HopScope {
    /// The scope of a crawl from `seeds` (raw seeds: canonicalized with
    /// `canon` as the frontier does).
    pub(super) fn new(
        canon: Canonicalizer,
        scope: &ScopeConfig,
        seeds: &[Url],
    ) -> Result<HopScope> {
        let seeds: Vec<Url> = seeds
            .iter()
            .filter_map(|s| canon.normalize(s.clone()).ok())
            .collect();
        let scope = Scope::new(scope, &seeds)?;
        Ok(HopScope { canon, scope })
    }
}

/// The guard for one fetch: the page's link depth (a redirect does not
/// add depth) and the crawl's robots cache and fetcher.
pub(super) struct CrawlGuard<'a> {
    pub(super) scope: &'a HopScope,
    pub(super) robots: &'a RobotsCache,
    pub(super) fetcher: &'a Fetcher,
    pub(super) depth: u32,
}

fn refused(target: &Url, reason: &str) -> FetchError {
    FetchError::RedirectRefused {
        target: target.clone(),
        reason: reason.to_owned(),
    }
}

impl RedirectGuard for CrawlGuard<'_> {
    fn check<'a>(
        &'a self,
        target: &'a Url,
    ) -> Pin<Box<dyn Future<Output = std::result::Result<(), FetchError>> + Send + 'a>> {
        Box::pin(async move {
            // Scope patterns are written against canonical URLs.
            let canonical = self
                .scope
                .canon
                .normalize(target.clone())
                .map_err(|e| refused(target, SkipReason::from(e).name()))?;
            self.scope
                .scope
                .check(&canonical, self.depth)
                .map_err(|r| refused(target, r.name()))?;
            // robots.txt is matched against the URL actually requested.
            let robots = self.robots.check(self.fetcher, target).await;
            if let Some(e) = robots.refused {
                // The private-address guard refuses the target's host.
                return Err(e);
            }
            if !robots.allowed {
                return Err(refused(
                    target,
                    if robots.source == RobotsSource::Unreachable {
                        "robots_unreachable"
                    } else {
                        "robots_disallowed"
                    },
                ));
            }
            Ok(())
        })
    }
}
