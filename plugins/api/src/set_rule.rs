//! The decision rule of set detectors ([`SetRule`]) and the set
//! similarity it judges.

use serde::{Deserialize, Serialize};

use crate::detector::{Judgement, Level, Reason, SetReason, Signature, Similarity};

/// The decision rule of set detectors (chunks, BSW, Mod_n): resemblance at
/// or above `duplicate` is a duplicate, at or above `near_duplicate` a near
/// duplicate; otherwise containment of the smaller set at or above
/// `containment`, when that set has at least `min_features` features, is a
/// near duplicate (an excerpt, page 1 of a "view all").
///
/// A plugin's settings hold it flattened (`#[serde(flatten)]`), so its
/// table keeps the four keys `duplicate`, `near_duplicate`, `containment`
/// and `containment_min_features` beside its own; keys it leaves out take
/// [`SetRule::default`]. The settings struct keeps `deny_unknown_fields`,
/// which still rejects a key neither it nor the rule knows.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SetRule {
    /// Resemblance threshold for a duplicate (`t1`).
    pub duplicate: f64,
    /// Resemblance threshold for a near duplicate (`t2`).
    pub near_duplicate: f64,
    /// Containment threshold; above 1.0 turns the containment rule off.
    pub containment: f64,
    /// Features the smaller set needs before containment is trusted.
    #[serde(rename = "containment_min_features")]
    pub min_features: usize,
}

/// The defaults of the `bsw` and `mod_n` tables: resemblance 0.8 for a
/// duplicate and 0.4 for a near duplicate; containment 0.8 of a smaller
/// set of at least 10 features. (The core's `[chunks]` has its own.)
impl Default for SetRule {
    fn default() -> Self {
        SetRule {
            duplicate: 0.8,
            near_duplicate: 0.4,
            containment: 0.8,
            min_features: 10,
        }
    }
}

impl SetRule {
    /// Judges two set signatures. `what` names the detector's features in
    /// the reason ("chunk" gives "chunk resemblance 0.82 >= 0.80" and
    /// "chunk containment 0.91 >= 0.80 of 42 chunks").
    pub fn judge(
        &self,
        what: &'static str,
        query: &Signature,
        earlier: &Signature,
        sim: Similarity,
    ) -> Option<Judgement> {
        let r = sim.resemblance;
        for (threshold, level) in [
            (self.duplicate, Level::Duplicate),
            (self.near_duplicate, Level::NearDuplicate),
        ] {
            if r >= threshold {
                return Some(Judgement {
                    level,
                    score: r,
                    reason: Reason::Set(SetReason {
                        what,
                        containment: false,
                        value: r,
                        threshold,
                        features: 0,
                    }),
                });
            }
        }
        let smaller = match (query, earlier) {
            (Signature::Set(a), Signature::Set(b)) => a.len().min(b.len()),
            _ => 0,
        };
        (sim.containment >= self.containment && smaller >= self.min_features).then_some(Judgement {
            level: Level::NearDuplicate,
            score: sim.containment,
            reason: Reason::Set(SetReason {
                what,
                containment: true,
                value: sim.containment,
                threshold: self.containment,
                features: smaller,
            }),
        })
    }
}

/// Resemblance and containment of two sorted, deduplicated sets.
///
/// Empty sets have similarity 0 (nothing to compare), never NaN.
pub fn set_similarity(a: &[u32], b: &[u32]) -> Similarity {
    if a.is_empty() || b.is_empty() {
        return Similarity::default();
    }
    let shared = crate::sorted::shared_count(a, b) as f64;
    let union = (a.len() + b.len()) as f64 - shared;
    Similarity {
        resemblance: shared / union,
        containment: shared / a.len().min(b.len()) as f64,
    }
}

/// Size of the intersection of two sorted, deduplicated slices of any
/// ordered type, by a linear merge: document ids in the all-pairs join,
/// sentence hashes. `u32` feature sets have the faster
/// [`shared_count`](crate::shared_count).
pub fn intersection_size<T: Ord>(a: &[T], b: &[T]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}
