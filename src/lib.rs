//! The tools around the `neardup` command that tests and benchmarks also
//! use: demo sites for `crawl --demo`, and the load generator of
//! `neardup load`. The command itself is src/main.rs and src/cli/.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod demo;
pub mod load;
