//! The detector conformance suite (feature `testing`): properties every
//! detector must have, for the tests of detector crates, plus a
//! deterministic generator of test texts.

use crate::{Detector, Document, Level, Signature};

/// A deterministic pseudo-random generator (64-bit LCG), so test texts are
/// the same on every run without a `rand` dependency.
pub struct Lcg(pub u64);

impl Lcg {
    /// The next 31-bit value.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    /// A value in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

/// Word number `i` of a made-up vocabulary (3 to 10 letters).
pub fn vocab_word(i: usize) -> String {
    let mut rng = Lcg(i as u64 ^ 0x5eed);
    let len = 3 + rng.below(8);
    (0..len)
        .map(|_| char::from(b'a' + rng.below(26) as u8))
        .collect()
}

/// `n` words drawn from a 2,000-word vocabulary: texts drawn with different
/// seeds share words, as real pages do, but not runs of words.
pub fn words(seed: u64, n: usize) -> Vec<String> {
    let mut rng = Lcg(seed);
    (0..n).map(|_| vocab_word(rng.below(2000))).collect()
}

/// `words` with `k` of them replaced by words outside the vocabulary of
/// [`words`], at positions spread by `seed`.
pub fn edit(words: &[String], k: usize, seed: u64) -> Vec<String> {
    let mut rng = Lcg(seed);
    let mut out = words.to_vec();
    for _ in 0..k {
        let i = rng.below(out.len());
        if let Some(w) = out.get_mut(i) {
            *w = vocab_word(2000 + rng.below(1000));
        }
    }
    out
}

/// A document whose words and terms are `terms`; its text puts them in
/// sentences of 12 words, one sentence per line.
pub fn doc(terms: Vec<String>) -> Document {
    let text = terms
        .chunks(12)
        .map(|s| format!("{}.", s.join(" ")))
        .collect::<Vec<_>>()
        .join("\n");
    Document {
        text,
        words: terms.clone(),
        terms,
        lang: "und".into(),
        ..Document::default()
    }
}

/// Checks the properties every detector must have: deterministic
/// signatures (also from another thread), identity (resemblance and
/// containment 1, classified duplicate), symmetric resemblance, values in
/// `0..=1`, unrelated 500-word texts at most `unrelated_max` and not
/// matched, a near copy (5 of 500 words replaced) at least `near_min` and
/// matched, and no panic on empty or foreign signatures.
///
/// # Panics
/// On the first property that does not hold (it is a test helper).
pub fn check_detector(d: &dyn Detector, unrelated_max: f64, near_min: f64) {
    let a = doc(words(1, 500));
    let b = doc(words(2, 500));
    let near = doc(edit(&a.terms, 5, 3));
    let sa = d.sign(&a);
    let sb = d.sign(&b);
    let sn = d.sign(&near);
    assert!(!sa.is_empty() && !sb.is_empty() && !sn.is_empty());

    // Deterministic, also on another thread (no per-instance state).
    assert_eq!(d.sign(&a), sa);
    std::thread::scope(|s| {
        let other = s.spawn(|| d.sign(&a)).join().ok();
        assert_eq!(other, Some(sa.clone()));
    });

    // Identity.
    let self_sim = d.similarity(&sa, &sa);
    assert_eq!(self_sim.resemblance, 1.0);
    assert_eq!(self_sim.containment, 1.0);
    let j = d.classify(&sa, &sa, self_sim);
    assert_eq!(j.map(|j| j.level), Some(Level::Duplicate));

    // Symmetric resemblance, values in 0..=1.
    let ab = d.similarity(&sa, &sb);
    let ba = d.similarity(&sb, &sa);
    assert_eq!(ab.resemblance, ba.resemblance);
    let an = d.similarity(&sn, &sa);
    let na = d.similarity(&sa, &sn);
    assert_eq!(an.resemblance, na.resemblance);
    for v in [
        ab.resemblance,
        ab.containment,
        ba.resemblance,
        ba.containment,
        an.resemblance,
        an.containment,
    ] {
        assert!((0.0..=1.0).contains(&v), "{v}");
    }

    // Unrelated texts: low, no match.
    assert!(
        ab.resemblance <= unrelated_max,
        "unrelated texts: resemblance {}",
        ab.resemblance
    );
    assert!(
        d.classify(&sa, &sb, ab).is_none(),
        "unrelated texts matched"
    );

    // A near copy: high, matched.
    assert!(
        an.resemblance >= near_min,
        "near copy: resemblance {} < {near_min}",
        an.resemblance
    );
    assert!(d.classify(&sn, &sa, an).is_some(), "near copy not matched");

    // Empty documents and foreign signatures: no panic, values in range.
    let empty = d.sign(&doc(Vec::new()));
    assert_eq!(empty, Signature::Empty);
    for other in [
        Signature::Empty,
        Signature::Fingerprint(7),
        Signature::Set(vec![1, 2, 3]),
        Signature::Sketch(vec![]),
        Signature::Sketch(vec![1, 2]),
        Signature::Vector(vec![0.5]),
    ] {
        for (q, e) in [(&sa, &other), (&other, &sa), (&empty, &other)] {
            let s = d.similarity(q, e);
            assert!((0.0..=1.0).contains(&s.resemblance));
            assert!((0.0..=1.0).contains(&s.containment));
            let _ = d.classify(q, e, s);
        }
    }

    // The index finds the earlier copy of a near copy.
    let mut index = d.new_index();
    index.insert(0, &sb);
    index.insert(1, &sa);
    let mut out = Vec::new();
    index.candidates(&sn, &mut out);
    assert!(out.contains(&1), "index missed the near copy: {out:?}");
    index.remove(1, &sa);
    assert_eq!(index.len(), 1);
}
