//! HTML for neardup, with no I/O: bytes in, text blocks out.
//!
//! - [`decode`](mod@decode): bytes to UTF-8 text (BOM, HTTP charset, `<meta charset>`,
//!   detection), never failing: a bad charset is a warning.
//! - [`extract`](mod@extract): neardup's own tokenizer and tree (5x an html5ever DOM,
//!   with html5ever as the test oracle), main content vs boilerplate,
//!   title, links, canonical, robots directives, redirect stubs.
//!
//! This crate sits below the core (`neardup`) and beside `neardup-text`;
//! tests/tidy.rs keeps it free of file, network and HTTP imports.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod decode;
pub mod extract;

pub use decode::{decode, Decoded};
pub use extract::{extract, Block, ExtractConfig, ExtractMode, Extracted, Redirect, RedirectKind};

// The tests' one way to skip (a failure under CI), shared with tests/.
#[cfg(test)]
#[path = "../../../tests/skip.rs"]
mod skip;
