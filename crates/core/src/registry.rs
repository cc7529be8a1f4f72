//! The detector registry: names to constructors, so the `[decide]` chain
//! and plugins are configured by name and the core never names a plugin
//! type.

use neardup_api::Detector;

use crate::config::Config;
use crate::signature::{ChunkDetector, ExactDetector, SimhashDetector};

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

/// Names of match bases that are not detectors ([`crate::MatchBasis`]).
const RESERVED: [&str; 4] = [
    crate::verdict::CONTENT,
    "canonical",
    "redirect",
    crate::verdict::SAME_URL,
];

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
    ///
    /// # Panics
    /// If `name` is a reserved match basis (`content`, `canonical`,
    /// `redirect`, `same_url`): a verdict's `detector` field could not
    /// tell the two apart. Names are constants of the calling code.
    pub fn register(&mut self, name: &'static str, factory: DetectorFactory) {
        assert!(
            !RESERVED.contains(&name),
            "detector name `{name}` is reserved for a match basis ({})",
            RESERVED.join(", ")
        );
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
