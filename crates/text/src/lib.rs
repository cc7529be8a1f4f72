//! Text normalization: NFKC, lowercase, Unicode words, language, stop words,
//! stems.
//!
//! [`Normalizer::normalize`] turns a page's main text into
//! - `words`: NFKC, lowercased, Unicode word boundaries (UAX #29), each CJK
//!   ideograph / kana its own word, numbers included, stop words kept;
//! - `terms`: `words` without the stop words of the page's language (nltk
//!   lists) and stemmed with its Snowball stemmer;
//! - `lang`: ISO 639-3 code: on a bounded sample, the language whose stop
//!   words clearly dominate it (see `lang::StopWordVote`), else whatlang's,
//!   or the page's declared language when whatlang is unreliable, or
//!   `"und"`.
//!
//! Pure and total: any input gives a result, and a stemmer panic costs one
//! word its stem and adds a warning (see `stem.rs`). Pure-ASCII text skips
//! the NFKC pass (ASCII is already NFKC).

#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod lang;
mod separators;
mod stem;
mod stop;
mod words;

pub use separators::separators_in;
pub use words::{
    count_whitespace_words, first_non_ascii, for_each_word, is_alphabetic, is_alphanumeric,
};

use neardup_api::{SettingError, Words};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::ops::Range;

use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

use lang::LANGS;
use stem::SafeStemmer;
use stop::StopSet;

/// Words and terms of a text, plus its language.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Normalized {
    /// ISO 639-3 code, or `"und"`.
    pub lang: String,
    /// Normalized words, stop words kept.
    pub words: Words,
    /// Words without stop words, stemmed.
    pub terms: Words,
    /// Problems that did not stop normalization (a stemmer that failed on
    /// some words), one line each.
    pub warnings: Vec<String>,
    /// Where each block's words are in `words`, in block order (one block
    /// for [`Normalizer::normalize`]).
    pub blocks: Vec<BlockWords>,
}

impl Normalized {
    /// The words of block `i` (of those given to
    /// [`Normalizer::normalize_blocks`]) if they are also the words of its
    /// text lowercased character by character (`char::to_lowercase`, no
    /// NFKC): what a caller hashing words that way can take as they are.
    pub fn plain_words_of(&self, i: usize) -> Option<impl Iterator<Item = &str> + '_> {
        let span = self.blocks.get(i).filter(|b| b.plain)?;
        let start = match i.checked_sub(1) {
            Some(p) => self.blocks.get(p)?.end,
            None => 0,
        };
        Some((start..span.end).filter_map(|k| self.words.get(k as usize)))
    }
}

/// Where one block's words end in [`Normalized::words`], and whether they
/// are plain ([`Normalized::plain_words_of`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockWords {
    /// The block's words are `words[previous block's end..end]`.
    pub end: u32,
    /// NFKC left the block as it was, and lowercasing it did not depend
    /// on context (no capital sigma): its words are those of the block
    /// lowercased character by character.
    pub plain: bool,
}

/// The start of the joined text of some blocks (as
/// [`Normalizer::normalize_blocks`] joins them), NFKC and lowercased: as
/// far as the language sample reads, `limit` bytes.
#[derive(Debug)]
struct SampleStart {
    nfkc: String,
    lower: String,
    /// A block with text came before: the joined text has a newline
    /// before each block but those before the first with text.
    started: bool,
    limit: usize,
}

impl SampleStart {
    fn new(limit: usize) -> SampleStart {
        SampleStart {
            nfkc: String::new(),
            lower: String::new(),
            started: false,
            limit,
        }
    }

    /// Adds the next block: its text, its NFKC and that lowercased.
    /// Returns where `lower` is in [`SampleStart::lower`], if the sample
    /// still reached it.
    fn push(&mut self, block: &str, nfkc: &str, lower: &str) -> Option<Range<usize>> {
        let mut at = None;
        if self.nfkc.len() < self.limit || self.lower.len() < self.limit {
            if self.started {
                self.nfkc.push('\n');
                self.lower.push('\n');
            }
            self.nfkc.push_str(nfkc);
            let from = self.lower.len();
            self.lower.push_str(lower);
            at = Some(from..self.lower.len());
        }
        self.started |= !block.is_empty();
        at
    }
}

/// Blocks split into words ([`Normalizer::split`]).
struct Split {
    /// The start of the joined text, for the language sample.
    start: SampleStart,
    /// Where each block's lowercase text is in `start.lower`, for the
    /// blocks the sample reaches (the first ones).
    in_sample: Vec<Range<usize>>,
    /// The words of all blocks, in order.
    words: Words,
    /// Where each block's words end in `words`.
    spans: Vec<BlockWords>,
}

/// Stop words and stemmer of one language (an entry of `LANGS`).
#[derive(Debug)]
struct LangResources {
    /// ISO 639-3 code.
    code: &'static str,
    /// The nltk stop words, NFKC and lowercase like the words they filter.
    stop_words: StopSet,
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
    /// The stop-word vote that settles clear cases before whatlang.
    vote: lang::StopWordVote,
}

impl Normalizer {
    /// A normalizer with the given settings. Builds the stop-word sets of
    /// every supported language (a few thousand words in all).
    pub fn new(config: &TextConfig) -> Normalizer {
        let langs: Vec<LangResources> = LANGS
            .iter()
            .enumerate()
            .map(|(slot, spec)| LangResources {
                code: spec.code,
                stop_words: StopSet::new(
                    spec.stop_words
                        .and_then(stop_words::lookup)
                        .unwrap_or_default()
                        .iter()
                        .map(|w| w.nfkc().collect::<String>().to_lowercase())
                        .collect(),
                ),
                stemmer: spec.stemmer.map(|alg| SafeStemmer::new(slot, alg)),
            })
            .collect();
        let vote = lang::StopWordVote::new(langs.iter().map(|r| r.stop_words.words()).enumerate());
        Normalizer {
            config: config.clone(),
            langs,
            vote,
        }
    }

    /// Normalizes `text`. `lang_hint` is the page's declared language, if
    /// any (BCP 47 such as `en-US`, or an ISO 639-3 code); it is used when
    /// detection fails or is unreliable.
    pub fn normalize(&self, text: &str, lang_hint: Option<&str>) -> Normalized {
        self.normalize_blocks(&[text], lang_hint)
    }

    /// Normalizes the text of `blocks` joined by newlines (a newline
    /// before each block after the first one with text, as
    /// `neardup_html::Extracted::text` joins them): the same
    /// words, terms and language as [`Normalizer::normalize`] of that text,
    /// and besides where each block's words are ([`Normalized::blocks`]),
    /// so that a caller that needs a block's words does not split it again.
    ///
    /// Block by block gives the same words as the joined text: no word
    /// spans a newline, NFKC composes nothing with one, and a newline ends
    /// the context of a final sigma as the end of a block does. The
    /// language is decided on the first `detect_bytes` of the joined text,
    /// built from the first blocks only.
    pub fn normalize_blocks(&self, blocks: &[&str], lang_hint: Option<&str>) -> Normalized {
        let bytes: usize = blocks.iter().map(|b| b.len() + 1).sum();
        let split = self.split(blocks, bytes);
        let voted = self
            .config
            .stop_word_vote
            .then(|| self.vote_on_words(&split))
            .flatten();
        let lang = self.language(voted, &split.start.nfkc, lang_hint);
        let Split { words, spans, .. } = split;
        let res = self.langs.iter().find(|r| r.code == lang);
        let stemmer = res.and_then(|r| r.stemmer.as_ref());

        let mut terms = Words::with_capacity(bytes / 8 + 1, bytes);
        let mut failed: Vec<String> = Vec::new();
        let (use_stop, use_stem) = (self.config.stop_words, self.config.stem);
        let stop_set = res.map(|r| &r.stop_words);
        let is_stop = |w: &str| stop_set.is_some_and(|s| s.contains(w));
        stem::with_cache(|cache| {
            let mut scratch = None;
            for w in words.iter() {
                // Numbers and other letterless words are neither stop words
                // nor stemmed, and would only crowd the cache. Without
                // stemming (the default) the stop list is asked directly:
                // the stem cache would stem every word it has not seen
                // only to answer "stop word?".
                let has_letter = words::has_letter(w);
                match stemmer {
                    Some(st) if has_letter && use_stem => {
                        let t = st.lookup(w, is_stop, cache, &mut scratch);
                        if use_stop && t.stop {
                            continue;
                        }
                        match t.stem() {
                            Some(stem) => terms.push(stem),
                            None => {
                                if failed.len() < 3 && !failed.iter().any(|f| f == w) {
                                    failed.push(w.to_owned());
                                }
                                terms.push(w);
                            }
                        }
                    }
                    _ => {
                        if !(use_stop && has_letter && is_stop(w)) {
                            terms.push(w);
                        }
                    }
                }
            }
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
            blocks: spans,
        }
    }

    /// Whether the stop-word vote alone settles the language of `text`
    /// (so whatlang is not asked): for diagnostics and the test that the
    /// vote agrees with whatlang on real pages.
    pub fn settled_by_vote(&self, text: &str) -> bool {
        let lower = lowercase(&nfkc(text)).into_owned();
        self.vote.vote(&lower, self.config.detect_bytes).is_some()
    }

    /// The first step of [`Normalizer::normalize_blocks`]: each block
    /// NFKC'd, lowercased and split into words, and the start of the
    /// joined text for the language sample. `bytes` is the joined text's
    /// length, to size the buffers.
    fn split(&self, blocks: &[&str], bytes: usize) -> Split {
        let mut start = SampleStart::new(self.config.detect_bytes);
        // About one word per 6 bytes of Latin text.
        let mut words = Words::with_capacity(bytes / 6 + 1, bytes);
        let mut spans = Vec::with_capacity(blocks.len());
        let mut in_sample = Vec::new();
        let mut buf = String::new();
        for block in blocks {
            let nfkc = nfkc(block);
            let lower = lowercase_in(&nfkc, &mut buf);
            if let Some(at) = start.push(block, &nfkc, lower) {
                in_sample.push(at);
            }
            words::for_each_word(lower, |w| words.push(w));
            // As NFKC leaves ASCII and quick-checked text borrowed, only
            // a final sigma can make `lowercase` differ from lowercasing
            // character by character.
            let plain =
                matches!(nfkc, Cow::Borrowed(_)) && (block.is_ascii() || !block.contains('Σ'));
            spans.push(BlockWords {
                end: words.len() as u32,
                plain,
            });
        }
        Split {
            start,
            in_sample,
            words,
            spans,
        }
    }

    /// [`lang::StopWordVote::vote`] on the sample of `s` (the joined
    /// lowercase text of its first blocks), counting the words
    /// [`Normalizer::split`] split already instead of splitting the sample
    /// again. Only the part of the block that the sample's end cuts is
    /// split here: a word never spans the newline between two blocks, so
    /// the blocks before it give the sample's words, in order.
    fn vote_on_words(&self, s: &Split) -> Option<usize> {
        self.tally_words(s)?.winner()
    }

    /// The count behind [`Normalizer::vote_on_words`].
    fn tally_words(&self, s: &Split) -> Option<lang::Tally<'_>> {
        let lower = &s.start.lower;
        let end = lang::sample_end(lower, self.config.detect_bytes);
        let mut tally = self.vote.tally();
        let mut first = 0;
        for (at, span) in s.in_sample.iter().zip(&s.spans) {
            let block_words = first..span.end;
            first = span.end;
            if at.start >= end {
                break;
            }
            if at.end > end {
                words::for_each_word(lower.get(at.start..end)?, |w| tally.add(w));
                break;
            }
            for k in block_words {
                tally.add(s.words.get(k as usize)?);
            }
        }
        Some(tally)
    }

    /// The page's language: the stop-word vote's (`voted`, a slot in
    /// `LANGS`) when it was clear-cut, else whatlang's when reliable, else
    /// the declared one when known, else whatlang's best guess, else
    /// `"und"`.
    fn language(&self, voted: Option<usize>, text: &str, hint: Option<&str>) -> &'static str {
        if let Some(r) = voted.and_then(|slot| self.langs.get(slot)) {
            return r.code;
        }
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

/// Whether NFKC's quick check says `text` is normalized, as
/// `is_nfkc_quick(text.chars()) == IsNormalized::Yes`. The ASCII is skipped
/// 32 bytes at a time and the characters of [`nfkc_stable`] are answered
/// from ranges; from the first other character on the quick check reads
/// Unicode's tables, as before (that check cost 1.9% of `dedup`, mostly
/// decoding ASCII and Latin letters one at a time).
fn nfkc_yes(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(off) = bytes.get(i..).and_then(words::first_non_ascii) {
        i += off;
        let rest = text.get(i..).unwrap_or("");
        let Some(c) = rest.chars().next() else {
            return true;
        };
        if !nfkc_stable(c) {
            // Every character before is a starter (ASCII or stable), so
            // the quick check starting here sees what it would have seen.
            return is_nfkc_quick(rest.chars()) == IsNormalized::Yes;
        }
        i += c.len_utf8();
    }
    true
}

/// Characters that NFKC's quick check answers Yes for and whose canonical
/// combining class is 0, in the blocks most non-ASCII web text is in:
/// Latin-1 punctuation and letters, Latin Extended, IPA, Greek, Cyrillic,
/// Hebrew and Arabic letters, Thai, dashes, quotes and bullets, CJK
/// punctuation, kana, Han and Hangul syllables. A test checks every one
/// against `unicode-normalization`. Not here, among others: no-break
/// space, the ellipsis, full-width forms and combining marks, which NFKC
/// changes or which need their neighbours.
#[inline]
fn nfkc_stable(c: char) -> bool {
    matches!(c as u32,
        0xA1..=0xA7 | 0xA9 | 0xAB..=0xAE | 0xB0 | 0xB1 | 0xB6 | 0xB7 | 0xBB
        | 0xBF..=0x131 | 0x134..=0x13E | 0x141..=0x148 | 0x14A..=0x17E
        | 0x180..=0x1C3 | 0x1CD..=0x1F0 | 0x1F4..=0x2AF
        | 0x386 | 0x388..=0x3CF
        | 0x400..=0x482 | 0x48A..=0x52F
        | 0x5D0..=0x5EA
        | 0x621..=0x64A
        | 0xE01..=0xE32 | 0xE34..=0xE37 | 0xE3F..=0xE47 | 0xE4F..=0xE5B
        | 0x2010 | 0x2012..=0x2016 | 0x2018..=0x2023 | 0x2030
        | 0x3001..=0x3029 | 0x3041..=0x3096 | 0x309D..=0x309E | 0x30A1..=0x30FE
        | 0x3400..=0x4DBF | 0x4E00..=0x9FFF
        | 0xAC00..=0xD7A3)
}

/// NFKC of `text`; borrowed when it already is (all ASCII text is).
///
/// Web text in Latin script is mostly ASCII with a few curly quotes, dashes
/// and no-break spaces, so only the non-ASCII runs are normalized, each with
/// the ASCII character before it (a base that a combining mark may compose
/// with). Cutting there is exact: an ASCII character is a starter that is
/// never the second half of a composition, so NFKC never reaches across it.
fn nfkc(text: &str) -> Cow<'_, str> {
    if nfkc_yes(text) {
        return Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let Some(off) = bytes.get(i..).and_then(words::first_non_ascii) else {
            out.push_str(text.get(i..).unwrap_or(""));
            break;
        };
        let first = i + off;
        let start = if first > i { first - 1 } else { first };
        out.push_str(text.get(i..start).unwrap_or(""));
        let end = bytes
            .get(first..)
            .and_then(|b| b.iter().position(u8::is_ascii))
            .map_or(text.len(), |p| first + p);
        let run = text.get(start..end).unwrap_or("");
        if nfkc_yes(run) {
            out.push_str(run);
        } else {
            out.extend(run.nfkc());
        }
        i = end;
    }
    Cow::Owned(out)
}

/// Lowercase, full Unicode mapping; borrowed when nothing changes. ASCII
/// stretches are lowercased bytewise and only the non-ASCII runs between
/// them go through `str::to_lowercase` (whose one context rule, Greek final
/// sigma, looks at letters inside the run, i.e. inside the word).
fn lowercase(text: &str) -> Cow<'_, str> {
    if is_lower_ascii(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    push_lowercase(text, &mut out);
    Cow::Owned(out)
}

/// [`lowercase`] into `buf` (its capacity reused from call to call), or
/// `text` itself when nothing changes.
fn lowercase_in<'a>(text: &'a str, buf: &'a mut String) -> &'a str {
    if is_lower_ascii(text) {
        return text;
    }
    buf.clear();
    push_lowercase(text, buf);
    buf
}

/// ASCII without a capital: its own lowercase.
fn is_lower_ascii(text: &str) -> bool {
    // 32 bytes at a time without an early exit inside, which the compiler
    // vectorizes; most texts are lowercase ASCII and read to the end.
    text.as_bytes().chunks(32).all(|chunk| {
        chunk.iter().fold(0u8, |bad, &b| {
            bad | (b & 0x80) | u8::from(b.is_ascii_uppercase())
        }) == 0
    })
}

/// Appends [`lowercase`] of `text` to `out`.
fn push_lowercase(text: &str, out: &mut String) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < text.len() {
        let first = bytes
            .get(i..)
            .and_then(words::first_non_ascii)
            .map_or(text.len(), |p| i + p);
        let ascii_start = out.len();
        out.push_str(text.get(i..first).unwrap_or(""));
        if let Some(pushed) = out.get_mut(ascii_start..) {
            pushed.make_ascii_lowercase();
        }
        let end = bytes
            .get(first..)
            .and_then(|b| b.iter().position(u8::is_ascii))
            .map_or(text.len(), |p| first + p);
        let run = text.get(first..end).unwrap_or("");
        if run.contains('Σ') {
            out.push_str(&run.to_lowercase());
        } else {
            out.extend(run.chars().flat_map(char::to_lowercase));
        }
        i = end;
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
    /// Settle the language by a stop-word vote when it is clear-cut, and
    /// only otherwise run whatlang (a third of a check's CPU). Off: always
    /// whatlang, as before the vote existed.
    pub stop_word_vote: bool,
}

impl Default for TextConfig {
    fn default() -> Self {
        TextConfig {
            stop_words: true,
            stem: false,
            detect_bytes: 1024,
            stop_word_vote: true,
        }
    }
}

impl TextConfig {
    /// Checks every range of `[text]`.
    ///
    /// # Errors
    /// The first bad key, its value and what is allowed.
    pub fn validate(&self) -> Result<(), SettingError> {
        SettingError::range("text.detect_bytes", self.detect_bytes, 64, 1 << 20)
    }
}

#[cfg(test)]
mod tests;

// The tests' one way to skip (a failure under CI), shared with tests/.
#[cfg(test)]
#[path = "../../../tests/skip.rs"]
mod skip;

#[cfg(test)]
mod nfkc_tests {
    use unicode_normalization::UnicodeNormalization;

    proptest::proptest! {
        /// Run-wise NFKC equals NFKC of the whole text.
        #[test]
        fn runwise_nfkc_is_exact(text in "[a-eA-E .\u{300}\u{301}\u{308}\u{327}éﬁ１Ａ\u{a0}\u{2019}ｶﬂ\u{3099}か]{0,30}") {
            let whole: String = text.nfkc().collect();
            proptest::prop_assert_eq!(super::nfkc(&text).into_owned(), whole);
        }

        /// Run-wise lowercase equals `str::to_lowercase` (Σ handled per run;
        /// it is tested separately).
        #[test]
        fn runwise_lowercase_is_exact(text in "[a-dA-D .ÉéÄİẞΩω\u{301}ЖЯǅ]{0,30}") {
            proptest::prop_assert_eq!(super::lowercase(&text).into_owned(), text.to_lowercase());
        }
    }

    #[test]
    fn stable_characters_are_quick_check_yes_starters() {
        use unicode_normalization::char::canonical_combining_class;
        use unicode_normalization::{is_nfkc_quick, IsNormalized};
        let mut stable = 0;
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            if super::nfkc_stable(c) {
                stable += 1;
                assert_eq!(
                    is_nfkc_quick(std::iter::once(c)),
                    IsNormalized::Yes,
                    "{:#X}",
                    c as u32
                );
                assert_eq!(canonical_combining_class(c), 0, "{:#X}", c as u32);
            }
        }
        assert!(stable > 35_000, "{stable}");
    }

    proptest::proptest! {
        /// The fast check answers as the quick check over whole strings:
        /// stable characters, ones NFKC changes, and combining marks in
        /// and out of order.
        #[test]
        fn fast_check_is_the_quick_check(text in "[a-c .éŁΩЖא中한かカ–’\u{a0}\u{2026}ﬁ１\u{300}\u{301}\u{316}\u{327}\u{3099}\u{e38}\u{e48}]{0,24}") {
            use unicode_normalization::{is_nfkc_quick, IsNormalized};
            proptest::prop_assert_eq!(
                super::nfkc_yes(&text),
                is_nfkc_quick(text.chars()) == IsNormalized::Yes
            );
        }
    }

    #[test]
    fn final_sigma() {
        assert_eq!(super::lowercase("ΟΔΟΣ ΟΔΟΣ. ΣΑΣ"), "οδος οδος. σας");
    }
}
