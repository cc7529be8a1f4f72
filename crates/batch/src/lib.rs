//! Batch runs of neardup: every page of some inputs through one
//! [`neardup::Deduper`], and the files a run leaves behind.
//!
//! - [`input`]: pages from directories, manifests, WARC/ARC, HTTP bodies.
//! - [`run`](mod@run): the batch runner (analysis on a thread pool, decisions in
//!   input order, so verdicts do not depend on the thread count).
//! - [`record`]: what a checked page gives the outputs.
//! - [`output`]: verdicts.jsonl, clusters.tsv, clusters.json, config.toml.
//! - [`evidence`]: the page texts the report shows side by side.
//! - [`eval`]: benchmark scoring (pairwise and crawl-order drop P/R/F1).
//! - [`export`]: the index's records as Parquet (feature `parquet`).
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod eval;
pub mod evidence;
#[cfg(feature = "parquet")]
pub mod export;
pub mod input;
pub mod output;
pub mod record;
pub mod run;

pub use record::{PageRecord, Summary};
pub use run::{items_of, open_input, run, run_items, Options};

// The tests' one way to skip (a failure under CI), shared with tests/.
#[cfg(test)]
#[path = "../../../tests/skip.rs"]
mod skip;
