//! Where the crawl loop writes ([`Outputs`]), and [`Plain`] writers
//! without checkpoints.

use std::io::Write;

use crate::error::Result;
use neardup::Verdict;
use neardup_output::Sink;

use crate::crawl_state::CrawlState;
use crate::fetch::FetchOutcome;
use crate::summary::CrawlSummary;

/// Where the crawl loop writes, and when and how it checkpoints.
pub(crate) trait Outputs {
    /// The `pages.jsonl` writer.
    fn pages(&mut self) -> &mut dyn Write;
    /// Where checked pages go.
    fn sink(&mut self) -> &mut dyn Sink;
    /// Whether a checkpoint is due, `decided` pages after the last one.
    fn checkpoint_due(&self, _decided: u64) -> bool {
        false
    }
    /// Makes the outputs durable and records `state` (the index is already
    /// flushed).
    fn checkpoint(&mut self, _state: &CrawlState) -> Result<()> {
        Ok(())
    }
    /// Whether [`Outputs::answer`] reads the response bodies (the WARC
    /// output does); if not, bodies are freed right after analysis.
    fn keeps_bodies(&self) -> bool {
        false
    }
    /// Whether [`Outputs::checkpoint`] does anything (then the index is
    /// flushed before each one).
    fn durable(&self) -> bool {
        false
    }
    /// An HTTP answer, with the page's verdict when it was checked (for
    /// the WARC output).
    fn answer(
        &mut self,
        _key: &str,
        _outcome: &FetchOutcome,
        _verdict: Option<&Verdict>,
    ) -> Result<()> {
        Ok(())
    }
    /// Counters after each decision, for a progress display.
    fn progress(&mut self, _summary: &CrawlSummary, _queued: usize, _in_flight: u64) {}
}

/// The outputs of [`Crawler::run`](crate::Crawler::run): plain writers, no checkpoints.
pub(crate) struct Plain<'a> {
    pub(crate) pages: &'a mut dyn Write,
    pub(crate) sink: &'a mut dyn Sink,
}

impl Outputs for Plain<'_> {
    fn pages(&mut self) -> &mut dyn Write {
        self.pages
    }
    fn sink(&mut self) -> &mut dyn Sink {
        self.sink
    }
}
