//! Records of the redb store's older formats, read only to upgrade a file
//! ([`read_old`]); the upgrade itself is `RedbStore::upgrade`.

use neardup_api::Signature;
use serde::Deserialize;

use super::codec;
use super::store::{from_slots, DocRecord, RecordKind};
use crate::content::Evidence;
use crate::identity::StoreIdentity;

/// A format-5 or 6 record: the compact forms the Redis log still writes
/// ([`codec::RecordOwned`]), then the fetch time.
#[derive(Deserialize)]
struct RecordV5<'a> {
    #[serde(borrow)]
    record: codec::RecordOwned<'a>,
    fetched_at: u64,
}

/// A format-4 record (sets as varint gaps, key and site in full), read
/// only to upgrade a file.
#[derive(Deserialize)]
struct RecordV4 {
    key: String,
    url: String,
    site: String,
    kind: RecordKind,
    signatures: Vec<Signature>,
    evidence: Evidence,
    fetched_at: u64,
}

/// A format-2 or 3 record (the evidence as signatures after the chain's),
/// read only to upgrade a file.
#[derive(Deserialize)]
struct RecordV3 {
    key: String,
    url: String,
    site: String,
    signatures: Vec<Signature>,
    fetched_at: u64,
}

/// A format-1 record (no fetch time), read only to upgrade a file.
#[derive(Deserialize)]
struct RecordV1 {
    key: String,
    url: String,
    site: String,
    signatures: Vec<Signature>,
}

/// A record of an older format (1 and 3 to 6) as a record of this build,
/// checked as a record of a chain of `detectors`.
pub(super) fn read_old(
    bytes: &[u8],
    from: u32,
    identity: &StoreIdentity,
    now: u64,
    detectors: usize,
) -> std::result::Result<DocRecord, String> {
    let (names, signatures, fetched_at) = match from {
        5 | 6 => {
            let old: RecordV5 = postcard::from_bytes(bytes).map_err(|x| x.to_string())?;
            return old.record.into_record(detectors, old.fetched_at);
        }
        1 => {
            let old: RecordV1 = postcard::from_bytes(bytes).map_err(|x| x.to_string())?;
            ((old.key, old.url, old.site), old.signatures, now)
        }
        4 => {
            let old: RecordV4 = postcard::from_bytes(bytes).map_err(|x| x.to_string())?;
            return Ok(DocRecord {
                key: old.key,
                url: old.url,
                site: old.site,
                kind: old.kind,
                signatures: old.signatures,
                evidence: old.evidence,
                fetched_at: old.fetched_at,
            });
        }
        _ => {
            let old: RecordV3 = postcard::from_bytes(bytes).map_err(|x| x.to_string())?;
            ((old.key, old.url, old.site), old.signatures, old.fetched_at)
        }
    };
    from_slots(identity, names, signatures, fetched_at)
}
