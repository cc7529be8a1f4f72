//! What the WARC and ARC readers share: the stream, the queue of items the
//! last parsing step produced, and the resynchronization state after a
//! damaged record.

use std::collections::VecDeque;
use std::path::Path;

use super::item::Item;
use super::stream::Stream;

/// Cursor over a record-oriented archive. A reader owns one and implements
/// [`StepReader`]; [`next_item`] drives it.
pub(crate) struct RecordCursor {
    /// The file, for warning locations.
    pub path: String,
    /// The (decompressing) byte stream.
    pub stream: Stream,
    /// Items produced by the last step, handed out in order.
    pub pending: VecDeque<Item>,
    /// The input has ended (or can no longer be read).
    pub done: bool,
    /// Skipping to the next record header after trouble (warned once).
    pub resync: bool,
}

impl RecordCursor {
    /// A cursor over `stream`; `first` are warnings raised while sniffing.
    pub fn new(path: &Path, stream: Stream, first: Vec<Item>) -> RecordCursor {
        RecordCursor {
            path: path.display().to_string(),
            stream,
            pending: first.into(),
            done: false,
            resync: false,
        }
    }

    /// Queues a warning located at stream offset `at`.
    pub fn warn(&mut self, at: u64, message: impl Into<String>) {
        let location = format!("{}: {}", self.path, self.stream.describe(at));
        self.pending.push_back(Item::warning(location, message));
    }

    /// A read error (corrupt gzip member, I/O): warn, then resynchronize on
    /// the next record header.
    ///
    /// While already resynchronizing, further errors (say, false gzip
    /// headers inside a corrupt member) add no warning: one per lost
    /// stretch is enough.
    pub fn lost(&mut self, at: u64, e: &std::io::Error) {
        if !self.resync {
            self.warn(at, format!("record at offset {at} lost: {e}"));
        }
        self.resync = true;
    }
}

/// A record reader: one parsing step at a time.
pub(crate) trait StepReader {
    /// The reader's cursor.
    fn cursor(&mut self) -> &mut RecordCursor;

    /// Reads one record (or skips one line while resynchronizing), pushing
    /// what it yields onto the cursor's queue. Every call consumes input or
    /// ends the file, so iteration always terminates.
    fn step(&mut self);
}

/// The next item of a reader: queued items first, then more steps until one
/// appears or the input ends.
pub(crate) fn next_item<R: StepReader>(reader: &mut R) -> Option<Item> {
    loop {
        if let Some(item) = reader.cursor().pending.pop_front() {
            return Some(item);
        }
        if reader.cursor().done {
            return None;
        }
        reader.step();
    }
}
