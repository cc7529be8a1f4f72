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
//! # The API
//! One flat list of items (the modules are private):
//! - the check: [`Deduper`] (`check`, `analyze` + `decide`, `remove`,
//!   `open` / `open_redis` / `open_at` for a persistent index),
//!   [`Analyzer`] (the analysis half, shared by threads), [`SharedDeduper`];
//!   the answer: [`Verdict`], [`VerdictKind`], [`Match`], [`MatchBasis`];
//! - configuration: [`Config`] and its sections, each validated by its
//!   owner ([`ExtractConfig`], [`TextConfig`], [`SimhashConfig`],
//!   [`ChunkConfig`], [`DecideConfig`], [`IndexConfig`],
//!   [`CanonicalConfig`]); URL identity: [`Canonicalizer`];
//! - detectors: the built-ins ([`ExactDetector`], [`SimhashDetector`],
//!   [`ChunkDetector`]) behind neardup-api's [`Detector`] trait, a
//!   [`Registry`] of them by name (with feature `plugins`, `plugins::registry`
//!   adds the plugin crates);
//! - document stores: [`DocStore`], [`MemoryStore`], `RedbStore` (feature
//!   `redb`, the default), `RedisStore` (feature `redis`), [`IndexLocation`];
//! - clusters of matches: [`assign`], [`summarize`], [`ClusterReport`].
//!
//! Inside (for contributors): `config`, `canonical`, `content` (a page's
//! own content and the coverage test every drop must pass), `signature`,
//! `index`, `registry`, `deduper`, `verdict`, `cluster`; [`html`] and [`text`]
//! are the crates below, `neardup-html` and `neardup-text`.
//!
//! Batch runs, output files, the report, the crawler and the HTTP service
//! are the crates `neardup-batch`, `neardup-report`, `neardup-crawl` and
//! `neardup-serve`, above this one (ARCHITECTURE.md).
#![deny(missing_docs)]
#![forbid(unsafe_code)]

// The modules are private: what a user of the crate names is re-exported
// below, one flat list (as tantivy and ripgrep's crates do), so the module
// layout can change without breaking callers.
mod canonical;
mod cluster;
mod compare;
mod config;
mod content;
mod deduper;
mod derived;
mod error;
mod hashsort;
mod identity;
mod index;
#[cfg(feature = "plugins")]
pub mod plugins;
mod policy;
mod registry;
mod shared;
mod signature;
mod verdict;

/// Decoding and extraction: the `neardup-html` crate.
pub use neardup_html as html;
/// Text normalization: the `neardup-text` crate.
pub use neardup_text as text;

// The tests' one way to skip (a failure under CI), shared with tests/.
#[cfg(test)]
#[path = "../../../tests/skip.rs"]
mod skip;

// The check.
pub use canonical::site_of;
pub use compare::{Comparable, JoinKeys, PairMatch};
pub use deduper::{store_identity, Analyzed, Analyzer, Clock, Deduper, Stats, CONTENT, SAME_URL};
pub use error::{Error, Result, StoreError};
pub use shared::SharedDeduper;
pub use verdict::{Match, MatchBasis, Redirect, RedirectKind, Verdict, VerdictCounts, VerdictKind};

// Configuration: the core's `Config` and each section (owned by the module
// or crate that validates it).
pub use canonical::{CanonicalConfig, TrailingSlash};
pub use config::{Config, DecideConfig};
pub use index::IndexConfig;
pub use neardup_html::{ExtractConfig, ExtractMode};
pub use neardup_text::TextConfig;
pub use signature::{ChunkConfig, Chunker, SimhashConfig, SimhashWeights};

// URL identity.
pub use canonical::{CanonError, Canonicalizer};

// Detectors and their indexes (the plugin seam is neardup-api's traits).
pub use index::{ChunkIndex, ExactIndex, SimhashIndex};
pub use neardup_api::{
    CandidateIndex, Detector, DocId, Document, Judgement, Level, Signature, Similarity,
};
pub use registry::{DetectorFactory, Registry};
pub use signature::{ChunkDetector, ExactDetector, GearChunker, SimhashDetector};

// Document stores: where kept pages live.
pub use identity::StoreIdentity;
#[cfg(feature = "redis")]
pub use index::RedisStore;
pub use index::{
    unix_now, Change, DocRecord, DocStore, IndexLocation, MemoryStore, RecordKind, RedisLocation,
};
#[cfg(feature = "redb")]
pub use index::{CacheStats, RedbStore};

// What the outputs show of a decision, and clusters of matches.
pub use cluster::{
    assign, summarize, ClusterMember, ClusterReport, ClusterSummary, Member, SiteSummary, UnionFind,
};
pub use content::{title_name, Evidence, PageFacts, Role};

// The README's library example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
