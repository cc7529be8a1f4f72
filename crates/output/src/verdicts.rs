//! `verdicts.jsonl`: one [`VerdictLine`] per page, written by
//! [`VerdictLines`] and read back by [`VerdictLine::parse`].

use std::io::Write;
use std::path::PathBuf;

use serde::Serialize;

use crate::record::{InputWarning, PageRecord, Summary};
use crate::sink::Sink;
use neardup::{Error, Result};

/// The file's name (`OutputDir::VERDICTS`).
pub(crate) const FILE: &str = "verdicts.jsonl";

/// The version of the `verdicts.jsonl` format (see the crate docs),
/// recorded in `clusters.json` as `verdicts_format`. A rename or removal
/// of a field bumps it; adding a field does not.
pub const VERDICTS_FORMAT: u32 = 1;

/// One line of `verdicts.jsonl` (format 1): a page and its
/// [`Verdict`](neardup::Verdict) flattened by [`VerdictLine::of_page`], the
/// one place the mapping lives (`docs/verdicts.md`).
///
/// Index ids (`matched.id`, `indexed_as`) are handles into the index the
/// API serves, not identities: a resumed crawl skips the ids of pages it
/// redoes. The file names pages by key instead (`doc_id`, `of`) and says
/// only whether the page was indexed.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct VerdictLine {
    /// The page's key (null on an error line).
    pub doc_id: Option<String>,
    /// The page's URL.
    pub url: Option<String>,
    /// The page's site.
    pub site: Option<String>,
    /// The page's `<title>` (empty without one; absent on error lines and
    /// in outputs written before titles were recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `kind`: `unique`, `duplicate`, `near_duplicate`; `error` for an
    /// input record that could not be read.
    pub verdict: String,
    /// `matched.key`.
    pub of: Option<String>,
    /// `matched.url`.
    pub of_url: Option<String>,
    /// `matched.similarity`.
    pub similarity: Option<f64>,
    /// `matched.resemblance` (absent for unique pages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resemblance: Option<f64>,
    /// `matched.containment`.
    pub containment: Option<f64>,
    /// `matched.covered` (absent when the match was not made by content).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covered: Option<f64>,
    /// `matched.detector`.
    pub detector: Option<String>,
    /// `matched.reason`.
    pub reason: Option<String>,
    /// Body size in bytes (absent on error lines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<usize>,
    /// Where an unreadable record was (error lines only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// `indexed_as.is_some()` (absent on error lines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indexed: Option<bool>,
    /// `redirect.to`: the target of a redirect stub (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_to: Option<String>,
    /// `redirect.kind`: `meta_refresh` or `link_stub` (absent when not a
    /// redirect stub).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_kind: Option<String>,
    /// `contained_in`: the earlier, much larger page that holds this kept
    /// page's content (a chapter's print view, an all-in-one page);
    /// absent otherwise. A relation, not a drop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contained_in: Option<ContainedIn>,
    /// `warnings`; on an error line, the message.
    #[serde(default)]
    pub warnings: Vec<String>,
}

/// The page a kept page is contained in (`contained_in` of a verdict line).
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct ContainedIn {
    /// Its key.
    pub of: String,
    /// Its URL.
    pub of_url: String,
    /// Share of the kept page's own content in it.
    pub covered: Option<f64>,
    /// What was measured.
    pub reason: String,
}

impl VerdictLine {
    /// The line for a page with key `doc_id`: the mapping from the
    /// library's [`Verdict`](neardup::Verdict).
    pub fn of_page(
        doc_id: &str,
        url: &str,
        site: &str,
        bytes: usize,
        verdict: &neardup::Verdict,
    ) -> VerdictLine {
        let m = verdict.matched.as_ref();
        VerdictLine {
            doc_id: Some(doc_id.to_owned()),
            url: Some(url.to_owned()),
            site: Some(site.to_owned()),
            title: None,
            verdict: verdict.kind.as_str().to_owned(),
            of: m.map(|m| m.key.clone()),
            of_url: m.map(|m| m.url.clone()),
            similarity: m.map(|m| m.similarity),
            resemblance: m.map(|m| m.resemblance),
            containment: m.map(|m| m.containment),
            covered: m.and_then(|m| m.covered),
            detector: m.map(|m| m.basis.name().to_owned()),
            reason: m.map(|m| m.reason.clone()),
            bytes: Some(bytes),
            location: None,
            indexed: Some(verdict.indexed_as.is_some()),
            redirect_to: verdict.redirect.as_ref().map(|r| r.to.clone()),
            redirect_kind: verdict
                .redirect
                .as_ref()
                .map(|r| r.kind.as_str().to_owned()),
            contained_in: verdict.contained_in.as_ref().map(|c| ContainedIn {
                of: c.key.clone(),
                of_url: c.url.clone(),
                covered: c.covered,
                reason: c.reason.clone(),
            }),
            warnings: verdict.warnings.clone(),
        }
    }

    /// This line with the page's `title` (what a sink that has the page
    /// writes; [`VerdictLine::of_page`] maps the verdict alone).
    pub fn with_title(mut self, title: &str) -> VerdictLine {
        self.title = Some(title.to_owned());
        self
    }

    /// The line for an input record that could not be read.
    pub fn of_input_error(warning: &InputWarning) -> VerdictLine {
        VerdictLine {
            doc_id: None,
            url: None,
            site: None,
            title: None,
            verdict: "error".to_owned(),
            of: None,
            of_url: None,
            similarity: None,
            resemblance: None,
            containment: None,
            covered: None,
            detector: None,
            reason: None,
            bytes: None,
            location: Some(warning.location.clone()),
            indexed: None,
            redirect_to: None,
            redirect_kind: None,
            contained_in: None,
            warnings: vec![warning.message.clone()],
        }
    }

    /// Parses one line of `verdicts.jsonl`.
    ///
    /// # Errors
    /// [`Error::Input`] when the line is not a format-1 verdict line.
    pub fn parse(line: &str) -> Result<VerdictLine> {
        serde_json::from_str(line).map_err(|e| Error::Input {
            path: PathBuf::from(FILE),
            message: format!("not a verdicts.jsonl line: {e}"),
        })
    }
}

/// Writes `verdicts.jsonl` lines to `W`.
#[derive(Debug)]
pub struct VerdictLines<W: Write> {
    out: W,
    /// Where `out` goes, for error messages.
    name: PathBuf,
}

impl<W: Write> VerdictLines<W> {
    /// Lines go to `out`; `name` labels write errors.
    pub fn new(out: W, name: impl Into<PathBuf>) -> VerdictLines<W> {
        VerdictLines {
            out,
            name: name.into(),
        }
    }

    /// The writer back (flushed by [`Sink::finish`]).
    pub fn into_inner(self) -> W {
        self.out
    }

    /// The writer (to flush and sync it at a checkpoint).
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }

    /// Writes the error line of an input record that could not be read.
    ///
    /// # Errors
    /// Write errors.
    pub fn input_error(&mut self, warning: &InputWarning) -> Result<()> {
        self.line(&VerdictLine::of_input_error(warning))
    }

    fn line(&mut self, line: &VerdictLine) -> Result<()> {
        let io = |e: std::io::Error| Error::io(&self.name, e);
        serde_json::to_writer(&mut self.out, line).map_err(|e| io(e.into()))?;
        self.out.write_all(b"\n").map_err(io)
    }
}

impl<W: Write> Sink for VerdictLines<W> {
    fn page(&mut self, page: &PageRecord) -> Result<()> {
        self.line(
            &VerdictLine::of_page(&page.key, &page.url, &page.site, page.bytes, &page.verdict)
                .with_title(&page.title),
        )
    }

    fn finish(&mut self, _: &Summary) -> Result<()> {
        self.out.flush().map_err(|e| Error::io(&self.name, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::feed;

    #[test]
    fn verdict_lines_have_every_field_and_error_lines() {
        let mut v = VerdictLines::new(Vec::new(), "mem");
        feed(&mut v, VerdictLines::input_error);
        let text = String::from_utf8(v.into_inner()).unwrap();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0]["doc_id"], "a");
        assert_eq!(lines[0]["verdict"], "unique");
        assert!(lines[0]["of"].is_null());
        assert_eq!(lines[1]["verdict"], "duplicate");
        assert_eq!(lines[1]["of"], "a");
        assert_eq!(lines[1]["of_url"], "https://y.com/a");
        assert_eq!(lines[1]["containment"], 0.5);
        assert_eq!(lines[1]["detector"], "exact");
        assert_eq!(lines[1]["site"], "y.com");
        assert_eq!(lines[0]["indexed"], true);
        assert!(lines[0].get("resemblance").is_none());
        assert!(lines[1]["resemblance"].is_number());
        assert!(lines[2].get("indexed").is_none());
        // Every line reads back as what was written.
        for l in text.lines() {
            let parsed = VerdictLine::parse(l).unwrap();
            assert_eq!(serde_json::to_string(&parsed).unwrap(), l);
        }
        assert_eq!(lines[2]["verdict"], "error");
        assert!(lines[2]["doc_id"].is_null());
        assert_eq!(lines[2]["location"], "m.tsv:4");
        assert_eq!(lines[2]["warnings"][0], "gone");
        assert_eq!(lines[3]["warnings"][0], "w1");
    }
}
