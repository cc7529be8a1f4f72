//! Byte scans of the tokenizer and the tree builder: searches that are
//! usually short, and the counts taken of each text token.
//!
//! Most of what the tokenizer looks for is a few bytes away: the `<` after
//! a tag (often the very next byte, or after a newline and indentation),
//! an attribute value's closing quote. `memchr` is the right tool for
//! long haystacks, but each call goes through a function pointer and sets
//! up vector registers, which on neardup-dev2 cost about 55 instructions
//! a call, more than the search itself. [`find_byte`] reads the first
//! [`NEAR`] bytes eight at a time in a general register (SWAR: a byte
//! equal to the needle becomes a zero byte, and the lowest zero byte of a
//! word is found exactly with the carry trick of `(x - 0x01..) & !x &
//! 0x80..`), and hands the rest to `memchr`.

use memchr::memchr;

/// How far the word-at-a-time search goes before calling `memchr`.
const NEAR: usize = 32;

const LOW: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of each zero byte of `x`, and possibly of bytes above the
/// lowest zero byte; the lowest set bit is always exact.
#[inline]
fn zero_bytes(x: u64) -> u64 {
    x.wrapping_sub(LOW) & !x & HIGH
}

/// The position of the first `needle` in `hay`, as `memchr` gives it.
#[inline]
pub(super) fn find_byte(needle: u8, hay: &[u8]) -> Option<usize> {
    let pattern = LOW * u64::from(needle);
    let near = hay.len().min(NEAR);
    let mut words = hay[..near].chunks_exact(8);
    let mut at = 0;
    for word in &mut words {
        let hits = zero_bytes(u64::from_le_bytes(word.try_into().unwrap_or_default()) ^ pattern);
        if hits != 0 {
            return Some(at + (hits.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    if let Some(k) = words.remainder().iter().position(|&b| b == needle) {
        return Some(at + k);
    }
    memchr(needle, &hay[near..]).map(|k| near + k)
}

/// What the tree builder needs of a text token before appending it,
/// counted in one pass over its bytes that the compiler vectorizes:
/// whether it has whitespace to collapse, its commas and its characters.
pub(super) struct TextCounts {
    /// Tabs, newlines, form feeds and carriage returns.
    pub(super) other_space: u32,
    /// Positions where a space follows a space.
    pub(super) double_space: u32,
    pub(super) commas: u32,
    /// UTF-8 continuation bytes (a text without any is ASCII).
    pub(super) continuation: u32,
}

impl TextCounts {
    pub(super) fn of(bytes: &[u8]) -> TextCounts {
        let (mut other_space, mut commas, mut continuation) = (0u32, 0u32, 0u32);
        for &b in bytes {
            other_space += u32::from(matches!(b, b'\t' | b'\n' | 0x0C | b'\r'));
            commas += u32::from(b == b',');
            continuation += u32::from(b & 0xC0 == 0x80);
        }
        let double_space = bytes
            .iter()
            .zip(bytes.iter().skip(1))
            .map(|(&a, &b)| u32::from(a == b' ' && b == b' '))
            .sum();
        TextCounts {
            other_space,
            double_space,
            commas,
            continuation,
        }
    }

    /// Words between single spaces, with nothing to collapse inside.
    pub(super) fn simple(&self) -> bool {
        self.other_space == 0 && self.double_space == 0
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn finds_the_first_at_every_offset_and_length() {
        // Every position within and past the word-at-a-time reach, with
        // decoys above it (a false positive of the carry trick sits above a
        // true match, never below).
        for len in 0..80 {
            for at in 0..len {
                let mut hay = vec![b'a'; len];
                hay[at] = b'<';
                for decoy in hay.iter_mut().skip(at + 1).step_by(3) {
                    *decoy = b'<' ^ 1;
                }
                if at + 2 < len {
                    hay[at + 2] = b'<';
                }
                assert_eq!(find_byte(b'<', &hay), Some(at), "len {len} at {at}");
            }
            let hay = vec![b'a'; len];
            assert_eq!(find_byte(b'<', &hay), None);
        }
    }

    #[test]
    fn finds_zero_and_high_bytes() {
        // The needle 0x00 and 0x80-0xFF are where a carry trick can go wrong.
        for needle in [0u8, 1, 0x7F, 0x80, 0xFF] {
            for at in 0..40 {
                let mut hay = vec![needle.wrapping_add(1); 40];
                hay[at] = needle;
                assert_eq!(find_byte(needle, &hay), Some(at), "{needle} at {at}");
            }
        }
    }

    proptest! {
        #[test]
        fn agrees_with_memchr(
            hay in proptest::collection::vec(prop::sample::select(vec![0u8, 1, b'<', b'=', b'>', b'"', 0x80, 0xFE, 0xFF, b'a']), 0..100),
            a in prop::sample::select(vec![0u8, 1, b'<', b'=', b'>', b'"', 0x80, 0xFF]),
        ) {
            prop_assert_eq!(find_byte(a, &hay), memchr(a, &hay));
        }
    }

    proptest! {
        /// The one-pass counts against their plain definitions.
        #[test]
        fn text_counts_match_their_definitions(
            s in "[ a,\t\n\r\u{0C}\u{0B}é，、ж]{0,80}",
        ) {
            let b = s.as_bytes();
            let c = TextCounts::of(b);
            prop_assert_eq!(c.other_space as usize, b.iter().filter(|&&x| matches!(x, b'\t' | b'\n' | b'\r' | 0x0C)).count());
            prop_assert_eq!(c.double_space as usize, overlapping_double_spaces(&s));
            prop_assert_eq!(c.commas as usize, s.matches(',').count());
            prop_assert_eq!(c.continuation as usize, s.len() - s.chars().count());
            // `simple` is exactly "no whitespace to collapse inside".
            let simple = !s.contains(['\t', '\n', '\r', '\u{0C}']) && !s.contains("  ");
            prop_assert_eq!(c.simple(), simple);
        }
    }

    fn overlapping_double_spaces(s: &str) -> usize {
        s.as_bytes().windows(2).filter(|w| w == b"  ").count()
    }

    #[test]
    fn text_counts_of_a_sentence() {
        let c = TextCounts::of("a,  b\n c".as_bytes());
        assert_eq!(
            (c.other_space, c.double_space, c.commas, c.continuation),
            (1, 1, 1, 0)
        );
        assert!(!c.simple());
        let c = TextCounts::of("dés, ж".as_bytes());
        assert_eq!(
            (c.other_space, c.double_space, c.commas, c.continuation),
            (0, 0, 1, 2)
        );
        assert!(c.simple());
    }
}
