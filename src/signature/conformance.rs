//! The `Detector` conformance suite: properties every detector must have,
//! run on each built-in (and reusable for plugins). Plus a small generator
//! of word texts for signature tests.

use neardup_api::{Detector, Document, Level, Signature};

/// A deterministic pseudo-random generator (64-bit LCG), so test texts are
/// the same on every run without a `rand` dependency.
pub(crate) struct Lcg(pub u64);

impl Lcg {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// `n` words drawn from a 2,000-word vocabulary of made-up stems: pages
/// drawn with different seeds share words, as real pages do, but not runs.
pub(crate) fn words(seed: u64, n: usize) -> Vec<String> {
    let mut rng = Lcg(seed);
    (0..n).map(|_| vocab_word(rng.below(2000))).collect()
}

/// Word number `i` of the made-up vocabulary (3 to 10 letters).
pub(crate) fn vocab_word(i: usize) -> String {
    let mut rng = Lcg(i as u64 ^ 0x5eed);
    let len = 3 + rng.below(8);
    (0..len)
        .map(|_| char::from(b'a' + rng.below(26) as u8))
        .collect()
}

/// `words` with `k` of them replaced by other vocabulary words, at
/// positions spread by `seed`.
pub(crate) fn edit(words: &[String], k: usize, seed: u64) -> Vec<String> {
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

/// A document whose words and terms are `terms`.
pub(crate) fn doc(terms: Vec<String>) -> Document {
    Document {
        text: terms.join(" "),
        words: terms.clone(),
        terms,
        lang: "und".into(),
        ..Document::default()
    }
}

/// The properties every detector must have. `unrelated_max` is the largest
/// resemblance allowed between unrelated 500-word texts.
pub(crate) fn check_detector(d: &dyn Detector, unrelated_max: f64) {
    let a = doc(words(1, 500));
    let b = doc(words(2, 500));
    let sa = d.sign(&a);
    let sb = d.sign(&b);
    assert!(!sa.is_empty() && !sb.is_empty());

    // Deterministic: same document, same signature, also from a fresh
    // detector on another thread (no per-instance or per-thread state).
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
    for v in [
        ab.resemblance,
        ab.containment,
        ba.resemblance,
        ba.containment,
    ] {
        assert!((0.0..=1.0).contains(&v), "{v}");
    }
    assert!(
        ab.resemblance <= unrelated_max,
        "unrelated texts: resemblance {}",
        ab.resemblance
    );
    assert!(
        d.classify(&sa, &sb, ab).is_none(),
        "unrelated texts matched"
    );

    // Empty documents and foreign signatures: no panic, no match.
    let empty = d.sign(&doc(Vec::new()));
    assert_eq!(empty, Signature::Empty);
    for other in [
        Signature::Empty,
        Signature::Fingerprint(7),
        Signature::Set(vec![1, 2, 3]),
        Signature::Sketch(vec![]),
        Signature::Vector(vec![0.5]),
    ] {
        for (q, e) in [(&sa, &other), (&other, &sa), (&empty, &other)] {
            let s = d.similarity(q, e);
            assert!((0.0..=1.0).contains(&s.resemblance));
            assert!((0.0..=1.0).contains(&s.containment));
            let _ = d.classify(q, e, s);
        }
    }
}
