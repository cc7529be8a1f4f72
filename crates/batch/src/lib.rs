//! Batch runs of neardup: every page of some inputs through one
//! [`neardup::Deduper`], and the files a run leaves behind.
//!
//! - [`input`]: pages from directories, manifests, WARC/ARC, HTTP bodies.
//! - [`run()`]: the batch runner (analysis on a thread pool, decisions in
//!   input order, so verdicts do not depend on the thread count).
//! - [`PageRecord`], [`Summary`]: what a checked page and a run give the outputs.
//! - [`OutputDir`], [`Sink`]: verdicts.jsonl, clusters.tsv, clusters.json, config.toml.
//! - [`EvidenceSpool`]: the page texts the report shows side by side.
//! - [`eval`]: benchmark scoring (pairwise and crawl-order drop P/R/F1).
//! - [`export`]: the index's records as Parquet (feature `parquet`).
#![deny(missing_docs)]
#![forbid(unsafe_code)]

// Three coherent sub-APIs stay modules (the readers, benchmark scoring,
// the Parquet export); the rest is one flat list.
pub mod eval;
mod evidence;
#[cfg(feature = "parquet")]
pub mod export;
pub mod input;
mod output;
mod record;
mod run;

pub use evidence::{
    needed_positions, read_texts, trim_blocks, EvidenceSpool, PageText, TextBlock, MAX_MEMBERS,
    MAX_TEXT_BYTES,
};
pub use output::{
    write_config, AtomicFile, ClusterSink, ContainedIn, OutputDir, PartialFile, Sink, VerdictLine,
    VerdictLines, CONFIG_TOML, VERDICTS_FORMAT,
};
pub use record::{block_roles, PageRecord, Summary};
pub use run::{items_of, open_input, run, run_items, Items, Options};

// The tests' one way to skip (a failure under CI), shared with tests/.
#[cfg(test)]
#[path = "../../../tests/skip.rs"]
mod skip;
