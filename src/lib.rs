//! neardup: near-duplicate detection for web crawlers.
//!
//! A page flows one way through the pipeline:
//!
//! ```text
//! bytes -> decode -> extract (main text) -> text (normalize) -> Document
//!       -> detectors (exact, simhash, chunks, plugins) -> index lookup
//!       -> Verdict (unique / duplicate / near duplicate of X) -> insert if kept
//! ```
//!
//! # Layout
//! - [`decode`]: bytes to UTF-8 text (HTTP charset, BOM, `<meta charset>`, detection).
//! - [`extract`]: HTML to text blocks, title, links, canonical; main content vs boilerplate.
//! - [`text`]: NFKC, lowercase, words, language, stop words, stems.
//! - [`signature`]: the built-in detectors: exact hash, SimHash, content-defined chunks.
//! - [`content`]: a page's own content (its text minus its site's template) and the
//!   coverage test every drop must pass.
//! - [`index`]: candidate indexes (blocked SimHash tables, chunk postings) and the document store.
//! - [`deduper`]: [`Deduper`], the online check: analyze, look up, verify, decide, insert.
//! - [`cluster`]: union-find over accepted matches, per-site aggregation.
//! - [`input`]: pages from directories, manifests and WARC/ARC files.
//! - [`output`]: verdicts.jsonl, clusters.tsv, clusters.json.
//! - [`report`]: `neardup report`: report.html, sites.csv, clusters.csv.
//! - [`eval`]: benchmark scoring (pairwise and crawl-order drop P/R/F1).
//! - [`export`]: the index's records as Parquet (`neardup export`), for offline engines.
//! - [`frontier`]: crawler URLs: canonical form, scope, robots.txt.
//! - [`fetch`]: the crawler's HTTP fetcher: limits, retries, politeness.
//! - [`crawl`]: the crawl loop (frontier, fetch workers, dedup in the loop) and its demo sites.
//! - [`serve`]: the HTTP/JSON API (`neardup serve`) and its load generator.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod batch;
pub mod canonical;
pub mod cluster;
pub mod config;
pub mod content;
pub mod crawl;
pub mod decode;
pub mod deduper;
pub mod error;
pub mod eval;
pub mod evidence;
pub mod export;
pub mod extract;
pub mod fetch;
pub mod frontier;
pub mod index;
pub mod input;
pub mod output;
pub mod record;
pub mod registry;
pub mod report;
pub mod serve;
pub mod signature;
pub mod text;
pub mod verdict;

// The tests' one way to skip (a failure under CI), shared with tests/.
#[cfg(test)]
#[path = "../tests/skip.rs"]
mod skip;

pub use config::Config;
pub use deduper::Deduper;
pub use error::{Error, Result};
pub use neardup_api::{
    CandidateIndex, Detector, DocId, Document, Judgement, Level, Signature, Similarity,
};
pub use verdict::{Match, MatchBasis, Verdict, VerdictKind};
