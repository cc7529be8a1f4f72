//! The decider: one thread that decides analyzed pages in arrival order and
//! makes them durable in groups (group commit).
//!
//! Pages are analyzed on the worker pool without any lock (through an
//! [`Analyzer`](neardup::Analyzer) handle) and sent here over a
//! bounded channel. The decider takes the first job waiting, then every
//! other job already queued (up to [`MAX_GROUP`]), decides them one by one
//! under the deduper's write lock, and calls [`Deduper::flush`] once for the
//! whole group: with the redb store that is one fsynced commit for all of
//! them. Only then does any client of the group get its answer, so a verdict
//! is durable before the client hears of it. While a commit runs, the
//! workers keep analyzing and the next group queues up behind it, so the
//! more load, the larger the groups and the fewer commits per page.
//!
//! If the commit fails, every client of the group gets a 500: their pages
//! may be indexed in memory and become durable with a later commit, so as
//! with a timeout the answer means "unknown: check again".

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::Arc;

use neardup_api::DocId;
use tokio::sync::oneshot;

use super::ApiError;
use neardup::Deduper;
use neardup::Verdict;
use neardup::{Analyzed, SharedDeduper};
use neardup::{Match, MatchBasis, VerdictKind};

/// Most jobs decided and committed together; bounds the latency that one
/// group adds to the first request in it.
pub(crate) const MAX_GROUP: usize = 512;

/// Jobs queued before senders wait: enough for every request in flight.
pub(crate) const QUEUE: usize = 1024;

/// The answer to a check job: `None` if the request was abandoned before
/// its decision (nobody reads it then).
type CheckAnswer = Result<Option<Vec<Verdict>>, ApiError>;

/// Work for the decider.
pub(crate) enum Job {
    /// Decide these pages in order (one page, or one batch).
    Check {
        pages: Vec<Analyzed>,
        /// Set when the request was abandoned (timeout, client gone):
        /// its pages are then not decided.
        cancelled: Arc<AtomicBool>,
        reply: oneshot::Sender<CheckAnswer>,
    },
    /// Remove an indexed document; answers the id removed, if any.
    Remove {
        target: RemoveTarget,
        reply: oneshot::Sender<RemoveAnswer>,
    },
}

/// Which document a removal names.
pub(crate) enum RemoveTarget {
    /// By document id.
    Id(DocId),
    /// By URL (canonicalized like the index's URL map).
    Url(String),
}

/// The answer to a removal: the id removed, `None` if nothing was there.
type RemoveAnswer = Result<Option<DocId>, ApiError>;

/// A job decided, its answer held back until the group's commit.
enum Decided {
    Check(oneshot::Sender<CheckAnswer>, CheckAnswer),
    Remove(oneshot::Sender<RemoveAnswer>, RemoveAnswer),
}

impl Job {
    fn run(self, d: &mut Deduper) -> Decided {
        match self {
            Job::Check {
                pages,
                cancelled,
                reply,
            } => {
                let answer = if cancelled.load(Ordering::SeqCst) {
                    Ok(None)
                } else {
                    pages
                        .into_iter()
                        .map(|a| decide_page(d, a))
                        .collect::<neardup::Result<Vec<_>>>()
                        .map(Some)
                        .map_err(ApiError::internal)
                };
                Decided::Check(reply, answer)
            }
            Job::Remove { target, reply } => {
                let removed = match target {
                    RemoveTarget::Id(id) => d.remove(id).map(|r| r.then_some(id)),
                    RemoveTarget::Url(url) => d.remove_url(&url),
                };
                Decided::Remove(reply, removed.map_err(ApiError::internal))
            }
        }
    }

    /// Answers without deciding (the deduper is unusable).
    fn fail(self, why: &str) {
        match self {
            Job::Check { reply, .. } => {
                let _ = reply.send(Err(ApiError::internal(why)));
            }
            Job::Remove { reply, .. } => {
                let _ = reply.send(Err(ApiError::internal(why)));
            }
        }
    }
}

/// Decides one page. A page whose `<link rel=canonical>` names another URL
/// at which a page is indexed is a duplicate of that page (detector
/// `canonical`), without content comparison and without being indexed:
/// the site says which URL is the page, as `crawl` decides. A redirect
/// stub is a redirect whatever its canonical link says (the deduper says
/// so in its verdict).
fn decide_page(d: &mut Deduper, a: Analyzed) -> neardup::Result<Verdict> {
    if a.extracted.redirect.is_some() {
        return d.decide(a);
    }
    match by_canonical(d, &a)? {
        Some(verdict) => {
            d.count_verdict(verdict.kind);
            Ok(verdict)
        }
        None => d.decide(a),
    }
}

/// The canonical duplicate verdict for `a`, if its canonical link names
/// another indexed page.
fn by_canonical(d: &mut Deduper, a: &Analyzed) -> neardup::Result<Option<Verdict>> {
    let Some(href) = a.extracted.canonical.as_deref() else {
        return Ok(None);
    };
    let Ok(page) = url::Url::parse(&a.doc.url) else {
        return Ok(None);
    };
    let Ok(canonical) = page.join(href) else {
        return Ok(None);
    };
    if !matches!(canonical.scheme(), "http" | "https") || canonical == page {
        return Ok(None);
    }
    let Some((id, key, url)) = d.indexed_at(canonical.as_str())? else {
        return Ok(None);
    };
    // Another spelling of the page's own URL: a recrawl, judged as one.
    if d.id_of_url(&a.doc.url)? == Some(id) {
        return Ok(None);
    }
    Ok(Some(Verdict {
        kind: VerdictKind::Duplicate,
        contained_in: None,
        matched: Some(Match::by_url(
            Some(id),
            key,
            url,
            MatchBasis::Canonical,
            format!("{}: {canonical}", MatchBasis::Canonical),
        )),
        indexed_as: None,
        stored_as: None,
        redirect: None,
        warnings: a.warnings.clone(),
    }))
}

impl Decided {
    /// Sends the answer, replaced by `failed` if the commit failed.
    fn answer(self, failed: Option<&str>) {
        // A closed receiver means the request was abandoned: nobody listens.
        match self {
            Decided::Check(reply, answer) => {
                let _ = reply.send(match failed {
                    Some(why) => Err(ApiError::internal(why)),
                    None => answer,
                });
            }
            Decided::Remove(reply, answer) => {
                let _ = reply.send(match failed {
                    Some(why) => Err(ApiError::internal(why)),
                    None => answer,
                });
            }
        }
    }
}

/// The sending end; the thread stops when every sender is gone.
#[derive(Clone)]
pub(crate) struct Decider {
    tx: SyncSender<Job>,
    /// Groups committed so far (`neardup_index_commits_total`).
    commits: Arc<AtomicU64>,
}

impl Decider {
    /// Starts the decider thread over `deduper`.
    pub(crate) fn start(deduper: SharedDeduper) -> neardup::Result<(Decider, DeciderThread)> {
        let (tx, rx) = mpsc::sync_channel(QUEUE);
        let commits = Arc::new(AtomicU64::new(0));
        let counter = Arc::clone(&commits);
        let thread = std::thread::Builder::new()
            .name("neardup-decide".into())
            .spawn(move || decide_loop(&deduper, &rx, &counter))
            .map_err(|e| neardup::Error::runtime("decider thread", format!("cannot start: {e}")))?;
        Ok((Decider { tx, commits }, DeciderThread(thread)))
    }

    /// Groups committed so far: checks divided by this is the group size.
    pub(crate) fn commits(&self) -> u64 {
        self.commits.load(Ordering::Relaxed)
    }

    /// Queues `job` if there is room; gives it back if the queue is full.
    /// Never waits, so the async runtime may call it.
    pub(crate) fn try_send(&self, job: Job) -> Result<(), Job> {
        match self.tx.try_send(job) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(job)) => Err(job),
            Err(TrySendError::Disconnected(job)) => {
                job.fail("the decider has stopped");
                Ok(())
            }
        }
    }

    /// Queues `job`, waiting while the queue is full (back pressure on the
    /// workers). Call it off the async runtime.
    pub(crate) fn send(&self, job: Job) {
        match self.tx.try_send(job) {
            Ok(()) => {}
            Err(TrySendError::Full(job)) => {
                if let Err(mpsc::SendError(job)) = self.tx.send(job) {
                    job.fail("the decider has stopped");
                }
            }
            Err(TrySendError::Disconnected(job)) => job.fail("the decider has stopped"),
        }
    }
}

/// The decider's thread.
pub(crate) struct DeciderThread(std::thread::JoinHandle<()>);

impl DeciderThread {
    /// Waits until the thread has stopped, which it does once every
    /// [`Decider`] is dropped and the last group is answered; its handle
    /// on the deduper is gone then.
    pub(crate) fn join(self) {
        // A panic there already answered its group's clients with errors.
        let _ = self.0.join();
    }
}

fn decide_loop(deduper: &SharedDeduper, rx: &Receiver<Job>, commits: &AtomicU64) {
    let mut group = Vec::with_capacity(MAX_GROUP);
    while let Ok(first) = rx.recv() {
        group.push(first);
        while group.len() < MAX_GROUP {
            match rx.try_recv() {
                Ok(job) => group.push(job),
                Err(_) => break,
            }
        }
        let jobs = std::mem::take(&mut group);
        // The jobs move into the closure; if the lock is poisoned they are
        // dropped unanswered and their handlers see a closed channel (500).
        let outcome = deduper.with(|d| {
            let decided: Vec<Decided> = jobs.into_iter().map(|job| job.run(d)).collect();
            // One commit for the whole group: durable before anyone hears.
            let flushed = d.flush().map_err(|e| e.to_string());
            (decided, flushed)
        });
        if let Ok((decided, flushed)) = outcome {
            if flushed.is_ok() {
                commits.fetch_add(1, Ordering::Relaxed);
            }
            let failed = flushed.err();
            if let Some(why) = &failed {
                tracing::error!(
                    error = %why,
                    jobs = decided.len(),
                    "index commit failed: every request of the group gets 500"
                );
            }
            for answer in decided {
                answer.answer(failed.as_deref());
            }
        }
    }
}
