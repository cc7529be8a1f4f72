//! The API every detector implements and the types it passes: the stable
//! hash, [`SettingError`], [`Document`], [`Signature`], [`Similarity`],
//! [`Judgement`], [`Detector`] and [`CandidateIndex`].

use std::fmt;

use crate::Words;
use serde::{Deserialize, Serialize};

/// Seed of every stored 64-bit hash. Changing it invalidates stored indexes.
pub const HASH_SEED: u64 = 0x6e65_6172_6475_7031; // "neardup1"

/// Stable 64-bit hash (xxh3 with a fixed seed): the same on every run,
/// platform and version of neardup, so fingerprints can be stored. The one
/// hash every layer (extraction, content, signatures, stores) shares.
#[inline]
pub fn hash64(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(bytes, HASH_SEED)
}

/// A setting with a value outside what its owner allows: each config
/// section's `validate` (in whichever crate owns the section) and each
/// plugin return it. A plugin's key is relative to its table; the core
/// reports it as `plugins.<detector>.<key>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingError {
    /// The key inside the plugin's table, e.g. `num_perm` (empty when the
    /// table as a whole could not be read, e.g. an unknown key).
    pub key: String,
    /// The offending value as written.
    pub value: String,
    /// What is allowed, e.g. "must be in 1..=1024".
    pub allowed: String,
}

impl SettingError {
    /// A setting `key` whose `value` is not what is `allowed`.
    pub fn new(
        key: impl Into<String>,
        value: impl std::fmt::Display,
        allowed: impl Into<String>,
    ) -> SettingError {
        SettingError {
            key: key.into(),
            value: value.to_string(),
            allowed: allowed.into(),
        }
    }

    /// Checks `lo <= value <= hi` for the 64-bit setting `key`.
    ///
    /// # Errors
    /// A [`SettingError`] naming the key, value and range.
    pub fn range64(key: &str, value: u64, lo: u64, hi: u64) -> Result<(), SettingError> {
        if (lo..=hi).contains(&value) {
            Ok(())
        } else {
            Err(SettingError::new(
                key,
                value,
                format!("must be in {lo}..={hi}"),
            ))
        }
    }

    /// Checks `lo <= value <= hi` for the setting `key`.
    ///
    /// # Errors
    /// A [`SettingError`] naming the key, value and range.
    pub fn range(key: &str, value: usize, lo: usize, hi: usize) -> Result<(), SettingError> {
        if (lo..=hi).contains(&value) {
            Ok(())
        } else {
            Err(SettingError {
                key: key.into(),
                value: value.to_string(),
                allowed: format!("must be in {lo}..={hi}"),
            })
        }
    }

    /// Checks `0.0 <= value <= hi` (and not NaN) for the setting `key`.
    ///
    /// # Errors
    /// A [`SettingError`] naming the key, value and range.
    pub fn unit(key: &str, value: f64, hi: f64) -> Result<(), SettingError> {
        if (0.0..=hi).contains(&value) {
            Ok(())
        } else {
            Err(SettingError {
                key: key.into(),
                value: value.to_string(),
                allowed: format!("must be in 0.0..={hi:.1}"),
            })
        }
    }
}

impl std::fmt::Display for SettingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` = {}: {}", self.key, self.value, self.allowed)
    }
}

impl std::error::Error for SettingError {}

/// Dense identifier the index gives to every document it keeps, in
/// insertion order. 32 bits keep postings small; one index shard holds at
/// most 4 billion documents.
pub type DocId = u32;

/// A page after extraction and normalization: everything a detector may look
/// at. Built by the core; detectors only read it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Document {
    /// The URL the page was fetched from (canonicalized by the caller).
    pub url: String,
    /// The page's site (host), used for per-site reports.
    pub site: String,
    /// The page title, whitespace-collapsed.
    pub title: String,
    /// Main text as extracted, original case, one text block per line.
    pub text: String,
    /// Detected language as an ISO 639-3 code, or `"und"` when unknown.
    pub lang: String,
    /// Normalized words in order (NFKC, lowercased, Unicode word boundaries;
    /// each CJK character its own word). Stop words are kept.
    pub words: Words,
    /// Terms in order: `words` without stop words, stemmed. Shingles and
    /// chunks are built from these, so inflection and stop-word edits do not
    /// break similarity.
    pub terms: Words,
}

/// What a detector computes for one document. Stored in the index next to
/// the document so later pages can be verified against it, so every variant
/// must be built from hashes that are stable across runs, platforms and
/// versions (xxh3 with fixed seeds, never `std`'s `RandomState`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Signature {
    /// One 64-bit fingerprint (an exact hash, a SimHash).
    Fingerprint(u64),
    /// A sorted, deduplicated set of 32-bit feature hashes (chunks,
    /// shingles, sentences). Set similarity is resemblance and containment.
    Set(Vec<u32>),
    /// A fixed-length vector of hash values compared position by position
    /// (a MinHash sketch: one minimum per hash function).
    Sketch(Vec<u32>),
    /// A real-valued vector (multi-reference cosine signatures).
    Vector(Vec<f32>),
    /// Nothing to compare: the document had no features for this detector
    /// (an empty page, or one too short for the detector's features).
    Empty,
}

impl Signature {
    /// Returns true if and only if the signature carries no features.
    pub fn is_empty(&self) -> bool {
        match self {
            Signature::Fingerprint(_) => false,
            Signature::Set(s) | Signature::Sketch(s) => s.is_empty(),
            Signature::Vector(v) => v.is_empty(),
            Signature::Empty => true,
        }
    }

    /// Approximate heap bytes the signature occupies, for memory reports.
    pub fn heap_bytes(&self) -> usize {
        match self {
            Signature::Set(s) | Signature::Sketch(s) => s.capacity() * 4,
            Signature::Vector(v) => v.capacity() * 4,
            Signature::Fingerprint(_) | Signature::Empty => 0,
        }
    }
}

/// How alike a new document is to an earlier one, as a detector measures it.
/// Both values lie in `0.0..=1.0`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Similarity {
    /// Symmetric similarity: Jaccard `|A∩B| / |A∪B|` for sets, `1 - d/64`
    /// for fingerprints at Hamming distance `d`, cosine for vectors.
    pub resemblance: f64,
    /// Containment of the smaller document in the larger one,
    /// `|A∩B| / min(|A|, |B|)` for sets; equal to `resemblance` where the
    /// detector cannot tell containment apart.
    pub containment: f64,
}

impl Similarity {
    /// A similarity whose resemblance and containment are both `value`.
    pub fn symmetric(value: f64) -> Similarity {
        Similarity {
            resemblance: value,
            containment: value,
        }
    }
}

/// How strong a match is, in the two-threshold scheme: at or above `t1` a
/// page is a duplicate, between `t2` and `t1` a near duplicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Similar enough to be worth reporting, not a copy (`t2 <= s < t1`).
    NearDuplicate,
    /// A copy, up to trivial changes (`s >= t1`).
    Duplicate,
}

/// A detector's judgement of one candidate: the level and a one-line reason
/// a person can read ("chunk resemblance 0.82 >= 0.30").
#[derive(Clone, Debug, PartialEq)]
pub struct Judgement {
    /// Duplicate or near duplicate.
    pub level: Level,
    /// The value the decision rested on, in `0.0..=1.0`.
    pub score: f64,
    /// Why, in one line (its `Display`).
    pub reason: Reason,
}

/// Why a detector judged a pair as it did: one line for people, written
/// out by its [`fmt::Display`] when it is shown.
///
/// A set rule's reason keeps its figures and is put in words only then:
/// the core asks for the judgement of every candidate and sets most of
/// them aside (its content gate; on a documentation site, sibling pages
/// share most chunks), and writing two floats into a new string for each
/// cost more than the comparison itself (2.2% of a run's instructions on
/// rust-doc).
#[derive(Clone, Debug, PartialEq)]
pub enum Reason {
    /// A reason already in words.
    Text(String),
    /// A [`SetRule`](crate::SetRule)'s: which measure of the shared
    /// features passed which threshold.
    Set(SetReason),
}

/// The figures of a [`SetRule`](crate::SetRule)'s reason: "chunk
/// resemblance 0.82 >= 0.80", "chunk containment 0.91 >= 0.80 of 42
/// chunks".
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SetReason {
    /// The detector's features, in the singular ("chunk").
    pub what: &'static str,
    /// Containment (of the smaller set) rather than resemblance.
    pub containment: bool,
    /// The measure's value.
    pub value: f64,
    /// The threshold it reached.
    pub threshold: f64,
    /// The smaller set's size (said for containment only).
    pub features: usize,
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Text(text) => f.write_str(text),
            Reason::Set(SetReason {
                what,
                containment: false,
                value,
                threshold,
                ..
            }) => write!(f, "{what} resemblance {value:.2} >= {threshold:.2}"),
            Reason::Set(SetReason {
                what,
                containment: true,
                value,
                threshold,
                features,
            }) => write!(
                f,
                "{what} containment {value:.2} >= {threshold:.2} of {features} {what}s"
            ),
        }
    }
}

impl From<String> for Reason {
    fn from(text: String) -> Reason {
        Reason::Text(text)
    }
}

impl From<&str> for Reason {
    fn from(text: &str) -> Reason {
        Reason::Text(text.to_owned())
    }
}

/// A near-duplicate detection method: features, comparison and decision.
///
/// Object safe: detectors are chosen by name at run time and kept as
/// `Box<dyn Detector>`. A detector knows nothing about fetching, the CLI,
/// storage or other detectors.
pub trait Detector: Send + Sync {
    /// The stable name used in config, on the command line and in verdicts.
    fn name(&self) -> &str;

    /// Computes the document's signature. Deterministic: the same document
    /// and settings give the same signature on every run and platform.
    fn sign(&self, doc: &Document) -> Signature;

    /// Compares a new document's signature (`query`) with an earlier one's.
    /// Signatures the detector did not make may give any value but must not
    /// panic.
    fn similarity(&self, query: &Signature, earlier: &Signature) -> Similarity;

    /// Decides whether a similarity is a match under this detector's
    /// thresholds, and says why. `None` means "not a match".
    fn classify(
        &self,
        query: &Signature,
        earlier: &Signature,
        sim: Similarity,
    ) -> Option<Judgement>;

    /// A new, empty candidate index for this detector's signatures.
    fn new_index(&self) -> Box<dyn CandidateIndex>;

    /// [`Detector::classify`] with the detector's own index in view, for
    /// rules about everything seen before rather than one pair (see the
    /// crate docs). The core calls this method; the default ignores the
    /// index and calls `classify`.
    fn classify_in_context(
        &self,
        index: &dyn CandidateIndex,
        query: &Signature,
        earlier: &Signature,
        sim: Similarity,
    ) -> Option<Judgement> {
        let _ = index;
        self.classify(query, earlier, sim)
    }

    /// Returns true if and only if this detector is reliable on short pages
    /// (fewer terms than the configured minimum). Only exact hashing is, by
    /// default; others are skipped there so short pages do not cluster by
    /// chance.
    fn handles_short_pages(&self) -> bool {
        false
    }

    /// Lines for people choosing settings: what the detector's settings
    /// imply (e.g. an LSH index's candidate threshold and S-curve), shown
    /// by `neardup detectors`. The default says nothing.
    fn describe(&self) -> Vec<String> {
        Vec::new()
    }

    /// The settings that change what [`Detector::sign`] returns for a
    /// document, as (dotted config key, value) pairs, e.g.
    /// `("plugins.minhash.shingle", "5")`. A stored index records them and
    /// refuses to open with other values: signatures made with other
    /// settings are not comparable. Leave out decision thresholds (read by
    /// `classify`) and parameters of the candidate index (`new_index`): an
    /// index may be reopened with other values of those. `None` (the
    /// default): the detector does not say, and every key of its
    /// `[plugins.NAME]` table counts.
    fn signature_settings(&self) -> Option<Vec<(String, String)>> {
        None
    }
}

/// A detector's in-memory lookup structure: which earlier documents may match
/// a signature. It may return false candidates (the core verifies each with
/// [`Detector::similarity`]), and should miss as few true matches as its
/// method allows.
///
/// Calls are sequential per index: the core serializes inserts with lookups
/// so verdicts follow arrival order.
pub trait CandidateIndex: Send + Sync {
    /// Appends to `out` the ids of earlier documents that may match `sig`,
    /// each at most once, best candidates first where the index can tell.
    fn candidates(&self, sig: &Signature, out: &mut Vec<DocId>);

    /// Appends to `out` the first `limit` ids of
    /// [`CandidateIndex::candidates`] that `accept` takes, in that order:
    /// the candidates the core verifies. An index that ranks its candidates
    /// may override it to rank only those asked for (a page of a large site
    /// can share chunks with thousands of pages, of which the core verifies
    /// a few dozen); the answer must be the default's.
    fn best_candidates(
        &self,
        sig: &Signature,
        limit: usize,
        accept: &dyn Fn(DocId) -> bool,
        out: &mut Vec<DocId>,
    ) {
        // Filtered in place past what `out` held: no list of its own.
        let start = out.len();
        self.candidates(sig, out);
        let mut kept = start;
        for i in start..out.len() {
            let id = out[i];
            if kept - start < limit && accept(id) {
                out[kept] = id;
                kept += 1;
            }
        }
        out.truncate(kept);
    }

    /// Adds a kept document.
    fn insert(&mut self, id: DocId, sig: &Signature);

    /// Removes a document previously inserted with the same signature.
    fn remove(&mut self, id: DocId, sig: &Signature);

    /// Number of documents indexed.
    fn len(&self) -> usize;

    /// Returns true if and only if no document is indexed.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Approximate heap bytes used, for the per-tier memory report.
    fn heap_bytes(&self) -> usize;

    /// Share (`0.0..=1.0`) of the query's features found in any indexed
    /// document, or `None` if the index does not track it (the default).
    /// Lets [`Detector::classify_in_context`] judge a page against the union
    /// of all earlier pages.
    fn coverage(&self, sig: &Signature) -> Option<f64> {
        let _ = sig;
        None
    }
}
