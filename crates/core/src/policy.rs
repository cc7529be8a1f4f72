//! The drop policy: when a kept page that the detectors (or the block
//! index) found may drop a new page, in one place.
//!
//! A detector match is only a candidate. [`Policy::judge`] rules on one
//! candidate: who the page is (its language, its name), how much of its
//! own content the candidate holds, and whether the candidate is a copy's
//! original or an all-in-one page that contains it. Every path that drops
//! a page by its content calls it: [`crate::Deduper::decide`] (the
//! library, `dedup`, `crawl`, `serve`) and [`crate::Deduper::compare`]
//! (offline joins such as the Python package's Spark job), so a page is
//! judged the same way online and offline.
//!
//! One short-page rule: a page with fewer than `decide.min_terms` terms
//! is too small to measure, so only exactness drops it: the exact hash
//! (no other detector tries it, [`Policy::tries`]), or, through the block
//! index, an identical visible text or the kept page itself under another
//! folder ([`Coverage::TooSmall`]); never a share of its content.

use neardup_api::{Detector, Judgement, Level, Similarity};

use crate::config::DecideConfig;
use crate::content::{Coverage, Kept, OwnContent, PageContent, SiteTemplate};
use crate::verdict::VerdictKind;

/// The least coverage of a page found only through its blocks: the
/// detectors found its main text unlike the kept page's, so the evidence
/// must be stronger (shingles, not words, and at least this share), or
/// the page an article that extends the kept one, both ways named alike
/// ([`crate::content::thresholds::EXTENDS_MIN_HOLDS`]: a story's page
/// with a table its print view leaves out, whose main text the detectors
/// find too unlike).
pub(crate) const FALLBACK_MIN_COVERAGE: f64 = 0.9;

/// A detector match with at least this resemblance is strong: the two
/// main texts are about the same size and mostly the same words. Below it
/// one holds much more than the other (a chapter and its manual's print
/// view), and an article must be named like the kept page even on a site
/// whose title template is not known yet.
pub(crate) const STRONG_RESEMBLANCE: f64 = 0.8;

/// How a candidate was found.
#[derive(Clone, Debug)]
pub(crate) enum Via {
    /// Detector `index` of the chain called the pages alike.
    Detector {
        /// Its similarity of the two pages.
        sim: Similarity,
        /// Its judgement (level, score, reason).
        judgement: Judgement,
    },
    /// The block index: the kept page shares the page's own blocks.
    Blocks,
}

/// What [`Policy::judge`] rules on one candidate.
#[derive(Clone, Debug)]
pub(crate) enum Ruling {
    /// A copy: drop the page as this kind, with this score.
    Drop {
        /// Duplicate or near duplicate.
        kind: VerdictKind,
        /// The detector's (or the fallback's) similarity.
        sim: Similarity,
        /// The detector's (or the fallback's) judgement.
        judgement: Judgement,
    },
    /// The page's content is in the candidate, which is much larger: keep
    /// the page and name the candidate as `contained_in`.
    ContainedIn,
    /// Not a copy (too little of its content there, another name or
    /// language): keep the page.
    Keep,
}

/// The drop policy for one page, from `[decide]`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Policy {
    /// `decide.min_coverage`.
    min_coverage: f64,
    /// The page has fewer than `decide.min_terms` terms.
    short: bool,
}

impl Policy {
    /// The policy for a page of `terms` terms.
    pub(crate) fn new(decide: &DecideConfig, terms: usize) -> Policy {
        Policy {
            min_coverage: decide.min_coverage,
            short: terms < decide.min_terms,
        }
    }

    /// Returns true if and only if the page is short (see the module docs).
    pub(crate) fn short(&self) -> bool {
        self.short
    }

    /// Whether `detector` may drop this page: a short page only by a
    /// detector that handles short pages (the exact hash).
    pub(crate) fn tries(&self, detector: &dyn Detector) -> bool {
        !self.short || detector.handles_short_pages()
    }

    /// Rules on one candidate `kept` found `via` a detector or the block
    /// index, for the page whose content is `page` (`own`: its own content
    /// under its site's `template`). Also returns the coverage measured, for
    /// the verdict's reason.
    pub(crate) fn judge(
        &self,
        own: &OwnContent,
        page: &PageContent,
        kept: Kept<'_>,
        template: SiteTemplate<'_>,
        via: &Via,
    ) -> (Coverage, Ruling) {
        let strict = matches!(via, Via::Blocks);
        let min_coverage = if strict {
            self.min_coverage.max(FALLBACK_MIN_COVERAGE)
        } else {
            self.min_coverage
        };
        let weak = match via {
            Via::Detector { sim, .. } => sim.resemblance < STRONG_RESEMBLANCE,
            Via::Blocks => true,
        };
        let coverage = own.coverage_of(page, kept, template, strict, weak);
        // Containment keeps the page and only names the larger one, so
        // the fallback's stricter bar for a drop does not apply to it.
        if coverage.contained(self.min_coverage) {
            return (coverage, Ruling::ContainedIn);
        }
        // A short page found through its blocks: only an identical or
        // mirrored page (not a measured share) drops it. A detector that
        // tries a short page is the exact hash, exactness itself.
        let measured_short = self.short && strict && matches!(coverage, Coverage::Measured { .. });
        if measured_short || !coverage.allows_drop(min_coverage) {
            return (coverage, Ruling::Keep);
        }
        let ruling = match via {
            Via::Detector { sim, judgement } => Ruling::Drop {
                kind: kind_of(judgement.level),
                sim: *sim,
                judgement: judgement.clone(),
            },
            Via::Blocks => {
                let identical = kept.evidence.visible == page.visible;
                let (sim, judgement) = fallback_judgement(&coverage, identical);
                Ruling::Drop {
                    kind: kind_of(judgement.level),
                    sim,
                    judgement,
                }
            }
        };
        (coverage, ruling)
    }
}

/// The verdict kind of a detector's (or the fallback's) level.
pub(crate) fn kind_of(level: Level) -> VerdictKind {
    match level {
        Level::Duplicate => VerdictKind::Duplicate,
        Level::NearDuplicate => VerdictKind::NearDuplicate,
    }
}

/// What the block fallback says of a page whose own blocks are covered
/// (`coverage`) by a kept page: a duplicate when their whole visible text
/// is `identical`, else a near duplicate; scored by the coverage.
fn fallback_judgement(coverage: &Coverage, identical: bool) -> (Similarity, Judgement) {
    let share = coverage.share();
    let judgement = Judgement {
        level: if identical {
            Level::Duplicate
        } else {
            Level::NearDuplicate
        },
        score: share,
        reason: if identical {
            "identical visible text".into()
        } else {
            "shares its own blocks with the kept page".into()
        },
    };
    let sim = Similarity {
        resemblance: share,
        containment: share,
    };
    (sim, judgement)
}
