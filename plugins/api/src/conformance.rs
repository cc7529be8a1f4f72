//! The conformance suites (feature `testing`): properties every detector
//! must have ([`check_detector`]), the laws of every candidate index
//! ([`check_index`]), for the tests of the core and the detector crates,
//! plus a deterministic generator of test texts.

use crate::{CandidateIndex, Detector, DocId, Document, Level, Signature, Words};

/// The generator of the test texts: a 64-bit LCG whose 31-bit outputs
/// [`words`] draws from. Kept apart from [`SplitMix64`](crate::SplitMix64) (the generator of
/// everything else) because detector tests set their thresholds by
/// measurement on exactly these texts: drawn by SplitMix64, the near copy
/// of `check_detector` has FastCDC chunk resemblance 0.41 instead of at
/// least 0.5 (`crates/core/src/signature/chunk.rs`, test `conformance`).
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
pub fn edit<S: AsRef<str>>(words: impl IntoIterator<Item = S>, k: usize, seed: u64) -> Vec<String> {
    let mut rng = Lcg(seed);
    let mut out: Vec<String> = words.into_iter().map(|w| w.as_ref().to_owned()).collect();
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
        words: Words::from(terms.clone()),
        terms: Words::from(terms),
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

    // The index laws, on 20 unrelated documents.
    let sigs: Vec<Signature> = (10..30)
        .map(|seed| d.sign(&doc(words(seed, 300))))
        .collect();
    check_index(&|| d.new_index(), &sigs);
}

/// What a query returns, checked against the laws every answer obeys: the
/// index appends to `out` (what was there stays), names each candidate at
/// most once, and only documents it holds (`live`).
fn answer(index: &dyn CandidateIndex, sig: &Signature, live: &[DocId]) -> Vec<DocId> {
    const SENTINEL: DocId = DocId::MAX;
    let mut out = vec![SENTINEL];
    index.candidates(sig, &mut out);
    assert_eq!(
        out.first(),
        Some(&SENTINEL),
        "candidates must append to `out`"
    );
    out.remove(0);
    let mut sorted = out.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), out.len(), "a candidate named twice: {out:?}");
    for id in &out {
        assert!(live.contains(id), "candidate {id} is not indexed: {out:?}");
    }
    out
}

/// Checks the laws of a [`CandidateIndex`], on indexes made by `new_index`
/// (empty) and `sigs`, the signatures of at least two unrelated documents:
///
/// - a new index is empty and answers nothing;
/// - each inserted document is counted and found by its own signature;
/// - every answer appends to the caller's vector, names each candidate at
///   most once and only documents indexed now (never a removed or unknown
///   id), also for a query holding every document's features (sets) and
///   for a signature indexed under two ids (an exact copy: the first is
///   found; an index that keeps only the first, as the exact index does,
///   may leave the second out);
/// - a removed document is not counted and never named again, and the
///   others are still found; its signature inserted again under a new id
///   finds the new id only; removing everything leaves an empty index.
///
/// Ids are spread (`3 i + 1`), so an index that takes ids for positions
/// fails. An index with a document-frequency cutoff (`max_postings`) must
/// let two documents share a feature, or an exact copy hides its original.
///
/// # Panics
/// On the first law that does not hold (it is a test helper).
pub fn check_index(new_index: &dyn Fn() -> Box<dyn CandidateIndex>, sigs: &[Signature]) {
    assert!(sigs.len() >= 2, "check_index needs two documents or more");
    let mut index = new_index();
    assert_eq!(index.len(), 0);
    assert!(index.is_empty());
    for s in sigs {
        assert!(
            answer(index.as_ref(), s, &[]).is_empty(),
            "an empty index answered"
        );
    }

    // Insert: counted, each found by its own signature.
    let mut live: Vec<DocId> = Vec::new();
    for (i, s) in sigs.iter().enumerate() {
        let id = 3 * i as DocId + 1;
        index.insert(id, s);
        live.push(id);
        assert_eq!(index.len(), live.len(), "insert of {id} not counted");
    }
    for (&id, s) in live.iter().zip(sigs) {
        let found = answer(index.as_ref(), s, &live);
        assert!(
            found.contains(&id),
            "{id} not found by its own signature: {found:?}"
        );
    }
    // A page holding every document's features names each at most once.
    let sets: Vec<&[u32]> = sigs
        .iter()
        .filter_map(|s| match s {
            Signature::Set(v) => Some(v.as_slice()),
            _ => None,
        })
        .collect();
    if sets.len() == sigs.len() {
        let mut all: Vec<u32> = sets.concat();
        all.sort_unstable();
        all.dedup();
        answer(index.as_ref(), &Signature::Set(all), &live);
    }
    // Foreign signatures: answered within the laws, no panic.
    for other in [
        Signature::Empty,
        Signature::Fingerprint(7),
        Signature::Set(vec![1, 2, 3]),
        Signature::Sketch(vec![1, 2]),
        Signature::Vector(vec![0.5]),
    ] {
        answer(index.as_ref(), &other, &live);
    }

    // An exact copy of the first document under a new id.
    let first = live[0];
    let copy = 3 * sigs.len() as DocId + 1;
    index.insert(copy, &sigs[0]);
    let with_copy: Vec<DocId> = live.iter().copied().chain([copy]).collect();
    let found = answer(index.as_ref(), &sigs[0], &with_copy);
    assert!(
        found.contains(&first),
        "the original of a copy is lost: {found:?}"
    );
    index.remove(copy, &sigs[0]);
    let found = answer(index.as_ref(), &sigs[0], &live);
    assert!(
        found.contains(&first),
        "removing a copy removed the original: {found:?}"
    );
    assert_eq!(index.len(), live.len(), "after the copy came and went");

    // Remove every other document.
    let mut removed = Vec::new();
    for (i, s) in sigs.iter().enumerate().step_by(2) {
        let id = 3 * i as DocId + 1;
        index.remove(id, s);
        live.retain(|&x| x != id);
        removed.push((id, s));
        assert_eq!(index.len(), live.len(), "removal of {id} not counted");
    }
    for (i, s) in sigs.iter().enumerate() {
        let id = 3 * i as DocId + 1;
        let found = answer(index.as_ref(), s, &live);
        if live.contains(&id) {
            assert!(
                found.contains(&id),
                "{id} lost by another's removal: {found:?}"
            );
        }
    }
    // A removed signature under a new id: the new id only.
    let (old, s) = removed[0];
    let fresh = copy + 1;
    index.insert(fresh, s);
    live.push(fresh);
    let found = answer(index.as_ref(), s, &live);
    assert!(found.contains(&fresh) && !found.contains(&old), "{found:?}");

    // Remove everything: empty, silent.
    for (i, s) in sigs.iter().enumerate() {
        let id = 3 * i as DocId + 1;
        if live.contains(&id) {
            index.remove(id, s);
        }
    }
    index.remove(fresh, s);
    assert_eq!(index.len(), 0, "not empty after removing everything");
    assert!(index.is_empty());
    for s in sigs {
        assert!(
            answer(index.as_ref(), s, &[]).is_empty(),
            "answered after removing all"
        );
    }
}
