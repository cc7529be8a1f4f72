//! The frontier task's loop: dispatch jobs to the workers, take their
//! results back in dispatch order, decide, checkpoint, stop on shutdown.

use std::collections::{BTreeMap, HashSet};
use std::future::Future;
use std::time::Instant;

use tokio::sync::mpsc;

use crate::decider::Decider;
use crate::error::Result;
use crate::fetch::Politeness;
use crate::frontier::pending::{host_key, Frontier, Queued};
use crate::frontier::queue::Poll;
use crate::outputs::Outputs;
use crate::summary::CrawlSummary;
use crate::worker::{worker_gone, Channels, Done, Job};
use neardup::Error;
use neardup::SharedDeduper;

/// The frontier task's state while the crawl loop runs.
pub(crate) struct Loop<'o> {
    pub(crate) frontier: Frontier,
    pub(crate) decider: Decider,
    pub(crate) summary: CrawlSummary,
    pub(crate) deduper: SharedDeduper,
    pub(crate) out: &'o mut dyn Outputs,
    /// Dispatched and not yet decided, by sequence number: a checkpoint
    /// records them at the head of the queue, to be fetched again.
    pub(crate) in_flight_urls: BTreeMap<u64, Queued>,
    /// Pages decided since the last checkpoint.
    pub(crate) since_checkpoint: u64,
    /// Dispatched pages still counted against their host's concurrency:
    /// until their fetch is over (or, failing that signal, their result
    /// comes).
    pub(crate) holding: HashSet<u64>,
    pub(crate) next_dispatch: u64,
    pub(crate) next_decide: u64,
    /// Results that came before an earlier dispatched page's.
    pub(crate) reorder: BTreeMap<u64, Done>,
    /// No more dispatching: the shutdown signal came (it must not be
    /// polled again) or every worker is gone.
    pub(crate) stopping: bool,
    pub(crate) max_in_flight: u64,
}

impl Loop<'_> {
    /// Dispatches, receives and decides until the frontier is empty and
    /// nothing is in flight, or, after a shutdown, until the work in
    /// flight is drained.
    pub(crate) async fn run(
        &mut self,
        mut shutdown: std::pin::Pin<&mut impl Future<Output = ()>>,
        ch: &mut Channels,
        politeness: &Politeness,
    ) -> Result<()> {
        loop {
            let in_flight = self.next_dispatch - self.next_decide;
            if in_flight == 0 && (self.frontier.queue.is_empty() || self.stopping) {
                return Ok(());
            }
            let can_dispatch =
                !self.stopping && !self.frontier.queue.is_empty() && in_flight < self.max_in_flight;
            // Which host may go now; if none, when the first one may.
            // Idle: every host with queued URLs is at its concurrency, so a
            // result must come first (there is one in flight).
            let poll = if can_dispatch {
                self.frontier
                    .queue
                    .poll(tokio::time::Instant::now(), politeness)
            } else {
                Poll::Idle
            };
            let ready = poll == Poll::Ready;
            let wake = match poll {
                Poll::Until(at) => Some(at),
                Poll::Ready | Poll::Idle => None,
            };
            let stopping = self.stopping;
            let job_tx = &ch.job_tx;
            // Biased: a shutdown is seen at once, and finished work is
            // decided before more is dispatched (fewer bodies held).
            tokio::select! {
                biased;
                () = &mut shutdown, if !stopping => {
                    tracing::info!("shutdown: draining {in_flight} pages in flight");
                    self.stopping = true;
                    self.summary.interrupted = true;
                }
                Some(seq) = ch.fetched_rx.recv(), if in_flight > 0 => self.fetch_over(seq),
                done = ch.done_rx.recv(), if in_flight > 0 => {
                    let Some(done) = done else {
                        return Err(worker_gone().into());
                    };
                    self.receive(done).await?;
                }
                permit = async { match job_tx { Some(tx) => tx.reserve().await.ok(), None => None } }, if ready => {
                    match permit {
                        Some(permit) => self.dispatch(permit, politeness),
                        // Every worker is gone: nothing more can be fetched.
                        None => self.stopping = true,
                    }
                }
                // No host is ready: wait for the first slot (results and
                // the shutdown signal still come in meanwhile).
                () = async { if let Some(at) = wake { tokio::time::sleep_until(at).await } }, if wake.is_some() => {}
            }
        }
    }

    /// A page's fetch is over: its host's slot is free.
    pub(crate) fn fetch_over(&mut self, seq: u64) {
        if self.holding.remove(&seq) {
            if let Some(queued) = self.in_flight_urls.get(&seq) {
                self.frontier.queue.done(&host_key(&queued.url));
            }
        }
    }

    /// A page's result: decided with every result now in dispatch order
    /// ([`Decider::process`]), then progress and, when due, a checkpoint.
    pub(crate) async fn receive(&mut self, done: Done) -> Result<()> {
        if self.holding.remove(&done.job.seq) {
            self.frontier.queue.done(&host_key(&done.job.url));
        }
        self.reorder.insert(done.job.seq, done);
        while let Some(done) = self.reorder.remove(&self.next_decide) {
            self.next_decide += 1;
            self.in_flight_urls.remove(&done.job.seq);
            self.decider
                .process(
                    done,
                    &mut self.frontier,
                    &self.deduper,
                    &mut *self.out,
                    &mut self.summary,
                )
                .await?;
            self.since_checkpoint += 1;
        }
        self.out.progress(
            &self.summary,
            self.frontier.queue.len(),
            self.next_dispatch - self.next_decide,
        );
        if self.out.checkpoint_due(self.since_checkpoint) {
            self.checkpoint().await?;
            self.since_checkpoint = 0;
        }
        Ok(())
    }

    /// Sends the next URL of a ready host to a worker. None is sent when
    /// the host's slot moved while the permit was awaited (a redirect or
    /// robots.txt fetch took it): the next turn waits for it.
    pub(crate) fn dispatch(&mut self, permit: mpsc::Permit<'_, Job>, politeness: &Politeness) {
        if let Some(queued) = self.frontier.next(tokio::time::Instant::now(), politeness) {
            let seq = self.next_dispatch;
            self.in_flight_urls.insert(seq, queued.clone());
            let Queued { url, depth, dups } = queued;
            self.holding.insert(seq);
            let key = self.frontier.key(&url);
            permit.send(Job {
                seq,
                url,
                key,
                depth,
                dups,
            });
            self.next_dispatch += 1;
        }
    }

    /// See [`checkpoint`].
    pub(crate) async fn checkpoint(&mut self) -> Result<()> {
        checkpoint(
            &mut *self.out,
            &self.deduper,
            &self.frontier,
            &self.decider,
            &self.summary,
            &self.in_flight_urls,
        )
        .await
    }

    /// After the loop: flushes `pages.jsonl`, finishes the sink, writes the
    /// last checkpoint (nothing in flight; an empty queue and no
    /// interruption mark the crawl finished) and returns the summary.
    pub(crate) async fn finish(mut self, start: Instant, workers: usize) -> Result<CrawlSummary> {
        self.out
            .pages()
            .flush()
            .map_err(|e| Error::io(std::path::Path::new("pages.jsonl"), e))?;
        self.summary.elapsed = start.elapsed();
        self.decider.batch.elapsed = self.summary.elapsed;
        self.decider.batch.threads = workers;
        self.out.sink().finish(&self.decider.batch)?;
        if self.out.durable() {
            self.checkpoint().await?;
        }
        self.summary.skipped = std::mem::take(&mut self.frontier.skipped);
        Ok(self.summary)
    }
}

/// Flushes the index (on the blocking pool: it fsyncs), then lets `out`
/// sync its files and record the crawl state. The state names the index
/// watermark, so pages indexed after it are dropped on resume.
pub(crate) async fn checkpoint(
    out: &mut dyn Outputs,
    deduper: &SharedDeduper,
    frontier: &Frontier,
    decider: &Decider,
    summary: &CrawlSummary,
    in_flight: &BTreeMap<u64, Queued>,
) -> Result<()> {
    let d = deduper.clone();
    tokio::task::spawn_blocking(move || d.with(|d| d.flush()))
        .await
        .map_err(|_| worker_gone())???;
    let state =
        crate::crawl_state::CrawlState::capture(frontier, decider, summary, in_flight.values());
    out.checkpoint(&state)
}
