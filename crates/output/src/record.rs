//! What a checked page gives the outputs: a [`PageRecord`] per page, an
//! [`InputWarning`] per input record that could not be read, and a
//! [`Summary`] per run. The batch runner and the crawler produce them; the
//! output files and the report consume them.

use std::time::Duration;

use neardup::Verdict;

/// One page's outcome, as sinks see it.
#[derive(Clone, Debug, PartialEq)]
pub struct PageRecord {
    /// Position of the page in processing order (0-based, pages only).
    pub position: usize,
    /// The page's key (doc_id), unique within the run.
    pub key: String,
    /// The page URL.
    pub url: String,
    /// The page's site (lowercased host, `-` without one).
    pub site: String,
    /// Size of the body as read, in bytes.
    pub bytes: usize,
    /// The page's `<title>` as extracted (empty without one): its name,
    /// for the report's URL-pattern hints (`verdicts.jsonl`'s `title`).
    pub title: String,
    /// The verdict, with the matched page and the page's warnings.
    pub verdict: Verdict,
    /// Position of the matched page, for duplicates and near duplicates.
    pub of: Option<usize>,
    /// The page's extracted text blocks (main content and boilerplate),
    /// moved out of the analysis, for the report's side-by-side view.
    pub blocks: Vec<neardup_html::Block>,
    /// What each of `blocks` counted as when the page was judged (`None`
    /// for a block without words, or when not known): see
    /// [`neardup::Role`].
    pub roles: Vec<Option<neardup::Role>>,
}

/// Each extracted block's role (blocks are content source `i + 1`; see
/// [`neardup::Deduper::content_roles`]), for the report's side-by-side view.
pub fn block_roles(blocks: usize, roles: &[(u32, neardup::Role)]) -> Vec<Option<neardup::Role>> {
    let mut out = vec![None; blocks];
    for &(source, role) in roles {
        if let Some(slot) = (source as usize)
            .checked_sub(1)
            .and_then(|i| out.get_mut(i))
        {
            *slot = Some(role);
        }
    }
    out
}

/// A problem with one input record or file that does not stop the run.
///
/// The batch readers (`neardup-batch`'s `input`) yield it; the outputs
/// record it: a `verdicts.jsonl` line with `"verdict": "error"`, an entry
/// of `clusters.json`'s `input_errors`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputWarning {
    /// Where (file, and record offset or line where known).
    pub location: String,
    /// What was wrong.
    pub message: String,
}

impl std::fmt::Display for InputWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

/// Counts and timing of a finished run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Pages checked.
    pub pages: u64,
    /// Their verdicts by kind (`duplicates`: a copy up to trivial
    /// changes, whichever detector found it).
    pub verdicts: neardup::VerdictCounts,
    /// Pages with at least one warning.
    pub pages_with_warnings: u64,
    /// Warnings on pages, all together.
    pub warnings: u64,
    /// Input records that could not be read (no page).
    pub input_errors: u64,
    /// Body bytes read.
    pub bytes: u64,
    /// Wall time of the run.
    pub elapsed: Duration,
    /// Analysis threads used.
    pub threads: usize,
}

impl Summary {
    /// Throughput in MB (10^6 bytes) of page bodies per second of wall time.
    pub fn mb_per_sec(&self) -> f64 {
        let secs = self.elapsed.as_secs_f64();
        if secs > 0.0 {
            self.bytes as f64 / 1e6 / secs
        } else {
            0.0
        }
    }

    /// Pages per second of wall time.
    pub fn pages_per_sec(&self) -> f64 {
        let secs = self.elapsed.as_secs_f64();
        if secs > 0.0 {
            self.pages as f64 / secs
        } else {
            0.0
        }
    }
}
