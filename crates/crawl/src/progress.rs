//! The crawl's progress on stderr: pages/s, queue, in flight, duplicate
//! rate, errors. On a terminal a bar redrawn in place; otherwise (a log
//! file, `nohup`, a container) a line every interval, as Scrapy's
//! LogStats does, so a long crawl is not silent until it ends.
//!
//! Log lines (`tracing`, `RUST_LOG`) written while the bar is shown would
//! tear it: [`LogWriter`] (the CLI's tracing writer) hides the bar while a
//! line is printed, through the bar registered here.

use std::io::Write;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::CrawlSummary;

/// The bar shown now, if any (log lines suspend it).
static ACTIVE: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// The crawl's counters on stderr: a spinner, or periodic lines.
#[derive(Debug)]
pub struct Progress {
    kind: Kind,
    start: Instant,
    /// Pages decided before this run (a resume), not counted in pages/s.
    base: u64,
}

#[derive(Debug)]
enum Kind {
    Bar(ProgressBar),
    Lines(Lines),
}

/// What the periodic line shows, as of the last update.
#[derive(Clone, Debug, Default)]
struct Snapshot {
    summary: CrawlSummary,
    queued: usize,
    in_flight: u64,
}

/// State shared with the thread that prints the periodic lines.
#[derive(Debug, Default)]
struct LineState {
    snapshot: Option<Snapshot>,
    stopped: bool,
}

/// The periodic-lines mode: a thread prints the latest counters every
/// interval (also while nothing is decided, so a stalled crawl shows
/// it), until [`Progress::finish`].
#[derive(Debug)]
struct Lines {
    state: Arc<(Mutex<LineState>, Condvar)>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
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

    /// A bar when stderr is a terminal; otherwise a line on stderr every
    /// `interval` (`None` if the interval is zero).
    pub fn for_stderr(interval: Duration) -> Option<Progress> {
        Progress::stderr().or_else(|| {
            (!interval.is_zero()).then(|| Progress::lines(interval, Box::new(std::io::stderr())))
        })
    }

    /// Writes a line `neardup: progress: ...` to `out` every `interval`
    /// (the first after one interval), from a thread of its own.
    pub fn lines(interval: Duration, mut out: Box<dyn Write + Send>) -> Progress {
        let state = Arc::new((Mutex::new(LineState::default()), Condvar::new()));
        let shared = Arc::clone(&state);
        let start = Instant::now();
        let thread = std::thread::Builder::new()
            .name("neardup-progress".into())
            .spawn(move || {
                let (lock, wake) = &*shared;
                let mut last_attempts: Option<u64> = None;
                let mut next = Instant::now() + interval;
                let mut guard = lock.lock().unwrap_or_else(PoisonError::into_inner);
                loop {
                    let now = Instant::now();
                    if guard.stopped {
                        return;
                    }
                    if now < next {
                        guard = wake
                            .wait_timeout(guard, next - now)
                            .unwrap_or_else(PoisonError::into_inner)
                            .0;
                        continue;
                    }
                    next += interval;
                    let snap = guard.snapshot.clone().unwrap_or_default();
                    let recent = snap
                        .summary
                        .attempts
                        .saturating_sub(last_attempts.unwrap_or(snap.summary.attempts));
                    last_attempts = Some(snap.summary.attempts);
                    let line = format_log_line(
                        &snap.summary,
                        snap.queued,
                        snap.in_flight,
                        start.elapsed(),
                        recent,
                        interval,
                    );
                    let _ = writeln!(out, "neardup: progress: {line}");
                    let _ = out.flush();
                }
            })
            .ok();
        Progress {
            kind: Kind::Lines(Lines {
                state,
                thread: Mutex::new(thread),
            }),
            start,
            base: u64::MAX,
        }
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
            kind: Kind::Bar(bar),
            start: Instant::now(),
            base: u64::MAX,
        }
    }

    /// Shows the counters.
    pub fn update(&self, s: &CrawlSummary, queued: usize, in_flight: u64) {
        match &self.kind {
            Kind::Bar(bar) => bar.set_message(format_line(
                s,
                queued,
                in_flight,
                self.start.elapsed(),
                self.base,
            )),
            Kind::Lines(lines) => {
                let mut state = lines.state.0.lock().unwrap_or_else(PoisonError::into_inner);
                state.snapshot = Some(Snapshot {
                    summary: s.clone(),
                    queued,
                    in_flight,
                });
            }
        }
    }

    /// Counts pages from `attempts` on for pages/s (set at start).
    pub fn set_base(&mut self, attempts: u64) {
        self.base = attempts;
    }

    /// Removes the bar, or stops the periodic lines.
    pub fn finish(&self) {
        match &self.kind {
            Kind::Bar(bar) => {
                bar.finish_and_clear();
                *ACTIVE.lock().unwrap_or_else(PoisonError::into_inner) = None;
            }
            Kind::Lines(lines) => lines.stop(),
        }
    }
}

impl Lines {
    fn stop(&self) {
        let (lock, wake) = &*self.state;
        lock.lock().unwrap_or_else(PoisonError::into_inner).stopped = true;
        wake.notify_all();
        let thread = self
            .thread
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(t) = thread {
            let _ = t.join();
        }
    }
}

impl Drop for Lines {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The periodic line: totals, the rate over the whole run and over the
/// last interval (`recent` fetches), what was dropped and what failed.
pub fn format_log_line(
    s: &CrawlSummary,
    queued: usize,
    in_flight: u64,
    elapsed: Duration,
    recent: u64,
    interval: Duration,
) -> String {
    let secs = elapsed.as_secs_f64();
    let rate = if secs > 0.0 {
        s.attempts as f64 / secs
    } else {
        0.0
    };
    let per_min = recent as f64 * 60.0 / interval.as_secs_f64().max(1e-3);
    let dropped = s.verdicts.dropped();
    let http_errors = s.http_errors();
    let skipped: u64 = s.skipped.values().sum();
    format!(
        "{} fetched ({rate:.1}/s, {per_min:.0}/min lately), {} checked, {} dropped as duplicates, \
         {} noindex, errors: {http_errors} HTTP 4xx/5xx, {} fetch, {} robots.txt; \
         {skipped} links not crawled, queue {queued}, in flight {in_flight}",
        s.attempts, s.pages, dropped, s.noindex, s.fetch_errors, s.robots_disallowed
    )
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
    let dups = s.verdicts.dropped();
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
    fn periodic_lines_are_written_until_finished() {
        #[derive(Clone, Default)]
        struct Buf(Arc<Mutex<Vec<u8>>>);
        impl Write for Buf {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let buf = Buf::default();
        let p = Progress::lines(Duration::from_millis(20), Box::new(buf.clone()));
        let s = CrawlSummary {
            attempts: 12,
            statuses: [(200, 2), (404, 9)].into_iter().collect(),
            fetch_errors: 1,
            ..CrawlSummary::default()
        };
        p.update(&s, 5, 2);
        // Lines come without further updates (a stalled crawl still
        // shows up).
        let deadline = Instant::now() + Duration::from_secs(30);
        while String::from_utf8_lossy(&buf.0.lock().unwrap())
            .lines()
            .count()
            < 2
        {
            assert!(Instant::now() < deadline, "no progress lines");
            std::thread::sleep(Duration::from_millis(10));
        }
        p.finish();
        let text = String::from_utf8_lossy(&buf.0.lock().unwrap()).into_owned();
        let first = text.lines().next().unwrap();
        assert!(
            first.starts_with("neardup: progress: 12 fetched"),
            "{first}"
        );
        assert!(first.contains("errors: 9 HTTP 4xx/5xx, 1 fetch"), "{first}");
        assert!(first.contains("queue 5, in flight 2"), "{first}");
        // Stopped: no more lines.
        let n = text.lines().count();
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(
            String::from_utf8_lossy(&buf.0.lock().unwrap())
                .lines()
                .count(),
            n
        );
    }

    #[test]
    fn line_shows_rate_queue_and_duplicate_rate() {
        let s = CrawlSummary {
            attempts: 30,
            pages: 20,
            verdicts: neardup::VerdictCounts {
                unique: 15,
                duplicates: 4,
                near_duplicates: 1,
            },
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
