//! Compact forms of a stored record's parts: the Redis log's records, and
//! the redb store's of formats 5 and 6 (read now only to upgrade them;
//! format 7 writes its records against their group's first,
//! `super::delta`, with this module's sorted sets and URL parts).
//!
//! What a kept page costs on disk is mostly sorted sets of random 32-bit
//! hashes: its content evidence's blocks, shingle sample and title words,
//! and the chunk detector's set. Written as varint gaps (format 4) a gap of
//! a set of n values costs `ceil(log2(2^32 / n) / 7)` bytes, four for most
//! sets here. This module writes them as Golomb-Rice codes instead: each
//! gap as a quotient in unary and a remainder of `k` bits, `k` chosen per
//! set for the fewest bits, about `log2(2^32 / n) + 1.5` bits a gap; and
//! the low bits every value shares (a shingle sample keeps only multiples
//! of its modulus) are left out. On the rust-doc index this takes the
//! evidence from 466 to 391 bytes a record.
//!
//! Two other cuts: a record's key and site are usually parts of its URL
//! (a manifest id that is the URL's path, a site that is its host), stored
//! then as where in the URL they are ([`UrlPart`]); and a 64-bit hash is
//! stored in its 8 bytes, not as a varint of up to 10.
//!
//! Everything here is a serde form for postcard: a set is one byte string
//! (its count, shift and Rice parameter, then the bits), so a record stays
//! one postcard value. Decoding checks every length against the bytes
//! present: a damaged record is an error, never a panic or a huge
//! allocation.

use std::borrow::Cow;

use neardup_api::Signature;
use serde::de::Error as _;
#[cfg(any(feature = "redis", test))]
use serde::Serializer;
use serde::{Deserialize, Deserializer, Serialize};

use super::store::{DocRecord, RecordKind};
use crate::content::Evidence;

/// Appends the Golomb-Rice form of `values` (sorted ascending, distinct or
/// not) to `out`: its count as a varint, then (if any) one varint of the
/// number of low bits all values share as zeros (`shift`) and the Rice
/// parameter `k` (`shift * 32 + k`), and the codes of the gaps between
/// neighbours (the first from 0), least significant bit first.
///
/// # Panics
/// Never; an unsorted input is the caller's error and yields a form that
/// decodes to other values, so callers check order first
/// ([`is_sorted`]).
pub fn put_sorted(values: &[u32], out: &mut Vec<u8>) {
    put_varint(values.len() as u64, out);
    if values.is_empty() {
        return;
    }
    let shift = values
        .iter()
        .fold(0u32, |acc, &v| acc | v)
        .trailing_zeros()
        .min(31);
    let (k, bits) = rice_parameter(values, shift);
    // One varint for both (one byte while the shift is under 4).
    put_varint(u64::from(shift * 32 + k), out);
    out.reserve(usize::try_from(bits.div_ceil(8)).unwrap_or(0));
    let mut bits = BitWriter::new(out);
    let mut previous = 0u32;
    for &v in values {
        let v = v >> shift;
        let gap = v.wrapping_sub(previous);
        previous = v;
        let q = gap >> k;
        if q + 1 + k <= 32 {
            // The whole code in one word: q ones, a zero, the remainder.
            // (In 64 bits: with k = 0 the shift may be 32.)
            let code = u64::from(low_mask(q)) | u64::from(gap & low_mask(k)) << (q + 1);
            bits.put(code as u32, q + 1 + k);
        } else {
            bits.unary(q);
            bits.put(gap & low_mask(k), k);
        }
    }
    bits.finish();
}

/// Returns true if and only if `values` is sorted ascending.
#[cfg(any(feature = "redis", test))]
pub fn is_sorted(values: &[u32]) -> bool {
    values.windows(2).all(|w| w[0] <= w[1])
}

/// Reads what [`put_sorted`] wrote from the start of `bytes`; returns the
/// values and the bytes after them.
///
/// # Errors
/// A description of the damage: a count larger than the bits present, a
/// shift or parameter out of range, codes cut short, or values past
/// `u32::MAX`.
pub fn take_sorted(bytes: &[u8]) -> Result<(Vec<u32>, &[u8]), String> {
    let (count, rest) = take_varint(bytes)?;
    if count == 0 {
        return Ok((Vec::new(), rest));
    }
    let (params, rest) = take_varint(rest)?;
    if params >= 32 * 32 {
        return Err(format!(
            "a set's shift and parameter {params} are out of range"
        ));
    }
    let (shift, k) = ((params / 32) as u32, (params % 32) as u32);
    // Every code takes at least k + 1 bits.
    let available = rest.len() as u64 * 8 / u64::from(k + 1);
    if count > available {
        return Err(format!("a set says {count} values in {} bytes", rest.len()));
    }
    let mut out = Vec::with_capacity(count as usize);
    let mut bits = BitReader::new(rest);
    let mut previous = 0u64;
    for _ in 0..count {
        let quotient = bits.unary().ok_or("a set's codes are cut short")?;
        if quotient > u64::from(u32::MAX) {
            return Err("a set's values run past u32::MAX".into());
        }
        let low = bits.take(k).ok_or("a set's codes are cut short")?;
        let gap = (quotient << k) | u64::from(low);
        previous += gap;
        if previous > u64::from(u32::MAX >> shift) {
            return Err("a set's values run past u32::MAX".into());
        }
        out.push((previous as u32) << shift);
    }
    Ok((out, &rest[bits.bytes_read()..]))
}

/// The Rice parameter that codes the gaps of `values >> shift` in the
/// fewest bits, and that many bits: the unary part of a gap costs
/// `gap >> k` bits, so the total is `n * (k + 1) + sum(gap >> k)`, tried
/// for every `k` near the mean gap's logarithm (the smallest `k` of equal
/// cost). The sums for all four `k` are taken in one pass over the gaps.
fn rice_parameter(values: &[u32], shift: u32) -> (u32, u64) {
    let span = u64::from(values[values.len() - 1] >> shift);
    let mean = span / values.len() as u64;
    let guess = 63u32.saturating_sub(mean.max(1).leading_zeros());
    let first = guess.saturating_sub(2);
    let last = (guess + 1).min(31);
    let mut sums = [0u64; 4];
    let mut previous = 0u32;
    for &v in values {
        let v = v >> shift;
        let gap = u64::from(v.wrapping_sub(previous)) >> first;
        previous = v;
        for (i, sum) in sums.iter_mut().enumerate() {
            *sum += gap >> i;
        }
    }
    let n = values.len() as u64;
    (first..=last)
        .zip(sums)
        .map(|(k, sum)| (n * u64::from(k + 1) + sum, k))
        .min()
        .map_or((0, 0), |(bits, k)| (k, bits))
}

fn low_mask(k: u32) -> u32 {
    if k == 0 {
        0
    } else {
        u32::MAX >> (32 - k)
    }
}

pub(super) fn put_varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub(super) fn take_varint(bytes: &[u8]) -> Result<(u64, &[u8]), String> {
    let mut v = 0u64;
    for (i, &b) in bytes.iter().enumerate().take(10) {
        v |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Ok((v, &bytes[i + 1..]));
        }
    }
    Err("a set's header is cut short".into())
}

/// Bits appended to a byte vector, least significant first.
struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    len: u32,
}

impl<'a> BitWriter<'a> {
    fn new(out: &'a mut Vec<u8>) -> Self {
        BitWriter {
            out,
            acc: 0,
            len: 0,
        }
    }

    /// Appends the low `n` (at most 32) bits of `v`, which has no bits
    /// above them. Whole words of four bytes go out as they fill: fewer
    /// than 32 bits are held between calls, so the 64-bit holder never
    /// overflows.
    fn put(&mut self, v: u32, n: u32) {
        self.acc |= u64::from(v) << self.len;
        self.len += n;
        if self.len >= 32 {
            self.out.extend_from_slice(&(self.acc as u32).to_le_bytes());
            self.acc >>= 32;
            self.len -= 32;
        }
    }

    /// Appends `q` one bits, then a zero.
    fn unary(&mut self, mut q: u32) {
        while q >= 32 {
            self.put(u32::MAX, 32);
            q -= 32;
        }
        self.put(low_mask(q), q + 1);
    }

    /// Writes the bits still held, the last byte padded with zeros.
    fn finish(self) {
        let held = self.len.div_ceil(8) as usize;
        self.out
            .extend_from_slice(self.acc.to_le_bytes().get(..held).unwrap_or_default());
    }
}

/// Bits read from a byte slice in [`BitWriter`]'s order.
struct BitReader<'a> {
    bytes: &'a [u8],
    /// Position in bits.
    at: u64,
}

impl<'a> BitReader<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        BitReader { bytes, at: 0 }
    }

    /// Up to 57 bits from the position on (zeros past the end), and how
    /// many of them are real.
    fn window(&self) -> (u64, u32) {
        let byte = (self.at / 8) as usize;
        let skip = (self.at % 8) as u32;
        let mut word = [0u8; 8];
        let tail = self.bytes.get(byte..).unwrap_or(&[]);
        let n = tail.len().min(8);
        word[..n].copy_from_slice(&tail[..n]);
        let real = (n as u32 * 8).saturating_sub(skip).min(57);
        (u64::from_le_bytes(word) >> skip, real)
    }

    fn take(&mut self, n: u32) -> Option<u32> {
        if n == 0 {
            return Some(0);
        }
        let (word, real) = self.window();
        if real < n {
            return None;
        }
        self.at += u64::from(n);
        Some((word & ((1u64 << n) - 1)) as u32)
    }

    /// Reads ones up to the next zero; their count.
    fn unary(&mut self) -> Option<u64> {
        let mut count = 0u64;
        loop {
            let (word, real) = self.window();
            if real == 0 {
                return None;
            }
            let ones = word.trailing_ones();
            if ones < real {
                self.at += u64::from(ones) + 1;
                return Some(count + u64::from(ones));
            }
            count += u64::from(real);
            self.at += u64::from(real);
        }
    }

    fn bytes_read(&self) -> usize {
        self.at.div_ceil(8) as usize
    }
}

/// A sorted set as one byte string of [`put_sorted`]'s form: for serde.
pub mod sorted_set {
    use super::*;

    /// Writes `v` (sorted ascending).
    ///
    /// # Errors
    /// The serializer's, or an unsorted set.
    #[cfg(any(feature = "redis", test))]
    pub fn serialize<S: Serializer>(v: &[u32], s: S) -> Result<S::Ok, S::Error> {
        if !is_sorted(v) {
            return Err(serde::ser::Error::custom("a stored set is not sorted"));
        }
        let mut out = Vec::with_capacity(v.len() * 4 + 4);
        if !v.is_empty() {
            put_sorted(v, &mut out);
        }
        s.serialize_bytes(&out)
    }

    /// Reads what [`serialize`] wrote.
    ///
    /// # Errors
    /// The deserializer's, or damaged codes ([`take_sorted`]).
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u32>, D::Error> {
        let bytes = <&[u8]>::deserialize(d)?;
        if bytes.is_empty() {
            return Ok(Vec::new());
        }
        let (values, rest) = take_sorted(bytes).map_err(D::Error::custom)?;
        if !rest.is_empty() {
            return Err(D::Error::custom("a stored set has bytes after its codes"));
        }
        Ok(values)
    }
}

/// A 64-bit hash as its 8 bytes (a varint of a random value takes 10).
#[derive(Serialize, Deserialize)]
struct Hash64([u8; 8]);

impl From<u64> for Hash64 {
    fn from(v: u64) -> Self {
        Hash64(v.to_le_bytes())
    }
}

/// The stored form of [`Evidence`] (fields in its order).
#[cfg(any(feature = "redis", test))]
#[derive(Serialize)]
struct EvidenceRef<'a> {
    #[serde(with = "sorted_set")]
    blocks: &'a [u32],
    modulus: u32,
    #[serde(with = "sorted_set")]
    sample: &'a [u32],
    visible: Hash64,
    #[serde(with = "sorted_set")]
    title: &'a [u32],
    lang: u32,
    main_words: u32,
}

#[derive(Deserialize)]
struct EvidenceOwned {
    #[serde(with = "sorted_set")]
    blocks: Vec<u32>,
    modulus: u32,
    #[serde(with = "sorted_set")]
    sample: Vec<u32>,
    visible: Hash64,
    #[serde(with = "sorted_set")]
    title: Vec<u32>,
    lang: u32,
    main_words: u32,
}

/// [`Evidence`] in its compact form: for serde (`#[serde(with)]`).
pub mod evidence {
    use super::*;

    /// Writes `e`.
    ///
    /// # Errors
    /// The serializer's, or an unsorted set.
    #[cfg(any(feature = "redis", test))]
    pub fn serialize<S: Serializer>(e: &Evidence, s: S) -> Result<S::Ok, S::Error> {
        EvidenceRef {
            blocks: &e.blocks,
            modulus: e.modulus,
            sample: &e.sample,
            visible: e.visible.into(),
            title: &e.title,
            lang: e.lang,
            main_words: e.main_words,
        }
        .serialize(s)
    }

    /// Reads what [`serialize`] wrote.
    ///
    /// # Errors
    /// The deserializer's.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Evidence, D::Error> {
        let e = EvidenceOwned::deserialize(d)?;
        Ok(Evidence {
            blocks: e.blocks,
            modulus: e.modulus,
            sample: e.sample,
            visible: u64::from_le_bytes(e.visible.0),
            title: e.title,
            lang: e.lang,
            main_words: e.main_words,
        })
    }
}

/// The stored form of one [`Signature`]: a sorted set in Rice codes, a
/// fingerprint in its 8 bytes, the rest as they are.
#[derive(Serialize, Deserialize)]
enum StoredSignature<'a> {
    Fingerprint(Hash64),
    /// A set whose values are sorted (the built-in detectors' always are).
    #[serde(borrow)]
    SortedSet(&'a [u8]),
    /// A set whose values are not: as they are.
    Set(Cow<'a, [u32]>),
    Sketch(Cow<'a, [u32]>),
    Vector(Cow<'a, [f32]>),
    Empty,
}

/// A record's signatures in their compact form: for serde.
pub mod signatures {
    use super::*;
    #[cfg(any(feature = "redis", test))]
    use serde::ser::SerializeSeq;

    /// Writes `v`.
    ///
    /// # Errors
    /// The serializer's.
    #[cfg(any(feature = "redis", test))]
    pub fn serialize<S: Serializer>(v: &[Signature], s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(v.len()))?;
        let mut buf = Vec::new();
        for sig in v {
            match sig {
                Signature::Fingerprint(f) => {
                    seq.serialize_element(&StoredSignature::Fingerprint((*f).into()))?;
                }
                Signature::Set(values) if is_sorted(values) => {
                    buf.clear();
                    put_sorted(values, &mut buf);
                    seq.serialize_element(&StoredSignature::SortedSet(&buf))?;
                }
                Signature::Set(values) => {
                    seq.serialize_element(&StoredSignature::Set(Cow::Borrowed(values)))?;
                }
                Signature::Sketch(values) => {
                    seq.serialize_element(&StoredSignature::Sketch(Cow::Borrowed(values)))?;
                }
                Signature::Vector(values) => {
                    seq.serialize_element(&StoredSignature::Vector(Cow::Borrowed(values)))?;
                }
                Signature::Empty => seq.serialize_element(&StoredSignature::Empty)?,
            }
        }
        seq.end()
    }

    /// Reads what [`serialize`] wrote.
    ///
    /// # Errors
    /// The deserializer's, or damaged codes.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Signature>, D::Error> {
        let stored = Vec::<StoredSignature<'de>>::deserialize(d)?;
        stored
            .into_iter()
            .map(|s| {
                Ok(match s {
                    StoredSignature::Fingerprint(h) => {
                        Signature::Fingerprint(u64::from_le_bytes(h.0))
                    }
                    StoredSignature::SortedSet(bytes) => {
                        let (values, rest) = take_sorted(bytes).map_err(D::Error::custom)?;
                        if !rest.is_empty() {
                            return Err(D::Error::custom("a stored set has bytes after its codes"));
                        }
                        Signature::Set(values)
                    }
                    StoredSignature::Set(v) => Signature::Set(v.into_owned()),
                    StoredSignature::Sketch(v) => Signature::Sketch(v.into_owned()),
                    StoredSignature::Vector(v) => Signature::Vector(v.into_owned()),
                    StoredSignature::Empty => Signature::Empty,
                })
            })
            .collect()
    }
}

/// A record's key or site: where it is in the record's URL, or its own
/// text when it is not part of it.
#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum UrlPart<'a> {
    /// The bytes `start..start + len` of the URL.
    Span(u32, u32),
    /// Not in the URL.
    #[serde(borrow)]
    Own(&'a str),
}

impl<'a> UrlPart<'a> {
    /// The key's form: the URL's end when it ends with the key (a manifest
    /// id that is the URL's path), else its own text.
    pub fn key(url: &str, key: &'a str) -> UrlPart<'a> {
        if !key.is_empty() && url.ends_with(key) {
            Self::span(url.len() - key.len(), key.len()).unwrap_or(UrlPart::Own(key))
        } else {
            UrlPart::Own(key)
        }
    }

    /// The site's form: its first place in the URL (its host), else its
    /// own text.
    pub fn site(url: &str, site: &'a str) -> UrlPart<'a> {
        match url.find(site) {
            Some(start) if !site.is_empty() => {
                Self::span(start, site.len()).unwrap_or(UrlPart::Own(site))
            }
            _ => UrlPart::Own(site),
        }
    }

    fn span(start: usize, len: usize) -> Option<UrlPart<'a>> {
        Some(UrlPart::Span(
            u32::try_from(start).ok()?,
            u32::try_from(len).ok()?,
        ))
    }

    /// The text it stands for, given the record's URL.
    ///
    /// # Errors
    /// A span outside the URL or not on its character boundaries.
    pub fn resolve(&self, url: &str) -> Result<String, String> {
        match *self {
            UrlPart::Own(s) => Ok(s.to_string()),
            UrlPart::Span(start, len) => {
                let (start, len) = (start as usize, len as usize);
                start
                    .checked_add(len)
                    .and_then(|end| url.get(start..end))
                    .map(str::to_string)
                    .ok_or_else(|| {
                        format!(
                            "a span {start}+{len} is not part of its URL ({} bytes)",
                            url.len()
                        )
                    })
            }
        }
    }
}

/// A record's fields but its fetch time, in their stored forms: what the
/// Redis log writes, and redb formats 5 and 6 wrote. Postcard frames
/// neither a nested struct nor a newtype variant, so a store wraps it
/// (the Redis log writes it as an entry's variant; redb formats 5 and 6
/// appended the fetch time) and the bytes are those of one flat record.
#[cfg(feature = "redis")]
#[derive(Serialize)]
pub(crate) struct RecordRef<'a> {
    key: UrlPart<'a>,
    url: &'a str,
    site: UrlPart<'a>,
    kind: RecordKind,
    #[serde(with = "signatures")]
    signatures: &'a [Signature],
    #[serde(with = "evidence")]
    evidence: &'a Evidence,
}

#[cfg(feature = "redis")]
impl<'a> RecordRef<'a> {
    /// The stored form of `r`: its key and site as parts of its URL where
    /// they are.
    pub(crate) fn new(r: &'a DocRecord) -> RecordRef<'a> {
        RecordRef {
            key: UrlPart::key(&r.url, &r.key),
            url: &r.url,
            site: UrlPart::site(&r.url, &r.site),
            kind: r.kind,
            signatures: &r.signatures,
            evidence: &r.evidence,
        }
    }
}

/// What [`RecordRef`] wrote, as read.
#[derive(Deserialize)]
pub(crate) struct RecordOwned<'a> {
    #[serde(borrow)]
    key: UrlPart<'a>,
    url: String,
    #[serde(borrow)]
    site: UrlPart<'a>,
    kind: RecordKind,
    #[serde(with = "signatures")]
    signatures: Vec<Signature>,
    #[serde(with = "evidence")]
    evidence: Evidence,
}

impl RecordOwned<'_> {
    /// The record, checked: key and site within its URL, one signature per
    /// detector of a chain of `detectors` (none for an observation), the
    /// evidence's sets sorted and distinct.
    ///
    /// # Errors
    /// What is wrong, for the store to name the record in.
    pub(crate) fn into_record(
        self,
        detectors: usize,
        fetched_at: u64,
    ) -> Result<DocRecord, String> {
        let key = self.key.resolve(&self.url)?;
        let site = self.site.resolve(&self.url)?;
        if self.signatures.len() != self.kind.signatures(detectors) {
            return Err(format!(
                "{} signatures for a chain of {detectors} detectors",
                self.signatures.len()
            ));
        }
        if !self.evidence.is_consistent() {
            return Err("unsorted evidence".into());
        }
        Ok(DocRecord {
            key,
            url: self.url,
            site,
            kind: self.kind,
            signatures: self.signatures,
            evidence: self.evidence,
            fetched_at,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(values: &[u32]) -> Vec<u8> {
        let mut out = Vec::new();
        put_sorted(values, &mut out);
        out.extend_from_slice(b"next");
        let (back, rest) = take_sorted(&out).unwrap();
        assert_eq!(back, values);
        assert_eq!(
            rest, b"next",
            "the bytes after a set are left for the next field"
        );
        out.truncate(out.len() - 4);
        out
    }

    /// A deterministic pseudo-random sorted set of `n` distinct values,
    /// multiples of `unit`.
    fn random_set(seed: u64, n: usize, unit: u32) -> Vec<u32> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut v: Vec<u32> = (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 32) as u32 / unit * unit
            })
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    #[test]
    fn sets_come_back_as_written() {
        roundtrip(&[]);
        roundtrip(&[0]);
        roundtrip(&[u32::MAX]);
        roundtrip(&[0, u32::MAX]);
        roundtrip(&[1 << 31]);
        roundtrip(&[5, 5, 5]);
        roundtrip(&(0..1000).collect::<Vec<_>>());
        roundtrip(&[1, 2, 3, 4_000_000_000]);
        for (seed, n, unit) in [
            (1, 1, 1),
            (2, 37, 1),
            (3, 1024, 1),
            (4, 700, 64),
            (5, 3, 1 << 20),
        ] {
            roundtrip(&random_set(seed, n, unit));
        }
    }

    #[test]
    fn random_sets_take_fewer_bytes_than_varint_gaps() {
        // The sizes of the rust-doc index: ~37 blocks, ~73 sampled shingles.
        for (n, unit) in [(37, 1), (73, 1), (1000, 4)] {
            let set = random_set(n as u64, n, unit);
            let varint: usize = {
                let mut previous = 0u32;
                set.iter()
                    .map(|&v| {
                        let gap = v - previous;
                        previous = v;
                        postcard::to_allocvec(&gap).unwrap().len()
                    })
                    .sum()
            };
            let rice = roundtrip(&set).len();
            // A gap of a random set of n takes about log2(2^32 / n) + 1.5
            // bits in Rice codes: well under the varint's whole bytes.
            let bound = set.len() as f64 * ((2f64.powi(32) / unit as f64 / n as f64).log2() + 2.0)
                / 8.0
                + 6.0;
            assert!(
                (rice as f64) <= bound,
                "n {n}: {rice} bytes, bound {bound:.0}"
            );
            assert!(
                rice * 10 < varint * 9,
                "n {n}: {rice} bytes against {varint}"
            );
        }
    }

    #[test]
    fn shared_low_bits_are_not_stored() {
        let set = random_set(9, 500, 1 << 10);
        let plain: Vec<u32> = random_set(9, 500, 1);
        let (a, b) = (roundtrip(&set).len(), roundtrip(&plain).len());
        // Ten bits a value fewer, less what a wider gap costs nowhere.
        assert!(a + 500 * 9 / 8 < b, "{a} against {b}");
    }

    /// The form as first written (format 5): four passes to choose the
    /// parameter, one byte out at a time. The stored form must not move.
    fn put_sorted_as_first_written(values: &[u32], out: &mut Vec<u8>) {
        put_varint(values.len() as u64, out);
        if values.is_empty() {
            return;
        }
        let shift = values
            .iter()
            .fold(0u32, |acc, &v| acc | v)
            .trailing_zeros()
            .min(31);
        let span = u64::from(values[values.len() - 1] >> shift);
        let mean = span / values.len() as u64;
        let guess = 63u32.saturating_sub(mean.max(1).leading_zeros());
        let cost = |k: u32| -> u64 {
            let mut previous = 0u32;
            let mut total = values.len() as u64 * u64::from(k + 1);
            for &v in values {
                let v = v >> shift;
                total += u64::from(v.wrapping_sub(previous) >> k);
                previous = v;
            }
            total
        };
        let k = (guess.saturating_sub(2)..=(guess + 1).min(31))
            .min_by_key(|&k| (cost(k), k))
            .unwrap();
        put_varint(u64::from(shift * 32 + k), out);
        let (mut acc, mut len) = (0u64, 0u32);
        let mut put = |v: u32, n: u32, out: &mut Vec<u8>| {
            acc |= u64::from(v) << len;
            len += n;
            while len >= 8 {
                out.push(acc as u8);
                acc >>= 8;
                len -= 8;
            }
        };
        let mut previous = 0u32;
        for &v in values {
            let v = v >> shift;
            let gap = v.wrapping_sub(previous);
            previous = v;
            let mut q = gap >> k;
            while q >= 32 {
                put(u32::MAX, 32, out);
                q -= 32;
            }
            put(low_mask(q), q + 1, out);
            put(gap & low_mask(k), k, out);
        }
        if len > 0 {
            out.push(acc as u8);
        }
    }

    #[test]
    fn a_code_of_exactly_32_bits_is_written_as_first_written() {
        // Twenty zeros and a 31: k = 0, so the last code is 31 ones and a
        // zero, one whole word.
        let mut set = vec![0u32; 20];
        set.push(31);
        let (mut new, mut first) = (Vec::new(), Vec::new());
        put_sorted(&set, &mut new);
        put_sorted_as_first_written(&set, &mut first);
        assert_eq!(new, first);
        assert_eq!(new[1], 0, "shift 0 and k 0");
        assert_eq!(take_sorted(&new).unwrap().0, set);
    }

    proptest::proptest! {
        /// Sets of any size and spacing (dense runs, shared low bits, gaps
        /// of more than 32 codes' worth) are written byte for byte as the
        /// first form wrote them.
        #[test]
        fn sets_are_written_as_first_written(
            seed in proptest::num::u64::ANY,
            n in 0usize..600,
            unit_bits in 0u32..24,
            dense in proptest::bool::ANY,
            outlier in proptest::option::of(proptest::num::u32::ANY),
        ) {
            let mut set = if dense {
                (0..n as u32).map(|v| v << unit_bits).collect()
            } else {
                random_set(seed, n, 1 << unit_bits)
            };
            set.extend(outlier);
            set.sort_unstable();
            set.dedup();
            let (mut new, mut first) = (vec![7u8], vec![7u8]);
            put_sorted(&set, &mut new);
            put_sorted_as_first_written(&set, &mut first);
            proptest::prop_assert_eq!(new, first);
        }
    }

    #[test]
    fn damaged_sets_are_errors_not_panics() {
        let good = roundtrip(&random_set(3, 200, 1));
        for cut in 0..good.len() {
            assert!(take_sorted(&good[..cut]).is_err(), "cut at {cut} decoded");
        }
        // A count far beyond the bits present, a parameter out of range.
        assert!(take_sorted(&[0xff, 0xff, 0xff, 0x0f, 0, 3, 0xff]).is_err());
        assert!(take_sorted(&[1, 0xff, 0x08, 0xff]).is_err());
        // Values that run past u32::MAX.
        let mut past = Vec::new();
        put_sorted(&[u32::MAX - 1, u32::MAX], &mut past);
        let last = past.len() - 1;
        past[last] = 0xff;
        past.push(0xff);
        let r = take_sorted(&past);
        assert!(r.is_err() || r.unwrap().0 != [u32::MAX - 1, u32::MAX]);
        // Every byte flipped: an error or other values, never a panic.
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0xa5;
            let _ = take_sorted(&bad);
        }
    }

    #[test]
    fn evidence_and_signatures_come_back_through_postcard() {
        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        struct R {
            #[serde(with = "signatures")]
            s: Vec<Signature>,
            #[serde(with = "evidence")]
            e: Evidence,
        }
        let r = R {
            s: vec![
                Signature::Fingerprint(u64::MAX - 7),
                Signature::Set(random_set(1, 20, 1)),
                Signature::Set(vec![9, 3, 7]),
                Signature::Sketch(vec![4, 1]),
                Signature::Vector(vec![0.5, -1.0]),
                Signature::Empty,
            ],
            e: Evidence {
                blocks: random_set(2, 30, 1),
                modulus: 8,
                sample: random_set(3, 90, 8),
                visible: 0xdead_beef_0000_0001,
                title: vec![2, 3],
                lang: 7,
                main_words: 300,
            },
        };
        let bytes = postcard::to_allocvec(&r).unwrap();
        let back: R = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(back, r);
        let unsorted = R {
            s: vec![],
            e: Evidence {
                blocks: vec![3, 1],
                ..Evidence::default()
            },
        };
        assert!(postcard::to_allocvec(&unsorted).is_err());
    }

    #[test]
    fn keys_and_sites_are_stored_as_parts_of_the_url() {
        let url = "http://127.0.0.1:18082/alloc/all.html";
        let key = UrlPart::key(url, "alloc/all.html");
        assert_eq!(key, UrlPart::Span(23, 14));
        assert_eq!(key.resolve(url).unwrap(), "alloc/all.html");
        let site = UrlPart::site(url, "127.0.0.1:18082");
        assert_eq!(site.resolve(url).unwrap(), "127.0.0.1:18082");
        assert_eq!(UrlPart::key(url, "doc-7"), UrlPart::Own("doc-7"));
        assert_eq!(UrlPart::key(url, ""), UrlPart::Own(""));
        assert_eq!(
            UrlPart::site(url, "example.org"),
            UrlPart::Own("example.org")
        );
        // A span that is not in the URL, or cuts a character.
        assert!(UrlPart::Span(30, 20).resolve(url).is_err());
        assert!(UrlPart::Span(u32::MAX, 2).resolve(url).is_err());
        assert!(UrlPart::Span(1, 1).resolve("é").is_err());
    }
}
