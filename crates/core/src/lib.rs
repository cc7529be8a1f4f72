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
//! - [`config`]: the core's configuration; each section is validated by the
//!   module (or crate) that owns it.
//! - [`decode`](mod@decode), [`extract`](mod@extract) (re-exported from `neardup-html`): bytes to
//!   UTF-8, HTML to text blocks, title, links; main content vs boilerplate.
//! - [`text`] (re-exported `neardup-text`): NFKC, lowercase, words,
//!   language, stop words, stems.
//! - [`canonical`]: URL identity (a URL's key).
//! - [`content`]: a page's own content (its text minus its site's
//!   template) and the coverage test every drop must pass.
//! - [`signature`]: the built-in detectors: exact hash, SimHash,
//!   content-defined chunks.
//! - [`index`]: candidate indexes and the document store (memory; redb
//!   with feature `redb`, the default; Redis with feature `redis`).
//! - [`registry`]: detector names to constructors (the plugin crates with
//!   feature `plugins`, in `plugins`).
//! - [`deduper`]: [`Deduper`], the online check: analyze, look up, verify,
//!   decide, insert; `SharedDeduper` for threads and (feature `tokio`)
//!   async tasks.
//! - [`verdict`], [`cluster`]: what a check answers; union-find over
//!   accepted matches.
//!
//! Batch runs, output files, the report, the crawler and the HTTP service
//! are the crates `neardup-batch`, `neardup-report`, `neardup-crawl` and
//! `neardup-serve`, above this one (ARCHITECTURE.md).
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod canonical;
pub mod cluster;
pub mod config;
pub mod content;
pub mod deduper;
pub mod error;
pub mod index;
#[cfg(feature = "plugins")]
pub mod plugins;
pub mod registry;
pub mod signature;
pub mod verdict;

/// Decoding and extraction (the `neardup-html` crate).
pub use neardup_html::{decode, extract};
/// Text normalization (the `neardup-text` crate).
pub use neardup_text as text;

// The tests' one way to skip (a failure under CI), shared with tests/.
#[cfg(test)]
#[path = "../../../tests/skip.rs"]
mod skip;

pub use config::Config;
pub use deduper::Deduper;
pub use error::{Error, Result};
pub use neardup_api::{
    CandidateIndex, Detector, DocId, Document, Judgement, Level, Signature, Similarity,
};
pub use verdict::{Match, MatchBasis, Verdict, VerdictKind};

// The README's library example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
