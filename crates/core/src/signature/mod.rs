//! The built-in detectors, checked in this order by default:
//!
//! 1. [`ExactDetector`]: a stable hash of the normalized word stream. Exact
//!    copies are a large share of crawl duplicates and cost one hash lookup.
//! 2. [`SimhashDetector`]: Charikar's 64-bit SimHash over word shingles, for
//!    near-exact copies at a small Hamming distance.
//! 3. [`ChunkDetector`]: content-defined chunks of the normalized text; the
//!    chunk-set resemblance and containment decide near duplicates.
//!
//! Each implements [`neardup_api::Detector`], like any plugin, so the
//! verdict logic treats built-ins and plugins alike.

pub mod chunk;
pub mod exact;
pub mod gear;
mod settings;
pub mod simhash;

pub use chunk::ChunkDetector;
pub use chunk::{ChunkConfig, Chunker};
pub use exact::ExactDetector;
pub use gear::GearChunker;
pub(crate) use settings::settings_of;
pub use simhash::{SimhashConfig, SimhashDetector, SimhashWeights};
