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
//! Times are `tokio::time::Instant`, so tests can run on paused time.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

#[derive(Debug)]
struct HostSlot {
    in_flight: Arc<Semaphore>,
    timing: tokio::sync::Mutex<HostTiming>,
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

/// The per-host and global limiter. Shared by reference (`&self`).
#[derive(Debug)]
pub struct Politeness {
    global: Arc<Semaphore>,
    host_concurrency: usize,
    default_delay: Duration,
    /// One slot per host ever contacted (a few hundred bytes each; the
    /// crawl loop bounds the number of hosts through its scope).
    hosts: Mutex<HashMap<String, Arc<HostSlot>>>,
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

    fn slot(&self, host: &str) -> Arc<HostSlot> {
        // A poisoned lock only means another thread panicked mid-insert;
        // the map itself is still consistent.
        let mut hosts = self.hosts.lock().unwrap_or_else(|e| e.into_inner());
        hosts
            .entry(host.to_ascii_lowercase())
            .or_insert_with(|| {
                Arc::new(HostSlot {
                    in_flight: Arc::new(Semaphore::new(self.host_concurrency)),
                    timing: tokio::sync::Mutex::new(HostTiming {
                        next_start: Instant::now(),
                        delay: self.default_delay,
                    }),
                })
            })
            .clone()
    }

    /// Waits until a request to `host` may start, and reserves its slots.
    pub async fn acquire(&self, host: &str) -> Permit {
        let slot = self.slot(host);
        // Semaphores here are never closed, so acquire cannot fail; if it
        // somehow did, the request goes ahead without that slot.
        let host_permit = slot.in_flight.clone().acquire_owned().await.ok();
        {
            let mut timing = slot.timing.lock().await;
            let now = Instant::now();
            let start = timing.next_start.max(now);
            if start > now {
                tokio::time::sleep_until(start).await;
            }
            timing.next_start = start + timing.delay;
        }
        let global = self.global.clone().acquire_owned().await.ok();
        Permit {
            _host: host_permit,
            _global: global,
        }
    }

    /// Sets the minimum gap between requests to `host` to the larger of the
    /// configured delay and `delay` (a robots.txt Crawl-delay).
    pub async fn set_delay(&self, host: &str, delay: Duration) {
        let slot = self.slot(host);
        let mut timing = slot.timing.lock().await;
        timing.delay = self.default_delay.max(delay);
    }

    /// The current minimum gap between requests to `host`.
    pub async fn delay(&self, host: &str) -> Duration {
        let slot = self.slot(host);
        let timing = slot.timing.lock().await;
        timing.delay
    }

    /// No request to `host` starts before `until` (a `Retry-After`).
    pub async fn defer(&self, host: &str, until: Instant) {
        let slot = self.slot(host);
        let mut timing = slot.timing.lock().await;
        timing.next_start = timing.next_start.max(until);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn starts_to_one_host_are_spaced_by_the_delay() {
        let p = Arc::new(Politeness::new(8, 4, Duration::from_secs(2)));
        let t0 = Instant::now();
        let mut starts = Vec::new();
        for _ in 0..3 {
            let _permit = p.acquire("a.com").await;
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
        let _b = p.acquire("b.com").await;
        assert_eq!(t1.elapsed(), Duration::ZERO);
        // Host names compare case-insensitively.
        let t2 = Instant::now();
        let _a = p.acquire("A.COM").await;
        assert_eq!(t2.elapsed(), Duration::from_secs(2));
    }

    #[tokio::test(start_paused = true)]
    async fn crawl_delay_raises_but_never_lowers_the_gap() {
        let p = Politeness::new(8, 1, Duration::from_secs(1));
        p.set_delay("a.com", Duration::from_secs(5)).await;
        assert_eq!(p.delay("a.com").await, Duration::from_secs(5));
        p.set_delay("b.com", Duration::from_millis(10)).await;
        assert_eq!(p.delay("b.com").await, Duration::from_secs(1));
        let t0 = Instant::now();
        drop(p.acquire("a.com").await);
        drop(p.acquire("a.com").await);
        assert_eq!(t0.elapsed(), Duration::from_secs(5));
    }

    #[tokio::test(start_paused = true)]
    async fn defer_pushes_the_next_start_back() {
        let p = Politeness::new(8, 1, Duration::ZERO);
        let t0 = Instant::now();
        p.defer("a.com", t0 + Duration::from_secs(30)).await;
        drop(p.acquire("a.com").await);
        assert_eq!(t0.elapsed(), Duration::from_secs(30));
    }

    #[tokio::test(start_paused = true)]
    async fn per_host_and_global_concurrency() {
        let p = Arc::new(Politeness::new(2, 1, Duration::ZERO));
        let a1 = p.acquire("a.com").await;
        // A second request to a.com waits for the first to finish.
        let p2 = p.clone();
        let waiting = tokio::spawn(async move { p2.acquire("a.com").await });
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert!(!waiting.is_finished());
        // b.com takes the second global slot; c.com must wait for one.
        let _b = p.acquire("b.com").await;
        let p3 = p.clone();
        let c = tokio::spawn(async move { p3.acquire("c.com").await });
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert!(!c.is_finished());
        drop(a1);
        // a.com's waiter gets a.com's slot, and one of the two waiters gets
        // the freed global slot; the other still waits.
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert!(waiting.is_finished() ^ c.is_finished());
    }
}
