//! A crawl that survives Ctrl-C and SIGKILL: its state lives in the
//! output directory and `neardup crawl --resume DIR` continues it.
//!
//! # Files in the directory
//! - `pages.jsonl`, `verdicts.jsonl`: appended as the crawl goes (not
//!   renamed into place at the end as the batch commands do);
//! - `index.redb`: the dedup index ([`neardup::RedbStore`]);
//! - `crawl-state.json`: the last checkpoint ([`Checkpoint`]): frontier
//!   queue, seen set, decider maps, counters, the byte lengths of the two
//!   `.jsonl` files and the index watermark (one past the highest index id
//!   given to a decided page);
//! - `clusters.tsv`, `clusters.json`: rebuilt from `verdicts.jsonl` at the
//!   end (and again by a resume of a finished crawl).
//!
//! # Checkpoint protocol
//! Every [`CheckpointPolicy::pages`] decided pages, every
//! [`CheckpointPolicy::interval`], at the start and at shutdown, between
//! two decisions (never in the middle of one):
//! 1. the index is flushed (one redb transaction, fsynced);
//! 2. `pages.jsonl` and `verdicts.jsonl` are flushed and fsynced, and their
//!    lengths taken;
//! 3. the state is written to a temporary file, fsynced, and renamed over
//!    `crawl-state.json` (the rename is the commit point), then the
//!    directory is fsynced.
//!
//! # Resume
//! The two `.jsonl` files are truncated to the recorded lengths, the index
//! is reopened and every page with an id at or above the watermark is
//! removed (pages decided after the checkpoint, or indexed by a flush the
//! checkpoint did not cover: ids only grow, and the crawl never removes),
//! the queue, seen set and maps are reloaded, and the URLs that were in
//! flight come first in the queue, in their dispatch order. The queue is
//! stored flat, in the order URLs were queued (every host's FIFO merged by
//! the queue's global sequence numbers; checkpoints from before per-host
//! queues have the same shape), and pushed back in that order: each host's
//! FIFO and the order between hosts come back as they were, with the
//! in-flight URLs at the head of their hosts' queues and older than any
//! other, so each goes as soon as its host is ready. Whatever was
//! decided after the checkpoint is then simply redone, in the same order,
//! so the verdicts equal an uninterrupted crawl's. With several polite
//! hosts, whose interleaving depends on timing anyway, what equals is
//! each host's own order, and the verdicts of pages with no copy on
//! another host (see the crawl module's determinism notes). Pages fetched
//! twice are at most the pages in flight plus those decided since the
//! checkpoint.
//!
//! One difference remains: a URL in flight that a later-decided redirect
//! marked as fetched is skipped (`already_fetched`) when redone, where the
//! uninterrupted crawl fetched it twice.
//!
//! The state is one JSON document rewritten at each checkpoint: its size
//! grows with the seen set, so checkpoints cost O(pages seen); the default
//! policy (every 10,000 pages or 10 s) keeps that small next to fetching
//! (every 100 pages halved the speed of a 21,000-page crawl).

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use url::Url;

use super::progress::Progress;
use crate::config::CrawlSettings;
use crate::crawl_state::CrawlState;
use crate::decider::Decider;
use crate::error::{CrawlError, Result};
use crate::frontier::pending::{Frontier, Queued};
use crate::outputs::Outputs;
use crate::summary::CrawlSummary;
use neardup::Error;
use neardup::{Match, MatchBasis, Verdict, VerdictKind};
use neardup_output::EvidenceSpool;
use neardup_output::PageRecord;
use neardup_output::{ClusterSink, OutputDir, Sink, VerdictLines};

/// Version of `crawl-state.json`.
const STATE_VERSION: u32 = 2;

impl CrawlState {
    /// A checkpoint of the crawl so far: each part from its owner.
    pub(super) fn capture<'a>(
        frontier: &Frontier,
        decider: &Decider,
        summary: &CrawlSummary,
        in_flight: impl Iterator<Item = &'a Queued>,
    ) -> CrawlState {
        CrawlState {
            frontier: frontier.to_state(in_flight),
            decider: decider.to_state(),
            summary: summary.clone(),
        }
    }

    /// Puts a checkpoint back: each part to its owner; the summary's
    /// per-run counters start again.
    pub(super) fn restore(
        self,
        frontier: &mut Frontier,
        decider: &mut Decider,
        summary: &mut CrawlSummary,
    ) {
        frontier.restore(self.frontier);
        decider.restore(self.decider);
        *summary = CrawlSummary {
            interrupted: false,
            elapsed: Duration::ZERO,
            skipped: BTreeMap::new(),
            ..self.summary
        };
    }
}

/// `crawl-state.json`: a checkpoint.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The state format's version (this module's `STATE_VERSION`).
    pub version: u32,
    /// Hash of the whole config (as JSON): a resume must use the same.
    pub config_hash: String,
    /// The detector chain.
    pub detectors: Vec<String>,
    /// The seeds (they define the scope).
    pub seeds: Vec<String>,
    /// The crawl ended on an empty frontier: nothing left to do.
    pub finished: bool,
    /// Length of `pages.jsonl` at the checkpoint.
    pub pages_len: u64,
    /// Length of `verdicts.jsonl` at the checkpoint.
    pub verdicts_len: u64,
    /// Checkpoints written so far.
    pub checkpoints: u64,
    /// The WARC output, if any.
    #[serde(default)]
    pub warc: Option<super::warc::WarcState>,
    /// The frontier and decider.
    pub state: CrawlState,
}

/// When to checkpoint.
#[derive(Clone, Copy, Debug)]
pub struct CheckpointPolicy {
    /// After this many decided pages (at least 1).
    pub pages: u64,
    /// Or after this much time.
    pub interval: Duration,
}

impl Default for CheckpointPolicy {
    fn default() -> Self {
        CheckpointPolicy {
            pages: 10_000,
            interval: Duration::from_secs(10),
        }
    }
}

/// What [`CrawlDir::resume`] found.
#[derive(Debug)]
pub enum Resumed {
    /// The crawl had finished; the cluster files were rewritten.
    Finished(Box<CrawlSummary>),
    /// Ready to continue.
    Ready(Box<CrawlDir>),
}

/// A crawl's output directory with its checkpointed state: create one with
/// [`CrawlDir::create`] or [`CrawlDir::resume`], open the index at
/// [`CrawlDir::index_path`] with [`neardup::Deduper::open`], then
/// [`super::Crawler::run_in_dir`].
#[derive(Debug)]
pub struct CrawlDir {
    dir: PathBuf,
    pages: BufWriter<File>,
    verdicts: VerdictLines<BufWriter<File>>,
    evidence: EvidenceSpool,
    meta: Checkpoint,
    policy: CheckpointPolicy,
    last: Instant,
    restored: Option<CrawlState>,
    progress: Option<Progress>,
    warc: Option<super::warc::WarcOut>,
}

/// File names inside a crawl directory.
pub const PAGES: &str = "pages.jsonl";
/// See [`PAGES`].
pub const STATE: &str = "crawl-state.json";
/// See [`PAGES`].
pub const INDEX: &str = "index.redb";

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::io(path, e)
}

fn state_err(path: &Path, message: impl std::fmt::Display) -> CrawlError {
    CrawlError::Checkpoint {
        path: path.to_owned(),
        message: message.to_string(),
    }
}

/// Hash of the config as JSON, hex. The proxy is left out: it changes
/// the route, not what is fetched, and a resume may need another one.
fn config_hash(settings: &CrawlSettings) -> Result<String> {
    let mut settings = settings.clone();
    settings.crawl.fetch.proxy.clear();
    // Every key written: the same settings hash the same whether a key was
    // spelled out or left to its default.
    let config = settings.to_config()?;
    let json = serde_json::to_vec(&config).map_err(|e| CrawlError::Config {
        key: "<config>".into(),
        value: e.to_string(),
        allowed: "a serializable config".into(),
    })?;
    Ok(format!("{:016x}", neardup_api::hash64(&json)))
}

impl CrawlDir {
    /// Starts a new crawl in `dir` (created if needed): earlier crawl
    /// files there (state, index, `.jsonl`) are replaced. Writes the
    /// responses to `warc` too, if given.
    ///
    /// # Errors
    /// If the directory or files cannot be created.
    pub fn create(
        dir: &Path,
        settings: &CrawlSettings,
        detectors: Vec<String>,
        seeds: &[Url],
        policy: CheckpointPolicy,
        warc: Option<&Path>,
    ) -> Result<CrawlDir> {
        std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        for name in [STATE, INDEX] {
            let p = dir.join(name);
            if p.exists() {
                std::fs::remove_file(&p).map_err(io_err(&p))?;
            }
        }
        let meta = Checkpoint {
            version: STATE_VERSION,
            config_hash: config_hash(settings)?,
            detectors,
            seeds: seeds.iter().map(|u| u.as_str().to_owned()).collect(),
            finished: false,
            pages_len: 0,
            verdicts_len: 0,
            checkpoints: 0,
            warc: None,
            state: CrawlState::default(),
        };
        let mut d = Self::open_files(dir, meta, policy, None)?;
        if let Some(w) = warc {
            let mut w = super::warc::WarcOut::create(w)?;
            d.meta.warc = Some(w.sync()?);
            d.warc = Some(w);
        }
        // A state file from the start: a crawl killed before its first
        // checkpoint resumes from the seeds.
        d.write_state()?;
        Ok(d)
    }

    /// Reopens the interrupted crawl in `dir`.
    ///
    /// # Errors
    /// If there is no readable `crawl-state.json`, or it was written with
    /// another config or detector chain (the message says which), or the
    /// `.jsonl` files are shorter than the checkpoint recorded.
    pub fn resume(
        dir: &Path,
        settings: &CrawlSettings,
        detectors: Vec<String>,
        policy: CheckpointPolicy,
    ) -> Result<Resumed> {
        let path = dir.join(STATE);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            state_err(
                &path,
                format!("cannot read the crawl state ({e}): is this a crawl output directory?"),
            )
        })?;
        let meta: Checkpoint = serde_json::from_str(&text)
            .map_err(|e| state_err(&path, format!("corrupt crawl state: {e}")))?;
        if meta.version != STATE_VERSION {
            return Err(state_err(
                &path,
                format!(
                    "crawl state version {}, this build reads {STATE_VERSION}",
                    meta.version
                ),
            ));
        }
        if meta.detectors != detectors {
            return Err(state_err(
                &path,
                format!(
                    "the crawl used detector chain [{}], resumed with [{}]: resume with the same \
                     --detectors/--config",
                    meta.detectors.join(", "),
                    detectors.join(", ")
                ),
            ));
        }
        let hash = config_hash(settings)?;
        if meta.config_hash != hash {
            return Err(state_err(
                &path,
                format!(
                    "the crawl used another config (hash {}, now {hash}): resume without \
                     --config to use the config it saved in {}, or with the same one",
                    meta.config_hash,
                    dir.join(neardup_output::CONFIG_TOML).display()
                ),
            ));
        }
        if meta.checkpoints == 0 {
            // Killed before the first checkpoint: start again from the seeds.
            let mut d = Self::open_files(dir, meta, policy, None)?;
            if let Some(w) = d.meta.warc.clone() {
                d.warc = Some(super::warc::WarcOut::resume(w)?);
            }
            return Ok(Resumed::Ready(Box::new(d)));
        }
        if meta.finished {
            write_clusters(dir)?;
            return Ok(Resumed::Finished(Box::new(meta.state.summary)));
        }
        for (name, len) in [
            (PAGES, meta.pages_len),
            (OutputDir::VERDICTS, meta.verdicts_len),
        ] {
            let p = dir.join(name);
            let f = OpenOptions::new()
                .write(true)
                .open(&p)
                .map_err(io_err(&p))?;
            let actual = f.metadata().map_err(io_err(&p))?.len();
            if actual < len {
                return Err(state_err(
                    &p,
                    format!("{actual} bytes, the checkpoint recorded {len}: the file was cut"),
                ));
            }
            // Lines written after the checkpoint are redone.
            f.set_len(len).map_err(io_err(&p))?;
            f.sync_all().map_err(io_err(&p))?;
        }
        let restored = Some(meta.state.clone());
        let mut d = Self::open_files(dir, meta, policy, restored)?;
        if let Some(w) = d.meta.warc.clone() {
            d.warc = Some(super::warc::WarcOut::resume(w)?);
        }
        Ok(Resumed::Ready(Box::new(d)))
    }

    fn open_files(
        dir: &Path,
        meta: Checkpoint,
        policy: CheckpointPolicy,
        restored: Option<CrawlState>,
    ) -> Result<CrawlDir> {
        let fresh = restored.is_none();
        let open = |name: &str| -> Result<BufWriter<File>> {
            let p = dir.join(name);
            let mut o = OpenOptions::new();
            o.create(true);
            if fresh {
                o.write(true).truncate(true);
            } else {
                o.append(true);
            }
            Ok(o.open(&p).map(BufWriter::new).map_err(io_err(&p))?)
        };
        let pages = open(PAGES)?;
        let verdicts = VerdictLines::new(open(OutputDir::VERDICTS)?, dir.join(OutputDir::VERDICTS));
        let evidence = EvidenceSpool::create(dir)?
            .starting_at(restored.as_ref().map_or(0, |r| r.decider.records));
        Ok(CrawlDir {
            dir: dir.to_owned(),
            pages,
            verdicts,
            evidence,
            meta,
            policy: CheckpointPolicy {
                pages: policy.pages.max(1),
                ..policy
            },
            last: Instant::now(),
            restored,
            progress: None,
            warc: None,
        })
    }

    /// The index file to open with [`neardup::Deduper::open`].
    pub fn index_path(&self) -> PathBuf {
        self.dir.join(INDEX)
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The seeds recorded in the state.
    pub fn seeds(&self) -> Vec<Url> {
        self.meta
            .seeds
            .iter()
            .filter_map(|s| Url::parse(s).ok())
            .collect()
    }

    /// Whether this continues an interrupted crawl, and how many pages it
    /// had decided.
    pub fn resumed_pages(&self) -> Option<usize> {
        self.restored.as_ref().map(|r| r.decider.records)
    }

    /// Shows a progress bar while crawling.
    pub fn show_progress(&mut self, mut progress: Progress) {
        progress.set_base(self.restored.as_ref().map_or(0, |r| r.summary.attempts));
        self.progress = Some(progress);
    }

    fn sync(&mut self) -> Result<(u64, u64)> {
        let p = self.dir.join(PAGES);
        self.pages.flush().map_err(io_err(&p))?;
        let f = self.pages.get_ref();
        f.sync_data().map_err(io_err(&p))?;
        let pages_len = f.metadata().map_err(io_err(&p))?.len();
        let v = self.dir.join(OutputDir::VERDICTS);
        let w = self.verdicts.get_mut();
        w.flush().map_err(io_err(&v))?;
        w.get_ref().sync_data().map_err(io_err(&v))?;
        let verdicts_len = w.get_ref().metadata().map_err(io_err(&v))?.len();
        Ok((pages_len, verdicts_len))
    }
}

/// Verdict lines, plus each page's blocks spooled for the report's
/// side-by-side view.
impl Sink for CrawlDir {
    fn begin(&mut self) -> neardup::Result<()> {
        self.verdicts.begin()
    }
    fn page(&mut self, page: &PageRecord) -> neardup::Result<()> {
        self.verdicts.page(page)?;
        self.evidence.page(page)
    }
    fn finish(&mut self, summary: &neardup_output::Summary) -> neardup::Result<()> {
        self.verdicts.finish(summary)
    }
}

impl Outputs for CrawlDir {
    fn pages(&mut self) -> &mut dyn Write {
        &mut self.pages
    }
    fn sink(&mut self) -> &mut dyn Sink {
        self
    }
    fn durable(&self) -> bool {
        true
    }
    fn keeps_bodies(&self) -> bool {
        self.warc.is_some()
    }
    fn checkpoint_due(&self, decided: u64) -> bool {
        decided >= self.policy.pages || self.last.elapsed() >= self.policy.interval
    }
    fn checkpoint(&mut self, state: &CrawlState) -> Result<()> {
        let (pages_len, verdicts_len) = self.sync()?;
        if let Some(w) = self.warc.as_mut() {
            self.meta.warc = Some(w.sync()?);
        }
        self.meta.pages_len = pages_len;
        self.meta.verdicts_len = verdicts_len;
        self.meta.checkpoints += 1;
        self.meta.finished = state.frontier.queue.is_empty();
        self.meta.state = state.clone();
        self.write_state()
    }
    fn answer(
        &mut self,
        key: &str,
        outcome: &crate::fetch::FetchOutcome,
        verdict: Option<&Verdict>,
    ) -> Result<()> {
        match self.warc.as_mut() {
            Some(w) => w.answer(key, outcome, verdict),
            None => Ok(()),
        }
    }
    fn progress(&mut self, summary: &CrawlSummary, queued: usize, in_flight: u64) {
        if let Some(p) = &self.progress {
            p.update(summary, queued, in_flight);
        }
    }
}

impl CrawlDir {
    /// Writes `crawl-state.json` atomically and durably (the commit point).
    fn write_state(&mut self) -> Result<()> {
        let path = self.dir.join(STATE);
        let mut tmp = tempfile::Builder::new()
            .prefix(".crawl-state.")
            .suffix(".tmp")
            .tempfile_in(&self.dir)
            .map_err(io_err(&path))?;
        serde_json::to_writer(BufWriter::new(tmp.as_file_mut()), &self.meta)
            .map_err(|e| io_err(&path)(e.into()))?;
        tmp.as_file().sync_all().map_err(io_err(&path))?;
        tmp.persist(&path).map_err(|e| io_err(&path)(e.error))?;
        if let Ok(d) = File::open(&self.dir) {
            let _ = d.sync_all();
        }
        self.last = Instant::now();
        Ok(())
    }
}

impl CrawlDir {
    /// Before a resumed crawl: drops the pages indexed after the last
    /// checkpoint. A fresh crawl must not touch the index (it may be a
    /// shared one holding other workers' pages).
    pub(crate) fn drop_unsaved(&self, deduper: &neardup::SharedDeduper) -> Result<()> {
        if let Some(watermark) = self.restored.as_ref().map(|r| r.decider.watermark) {
            let dropped = deduper.with(|d| -> Result<usize> {
                let n = d.remove_ids_from(watermark)?;
                d.flush()?;
                Ok(n)
            })??;
            if dropped > 0 {
                tracing::info!("resume: dropped {dropped} pages indexed after the last checkpoint");
            }
        }
        Ok(())
    }

    /// The state restored from the last checkpoint, taken once.
    pub(crate) fn take_restored(&mut self) -> Option<CrawlState> {
        self.restored.take()
    }

    /// After the crawl: the progress display finished, the cluster files
    /// rebuilt from `verdicts.jsonl` and `texts.jsonl` written.
    ///
    /// `verdicts.jsonl` is read once for both; `texts.jsonl` is written on
    /// a second thread while the cluster files are (a crawl's end leaves
    /// the other cores idle, and the texts are the largest of the three).
    pub(crate) fn finish(&mut self) -> Result<()> {
        if let Some(p) = &self.progress {
            p.finish();
        }
        let clusters = clusters_from_verdicts(&self.dir)?;
        let (dir, evidence) = (&self.dir, &mut self.evidence);
        std::thread::scope(|scope| {
            // The report's evidence for the clusters of the whole crawl,
            // from the pages this run spooled: after `--resume`, pages
            // decided by earlier runs have no text there and the report
            // says so.
            let texts = scope.spawn(|| evidence.write_for_clusters(dir, &clusters));
            let files = write_cluster_files(dir, &clusters);
            let texts = texts
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            files.and(texts.map_err(Into::into))
        })
    }
}

/// One line of `verdicts.jsonl`, as read back.
#[derive(Deserialize)]
struct VerdictIn {
    doc_id: Option<String>,
    url: Option<String>,
    site: Option<String>,
    #[serde(default)]
    title: Option<String>,
    verdict: String,
    of: Option<String>,
    of_url: Option<String>,
    similarity: Option<f64>,
    containment: Option<f64>,
    #[serde(default)]
    covered: Option<f64>,
    detector: Option<String>,
    reason: Option<String>,
    #[serde(default)]
    warnings: Vec<String>,
}

/// Rebuilds `clusters.tsv` and `clusters.json` from `verdicts.jsonl`.
///
/// # Errors
/// If `verdicts.jsonl` cannot be read or has a line that is not a verdict,
/// or a cluster file cannot be written.
pub fn write_clusters(dir: &Path) -> Result<()> {
    write_cluster_files(dir, &clusters_from_verdicts(dir)?)
}

/// Writes `clusters.tsv` and `clusters.json` of `clusters` into `dir`.
fn write_cluster_files(dir: &Path, clusters: &ClusterSink) -> Result<()> {
    for (name, tsv) in [
        (OutputDir::CLUSTERS_TSV, true),
        (OutputDir::CLUSTERS_JSON, false),
    ] {
        let p = dir.join(name);
        let mut f = neardup_output::AtomicFile::create(&p)?;
        let r = if tsv {
            clusters.write_tsv(&mut f)
        } else {
            clusters.write_json(&mut f)
        };
        r.map_err(io_err(&p))?;
        f.commit()?;
    }
    Ok(())
}

/// The clusters of the pages in `dir`'s `verdicts.jsonl`.
///
/// # Errors
/// If `verdicts.jsonl` cannot be read or has a line that is not a verdict.
pub fn clusters_from_verdicts(dir: &Path) -> Result<ClusterSink> {
    let path = dir.join(OutputDir::VERDICTS);
    let file = File::open(&path).map_err(io_err(&path))?;
    let mut clusters = ClusterSink::new();
    let mut positions: std::collections::HashMap<String, usize> = Default::default();
    for (n, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(io_err(&path))?;
        let v: VerdictIn = serde_json::from_str(&line)
            .map_err(|e| state_err(&path, format!("line {}: {e}", n + 1)))?;
        let kind = match v.verdict.as_str() {
            "unique" => VerdictKind::Unique,
            "duplicate" => VerdictKind::Duplicate,
            "near_duplicate" => VerdictKind::NearDuplicate,
            other => {
                return Err(state_err(
                    &path,
                    format!("line {}: unknown verdict {other:?}", n + 1),
                ))
            }
        };
        let key = v.doc_id.unwrap_or_default();
        let position = positions.len();
        let of = v.of.as_ref().and_then(|o| positions.get(o).copied());
        // The file names pages by key, not index id.
        let matched = v.of.map(|of| Match {
            id: None,
            url: v.of_url.unwrap_or_else(|| of.clone()),
            key: of,
            basis: MatchBasis::from_name(&v.detector.unwrap_or_default()),
            similarity: v.similarity.unwrap_or(0.0),
            resemblance: 0.0,
            containment: v.containment.unwrap_or(0.0),
            reason: v.reason.unwrap_or_default(),
            covered: v.covered,
        });
        positions.insert(key.clone(), position);
        clusters.page(&PageRecord {
            position,
            url: v.url.unwrap_or_else(|| key.clone()),
            key,
            site: v.site.unwrap_or_default(),
            bytes: 0,
            title: v.title.unwrap_or_default(),
            verdict: Verdict {
                kind,
                contained_in: None,
                matched,
                indexed_as: None,
                stored_as: None,
                redirect: None,
                warnings: v.warnings,
            },
            of,
            blocks: Vec::new(),
            roles: Vec::new(),
        })?;
    }
    Ok(clusters)
}
