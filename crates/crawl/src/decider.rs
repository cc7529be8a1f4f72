//! The sequential half of a crawl ([`Decider`]): each result in dispatch
//! order becomes a `pages.jsonl` line, a verdict and the links to expand.

use std::collections::HashMap;
use std::io::Write;

use serde::Serialize;
use url::Url;

use crate::crawl_state::DeciderState;
use crate::error::Result;
use crate::fetch::FetchOutcome;
use crate::frontier::pending::Frontier;
use crate::frontier::pending::PageLinks;
use crate::frontier::SkipReason;
use crate::outputs::Outputs;
use crate::site::site_with_port;
use crate::summary::{millis, CrawlSummary};
use crate::worker::{worker_gone, Done, Fetched, Job, Page};
use neardup::Error;
use neardup::{Analyzed, SharedDeduper};
use neardup::{Match, MatchBasis, Redirect, RedirectKind, Verdict, VerdictKind};
use neardup_output::{PageRecord, Summary};

/// One line of `pages.jsonl`.
#[derive(Debug, Serialize)]
pub(crate) struct PageLine<'a> {
    /// The URL requested (as linked).
    pub(crate) url: &'a str,
    /// Its canonical key (`doc_id` in verdicts.jsonl).
    pub(crate) key: &'a str,
    pub(crate) final_url: Option<&'a str>,
    pub(crate) status: Option<u16>,
    pub(crate) bytes: usize,
    pub(crate) ms: u64,
    pub(crate) content_type: Option<&'a str>,
    pub(crate) depth: u32,
    pub(crate) error: Option<String>,
}

/// The sequential half: verdicts, positions, sinks.
pub(crate) struct Decider {
    /// Key (canonical URL) -> position in processing order.
    pub(crate) positions: HashMap<String, usize>,
    /// Canonical URL fetched (requested or final) -> key of the page.
    pub(crate) fetched: HashMap<String, String>,
    pub(crate) records: usize,
    /// One past the highest index id given to a page decided so far.
    pub(crate) watermark: u32,
    pub(crate) batch: Summary,
    /// The deduper's store makes network round trips (Redis): decisions
    /// run on a blocking thread, not on the runtime.
    pub(crate) remote_store: bool,
}

impl Decider {
    /// The decider's part of a checkpoint.
    pub(crate) fn to_state(&self) -> DeciderState {
        DeciderState {
            positions: self
                .positions
                .iter()
                .map(|(k, v)| (k.clone(), *v))
                .collect(),
            fetched: self
                .fetched
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            records: self.records,
            watermark: self.watermark,
        }
    }

    /// Puts back a checkpoint's part ([`Decider::to_state`]).
    pub(crate) fn restore(&mut self, state: DeciderState) {
        self.positions = state.positions.into_iter().collect();
        self.fetched = state.fetched.into_iter().collect();
        self.records = state.records;
        self.watermark = state.watermark;
    }

    /// A redirect stub (`extract.redirect_stubs`: a meta refresh or a
    /// one-link page) is a redirect hop, not a page: it is not decided (no
    /// verdict line) nor indexed, and its target is offered to the
    /// frontier as an HTTP redirect's target is requested: at the stub's
    /// depth, with the duplicates in a row unchanged, through the scope
    /// test and the seen set (a stub loop ends there), robots.txt when it
    /// is fetched. At most `crawl.fetch.max_redirects` stubs in a row are
    /// followed (a generated chain of new URLs would otherwise never get
    /// deeper); one more is skipped with reason `redirect_stub_limit`. The
    /// stub's other links are not followed, as an HTTP 3xx's body's are
    /// not; a one-link stub under `nofollow` (meta or `rel`) is not
    /// followed either.
    pub(crate) fn redirect_stub(
        &mut self,
        frontier: &mut Frontier,
        redirect: &Redirect,
        job: &Job,
        hops: u32,
    ) {
        if hops >= frontier.max_stub_hops {
            frontier.skip(&SkipReason::RedirectStubLimit);
            return;
        }
        // The target is absolute (resolved at extraction); resolving it
        // like a link gives the request URL and its key in one pass.
        let Ok((request, target)) = frontier.canon.resolve(&job.url, &redirect.to) else {
            frontier.skip(&SkipReason::BadUrl);
            return;
        };
        if frontier.offer(request, &target, job.depth, job.dups) {
            frontier
                .stub_hops
                .insert(target.as_str().to_owned(), hops + 1);
        }
    }

    /// Decides one fetch result, in dispatch order. The steps: its
    /// `pages.jsonl` line ([`write_page_line`]); for a 2xx HTML page, a
    /// redirect stub is followed ([`Decider::follow_stub`]), a `noindex`
    /// page only has its links expanded, any other page is checked
    /// ([`Decider::check`]).
    pub(crate) async fn process(
        &mut self,
        done: Done,
        frontier: &mut Frontier,
        deduper: &SharedDeduper,
        out: &mut dyn Outputs,
        summary: &mut CrawlSummary,
    ) -> Result<()> {
        let Done { job, fetched } = done;
        let key = job.key.as_str().to_owned();
        // Redirect stubs in a row that led here; the entry is not needed
        // any more.
        let stub_hops = frontier.stub_hops.remove(&key).unwrap_or(0);
        summary.attempts += 1;
        count_outcome(&fetched, summary);
        write_page_line(out.pages(), &job, &key, &fetched, summary)?;

        let Fetched::Done {
            outcome,
            final_url,
            analyzed,
        } = fetched
        else {
            return Ok(());
        };
        let redirected = final_url != job.key;
        if redirected {
            // Whatever the answer, the target was fetched: a link to it
            // later is not fetched again.
            frontier.mark_fetched_target(&final_url);
        }
        let Some(analyzed) = analyzed else {
            return out.answer(&key, &outcome, None);
        };
        let Page {
            mut analyzed,
            canonical: page_canonical,
            links,
            rel_nofollow,
            directives,
        } = *analyzed;
        let follow = directives.nofollow.is_none();
        if !follow {
            summary.nofollow_pages += 1;
        }
        if let Some(redirect) = analyzed.extracted.redirect.take() {
            summary.redirect_stubs += 1;
            out.answer(&key, &outcome, None)?;
            self.follow_stub(frontier, &redirect, &job, stub_hops, follow, rel_nofollow);
            return Ok(());
        }
        let page_links = PageLinks {
            links,
            rel_nofollow,
            follow,
        };
        if directives.noindex.is_some() {
            // Not checked, not indexed; a hub page's links still lead on
            // (unless nofollow). Neither unique nor a duplicate: the
            // duplicates in a row on the path stay as they were.
            summary.noindex += 1;
            out.answer(&key, &outcome, None)?;
            frontier.expand(page_links, job.depth, job.dups);
            return Ok(());
        }
        self.check(
            Checked {
                job,
                key,
                outcome,
                final_url,
                redirected,
                analyzed,
                canonical: page_canonical,
                links: page_links,
            },
            frontier,
            deduper,
            out,
            summary,
        )
        .await
    }

    /// Decides a checked page: its verdict by URL ([`Decider::known_match`])
    /// or by content ([`Decider::judge`]), counted ([`Decider::tally`]) and
    /// sent to the sink; its links are expanded unless too many duplicates
    /// came in a row.
    pub(crate) async fn check(
        &mut self,
        page: Checked,
        frontier: &mut Frontier,
        deduper: &SharedDeduper,
        out: &mut dyn Outputs,
        summary: &mut CrawlSummary,
    ) -> Result<()> {
        let Checked {
            job,
            key,
            outcome,
            final_url,
            redirected,
            mut analyzed,
            canonical: page_canonical,
            links: page_links,
        } = page;
        // For the report's diff view; deciding does not read the blocks.
        let blocks = std::mem::take(&mut analyzed.extracted.blocks);
        let title = analyzed.extracted.title.clone();
        let bytes = analyzed.bytes;
        let known = self.known_match(&job, &final_url, redirected, page_canonical.as_ref());
        let (verdict, roles) = match known {
            Some((of, basis, via)) => {
                if basis == MatchBasis::Canonical {
                    summary.canonical_duplicates += 1;
                }
                // What each block counts as is known only when the
                // page's content is judged.
                let roles = vec![None; blocks.len()];
                (url_duplicate(of, basis, via, analyzed.warnings), roles)
            }
            None => {
                let (judged, verdict) = self.judge(deduper, analyzed).await?;
                let roles = neardup_output::block_roles(blocks.len(), &judged);
                (verdict?, roles)
            }
        };
        self.fetched.insert(key.clone(), key.clone());
        if redirected {
            self.fetched
                .entry(final_url.as_str().to_owned())
                .or_insert_with(|| key.clone());
        }
        out.answer(&key, &outcome, Some(&verdict))?;
        let (position, of) = self.tally(&key, &verdict, bytes, summary);
        // Duplicates in a row ending at this page: its links are followed
        // while they do not exceed `crawl.scope.duplicate_hops`.
        let dups = match verdict.kind {
            VerdictKind::Duplicate => job.dups.saturating_add(1),
            _ => 0,
        };
        let expand = dups <= frontier.duplicate_hops;
        out.sink().page(&PageRecord {
            position,
            key: key.clone(),
            url: job.url.as_str().to_owned(),
            site: site_with_port(&job.url),
            bytes,
            title,
            verdict,
            of,
            blocks,
            roles,
        })?;
        if expand {
            frontier.expand(page_links, job.depth, dups);
        }
        Ok(())
    }

    /// A redirect stub's target is followed ([`Decider::redirect_stub`])
    /// unless the stub is a one-link page whose link is `nofollow` (by the
    /// page's robots directive or the link's `rel`).
    pub(crate) fn follow_stub(
        &mut self,
        frontier: &mut Frontier,
        redirect: &Redirect,
        job: &Job,
        stub_hops: u32,
        follow: bool,
        rel_nofollow: u64,
    ) {
        let refused = match redirect.kind {
            RedirectKind::MetaRefresh => None,
            RedirectKind::LinkStub if !follow => Some(SkipReason::MetaNofollow),
            RedirectKind::LinkStub if rel_nofollow > 0 => Some(SkipReason::RelNofollow),
            RedirectKind::LinkStub => None,
        };
        match refused {
            Some(reason) => frontier.skip(&reason),
            None => self.redirect_stub(frontier, redirect, job, stub_hops),
        }
    }

    /// The page fetched before that this page is, by URL alone: the
    /// target of its redirect, else the page its `<link rel=canonical>`
    /// names (when that is another URL); with the basis and the URL that
    /// matched.
    pub(crate) fn known_match<'u>(
        &self,
        job: &Job,
        final_url: &'u Url,
        redirected: bool,
        page_canonical: Option<&'u Url>,
    ) -> Option<(String, MatchBasis, &'u str)> {
        // A redirect target fetched before: this page is that page.
        let by_redirect = redirected
            .then(|| self.fetched.get(final_url.as_str()).cloned())
            .flatten()
            .map(|of| (of, MatchBasis::Redirect, final_url.as_str()));
        let by_canonical = page_canonical
            .filter(|c| **c != job.key && *c != final_url)
            .and_then(|c| {
                Some((
                    self.fetched.get(c.as_str()).cloned()?,
                    MatchBasis::Canonical,
                    c.as_str(),
                ))
            });
        by_redirect.or(by_canonical)
    }

    /// The deduper's verdict on `analyzed`, with what its blocks counted
    /// as.
    pub(crate) async fn judge(
        &self,
        deduper: &SharedDeduper,
        analyzed: Analyzed,
    ) -> Result<(Vec<(u32, neardup::Role)>, neardup::Result<Verdict>)> {
        let decide = move |d: &mut neardup::Deduper| {
            let judged = d.content_roles(&analyzed).1;
            (judged, d.decide(analyzed))
        };
        if self.remote_store {
            // A shared store (Redis) makes synchronous network round trips
            // while deciding (catch up, conditional append): on a blocking
            // thread, so the runtime's workers keep fetching meanwhile. The
            // loop still waits for the verdict before the next page: the
            // order of decisions is unchanged.
            let d = deduper.clone();
            Ok(tokio::task::spawn_blocking(move || d.with(decide))
                .await
                .map_err(|_| worker_gone())??)
        } else {
            // A store in this process: inline, not on the blocking pool.
            // Deciding is short (about a tenth of a page's analysis; a redb
            // record not in the cache is a local page read) and on the
            // crawl's critical path, and a hand-off to a pool thread waits
            // for a core held by the analyses (measured: four times the
            // decision itself).
            Ok(deduper.with(decide)?)
        }
    }

    /// Counts a decided page (index watermark, position, summary and batch
    /// counters); returns its position and that of the page it matched,
    /// if that one was decided in this crawl.
    pub(crate) fn tally(
        &mut self,
        key: &str,
        verdict: &Verdict,
        bytes: usize,
        summary: &mut CrawlSummary,
    ) -> (usize, Option<usize>) {
        if let Some(id) = verdict.indexed_as.or(verdict.stored_as) {
            self.watermark = self.watermark.max(id.saturating_add(1));
        }
        let of = verdict
            .matched
            .as_ref()
            .and_then(|m| self.positions.get(&m.key).copied());
        let position = self.records;
        self.records += 1;
        self.positions.insert(key.to_owned(), position);
        summary.pages += 1;
        let b = &mut self.batch;
        b.pages += 1;
        b.bytes += bytes as u64;
        if !verdict.warnings.is_empty() {
            b.pages_with_warnings += 1;
            b.warnings += verdict.warnings.len() as u64;
        }
        summary.verdicts.add(verdict.kind);
        b.verdicts.add(verdict.kind);
        (position, of)
    }
}

/// The verdict of a page that is the page `of` by URL (`basis`: its
/// redirect target or canonical link `via` was fetched before), without
/// content comparison.
pub(crate) fn url_duplicate(
    of: String,
    basis: MatchBasis,
    via: &str,
    warnings: Vec<String>,
) -> Verdict {
    let reason = format!("{basis}: {via}");
    Verdict {
        kind: VerdictKind::Duplicate,
        // The page fetched at that URL, known by key: it may itself be a
        // duplicate, so it has no index id.
        contained_in: None,
        matched: Some(Match::by_url(None, of.clone(), of, basis, reason)),
        indexed_as: None,
        stored_as: None,
        redirect: None,
        warnings,
    }
}

/// Writes the `pages.jsonl` line of a fetch attempt (with the page's
/// robots directives and redirect stub target, if any) and counts robots
/// refusals, fetch errors and bytes in `summary`.
pub(crate) fn write_page_line(
    pages: &mut dyn Write,
    job: &Job,
    key: &str,
    fetched: &Fetched,
    summary: &mut CrawlSummary,
) -> Result<()> {
    let (robots_note, stub) = match fetched {
        Fetched::Done {
            analyzed: Some(page),
            ..
        } => (
            page.directives.describe(),
            page.analyzed.extracted.redirect.as_ref(),
        ),
        _ => (None, None),
    };
    let mut line = PageLine {
        url: job.url.as_str(),
        key,
        final_url: None,
        status: None,
        bytes: 0,
        ms: 0,
        content_type: None,
        depth: job.depth,
        error: None,
    };
    match fetched {
        Fetched::Disallowed { unreachable } => {
            summary.robots_disallowed += 1;
            line.error = Some(if *unreachable {
                "robots_unreachable".into()
            } else {
                "robots_disallowed".into()
            });
        }
        Fetched::Failed(e, elapsed) => {
            summary.fetch_errors += 1;
            line.ms = millis(*elapsed);
            line.error = Some(format!("{}: {e}", e.name()));
        }
        Fetched::Internal(message) => {
            summary.fetch_errors += 1;
            line.error = Some(format!("internal: {message}"));
        }
        Fetched::Done { outcome, .. } => {
            summary.bytes += outcome.bytes as u64;
            line.final_url = Some(outcome.final_url.as_str());
            line.status = Some(outcome.status);
            line.bytes = outcome.bytes;
            line.ms = millis(outcome.elapsed);
            line.content_type = outcome.content_type.as_deref();
            line.error = outcome
                .skipped_content_type
                .then(|| "skipped_content_type".to_owned());
        }
    }
    let io = |e: std::io::Error| Error::io(std::path::Path::new("pages.jsonl"), e);
    let line = LineWithRobots {
        line,
        robots: robots_note,
        redirect_to: stub.map(|r| r.to.as_str()),
        redirect_kind: stub.map(|r| r.kind.as_str()),
    };
    serde_json::to_writer(&mut *pages, &line).map_err(|e| io(e.into()))?;
    Ok(pages.write_all(b"\n").map_err(io)?)
}

/// A page to check for duplicates (a 2xx HTML answer, not a redirect
/// stub, not `noindex`), as [`Decider::process`] hands it to
/// [`Decider::check`].
pub(crate) struct Checked {
    pub(crate) job: Job,
    /// The page's canonical key.
    pub(crate) key: String,
    pub(crate) outcome: Box<FetchOutcome>,
    /// The URL that answered, canonicalized.
    pub(crate) final_url: Url,
    /// The answer came from another URL than the key.
    pub(crate) redirected: bool,
    pub(crate) analyzed: Analyzed,
    /// `<link rel=canonical>`, canonicalized.
    pub(crate) canonical: Option<Url>,
    pub(crate) links: PageLinks,
}

/// A `pages.jsonl` line with the page's robots directives, if any
/// (`"robots": "noindex (meta robots)"`).
#[derive(Serialize)]
pub(crate) struct LineWithRobots<'a> {
    #[serde(flatten)]
    pub(crate) line: PageLine<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) robots: Option<String>,
    /// A redirect stub's target (see [`Decider::redirect_stub`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) redirect_to: Option<&'a str>,
    /// `meta_refresh` or `link_stub`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) redirect_kind: Option<&'static str>,
}

/// Counts an attempt's status or error kind in the summary.
pub(crate) fn count_outcome(fetched: &Fetched, summary: &mut CrawlSummary) {
    let kind = match fetched {
        Fetched::Done { outcome, .. } => {
            *summary.statuses.entry(outcome.status).or_insert(0) += 1;
            return;
        }
        Fetched::Failed(e, _) => e.name(),
        Fetched::Internal(_) => "internal",
        Fetched::Disallowed { .. } => return,
    };
    *summary.errors.entry(kind.to_owned()).or_insert(0) += 1;
}
