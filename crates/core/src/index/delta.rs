//! A record written as its differences from another record, its *base*:
//! how the redb store keeps the records of a group (format 7,
//! `super::redb_group`), each against the group's first, and the first
//! against no base.
//!
//! A group holds records with neighbouring ids, which on a crawl or a
//! manifest are pages of one site read one after another: they share a
//! URL prefix, their template's blocks, the site's name in the title and
//! much of the shingle sample and chunk set (menus, sidebars, footers).
//! On the rust-doc index (32,101 pages) a record alone takes 560 B, of
//! which 68 are its URL, 120 its blocks, 237 its shingle sample, 18 its
//! title words and 68 its chunk set; its group's first record shares an
//! estimated 52 B of the URL's bytes, 38 of the blocks', 77 of the
//! sample's, 11 of the title's and 6 of the chunks' with it. Measured,
//! the groups hold 337 B a record where format 6's held 564.
//!
//! # Form
//! Integers are varints unless said otherwise. Against the base `b` (an
//! empty record when there is none):
//! - URL: how many bytes it shares with `b`'s from the start, then the
//!   length and bytes of the rest;
//! - key and site: [`UrlPart`]s of the record's own URL: 0, start and
//!   length; or 1, length and bytes;
//! - kind: one byte (0 kept, 1 indexed near duplicate, 2 observation);
//! - fetch time: its difference from `b`'s, zigzag-coded;
//! - signatures: their count, then per signature a tag byte and its value:
//!   0 empty; 1 a fingerprint (8 bytes LE); 2 a set of strictly ascending
//!   values, as a *relative set* against `b`'s signature at the same place
//!   (if that is a set of strictly ascending values, else against none);
//!   3 any other set, 4 a sketch, 5 a vector: the count, then each value
//!   in 4 bytes LE;
//! - evidence: blocks, sample and title as relative sets against `b`'s,
//!   then modulus, visible text hash (8 bytes LE), language XOR `b`'s,
//!   main words.
//!
//! A relative set against the set `s`: its values not in `s` as a sorted
//! set in Rice codes ([`put_sorted`]), then which of `s`'s values it has,
//! as positions in `s` (a sorted set too): 0 and the positions it has, or
//! 1 and those it lacks, whichever are fewer.
//!
//! Decoding checks every count, position and length against the bytes
//! and the base present: a damaged record is an error, never a panic.

use neardup_api::Signature;

use super::codec::{put_sorted, put_varint, take_sorted, take_varint, UrlPart};
use super::store::{DocRecord, RecordKind};
use crate::content::Evidence;

/// Appends `r` written against `base` (none: the empty record) to `out`.
///
/// # Errors
/// Evidence whose sets are not sorted and distinct (nothing is written).
pub fn encode(r: &DocRecord, base: Option<&DocRecord>, out: &mut Vec<u8>) -> Result<(), String> {
    if !r.evidence.is_consistent() {
        return Err("its evidence is not sorted and distinct".into());
    }
    let b = Base::of(base);
    let shared = shared_prefix(&r.url, b.url);
    put_varint(shared as u64, out);
    put_bytes(&r.url.as_bytes()[shared..], out);
    put_part(&UrlPart::key(&r.url, &r.key), out);
    put_part(&UrlPart::site(&r.url, &r.site), out);
    out.push(kind_byte(r.kind));
    put_varint(zigzag(r.fetched_at.wrapping_sub(b.fetched_at) as i64), out);

    put_varint(r.signatures.len() as u64, out);
    for (i, sig) in r.signatures.iter().enumerate() {
        match sig {
            Signature::Empty => out.push(0),
            Signature::Fingerprint(f) => {
                out.push(1);
                out.extend_from_slice(&f.to_le_bytes());
            }
            Signature::Set(values) if is_ascending(values) => {
                out.push(2);
                put_relative(values, b.set(i), out);
            }
            Signature::Set(values) => put_words(3, values.iter().copied(), values.len(), out),
            Signature::Sketch(values) => put_words(4, values.iter().copied(), values.len(), out),
            Signature::Vector(values) => {
                put_words(5, values.iter().map(|v| v.to_bits()), values.len(), out);
            }
        }
    }

    let e = &r.evidence;
    put_relative(&e.blocks, b.blocks, out);
    put_relative(&e.sample, b.sample, out);
    put_relative(&e.title, b.title, out);
    put_varint(u64::from(e.modulus), out);
    out.extend_from_slice(&e.visible.to_le_bytes());
    put_varint(u64::from(e.lang ^ b.lang), out);
    put_varint(u64::from(e.main_words), out);
    Ok(())
}

/// Reads what [`encode`] wrote against the same `base`, and checks it:
/// one signature per detector of a chain of `detectors` (none for an
/// observation), the evidence's sets sorted and distinct.
///
/// # Errors
/// What is wrong, for the store to name the record in.
pub fn decode(
    bytes: &[u8],
    base: Option<&DocRecord>,
    detectors: usize,
) -> Result<DocRecord, String> {
    let mut r = Reader(bytes);
    let b = Base::of(base);
    let shared = r.varint("URL")?;
    let prefix = usize::try_from(shared)
        .ok()
        .and_then(|n| b.url.get(..n))
        .ok_or_else(|| {
            format!(
                "its URL shares {shared} bytes of a base URL of {}",
                b.url.len()
            )
        })?;
    let rest = std::str::from_utf8(r.bytes("URL")?).map_err(|_| "its URL is not UTF-8")?;
    let url = format!("{prefix}{rest}");
    let key = r.part("key")?.resolve(&url)?;
    let site = r.part("site")?.resolve(&url)?;
    let kind = match r.byte("kind")? {
        0 => RecordKind::Kept,
        1 => RecordKind::NearDuplicate,
        2 => RecordKind::Observation,
        other => return Err(format!("kind {other} is unknown")),
    };
    let fetched_at = b
        .fetched_at
        .wrapping_add(unzigzag(r.varint("fetch time")?) as u64);

    let n = r.count("signatures")?;
    if n != kind.signatures(detectors) {
        return Err(format!(
            "{n} signatures for a chain of {detectors} detectors"
        ));
    }
    let mut signatures = Vec::with_capacity(n);
    for i in 0..n {
        signatures.push(match r.byte("signature")? {
            0 => Signature::Empty,
            1 => Signature::Fingerprint(u64::from_le_bytes(r.array("fingerprint")?)),
            2 => Signature::Set(r.relative(b.set(i))?),
            3 => Signature::Set(r.words()?),
            4 => Signature::Sketch(r.words()?),
            5 => Signature::Vector(r.words()?.into_iter().map(f32::from_bits).collect()),
            other => return Err(format!("signature tag {other} is unknown")),
        });
    }

    let blocks = r.relative(b.blocks)?;
    let sample = r.relative(b.sample)?;
    let title = r.relative(b.title)?;
    let evidence = Evidence {
        blocks,
        modulus: r.word("modulus")?,
        sample,
        visible: u64::from_le_bytes(r.array("visible text hash")?),
        title,
        lang: r.word("language")? ^ b.lang,
        main_words: r.word("main words")?,
    };
    if !r.0.is_empty() {
        return Err(format!("{} bytes after its end", r.0.len()));
    }
    if !evidence.is_consistent() {
        return Err("unsorted evidence".into());
    }
    Ok(DocRecord {
        key,
        url,
        site,
        kind,
        signatures,
        evidence,
        fetched_at,
    })
}

/// What a record is written against: its base's parts, or the empty
/// record's (no URL, time 0, no signatures, empty sets, language 0).
struct Base<'a> {
    url: &'a str,
    fetched_at: u64,
    signatures: &'a [Signature],
    blocks: &'a [u32],
    sample: &'a [u32],
    title: &'a [u32],
    lang: u32,
}

impl<'a> Base<'a> {
    fn of(base: Option<&'a DocRecord>) -> Base<'a> {
        match base {
            Some(b) => Base {
                url: &b.url,
                fetched_at: b.fetched_at,
                signatures: &b.signatures,
                blocks: &b.evidence.blocks,
                sample: &b.evidence.sample,
                title: &b.evidence.title,
                lang: b.evidence.lang,
            },
            None => Base {
                url: "",
                fetched_at: 0,
                signatures: &[],
                blocks: &[],
                sample: &[],
                title: &[],
                lang: 0,
            },
        }
    }

    /// The set signature `i` is written against: the base's signature at
    /// that place if it is a set of strictly ascending values, else none.
    fn set(&self, i: usize) -> &'a [u32] {
        self.signatures.get(i).map_or(&[], ascending_set)
    }
}

/// The values of `s` if it is a set of strictly ascending values (what a
/// relative set can be written against), else none.
fn ascending_set(s: &Signature) -> &[u32] {
    match s {
        Signature::Set(values) if is_ascending(values) => values,
        _ => &[],
    }
}

fn is_ascending(values: &[u32]) -> bool {
    values.windows(2).all(|w| w[0] < w[1])
}

/// Bytes `a` and `b` share from the start, ending on a character boundary
/// of both.
fn shared_prefix(a: &str, b: &str) -> usize {
    let mut n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !a.is_char_boundary(n) || !b.is_char_boundary(n) {
        n -= 1;
    }
    n
}

fn kind_byte(kind: RecordKind) -> u8 {
    match kind {
        RecordKind::Kept => 0,
        RecordKind::NearDuplicate => 1,
        RecordKind::Observation => 2,
    }
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    (v >> 1) as i64 ^ -((v & 1) as i64)
}

fn put_bytes(b: &[u8], out: &mut Vec<u8>) {
    put_varint(b.len() as u64, out);
    out.extend_from_slice(b);
}

fn put_part(part: &UrlPart<'_>, out: &mut Vec<u8>) {
    match *part {
        UrlPart::Span(start, len) => {
            out.push(0);
            put_varint(u64::from(start), out);
            put_varint(u64::from(len), out);
        }
        UrlPart::Own(s) => {
            out.push(1);
            put_bytes(s.as_bytes(), out);
        }
    }
}

fn put_words(tag: u8, words: impl Iterator<Item = u32>, n: usize, out: &mut Vec<u8>) {
    out.push(tag);
    put_varint(n as u64, out);
    for w in words {
        out.extend_from_slice(&w.to_le_bytes());
    }
}

/// Writes `values` (strictly ascending) as a relative set against `base`
/// (strictly ascending).
fn put_relative(values: &[u32], base: &[u32], out: &mut Vec<u8>) {
    // One merge: `base` is walked past each value, and the value is either
    // the next base value (its position goes to `has`) or the record's own.
    let mut own = Vec::with_capacity(values.len());
    let mut has = Vec::with_capacity(values.len().min(base.len()));
    let mut j = 0;
    for &v in values {
        while base.get(j).is_some_and(|&b| b < v) {
            j += 1;
        }
        if base.get(j) == Some(&v) {
            has.push(j as u32);
            j += 1;
        } else {
            own.push(v);
        }
    }
    put_sorted(&own, out);
    let lacking = base.len() - has.len();
    if lacking < has.len() {
        out.push(1);
        // The positions `has` skips over, and those after its last.
        let mut lacks = Vec::with_capacity(lacking);
        let mut next = 0;
        for &h in &has {
            lacks.extend(next..h);
            next = h + 1;
        }
        lacks.extend(next..base.len() as u32);
        put_sorted(&lacks, out);
    } else {
        out.push(0);
        put_sorted(&has, out);
    }
}

/// The bytes of a record being read.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn varint(&mut self, what: &str) -> Result<u64, String> {
        let (v, rest) = take_varint(self.0).map_err(|_| format!("its {what} is cut short"))?;
        self.0 = rest;
        Ok(v)
    }

    /// A varint that counts bytes or items: at most the bytes left.
    fn count(&mut self, what: &str) -> Result<usize, String> {
        let v = self.varint(what)?;
        usize::try_from(v)
            .ok()
            .filter(|&n| n <= self.0.len().max(1) * 8)
            .ok_or_else(|| format!("its {what} says {v}, more than its bytes allow"))
    }

    fn word(&mut self, what: &str) -> Result<u32, String> {
        let v = self.varint(what)?;
        u32::try_from(v).map_err(|_| format!("its {what} {v} is past u32::MAX"))
    }

    fn byte(&mut self, what: &str) -> Result<u8, String> {
        let (&b, rest) = self
            .0
            .split_first()
            .ok_or_else(|| format!("its {what} is cut short"))?;
        self.0 = rest;
        Ok(b)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], String> {
        if self.0.len() < N {
            return Err(format!("its {what} is cut short"));
        }
        let (head, rest) = self.0.split_at(N);
        self.0 = rest;
        head.try_into()
            .map_err(|_| format!("its {what} is cut short"))
    }

    fn bytes(&mut self, what: &str) -> Result<&'a [u8], String> {
        let n = self.count(what)?;
        if self.0.len() < n {
            return Err(format!("its {what} is cut short"));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn part(&mut self, what: &str) -> Result<UrlPart<'a>, String> {
        Ok(match self.byte(what)? {
            0 => UrlPart::Span(self.word(what)?, self.word(what)?),
            1 => UrlPart::Own(
                std::str::from_utf8(self.bytes(what)?)
                    .map_err(|_| format!("its {what} is not UTF-8"))?,
            ),
            other => return Err(format!("its {what} has the unknown form {other}")),
        })
    }

    fn words(&mut self) -> Result<Vec<u32>, String> {
        let n = self.count("values")?;
        if self.0.len() / 4 < n {
            return Err("its values are cut short".into());
        }
        let (head, rest) = self.0.split_at(n * 4);
        self.0 = rest;
        Ok(head
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect())
    }

    fn sorted(&mut self) -> Result<Vec<u32>, String> {
        let (values, rest) = take_sorted(self.0)?;
        self.0 = rest;
        Ok(values)
    }

    /// A relative set against `base`: its values, strictly ascending.
    fn relative(&mut self, base: &[u32]) -> Result<Vec<u32>, String> {
        let own = self.sorted()?;
        let complement = match self.byte("set")? {
            0 => false,
            1 => true,
            other => return Err(format!("a set has the unknown form {other}")),
        };
        let positions = self.sorted()?;
        if !is_ascending(&positions) || positions.last().is_some_and(|&p| p as usize >= base.len())
        {
            return Err(format!(
                "a set's positions do not fit a base set of {}",
                base.len()
            ));
        }
        let mut from_base = Vec::with_capacity(if complement {
            base.len() - positions.len()
        } else {
            positions.len()
        });
        if complement {
            let mut lacks = positions.iter().peekable();
            for (j, &v) in base.iter().enumerate() {
                if lacks.next_if(|&&p| p as usize == j).is_none() {
                    from_base.push(v);
                }
            }
        } else {
            from_base.extend(positions.iter().map(|&p| base[p as usize]));
        }
        let mut out = Vec::with_capacity(own.len() + from_base.len());
        let (mut a, mut b) = (own.iter().peekable(), from_base.iter().peekable());
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some(&&x), Some(&&y)) if x == y => {
                    return Err(format!("a set has {x} both as its own and from its base"));
                }
                (Some(&&x), Some(&&y)) if x < y => a.next(),
                (Some(_), Some(_)) | (None, Some(_)) => b.next(),
                (Some(_), None) => a.next(),
                (None, None) => break,
            };
            if let Some(&v) = next {
                out.push(v);
            }
        }
        if !is_ascending(&out) {
            return Err("a set's own values repeat".into());
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(n: u32, url: &str) -> DocRecord {
        let spread = |k: u32, step: u32| (0..n % 9).map(|i| i * step + k).collect::<Vec<u32>>();
        DocRecord {
            key: if n % 2 == 0 {
                url.rsplit('/').next().unwrap_or("").to_string()
            } else {
                format!("own-{n}")
            },
            url: url.to_string(),
            site: "docs.example".into(),
            kind: RecordKind::Kept,
            signatures: vec![
                Signature::Fingerprint(u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
                Signature::Set(spread(n, 1000)),
            ],
            evidence: Evidence {
                blocks: spread(7, 1 << 20),
                modulus: 4,
                sample: spread(n * 4, 1 << 24),
                visible: u64::from(n) << 33 | 5,
                title: vec![3, 99, 12_000 + n],
                lang: 0xDEAD_BEEF,
                main_words: n * 10,
            },
            fetched_at: 1_700_000_000 + u64::from(n),
        }
    }

    fn roundtrip(r: &DocRecord, base: Option<&DocRecord>, detectors: usize) -> Vec<u8> {
        let mut out = Vec::new();
        encode(r, base, &mut out).unwrap();
        assert_eq!(decode(&out, base, detectors).as_ref(), Ok(r));
        out
    }

    #[test]
    fn records_come_back_against_any_base() {
        let base = record(8, "https://docs.example/std/vec/struct.Vec.html");
        let mut others = vec![
            record(5, "https://docs.example/std/vec/struct.Drain.html"),
            record(3, "https://elsewhere.example/"),
            record(0, ""),
        ];
        // Against a base whose sets it shares nothing of, or all of.
        let mut disjoint = record(8, "https://docs.example/a");
        disjoint.evidence.blocks = vec![1, 2];
        disjoint.signatures[1] = Signature::Set(vec![]);
        others.push(disjoint);
        others.push(base.clone());
        // Unsorted and repeated sets, sketches, vectors, empties.
        let mut odd = record(4, "https://docs.example/é/ü");
        odd.signatures = vec![
            Signature::Set(vec![9, 3, 3]),
            Signature::Sketch(vec![u32::MAX, 0, 7]),
            Signature::Vector(vec![0.5, -1.25, f32::INFINITY]),
            Signature::Empty,
        ];
        odd.fetched_at = 3;
        let mut observation = record(6, "https://docs.example/std/vec/index.html");
        observation.kind = RecordKind::Observation;
        observation.signatures.clear();
        observation.evidence.modulus = 0;
        observation.evidence.sample.clear();
        for r in &others {
            roundtrip(r, Some(&base), 2);
            roundtrip(r, None, 2);
        }
        roundtrip(&odd, Some(&base), 4);
        roundtrip(&base, Some(&odd), 2);
        roundtrip(&observation, Some(&base), 2);
        roundtrip(&base, Some(&observation), 2);
    }

    #[test]
    fn what_a_record_shares_with_its_base_is_not_stored_again() {
        let base = record(8, "https://docs.example/std/vec/struct.Vec.html");
        let mut sibling = base.clone();
        sibling.url = "https://docs.example/std/vec/struct.Drain.html".into();
        sibling.key = "struct.Drain.html".into();
        sibling.evidence.sample.push(u32::MAX - 3);
        sibling.fetched_at += 2;
        let alone = roundtrip(&sibling, None, 2).len();
        let against = roundtrip(&sibling, Some(&base), 2).len();
        // Alone it carries every set's values and the whole URL; against
        // its base, one new sample value, the URL's last 16 bytes, and a
        // flag and an empty-or-full position set per set.
        assert!(alone > 150, "{alone}");
        assert!(
            against < 60,
            "{against} bytes against its base, {alone} alone"
        );
    }

    #[test]
    fn unsorted_evidence_is_refused() {
        let mut r = record(5, "https://docs.example/a");
        r.evidence.blocks = vec![9, 3];
        let mut out = Vec::new();
        assert!(encode(&r, None, &mut out).is_err());
        assert!(out.is_empty());
    }

    #[test]
    fn positions_take_the_smaller_side() {
        let base: Vec<u32> = (0..100).map(|i| i * 1000).collect();
        let mut most = Vec::new();
        put_relative(&base[1..], &base, &mut most);
        let mut few = Vec::new();
        put_relative(&base[..1], &base, &mut few);
        // Own values: none (one byte); then the flag and one position.
        assert_eq!(most[1], 1, "the one value it lacks");
        assert_eq!(few[1], 0, "the one value it has");
        // One position in Rice codes, not 99 or a bitmap of 100.
        assert!(most.len() <= 8 && few.len() <= 8, "{most:?} {few:?}");
    }

    #[test]
    fn damaged_records_are_errors_not_panics() {
        let base = record(8, "https://docs.example/std/vec/struct.Vec.html");
        let r = record(5, "https://docs.example/std/vec/struct.Drain.html");
        let mut good = Vec::new();
        encode(&r, Some(&base), &mut good).unwrap();
        for cut in 0..good.len() {
            assert!(
                decode(&good[..cut], Some(&base), 2).is_err(),
                "cut at {cut}"
            );
        }
        let mut long = good.clone();
        long.push(0);
        assert!(decode(&long, Some(&base), 2)
            .unwrap_err()
            .contains("after its end"));
        // Against another base its URL prefix or positions no longer fit.
        let short = record(8, "https://x");
        assert!(decode(&good, Some(&short), 2).is_err());
        assert!(decode(&good, Some(&base), 3)
            .unwrap_err()
            .contains("2 signatures for a chain of 3"));
        // Every single-byte change decodes to an error or to some record,
        // never a panic.
        for i in 0..good.len() {
            for flip in [1u8, 0x80, 0xff] {
                let mut bad = good.clone();
                bad[i] ^= flip;
                let _ = decode(&bad, Some(&base), 2);
            }
        }
    }

    /// The relative set as first written (format 7): a merge into own
    /// values, positions held and positions lacked.
    fn put_relative_as_first_written(values: &[u32], base: &[u32], out: &mut Vec<u8>) {
        let (mut own, mut has, mut lacks) = (Vec::new(), Vec::new(), Vec::new());
        let (mut i, mut j) = (0, 0);
        while i < values.len() || j < base.len() {
            match (values.get(i), base.get(j)) {
                (Some(v), Some(b)) if v == b => {
                    has.push(j as u32);
                    i += 1;
                    j += 1;
                }
                (Some(v), Some(b)) if v > b => {
                    lacks.push(j as u32);
                    j += 1;
                }
                (Some(v), _) => {
                    own.push(*v);
                    i += 1;
                }
                (None, _) => {
                    lacks.push(j as u32);
                    j += 1;
                }
            }
        }
        put_sorted(&own, out);
        if lacks.len() < has.len() {
            out.push(1);
            put_sorted(&lacks, out);
        } else {
            out.push(0);
            put_sorted(&has, out);
        }
    }

    proptest::proptest! {
        /// A set and its base drawn from one small range, so they share
        /// anything from nothing to all (either side empty too): written
        /// byte for byte as the first form wrote it.
        #[test]
        fn relative_sets_are_written_as_first_written(
            values in proptest::collection::btree_set(0u32..300, 0..120),
            base in proptest::collection::btree_set(0u32..300, 0..120),
        ) {
            let values: Vec<u32> = values.into_iter().collect();
            let base: Vec<u32> = base.into_iter().collect();
            let (mut new, mut first) = (Vec::new(), Vec::new());
            put_relative(&values, &base, &mut new);
            put_relative_as_first_written(&values, &base, &mut first);
            proptest::prop_assert_eq!(new, first);
        }
    }
}
