//! The files a neardup run leaves behind, written and read: what `dedup`
//! and `crawl` write, and what `report` reads.
//!
//! - [`PageRecord`], [`Summary`], [`InputWarning`]: what a checked page,
//!   a finished run and an unreadable input record give the outputs.
//! - [`Sink`]: what a run pushes its pages into, in processing order
//!   ([`VerdictLines`], [`ClusterSink`], [`OutputDir`]).
//! - [`OutputDir`]: `verdicts.jsonl`, `clusters.tsv`, `clusters.json` and
//!   `texts.jsonl` in one directory, renamed into place at the end.
//! - [`VerdictLine`]: one line of `verdicts.jsonl`, written and parsed.
//! - [`EvidenceSpool`], [`read_texts`]: the page texts the report shows
//!   side by side (`texts.jsonl`).
//! - [`AtomicFile`], [`PartialFile`]: files that appear under their final
//!   name only when complete.
//! - [`write_config`]: the run's `config.toml`, for the report.
//!
//! Nothing here reads inputs or decides pages: the batch runner
//! (`neardup-batch`) and the crawler (`neardup-crawl`) produce the records,
//! the report (`neardup-report`) reads the files.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod evidence;
mod output;
mod record;

pub use evidence::{
    needed_positions, read_texts, trim_blocks, EvidenceSpool, PageText, TextBlock, MAX_MEMBERS,
    MAX_TEXT_BYTES,
};
pub use output::{
    write_config, AtomicFile, ClusterSink, ContainedIn, OutputDir, PartialFile, Sink, VerdictLine,
    VerdictLines, CONFIG_TOML, VERDICTS_FORMAT,
};
pub use record::{block_roles, InputWarning, PageRecord, Summary};
