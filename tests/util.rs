//! Helpers: a fresh temporary directory per test, and the real `neardup`
//! binary run inside it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A temporary working directory, removed when dropped.
pub struct Dir {
    tmp: tempfile::TempDir,
}

impl Dir {
    /// A new empty directory.
    pub fn new() -> Dir {
        Dir {
            tmp: tempfile::Builder::new()
                .prefix("neardup-test-")
                .tempdir()
                .expect("create temp dir"),
        }
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        self.tmp.path()
    }

    /// `name` inside the directory.
    pub fn join(&self, name: &str) -> PathBuf {
        self.path().join(name)
    }

    /// Writes a file (creating parent directories).
    pub fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create parent");
        }
        std::fs::write(&path, bytes).expect("write file");
        path
    }

    /// Reads a file as UTF-8.
    pub fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.join(name)).unwrap_or_else(|e| panic!("read {name}: {e}"))
    }

    /// Copies `testdata/<from>/*` to `<to>/` in this directory.
    pub fn copy_testdata(&self, from: &str, to: &str) -> PathBuf {
        let src = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata")
            .join(from);
        let dst = self.join(to);
        std::fs::create_dir_all(&dst).expect("create dir");
        for entry in std::fs::read_dir(&src).expect("read testdata") {
            let entry = entry.expect("dir entry");
            std::fs::copy(entry.path(), dst.join(entry.file_name())).expect("copy");
        }
        dst
    }

    /// The binary, with this directory as working directory and no
    /// `RUST_LOG` leaking in from the environment.
    pub fn cmd(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_neardup"));
        cmd.current_dir(self.path()).env_remove("RUST_LOG");
        cmd
    }

    /// Runs the binary with `args`.
    pub fn run(&self, args: &[&str]) -> Run {
        let output = self.cmd().args(args).output().expect("run neardup");
        Run { output }
    }
}

/// A finished run of the binary.
pub struct Run {
    /// Status and captured streams.
    pub output: Output,
}

impl Run {
    /// Standard output.
    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    /// Standard error.
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }

    /// The exit code (-1 if killed by a signal).
    pub fn code(&self) -> i32 {
        self.output.status.code().unwrap_or(-1)
    }

    /// Panics with both streams unless the exit code is `code`.
    pub fn expect_code(self, code: i32) -> Run {
        assert_eq!(
            self.code(),
            code,
            "exit code\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout(),
            self.stderr()
        );
        self
    }
}

/// Parses a `doc_id<TAB>cluster_id` file, checking its header.
pub fn read_clusters(text: &str) -> Vec<(String, String)> {
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("doc_id\tcluster_id"));
    lines
        .map(|l| {
            let (d, c) = l.split_once('\t').expect("two columns");
            (d.to_owned(), c.to_owned())
        })
        .collect()
}

/// Parses verdicts.jsonl.
pub fn read_verdicts(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

/// The verdict line of `doc_id`.
pub fn verdict<'a>(verdicts: &'a [serde_json::Value], doc_id: &str) -> &'a serde_json::Value {
    verdicts
        .iter()
        .find(|v| v["doc_id"] == doc_id)
        .unwrap_or_else(|| panic!("no verdict for {doc_id}"))
}

/// A few hundred bytes that look like a PNG: the signature, an IHDR chunk
/// header (with NUL bytes, as real images have) and pseudo-random bytes
/// from a fixed seed.
pub fn fake_png() -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\x01\0\0\0\x01\0\x08\x06\0\0\0".to_vec();
    bytes.extend(noise(0x2545_f491_4f6c_dd1d, 400));
    bytes
}

/// `len` pseudo-random bytes from `seed` (the workspace's one seeded
/// generator, `neardup_api::SplitMix64`).
pub fn noise(seed: u64, len: usize) -> Vec<u8> {
    neardup_api::SplitMix64::new(seed).bytes(len)
}

/// `n` words `w0` .. `w{vocab - 1}` drawn from `seed`, joined by spaces:
/// texts of different seeds share words but, for a vocabulary of a few
/// hundred words or more, no runs of words, so no two are near copies.
pub fn pseudo_words(seed: u64, n: usize, vocab: usize) -> String {
    let mut rng = neardup_api::SplitMix64::new(seed);
    (0..n)
        .map(|_| format!("w{}", rng.below(vocab)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `../shared/bench` beside the repository, if present (with its
/// `score.py`); else the caller skips ([`crate::skip::missing`]: a failure
/// under CI).
pub fn shared_bench() -> Option<PathBuf> {
    crate::skip::shared("bench/score.py").and_then(|p| p.parent().map(Path::to_path_buf))
}

/// Whether `python3` runs; else the caller skips
/// ([`crate::skip::missing`]: a failure under CI).
pub fn has_python() -> bool {
    crate::skip::have("python3", "--version", "apt-get install python3")
}

/// The hand-made documentation site of `tests/verdicts.rs`.
pub const SITE_TEMPLATE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/site-template");

/// The `role` of the first block whose text starts with `starts` in a page
/// object of `extract --json` or `texts.jsonl`.
pub fn block_role(page: &serde_json::Value, starts: &str) -> serde_json::Value {
    page["blocks"]
        .as_array()
        .expect("a page object has blocks")
        .iter()
        .find(|b| b["text"].as_str().is_some_and(|t| t.starts_with(starts)))
        .map(|b| b["role"].clone())
        .unwrap_or_else(|| panic!("no block {starts:?} in {page}"))
}
