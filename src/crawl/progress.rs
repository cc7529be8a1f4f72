//! The crawl's progress bar on stderr: pages/s, queue, in flight,
//! duplicate rate, errors.
//!
//! Log lines (`tracing`, `RUST_LOG`) written while the bar is shown would
//! tear it: [`LogWriter`] (the CLI's tracing writer) hides the bar while a
//! line is printed, through the bar registered here.

use std::io::Write;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::CrawlSummary;

/// The bar shown now, if any (log lines suspend it).
static ACTIVE: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// A spinner with the crawl's counters.
#[derive(Debug)]
pub struct Progress {
    bar: ProgressBar,
    start: Instant,
    /// Pages decided before this run (a resume), not counted in pages/s.
    base: u64,
}

impl Progress {
    /// A bar on stderr, or `None` when stderr is not a terminal.
    pub fn stderr() -> Option<Progress> {
        use std::io::IsTerminal as _;
        if !std::io::stderr().is_terminal() {
            return None;
        }
        Some(Progress::new(ProgressDrawTarget::stderr()))
    }

    /// A bar drawing to `target` (hidden in tests).
    pub fn new(target: ProgressDrawTarget) -> Progress {
        let bar = ProgressBar::with_draw_target(None, target);
        let style = ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner());
        bar.set_style(style);
        bar.enable_steady_tick(Duration::from_millis(200));
        *ACTIVE.lock().unwrap_or_else(PoisonError::into_inner) = Some(bar.clone());
        Progress {
            bar,
            start: Instant::now(),
            base: u64::MAX,
        }
    }

    /// Shows the counters.
    pub fn update(&self, s: &CrawlSummary, queued: usize, in_flight: u64) {
        self.bar.set_message(format_line(
            s,
            queued,
            in_flight,
            self.start.elapsed(),
            self.base,
        ));
    }

    /// Counts pages from `attempts` on for pages/s (set at start).
    pub fn set_base(&mut self, attempts: u64) {
        self.base = attempts;
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
        *ACTIVE.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }
}

/// The bar's text.
pub fn format_line(
    s: &CrawlSummary,
    queued: usize,
    in_flight: u64,
    elapsed: Duration,
    base: u64,
) -> String {
    let fetched_now = s
        .attempts
        .saturating_sub(if base == u64::MAX { 0 } else { base });
    let secs = elapsed.as_secs_f64();
    let rate = if secs > 0.0 {
        fetched_now as f64 / secs
    } else {
        0.0
    };
    let dups = s.duplicates + s.near_duplicates;
    let dup_rate = if s.pages > 0 {
        dups as f64 * 100.0 / s.pages as f64
    } else {
        0.0
    };
    format!(
        "{} fetched ({rate:.1}/s), {} checked, {dup_rate:.1}% duplicates, {} errors, queue {queued}, in flight {in_flight}",
        s.attempts, s.pages, s.fetch_errors
    )
}

/// A `tracing` writer to stderr that hides the progress bar while writing.
#[derive(Debug, Default)]
pub struct LogWriter;

/// Makes a [`LogWriter`] (pass to `tracing_subscriber`'s `with_writer`).
pub fn log_writer() -> LogWriter {
    LogWriter
}

impl Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let bar = ACTIVE
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        match bar {
            Some(bar) => bar.suspend(|| std::io::stderr().write_all(buf))?,
            None => std::io::stderr().write_all(buf)?,
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_shows_rate_queue_and_duplicate_rate() {
        let s = CrawlSummary {
            attempts: 30,
            pages: 20,
            duplicates: 4,
            near_duplicates: 1,
            fetch_errors: 2,
            ..CrawlSummary::default()
        };
        // 10 of the 30 fetches were before a resume: 20 in 4 s is 5/s;
        // 5 of 20 pages dropped is 25%.
        let line = format_line(&s, 7, 3, Duration::from_secs(4), 10);
        assert!(line.contains("(5.0/s)"), "{line}");
        assert!(line.contains("25.0% duplicates"), "{line}");
        assert!(line.contains("2 errors"), "{line}");
        assert!(line.contains("queue 7"), "{line}");
        assert!(line.contains("in flight 3"), "{line}");
    }
}
