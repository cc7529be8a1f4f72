//! What a crawl counted ([`CrawlSummary`]) and how the CLI prints it.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Counts of a finished (or interrupted) crawl.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CrawlSummary {
    /// Lines written to `pages.jsonl` (fetch attempts and robots skips).
    pub attempts: u64,
    /// Fetches that failed without a response.
    pub fetch_errors: u64,
    /// URLs not fetched because robots.txt disallows them or is
    /// unreachable.
    pub robots_disallowed: u64,
    /// Pages checked for duplicates (2xx HTML answers).
    pub pages: u64,
    /// Their verdicts by kind (`duplicates`: by content, `canonical` or
    /// `redirect`).
    #[serde(flatten)]
    pub verdicts: neardup::VerdictCounts,
    /// Duplicates by `<link rel=canonical>`.
    pub canonical_duplicates: u64,
    /// Links not crawled, by reason (`off_site`, `too_deep`,
    /// `frontier_full`, `rel_nofollow`, `meta_nofollow`, ...). Links to
    /// URLs already seen are not counted.
    pub skipped: BTreeMap<String, u64>,
    /// Final HTTP status of every answer (after redirects), by code.
    #[serde(default)]
    pub statuses: BTreeMap<u16, u64>,
    /// Fetches that failed without a response, by kind (`connect`, `dns`,
    /// `read_timeout`, `redirect_loop`, ..., `internal`).
    #[serde(default)]
    pub errors: BTreeMap<String, u64>,
    /// 2xx HTML pages not checked because a robots directive says
    /// `noindex` (see `manners`).
    #[serde(default)]
    pub noindex: u64,
    /// Pages whose links were not followed because a robots directive
    /// says `nofollow`.
    #[serde(default)]
    pub nofollow_pages: u64,
    /// 2xx HTML pages that were redirect stubs (meta refresh or one-link
    /// page, `extract.redirect_stubs`): not checked, their target followed
    /// as a redirect hop.
    #[serde(default)]
    pub redirect_stubs: u64,
    /// Sitemap files read (see [`crate::frontier::sitemap`]).
    #[serde(default)]
    pub sitemap_files: u64,
    /// Page URLs the sitemaps listed (before scope and the seen set).
    #[serde(default)]
    pub sitemap_urls: u64,
    /// Sitemaps that could not be read, or only in part, and entries
    /// dropped (over `crawl.sitemaps.max_urls`, not http(s)).
    #[serde(default)]
    pub sitemap_errors: u64,
    /// Body bytes fetched.
    pub bytes: u64,
    /// Wall time.
    pub elapsed: Duration,
    /// The crawl stopped on the shutdown signal, not on an empty frontier.
    pub interrupted: bool,
}

impl CrawlSummary {
    /// Answers with a 4xx or 5xx final status (fetch errors apart).
    pub fn http_errors(&self) -> u64 {
        self.statuses
            .iter()
            .filter(|(code, _)| **code >= 400)
            .map(|(_, n)| n)
            .sum()
    }
}

/// The crawl summary as the CLI prints it: counts, then the HTTP statuses
/// by class (and code), then what went wrong: HTTP error answers, fetch
/// errors by kind, robots.txt refusals. A crawl whose answers were mostly
/// 404 says so; "0 fetch errors" only means every request got an answer.
pub fn format_summary(s: &CrawlSummary) -> Vec<String> {
    let mut lines = vec![format!(
        "{} fetches, {} pages checked: {} unique, {} duplicates ({} by rel=canonical), {} near duplicates, {} noindex, {} redirect stubs in {:.2}s{}",
        s.attempts,
        s.pages,
        s.verdicts.unique,
        s.verdicts.duplicates,
        s.canonical_duplicates,
        s.verdicts.near_duplicates,
        s.noindex,
        s.redirect_stubs,
        s.elapsed.as_secs_f64(),
        if s.interrupted {
            " (interrupted: continue with --resume)"
        } else {
            ""
        }
    )];
    let mut classes: BTreeMap<u16, (u64, Vec<String>)> = BTreeMap::new();
    for (&code, &n) in &s.statuses {
        let class = classes.entry(code / 100).or_default();
        class.0 += n;
        class.1.push(format!("{code} {n}"));
    }
    if !classes.is_empty() {
        let parts: Vec<String> = classes
            .iter()
            .map(|(class, (n, codes))| format!("{class}xx {n} ({})", codes.join(", ")))
            .collect();
        lines.push(format!("HTTP status: {}", parts.join(", ")));
    }
    let http_errors = s.http_errors();
    if s.sitemap_files > 0 || s.sitemap_errors > 0 {
        lines.push(format!(
            "sitemaps: {} files read, {} URLs listed, {} problems (see the warnings)",
            s.sitemap_files, s.sitemap_urls, s.sitemap_errors
        ));
    }
    let kinds: Vec<String> = s.errors.iter().map(|(k, n)| format!("{k} {n}")).collect();
    lines.push(format!(
        "errors: {http_errors} HTTP 4xx/5xx answers, {} fetch errors{}, {} disallowed by robots.txt",
        s.fetch_errors,
        if kinds.is_empty() {
            String::new()
        } else {
            format!(" ({})", kinds.join(", "))
        },
        s.robots_disallowed
    ));
    lines
}

pub(crate) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
