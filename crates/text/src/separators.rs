//! Which of a few separators a short text holds: asked of every page's
//! title (`Page | Site`, `Item - Book`), where searching for each
//! separator in turn built a substring searcher per separator and page.

/// For each of `separators`, in order, whether `text` holds it. Every
/// separator must begin with a space (as title separators do: `" | "`):
/// one pass over the text's spaces compares each against all of them.
/// Most titles have few spaces and no separator.
pub fn separators_in<const N: usize>(text: &str, separators: &[&str; N]) -> [bool; N] {
    debug_assert!(separators.iter().all(|s| s.starts_with(' ')));
    let bytes = text.as_bytes();
    let mut present = [false; N];
    for at in memchr::memchr_iter(b' ', bytes) {
        let rest = bytes.get(at..).unwrap_or_default();
        // Most spaces come before a letter, which begins no separator's
        // second byte: one compare each, not a slice comparison.
        let Some(second) = rest.get(1) else { continue };
        for (seen, sep) in present.iter_mut().zip(separators) {
            let sep = sep.as_bytes();
            *seen |= sep.get(1) == Some(second) && rest.starts_with(sep);
        }
    }
    present
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The same as asking `str::contains` of each separator: on texts
        /// of words, spaces and separator characters, separators touching
        /// and overlapping.
        #[test]
        fn separators_in_is_contains(text in "([a-z]{1,3}| |\\||-|–|—|::|»|/){0,14}") {
            let seps = [" | ", " - ", " – ", " — ", " :: ", " » ", " / "];
            let expected = seps.map(|s| text.contains(s));
            proptest::prop_assert_eq!(separators_in(&text, &seps), expected);
        }
    }

    #[test]
    fn separators_in_examples() {
        let seps = [" | ", " - ", " / "];
        assert_eq!(separators_in("a - b | c", &seps), [true, true, false]);
        assert_eq!(separators_in("a-b|c / ", &seps), [false, false, true]);
        assert_eq!(separators_in(" / ", &seps), [false, false, true]);
        assert_eq!(separators_in("", &seps), [false; 3]);
        assert_eq!(separators_in("a /", &seps), [false; 3]);
    }
}
