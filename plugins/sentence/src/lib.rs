//! Sentence-level hashing with an allowed duplication percentage
//! (`../shared/papers/sentence-hash-thresholding.txt`, Algorithm 1): split
//! the page into sentences, hash each, and drop the page when the share of
//! its sentences already seen in earlier pages reaches the allowed
//! percentage (20% in the paper).
//!
//! # Sentences
//!
//! The main text (`Document::text`, one block per line) is split at line
//! breaks and at Unicode sentence boundaries (UAX #29, which handles `.`,
//! `!`, `?` and abbreviations such as "e.g." better than splitting on
//! punctuation). Each sentence is normalized: lowercased, cut into words at
//! every non-alphanumeric character, words joined by one space. Sentences
//! of fewer than `min_words` words (default 4) are dropped: headings,
//! bylines, "Share this" and dates repeat across unrelated pages of a site
//! and would count as duplication. Each remaining sentence gets one stable
//! hash (xxh3-64 with a fixed seed, folded to 32 bits); the signature is
//! the set of distinct hashes, so a sentence repeated within the page
//! counts once.
//!
//! # "Seen in any earlier page" within a pairwise trait
//!
//! `Detector::classify` sees one earlier page, but the paper's percentage
//! is over the union of all earlier pages (a page stitched from three
//! sources is 100% duplicated although no single source holds more than a
//! third of it). The index is an inverted index sentence -> pages
//! ([`SetIndex`]), whose key set *is* the set of all sentences seen; it
//! answers [`CandidateIndex::coverage`]. The core calls
//! [`Detector::classify_in_context`] with that index, and this detector
//! decides there:
//!
//! - the page's duplication percentage `p` = coverage of its sentences;
//! - `p < allowed`: not a match, whatever the candidate;
//! - otherwise each candidate (earlier pages sharing sentences, most shared
//!   first) is a match whose score is the share of the page's sentences
//!   found in *that* page, so the core reports the page sharing the most;
//!   the level is `Duplicate` when `p` is 100%, else `NearDuplicate`.
//!
//! Plain [`Detector::classify`] (no index) applies the same rule to the one
//! earlier page. Only kept pages are indexed (the core does not index exact
//! duplicates; near duplicates when `decide.index_near_duplicates`), so
//! "seen" means "seen in an indexed page".
#![deny(missing_docs)]
#![forbid(unsafe_code)]

use neardup_api::{
    intersection_size, CandidateIndex, Detector, Document, Judgement, Level, SetIndex,
    SettingError, Signature, Similarity,
};
use serde::{Deserialize, Serialize};
use unicode_segmentation::UnicodeSegmentation;
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// Seed of the sentence hash. Changing it invalidates stored signatures.
pub const SEED: u64 = 0x6e65_6172_6475_7031;

/// Settings of `[plugins.sentence]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// Allowed duplication: a page whose share of already-seen sentences is
    /// at or above this is dropped (the paper's 20%).
    pub allowed: f64,
    /// Sentences with fewer words are ignored.
    pub min_words: usize,
    /// A sentence found in more indexed pages than this yields no
    /// candidates (it still counts as seen).
    pub max_postings: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            allowed: 0.2,
            min_words: 4,
            max_postings: 1000,
        }
    }
}

impl Settings {
    /// Checks every range.
    ///
    /// # Errors
    /// The first bad key, relative to `[plugins.sentence]`.
    pub fn validate(&self) -> Result<(), SettingError> {
        SettingError::unit("allowed", self.allowed, 1.0)?;
        if self.allowed == 0.0 {
            return Err(SettingError {
                key: "allowed".into(),
                value: "0".into(),
                allowed: "must be in (0.0, 1.0]: 0 would drop every page".into(),
            });
        }
        SettingError::range("min_words", self.min_words, 1, 1000)?;
        SettingError::range("max_postings", self.max_postings, 1, 100_000_000)
    }
}

/// The normalized sentences of a text: split at line breaks and UAX #29
/// sentence boundaries, lowercased, words of alphanumerics joined by one
/// space, sentences of fewer than `min_words` words dropped.
pub fn sentences(text: &str, min_words: usize) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        for raw in line.split_sentence_bounds() {
            if let Some(s) = normalize(raw, min_words) {
                out.push(s);
            }
        }
    }
    out
}

/// One pass over the sentence: alphanumeric runs lowercased, joined by one
/// space; `None` if fewer than `min_words` words.
fn normalize(raw: &str, min_words: usize) -> Option<String> {
    let mut s = String::with_capacity(raw.len());
    let mut words = 0;
    let mut in_word = false;
    for c in raw.chars() {
        if c.is_alphanumeric() {
            if !in_word {
                if words > 0 {
                    s.push(' ');
                }
                words += 1;
                in_word = true;
            }
            if c.is_ascii() {
                s.push(c.to_ascii_lowercase());
            } else {
                s.extend(c.to_lowercase());
            }
        } else {
            in_word = false;
        }
    }
    (words >= min_words).then_some(s)
}

/// The stable 32-bit hash of a normalized sentence (xxh3-64, high and low
/// halves folded).
pub fn sentence_hash(sentence: &str) -> u32 {
    let h = xxh3_64_with_seed(sentence.as_bytes(), SEED);
    (h ^ (h >> 32)) as u32
}

/// The `sentence` detector.
#[derive(Clone, Debug)]
pub struct SentenceDetector {
    settings: Settings,
}

impl SentenceDetector {
    /// A detector with checked settings.
    ///
    /// # Errors
    /// As [`Settings::validate`].
    pub fn new(settings: Settings) -> Result<SentenceDetector, SettingError> {
        settings.validate()?;
        Ok(SentenceDetector { settings })
    }

    /// The decision for duplication percentage `global` (share of the
    /// page's sentences seen anywhere) and `pair` (share found in the
    /// candidate page).
    fn judge(&self, global: f64, pair: f64, scope: &str) -> Option<Judgement> {
        let allowed = self.settings.allowed;
        if global < allowed || pair <= 0.0 {
            return None;
        }
        let level = if global >= 1.0 {
            Level::Duplicate
        } else {
            Level::NearDuplicate
        };
        Some(Judgement {
            level,
            score: pair,
            reason: format!(
                "{:.0}% of sentences seen {scope} (allowed {:.0}%), {:.0}% in this page",
                global * 100.0,
                allowed * 100.0,
                pair * 100.0
            )
            .into(),
        })
    }
}

/// Share of `query`'s sentences present in `earlier`.
fn share_in(query: &Signature, earlier: &Signature) -> f64 {
    match (query, earlier) {
        (Signature::Set(q), Signature::Set(e)) if !q.is_empty() => {
            intersection_size(q, e) as f64 / q.len() as f64
        }
        _ => 0.0,
    }
}

impl Detector for SentenceDetector {
    fn name(&self) -> &str {
        "sentence"
    }

    fn sign(&self, doc: &Document) -> Signature {
        Signature::from_set(
            sentences(&doc.text, self.settings.min_words)
                .iter()
                .map(|s| sentence_hash(s))
                .collect(),
        )
    }

    fn similarity(&self, query: &Signature, earlier: &Signature) -> Similarity {
        Similarity::of_sets(query, earlier)
    }

    fn classify(&self, query: &Signature, earlier: &Signature, _: Similarity) -> Option<Judgement> {
        let pair = share_in(query, earlier);
        self.judge(pair, pair, "in this earlier page")
    }

    fn classify_in_context(
        &self,
        index: &dyn CandidateIndex,
        query: &Signature,
        earlier: &Signature,
        sim: Similarity,
    ) -> Option<Judgement> {
        match index.coverage(query) {
            Some(global) => self.judge(global, share_in(query, earlier), "in earlier pages"),
            None => self.classify(query, earlier, sim),
        }
    }

    fn new_index(&self) -> Box<dyn CandidateIndex> {
        Box::new(SetIndex::new(self.settings.max_postings, 1))
    }

    /// Which sentences count; `allowed` and `max_postings` may change over
    /// one index.
    fn signature_settings(&self) -> Option<Vec<(String, String)>> {
        Some(vec![(
            "plugins.sentence.min_words".into(),
            self.settings.min_words.to_string(),
        )])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup_api::conformance::{check_detector, doc, words};

    fn detector() -> SentenceDetector {
        SentenceDetector::new(Settings::default()).unwrap()
    }

    fn page(text: &str) -> Document {
        Document {
            text: text.into(),
            ..Document::default()
        }
    }

    #[test]
    fn conformance() {
        check_detector(&detector(), 0.05, 0.6);
    }

    #[test]
    fn sentences_are_split_normalized_and_short_ones_dropped() {
        let s = sentences(
            "The  Cat sat on the MAT. Did it?  Yes, it did sit there!\nBy Jane Doe\nOne two three four",
            4,
        );
        assert_eq!(
            s,
            vec![
                "the cat sat on the mat",
                "yes it did sit there",
                "one two three four"
            ]
        );
    }

    #[test]
    fn hash_ignores_case_spacing_and_punctuation_only() {
        let a = sentences("Hello there, my old friend!", 4);
        let b = sentences("hello   THERE my old friend", 4);
        let c = sentences("Hello there, my new friend!", 4);
        assert_eq!(sentence_hash(&a[0]), sentence_hash(&b[0]));
        assert_ne!(sentence_hash(&a[0]), sentence_hash(&c[0]));
    }

    /// Ten sentences of eight words from `seed`'s words, capitalized (UAX
    /// #29 does not end a sentence before a lowercase word).
    fn text(seed: u64) -> Vec<String> {
        words(seed, 80)
            .chunks(8)
            .map(|c| {
                let s = c.join(" ");
                let mut chars = s.chars();
                let first = chars.next().map(|f| f.to_uppercase().to_string());
                format!("{}{}.", first.unwrap_or_default(), chars.as_str())
            })
            .collect()
    }

    #[test]
    fn percentage_is_over_all_earlier_pages_not_one() {
        let d = detector();
        let (a, b, c) = (text(1), text(2), text(3));
        // A page stitched from 3 sentences of a, 3 of b and 4 new ones:
        // 60% seen in earlier pages, 30% in either single page.
        let mut stitched: Vec<String> = a[..3].to_vec();
        stitched.extend_from_slice(&b[..3]);
        stitched.extend_from_slice(&c[..4]);
        let (sa, sb) = (d.sign(&page(&a.join(" "))), d.sign(&page(&b.join(" "))));
        let q = d.sign(&page(&stitched.join(" ")));

        let mut index = d.new_index();
        index.insert(0, &sa);
        index.insert(1, &sb);
        assert_eq!(index.coverage(&q), Some(0.6));
        let j = d
            .classify_in_context(&*index, &q, &sa, d.similarity(&q, &sa))
            .unwrap();
        assert_eq!(j.level, Level::NearDuplicate);
        assert!((j.score - 0.3).abs() < 1e-12, "{j:?}");
        assert!(j.reason.to_string().contains("60%"), "{}", j.reason);

        // With allowed = 50%: 60% globally drops it, though each single page
        // holds only 30% (pairwise classify keeps it).
        let strict = SentenceDetector::new(Settings {
            allowed: 0.5,
            ..Settings::default()
        })
        .unwrap();
        let sim = strict.similarity(&q, &sa);
        assert!(strict.classify(&q, &sa, sim).is_none());
        assert!(strict.classify_in_context(&*index, &q, &sa, sim).is_some());

        // All sentences seen, spread over two pages: a duplicate.
        let mut all: Vec<String> = a[..5].to_vec();
        all.extend_from_slice(&b[5..]);
        let q = d.sign(&page(&all.join(" ")));
        let j = d
            .classify_in_context(&*index, &q, &sb, d.similarity(&q, &sb))
            .unwrap();
        assert_eq!(j.level, Level::Duplicate);
        assert!((j.score - 0.5).abs() < 1e-12, "{j:?}");
    }

    #[test]
    fn below_the_allowed_percentage_is_kept() {
        let d = detector();
        let (a, c) = (text(1), text(3));
        // 1 of 10 sentences seen: 10% < 20%.
        let mut q: Vec<String> = a[..1].to_vec();
        q.extend_from_slice(&c[1..]);
        let sa = d.sign(&page(&a.join(" ")));
        let sq = d.sign(&page(&q.join(" ")));
        let mut index = d.new_index();
        index.insert(0, &sa);
        assert_eq!(index.coverage(&sq), Some(0.1));
        let sim = d.similarity(&sq, &sa);
        assert!(d.classify_in_context(&*index, &sq, &sa, sim).is_none());
        // 2 of 10: exactly 20%, dropped (>= allowed).
        let mut q: Vec<String> = a[..2].to_vec();
        q.extend_from_slice(&c[2..]);
        let sq = d.sign(&page(&q.join(" ")));
        let sim = d.similarity(&sq, &sa);
        assert!(d.classify_in_context(&*index, &sq, &sa, sim).is_some());
    }

    #[test]
    fn bad_settings_name_the_key() {
        for allowed in [0.0, 1.5] {
            let e = SentenceDetector::new(Settings {
                allowed,
                ..Settings::default()
            })
            .unwrap_err();
            assert_eq!(e.key, "allowed");
        }
    }

    #[test]
    fn lowercase_after_a_period_continues_the_sentence() {
        // UAX #29 (rule SB8): "e.g. the" is not a boundary, nor is ". the".
        assert_eq!(
            sentences("We use e.g. the best tools. Then we stop here.", 4).len(),
            2
        );
    }

    #[test]
    fn conformance_doc_has_sentences() {
        // The conformance texts put 12 words per sentence.
        assert_eq!(sentences(&doc(words(1, 24)).text, 4).len(), 2);
    }
}
