//! `clusters.tsv` and `clusters.json`: [`ClusterSink`] collects the
//! cluster assignment during a run and renders both files at its end.

use std::io::Write;

use serde::Serialize;

use crate::record::{InputWarning, PageRecord};
use crate::sink::Sink;
use crate::verdicts::VERDICTS_FORMAT;
use neardup::Result;
use neardup::{assign, summarize, ClusterReport, Member};

/// Collects what clustering needs per page (no bodies, a few strings), and
/// renders the cluster files once the run is over.
#[derive(Debug, Default)]
pub struct ClusterSink {
    members: Vec<Member>,
    input_errors: Vec<InputWarning>,
}

/// Totals at the top of `clusters.json`.
#[derive(Serialize)]
struct Totals {
    pages: usize,
    unique: usize,
    duplicates: usize,
    near_duplicates: usize,
    duplicate_rate: f64,
    clusters: usize,
    input_errors: usize,
}

/// An unreadable record in `clusters.json`.
#[derive(Serialize)]
struct InputErrorJson<'a> {
    location: &'a str,
    message: &'a str,
}

/// The whole of `clusters.json`.
#[derive(Serialize)]
struct ClustersJson<'a> {
    /// [`VERDICTS_FORMAT`] of the `verdicts.jsonl` beside this file.
    verdicts_format: u32,
    totals: Totals,
    #[serde(flatten)]
    report: &'a ClusterReport,
    input_errors: Vec<InputErrorJson<'a>>,
}

impl ClusterSink {
    /// An empty collector.
    pub fn new() -> ClusterSink {
        ClusterSink::default()
    }

    /// Records an input record that could not be read, for
    /// `clusters.json`'s `input_errors`.
    pub fn input_error(&mut self, warning: &InputWarning) {
        self.input_errors.push(warning.clone());
    }

    /// The pages seen so far, in processing order.
    pub fn members(&self) -> &[Member] {
        &self.members
    }

    /// `(doc_id, cluster_id)` for every page, in processing order; the
    /// cluster id is the key of the cluster's first page.
    pub fn assignment(&self) -> Vec<(&str, &str)> {
        let roots = assign(&self.members);
        self.members
            .iter()
            .zip(roots)
            .map(|(m, r)| {
                let rep = self.members.get(r).unwrap_or(m);
                (m.key.as_str(), rep.key.as_str())
            })
            .collect()
    }

    /// Writes `clusters.tsv`.
    ///
    /// # Errors
    /// Write errors.
    pub fn write_tsv(&self, out: &mut dyn Write) -> std::io::Result<()> {
        // Keys come from file names, manifests or WARC headers and may hold
        // any character: fields are quoted as RFC 4180 says, with a tab
        // delimiter (Python's `excel-tab` dialect, pandas `sep="\t"`), and
        // only when needed, so plain keys are written as they are.
        let mut w = csv::WriterBuilder::new()
            .delimiter(b'\t')
            .quote_style(csv::QuoteStyle::Necessary)
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(out);
        w.write_record(["doc_id", "cluster_id"])?;
        for (doc, cluster) in self.assignment() {
            w.write_record([doc, cluster])?;
        }
        w.flush()
    }

    /// The cluster report (per site, cross-site).
    pub fn report(&self) -> ClusterReport {
        summarize(&self.members, &assign(&self.members))
    }

    /// Writes `clusters.json` (pretty-printed, keys in a fixed order).
    ///
    /// # Errors
    /// Write errors.
    pub fn write_json(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let report = self.report();
        let count = |k: neardup::VerdictKind| self.members.iter().filter(|m| m.kind == k).count();
        let pages = self.members.len();
        let unique = count(neardup::VerdictKind::Unique);
        let totals = Totals {
            pages,
            unique,
            duplicates: count(neardup::VerdictKind::Duplicate),
            near_duplicates: count(neardup::VerdictKind::NearDuplicate),
            duplicate_rate: if pages == 0 {
                0.0
            } else {
                (pages - unique) as f64 / pages as f64
            },
            clusters: report
                .sites
                .values()
                .map(|s| s.clusters.len())
                .sum::<usize>()
                + report.cross_site.len(),
            input_errors: self.input_errors.len(),
        };
        let json = ClustersJson {
            verdicts_format: VERDICTS_FORMAT,
            totals,
            report: &report,
            input_errors: self
                .input_errors
                .iter()
                .map(|w| InputErrorJson {
                    location: &w.location,
                    message: &w.message,
                })
                .collect(),
        };
        serde_json::to_writer_pretty(&mut *out, &json)?;
        out.write_all(b"\n")
    }
}

impl Sink for ClusterSink {
    fn page(&mut self, page: &PageRecord) -> Result<()> {
        let m = page.verdict.matched.as_ref();
        self.members.push(Member {
            key: page.key.clone(),
            url: page.url.clone(),
            site: page.site.clone(),
            kind: page.verdict.kind,
            of: page.of,
            similarity: m.map_or(0.0, |m| m.similarity),
            containment: m.map_or(0.0, |m| m.containment),
            detector: m.map(|m| m.basis.name().to_owned()),
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::record;

    #[test]
    fn odd_keys_are_quoted_and_read_back_by_the_csv_crate() {
        let keys = ["a\tb", "\"quoted", "line\nbreak", "cr\rx", "plain", "x\"y"];
        let mut c = ClusterSink::new();
        for (i, k) in keys.iter().enumerate() {
            c.page(&record(i, k, "x.com", None)).unwrap();
        }
        let mut out = Vec::new();
        c.write_tsv(&mut out).unwrap();
        let text = String::from_utf8(out.clone()).unwrap();
        assert!(
            text.contains("\nplain\tplain\n"),
            "plain keys unquoted: {text:?}"
        );
        assert!(text.contains("\"\"\"quoted\""), "{text:?}");
        let mut r = csv::ReaderBuilder::new()
            .delimiter(b'\t')
            .from_reader(out.as_slice());
        let rows: Vec<(String, String)> = r
            .records()
            .map(|rec| {
                let rec = rec.unwrap();
                (rec[0].to_string(), rec[1].to_string())
            })
            .collect();
        let expected: Vec<(String, String)> = keys
            .iter()
            .map(|k| (k.to_string(), k.to_string()))
            .collect();
        assert_eq!(rows, expected);
    }
}
