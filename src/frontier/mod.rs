//! The crawl frontier's building blocks: which URL a link means
//! ([`canonical`]), whether it is crawled ([`scope`]) and whether the site
//! lets us ([`robots`]).
//!
//! The queue itself (breadth-first order, seen set, per-host queues) is
//! built on top of these by the crawl loop.

pub mod canonical;
pub mod robots;
pub mod scope;

pub use canonical::{CanonError, Canonicalizer};
pub use robots::{RobotsCache, RobotsDecision};
pub use scope::{Links, Scope, SkipReason};
