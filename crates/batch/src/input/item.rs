//! What an input yields ([`Item`]: a [`Page`] or a warning) and the
//! [`Limits`] every reader keeps to.

use neardup_output::InputWarning;

/// One page to check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    /// The caller's identifier: manifest doc_id, file stem, or WARC record id.
    pub key: String,
    /// The page URL.
    pub url: String,
    /// The raw body.
    pub body: Vec<u8>,
    /// The HTTP Content-Type, when known.
    pub content_type: Option<String>,
}

/// Something an input yields: a page, or a warning about one that was lost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// A page to check.
    Page(Page),
    /// A record or file that could not be read; the run goes on.
    Warning(InputWarning),
}

impl Item {
    pub(super) fn warning(location: impl Into<String>, message: impl Into<String>) -> Item {
        Item::Warning(InputWarning {
            location: location.into(),
            message: message.into(),
        })
    }
}

/// Size limits that keep memory bounded on hostile or broken input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest record (WARC/ARC record block, or page file) read into
    /// memory; bigger ones are skipped with a warning.
    pub max_record: u64,
    /// Largest body after undoing `Content-Encoding`, or after
    /// decompressing a gzip page file (gzip bombs stop here and the record
    /// is skipped with a warning).
    pub max_body: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_record: 64 * 1024 * 1024,
            max_body: 64 * 1024 * 1024,
        }
    }
}
