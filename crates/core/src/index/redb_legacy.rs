//! Records of the redb store's older formats, read only to upgrade a file
//! ([`read_old`]); the upgrade itself is `RedbStore::upgrade`.

use neardup_api::Signature;
use serde::Deserialize;

use super::store::{from_slots, DocRecord, RecordKind};
use crate::content::Evidence;
use crate::identity::StoreIdentity;

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

/// A record of an older format (1, 3 or 4) as a record of this build.
pub(super) fn read_old(
    bytes: &[u8],
    from: u32,
    identity: &StoreIdentity,
    now: u64,
) -> std::result::Result<DocRecord, String> {
    let (names, signatures, fetched_at) = match from {
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
