//! Integration tests: the real `neardup` binary, run in a fresh temporary
//! directory on fixtures from `testdata/` or files the tests write.
//!
//! Modules:
//! - `dedup`: outputs, warnings, determinism, config and detector flags;
//! - `eval`: the eval command on a tiny generated benchmark;
//! - `extract`: text and JSON output of the extract command;
//! - `pairs`: exact all-pairs Jaccard against brute force, and the pairs command;
//! - `score`: the Rust scorer against the Python reference scorer;
//! - `util`: temp dirs and running the binary.

mod bad_input;
mod dedup;
mod eval;
mod extract;
mod pairs;
mod score;
mod util;
