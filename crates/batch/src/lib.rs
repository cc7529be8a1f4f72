//! Batch runs of neardup: every page of some inputs through one
//! [`neardup::Deduper`], its outcomes pushed into the output files of
//! `neardup-output`.
//!
//! - [`input`]: pages from directories, manifests, WARC/ARC, HTTP bodies.
//! - [`run()`]: the batch runner (analysis on a thread pool, decisions in
//!   input order, so verdicts do not depend on the thread count).
//! - [`BatchSink`]: a `neardup_output::Sink` also told of unreadable input
//!   records.
//! - [`eval`]: benchmark scoring (pairwise and crawl-order drop P/R/F1).
//! - [`export`]: the index's records as Parquet (feature `parquet`).
#![deny(missing_docs)]
#![forbid(unsafe_code)]

// Three coherent sub-APIs stay modules (the readers, benchmark scoring,
// the Parquet export); the rest is one flat list.
pub mod eval;
#[cfg(feature = "parquet")]
pub mod export;
pub mod input;
mod run;
mod sink;

pub use run::{items_of, open_input, run, run_items, Items, Options};
pub use sink::BatchSink;

// The tests' one way to skip (a failure under CI), shared with tests/.
#[cfg(test)]
#[path = "../../../tests/skip.rs"]
mod skip;
