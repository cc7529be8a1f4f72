//! robots.txt: fetched once per origin, cached, applied per RFC 9309.
//!
//! - 2xx: parsed ([`RobotsRules`]: Google's parser and matching rules)
//!   for the configured product token, with `*` groups as fallback; the
//!   first `max_bytes` bytes are parsed, without the line the cap cuts
//!   in half (its start alone could allow what the whole forbids). URLs are matched as requested
//!   (the URL as linked, not its canonical key: a rule on
//!   `/list?b=1&a=` must stop a request for `/list?b=1&a=2`).
//! - 4xx (but 429): no robots.txt: everything is allowed (2.3.1.3).
//! - 5xx, 429, network errors, timeouts: "unreachable": everything is
//!   disallowed for `error_retry_secs`, then robots.txt is fetched again
//!   (2.3.1.4). 429 counts as unreachable because the server asked us to
//!   slow down, not told us there is no file.
//! - Redirects: up to 5 followed (2.3.1.2); more, or a loop, counts as
//!   "unavailable", i.e. allow all as for 4xx.
//! - The private-address guard refusing the host (its robots.txt is not
//!   fetched): the decision carries [`FetchError::PrivateAddress`], so the
//!   crawl reports the URL as `private_address`, not as a robots refusal.
//! - Crawl-delay (not in RFC 9309, but widely used): capped at
//!   `max_crawl_delay_secs` and given to the fetcher's politeness limiter as
//!   the host's minimum delay.
//!
//! Concurrent checks for one origin wait for a single fetch: each origin has
//! its own async mutex around its entry.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;
use url::Url;

use super::robots_rules::{complete_lines, RobotsRules};
use crate::config::{CrawlConfig, Oversize, RobotsConfig};
use crate::fetch::{FetchError, FetchOptions, Fetcher};
use crate::site::HostKey;

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
    /// The fetcher refused the host itself (private-address guard): not
    /// a robots matter, [`RobotsDecision::refused`] says why.
    Refused,
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
    /// With [`RobotsSource::Refused`]: the fetcher's error for the host
    /// (`FetchError::PrivateAddress`), to report instead of a robots skip.
    pub refused: Option<FetchError>,
}

#[derive(Debug)]
enum Rules {
    Parsed(Box<RobotsRules>),
    AllowAll,
    DisallowUntil(Instant),
    /// The host is refused by the fetcher; asked again after the time.
    RefusedUntil(FetchError, Instant),
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
                refused: None,
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
            Some(Rules::DisallowUntil(until) | Rules::RefusedUntil(_, until)) => {
                Instant::now() >= *until
            }
            Some(_) => false,
        };
        if stale {
            let fresh = self.fetch(fetcher, &origin).await;
            if let (Some(delay), Some(host)) = (fresh.crawl_delay, HostKey::of(url)) {
                fetcher.politeness().set_delay(&host, delay).await;
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
                refused: None,
            },
            Some(Entry {
                rules: Rules::DisallowUntil(_),
                ..
            }) => RobotsDecision {
                allowed: false,
                crawl_delay: None,
                source: RobotsSource::Unreachable,
                refused: None,
            },
            Some(Entry {
                rules: Rules::RefusedUntil(e, _),
                ..
            }) => RobotsDecision {
                allowed: false,
                crawl_delay: None,
                source: RobotsSource::Refused,
                refused: Some(e.clone()),
            },
            Some(Entry {
                rules: Rules::AllowAll,
                ..
            })
            | None => RobotsDecision {
                allowed: true,
                crawl_delay: None,
                source: RobotsSource::Missing,
                refused: None,
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
            Some(Rules::Parsed(rules)) => rules.sitemaps().to_vec(),
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
                200..=299 => {
                    // A body cut at the cap ends with part of a line:
                    // parsed, `Allow: /zzzz` would read as `Allow: /`.
                    let body = if outcome.truncated {
                        complete_lines(&outcome.body)
                    } else {
                        &outcome.body
                    };
                    let rules = RobotsRules::parse(body, &self.token);
                    let crawl_delay = rules
                        .crawl_delay()
                        .filter(|d| d.is_finite() && *d > 0.0)
                        .map(|d| {
                            // Whole milliseconds; `as` saturates on huge
                            // values.
                            let ms = (d * 1000.0).round() as u64;
                            Duration::from_millis(ms)
                                .min(Duration::from_secs(self.config.max_crawl_delay_secs))
                        });
                    Entry {
                        rules: Rules::Parsed(Box::new(rules)),
                        crawl_delay,
                    }
                }
                429 | 500..=599 => unreachable(),
                _ => allow_all(),
            },
            Err(FetchError::TooManyRedirects { .. } | FetchError::RedirectLoop { .. }) => {
                allow_all()
            }
            // The guard refuses the origin's own host: not a robots.txt
            // matter. (A robots.txt redirecting to a refused host is
            // unreachable, below: the origin itself may be fetched.)
            Err(e @ FetchError::PrivateAddress { .. }) if refuses_origin(&e, &robots_url) => {
                Entry {
                    rules: Rules::RefusedUntil(
                        e,
                        Instant::now() + Duration::from_secs(self.config.error_retry_secs),
                    ),
                    crawl_delay: None,
                }
            }
            Err(e) => {
                tracing::debug!(%robots_url, error = %e, "robots.txt unreachable");
                unreachable()
            }
        }
    }
}

/// Whether a private-address error names `url`'s own host (an IPv6
/// literal is named without brackets), not a redirect target's.
fn refuses_origin(error: &FetchError, url: &Url) -> bool {
    let FetchError::PrivateAddress { host } = error else {
        return false;
    };
    match url.host() {
        Some(url::Host::Ipv6(ip)) => *host == ip.to_string(),
        Some(h) => *host == h.to_string(),
        None => false,
    }
}
