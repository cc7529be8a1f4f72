//! URLs waiting to be fetched in a crawl ([`Frontier`]): the per-host
//! queue, the seen set of keys, the scope and the skip counts.

use std::collections::{BTreeMap, HashMap, HashSet};

use url::Url;

use crate::config::CrawlConfig;
use crate::crawl_state::FrontierState;
use crate::error::Result;
use crate::fetch::Politeness;
use crate::frontier::{Canonicalizer, HostQueues, Links, Scope, SkipReason};
use crate::options::Options;
use crate::site::HostKey;

/// A URL waiting in the frontier (or fetched and not yet decided).
#[derive(Clone, Debug)]
pub(crate) struct Queued {
    /// The URL to request (as linked).
    pub(crate) url: Url,
    /// Links followed from a seed to reach it.
    pub(crate) depth: u32,
    /// Duplicates in a row on the link path ending at the page that
    /// linked here (see `crawl.scope.duplicate_hops`).
    pub(crate) dups: u32,
}

/// The politeness key of a URL (its host): the queue's per-host key
/// (empty for a URL without a host, which the scope never admits).
pub(crate) fn host_key(url: &Url) -> HostKey {
    HostKey::of(url).unwrap_or_default()
}

/// The queue, seen set and scope.
pub(crate) struct Frontier {
    /// Keys of queued URLs (the queue holds request URLs).
    pub(crate) canon: Canonicalizer,
    pub(crate) scope: Scope,
    /// One FIFO per host, in breadth-first order within each.
    pub(crate) queue: HostQueues<Queued>,
    pub(crate) seen: HashSet<String>,
    /// Redirect targets fetched (at most one per page fetched).
    pub(crate) targets: HashSet<String>,
    /// Keys queued as the target of a redirect stub -> redirect stubs in a
    /// row that led there (see [`Decider::redirect_stub`]); removed when
    /// the page is decided.
    pub(crate) stub_hops: HashMap<String, u32>,
    /// `crawl.fetch.max_redirects`: the longest chain of redirect stubs
    /// followed.
    pub(crate) max_stub_hops: u32,
    pub(crate) max_frontier: usize,
    /// `crawl.scope.duplicate_hops`.
    pub(crate) duplicate_hops: u32,
    pub(crate) skipped: BTreeMap<String, u64>,
    /// The start's sitemaps were read (see [`read_sitemaps`]).
    pub(crate) sitemaps_read: bool,
}

impl Frontier {
    /// The frontier's part of a checkpoint; `in_flight` are the URLs
    /// dispatched and not yet decided, in dispatch order (they go first).
    pub(crate) fn to_state<'a>(
        &self,
        in_flight: impl Iterator<Item = &'a Queued>,
    ) -> FrontierState {
        let entry = |q: &Queued| (q.url.as_str().to_owned(), q.depth, q.dups);
        let mut queue: Vec<(String, u32, u32)> = in_flight.map(entry).collect();
        // Every host's queue merged back into the order URLs were queued:
        // a resume pushes them in this order, so each host's FIFO and the
        // order between hosts are kept.
        queue.extend(self.queue.in_order().into_iter().map(entry));
        let mut seen: Vec<String> = self.seen.iter().cloned().collect();
        seen.sort_unstable();
        let mut targets: Vec<String> = self.targets.iter().cloned().collect();
        targets.sort_unstable();
        FrontierState {
            queue,
            seen,
            targets,
            skipped: self.skipped.clone(),
            sitemaps_read: self.sitemaps_read,
            stub_hops: self
                .stub_hops
                .iter()
                .map(|(k, v)| (k.clone(), *v))
                .collect(),
        }
    }

    /// Puts back a checkpoint's part ([`Frontier::to_state`]); a queued
    /// URL that no longer parses is left out.
    pub(crate) fn restore(&mut self, state: FrontierState) {
        self.queue = HostQueues::new();
        for (url, depth, dups) in state.queue {
            if let Ok(url) = Url::parse(&url) {
                let queued = Queued { url, depth, dups };
                self.queue.push(&host_key(&queued.url), queued);
            }
        }
        self.seen = state.seen.into_iter().collect();
        self.targets = state.targets.into_iter().collect();
        self.skipped = state.skipped;
        self.sitemaps_read = state.sitemaps_read;
        self.stub_hops = state.stub_hops.into_iter().collect();
    }

    pub(crate) fn new(
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
        let scope = Scope::new(&crawl.scope, &keys)?;
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
    pub(crate) fn key(&self, url: &Url) -> Url {
        self.canon
            .normalize(url.clone())
            .unwrap_or_else(|_| url.clone())
    }

    pub(crate) fn skip(&mut self, reason: &SkipReason) {
        self.skip_n(reason, 1);
    }

    /// Counts `n` links not crawled for `reason`.
    pub(crate) fn skip_n(&mut self, reason: &SkipReason, n: u64) {
        if n > 0 {
            *self.skipped.entry(reason.name().to_owned()).or_insert(0) += n;
        }
    }

    /// Offers a page's links at the next depth (the page's own link skips
    /// counted), or, when `follow` is false because the page says
    /// `nofollow`, counts them as skipped with reason `meta_nofollow`.
    pub(crate) fn expand(&mut self, page: PageLinks, depth: u32, dups: u32) {
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
    pub(crate) fn offer(&mut self, url: Url, key: &Url, depth: u32, dups: u32) -> bool {
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
    pub(crate) fn mark_fetched_target(&mut self, url: &Url) {
        self.seen.insert(url.as_str().to_owned());
        self.targets.insert(url.as_str().to_owned());
    }

    /// The next URL to fetch (of a host ready at `now`), skipping those
    /// already fetched as redirect targets while they waited.
    pub(crate) fn next(
        &mut self,
        now: tokio::time::Instant,
        politeness: &Politeness,
    ) -> Option<Queued> {
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

/// A page's links with what decides whether they are followed.
pub(crate) struct PageLinks {
    pub(crate) links: Links,
    /// Links dropped for their `rel`, counted when the page's links are
    /// expanded.
    pub(crate) rel_nofollow: u64,
    /// False when a robots directive says `nofollow`.
    pub(crate) follow: bool,
}
