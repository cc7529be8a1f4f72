//! Configuration: every knob of the pipeline, with defaults and validation.
//!
//! Two stages, as in ripgrep's low/high args: the TOML file is parsed into
//! these structs (unknown keys are errors), then [`Config::validate`] checks
//! every range and names the key, the bad value and what is allowed.
//! `configs/default.toml` documents each key; a test keeps it equal to
//! [`Config::default`].

use std::path::Path;

use serde::{Deserialize, Serialize};

use neardup_api::SettingError;

use crate::error::{Error, Result};

pub use crate::canonical::{CanonicalConfig, TrailingSlash};
pub use crate::index::IndexConfig;
pub use crate::signature::chunk::ChunkConfig;
pub use crate::signature::simhash::SimhashConfig;
pub use neardup_html::{ExtractConfig, ExtractMode};
pub use neardup_text::TextConfig;

/// The whole configuration. `Config::default()` is the tuned default.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Decoding and HTML extraction.
    pub extract: ExtractConfig,
    /// Tokenization, language, stop words and stemming.
    pub text: TextConfig,
    /// The SimHash detector.
    pub simhash: SimhashConfig,
    /// The content-defined chunk detector.
    pub chunks: ChunkConfig,
    /// The verdict: detector chain, short pages, what gets indexed.
    pub decide: DecideConfig,
    /// The index over time: recrawls, expiry, the record cache of `--index`.
    pub index: IndexConfig,
    /// URL identity: the canonicalization rules that make a URL's key.
    pub canonical: CanonicalConfig,
    /// The crawler's settings (`[crawl]`: scope, robots.txt, sitemaps,
    /// fetching, limits) as read from a file, kept as TOML for their owner:
    /// the `neardup-crawl` crate parses and validates them once, taking
    /// them out of this table (`CrawlSettings::new`), as plugins do with
    /// `[plugins.NAME]`. The core never reads them.
    #[serde(skip_serializing_if = "toml::Table::is_empty")]
    pub crawl: toml::Table,
    /// Settings of plugin detectors, one table per detector name, e.g.
    /// `[plugins.minhash]`; each plugin validates its own keys when the
    /// detector is built (the core does not know them).
    pub plugins: std::collections::BTreeMap<String, toml::Table>,
}

/// The verdict: which detectors run in which order, and the page policy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DecideConfig {
    /// Detector chain, in order; the first that matches decides.
    pub detectors: Vec<String>,
    /// Pages with fewer terms than this are compared by exact hash only,
    /// so short pages do not cluster by chance.
    pub min_terms: usize,
    /// Index near duplicates too, so later variants of them are found
    /// (exact duplicates are never indexed: they add nothing). On by
    /// default: a later variant often resembles an earlier variant more
    /// than the first-seen page (an edited original after its print view
    /// and the original). A drop through an indexed near duplicate names
    /// that page and passes the content gate against it; the cluster is
    /// the first-seen page's.
    pub index_near_duplicates: bool,
    /// A page is dropped only when at least this share of its own content
    /// (its text minus its site's template; see `crate::content`) is in
    /// the page it matched: the drop then loses nothing.
    pub min_coverage: f64,
}

impl Default for DecideConfig {
    fn default() -> Self {
        DecideConfig {
            detectors: vec!["exact".into(), "simhash".into(), "chunks".into()],
            min_terms: 20,
            index_near_duplicates: true,
            min_coverage: 0.8,
        }
    }
}

impl DecideConfig {
    /// Checks every range of `[decide]`.
    ///
    /// # Errors
    /// The first bad key, its value and what is allowed.
    pub fn validate(&self) -> std::result::Result<(), SettingError> {
        SettingError::range("decide.min_terms", self.min_terms, 0, 100_000)?;
        SettingError::unit("decide.min_coverage", self.min_coverage, 1.0)?;
        if self.detectors.is_empty() {
            return Err(SettingError::new(
                "decide.detectors",
                "[]",
                "must name at least one detector",
            ));
        }
        Ok(())
    }
}

impl Config {
    /// Reads and validates a TOML config file. Missing keys take defaults.
    ///
    /// # Errors
    /// A parse error names the file, line and key; a range error names the
    /// key, the value and the allowed range.
    pub fn from_file(path: &Path) -> Result<Config> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Config::from_toml(&text).map_err(|e| match e {
            Error::ConfigParse { message, .. } => Error::ConfigParse {
                path: path.to_owned(),
                message,
            },
            other => other,
        })
    }

    /// Parses and validates TOML text.
    ///
    /// # Errors
    /// As [`Config::from_file`].
    pub fn from_toml(text: &str) -> Result<Config> {
        let config: Config = toml::from_str(text).map_err(|e| Error::ConfigParse {
            path: "<config>".into(),
            message: e.to_string(),
        })?;
        config.validate()?;
        Ok(config)
    }

    /// Checks every range. Called by the loaders; call it yourself after
    /// changing a `Config` in code.
    ///
    /// # Errors
    /// [`Error::Config`] naming the first bad key.
    pub fn validate(&self) -> Result<()> {
        self.extract.validate()?;
        self.text.validate()?;
        self.simhash.validate()?;
        self.chunks.validate()?;
        self.decide.validate()?;
        if self.detector_chain().is_empty() {
            return Err(Error::Config {
                key: "decide.detectors".into(),
                value: format!("{:?}", self.decide.detectors),
                allowed: "must keep at least one detector running (the built-ins named \
                          are turned off by their `enabled = false`)"
                    .into(),
            });
        }
        self.index.validate()?;
        self.canonical.validate()?;
        Ok(())
    }

    /// The detectors that run, in decision order: `decide.detectors`, less
    /// a built-in whose own table says `enabled = false`. That key is the
    /// older way of leaving `simhash` or `chunks` out of the chain, kept
    /// so that older config files load the same; this is the one place
    /// that reads it, and everything that builds, describes or records the
    /// chain goes through here.
    pub fn detector_chain(&self) -> Vec<&str> {
        self.decide
            .detectors
            .iter()
            .map(String::as_str)
            .filter(|name| match *name {
                "simhash" => self.simhash.enabled,
                "chunks" => self.chunks.enabled,
                _ => true,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_valid() {
        Config::default().validate().unwrap();
    }

    #[test]
    fn range_error_names_key_value_and_range() {
        let err = Config::from_toml("[chunks]\nwindow = 2\n").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("chunks.window"), "{msg}");
        assert!(msg.contains('2'), "{msg}");
        assert!(msg.contains("4..=64"), "{msg}");
    }

    #[test]
    fn chunk_sizes_must_be_ordered() {
        let err = Config::from_toml("[chunks]\nmin_size = 64\navg_size = 32\n").unwrap_err();
        assert!(err.to_string().contains("chunks.avg_size"), "{err}");
    }

    /// `enabled = false` on a built-in takes it out of the chain that
    /// runs; a chain left empty that way is refused, naming the key.
    #[test]
    fn enabled_false_leaves_a_built_in_out_of_the_chain() {
        assert_eq!(
            Config::default().detector_chain(),
            ["exact", "simhash", "chunks"]
        );
        let c = Config::from_toml("[chunks]\nenabled = false\n").unwrap();
        assert_eq!(c.detector_chain(), ["exact", "simhash"]);
        let err = Config::from_toml(
            "[simhash]\nenabled = false\n[chunks]\nenabled = false\n\
             [decide]\ndetectors = [\"simhash\", \"chunks\"]\n",
        )
        .unwrap_err();
        assert!(err.to_string().contains("decide.detectors"), "{err}");
        assert!(err.to_string().contains("enabled = false"), "{err}");
    }

    #[test]
    fn unknown_key_is_an_error() {
        let err = Config::from_toml("[simhash]\nshingles = 3\n").unwrap_err();
        assert!(err.to_string().contains("shingles"), "{err}");
    }

    #[test]
    fn thresholds_must_be_ordered() {
        let err =
            Config::from_toml("[chunks]\nduplicate = 0.5\nnear_duplicate = 0.6\n").unwrap_err();
        assert!(err.to_string().contains("chunks.near_duplicate"), "{err}");
    }

    #[test]
    fn detect_bytes_is_range_checked() {
        let err = Config::from_toml("[text]\ndetect_bytes = 10\n").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("text.detect_bytes"), "{msg}");
        assert!(msg.contains("64..=1048576"), "{msg}");
    }

    #[test]
    fn fastcdc_bounds_are_checked_not_panicking() {
        // The gear defaults (avg 32) are far below fastcdc's minimum average.
        let err = Config::from_toml("[chunks]\nchunker = \"fastcdc\"\n").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("chunks.min_size"), "{msg}");
        assert!(msg.contains("64..=1048576"), "{msg}");
        let err = Config::from_toml(
            "[chunks]\nchunker = \"fastcdc\"\nmin_size = 64\navg_size = 257\nmax_size = 1024\n",
        )
        .unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("chunks.avg_size") && msg.contains("even"),
            "{msg}"
        );
        let ok = Config::from_toml(
            "[chunks]\nchunker = \"fastcdc\"\nmin_size = 64\navg_size = 256\nmax_size = 1024\n",
        )
        .unwrap();
        assert_eq!(ok.chunks.chunker, crate::signature::Chunker::Fastcdc);
    }

    #[test]
    fn gear_window_must_cover_mask_bits() {
        let err = Config::from_toml("[chunks]\nwindow = 4\n").unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("chunks.window") && msg.contains("log2"),
            "{msg}"
        );
    }

    #[test]
    fn shipped_experiment_configs_load() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/experiments");
        let mut n = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let config = Config::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
            assert_ne!(
                config,
                Config::default(),
                "{} changes nothing",
                path.display()
            );
            n += 1;
        }
        assert!(n >= 4, "{n} experiment configs");
    }

    #[test]
    fn shipped_default_toml_equals_code_default() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/default.toml");
        let mut shipped = Config::from_file(&path).unwrap();
        // `[crawl]` belongs to neardup-crawl, whose own test compares it.
        let crawl = std::mem::take(&mut shipped.crawl);
        assert!(crawl.contains_key("fetch"), "{crawl:?}");
        assert_eq!(shipped, Config::default());
    }

    #[test]
    fn canonical_is_a_core_section_and_crawl_is_kept_for_its_owner() {
        let ok = Config::from_toml(
            "[canonical]\ntrailing_slash = \"strip\"\n[crawl.fetch]\nretries = 7\n",
        )
        .unwrap();
        assert_eq!(ok.canonical.trailing_slash, TrailingSlash::Strip);
        let fetch = ok.crawl["fetch"].as_table().unwrap();
        assert_eq!(fetch["retries"].as_integer(), Some(7));
        // Unknown keys of the core's own sections are still errors.
        assert!(Config::from_toml("[canonical]\nslash = 1\n").is_err());
    }
}
