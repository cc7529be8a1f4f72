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
pub use exact::ExactDetector;
pub use simhash::SimhashDetector;

use neardup_api::Detector;

use crate::config::Config;


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

/// Builds a detector from its name and the configuration. Fallible so a
/// plugin can reject its own settings (`[plugins.NAME]`) with an
/// [`crate::Error::Config`] naming the key.
pub type DetectorFactory = fn(&Config) -> crate::Result<Box<dyn Detector>>;

/// Name -> constructor. The core registers its built-ins; the binary adds
/// plugin crates, so the core never names a plugin type.
#[derive(Clone)]
pub struct Registry {
    entries: Vec<(&'static str, DetectorFactory)>,
}

impl Default for Registry {
    /// The built-in detectors: `exact`, `simhash`, `chunks`.
    fn default() -> Self {
        let mut r = Registry {
            entries: Vec::new(),
        };
        r.register("exact", |_| Ok(Box::new(ExactDetector::new())));
        r.register("simhash", |c| {
            Ok(Box::new(SimhashDetector::new(&c.simhash)))
        });
        r.register("chunks", |c| Ok(Box::new(ChunkDetector::new(&c.chunks))));
        r
    }
}

impl Registry {
    /// Adds (or replaces) a detector constructor under `name`.
    pub fn register(&mut self, name: &'static str, factory: DetectorFactory) {
        self.entries.retain(|(n, _)| *n != name);
        self.entries.push((name, factory));
    }

    /// Registered names, in registration order.
    pub fn names(&self) -> Vec<&'static str> {
        self.entries.iter().map(|(n, _)| *n).collect()
    }

    /// Builds the detector called `name`.
    ///
    /// # Errors
    /// [`crate::Error::UnknownDetector`] listing the known names, or the
    /// factory's error (a plugin rejecting its settings).
    pub fn build(&self, name: &str, config: &Config) -> crate::Result<Box<dyn Detector>> {
        let (_, factory) = self
            .entries
            .iter()
            .find(|(n, _)| *n == name)
            .ok_or_else(|| crate::Error::UnknownDetector(name.into(), self.names().join(", ")))?;
        factory(config)
    }
}
