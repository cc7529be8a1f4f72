//! The verdict on one page: what it is, and why.

use neardup_api::DocId;
use serde::{Deserialize, Serialize};

/// What a page is, relative to the pages seen before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerdictKind {
    /// No earlier page matches: keep and index it.
    Unique,
    /// A copy of an earlier page, up to trivial changes: drop it.
    Duplicate,
    /// Much like an earlier page: drop it (and index it, if so configured).
    NearDuplicate,
}

impl VerdictKind {
    /// The snake_case name used in output files.
    pub fn as_str(self) -> &'static str {
        match self {
            VerdictKind::Unique => "unique",
            VerdictKind::Duplicate => "duplicate",
            VerdictKind::NearDuplicate => "near_duplicate",
        }
    }

    /// Returns true if and only if a crawler should drop the page.
    pub fn is_drop(self) -> bool {
        self != VerdictKind::Unique
    }
}

/// The earlier page a dropped page matched, and the evidence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Match {
    /// The earlier page's index id.
    pub id: DocId,
    /// The earlier page's caller key (doc_id, file stem, record id).
    pub key: String,
    /// The earlier page's URL.
    pub url: String,
    /// The detector that fired.
    pub detector: String,
    /// The score the decision rested on, `0.0..=1.0`.
    pub similarity: f64,
    /// The detector's resemblance of the two pages.
    pub resemblance: f64,
    /// Containment of the smaller page in the larger.
    pub containment: f64,
    /// Why, in one line.
    pub reason: String,
    /// Share of this page's own content (its text minus its site's
    /// template) found in the matched page: the evidence that the drop
    /// loses nothing. `None` for matches not made by content (canonical,
    /// redirect, an unchanged re-fetch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covered: Option<f64>,
}

/// How a page says it has moved (see [`crate::extract::redirect_of`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RedirectKind {
    /// `<meta http-equiv="refresh" content="N; url=URL">` with a short
    /// delay.
    MetaRefresh,
    /// A tiny page of one link and a few words saying it moved.
    LinkStub,
}

impl RedirectKind {
    /// The snake_case name used in output files.
    pub fn as_str(self) -> &'static str {
        match self {
            RedirectKind::MetaRefresh => "meta_refresh",
            RedirectKind::LinkStub => "link_stub",
        }
    }
}

/// A redirect stub's target: the page is a pointer, like an HTTP 3xx, not
/// a page of its own.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Redirect {
    /// The target, resolved against the page URL (and its `<base>`),
    /// without fragment.
    pub to: String,
    /// How the page says so.
    pub kind: RedirectKind,
}

/// The verdict on one page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// Unique, duplicate or near duplicate.
    pub kind: VerdictKind,
    /// The matched earlier page (for duplicates and near duplicates).
    pub matched: Option<Match>,
    /// The id this page got in the index, if it was indexed.
    pub indexed_as: Option<DocId>,
    /// The id under which a page that was not kept was stored for its
    /// site's template (see `crate::content`), if it was: ids up to it are
    /// in use, which a crawl's checkpoint must cover.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stored_as: Option<DocId>,
    /// Set when the page is a redirect stub: a crawler follows `to`, as it
    /// would an HTTP 3xx, whatever the kind (the stub is still judged on
    /// its own text: the same stub text at another URL is a copy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect: Option<Redirect>,
    /// Problems with this page that did not stop the check.
    pub warnings: Vec<String>,
}
