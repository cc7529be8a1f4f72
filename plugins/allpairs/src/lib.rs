//! Exact all-pairs Jaccard similarity over shingle sets.
//!
//! Every pair of documents whose shingle sets have Jaccard similarity at
//! least `J` is found, exactly: no sketches, no sampling. The method combines
//! two papers from `../shared/papers/`:
//!
//! - **Inverted-index join** (Niyigena et al., "Efficient Pairwise Document
//!   Similarity Computation in Big Datasets"): the relation (shingle, doc) is
//!   joined with itself on the shingle, counting the shingles each pair of
//!   documents shares. Shingles that occur in one document only cannot
//!   produce a pair and are dropped before the join. The count *is* the
//!   intersection, so Jaccard = c / (|x| + |y| - c) needs no further
//!   verification and no pair sharing nothing is ever looked at.
//! - **Length filtering** (Chaudhuri et al., as used by Azgomi et al., "A
//!   method for finding similar documents relying on adding repetition of
//!   symbols in length based filtering"): for |s| <= |t|, Jaccard(s, t) <=
//!   |s| / |t|, so a pair can only reach `J` if |t| <= |s| / J. Documents are
//!   processed in length order and each one only walks the postings of
//!   documents inside its length window.
//! - **Repetition-weighted length** (Azgomi et al., relationship (2)): the
//!   length of a document becomes `LR = sum_{i=1..L} i * F(i)`, where the
//!   document's distinct shingles are listed in a universal order (here:
//!   ascending shingle id), `i` is the 1-based position in that list and
//!   `F(i)` how often that shingle occurs in the document. Documents are then
//!   compared only when `LR_t <= LR_s / J`. **This is not a valid bound on
//!   set Jaccard** (for a document without repeated shingles `LR =
//!   L(L+1)/2`, so the window shrinks to about `L_t <= L_s / sqrt(J)`, and a
//!   superset 10% longer than its subset is cut at J = 0.9): it is offered
//!   as [`LengthFilter::Weighted`] to reproduce the paper, and the counters
//!   say how many pairs it lost against the sound filter when asked.
//!
//! Work is parallel over documents (rayon); the output is sorted by document
//! index, so it never depends on the thread count.
//!
//! # Cost
//! Memory: the caller's sets (8 bytes per distinct shingle), one partition
//! of (shingle, doc) postings at a time (16 bytes each, 1/16 of all), and
//! about 12 bytes per kept posting (shingles in two or more documents).
//! Time: sorting the postings, plus one counter increment per (x, y, shared
//! shingle) inside the length window: a shingle in `d` documents costs up to
//! `d^2 / 2`. Shingles shared by very many documents (boilerplate that the
//! main-text extraction left in) are the expensive case; there is no prefix
//! filter yet to avoid them.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

use rayon::prelude::*;

use neardup_api::intersection_size;
pub use neardup_api::DocId;

/// Seed of the shingle hash. Shingle ids are compared across documents and
/// runs, so the hash is xxh3 with this fixed seed (the same value as the
/// core's `signature::HASH_SEED`, "neardup1").
pub const SHINGLE_SEED: u64 = 0x6e65_6172_6475_7031;

/// The shingle ids of a term sequence, in order, with repetitions: one
/// 64-bit stable hash per window of `k` consecutive terms.
///
/// A non-empty sequence shorter than `k` yields one shingle covering all of
/// it, so short documents can still match their copies; an empty sequence
/// (or `k == 0`) yields none. Each term is hashed with its length in front,
/// so `["ab", "c"]` and `["a", "bc"]` differ.
pub fn shingle_ids<S: AsRef<str>>(terms: &[S], k: usize) -> Vec<u64> {
    if k == 0 || terms.is_empty() {
        return Vec::new();
    }
    let k = k.min(terms.len());
    let mut buf = Vec::new();
    terms
        .windows(k)
        .map(|window| {
            buf.clear();
            for t in window {
                let t = t.as_ref().as_bytes();
                // Terms longer than 4 GiB do not exist in practice; saturate
                // rather than panic.
                let len = u32::try_from(t.len()).unwrap_or(u32::MAX);
                buf.extend_from_slice(&len.to_le_bytes());
                buf.extend_from_slice(t);
            }
            xxhash_rust::xxh3::xxh3_64_with_seed(&buf, SHINGLE_SEED)
        })
        .collect()
}

/// One document as the join sees it: its distinct shingle ids (sorted) and
/// its repetition-weighted length.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DocSet {
    ids: Vec<u64>,
    weighted_len: u64,
}

impl DocSet {
    /// From a shingle sequence with repetitions (as [`shingle_ids`] returns).
    /// Repetitions only matter for [`DocSet::weighted_len`].
    pub fn from_shingles(mut seq: Vec<u64>) -> DocSet {
        seq.sort_unstable();
        let mut ids = Vec::with_capacity(seq.len());
        let mut weighted_len: u64 = 0;
        let mut i = 0;
        while let Some(&id) = seq.get(i) {
            let run = seq
                .get(i..)
                .map_or(0, |rest| rest.iter().take_while(|&&x| x == id).count());
            ids.push(id);
            // Position in the universal order (1-based) times repetition.
            weighted_len =
                weighted_len.saturating_add((ids.len() as u64).saturating_mul(run as u64));
            i += run.max(1);
        }
        DocSet { ids, weighted_len }
    }

    /// From a set (duplicates are removed; every shingle counts once).
    pub fn from_set(ids: impl IntoIterator<Item = u64>) -> DocSet {
        let mut ids: Vec<u64> = ids.into_iter().collect();
        ids.sort_unstable();
        ids.dedup();
        DocSet::from_shingles(ids)
    }

    /// The distinct shingle ids, ascending.
    pub fn ids(&self) -> &[u64] {
        &self.ids
    }

    /// Number of distinct shingles (the set length `L`).
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True if the document has no shingle.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Azgomi et al.'s length `sum_{i=1..L} i * F(i)` (ids in ascending
    /// order, `F(i)` the repetition of the i-th id).
    pub fn weighted_len(&self) -> u64 {
        self.weighted_len
    }
}

/// Which length bound restricts the join.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LengthFilter {
    /// None: every pair sharing a shingle is counted and scored (the plain
    /// join of Niyigena et al.).
    None,
    /// `min(L) / max(L) >= J` on set lengths: sound, the default.
    Set,
    /// The set-length bound and Azgomi et al.'s repetition-weighted bound
    /// `min(LR) / max(LR) >= J`. Heuristic: may lose pairs.
    Weighted,
}

/// Parameters of a run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// Jaccard threshold `J`, in (0, 1].
    pub threshold: f64,
    /// The length bound.
    pub filter: LengthFilter,
    /// Walk whole posting lists even when a length window allows stopping
    /// early, so that [`Counters::joined`] (pairs sharing a shingle, no
    /// filter) and the filters' separate effects are known. Costs the time
    /// the window would have saved.
    pub count_unfiltered: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            threshold: 0.9,
            filter: LengthFilter::Set,
            count_unfiltered: true,
        }
    }
}

/// A pair at or above the threshold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pair {
    /// The first document (index into the input), `a < b`.
    pub a: DocId,
    /// The second document.
    pub b: DocId,
    /// Shingles the two share (`|A ∩ B|`).
    pub shared: u32,
    /// `|A ∩ B| / |A ∪ B|`.
    pub jaccard: f64,
}

/// What each stage cost and saved. "Pairs" are unordered pairs of distinct
/// documents.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Documents.
    pub docs: u64,
    /// All pairs, `n (n - 1) / 2`: the comparisons of a brute-force run.
    pub all_pairs: u64,
    /// Pairs within the set-length bound, with no index: the comparisons
    /// of plain length-based filtering (Azgomi et al.'s "without
    /// repetition" method).
    pub length_pairs: u64,
    /// Pairs within the repetition-weighted bound alone, with no index: the
    /// comparisons of Azgomi et al.'s proposed method.
    pub weighted_pairs: u64,
    /// (shingle, doc) postings in all documents.
    pub postings: u64,
    /// Postings of shingles that occur in two or more documents: the only
    /// ones the join reads.
    pub postings_kept: u64,
    /// Distinct shingles over all documents.
    pub shingles: u64,
    /// Distinct shingles occurring in two or more documents.
    pub shingles_kept: u64,
    /// Pairs sharing at least one shingle (the join with no length filter),
    /// when [`Options::count_unfiltered`] or [`LengthFilter::None`].
    pub joined: Option<u64>,
    /// Pairs sharing a shingle and within the set-length bound (known
    /// exactly unless the filter is `Weighted` without `count_unfiltered`).
    pub joined_length: Option<u64>,
    /// Pairs sharing a shingle, within the set-length bound and within the
    /// weighted bound (filter `Weighted` only).
    pub joined_weighted: Option<u64>,
    /// Pairs whose Jaccard was computed (from the shared count).
    pub verified: u64,
    /// Pairs with Jaccard >= J among them: the output.
    pub output: u64,
    /// Pairs with Jaccard >= J that the weighted bound dropped (filter
    /// `Weighted` with `count_unfiltered`: the pairs it lost).
    pub lost_by_weighted: Option<u64>,
}

/// The pairs (sorted by `(a, b)`) and the counters of a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// Every pair with Jaccard >= J, sorted.
    pub pairs: Vec<Pair>,
    /// Stage counters.
    pub counters: Counters,
}

/// A bad parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    /// The threshold is not in (0, 1].
    Threshold(f64),
    /// More documents than [`DocId`] can number.
    TooManyDocs(usize),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Threshold(j) => write!(f, "Jaccard threshold must be in (0, 1], got {j}"),
            Error::TooManyDocs(n) => write!(f, "{n} documents exceed the limit of {}", DocId::MAX),
        }
    }
}

impl std::error::Error for Error {}

/// Jaccard of two documents; `None` when both are empty (0 / 0: two empty
/// documents are never reported as a pair).
pub fn jaccard(a: &DocSet, b: &DocSet) -> Option<f64> {
    let c = intersection_size(a.ids(), b.ids());
    let union = a.len() + b.len() - c;
    (union > 0).then(|| c as f64 / union as f64)
}

/// The reference: every pair scored by a sorted merge, O(n^2). For tests
/// and small inputs.
///
/// # Errors
/// On a threshold outside (0, 1] or too many documents.
pub fn brute_force(docs: &[DocSet], threshold: f64) -> Result<Vec<Pair>, Error> {
    check(docs, threshold)?;
    let mut out = Vec::new();
    for (i, a) in docs.iter().enumerate() {
        for (j, b) in docs.iter().enumerate().skip(i + 1) {
            let c = intersection_size(a.ids(), b.ids());
            let union = a.len() + b.len() - c;
            if union > 0 && c as f64 / union as f64 >= threshold {
                out.push(Pair {
                    a: i as DocId,
                    b: j as DocId,
                    shared: c as u32,
                    jaccard: c as f64 / union as f64,
                });
            }
        }
    }
    Ok(out)
}

fn check(docs: &[DocSet], threshold: f64) -> Result<(), Error> {
    if !(threshold > 0.0 && threshold <= 1.0) {
        return Err(Error::Threshold(threshold));
    }
    if DocId::try_from(docs.len()).is_err() {
        return Err(Error::TooManyDocs(docs.len()));
    }
    Ok(())
}

/// The length bound on a pair with lengths `small <= large`: can two sets
/// of these lengths reach `threshold`? Written as the same correctly
/// rounded division as the final Jaccard test: if `c / u >= J` then
/// `small / large >= c / u` in exact arithmetic, and rounding is monotone,
/// so a pair that reaches `J` is never cut by rounding.
#[inline]
fn within(small: u64, large: u64, threshold: f64) -> bool {
    large > 0 && small as f64 / large as f64 >= threshold
}

/// Pairs `(i, j)` with `within(min, max)` among `lengths`, in O(n log n).
fn count_within(lengths: impl Iterator<Item = u64>, threshold: f64) -> u64 {
    let mut sorted: Vec<u64> = lengths.collect();
    sorted.sort_unstable();
    let mut total = 0u64;
    for (i, &small) in sorted.iter().enumerate() {
        let rest = sorted.get(i + 1..).unwrap_or(&[]);
        // `within(small, x)` is monotone (true, then false) over ascending x.
        total += rest.partition_point(|&large| within(small, large, threshold)) as u64;
    }
    total
}

/// Azgomi et al.'s algorithm as published (their Figure 1), without an
/// index: sort documents by length (set length, or the repetition-weighted
/// length when `weighted`), compare each document by a sorted merge with
/// every later one inside the length window, keep pairs >= `threshold`.
/// Returns the pairs (sorted by `(a, b)`) and the number of comparisons.
/// Exact when `weighted` is false; with `weighted` it may lose pairs (see
/// the crate documentation).
///
/// # Errors
/// On a threshold outside (0, 1] or too many documents.
pub fn length_scan(
    docs: &[DocSet],
    threshold: f64,
    weighted: bool,
) -> Result<(Vec<Pair>, u64), Error> {
    check(docs, threshold)?;
    let key = |d: &DocSet| {
        if weighted {
            d.weighted_len()
        } else {
            d.len() as u64
        }
    };
    let mut order: Vec<(u64, DocId)> = docs
        .iter()
        .enumerate()
        .map(|(i, d)| (key(d), i as DocId))
        .collect();
    order.sort_unstable();
    let per_doc: Vec<(Vec<Pair>, u64)> = (0..order.len())
        .into_par_iter()
        .map(|x| {
            let mut pairs = Vec::new();
            let mut comparisons = 0u64;
            let Some(&(kx, ix)) = order.get(x) else {
                return (pairs, 0);
            };
            let Some(dx) = docs.get(ix as usize) else {
                return (pairs, 0);
            };
            for &(ky, iy) in order.get(x + 1..).unwrap_or(&[]) {
                if !within(kx, ky, threshold) {
                    break;
                }
                let Some(dy) = docs.get(iy as usize) else {
                    continue;
                };
                comparisons += 1;
                let c = intersection_size(dx.ids(), dy.ids());
                let union = dx.len() + dy.len() - c;
                let score = c as f64 / union as f64;
                if union > 0 && score >= threshold {
                    pairs.push(Pair {
                        a: ix.min(iy),
                        b: ix.max(iy),
                        shared: c as u32,
                        jaccard: score,
                    });
                }
            }
            (pairs, comparisons)
        })
        .collect();
    let comparisons = per_doc.iter().map(|p| p.1).sum();
    let mut pairs: Vec<Pair> = per_doc.into_iter().flat_map(|p| p.0).collect();
    pairs.sort_unstable_by_key(|p| (p.a, p.b));
    Ok((pairs, comparisons))
}

/// Number of shingle-id partitions the inverted index is built in: bounds
/// the transient (shingle, doc) buffer to about 1/PARTITIONS of all postings.
const PARTITIONS: u64 = 16;

/// The inverted index of shingles occurring in two or more documents, in
/// compressed-row form both ways.
struct Index {
    /// postings of kept shingle k: `docs[offsets[k]..offsets[k + 1]]`,
    /// internal doc numbers ascending.
    offsets: Vec<usize>,
    docs: Vec<DocId>,
    /// kept shingles of internal doc x: `forward[fwd_offsets[x]..fwd_offsets[x + 1]]`.
    fwd_offsets: Vec<usize>,
    forward: Vec<u32>,
    postings: u64,
    shingles: u64,
}

/// Builds the index over `docs` taken in `order` (internal number ->
/// input index), partition by partition of the shingle-id space.
fn build_index(docs: &[DocSet], order: &[DocId]) -> Index {
    let n = order.len();
    let mut offsets = vec![0usize];
    let mut postings_docs: Vec<DocId> = Vec::new();
    // (internal doc, kept shingle) pairs, to turn into the forward lists.
    let mut doc_shingle: Vec<(DocId, u32)> = Vec::new();
    let mut postings = 0u64;
    let mut shingles = 0u64;
    let shift = 64 - PARTITIONS.trailing_zeros();
    // Where each document's next partition starts: ids are sorted, so a
    // cursor walks each set once over all partitions (no binary searches
    // into cold memory).
    let mut cursors = vec![0usize; n];
    for p in 0..PARTITIONS {
        let mut buf: Vec<(u64, DocId)> = order
            .par_iter()
            .zip(cursors.par_iter_mut())
            .enumerate()
            .flat_map_iter(|(x, (&orig, cursor))| {
                let ids = docs.get(orig as usize).map_or(&[][..], DocSet::ids);
                let rest = ids.get(*cursor..).unwrap_or(&[]);
                let len = rest.iter().take_while(|&&id| (id >> shift) == p).count();
                *cursor += len;
                rest.get(..len)
                    .unwrap_or(&[])
                    .iter()
                    .map(move |&id| (id, x as DocId))
            })
            .collect();
        buf.par_sort_unstable();
        postings += buf.len() as u64;
        let mut i = 0;
        while let Some(&(id, _)) = buf.get(i) {
            let run = buf
                .get(i..)
                .map_or(0, |r| r.iter().take_while(|e| e.0 == id).count());
            shingles += 1;
            if run >= 2 {
                let k = (offsets.len() - 1) as u32;
                for &(_, x) in buf.get(i..i + run).unwrap_or(&[]) {
                    postings_docs.push(x);
                    doc_shingle.push((x, k));
                }
                offsets.push(postings_docs.len());
            }
            i += run.max(1);
        }
    }
    doc_shingle.par_sort_unstable();
    let mut fwd_offsets = Vec::with_capacity(n + 1);
    fwd_offsets.push(0);
    let mut j = 0;
    for x in 0..n {
        while doc_shingle.get(j).is_some_and(|e| e.0 as usize == x) {
            j += 1;
        }
        fwd_offsets.push(j);
    }
    let forward = doc_shingle.into_iter().map(|e| e.1).collect();
    Index {
        offsets,
        docs: postings_docs,
        fwd_offsets,
        forward,
        postings,
        shingles,
    }
}

/// Per-document join result.
#[derive(Default)]
struct Partial {
    pairs: Vec<Pair>,
    joined: u64,
    joined_length: u64,
    joined_weighted: u64,
    verified: u64,
    lost: u64,
}

/// Every pair of `docs` with Jaccard >= `options.threshold`, exactly
/// (unless the filter is [`LengthFilter::Weighted`], which may lose pairs),
/// sorted by `(a, b)`, with the stage counters.
///
/// # Errors
/// On a threshold outside (0, 1] or more than `u32::MAX` documents.
pub fn all_pairs(docs: &[DocSet], options: &Options) -> Result<Outcome, Error> {
    let j = options.threshold;
    check(docs, j)?;
    let n = docs.len();
    let set_len = |d: &DocSet| d.len() as u64;
    let key = |d: &DocSet| match options.filter {
        LengthFilter::Weighted => d.weighted_len(),
        LengthFilter::None | LengthFilter::Set => d.len() as u64,
    };
    // Internal numbering: ascending key, ties by input index, so "y after
    // x" means key(y) >= key(x) and each pair is met once, from its smaller
    // member.
    let mut order: Vec<DocId> = (0..n as DocId).collect();
    order.sort_by_key(|&i| (docs.get(i as usize).map_or(0, key), i));
    let doc = |x: DocId| -> &DocSet {
        // Internal numbers come from `order`, whose entries index `docs`.
        &docs[order[x as usize] as usize]
    };
    let index = build_index(docs, &order);
    let windowed = options.filter != LengthFilter::None && !options.count_unfiltered;

    let partials: Vec<Partial> = (0..n as DocId)
        .into_par_iter()
        // Each split allocates an n-sized counter array: keep splits few.
        .with_min_len(256)
        .map_init(
            || (vec![0u32; n], Vec::<DocId>::new()),
            |(counts, touched), x| {
                let dx = doc(x);
                let kx = key(dx);
                let fwd = index
                    .forward
                    .get(index.fwd_offsets[x as usize]..index.fwd_offsets[x as usize + 1])
                    .unwrap_or(&[]);
                for &k in fwd {
                    let list = index
                        .docs
                        .get(index.offsets[k as usize]..index.offsets[k as usize + 1])
                        .unwrap_or(&[]);
                    let start = list.partition_point(|&y| y <= x);
                    for &y in list.get(start..).unwrap_or(&[]) {
                        // Lists ascend in key order: once past the window,
                        // every later document is too.
                        if windowed && !within(kx, key(doc(y)), j) {
                            break;
                        }
                        let c = &mut counts[y as usize];
                        if *c == 0 {
                            touched.push(y);
                        }
                        *c += 1;
                    }
                }
                let mut part = Partial::default();
                touched.sort_unstable();
                for &y in touched.iter() {
                    let c = std::mem::take(&mut counts[y as usize]);
                    let dy = doc(y);
                    part.joined += 1;
                    let (ls, ll) = (set_len(dx).min(set_len(dy)), set_len(dx).max(set_len(dy)));
                    let length_ok = within(ls, ll, j);
                    let weighted_ok = {
                        let (a, b) = (dx.weighted_len(), dy.weighted_len());
                        within(a.min(b), a.max(b), j)
                    };
                    let union = dx.len() + dy.len() - c as usize;
                    let score = c as f64 / union as f64;
                    let reaches = score >= j;
                    if length_ok {
                        part.joined_length += 1;
                        if weighted_ok {
                            part.joined_weighted += 1;
                        } else if reaches {
                            part.lost += 1;
                        }
                    }
                    let verify = match options.filter {
                        LengthFilter::None => true,
                        LengthFilter::Set => length_ok,
                        LengthFilter::Weighted => length_ok && weighted_ok,
                    };
                    if !verify {
                        continue;
                    }
                    part.verified += 1;
                    if reaches {
                        let (a, b) = (order[x as usize], order[y as usize]);
                        part.pairs.push(Pair {
                            a: a.min(b),
                            b: a.max(b),
                            shared: c,
                            jaccard: score,
                        });
                    }
                }
                touched.clear();
                part
            },
        )
        .collect();

    let mut counters = Counters {
        docs: n as u64,
        all_pairs: (n as u64) * (n as u64).saturating_sub(1) / 2,
        length_pairs: count_within(docs.iter().map(set_len), j),
        weighted_pairs: count_within(docs.iter().map(DocSet::weighted_len), j),
        postings: index.postings,
        postings_kept: index.docs.len() as u64,
        shingles: index.shingles,
        shingles_kept: (index.offsets.len() - 1) as u64,
        ..Counters::default()
    };
    let mut pairs = Vec::new();
    let (mut joined, mut joined_length, mut joined_weighted, mut lost) = (0, 0, 0, 0);
    for p in partials {
        joined += p.joined;
        joined_length += p.joined_length;
        joined_weighted += p.joined_weighted;
        lost += p.lost;
        counters.verified += p.verified;
        pairs.extend(p.pairs);
    }
    let full = !windowed;
    counters.joined = full.then_some(joined);
    counters.joined_length = (full || options.filter == LengthFilter::Set).then_some(joined_length);
    if options.filter == LengthFilter::Weighted {
        counters.joined_weighted = Some(joined_weighted);
        counters.lost_by_weighted = full.then_some(lost);
    }
    pairs.par_sort_unstable_by_key(|p| (p.a, p.b));
    counters.output = pairs.len() as u64;
    Ok(Outcome { pairs, counters })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weighted_length_follows_the_formula() {
        // ids 1 (x3), 5 (x1), 9 (x2): 1*3 + 2*1 + 3*2 = 11.
        let d = DocSet::from_shingles(vec![9, 1, 5, 1, 9, 1]);
        assert_eq!(d.ids(), &[1, 5, 9]);
        assert_eq!(d.weighted_len(), 11);
        // Without repetition: 1 + 2 + ... + L.
        assert_eq!(DocSet::from_set(0..10).weighted_len(), 55);
    }

    #[test]
    fn the_weighted_bound_is_not_sound() {
        // A 90-shingle set inside a 100-shingle set: Jaccard 0.9, set
        // lengths 90/100 = 0.9 pass, weighted 4095/5050 < 0.9 does not.
        let docs = vec![DocSet::from_set(0..90), DocSet::from_set(0..100)];
        let opts = |filter| Options {
            threshold: 0.9,
            filter,
            count_unfiltered: true,
        };
        let set = all_pairs(&docs, &opts(LengthFilter::Set)).map(|o| o.pairs.len());
        assert_eq!(set, Ok(1));
        let weighted = all_pairs(&docs, &opts(LengthFilter::Weighted));
        let weighted = weighted.map(|o| (o.pairs.len(), o.counters.lost_by_weighted));
        assert_eq!(weighted, Ok((0, Some(1))));
    }

    #[test]
    fn short_documents_become_one_shingle() {
        let a = shingle_ids(&["x", "y"], 5);
        assert_eq!(a.len(), 1);
        assert_eq!(a, shingle_ids(&["x", "y"], 3));
        assert_ne!(a, shingle_ids(&["xy"], 5));
        assert!(shingle_ids::<&str>(&[], 5).is_empty());
        assert_eq!(shingle_ids(&["a", "b", "c", "d"], 2).len(), 3);
    }

    #[test]
    fn bad_threshold_is_an_error() {
        for j in [0.0, -0.5, 1.5, f64::NAN] {
            assert!(all_pairs(
                &[],
                &Options {
                    threshold: j,
                    ..Options::default()
                }
            )
            .is_err());
        }
    }
}
