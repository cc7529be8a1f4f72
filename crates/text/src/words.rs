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
///
/// Speed: UAX #29 never joins across ASCII whitespace, so the text is cut
/// there first; pure-ASCII pieces (most of Latin-script text) go through
/// `ascii_words`, a table-free equivalent of the UAX #29 rules for ASCII,
/// and only pieces with other characters through `unicode_words`.
///
/// The cut is made on bytes: an ASCII byte is never part of a multibyte
/// character, and no word spans ASCII whitespace, so a run of whole ASCII
/// pieces goes to `ascii_words` in one call (whitespace separates words
/// there as any other non-word byte does); only the piece around each
/// non-ASCII byte is cut out for `unicode_piece`.
#[inline]
pub fn for_each_word(text: &str, mut f: impl FnMut(&str)) {
    let bytes = text.as_bytes();
    let mut scratch = String::new();
    let mut from = 0;
    while from < bytes.len() {
        let rest = bytes.get(from..).unwrap_or_default();
        let Some(wide) = first_non_ascii(rest).map(|k| from + k) else {
            ascii_words(text.get(from..).unwrap_or_default(), &mut f);
            return;
        };
        // The piece holding byte `wide`: from just after the whitespace
        // before it to the whitespace after it.
        let start = bytes
            .get(from..wide)
            .and_then(|b| b.iter().rposition(u8::is_ascii_whitespace))
            .map_or(from, |k| from + k + 1);
        let end = bytes
            .get(wide..)
            .and_then(|b| b.iter().position(u8::is_ascii_whitespace))
            .map_or(bytes.len(), |k| wide + k);
        ascii_words(text.get(from..start).unwrap_or_default(), &mut f);
        unicode_piece(
            text.get(start..end).unwrap_or_default(),
            &mut scratch,
            &mut f,
        );
        from = end;
    }
}

/// `text.split_whitespace().count()`, without decoding ASCII: block word
/// counts are taken for every block of every page.
pub fn count_whitespace_words(text: &str) -> usize {
    let bytes = text.as_bytes();
    let (mut count, mut in_word, mut i) = (0, false, 0);
    while let Some(&b) = bytes.get(i) {
        let (space, len) = if b.is_ascii() {
            // char::is_whitespace on ASCII: U+0009-U+000D and U+0020.
            (matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' '), 1)
        } else {
            match text.get(i..).and_then(|rest| rest.chars().next()) {
                Some(c) => (c.is_whitespace(), c.len_utf8()),
                None => (false, 1),
            }
        };
        if space {
            in_word = false;
        } else if !in_word {
            in_word = true;
            count += 1;
        }
        i += len;
    }
    count
}

/// Whether a word has a letter: numbers and other letterless words are
/// neither stop words nor stemmed, and do not count as language evidence.
#[inline]
pub(crate) fn has_letter(w: &str) -> bool {
    // Most words start with one: the answer before any scan.
    if w.as_bytes().first().is_some_and(u8::is_ascii_alphabetic) {
        return true;
    }
    if w.is_ascii() {
        w.bytes().any(|b| b.is_ascii_alphabetic())
    } else {
        w.chars().any(is_alphabetic)
    }
}

/// Whether `ch` is a letter of a block in which every character is one
/// (Latin-1's and Latin Extended's letters, IPA, basic Greek, Cyrillic,
/// Hebrew and Arabic letters, kana, Han, Hangul syllables): what most
/// non-ASCII words start with, answered without Unicode's tables.
#[inline]
fn in_letter_block(ch: char) -> bool {
    matches!(ch as u32,
        0xC0..=0xD6 | 0xD8..=0xF6 | 0xF8..=0x2AF
        | 0x391..=0x3A1 | 0x3A3..=0x3C9
        | 0x400..=0x481 | 0x48A..=0x52F
        | 0x5D0..=0x5EA
        | 0x621..=0x64A
        | 0x3041..=0x3096 | 0x30A1..=0x30FA
        | 0x3400..=0x4DBF | 0x4E00..=0x9FFF
        | 0xAC00..=0xD7A3)
}

/// [`char::is_alphabetic`], answered from ranges first for the blocks most
/// non-ASCII words are in (Latin-1 and Latin Extended letters, IPA, Greek,
/// Cyrillic, Hebrew, Arabic, kana, Han, Hangul), then from Unicode's tables.
#[inline]
pub fn is_alphabetic(ch: char) -> bool {
    ch.is_ascii_alphabetic() || in_letter_block(ch) || (!ch.is_ascii() && ch.is_alphabetic())
}

/// [`char::is_alphanumeric`], answered from ranges first like
/// [`is_alphabetic`].
#[inline]
pub fn is_alphanumeric(ch: char) -> bool {
    ch.is_ascii_alphanumeric() || in_letter_block(ch) || (!ch.is_ascii() && ch.is_alphanumeric())
}

/// Where the first non-ASCII byte of `bytes` is: 32 bytes at a time (the
/// standard library's `is_ascii` reads whole words), then byte by byte in
/// the block that has it.
#[inline]
pub fn first_non_ascii(bytes: &[u8]) -> Option<usize> {
    let mut blocks = bytes.chunks_exact(32);
    let mut at = 0;
    for block in &mut blocks {
        if !block.is_ascii() {
            return block.iter().position(|b| !b.is_ascii()).map(|k| at + k);
        }
        at += 32;
    }
    blocks
        .remainder()
        .iter()
        .position(|b| !b.is_ascii())
        .map(|k| at + k)
}

/// UAX #29 words of a piece that has non-ASCII characters: without the
/// tables when its characters allow ([`table_free_piece`]).
fn unicode_piece(piece: &str, scratch: &mut String, f: &mut impl FnMut(&str)) {
    if !table_free_piece(piece, scratch, f) {
        table_piece(piece, scratch, f);
    }
}

/// [`unicode_piece`] by UAX #29's tables, each CJK character then split
/// off as a word of its own.
fn table_piece(piece: &str, scratch: &mut String, f: &mut impl FnMut(&str)) {
    for word in piece.unicode_words() {
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
                    emit(word, s, i, f);
                }
                emit(word, i, i + c.len_utf8(), f);
            } else if run_start.is_none() {
                run_start = Some(i);
            }
        }
        if let Some(s) = run_start {
            emit(word, s, word.len(), f);
        }
    }
}

/// What a character of a table-free piece ([`table_free_piece`]) is to
/// UAX #29.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// ALetter: an ASCII letter, or one of Latin-1 or Latin Extended-A.
    Letter,
    /// Numeric: an ASCII digit.
    Digit,
    /// ExtendNumLet: `_`.
    Under,
    /// MidLetter: `:` joins letters.
    MidLetter,
    /// MidNumLet and Single_Quote: `.`, `'` and `’` join letters, and
    /// digits.
    MidNumLet,
    /// MidNum: `,` and `;` join digits.
    MidNum,
    /// A Han ideograph or kana character that is a letter: a word of
    /// its own, whatever is around it (`unicode_piece`'s split).
    Cjk,
    /// Anything else the table-free path knows: ASCII punctuation and space,
    /// the no-break space, `«` `»`, `“` `”`, `–` `—`, `…`, `•` and the
    /// common CJK punctuation.
    Other,
}

/// The class of the character at `b[i]` and its length in bytes, or
/// `None` for one the table-free path leaves to the tables. Always
/// inlined: asked of every character of a non-ASCII piece at five places,
/// the compiler left it a call (0.5% of dedup's instructions on dev2).
#[inline(always)]
fn class_at(b: &[u8], i: usize) -> Option<(Class, usize)> {
    let c = *b.get(i)?;
    if c.is_ascii() {
        let class = match c {
            b'a'..=b'z' | b'A'..=b'Z' => Class::Letter,
            b'0'..=b'9' => Class::Digit,
            b'_' => Class::Under,
            b':' => Class::MidLetter,
            b'.' | b'\'' => Class::MidNumLet,
            b',' | b';' => Class::MidNum,
            _ => Class::Other,
        };
        return Some((class, 1));
    }
    let c1 = *b.get(i + 1)?;
    match (c, c1) {
        // U+00D7 and U+00F7 (multiplication and division signs) are not
        // letters; the rest of U+00C0-U+017F is.
        (0xC3, 0x97 | 0xB7) => Some((Class::Other, 2)),
        (0xC3..=0xC5, 0x80..=0xBF) => Some((Class::Letter, 2)),
        // No-break space, left and right guillemets.
        (0xC2, 0xA0 | 0xAB | 0xBB) => Some((Class::Other, 2)),
        (0xE0..=0xEF, _) => {
            let c2 = *b.get(i + 2)?;
            let code = u32::from(c & 0x0F) << 12 | u32::from(c1 & 0x3F) << 6 | u32::from(c2 & 0x3F);
            let ch = char::from_u32(code)?;
            let class = match ch {
                '\u{2019}' => Class::MidNumLet,
                // En and em dashes, curly double quotes, bullet, ellipsis.
                '\u{2013}' | '\u{2014}' | '\u{201C}' | '\u{201D}' | '\u{2022}' | '\u{2026}' => {
                    Class::Other
                }
                // CJK punctuation: 、。「」『』【】 and full-width ！（）？
                '\u{3001}'
                | '\u{3002}'
                | '\u{300C}'..='\u{300F}'
                | '\u{3010}'
                | '\u{3011}'
                | '\u{FF01}'
                | '\u{FF08}'
                | '\u{FF09}'
                | '\u{FF1F}' => Class::Other,
                // Hiragana, katakana (with the prolonged sound mark) and
                // Han letters; not the iteration marks or ideographic
                // numbers, which UAX #29 may join to a letter.
                '\u{3041}'..='\u{3096}'
                | '\u{30A1}'..='\u{30FA}'
                | '\u{30FC}'
                | '\u{3400}'..='\u{4DBF}'
                | '\u{4E00}'..='\u{9FFF}'
                    if is_alphanumeric(ch) =>
                {
                    Class::Cjk
                }
                _ => return None,
            };
            Some((class, 3))
        }
        _ => None,
    }
}

/// The words of a piece whose characters are all ASCII, Latin letters,
/// `’`, Han and kana letters and a few common punctuation marks
/// ([`class_at`]), as `unicode_piece` gives them, without UAX #29's
/// tables: the rules [`ascii_words`] follows, with Latin letters as
/// letters and `’` joining as `'` does (and written `'` in the word), and
/// each Han or kana letter a word alone (no UAX #29 rule joins one to a
/// letter or digit but `_`, and `unicode_piece` splits them off that
/// too). The words of English, French, German or Spanish text in curly
/// quotes, with dashes and accents, and of most Chinese and Japanese
/// text, go this way. Returns false, having called `f` for nothing, on a
/// piece with any other character.
fn table_free_piece(piece: &str, scratch: &mut String, f: &mut impl FnMut(&str)) -> bool {
    let b = piece.as_bytes();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c.is_ascii() {
            i += 1;
            continue;
        }
        match class_at(b, i) {
            Some((_, n)) => i += n,
            None => return false,
        }
    }
    let is_word = |c: Class| matches!(c, Class::Letter | Class::Digit | Class::Under);
    let mut i = 0;
    while let Some((class, n)) = class_at(b, i) {
        if class == Class::Cjk {
            if let Some(word) = piece.get(i..i + n) {
                f(word);
            }
        }
        if !is_word(class) {
            i += n;
            continue;
        }
        let start = i;
        let (mut last, mut alnum, mut quote) = (class, false, false);
        let mut j = i;
        loop {
            while let Some((c, n)) = class_at(b, j).filter(|&(c, _)| is_word(c)) {
                alnum |= c != Class::Under;
                last = c;
                j += n;
            }
            // The character at `j` ends the word unless it joins the
            // letters or digits around it.
            let Some((mid, m)) = class_at(b, j) else {
                break;
            };
            let next = class_at(b, j + m).map(|(c, _)| c);
            let joins = matches!(
                (last, mid, next),
                (
                    Class::Letter,
                    Class::MidLetter | Class::MidNumLet,
                    Some(Class::Letter)
                ) | (
                    Class::Digit,
                    Class::MidNum | Class::MidNumLet,
                    Some(Class::Digit)
                )
            );
            if !joins {
                break;
            }
            quote |= m == 3;
            j += m;
        }
        i = j;
        let Some(word) = piece.get(start..j) else {
            continue;
        };
        if !alnum {
            continue;
        }
        if quote {
            scratch.clear();
            scratch.extend(word.chars().map(|c| if c == '\u{2019}' { '\'' } else { c }));
            f(scratch);
        } else {
            f(word);
        }
    }
    true
}

/// Letters, digits and `_` (UAX #29 ALetter, Numeric, ExtendNumLet): any two
/// adjacent ones are in the same word (WB5, WB8-WB10, WB13a/b). A table:
/// this is asked of every byte of every page's text.
static WORD_BYTE: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || c == b'_';
        b += 1;
    }
    t
};

#[inline]
fn is_word_byte(b: u8) -> bool {
    WORD_BYTE[usize::from(b)]
}

/// The UAX #29 words of an ASCII piece without whitespace, as
/// `unicode_words` gives them (a proptest checks the equivalence). Besides
/// runs of letters, digits and `_`, a letter-`:`/`.`/`'`-letter sequence
/// joins (WB6/7: "e.g", "it's") and so does digit-`,`/`;`/`.`/`'`-digit
/// (WB11/12: "3.14", "1,000"). Segments without a letter or digit are not
/// words. Whitespace is neither a word byte nor a joiner, so a run of
/// pieces with whitespace between them may be given whole.
pub(crate) fn ascii_words(piece: &str, f: &mut impl FnMut(&str)) {
    let b = piece.as_bytes();
    let word_at = |k: usize| b.get(k).is_some_and(|&c| is_word_byte(c));
    let mut i = 0;
    while i < b.len() {
        if !word_at(i) {
            i += 1;
            continue;
        }
        let start = i;
        let mut j = i + 1;
        loop {
            while word_at(j) {
                j += 1;
            }
            // `b[j]` ends the run, unless it joins the bytes around it.
            let (Some(&prev), Some(&mid), Some(&next)) =
                (b.get(j.wrapping_sub(1)), b.get(j), b.get(j + 1))
            else {
                break;
            };
            let joins = (prev.is_ascii_alphabetic()
                && next.is_ascii_alphabetic()
                && matches!(mid, b':' | b'.' | b'\''))
                || (prev.is_ascii_digit()
                    && next.is_ascii_digit()
                    && matches!(mid, b',' | b';' | b'.' | b'\''));
            if !joins {
                break;
            }
            j += 2;
        }
        if let Some(word) = piece.get(start..j) {
            // A word starts with a letter, a digit or `_`: only one that
            // starts with `_` may have neither.
            if !word.starts_with('_') || word.bytes().any(|c| c.is_ascii_alphanumeric()) {
                f(word);
            }
        }
        i = j;
    }
}

/// Calls `f` with `word[start..end]` if it is a word (has a letter or digit;
/// a lone combining mark or the katakana middle dot is not).
fn emit(word: &str, start: usize, end: usize, f: &mut impl FnMut(&str)) {
    if let Some(piece) = word.get(start..end) {
        if piece.chars().any(is_alphanumeric) {
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

    /// The fast predicates agree with the standard library on every
    /// character (a block in `in_letter_block` with a non-letter in it
    /// fails here).
    #[test]
    fn letter_predicates_are_the_standard_ones_on_every_character() {
        let mut in_blocks = 0;
        for ch in (0..=0x10FFFF).filter_map(char::from_u32) {
            assert_eq!(is_alphabetic(ch), ch.is_alphabetic(), "{:04X}", ch as u32);
            assert_eq!(
                is_alphanumeric(ch),
                ch.is_alphanumeric(),
                "{:04X}",
                ch as u32
            );
            in_blocks += usize::from(in_letter_block(ch));
        }
        assert!(in_blocks > 35_000, "{in_blocks}");
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
    fn ascii_rules() {
        assert_eq!(
            words("e.g. a:b 1,000.5 x_1 __ _a 3.a a.3 can't 'quoted' ..a"),
            ["e.g", "a:b", "1,000.5", "x_1", "_a", "3", "a", "a", "3", "can't", "quoted", "a"]
        );
    }

    /// `for_each_word` as first written: split on ASCII whitespace, each
    /// piece to the ASCII or the Unicode path.
    fn words_by_piece(text: &str) -> Vec<String> {
        let mut v = Vec::new();
        let mut scratch = String::new();
        let mut f = |w: &str| v.push(w.to_owned());
        for piece in text.split(|c: char| c.is_ascii_whitespace()) {
            if piece.is_ascii() {
                ascii_words(piece, &mut f);
            } else {
                unicode_piece(piece, &mut scratch, &mut f);
            }
        }
        v
    }

    #[test]
    fn the_first_non_ascii_byte_is_found_in_any_block() {
        for len in [0, 1, 31, 32, 33, 64, 100] {
            let ascii = "a".repeat(len);
            assert_eq!(first_non_ascii(ascii.as_bytes()), None);
            for at in 0..len {
                let mut text = ascii.clone().into_bytes();
                text[at] = 0xC3;
                assert_eq!(first_non_ascii(&text), Some(at), "{len} {at}");
            }
        }
    }

    /// `unicode_piece` by the tables alone: UAX #29 itself.
    fn by_tables(piece: &str) -> Vec<String> {
        let mut out = Vec::new();
        table_piece(piece, &mut String::new(), &mut |w: &str| {
            out.push(w.to_owned())
        });
        out
    }

    #[test]
    fn table_free_pieces_follow_the_uax29_rules() {
        for (piece, words) in [
            ("“don’t”", vec!["don't"]),
            ("Straße—café…", vec!["straße", "café"]),
            ("1’000,5;2", vec!["1'000,5;2"]),
            ("’tis", vec!["tis"]),
            ("a’", vec!["a"]),
            ("é:é", vec!["é:é"]),
            ("3×4", vec!["3", "4"]),
            ("«œuvre»", vec!["œuvre"]),
            ("__\u{a0}_ä", vec!["_ä"]),
            (
                "「2023年12月、カタカナを_x」",
                vec!["2023", "年", "12", "月", "カ", "タ", "カ", "ナ", "を", "_x"],
            ),
            ("a_カ_b", vec!["a_", "カ", "_b"]),
        ] {
            let piece = piece.to_lowercase();
            let mut got = Vec::new();
            assert!(table_free_piece(
                &piece,
                &mut String::new(),
                &mut |w: &str| got.push(w.to_owned())
            ));
            assert_eq!(got, words, "{piece}");
            assert_eq!(got, by_tables(&piece), "{piece}");
        }
        // Not handled: left to the tables.
        for piece in [
            "a\u{301}",
            "o‘clock",
            "か\u{3099}",
            "a·b",
            "soft\u{ad}hyphen",
            "ª",
            "・",
            "한",
        ] {
            assert!(
                !table_free_piece(piece, &mut String::new(), &mut |_: &str| {}),
                "{piece}"
            );
        }
    }

    proptest::proptest! {
        /// The table-free path gives UAX #29's words: on pieces of ASCII
        /// letters, digits and joiners with Latin letters, the
        /// multiplication sign, curly quotes, dashes, the ellipsis, the
        /// no-break space and guillemets; and with characters it leaves
        /// to the tables (a combining accent, the left single quote, the
        /// middle dot, the soft hyphen, a CJK ideograph), which must make
        /// it decline.
        #[test]
        fn table_free_path_equals_the_tables(
            piece in "([a-c0-2_.,;:'!-]|[àéßÿĀœ×÷’“”–—…•\u{a0}«»]|[中文月かをカタナーぁゖァヺ㐀鿿、。「」『』【】！（）？]){0,16}",
            other in proptest::option::of("[\u{301}‘·\u{ad}ª\u{3099}・゛한，：．々〇]"),
            at in 0usize..17,
        ) {
            let mut piece = piece;
            if let Some(o) = &other {
                let at = piece.char_indices().map(|(i, _)| i).nth(at).unwrap_or(piece.len());
                piece.insert_str(at, o);
            }
            let mut got = Vec::new();
            let handled = table_free_piece(&piece, &mut String::new(), &mut |w: &str| got.push(w.to_owned()));
            proptest::prop_assert_eq!(handled, other.is_none());
            if handled {
                proptest::prop_assert_eq!(got, by_tables(&piece));
            }
        }

        /// Cutting on bytes, with whole ASCII runs in one call, gives the
        /// words of cutting piece by piece: on text mixing ASCII words
        /// and punctuation with accented letters, curly apostrophes,
        /// no-break spaces, CJK and a combining mark.
        #[test]
        fn byte_cut_equals_piece_by_piece(
            text in "[a-c0-2_.,;:' \t\n\r\x0b\x0c!-]{0,12}([éß’\u{a0}中コ\u{301}][a-c0-2_.,;:' \t\n!-]{0,8}){0,5}"
        ) {
            proptest::prop_assert_eq!(words(&text), words_by_piece(&text));
        }

        /// The ASCII fast path segments exactly like `unicode_words`.
        #[test]
        fn ascii_fast_path_equals_uax29(text in "[a-c0-2_.,;:' \t\n!?()-]{0,40}") {
            let fast = words(&text);
            let slow: Vec<String> = text.unicode_words().map(str::to_owned).collect();
            proptest::prop_assert_eq!(fast, slow);
        }
    }

    #[test]
    fn thai_does_not_crash() {
        let w = words("ภาษาไทยไม่มีช่องว่าง");
        assert!(!w.is_empty());
        assert_eq!(w.concat(), "ภาษาไทยไม่มีช่องว่าง");
    }
}
