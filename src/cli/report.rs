//! What a batch run tells the user on stderr while it runs: a progress bar
//! (terminals only) and per-page warnings, capped so a broken crawl does
//! not flood the terminal.

use std::io::IsTerminal as _;

use indicatif::{ProgressBar, ProgressStyle};
use neardup_batch::BatchSink;
use neardup_output::{InputWarning, PageRecord, Sink, Summary};

/// Warnings printed before the rest are only counted.
const MAX_PRINTED: u64 = 20;

/// Prints warnings (first [`MAX_PRINTED`]) and drives the progress bar.
pub struct StderrReporter {
    bar: Option<ProgressBar>,
    printed: u64,
    hidden: u64,
    quiet: bool,
}

impl StderrReporter {
    /// A reporter; the bar shows only if stderr is a terminal and not quiet.
    pub fn new(quiet: bool) -> StderrReporter {
        Self::with_total(quiet, None)
    }

    /// A reporter whose bar shows `total` (pages and unreadable records
    /// expected) and an ETA when it is known.
    pub fn with_total(quiet: bool, total: Option<u64>) -> StderrReporter {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let (bar, template) = match total {
                Some(n) => (
                    ProgressBar::new(n),
                    "{bar:30} {pos}/{len} pages ({per_sec}, eta {eta}) {msg} [{elapsed_precise}]",
                ),
                None => (
                    ProgressBar::new_spinner(),
                    "{spinner} {pos} pages ({per_sec}) {msg} [{elapsed_precise}]",
                ),
            };
            if let Ok(style) = ProgressStyle::with_template(template) {
                bar.set_style(style);
            }
            bar
        });
        StderrReporter {
            bar,
            printed: 0,
            hidden: 0,
            quiet,
        }
    }

    fn warn(&mut self, subject: &str, message: &str) {
        if self.quiet {
            return;
        }
        if self.printed >= MAX_PRINTED {
            self.hidden += 1;
            return;
        }
        self.printed += 1;
        let line = format!("neardup: warning: {subject}: {message}");
        match &self.bar {
            // Printing under a live bar garbles both; suspend it.
            Some(bar) => bar.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }
}

impl Sink for StderrReporter {
    fn page(&mut self, page: &PageRecord) -> neardup::Result<()> {
        for w in &page.verdict.warnings {
            self.warn(&page.key, w);
        }
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
        Ok(())
    }

    fn finish(&mut self, _: &Summary) -> neardup::Result<()> {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        if self.hidden > 0 {
            eprintln!(
                "neardup: {} more warnings not shown (all are in verdicts.jsonl)",
                self.hidden
            );
        }
        Ok(())
    }
}

/// An unreadable record counts on the bar and is warned about.
impl BatchSink for StderrReporter {
    fn input_error(&mut self, warning: &InputWarning) -> neardup::Result<()> {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
        self.warn(
            &warning.location,
            &format!("unreadable: {}", warning.message),
        );
        Ok(())
    }
}

impl Drop for StderrReporter {
    fn drop(&mut self) {
        // A failed run never reaches finish: leave no half-drawn bar.
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

/// The one-paragraph summary of a run.
pub fn summary_line(s: &Summary) -> String {
    format!(
        "{} pages: {} unique, {} duplicates, {} near duplicates; {} warnings on {} pages, \
         {} unreadable records; {:.2} MB in {:.2} s = {:.2} MB/s, {:.0} pages/s ({} threads)",
        s.pages,
        s.verdicts.unique,
        s.verdicts.duplicates,
        s.verdicts.near_duplicates,
        s.warnings,
        s.pages_with_warnings,
        s.input_errors,
        s.bytes as f64 / 1e6,
        s.elapsed.as_secs_f64(),
        s.mb_per_sec(),
        s.pages_per_sec(),
        s.threads
    )
}

/// One line of index memory: heap bytes of each detector's candidate index
/// and of the document store (signatures kept for verification, URLs,
/// keys). Per indexed page from 1,000 pages on; below that, fixed
/// allocations (the SimHash bucket directory is ~6 MB) dominate and a
/// per-page figure would mislead.
pub fn memory_line(deduper: &neardup::Deduper) -> String {
    let pages = deduper.stats().indexed;
    let parts: Vec<String> = deduper
        .memory()
        .iter()
        .map(|(tier, bytes)| {
            if pages >= 1000 {
                format!("{tier} {:.0} B/page", *bytes as f64 / pages as f64)
            } else {
                format!("{tier} {:.1} MiB", *bytes as f64 / (1024.0 * 1024.0))
            }
        })
        .collect();
    format!(
        "memory: index heap for {pages} indexed pages: {}",
        parts.join(", ")
    )
}
