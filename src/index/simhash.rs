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
//! the top [`ADDR_BITS`] = 16 bits of that rotation; a query visits, in each
//! table, only the buckets whose address agrees with its own block `i`:
//!
//! * block >= 16 bits (`k <= 3`): one bucket per table (the other bits of a
//!   wider block are checked while scanning);
//! * block < 16 bits (`k >= 4`): the `2^(16 - block)` consecutive buckets
//!   that share the block, i.e. all entries that agree on it.
//!
//! Each candidate in a visited bucket is verified with one XOR and popcount.
//! A fingerprint that agrees with the query on several blocks sits in
//! several visited buckets; it is reported only from the table of the
//! *first* block it agrees on, so every match is reported exactly once
//! without a hash set. Results are sorted by (distance, id).
//!
//! # Memory
//!
//! An entry is `[u16; 5]` = 10 bytes: the 48 rotated fingerprint bits below
//! the bucket address (the address bits are implied by the bucket and not
//! stored again) and the `u32` id. With `k + 1` tables that is
//! `10 (k + 1)` bytes per page, 40 B for `k = 3`. Buckets grow by 1/8 of
//! their length (at least 4 entries) instead of doubling, so the growth
//! slack is about 6% on average instead of about 40%; removal shrinks a
//! bucket that falls under half its capacity. The directory (`2^16` bucket
//! headers of 24 B per table, 6.3 MB for `k = 3`) is allocated on the
//! first insert: it is 0.6 B per page at 10 M pages but dominates small
//! indexes (an index of one page holds 6.3 MB).
//!
//! Measured (`cargo bench --bench index`, 10 M uniformly random
//! fingerprints, `k = 3`, see `benches/index.rs`): about 43 bytes per page
//! and a median query + insert of about 1-2 µs (the report of the run is in
//! the branch history and the bench prints its own table).
//!
//! # Trade-offs (tables vs key bits vs bucket size)
//!
//! With `t` tables keyed by `b` bits, a query scans about `t * n / 2^b`
//! entries and memory is `t` entries per page. Manku et al. buy more key
//! bits with more tables (for `k = 3`: 5 blocks choose 2 = 10 tables keyed by
//! about 25 bits, scanning 10 * 10M / 2^25 = 3 entries but costing 10 entries
//! of memory per page). Here memory is the binding budget (<= 64 B per page),
//! so `k + 1` tables with 16-bit keys: at 10 M pages and `k = 3` a query
//! scans 4 buckets of about 150 entries (600 XOR + popcount, ~6 KB of
//! sequential memory), which stays within a few microseconds. Scan cost
//! grows linearly with `n`: at 100 M pages a query scans ~6 000 entries;
//! raise [`ADDR_BITS`] (with a wider entry) before going there. For
//! `k >= 4` blocks are narrower than 16 bits and a query scans
//! `(k + 1) * n / 2^(64 / (k + 1))` entries: fine for `k = 4` (13-bit
//! blocks, ~6 000 entries at 10 M), slow for `k = 7` (8-bit blocks, ~300 000
//! entries at 10 M): large `k` needs more tables (choose 2 of `k + 2` blocks)
//! which this module does not build.

use neardup_api::{CandidateIndex, DocId, Signature};

/// Largest supported Hamming distance; larger values given to
/// [`SimhashIndex::new`] are clamped to it.
pub const MAX_DISTANCE: u32 = 7;

/// Bits of the rotated fingerprint that address a bucket.
pub const ADDR_BITS: u32 = 16;

/// Buckets per table.
const BUCKETS: usize = 1 << ADDR_BITS;

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
    /// `BUCKETS` buckets once anything was inserted, empty before (an empty
    /// index costs nothing).
    buckets: Vec<Vec<Entry>>,
}

impl Table {
    /// Range of bucket addresses whose top `block_bits` agree with the
    /// (rotated) query.
    fn bucket_range(&self, rotated: u64) -> std::ops::Range<usize> {
        let addr = (rotated >> (64 - ADDR_BITS)) as usize;
        if self.block_bits >= ADDR_BITS {
            addr..addr + 1
        } else {
            let free = ADDR_BITS - self.block_bits;
            let lo = (addr >> free) << free;
            lo..lo + (1 << free)
        }
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
}

impl SimhashIndex {
    /// An empty index answering queries within `max_distance` bits
    /// (clamped to [`MAX_DISTANCE`]).
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
                buckets: Vec::new(),
            });
            start += bits;
        }
        SimhashIndex {
            max_distance: k,
            tables,
            block_masks,
            len: 0,
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
        for (i, table) in self.tables.iter().enumerate() {
            let rotated = fp.rotate_left(table.rot);
            for addr in table.bucket_range(rotated) {
                let Some(bucket) = table.buckets.get(addr) else {
                    continue;
                };
                // XOR of the query with this bucket's implied address bits.
                let base = ((addr as u64) << (64 - ADDR_BITS)) ^ rotated;
                for e in bucket {
                    let diff = base ^ entry_residual(e);
                    let d = diff.count_ones();
                    if d <= self.max_distance
                        && self.first_agreeing_block(diff.rotate_right(table.rot)) == Some(i)
                    {
                        found.push((u64::from(d) << 32) | u64::from(entry_id(e)));
                    }
                }
            }
        }
        found.sort_unstable();
    }
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
                table.buckets = (0..BUCKETS).map(|_| Vec::new()).collect();
            }
            let rotated = fp.rotate_left(table.rot);
            let addr = (rotated >> (64 - ADDR_BITS)) as usize;
            if let Some(bucket) = table.buckets.get_mut(addr) {
                push_tight(bucket, pack(rotated & RESIDUAL_MASK, id));
            }
        }
        self.len += 1;
    }

    fn remove(&mut self, id: DocId, sig: &Signature) {
        let Signature::Fingerprint(fp) = sig else {
            return;
        };
        let mut removed = false;
        for table in &mut self.tables {
            let rotated = fp.rotate_left(table.rot);
            let addr = (rotated >> (64 - ADDR_BITS)) as usize;
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
    fn flip(fp: u64, n: u32, mut seed: u64) -> u64 {
        let mut out = fp;
        let mut flipped = 0;
        while flipped < n {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let bit = 1u64 << (seed >> 58);
            if (out ^ fp) & bit == 0 {
                out ^= bit;
                flipped += 1;
            }
        }
        out
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

    #[test]
    fn insert_remove_reinsert() {
        let mut idx = SimhashIndex::new(3);
        let a = Signature::Fingerprint(0xAAAA_0000_FFFF_1234);
        let b = Signature::Fingerprint(0xAAAA_0000_FFFF_1235);
        idx.insert(0, &a);
        idx.insert(1, &b);
        assert_eq!(idx.len(), 2);
        idx.remove(0, &a);
        assert_eq!(idx.len(), 1);
        assert_eq!(query(&idx, 0xAAAA_0000_FFFF_1234), vec![1]);
        // Removing an id that is not there changes nothing.
        idx.remove(0, &a);
        idx.remove(5, &b);
        assert_eq!(idx.len(), 1);
        assert_eq!(query(&idx, 0xAAAA_0000_FFFF_1234), vec![1]);
        idx.insert(2, &a);
        assert_eq!(query(&idx, 0xAAAA_0000_FFFF_1234), vec![2, 1]);
        idx.remove(1, &b);
        idx.remove(2, &a);
        assert!(idx.is_empty());
        assert_eq!(query(&idx, 0xAAAA_0000_FFFF_1234), Vec::<DocId>::new());
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
