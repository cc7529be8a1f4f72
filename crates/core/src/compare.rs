//! Judging pages in pairs, offline: what a batch engine (Spark, through
//! the Python package) needs to recompute the deduper's decisions without
//! its sequential index.
//!
//! Online, [`Deduper::decide`] finds candidates in its indexes and judges
//! the new page against each. Offline, the engine finds the same
//! candidates with joins on the indexes' own keys ([`Deduper::join_keys`]),
//! then asks [`Deduper::compare`] about each pair: the same detector
//! similarity, thresholds and content gate as online, for one pair.
//!
//! A [`Comparable`] is a page reduced to what that needs: its record (what
//! the index would store) and its content (what a drop of it is judged
//! on). [`Comparable::to_bytes`] makes it a column value; the bytes carry
//! the chain's fingerprint, so pages analyzed with another detector chain
//! or other signature settings are refused rather than compared.
//!
//! # What differs from the online decision
//! - The site's template (the blocks most of its pages repeat) is learned
//!   online from the pages checked so far; a pair has no site around it,
//!   so every block counts as the page's own content (a *young* site's
//!   rule: see `content::thresholds::YOUNG_MIN_COVERAGE`).
//! - The block-index fallback (a page whose own blocks appear in a kept
//!   page no detector matched) is applied to the pair, but the joins do
//!   not look for such pairs: block hashes are mostly template, and
//!   joining on them pairs every page of a site with every other.
//! - Online a page is judged against *kept* pages only; which pages are
//!   kept is the engine's to decide (the Spark job settles it in input
//!   order as online: python/src/neardup/spark.py, `settle`).

use neardup_api::Signature;
use serde::{Deserialize, Serialize};

use crate::content::{Coverage, Evidence, Kept, OwnContent, PageContent, Templates};
use crate::deduper::{Analyzed, Deduper};
use crate::policy::{Policy, Ruling, Via};
use crate::verdict::{Match, MatchBasis, VerdictKind};

/// Version of the [`Comparable::to_bytes`] layout. 3: the evidence is a
/// field of its own, not slots after the chain's signatures.
const FORMAT: u32 = 3;

/// A page as an offline join carries it (see the module docs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparable {
    /// The caller's key.
    pub key: String,
    /// The page's URL.
    pub url: String,
    /// The page's site (host).
    pub site: String,
    /// Terms after normalization: below `decide.min_terms` the page is
    /// compared by exact hash only.
    pub terms: u32,
    /// One signature per detector of the chain.
    pub signatures: Vec<Signature>,
    /// What the deduper would store of the page as the kept side.
    pub evidence: Evidence,
    content: PageContent,
}

/// The header of [`Comparable::to_bytes`].
#[derive(Serialize, Deserialize)]
struct Header {
    format: u32,
    fingerprint: u64,
}

/// What [`Deduper::compare`] found: the later page is a copy of the
/// earlier one.
#[derive(Clone, Debug, PartialEq)]
pub struct PairMatch {
    /// Duplicate or near duplicate.
    pub kind: VerdictKind,
    /// The earlier page as a verdict names it (no doc id: it is not in an
    /// index), with detector, similarity and reason.
    pub matched: Match,
}

/// One detector's candidate keys of one page for an offline self-join
/// (see [`Deduper::join_keys`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JoinKeys {
    /// The detector whose index files the page under these keys.
    pub detector: String,
    /// Keys the page is found under, as the index posts it.
    pub posted: Vec<u64>,
    /// Keys a later page is looked up with: it is a candidate of every
    /// earlier page that posted one of them.
    pub probed: Vec<u64>,
}

impl Comparable {
    /// The page's bytes for a column: a header (layout version, chain
    /// fingerprint) and the page, postcard-encoded.
    pub fn to_bytes(&self, deduper: &Deduper) -> crate::Result<Vec<u8>> {
        let header = Header {
            format: FORMAT,
            fingerprint: deduper.chain_fingerprint()?,
        };
        let mut out = postcard::to_allocvec(&header).map_err(encode_error)?;
        out.extend(postcard::to_allocvec(self).map_err(encode_error)?);
        Ok(out)
    }

    /// Reads [`Comparable::to_bytes`] back.
    ///
    /// # Errors
    /// [`crate::Error::Argument`] if the bytes are not a comparable page,
    /// are of another layout, or were made with another detector chain or
    /// signature settings than `deduper`'s.
    pub fn from_bytes(deduper: &Deduper, bytes: &[u8]) -> crate::Result<Comparable> {
        let (header, rest): (Header, _) =
            postcard::take_from_bytes(bytes).map_err(|e| bad_bytes(e.to_string()))?;
        if header.format != FORMAT {
            return Err(bad_bytes(format!(
                "layout {} (this build reads {FORMAT})",
                header.format
            )));
        }
        let own = deduper.chain_fingerprint()?;
        if header.fingerprint != own {
            return Err(bad_bytes(format!(
                "made with another detector chain or signature settings \
                 (fingerprint {:#018x}, this deduper's is {own:#018x})",
                header.fingerprint
            )));
        }
        let page: Comparable = postcard::from_bytes(rest).map_err(|e| bad_bytes(e.to_string()))?;
        if !page.content.is_consistent() {
            return Err(bad_bytes("a block lies outside the page's words".into()));
        }
        if !page.evidence.is_consistent() {
            return Err(bad_bytes("its evidence's sets are not sorted".into()));
        }
        // The shingle index is rebuilt only for a pair a detector calls
        // alike (see `Deduper::compare`): most candidate pairs are not.
        Ok(page)
    }
}

fn encode_error(e: postcard::Error) -> crate::Error {
    crate::Error::Runtime {
        task: "encoding a comparable page".into(),
        message: e.to_string(),
    }
}

fn bad_bytes(message: String) -> crate::Error {
    crate::Error::Argument {
        name: "comparable page".into(),
        message,
    }
}

/// Salts that keep one detector's keys apart from another's.
const SIMHASH_SALT: u64 = 0x73_69_6d_68; // "simh"
const CHUNKS_SALT: u64 = 0x63_68_75_6e_6b; // "chunk"

/// Mixes a salt, a table number and a value into one key.
fn key(salt: u64, table: u64, value: u64) -> u64 {
    let mut bytes = [0u8; 24];
    bytes[..8].copy_from_slice(&salt.to_le_bytes());
    bytes[8..16].copy_from_slice(&table.to_le_bytes());
    bytes[16..].copy_from_slice(&value.to_le_bytes());
    neardup_api::hash64(&bytes)
}

impl Deduper {
    /// The page as an offline join carries it.
    pub fn comparable(&self, analyzed: &Analyzed) -> Comparable {
        Comparable {
            key: analyzed.key.clone(),
            url: analyzed.doc.url.clone(),
            site: analyzed.doc.site.clone(),
            terms: u32::try_from(analyzed.doc.terms.len()).unwrap_or(u32::MAX),
            signatures: analyzed.signatures.clone(),
            evidence: analyzed.evidence.clone(),
            content: analyzed.content.clone(),
        }
    }

    /// The fingerprint of this deduper's detector chain and signature
    /// settings (the store identity's).
    pub fn chain_fingerprint(&self) -> crate::Result<u64> {
        Ok(crate::deduper::identity_of(self.config(), self.detector_chain())?.fingerprint())
    }

    /// The keys the built-in detectors' indexes file `page` under, for an
    /// offline self-join: an earlier page is a candidate for a later one
    /// when one of its `posted` keys is among the later page's `probed`.
    ///
    /// - `simhash`: each of the `max_distance + 1` blocks of the
    ///   fingerprint, with its table number, as [`crate::SimhashIndex`]
    ///   buckets them (two fingerprints within `max_distance` bits agree
    ///   on one block).
    /// - `chunks`: the bottom-16 sample of the chunk set is posted, the
    ///   whole set probed, as [`crate::ChunkIndex`] does (containment of a
    ///   small page in a large one is found).
    ///
    /// `exact` has no keys here: its copies share one fingerprint, which an
    /// engine groups by (a key shared by thousands of pages would make a
    /// quadratic join; a group needs only each page paired with its first).
    /// Plugin detectors have none either: their candidates come from the
    /// other detectors' keys or not at all. A page too short for the
    /// similarity detectors (`decide.min_terms`) has no keys.
    pub fn join_keys(&self, page: &Comparable) -> Vec<JoinKeys> {
        let mut out = Vec::new();
        let short = (page.terms as usize) < self.config().decide.min_terms;
        for (det, sig) in self.detector_chain().iter().zip(&page.signatures) {
            if short && !det.handles_short_pages() {
                continue;
            }
            let mut keys = JoinKeys {
                detector: det.name().to_owned(),
                ..JoinKeys::default()
            };
            match (det.name(), sig) {
                ("simhash", Signature::Fingerprint(f)) => {
                    let k =
                        crate::index::simhash::blocks_of(self.config().simhash.max_distance, *f);
                    for (table, block) in k.into_iter().enumerate() {
                        let k = key(SIMHASH_SALT, table as u64, block);
                        keys.posted.push(k);
                        keys.probed.push(k);
                    }
                }
                ("chunks", Signature::Set(set)) => {
                    let sample = crate::index::chunk::DEFAULT_SAMPLE.min(set.len());
                    // A set is sorted: its first elements are the sample.
                    for (i, &h) in set.iter().enumerate() {
                        let k = key(CHUNKS_SALT, 0, u64::from(h));
                        if i < sample {
                            keys.posted.push(k);
                        }
                        keys.probed.push(k);
                    }
                }
                _ => continue,
            }
            keys.posted.sort_unstable();
            keys.posted.dedup();
            keys.probed.sort_unstable();
            keys.probed.dedup();
            out.push(keys);
        }
        out
    }

    /// Judges `later` against `earlier` as [`Deduper::decide`] would judge
    /// it against `earlier` kept in the index: each detector of the chain
    /// in turn (its similarity, its thresholds, then the content gate:
    /// the later page's own content must be in the earlier one), then the
    /// block fallback. `None` when the later page is not a copy.
    ///
    /// Site templates are not known here (see the module docs).
    pub fn compare(&self, earlier: &Comparable, later: &Comparable) -> Option<PairMatch> {
        let detectors = self.detector_chain();
        let policy = Policy::new(&self.config().decide, later.terms as usize);
        let evidence = earlier.evidence.as_ref();
        let templates = Templates::default();
        let template = templates.of(&later.site, &later.url);
        let content = std::cell::OnceCell::new();
        let content = || content.get_or_init(|| later.content.indexed());
        let own = std::cell::OnceCell::new();
        let own = || own.get_or_init(|| OwnContent::new(content(), template, &later.url));
        let kept_url = crate::content::KeptUrl::new(&earlier.url);
        let kept = Kept {
            evidence,
            page_name: kept_url.page_name(),
            url: &kept_url,
        };
        // As `Deduper::judge` names a match: the judgement's reason, then
        // how much of the page's own content the earlier page holds.
        let matched = |basis: MatchBasis, ruling: Ruling, coverage: Coverage| {
            let Ruling::Drop {
                kind,
                sim,
                judgement,
            } = ruling
            else {
                return None;
            };
            Some(PairMatch {
                kind,
                matched: Match {
                    id: None,
                    key: earlier.key.clone(),
                    url: earlier.url.clone(),
                    basis,
                    similarity: judgement.score,
                    resemblance: sim.resemblance,
                    containment: sim.containment,
                    reason: format!("{}; {}", judgement.reason, coverage.describe()),
                    covered: Some(coverage.share()),
                },
            })
        };
        for (i, det) in detectors.iter().enumerate() {
            let (Some(sig), Some(other)) = (later.signatures.get(i), earlier.signatures.get(i))
            else {
                continue;
            };
            if sig.is_empty() || other.is_empty() || !policy.tries(det.as_ref()) {
                continue;
            }
            let sim = det.similarity(sig, other);
            // The deduper's own index is the context a detector may judge
            // in (the sentence plugin's document frequencies): empty for a
            // deduper made for comparing.
            let Some(index) = self.derived.indexes.get(i) else {
                continue;
            };
            let Some(judgement) = det.classify_in_context(&**index, sig, other, sim) else {
                continue;
            };
            let via = Via::Detector { sim, judgement };
            let (coverage, ruling) = policy.judge(own(), content(), kept, template, &via);
            let basis = MatchBasis::Detector(det.name().to_owned());
            if let Some(m) = matched(basis, ruling, coverage) {
                return Some(m);
            }
        }
        // The block fallback, as online.
        let (coverage, ruling) = policy.judge(own(), content(), kept, template, &Via::Blocks);
        matched(MatchBasis::Content, ruling, coverage)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Config;
    use proptest::prelude::*;

    fn fixture(name: &str) -> Vec<u8> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/pages/");
        std::fs::read(format!("{path}{name}")).unwrap()
    }

    const PAGES: [&str; 6] = [
        "article.html",
        "copy.html",
        "near.html",
        "print.html",
        "unrelated.html",
        "short.html",
    ];

    /// Every ordered pair of the fixture pages: `compare` says what `decide`
    /// says of the later page with only the earlier one indexed (a fresh
    /// site has no template, as a pair has none).
    #[test]
    fn compare_agrees_with_decide_on_every_pair() {
        let mut drops = 0;
        for a in PAGES {
            for b in PAGES {
                if a == b {
                    continue;
                }
                let (ua, ub) = (
                    format!("https://x.example/{a}"),
                    format!("https://y.example/{b}"),
                );
                let mut online = Deduper::new(Config::default()).unwrap();
                online.check(&ua, &fixture(a), None).unwrap();
                let want = online.check(&ub, &fixture(b), None).unwrap();

                let offline = Deduper::new(Config::default()).unwrap();
                let pa = offline.comparable(&offline.analyze(a, &ua, &fixture(a), None));
                let pb = offline.comparable(&offline.analyze(b, &ub, &fixture(b), None));
                let got = offline.compare(&pa, &pb);
                match (&want.matched, got) {
                    (None, None) => {}
                    (Some(m), Some(p)) => {
                        drops += 1;
                        assert_eq!(
                            (p.kind, &p.matched.basis),
                            (want.kind, &m.basis),
                            "{a} -> {b}"
                        );
                        assert_eq!(p.matched.url, ua);
                        assert!(
                            (p.matched.similarity - m.similarity).abs() < 1e-9,
                            "{a} -> {b}"
                        );
                    }
                    (want, got) => panic!("{a} -> {b}: decide {want:?}, compare {got:?}"),
                }
            }
        }
        // The fixtures hold copies: the agreement is not all "unique".
        assert!(drops >= 4, "{drops} drops");
    }

    #[test]
    fn bytes_round_trip_and_are_refused_by_another_chain() {
        let d = Deduper::new(Config::default()).unwrap();
        let page =
            d.comparable(&d.analyze("k", "https://x.example/a", &fixture("article.html"), None));
        let bytes = page.to_bytes(&d).unwrap();
        let back = Comparable::from_bytes(&d, &bytes).unwrap();
        assert_eq!(back.to_bytes(&d).unwrap(), bytes);
        assert_eq!(
            (&back.key, &back.url, &back.signatures),
            (&page.key, &page.url, &page.signatures)
        );
        assert_eq!(
            *back.content.indexed(),
            page.content,
            "the shingle index is rebuilt as analysis built it"
        );
        // Read back, a page is judged as before.
        let near =
            d.comparable(&d.analyze("n", "https://y.example/n", &fixture("near.html"), None));
        let near_back = Comparable::from_bytes(&d, &near.to_bytes(&d).unwrap()).unwrap();
        let want = d
            .compare(&page, &near)
            .expect("near.html is a near copy of article.html");
        assert_eq!(d.compare(&back, &near_back), Some(want));

        let mut config = Config::default();
        config.simhash.shingle += 1;
        let other = Deduper::new(config).unwrap();
        let err = Comparable::from_bytes(&other, &bytes)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("another detector chain or signature settings"),
            "{err}"
        );
        let err = Comparable::from_bytes(&d, &bytes[..bytes.len() / 2]).unwrap_err();
        assert!(matches!(err, crate::Error::Argument { .. }), "{err}");
        assert!(Comparable::from_bytes(&d, b"").is_err());
    }

    #[test]
    fn chunk_keys_post_the_bottom_sample_and_probe_the_whole_set() {
        let d = Deduper::new(Config::default()).unwrap();
        let page =
            d.comparable(&d.analyze("k", "https://x.example/a", &fixture("article.html"), None));
        let keys = d.join_keys(&page);
        let names: Vec<&str> = keys.iter().map(|k| k.detector.as_str()).collect();
        assert_eq!(names, ["simhash", "chunks"]);
        let chunks = &keys[1];
        let Some(Signature::Set(set)) = page.signatures.get(2) else {
            panic!("no chunk set");
        };
        assert!(set.len() > 16, "{} chunks", set.len());
        assert_eq!(chunks.posted.len(), 16);
        assert_eq!(chunks.probed.len(), set.len());
        assert!(chunks
            .posted
            .iter()
            .all(|k| chunks.probed.binary_search(k).is_ok()));
        assert_eq!(keys[0].posted, keys[0].probed);
        assert_eq!(keys[0].posted.len(), 4, "k = 3: four blocks");
        // A page too short for the similarity detectors has no keys.
        let short = d.comparable(&d.analyze("s", "https://x.example/s", b"<p>two words</p>", None));
        assert!(d.join_keys(&short).is_empty());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Bytes from elsewhere (a corrupt column) are refused or read,
        /// never a panic, and a page read from them compares without one.
        #[test]
        fn corrupt_bytes_never_panic(flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8)) {
            let d = Deduper::new(Config::default()).unwrap();
            let page = d.comparable(&d.analyze("k", "https://x.example/a", &fixture("near.html"), None));
            let mut bytes = page.to_bytes(&d).unwrap();
            // Past the header, so that the fingerprint check lets it through.
            let n = bytes.len();
            for (at, x) in flips {
                let at = 12 + at % (n - 12);
                bytes[at] ^= x | 1;
            }
            if let Ok(bad) = Comparable::from_bytes(&d, &bytes) {
                let _ = d.compare(&page, &bad);
                let _ = d.compare(&bad, &page);
                let _ = d.join_keys(&bad);
            }
        }

        /// Pigeonhole: fingerprints within `max_distance` bits share a
        /// block key; the same blocks at other positions do not collide.
        #[test]
        fn simhash_keys_meet_within_max_distance(
            f in any::<u64>(),
            flips in proptest::collection::vec(0u32..64, 0..=3),
            k in 0u32..=7,
        ) {
            let k = k.max(flips.len() as u32);
            let g = flips.iter().fold(f, |g, bit| g ^ (1u64 << bit));
            let keys = |x: u64| -> Vec<u64> {
                crate::index::simhash::blocks_of(k, x)
                    .into_iter()
                    .enumerate()
                    .map(|(t, b)| key(SIMHASH_SALT, t as u64, b))
                    .collect()
            };
            let (a, b) = (keys(f), keys(g));
            prop_assert_eq!(a.len() as u32, k + 1);
            prop_assert!(a.iter().any(|x| b.contains(x)));
            // The blocks put back together are the fingerprint.
            let blocks = crate::index::simhash::blocks_of(k, f);
            let (mut joined, mut width) = (0u64, 0u32);
            for (i, b) in blocks.iter().enumerate().rev() {
                joined |= b.checked_shl(width).unwrap_or(0);
                width += 64 / (k + 1) + u32::from((i as u32) < 64 % (k + 1));
            }
            prop_assert_eq!(width, 64);
            prop_assert_eq!(joined, f);
        }
    }
}
