//! [`StopSet`]: one language's stop words, asked about every word of every
//! page.

use rustc_hash::FxHashSet;

/// A language's stop words (NFKC, lowercase). Most words of a text are
/// short, and a word of up to [`PACKED_BYTES`] bytes is looked up as one
/// integer (its bytes and its length), which hashes with a multiply
/// instead of a pass over a string.
#[derive(Debug, Default)]
pub(crate) struct StopSet {
    /// Every stop word.
    words: FxHashSet<String>,
    /// The stop words of at most [`PACKED_BYTES`] bytes, [`packed`].
    short: FxHashSet<u64>,
}

/// Words this long or shorter are looked up [`packed`].
const PACKED_BYTES: usize = 7;

/// `word`'s bytes in the low 7 bytes of an integer and its length in the
/// top byte (so `"a"` and `"a\0"` differ), if it has at most
/// [`PACKED_BYTES`] bytes.
#[inline]
fn packed(word: &str) -> Option<u64> {
    let bytes = word.as_bytes();
    if bytes.len() > PACKED_BYTES {
        return None;
    }
    let mut key = (bytes.len() as u64) << 56;
    for (i, &b) in bytes.iter().enumerate() {
        key |= u64::from(b) << (8 * i);
    }
    Some(key)
}

impl StopSet {
    /// The set of `words`.
    pub(crate) fn new(words: FxHashSet<String>) -> StopSet {
        let short = words.iter().filter_map(|w| packed(w)).collect();
        StopSet { words, short }
    }

    /// Returns true if and only if `word` is a stop word.
    #[inline]
    pub(crate) fn contains(&self, word: &str) -> bool {
        match packed(word) {
            Some(key) => self.short.contains(&key),
            None => self.words.contains(word),
        }
    }

    /// The stop words.
    pub(crate) fn words(&self) -> &FxHashSet<String> {
        &self.words
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_long_words_are_found_and_only_they() {
        let set = StopSet::new(
            ["a", "the", "über", "because", "themselves", ""]
                .iter()
                .map(|w| (*w).to_owned())
                .collect(),
        );
        for w in ["a", "the", "über", "because", "themselves", ""] {
            assert!(set.contains(w), "{w:?}");
        }
        // Prefixes, extensions, a NUL that packs to the same low bytes,
        // another case, a word at the packed limit.
        for w in [
            "t",
            "th",
            "thee",
            "a\0",
            "\0",
            "The",
            "becaus",
            "themselve",
            "überall",
        ] {
            assert!(!set.contains(w), "{w:?}");
        }
        assert_eq!(set.words().len(), 6);
    }
}
