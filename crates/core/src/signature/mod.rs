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
pub mod simhash;

pub use chunk::ChunkDetector;
pub use chunk::{ChunkConfig, Chunker};
pub use exact::ExactDetector;
pub use gear::GearChunker;
pub use simhash::{SimhashConfig, SimhashDetector, SimhashWeights};

/// `(SECTION.KEY, value as JSON)` for each of `keys` of the config section
/// `value`: what [`Detector::signature_settings`] returns for the built-in
/// detectors and the core records for extraction and text.
pub(crate) fn settings_of<T: serde::Serialize>(
    section: &str,
    value: &T,
    keys: &[&str],
) -> Vec<(String, String)> {
    // A config section always serializes; `Null` would only make every
    // value "null", which still compares equal between equal configs.
    let json = serde_json::to_value(value).unwrap_or_default();
    keys.iter()
        .map(|k| {
            let v = json
                .get(k)
                .map_or_else(|| "null".to_owned(), ToString::to_string);
            (format!("{section}.{k}"), v)
        })
        .collect()
}
