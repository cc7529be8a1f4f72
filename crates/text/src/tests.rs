use super::*;

/// Normalizes with stemming on: most tests here are about the stemmers.
fn norm(text: &str) -> Normalized {
    let config = TextConfig {
        stem: true,
        ..TextConfig::default()
    };
    Normalizer::new(&config).normalize(text, None)
}

#[test]
fn default_drops_stop_words_but_does_not_stem() {
    let n = Normalizer::new(&TextConfig::default()).normalize(ENGLISH, None);
    assert!(n.terms.iter().any(|w| w == "computers"), "{:?}", n.terms);
    assert!(n.terms.iter().any(|w| w == "systems"), "{:?}", n.terms);
    assert!(!n.terms.iter().any(|w| w == "the"), "{:?}", n.terms);
}

const ENGLISH: &str = "The computer research system was built by the team \
    in the laboratory. Researchers ran the systems for many years and the \
    computers were connected to the network of the university.";

#[test]
fn nfkc_folds_ligatures_and_fullwidth() {
    let n = norm("ﬁnance ＡＢＣ１２３ ﬂow");
    assert_eq!(n.words, ["finance", "abc123", "flow"]);
}

#[test]
fn lowercases_including_non_ascii() {
    let n = norm("HELLO Wörld ÉCOLE");
    assert_eq!(n.words, ["hello", "wörld", "école"]);
}

#[test]
fn numbers_are_words() {
    let n = norm("In 2024 the price was 3.50 dollars");
    assert!(n.words.iter().any(|w| w == "2024"), "{:?}", n.words);
    assert!(n.words.iter().any(|w| w == "3.50"), "{:?}", n.words);
    assert!(n.terms.iter().any(|w| w == "2024"), "{:?}", n.terms);
}

#[test]
fn english_stop_words_removed_content_words_kept() {
    let n = norm(ENGLISH);
    assert_eq!(n.lang, "eng");
    assert!(n.words.iter().any(|w| w == "the"));
    assert!(!n
        .terms
        .iter()
        .any(|w| w == "the" || w == "was" || w == "by"));
    // Porter2: "computer(s)" -> "comput", "systems" -> "system".
    for t in ["comput", "research", "system", "laboratori", "network"] {
        assert!(
            n.terms.iter().any(|w| w == t),
            "{t} missing in {:?}",
            n.terms
        );
    }
}

#[test]
fn switches_respect_config() {
    let plain = Normalizer::new(&TextConfig {
        stop_words: false,
        stem: false,
        ..TextConfig::default()
    })
    .normalize(ENGLISH, None);
    assert_eq!(plain.terms, plain.words);
    let stop_only = Normalizer::new(&TextConfig {
        stem: false,
        ..TextConfig::default()
    })
    .normalize(ENGLISH, None);
    assert!(stop_only.terms.iter().any(|w| w == "computer"));
    assert!(stop_only.terms.iter().any(|w| w == "researchers"));
    assert!(!stop_only.terms.iter().any(|w| w == "the"));
}

#[test]
fn german_detected_and_stemmed_with_german_stemmer() {
    let n = norm(
        "Die Kinder spielen am Nachmittag im Garten mit ihren Hunden und \
         Katzen, während die Eltern in der Küche das Abendessen kochen.",
    );
    assert_eq!(n.lang, "deu");
    // German Snowball strips "-er" / "-en" in R1: kinder -> kind,
    // hunden -> hund (the English stemmer keeps "kinder").
    assert!(n.terms.iter().any(|w| w == "kind"), "{:?}", n.terms);
    assert!(n.terms.iter().any(|w| w == "hund"), "{:?}", n.terms);
    // German stop words.
    for stop in ["die", "und", "mit", "der", "das"] {
        assert!(
            !n.terms.iter().any(|w| w == stop),
            "{stop} in {:?}",
            n.terms
        );
    }
}

#[test]
fn french_detected_and_stemmed_with_french_stemmer() {
    let n = norm(
        "Nous parlerions volontiers avec les enfants dans le jardin de la \
         maison pendant que leurs parents préparent le dîner du soir.",
    );
    assert_eq!(n.lang, "fra");
    // French Snowball step 2b deletes "erions" in RV: parlerions -> parl
    // (the English stemmer gives "parlerion").
    assert!(n.terms.iter().any(|w| w == "parl"), "{:?}", n.terms);
    for stop in ["les", "dans", "le", "avec", "que"] {
        assert!(
            !n.terms.iter().any(|w| w == stop),
            "{stop} in {:?}",
            n.terms
        );
    }
}

#[test]
fn chinese_one_word_per_ideograph() {
    let n = norm("中文文本处理很有意思，我们每天都在研究这个问题。");
    assert_eq!(n.lang, "cmn");
    assert_eq!(n.words.len(), 22, "{:?}", n.words);
    assert!(n.words.iter().all(|w| w.chars().count() == 1));
    assert_eq!(n.words.first(), Some("中"));
}

#[test]
fn japanese_one_word_per_character() {
    let n = norm("私はコンピュータで日本語の文章を書いています。");
    assert_eq!(n.lang, "jpn");
    assert!(
        n.words.iter().all(|w| w.chars().count() == 1),
        "{:?}",
        n.words
    );
    // 22 characters before the full stop, every one a word.
    assert_eq!(n.words.len(), 22, "{:?}", n.words);
}

#[test]
fn greek_does_not_panic_and_stems() {
    let text = "Οι άνθρωποι ισαισα της πόλης συζητούν για τα προβλήματα \
                της καθημερινής ζωής και τις αποφάσεις της κυβέρνησης. ισα";
    let n = norm(text);
    assert_eq!(n.lang, "ell");
    assert!(n.words.iter().any(|w| w == "ισαισα"));
    // The word that panics the Greek stemmer is kept unstemmed, and said so.
    assert!(n.terms.iter().any(|w| w == "ισαισα"), "{:?}", n.terms);
    assert!(
        n.warnings
            .iter()
            .any(|w| w.contains("Greek") && w.contains("ισαισα")),
        "{:?}",
        n.warnings
    );
    // Again (now served from the caches): the same result.
    assert_eq!(norm(text), n);
}

#[test]
fn empty_and_symbol_only_text() {
    let n = norm("");
    assert_eq!(n.lang, "und");
    assert!(n.words.is_empty() && n.terms.is_empty() && n.warnings.is_empty());
    let n = norm(" \n\t ... --- !!! ");
    assert!(n.words.is_empty());
}

#[test]
fn hint_used_when_detection_is_unreliable() {
    // Two words are too few for reliable detection; the hint decides.
    let n = norm_hint("Kinder Hunden", "de-DE");
    assert_eq!(n.lang, "deu");
    assert_eq!(n.terms, ["kind", "hund"]);
    // A reliable detection wins over a wrong hint.
    let n = norm_hint(ENGLISH, "fr");
    assert_eq!(n.lang, "eng");
}

fn norm_hint(text: &str, hint: &str) -> Normalized {
    let config = TextConfig {
        stem: true,
        ..TextConfig::default()
    };
    Normalizer::new(&config).normalize(text, Some(hint))
}

#[test]
fn normalizer_is_send_sync_and_deterministic_across_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Normalizer>();
    let n = Normalizer::new(&TextConfig::default());
    let expected = n.normalize(ENGLISH, None);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(|| n.normalize(ENGLISH, None)))
            .collect();
        for h in handles {
            assert_eq!(h.join().ok(), Some(expected.clone()));
        }
    });
}

proptest::proptest! {
    #[test]
    fn normalize_never_panics(text in "\\PC*", hint in proptest::option::of("[a-zA-Z_-]{0,8}")) {
        let n = Normalizer::new(&TextConfig::default());
        let out = n.normalize(&text, hint.as_deref());
        proptest::prop_assert!(out.terms.len() <= out.words.len());
        proptest::prop_assert!(out.words.iter().all(|w| !w.is_empty()));
    }

    #[test]
    fn normalize_never_panics_on_mixed_scripts(
        text in "[a-zA-Zäöüßéèàçñ ΑαΒβΓγισαωςЖжЯя中文日本語カタカナひらがな한국어ไทย0-9 .,'’-]{0,200}"
    ) {
        let n = Normalizer::new(&TextConfig::default());
        let out = n.normalize(&text, None);
        proptest::prop_assert!(out.terms.len() <= out.words.len());
    }
}

/// `blocks` joined as `Extracted::text` joins them: a newline before each
/// block after the first one with text.
fn joined(blocks: &[String]) -> String {
    let mut out = String::new();
    for b in blocks {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(b);
    }
    out
}

proptest::proptest! {
    /// Normalizing block by block gives what normalizing the joined text
    /// gives (words, terms, language, warnings), whatever the blocks hold:
    /// NFKC-changing characters (ligatures, full-width forms, a combining
    /// accent at a block's start), capital sigmas, CJK, empty blocks and
    /// newlines inside a block; with the language sample cut inside the
    /// blocks (`detect_bytes` small) or not. Each block's span holds the
    /// words that block has alone, and a block called plain has as words
    /// those of its text lowercased character by character.
    #[test]
    fn blocks_normalize_as_their_joined_text(
        blocks in proptest::collection::vec(
            "([a-zA-Z]{1,8}|the|and|der|und|ΣΟΦΟΣ|ΟΔΟΣ|ﬁne|ＡＢＣ|\u{301}e|中文|カタカナ|3\\.14|it’s|e\\.g|\n| |, ){0,12}",
            0..8,
        ),
        detect_bytes in proptest::sample::select(vec![1usize, 7, 40, 1024]),
        stem in proptest::bool::ANY,
    ) {
        let config = TextConfig { detect_bytes, stem, ..TextConfig::default() };
        let n = Normalizer::new(&config);
        let texts: Vec<&str> = blocks.iter().map(String::as_str).collect();
        let by_block = n.normalize_blocks(&texts, Some("en"));
        let whole = n.normalize(&joined(&blocks), Some("en"));
        proptest::prop_assert_eq!(&by_block.words, &whole.words);
        proptest::prop_assert_eq!(&by_block.terms, &whole.terms);
        proptest::prop_assert_eq!(&by_block.lang, &whole.lang);
        proptest::prop_assert_eq!(&by_block.warnings, &whole.warnings);
        proptest::prop_assert_eq!(by_block.blocks.len(), blocks.len());
        let mut start = 0;
        for (i, (block, span)) in blocks.iter().zip(&by_block.blocks).enumerate() {
            let own = n.normalize(block, None).words;
            let end = span.end as usize;
            let held: Vec<&str> = (start..end).filter_map(|k| by_block.words.get(k)).collect();
            proptest::prop_assert_eq!(&held, &own.iter().collect::<Vec<_>>());
            if span.plain {
                let by_char: String = block.chars().flat_map(char::to_lowercase).collect();
                let mut split = Vec::new();
                for_each_word(&by_char, |w| split.push(w.to_owned()));
                let plain: Vec<&str> = by_block.plain_words_of(i).into_iter().flatten().collect();
                proptest::prop_assert_eq!(plain, split.iter().map(String::as_str).collect::<Vec<_>>());
            } else {
                proptest::prop_assert!(by_block.plain_words_of(i).is_none());
            }
            start = end;
        }
    }
}

proptest::proptest! {
    /// The language sample's start, built block by block, is the start of
    /// the joined text (NFKC, and lowercased), at least as long as the
    /// sample reads or the whole text.
    #[test]
    fn sample_start_is_the_start_of_the_joined_text(
        blocks in proptest::collection::vec("(|[a-zA-Z ]{1,9}|ﬁ|ΟΣ)", 0..8),
        limit in 0usize..30,
    ) {
        let mut start = SampleStart::new(limit);
        for b in &blocks {
            let n = nfkc(b);
            start.push(b, &n, &lowercase(&n));
        }
        let text = joined(&blocks);
        let (n, l) = (nfkc(&text).into_owned(), lowercase(&nfkc(&text)).into_owned());
        proptest::prop_assert!(n.starts_with(&start.nfkc), "{:?} / {:?}", start.nfkc, n);
        proptest::prop_assert!(l.starts_with(&start.lower), "{:?} / {:?}", start.lower, l);
        proptest::prop_assert!(start.nfkc.len() >= limit.min(n.len()));
        proptest::prop_assert!(start.lower.len() >= limit.min(l.len()));
    }
}

proptest::proptest! {
    /// The stop-word vote counted from the words `normalize_blocks` split
    /// counts what the vote on the sample's text, split again, counts
    /// (stop words of each language, and words): whichever block the
    /// sample's end cuts, and wherever in a word (a cut word may be
    /// another stop word: "an" of "and", "de" of "der"). Stop words of
    /// several languages make clear winners and close calls both common.
    #[test]
    fn the_vote_on_split_words_is_the_vote_on_the_sample(
        blocks in proptest::collection::vec(
            "(the|and|of|to|der|und|die|das|le|la|et|les|de|el|que|y|los|é|où|für|über|[a-z]{1,7}|ﬁn|ΟΣ|中|\n| |, ){0,24}",
            0..10,
        ),
        detect_bytes in 0usize..400,
    ) {
        let config = TextConfig { detect_bytes, ..TextConfig::default() };
        let n = Normalizer::new(&config);
        let texts: Vec<&str> = blocks.iter().map(String::as_str).collect();
        let bytes = texts.iter().map(|b| b.len() + 1).sum();
        let s = n.split(&texts, bytes);
        let by_words = n.tally_words(&s);
        let by_text = n.vote.tally_text(&s.start.lower, detect_bytes);
        proptest::prop_assert_eq!(by_words.map(|t| t.counts()), by_text.map(|t| t.counts()));
    }
}

#[test]
fn the_vote_on_split_words_counts_a_word_cut_by_the_samples_end_as_cut() {
    // 20 words, 3 of them "the": one stop word short of the vote's 20%.
    // A sample ending one byte before the text's end cuts "andy" to
    // "and", the fourth stop word, and English wins; the whole text is
    // a close call.
    let blocks = [
        "the cat the dog the cow pig hen fox owl",
        "bee elk yak gnu ram ewe emu ant bat andy",
    ];
    let joined = blocks.join("\n").len();
    let vote = |detect_bytes: usize| {
        let n = Normalizer::new(&TextConfig {
            detect_bytes,
            ..TextConfig::default()
        });
        let s = n.split(&blocks, joined + 1);
        let by_words = n.vote_on_words(&s);
        assert_eq!(by_words, n.vote.vote(&s.start.lower, detect_bytes));
        by_words.and_then(|slot| n.langs.get(slot)).map(|r| r.code)
    };
    assert_eq!(vote(joined - 1), Some("eng"));
    assert_eq!(vote(joined), None);
}

#[test]
fn blocks_with_nfkc_changes_or_a_capital_sigma_are_not_plain() {
    let n = Normalizer::new(&TextConfig::default());
    let out = n.normalize_blocks(&["Plain English", "ﬁne", "ΟΔΟΣ", "café au lait"], None);
    let plain: Vec<bool> = out.blocks.iter().map(|b| b.plain).collect();
    assert_eq!(plain, [true, false, false, true]);
    let first: Vec<&str> = out.plain_words_of(0).into_iter().flatten().collect();
    assert_eq!(first, ["plain", "english"]);
}

#[test]
fn whitespace_word_count_matches_split_whitespace_on_every_space() {
    // Every ASCII control and space, and the Unicode spaces of another
    // width (NBSP, en space, ideographic space, line separator), between
    // and around words.
    for sep in [
        " ", "\t", "\n", "\u{b}", "\u{c}", "\r", "\u{1c}", "\u{85}", "\u{a0}", "\u{2002}",
        "\u{3000}", "\u{2028}", "\u{200b}",
    ] {
        let text = format!("{sep}one{sep}{sep}two três{sep}四{sep}");
        assert_eq!(
            crate::count_whitespace_words(&text),
            text.split_whitespace().count(),
            "separator {sep:?}"
        );
    }
}

proptest::proptest! {
    #[test]
    fn whitespace_word_count_matches_split_whitespace(text in "\\PC*|[ \t\n\r\u{b}\u{c}\u{a0}\u{3000}a-zé]{0,60}") {
        proptest::prop_assert_eq!(crate::count_whitespace_words(&text), text.split_whitespace().count());
    }
}

proptest::proptest! {
    /// The vectorized check is its definition: ASCII with no capital. Long
    /// strings put a capital or a non-ASCII byte in every 32-byte chunk.
    #[test]
    fn is_lower_ascii_is_ascii_without_capitals(text in "[a-z0-9 .,]{0,70}[A-Zé]?[a-z ]{0,40}") {
        let expected = text.is_ascii() && !text.bytes().any(|b| b.is_ascii_uppercase());
        proptest::prop_assert_eq!(is_lower_ascii(&text), expected);
        let lower = lowercase(&text);
        proptest::prop_assert_eq!(lower.as_ref(), text.to_lowercase());
    }
}

proptest::proptest! {
    /// Whatever the word starts with, it has a letter exactly when one of
    /// its characters is alphabetic.
    #[test]
    fn has_letter_is_any_alphabetic(w in "[a-zA-Z0-9_'.é١٢ж東·-]{0,6}") {
        proptest::prop_assert_eq!(words::has_letter(&w), w.chars().any(char::is_alphabetic));
    }
}
