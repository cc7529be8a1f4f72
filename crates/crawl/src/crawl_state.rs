//! [`CrawlState`]: the frontier and decider part of a checkpoint, as
//! `crawl-state.json` stores it (taken and restored in `state.rs`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::summary::CrawlSummary;

/// The frontier and decider part of a checkpoint: each part is taken and
/// restored by its owner (`Frontier::to_state`, `Decider::to_state`), and
/// stored flat (the JSON keys of `crawl-state.json` are the parts' fields).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CrawlState {
    /// The frontier's part.
    #[serde(flatten)]
    pub frontier: FrontierState,
    /// The decider's part.
    #[serde(flatten)]
    pub decider: DeciderState,
    /// Counters so far (over every run of this crawl).
    pub summary: CrawlSummary,
}

/// What a resumed crawl's frontier starts from.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct FrontierState {
    /// URLs to fetch (as linked: request URLs, their keys are derived)
    /// with their depth and the duplicates in a row before them
    /// (`crawl.scope.duplicate_hops`), as `[url, depth, dups]`: those in
    /// flight first (dispatch order), then the queue, all hosts merged in
    /// the order URLs were queued.
    pub queue: Vec<(String, u32, u32)>,
    /// Keys (canonical URLs) ever queued (sorted).
    pub seen: Vec<String>,
    /// Keys of redirect targets fetched (sorted).
    pub targets: Vec<String>,
    /// Links not crawled, by reason.
    pub skipped: BTreeMap<String, u64>,
    /// The start's sitemaps were read and their URLs queued (a crawl
    /// stopped while reading them reads them again on resume).
    #[serde(default)]
    pub sitemaps_read: bool,
    /// Keys queued as a redirect stub's target -> stubs in a row that led
    /// there (bounded by `crawl.fetch.max_redirects`).
    #[serde(default)]
    pub stub_hops: BTreeMap<String, u32>,
}

/// What a resumed crawl's decider starts from.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct DeciderState {
    /// Page key -> position in `verdicts.jsonl` order.
    pub positions: BTreeMap<String, usize>,
    /// Canonical URL fetched -> key of the page.
    pub fetched: BTreeMap<String, String>,
    /// Pages decided.
    pub records: usize,
    /// One past the highest index id given to a decided page.
    pub watermark: u32,
}
