//! The exact tier: fingerprint -> first document with it.

use std::collections::HashMap;

use neardup_api::{CandidateIndex, DocId, Signature};

/// Exact-hash index. The key is already a uniform 64-bit hash, so the map
/// uses an identity hasher (no `RandomState`: lookups are deterministic and
/// cheap).
#[derive(Debug, Default)]
pub struct ExactIndex {
    map: HashMap<u64, DocId, std::hash::BuildHasherDefault<IdentityHasher>>,
}

impl CandidateIndex for ExactIndex {
    fn candidates(&self, sig: &Signature, out: &mut Vec<DocId>) {
        if let Signature::Fingerprint(fp) = sig {
            out.extend(self.map.get(fp).copied());
        }
    }

    fn insert(&mut self, id: DocId, sig: &Signature) {
        if let Signature::Fingerprint(fp) = sig {
            self.map.entry(*fp).or_insert(id);
        }
    }

    fn remove(&mut self, id: DocId, sig: &Signature) {
        if let Signature::Fingerprint(fp) = sig {
            if self.map.get(fp) == Some(&id) {
                self.map.remove(fp);
            }
        }
    }

    fn len(&self) -> usize {
        self.map.len()
    }

    fn heap_bytes(&self) -> usize {
        // hashbrown: one control byte plus the (u64, u32) slot per bucket.
        self.map.capacity() * (1 + std::mem::size_of::<(u64, DocId)>())
    }
}

/// Hasher for keys that are already uniform hashes: passes the u64 through.
#[derive(Debug, Default, Clone, Copy)]
pub struct IdentityHasher(u64);

impl std::hash::Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }

    fn write_u32(&mut self, n: u32) {
        // Spread 32-bit keys over the high bits hashbrown uses for control bytes.
        self.0 = u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}
