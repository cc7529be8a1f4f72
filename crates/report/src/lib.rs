//! Duplicate-cluster reports: `neardup report DIR`.
//!
//! Reads what a `dedup` or `crawl` run wrote into `DIR` and writes three
//! files beside it:
//! - `report.html`: one self-contained page (inline CSS, JS and SVG; no
//!   network request), hash-routed so a view can be opened directly:
//!   `#/` overview, `#/sites`, `#/site/HOST`, `#/cluster/ID` (optionally
//!   `#/cluster/ID/N` for member N in the side-by-side view), `#/cross`;
//! - `sites.csv`: one row per site (pages, duplicate rate, clusters...);
//! - `clusters.csv`: one row per page of every cluster of two or more.
//!
//! # Inputs
//! `clusters.json` (required: sites, clusters, totals), `verdicts.jsonl`
//! (required: reasons, detectors, bytes per page), and when present
//! `texts.jsonl` (page blocks for the diff, see `evidence`),
//! `pages.jsonl` (crawl fetch counts) and `config.toml` (the config of
//! the run, written by the CLI). Without `texts.jsonl` the cluster page
//! says why there is no side-by-side view.
//!
//! # Design
//! All data goes into one `<script type="application/json">` block (with
//! `<`, `>` and `&` written as JSON `\u` escapes, so page text cannot end
//! the block), and the script renders only the view asked for, a page of
//! rows at a time (100 rows, "show more"), so a 100,000-page crawl opens
//! quickly. Every page-derived string reaches the DOM through
//! `textContent` or attribute setters, never `innerHTML`.
//!
//! Measured on a synthetic 100,000-page run (1,000 sites, 7,462 clusters,
//! `cargo run --release --example report_100k -- /tmp/report-100k`):
//! outputs written in 0.62 s, the report in 0.43 s (2026-12-01; 0.73 s
//! and 0.70 s before the texts were embedded as read); `report.html` is
//! 58 MB (most of it the texts of the ~37,000 clustered pages kept for the
//! diff; `texts.jsonl` is 45 MB); headless Chromium renders `#/sites` in
//! 12 s wall including browser start (most of it parsing the data block).
//! Splitting the texts into a side file would make large reports lighter;
//! it would need a fetch, which `file://` pages cannot do in Chromium.
//!
//! The diff classifies the member's blocks against the representative's:
//! a main-content block whose text also appears on the other side is
//! *shared*, one that does not is *different* (its words missing on the
//! other side are marked), and a block the extractor classified as
//! boilerplate is *boilerplate* (removed before comparison).
//!
//! Drops are counted by *what fired* ([`Fired`], [`Basis`]): a detector of
//! the chain (exact text, SimHash, chunks, a plugin), the content-evidence
//! fallback (detector `content`: no detector matched, the page's own blocks
//! were found in a kept page through the block index) or the URL
//! (`canonical`, `redirect`, `same_url`), separately for duplicates and
//! near duplicates, over the run and per site. The counts come from
//! `verdicts.jsonl` (its `verdict`, `detector` and `site`).
//!
//! Kept pages whose content is in a much larger earlier page (a verdict's
//! `contained_in`: a chapter in its print view, a part of an all-in-one
//! page) are listed per site ([`Site::contained`]) and counted in
//! [`Overview::contained`]: a relation between two kept pages, neither a
//! drop nor a cluster member.
//!
//! URL-pattern hints ([`url_hints`]) say which query parameters or path
//! segments differ between the members of a cluster: candidates for URL
//! canonicalization rules, aggregated per site. They are taken among a
//! cluster's kept page and its exact copies, and only between pages that
//! carry the same name ([`named_url_hints`]; titles from `verdicts.jsonl`):
//! a hint never suggests merging pages named for different items.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

// The tests' one way to skip (a failure under CI), shared with tests/.
#[cfg(test)]
#[path = "../../../tests/skip.rs"]
mod skip;

mod hints;
mod html;
mod model;

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::Path;

use serde::Deserialize;

use neardup::{Error, Result};

use neardup_output::{AtomicFile, CONFIG_TOML};

pub use hints::{named_url_hints, url_hints};
pub use html::render_html;
pub use model::{
    Basis, Cluster, ClusterPage, Contained, Fired, FiredCount, Hint, HintCount, Overview, Report,
    Site,
};

/// File names the report writes.
pub const REPORT_HTML: &str = "report.html";
/// See [`REPORT_HTML`].
pub const SITES_CSV: &str = "sites.csv";
/// See [`REPORT_HTML`].
pub const CLUSTERS_CSV: &str = "clusters.csv";

// ---- input formats (the parts the report reads) ----

#[derive(Deserialize)]
struct ClustersFile {
    totals: TotalsIn,
    #[serde(default)]
    sites: BTreeMap<String, SiteIn>,
    #[serde(default)]
    cross_site: Vec<ClusterIn>,
}

#[derive(Deserialize)]
struct TotalsIn {
    pages: u64,
    unique: u64,
    duplicates: u64,
    near_duplicates: u64,
    #[serde(default)]
    input_errors: u64,
}

#[derive(Deserialize)]
struct SiteIn {
    pages: u64,
    unique: u64,
    #[serde(default)]
    clusters: Vec<ClusterIn>,
}

#[derive(Deserialize)]
struct ClusterIn {
    id: String,
    size: u64,
    representative: String,
    representative_url: String,
    representative_site: String,
    members: Vec<MemberIn>,
    sites: Vec<String>,
}

#[derive(Deserialize)]
struct MemberIn {
    doc_id: String,
    url: String,
    site: String,
    verdict: String,
    of: String,
    similarity: f64,
    containment: f64,
    detector: String,
}

#[derive(Deserialize)]
struct VerdictIn {
    doc_id: Option<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    site: Option<String>,
    #[serde(default)]
    title: Option<String>,
    verdict: String,
    detector: Option<String>,
    reason: Option<String>,
    bytes: Option<u64>,
    #[serde(default)]
    contained_in: Option<ContainedIn>,
}

/// `contained_in` of a verdict line (`neardup_output::ContainedIn`).
#[derive(Deserialize)]
struct ContainedIn {
    of: String,
    of_url: String,
    #[serde(default)]
    covered: Option<f64>,
    #[serde(default)]
    reason: String,
}

#[derive(Deserialize)]
struct FetchIn {
    error: Option<String>,
}

impl Report {
    /// Builds the report from the files in `dir`.
    ///
    /// # Errors
    /// A missing or malformed `clusters.json` or `verdicts.jsonl`; a
    /// malformed optional file is an error too (it names the line).
    pub fn load(dir: &Path) -> Result<Report> {
        // `texts.jsonl` is the largest input (most of a large report's
        // bytes) and independent of the others: it is parsed on a second
        // thread meanwhile.
        let texts_path = dir.join(neardup_output::EvidenceSpool::FILE);
        std::thread::scope(|scope| {
            let texts = scope.spawn(|| {
                texts_path
                    .exists()
                    .then(|| neardup_output::read_text_lines(&texts_path))
                    .transpose()
            });
            let report = Report::load_without_texts(dir);
            let texts = texts
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            // The required inputs' errors first, as when read in turn.
            let mut report = report?;
            match texts? {
                Some(texts) => {
                    report.texts = texts.into_iter().map(|p| (p.doc_id, p.json)).collect();
                }
                None => {
                    report.texts_missing = Some(format!(
                        "{} is absent from {} (output of an older run, or written by \
                         another tool): no side-by-side view",
                        neardup_output::EvidenceSpool::FILE,
                        dir.display()
                    ));
                }
            }
            Ok(report)
        })
    }

    /// [`Report::load`] but for the texts.
    fn load_without_texts(dir: &Path) -> Result<Report> {
        let path = dir.join(neardup_output::OutputDir::CLUSTERS_JSON);
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
        let clusters: ClustersFile = serde_json::from_str(&text).map_err(|e| Error::Input {
            path: path.clone(),
            message: format!("not a neardup clusters.json: {e}"),
        })?;

        // The titles of the pages URL-pattern hints are taken from (each
        // cluster's kept page and its exact copies): their names. `None`
        // until a line gives it: an older output has no titles.
        let mut titles: HashMap<String, Option<String>> = clusters
            .sites
            .values()
            .flat_map(|s| &s.clusters)
            .chain(&clusters.cross_site)
            .flat_map(|c| {
                let copies = c.members.iter().filter(|m| m.verdict != "near_duplicate");
                std::iter::once(&c.representative).chain(copies.map(|m| &m.doc_id))
            })
            .map(|id| (id.clone(), None))
            .collect();
        let path = dir.join(neardup_output::OutputDir::VERDICTS);
        let mut reasons: HashMap<String, String> = HashMap::new();
        let mut detectors: BTreeMap<String, u64> = BTreeMap::new();
        let mut fired = Fired::default();
        let mut site_fired: HashMap<String, Fired> = HashMap::new();
        let mut site_contained: HashMap<String, Vec<Contained>> = HashMap::new();
        let (mut bytes_total, mut bytes_saved) = (0u64, 0u64);
        for_lines(&path, |v: VerdictIn| {
            let bytes = v.bytes.unwrap_or(0);
            bytes_total += bytes;
            if let (Some(id), Some(title)) = (&v.doc_id, &v.title) {
                if let Some(slot) = titles.get_mut(id) {
                    *slot = Some(title.clone());
                }
            }
            // A relation between two kept pages, listed apart from drops.
            if let (Some(c), Some(site), Some(id)) = (&v.contained_in, &v.site, &v.doc_id) {
                site_contained
                    .entry(site.clone())
                    .or_default()
                    .push(Contained {
                        doc_id: id.clone(),
                        url: v.url.clone().unwrap_or_default(),
                        of: c.of.clone(),
                        of_url: c.of_url.clone(),
                        covered: c.covered,
                        reason: c.reason.clone(),
                    });
            }
            if v.verdict == "duplicate" || v.verdict == "near_duplicate" {
                bytes_saved += bytes;
                fired.add(&v.verdict, v.detector.as_deref());
                if let Some(site) = v.site {
                    site_fired
                        .entry(site)
                        .or_default()
                        .add(&v.verdict, v.detector.as_deref());
                }
                if let Some(d) = v.detector {
                    *detectors.entry(d).or_default() += 1;
                }
                if let (Some(id), Some(r)) = (v.doc_id, v.reason) {
                    reasons.insert(id, r);
                }
            }
        })?;

        let pages_path = dir.join("pages.jsonl");
        let fetches = if pages_path.exists() {
            let (mut n, mut errors) = (0u64, 0u64);
            for_lines(&pages_path, |f: FetchIn| {
                n += 1;
                errors += u64::from(f.error.is_some());
            })?;
            Some((n, errors))
        } else {
            None
        };
        let config_path = dir.join(CONFIG_TOML);
        let config = if config_path.exists() {
            Some(std::fs::read_to_string(&config_path).map_err(|e| Error::io(&config_path, e))?)
        } else {
            None
        };

        let mut report = Report::from_parts(clusters, &reasons, &titles);
        let t = &clusters_totals(&report);
        let mut detectors: Vec<(String, u64)> = detectors.into_iter().collect();
        detectors.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        report.overview.detectors = detectors;
        fired.sort();
        report.overview.fired = fired;
        for s in &mut report.sites {
            if let Some(mut f) = site_fired.remove(&s.name) {
                f.sort();
                s.fired = f;
            }
            s.contained = site_contained.remove(&s.name).unwrap_or_default();
            report.overview.contained += s.contained.len() as u64;
        }
        report.overview.bytes_total = bytes_total;
        report.overview.bytes_saved = bytes_saved;
        report.overview.config = config;
        report.overview.fetches = fetches;
        report.overview.clusters = *t;
        Ok(report)
    }

    fn from_parts(
        file: ClustersFile,
        reasons: &HashMap<String, String>,
        titles: &HashMap<String, Option<String>>,
    ) -> Report {
        let t = &file.totals;
        let dropped = t.duplicates + t.near_duplicates;
        let overview = Overview {
            pages: t.pages,
            unique: t.unique,
            duplicates: t.duplicates,
            near_duplicates: t.near_duplicates,
            input_errors: t.input_errors,
            index_entries_saved: dropped,
            ..Overview::default()
        };
        let mut clusters = Vec::new();
        let mut sites = Vec::new();
        let mut site_index: HashMap<String, usize> = HashMap::new();
        let mut file = file;
        let cross = std::mem::take(&mut file.cross_site);
        for (name, s) in file.sites {
            let dropped = s.pages.saturating_sub(s.unique);
            site_index.insert(name.clone(), sites.len());
            let mut site = Site {
                name,
                pages: s.pages,
                unique: s.unique,
                dropped,
                duplicate_rate: if s.pages == 0 {
                    0.0
                } else {
                    dropped as f64 / s.pages as f64
                },
                ..Site::default()
            };
            for c in s.clusters {
                site.clusters.push(clusters.len());
                clusters.push(Cluster::from_input(c, reasons, titles));
            }
            sites.push(site);
        }
        for c in cross {
            let i = clusters.len();
            let c = Cluster::from_input(c, reasons, titles);
            for name in &c.sites {
                if let Some(s) = site_index.get(name).and_then(|&j| sites.get_mut(j)) {
                    s.clusters.push(i);
                }
            }
            clusters.push(c);
        }
        for s in &mut sites {
            s.clusters.sort_by(|&a, &b| {
                let (ca, cb) = (&clusters[a], &clusters[b]);
                cb.size.cmp(&ca.size).then(ca.id.cmp(&cb.id))
            });
            s.largest = s
                .clusters
                .first()
                .and_then(|&i| clusters.get(i))
                .map_or(0, |c| c.size);
            s.hints = aggregate_hints(s.clusters.iter().filter_map(|&i| clusters.get(i)));
        }
        Report {
            overview,
            sites,
            clusters,
            ..Report::default()
        }
    }

    /// Indexes into [`Report::clusters`] of the clusters spanning several
    /// sites, largest first.
    pub fn cross_site(&self) -> Vec<usize> {
        let mut v: Vec<usize> = (0..self.clusters.len())
            .filter(|&i| self.clusters.get(i).is_some_and(|c| c.sites.len() > 1))
            .collect();
        v.sort_by(|&a, &b| {
            let (ca, cb) = (&self.clusters[a], &self.clusters[b]);
            cb.size.cmp(&ca.size).then(ca.id.cmp(&cb.id))
        });
        v
    }

    /// Writes `sites.csv`: `site,pages,unique,dropped,duplicate_rate,
    /// clusters,largest_cluster,top_url_pattern,duplicates,near_duplicates,
    /// by_detector,by_content,by_url,fired,contained` (the last seven from
    /// `verdicts.jsonl`: drops by verdict, by [`Basis`], and
    /// [`Fired::summary`]; kept pages contained in a much larger page,
    /// [`Site::contained`]).
    ///
    /// # Errors
    /// Write errors.
    pub fn write_sites_csv(&self, out: &mut dyn Write) -> std::result::Result<(), csv::Error> {
        let mut w = csv::Writer::from_writer(out);
        w.write_record([
            "site",
            "pages",
            "unique",
            "dropped",
            "duplicate_rate",
            "clusters",
            "largest_cluster",
            "top_url_pattern",
            "duplicates",
            "near_duplicates",
            "by_detector",
            "by_content",
            "by_url",
            "fired",
            "contained",
        ])?;
        for s in &self.sites {
            w.write_record([
                s.name.clone(),
                s.pages.to_string(),
                s.unique.to_string(),
                s.dropped.to_string(),
                format!("{:.4}", s.duplicate_rate),
                s.clusters.len().to_string(),
                s.largest.to_string(),
                s.hints
                    .first()
                    .map(|h| h.hint.text.clone())
                    .unwrap_or_default(),
                Fired::total(&s.fired.duplicates).to_string(),
                Fired::total(&s.fired.near_duplicates).to_string(),
                s.fired.by_basis(Basis::Detector).to_string(),
                s.fired.by_basis(Basis::Content).to_string(),
                s.fired.by_basis(Basis::Url).to_string(),
                s.fired.summary(),
                s.contained.len().to_string(),
            ])?;
        }
        w.flush()?;
        Ok(())
    }

    /// Writes `clusters.csv`: one row per page of every cluster:
    /// `cluster_id,cluster_size,sites,doc_id,url,site,verdict,of,
    /// similarity,containment,detector,reason`.
    ///
    /// # Errors
    /// Write errors.
    pub fn write_clusters_csv(&self, out: &mut dyn Write) -> std::result::Result<(), csv::Error> {
        let mut w = csv::Writer::from_writer(out);
        w.write_record([
            "cluster_id",
            "cluster_size",
            "sites",
            "doc_id",
            "url",
            "site",
            "verdict",
            "of",
            "similarity",
            "containment",
            "detector",
            "reason",
        ])?;
        for c in &self.clusters {
            let sites = c.sites.join(" ");
            for p in &c.pages {
                let rep = p.verdict == "representative";
                let num = |x: f64| {
                    if rep {
                        String::new()
                    } else {
                        format!("{x:.4}")
                    }
                };
                w.write_record([
                    c.id.as_str(),
                    &c.size.to_string(),
                    &sites,
                    &p.doc_id,
                    &p.url,
                    &p.site,
                    &p.verdict,
                    &p.of,
                    &num(p.similarity),
                    &num(p.containment),
                    &p.detector,
                    &p.reason,
                ])?;
            }
        }
        w.flush()?;
        Ok(())
    }

    /// Writes `report.html`, `sites.csv` and `clusters.csv` into `dir`,
    /// each atomically (temporary file, then rename).
    ///
    /// # Errors
    /// Write errors.
    pub fn write(&self, dir: &Path) -> Result<()> {
        // The two CSV files are written on a second thread while
        // report.html, the largest, is rendered: the files are
        // independent, and a run's end leaves the other cores idle.
        std::thread::scope(|scope| {
            let csvs = scope.spawn(|| self.write_csvs(dir));
            let html = (|| {
                let path = dir.join(REPORT_HTML);
                let mut f = AtomicFile::create(&path)?;
                render_html(self, &mut f).map_err(|e| Error::io(&path, e))?;
                f.commit()
            })();
            let csvs = csvs
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            csvs.and(html)
        })
    }

    /// `sites.csv` and `clusters.csv` of [`Report::write`].
    fn write_csvs(&self, dir: &Path) -> Result<()> {
        let csv_err =
            |path: &Path, e: csv::Error| Error::io(path, std::io::Error::other(e.to_string()));
        let path = dir.join(SITES_CSV);
        let mut f = AtomicFile::create(&path)?;
        self.write_sites_csv(&mut f)
            .map_err(|e| csv_err(&path, e))?;
        f.commit()?;
        let path = dir.join(CLUSTERS_CSV);
        let mut f = AtomicFile::create(&path)?;
        self.write_clusters_csv(&mut f)
            .map_err(|e| csv_err(&path, e))?;
        f.commit()
    }
}

/// Loads the report of `dir` and writes its files there; returns the
/// report (for counts in messages).
///
/// # Errors
/// See [`Report::load`] and [`Report::write`].
pub fn generate(dir: &Path) -> Result<Report> {
    let report = Report::load(dir)?;
    report.write(dir)?;
    Ok(report)
}

fn clusters_totals(r: &Report) -> u64 {
    r.clusters.len() as u64
}

/// Calls `f` on every non-blank line of a JSON-lines file.
fn for_lines<T: serde::de::DeserializeOwned>(path: &Path, mut f: impl FnMut(T)) -> Result<()> {
    use std::io::BufRead as _;
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| Error::io(path, e))?;
        if line.trim().is_empty() {
            continue;
        }
        let v = serde_json::from_str(&line).map_err(|e| Error::Input {
            path: path.to_owned(),
            message: format!("line {}: {e}", n + 1),
        })?;
        f(v);
    }
    Ok(())
}

impl Cluster {
    fn from_input(
        c: ClusterIn,
        reasons: &HashMap<String, String>,
        titles: &HashMap<String, Option<String>>,
    ) -> Cluster {
        let mut pages = Vec::with_capacity(c.members.len() + 1);
        pages.push(ClusterPage {
            doc_id: c.representative,
            url: c.representative_url,
            site: c.representative_site,
            verdict: "representative".into(),
            ..ClusterPage::default()
        });
        for m in c.members {
            pages.push(ClusterPage {
                reason: reasons.get(&m.doc_id).cloned().unwrap_or_default(),
                doc_id: m.doc_id,
                url: m.url,
                site: m.site,
                verdict: m.verdict,
                of: m.of,
                similarity: m.similarity,
                containment: m.containment,
                detector: m.detector,
            });
        }
        // A URL pattern is a canonicalization candidate only where its
        // URLs name one content: the kept page and its exact copies. Near
        // duplicates (distinct API items of one template, translations
        // sharing their untranslated parts) would suggest merging pages
        // that differ; so would pages named otherwise (`named_url_hints`).
        let named: Vec<(&str, Option<&str>)> = pages
            .iter()
            .filter(|p| p.verdict != "near_duplicate")
            .map(|p| {
                let title = titles.get(&p.doc_id).and_then(Option::as_deref);
                (p.url.as_str(), title)
            })
            .collect();
        let hints = named_url_hints(&named);
        Cluster {
            id: c.id,
            size: c.size,
            sites: c.sites,
            pages,
            hints,
        }
    }
}

/// Counts hints over clusters, most frequent first (ties by key).
fn aggregate_hints<'a>(clusters: impl Iterator<Item = &'a Cluster>) -> Vec<HintCount> {
    let mut counts: BTreeMap<&Hint, u64> = BTreeMap::new();
    for c in clusters {
        for h in &c.hints {
            *counts.entry(h).or_default() += 1;
        }
    }
    let mut v: Vec<HintCount> = counts
        .into_iter()
        .map(|(h, n)| HintCount {
            hint: h.clone(),
            clusters: n,
        })
        .collect();
    v.sort_by(|a, b| b.clusters.cmp(&a.clusters).then(a.hint.cmp(&b.hint)));
    v
}
