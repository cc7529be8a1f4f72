//! The one way a test skips: when what it needs (a dataset in `../shared`,
//! `redis-server`, Chromium, `python3`, `mkfifo`) is missing, a developer's
//! run notes it on stderr and the test returns; with `CI` set the test
//! fails instead, naming what is missing, so CI cannot pass on a test that
//! did not run (`.ci/run` provides all of it).
//!
//! One file, included by every test crate that skips: the integration
//! tests (`mod skip` in `tests/tests.rs`), the library's unit tests
//! (each library crate's `lib.rs`, `#[path]`) and the experiments' tests.

#![allow(dead_code)] // each including crate uses its part

use std::path::{Path, PathBuf};

/// Records that the calling test skips because `what` is missing: a note
/// on stderr, or a panic when the `CI` environment variable is set.
///
/// # Panics
/// Under CI, always.
pub fn missing(what: &str) {
    if std::env::var_os("CI").is_some() {
        panic!("CI: {what} is missing, so this test cannot run (.ci/run must provide it)");
    }
    eprintln!("note: {what} is missing: test skipped (with CI set it fails)");
}

/// `../shared` beside the workspace (the directory holding `Cargo.lock`
/// above the including crate), whether or not it exists.
pub fn shared_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = manifest
        .ancestors()
        .find(|p| p.join("Cargo.lock").is_file())
        .unwrap_or(manifest);
    workspace.join("../shared")
}

/// `../shared/REL` when it exists; else [`missing`] and `None`.
pub fn shared(rel: &str) -> Option<PathBuf> {
    let p = shared_root().join(rel);
    if p.exists() {
        Some(p)
    } else {
        missing(&format!("../shared/{rel}"));
        None
    }
}

/// Whether `program --version` (or `program ARG`) runs and succeeds; else
/// [`missing`] naming the program and how to get it.
pub fn have(program: &str, arg: &str, install: &str) -> bool {
    let ok = std::process::Command::new(program)
        .arg(arg)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        missing(&format!("{program} ({install})"));
    }
    ok
}
