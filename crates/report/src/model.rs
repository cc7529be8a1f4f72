//! What the report shows ([`Report`] and its parts), as the HTML page
//! and the CSV files receive it; `lib.rs` builds it from a run's files.

use std::collections::BTreeMap;

use serde::Serialize;

/// Everything the report shows; serialized into the HTML page.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    /// Totals of the run.
    pub overview: Overview,
    /// Sites, by name.
    pub sites: Vec<Site>,
    /// Clusters of two or more pages: single-site ones, then cross-site.
    pub clusters: Vec<Cluster>,
    /// Page texts for the diff view, by doc_id (empty without
    /// `texts.jsonl`): each a [`neardup_output::PageText`], kept as its
    /// line of `texts.jsonl` ([`neardup_output::read_text_lines`]) and
    /// written into the page as it is.
    pub texts: BTreeMap<String, Box<serde_json::value::RawValue>>,
    /// Why there are no texts, when there are none.
    pub texts_missing: Option<String>,
}

/// Totals of the run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Overview {
    /// Pages checked.
    pub pages: u64,
    /// Unique pages.
    pub unique: u64,
    /// Pages with the verdict `duplicate` (a copy up to trivial changes),
    /// whichever detector found it; the exact detector's share is in
    /// `detectors`.
    pub duplicates: u64,
    /// Near duplicates.
    pub near_duplicates: u64,
    /// Clusters of two or more pages.
    pub clusters: u64,
    /// Unreadable input records.
    pub input_errors: u64,
    /// Body bytes of all pages.
    pub bytes_total: u64,
    /// Body bytes of the dropped pages (duplicates and near duplicates).
    pub bytes_saved: u64,
    /// Index entries saved: a dropped page is not inserted into the index.
    pub index_entries_saved: u64,
    /// Kept pages whose content is in a much larger page (see
    /// [`Site::contained`]); not counted as drops.
    pub contained: u64,
    /// Detectors that fired, with counts, most first (both verdicts
    /// together; [`Overview::fired`] splits them).
    pub detectors: Vec<(String, u64)>,
    /// Dropped pages by verdict and what fired.
    pub fired: Fired,
    /// The run's configuration (TOML), when `config.toml` is present.
    pub config: Option<String>,
    /// Fetch attempts and failures, for crawls (`pages.jsonl`).
    pub fetches: Option<(u64, u64)>,
}

/// One site.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Site {
    /// Host (with port when not the default).
    pub name: String,
    /// Pages of the site.
    pub pages: u64,
    /// Unique pages.
    pub unique: u64,
    /// Dropped pages (duplicates and near duplicates).
    pub dropped: u64,
    /// dropped / pages.
    pub duplicate_rate: f64,
    /// The site's dropped pages by verdict and what fired.
    pub fired: Fired,
    /// Indexes into [`Report::clusters`] of the site's clusters, largest
    /// first (cross-site clusters touching the site included).
    pub clusters: Vec<usize>,
    /// Size of the largest of those.
    pub largest: u64,
    /// URL patterns behind the site's clusters (among each cluster's kept
    /// page and its exact copies), most frequent first.
    pub hints: Vec<HintCount>,
    /// The site's pages kept although their content is in a much larger
    /// page (a part of an all-in-one page, a chapter of a print view), in
    /// processing order: a relation between two kept pages, neither a drop
    /// nor a cluster member.
    pub contained: Vec<Contained>,
}

/// A kept page whose content is in a much larger earlier page: its
/// verdict's `contained_in` in `verdicts.jsonl`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Contained {
    /// The kept page's key.
    pub doc_id: String,
    /// Its URL.
    pub url: String,
    /// The larger page's key.
    pub of: String,
    /// The larger page's URL.
    pub of_url: String,
    /// Share of the kept page's own content found in the larger page.
    pub covered: Option<f64>,
    /// What was measured.
    pub reason: String,
}

/// What a drop rests on, told by the detector name in its verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// A detector of the chain matched the page's signature: `exact`,
    /// `simhash`, `chunks` or a plugin's name.
    Detector,
    /// No detector matched; the page's own blocks, found through the block
    /// index, are in a kept page (detector
    /// [`CONTENT`](neardup::CONTENT)).
    Content,
    /// The URL says which page this is, without comparing content:
    /// `canonical` (its `<link rel=canonical>`), `redirect` (a redirect to
    /// a page fetched before), `same_url` (an unchanged re-fetch,
    /// [`SAME_URL`](neardup::SAME_URL)).
    Url,
}

impl Basis {
    /// The basis of a drop whose verdict names `detector`.
    pub fn of(detector: &str) -> Basis {
        match detector {
            neardup::CONTENT => Basis::Content,
            neardup::SAME_URL | "canonical" | "redirect" => Basis::Url,
            _ => Basis::Detector,
        }
    }

    /// The snake_case name (`detector`, `content`, `url`).
    pub fn as_str(self) -> &'static str {
        match self {
            Basis::Detector => "detector",
            Basis::Content => "content",
            Basis::Url => "url",
        }
    }
}

/// How many dropped pages one detector name accounts for.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FiredCount {
    /// The detector name in the verdicts (`exact`, `content`,
    /// `canonical`, ...; `unknown` when a drop names none).
    pub detector: String,
    /// What kind of evidence that is.
    pub basis: Basis,
    /// How the report says it: "exact text", "content evidence",
    /// "canonical URL", "redirect", "same URL"; other names as they are.
    pub label: String,
    /// Pages.
    pub pages: u64,
}

/// Dropped pages split by verdict and by what fired, most pages first.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Fired {
    /// Pages with the verdict `duplicate`.
    pub duplicates: Vec<FiredCount>,
    /// Pages with the verdict `near_duplicate`.
    pub near_duplicates: Vec<FiredCount>,
}

impl Fired {
    /// Counts one drop with `verdict` (`duplicate` or `near_duplicate`;
    /// anything else is ignored) by `detector`.
    pub(crate) fn add(&mut self, verdict: &str, detector: Option<&str>) {
        let list = match verdict {
            "duplicate" => &mut self.duplicates,
            "near_duplicate" => &mut self.near_duplicates,
            _ => return,
        };
        let detector = detector.unwrap_or("unknown");
        match list.iter_mut().find(|c| c.detector == detector) {
            Some(c) => c.pages += 1,
            None => list.push(FiredCount {
                detector: detector.to_owned(),
                basis: Basis::of(detector),
                label: label(detector),
                pages: 1,
            }),
        }
    }

    /// Most pages first, ties by name.
    pub(crate) fn sort(&mut self) {
        for list in [&mut self.duplicates, &mut self.near_duplicates] {
            list.sort_by(|a, b| b.pages.cmp(&a.pages).then(a.detector.cmp(&b.detector)));
        }
    }

    /// Dropped pages (both verdicts) resting on `basis`.
    pub fn by_basis(&self, basis: Basis) -> u64 {
        self.duplicates
            .iter()
            .chain(&self.near_duplicates)
            .filter(|c| c.basis == basis)
            .map(|c| c.pages)
            .sum()
    }

    /// Pages of `list`.
    pub(crate) fn total(list: &[FiredCount]) -> u64 {
        list.iter().map(|c| c.pages).sum()
    }

    /// One line for the CSV: `duplicate: exact 2, canonical 1;
    /// near_duplicate: simhash 1` (detector names as in the verdicts).
    pub fn summary(&self) -> String {
        let part = |verdict: &str, list: &[FiredCount]| {
            (!list.is_empty()).then(|| {
                let items: Vec<String> = list
                    .iter()
                    .map(|c| format!("{} {}", c.detector, c.pages))
                    .collect();
                format!("{verdict}: {}", items.join(", "))
            })
        };
        [
            part("duplicate", &self.duplicates),
            part("near_duplicate", &self.near_duplicates),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join("; ")
    }
}

/// How the report names what fired.
fn label(detector: &str) -> String {
    match detector {
        "exact" => "exact text".into(),
        neardup::CONTENT => "content evidence".into(),
        "canonical" => "canonical URL".into(),
        neardup::SAME_URL => "same URL".into(),
        other => other.into(),
    }
}

/// A URL-pattern hint and how many of a site's clusters show it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HintCount {
    /// The hint.
    pub hint: Hint,
    /// Clusters showing it.
    pub clusters: u64,
}

/// What differs between the URLs of a cluster.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Hint {
    /// Stable key to aggregate on, e.g. `query:sessionid`, `path:2`.
    pub key: String,
    /// Human-readable text, e.g. "query parameter `sessionid` varies".
    pub text: String,
}

/// A page of a cluster.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ClusterPage {
    /// Key.
    pub doc_id: String,
    /// URL.
    pub url: String,
    /// Site.
    pub site: String,
    /// `representative`, `duplicate` or `near_duplicate`.
    pub verdict: String,
    /// The page it matched.
    pub of: String,
    /// Similarity to it.
    pub similarity: f64,
    /// Containment of the smaller in the larger.
    pub containment: f64,
    /// Detector that fired.
    pub detector: String,
    /// The verdict's explanation.
    pub reason: String,
}

/// A cluster of two or more pages.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Cluster {
    /// The representative's key.
    pub id: String,
    /// Pages, the representative included.
    pub size: u64,
    /// Sites spanned (sorted).
    pub sites: Vec<String>,
    /// Representative first, then members in processing order.
    pub pages: Vec<ClusterPage>,
    /// URL patterns behind the cluster.
    pub hints: Vec<Hint>,
}
