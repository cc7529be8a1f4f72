//! The wire format: serializable twins of the core types. The core's
//! `Verdict` may change shape; these structs are the API contract described
//! by `docs/openapi.json`, and only this module maps one onto the other.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use neardup::Stats;
use neardup::{Match, Redirect, RedirectKind, Verdict, VerdictKind};

/// `POST /v1/check` body, and one element of a batch.
///
/// Every field is optional at the serde level so that a missing field gets a
/// `missing_field` error naming it, not serde's generic message.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
pub struct CheckRequest {
    /// The page URL (http or https).
    pub url: Option<String>,
    /// The caller's key for the page (a doc id); defaults to the URL.
    pub key: Option<String>,
    /// The page as HTML.
    pub html: Option<String>,
    /// The page as plain text (main content already extracted).
    pub text: Option<String>,
    /// Response headers of the fetch; only `content-type` is read.
    pub headers: Option<BTreeMap<String, String>>,
}

/// `POST /v1/check/batch` body.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
pub struct BatchRequest {
    /// Pages, decided in this order.
    pub pages: Option<Vec<CheckRequest>>,
}

/// The matched earlier page.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct MatchBody {
    /// The earlier page's index id (for `DELETE /v1/docs/{id}`). Every
    /// match `serve` makes names an indexed page (content, `same_url`,
    /// `canonical`), so it is always there; a match without an id would
    /// leave it out rather than send a made-up one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u32>,
    /// The earlier page's key.
    pub key: String,
    /// The earlier page's URL.
    pub url: String,
    /// The detector that fired.
    pub detector: String,
    /// The score the decision rested on, 0..1.
    pub similarity: f64,
    /// Resemblance of the two pages, 0..1.
    pub resemblance: f64,
    /// Containment of the smaller page in the larger, 0..1.
    pub containment: f64,
    /// Share of this page's own content found in the matched page, 0..1;
    /// absent when the match was not made by content (`same_url`,
    /// `canonical`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covered: Option<f64>,
    /// Why, in one line.
    pub reason: String,
}

/// The verdict on one page.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct VerdictBody {
    /// `unique`, `duplicate` or `near_duplicate`.
    pub kind: VerdictKind,
    /// The matched earlier page, for duplicates and near duplicates.
    pub matched: Option<MatchBody>,
    /// For a kept page whose content is in an earlier page saying 4x as
    /// much, 6x for an article (a part of an all-in-one page): that page. A relation, not a
    /// drop; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contained_in: Option<MatchBody>,
    /// The id this page got in the index, if it was indexed.
    pub indexed_as: Option<u32>,
    /// Present when the page is a redirect stub (meta refresh or one-link
    /// page): a crawler follows `to`, whatever the kind (the stub itself is
    /// judged on its own text, like any page).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect: Option<RedirectBody>,
    /// Problems with the page that did not stop the check.
    pub warnings: Vec<String>,
}

/// A redirect stub's target.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct RedirectBody {
    /// The target URL, resolved against the page URL, without fragment.
    pub to: String,
    /// `meta_refresh` or `link_stub`.
    pub kind: RedirectKind,
}

impl From<Redirect> for RedirectBody {
    fn from(r: Redirect) -> RedirectBody {
        RedirectBody {
            to: r.to,
            kind: r.kind,
        }
    }
}

impl From<Verdict> for VerdictBody {
    fn from(v: Verdict) -> VerdictBody {
        VerdictBody {
            kind: v.kind,
            matched: v.matched.map(MatchBody::from),
            contained_in: v.contained_in.map(MatchBody::from),
            indexed_as: v.indexed_as,
            redirect: v.redirect.map(RedirectBody::from),
            warnings: v.warnings,
        }
    }
}

impl From<Match> for MatchBody {
    fn from(m: Match) -> MatchBody {
        MatchBody {
            id: m.id,
            key: m.key,
            url: m.url,
            detector: m.basis.name().to_owned(),
            similarity: m.similarity,
            resemblance: m.resemblance,
            containment: m.containment,
            covered: m.covered,
            reason: m.reason,
        }
    }
}

/// `POST /v1/check/batch` response.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct BatchBody {
    /// One verdict per page, in request order.
    pub verdicts: Vec<VerdictBody>,
}

/// Approximate heap bytes of one tier.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct TierMemory {
    /// Detector name, `urls` for the URL map and expiry queue, or `store`
    /// for the document store.
    pub tier: String,
    /// Approximate heap bytes.
    pub bytes: u64,
}

/// `GET /v1/stats` response.
///
/// The verdict counters are this server process's: they start at 0 when it
/// starts, like every Prometheus counter (`rate()` expects resets), and each
/// server sharing a Redis index counts its own checks, so adding them up
/// over servers is right. Stored with the index they would count one
/// server's restarts but not its crashes (the counters would lag the
/// commits) and be written by every server of a shared index at once.
/// `indexed` is the index's own size, which persists.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct StatsBody {
    /// Pages checked by this server process since it started.
    pub checked: u64,
    /// Of them, found unique.
    pub unique: u64,
    /// Of them, exact or near-exact copies (`same_url` and `canonical`
    /// included).
    pub duplicates: u64,
    /// Of them, near duplicates.
    pub near_duplicates: u64,
    /// Documents in the index now (persists across restarts).
    pub indexed: u64,
    /// The detector chain, in order.
    pub detectors: Vec<String>,
    /// Memory per tier: each detector's index, then the store.
    pub memory: Vec<TierMemory>,
}

impl StatsBody {
    /// Builds the body from the deduper's counters, chain and memory.
    pub fn new(stats: Stats, detectors: Vec<String>, memory: Vec<(String, usize)>) -> StatsBody {
        StatsBody {
            checked: stats.checked,
            unique: stats.verdicts.unique,
            duplicates: stats.verdicts.duplicates,
            near_duplicates: stats.verdicts.near_duplicates,
            indexed: stats.indexed,
            detectors,
            memory: memory
                .into_iter()
                .map(|(tier, bytes)| TierMemory {
                    tier,
                    bytes: bytes as u64,
                })
                .collect(),
        }
    }
}

/// `DELETE /v1/docs/{id}` and `DELETE /v1/docs?url=URL` response.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct DeletedBody {
    /// The removed document's id.
    pub id: u32,
    /// Always true: a missing document is a 404.
    pub removed: bool,
}

/// `GET /healthz` and `GET /readyz` response.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct HealthBody {
    /// `ok` from `/healthz` (always, while the server answers); `ready`
    /// from `/readyz` (the index backend answered).
    pub status: String,
}

/// Every error response: `{"error": {"code": ..., "message": ...}}`.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct ErrorBody {
    /// The error.
    pub error: ErrorDetail,
}

/// The error inside [`ErrorBody`].
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct ErrorDetail {
    /// Stable machine-readable code (`invalid_url`, `payload_too_large`...).
    pub code: String,
    /// Human-readable explanation.
    pub message: String,
}
