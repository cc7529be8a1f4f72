//! The crawl frontier's building blocks: which URL a link means
//! ([`neardup::Canonicalizer`]), whether it is crawled ([`scope`]), whether the site
//! lets us ([`robots`]) and which queued URL goes next ([`queue`]: one FIFO
//! per host, handed out when the host's politeness slot has come).
//!
//! The crawl loop builds the frontier (seen set, depth, budgets) on top of
//! these.

pub(crate) mod pending;
pub mod queue;
pub mod robots;
pub mod robots_rules;
pub mod scope;
pub mod sitemap;

pub use neardup::{CanonError, Canonicalizer};
pub use queue::HostQueues;
pub use robots::{RobotsCache, RobotsDecision};
pub use robots_rules::RobotsRules;
pub use scope::{Link, Links, Scope, SkipReason};
