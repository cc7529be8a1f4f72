//! The crawler's HTTP fetcher: reqwest over rustls, with every limit a
//! crawler meets on the open web enforced here.
//!
//! - [`client`]: [`Fetcher`]: manual redirects (every hop recorded, loops
//!   detected), content-type filter before the body is read, body size cap
//!   enforced while streaming (after decompression, so a gzip or brotli
//!   bomb stops at the cap), header size cap, timeouts, retries.
//! - [`limits`]: [`Politeness`]: per-host minimum delay and concurrency
//!   (readable without waiting, for the crawl frontier's scheduler),
//!   global concurrency.
//! - [`net`]: the private-address guard (a DNS resolver that drops
//!   non-public answers, plus literal-IP checks on every hop).
//! - [`retry`]: exponential backoff with jitter and `Retry-After` parsing.
//! - [`budget`]: [`BodyBudget`], a cap on body bytes held at once.
//! - [`outcome`]: what a fetch gives back: [`FetchOutcome`] (the final
//!   response and its redirect hops) or a [`FetchError`].

pub mod budget;
pub mod client;
pub mod limits;
pub mod net;
pub mod outcome;
pub mod retry;

pub use budget::{BodyBudget, BodyReservation};
pub use client::{FetchOptions, Fetcher, RedirectGuard};
pub use limits::{HostReadiness, Politeness};
pub use outcome::{FetchError, FetchOutcome, Redirect};
