//! `[index]`: how the index treats pages over time, and how much of it
//! stays in RAM.

use neardup_api::SettingError;
use serde::{Deserialize, Serialize};

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
