//! Candidate indexes of the built-in detectors, and the document store.
//!
//! Derived state vs ground truth: the [`DocStore`] holds what was kept (URL,
//! site, every detector's signature); the candidate indexes are derived from
//! those signatures and can be rebuilt from the store.

pub mod chunk;
#[cfg(any(feature = "redb", feature = "redis"))]
pub mod codec;
pub mod config;
#[cfg(feature = "redb")]
mod delta;
pub mod exact;
pub mod location;
#[cfg(feature = "redb")]
mod record_cache;
#[cfg(feature = "redb")]
mod redb_errors;
#[cfg(feature = "redb")]
mod redb_file;
#[cfg(feature = "redb")]
mod redb_group;
#[cfg(feature = "redb")]
mod redb_legacy;
#[cfg(feature = "redb")]
pub mod redb_store;
#[cfg(feature = "redis")]
pub mod redis_store;
pub mod simhash;
pub mod store;

pub use chunk::ChunkIndex;
pub use config::IndexConfig;
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
