//! What is stored of a page for later pages to be judged against (`Evidence`).

/// What is stored of a page to judge later pages against it: one part of
/// a stored record ([`crate::index::DocRecord::evidence`]).
///
/// Stored as is (postcard), its sorted sets delta-coded (`sorted_u32s`):
/// a sorted set of random 32-bit hashes costs about a byte less per value
/// than the values themselves.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Evidence {
    /// Sorted, distinct block hashes.
    #[serde(with = "sorted_u32s")]
    pub blocks: Vec<u32>,
    /// The sample keeps shingles `s` with `s % modulus == 0` (a power of
    /// two; 0 when there is no sample: an observation's evidence).
    pub modulus: u32,
    /// Sorted, distinct sampled shingles of the whole visible text.
    #[serde(with = "sorted_u32s")]
    pub sample: Vec<u32>,
    /// Hash of the whole visible text.
    pub visible: u64,
    /// Sorted, distinct word hashes of the title.
    #[serde(with = "sorted_u32s")]
    pub title: Vec<u32>,
    /// The main text's language (a stable hash of its ISO 639-3 code; 0 when unknown).
    pub lang: u32,
    /// Words of its main content (its article, or for a page without one
    /// its content blocks), link text in it included
    /// (`PageContent::main_words`): how much it says.
    pub main_words: u32,
}

impl Evidence {
    /// Borrows it, as the judging code reads it.
    pub fn as_ref(&self) -> EvidenceRef<'_> {
        EvidenceRef {
            blocks: &self.blocks,
            modulus: self.modulus,
            sample: &self.sample,
            visible: self.visible,
            title: &self.title,
            lang: self.lang,
            main_words: self.main_words,
        }
    }

    /// What is stored for this page if it is not kept (an *observation*,
    /// [`crate::index::RecordKind::Observation`]): its blocks and title
    /// words, for the site's template, and no shingle sample (it is never
    /// the kept side of a drop).
    pub fn observation(&self) -> Evidence {
        Evidence {
            modulus: 0,
            sample: Vec::new(),
            blocks: self.blocks.clone(),
            visible: self.visible,
            title: self.title.clone(),
            lang: self.lang,
            main_words: self.main_words,
        }
    }

    /// Returns true if and only if the stored form is well formed: sets
    /// sorted and distinct, a sampling modulus that is 0 or a power of two.
    pub fn is_consistent(&self) -> bool {
        let sorted = |v: &[u32]| v.windows(2).all(|w| w[0] < w[1]);
        sorted(&self.blocks)
            && sorted(&self.sample)
            && sorted(&self.title)
            && (self.modulus == 0 || self.modulus.is_power_of_two())
    }

    /// Approximate heap bytes.
    pub fn heap_bytes(&self) -> usize {
        (self.blocks.capacity() + self.sample.capacity() + self.title.capacity())
            * std::mem::size_of::<u32>()
    }
}

/// A sorted `Vec<u32>` as its length, then its first value and the gaps
/// between neighbours, each a varint (postcard): for serde. Reading
/// refuses gaps that overflow; whether the set is sorted and distinct is
/// [`Evidence::is_consistent`]'s to check (a gap of 0 decodes).
pub mod sorted_u32s {
    use serde::de::{Error, SeqAccess, Visitor};
    use serde::ser::SerializeSeq;
    use serde::{Deserializer, Serializer};

    /// Writes `v` (sorted ascending) as gaps.
    ///
    /// # Errors
    /// The serializer's.
    pub fn serialize<S: Serializer>(v: &[u32], s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(v.len()))?;
        let mut previous = 0u32;
        for &x in v {
            seq.serialize_element(&x.wrapping_sub(previous))?;
            previous = x;
        }
        seq.end()
    }

    /// Reads what [`serialize`] wrote.
    ///
    /// # Errors
    /// The deserializer's, or a gap that runs past `u32::MAX`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u32>, D::Error> {
        struct Gaps;
        impl<'de> Visitor<'de> for Gaps {
            type Value = Vec<u32>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a delta-coded sorted set of u32")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u32>, A::Error> {
                // Bounded: a corrupt length must not reserve gigabytes.
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
                let mut previous = 0u32;
                while let Some(gap) = seq.next_element::<u32>()? {
                    previous = previous
                        .checked_add(gap)
                        .ok_or_else(|| A::Error::custom("a gap runs past u32::MAX"))?;
                    out.push(previous);
                }
                Ok(out)
            }
        }
        d.deserialize_seq(Gaps)
    }
}

/// A stored page's evidence, borrowed from its record.
#[derive(Clone, Copy, Debug)]
pub struct EvidenceRef<'a> {
    /// Sorted, distinct block hashes.
    pub blocks: &'a [u32],
    /// Sampling modulus (a power of two; 0 for an observation).
    pub modulus: u32,
    /// Sorted, distinct sampled shingles.
    pub sample: &'a [u32],
    /// Hash of the whole visible text.
    pub visible: u64,
    /// Sorted, distinct word hashes of the title.
    pub title: &'a [u32],
    /// The main text's language (a stable hash of its ISO 639-3 code; 0 when unknown).
    pub lang: u32,
    /// Words of its main content ([`Evidence::main_words`]).
    pub main_words: u32,
}
