//! HTML for neardup, with no I/O: bytes in, text blocks out.
//!
//! - [`decode()`]: bytes to UTF-8 text (BOM, HTTP charset, `<meta charset>`,
//!   detection), never failing: a bad charset is a warning.
//! - [`extract()`]: neardup's own tokenizer and tree (5x an html5ever DOM,
//!   with html5ever as the test oracle), main content vs boilerplate,
//!   title, links, canonical, robots directives, redirect stubs.
//!
//! This crate sits below the core (`neardup`) and beside `neardup-text`;
//! tests/tidy/ keeps it free of file, network and HTTP code.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

// Private modules, one flat API: the two entry points, what they return,
// their settings, and the parse tree for tools that compare parsers.
mod decode;
mod extract;

pub use decode::{binary_reason, decode, Decoded};
pub use extract::classify::has_article;
pub use extract::tags::Tag;
/// The streaming pass's flat element tree (`tree::parse`), for tools that
/// check it against another parser (tests/html_oracle.rs) and benchmarks.
pub use extract::tree;
pub use extract::{
    extract, Block, ExtractConfig, ExtractMode, Extracted, LinkRels, MainText, Redirect,
    RedirectKind,
};

// The tests' one way to skip (a failure under CI), shared with tests/.
#[cfg(test)]
#[path = "../../../tests/skip.rs"]
mod skip;
