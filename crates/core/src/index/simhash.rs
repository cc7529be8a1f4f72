//! SimHash tier: every indexed fingerprint within Hamming distance `k` of a
//! query, through blocked tables (Manku, Jain, Das Sarma, "Detecting
//! near-duplicates for web crawling", WWW 2007). Never a linear scan.
//!
//! # Table design
//!
//! The 64 bits are cut into `k + 1` contiguous blocks (sizes differ by at
//! most one bit: 16/16/16/16 for `k = 3`, 13/13/13/13/12 for `k = 4`). Two
//! fingerprints within `k` bits differ in at most `k` blocks, so by the
//! pigeonhole principle they agree exactly on at least one block. Table `i`
//! stores every fingerprint rotated so that block `i` is on top, bucketed by
//! the top `a` bits of that rotation (`a` = [`ADDR_BITS`] = 16 at first); a
//! query visits, in each table, only the buckets that agree with its own
//! block `i`:
//!
//! * block >= `a` bits (`k <= 3`): one bucket per table (the other bits of a
//!   wider block are checked while scanning);
//! * block < `a` bits (`k >= 4`): the `2^(a - block)` consecutive buckets
//!   that share the block, i.e. all entries that agree on it.
//!
//! Each entry of a visited bucket is checked with a cheap "at most `k` set
//! bits" filter on the XOR. A fingerprint that agrees with the query on
//! several blocks sits in several visited buckets; it is reported only from
//! the table of the *first* block it agrees on, so every match is reported
//! exactly once without a hash set. Results are sorted by (distance, id).
//!
//! Tables whose block is wider than 16 bits (`k <= 2`) double their
//! directory when buckets average more than [`SPLIT_AT`] = 64 entries, up to
//! the smaller of the block width and [`MAX_ADDR_BITS`] = 20 bits. Address bits beyond the block
//! would not help (a query must visit every bucket agreeing on the block),
//! so for `k >= 3` the scan length is fixed by the block width: `(k + 1) *
//! n / 2^block` entries.
//!
//! # Memory
//!
//! An entry is `[u16; 5]` = 10 bytes: the 48 rotated fingerprint bits below
//! the top 16 (those are implied by the bucket and not stored again) and
//! the `u32` id. With `k + 1` tables that is `10 (k + 1)` bytes per page,
//! 40 B for `k = 3`. Buckets grow by 1/8 of their length (at least 4
//! entries) instead of doubling, so the growth slack is about 6% instead of
//! about 40%; removal shrinks a bucket that falls under half its capacity.
//! The directory (`2^16` bucket headers of 24 B per table, 6.3 MB for
//! `k = 3`) is allocated on the first insert: 0.6 B per page at 10 M pages,
//! but it dominates small indexes (an index of one page holds 6.3 MB).
//! `heap_bytes` counts capacities, not the allocator's per-block headers
//! (one per bucket: ~16 B x 262 144 = 4 MB for `k = 3`).
//!
//! Measured with `cargo bench --bench index` (10 M uniformly random
//! fingerprints, `k = 3`, 2-core machine shared with other jobs):
//! **42.9 bytes per page**; query + insert median 3.1 µs (criterion), p50
//! 3.1 µs / p99 5.7 µs individually timed, of which the query is 3.0 µs
//! (scanning 4 x ~150 entries, ~6 KB) and the insert 40 ns (p99 2.2 µs when
//! a bucket reallocates).
//!
//! # Trade-offs (tables vs key bits vs bucket size)
//!
//! With `t` tables keyed by `b` bits, a query scans about `t * n / 2^b`
//! entries and memory is `t` entries per page. Manku et al. buy more key
//! bits with more tables (for `k = 3`: 5 blocks choose 2 = 10 tables keyed
//! by about 25 bits, scanning 10 * 10M / 2^25 = 3 entries but costing 10
//! entries, ~100 B, of memory per page). Here memory is the binding budget
//! (<= 64 B per page), so `k + 1` tables keyed by their block: at 10 M
//! pages and `k = 3` a query scans 4 buckets of about 150 entries. Scan
//! cost grows linearly with `n`: ~6 000 entries (~30 µs, extrapolated) at 100 M pages,
//! where more tables would pay off. For `k >= 4` blocks are narrower than
//! 16 bits: ~6 000 entries at 10 M for `k = 4` (13-bit blocks), ~300 000
//! for `k = 7` (8-bit blocks); large `k` needs the "choose 2 of `k + 2`
//! blocks" tables, which this module does not build. A directory of more
//! address bits was tried for `k = 3` (18 bits): the same 600 entries spread
//! over 16 buckets instead of 4 made queries 2.5x slower.

use neardup_api::{CandidateIndex, DocId, Signature};

/// Largest supported Hamming distance; larger values given to
/// [`SimhashIndex::new`] are clamped to it.
pub const MAX_DISTANCE: u32 = 7;

/// Bits of the rotated fingerprint that address a bucket in a new table;
/// an entry stores the other 48, so the directory never has fewer bits.
pub const ADDR_BITS: u32 = 16;

/// Largest directory: 2^20 buckets per table (100 MB for `k = 3`, worth it
/// from about 64 M pages on).
pub const MAX_ADDR_BITS: u32 = 20;

/// Average bucket length above which every table doubles its directory.
pub const SPLIT_AT: usize = 64;

/// Mask of the rotated fingerprint bits stored in an entry.
const RESIDUAL_MASK: u64 = (1 << (64 - ADDR_BITS)) - 1;

/// 48 residual fingerprint bits (high to low) then the id (high, low).
/// `u16` words keep the entry at 10 bytes with alignment 2.
type Entry = [u16; 5];

fn pack(residual: u64, id: DocId) -> Entry {
    [
        (residual >> 32) as u16,
        (residual >> 16) as u16,
        residual as u16,
        (id >> 16) as u16,
        id as u16,
    ]
}

fn entry_residual(e: &Entry) -> u64 {
    (u64::from(e[0]) << 32) | (u64::from(e[1]) << 16) | u64::from(e[2])
}

fn entry_id(e: &Entry) -> DocId {
    (u32::from(e[3]) << 16) | u32::from(e[4])
}

/// One table: all fingerprints, rotated so that its block is on top.
#[derive(Debug)]
struct Table {
    /// Left rotation that brings this table's block to the top bits.
    rot: u32,
    /// Width of this table's block.
    block_bits: u32,
    /// Top bits of the rotated fingerprint that address a bucket, in
    /// `ADDR_BITS..=MAX_ADDR_BITS` (grows with the index).
    addr_bits: u32,
    /// `2^addr_bits` buckets once anything was inserted, empty before (an
    /// empty index costs nothing).
    buckets: Vec<Vec<Entry>>,
}

impl Table {
    /// Range of bucket addresses whose top `block_bits` agree with the
    /// (rotated) query.
    fn bucket_range(&self, rotated: u64) -> std::ops::Range<usize> {
        let addr = self.addr(rotated);
        if self.block_bits >= self.addr_bits {
            addr..addr + 1
        } else {
            let free = self.addr_bits - self.block_bits;
            let lo = (addr >> free) << free;
            lo..lo + (1 << free)
        }
    }

    /// Bucket address of a rotated fingerprint.
    fn addr(&self, rotated: u64) -> usize {
        (rotated >> (64 - self.addr_bits)) as usize
    }

    /// Doubles the directory: each bucket splits on the next address bit,
    /// which entries store (it is below the top 16 bits). O(n) once per
    /// doubling of the index, amortized O(1) per insert; buckets come out
    /// without slack.
    fn split(&mut self) {
        let bit = 63 - self.addr_bits;
        let mut next = Vec::with_capacity(self.buckets.len() * 2);
        for old in std::mem::take(&mut self.buckets) {
            let ones = old
                .iter()
                .filter(|e| (entry_residual(e) >> bit) & 1 == 1)
                .count();
            let mut lo = Vec::with_capacity(old.len() - ones);
            let mut hi = Vec::with_capacity(ones);
            for e in old {
                if (entry_residual(&e) >> bit) & 1 == 1 {
                    hi.push(e);
                } else {
                    lo.push(e);
                }
            }
            next.push(lo);
            next.push(hi);
        }
        self.buckets = next;
        self.addr_bits += 1;
    }
}

/// Finds all indexed fingerprints within a Hamming distance of a query.
///
/// Precondition (from [`CandidateIndex`]): each id is inserted once and
/// removed with the signature it was inserted with.
#[derive(Debug)]
pub struct SimhashIndex {
    /// The `k` of "within `k` bits", in `0..=MAX_DISTANCE`.
    max_distance: u32,
    /// One table per block (`k + 1`).
    tables: Vec<Table>,
    /// Each block's bits in unrotated fingerprint coordinates, to find the
    /// first block a match agrees on (the table that reports it).
    block_masks: Vec<u64>,
    /// Number of entries per table (= documents).
    len: usize,
    /// Average bucket length that triggers a directory split.
    split_at: usize,
}

/// The blocks of `fingerprint` as an index answering within `max_distance`
/// bits splits it (clamped to [`MAX_DISTANCE`]): `max_distance + 1` blocks,
/// most significant first, each as its bits shifted down. Two fingerprints
/// within `max_distance` bits agree on at least one block (pigeonhole).
pub fn blocks_of(max_distance: u32, fingerprint: u64) -> Vec<u64> {
    let blocks = max_distance.min(MAX_DISTANCE) + 1;
    let (base, extra) = (64 / blocks, 64 % blocks);
    let mut out = Vec::with_capacity(blocks as usize);
    let mut start = 0;
    for i in 0..blocks {
        let bits = base + u32::from(i < extra);
        let shifted = fingerprint.checked_shr(64 - start - bits).unwrap_or(0);
        out.push(shifted & (u64::MAX >> (64 - bits)));
        start += bits;
    }
    out
}

impl SimhashIndex {
    /// An empty index answering queries within `max_distance` bits
    /// (clamped to `MAX_DISTANCE`).
    pub fn new(max_distance: u32) -> SimhashIndex {
        let k = max_distance.min(MAX_DISTANCE);
        let blocks = k + 1;
        let (base, extra) = (64 / blocks, 64 % blocks);
        let mut tables = Vec::with_capacity(blocks as usize);
        let mut block_masks = Vec::with_capacity(blocks as usize);
        let mut start = 0;
        for i in 0..blocks {
            let bits = base + u32::from(i < extra);
            // Bits [start, start + bits) counted from the most significant.
            let upper = u64::MAX >> start;
            let lower = u64::MAX.checked_shr(start + bits).unwrap_or(0);
            block_masks.push(upper & !lower);
            tables.push(Table {
                rot: start,
                block_bits: bits,
                addr_bits: ADDR_BITS,
                buckets: Vec::new(),
            });
            start += bits;
        }
        SimhashIndex {
            max_distance: k,
            tables,
            block_masks,
            len: 0,
            split_at: SPLIT_AT,
        }
    }

    /// The Hamming distance this index answers (after clamping).
    pub fn max_distance(&self) -> u32 {
        self.max_distance
    }

    /// Index of the first block on which `diff` (query XOR fingerprint) is
    /// zero, if any.
    fn first_agreeing_block(&self, diff: u64) -> Option<usize> {
        self.block_masks.iter().position(|m| diff & m == 0)
    }

    /// Ids within `max_distance` of `fp` as `(distance << 32) | id`, sorted.
    fn matches(&self, fp: u64, found: &mut Vec<u64>) {
        // Touch each table's first bucket (header, then data) before
        // scanning: the loads of different tables are independent, so their
        // cache misses overlap instead of being taken one table at a time.
        let mut touch = 0u64;
        for table in &self.tables {
            let addr = table.bucket_range(fp.rotate_left(table.rot)).start;
            touch ^= table.buckets.get(addr).map_or(0, |b| b.len() as u64);
        }
        for table in &self.tables {
            let addr = table.bucket_range(fp.rotate_left(table.rot)).start;
            touch ^= table
                .buckets
                .get(addr)
                .and_then(|b| b.first())
                .map_or(0, |e| u64::from(e[0]));
        }
        std::hint::black_box(touch);
        // One monomorphized scan per k: the filter loop unrolls.
        match self.max_distance {
            0 => self.scan::<0>(fp, found),
            1 => self.scan::<1>(fp, found),
            2 => self.scan::<2>(fp, found),
            3 => self.scan::<3>(fp, found),
            4 => self.scan::<4>(fp, found),
            5 => self.scan::<5>(fp, found),
            6 => self.scan::<6>(fp, found),
            _ => self.scan::<7>(fp, found),
        }
        found.sort_unstable();
    }

    /// Scans the visited buckets of every table for entries within `K`
    /// bits, reporting each from the first block it agrees on.
    fn scan<const K: u32>(&self, fp: u64, found: &mut Vec<u64>) {
        for (i, table) in self.tables.iter().enumerate() {
            let rotated = fp.rotate_left(table.rot);
            for addr in table.bucket_range(rotated) {
                let Some(bucket) = table.buckets.get(addr) else {
                    continue;
                };
                // XOR of the query with this bucket's implied address bits.
                // (Its top 16 bits: the entry holds the rest.)
                let prefix = (addr >> (table.addr_bits - ADDR_BITS)) as u64;
                let base = (prefix << (64 - ADDR_BITS)) ^ rotated;
                for e in bucket {
                    let diff = base ^ entry_residual(e);
                    if at_most::<K>(diff)
                        && self.first_agreeing_block(diff.rotate_right(table.rot)) == Some(i)
                    {
                        let d = u64::from(diff.count_ones());
                        found.push((d << 32) | u64::from(entry_id(e)));
                    }
                }
            }
        }
    }
}

/// Returns true if and only if `x` has at most `K` set bits, by clearing
/// the lowest set bit `K` times (2 ops each). The baseline x86-64 target
/// has no POPCNT instruction, so `count_ones` is a ~12-op bit trick; this
/// filter is cheaper for `K <= 5` and the exact count is taken only for the
/// rare survivors.
#[inline(always)]
fn at_most<const K: u32>(mut x: u64) -> bool {
    for _ in 0..K {
        x &= x.wrapping_sub(1);
    }
    x == 0
}

/// Appends with a small growth step (1/8, at least 4) so that buckets carry
/// ~6% slack instead of the ~40% of doubling; amortized O(1) still.
fn push_tight(v: &mut Vec<Entry>, e: Entry) {
    if v.len() == v.capacity() {
        v.reserve_exact((v.len() / 8).max(4));
    }
    v.push(e);
}

impl CandidateIndex for SimhashIndex {
    /// Appends the ids within `max_distance` bits of a fingerprint, nearest
    /// first, ties by lower id. Other signature kinds give nothing.
    fn candidates(&self, sig: &Signature, out: &mut Vec<DocId>) {
        let Signature::Fingerprint(fp) = sig else {
            return;
        };
        let mut found = Vec::new();
        self.matches(*fp, &mut found);
        out.extend(found.into_iter().map(|x| x as DocId));
    }

    fn insert(&mut self, id: DocId, sig: &Signature) {
        let Signature::Fingerprint(fp) = sig else {
            return;
        };
        for table in &mut self.tables {
            if table.buckets.is_empty() {
                table.buckets = (0..1usize << table.addr_bits).map(|_| Vec::new()).collect();
            }
            let rotated = fp.rotate_left(table.rot);
            let addr = table.addr(rotated);
            if let Some(bucket) = table.buckets.get_mut(addr) {
                push_tight(bucket, pack(rotated & RESIDUAL_MASK, id));
            }
        }
        self.len += 1;
        for table in &mut self.tables {
            // Address bits beyond the block do not narrow the scan (a query
            // visits every bucket that agrees on the block), so only tables
            // with wide blocks (`k <= 2`) split.
            let cap = MAX_ADDR_BITS.min(table.block_bits);
            if table.addr_bits < cap && self.len > self.split_at << table.addr_bits {
                table.split();
            }
        }
    }

    fn remove(&mut self, id: DocId, sig: &Signature) {
        let Signature::Fingerprint(fp) = sig else {
            return;
        };
        let mut removed = false;
        for table in &mut self.tables {
            let rotated = fp.rotate_left(table.rot);
            let addr = table.addr(rotated);
            let Some(bucket) = table.buckets.get_mut(addr) else {
                continue;
            };
            let want = pack(rotated & RESIDUAL_MASK, id);
            if let Some(pos) = bucket.iter().position(|e| *e == want) {
                // Order inside a bucket is irrelevant: results are sorted.
                bucket.swap_remove(pos);
                removed = true;
                if bucket.capacity() > 2 * bucket.len() + 8 {
                    bucket.shrink_to(bucket.len() + bucket.len() / 8);
                }
            }
        }
        if removed {
            self.len = self.len.saturating_sub(1);
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    fn heap_bytes(&self) -> usize {
        self.tables
            .iter()
            .map(|t| {
                t.buckets.capacity() * std::mem::size_of::<Vec<Entry>>()
                    + t.buckets
                        .iter()
                        .map(|b| b.capacity() * std::mem::size_of::<Entry>())
                        .sum::<usize>()
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn query(idx: &SimhashIndex, fp: u64) -> Vec<DocId> {
        let mut out = Vec::new();
        idx.candidates(&Signature::Fingerprint(fp), &mut out);
        out
    }

    /// The specification, computed the slow way.
    fn brute_force(fps: &[(DocId, u64)], q: u64, k: u32) -> Vec<DocId> {
        let mut v: Vec<(u32, DocId)> = fps
            .iter()
            .filter(|(_, f)| (f ^ q).count_ones() <= k)
            .map(|(id, f)| ((f ^ q).count_ones(), *id))
            .collect();
        v.sort_unstable();
        v.into_iter().map(|(_, id)| id).collect()
    }

    /// Flips `n` distinct bits chosen by `seed`.
    fn flip(fp: u64, n: u32, seed: u64) -> u64 {
        let mut rng = neardup_api::SplitMix64::new(seed);
        let mut out = fp;
        let mut flipped = 0;
        while flipped < n {
            let bit = 1u64 << (rng.next_u64() >> 58);
            if (out ^ fp) & bit == 0 {
                out ^= bit;
                flipped += 1;
            }
        }
        out
    }

    /// The index laws (`neardup_api::conformance::check_index`) at every
    /// distance, on fingerprints in pairs 2 bits apart: a near pair agrees
    /// in several blocks, and is still named once.
    #[test]
    fn obeys_the_index_laws() {
        let mut rng = neardup_api::SplitMix64::new(11);
        let mut sigs = Vec::new();
        for i in 0..12 {
            let fp = rng.next_u64();
            sigs.push(Signature::Fingerprint(fp));
            sigs.push(Signature::Fingerprint(flip(fp, 2, i)));
        }
        for k in 0..=MAX_DISTANCE {
            neardup_api::conformance::check_index(&|| Box::new(SimhashIndex::new(k)), &sigs);
        }
    }

    #[test]
    fn blocks_partition_the_fingerprint() {
        for k in 0..=MAX_DISTANCE {
            let idx = SimhashIndex::new(k);
            assert_eq!(idx.block_masks.len() as u32, k + 1);
            let mut all = 0u64;
            for m in &idx.block_masks {
                assert_eq!(all & m, 0, "k={k}: blocks overlap");
                all |= m;
            }
            assert_eq!(all, u64::MAX, "k={k}: blocks do not cover 64 bits");
        }
    }

    #[test]
    fn finds_near_and_rejects_far() {
        let mut idx = SimhashIndex::new(3);
        let base = 0xDEAD_BEEF_0123_4567u64;
        idx.insert(0, &Signature::Fingerprint(base));
        idx.insert(1, &Signature::Fingerprint(base ^ 0b111)); // 3 bits away
        idx.insert(2, &Signature::Fingerprint(base ^ 0b1111)); // 4 bits away
        idx.insert(3, &Signature::Fingerprint(base ^ (1 << 63))); // 1 bit away
                                                                  // Sorted by distance, then id: 0 (d0), 3 (d1), 1 (d3); 2 is too far.
        assert_eq!(query(&idx, base), vec![0, 3, 1]);
    }

    #[test]
    fn bits_spread_over_all_blocks_are_found() {
        // One flipped bit in each of blocks 1, 2, 3 (k = 3): agrees on block 0 only.
        let mut idx = SimhashIndex::new(3);
        let base = 0x0123_4567_89AB_CDEFu64;
        let far = base ^ (1 << 40) ^ (1 << 20) ^ 1;
        idx.insert(7, &Signature::Fingerprint(far));
        assert_eq!(query(&idx, base), vec![7]);
        // A fourth flipped bit in block 0 puts it out of reach.
        assert_eq!(query(&idx, base ^ (1 << 60)), Vec::<DocId>::new());
    }

    /// Beyond the laws (`obeys_the_index_laws`): removing an id that is not
    /// there, or under another fingerprint, changes nothing.
    #[test]
    fn removing_what_is_not_there_changes_nothing() {
        let mut idx = SimhashIndex::new(3);
        let a = Signature::Fingerprint(0xAAAA_0000_FFFF_1234);
        let b = Signature::Fingerprint(0xAAAA_0000_FFFF_1235);
        idx.insert(1, &b);
        idx.remove(0, &a);
        idx.remove(5, &b);
        idx.remove(1, &a);
        assert_eq!(idx.len(), 1);
        assert_eq!(query(&idx, 0xAAAA_0000_FFFF_1234), vec![1]);
    }

    #[test]
    fn same_fingerprint_twice_returns_both_ids() {
        let mut idx = SimhashIndex::new(2);
        let s = Signature::Fingerprint(42);
        idx.insert(4, &s);
        idx.insert(9, &s);
        assert_eq!(query(&idx, 42), vec![4, 9]);
    }

    #[test]
    fn other_signatures_are_ignored() {
        let mut idx = SimhashIndex::new(3);
        idx.insert(0, &Signature::Set(vec![1, 2]));
        idx.insert(1, &Signature::Empty);
        assert!(idx.is_empty());
        assert_eq!(idx.heap_bytes(), 0);
        let mut out = Vec::new();
        idx.candidates(&Signature::Empty, &mut out);
        assert!(out.is_empty());
    }

    /// Directory splits keep answers exact: a low split threshold forces
    /// 16 -> 19 address bits with 300 000 entries for the wide-block k
    /// (0, 1, 2); k = 3 (16-bit blocks) never splits.
    #[test]
    fn directory_splits_keep_answers_exact() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let fps: Vec<(DocId, u64)> = (0..300_000).map(|i| (i, next())).collect();
        for k in [0, 2, 3] {
            let mut idx = SimhashIndex::new(k);
            idx.split_at = 1;
            for (id, f) in &fps {
                idx.insert(*id, &Signature::Fingerprint(*f));
            }
            let want_bits = if k <= 2 { 19 } else { ADDR_BITS };
            assert!(idx.tables.iter().all(|t| t.addr_bits == want_bits), "k={k}");
            for j in 0..40 {
                let (_, base) = fps[(j * 7919) % fps.len()];
                let q = flip(base, j as u32 % (k + 2), next());
                assert_eq!(query(&idx, q), brute_force(&fps, q, k), "k={k} j={j}");
            }
            // Removal finds entries in split buckets.
            for (id, f) in fps.iter().take(1000) {
                idx.remove(*id, &Signature::Fingerprint(*f));
            }
            assert_eq!(idx.len(), fps.len() - 1000);
            let (_, first) = fps[0];
            assert_eq!(query(&idx, first), brute_force(&fps[1000..], first, k));
        }
    }

    #[test]
    fn large_k_is_clamped() {
        assert_eq!(SimhashIndex::new(40).max_distance(), MAX_DISTANCE);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Exactly the brute-force answer, for random data and for queries
        /// made by flipping 0..=k+1 bits of indexed fingerprints.
        #[test]
        fn matches_brute_force(
            k in 0u32..=MAX_DISTANCE,
            // Few distinct high bits so that many fingerprints share buckets.
            raw in prop::collection::vec(any::<u64>(), 1..200),
            seeds in prop::collection::vec(any::<u64>(), 8),
            mask_high in any::<bool>(),
        ) {
            let fps: Vec<(DocId, u64)> = raw
                .iter()
                .enumerate()
                .map(|(i, f)| (i as DocId, if mask_high { f & 0x00FF_0F0F_00FF_00FF } else { *f }))
                .collect();
            let mut idx = SimhashIndex::new(k);
            for (id, f) in &fps {
                idx.insert(*id, &Signature::Fingerprint(*f));
            }
            prop_assert_eq!(idx.len(), fps.len());
            for (j, seed) in seeds.iter().enumerate() {
                let (_, base) = fps[j % fps.len()];
                for n in 0..=(k + 1) {
                    let q = flip(base, n, seed ^ u64::from(n));
                    prop_assert_eq!(query(&idx, q), brute_force(&fps, q, k));
                }
                prop_assert_eq!(query(&idx, *seed), brute_force(&fps, *seed, k));
            }
            // Remove every other document; answers follow.
            let kept: Vec<(DocId, u64)> = fps
                .iter()
                .copied()
                .filter(|(id, f)| {
                    if id % 2 == 0 {
                        idx.remove(*id, &Signature::Fingerprint(*f));
                        false
                    } else {
                        true
                    }
                })
                .collect();
            prop_assert_eq!(idx.len(), kept.len());
            for (j, seed) in seeds.iter().enumerate() {
                let (_, base) = fps[j % fps.len()];
                for n in 0..=(k + 1) {
                    let q = flip(base, n, seed.rotate_left(7) ^ u64::from(n));
                    prop_assert_eq!(query(&idx, q), brute_force(&kept, q, k));
                }
            }
        }
    }
}
