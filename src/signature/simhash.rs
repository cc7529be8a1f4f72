//! Charikar's SimHash over word shingles (placeholder; see the helper's work).

use neardup_api::{CandidateIndex, Detector, Document, Judgement, Level, Signature, Similarity};

use crate::config::SimhashConfig;
use crate::index::SimhashIndex;

/// SimHash detector: near-exact copies at a small Hamming distance.
#[derive(Clone, Debug)]
pub struct SimhashDetector {
    config: SimhashConfig,
}

impl SimhashDetector {
    /// A SimHash detector with the given settings.
    pub fn new(config: &SimhashConfig) -> SimhashDetector {
        SimhashDetector {
            config: config.clone(),
        }
    }
}

/// SimHash of the `n`-word shingles of `terms`, binary weights.
pub fn simhash(terms: &[String], n: usize) -> u64 {
    let mut acc = [0i32; 64];
    let n = n.max(1);
    if terms.len() < n {
        return 0;
    }
    for w in terms.windows(n) {
        let h = super::hash64(w.join(" ").as_bytes());
        for (bit, a) in acc.iter_mut().enumerate() {
            *a += if h >> bit & 1 == 1 { 1 } else { -1 };
        }
    }
    acc.iter()
        .enumerate()
        .fold(0u64, |fp, (bit, a)| if *a > 0 { fp | 1 << bit } else { fp })
}

impl Detector for SimhashDetector {
    fn name(&self) -> &str {
        "simhash"
    }

    fn sign(&self, doc: &Document) -> Signature {
        if doc.terms.len() < self.config.shingle {
            return Signature::Empty;
        }
        Signature::Fingerprint(simhash(&doc.terms, self.config.shingle))
    }

    fn similarity(&self, query: &Signature, earlier: &Signature) -> Similarity {
        match (query, earlier) {
            (Signature::Fingerprint(a), Signature::Fingerprint(b)) => {
                Similarity::symmetric(1.0 - f64::from((a ^ b).count_ones()) / 64.0)
            }
            _ => Similarity::default(),
        }
    }

    fn classify(&self, q: &Signature, e: &Signature, sim: Similarity) -> Option<Judgement> {
        let (Signature::Fingerprint(a), Signature::Fingerprint(b)) = (q, e) else {
            return None;
        };
        let d = (a ^ b).count_ones();
        (d <= self.config.max_distance).then(|| Judgement {
            level: if d == 0 {
                Level::Duplicate
            } else {
                Level::NearDuplicate
            },
            score: sim.resemblance,
            reason: format!(
                "SimHash Hamming distance {d} <= {}",
                self.config.max_distance
            ),
        })
    }

    fn new_index(&self) -> Box<dyn CandidateIndex> {
        Box::new(SimhashIndex::new(self.config.max_distance))
    }
}
