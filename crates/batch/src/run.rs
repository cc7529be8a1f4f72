//! Batch runs: every page of some inputs through one [`Deduper`], outcomes
//! pushed to [`BatchSink`]s.
//!
//! The run reads pages in input order on a reader thread, analyzes them in
//! windows of [`Options::window`] pages on a rayon pool of
//! [`Options::threads`] threads, and decides each window sequentially in
//! input order while the next one is analyzed. Decisions therefore never
//! depend on the thread count or the window. A page's body is freed as
//! soon as it is analyzed, so at most about two windows of bodies (read
//! ahead, being analyzed) are in memory whatever the size of the input.
//! Decided pages reach the sinks after each commit of the index, every
//! [`Options::commit_every`] pages.
//!
//! # What gets reported
//! - Every page read becomes exactly one [`PageRecord`] (unique, duplicate
//!   or near duplicate, with its warnings), also pages that are empty,
//!   binary or undecodable: they are kept as unique pages with a warning, so
//!   every page of the input appears in `clusters.tsv` exactly once.
//! - A record that could not be read at all (a manifest line naming a
//!   missing file, a truncated WARC record) has no page: it reaches the
//!   sinks as [`BatchSink::input_error`], in input order between the pages.
//!   `verdicts.jsonl` writes it as a line with `"verdict": "error"`.
//! - Two pages with the same key would make `clusters.tsv` ambiguous: a
//!   repeated key gets a `#2`, `#3`... suffix and a warning.
//!
//! [`BatchSink`]: crate::BatchSink

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Instant;

use neardup_api::DocId;
use rayon::prelude::*;

use crate::input::Item;
use crate::sink::BatchSink;
use neardup::{Analyzed, Deduper};
use neardup_output::{block_roles, InputWarning, PageRecord, Summary};

/// How a batch run uses the machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Analysis threads; 0 means one per available core.
    pub threads: usize,
    /// Pages analyzed per parallel window; 0 picks
    /// [`Options::PAGES_PER_THREAD`] per analysis thread. Bounds memory
    /// (about two windows of bodies are alive at once) while keeping every
    /// thread busy.
    pub window: usize,
    /// Pages decided between two commits of the index (and checkpoints of
    /// the sinks, which hear of a page only once it is committed). A
    /// commit of a persistent index costs a disk sync, so it is not made
    /// per analysis window.
    pub commit_every: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            threads: 0,
            window: 0,
            commit_every: 256,
        }
    }
}

impl Options {
    /// The analysis window per thread when [`Options::window`] is 0. Small
    /// enough that the bodies read for one window fit in the memory the
    /// previous windows freed (a single-core run of 256-page windows
    /// faulted in every page's buffer afresh), large enough that the
    /// decide thread and the analysis threads both stay busy.
    pub const PAGES_PER_THREAD: usize = 16;

    /// Pages analyzed per window.
    pub fn effective_window(&self) -> usize {
        if self.window > 0 {
            self.window
        } else {
            Self::PAGES_PER_THREAD * self.effective_threads()
        }
    }

    /// The number of analysis threads actually used.
    pub fn effective_threads(&self) -> usize {
        if self.threads > 0 {
            self.threads
        } else {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        }
    }
}

/// A stream of input items; `Err` aborts the run (an input that cannot be
/// opened as a whole), per-record problems are [`Item::Warning`]s.
pub type Items = Box<dyn Iterator<Item = neardup::Result<Item>> + Send>;

/// Opens one input (directory, manifest `.tsv`, WARC/ARC).
///
/// # Errors
/// If the input as a whole cannot be opened.
pub fn open_input(path: &Path) -> neardup::Result<Box<dyn Iterator<Item = Item> + Send>> {
    crate::input::open(path)
}

/// The pages of several inputs, one after the other. Each input is opened
/// when the previous one is exhausted, so only one is open at a time.
///
/// # Errors
/// Immediately if an input does not exist (before any page is processed);
/// later open failures come out of the iterator.
pub fn items_of(inputs: &[PathBuf]) -> neardup::Result<Items> {
    for path in inputs {
        std::fs::metadata(path).map_err(|e| neardup::Error::io(path, e))?;
    }
    let inputs = inputs.to_vec();
    Ok(Box::new(inputs.into_iter().flat_map(|path| {
        let opened: Box<dyn Iterator<Item = neardup::Result<Item>> + Send> = match open_input(&path)
        {
            Ok(items) => Box::new(items.map(Ok)),
            Err(e) => Box::new(std::iter::once(Err(e))),
        };
        opened
    })))
}

/// Runs every page of `inputs` through `deduper`, pushing outcomes to
/// `sink` in input order. See [`run_items`].
///
/// # Errors
/// If an input cannot be opened, a sink fails, or the thread pool cannot
/// be built.
pub fn run(
    inputs: &[PathBuf],
    deduper: &mut Deduper,
    options: &Options,
    sink: &mut dyn BatchSink,
) -> neardup::Result<Summary> {
    run_items(items_of(inputs)?, deduper, options, sink)
}

/// Runs a stream of items through `deduper`: analysis in parallel windows,
/// decisions sequential in stream order. Calls `sink.begin`, then
/// `page`/`input_error` per item in order, then `finish` with the summary.
///
/// # Errors
/// The first error of the stream, of the document store or of a sink
/// stops the run; `finish` is
/// not called then, so file sinks leave no (half-written) output behind.
pub fn run_items(
    items: Items,
    deduper: &mut Deduper,
    options: &Options,
    sink: &mut dyn BatchSink,
) -> neardup::Result<Summary> {
    let start = Instant::now();
    let threads = options.effective_threads();
    let window = options.effective_window();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("neardup-analyze-{i}"))
        .build()
        .map_err(|e| {
            neardup::Error::runtime(
                "analysis thread pool",
                format!("cannot start {threads} threads: {e}"),
            )
        })?;
    let mut run = Run {
        commit_every: options.commit_every.max(1),
        ..Run::default()
    };
    sink.begin()?;
    let analyzer = deduper.analyzer();
    let pool = &pool;
    std::thread::scope(|scope| -> neardup::Result<()> {
        // The reader runs one window ahead: while a window is analyzed, the
        // next is read (WARC decompression is real CPU work).
        let (tx, rx) = mpsc::sync_channel::<neardup::Result<Item>>(window);
        scope.spawn(move || {
            for item in items {
                let stop = item.is_err();
                if tx.send(item).is_err() || stop {
                    break;
                }
            }
        });
        let mut rx = rx.into_iter();
        // Window `k + 1` is analyzed on the pool while window `k` is
        // decided on this thread: deciding is sequential, and would
        // otherwise leave every analysis thread idle.
        let mut pending: Option<std::thread::ScopedJoinHandle<'_, Vec<Ready>>> = None;
        loop {
            let mut batch: Vec<Item> = Vec::with_capacity(window);
            let mut failed = None;
            for item in rx.by_ref() {
                match item {
                    Ok(item) => batch.push(run.rename_repeated_key(item)),
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
                if batch.len() == window {
                    break;
                }
            }
            let next = (!batch.is_empty()).then(|| {
                let analyzer = std::sync::Arc::clone(&analyzer);
                scope.spawn(move || {
                    tracing::debug!(pages = batch.len(), "analyzing window");
                    pool.install(|| {
                        batch
                            .into_par_iter()
                            .map(|item| match item {
                                Item::Page(p) => {
                                    let mut analyzed = analyzer.analyze(
                                        &p.key,
                                        &p.url,
                                        &p.body,
                                        p.content_type.as_deref(),
                                    );
                                    // Free the per-word strings here, in
                                    // parallel, not on the deciding thread.
                                    analyzer.shrink_for_decide(&mut analyzed);
                                    // The body is dropped here too: deciding
                                    // needs only its length.
                                    Ready::Page {
                                        key: p.key,
                                        url: p.url,
                                        bytes: p.body.len(),
                                        analyzed: Box::new(analyzed),
                                    }
                                }
                                Item::Warning(w) => Ready::Warning(w),
                            })
                            .collect()
                    })
                })
            });
            if let Some(previous) = pending.take() {
                let ready = previous
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                run.decide_window(deduper, sink, ready)?;
            }
            // A stream error stops the run once every page read before it
            // is decided and committed.
            if let Some(e) = failed {
                if let Some(last) = next {
                    let ready = last
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                    run.decide_window(deduper, sink, ready)?;
                }
                run.commit(deduper, sink)?;
                return Err(e);
            }
            match next {
                Some(next) => pending = Some(next),
                // Dropping the receiver here (end of scope) unblocks the
                // reader if it is still sending.
                None => return run.commit(deduper, sink),
            }
        }
    })?;
    let mut summary = run.summary;
    summary.elapsed = start.elapsed();
    summary.threads = threads;
    tracing::info!(
        pages = summary.pages,
        unique = summary.verdicts.unique,
        input_errors = summary.input_errors,
        secs = summary.elapsed.as_secs_f64(),
        "batch run done"
    );
    sink.finish(&summary)?;
    Ok(summary)
}

/// An input item after analysis, body dropped.
enum Ready {
    /// A page: its key and URL, its body's length, its analysis.
    Page {
        key: String,
        url: String,
        bytes: usize,
        analyzed: Box<Analyzed>,
    },
    /// A record that could not be read.
    Warning(InputWarning),
}

/// State of a run between windows.
#[derive(Default)]
struct Run {
    summary: Summary,
    /// Pages decided between two commits ([`Options::commit_every`]).
    commit_every: usize,
    /// Outcomes decided since the last commit, in input order: the sinks
    /// hear of them once the index holds them.
    decided: Vec<Result<PageRecord, InputWarning>>,
    /// Index id -> position, to name the matched page of a verdict.
    positions: HashMap<DocId, usize>,
    /// Keys seen so far, to keep them unique.
    keys: HashSet<String>,
    /// Warnings to attach to pages when they are decided, by (renamed) key:
    /// repeated keys are found while reading, before analysis.
    pending: HashMap<String, Vec<String>>,
}

impl Run {
    /// Decides a window in input order; commits when
    /// [`Options::commit_every`] pages wait for it.
    fn decide_window(
        &mut self,
        deduper: &mut Deduper,
        sink: &mut dyn BatchSink,
        window: Vec<Ready>,
    ) -> neardup::Result<()> {
        for ready in window {
            match ready {
                Ready::Page {
                    key,
                    url,
                    bytes,
                    analyzed,
                } => {
                    let record = self.decide(deduper, key, url, bytes, *analyzed)?;
                    self.decided.push(Ok(record));
                }
                Ready::Warning(w) => {
                    self.summary.input_errors += 1;
                    self.decided.push(Err(w));
                }
            }
        }
        if self.decided.len() >= self.commit_every {
            self.commit(deduper, sink)?;
        }
        Ok(())
    }

    /// Makes every decision so far durable, and only then tells the sinks,
    /// ending with [`Sink::checkpoint`]: a verdict written out is never
    /// lost by a crash of a persistent index, and a line never claims a
    /// page was indexed by a commit that did not happen.
    ///
    /// [`Sink::checkpoint`]: neardup_output::Sink::checkpoint
    /// Nothing to do when nothing was decided since the last commit.
    fn commit(&mut self, deduper: &mut Deduper, sink: &mut dyn BatchSink) -> neardup::Result<()> {
        if self.decided.is_empty() {
            return Ok(());
        }
        deduper.flush()?;
        for outcome in self.decided.drain(..) {
            match outcome {
                Ok(record) => sink.page(&record)?,
                Err(w) => sink.input_error(&w)?,
            }
        }
        sink.checkpoint()
    }

    /// Keeps keys unique: a repeated key gets the first free `#n` suffix.
    fn rename_repeated_key(&mut self, item: Item) -> Item {
        let Item::Page(mut page) = item else {
            return item;
        };
        if !self.keys.insert(page.key.clone()) {
            let mut n = 2;
            let renamed = loop {
                let candidate = format!("{}#{n}", page.key);
                if !self.keys.contains(&candidate) {
                    break candidate;
                }
                n += 1;
            };
            self.keys.insert(renamed.clone());
            self.pending.insert(
                renamed.clone(),
                vec![format!(
                    "key `{}` already used by an earlier page: renamed to `{renamed}`",
                    page.key
                )],
            );
            page.key = renamed;
        }
        Item::Page(page)
    }

    fn decide(
        &mut self,
        deduper: &mut Deduper,
        key: String,
        url: String,
        bytes: usize,
        mut analyzed: Analyzed,
    ) -> neardup::Result<PageRecord> {
        let site = analyzed.doc.site.clone();
        // Deciding does not read the blocks: move them to the record, with
        // what each counts as under the site's template as learned so far.
        let blocks = std::mem::take(&mut analyzed.extracted.blocks);
        let roles = block_roles(blocks.len(), &deduper.content_roles(&analyzed).1);
        let title = analyzed.extracted.title.clone();
        let mut verdict = deduper.decide(analyzed)?;
        if let Some(mut extra) = self.pending.remove(&key) {
            extra.append(&mut verdict.warnings);
            verdict.warnings = extra;
        }
        let position = self.summary.pages as usize;
        if let Some(id) = verdict.indexed_as {
            self.positions.insert(id, position);
        }
        let of = verdict
            .matched
            .as_ref()
            .and_then(|m| m.id.and_then(|id| self.positions.get(&id).copied()));
        let s = &mut self.summary;
        s.pages += 1;
        s.bytes += bytes as u64;
        s.verdicts.add(verdict.kind);
        if !verdict.warnings.is_empty() {
            s.pages_with_warnings += 1;
            s.warnings += verdict.warnings.len() as u64;
        }
        Ok(PageRecord {
            position,
            key,
            url,
            site,
            bytes,
            title,
            verdict,
            of,
            blocks,
            roles,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Page;
    use neardup::Config;
    use neardup_output::Sink;

    /// Records everything a run pushes.
    #[derive(Default)]
    struct Recorder {
        began: bool,
        pages: Vec<PageRecord>,
        errors: Vec<String>,
        finished: Option<Summary>,
        /// Order of events: 'p' page, 'e' input error.
        events: String,
        /// Items (pages and errors) heard of at each checkpoint.
        checkpoints: Vec<usize>,
    }

    impl Sink for Recorder {
        fn begin(&mut self) -> neardup::Result<()> {
            self.began = true;
            Ok(())
        }
        fn page(&mut self, page: &PageRecord) -> neardup::Result<()> {
            self.pages.push(page.clone());
            self.events.push('p');
            Ok(())
        }
        fn checkpoint(&mut self) -> neardup::Result<()> {
            self.checkpoints.push(self.pages.len() + self.errors.len());
            Ok(())
        }
        fn finish(&mut self, summary: &Summary) -> neardup::Result<()> {
            self.finished = Some(summary.clone());
            Ok(())
        }
    }

    impl BatchSink for Recorder {
        fn input_error(&mut self, w: &InputWarning) -> neardup::Result<()> {
            self.errors.push(w.location.clone());
            self.events.push('e');
            Ok(())
        }
    }

    fn page(key: &str, body: &str) -> neardup::Result<Item> {
        Ok(Item::Page(Page {
            key: key.into(),
            url: format!("https://{key}.example/"),
            body: body.as_bytes().to_vec(),
            content_type: None,
        }))
    }

    fn article(n: usize) -> String {
        // Distinct words per article so unrelated articles share nothing.
        let words: Vec<String> = (0..60).map(|i| format!("w{n}x{i}")).collect();
        format!("<html><body><p>{}</p></body></html>", words.join(" "))
    }

    fn items() -> Vec<neardup::Result<Item>> {
        let mut v = Vec::new();
        for i in 0..40 {
            v.push(page(&format!("p{i}"), &article(i % 13)));
            if i % 17 == 5 {
                v.push(Ok(Item::Warning(InputWarning {
                    location: format!("loc{i}"),
                    message: "unreadable".into(),
                })));
            }
        }
        v
    }

    fn run_with(options: Options) -> Recorder {
        let mut rec = Recorder::default();
        let mut d = Deduper::new(Config::default()).unwrap();
        run_items(Box::new(items().into_iter()), &mut d, &options, &mut rec).unwrap();
        rec
    }

    #[test]
    fn every_item_reported_in_order_and_copies_point_at_first() {
        let rec = run_with(Options {
            threads: 2,
            window: 7,
            commit_every: 10,
        });
        assert!(rec.began);
        assert_eq!(rec.pages.len(), 40);
        assert_eq!(rec.errors, vec!["loc5", "loc22", "loc39"]);
        // Items interleave as given: error after p5, p22, p39.
        let expected: String = (0..40)
            .map(|i| if i % 17 == 5 { "pe" } else { "p" })
            .collect();
        assert_eq!(rec.events, expected);
        for (i, p) in rec.pages.iter().enumerate() {
            assert_eq!(p.position, i);
            assert_eq!(p.key, format!("p{i}"));
            if i < 13 {
                assert_eq!(p.verdict.kind, neardup::VerdictKind::Unique, "{i}");
                assert_eq!(p.of, None);
            } else {
                assert_eq!(p.verdict.kind, neardup::VerdictKind::Duplicate, "{i}");
                // Exact copies match the first page with that article.
                assert_eq!(p.of, Some(i % 13), "{i}");
                let m = p.verdict.matched.as_ref().unwrap();
                assert_eq!(m.key, format!("p{}", i % 13));
            }
        }
        let s = rec.finished.unwrap();
        assert_eq!(
            (s.pages, s.verdicts.unique, s.verdicts.duplicates),
            (40, 13, 27)
        );
        assert_eq!(s.input_errors, 3);
        assert_eq!(s.threads, 2);
    }

    #[test]
    fn a_stream_error_stops_the_run_after_deciding_every_page_before_it() {
        for window in [1, 2, 3, 256] {
            let mut v: Vec<neardup::Result<Item>> = (0..5)
                .map(|i| page(&format!("p{i}"), &article(i)))
                .collect();
            v.push(Err(neardup::Error::Input {
                path: "broken.warc".into(),
                message: "truncated record".into(),
            }));
            v.push(page("after", &article(9)));
            let mut rec = Recorder::default();
            let mut d = Deduper::new(Config::default()).unwrap();
            let options = Options {
                threads: 2,
                window,
                commit_every: 4,
            };
            let err = run_items(Box::new(v.into_iter()), &mut d, &options, &mut rec);
            assert!(err.is_err(), "window {window}");
            let keys: Vec<&str> = rec.pages.iter().map(|p| p.key.as_str()).collect();
            assert_eq!(keys, ["p0", "p1", "p2", "p3", "p4"], "window {window}");
            assert_eq!(d.stats().indexed, 5, "window {window}");
            assert!(rec.finished.is_none(), "no summary after an error");
        }
    }

    #[test]
    fn verdicts_do_not_depend_on_threads_or_window() {
        let a = run_with(Options {
            threads: 1,
            window: 1,
            commit_every: 1,
        });
        let b = run_with(Options {
            threads: 2,
            window: 256,
            commit_every: 256,
        });
        let c = run_with(Options::default());
        assert_eq!(a.pages, b.pages);
        assert_eq!(a.pages, c.pages);
    }

    #[test]
    fn sinks_hear_of_pages_at_commits_every_commit_every_items() {
        // 43 items (40 pages, 3 unreadable records) in windows of 3: a
        // commit once 10 wait, so after 12, 24 and 36 items, and one at
        // the end for the last 7.
        let rec = run_with(Options {
            threads: 2,
            window: 3,
            commit_every: 10,
        });
        assert_eq!(rec.checkpoints, [12, 24, 36, 43]);
        // One commit per window when a window is larger than commit_every.
        let rec = run_with(Options {
            threads: 1,
            window: 20,
            commit_every: 1,
        });
        assert_eq!(rec.checkpoints, [20, 40, 43]);
    }

    #[test]
    fn repeated_keys_are_renamed_with_a_warning() {
        let items = vec![
            page("a", &article(1)),
            page("a", &article(2)),
            page("a#2", &article(3)),
        ];
        let mut rec = Recorder::default();
        let mut d = Deduper::new(Config::default()).unwrap();
        run_items(
            Box::new(items.into_iter()),
            &mut d,
            &Options::default(),
            &mut rec,
        )
        .unwrap();
        let keys: Vec<&str> = rec.pages.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(keys, vec!["a", "a#2", "a#2#2"]);
        assert!(rec.pages[1].verdict.warnings[0].contains("renamed"));
        assert!(rec.pages[0].verdict.warnings.is_empty());
    }

    #[test]
    fn stream_error_stops_the_run_before_finish() {
        let items = vec![
            page("a", &article(1)),
            Err(neardup::Error::Input {
                path: "x.warc".into(),
                message: "cannot open".into(),
            }),
            page("b", &article(2)),
        ];
        let mut rec = Recorder::default();
        let mut d = Deduper::new(Config::default()).unwrap();
        let err = run_items(
            Box::new(items.into_iter()),
            &mut d,
            &Options::default(),
            &mut rec,
        )
        .unwrap_err();
        assert!(err.to_string().contains("cannot open"));
        assert!(rec.finished.is_none());
    }
}
