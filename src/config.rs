//! Configuration: every knob of the pipeline, with defaults and validation.
//!
//! Two stages, as in ripgrep's low/high args: the TOML file is parsed into
//! these structs (unknown keys are errors), then [`Config::validate`] checks
//! every range and names the key, the bad value and what is allowed.
//! `configs/default.toml` documents each key; a test keeps it equal to
//! [`Config::default`].

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

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
    /// Settings of plugin detectors, one table per detector name, e.g.
    /// `[plugins.minhash]`; each plugin validates its own keys when the
    /// detector is built (the core does not know them).
    pub plugins: std::collections::BTreeMap<String, toml::Table>,
}

/// Which text of a page the signatures see.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExtractMode {
    /// Main content only (boilerplate removed): the default, and what makes
    /// the same article on two sites match.
    Main,
    /// All visible text.
    Full,
}

/// Decoding and extraction settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExtractConfig {
    /// `main` or `full`.
    pub mode: ExtractMode,
    /// Bytes of a body that are looked at; the rest is ignored with a warning.
    pub max_body_bytes: usize,
    /// Outgoing links kept per page.
    pub max_links: usize,
}

impl Default for ExtractConfig {
    fn default() -> Self {
        ExtractConfig {
            mode: ExtractMode::Main,
            max_body_bytes: 8 * 1024 * 1024,
            max_links: 2000,
        }
    }
}

/// Text normalization settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TextConfig {
    /// Drop stop words (nltk lists, chosen by detected language).
    pub stop_words: bool,
    /// Stem words with the Snowball stemmer of the detected language. Off by
    /// default: stems tie features to language detection, which flips on
    /// pages with chrome in another language (see configs/default.toml).
    pub stem: bool,
    /// Bytes from the start of the text that language detection looks at.
    /// Detection is the costliest step per page; a bounded sample keeps it
    /// constant, and a page's first kilobytes are enough to tell its language.
    pub detect_bytes: usize,
}

impl Default for TextConfig {
    fn default() -> Self {
        TextConfig {
            stop_words: true,
            stem: false,
            detect_bytes: 1024,
        }
    }
}

/// How SimHash features are weighted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SimhashWeights {
    /// Each distinct shingle counts once.
    Binary,
    /// A shingle seen `n` times counts `1 + ln n`.
    Log,
}

/// SimHash detector settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SimhashConfig {
    /// Run the SimHash detector.
    pub enabled: bool,
    /// Words per shingle.
    pub shingle: usize,
    /// Feature weights.
    pub weights: SimhashWeights,
    /// Largest Hamming distance (of 64 bits) that counts as a match; the
    /// index splits fingerprints into `max_distance + 1` blocks.
    pub max_distance: u32,
}

impl Default for SimhashConfig {
    fn default() -> Self {
        SimhashConfig {
            enabled: true,
            shingle: 3,
            weights: SimhashWeights::Binary,
            max_distance: 3,
        }
    }
}

/// Which content-defined chunker cuts the normalized text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Chunker {
    /// A gear hash rolled over the whole text: a cut depends only on the last
    /// `window` bytes, so chunk boundaries resynchronize right after an edit.
    /// Suits the small chunks (average 32 bytes) that work best for pages.
    Gear,
    /// The `fastcdc` crate (FastCDC 2020): block-level chunking with its own
    /// size limits (average at least 256 bytes). Kept as an alternative for
    /// comparison and for very long texts.
    Fastcdc,
}

/// Content-defined chunk detector settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ChunkConfig {
    /// Run the chunk detector.
    pub enabled: bool,
    /// The chunking algorithm.
    pub chunker: Chunker,
    /// Target average chunk size in bytes of normalized text.
    pub avg_size: usize,
    /// Smallest chunk in bytes.
    pub min_size: usize,
    /// Largest chunk in bytes.
    pub max_size: usize,
    /// Bytes in the rolling-hash window (a cut depends on these bytes only).
    pub window: usize,
    /// Resemblance at or above which a page is a duplicate (`t1`).
    pub duplicate: f64,
    /// Resemblance at or above which a page is a near duplicate (`t2`).
    pub near_duplicate: f64,
    /// Containment of the smaller page at or above which it is a near
    /// duplicate (excerpts, page 1 vs "view all"); 1.0 requires full
    /// containment, above 1.0 turns the rule off.
    pub containment: f64,
    /// Chunks the smaller page needs before containment is trusted.
    pub containment_min_chunks: usize,
    /// A chunk hash found in more indexed pages than this is site chrome:
    /// it no longer yields candidates (it still counts when verifying).
    pub max_postings: usize,
}

impl Default for ChunkConfig {
    fn default() -> Self {
        ChunkConfig {
            enabled: true,
            chunker: Chunker::Gear,
            avg_size: 32,
            min_size: 8,
            max_size: 128,
            window: 16,
            duplicate: 0.8,
            near_duplicate: 0.3,
            containment: 0.8,
            containment_min_chunks: 10,
            max_postings: 1000,
        }
    }
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
    /// (exact duplicates are never indexed: they add nothing).
    pub index_near_duplicates: bool,
}

impl Default for DecideConfig {
    fn default() -> Self {
        DecideConfig {
            detectors: vec!["exact".into(), "simhash".into(), "chunks".into()],
            min_terms: 20,
            index_near_duplicates: true,
        }
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
        let e = &self.extract;
        range("extract.max_body_bytes", e.max_body_bytes, 1024, 1 << 30)?;
        range("extract.max_links", e.max_links, 0, 1_000_000)?;

        range("text.detect_bytes", self.text.detect_bytes, 64, 1 << 20)?;

        let s = &self.simhash;
        range("simhash.shingle", s.shingle, 1, 8)?;
        range("simhash.max_distance", s.max_distance as usize, 0, 7)?;

        let c = &self.chunks;
        range("chunks.window", c.window, 4, 64)?;
        range("chunks.min_size", c.min_size, 1, 65_536)?;
        range("chunks.avg_size", c.avg_size, 4, 65_536)?;
        range("chunks.max_size", c.max_size, 8, 1 << 20)?;
        if !(c.min_size <= c.avg_size && c.avg_size <= c.max_size) {
            return Err(Error::Config {
                key: "chunks.avg_size".into(),
                value: c.avg_size.to_string(),
                allowed: format!(
                    "must satisfy chunks.min_size ({}) <= chunks.avg_size <= chunks.max_size ({})",
                    c.min_size, c.max_size
                ),
            });
        }
        match c.chunker {
            Chunker::Gear => {
                // The cut test looks at log2(avg_size) bits of the hash, and
                // only the low `window` bits depend on the window alone.
                let bits = crate::signature::gear::mask_bits(c.avg_size);
                if bits as usize > c.window {
                    return Err(Error::Config {
                        key: "chunks.window".into(),
                        value: c.window.to_string(),
                        allowed: format!(
                            "must be >= log2(chunks.avg_size) = {bits} with the gear chunker"
                        ),
                    });
                }
            }
            Chunker::Fastcdc => validate_fastcdc(c)?,
        }
        unit("chunks.duplicate", c.duplicate)?;
        unit("chunks.near_duplicate", c.near_duplicate)?;
        if c.near_duplicate > c.duplicate {
            return Err(Error::Config {
                key: "chunks.near_duplicate".into(),
                value: c.near_duplicate.to_string(),
                allowed: format!("must be <= chunks.duplicate ({})", c.duplicate),
            });
        }
        if !(0.0..=2.0).contains(&c.containment) || c.containment.is_nan() {
            return Err(Error::Config {
                key: "chunks.containment".into(),
                value: c.containment.to_string(),
                allowed: "must be in 0.0..=2.0 (above 1.0 turns the rule off)".into(),
            });
        }
        range(
            "chunks.containment_min_chunks",
            c.containment_min_chunks,
            1,
            100_000,
        )?;
        range("chunks.max_postings", c.max_postings, 1, 100_000_000)?;

        let d = &self.decide;
        range("decide.min_terms", d.min_terms, 0, 100_000)?;
        if d.detectors.is_empty() {
            return Err(Error::Config {
                key: "decide.detectors".into(),
                value: "[]".into(),
                allowed: "must name at least one detector".into(),
            });
        }
        Ok(())
    }
}

/// fastcdc only debug-asserts its bounds (and indexes its mask table with
/// log2(avg_size)), so check them here: a bad config is an error, not a panic.
fn validate_fastcdc(c: &ChunkConfig) -> Result<()> {
    use fastcdc::v2020::{
        AVERAGE_MAX, AVERAGE_MIN, MAXIMUM_MAX, MAXIMUM_MIN, MINIMUM_MAX, MINIMUM_MIN,
    };
    let hint =
        "with chunks.chunker = \"fastcdc\" (e.g. min_size = 64, avg_size = 256, max_size = 1024)";
    for (key, value, lo, hi) in [
        ("chunks.min_size", c.min_size, MINIMUM_MIN, MINIMUM_MAX),
        ("chunks.avg_size", c.avg_size, AVERAGE_MIN, AVERAGE_MAX),
        ("chunks.max_size", c.max_size, MAXIMUM_MIN, MAXIMUM_MAX),
    ] {
        if !(lo..=hi).contains(&value) {
            return Err(Error::Config {
                key: key.into(),
                value: value.to_string(),
                allowed: format!("must be in {lo}..={hi} {hint}"),
            });
        }
        if value % 2 != 0 {
            return Err(Error::Config {
                key: key.into(),
                value: value.to_string(),
                allowed: format!("must be even {hint}"),
            });
        }
    }
    Ok(())
}

fn range(key: &str, value: usize, lo: usize, hi: usize) -> Result<()> {
    if (lo..=hi).contains(&value) {
        Ok(())
    } else {
        Err(Error::Config {
            key: key.into(),
            value: value.to_string(),
            allowed: format!("must be in {lo}..={hi}"),
        })
    }
}

fn unit(key: &str, value: f64) -> Result<()> {
    if (0.0..=1.0).contains(&value) {
        Ok(())
    } else {
        Err(Error::Config {
            key: key.into(),
            value: value.to_string(),
            allowed: "must be in 0.0..=1.0".into(),
        })
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
        assert_eq!(ok.chunks.chunker, Chunker::Fastcdc);
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
    fn shipped_default_toml_equals_code_default() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/default.toml");
        let shipped = Config::from_file(&path).unwrap();
        assert_eq!(shipped, Config::default());
    }
}
