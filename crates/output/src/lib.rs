//! The files a neardup run leaves behind, written and read: what `dedup`
//! and `crawl` write, and what `report` reads.
//!
//! - [`PageRecord`], [`Summary`], [`InputWarning`]: what a checked page,
//!   a finished run and an unreadable input record give the outputs.
//! - [`Sink`]: what a run pushes its pages into, in processing order.
//! - [`VerdictLines`], [`VerdictLine`], [`ContainedIn`]: `verdicts.jsonl`,
//!   written and parsed ([`VERDICTS_FORMAT`]).
//! - [`ClusterSink`]: `clusters.tsv` and `clusters.json`, and the cluster
//!   assignment for benchmark scoring.
//! - [`EvidenceSpool`], [`read_texts`], [`read_text_lines`], [`PageText`], [`TextBlock`]:
//!   `texts.jsonl`, the page texts the report shows side by side.
//! - [`OutputDir`]: all of them in one directory.
//! - [`AtomicFile`], [`PartialFile`]: files that appear under their final
//!   name only when complete.
//! - [`write_config`], [`CONFIG_TOML`]: the run's `config.toml`, for the
//!   report.
//!
//! Nothing here reads inputs or decides pages: the batch runner
//! (`neardup-batch`) and the crawler (`neardup-crawl`) produce the records
//! and push them into the sinks; the report (`neardup-report`) reads the
//! files.
//!
//! An [`OutputDir`] writes the cluster files and `texts.jsonl` to a
//! temporary file beside them and renames them into place at the end, so
//! readers (and a crash) never see a half-written one; `verdicts.jsonl` is
//! appended as `verdicts.jsonl.partial` as the run goes (flushed at each
//! [`Sink::checkpoint`]) and renamed to `verdicts.jsonl` at the end, so a
//! killed run's verdicts can be read.
//!
//! # File formats
//! `verdicts.jsonl` (format 1, [`VERDICTS_FORMAT`]): one [`VerdictLine`]
//! per page, in processing order: the page (`doc_id`, `url`, `site`,
//! `bytes`, `title`) and its [`Verdict`](neardup::Verdict) flattened
//! (`verdict` is `kind`; `of`, `of_url`, `similarity`, `resemblance`,
//! `containment`, `covered`, `detector`, `reason` are the `matched` fields;
//! `indexed`, `redirect_to` and `redirect_kind` (a redirect stub's
//! `redirect`), `contained_in` (`of`, `of_url`, `covered`, `reason` of the
//! verdict's `contained_in`: a kept page inside a much larger earlier page)
//! and `warnings`). The mapping is [`VerdictLine::of_page`] and
//! `docs/verdicts.md`; within format 1 fields are only ever added. An input
//! record that could not be read gives a line with `"verdict": "error"`,
//! `doc_id` null, its `location` and the message in `warnings`.
//!
//! `clusters.tsv`: header `doc_id<TAB>cluster_id`, then every page exactly
//! once in processing order. Tab-separated with RFC 4180 quoting: a field
//! holding a tab, a newline, a carriage return or a double quote is written
//! in double quotes, its quotes doubled (what Python's `csv` with the
//! `excel-tab` dialect, pandas `read_csv(sep="\t")` and the `csv` crate
//! read); other fields as they are; `cluster_id` is the doc_id of the
//! cluster's representative (its first page processed), so ids do not
//! depend on threads or runs. The scorer reads it directly.
//!
//! `clusters.json`: totals, per-site counts with the clusters inside the
//! site, clusters spanning several sites, and unreadable records.
//!
//! `texts.jsonl`: the extracted blocks of the clustered pages, for the
//! report's side-by-side view; see [`EvidenceSpool`].
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod clusters;
mod dir;
mod evidence;
mod files;
mod json;
mod record;
mod sink;
#[cfg(test)]
mod testing;
mod verdicts;

pub use clusters::ClusterSink;
pub use dir::{write_config, OutputDir, CONFIG_TOML};
pub use evidence::{
    needed_positions, read_text_lines, read_texts, trim_blocks, EvidenceSpool, PageText,
    PageTextLine, TextBlock, MAX_MEMBERS, MAX_TEXT_BYTES,
};
pub use files::{AtomicFile, PartialFile};
pub use record::{block_roles, InputWarning, PageRecord, Summary};
pub use sink::Sink;
pub use verdicts::{ContainedIn, VerdictLine, VerdictLines, VERDICTS_FORMAT};
