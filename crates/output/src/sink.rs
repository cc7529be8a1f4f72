//! [`Sink`]: what a run pushes its outcomes into (after ripgrep's `Sink`).
//!
//! The driver (the batch runner, the crawler) calls [`Sink::begin`], then
//! [`Sink::page`] once per page in processing order, then [`Sink::finish`]
//! with the [`Summary`]. Push keeps the driver in charge of order and
//! threads; sinks only format. Several sinks run side by side as a
//! `Vec<&mut dyn Sink>`. An input record that could not be read (batch
//! runs only) is not a page: the sinks of this crate take it by their own
//! `input_error` method, which the batch runner calls in its place in the
//! order.

use neardup::Result;

use crate::record::{PageRecord, Summary};

/// Receives the outcomes of a run, in processing order.
///
/// Implementers write [`Sink::page`]; the other methods default to doing
/// nothing. An error stops the run; `finish` is then not called.
pub trait Sink {
    /// Called once before the first item.
    ///
    /// # Errors
    /// Stops the run.
    fn begin(&mut self) -> Result<()> {
        Ok(())
    }

    /// Called once per page, in processing order.
    ///
    /// # Errors
    /// Stops the run.
    fn page(&mut self, page: &PageRecord) -> Result<()>;

    /// Called after each batch of items the run has made durable (with a
    /// persistent index: after the index commit that holds them): what the
    /// sink has received so far may be made readable.
    ///
    /// # Errors
    /// Stops the run.
    fn checkpoint(&mut self) -> Result<()> {
        Ok(())
    }

    /// Called once after the last item, if the run succeeded.
    ///
    /// # Errors
    /// Fails the run.
    fn finish(&mut self, summary: &Summary) -> Result<()> {
        let _ = summary;
        Ok(())
    }
}

impl<S: Sink + ?Sized> Sink for &mut S {
    fn begin(&mut self) -> Result<()> {
        (**self).begin()
    }
    fn page(&mut self, page: &PageRecord) -> Result<()> {
        (**self).page(page)
    }
    fn checkpoint(&mut self) -> Result<()> {
        (**self).checkpoint()
    }
    fn finish(&mut self, summary: &Summary) -> Result<()> {
        (**self).finish(summary)
    }
}

/// Every sink of the list gets every call, in list order. Generic over the
/// element so that a list of a sub-trait's objects (the batch runner's
/// `Vec<&mut dyn BatchSink>`) is a sink too.
impl<S: Sink + ?Sized> Sink for Vec<&mut S> {
    fn begin(&mut self) -> Result<()> {
        self.iter_mut().try_for_each(|s| s.begin())
    }
    fn page(&mut self, page: &PageRecord) -> Result<()> {
        self.iter_mut().try_for_each(|s| s.page(page))
    }
    fn checkpoint(&mut self) -> Result<()> {
        self.iter_mut().try_for_each(|s| s.checkpoint())
    }
    fn finish(&mut self, summary: &Summary) -> Result<()> {
        self.iter_mut().try_for_each(|s| s.finish(summary))
    }
}
