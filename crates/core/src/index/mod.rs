//! Candidate indexes of the built-in detectors, and the document store.
//!
//! Derived state vs ground truth: the [`DocStore`] holds what was kept (URL,
//! site, every detector's signature); the candidate indexes are derived from
//! those signatures and can be rebuilt from the store.

use neardup_api::SettingError;
use serde::{Deserialize, Serialize};

pub mod chunk;
pub mod exact;
pub mod location;
#[cfg(feature = "redb")]
mod record_cache;
#[cfg(feature = "redb")]
mod redb_errors;
#[cfg(feature = "redb")]
mod redb_file;
#[cfg(feature = "redb")]
pub mod redb_store;
#[cfg(feature = "redis")]
pub mod redis_store;
pub mod simhash;
pub mod store;

pub use chunk::ChunkIndex;
pub use exact::ExactIndex;
pub use location::{IndexLocation, RedisLocation};
#[cfg(feature = "redb")]
pub use record_cache::CacheStats;
#[cfg(feature = "redb")]
pub use redb_store::RedbStore;
#[cfg(feature = "redis")]
pub use redis_store::RedisStore;
pub use simhash::SimhashIndex;
pub use store::{unix_now, Change, DocRecord, DocStore, MemoryStore, RecordKind};

/// How the index treats pages over time, and how much of it stays in RAM.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct IndexConfig {
    /// A page checked again at the URL of an indexed page replaces that
    /// page's fingerprints (a recrawl), so a changed page is never matched
    /// against its own older version. "The URL" is compared up to spelling
    /// only (scheme and host case, default port, fragment, percent
    /// escapes), not with the crawl's heuristics: `?utm_source=x` is
    /// another URL, whose copy is reported. Off: every check is a new page.
    pub replace_same_url: bool,
    /// Seconds after its last fetch at which an indexed page expires: it no
    /// longer matches and is removed from the index. 0: never. Needs a
    /// store that records fetch times (memory or `--index PATH`, not Redis).
    pub ttl_secs: u64,
    /// Bytes of document records the `--index PATH` store keeps in RAM (a
    /// least-recently-used cache); the rest is read from the file when a
    /// candidate is verified. Candidate indexes always stay in RAM.
    pub cache_bytes: usize,
}

impl Default for IndexConfig {
    fn default() -> Self {
        IndexConfig {
            replace_same_url: true,
            ttl_secs: 0,
            cache_bytes: 256 << 20,
        }
    }
}

impl IndexConfig {
    /// Checks every range of `[index]`.
    ///
    /// # Errors
    /// The first bad key, its value and what is allowed.
    pub fn validate(&self) -> Result<(), SettingError> {
        SettingError::range64("index.cache_bytes", self.cache_bytes as u64, 0, 1 << 40)?;
        SettingError::range64("index.ttl_secs", self.ttl_secs, 0, 3_153_600_000)
    }
}
