//! The crawl frontier's queue: one FIFO per host and a scheduler that hands
//! out a URL only when its host may be fetched at once.
//!
//! Politeness (per-host delay, robots.txt Crawl-delay, `Retry-After`,
//! per-host concurrency) is enforced by the fetcher's [`Politeness`]
//! limiter. A single global FIFO would hand the fetch workers URLs whose
//! host is not due yet: with one large polite host at the head of the
//! queue, every worker and the whole dispatch window wait on that host's
//! delay while the other hosts idle. So the queue keeps one FIFO per
//! politeness key ([`Politeness::host_key`]) and [`HostQueues::pop`]
//! chooses among the hosts that are *ready*:
//!
//! - fewer of its items in flight (popped, [`HostQueues::done`] not yet
//!   called) than the host's concurrency, and
//! - its next start has come: the limiter's next start for the host
//!   ([`Politeness::readiness`]: host delay or Crawl-delay, whichever is
//!   larger, and any `Retry-After`), and while items of the host are in
//!   flight (they may not have reached the limiter yet) also the last pop
//!   plus the host's delay.
//!
//! Among ready hosts it picks the one whose head was queued first: every
//! item gets a global sequence number when queued, and the pick is the
//! ready host whose head has the smallest one. The host that has waited
//! longest goes first, and the order is deterministic given the hosts'
//! readiness. Two consequences the crawl relies on:
//! - one host: items come out in exactly the order they were queued;
//! - every host always ready (no delay, concurrency above what the caller
//!   keeps in flight): items come out in global queue order, as from one
//!   FIFO.
//!
//! With several hosts and a delay, which host is ready when depends on
//! timing, and so does the interleaving of hosts (each host's own order is
//! still its FIFO order).
//!
//! Memory: a host entry exists while it has items queued or in flight; the
//! scheduler's sets hold at most one entry per such host.

use std::collections::{BTreeSet, HashMap, VecDeque};

use tokio::time::Instant;

use crate::fetch::Politeness;
use crate::site::HostKey;

/// What [`HostQueues::poll`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Poll {
    /// A host is ready: [`HostQueues::pop`] returns an item now.
    Ready,
    /// No host is ready before this time.
    Until(Instant),
    /// Nothing to hand out until an item in flight is done (every host
    /// with queued items is at its concurrency), or nothing queued.
    Idle,
}

/// Where a host stands in the scheduler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// In `candidates`: items queued, a free slot, possibly ready.
    Candidate,
    /// In `waiting`: items queued, a free slot, not ready before this.
    Waiting(Instant),
    /// In neither: no items queued, or every slot in flight.
    Parked,
}

#[derive(Debug)]
struct Host<T> {
    items: VecDeque<(u64, T)>,
    in_flight: usize,
    /// When an item of the host was last popped.
    last_pop: Option<Instant>,
    state: State,
}

/// Per-host FIFOs with a politeness-aware, deterministic scheduler (see
/// the module doc).
#[derive(Debug)]
pub struct HostQueues<T> {
    hosts: HashMap<HostKey, Host<T>>,
    /// Hosts that may be ready, by the sequence number of their head.
    candidates: BTreeSet<(u64, HostKey)>,
    /// Hosts not ready before a known time, by that time.
    waiting: BTreeSet<(Instant, HostKey)>,
    next_seq: u64,
    len: usize,
}

impl<T> Default for HostQueues<T> {
    fn default() -> Self {
        HostQueues {
            hosts: HashMap::new(),
            candidates: BTreeSet::new(),
            waiting: BTreeSet::new(),
            next_seq: 0,
            len: 0,
        }
    }
}

impl<T> HostQueues<T> {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Items queued (not counting those in flight).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no item is queued.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Hosts with items queued or in flight.
    pub fn hosts(&self) -> usize {
        self.hosts.len()
    }

    /// Queues `item` at the back of `host`'s FIFO.
    pub fn push(&mut self, host: &HostKey, item: T) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.len += 1;
        let h = self.hosts.entry(host.clone()).or_insert_with(|| Host {
            items: VecDeque::new(),
            in_flight: 0,
            last_pop: None,
            state: State::Parked,
        });
        h.items.push_back((seq, item));
        if h.items.len() == 1 && h.state == State::Parked {
            // A host with nothing queued was parked; whether it is at its
            // concurrency is checked when it is considered.
            h.state = State::Candidate;
            self.candidates.insert((seq, host.clone()));
        }
    }

    /// Every queued item in the order it was queued (global sequence
    /// order), for a checkpoint.
    pub fn in_order(&self) -> Vec<&T> {
        let mut all: Vec<&(u64, T)> = self.hosts.values().flat_map(|h| h.items.iter()).collect();
        all.sort_unstable_by_key(|(seq, _)| *seq);
        all.into_iter().map(|(_, item)| item).collect()
    }

    /// Whether a host is ready at `now`, or when it will be (`Err(None)`:
    /// not before one of its items in flight is done).
    fn ready_at(
        host: &Host<T>,
        key: &HostKey,
        now: Instant,
        politeness: &Politeness,
    ) -> Result<(), Option<Instant>> {
        let r = politeness.readiness(key);
        if host.in_flight >= r.concurrency {
            return Err(None);
        }
        let mut at = r.next_start.unwrap_or(now);
        if host.in_flight > 0 {
            if let Some(last) = host.last_pop {
                at = at.max(last + r.delay);
            }
        }
        if at <= now {
            Ok(())
        } else {
            Err(Some(at))
        }
    }

    /// Moves waiting hosts whose time has come back to the candidates.
    fn wake(&mut self, now: Instant) {
        while let Some((at, key)) = self.waiting.first().cloned() {
            if at > now {
                break;
            }
            self.waiting.pop_first();
            if let Some(h) = self.hosts.get_mut(&key) {
                if let Some(&(seq, _)) = h.items.front() {
                    h.state = State::Candidate;
                    self.candidates.insert((seq, key));
                } else {
                    h.state = State::Parked;
                }
            }
        }
    }

    /// The ready host whose head was queued first, moving the candidates
    /// found not ready to `waiting` (or parking them) on the way.
    fn find_ready(&mut self, now: Instant, politeness: &Politeness) -> Option<HostKey> {
        self.wake(now);
        while let Some((seq, key)) = self.candidates.first().cloned() {
            let Some(h) = self.hosts.get_mut(&key) else {
                self.candidates.pop_first();
                continue;
            };
            match Self::ready_at(h, &key, now, politeness) {
                Ok(()) => return Some(key),
                Err(when) => {
                    self.candidates.remove(&(seq, key.clone()));
                    match when {
                        Some(at) => {
                            h.state = State::Waiting(at);
                            self.waiting.insert((at, key));
                        }
                        None => h.state = State::Parked,
                    }
                }
            }
        }
        None
    }

    /// Whether an item can be popped at `now`, else when to look again.
    /// Readiness only moves later on its own (delays only grow, starts
    /// only move back), so a host found waiting until `t` is not looked at
    /// before `t`; [`HostQueues::done`] wakes a host at its concurrency.
    pub fn poll(&mut self, now: Instant, politeness: &Politeness) -> Poll {
        if self.find_ready(now, politeness).is_some() {
            return Poll::Ready;
        }
        match self.waiting.first() {
            Some((at, _)) => Poll::Until(*at),
            None => Poll::Idle,
        }
    }

    /// Pops the head of the ready host whose head was queued first, and
    /// counts it in flight for its host until [`HostQueues::done`]. Items
    /// for which `drop` returns true are removed on the way and never
    /// handed out (the caller counts them). `None` when no host is ready.
    pub fn pop(
        &mut self,
        now: Instant,
        politeness: &Politeness,
        mut drop: impl FnMut(&T) -> bool,
    ) -> Option<(HostKey, T)> {
        loop {
            let key = self.find_ready(now, politeness)?;
            let h = self.hosts.get_mut(&key)?;
            let (seq, item) = h.items.pop_front()?;
            self.len -= 1;
            self.candidates.remove(&(seq, key.clone()));
            let handed = if drop(&item) {
                None
            } else {
                h.in_flight += 1;
                h.last_pop = Some(now);
                Some(item)
            };
            match h.items.front() {
                Some(&(next, _)) => {
                    // Considered again at once: `find_ready` parks it or
                    // makes it wait if it is not ready.
                    self.candidates.insert((next, key.clone()));
                }
                None => {
                    h.state = State::Parked;
                    if h.in_flight == 0 {
                        self.hosts.remove(&key);
                    }
                }
            }
            if let Some(item) = handed {
                return Some((key, item));
            }
        }
    }

    /// An item popped for `host` is finished: its slot is free again.
    pub fn done(&mut self, host: &HostKey) {
        let Some(h) = self.hosts.get_mut(host) else {
            return;
        };
        h.in_flight = h.in_flight.saturating_sub(1);
        match (h.items.front(), h.state) {
            (None, _) if h.in_flight == 0 => {
                self.hosts.remove(host);
            }
            (Some(&(seq, _)), State::Parked) => {
                h.state = State::Candidate;
                self.candidates.insert((seq, host.clone()));
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn key(host: &str) -> HostKey {
        HostKey::new(host)
    }

    fn drain(q: &mut HostQueues<u32>, p: &Politeness) -> Vec<u32> {
        let mut out = Vec::new();
        let now = Instant::now();
        while let Some((host, item)) = q.pop(now, p, |_| false) {
            out.push(item);
            q.done(&host);
        }
        out
    }

    #[tokio::test(start_paused = true)]
    async fn every_host_ready_gives_the_global_fifo_order() {
        let p = Politeness::new(64, 64, Duration::ZERO);
        let mut q = HostQueues::new();
        for (i, host) in ["a", "b", "a", "c", "b", "a", "c", "c"].iter().enumerate() {
            q.push(&key(host), i as u32);
        }
        assert_eq!(q.len(), 8);
        assert_eq!(q.in_order(), [&0, &1, &2, &3, &4, &5, &6, &7]);
        // Popped without `done`: concurrency 64 is never reached.
        let now = Instant::now();
        let mut out = Vec::new();
        while let Some((_, item)) = q.pop(now, &p, |_| false) {
            out.push(item);
        }
        assert_eq!(out, [0, 1, 2, 3, 4, 5, 6, 7]);
        assert!(q.is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn one_host_is_fifo_whatever_its_politeness() {
        let p = Politeness::new(64, 1, Duration::from_secs(1));
        let mut q = HostQueues::new();
        for i in 0..5 {
            q.push(&key("a"), i);
        }
        let mut out = Vec::new();
        while !q.is_empty() {
            match q.poll(Instant::now(), &p) {
                Poll::Ready => {
                    let (host, item) = q.pop(Instant::now(), &p, |_| false).unwrap();
                    // The fetch takes the limiter's slot, as a worker would.
                    drop(p.acquire(&host).await);
                    out.push(item);
                    // Concurrency 1: nothing more until this one is done.
                    assert_eq!(q.poll(Instant::now(), &p), Poll::Idle);
                    q.done(&host);
                }
                Poll::Until(at) => tokio::time::sleep_until(at).await,
                Poll::Idle => panic!("idle with items queued and none in flight"),
            }
        }
        assert_eq!(out, [0, 1, 2, 3, 4]);
        assert_eq!(q.hosts(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn a_host_waiting_for_its_delay_does_not_hold_the_others() {
        let p = Politeness::new(64, 1, Duration::from_secs(1));
        let mut q = HostQueues::new();
        // Host a's URLs were all queued first.
        for i in 0..4 {
            q.push(&key("a"), i);
        }
        for i in 10..13 {
            q.push(&key("b"), i);
        }
        let t0 = Instant::now();
        let mut out = Vec::new();
        while !q.is_empty() {
            match q.poll(Instant::now(), &p) {
                Poll::Ready => {
                    let (host, item) = q.pop(Instant::now(), &p, |_| false).unwrap();
                    drop(p.acquire(&host).await);
                    out.push((item, t0.elapsed().as_secs()));
                    q.done(&host);
                }
                Poll::Until(at) => tokio::time::sleep_until(at).await,
                Poll::Idle => panic!("idle"),
            }
        }
        // Both hosts at 1 page/s, interleaved; the host whose head waited
        // longest goes first when both are ready.
        assert_eq!(
            out,
            [(0, 0), (10, 0), (1, 1), (11, 1), (2, 2), (12, 2), (3, 3)]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn concurrency_counts_items_in_flight_until_done() {
        let p = Politeness::new(64, 2, Duration::ZERO);
        let mut q = HostQueues::new();
        for i in 0..4 {
            q.push(&key("a"), i);
        }
        q.push(&key("b"), 9);
        let now = Instant::now();
        assert_eq!(q.pop(now, &p, |_| false), Some((key("a"), 0)));
        assert_eq!(q.pop(now, &p, |_| false), Some((key("a"), 1)));
        // a has two in flight: b goes next, then nothing.
        assert_eq!(q.pop(now, &p, |_| false), Some((key("b"), 9)));
        assert_eq!(q.poll(now, &p), Poll::Idle);
        assert_eq!(q.pop(now, &p, |_| false), None);
        q.done(&key("a"));
        assert_eq!(q.poll(now, &p), Poll::Ready);
        assert_eq!(q.pop(now, &p, |_| false), Some((key("a"), 2)));
        // b is dropped once its item is done and it has nothing queued.
        q.done(&key("b"));
        assert_eq!(q.hosts(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn dropped_items_are_skipped_and_not_counted_in_flight() {
        let p = Politeness::new(64, 1, Duration::ZERO);
        let mut q = HostQueues::new();
        for i in 0..4 {
            q.push(&key("a"), i);
        }
        let now = Instant::now();
        let mut dropped = Vec::new();
        let got = q.pop(now, &p, |&i| {
            let d = i < 2;
            if d {
                dropped.push(i);
            }
            d
        });
        assert_eq!(got, Some((key("a"), 2)));
        assert_eq!(dropped, [0, 1]);
        assert_eq!(q.len(), 1);
        q.done(&key("a"));
        assert_eq!(drain(&mut q, &p), [3]);
        assert_eq!(q.hosts(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn crawl_delay_and_retry_after_are_read_from_the_limiter() {
        let p = Politeness::new(64, 4, Duration::from_millis(100));
        let mut q = HostQueues::new();
        q.push(&key("a"), 1);
        q.push(&key("a"), 2);
        let t0 = Instant::now();
        // A Retry-After on host a: nothing before t0 + 30 s.
        p.defer(&key("a"), t0 + Duration::from_secs(30)).await;
        assert_eq!(q.poll(t0, &p), Poll::Until(t0 + Duration::from_secs(30)));
        // Once due, one item; the second waits for the delay after the
        // first was handed out, even before the fetch reaches the limiter
        // (a Crawl-delay of 5 s raised it).
        p.set_delay(&key("a"), Duration::from_secs(5)).await;
        let t1 = t0 + Duration::from_secs(30);
        assert_eq!(q.pop(t1, &p, |_| false), Some((key("a"), 1)));
        assert_eq!(q.poll(t1, &p), Poll::Until(t1 + Duration::from_secs(5)));
    }
}
