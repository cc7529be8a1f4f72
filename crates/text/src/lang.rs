//! Language identification and the per-language resources it selects.
//!
//! Detection is whatlang's trigram model on a bounded sample of the text.
//! Codes are ISO 639-3, as whatlang reports them (`eng`, `deu`, `cmn` for
//! Chinese, `nob` for Norwegian). A page's declared language (`<html lang>`,
//! BCP 47 such as `en-US`) is used when detection fails or is unreliable.

use rust_stemmers::Algorithm;

/// What neardup knows about one language: its ISO 639-3 code, its nltk
/// stop-word list (by the `stop-words` crate's code) and its Snowball stemmer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LangSpec {
    /// ISO 639-3 code, as reported in `Document::lang`.
    pub code: &'static str,
    /// Code of the nltk stop-word list, if there is one.
    pub stop_words: Option<&'static str>,
    /// Snowball stemmer, if there is one.
    pub stemmer: Option<Algorithm>,
}

const fn spec(
    code: &'static str,
    stop_words: Option<&'static str>,
    stemmer: Option<Algorithm>,
) -> LangSpec {
    LangSpec {
        code,
        stop_words,
        stemmer,
    }
}

/// Languages with a stop-word list or a stemmer. Every nltk list and every
/// rust-stemmers algorithm appears once.
pub(crate) static LANGS: &[LangSpec] = &[
    spec("eng", Some("en"), Some(Algorithm::English)),
    spec("ara", Some("ar"), Some(Algorithm::Arabic)),
    spec("dan", Some("da"), Some(Algorithm::Danish)),
    spec("nld", Some("nl"), Some(Algorithm::Dutch)),
    spec("fin", Some("fi"), Some(Algorithm::Finnish)),
    spec("fra", Some("fr"), Some(Algorithm::French)),
    spec("deu", Some("de"), Some(Algorithm::German)),
    spec("ell", Some("el"), Some(Algorithm::Greek)),
    spec("hun", Some("hu"), Some(Algorithm::Hungarian)),
    spec("ita", Some("it"), Some(Algorithm::Italian)),
    spec("nob", Some("no"), Some(Algorithm::Norwegian)),
    spec("por", Some("pt"), Some(Algorithm::Portuguese)),
    spec("ron", Some("ro"), Some(Algorithm::Romanian)),
    spec("rus", Some("ru"), Some(Algorithm::Russian)),
    spec("spa", Some("es"), Some(Algorithm::Spanish)),
    spec("swe", Some("sv"), Some(Algorithm::Swedish)),
    spec("tam", Some("ta"), Some(Algorithm::Tamil)),
    spec("tur", Some("tr"), Some(Algorithm::Turkish)),
    spec("sqi", Some("sq"), None),
    spec("aze", Some("az"), None),
    spec("eus", Some("eu"), None),
    spec("bel", Some("be"), None),
    spec("ben", Some("bn"), None),
    spec("cat", Some("ca"), None),
    spec("cmn", Some("zh"), None),
    spec("heb", Some("he"), None),
    spec("ind", Some("id"), None),
    spec("kaz", Some("kk"), None),
    spec("nep", Some("ne"), None),
    spec("slv", Some("sl"), None),
    spec("tgk", Some("tg"), None),
    spec("uzb", Some("uz"), None),
];

/// ISO 639-1 (and a few legacy) codes to the ISO 639-3 codes whatlang uses.
static ISO1_TO_3: &[(&str, &str)] = &[
    ("af", "afr"),
    ("ak", "aka"),
    ("am", "amh"),
    ("ar", "ara"),
    ("az", "aze"),
    ("be", "bel"),
    ("bg", "bul"),
    ("bn", "ben"),
    ("ca", "cat"),
    ("cs", "ces"),
    ("cy", "cym"),
    ("da", "dan"),
    ("de", "deu"),
    ("el", "ell"),
    ("en", "eng"),
    ("eo", "epo"),
    ("es", "spa"),
    ("et", "est"),
    ("eu", "eus"),
    ("fa", "pes"),
    ("fi", "fin"),
    ("fr", "fra"),
    ("gu", "guj"),
    ("he", "heb"),
    ("hi", "hin"),
    ("hr", "hrv"),
    ("hu", "hun"),
    ("hy", "hye"),
    ("id", "ind"),
    ("in", "ind"),
    ("it", "ita"),
    ("iw", "heb"),
    ("ja", "jpn"),
    ("jv", "jav"),
    ("ka", "kat"),
    ("kk", "kaz"),
    ("km", "khm"),
    ("kn", "kan"),
    ("ko", "kor"),
    ("la", "lat"),
    ("lt", "lit"),
    ("lv", "lav"),
    ("mk", "mkd"),
    ("ml", "mal"),
    ("mr", "mar"),
    ("my", "mya"),
    ("nb", "nob"),
    ("ne", "nep"),
    ("nl", "nld"),
    ("nn", "nob"),
    ("no", "nob"),
    ("or", "ori"),
    ("pa", "pan"),
    ("pl", "pol"),
    ("pt", "por"),
    ("ro", "ron"),
    ("ru", "rus"),
    ("si", "sin"),
    ("sk", "slk"),
    ("sl", "slv"),
    ("sn", "sna"),
    ("sq", "sqi"),
    ("sr", "srp"),
    ("sv", "swe"),
    ("ta", "tam"),
    ("te", "tel"),
    ("tg", "tgk"),
    ("th", "tha"),
    ("tk", "tuk"),
    ("tl", "tgl"),
    ("tr", "tur"),
    ("uk", "ukr"),
    ("ur", "urd"),
    ("uz", "uzb"),
    ("vi", "vie"),
    ("yi", "yid"),
    ("zh", "cmn"),
    ("zu", "zul"),
];

/// ISO 639-3 synonyms mapped to the code whatlang reports.
static ISO3_ALIASES: &[(&str, &str)] = &[
    ("zho", "cmn"),
    ("chi", "cmn"),
    ("nor", "nob"),
    ("nno", "nob"),
    ("fas", "pes"),
    ("per", "pes"),
    ("ger", "deu"),
    ("fre", "fra"),
    ("gre", "ell"),
    ("dut", "nld"),
    ("rum", "ron"),
    ("alb", "sqi"),
    ("baq", "eus"),
];

/// The ISO 639-3 code of a declared language such as `en`, `en-US`,
/// `pt_BR`, `deu` or `zh-Hant`, if neardup knows it.
pub(crate) fn resolve_hint(hint: &str) -> Option<&'static str> {
    let primary = hint
        .trim()
        .split(['-', '_'])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    match primary.len() {
        2 => ISO1_TO_3
            .iter()
            .find(|(two, _)| *two == primary)
            .map(|(_, three)| *three),
        3 => ISO3_ALIASES
            .iter()
            .find(|(alias, _)| *alias == primary)
            .map(|(_, code)| *code)
            .or_else(|| {
                ISO1_TO_3
                    .iter()
                    .map(|(_, three)| *three)
                    .chain(LANGS.iter().map(|l| l.code))
                    .find(|three| *three == primary)
            }),
        _ => None,
    }
}

/// A language vote by stop words: the share of a sample's words that are
/// stop words of each language. Web text in a language with a stop-word
/// list is 30-50% stop words of that language and far fewer of any other,
/// so when one language clearly wins, whatlang's trigram model (about a
/// third of a check's CPU, whatever the sample size) would only confirm it.
/// Close calls (related languages: Danish and Norwegian, Spanish and
/// Portuguese), short samples and text with few stop words of any list
/// (languages without a list) go to whatlang as before.
#[derive(Debug, Default)]
pub(crate) struct StopWordVote {
    /// Stop word -> bit `i` set when it is a stop word of `LANGS[i]`.
    index: rustc_hash::FxHashMap<String, u64>,
}

/// Fewest words (with a letter) in the sample for a vote to count.
const VOTE_MIN_WORDS: u32 = 20;
/// Least share of the sample's words that must be stop words of the winner.
const VOTE_MIN_SHARE: f64 = 0.2;
/// The winner needs at least this many times the runner-up's stop words.
const VOTE_MARGIN: u32 = 2;

impl StopWordVote {
    /// Indexes the stop-word lists: `(slot in LANGS, its words)`.
    pub fn new<'a>(
        lists: impl IntoIterator<Item = (usize, &'a rustc_hash::FxHashSet<String>)>,
    ) -> Self {
        let mut index = rustc_hash::FxHashMap::<String, u64>::default();
        for (slot, words) in lists {
            if slot >= 64 {
                continue;
            }
            for w in words {
                *index.entry(w.clone()).or_insert(0) |= 1 << slot;
            }
        }
        StopWordVote { index }
    }

    /// The slot in `LANGS` of the clear winner on `lower` (NFKC,
    /// lowercased) cut to `max_bytes`, or `None` for a close call.
    pub fn vote(&self, lower: &str, max_bytes: usize) -> Option<usize> {
        self.tally_text(lower, max_bytes)?.winner()
    }

    /// The count behind [`StopWordVote::vote`].
    pub fn tally_text(&self, lower: &str, max_bytes: usize) -> Option<Tally<'_>> {
        let sample = lower.get(..sample_end(lower, max_bytes))?;
        let mut tally = self.tally();
        super::words::for_each_word(sample, |w| tally.add(w));
        Some(tally)
    }

    /// An empty count, fed word by word: [`StopWordVote::vote`] for a
    /// caller that has the sample's words split already.
    pub fn tally(&self) -> Tally<'_> {
        Tally {
            vote: self,
            hits: [0; 64],
            words: 0,
        }
    }
}

/// Where a sample of at most `max_bytes` of `text` ends: at a character
/// boundary, never past the text.
pub(crate) fn sample_end(text: &str, max_bytes: usize) -> usize {
    let mut end = text.len().min(max_bytes);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    end
}

/// The stop words of each language among a sample's words so far
/// ([`StopWordVote::tally`]).
pub(crate) struct Tally<'a> {
    vote: &'a StopWordVote,
    /// Stop words of `LANGS[i]` seen.
    hits: [u32; 64],
    /// Words with a letter seen.
    words: u32,
}

impl Tally<'_> {
    /// Stop words of each language, and words with a letter, counted so
    /// far: what two tallies of one sample must agree on.
    #[cfg(test)]
    pub fn counts(&self) -> ([u32; 64], u32) {
        (self.hits, self.words)
    }

    /// Counts one word of the sample, in order.
    #[inline]
    pub fn add(&mut self, w: &str) {
        if !super::words::has_letter(w) {
            return;
        }
        self.words += 1;
        if let Some(&mask) = self.vote.index.get(w) {
            let mut m = mask;
            while m != 0 {
                let slot = m.trailing_zeros() as usize;
                if let Some(h) = self.hits.get_mut(slot) {
                    *h += 1;
                }
                m &= m - 1;
            }
        }
    }

    /// The slot in `LANGS` of the clear winner, or `None` for a close
    /// call or too short a sample.
    pub fn winner(&self) -> Option<usize> {
        if self.words < VOTE_MIN_WORDS {
            return None;
        }
        let (mut best, mut first, mut second) = (0usize, 0u32, 0u32);
        for (slot, &h) in self.hits.iter().enumerate() {
            if h > first {
                second = first;
                first = h;
                best = slot;
            } else if h > second {
                second = h;
            }
        }
        let clear = f64::from(first) >= VOTE_MIN_SHARE * f64::from(self.words)
            && first >= VOTE_MARGIN.saturating_mul(second).max(1);
        clear.then_some(best)
    }
}

/// Outcome of whatlang on a sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Detection {
    /// ISO 639-3 code.
    pub code: &'static str,
    /// whatlang's own reliability verdict (confidence and margin).
    pub reliable: bool,
}

/// Runs whatlang on at most `max_bytes` bytes from the start of `text` (cut
/// at a character boundary). `None` when whatlang finds no language (no
/// letters) or panics (it never should; a page must not stop the run).
pub(crate) fn detect(text: &str, max_bytes: usize) -> Option<Detection> {
    let sample = text.get(..sample_end(text, max_bytes))?;
    let info = std::panic::catch_unwind(|| whatlang::detect(sample)).ok()??;
    Some(Detection {
        code: info.lang().code(),
        reliable: info.is_reliable(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_resolve_to_iso639_3() {
        assert_eq!(resolve_hint("en"), Some("eng"));
        assert_eq!(resolve_hint("en-US"), Some("eng"));
        assert_eq!(resolve_hint("pt_BR"), Some("por"));
        assert_eq!(resolve_hint(" DE "), Some("deu"));
        assert_eq!(resolve_hint("zh-Hant"), Some("cmn"));
        assert_eq!(resolve_hint("deu"), Some("deu"));
        assert_eq!(resolve_hint("zho"), Some("cmn"));
        assert_eq!(resolve_hint("nb-NO"), Some("nob"));
        assert_eq!(resolve_hint("xx"), None);
        assert_eq!(resolve_hint(""), None);
        assert_eq!(resolve_hint("english"), None);
    }

    #[test]
    fn every_stop_word_list_exists() {
        for l in LANGS {
            if let Some(code) = l.stop_words {
                assert!(stop_words::lookup(code).is_some(), "{code}");
            }
        }
    }

    #[test]
    fn every_whatlang_code_with_resources_is_spelled_like_whatlang() {
        for l in LANGS {
            if let Some(lang) = whatlang::Lang::from_code(l.code) {
                assert_eq!(lang.code(), l.code);
            }
        }
        // The ones we stem must all be detectable.
        for l in LANGS.iter().filter(|l| l.stemmer.is_some()) {
            assert!(whatlang::Lang::from_code(l.code).is_some(), "{}", l.code);
        }
    }

    #[test]
    fn detects_english_in_a_bounded_sample() {
        let text = "The computer research system was built by the team in the \
                    laboratory. Researchers ran the systems for many years and the \
                    computers were connected to the network of the university. "
            .repeat(20);
        let d = detect(&text, 200).unwrap();
        assert_eq!(d.code, "eng");
        assert!(d.reliable);
        // A cut inside a multi-byte character must not panic (byte 3 is
        // inside the second "é").
        let _ = detect("ééééé", 3);
        assert_eq!(detect("12345 !!!", 1024), None);
    }

    fn vote() -> StopWordVote {
        let sets: Vec<rustc_hash::FxHashSet<String>> = LANGS
            .iter()
            .map(|l| {
                l.stop_words
                    .and_then(stop_words::lookup)
                    .unwrap_or_default()
                    .iter()
                    .map(|w| w.to_lowercase())
                    .collect()
            })
            .collect();
        StopWordVote::new(sets.iter().enumerate())
    }

    fn code(slot: Option<usize>) -> Option<&'static str> {
        slot.and_then(|s| LANGS.get(s)).map(|l| l.code)
    }

    #[test]
    fn the_stop_word_vote_settles_clear_cases_only() {
        let v = vote();
        let en = "the committee said that it would publish the report on the \
                  findings of the inquiry at the end of the year and that all of \
                  the members had agreed to the terms which were set out in it";
        assert_eq!(code(v.vote(en, 1024)), Some("eng"));
        let de = "der ausschuss sagte dass er den bericht über die ergebnisse der \
                  untersuchung am ende des jahres veröffentlichen werde und dass \
                  alle mitglieder den bedingungen zugestimmt hätten die darin stehen";
        assert_eq!(code(v.vote(de, 1024)), Some("deu"));
        // Too short to count.
        assert_eq!(v.vote("the cat and the dog", 1024), None);
        // No stop words of any list: whatlang decides.
        let pseudo = "kalo miter sanve rodun plios grafe nubel torwi ".repeat(5);
        assert_eq!(v.vote(&pseudo, 1024), None);
        // Danish and Norwegian share most stop words: a close call.
        let da = "det er ikke noget som han har sagt til mig men jeg ved at hun \
                  var der og at de havde været hjemme hele dagen med deres børn";
        let da_vote = code(v.vote(da, 1024));
        assert!(da_vote.is_none() || da_vote == Some("dan"), "{da_vote:?}");
        // The sample bound holds: English first, German after the cut.
        let mixed = format!("{en} {de} {de} {de}");
        assert_eq!(code(v.vote(&mixed, en.len())), Some("eng"));
    }
}
