//! Candidate indexes of the built-in detectors, and the document store.
//!
//! Derived state vs ground truth: the [`DocStore`] holds what was kept (URL,
//! site, every detector's signature); the candidate indexes are derived from
//! those signatures and can be rebuilt from the store.

pub mod chunk;
pub mod exact;
pub mod location;
pub mod redb_store;
pub mod redis_store;
pub mod simhash;
pub mod store;

pub use chunk::ChunkIndex;
pub use exact::ExactIndex;
pub use location::IndexLocation;
pub use redb_store::{unix_now, CacheStats, RedbStore};
pub use redis_store::{RedisLocation, RedisStore};
pub use simhash::SimhashIndex;
pub use store::{Change, DocRecord, DocStore, MemoryStore, StoreIdentity};
