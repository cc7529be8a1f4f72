//! [`Words`]: a document's words in one buffer.
//!
//! A page of text has thousands of words, and every page a crawler fetches
//! is split into them twice (its words and its terms). One `String` per
//! word was two allocations and two frees per word on the hot path; here
//! the words are one string, joined by single spaces, and the offsets where
//! each ends. The joined text is what the exact hash and the chunkers read,
//! so it is there without a copy ([`Words::joined`]).

use std::fmt;
use std::ops::Index;

/// A sequence of words stored in one string, joined by single spaces.
///
/// Invariants: `text` is the words joined by `' '`; `ends[i]` is where word
/// `i` ends in it, so word `i` starts at `ends[i - 1] + 1` (word 0 at 0) and
/// the last end is `text.len()`. Every end is a char boundary (each word is
/// pushed whole by [`Words::push`]). A word may be empty, or hold spaces
/// (then [`Words::joined`] is still the words joined by spaces, as
/// `join(" ")` of them would be).
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Words {
    text: String,
    ends: Vec<u32>,
}

impl Words {
    /// No words.
    pub fn new() -> Words {
        Words::default()
    }

    /// No words, with room for `words` words of `bytes` bytes in all.
    pub fn with_capacity(words: usize, bytes: usize) -> Words {
        Words {
            text: String::with_capacity(bytes + words),
            ends: Vec::with_capacity(words),
        }
    }

    /// Appends `word`.
    ///
    /// # Panics
    /// If the words would exceed 4 GiB in all (a document's text is read
    /// with a size cap far below that).
    #[inline]
    pub fn push(&mut self, word: &str) {
        if !self.ends.is_empty() {
            self.text.push(' ');
        }
        self.text.push_str(word);
        let end = u32::try_from(self.text.len()).expect("words over 4 GiB");
        self.ends.push(end);
    }

    /// How many words there are.
    #[inline]
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Returns true if and only if there are no words.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The word at `i`, if there is one.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)? as usize;
        let start = match i.checked_sub(1) {
            Some(p) => *self.ends.get(p)? as usize + 1,
            None => 0,
        };
        self.text.get(start..end)
    }

    /// The first word.
    pub fn first(&self) -> Option<&str> {
        self.get(0)
    }

    /// The last word.
    pub fn last(&self) -> Option<&str> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }

    /// The words in order.
    #[inline]
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            text: &self.text,
            ends: &self.ends,
            start: 0,
        }
    }

    /// Keeps the first `n` words.
    pub fn truncate(&mut self, n: usize) {
        if n < self.ends.len() {
            self.ends.truncate(n);
            let end = self.ends.last().map_or(0, |&e| e as usize);
            self.text.truncate(end);
        }
    }

    /// The words joined by single spaces, as stored: no copy.
    #[inline]
    pub fn joined(&self) -> &str {
        &self.text
    }

    /// Gives back spare capacity.
    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }

    /// The words joined by `sep` (for a single space, [`Words::joined`]
    /// needs no copy).
    pub fn join(&self, sep: &str) -> String {
        if sep == " " {
            return self.text.clone();
        }
        let mut out = String::with_capacity(self.text.len() + sep.len() * self.len());
        for (i, w) in self.iter().enumerate() {
            if i > 0 {
                out.push_str(sep);
            }
            out.push_str(w);
        }
        out
    }

    /// The words as one `String` each.
    pub fn to_vec(&self) -> Vec<String> {
        self.iter().map(str::to_owned).collect()
    }
}

impl Index<usize> for Words {
    type Output = str;

    /// The word at `i`.
    ///
    /// # Panics
    /// If `i` is out of bounds, like a slice.
    fn index(&self, i: usize) -> &str {
        match self.get(i) {
            Some(w) => w,
            None => panic!("word index {i} out of range for {} words", self.len()),
        }
    }
}

impl fmt::Debug for Words {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<S: AsRef<str>> FromIterator<S> for Words {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Words {
        let mut out = Words::new();
        out.extend(iter);
        out
    }
}

impl<S: AsRef<str>> Extend<S> for Words {
    fn extend<I: IntoIterator<Item = S>>(&mut self, iter: I) {
        for w in iter {
            self.push(w.as_ref());
        }
    }
}

impl From<Vec<String>> for Words {
    fn from(words: Vec<String>) -> Words {
        words.iter().collect()
    }
}

impl<'a> IntoIterator for &'a Words {
    type Item = &'a str;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl<S: AsRef<str>> PartialEq<[S]> for Words {
    fn eq(&self, other: &[S]) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a == b.as_ref())
    }
}

impl<S: AsRef<str>, const N: usize> PartialEq<[S; N]> for Words {
    fn eq(&self, other: &[S; N]) -> bool {
        *self == other[..]
    }
}

impl<S: AsRef<str>> PartialEq<Vec<S>> for Words {
    fn eq(&self, other: &Vec<S>) -> bool {
        *self == other[..]
    }
}

/// The words of a [`Words`], in order.
#[derive(Clone, Debug)]
pub struct Iter<'a> {
    text: &'a str,
    /// Ends of the words not yet yielded from the front or the back.
    ends: &'a [u32],
    /// Where the next word from the front starts.
    start: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a str;

    #[inline]
    fn next(&mut self) -> Option<&'a str> {
        let (&end, rest) = self.ends.split_first()?;
        let end = end as usize;
        let word = self.text.get(self.start..end)?;
        self.start = end + 1;
        self.ends = rest;
        Some(word)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.ends.len(), Some(self.ends.len()))
    }
}

impl<'a> DoubleEndedIterator for Iter<'a> {
    #[inline]
    fn next_back(&mut self) -> Option<&'a str> {
        let (&end, rest) = self.ends.split_last()?;
        let start = rest.last().map_or(self.start, |&e| e as usize + 1);
        let word = self.text.get(start..end as usize)?;
        self.ends = rest;
        Some(word)
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl std::iter::FusedIterator for Iter<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_come_back_as_pushed_from_either_end() {
        let pushed = ["alpha", "", "été", "b", "中"];
        let w: Words = pushed.iter().collect();
        assert_eq!(w.len(), 5);
        assert_eq!(w.iter().collect::<Vec<_>>(), pushed);
        let mut back: Vec<&str> = w.iter().rev().collect();
        back.reverse();
        assert_eq!(back, pushed);
        // Meeting in the middle yields each word once.
        let mut it = w.iter();
        assert_eq!(
            (
                it.next(),
                it.next_back(),
                it.next(),
                it.next_back(),
                it.next()
            ),
            (Some("alpha"), Some("中"), Some(""), Some("b"), Some("été"))
        );
        assert_eq!((it.next(), it.next_back(), it.len()), (None, None, 0));
        for (i, p) in pushed.iter().enumerate() {
            assert_eq!(w.get(i), Some(*p));
            assert_eq!(&w[i], *p);
        }
        assert_eq!(w.get(5), None);
        assert_eq!((w.first(), w.last()), (Some("alpha"), Some("中")));
        assert_eq!(w.join(" "), "alpha  été b 中");
        assert_eq!(w.joined(), "alpha  été b 中");
        assert_eq!(w.join("|"), "alpha||été|b|中");
        assert_eq!(w.to_vec(), pushed);
        assert_eq!(format!("{w:?}"), format!("{pushed:?}"));
    }

    #[test]
    fn truncate_keeps_the_first_words_and_their_text_only() {
        let mut w: Words = ["one", "two", "three"].iter().collect();
        w.truncate(5);
        assert_eq!(w, ["one", "two", "three"]);
        w.truncate(2);
        assert_eq!(w, ["one", "two"]);
        assert_eq!(w.joined(), "one two");
        w.push("four");
        assert_eq!(w, ["one", "two", "four"]);
        w.truncate(0);
        assert!(w.is_empty() && w.first().is_none() && w.last().is_none());
        assert_eq!(w, Words::new());
    }

    #[test]
    fn equal_words_are_equal_however_they_were_built() {
        let a: Words = vec!["x".to_owned(), "yz".to_owned()].into();
        let mut b = Words::with_capacity(2, 3);
        b.extend(["x", "yz"]);
        assert_eq!(a, b);
        // The same bytes cut differently are other words.
        let c: Words = ["xy", "z"].iter().collect();
        assert_ne!(a, c);
        assert_ne!(a, ["x"]);
        // A word holding a space joins like any other.
        let d: Words = ["x y", "z"].iter().collect();
        assert_eq!((d.joined(), d.len(), d.get(0)), ("x y z", 2, Some("x y")));
        assert_ne!(d, ["x", "y z"].iter().collect::<Words>());
    }
}
