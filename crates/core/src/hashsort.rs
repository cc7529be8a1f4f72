//! Sorting keys whose top bits are hash bits: shingle keys of page content
//! and SimHash feature hashes, one of each per word of every analyzed page.
//!
//! A comparison sort pays `log n` comparisons a key. Here one stable
//! counting scatter on the top `b` bits, with `2^b` about the number of
//! keys, leaves buckets of about one key each (the bits are a hash, so
//! they spread the keys evenly), and each bucket is then sorted by
//! insertion. A bucket larger than [`INSERTION_MAX`] (many keys sharing
//! their top bits: repeats of one shingle, or keys made to collide) goes to
//! the standard sort, so no input is quadratic. The result is the order of
//! `sort_unstable` for any input; only the speed assumes hashed top bits.

/// Below this many keys the standard sort is as fast.
const MIN_KEYS: usize = 512;

/// Buckets larger than this are left to the standard sort.
const INSERTION_MAX: usize = 16;

/// Sorts `keys` ascending, as `sort_unstable` would.
pub(crate) fn sort_hashed(keys: &mut Vec<u64>) {
    let n = keys.len();
    // Bucket offsets are `u32`; no page has that many words, but a caller
    // that passed more would get the standard sort, not lost keys.
    if n < MIN_KEYS || u32::try_from(n).is_err() {
        keys.sort_unstable();
        return;
    }
    let bits = (usize::BITS - n.leading_zeros()).clamp(8, 16);
    let shift = 64 - bits;
    let bucket = |k: u64| (k >> shift) as usize;
    // `starts[b + 1]` counts bucket `b`, then becomes where it ends.
    let mut starts = vec![0u32; (1 << bits) + 1];
    for &k in keys.iter() {
        if let Some(c) = starts.get_mut(bucket(k) + 1) {
            *c += 1;
        }
    }
    let mut at = 0;
    for c in starts.iter_mut() {
        at += *c;
        *c = at;
    }
    // `starts[b]` is now where bucket `b` starts; filling moves it on, so
    // that afterwards it is where the bucket ends.
    let mut sorted = vec![0u64; n];
    for &k in keys.iter() {
        if let Some(c) = starts.get_mut(bucket(k)) {
            if let Some(slot) = sorted.get_mut(*c as usize) {
                *slot = k;
            }
            *c += 1;
        }
    }
    let mut from = 0;
    for &end in starts.iter().take(1 << bits) {
        let end = end as usize;
        if let Some(run) = sorted.get_mut(from..end) {
            if run.len() > INSERTION_MAX {
                run.sort_unstable();
            } else {
                insertion_sort(run);
            }
        }
        from = end;
    }
    *keys = sorted;
}

/// Sorts a short run in place.
fn insertion_sort(run: &mut [u64]) {
    for i in 1..run.len() {
        let mut j = i;
        while j > 0 && run[j - 1] > run[j] {
            run.swap(j - 1, j);
            j -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The standard sort's order, for hashed keys, for keys whose top
        /// bits never vary (one bucket: the standard sort's fallback), and
        /// for keys that vary only in a few top bits (buckets of repeats),
        /// on both sides of the size where the scatter takes over.
        #[test]
        fn sorts_as_the_standard_sort(
            keys in proptest::collection::vec(proptest::num::u64::ANY, 0..3000),
            mask in proptest::sample::select(vec![u64::MAX, 0xFFFF, 0xF000_0000_0000_0000, 0]),
        ) {
            let mut keys: Vec<u64> = keys.iter().map(|k| k & mask).collect();
            let mut expected = keys.clone();
            expected.sort_unstable();
            sort_hashed(&mut keys);
            prop_assert_eq!(keys, expected);
        }
    }
}
