//! Politeness: a keyed limiter over hosts plus a global concurrency cap.
//!
//! Each host has a semaphore (`host_concurrency` requests in flight) and the
//! earliest start of its next request: requests to one host start at least
//! `delay` apart (`crawl.fetch.host_delay_ms`, raised by a robots.txt
//! Crawl-delay, pushed back by a `Retry-After`). A global semaphore caps
//! requests in flight over all hosts. Host slots are acquired before the
//! global one, so a slow host's queue never holds global capacity while it
//! waits.
//!
//! The key is the URL's host ([`Politeness::host_key`]): two ports of one
//! host share its limits (one machine). [`Politeness::readiness`] reads a
//! host's state without waiting, so the crawl frontier can hand out a URL
//! only when its host's slot has come (the limiter stays the safety net).
//!
//! Times are `tokio::time::Instant`, so tests can run on paused time.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;
use url::Url;

use crate::site::HostKey;

#[derive(Debug)]
struct HostSlot {
    in_flight: Arc<Semaphore>,
    /// Held by the one request of the host waiting for its start time, so
    /// waiters start in arrival order.
    gate: tokio::sync::Mutex<()>,
    /// Never held across an await: [`Politeness::readiness`] reads it.
    timing: Mutex<HostTiming>,
}

impl HostSlot {
    fn timing(&self) -> MutexGuard<'_, HostTiming> {
        // A poisoned lock only means another thread panicked while holding
        // it; two plain fields cannot be left inconsistent.
        self.timing.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[derive(Debug)]
struct HostTiming {
    /// No request to the host starts before this.
    next_start: Instant,
    /// Minimum gap between starts.
    delay: Duration,
}

/// Held while a request (headers and body) is in flight; dropping it frees
/// the host's and the global slot.
#[derive(Debug)]
pub struct Permit {
    _host: Option<OwnedSemaphorePermit>,
    _global: Option<OwnedSemaphorePermit>,
}

/// A host's politeness state, read without waiting
/// ([`Politeness::readiness`]): what a scheduler needs to send a request
/// only when the limiter would let it start at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostReadiness {
    /// No request to the host starts before this; `None` when the host was
    /// never contacted (it may start now).
    pub next_start: Option<Instant>,
    /// The minimum gap between starts: the configured delay or the
    /// host's robots.txt Crawl-delay, whichever is larger.
    pub delay: Duration,
    /// Requests to the host allowed in flight at once.
    pub concurrency: usize,
}

/// The per-host and global limiter. Shared by reference (`&self`).
#[derive(Debug)]
pub struct Politeness {
    global: Arc<Semaphore>,
    host_concurrency: usize,
    default_delay: Duration,
    /// One slot per host ever contacted (a few hundred bytes each; the
    /// crawl loop bounds the number of hosts through its scope).
    hosts: Mutex<HashMap<HostKey, Arc<HostSlot>>>,
}

impl Politeness {
    /// A limiter: `concurrency` requests in flight in total,
    /// `host_concurrency` per host, starts to one host `delay` apart.
    pub fn new(concurrency: usize, host_concurrency: usize, delay: Duration) -> Politeness {
        Politeness {
            global: Arc::new(Semaphore::new(concurrency.max(1))),
            host_concurrency: host_concurrency.max(1),
            default_delay: delay,
            hosts: Mutex::new(HashMap::new()),
        }
    }

    /// The key the limiter (and so the [`super::Fetcher`]) keeps a URL's
    /// host under ([`HostKey::of`]). `None` without a host.
    pub fn host_key(url: &Url) -> Option<HostKey> {
        HostKey::of(url)
    }

    fn hosts(&self) -> MutexGuard<'_, HashMap<HostKey, Arc<HostSlot>>> {
        // A poisoned lock only means another thread panicked mid-insert;
        // the map itself is still consistent.
        self.hosts.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn slot(&self, host: &HostKey) -> Arc<HostSlot> {
        let mut hosts = self.hosts();
        if let Some(slot) = hosts.get(host) {
            return Arc::clone(slot);
        }
        hosts
            .entry(host.clone())
            .or_insert_with(|| {
                Arc::new(HostSlot {
                    in_flight: Arc::new(Semaphore::new(self.host_concurrency)),
                    gate: tokio::sync::Mutex::new(()),
                    timing: Mutex::new(HostTiming {
                        next_start: Instant::now(),
                        delay: self.default_delay,
                    }),
                })
            })
            .clone()
    }

    /// Waits until a request to `host` may start, and reserves its slots.
    pub async fn acquire(&self, host: &HostKey) -> Permit {
        let slot = self.slot(host);
        // Semaphores here are never closed, so acquire cannot fail; if it
        // somehow did, the request goes ahead without that slot.
        let host_permit = slot.in_flight.clone().acquire_owned().await.ok();
        {
            let _gate = slot.gate.lock().await;
            loop {
                // Read again after each sleep: a `Retry-After` (defer) may
                // have pushed the start back meanwhile.
                let wait = {
                    let mut timing = slot.timing();
                    let now = Instant::now();
                    let start = timing.next_start.max(now);
                    if start <= now {
                        timing.next_start = start + timing.delay;
                        None
                    } else {
                        Some(start)
                    }
                };
                match wait {
                    Some(start) => tokio::time::sleep_until(start).await,
                    None => break,
                }
            }
        }
        let global = self.global.clone().acquire_owned().await.ok();
        Permit {
            _host: host_permit,
            _global: global,
        }
    }

    /// Sets the minimum gap between requests to `host` to the larger of the
    /// configured delay and `delay` (a robots.txt Crawl-delay).
    pub async fn set_delay(&self, host: &HostKey, delay: Duration) {
        self.slot(host).timing().delay = self.default_delay.max(delay);
    }

    /// The current minimum gap between requests to `host`.
    pub async fn delay(&self, host: &HostKey) -> Duration {
        self.slot(host).timing().delay
    }

    /// No request to `host` starts before `until` (a `Retry-After`).
    pub async fn defer(&self, host: &HostKey, until: Instant) {
        let slot = self.slot(host);
        let mut timing = slot.timing();
        timing.next_start = timing.next_start.max(until);
    }

    /// `host`'s state now, without waiting and without adding the host to
    /// the limiter: when its next request may start, its delay and its
    /// concurrency.
    pub fn readiness(&self, host: &HostKey) -> HostReadiness {
        let slot = self.hosts().get(host).cloned();
        let (next_start, delay) = match slot {
            Some(slot) => {
                let timing = slot.timing();
                (Some(timing.next_start), timing.delay)
            }
            None => (None, self.default_delay),
        };
        HostReadiness {
            next_start,
            delay,
            concurrency: self.host_concurrency,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(host: &str) -> HostKey {
        HostKey::new(host)
    }

    #[tokio::test(start_paused = true)]
    async fn starts_to_one_host_are_spaced_by_the_delay() {
        let p = Arc::new(Politeness::new(8, 4, Duration::from_secs(2)));
        let t0 = Instant::now();
        let mut starts = Vec::new();
        for _ in 0..3 {
            let _permit = p.acquire(&key("a.com")).await;
            starts.push(t0.elapsed());
        }
        assert_eq!(
            starts,
            [
                Duration::ZERO,
                Duration::from_secs(2),
                Duration::from_secs(4)
            ]
        );
        // Another host is not delayed by a.com.
        let t1 = Instant::now();
        let _b = p.acquire(&key("b.com")).await;
        assert_eq!(t1.elapsed(), Duration::ZERO);
        // Host names compare case-insensitively.
        let t2 = Instant::now();
        let _a = p.acquire(&key("A.COM")).await;
        assert_eq!(t2.elapsed(), Duration::from_secs(2));
    }

    #[tokio::test(start_paused = true)]
    async fn crawl_delay_raises_but_never_lowers_the_gap() {
        let p = Politeness::new(8, 1, Duration::from_secs(1));
        p.set_delay(&key("a.com"), Duration::from_secs(5)).await;
        assert_eq!(p.delay(&key("a.com")).await, Duration::from_secs(5));
        p.set_delay(&key("b.com"), Duration::from_millis(10)).await;
        assert_eq!(p.delay(&key("b.com")).await, Duration::from_secs(1));
        let t0 = Instant::now();
        drop(p.acquire(&key("a.com")).await);
        drop(p.acquire(&key("a.com")).await);
        assert_eq!(t0.elapsed(), Duration::from_secs(5));
    }

    #[tokio::test(start_paused = true)]
    async fn defer_pushes_the_next_start_back() {
        let p = Politeness::new(8, 1, Duration::ZERO);
        let t0 = Instant::now();
        p.defer(&key("a.com"), t0 + Duration::from_secs(30)).await;
        drop(p.acquire(&key("a.com")).await);
        assert_eq!(t0.elapsed(), Duration::from_secs(30));
    }

    #[tokio::test(start_paused = true)]
    async fn per_host_and_global_concurrency() {
        let p = Arc::new(Politeness::new(2, 1, Duration::ZERO));
        let a1 = p.acquire(&key("a.com")).await;
        // A second request to a.com waits for the first to finish.
        let p2 = p.clone();
        let waiting = tokio::spawn(async move { p2.acquire(&key("a.com")).await });
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert!(!waiting.is_finished());
        // b.com takes the second global slot; c.com must wait for one.
        let _b = p.acquire(&key("b.com")).await;
        let p3 = p.clone();
        let c = tokio::spawn(async move { p3.acquire(&key("c.com")).await });
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert!(!c.is_finished());
        drop(a1);
        // a.com's waiter gets a.com's slot, and one of the two waiters gets
        // the freed global slot; the other still waits.
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert!(waiting.is_finished() ^ c.is_finished());
    }

    #[tokio::test(start_paused = true)]
    async fn readiness_reports_the_next_start_without_waiting() {
        let p = Politeness::new(8, 2, Duration::from_secs(1));
        // Never contacted: may start now, and reading does not add it.
        let fresh = p.readiness(&key("a.com"));
        assert_eq!(fresh.next_start, None);
        assert_eq!(fresh.delay, Duration::from_secs(1));
        assert_eq!(fresh.concurrency, 2);
        let t0 = Instant::now();
        let _permit = p.acquire(&key("a.com")).await;
        // Read while the permit is held (no lock across awaits).
        let r = p.readiness(&key("A.com"));
        assert_eq!(r.next_start, Some(t0 + Duration::from_secs(1)));
        p.set_delay(&key("a.com"), Duration::from_secs(3)).await;
        p.defer(&key("a.com"), t0 + Duration::from_secs(10)).await;
        let r = p.readiness(&key("a.com"));
        assert_eq!(r.next_start, Some(t0 + Duration::from_secs(10)));
        assert_eq!(r.delay, Duration::from_secs(3));
        // The next acquire starts at the deferred time, then 3 s apart.
        let _second = p.acquire(&key("a.com")).await;
        assert_eq!(t0.elapsed(), Duration::from_secs(10));
        assert_eq!(
            p.readiness(&key("a.com")).next_start,
            Some(t0 + Duration::from_secs(13))
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_defer_while_waiting_is_honoured() {
        let p = Arc::new(Politeness::new(8, 2, Duration::from_secs(1)));
        let t0 = Instant::now();
        drop(p.acquire(&key("a.com")).await);
        // The second request waits for t0 + 1 s; meanwhile the server asks
        // for 5 s.
        let p2 = Arc::clone(&p);
        let second = tokio::spawn(async move {
            drop(p2.acquire(&key("a.com")).await);
            Instant::now()
        });
        tokio::time::sleep(Duration::from_millis(100)).await;
        p.defer(&key("a.com"), t0 + Duration::from_secs(5)).await;
        let started = second.await.unwrap();
        assert_eq!(started - t0, Duration::from_secs(5));
    }

    #[test]
    fn host_key_is_the_lowercased_host_without_port() {
        let of = |u: &str| Politeness::host_key(&Url::parse(u).unwrap());
        let text = |u: &str| of(u).map(|k| k.as_str().to_owned());
        assert_eq!(
            text("http://Example.COM:8080/a").as_deref(),
            Some("example.com")
        );
        assert_eq!(text("https://127.0.0.1:9/").as_deref(), Some("127.0.0.1"));
        assert_eq!(text("http://[::1]:80/").as_deref(), Some("[::1]"));
        assert_eq!(of("data:text/plain,x"), None);
    }
}
