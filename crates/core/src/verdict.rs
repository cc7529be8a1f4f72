//! The verdict on one page: what it is, and why.

use neardup_api::DocId;
use serde::{Deserialize, Serialize};

pub use neardup_html::{Redirect, RedirectKind};

/// The serialized name of [`MatchBasis::SameUrl`], the basis of the [`Match`]
/// of an unchanged re-fetch: the page at this URL is indexed with exactly
/// these signatures already.
pub const SAME_URL: &str = "same_url";

/// The detector name in the [`Match`] of a page found through its own
/// blocks (the block index) when no detector of the chain matched a page
/// holding its content.
pub const CONTENT: &str = "content";

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

/// How many verdicts of each kind: the one tally that the library's
/// [`crate::Stats`], a run's summary, the crawl's summary and the report's
/// per-site counts share, so that a new kind is counted everywhere or
/// nowhere. Serialized flat (`unique`, `duplicates`, `near_duplicates`)
/// inside the structs that carry it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerdictCounts {
    /// Pages kept as unique.
    pub unique: u64,
    /// Pages dropped as duplicates.
    pub duplicates: u64,
    /// Pages dropped as near duplicates.
    pub near_duplicates: u64,
}

impl VerdictCounts {
    /// Counts one verdict of `kind`.
    pub fn add(&mut self, kind: VerdictKind) {
        match kind {
            VerdictKind::Unique => self.unique += 1,
            VerdictKind::Duplicate => self.duplicates += 1,
            VerdictKind::NearDuplicate => self.near_duplicates += 1,
        }
    }

    /// Pages dropped: duplicates and near duplicates.
    pub fn dropped(&self) -> u64 {
        self.duplicates + self.near_duplicates
    }

    /// Every verdict counted.
    pub fn total(&self) -> u64 {
        self.unique + self.dropped()
    }
}

/// What a match rests on: a detector's comparison of the content, or the
/// URLs alone.
///
/// Serialized as one string, the `detector` of `verdicts.jsonl` and of the
/// API: the detector's name, or `content`, `canonical`, `redirect`,
/// `same_url`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum MatchBasis {
    /// A detector of the chain (its name) compared the pages' signatures.
    /// No detector may be named like another basis (the registry refuses
    /// `content`, `canonical`, `redirect`, `same_url`).
    Detector(String),
    /// No detector matched; the block index found a kept page holding
    /// the page's own blocks (serialized `content`).
    Content,
    /// The page's `<link rel=canonical>` names the matched page's URL;
    /// nothing was compared.
    Canonical,
    /// The page's URL redirected to the matched page; nothing was compared.
    Redirect,
    /// The page is an unchanged re-fetch of the matched page, at the same
    /// URL with the same signatures (a recrawl).
    SameUrl,
}

impl MatchBasis {
    /// The serialized name: the detector's, or `canonical`, `redirect`,
    /// `same_url`.
    pub fn name(&self) -> &str {
        match self {
            MatchBasis::Detector(name) => name,
            MatchBasis::Content => CONTENT,
            MatchBasis::Canonical => "canonical",
            MatchBasis::Redirect => "redirect",
            MatchBasis::SameUrl => "same_url",
        }
    }

    /// The basis of a serialized name (any other name is a detector's).
    pub fn from_name(name: &str) -> MatchBasis {
        match name {
            "canonical" => MatchBasis::Canonical,
            "redirect" => MatchBasis::Redirect,
            "same_url" => MatchBasis::SameUrl,
            CONTENT => MatchBasis::Content,
            other => MatchBasis::Detector(other.to_owned()),
        }
    }

    /// Returns true if and only if a detector compared the content.
    pub fn is_content(&self) -> bool {
        matches!(self, MatchBasis::Detector(_) | MatchBasis::Content)
    }
}

impl std::fmt::Display for MatchBasis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for MatchBasis {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for MatchBasis {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<MatchBasis, D::Error> {
        String::deserialize(d).map(|name| MatchBasis::from_name(&name))
    }
}

/// The earlier page a dropped page matched, and the evidence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Match {
    /// The earlier page's index id, when the match names an indexed page:
    /// `None` when the page is known by key only (a crawl's redirect or
    /// canonical match names the page fetched at that URL, which may not
    /// be indexed itself; a match read back from `verdicts.jsonl`).
    pub id: Option<DocId>,
    /// The earlier page's caller key (doc_id, file stem, record id).
    pub key: String,
    /// The earlier page's URL.
    pub url: String,
    /// What the match rests on (serialized as `detector`).
    #[serde(rename = "detector")]
    pub basis: MatchBasis,
    /// The score the decision rested on, `0.0..=1.0` (1 for a match by
    /// URL).
    pub similarity: f64,
    /// The detector's resemblance of the two pages (1 for a match by URL).
    pub resemblance: f64,
    /// Containment of the smaller page in the larger (1 for a match by
    /// URL).
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

impl Match {
    /// A match by URL alone (`basis` is not [`MatchBasis::Detector`]): nothing
    /// was compared, so similarity, resemblance and containment are 1 and
    /// nothing is `covered`.
    pub fn by_url(
        id: Option<DocId>,
        key: String,
        url: String,
        basis: MatchBasis,
        reason: String,
    ) -> Match {
        Match {
            id,
            key,
            url,
            basis,
            similarity: 1.0,
            resemblance: 1.0,
            containment: 1.0,
            reason,
            covered: None,
        }
    }
}

/// The verdict on one page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// Unique, duplicate or near duplicate.
    pub kind: VerdictKind,
    /// The matched earlier page (for duplicates and near duplicates).
    pub matched: Option<Match>,
    /// For a page kept although its content is in an earlier, much larger
    /// page (a chapter in a print view, an item in an all-in-one page):
    /// that page. A relation, not a drop: the page is unique and indexed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contained_in: Option<Match>,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_counts_count_each_kind_and_serialize_flat_in_stats() {
        let mut c = VerdictCounts::default();
        for k in [
            VerdictKind::Unique,
            VerdictKind::Duplicate,
            VerdictKind::NearDuplicate,
            VerdictKind::NearDuplicate,
        ] {
            c.add(k);
        }
        assert_eq!((c.unique, c.duplicates, c.near_duplicates), (1, 1, 2));
        assert_eq!((c.dropped(), c.total()), (3, 4));
        // The stats' JSON keeps the flat keys clients read.
        let stats = crate::Stats {
            checked: 4,
            verdicts: c,
            indexed: 1,
        };
        let v = serde_json::to_value(stats).expect("serialize");
        assert_eq!(
            v,
            serde_json::json!({"checked": 4, "unique": 1, "duplicates": 1, "near_duplicates": 2, "indexed": 1})
        );
    }

    /// The basis serializes as the `detector` string of format 1, and reads
    /// back as the same basis.
    #[test]
    fn match_basis_is_the_detector_string_of_format_1() {
        let cases = [
            (MatchBasis::Detector("chunks".into()), "chunks"),
            (MatchBasis::Canonical, "canonical"),
            (MatchBasis::Redirect, "redirect"),
            (MatchBasis::SameUrl, "same_url"),
        ];
        for (basis, name) in cases {
            let m = Match::by_url(None, "k".into(), "u".into(), basis.clone(), "r".into());
            let json = serde_json::to_value(&m).unwrap();
            assert_eq!(json["detector"], name);
            assert!(json.get("basis").is_none(), "{json}");
            let back: Match = serde_json::from_value(json).unwrap();
            assert_eq!(back.basis, basis);
            assert_eq!(basis.is_content(), name == "chunks");
        }
    }

    /// A match by URL names no index id it does not have, and claims no
    /// content coverage.
    #[test]
    fn a_match_by_url_has_no_made_up_id() {
        let m = Match::by_url(
            None,
            "k".into(),
            "u".into(),
            MatchBasis::Redirect,
            "r".into(),
        );
        let json = serde_json::to_value(&m).unwrap();
        assert!(json["id"].is_null(), "{json}");
        assert!(json.get("covered").is_none(), "{json}");
        assert_eq!(
            (m.similarity, m.resemblance, m.containment),
            (1.0, 1.0, 1.0)
        );
    }
}
