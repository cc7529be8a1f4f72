//! Output files of a run: verdicts.jsonl, clusters.tsv, clusters.json.
//!
//! A run pushes its outcomes into a [`Sink`] (after ripgrep's `Sink`): the
//! driver (the batch runner, the crawler) calls [`Sink::begin`], then
//! [`Sink::page`] once per page in processing order, then [`Sink::finish`]
//! with the [`Summary`]. Push keeps the driver in charge of order and
//! threads; sinks only format. Several sinks run side by side as a
//! `Vec<&mut dyn Sink>`. An input record that could not be read (batch
//! runs only) is not a page: the sinks here take it by their own
//! `input_error` method, which the batch runner calls in its place in the
//! order.
//!
//! Implementations:
//! - [`VerdictLines`]: one JSON object per page (and per unreadable record)
//!   to any writer;
//! - [`ClusterSink`]: collects the cluster assignment, then renders
//!   `clusters.tsv` and `clusters.json`, and gives predictions to `eval`;
//! - [`OutputDir`]: all three files in a directory. The cluster files are
//!   written to a temporary file beside them and renamed into place at the
//!   end, so readers (and a crash) never see a half-written one;
//!   `verdicts.jsonl` is appended as `verdicts.jsonl.partial` as the run
//!   goes (flushed at each [`Sink::checkpoint`]) and renamed to
//!   `verdicts.jsonl` at the end, so a killed run's verdicts can be read.
//!
//! # File formats
//! `verdicts.jsonl` (format 1, [`VERDICTS_FORMAT`]): one [`VerdictLine`]
//! per page, in processing order: the page (`doc_id`, `url`, `site`,
//! `bytes`, `title`) and its [`Verdict`](neardup::Verdict) flattened (`verdict` is
//! `kind`; `of`, `of_url`, `similarity`, `resemblance`, `containment`,
//! `covered`, `detector`, `reason` are the `matched` fields; `indexed`,
//! `redirect_to` and `redirect_kind` (a redirect stub's `redirect`),
//! `contained_in` (`of`, `of_url`, `covered`, `reason` of the verdict's
//! `contained_in`: a kept page inside a much larger earlier page) and
//! `warnings`). The mapping is [`VerdictLine::of_page`] and
//! `docs/verdicts.md`; within format 1 fields are only ever added. An input
//! record that could not be read gives a line with `"verdict": "error"`,
//! `doc_id` null, its `location` and the message in `warnings`.
//!
//! `clusters.tsv`: header `doc_id<TAB>cluster_id`, then every page exactly
//! once in processing order. Tab-separated with RFC 4180 quoting: a field
//! holding a tab, a newline, a carriage return or a double quote is written
//! in double quotes, its quotes doubled (what Python's `csv` with the
//! `excel-tab` dialect, pandas `read_csv(sep="\t")` and the `csv` crate
//! read); other fields as they are; `cluster_id` is the doc_id of the cluster's
//! representative (its first page processed), so ids do not depend on
//! threads or runs. The scorer reads it directly.
//!
//! `clusters.json`: totals, per-site counts with the clusters inside the
//! site, clusters spanning several sites, and unreadable records.
//!
//! `texts.jsonl`: the extracted blocks of the clustered pages, for the
//! report's side-by-side view; see [`EvidenceSpool`](crate::EvidenceSpool).

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::record::{InputWarning, PageRecord, Summary};
use neardup::{assign, summarize, ClusterReport, Member};
use neardup::{Error, Result};

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

/// The version of the `verdicts.jsonl` format (see the module docs),
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
            path: PathBuf::from(OutputDir::VERDICTS),
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

/// A file written under a temporary name in its final directory and
/// renamed over the final name by [`AtomicFile::commit`]. Dropped without a
/// commit, the temporary file is removed and the final name is untouched.
#[derive(Debug)]
pub struct AtomicFile {
    out: std::io::BufWriter<tempfile::NamedTempFile>,
    path: PathBuf,
}

impl AtomicFile {
    /// Starts writing `path` (its directory must exist).
    ///
    /// # Errors
    /// If the temporary file cannot be created.
    pub fn create(path: &Path) -> Result<AtomicFile> {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let prefix = format!(".{name}.");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".tmp");
        // Temporary files are owner-only by default; output files should
        // get the usual mode (0666 less the umask), like any created file.
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let tmp = builder.tempfile_in(dir).map_err(|e| Error::io(path, e))?;
        Ok(AtomicFile {
            out: std::io::BufWriter::new(tmp),
            path: path.to_owned(),
        })
    }

    /// The final path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes, syncs to disk, and renames the file into place.
    ///
    /// # Errors
    /// If any of those fails; the final name is then untouched.
    pub fn commit(self) -> Result<()> {
        let path = self.path;
        let tmp = self
            .out
            .into_inner()
            .map_err(|e| Error::io(&path, e.into_error()))?;
        // Data before name: without the sync a crash just after the rename
        // could leave an empty file under the final name on some filesystems.
        tmp.as_file().sync_all().map_err(|e| Error::io(&path, e))?;
        tmp.persist(&path).map_err(|e| Error::io(&path, e.error))?;
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.out.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// A file appended under a visible temporary name (`NAME.partial`) and
/// renamed to its final name by [`PartialFile::commit`]. Unlike
/// [`AtomicFile`] it stays when dropped: it holds what a killed or failed
/// run wrote.
#[derive(Debug)]
pub struct PartialFile {
    /// Large enough for a window of verdict lines: one write per checkpoint.
    out: std::io::BufWriter<std::fs::File>,
    partial: PathBuf,
    path: PathBuf,
}

impl PartialFile {
    /// Starts `partial` afresh (truncating what an earlier run left); it
    /// becomes `path` on commit.
    ///
    /// # Errors
    /// If the file cannot be created.
    pub fn create(partial: &Path, path: &Path) -> Result<PartialFile> {
        let file = std::fs::File::create(partial).map_err(|e| Error::io(partial, e))?;
        Ok(PartialFile {
            out: std::io::BufWriter::with_capacity(1 << 20, file),
            partial: partial.to_owned(),
            path: path.to_owned(),
        })
    }

    /// Flushes, syncs to disk, and renames the file to its final name.
    ///
    /// # Errors
    /// If any of those fails; the final name is then untouched.
    pub fn commit(self) -> Result<()> {
        let file = self
            .out
            .into_inner()
            .map_err(|e| Error::io(&self.partial, e.into_error()))?;
        file.sync_all().map_err(|e| Error::io(&self.partial, e))?;
        std::fs::rename(&self.partial, &self.path).map_err(|e| Error::io(&self.path, e))
    }
}

impl Write for PartialFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.out.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// Writes `verdicts.jsonl`, `clusters.tsv` and `clusters.json` into a
/// directory. Nothing appears under the final names before
/// [`Sink::finish`]; a failed or killed run leaves earlier files as they
/// were, and the verdict lines it acknowledged in
/// [`OutputDir::VERDICTS_PARTIAL`] (complete lines up to its last
/// [`Sink::checkpoint`]; a kill in the middle of a write can leave a last
/// line without its newline, which readers skip). The next run starts that
/// file again and renames it to `verdicts.jsonl` when it finishes.
#[derive(Debug)]
pub struct OutputDir {
    dir: PathBuf,
    verdicts: Option<VerdictLines<PartialFile>>,
    clusters: ClusterSink,
    evidence: crate::evidence::EvidenceSpool,
}

impl OutputDir {
    /// File names inside the directory.
    pub const VERDICTS: &'static str = "verdicts.jsonl";
    /// The verdicts of a run not finished yet (or killed, or failed).
    pub const VERDICTS_PARTIAL: &'static str = "verdicts.jsonl.partial";
    /// See [`OutputDir::VERDICTS`].
    pub const CLUSTERS_TSV: &'static str = "clusters.tsv";
    /// See [`OutputDir::VERDICTS`].
    pub const CLUSTERS_JSON: &'static str = "clusters.json";
    /// See [`OutputDir::VERDICTS`].
    pub const TEXTS: &'static str = crate::evidence::EvidenceSpool::FILE;

    /// Creates `dir` if needed and starts `verdicts.jsonl`, so an
    /// unwritable directory fails before any page is processed.
    ///
    /// # Errors
    /// If the directory or the temporary file cannot be created.
    pub fn create(dir: &Path) -> Result<OutputDir> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let file =
            PartialFile::create(&dir.join(Self::VERDICTS_PARTIAL), &dir.join(Self::VERDICTS))?;
        let path = dir.join(Self::VERDICTS);
        Ok(OutputDir {
            dir: dir.to_owned(),
            verdicts: Some(VerdictLines::new(file, path)),
            clusters: ClusterSink::new(),
            evidence: crate::evidence::EvidenceSpool::create(dir)?,
        })
    }

    /// The clusters collected so far (complete after the run).
    pub fn clusters(&self) -> &ClusterSink {
        &self.clusters
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Records an input record that could not be read: an error line in
    /// `verdicts.jsonl`, an entry of `clusters.json`'s `input_errors`.
    ///
    /// # Errors
    /// Write errors.
    pub fn input_error(&mut self, warning: &InputWarning) -> Result<()> {
        if let Some(v) = self.verdicts.as_mut() {
            v.input_error(warning)?;
        }
        self.clusters.input_error(warning);
        Ok(())
    }

    fn write_with(
        &self,
        name: &str,
        f: impl FnOnce(&mut AtomicFile) -> std::io::Result<()>,
    ) -> Result<()> {
        let path = self.dir.join(name);
        let mut file = AtomicFile::create(&path)?;
        f(&mut file).map_err(|e| Error::io(&path, e))?;
        file.commit()
    }
}

impl Sink for OutputDir {
    fn page(&mut self, page: &PageRecord) -> Result<()> {
        if let Some(v) = self.verdicts.as_mut() {
            v.page(page)?;
        }
        self.evidence.page(page)?;
        self.clusters.page(page)
    }

    /// Hands the lines so far to the operating system (a killed process
    /// loses none of them; no fsync: after a power loss the file may lack
    /// the last ones, the index does not).
    fn checkpoint(&mut self) -> Result<()> {
        match self.verdicts.as_mut() {
            Some(v) => {
                let path = self.dir.join(Self::VERDICTS_PARTIAL);
                v.get_mut().flush().map_err(|e| Error::io(&path, e))
            }
            None => Ok(()),
        }
    }

    fn finish(&mut self, summary: &Summary) -> Result<()> {
        if let Some(mut v) = self.verdicts.take() {
            v.finish(summary)?;
            v.into_inner().commit()?;
        }
        self.write_with(Self::CLUSTERS_TSV, |f| self.clusters.write_tsv(f))?;
        self.write_with(Self::CLUSTERS_JSON, |f| self.clusters.write_json(f))?;
        let roots = assign(self.clusters.members());
        let needed = crate::evidence::needed_positions(&roots);
        let path = self.dir.join(Self::TEXTS);
        let mut file = AtomicFile::create(&path)?;
        self.evidence.write_selected(&needed, &mut file)?;
        file.commit()
    }
}

/// The run's configuration, written by `dedup` and `crawl` for the report.
pub const CONFIG_TOML: &str = "config.toml";

/// Writes the run's configuration as `DIR/config.toml` for the report.
///
/// # Errors
/// Serialization or write errors.
pub fn write_config(dir: &Path, config: &neardup::Config) -> Result<()> {
    let path = dir.join(CONFIG_TOML);
    let text = toml::to_string_pretty(config).map_err(|e| Error::Input {
        path: path.clone(),
        message: format!("cannot write the config as TOML: {e}"),
    })?;
    let mut f = AtomicFile::create(&path)?;
    f.write_all(text.as_bytes())
        .map_err(|e| Error::io(&path, e))?;
    f.commit()
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup::{Match, Verdict, VerdictKind};

    fn record(position: usize, key: &str, site: &str, of: Option<(usize, &str)>) -> PageRecord {
        let matched = of.map(|(_, k)| Match {
            id: None,
            key: k.into(),
            url: format!("https://{site}/{k}"),
            basis: neardup::MatchBasis::Detector("exact".into()),
            similarity: 1.0,
            resemblance: 1.0,
            containment: 0.5,
            reason: "same words".into(),
            covered: None,
        });
        PageRecord {
            position,
            key: key.into(),
            url: format!("https://{site}/{key}"),
            site: site.into(),
            bytes: 10,
            title: String::new(),
            verdict: Verdict {
                kind: if of.is_some() {
                    VerdictKind::Duplicate
                } else {
                    VerdictKind::Unique
                },
                indexed_as: of.is_none().then_some(position as u32),
                contained_in: None,
                matched,
                stored_as: None,
                redirect: None,
                warnings: if key == "c" {
                    vec!["w1".into()]
                } else {
                    vec![]
                },
            },
            of: of.map(|(p, _)| p),
            blocks: Vec::new(),
            roles: Vec::new(),
        }
    }

    /// Three pages and, between the second and the third, an unreadable
    /// record given to `input_error` (the sink's own method).
    fn feed<S: Sink>(sink: &mut S, input_error: impl Fn(&mut S, &InputWarning) -> Result<()>) {
        sink.begin().unwrap();
        sink.page(&record(0, "a", "x.com", None)).unwrap();
        sink.page(&record(1, "b", "y.com", Some((0, "a")))).unwrap();
        input_error(
            sink,
            &InputWarning {
                location: "m.tsv:4".into(),
                message: "gone".into(),
            },
        )
        .unwrap();
        sink.page(&record(2, "c", "x.com", None)).unwrap();
        sink.finish(&Summary::default()).unwrap();
    }

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

    #[test]
    fn output_dir_writes_three_files_and_no_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let mut sink = OutputDir::create(&out).unwrap();
        feed(&mut sink, OutputDir::input_error);
        let tsv = std::fs::read_to_string(out.join("clusters.tsv")).unwrap();
        assert_eq!(tsv, "doc_id\tcluster_id\na\ta\nb\ta\nc\tc\n");
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("clusters.json")).unwrap())
                .unwrap();
        assert_eq!(json["totals"]["pages"], 3);
        assert_eq!(json["totals"]["duplicates"], 1);
        assert_eq!(json["totals"]["clusters"], 1);
        assert_eq!(json["sites"]["x.com"]["pages"], 2);
        assert_eq!(json["cross_site"][0]["id"], "a");
        assert_eq!(json["input_errors"][0]["location"], "m.tsv:4");
        assert_eq!(
            std::fs::read_to_string(out.join("verdicts.jsonl"))
                .unwrap()
                .lines()
                .count(),
            4
        );
        let names: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        // verdicts.jsonl, clusters.tsv, clusters.json, texts.jsonl.
        assert_eq!(names.len(), 4, "{names:?}");
    }

    #[test]
    fn unfinished_output_dir_leaves_only_its_partial_verdicts() {
        let dir = tempfile::tempdir().unwrap();
        let partial = dir.path().join(OutputDir::VERDICTS_PARTIAL);
        {
            let mut sink = OutputDir::create(dir.path()).unwrap();
            sink.page(&record(0, "a", "x.com", None)).unwrap();
            sink.checkpoint().unwrap();
            // Readable as soon as the checkpoint is over, before any end.
            let text = std::fs::read_to_string(&partial).unwrap();
            assert_eq!(text.lines().count(), 1, "{text}");
            assert!(text.ends_with('\n'));
            // Dropped without finish: a failed run.
        }
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, [OutputDir::VERDICTS_PARTIAL]);
        // The next run starts it afresh and renames it at the end.
        let mut sink = OutputDir::create(dir.path()).unwrap();
        assert_eq!(std::fs::read(&partial).unwrap().len(), 0);
        feed(&mut sink, OutputDir::input_error);
        assert!(!partial.exists());
        assert_eq!(
            std::fs::read_to_string(dir.path().join(OutputDir::VERDICTS))
                .unwrap()
                .lines()
                .count(),
            4
        );
    }

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
