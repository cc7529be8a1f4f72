//! Content-defined chunking with a gear hash rolled over the whole text.
//!
//! The hash is updated once per byte, `h = (h << 1) + GEAR[byte]`, from the
//! first byte of the text to the last; it is never reset at a chunk start.
//! Because of the shift, bit `k` of `h` depends only on the last `k + 1`
//! bytes, so a test on bits below `window` depends only on the last `window`
//! bytes. A position is a *cut point* when the `mask_bits(avg)` highest of
//! those bits are zero: the set of cut points is a property of the local
//! content, not of where chunking started. `min_size` and `max_size` only
//! choose among cut points (the first cut point at least `min_size` after the
//! previous cut; a forced cut at `max_size`), so after an edit the chunks
//! resynchronize at the first cut point past it.
//!
//! Why not restart the hash at each chunk (the usual FastCDC speed trick):
//! at an average of 32 bytes that loses resynchronization and, on the dev
//! benchmark, cost pairF1 0.958 -> 0.825 (`detection-findings.md`).

/// Seed of the gear table. Changing it changes every chunk boundary and so
/// invalidates stored chunk signatures.
const GEAR_SEED: u64 = 0x6765_6172_6e64_7570; // "gearndup"

/// One pseudo-random 64-bit value per byte value, fixed at compile time
/// (splitmix64 from a fixed seed) so boundaries are identical on every run,
/// platform and version.
pub static GEAR: [u64; 256] = gear_table(GEAR_SEED);

const fn gear_table(seed: u64) -> [u64; 256] {
    let mut table = [0u64; 256];
    let mut state = seed;
    let mut i = 0;
    while i < 256 {
        // splitmix64: well-mixed, and trivial to reproduce elsewhere.
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        table[i] = z ^ (z >> 31);
        i += 1;
    }
    table
}

/// Hash bits tested per position for a target average of `avg_size` bytes:
/// `round(log2(avg_size))`, at least 1, at most 63. A position is a cut
/// point with probability `2^-bits`.
pub fn mask_bits(avg_size: usize) -> u32 {
    let avg = avg_size.max(2) as f64;
    (avg.log2().round() as u32).clamp(1, 63)
}

/// Gear-hash chunking parameters, clamped to workable values so that no
/// setting can panic (validated configs never need the clamping).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GearChunker {
    /// Bits of the hash that must be zero at a cut point.
    mask: u64,
    /// Smallest chunk, except the last one of a text.
    min_size: usize,
    /// Largest chunk: a cut is forced here when no cut point came earlier.
    max_size: usize,
}

impl GearChunker {
    /// A chunker cutting at about every `2^round(log2(avg_size))`-th byte
    /// (plus `min_size`), whose cut decisions depend on the last `window`
    /// bytes (1..=64; `window` is raised to the mask width if smaller).
    pub fn new(min_size: usize, avg_size: usize, max_size: usize, window: usize) -> GearChunker {
        let bits = mask_bits(avg_size);
        let window = (window.clamp(1, 64) as u32).max(bits);
        // The highest `bits` bits below `window`: they mix the most bytes.
        let low = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let mask = low << (window - bits);
        let min_size = min_size.max(1);
        GearChunker {
            mask,
            min_size,
            max_size: max_size.max(min_size),
        }
    }

    /// The chunks of `data`, in order; they tile it exactly. The last chunk
    /// may be shorter than `min_size`.
    pub fn chunks<'a>(&self, data: &'a [u8]) -> GearChunks<'a> {
        GearChunks {
            data,
            start: 0,
            hash: 0,
            chunker: *self,
        }
    }

    /// Calls `f` with each chunk of `data`, in order. The same as
    /// [`GearChunker::chunks`], as one tight loop.
    #[inline]
    pub fn for_each_chunk<'a>(&self, data: &'a [u8], mut f: impl FnMut(&'a [u8])) {
        let mut h = 0u64;
        let mut start = 0usize;
        for (i, &b) in data.iter().enumerate() {
            h = (h << 1).wrapping_add(GEAR[usize::from(b)]);
            let len = i + 1 - start;
            if (len >= self.min_size && h & self.mask == 0) || len >= self.max_size {
                f(&data[start..=i]);
                start = i + 1;
            }
        }
        if start < data.len() {
            f(&data[start..]);
        }
    }
}

/// Iterator over the chunks of one text (see [`GearChunker::chunks`]).
#[derive(Clone, Debug)]
pub struct GearChunks<'a> {
    /// The whole text.
    data: &'a [u8],
    /// Start of the next chunk; everything before it has been hashed.
    start: usize,
    /// The rolling hash after byte `start - 1`: carried across chunks.
    hash: u64,
    /// The parameters.
    chunker: GearChunker,
}

impl<'a> Iterator for GearChunks<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let rest = self.data.get(self.start..)?;
        if rest.is_empty() {
            return None;
        }
        let c = &self.chunker;
        let mut h = self.hash;
        let mut end = rest.len();
        for (i, &b) in rest.iter().enumerate() {
            h = (h << 1).wrapping_add(GEAR[usize::from(b)]);
            let len = i + 1;
            if (len >= c.min_size && h & c.mask == 0) || len >= c.max_size {
                end = len;
                break;
            }
        }
        self.hash = h;
        let chunk = rest.get(..end)?;
        self.start += end;
        Some(chunk)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(seed: u64, len: usize) -> Vec<u8> {
        // Lowercase letters and spaces from a simple LCG: varied, repeatable.
        let mut s = seed;
        (0..len)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let r = (s >> 33) % 27;
                if r == 26 {
                    b' '
                } else {
                    b'a' + r as u8
                }
            })
            .collect()
    }

    #[test]
    fn chunks_tile_the_input_and_respect_sizes() {
        let data = text(1, 20_000);
        let c = GearChunker::new(8, 32, 128, 16);
        let chunks: Vec<&[u8]> = c.chunks(&data).collect();
        assert_eq!(chunks.concat(), data);
        let (last, body) = chunks.split_last().unwrap();
        assert!(last.len() <= 128);
        for ch in body {
            assert!((8..=128).contains(&ch.len()), "{}", ch.len());
        }
        // Expected average about min + 2^5 = 40 bytes; allow wide slack.
        let avg = data.len() as f64 / chunks.len() as f64;
        assert!((28.0..=56.0).contains(&avg), "average chunk {avg}");
    }

    #[test]
    fn iterator_and_loop_agree() {
        let data = text(2, 5_000);
        let c = GearChunker::new(8, 32, 128, 16);
        let a: Vec<&[u8]> = c.chunks(&data).collect();
        let mut b: Vec<&[u8]> = Vec::new();
        c.for_each_chunk(&data, |ch| b.push(ch));
        assert_eq!(a, b);
    }

    #[test]
    fn forced_cut_at_max_on_constant_input() {
        // A constant byte gives the same hash forever after 64 bytes; if that
        // hash is not a cut point, only max_size cuts.
        let data = vec![b'a'; 1000];
        let c = GearChunker::new(8, 32, 100, 16);
        for ch in c.chunks(&data) {
            assert!(ch.len() <= 100);
        }
    }

    #[test]
    fn cut_points_depend_only_on_the_window() {
        // The same 200 bytes after two different prefixes: every cut point
        // more than `window` bytes into the shared part is the same.
        let shared = text(3, 2000);
        let mut a = text(4, 300);
        a.extend_from_slice(&shared);
        let mut b = text(5, 77);
        b.extend_from_slice(&shared);
        let c = GearChunker::new(1, 32, usize::MAX, 16);
        let ends = |d: &[u8], off: usize| -> Vec<usize> {
            let mut pos = 0;
            let mut v = Vec::new();
            for ch in c.chunks(d) {
                pos += ch.len();
                if pos > off + 16 && pos < d.len() {
                    v.push(pos - off);
                }
            }
            v
        };
        let ea = ends(&a, 300);
        let eb = ends(&b, 77);
        assert!(ea.len() > 20);
        assert_eq!(ea, eb);
    }

    #[test]
    fn degenerate_parameters_do_not_panic() {
        let data = text(6, 300);
        for (min, avg, max, w) in [(0, 0, 0, 0), (1, 1, 1, 1), (500, 1 << 40, 10, 200)] {
            let c = GearChunker::new(min, avg, max, w);
            let total: usize = c.chunks(&data).map(<[u8]>::len).sum();
            assert_eq!(total, data.len());
        }
        assert_eq!(GearChunker::new(8, 32, 128, 16).chunks(&[]).count(), 0);
    }
}
