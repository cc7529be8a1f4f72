//! The crawl's own failures ([`CrawlError`]): its settings, its scope
//! patterns and its checkpoint; what fails below it (the deduper, its
//! index, a file) keeps the core's error, wrapped.

use std::path::PathBuf;

/// What can stop a crawl, or refuse its settings.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CrawlError {
    /// A `crawl.*` setting is out of its range or inconsistent with
    /// another.
    #[error("config: `{key}` = {value}: {allowed}")]
    Config {
        /// Dotted key, e.g. `crawl.fetch.concurrency`.
        key: String,
        /// The offending value as written.
        value: String,
        /// What is allowed.
        allowed: String,
    },
    /// The `[crawl]` table does not parse: an unknown key or a wrong type.
    #[error("config [crawl]: {0}")]
    ConfigParse(String),
    /// A pattern of `crawl.scope.include` or `crawl.scope.exclude` is not
    /// a valid regex.
    #[error("config: `crawl.scope` patterns: {0}")]
    Scope(#[from] regex::Error),
    /// A checkpoint (`crawl-state.json`, or the WARC file it records)
    /// cannot be resumed from.
    #[error("{path}: {message}")]
    Checkpoint {
        /// The file.
        path: PathBuf,
        /// What is wrong with it, and what to do.
        message: String,
    },
    /// The deduper, its index or an output file failed.
    #[error(transparent)]
    Core(#[from] neardup::Error),
}

impl From<neardup_api::SettingError> for CrawlError {
    fn from(e: neardup_api::SettingError) -> CrawlError {
        CrawlError::Config {
            key: e.key,
            value: e.value,
            allowed: e.allowed,
        }
    }
}

/// The crawl's result type.
pub type Result<T, E = CrawlError> = std::result::Result<T, E>;
