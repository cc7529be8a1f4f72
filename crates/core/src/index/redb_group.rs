//! Records grouped several to a redb value (redb formats 6 and 7), each
//! but the first written against the group's first (format 7).
//!
//! redb splits a B-tree leaf that overflows into two halves by bytes, and a
//! store's ids only grow, so with one record a value each split leaves a
//! left half that no later record falls into: the rust-doc index's leaves
//! were 68% full (6,474 leaf pages for 18.06 MB of records). Here
//! consecutive records share one value of at most [`GROUP_BYTES`], which
//! is what an 8 KiB leaf (two pages) holds beside its header, so a leaf
//! holds one group and is as full as the group.
//!
//! Why 8 KiB: a group of one page fits only three records of a little
//! over 1 KB (77% full), and every read that misses the cache reads and
//! walks a whole group, so a group is kept no larger than it must be to
//! fill its leaf. Measured on 1 M generated pages of 1 KB records
//! (`examples/index_1m`), allocated bytes per indexed page: 1,358 with
//! groups of 4 KiB, 1,178 of 8 KiB, 1,100 of 16 KiB (the near-copy check's
//! latency did not differ beyond run-to-run noise). On rust-doc (records
//! of 564 B): 710, 655 and 632 bytes per page.
//!
//! Why against the first: a group's records are neighbours in id order,
//! pages of one site read one after another, and share much
//! ([`super::delta`]); written against the group's first, rust-doc's
//! groups hold 337 B a record (headers included) where format 6's held
//! 564. The first, not the one before: a read that misses the cache
//! decodes two records, not up to the whole group, for nearly the same
//! bytes (on rust-doc, written against the record before, a record would
//! take an estimated 17 B less).
//!
//! # Layout of a group
//! The table's key is the group's *key*, an id at or below its first
//! record's (a group keeps its key when its first record is removed). The
//! value is the number of records (varint), then per record its id's gap
//! from the one before (the first from the key; varint) and its length
//! (varint), then the records' bytes one after another: the first alone,
//! each other against the first ([`delta::encode`]). A group holds the ids
//! from its key up to the next group's key, so the group of an id is the
//! last one whose key is at or below it.
//!
//! [`find`] reads one record of a group, [`for_each`] walks a table record
//! by record, [`write`] applies a commit's changes to it: each group a
//! change falls into is decoded and packed again (a group that grew past
//! [`GROUP_BYTES`] is split, one left empty is removed, and when the first
//! record changes the others are written against the new first). The
//! common commit only adds records past the last group's last id (ids only
//! grow): then that group's first record alone is decoded and the new
//! records go after the others' bytes as they are ([`Packer::resume`]),
//! which gives the same bytes as packing the group again (in perf of
//! `serve`, `write` went from 9.5% of the server's CPU to 5.7%).
//!
//! Decoding checks every count, gap and length against the bytes present,
//! and each record against its base: a damaged group is an error, never a
//! panic or a huge allocation.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;

use neardup_api::DocId;
use redb::ReadableTable;

use super::codec::{put_varint, take_varint};
use super::delta;
use super::redb_errors::{corrupt, err, redb_error};
use super::store::DocRecord;
use crate::{Error, Result};

/// The most bytes a group takes (unless one record alone is larger): an
/// 8 KiB leaf (redb allocates leaves in powers of two of its 4 KiB page)
/// less redb's header for one entry of a `u32` key and a variable value
/// (4 bytes of page header, 4 of value end, 4 of key).
pub const GROUP_BYTES: usize = 8192 - 12;

/// Bytes a varint of `v` takes.
fn varint_len(v: u64) -> usize {
    (64 - (v | 1).leading_zeros() as usize).div_ceil(7)
}

/// Fills groups from records given in ascending id order, each written
/// against the group's first ([`delta`]); a group is closed when the next
/// record would take it past [`GROUP_BYTES`].
#[derive(Debug)]
pub struct Packer {
    /// The key of the group being filled (`None`: its first record's id).
    key: Option<DocId>,
    /// The last id added, for the next gap.
    last: Option<DocId>,
    /// The group's first record, which the others are written against.
    base: Option<Arc<DocRecord>>,
    count: usize,
    heads: Vec<u8>,
    body: Vec<u8>,
    /// The record being added, encoded.
    scratch: Vec<u8>,
}

impl Packer {
    /// A packer whose first group has the key `key` (an existing group's,
    /// being rewritten), or its first record's id.
    pub fn new(key: Option<DocId>) -> Packer {
        Packer {
            key,
            last: None,
            base: None,
            count: 0,
            heads: Vec::new(),
            body: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// A packer that goes on filling the group stored under `key`, whose
    /// records [`entries`] gave as `held`, as if it had packed them
    /// itself: the first is decoded, to write the next records against;
    /// the others' bytes are taken as they are. Pushing records with
    /// higher ids then gives the bytes that decoding the group and packing
    /// it again would give: its records keep their first, so their
    /// encodings do not change, and the group fills up by the same rule.
    ///
    /// # Errors
    /// The first record does not decode.
    pub fn resume(
        key: DocId,
        held: &Held<'_>,
        detectors: usize,
    ) -> std::result::Result<Packer, String> {
        let first = held.first().ok_or("a group without records")?;
        let base = decode(*first, None, detectors)?;
        let mut packer = Packer::new(Some(key));
        let mut from = key;
        for &(id, record) in held {
            put_varint(u64::from(id - from), &mut packer.heads);
            put_varint(record.len() as u64, &mut packer.heads);
            packer.body.extend_from_slice(record);
            from = id;
        }
        packer.last = Some(from);
        packer.base = Some(Arc::new(base));
        packer.count = held.len();
        Ok(packer)
    }

    /// Adds the record `id` (above every id added before, and at or above
    /// the key); returns the group filled so far, to be written, when the
    /// record does not fit beside it.
    ///
    /// # Errors
    /// A record that cannot be encoded ([`delta::encode`]), named by id.
    pub fn push(
        &mut self,
        id: DocId,
        record: &Arc<DocRecord>,
    ) -> std::result::Result<Option<(DocId, Vec<u8>)>, String> {
        let encode = |base: Option<&DocRecord>, out: &mut Vec<u8>| {
            out.clear();
            delta::encode(record, base, out).map_err(|why| format!("record {id}: {why}"))
        };
        let mut full = None;
        if self.count > 0 {
            encode(self.base.as_deref(), &mut self.scratch)?;
            let added = varint_len(u64::from(id - self.last.unwrap_or(id)))
                + varint_len(self.scratch.len() as u64)
                + self.scratch.len();
            if self.size() - varint_len(self.count as u64)
                + varint_len(self.count as u64 + 1)
                + added
                > GROUP_BYTES
            {
                full = self.take();
            }
        }
        if self.count == 0 {
            encode(None, &mut self.scratch)?;
            self.base = Some(Arc::clone(record));
        }
        let from = self.last.or(self.key).unwrap_or(id);
        debug_assert!(id >= from && (self.last.is_none() || id > from));
        put_varint(u64::from(id - from), &mut self.heads);
        put_varint(self.scratch.len() as u64, &mut self.heads);
        self.body.extend_from_slice(&self.scratch);
        self.key.get_or_insert(id);
        self.last = Some(id);
        self.count += 1;
        Ok(full)
    }

    /// The last group, if it holds any record.
    pub fn finish(mut self) -> Option<(DocId, Vec<u8>)> {
        self.take()
    }

    /// Bytes of the group being filled.
    fn size(&self) -> usize {
        varint_len(self.count as u64) + self.heads.len() + self.body.len()
    }

    /// The group being filled, encoded; the next starts empty, keyed by
    /// its first record's id.
    fn take(&mut self) -> Option<(DocId, Vec<u8>)> {
        let key = self.key.take()?;
        if self.count == 0 {
            return None;
        }
        let mut out = Vec::with_capacity(self.size());
        put_varint(self.count as u64, &mut out);
        out.append(&mut self.heads);
        out.append(&mut self.body);
        self.count = 0;
        self.last = None;
        self.base = None;
        Some((key, out))
    }
}

/// The records of the group stored under `key`: (id, record bytes), ids
/// ascending.
///
/// # Errors
/// A description of the damage: a count larger than the bytes allow, ids
/// not ascending or past `u32::MAX`, lengths that do not add up to the
/// bytes present.
pub fn entries(key: DocId, bytes: &[u8]) -> std::result::Result<Vec<(DocId, &[u8])>, String> {
    let (count, mut rest) = take_varint(bytes)?;
    // Each record takes at least two bytes of header.
    if count == 0 || count > rest.len() as u64 / 2 {
        return Err(format!(
            "a group says {count} records in {} bytes",
            bytes.len()
        ));
    }
    let mut heads = Vec::with_capacity(count as usize);
    let mut id = u64::from(key);
    let mut total = 0u64;
    for i in 0..count {
        let (gap, r) = take_varint(rest)?;
        let (len, r) = take_varint(r)?;
        rest = r;
        if i > 0 && gap == 0 {
            return Err(format!("a group's ids are not ascending after {id}"));
        }
        id += gap;
        if id > u64::from(u32::MAX) {
            return Err("a group's ids run past u32::MAX".into());
        }
        total = total.saturating_add(len);
        heads.push((id as DocId, len as usize));
    }
    if total != rest.len() as u64 {
        return Err(format!(
            "a group's records take {total} bytes, {} are there",
            rest.len()
        ));
    }
    let mut out = Vec::with_capacity(heads.len());
    for (id, len) in heads {
        let (record, r) = rest.split_at(len);
        out.push((id, record));
        rest = r;
    }
    Ok(out)
}

/// Decodes a group's records as [`entries`] gives them: the first against
/// none, each other against the first.
fn decode_all(
    held: &Held<'_>,
    detectors: usize,
) -> std::result::Result<Vec<(DocId, DocRecord)>, String> {
    let mut out: Vec<(DocId, DocRecord)> = Vec::with_capacity(held.len());
    for &entry in held {
        let decoded = decode(entry, out.first().map(|(_, b)| b), detectors)?;
        out.push((entry.0, decoded));
    }
    Ok(out)
}

/// Decodes one record of a group against `base` (its group's first; none
/// for the first itself); an error names the record.
fn decode(
    (id, bytes): (DocId, &[u8]),
    base: Option<&DocRecord>,
    detectors: usize,
) -> std::result::Result<DocRecord, String> {
    delta::decode(bytes, base, detectors).map_err(|why| format!("record {id}: {why}"))
}

/// Record `id` of the group stored under `key`, if it holds it: that
/// record and the group's first decoded, no other.
///
/// # Errors
/// As [`entries`], or the target or the group's first does not decode
/// (named).
pub fn find(
    key: DocId,
    bytes: &[u8],
    id: DocId,
    detectors: usize,
) -> std::result::Result<Option<DocRecord>, String> {
    let all = entries(key, bytes)?;
    let Ok(at) = all.binary_search_by_key(&id, |&(i, _)| i) else {
        return Ok(None);
    };
    let first = decode(all[0], None, detectors)?;
    if at == 0 {
        return Ok(Some(first));
    }
    decode(all[at], Some(&first), detectors).map(Some)
}

/// The error of a group that does not decode.
pub fn damaged(path: &Path, key: DocId, why: &str) -> Error {
    corrupt(
        path,
        format!("the records from id {key} are corrupt: {why}"),
    )
}

/// A group's records as [`entries`] gives them: (id, encoded record).
type Held<'a> = [(DocId, &'a [u8])];

/// Walks the groups of a `records` table, keys ascending: `f` gets each
/// group's key and its records' (id, bytes); a group whose framing does
/// not decode, or whose ids do not follow the group before, is
/// [`StoreError::Corrupt`](crate::StoreError::Corrupt).
fn for_each_group(
    path: &Path,
    records: &impl ReadableTable<u32, &'static [u8]>,
    f: &mut dyn FnMut(DocId, &Held<'_>) -> Result<()>,
) -> Result<()> {
    let e = |x: redb::Error| redb_error(path, x);
    let mut last: Option<DocId> = None;
    for entry in records.iter().map_err(|x| e(x.into()))? {
        let (key, bytes) = entry.map_err(|x| e(x.into()))?;
        let key = key.value();
        if last.is_some_and(|last| key <= last) {
            return Err(damaged(path, key, "its key is not above the ids before it"));
        }
        let held = entries(key, bytes.value()).map_err(|x| damaged(path, key, &x))?;
        f(key, &held)?;
        last = held.last().map(|&(id, _)| id);
    }
    Ok(())
}

/// Calls `f` with every record of the `records` table, decoded for a chain
/// of `detectors`, ids ascending; a group or record that does not decode
/// is [`StoreError::Corrupt`](crate::StoreError::Corrupt).
pub fn for_each(
    path: &Path,
    records: &impl ReadableTable<u32, &'static [u8]>,
    detectors: usize,
    f: &mut dyn FnMut(DocId, DocRecord) -> Result<()>,
) -> Result<()> {
    for_each_group(path, records, &mut |key, held| {
        for (id, record) in decode_all(held, detectors).map_err(|x| damaged(path, key, &x))? {
            f(id, record)?;
        }
        Ok(())
    })
}

/// How many records `records` holds and the highest id among them, every
/// group's framing and order checked as [`for_each`] checks them (the
/// records themselves are not decoded: an open stays a walk of headers).
pub fn census(
    path: &Path,
    records: &impl ReadableTable<u32, &'static [u8]>,
) -> Result<(u64, Option<DocId>)> {
    let (mut n, mut last) = (0u64, None);
    for_each_group(path, records, &mut |_, held| {
        n += held.len() as u64;
        last = held.last().map(|&(id, _)| id).or(last);
        Ok(())
    })?;
    Ok((n, last))
}

/// Writes `changes` (ids ascending; a record, or `None` for a removal)
/// into the groups of `records`: each group a change falls into (the last
/// one whose key is at or below its id; new ids fall into the last group)
/// is read, decoded for a chain of `detectors`, changed and packed again
/// ([`Packer`]: a group that grew past [`GROUP_BYTES`] is split, one left
/// empty is removed). When the changes only add records past a group's
/// last, that group is resumed instead ([`Packer::resume`]): its first
/// record is decoded, the others are kept as bytes.
///
/// # Errors
/// A group or record that does not decode, or a change that cannot be
/// encoded ([`StoreError::Corrupt`](crate::StoreError::Corrupt) or redb's
/// error): the caller's transaction is then not to be committed.
pub fn write(
    path: &Path,
    records: &mut redb::Table<u32, &'static [u8]>,
    changes: &[(DocId, Option<Arc<DocRecord>>)],
    detectors: usize,
) -> Result<()> {
    let e = |x: redb::Error| redb_error(path, x);
    let mut changes = changes.iter().peekable();
    while let Some(&&(first, _)) = changes.peek() {
        let held = records
            .range(..=first)
            .map_err(|x| e(x.into()))?
            .next_back()
            .transpose()
            .map_err(|x| e(x.into()))?
            .map(|(k, v)| (k.value(), v.value().to_vec()));
        // The group's records, then its changes: those below the next
        // group's key.
        let key = held.as_ref().map(|(k, _)| *k);
        let next_key = records
            .range::<DocId>((Bound::Excluded(first), Bound::Unbounded))
            .map_err(|x| e(x.into()))?
            .next()
            .transpose()
            .map_err(|x| e(x.into()))?
            .map(|(k, _)| k.value());
        let mut mine = Vec::new();
        while let Some(change) = changes.next_if(|(id, _)| next_key.is_none_or(|n| *id < n)) {
            mine.push(change);
        }
        let encode = |why: String| err(path, format!("cannot encode {why}"));
        let mut groups = Vec::new();
        let framed = match &held {
            Some((k, bytes)) => Some((*k, entries(*k, bytes).map_err(|x| damaged(path, *k, &x))?)),
            None => None,
        };
        match framed
            .as_ref()
            .and_then(|(k, entries)| Some((*k, entries, appended(entries, &mine)?)))
        {
            // Only new records past the group's last (a store's ids grow,
            // so this is nearly every commit): the group's first is
            // decoded and the new records added after the others' bytes.
            Some((k, entries, added)) => {
                let mut packer =
                    Packer::resume(k, entries, detectors).map_err(|x| damaged(path, k, &x))?;
                for (id, record) in added {
                    groups.extend(packer.push(id, record).map_err(encode)?);
                }
                groups.extend(packer.finish());
            }
            None => {
                let mut group: BTreeMap<DocId, Arc<DocRecord>> = match &framed {
                    Some((k, entries)) => decode_all(entries, detectors)
                        .map_err(|x| damaged(path, *k, &x))?
                        .into_iter()
                        .map(|(id, r)| (id, Arc::new(r)))
                        .collect(),
                    None => BTreeMap::new(),
                };
                for (id, change) in mine {
                    match change {
                        Some(record) => {
                            group.insert(*id, Arc::clone(record));
                        }
                        None => {
                            group.remove(id);
                        }
                    }
                }
                let mut packer = Packer::new(key);
                for (id, record) in &group {
                    groups.extend(packer.push(*id, record).map_err(encode)?);
                }
                groups.extend(packer.finish());
            }
        }
        if let Some(k) = key {
            records.remove(k).map_err(|x| e(x.into()))?;
        }
        for (k, bytes) in groups {
            records
                .insert(k, bytes.as_slice())
                .map_err(|x| e(x.into()))?;
        }
    }
    Ok(())
}

/// The records `changes` add after the last of a group's records
/// (`held`), when that is all they do: `None` when one is a removal or its
/// id is at or below the group's last.
fn appended<'c>(
    held: &Held<'_>,
    changes: &[&'c (DocId, Option<Arc<DocRecord>>)],
) -> Option<Vec<(DocId, &'c Arc<DocRecord>)>> {
    let last = held.last()?.0;
    changes
        .iter()
        .map(|(id, change)| Some((*id, change.as_ref()?)).filter(|(id, _)| *id > last))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::Evidence;
    use crate::index::RecordKind;
    use neardup_api::Signature;

    /// A record of about `len` bytes alone (its URL carries the length),
    /// sharing a URL prefix and some blocks with its neighbours.
    fn record(id: DocId, len: usize) -> Arc<DocRecord> {
        let tail: String = (0..len).map(|i| (b'a' + (i % 26) as u8) as char).collect();
        Arc::new(DocRecord {
            key: format!("k{id}"),
            url: format!("https://s.example/{tail}/{id}"),
            site: "s.example".into(),
            kind: RecordKind::Kept,
            signatures: vec![Signature::Set(vec![1, 2, id + 10])],
            evidence: Evidence {
                blocks: vec![5, 6, 1000 + id],
                modulus: 1,
                sample: vec![id],
                visible: u64::from(id),
                title: vec![],
                lang: 0,
                main_words: id,
            },
            fetched_at: 100 + u64::from(id),
        })
    }

    /// Every record of the group stored under `key`, decoded.
    fn records_of(
        key: DocId,
        bytes: &[u8],
        detectors: usize,
    ) -> std::result::Result<Vec<(DocId, DocRecord)>, String> {
        decode_all(&entries(key, bytes)?, detectors)
    }

    /// Packs `records` (ascending ids) from a packer keyed `key`.
    fn pack(key: Option<DocId>, records: &[(DocId, Arc<DocRecord>)]) -> Vec<(DocId, Vec<u8>)> {
        let mut p = Packer::new(key);
        let mut groups = Vec::new();
        for (id, r) in records {
            groups.extend(p.push(*id, r).unwrap());
        }
        groups.extend(p.finish());
        groups
    }

    #[test]
    fn groups_hold_their_records_and_stay_within_a_leaf() {
        // Ids with gaps (removals), sizes around a page's share and a
        // record larger than a page, which stands alone.
        let mut records = Vec::new();
        for (i, id) in (3u32..400).step_by(3).enumerate() {
            let len = match i {
                17 => 9_000,
                40 => 5_000,
                _ => 200 + (i * 37) % 700,
            };
            records.push((id, record(id, len)));
        }
        let groups = pack(Some(1), &records);
        assert_eq!(groups[0].0, 1, "the first group keeps its key");
        let mut back = Vec::new();
        for (n, (key, bytes)) in groups.iter().enumerate() {
            let held = entries(*key, bytes).unwrap();
            if n > 0 {
                assert_eq!(held[0].0, *key, "a new group is keyed by its first id");
            }
            if held.len() > 1 {
                assert!(bytes.len() <= GROUP_BYTES, "{} bytes", bytes.len());
            }
            // Full: the next group's first record, written against this
            // group's first, did not fit beside it.
            if let Some((next_key, next)) = groups.get(n + 1) {
                let base = find(*key, bytes, held[0].0, 1).unwrap().unwrap();
                let first = find(*next_key, next, *next_key, 1).unwrap().unwrap();
                let mut against = Vec::new();
                delta::encode(&first, Some(&base), &mut against).unwrap();
                assert!(
                    bytes.len() + against.len() > GROUP_BYTES,
                    "group {n} of {} bytes had room for {}",
                    bytes.len(),
                    against.len()
                );
            }
            let decoded = records_of(*key, bytes, 1).unwrap();
            for (id, r) in decoded {
                assert_eq!(find(*key, bytes, id, 1).unwrap().as_ref(), Some(&r));
                back.push((id, Arc::new(r)));
            }
            assert_eq!(
                find(*key, bytes, key + 1, 1).unwrap(),
                None,
                "ids are 0 mod 3"
            );
        }
        assert_eq!(back, records);
        assert!(
            groups
                .iter()
                .any(|(k, b)| b.len() > GROUP_BYTES && entries(*k, b).unwrap().len() == 1),
            "the record larger than a page stands alone"
        );
    }

    #[test]
    fn a_resumed_group_packs_as_the_whole_run_would() {
        // Packing records in two commits (the second resuming the first's
        // last group) gives the groups one packing of them all gives.
        let records: Vec<_> = (5u32..300)
            .step_by(2)
            .enumerate()
            .map(|(i, id)| {
                (
                    id,
                    record(id, if i == 30 { 9_000 } else { 150 + (i * 53) % 600 }),
                )
            })
            .collect();
        let whole = pack(Some(2), &records);
        for cut in [1, 2, 7, 29, 30, 31, 60, records.len() - 1] {
            let mut groups = pack(Some(2), &records[..cut]);
            let (key, bytes) = groups.pop().unwrap();
            let mut p = Packer::resume(key, &entries(key, &bytes).unwrap(), 1).unwrap();
            for (id, r) in &records[cut..] {
                groups.extend(p.push(*id, r).unwrap());
            }
            groups.extend(p.finish());
            assert_eq!(groups, whole, "cut after {cut} records");
        }
    }

    #[test]
    fn appending_needs_new_ids_past_the_group_and_no_removal() {
        let held: Vec<(DocId, &[u8])> = vec![(10, b"ab"), (12, b"cd")];
        let (a, b) = (record(13, 10), record(20, 10));
        let add = [(13, Some(Arc::clone(&a))), (20, Some(Arc::clone(&b)))];
        let changes: Vec<_> = add.iter().collect();
        let got = appended(&held, &changes).unwrap();
        assert_eq!(got.iter().map(|(id, _)| *id).collect::<Vec<_>>(), [13, 20]);
        let replace = [(12, Some(Arc::clone(&a)))];
        assert!(appended(&held, &replace.iter().collect::<Vec<_>>()).is_none());
        let remove = [(13, Some(a)), (20, None)];
        assert!(appended(&held, &remove.iter().collect::<Vec<_>>()).is_none());
    }

    #[test]
    fn records_after_the_first_are_written_against_it() {
        let records: Vec<_> = (0..10).map(|id| (id, record(id, 300))).collect();
        let groups = pack(None, &records);
        assert_eq!(groups.len(), 1);
        let (key, bytes) = &groups[0];
        let held = entries(*key, bytes).unwrap();
        let mut alone = Vec::new();
        delta::encode(&records[1].1, None, &mut alone).unwrap();
        // The URL's prefix and the shared set values are not repeated.
        assert!(
            held[1].1.len() + 20 < alone.len(),
            "{} vs {}",
            held[1].1.len(),
            alone.len()
        );
        // Read against no base, a later record is not itself.
        assert_ne!(
            delta::decode(held[1].1, None, 1).ok().as_ref(),
            Some(&*records[1].1)
        );
    }

    #[test]
    fn damaged_groups_are_errors() {
        let groups = pack(None, &[(5, record(5, 40)), (9, record(9, 30))]);
        let (key, good) = &groups[0];
        assert_eq!(*key, 5);
        let total = good.len() - 5;
        let cut = &good[..good.len() - 1];
        assert!(entries(*key, cut)
            .unwrap_err()
            .contains(&format!("take {total} bytes, {}", total - 1)));
        let mut long = good.clone();
        long.push(0);
        assert!(entries(*key, &long).is_err());
        // A second gap of 0 repeats an id.
        let mut same = good.clone();
        same[3] = 0;
        assert!(entries(*key, &same).unwrap_err().contains("not ascending"));
        assert!(entries(*key, &[200, 1, 0])
            .unwrap_err()
            .contains("says 200 records"));
        assert!(entries(*key, &[]).is_err());
        assert!(entries(u32::MAX, good)
            .unwrap_err()
            .contains("past u32::MAX"));
        // A record whose bytes are damaged is named.
        let mut bad = good.clone();
        let last = bad.len() - 1;
        bad[last] ^= 0xff;
        assert!(records_of(*key, &bad, 1)
            .unwrap_err()
            .starts_with("record 9:"));
        assert!(find(*key, &bad, 9, 1).unwrap_err().starts_with("record 9:"));
    }
}
