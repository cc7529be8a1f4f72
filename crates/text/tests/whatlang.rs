//! The vendored whatlang (vendor/whatlang, NEARDUP.md there) against the
//! published crate it was taken from: its one change, the trigram distances
//! summed through an index of the profiles, must not move any result. Every
//! text is given to both; their language, script, confidence (to the bit)
//! and reliability must agree, and so must a panic.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

/// What a detection says, comparable across the two crates.
#[derive(Debug, PartialEq)]
enum Outcome {
    Panicked,
    Nothing,
    Found {
        lang: &'static str,
        script: String,
        confidence: u64,
        reliable: bool,
    },
}

/// What `$krate::detect` says of `$text` (the two crates' types differ, so
/// one body for both is a macro).
macro_rules! outcome {
    ($krate:ident, $text:expr) => {
        match catch_unwind(AssertUnwindSafe(|| $krate::detect($text))) {
            Err(_) => Outcome::Panicked,
            Ok(None) => Outcome::Nothing,
            Ok(Some(i)) => Outcome::Found {
                lang: i.lang().code(),
                script: i.script().name().to_owned(),
                confidence: i.confidence().to_bits(),
                reliable: i.is_reliable(),
            },
        }
    };
}

fn agree(text: &str) {
    assert_eq!(
        outcome!(whatlang, text),
        outcome!(whatlang_upstream, text),
        "text: {text:?}"
    );
}

/// A xorshift generator: the same texts on every run.
struct Rand(u64);

impl Rand {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

/// Words of many languages and scripts: the stop-word lists.
fn vocabularies() -> Vec<Vec<String>> {
    [
        "en", "ar", "da", "nl", "fi", "fr", "de", "el", "hu", "it", "no", "pt", "ro", "ru", "es",
        "sv", "tr", "hi", "he", "pl", "cs", "bg", "uk", "fa", "id", "vi", "la", "hr", "sk", "sl",
        "lt", "lv", "et", "ca", "eu", "ga", "mr", "ur", "zh", "ja", "ko", "th",
    ]
    .iter()
    .filter_map(|code| stop_words::lookup(code))
    .map(|words| words.iter().map(|w| w.to_string()).collect::<Vec<_>>())
    .filter(|words| !words.is_empty())
    .collect()
}

#[test]
fn random_texts_in_many_languages_get_the_same_answers() {
    let vocab = vocabularies();
    assert!(vocab.len() >= 20, "{} stop-word lists", vocab.len());
    let mut rand = Rand(0x9E37_79B9_7F4A_7C15);
    let seps = [" ", " ", " ", ", ", ". ", "\n", " - ", "; "];
    for case in 0..3_000 {
        // Mostly one language, sometimes two or three mixed, of one word
        // to about 1,500 bytes (the samples neardup gives are 1,024).
        let langs: Vec<&Vec<String>> = (0..1 + rand.below(3) * usize::from(case % 4 == 0))
            .map(|_| &vocab[rand.below(vocab.len())])
            .collect();
        let words = 1 + rand.below(if case % 3 == 0 { 12 } else { 250 });
        let mut text = String::new();
        for _ in 0..words {
            let list = langs[rand.below(langs.len())];
            text.push_str(&list[rand.below(list.len())]);
            text.push_str(seps[rand.below(seps.len())]);
            if rand.below(20) == 0 {
                text.push_str(&rand.below(100_000).to_string());
                text.push(' ');
            }
        }
        agree(&text);
        agree(&text.to_uppercase());
    }
}

#[test]
fn random_characters_of_every_script_get_the_same_answers() {
    // Ranges of letters from the scripts whatlang tells apart, with ASCII
    // punctuation, digits and spaces between.
    let ranges: [(u32, u32); 12] = [
        (0x61, 0x7A),
        (0xC0, 0x17F),
        (0x410, 0x44F),
        (0x621, 0x64A),
        (0x905, 0x939),
        (0x5D0, 0x5EA),
        (0x391, 0x3C9),
        (0x4E00, 0x4FFF),
        (0x3041, 0x3096),
        (0x30A1, 0x30FA),
        (0xAC00, 0xAD00),
        (0xE01, 0xE2E),
    ];
    let mut rand = Rand(0xD1B5_4A32_D192_ED03);
    for _ in 0..2_000 {
        let mine: Vec<(u32, u32)> = (0..1 + rand.below(3))
            .map(|_| ranges[rand.below(ranges.len())])
            .collect();
        let len = rand.below(400);
        let mut text = String::new();
        for _ in 0..len {
            match rand.below(8) {
                0 => text.push(' '),
                1 => text.push([',', '.', '1', '7', '-', '\n'][rand.below(6)]),
                _ => {
                    let (lo, hi) = mine[rand.below(mine.len())];
                    let c = lo + rand.below((hi - lo + 1) as usize) as u32;
                    text.extend(char::from_u32(c));
                }
            }
        }
        agree(&text);
    }
}

#[test]
fn the_repositorys_pages_get_the_same_answers() {
    // Every page under testdata/, cut as neardup cuts its samples (the
    // first 1,024 bytes at a character boundary) at several offsets.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata");
    let mut stack = vec![root];
    let mut pages = 0;
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            pages += 1;
            for start in (0..text.len()).step_by(700).take(20) {
                let mut from = start;
                while !text.is_char_boundary(from) {
                    from += 1;
                }
                let mut end = (from + 1024).min(text.len());
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                agree(&text[from..end]);
            }
        }
    }
    assert!(pages > 20, "{pages} pages read");
}
