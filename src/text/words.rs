//! Word segmentation: Unicode word boundaries (UAX #29), then each CJK
//! ideograph and kana character as its own word.
//!
//! UAX #29 already separates ideographs and hiragana, but keeps katakana runs
//! together and joins letters of other scripts adjacent to them; splitting
//! every Han / kana character gives Chinese and Japanese text without spaces
//! character unigrams, which shingle and chunk sensibly without a dictionary.
//! Scripts without spaces and without a UAX #29 rule (Thai, Lao, Khmer,
//! Myanmar) come out one character cluster per word: crude, but total.

use unicode_segmentation::UnicodeSegmentation;

/// Returns true if and only if `c` is a Han ideograph, a kana character or a
/// CJK symbol that works as one (iteration marks, the ideographic zero).
#[inline]
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{2E80}'..='\u{2FDF}'   // CJK radicals, Kangxi radicals
        | '\u{3005}'..='\u{3007}' // 々 〆 〇
        | '\u{3021}'..='\u{3029}' // Hangzhou numerals
        | '\u{3031}'..='\u{3035}' // kana repeat marks
        | '\u{3040}'..='\u{30FF}' // hiragana, katakana
        | '\u{31F0}'..='\u{31FF}' // katakana phonetic extensions
        | '\u{3400}'..='\u{4DBF}' // CJK extension A
        | '\u{4E00}'..='\u{9FFF}' // CJK unified ideographs
        | '\u{F900}'..='\u{FAFF}' // CJK compatibility ideographs
        | '\u{FF66}'..='\u{FF9F}' // halfwidth katakana (NFKC widens them)
        | '\u{20000}'..='\u{3134F}' // CJK extensions B..G
    )
}

/// Calls `f` with each word of `text` (already NFKC and lowercased), in
/// order. Typographic apostrophes inside words become ASCII ones so that
/// "don’t" and "don't" are the same word (NFKC keeps U+2019).
pub(crate) fn for_each_word(text: &str, mut f: impl FnMut(&str)) {
    let mut scratch = String::new();
    for word in text.unicode_words() {
        if word.is_ascii() {
            f(word);
            continue;
        }
        let word = if word.contains('\u{2019}') {
            scratch.clear();
            scratch.extend(word.chars().map(|c| if c == '\u{2019}' { '\'' } else { c }));
            scratch.as_str()
        } else {
            word
        };
        if !word.chars().any(is_cjk) {
            f(word);
            continue;
        }
        // Split: each CJK character alone, other runs kept whole.
        let mut run_start: Option<usize> = None;
        for (i, c) in word.char_indices() {
            if is_cjk(c) {
                if let Some(s) = run_start.take() {
                    emit(word, s, i, &mut f);
                }
                emit(word, i, i + c.len_utf8(), &mut f);
            } else if run_start.is_none() {
                run_start = Some(i);
            }
        }
        if let Some(s) = run_start {
            emit(word, s, word.len(), &mut f);
        }
    }
}

/// Calls `f` with `word[start..end]` if it is a word (has a letter or digit;
/// a lone combining mark or the katakana middle dot is not).
fn emit(word: &str, start: usize, end: usize, f: &mut impl FnMut(&str)) {
    if let Some(piece) = word.get(start..end) {
        if piece.chars().any(char::is_alphanumeric) {
            f(piece);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        let mut v = Vec::new();
        for_each_word(text, |w| v.push(w.to_owned()));
        v
    }

    #[test]
    fn english_words_numbers_and_apostrophes() {
        assert_eq!(
            words("it's 3.14, don’t stop-words!"),
            ["it's", "3.14", "don't", "stop", "words"]
        );
    }

    #[test]
    fn chinese_and_japanese_one_word_per_character() {
        assert_eq!(words("中文文本"), ["中", "文", "文", "本"]);
        // Katakana runs are one UAX #29 word; we split them too.
        assert_eq!(
            words("コンピュータを使う"),
            ["コ", "ン", "ピ", "ュ", "ー", "タ", "を", "使", "う"]
        );
        assert_eq!(words("abc中def"), ["abc", "中", "def"]);
    }

    #[test]
    fn korean_keeps_words() {
        assert_eq!(words("한국어 텍스트"), ["한국어", "텍스트"]);
    }

    #[test]
    fn thai_does_not_crash() {
        let w = words("ภาษาไทยไม่มีช่องว่าง");
        assert!(!w.is_empty());
        assert_eq!(w.concat(), "ภาษาไทยไม่มีช่องว่าง");
    }
}
