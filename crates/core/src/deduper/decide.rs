//! The sequential half of a check ([`Deduper::decide`]): candidates, the
//! drop policy, recrawls, expiry and the store writes, in arrival order.

use std::cmp::Reverse;
use std::sync::Arc;

use neardup_api::{DocId, Document, Judgement, Signature, Similarity};

use crate::content::{Coverage, Evidence, Kept, KeptUrl, KeptUrls, OwnContent, PageContent};
use crate::index::{DocRecord, RecordKind};
use crate::policy::{Policy, Ruling, Via};
use crate::verdict::{Match, MatchBasis, Verdict, VerdictKind};

use super::{redirect_warning, Analyzed, Deduper, CONTENT};

/// Candidates verified per detector and page; candidate indexes return the
/// most promising first, so this only bounds pathological pages.
const MAX_VERIFY: usize = 64;

/// The URL of `rec` as the kept side of a comparison, its words held in
/// `urls`; `None` for an observation, which is never the kept side of a
/// drop.
fn kept_url(rec: &DocRecord, urls: &KeptUrls) -> Option<Arc<KeptUrl>> {
    rec.kind.is_indexed().then(|| urls.get(&rec.url))
}

/// The kept side of a comparison with `rec` (see [`Kept`]) at `url`
/// ([`kept_url`]).
fn kept_side<'a>(rec: &'a DocRecord, url: &'a KeptUrl) -> Kept<'a> {
    Kept {
        evidence: rec.evidence.as_ref(),
        page_name: url.page_name(),
        url,
    }
}

/// The record of an analyzed page, as kept and fetched at `now` (decide
/// marks it a near duplicate if it indexes it as one).
fn kept_record(
    key: String,
    doc: Document,
    signatures: Vec<Signature>,
    evidence: Evidence,
    now: u64,
) -> DocRecord {
    DocRecord {
        key,
        url: doc.url,
        site: doc.site,
        kind: RecordKind::Kept,
        signatures,
        evidence,
        fetched_at: now,
    }
}

/// What [`Deduper::find_match`] found for a page.
#[derive(Default)]
struct Found {
    /// The copy's original: chain position (the chain's length for the
    /// block index), page, verdict kind, similarity, judgement, coverage.
    copy: Option<(usize, DocId, VerdictKind, Similarity, Judgement, Coverage)>,
    /// The best larger page containing this one: chain position, page,
    /// similarity, coverage.
    contained_in: Option<(usize, DocId, Similarity, Coverage)>,
    /// The best candidate a detector matched whose ruling kept the page:
    /// chain position, page, score, coverage.
    rejected: Option<(usize, DocId, f64, Coverage)>,
}

impl Found {
    /// Records `id` as a page containing this one, if it holds more of it
    /// than the best so far.
    fn contain(&mut self, i: usize, id: DocId, sim: Similarity, coverage: Coverage) {
        if self
            .contained_in
            .as_ref()
            .is_none_or(|c| coverage.share() > c.3.share())
        {
            self.contained_in = Some((i, id, sim, coverage));
        }
    }
}

/// What [`Deduper::judge`] says of a page.
struct Judged {
    kind: VerdictKind,
    matched: Option<Match>,
    contained_in: Option<Match>,
    rejected: Option<String>,
}

impl Deduper {
    /// The sequential half: look up each detector's candidates in chain
    /// order, verify them against stored signatures, decide, and index the
    /// page if it is kept.
    ///
    /// Recrawls (`index.replace_same_url`): if a page is indexed at the
    /// same URL (up to spelling), an unchanged re-fetch (identical signatures) is
    /// a [`VerdictKind::Duplicate`] whose match is that page with detector
    /// [`SAME_URL`](crate::SAME_URL) (its fetch time is refreshed, nothing else changes);
    /// a changed page first removes the old version, then is judged like
    /// any page, so it is never matched against its own older version (it
    /// can still be a copy of another page, which the verdict then names).
    /// Pages past `index.ttl_secs` are expired here first.
    ///
    /// # Errors
    /// [`crate::Error::Store`] if the document store fails; the page then
    /// counts as not checked and is not indexed.
    pub fn decide(&mut self, analyzed: Analyzed) -> crate::Result<Verdict> {
        // A redirect stub (`extract.redirect_stubs`) is a pointer: its
        // verdict names the target, so a crawler follows it as it would an
        // HTTP 3xx. It is still judged on its own text like any page (the
        // same stub text at two URLs is a copy; a stub holds no other
        // page's content, so the content gate never lets a page be dropped
        // as a copy of a stub).
        let redirect = analyzed.extracted.redirect.clone();
        let Analyzed {
            key,
            doc,
            signatures,
            evidence,
            content,
            mut warnings,
            ..
        } = analyzed;
        let policy = Policy::new(&self.config.decide, doc.terms.len());
        if policy.short() && !doc.words.is_empty() {
            warnings.push(format!(
                "short page ({} terms < decide.min_terms = {}): compared by exact hash only",
                doc.terms.len(),
                self.config.decide.min_terms
            ));
        }
        let now = self.now();
        let mut record = kept_record(key, doc, signatures, evidence, now);
        // A shared store (Redis) may change under us: catch up, decide, and
        // keep the page only if nobody wrote in between; otherwise decide
        // again against what the other worker wrote (one pass when the
        // store is private to this process).
        let mut stored_as = None;
        let mut contained_in = None;
        let (kind, matched, indexed_as) = loop {
            self.catch_up()?;
            self.expire_at(now)?;
            if let Some((kind, m)) = self.unchanged(&record, &content, policy, now)? {
                break (kind, Some(m), None);
            }
            let Judged {
                kind,
                matched,
                contained_in: within,
                rejected,
            } = self.judge(
                &record.signatures,
                &content,
                (&record.site, &record.url),
                policy,
                now,
                None,
            )?;
            if let Some(note) = rejected {
                warnings.push(note);
            }
            contained_in = within;
            let has_features = record.signatures.iter().any(|s| !s.is_empty());
            let index_it = has_features
                && match kind {
                    VerdictKind::Unique => true,
                    VerdictKind::NearDuplicate => self.config.decide.index_near_duplicates,
                    VerdictKind::Duplicate => false,
                };
            if !index_it {
                // A page not kept still teaches the site's template, unless
                // it is the kept page's visible text again (a copy at another
                // URL would only make that page's own text look repeated).
                // The evidence is the one computed at analysis (a page
                // without blocks has nothing to teach), not computed again
                // on this thread, which decides every page in turn.
                let e = &record.evidence;
                let observe = kind.is_drop() && !e.blocks.is_empty();
                if observe && !self.same_visible(&matched, e.visible)? {
                    let observation = DocRecord {
                        key: record.key.clone(),
                        url: record.url.clone(),
                        site: record.site.clone(),
                        kind: RecordKind::Observation,
                        signatures: Vec::new(),
                        evidence: e.observation(),
                        fetched_at: now,
                    };
                    match self.store.insert_if_current(observation)? {
                        Ok(id) => {
                            self.index_stored(id)?;
                            stored_as = Some(id);
                        }
                        // Another worker wrote first: decide again.
                        Err(_) => continue,
                    }
                }
                break (kind, matched, None);
            }
            record.kind = if kind.is_drop() {
                RecordKind::NearDuplicate
            } else {
                RecordKind::Kept
            };
            match self.store.insert_if_current(record)? {
                Ok(id) => {
                    self.index_stored(id)?;
                    break (kind, matched, Some(id));
                }
                Err(back) => record = back,
            }
        };
        // Counted only once nothing can fail any more.
        self.count_verdict(kind);
        if let Some(redirect) = &redirect {
            warnings.push(redirect_warning(redirect));
        }
        Ok(Verdict {
            kind,
            matched,
            contained_in,
            indexed_as,
            stored_as,
            redirect,
            warnings,
        })
    }

    /// The indexed page at the canonical URL of `url`, if any.
    pub(super) fn same_url(&self, url: &str) -> crate::Result<Option<(DocId, Arc<DocRecord>)>> {
        let Some(&id) = self.derived.urls.ids.get(&self.derived.urls.key(url)) else {
            return Ok(None);
        };
        let Some(rec) = self.store.get(id)? else {
            return Ok(None);
        };
        // Confirm: a 64-bit hash collision must not replace another page.
        if rec.url != url
            && self.derived.urls.canonical(&rec.url) != self.derived.urls.canonical(url)
        {
            return Ok(None);
        }
        Ok(Some((id, rec)))
    }

    /// The verdict on a page fetched again unchanged at the URL of an
    /// indexed page ([`Deduper::recrawl`]), `None` for any other page.
    /// A kept page is a duplicate of itself (by URL). An indexed near
    /// duplicate is judged again against the pages indexed before it, so
    /// it is again reported as the copy of the earlier page it matched
    /// (by URL only if that page is gone or no longer matches).
    fn unchanged(
        &mut self,
        record: &DocRecord,
        content: &PageContent,
        policy: Policy,
        now: u64,
    ) -> crate::Result<Option<(VerdictKind, Match)>> {
        let Some((m, was)) = self.recrawl(record, now)? else {
            return Ok(None);
        };
        if was == RecordKind::NearDuplicate {
            let page = (record.site.as_str(), record.url.as_str());
            let again = self.judge(&record.signatures, content, page, policy, now, m.id)?;
            if let Some(copy) = again.matched.filter(|_| again.kind.is_drop()) {
                return Ok(Some((again.kind, copy)));
            }
        }
        Ok(Some((VerdictKind::Duplicate, m)))
    }

    /// Recrawl handling before a page is judged: `Some(match, what the
    /// stored page is)` for an unchanged re-fetch (its fetch time
    /// refreshed), else the old version at the same URL (if any) is removed
    /// and `None` returned.
    fn recrawl(
        &mut self,
        record: &DocRecord,
        now: u64,
    ) -> crate::Result<Option<(Match, RecordKind)>> {
        if !self.config.index.replace_same_url {
            return Ok(None);
        }
        let Some((id, old)) = self.same_url(&record.url)? else {
            return Ok(None);
        };
        let same = old.signatures == record.signatures && old.evidence == record.evidence;
        if same && !self.is_expired(&old, now) {
            if self.store.touch(id, now)? {
                if let Some(queue) = &mut self.derived.expiry {
                    queue.push(Reverse((now, id)));
                }
            }
            let m = Match::by_url(
                Some(id),
                old.key.clone(),
                old.url.clone(),
                MatchBasis::SameUrl,
                "unchanged since last fetch: this URL is indexed with the same signatures".into(),
            );
            return Ok(Some((m, old.kind)));
        }
        self.remove_record(id)?;
        Ok(None)
    }

    /// Returns true if and only if `rec` is past `index.ttl_secs` at `now`.
    fn is_expired(&self, rec: &DocRecord, now: u64) -> bool {
        let ttl = self.config.index.ttl_secs;
        ttl > 0 && rec.fetched_at.saturating_add(ttl) <= now
    }

    /// The stored record `id`, unless it is gone or expired (expired but
    /// not yet swept is as good as gone).
    fn live_record(&self, id: DocId, now: u64) -> crate::Result<Option<Arc<DocRecord>>> {
        Ok(self.store.get(id)?.filter(|rec| !self.is_expired(rec, now)))
    }

    /// Removes every page whose last fetch is `index.ttl_secs` or more
    /// before `now`, from the store and the derived indexes; returns how
    /// many. Cheap when nothing is due (one look at the queue's head).
    fn expire_at(&mut self, now: u64) -> crate::Result<usize> {
        let ttl = self.config.index.ttl_secs;
        let mut removed = 0;
        loop {
            let Some(queue) = &mut self.derived.expiry else {
                return Ok(0);
            };
            let Some(&Reverse((at, id))) = queue.peek() else {
                break;
            };
            if at.saturating_add(ttl) > now {
                break;
            }
            queue.pop();
            // Skip entries of removed pages and of pages fetched again
            // since (their newer entry is still queued).
            let due = self.store.get(id)?.is_some_and(|rec| rec.fetched_at == at);
            if due && self.remove_record(id)? {
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// Removes every page past `index.ttl_secs` now (by the deduper's
    /// clock) and returns how many; [`Deduper::decide`] does this too, so
    /// call it only to expire pages while no page is being checked. Flush
    /// to make the removals durable.
    ///
    /// # Errors
    /// [`crate::Error::Store`] if the document store fails.
    pub fn expire(&mut self) -> crate::Result<usize> {
        self.catch_up()?;
        let now = self.now();
        self.expire_at(now)
    }

    /// The verdict kind and match for this page against the index, the
    /// larger kept page that contains it (a page kept, not a copy: see
    /// [`crate::content::Coverage::Contained`]), and, when candidates
    /// matched but none held this page's own content, a warning saying so.
    fn judge(
        &self,
        signatures: &[Signature],
        content: &PageContent,
        page: (&str, &str),
        policy: Policy,
        now: u64,
        before: Option<DocId>,
    ) -> crate::Result<Judged> {
        let found = self.find_match(signatures, content, page, policy, now, before)?;
        let url_of = |id: DocId| -> crate::Result<(String, String)> {
            Ok(self
                .store
                .get(id)?
                .map(|r| (r.key.clone(), r.url.clone()))
                .unwrap_or_default())
        };
        let rejected = match found.rejected {
            Some((i, id, score, coverage)) => {
                let (_, url) = url_of(id)?;
                Some(format!(
                    "kept although {} matched {url} ({score:.2}): {}",
                    self.detector_name(i),
                    coverage.describe()
                ))
            }
            None => None,
        };
        let contained_in = match found.contained_in {
            Some((i, id, sim, coverage)) => {
                let (key, url) = url_of(id)?;
                Some(Match {
                    id: Some(id),
                    key,
                    url,
                    basis: self.basis_of(i),
                    similarity: coverage.share(),
                    resemblance: sim.resemblance,
                    containment: sim.containment,
                    reason: coverage.describe(),
                    covered: Some(coverage.share()),
                })
            }
            None => None,
        };
        let Some((i, id, kind, sim, judgement, coverage)) = found.copy else {
            return Ok(Judged {
                kind: VerdictKind::Unique,
                matched: None,
                contained_in,
                rejected,
            });
        };
        let (key, url) = url_of(id)?;
        let m = Match {
            id: Some(id),
            key,
            url,
            basis: self.basis_of(i),
            similarity: judgement.score,
            resemblance: sim.resemblance,
            containment: sim.containment,
            reason: format!("{}; {}", judgement.reason, coverage.describe()),
            covered: Some(coverage.share()),
        };
        Ok(Judged {
            kind,
            matched: Some(m),
            contained_in: None,
            rejected: None,
        })
    }

    /// The match basis of chain position `i`; past the chain, the block
    /// index ([`MatchBasis::Content`]).
    fn basis_of(&self, i: usize) -> MatchBasis {
        match self.detectors.get(i) {
            Some(d) => MatchBasis::Detector(d.name().to_owned()),
            None => MatchBasis::Content,
        }
    }

    /// What `analyzed`'s blocks count as if it were decided now: the basis
    /// and, per block (0 = the title, `i + 1` = extracted block `i`),
    /// whether it is template, chrome or compared content.
    pub fn content_roles(
        &self,
        analyzed: &Analyzed,
    ) -> (crate::content::Basis, Vec<(u32, crate::content::Role)>) {
        crate::content::roles(
            &analyzed.content,
            self.derived
                .templates
                .of(&analyzed.doc.site, &analyzed.doc.url),
        )
    }

    /// What the drop policy reads of `analyzed` if it were decided now
    /// (its name, language, main-content size and basis), for
    /// `neardup extract --json`.
    pub fn content_facts(&self, analyzed: &Analyzed) -> crate::content::PageFacts {
        let (site, url) = (&analyzed.doc.site, &analyzed.doc.url);
        let headings = analyzed.extracted.blocks.iter().filter(|b| b.tag == "h1");
        OwnContent::new(&analyzed.content, self.derived.templates.of(site, url), url).facts(
            &analyzed.extracted.title,
            headings.map(|b| b.text.as_str()),
            &analyzed.doc.lang,
        )
    }

    /// Returns true if and only if `matched` names a kept page whose whole
    /// visible text hashes to `visible`.
    fn same_visible(&self, matched: &Option<Match>, visible: u64) -> crate::Result<bool> {
        let Some(m) = matched else {
            return Ok(false);
        };
        let Some(rec) = m.id.map(|id| self.store.get(id)).transpose()?.flatten() else {
            return Ok(false);
        };
        Ok(rec.evidence.visible == visible)
    }

    /// The name of chain position `i`; past the chain, the block index.
    fn detector_name(&self, i: usize) -> &str {
        self.detectors.get(i).map_or(CONTENT, |d| d.name())
    }

    /// Applies writes other processes made to a shared store to the
    /// candidate indexes (nothing to do for a store private to us).
    pub(super) fn catch_up(&mut self) -> crate::Result<()> {
        let Deduper { store, derived, .. } = self;
        store.sync(&mut |change| derived.apply(change))
    }

    /// The candidates of each detector in chain order, then of the block
    /// index, each ruled on by the drop policy ([`Policy::judge`]): the
    /// first that is a copy's original, the best larger page containing
    /// this one, and the best candidate a detector matched whose ruling
    /// kept the page (for the warning of a page kept against its
    /// detectors' word). With `before`, only pages indexed before that id
    /// are candidates (a recrawled page judged again).
    fn find_match(
        &self,
        signatures: &[Signature],
        content: &PageContent,
        (site, url): (&str, &str),
        policy: Policy,
        now: u64,
        before: Option<DocId>,
    ) -> crate::Result<Found> {
        let earlier = |id: DocId| before.is_none_or(|b| id < b);
        // The page's own content, computed at the first candidate (most
        // pages have none).
        let template = self.derived.templates.of(site, url);
        let own = std::cell::OnceCell::new();
        let own = || own.get_or_init(|| OwnContent::new(content, template, url));
        let n = self.detectors.len();
        let mut found = Found::default();
        let mut candidates = Vec::new();
        for (i, (det, sig)) in self.detectors.iter().zip(signatures).enumerate() {
            if sig.is_empty() || !policy.tries(det.as_ref()) {
                continue;
            }
            candidates.clear();
            self.derived.indexes[i].best_candidates(sig, MAX_VERIFY, &earlier, &mut candidates);
            // Every candidate the detector calls alike, strongest first
            // (level, then score, then the earliest page); the first the
            // policy calls a copy's original is the match. Coverage, the
            // costly part, is measured only until then.
            let mut alike = Vec::new();
            for &id in &candidates {
                let Some(rec) = self.live_record(id, now)? else {
                    continue;
                };
                let Some(earlier) = rec.signatures.get(i) else {
                    continue;
                };
                let sim = det.similarity(sig, earlier);
                if let Some(j) =
                    det.classify_in_context(&*self.derived.indexes[i], sig, earlier, sim)
                {
                    alike.push((id, sim, j, rec));
                }
            }
            alike.sort_by(|(a, _, aj, _), (b, _, bj, _)| {
                (bj.level.cmp(&aj.level))
                    .then(bj.score.total_cmp(&aj.score))
                    .then(a.cmp(b))
            });
            for (id, sim, judgement, rec) in alike {
                let Some(url) = kept_url(&rec, &self.kept_urls) else {
                    continue;
                };
                let kept = kept_side(&rec, &url);
                let score = judgement.score;
                let via = Via::Detector { sim, judgement };
                let (coverage, ruling) = policy.judge(own(), content, kept, template, &via);
                match ruling {
                    Ruling::Drop {
                        kind,
                        sim,
                        judgement,
                    } => {
                        found.copy = Some((i, id, kind, sim, judgement, coverage));
                        return Ok(found);
                    }
                    Ruling::ContainedIn => found.contain(i, id, sim, coverage),
                    Ruling::Keep => {
                        if found.rejected.as_ref().is_none_or(|r| score > r.2) {
                            found.rejected = Some((i, id, score, coverage));
                        }
                    }
                }
            }
        }
        // No detector matched a page holding this page's content: look
        // for kept pages sharing its own blocks.
        self.derived
            .blocks
            .candidates(content, template, &mut candidates);
        let mut best: Option<(DocId, Coverage, VerdictKind, Similarity, Judgement)> = None;
        for &id in candidates.iter().filter(|&&id| earlier(id)) {
            let Some(rec) = self.live_record(id, now)? else {
                continue;
            };
            let Some(url) = kept_url(&rec, &self.kept_urls) else {
                continue;
            };
            let kept = kept_side(&rec, &url);
            let (coverage, ruling) = policy.judge(own(), content, kept, template, &Via::Blocks);
            match ruling {
                Ruling::Drop {
                    kind,
                    sim,
                    judgement,
                } if best.as_ref().is_none_or(|b| coverage.share() > b.1.share()) => {
                    best = Some((id, coverage, kind, sim, judgement));
                }
                Ruling::ContainedIn => {
                    let share = coverage.share();
                    let sim = Similarity {
                        resemblance: share,
                        containment: share,
                    };
                    found.contain(n, id, sim, coverage);
                }
                _ => {}
            }
        }
        if let Some((id, coverage, kind, sim, judgement)) = best {
            found.copy = Some((n, id, kind, sim, judgement, coverage));
        }
        Ok(found)
    }

    /// Stores a seeded page as kept (see [`Deduper::insert`]).
    pub(super) fn insert_record(
        &mut self,
        key: String,
        doc: Document,
        signatures: Vec<Signature>,
        evidence: Evidence,
    ) -> crate::Result<DocId> {
        let now = self.now();
        let mut record = kept_record(key, doc, signatures, evidence, now);
        // With a shared store, retry after catching up (see `decide`).
        let id = loop {
            self.catch_up()?;
            // A seed at the URL of an indexed page replaces it, as a
            // recrawl would.
            if self.config.index.replace_same_url {
                if let Some((old, _)) = self.same_url(&record.url)? {
                    self.remove_record(old)?;
                }
            }
            match self.store.insert_if_current(record)? {
                Ok(id) => break id,
                Err(back) => record = back,
            }
        };
        self.index_stored(id)?;
        Ok(id)
    }

    /// Adds a freshly stored record to the derived indexes.
    fn index_stored(&mut self, id: DocId) -> crate::Result<()> {
        if let Some(rec) = self.store.get(id)? {
            self.derived.add(id, &rec);
        }
        Ok(())
    }

    /// Removes a record from the store and the derived indexes.
    pub(super) fn remove_record(&mut self, id: DocId) -> crate::Result<bool> {
        let Some(rec) = self.store.remove(id)? else {
            return Ok(false);
        };
        self.derived.remove(id, &rec);
        Ok(true)
    }
}
