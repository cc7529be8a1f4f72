//! What an index's stored signatures and evidence were computed with
//! ([`StoreIdentity`]), and why an index built one way cannot be read
//! another way. Depends on nothing else of the crate, so the store's
//! errors can carry identities ([`crate::StoreError::Incompatible`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Names of the parts of a record's evidence (`crate::content::Evidence`), listed after the detector
/// chain in the store identity (what a stored record holds).
pub const EVIDENCE_SLOTS: [&str; 5] = [
    "content.blocks",
    "content.shingles",
    "content.visible",
    "content.title",
    "content.about",
];

/// What the stored signatures were computed with: an index remembers it
/// and refuses to open with another, because signatures made another way
/// would be compared as if they were comparable.
///
/// # The rule: what changes a stored record, not what decides
/// An identity holds
/// - the detector chain (one stored signature per name), then the names of
///   the content evidence's parts (`EVIDENCE_SLOTS`);
/// - [`settings`](StoreIdentity::settings): every setting that changes a
///   stored signature or evidence for the same page, by dotted config key:
///   the hash seed; `analysis_version` (`crate::content::ANALYSIS_VERSION`:
///   bumped when this code computes other signatures or evidence for the
///   same bytes); `extract.mode` and `extract.max_body_bytes` (which text
///   is signed); all of `text.*` (normalisation, stop words, stemming, the
///   language detection that picks stop words and stemmer); and what each
///   detector reports through
///   [`Detector::signature_settings`](neardup_api::Detector::signature_settings)
///   (`simhash.shingle`, `simhash.weights`, `chunks.chunker`,
///   `chunks.avg_size`, `chunks.min_size`, `chunks.max_size`,
///   `chunks.window`; the plugins' shingles, sketch sizes, moduli, windows,
///   e.g. `plugins.minhash.num_perm`; a plugin that does not say, such as
///   `multiref`, counts with its whole `[plugins.NAME]` table).
///
/// Left out on purpose, so they may change between runs over one index:
/// decision thresholds (`chunks.duplicate`, `chunks.near_duplicate`,
/// `chunks.containment`, `chunks.containment_min_chunks`,
/// `simhash.max_distance`, the plugins' thresholds, `decide.*`:
/// `min_terms`, `min_coverage`, `index_near_duplicates`), parameters of the
/// derived candidate indexes (`chunks.max_postings`, the simhash tables,
/// LSH bands and rows), `index.*` (ttl, recrawl rule, cache size),
/// `extract.max_links` and everything under `crawl`.
/// A detector's `enabled` switch changes the chain, which is checked as
/// such.
///
/// # Indexes written before settings were recorded
/// Older indexes (redb format 1 and 2, Redis log format 1) recorded only a
/// fingerprint: a hash of the whole extract, text, simhash, chunks and
/// plugins sections, thresholds included. Such an index opens when that
/// fingerprint equals [`legacy_fingerprint`](StoreIdentity::legacy_fingerprint)
/// (it was built with exactly this config), and its identity is then
/// rewritten in the new form; otherwise it is refused with a message saying
/// to open it once with the config it was built with, or to rebuild it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreIdentity {
    /// Detector names, in chain order (one stored signature per name),
    /// then the names of the content evidence's parts.
    pub detectors: Vec<String>,
    /// Dotted config key -> value (as JSON) of every setting that changes
    /// stored signatures or evidence (see the rule above).
    pub settings: BTreeMap<String, String>,
    /// The fingerprint an index written before settings were recorded has
    /// for this config; `None` accepts no such index. Not stored.
    #[serde(skip)]
    pub legacy_fingerprint: Option<u64>,
}

/// The identity as indexes before settings were recorded stored it.
#[cfg(any(feature = "redb", feature = "redis"))]
#[derive(Debug, Deserialize)]
pub(crate) struct LegacyIdentity {
    pub(crate) detectors: Vec<String>,
    pub(crate) fingerprint: u64,
}

#[cfg(any(feature = "redb", feature = "redis"))]
impl LegacyIdentity {
    /// As an identity: the chain and the fingerprint, no settings (they
    /// were not recorded).
    pub(crate) fn identity(&self) -> StoreIdentity {
        StoreIdentity {
            detectors: self.detectors.clone(),
            settings: BTreeMap::new(),
            legacy_fingerprint: Some(self.fingerprint),
        }
    }
}

impl StoreIdentity {
    /// The detector chain: the names before the content evidence's parts
    /// (`EVIDENCE_SLOTS`); a record holds one signature per
    /// name of the chain.
    pub fn chain(&self) -> &[String] {
        chain_of(&self.detectors)
    }

    /// A stable hash of the detector names and settings (for metadata such
    /// as an export's; the store compares the settings themselves).
    pub fn fingerprint(&self) -> u64 {
        let mut bytes = Vec::new();
        for name in &self.detectors {
            bytes.extend_from_slice(name.as_bytes());
            bytes.push(0);
        }
        for (key, value) in &self.settings {
            bytes.extend_from_slice(key.as_bytes());
            bytes.push(b'=');
            bytes.extend_from_slice(value.as_bytes());
            bytes.push(0);
        }
        neardup_api::hash64(&bytes)
    }

    /// Why an index built with `self` cannot be opened with `now`, or
    /// `None` if it can: names the chains, or each differing setting with
    /// both values. The caller adds what to do instead.
    pub fn mismatch(&self, now: &StoreIdentity) -> Option<String> {
        if let Some(why) = chain_mismatch(&self.detectors, &now.detectors) {
            return Some(why);
        }
        let keys: std::collections::BTreeSet<&String> =
            self.settings.keys().chain(now.settings.keys()).collect();
        let shown = |v: Option<&String>| v.map_or("(not recorded)".to_owned(), Clone::clone);
        let differing: Vec<String> = keys
            .into_iter()
            .filter(|k| self.settings.get(*k) != now.settings.get(*k))
            .map(|k| {
                format!(
                    "`{k}` = {} in the index, {} now",
                    shown(self.settings.get(k)),
                    shown(now.settings.get(k))
                )
            })
            .collect();
        (!differing.is_empty()).then(|| {
            format!(
                "built with other signature settings ({}): signatures made with other \
                 settings are not comparable",
                differing.join(", ")
            )
        })
    }

    /// Why an index whose identity was stored in the old form (`stored`)
    /// cannot be opened with `self`, or `None` if it was built with exactly
    /// this config.
    #[cfg(any(feature = "redb", feature = "redis"))]
    pub(crate) fn legacy_mismatch(&self, stored: &LegacyIdentity) -> Option<String> {
        if let Some(why) = chain_mismatch(&stored.detectors, &self.detectors) {
            return Some(why);
        }
        (self.legacy_fingerprint != Some(stored.fingerprint)).then(|| {
            format!(
                "built by an older neardup that recorded only a fingerprint of all its \
                 settings, thresholds included ({:016x}; this config gives {}), so it cannot \
                 tell which setting differs: open it once with the config it was built with \
                 (that records its settings, and later threshold changes are accepted), or \
                 rebuild it",
                stored.fingerprint,
                self.legacy_fingerprint
                    .map_or("none".to_owned(), |f| format!("{f:016x}"))
            )
        })
    }
}

/// The names before the evidence slots.
fn chain_of(detectors: &[String]) -> &[String] {
    let end = detectors
        .iter()
        .position(|n| EVIDENCE_SLOTS.contains(&n.as_str()))
        .unwrap_or(detectors.len());
    &detectors[..end]
}

/// Why an index with detector slots `stored` cannot be read with `now`.
fn chain_mismatch(stored: &[String], now: &[String]) -> Option<String> {
    if stored == now {
        return None;
    }
    if chain_of(stored) == chain_of(now) {
        return Some(
            "built by an older neardup, without the content evidence every verdict now \
             rests on (`content.*`): rebuild it with this version"
                .into(),
        );
    }
    Some(format!(
        "built with detector chain [{}], opened with [{}]",
        chain_of(stored).join(", "),
        chain_of(now).join(", ")
    ))
}
