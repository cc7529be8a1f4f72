//! [`OutputDir`]: every output file of a run in one directory, and the
//! run's `config.toml` ([`write_config`]).

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::clusters::ClusterSink;
use crate::evidence::EvidenceSpool;
use crate::files::{AtomicFile, PartialFile};
use crate::record::{InputWarning, PageRecord, Summary};
use crate::sink::Sink;
use crate::verdicts::VerdictLines;
use neardup::{Error, Result};

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
    evidence: EvidenceSpool,
}

impl OutputDir {
    /// File names inside the directory.
    pub const VERDICTS: &'static str = crate::verdicts::FILE;
    /// The verdicts of a run not finished yet (or killed, or failed).
    pub const VERDICTS_PARTIAL: &'static str = "verdicts.jsonl.partial";
    /// See [`OutputDir::VERDICTS`].
    pub const CLUSTERS_TSV: &'static str = "clusters.tsv";
    /// See [`OutputDir::VERDICTS`].
    pub const CLUSTERS_JSON: &'static str = "clusters.json";
    /// See [`OutputDir::VERDICTS`].
    pub const TEXTS: &'static str = EvidenceSpool::FILE;

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
            evidence: EvidenceSpool::create(dir)?,
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
}

/// Writes `dir/name` atomically with `f`.
fn write_file(
    dir: &Path,
    name: &str,
    f: impl FnOnce(&mut AtomicFile) -> std::io::Result<()>,
) -> Result<()> {
    let path = dir.join(name);
    let mut file = AtomicFile::create(&path)?;
    f(&mut file).map_err(|e| Error::io(&path, e))?;
    file.commit()
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
        // texts.jsonl, the largest, on a second thread while the cluster
        // files are written: the run's end leaves the other cores idle.
        let (dir, clusters, evidence) = (&self.dir, &self.clusters, &mut self.evidence);
        std::thread::scope(|scope| {
            let texts = scope.spawn(|| evidence.write_for_clusters(dir, clusters));
            let files = write_file(dir, Self::CLUSTERS_TSV, |f| clusters.write_tsv(f))
                .and_then(|()| write_file(dir, Self::CLUSTERS_JSON, |f| clusters.write_json(f)));
            let texts = texts
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            files.and(texts)
        })
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
    use crate::testing::{feed, record};

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
}
