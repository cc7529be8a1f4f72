//! Shingle fingerprints: w-word shingles of the terms, or w-byte windows of
//! the normalized text.

use neardup_api::{Document, Words};
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// Seed of every stored hash of this crate (the core's `neardup1` seed).
/// Changing it invalidates stored signatures.
pub const SEED: u64 = 0x6e65_6172_6475_7031;

/// What a shingle is made of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// `w` consecutive terms (stop words removed): Broder's w-shingles.
    #[default]
    Word,
    /// `w` consecutive bytes of the normalized text (the words joined by
    /// single spaces: lowercase, NFKC, no punctuation), the sliding window
    /// of the comparison paper. Case, markup and spacing do not matter.
    Byte,
}

/// The distinct 64-bit fingerprints of the document's shingles, sorted.
/// A document with fewer than `w` units but at least one gives a single
/// shingle of everything it has, so short pages still compare equal to
/// their copies. `w` of 0 is treated as 1.
pub fn fingerprints(doc: &Document, unit: Unit, w: usize) -> Vec<u64> {
    let w = w.max(1);
    let mut out = match unit {
        Unit::Word => word_shingles(&doc.terms, w),
        Unit::Byte => byte_windows(&doc.words, w),
    };
    out.sort_unstable();
    out.dedup();
    out
}

fn word_shingles(terms: &Words, w: usize) -> Vec<u64> {
    if terms.is_empty() {
        return Vec::new();
    }
    // One hash per word, then one per window of word hashes: each word is
    // read once, whatever w is.
    let hashes: Vec<u64> = terms
        .iter()
        .map(|t| xxh3_64_with_seed(t.as_bytes(), SEED))
        .collect();
    let mut buf = Vec::with_capacity(8 * w);
    let mut hash_window = |win: &[u64]| {
        buf.clear();
        for h in win {
            buf.extend_from_slice(&h.to_le_bytes());
        }
        xxh3_64_with_seed(&buf, SEED)
    };
    if hashes.len() < w {
        return vec![hash_window(&hashes)];
    }
    hashes.windows(w).map(hash_window).collect()
}

fn byte_windows(words: &Words, w: usize) -> Vec<u64> {
    let bytes = words.joined().as_bytes();
    if bytes.is_empty() {
        return Vec::new();
    }
    if bytes.len() < w {
        return vec![xxh3_64_with_seed(bytes, SEED)];
    }
    bytes
        .windows(w)
        .map(|win| xxh3_64_with_seed(win, SEED))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(words: &[&str]) -> Document {
        let words: Words = words.iter().collect();
        Document {
            terms: words.clone(),
            words,
            ..Document::default()
        }
    }

    #[test]
    fn word_shingles_count_distinct_windows() {
        // 6 words, w = 3: windows abc bcd cda dab abc -> abc repeats.
        let d = doc(&["a", "b", "c", "d", "a", "b", "c"]);
        assert_eq!(fingerprints(&d, Unit::Word, 3).len(), 4);
        assert_eq!(fingerprints(&d, Unit::Word, 1).len(), 4);
        // Fewer words than w: one shingle.
        assert_eq!(fingerprints(&doc(&["a", "b"]), Unit::Word, 5).len(), 1);
        assert!(fingerprints(&doc(&[]), Unit::Word, 5).is_empty());
    }

    #[test]
    fn word_order_matters_within_a_shingle() {
        let ab = fingerprints(&doc(&["x", "y"]), Unit::Word, 2);
        let ba = fingerprints(&doc(&["y", "x"]), Unit::Word, 2);
        assert_ne!(ab, ba);
    }

    #[test]
    fn byte_windows_slide_over_joined_words() {
        // "ab cd" has 5 bytes: windows of 4 are "ab c" and "b cd".
        assert_eq!(fingerprints(&doc(&["ab", "cd"]), Unit::Byte, 4).len(), 2);
        assert_eq!(fingerprints(&doc(&["ab"]), Unit::Byte, 4).len(), 1);
        // The same text split differently into words gives other windows.
        assert_ne!(
            fingerprints(&doc(&["ab", "cd"]), Unit::Byte, 4),
            fingerprints(&doc(&["abc", "d"]), Unit::Byte, 4)
        );
    }
}
