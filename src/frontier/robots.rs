//! robots.txt: fetched once per origin, cached, applied per RFC 9309.
//!
//! - 2xx: parsed (`texting_robots`) for the configured product token, with
//!   `*` groups as fallback; the first `max_bytes` bytes are parsed.
//! - 4xx (but 429): no robots.txt: everything is allowed (2.3.1.3).
//! - 5xx, 429, network errors, timeouts: "unreachable": everything is
//!   disallowed for `error_retry_secs`, then robots.txt is fetched again
//!   (2.3.1.4). 429 counts as unreachable because the server asked us to
//!   slow down, not told us there is no file.
//! - Redirects: up to 5 followed (2.3.1.2); more, or a loop, counts as
//!   "unavailable", i.e. allow all as for 4xx.
//! - Crawl-delay (not in RFC 9309, but widely used): capped at
//!   `max_crawl_delay_secs` and given to the fetcher's politeness limiter as
//!   the host's minimum delay.
//!
//! Concurrent checks for one origin wait for a single fetch: each origin has
//! its own async mutex around its entry.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use texting_robots::Robot;
use tokio::time::Instant;
use url::Url;

use crate::config::{CrawlConfig, Oversize, RobotsConfig};
use crate::fetch::{FetchError, FetchOptions, Fetcher};

/// RFC 9309 2.3.1.2: crawlers should follow at least five redirects.
const ROBOTS_REDIRECTS: usize = 5;

/// Where a robots decision came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RobotsSource {
    /// `crawl.robots.obey` is off.
    Ignored,
    /// A parsed robots.txt.
    Parsed,
    /// No robots.txt (4xx, too many redirects): all allowed.
    Missing,
    /// robots.txt unreachable (5xx, 429, network error): all disallowed
    /// until the retry time.
    Unreachable,
}

/// The answer for one URL.
#[derive(Clone, Debug, PartialEq)]
pub struct RobotsDecision {
    /// The URL may be fetched.
    pub allowed: bool,
    /// The host's Crawl-delay, capped (already applied to the fetcher).
    pub crawl_delay: Option<Duration>,
    /// Why.
    pub source: RobotsSource,
}

#[derive(Debug)]
enum Rules {
    Parsed(Box<Robot>),
    AllowAll,
    DisallowUntil(Instant),
}

#[derive(Debug)]
struct Entry {
    rules: Rules,
    crawl_delay: Option<Duration>,
}

type Slot = Arc<tokio::sync::Mutex<Option<Entry>>>;

/// Per-origin robots.txt cache. Share it by reference.
#[derive(Debug)]
pub struct RobotsCache {
    config: RobotsConfig,
    token: String,
    entries: Mutex<HashMap<String, Slot>>,
}

impl RobotsCache {
    /// A cache for the `[crawl]` settings (product token, robots table).
    pub fn new(crawl: &CrawlConfig) -> RobotsCache {
        RobotsCache {
            config: crawl.robots.clone(),
            token: crawl.robots_token.clone(),
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// Whether `url` may be fetched, fetching its origin's robots.txt
    /// through `fetcher` the first time (and again after an unreachable
    /// robots.txt's retry time).
    pub async fn check(&self, fetcher: &Fetcher, url: &Url) -> RobotsDecision {
        if !self.config.obey {
            return RobotsDecision {
                allowed: true,
                crawl_delay: None,
                source: RobotsSource::Ignored,
            };
        }
        let origin = url.origin().ascii_serialization();
        let slot = {
            let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
            entries.entry(origin.clone()).or_default().clone()
        };
        let mut entry = slot.lock().await;
        let stale = match entry.as_ref().map(|e| &e.rules) {
            None => true,
            Some(Rules::DisallowUntil(until)) => Instant::now() >= *until,
            Some(_) => false,
        };
        if stale {
            let fresh = self.fetch(fetcher, &origin).await;
            if let (Some(delay), Some(host)) = (fresh.crawl_delay, url.host_str()) {
                fetcher.politeness().set_delay(host, delay).await;
            }
            *entry = Some(fresh);
        }
        match entry.as_ref() {
            Some(Entry {
                rules: Rules::Parsed(robot),
                crawl_delay,
            }) => RobotsDecision {
                allowed: robot.allowed(url.as_str()),
                crawl_delay: *crawl_delay,
                source: RobotsSource::Parsed,
            },
            Some(Entry {
                rules: Rules::DisallowUntil(_),
                ..
            }) => RobotsDecision {
                allowed: false,
                crawl_delay: None,
                source: RobotsSource::Unreachable,
            },
            Some(Entry {
                rules: Rules::AllowAll,
                ..
            })
            | None => RobotsDecision {
                allowed: true,
                crawl_delay: None,
                source: RobotsSource::Missing,
            },
        }
    }

    /// The `Sitemap:` URLs of the robots.txt of `url`'s origin (fetched as
    /// [`RobotsCache::check`] does, cached), as written; empty when
    /// robots.txt is not obeyed, missing or unreachable.
    pub async fn sitemaps(&self, fetcher: &Fetcher, url: &Url) -> Vec<String> {
        if self.check(fetcher, url).await.source != RobotsSource::Parsed {
            return Vec::new();
        }
        let slot = {
            let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
            entries.get(&url.origin().ascii_serialization()).cloned()
        };
        let Some(slot) = slot else {
            return Vec::new();
        };
        let entry = slot.lock().await;
        match entry.as_ref().map(|e| &e.rules) {
            Some(Rules::Parsed(robot)) => robot.sitemaps.clone(),
            _ => Vec::new(),
        }
    }

    async fn fetch(&self, fetcher: &Fetcher, origin: &str) -> Entry {
        let unreachable = || Entry {
            rules: Rules::DisallowUntil(
                Instant::now() + Duration::from_secs(self.config.error_retry_secs),
            ),
            crawl_delay: None,
        };
        let allow_all = || Entry {
            rules: Rules::AllowAll,
            crawl_delay: None,
        };
        let Ok(robots_url) = Url::parse(&format!("{origin}/robots.txt")) else {
            // An opaque origin (no host): nothing to fetch, nothing to obey.
            return allow_all();
        };
        let options = FetchOptions {
            max_body_bytes: self.config.max_bytes,
            oversize: Oversize::Truncate,
            max_redirects: ROBOTS_REDIRECTS,
            content_types: None,
            body_budget: None,
        };
        match fetcher.fetch_with(&robots_url, &options).await {
            Ok(outcome) => match outcome.status {
                200..=299 => match Robot::new(&self.token, &outcome.body) {
                    Ok(robot) => {
                        let crawl_delay =
                            robot.delay.filter(|d| d.is_finite() && *d > 0.0).map(|d| {
                                // Whole milliseconds: the f32 `0.3` is
                                // 0.30000001 s. `as` saturates on huge values.
                                let ms = (f64::from(d) * 1000.0).round() as u64;
                                Duration::from_millis(ms)
                                    .min(Duration::from_secs(self.config.max_crawl_delay_secs))
                            });
                        Entry {
                            rules: Rules::Parsed(Box::new(robot)),
                            crawl_delay,
                        }
                    }
                    // A file the parser rejects has no usable rules.
                    Err(_) => allow_all(),
                },
                429 | 500..=599 => unreachable(),
                _ => allow_all(),
            },
            Err(FetchError::TooManyRedirects { .. } | FetchError::RedirectLoop { .. }) => {
                allow_all()
            }
            Err(e) => {
                tracing::debug!(%robots_url, error = %e, "robots.txt unreachable");
                unreachable()
            }
        }
    }
}
