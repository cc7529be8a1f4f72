//! [`BatchSink`]: a [`Sink`] that a batch run also tells of the input
//! records it could not read.
//!
//! Unreadable records are a batch matter (the crawler has none), so the
//! output crate's [`Sink`] has no method for them; the sinks that record
//! them in their files ([`VerdictLines`], [`ClusterSink`], [`OutputDir`])
//! have their own `input_error` method, which the impls here call.

use std::io::Write;

use neardup::Result;
use neardup_output::{ClusterSink, InputWarning, OutputDir, Sink, VerdictLines};

/// Receives the outcomes of a batch run, in input order: the [`Sink`]
/// calls, and [`BatchSink::input_error`] in the place of each input record
/// that could not be read.
pub trait BatchSink: Sink {
    /// Called once per input record that could not be read (no page).
    ///
    /// # Errors
    /// Stops the run.
    fn input_error(&mut self, warning: &InputWarning) -> Result<()> {
        let _ = warning;
        Ok(())
    }
}

impl<S: BatchSink + ?Sized> BatchSink for &mut S {
    fn input_error(&mut self, warning: &InputWarning) -> Result<()> {
        (**self).input_error(warning)
    }
}

/// Every sink of the list gets every call, in list order.
impl BatchSink for Vec<&mut dyn BatchSink> {
    fn input_error(&mut self, warning: &InputWarning) -> Result<()> {
        self.iter_mut().try_for_each(|s| s.input_error(warning))
    }
}

/// An error line in `verdicts.jsonl`.
impl<W: Write> BatchSink for VerdictLines<W> {
    fn input_error(&mut self, warning: &InputWarning) -> Result<()> {
        VerdictLines::input_error(self, warning)
    }
}

/// An entry of `clusters.json`'s `input_errors`.
impl BatchSink for ClusterSink {
    fn input_error(&mut self, warning: &InputWarning) -> Result<()> {
        ClusterSink::input_error(self, warning);
        Ok(())
    }
}

/// Both of the above.
impl BatchSink for OutputDir {
    fn input_error(&mut self, warning: &InputWarning) -> Result<()> {
        OutputDir::input_error(self, warning)
    }
}
