//! MinHash sketches (Sketch_n): one-permutation hashing with optimal
//! densification, or k independently seeded hashes; LSH banding math.

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::shingle::SEED;

/// How the `n` minima of a sketch are computed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scheme {
    /// One-permutation hashing (Li, Owen, Zhang 2012) with optimal
    /// densification (Shrivastava 2017): each shingle is hashed once and
    /// falls into one of `n` bins, each bin keeps its minimum, and an empty
    /// bin borrows the value of a non-empty bin chosen by a hash of
    /// (bin, attempt) - the same choice in every document, which keeps the
    /// estimate unbiased. Cost O(shingles + n).
    #[default]
    Oph,
    /// Classic MinHash: `n` independently seeded xxh3 hashes of each
    /// shingle fingerprint, minimum of each. Cost O(shingles * n).
    Seeds,
}

/// The sketch of a set of 64-bit shingle fingerprints: `n` values (empty
/// if there are no fingerprints).
pub fn sketch(fingerprints: &[u64], n: usize, scheme: Scheme) -> Vec<u32> {
    if fingerprints.is_empty() || n == 0 {
        return Vec::new();
    }
    match scheme {
        Scheme::Oph => oph(fingerprints, n),
        Scheme::Seeds => seeded(fingerprints, n),
    }
}

fn oph(fingerprints: &[u64], n: usize) -> Vec<u32> {
    // Bin from the high 32 bits (multiply-shift range reduction, no
    // modulo bias worth speaking of), value from the low 32 bits.
    let mut bins: Vec<Option<u32>> = vec![None; n];
    for &h in fingerprints {
        let bin = (((h >> 32) * n as u64) >> 32) as usize;
        let value = h as u32;
        if let Some(slot) = bins.get_mut(bin) {
            *slot = Some(slot.map_or(value, |v| v.min(value)));
        }
    }
    let filled = bins.clone();
    for (i, slot) in bins.iter_mut().enumerate() {
        if slot.is_some() {
            continue;
        }
        // Optimal densification: probe bins by a fixed hash of (i, attempt)
        // until a bin that was filled by shingles (not by borrowing) is
        // found. At least one is (fingerprints is not empty), and each
        // probe succeeds with probability filled/n, so this ends; the
        // attempt cap only guards against a broken hash.
        for attempt in 0u64..(64 * n as u64 + 64) {
            let mut key = [0u8; 16];
            key[..8].copy_from_slice(&(i as u64).to_le_bytes());
            key[8..].copy_from_slice(&attempt.to_le_bytes());
            let j = (xxh3_64_with_seed(&key, SEED ^ 0xd3) % n as u64) as usize;
            if let Some(Some(v)) = filled.get(j) {
                *slot = Some(*v);
                break;
            }
        }
    }
    bins.into_iter().map(|b| b.unwrap_or(u32::MAX)).collect()
}

fn seeded(fingerprints: &[u64], n: usize) -> Vec<u32> {
    (0..n as u64)
        .map(|i| {
            let seed = SEED ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            fingerprints
                .iter()
                .map(|h| xxh3_64_with_seed(&h.to_le_bytes(), seed) as u32)
                .min()
                .unwrap_or(u32::MAX)
        })
        .collect()
}

/// Share of positions where two sketches agree: the estimate of the Jaccard
/// resemblance of the shingle sets. 0 if the lengths differ or either is
/// empty (sketches of other settings are not comparable).
pub fn agreement(a: &[u32], b: &[u32]) -> f64 {
    if a.is_empty() || a.len() != b.len() {
        return 0.0;
    }
    let same = a.iter().zip(b).filter(|(x, y)| x == y).count();
    same as f64 / a.len() as f64
}

/// The similarity at which the LSH banding index finds a pair with
/// probability about 1/2, the usual approximation `(1/b)^(1/r)`.
pub fn lsh_threshold(bands: usize, rows: usize) -> f64 {
    (1.0 / bands.max(1) as f64).powf(1.0 / rows.max(1) as f64)
}

/// The S-curve of LSH banding: the probability `1 - (1 - s^r)^b` that two
/// documents of resemblance `s` share at least one of `b` bands of `r`
/// rows, i.e. become candidates.
pub fn s_curve(s: f64, bands: usize, rows: usize) -> f64 {
    let s = s.clamp(0.0, 1.0);
    1.0 - (1.0 - s.powi(rows as i32)).powi(bands as i32)
}

/// A human summary of a banding scheme: the candidate threshold and the
/// S-curve at s = 0.1, 0.2, ..., 1.0, one line each (for `neardup
/// detectors`, so users can see which resemblances the index will find).
pub fn describe_banding(bands: usize, rows: usize) -> Vec<String> {
    let mut lines = vec![format!(
        "LSH banding: b = {bands} bands of r = {rows} rows; candidate threshold (1/b)^(1/r) = {:.3}",
        lsh_threshold(bands, rows)
    )];
    lines.push("S-curve, P(candidate) = 1 - (1 - s^r)^b:".to_owned());
    for tenth in 1..=10 {
        let s = f64::from(tenth) / 10.0;
        lines.push(format!("  s = {s:.1}  P = {:.4}", s_curve(s, bands, rows)));
    }
    lines
}

/// The band keys of a sketch: one 32-bit hash per band of `rows` values,
/// salted with the band number so equal values in different bands differ.
pub fn band_keys(sketch: &[u32], bands: usize, rows: usize) -> Vec<u32> {
    let mut buf = Vec::with_capacity(4 * rows + 8);
    sketch
        .chunks_exact(rows.max(1))
        .take(bands)
        .enumerate()
        .map(|(b, band)| {
            buf.clear();
            buf.extend_from_slice(&(b as u64).to_le_bytes());
            for v in band {
                buf.extend_from_slice(&v.to_le_bytes());
            }
            xxh3_64_with_seed(&buf, SEED) as u32
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two random sets of 64-bit fingerprints with exact Jaccard about
    /// `target`: `shared` common elements plus `own` each.
    fn pair(seed: u64, size: usize, target: f64) -> (Vec<u64>, Vec<u64>, f64) {
        // |A∩B| / |A∪B| = s / (s + 2o) with s + o = size.
        let shared = ((2.0 * target * size as f64) / (1.0 + target)).round() as usize;
        let own = size - shared;
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut next = move || {
            // xorshift64*: test data only.
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            x.wrapping_mul(0x2545_f491_4f6c_dd1d)
        };
        let common: Vec<u64> = (0..shared).map(|_| next()).collect();
        let mut a = common.clone();
        let mut b = common;
        a.extend((0..own).map(|_| next()));
        b.extend((0..own).map(|_| next()));
        let exact = shared as f64 / (shared + 2 * own) as f64;
        (a, b, exact)
    }

    /// Mean absolute error of the estimate over 200 random pairs of sets of
    /// 50..=1000 elements and Jaccard 0.1..=0.95.
    fn mean_abs_error(n: usize, scheme: Scheme) -> f64 {
        let mut total = 0.0;
        let trials = 200;
        for t in 0..trials {
            let size = 50 + (t * 37) % 951;
            let target = 0.1 + 0.85 * (t % 20) as f64 / 19.0;
            let (a, b, exact) = pair(t as u64 + 1, size, target);
            let est = agreement(&sketch(&a, n, scheme), &sketch(&b, n, scheme));
            total += (est - exact).abs();
        }
        total / trials as f64
    }

    #[test]
    fn oph_estimates_jaccard_as_well_as_independent_seeds() {
        for n in [64, 128, 256] {
            let oph = mean_abs_error(n, Scheme::Oph);
            let seeds = mean_abs_error(n, Scheme::Seeds);
            println!("n={n}: mean |estimate - exact| oph {oph:.4} seeds {seeds:.4}");
            // The standard error of a MinHash estimate is at most
            // sqrt(0.25 / n): 0.0625 at n = 64; the mean absolute error of
            // a normal is 0.8 of that.
            let bound = 0.8 * (0.25 / n as f64).sqrt();
            assert!(oph <= bound * 1.15, "oph n={n}: {oph}");
            assert!(seeds <= bound * 1.15, "seeds n={n}: {seeds}");
            // As good: within 20% (or 0.005) of the classic scheme.
            assert!(oph <= seeds * 1.2 + 0.005, "n={n}: oph {oph} seeds {seeds}");
        }
    }

    #[test]
    fn densification_fills_every_bin_even_for_tiny_sets() {
        for size in [1, 2, 5] {
            let (a, _, _) = pair(9, size, 0.5);
            let s = sketch(&a, 128, Scheme::Oph);
            assert_eq!(s.len(), 128);
            // Every value is one of the set's low halves: borrowed, not
            // a sentinel.
            let lows: Vec<u32> = a.iter().map(|&h| h as u32).collect();
            assert!(s.iter().all(|v| lows.contains(v)), "{size}");
        }
        // Identical sets, identical sketches.
        let (a, _, _) = pair(4, 3, 0.5);
        assert_eq!(sketch(&a, 64, Scheme::Oph), sketch(&a, 64, Scheme::Oph));
    }

    #[test]
    fn lsh_threshold_and_s_curve_match_the_formulas() {
        // b = 32, r = 4: (1/32)^(1/4) = 2^(-5/4) = 0.42045.
        assert!((lsh_threshold(32, 4) - 0.420_448).abs() < 1e-5);
        // b = 20, r = 5 at s = 0.8: 1 - (1 - 0.32768)^20 = 0.99965.
        assert!((s_curve(0.8, 20, 5) - 0.999_648).abs() < 1e-5);
        assert_eq!(s_curve(0.0, 32, 4), 0.0);
        assert_eq!(s_curve(1.0, 32, 4), 1.0);
    }

    #[test]
    fn band_keys_differ_by_band_and_match_for_equal_bands() {
        let a = vec![1, 2, 3, 4, 1, 2, 3, 4];
        let keys = band_keys(&a, 2, 4);
        assert_eq!(keys.len(), 2);
        assert_ne!(keys[0], keys[1]);
        let mut b = a.clone();
        b[7] = 9;
        let kb = band_keys(&b, 2, 4);
        assert_eq!(keys[0], kb[0]);
        assert_ne!(keys[1], kb[1]);
    }
}
