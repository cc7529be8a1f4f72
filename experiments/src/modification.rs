//! The controlled-modification experiment of section 4.1 of the shingling
//! vs. content-chunking paper
//! (`../shared/papers/syntactic-similarity-shingling-vs-content-chunking.txt`):
//! insert `"a "` into a text 1..50 times at random positions and measure how
//! much similarity each signature still reports, per sliding-window size.
//!
//! This module is the experiment's core, kept in the library so a test can
//! check it; `src/main.rs` (binary `modification`) runs it over a corpus and draws the
//! figures. Every method is the shipped detector ([`Detector::sign`] and
//! [`Detector::similarity`]), so the numbers describe what neardup runs.
#![forbid(unsafe_code)]

use neardup_api::SplitMix64;
use neardup_api::{Detector, Document};
use neardup_bsw::{BswDetector, Settings as BswSettings};
use neardup_minhash::{
    MinNDetector, MinNSettings, MinhashDetector, MinhashSettings, ModNDetector, ModNSettings,
    Scheme, Unit,
};

use neardup::ChunkDetector;
use neardup::SimhashDetector;
use neardup::{ChunkConfig, SimhashConfig, TextConfig};
use neardup_text::Normalizer;

/// The string the paper inserts (its footnote 1: `"a "`).
pub const INSERT: &str = "a ";

/// Sliding-window sizes of the paper's Figure 2 and 3, in bytes.
pub const WINDOWS: [usize; 5] = [5, 10, 20, 40, 100];

/// SimHash shingle sizes in words, standing in for the byte windows: the
/// shipped SimHash hashes word shingles of the terms (1..=8 words).
pub const SIMHASH_SHINGLES: [usize; 5] = [1, 2, 3, 5, 8];

/// One of the compared algorithms at one window size, ready to sign.
pub struct Method {
    /// Algorithm family: `Mod_100`, `Min_100`, `Sketch_100`, `BSW_400`,
    /// `SimHash` or `chunks`.
    pub family: &'static str,
    /// The window parameter as labelled in the figures (bytes, or words for
    /// SimHash).
    pub window: usize,
    /// The shipped detector with these settings.
    pub detector: Box<dyn Detector>,
}

/// Every method at every window: Mod_100 and BSW_400 as in the paper's
/// Figure 2, Min_100 and Sketch_100 as chosen in its section 4.3, all over
/// w-byte windows of the normalized text; the core's SimHash (word
/// shingles) and content-defined chunks (gear window `w`, capped at 64 by
/// the chunker) for comparison.
///
/// # Errors
/// A plugin rejected its settings (a bug in this table).
pub fn methods() -> Result<Vec<Method>, neardup_api::SettingError> {
    let mut out: Vec<Method> = Vec::new();
    for &w in &WINDOWS {
        out.push(Method {
            family: "Mod_100",
            window: w,
            detector: Box::new(ModNDetector::new(ModNSettings {
                unit: Unit::Byte,
                shingle: w,
                n: 100,
                ..ModNSettings::default()
            })?),
        });
    }
    for &w in &WINDOWS {
        out.push(Method {
            family: "Min_100",
            window: w,
            detector: Box::new(MinNDetector::new(MinNSettings {
                unit: Unit::Byte,
                shingle: w,
                n: 100,
                ..MinNSettings::default()
            })?),
        });
    }
    for &w in &WINDOWS {
        out.push(Method {
            family: "Sketch_100",
            window: w,
            // One-permutation hashing is what `minhash` ships by default;
            // the paper's n independent hashes estimate the same Jaccard.
            detector: Box::new(MinhashDetector::new(MinhashSettings {
                unit: Unit::Byte,
                shingle: w,
                num_perm: 100,
                scheme: Scheme::Oph,
                bands: 20,
                rows: 5,
                ..MinhashSettings::default()
            })?),
        });
    }
    for &w in &WINDOWS {
        out.push(Method {
            family: "BSW_400",
            window: w,
            detector: Box::new(BswDetector::new(BswSettings {
                window: w,
                n: 400,
                ..BswSettings::default()
            })?),
        });
    }
    for &s in &SIMHASH_SHINGLES {
        out.push(Method {
            family: "SimHash",
            window: s,
            detector: Box::new(SimhashDetector::new(&SimhashConfig {
                shingle: s,
                ..SimhashConfig::default()
            })),
        });
    }
    for &w in &WINDOWS {
        out.push(Method {
            family: "chunks",
            window: w,
            detector: Box::new(ChunkDetector::new(&ChunkConfig {
                window: w,
                ..ChunkConfig::default()
            })),
        });
    }
    Ok(out)
}

/// A uniform integer in `0..=max` (rejection sampling, no modulo bias),
/// from the shared seeded generator: the draws the published figures were
/// made with (`docs/img/modification/`), so they stay reproducible.
pub fn below_or_eq(rng: &mut SplitMix64, max: usize) -> usize {
    let range = max as u64 + 1;
    let zone = u64::MAX - (u64::MAX % range);
    loop {
        let x = rng.next_u64();
        if x < zone {
            return (x % range) as usize;
        }
    }
}

/// The paper's near-duplicates of `text`: element `i` (0..=`max`) is `text`
/// with the first `i` of one seeded sequence of random insertions of
/// [`INSERT`] applied, so the versions are nested (version `i + 1` is
/// version `i` plus one more insertion). Positions are uniform over the
/// character boundaries of the current text, so an insertion may split a
/// word, as a byte-level edit does.
pub fn modified_versions(text: &str, max: usize, seed: u64) -> Vec<String> {
    let mut rng = SplitMix64::new(seed);
    let mut current = text.to_owned();
    let mut out = Vec::with_capacity(max + 1);
    out.push(current.clone());
    for _ in 0..max {
        // Character boundaries, end included; never empty (0 is one).
        let bounds: Vec<usize> = current
            .char_indices()
            .map(|(i, _)| i)
            .chain(std::iter::once(current.len()))
            .collect();
        let k = below_or_eq(&mut rng, bounds.len() - 1);
        let at = bounds.get(k).copied().unwrap_or(current.len());
        current.insert_str(at, INSERT);
        out.push(current.clone());
    }
    out
}

/// A [`Document`] of plain text through neardup's normalizer (the words and
/// terms the detectors read).
pub fn document(normalizer: &Normalizer, text: &str) -> Document {
    let n = normalizer.normalize(text, None);
    Document {
        text: text.to_owned(),
        lang: n.lang,
        words: n.words,
        terms: n.terms,
        ..Document::default()
    }
}

/// The normalizer of the default configuration.
pub fn default_normalizer() -> Normalizer {
    Normalizer::new(&TextConfig::default())
}

/// Similarity (the resemblance each detector reports) between `text` and
/// each of its `max` nested modifications, for every method: `out[m][i]` is
/// method `m` at `i` insertions (`out[m][0]` compares the text with itself).
pub fn similarity_curves(
    methods: &[Method],
    normalizer: &Normalizer,
    text: &str,
    max: usize,
    seed: u64,
) -> Vec<Vec<f64>> {
    let versions = modified_versions(text, max, seed);
    let original = document(normalizer, text);
    let base: Vec<_> = methods.iter().map(|m| m.detector.sign(&original)).collect();
    let mut out = vec![Vec::with_capacity(max + 1); methods.len()];
    for v in &versions {
        let doc = document(normalizer, v);
        for ((m, b), curve) in methods.iter().zip(&base).zip(out.iter_mut()) {
            let sig = m.detector.sign(&doc);
            curve.push(m.detector.similarity(b, &sig).resemblance);
        }
    }
    out
}
