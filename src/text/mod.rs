//! Text normalization: NFKC, lowercase, Unicode words, language, stop words,
//! stems.
//!
//! [`Normalizer::normalize`] turns a page's main text into
//! - `words`: NFKC, lowercased, Unicode word boundaries (UAX #29), each CJK
//!   ideograph / kana its own word, numbers included, stop words kept;
//! - `terms`: `words` without the stop words of the page's language (nltk
//!   lists) and stemmed with its Snowball stemmer;
//! - `lang`: ISO 639-3 code from whatlang on a bounded sample, or the page's
//!   declared language when detection is unreliable, or `"und"`.
//!
//! Pure and total: any input gives a result, and a stemmer panic costs one
//! word its stem and adds a warning (see [`stem`]). Pure-ASCII text skips
//! the NFKC pass (ASCII is already NFKC).

mod lang;
mod stem;
mod words;

use std::borrow::Cow;

use rustc_hash::FxHashSet;
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

use crate::config::TextConfig;
use lang::LANGS;
use stem::{SafeStemmer, Stemmed};

/// Words and terms of a text, plus its language.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Normalized {
    /// ISO 639-3 code, or `"und"`.
    pub lang: String,
    /// Normalized words, stop words kept.
    pub words: Vec<String>,
    /// Words without stop words, stemmed.
    pub terms: Vec<String>,
    /// Problems that did not stop normalization (a stemmer that failed on
    /// some words), one line each.
    pub warnings: Vec<String>,
}

/// Stop words and stemmer of one language (an entry of `LANGS`).
#[derive(Debug)]
struct LangResources {
    /// ISO 639-3 code.
    code: &'static str,
    /// The nltk stop words, NFKC and lowercase like the words they filter.
    stop_words: FxHashSet<String>,
    /// The Snowball stemmer, if the language has one.
    stemmer: Option<SafeStemmer>,
}

/// Normalizes text. Cheap to share across threads (`&self` methods); the
/// stem cache is per thread.
#[derive(Debug)]
pub struct Normalizer {
    /// Which steps run.
    config: TextConfig,
    /// Per-language resources, built once.
    langs: Vec<LangResources>,
}

impl Normalizer {
    /// A normalizer with the given settings. Builds the stop-word sets of
    /// every supported language (a few thousand words in all).
    pub fn new(config: &TextConfig) -> Normalizer {
        let langs = LANGS
            .iter()
            .enumerate()
            .map(|(slot, spec)| LangResources {
                code: spec.code,
                stop_words: spec
                    .stop_words
                    .and_then(stop_words::lookup)
                    .unwrap_or_default()
                    .iter()
                    .map(|w| w.nfkc().collect::<String>().to_lowercase())
                    .collect(),
                stemmer: spec.stemmer.map(|alg| SafeStemmer::new(slot, alg)),
            })
            .collect();
        Normalizer {
            config: config.clone(),
            langs,
        }
    }

    /// Normalizes `text`. `lang_hint` is the page's declared language, if
    /// any (BCP 47 such as `en-US`, or an ISO 639-3 code); it is used when
    /// detection fails or is unreliable.
    pub fn normalize(&self, text: &str, lang_hint: Option<&str>) -> Normalized {
        let nfkc = nfkc(text);
        let lang = self.language(&nfkc, lang_hint);
        let lower = lowercase(nfkc);
        let res = self.langs.iter().find(|r| r.code == lang);
        let stop = res
            .filter(|_| self.config.stop_words)
            .map(|r| &r.stop_words)
            .filter(|s| !s.is_empty());
        let stemmer = res
            .filter(|_| self.config.stem)
            .and_then(|r| r.stemmer.as_ref());

        // About one word per 6 bytes of Latin text.
        let mut words = Vec::with_capacity(lower.len() / 6 + 1);
        let mut terms = Vec::with_capacity(lower.len() / 8 + 1);
        let mut failed: Vec<String> = Vec::new();
        stem::with_cache(|cache| {
            words::for_each_word(&lower, |w| {
                words.push(w.to_owned());
                if stop.is_some_and(|s| s.contains(w)) {
                    return;
                }
                let term = match stemmer {
                    // Numbers and other letterless words are not stemmed.
                    Some(st) if w.chars().any(char::is_alphabetic) => match st.stem(w, cache) {
                        Stemmed::Stem(s) => s,
                        Stemmed::Failed => {
                            if failed.len() < 3 && !failed.iter().any(|f| f == w) {
                                failed.push(w.to_owned());
                            }
                            w.to_owned()
                        }
                    },
                    _ => w.to_owned(),
                };
                terms.push(term);
            });
        });

        let mut warnings = Vec::new();
        if let (false, Some(st)) = (failed.is_empty(), stemmer) {
            warnings.push(format!(
                "{} stemmer failed on some words (e.g. {}); kept them unstemmed",
                st.language(),
                failed.join(", ")
            ));
        }
        Normalized {
            lang: lang.to_owned(),
            words,
            terms,
            warnings,
        }
    }

    /// The page's language: whatlang's when reliable, else the declared one
    /// when known, else whatlang's best guess, else `"und"`.
    fn language(&self, text: &str, hint: Option<&str>) -> &'static str {
        let detected = lang::detect(text, self.config.detect_bytes);
        let hinted = hint.and_then(lang::resolve_hint);
        match (detected, hinted) {
            (Some(d), _) if d.reliable => d.code,
            (_, Some(h)) => h,
            (Some(d), None) => d.code,
            (None, None) => "und",
        }
    }
}

/// NFKC of `text`; borrowed when it already is (all ASCII text is).
fn nfkc(text: &str) -> Cow<'_, str> {
    if text.is_ascii() || is_nfkc_quick(text.chars()) == IsNormalized::Yes {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.nfkc().collect())
    }
}

/// Lowercase (full Unicode mapping, so final sigma and the like are right);
/// borrowed when nothing changes.
fn lowercase(text: Cow<'_, str>) -> Cow<'_, str> {
    if text.is_ascii() {
        if text.bytes().any(|b| b.is_ascii_uppercase()) {
            let mut s = text.into_owned();
            s.make_ascii_lowercase();
            Cow::Owned(s)
        } else {
            text
        }
    } else {
        Cow::Owned(text.to_lowercase())
    }
}

#[cfg(test)]
mod tests;
