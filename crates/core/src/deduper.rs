//! [`Deduper`]: the online near-duplicate check.
//!
//! A check has two halves with different needs:
//! - [`Deduper::analyze`] (decode, extract, normalize, sign) is pure CPU work
//!   on one page, takes `&self`, and runs on any thread, many pages at once;
//! - [`Deduper::decide`] (look up, verify, insert) takes `&mut self` and runs
//!   in arrival order, so verdicts do not depend on thread count.
//!
//! [`Deduper::check`] does both. Batch runs analyze in parallel and decide
//! sequentially; [`SharedDeduper`] does the same for tokio callers without
//! blocking the runtime.
//!
//! # Example
//!
//! ```
//! use neardup::{Config, Deduper, VerdictKind};
//!
//! let mut dedup = Deduper::new(Config::default())?;
//! let article = "<html><body><article><p>The quick brown fox jumps over the lazy dog \
//!     while the farmer watches from the porch of the old red barn, counting the sheep \
//!     that wander across the wide green field under a pale autumn sky.</p></article>\
//!     </body></html>";
//! let first = dedup.check("https://a.example/story", article.as_bytes(), Some("text/html"))?;
//! assert_eq!(first.kind, VerdictKind::Unique);
//! let copy = dedup.check("https://b.example/mirror", article.as_bytes(), None)?;
//! assert_eq!(copy.kind, VerdictKind::Duplicate);
//! assert_eq!(copy.matched.unwrap().url, "https://a.example/story");
//! # Ok::<(), neardup::Error>(())
//! ```

use std::cmp::Reverse;
use std::sync::Arc;

use neardup_api::{Detector, DocId, Document, Judgement, Signature, Similarity};

use crate::canonical::site_of;
use crate::config::{Config, ExtractMode};
use crate::content::{
    Coverage, Evidence, Kept, OwnContent, PageContent, ANALYSIS_VERSION, EVIDENCE_SLOTS,
};
use crate::derived::Derived;
use crate::index::{
    unix_now, DocRecord, DocStore, IndexLocation, MemoryStore, RecordKind, RedisLocation,
    StoreIdentity,
};
use crate::policy::{Policy, Ruling, Via};
use crate::registry::Registry;
use crate::verdict::{Match, MatchBasis, Verdict, VerdictKind};
use neardup_html::decode;
use neardup_html::{extract, Extracted};
use neardup_text::Normalizer;

/// Candidates verified per detector and page; candidate indexes return the
/// most promising first, so this only bounds pathological pages.
const MAX_VERIFY: usize = 64;

/// A page after the CPU-heavy half of a check, ready for [`Deduper::decide`].
#[derive(Clone, Debug)]
pub struct Analyzed {
    /// The caller's key for the page.
    pub key: String,
    /// The normalized document.
    pub doc: Document,
    /// One signature per detector of the chain: what the candidate
    /// indexes hold if the page is indexed.
    pub signatures: Vec<Signature>,
    /// The page's content evidence: what is stored with it for later
    /// pages to be judged against.
    pub evidence: Evidence,
    /// Extraction output (links, canonical, blocks) for callers that need it.
    pub extracted: Extracted,
    /// Every visible block as hashes and shingles: what a drop is judged
    /// on (see `crate::content`).
    pub content: PageContent,
    /// Size of the body that was analyzed, in bytes.
    pub bytes: usize,
    /// Problems found so far.
    pub warnings: Vec<String>,
}

/// Counters over the life of a [`Deduper`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// Pages checked.
    pub checked: u64,
    /// Pages found unique.
    pub unique: u64,
    /// Exact or near-exact copies.
    pub duplicates: u64,
    /// Near duplicates.
    pub near_duplicates: u64,
    /// Documents currently indexed.
    pub indexed: u64,
}

pub use crate::verdict::{CONTENT, SAME_URL};

/// The warning on the verdict of a redirect stub.
pub fn redirect_warning(redirect: &crate::verdict::Redirect) -> String {
    let how = match redirect.kind {
        crate::verdict::RedirectKind::MetaRefresh => "meta refresh",
        crate::verdict::RedirectKind::LinkStub => "one-link stub",
    };
    format!("redirect_stub: {how} to {}", redirect.to)
}

/// A source of the current time in Unix seconds (see [`Deduper::set_clock`]).
pub type Clock = Arc<dyn Fn() -> u64 + Send + Sync>;

/// The kept side of a comparison with `rec` (see [`Kept`]); `None` for an
/// observation, which is never the kept side of a drop.
fn kept_side(rec: &DocRecord) -> Option<Kept<'_>> {
    rec.kind.is_indexed().then(|| Kept {
        evidence: rec.evidence.as_ref(),
        page_name: crate::content::page_name(&rec.url),
        url: &rec.url,
    })
}

/// What [`Deduper::find_match`] found for a page.
#[derive(Default)]
struct Found {
    /// The copy's original: chain position (the chain's length for the
    /// block index), page, verdict kind, similarity, judgement, coverage.
    copy: Option<(usize, DocId, VerdictKind, Similarity, Judgement, Coverage)>,
    /// The best larger page containing this one: chain position, page,
    /// similarity, coverage.
    contained_in: Option<(usize, DocId, Similarity, Coverage)>,
    /// The best candidate a detector matched whose ruling kept the page:
    /// chain position, page, score, coverage.
    rejected: Option<(usize, DocId, f64, Coverage)>,
}

impl Found {
    /// Records `id` as a page containing this one, if it holds more of it
    /// than the best so far.
    fn contain(&mut self, i: usize, id: DocId, sim: Similarity, coverage: Coverage) {
        if self
            .contained_in
            .as_ref()
            .is_none_or(|c| coverage.share() > c.3.share())
        {
            self.contained_in = Some((i, id, sim, coverage));
        }
    }
}

/// What [`Deduper::judge`] says of a page.
struct Judged {
    kind: VerdictKind,
    matched: Option<Match>,
    contained_in: Option<Match>,
    rejected: Option<String>,
}

/// The near-duplicate checker: a detector chain, its candidate indexes and a
/// document store.
pub struct Deduper {
    config: Config,
    /// The analysis half, shared with [`Deduper::analyzer`] handles.
    analyzer: Arc<Analyzer>,
    detectors: Arc<[Box<dyn Detector>]>,
    /// What is derived from the store: candidate indexes, templates,
    /// block index, URL map, expiry queue.
    pub(crate) derived: Derived,
    store: Box<dyn DocStore>,
    clock: Clock,
    stats: Stats,
}

impl std::fmt::Debug for Deduper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Deduper")
            .field("detectors", &self.detector_names())
            .field("stats", &self.stats)
            .finish()
    }
}

impl Deduper {
    /// A deduper with the built-in detectors and an in-memory store.
    ///
    /// # Errors
    /// If the config is invalid or names an unknown detector.
    pub fn new(config: Config) -> crate::Result<Deduper> {
        Deduper::with_registry(config, &Registry::default(), Box::<MemoryStore>::default())
    }

    /// A deduper whose detectors come from `registry` (built-ins plus
    /// plugins) and whose documents live in `store`.
    ///
    /// # Errors
    /// If the config is invalid or names a detector the registry lacks.
    pub fn with_registry(
        config: Config,
        registry: &Registry,
        store: Box<dyn DocStore>,
    ) -> crate::Result<Deduper> {
        let detectors = build_chain(&config, registry)?;
        Ok(Deduper::assemble(config, detectors, store))
    }

    /// A deduper over the persistent index at `location`: a redb file
    /// ([`Deduper::open`]) or a Redis namespace ([`Deduper::open_redis`]).
    ///
    /// # Errors
    /// As those two; and [`crate::Error::Argument`] if this build lacks the
    /// backend (features `redb` and `redis` of the `neardup` crate).
    pub fn open_at(
        config: Config,
        registry: &Registry,
        location: &IndexLocation,
    ) -> crate::Result<Deduper> {
        match location {
            IndexLocation::File(path) => Deduper::open(config, registry, path),
            IndexLocation::Redis(redis) => Deduper::open_redis(config, registry, redis),
        }
    }

    /// A deduper over the persistent index at `path` (a redb file, created
    /// if missing): the stored records come back, each detector's candidate
    /// index is rebuilt from their signatures, and new ids continue after
    /// the highest id ever given out. Writes become durable at
    /// [`Deduper::flush`] (see `index::RedbStore` for the contract).
    ///
    /// # Errors
    /// As [`Deduper::with_registry`], and [`crate::Error::Store`] if the
    /// file cannot be opened, is corrupt, or was built with another
    /// detector chain or signature settings.
    pub fn open(
        config: Config,
        registry: &Registry,
        path: &std::path::Path,
    ) -> crate::Result<Deduper> {
        let detectors = build_chain(&config, registry)?;
        let identity = identity_of(&config, &detectors)?;
        let store = redb_store(path, &identity, config.index.cache_bytes)?;
        let mut deduper = Deduper::assemble(config, detectors, store);
        deduper.rebuild()?;
        Ok(deduper)
    }

    /// A deduper over a shared index in Redis (see `index::RedisStore`): the
    /// log is read and each detector's candidate index rebuilt from it;
    /// later decisions catch up with other workers first, and keeping a
    /// page is atomic across workers. Recrawls and removal by URL work
    /// through the log's tombstones; expiry does not (the log keeps no
    /// fetch times).
    ///
    /// # Errors
    /// As [`Deduper::with_registry`], and [`crate::Error::Store`] if Redis
    /// cannot be reached or the namespace was built with another detector
    /// chain or signature settings; [`crate::Error::Config`] if
    /// `index.ttl_secs` is set.
    pub fn open_redis(
        config: Config,
        registry: &Registry,
        location: &RedisLocation,
    ) -> crate::Result<Deduper> {
        if config.index.ttl_secs > 0 {
            return Err(crate::Error::Config {
                key: "index.ttl_secs".into(),
                value: config.index.ttl_secs.to_string(),
                allowed: "must be 0 with a Redis index: the shared log keeps no fetch times".into(),
            });
        }
        let detectors = build_chain(&config, registry)?;
        let identity = identity_of(&config, &detectors)?;
        let store = redis_store(location, &identity)?;
        let mut deduper = Deduper::assemble(config, detectors, store);
        deduper.catch_up()?;
        Ok(deduper)
    }

    fn assemble(
        config: Config,
        detectors: Vec<Box<dyn Detector>>,
        store: Box<dyn DocStore>,
    ) -> Deduper {
        let derived = Derived::new(&config, &detectors);
        let detectors: Arc<[Box<dyn Detector>]> = detectors.into();
        Deduper {
            analyzer: Arc::new(Analyzer::new(&config, Arc::clone(&detectors))),
            config,
            detectors,
            derived,
            store,
            clock: Arc::new(unix_now),
            stats: Stats::default(),
        }
    }

    /// Derives the candidate indexes, URL map and expiry queue from every
    /// record of the store.
    fn rebuild(&mut self) -> crate::Result<()> {
        let Deduper { store, derived, .. } = self;
        store.for_each(&mut |id, rec| derived.add(id, rec))
    }

    /// Replaces the clock (Unix seconds) that stamps fetch times and
    /// decides expiry: tests and simulations step time without sleeping.
    /// The default is the system clock.
    pub fn set_clock(&mut self, clock: impl Fn() -> u64 + Send + Sync + 'static) {
        self.clock = Arc::new(clock);
    }

    /// The current time of the deduper's clock, in Unix seconds.
    pub fn now(&self) -> u64 {
        (self.clock)()
    }

    /// Makes every page indexed or removed so far durable (a no-op for the
    /// in-memory store). Acknowledge verdicts only after this returns.
    ///
    /// # Errors
    /// [`crate::Error::Store`] if the store cannot commit; the writes stay
    /// pending and the next flush retries them.
    pub fn flush(&mut self) -> crate::Result<()> {
        self.store.flush()
    }

    /// The configuration in force.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The built detector chain, in order.
    pub(crate) fn detector_chain(&self) -> &[Box<dyn Detector>] {
        &self.detectors
    }

    /// Names of the detectors in the chain, in order.
    pub fn detector_names(&self) -> Vec<String> {
        self.detectors.iter().map(|d| d.name().to_owned()).collect()
    }

    /// Returns true if and only if the document store is in another process
    /// ([`DocStore::is_remote`]: Redis), so deciding makes network round
    /// trips and async callers should decide on a blocking thread.
    pub fn store_is_remote(&self) -> bool {
        self.store.is_remote()
    }

    /// Counters so far.
    pub fn stats(&self) -> Stats {
        Stats {
            indexed: self.derived.kept(),
            ..self.stats
        }
    }

    /// Checks one page and indexes it if it is kept. `key` defaults to the URL.
    ///
    /// # Errors
    /// [`crate::Error::Store`] if the document store fails (never with the
    /// default in-memory store short of `u32::MAX` documents).
    pub fn check(
        &mut self,
        url: &str,
        body: &[u8],
        content_type: Option<&str>,
    ) -> crate::Result<Verdict> {
        let analyzed = self.analyze(url, url, body, content_type);
        self.decide(analyzed)
    }

    /// The CPU-heavy half: decode, extract, normalize, sign (see
    /// [`Analyzer::analyze`]). Never panics on any input bytes.
    pub fn analyze(
        &self,
        key: &str,
        url: &str,
        body: &[u8],
        content_type: Option<&str>,
    ) -> Analyzed {
        self.analyzer.analyze(key, url, body, content_type)
    }

    /// The CPU-heavy half for a page given as plain text (see
    /// [`Analyzer::analyze_text`]). Never panics.
    pub fn analyze_text(&self, key: &str, url: &str, text: &str) -> Analyzed {
        self.analyzer.analyze_text(key, url, text)
    }

    /// Stops collecting each page's outgoing links
    /// ([`Extracted::links`] stays empty). Verdicts never read them: only a
    /// crawler needs them, and resolving every `href` into a URL was about
    /// 5% of a batch run. Call before the first [`Deduper::analyzer`]
    /// handle is taken (a handle taken earlier keeps collecting them).
    #[must_use]
    pub fn without_links(mut self) -> Deduper {
        // Unshared (the usual case, right after opening): set the one
        // setting in place instead of building the normalizer again.
        if Arc::get_mut(&mut self.analyzer).is_none() {
            self.analyzer = Arc::new(Analyzer::new(&self.config, Arc::clone(&self.detectors)));
        }
        if let Some(analyzer) = Arc::get_mut(&mut self.analyzer) {
            analyzer.extract.max_links = 0;
        }
        self
    }

    /// A handle on the analysis half, usable on any thread without locking
    /// the deduper: a server analyzes pages with it while decisions and
    /// commits hold the deduper.
    pub fn analyzer(&self) -> Arc<Analyzer> {
        Arc::clone(&self.analyzer)
    }
}

/// The analysis half of a [`Deduper`] (decode, extract, normalize, sign):
/// immutable, so any number of threads share it without a lock.
pub struct Analyzer {
    config: Config,
    /// `config.extract`, with `max_links` 0 when links are not wanted
    /// ([`Deduper::without_links`]).
    extract: neardup_html::ExtractConfig,
    normalizer: Normalizer,
    detectors: Arc<[Box<dyn Detector>]>,
}

impl std::fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Analyzer")
            .field("detectors", &self.detectors.len())
            .finish()
    }
}

impl Analyzer {
    /// The analysis half for `config` and its detector chain.
    fn new(config: &Config, detectors: Arc<[Box<dyn Detector>]>) -> Analyzer {
        Analyzer {
            normalizer: Normalizer::new(&config.text),
            extract: config.extract.clone(),
            config: config.clone(),
            detectors,
        }
    }

    /// The CPU-heavy half: decode, extract, normalize, sign. Never panics on
    /// any input bytes.
    pub fn analyze(
        &self,
        key: &str,
        url: &str,
        body: &[u8],
        content_type: Option<&str>,
    ) -> Analyzed {
        let mut warnings = Vec::new();
        let limit = self.config.extract.max_body_bytes;
        let body = if body.len() > limit {
            warnings.push(format!(
                "body of {} bytes truncated to extract.max_body_bytes = {limit}",
                body.len()
            ));
            &body[..limit]
        } else {
            body
        };
        if let Some(reason) = neardup_html::binary_reason(body) {
            warnings.push(reason);
            return self.sign(key, url, body.len(), Extracted::default(), warnings);
        }
        let decoded = decode(body, content_type);
        warnings.extend(decoded.warnings);
        let page_url = url::Url::parse(url).ok();
        let extracted = extract(&decoded.text, page_url.as_ref(), &self.extract);
        warnings.extend(extracted.warnings.iter().cloned());
        self.sign(key, url, body.len(), extracted, warnings)
    }

    /// Frees what [`Deduper::decide`] does not read from `analyzed`: the
    /// document's text and title, its words but one, its terms beyond
    /// `decide.min_terms` (decide reads only whether words is empty and
    /// whether terms reach `min_terms`, so the verdict is unchanged). A
    /// crawler holding analyzed pages until their turn to be decided keeps
    /// kilobytes per page instead of one heap string per word. Keep in
    /// sync with `decide`.
    pub fn shrink_for_decide(&self, analyzed: &mut Analyzed) {
        let doc = &mut analyzed.doc;
        doc.text = String::new();
        doc.title = String::new();
        doc.words.truncate(1);
        doc.words.shrink_to_fit();
        let min_terms = self.config.decide.min_terms;
        if doc.terms.len() >= min_terms {
            doc.terms.truncate(min_terms);
            doc.terms.shrink_to_fit();
        }
    }

    /// The CPU-heavy half for a page given as plain text, for callers that
    /// extracted the content themselves: no decoding or HTML extraction, and
    /// every paragraph (blank-line separated) counts as main content, so
    /// `extract.mode` does not drop any of it. Never panics.
    pub fn analyze_text(&self, key: &str, url: &str, text: &str) -> Analyzed {
        let mut warnings = Vec::new();
        let limit = self.config.extract.max_body_bytes;
        let text = if text.len() > limit {
            warnings.push(format!(
                "text of {} bytes truncated to extract.max_body_bytes = {limit}",
                text.len()
            ));
            let mut end = limit;
            // Cut on a character boundary; index 0 always is one.
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text.get(..end).unwrap_or_default()
        } else {
            text
        };
        let blocks = text
            .split("\n\n")
            .map(|para| para.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|para| !para.is_empty())
            .map(|text| neardup_html::Block {
                text,
                tag: "p".into(),
                link_density: 0.0,
                is_main: true,
            })
            .collect();
        let extracted = Extracted {
            blocks,
            ..Extracted::default()
        };
        self.sign(key, url, text.len(), extracted, warnings)
    }

    fn sign(
        &self,
        key: &str,
        url: &str,
        bytes: usize,
        extracted: Extracted,
        mut warnings: Vec<String>,
    ) -> Analyzed {
        let text = extracted.text(self.config.extract.mode);
        if self.config.extract.mode == ExtractMode::Main {
            // `text` is the main blocks joined by newlines: count each block
            // once for both sums.
            let (mut main_words, mut all_words) = (0, 0);
            for b in &extracted.blocks {
                let n = neardup_text::count_whitespace_words(&b.text);
                all_words += n;
                if b.is_main {
                    main_words += n;
                }
            }
            // A page whose visible text is nearly all navigation, footers and
            // link lists: say so, since its verdict rests on very little text.
            if main_words < 50 && all_words >= 4 * main_words.max(5) {
                warnings.push(format!(
                    "mostly boilerplate: main content has {main_words} of {all_words} visible words"
                ));
            }
        }
        let normalized = self.normalizer.normalize(&text, extracted.lang.as_deref());
        warnings.extend(normalized.warnings);
        if normalized.words.is_empty() {
            warnings.push("no text extracted".into());
        }
        let doc = Document {
            url: url.to_owned(),
            site: site_of(url),
            title: extracted.title.clone(),
            text,
            lang: normalized.lang,
            words: normalized.words,
            terms: normalized.terms,
        };
        let mut content = PageContent::from_extracted(&extracted);
        content.lang = crate::content::lang_code(&doc.lang);
        content.set_host(&extracted.title, url);
        let signatures: Vec<Signature> = self.detectors.iter().map(|d| d.sign(&doc)).collect();
        let evidence = content.evidence();
        Analyzed {
            key: key.to_owned(),
            doc,
            signatures,
            evidence,
            extracted,
            content,
            bytes,
            warnings,
        }
    }
}

impl Deduper {
    /// Frees what [`Deduper::decide`] does not read from `analyzed` (see
    /// [`Analyzer::shrink_for_decide`]).
    pub fn shrink_for_decide(&self, analyzed: &mut Analyzed) {
        self.analyzer.shrink_for_decide(analyzed);
    }

    /// The sequential half: look up each detector's candidates in chain
    /// order, verify them against stored signatures, decide, and index the
    /// page if it is kept.
    ///
    /// Recrawls (`index.replace_same_url`): if a page is indexed at the
    /// same URL (up to spelling), an unchanged re-fetch (identical signatures) is
    /// a [`VerdictKind::Duplicate`] whose match is that page with detector
    /// [`SAME_URL`] (its fetch time is refreshed, nothing else changes);
    /// a changed page first removes the old version, then is judged like
    /// any page, so it is never matched against its own older version (it
    /// can still be a copy of another page, which the verdict then names).
    /// Pages past `index.ttl_secs` are expired here first.
    ///
    /// # Errors
    /// [`crate::Error::Store`] if the document store fails; the page then
    /// counts as not checked and is not indexed.
    pub fn decide(&mut self, analyzed: Analyzed) -> crate::Result<Verdict> {
        // A redirect stub (`extract.redirect_stubs`) is a pointer: its
        // verdict names the target, so a crawler follows it as it would an
        // HTTP 3xx. It is still judged on its own text like any page (the
        // same stub text at two URLs is a copy; a stub holds no other
        // page's content, so the content gate never lets a page be dropped
        // as a copy of a stub).
        let redirect = analyzed.extracted.redirect.clone();
        let Analyzed {
            key,
            doc,
            signatures,
            evidence,
            content,
            mut warnings,
            ..
        } = analyzed;
        let policy = Policy::new(&self.config.decide, doc.terms.len());
        if policy.short() && !doc.words.is_empty() {
            warnings.push(format!(
                "short page ({} terms < decide.min_terms = {}): compared by exact hash only",
                doc.terms.len(),
                self.config.decide.min_terms
            ));
        }
        let now = self.now();
        let mut record = DocRecord {
            key,
            url: doc.url,
            site: doc.site,
            kind: RecordKind::Kept,
            signatures,
            evidence,
            fetched_at: now,
        };
        // A shared store (Redis) may change under us: catch up, decide, and
        // keep the page only if nobody wrote in between; otherwise decide
        // again against what the other worker wrote (one pass when the
        // store is private to this process).
        let mut stored_as = None;
        let mut contained_in = None;
        let (kind, matched, indexed_as) = loop {
            self.catch_up()?;
            self.expire_at(now)?;
            if let Some((kind, m)) = self.unchanged(&record, &content, policy, now)? {
                break (kind, Some(m), None);
            }
            let Judged {
                kind,
                matched,
                contained_in: within,
                rejected,
            } = self.judge(
                &record.signatures,
                &content,
                (&record.site, &record.url),
                policy,
                now,
                None,
            )?;
            if let Some(note) = rejected {
                warnings.push(note);
            }
            contained_in = within;
            let has_features = record.signatures.iter().any(|s| !s.is_empty());
            let index_it = has_features
                && match kind {
                    VerdictKind::Unique => true,
                    VerdictKind::NearDuplicate => self.config.decide.index_near_duplicates,
                    VerdictKind::Duplicate => false,
                };
            if !index_it {
                // A page not kept still teaches the site's template, unless
                // it is the kept page's visible text again (a copy at another
                // URL would only make that page's own text look repeated).
                // The evidence is the one computed at analysis (a page
                // without blocks has nothing to teach), not computed again
                // on this thread, which decides every page in turn.
                let e = &record.evidence;
                let observe = kind.is_drop() && !e.blocks.is_empty();
                if observe && !self.same_visible(&matched, e.visible)? {
                    let observation = DocRecord {
                        key: record.key.clone(),
                        url: record.url.clone(),
                        site: record.site.clone(),
                        kind: RecordKind::Observation,
                        signatures: Vec::new(),
                        evidence: e.observation(),
                        fetched_at: now,
                    };
                    match self.store.insert_if_current(observation)? {
                        Ok(id) => {
                            self.index_stored(id)?;
                            stored_as = Some(id);
                        }
                        // Another worker wrote first: decide again.
                        Err(_) => continue,
                    }
                }
                break (kind, matched, None);
            }
            record.kind = if kind.is_drop() {
                RecordKind::NearDuplicate
            } else {
                RecordKind::Kept
            };
            match self.store.insert_if_current(record)? {
                Ok(id) => {
                    self.index_stored(id)?;
                    break (kind, matched, Some(id));
                }
                Err(back) => record = back,
            }
        };
        // Counted only once nothing can fail any more.
        self.stats.checked += 1;
        match kind {
            VerdictKind::Unique => self.stats.unique += 1,
            VerdictKind::Duplicate => self.stats.duplicates += 1,
            VerdictKind::NearDuplicate => self.stats.near_duplicates += 1,
        }
        if let Some(redirect) = &redirect {
            warnings.push(redirect_warning(redirect));
        }
        Ok(Verdict {
            kind,
            matched,
            contained_in,
            indexed_as,
            stored_as,
            redirect,
            warnings,
        })
    }

    /// The indexed page at the canonical URL of `url`, if any.
    fn same_url(&self, url: &str) -> crate::Result<Option<(DocId, Arc<DocRecord>)>> {
        let Some(&id) = self.derived.urls.ids.get(&self.derived.urls.key(url)) else {
            return Ok(None);
        };
        let Some(rec) = self.store.get(id)? else {
            return Ok(None);
        };
        // Confirm: a 64-bit hash collision must not replace another page.
        if rec.url != url
            && self.derived.urls.canonical(&rec.url) != self.derived.urls.canonical(url)
        {
            return Ok(None);
        }
        Ok(Some((id, rec)))
    }

    /// The verdict on a page fetched again unchanged at the URL of an
    /// indexed page ([`Deduper::recrawl`]), `None` for any other page.
    /// A kept page is a duplicate of itself (by URL). An indexed near
    /// duplicate is judged again against the pages indexed before it, so
    /// it is again reported as the copy of the earlier page it matched
    /// (by URL only if that page is gone or no longer matches).
    fn unchanged(
        &mut self,
        record: &DocRecord,
        content: &PageContent,
        policy: Policy,
        now: u64,
    ) -> crate::Result<Option<(VerdictKind, Match)>> {
        let Some((m, was)) = self.recrawl(record, now)? else {
            return Ok(None);
        };
        if was == RecordKind::NearDuplicate {
            let page = (record.site.as_str(), record.url.as_str());
            let again = self.judge(&record.signatures, content, page, policy, now, m.id)?;
            if let Some(copy) = again.matched.filter(|_| again.kind.is_drop()) {
                return Ok(Some((again.kind, copy)));
            }
        }
        Ok(Some((VerdictKind::Duplicate, m)))
    }

    /// Recrawl handling before a page is judged: `Some(match, what the
    /// stored page is)` for an unchanged re-fetch (its fetch time
    /// refreshed), else the old version at the same URL (if any) is removed
    /// and `None` returned.
    fn recrawl(
        &mut self,
        record: &DocRecord,
        now: u64,
    ) -> crate::Result<Option<(Match, RecordKind)>> {
        if !self.config.index.replace_same_url {
            return Ok(None);
        }
        let Some((id, old)) = self.same_url(&record.url)? else {
            return Ok(None);
        };
        let same = old.signatures == record.signatures && old.evidence == record.evidence;
        if same && !self.is_expired(&old, now) {
            if self.store.touch(id, now)? {
                if let Some(queue) = &mut self.derived.expiry {
                    queue.push(Reverse((now, id)));
                }
            }
            let m = Match::by_url(
                Some(id),
                old.key.clone(),
                old.url.clone(),
                MatchBasis::SameUrl,
                "unchanged since last fetch: this URL is indexed with the same signatures".into(),
            );
            return Ok(Some((m, old.kind)));
        }
        self.remove_record(id)?;
        Ok(None)
    }

    /// Returns true if and only if `rec` is past `index.ttl_secs` at `now`.
    fn is_expired(&self, rec: &DocRecord, now: u64) -> bool {
        let ttl = self.config.index.ttl_secs;
        ttl > 0 && rec.fetched_at.saturating_add(ttl) <= now
    }

    /// The stored record `id`, unless it is gone or expired (expired but
    /// not yet swept is as good as gone).
    fn live_record(&self, id: DocId, now: u64) -> crate::Result<Option<Arc<DocRecord>>> {
        Ok(self.store.get(id)?.filter(|rec| !self.is_expired(rec, now)))
    }

    /// Removes every page whose last fetch is `index.ttl_secs` or more
    /// before `now`, from the store and the derived indexes; returns how
    /// many. Cheap when nothing is due (one look at the queue's head).
    fn expire_at(&mut self, now: u64) -> crate::Result<usize> {
        let ttl = self.config.index.ttl_secs;
        let mut removed = 0;
        loop {
            let Some(queue) = &mut self.derived.expiry else {
                return Ok(0);
            };
            let Some(&Reverse((at, id))) = queue.peek() else {
                break;
            };
            if at.saturating_add(ttl) > now {
                break;
            }
            queue.pop();
            // Skip entries of removed pages and of pages fetched again
            // since (their newer entry is still queued).
            let due = self.store.get(id)?.is_some_and(|rec| rec.fetched_at == at);
            if due && self.remove_record(id)? {
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// Removes every page past `index.ttl_secs` now (by the deduper's
    /// clock) and returns how many; [`Deduper::decide`] does this too, so
    /// call it only to expire pages while no page is being checked. Flush
    /// to make the removals durable.
    ///
    /// # Errors
    /// [`crate::Error::Store`] if the document store fails.
    pub fn expire(&mut self) -> crate::Result<usize> {
        self.catch_up()?;
        let now = self.now();
        self.expire_at(now)
    }

    /// The verdict kind and match for this page against the index, the
    /// larger kept page that contains it (a page kept, not a copy: see
    /// [`crate::content::Coverage::Contained`]), and, when candidates
    /// matched but none held this page's own content, a warning saying so.
    fn judge(
        &self,
        signatures: &[Signature],
        content: &PageContent,
        page: (&str, &str),
        policy: Policy,
        now: u64,
        before: Option<DocId>,
    ) -> crate::Result<Judged> {
        let found = self.find_match(signatures, content, page, policy, now, before)?;
        let url_of = |id: DocId| -> crate::Result<(String, String)> {
            Ok(self
                .store
                .get(id)?
                .map(|r| (r.key.clone(), r.url.clone()))
                .unwrap_or_default())
        };
        let rejected = match found.rejected {
            Some((i, id, score, coverage)) => {
                let (_, url) = url_of(id)?;
                Some(format!(
                    "kept although {} matched {url} ({score:.2}): {}",
                    self.detector_name(i),
                    coverage.describe()
                ))
            }
            None => None,
        };
        let contained_in = match found.contained_in {
            Some((i, id, sim, coverage)) => {
                let (key, url) = url_of(id)?;
                Some(Match {
                    id: Some(id),
                    key,
                    url,
                    basis: self.basis_of(i),
                    similarity: coverage.share(),
                    resemblance: sim.resemblance,
                    containment: sim.containment,
                    reason: coverage.describe(),
                    covered: Some(coverage.share()),
                })
            }
            None => None,
        };
        let Some((i, id, kind, sim, judgement, coverage)) = found.copy else {
            return Ok(Judged {
                kind: VerdictKind::Unique,
                matched: None,
                contained_in,
                rejected,
            });
        };
        let (key, url) = url_of(id)?;
        let m = Match {
            id: Some(id),
            key,
            url,
            basis: self.basis_of(i),
            similarity: judgement.score,
            resemblance: sim.resemblance,
            containment: sim.containment,
            reason: format!("{}; {}", judgement.reason, coverage.describe()),
            covered: Some(coverage.share()),
        };
        Ok(Judged {
            kind,
            matched: Some(m),
            contained_in: None,
            rejected: None,
        })
    }

    /// The match basis of chain position `i`; past the chain, the block
    /// index ([`MatchBasis::Content`]).
    fn basis_of(&self, i: usize) -> MatchBasis {
        match self.detectors.get(i) {
            Some(d) => MatchBasis::Detector(d.name().to_owned()),
            None => MatchBasis::Content,
        }
    }

    /// What `analyzed`'s blocks count as if it were decided now: the basis
    /// and, per block (0 = the title, `i + 1` = extracted block `i`),
    /// whether it is template, chrome or compared content.
    pub fn content_roles(
        &self,
        analyzed: &Analyzed,
    ) -> (crate::content::Basis, Vec<(u32, crate::content::Role)>) {
        crate::content::roles(
            &analyzed.content,
            self.derived
                .templates
                .of(&analyzed.doc.site, &analyzed.doc.url),
        )
    }

    /// What the drop policy reads of `analyzed` if it were decided now
    /// (its name, language, main-content size and basis), for
    /// `neardup extract --json`.
    pub fn content_facts(&self, analyzed: &Analyzed) -> crate::content::PageFacts {
        let (site, url) = (&analyzed.doc.site, &analyzed.doc.url);
        OwnContent::new(&analyzed.content, self.derived.templates.of(site, url), url)
            .facts(&analyzed.extracted.title, &analyzed.doc.lang)
    }

    /// Returns true if and only if `matched` names a kept page whose whole
    /// visible text hashes to `visible`.
    fn same_visible(&self, matched: &Option<Match>, visible: u64) -> crate::Result<bool> {
        let Some(m) = matched else {
            return Ok(false);
        };
        let Some(rec) = m.id.map(|id| self.store.get(id)).transpose()?.flatten() else {
            return Ok(false);
        };
        Ok(rec.evidence.visible == visible)
    }

    /// The name of chain position `i`; past the chain, the block index.
    fn detector_name(&self, i: usize) -> &str {
        self.detectors.get(i).map_or(CONTENT, |d| d.name())
    }

    /// Applies writes other processes made to a shared store to the
    /// candidate indexes (nothing to do for a store private to us).
    fn catch_up(&mut self) -> crate::Result<()> {
        let Deduper { store, derived, .. } = self;
        store.sync(&mut |change| derived.apply(change))
    }

    /// The candidates of each detector in chain order, then of the block
    /// index, each ruled on by the drop policy ([`Policy::judge`]): the
    /// first that is a copy's original, the best larger page containing
    /// this one, and the best candidate a detector matched whose ruling
    /// kept the page (for the warning of a page kept against its
    /// detectors' word). With `before`, only pages indexed before that id
    /// are candidates (a recrawled page judged again).
    fn find_match(
        &self,
        signatures: &[Signature],
        content: &PageContent,
        (site, url): (&str, &str),
        policy: Policy,
        now: u64,
        before: Option<DocId>,
    ) -> crate::Result<Found> {
        let earlier = |id: DocId| before.is_none_or(|b| id < b);
        // The page's own content, computed at the first candidate (most
        // pages have none).
        let template = self.derived.templates.of(site, url);
        let own = std::cell::OnceCell::new();
        let own = || own.get_or_init(|| OwnContent::new(content, template, url));
        let n = self.detectors.len();
        let mut found = Found::default();
        let mut candidates = Vec::new();
        for (i, (det, sig)) in self.detectors.iter().zip(signatures).enumerate() {
            if sig.is_empty() || !policy.tries(det.as_ref()) {
                continue;
            }
            candidates.clear();
            self.derived.indexes[i].candidates(sig, &mut candidates);
            // Every candidate the detector calls alike, strongest first
            // (level, then score, then the earliest page); the first the
            // policy calls a copy's original is the match. Coverage, the
            // costly part, is measured only until then.
            let mut alike = Vec::new();
            for &id in candidates
                .iter()
                .filter(|&&id| earlier(id))
                .take(MAX_VERIFY)
            {
                let Some(rec) = self.live_record(id, now)? else {
                    continue;
                };
                let Some(earlier) = rec.signatures.get(i) else {
                    continue;
                };
                let sim = det.similarity(sig, earlier);
                if let Some(j) =
                    det.classify_in_context(&*self.derived.indexes[i], sig, earlier, sim)
                {
                    alike.push((id, sim, j, rec));
                }
            }
            alike.sort_by(|(a, _, aj, _), (b, _, bj, _)| {
                (bj.level.cmp(&aj.level))
                    .then(bj.score.total_cmp(&aj.score))
                    .then(a.cmp(b))
            });
            for (id, sim, judgement, rec) in alike {
                let Some(kept) = kept_side(&rec) else {
                    continue;
                };
                let score = judgement.score;
                let via = Via::Detector { sim, judgement };
                let (coverage, ruling) = policy.judge(own(), content, kept, template, &via);
                match ruling {
                    Ruling::Drop {
                        kind,
                        sim,
                        judgement,
                    } => {
                        found.copy = Some((i, id, kind, sim, judgement, coverage));
                        return Ok(found);
                    }
                    Ruling::ContainedIn => found.contain(i, id, sim, coverage),
                    Ruling::Keep => {
                        if found.rejected.as_ref().is_none_or(|r| score > r.2) {
                            found.rejected = Some((i, id, score, coverage));
                        }
                    }
                }
            }
        }
        // No detector matched a page holding this page's content: look
        // for kept pages sharing its own blocks.
        self.derived
            .blocks
            .candidates(content, template, &mut candidates);
        let mut best: Option<(DocId, Coverage, VerdictKind, Similarity, Judgement)> = None;
        for &id in candidates.iter().filter(|&&id| earlier(id)) {
            let Some(rec) = self.live_record(id, now)? else {
                continue;
            };
            let Some(kept) = kept_side(&rec) else {
                continue;
            };
            let (coverage, ruling) = policy.judge(own(), content, kept, template, &Via::Blocks);
            match ruling {
                Ruling::Drop {
                    kind,
                    sim,
                    judgement,
                } if best.as_ref().is_none_or(|b| coverage.share() > b.1.share()) => {
                    best = Some((id, coverage, kind, sim, judgement));
                }
                Ruling::ContainedIn => {
                    let share = coverage.share();
                    let sim = Similarity {
                        resemblance: share,
                        containment: share,
                    };
                    found.contain(n, id, sim, coverage);
                }
                _ => {}
            }
        }
        if let Some((id, coverage, kind, sim, judgement)) = best {
            found.copy = Some((n, id, kind, sim, judgement, coverage));
        }
        Ok(found)
    }

    /// Stores a seeded page as kept (see [`Deduper::insert`]).
    fn insert_record(
        &mut self,
        key: String,
        doc: Document,
        signatures: Vec<Signature>,
        evidence: Evidence,
    ) -> crate::Result<DocId> {
        let now = self.now();
        let mut record = DocRecord {
            key,
            url: doc.url,
            site: doc.site,
            kind: RecordKind::Kept,
            signatures,
            evidence,
            fetched_at: now,
        };
        // With a shared store, retry after catching up (see `decide`).
        let id = loop {
            self.catch_up()?;
            // A seed at the URL of an indexed page replaces it, as a
            // recrawl would.
            if self.config.index.replace_same_url {
                if let Some((old, _)) = self.same_url(&record.url)? {
                    self.remove_record(old)?;
                }
            }
            match self.store.insert_if_current(record)? {
                Ok(id) => break id,
                Err(back) => record = back,
            }
        };
        self.index_stored(id)?;
        Ok(id)
    }

    /// Adds a freshly stored record to the derived indexes.
    fn index_stored(&mut self, id: DocId) -> crate::Result<()> {
        if let Some(rec) = self.store.get(id)? {
            self.derived.add(id, &rec);
        }
        Ok(())
    }

    /// Removes a record from the store and the derived indexes.
    fn remove_record(&mut self, id: DocId) -> crate::Result<bool> {
        let Some(rec) = self.store.remove(id)? else {
            return Ok(false);
        };
        self.derived.remove(id, &rec);
        Ok(true)
    }

    /// Indexes an analyzed page without judging it (seeding the index with
    /// pages known to be kept, e.g. from an earlier crawl). Returns its id,
    /// or `None` when the page had no features to index.
    ///
    /// # Errors
    /// [`crate::Error::Store`] if the document store fails.
    pub fn insert(&mut self, analyzed: Analyzed) -> crate::Result<Option<DocId>> {
        let Analyzed {
            key,
            doc,
            signatures,
            evidence,
            ..
        } = analyzed;
        if signatures.iter().all(Signature::is_empty) {
            return Ok(None);
        }
        self.insert_record(key, doc, signatures, evidence).map(Some)
    }

    /// Removes an indexed document (a page that went away, or is about to be
    /// re-checked after a recrawl). Returns whether it was present.
    ///
    /// # Errors
    /// [`crate::Error::Store`] if the document store fails.
    pub fn remove(&mut self, id: DocId) -> crate::Result<bool> {
        self.catch_up()?;
        self.remove_record(id)
    }

    /// Removes the indexed page at `url` (compared up to spelling, like
    /// recrawls) and returns its id, or `None` if no page is indexed there.
    /// Flush to make the removal durable.
    ///
    /// # Errors
    /// [`crate::Error::Store`] if the document store fails.
    pub fn remove_url(&mut self, url: &str) -> crate::Result<Option<DocId>> {
        self.catch_up()?;
        let Some((id, _)) = self.same_url(url)? else {
            return Ok(None);
        };
        self.remove_record(id)?;
        Ok(Some(id))
    }

    /// The id of the page indexed at `url` (compared up to spelling), if any.
    ///
    /// # Errors
    /// [`crate::Error::Store`] if the document store fails.
    pub fn id_of_url(&self, url: &str) -> crate::Result<Option<DocId>> {
        Ok(self.same_url(url)?.map(|(id, _)| id))
    }

    /// The page indexed at `url` (compared up to spelling), with its key
    /// and URL: what a `<link rel=canonical>` naming `url` points at.
    /// Applies other processes' writes to a shared store first.
    ///
    /// # Errors
    /// [`crate::Error::Store`] if the document store fails.
    pub fn indexed_at(&mut self, url: &str) -> crate::Result<Option<(DocId, String, String)>> {
        self.catch_up()?;
        Ok(self
            .same_url(url)?
            .map(|(id, rec)| (id, rec.key.clone(), rec.url.clone())))
    }

    /// Counts a verdict reached without [`Deduper::decide`] (a page that
    /// names an indexed page as its canonical URL) in [`Deduper::stats`].
    pub fn count_verdict(&mut self, kind: VerdictKind) {
        self.stats.checked += 1;
        match kind {
            VerdictKind::Unique => self.stats.unique += 1,
            VerdictKind::Duplicate => self.stats.duplicates += 1,
            VerdictKind::NearDuplicate => self.stats.near_duplicates += 1,
        }
    }

    /// Reaches the document store: for a shared store (Redis), one round
    /// trip that also applies other processes' writes. A readiness probe:
    /// an error means checks would fail now.
    ///
    /// # Errors
    /// [`crate::Error::Store`] if the store cannot be reached.
    pub fn ping(&mut self) -> crate::Result<()> {
        self.catch_up()
    }

    /// Removes every indexed document whose id is `first` or above and
    /// returns how many there were. A resumed crawl uses it to drop pages
    /// indexed after its last checkpoint (ids only grow), which it redoes.
    ///
    /// # Errors
    /// [`crate::Error::Store`] if the document store fails.
    pub fn remove_ids_from(&mut self, first: DocId) -> crate::Result<usize> {
        let mut ids = Vec::new();
        self.store.for_each(&mut |id, _| {
            if id >= first {
                ids.push(id);
            }
        })?;
        let mut removed = 0;
        for id in ids {
            if self.remove(id)? {
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// Approximate heap bytes per tier: each detector's index, `urls` (the
    /// URL map and expiry queue of recrawls and `index.ttl_secs`), `content`
    /// (site templates and the block index), then the store (for
    /// `--index PATH`: its record cache and unflushed writes).
    pub fn memory(&self) -> Vec<(String, usize)> {
        let mut out: Vec<(String, usize)> = self
            .detectors
            .iter()
            .zip(&self.derived.indexes)
            .map(|(d, i)| (d.name().to_owned(), i.heap_bytes()))
            .collect();
        let expiry = self.derived.expiry.as_ref().map_or(0, |q| {
            q.capacity() * std::mem::size_of::<Reverse<(u64, DocId)>>()
        });
        out.push(("urls".into(), self.derived.urls.heap_bytes() + expiry));
        out.push((
            "content".into(),
            self.derived.templates.heap_bytes() + self.derived.blocks.heap_bytes(),
        ));
        out.push(("store".into(), self.store.heap_bytes()));
        out
    }
}

/// The detectors of the configured chain that are enabled, in order.
#[cfg(feature = "redb")]
fn redb_store(
    path: &std::path::Path,
    identity: &StoreIdentity,
    cache_bytes: usize,
) -> crate::Result<Box<dyn DocStore>> {
    let store = crate::index::RedbStore::open_with(path, identity, cache_bytes)?;
    Ok(Box::new(store))
}

#[cfg(not(feature = "redb"))]
fn redb_store(
    _: &std::path::Path,
    _: &StoreIdentity,
    _: usize,
) -> crate::Result<Box<dyn DocStore>> {
    Err(missing_backend("redb", "an index file"))
}

#[cfg(feature = "redis")]
fn redis_store(
    location: &RedisLocation,
    identity: &StoreIdentity,
) -> crate::Result<Box<dyn DocStore>> {
    Ok(Box::new(crate::index::RedisStore::open(
        location, identity,
    )?))
}

#[cfg(not(feature = "redis"))]
fn redis_store(_: &RedisLocation, _: &StoreIdentity) -> crate::Result<Box<dyn DocStore>> {
    Err(missing_backend("redis", "a Redis index"))
}

/// The error of a build without a backend, as ripgrep says of PCRE2.
#[cfg(not(all(feature = "redb", feature = "redis")))]
fn missing_backend(feature: &str, what: &str) -> crate::Error {
    crate::Error::Argument {
        name: "index".into(),
        message: format!(
            "this build has no {} support (feature `{feature}` of the neardup crate), so it cannot open {what}",
            if feature == "redb" { "redb" } else { "Redis" }
        ),
    }
}

fn build_chain(config: &Config, registry: &Registry) -> crate::Result<Vec<Box<dyn Detector>>> {
    config.validate()?;
    let mut detectors = Vec::new();
    for name in &config.decide.detectors {
        let enabled = match name.as_str() {
            "simhash" => config.simhash.enabled,
            "chunks" => config.chunks.enabled,
            _ => true,
        };
        if enabled {
            detectors.push(registry.build(name, config)?);
        }
    }
    Ok(detectors)
}

/// The identity an index built with `config` records (its detector chain
/// and signature settings): what [`Deduper::open`] and
/// [`Deduper::open_redis`] check a stored index against. Tools that read an
/// index without deciding (`neardup export`) open the store with it.
///
/// # Errors
/// If the config is invalid or names a detector the registry lacks.
pub fn store_identity(config: &Config, registry: &Registry) -> crate::Result<StoreIdentity> {
    identity_of(config, &build_chain(config, registry)?)
}

/// The identity of the built chain `detectors` under `config`: the rule
/// of what it covers (settings that change stored signatures or evidence,
/// never decision thresholds) is documented at [`StoreIdentity`].
pub(crate) fn identity_of(
    config: &Config,
    detectors: &[Box<dyn Detector>],
) -> crate::Result<StoreIdentity> {
    use crate::signature::settings_of;
    let mut settings = std::collections::BTreeMap::new();
    settings.insert(
        "hash_seed".to_owned(),
        format!("{:#018x}", neardup_api::HASH_SEED),
    );
    settings.insert("analysis_version".to_owned(), ANALYSIS_VERSION.to_string());
    settings.extend(settings_of(
        "extract",
        &config.extract,
        &["mode", "max_body_bytes"],
    ));
    settings.extend(settings_of(
        "text",
        &config.text,
        &["stop_words", "stem", "detect_bytes", "stop_word_vote"],
    ));
    for d in detectors {
        match d.signature_settings() {
            Some(pairs) => settings.extend(pairs),
            None => {
                // The plugin does not say which of its settings are
                // thresholds: all of them count.
                let table = config
                    .plugins
                    .get(d.name())
                    .map_or_else(|| "{}".to_owned(), |t| serde_json::json!(t).to_string());
                settings.insert(format!("plugins.{}", d.name()), table);
            }
        }
    }
    Ok(StoreIdentity {
        detectors: detectors
            .iter()
            .map(|d| d.name().to_owned())
            .chain(EVIDENCE_SLOTS.iter().map(|s| (*s).to_owned()))
            .collect(),
        settings,
        legacy_fingerprint: Some(legacy_fingerprint(config)?),
    })
}

/// The fingerprint indexes recorded before their identity held settings
/// (redb formats 1 and 2, Redis log format 1): a hash of the extract, text,
/// simhash, chunks and plugins sections, thresholds included. Kept only to
/// recognise such an index built with exactly this config.
fn legacy_fingerprint(config: &Config) -> crate::Result<u64> {
    let relevant = (
        &config.extract,
        &config.text,
        &config.simhash,
        &config.chunks,
        &config.plugins,
    );
    let bytes = serde_json::to_vec(&relevant).map_err(|e| crate::Error::Store {
        path: "<config>".into(),
        message: format!("cannot fingerprint the config: {e}"),
    })?;
    Ok(neardup_api::hash64(&bytes))
}

/// A [`Deduper`] shared by async tasks: analysis runs on the blocking pool
/// under a read lock, many pages at once; decisions take the write lock
/// briefly, one at a time, in the order the tasks reach it.
#[derive(Clone, Debug)]
pub struct SharedDeduper {
    inner: Arc<std::sync::RwLock<Deduper>>,
}

impl SharedDeduper {
    /// Wraps a deduper for sharing.
    pub fn new(deduper: Deduper) -> SharedDeduper {
        SharedDeduper {
            inner: Arc::new(std::sync::RwLock::new(deduper)),
        }
    }

    /// Checks a page without blocking the async runtime (feature `tokio`).
    ///
    /// # Errors
    /// If the document store fails, a blocking task panicked or the lock
    /// was poisoned by a panic.
    #[cfg(feature = "tokio")]
    pub async fn check(
        &self,
        url: String,
        body: Vec<u8>,
        content_type: Option<String>,
    ) -> crate::Result<Verdict> {
        let inner = Arc::clone(&self.inner);
        tokio::task::spawn_blocking(move || {
            // Analysis needs no lock: a decision in progress on another
            // thread does not wait for it, nor it for the decision.
            let analyzer = inner.read().map_err(|_| poisoned())?.analyzer();
            let analyzed = analyzer.analyze(&url, &url, &body, content_type.as_deref());
            let mut d = inner.write().map_err(|_| poisoned())?;
            d.decide(analyzed)
        })
        .await
        .map_err(|e| crate::Error::runtime("check task", e))?
    }

    /// Runs `f` with the deduper locked for reading: [`Deduper::analyze`]
    /// runs here, many threads at once. Blocks while a decision holds the
    /// write lock, so call it off the async runtime.
    ///
    /// # Errors
    /// If the lock was poisoned by a panic.
    pub fn read<R>(&self, f: impl FnOnce(&Deduper) -> R) -> crate::Result<R> {
        let d = self.inner.read().map_err(|_| poisoned())?;
        Ok(f(&d))
    }

    /// Runs `f` with the deduper locked for writing (stats, removal).
    ///
    /// # Errors
    /// If the lock was poisoned by a panic.
    pub fn with<R>(&self, f: impl FnOnce(&mut Deduper) -> R) -> crate::Result<R> {
        let mut d = self.inner.write().map_err(|_| poisoned())?;
        Ok(f(&mut d))
    }
}

fn poisoned() -> crate::Error {
    crate::Error::Poisoned {
        lock: "deduper".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn page(words: &str) -> Vec<u8> {
        format!("<html><head><title>t</title></head><body><article><p>{words}</p></article></body></html>")
            .into_bytes()
    }

    const LONG: &str = "Researchers at the harbour institute measured how quickly the tide \
        returned after the storm, comparing sensor logs from twelve buoys with satellite \
        images taken every hour, and found that the water rose faster near the old pier \
        than anywhere else along the northern coast of the bay during that week.";

    #[test]
    fn shrunk_analyses_get_the_same_verdicts() {
        let edited = LONG.replace("twelve", "eleven");
        let pages: Vec<(&str, Vec<u8>)> = vec![
            ("a", page(LONG)),
            ("b", page(LONG)),
            ("c", page(&edited)),
            ("d", page("too short")),
            ("e", page("too short")),
            ("f", page("")),
        ];
        let mut plain = Deduper::new(Config::default()).unwrap();
        let mut shrunk = Deduper::new(Config::default()).unwrap();
        for (key, body) in &pages {
            let url = format!("http://example.com/{key}");
            let want = plain.decide(plain.analyze(key, &url, body, None)).unwrap();
            let mut a = shrunk.analyze(key, &url, body, None);
            shrunk.shrink_for_decide(&mut a);
            assert!(a.doc.words.len() <= 1 && a.doc.text.is_empty());
            let got = shrunk.decide(a).unwrap();
            assert_eq!(got, want, "{key}");
        }
    }

    #[test]
    fn exact_copy_is_a_duplicate_of_the_first_page() {
        let mut d = Deduper::new(Config::default()).unwrap();
        let a = d.check("https://a.example/1", &page(LONG), None).unwrap();
        assert_eq!(a.kind, VerdictKind::Unique);
        assert_eq!(a.indexed_as, Some(0));
        // Different markup and case, same words.
        let copy = format!(
            "<html><head><title>t</title></head><body>\n<div><P>{}</P></div></body></html>",
            LONG.to_uppercase()
        );
        let b = d
            .check("https://b.example/2", copy.as_bytes(), None)
            .unwrap();
        assert_eq!(b.kind, VerdictKind::Duplicate);
        let m = b.matched.unwrap();
        assert_eq!(
            (m.id, &m.basis),
            (Some(0), &MatchBasis::Detector("exact".into()))
        );
        assert_eq!(m.url, "https://a.example/1");
        assert_eq!(b.indexed_as, None, "exact duplicates are not indexed");
        assert_eq!(d.stats().duplicates, 1);
    }

    #[test]
    fn inserted_page_is_matched_without_having_been_checked() {
        let mut d = Deduper::new(Config::default()).unwrap();
        let analyzed = d.analyze("seed-1", "https://a.example/1", &page(LONG), None);
        let id = d.insert(analyzed).unwrap().unwrap();
        assert_eq!(d.stats().checked, 0, "insert does not count as a check");
        let v = d.check("https://b.example/2", &page(LONG), None).unwrap();
        assert_eq!(v.kind, VerdictKind::Duplicate);
        let m = v.matched.unwrap();
        assert_eq!((m.id, m.key.as_str()), (Some(id), "seed-1"));
        let empty = d.analyze("e", "https://a.example/e", b"", None);
        assert_eq!(d.insert(empty).unwrap(), None);
    }

    #[test]
    fn without_links_stops_collecting_links_and_earlier_handles_keep_them() {
        let html = b"<html><body><p>Some text about links.</p>\
            <a href=/a.html>a</a> <a href=/b.html>b</a></body></html>";
        let url = "http://e.com/page.html";
        let links = |a: &Analyzer| a.analyze("k", url, html, None).extracted.links;
        let with = Deduper::new(Config::default()).unwrap();
        assert_eq!(links(&with.analyzer()).len(), 2);
        let without = Deduper::new(Config::default()).unwrap().without_links();
        assert!(links(&without.analyzer()).is_empty());
        // A handle taken before keeps collecting; the deduper's own stops.
        let shared = Deduper::new(Config::default()).unwrap();
        let earlier = shared.analyzer();
        let shared = shared.without_links();
        assert_eq!(links(&earlier).len(), 2);
        assert!(links(&shared.analyzer()).is_empty());
    }

    #[test]
    fn removed_page_no_longer_matches() {
        let mut d = Deduper::new(Config::default()).unwrap();
        let id = d
            .check("https://a.example/1", &page(LONG), None)
            .unwrap()
            .indexed_as
            .unwrap();
        assert!(d.remove(id).unwrap());
        assert!(!d.remove(id).unwrap(), "second removal finds nothing");
        let again = d.check("https://a.example/1", &page(LONG), None).unwrap();
        assert_eq!(again.kind, VerdictKind::Unique);
    }

    #[test]
    fn short_pages_are_only_compared_exactly() {
        let mut d = Deduper::new(Config::default()).unwrap();
        let a = d
            .check("https://a.example/1", &page("contact us today"), None)
            .unwrap();
        assert_eq!(a.kind, VerdictKind::Unique);
        assert!(
            a.warnings.iter().any(|w| w.contains("short page")),
            "{:?}",
            a.warnings
        );
        let b = d
            .check("https://a.example/2", &page("contact us tomorrow"), None)
            .unwrap();
        assert_eq!(b.kind, VerdictKind::Unique);
        let c = d
            .check("https://a.example/3", &page("Contact us today"), None)
            .unwrap();
        assert_eq!(c.kind, VerdictKind::Duplicate);
    }

    #[test]
    fn binary_and_empty_bodies_warn_and_are_not_indexed() {
        let mut d = Deduper::new(Config::default()).unwrap();
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10";
        let v = d.check("https://a.example/img", png, None).unwrap();
        assert_eq!(v.kind, VerdictKind::Unique);
        assert!(
            v.warnings.iter().any(|w| w.contains("binary")),
            "{:?}",
            v.warnings
        );
        assert_eq!(v.indexed_as, None);
        let e = d.check("https://a.example/empty", b"", None).unwrap();
        assert!(
            e.warnings.iter().any(|w| w.contains("no text")),
            "{:?}",
            e.warnings
        );
        assert_eq!(e.indexed_as, None);
        assert_eq!(d.stats().indexed, 0);
    }

    #[test]
    fn oversized_body_is_truncated_with_a_warning() {
        let mut config = Config::default();
        config.extract.max_body_bytes = 4096;
        let mut d = Deduper::new(config).unwrap();
        let big = page(&LONG.repeat(100));
        let v = d.check("https://a.example/big", &big, None).unwrap();
        assert!(
            v.warnings.iter().any(|w| w.contains("truncated")),
            "{:?}",
            v.warnings
        );
    }

    #[test]
    fn text_input_signs_like_the_same_words_in_html() {
        let d = Deduper::new(Config::default()).unwrap();
        let from_html = d.analyze("k", "https://a.example/1", &page(LONG), None);
        let text = format!("  {}\n\n", LONG.replace(", ", ",\n"));
        let from_text = d.analyze_text("k", "https://a.example/1", &text);
        assert_eq!(from_text.doc.words, from_html.doc.words);
        // The detectors' signatures; the content evidence after them also
        // holds the HTML page's title, which text input has not.
        let n = d.detector_names().len();
        assert_eq!(from_text.signatures[..n], from_html.signatures[..n]);
        assert!(from_text.warnings.is_empty(), "{:?}", from_text.warnings);
        // Paragraphs become blocks, all of them main content.
        let two = d.analyze_text("k", "https://a.example/2", "first part\n\n\nsecond part");
        let blocks: Vec<&str> = two
            .extracted
            .blocks
            .iter()
            .map(|b| b.text.as_str())
            .collect();
        assert_eq!(blocks, ["first part", "second part"]);
        assert!(two.extracted.blocks.iter().all(|b| b.is_main));
    }

    #[test]
    fn oversized_text_is_cut_on_a_character_boundary() {
        let mut config = Config::default();
        config.extract.max_body_bytes = 1025;
        let d = Deduper::new(config).unwrap();
        // 'é' is two bytes: byte 1025 falls inside one.
        let a = d.analyze_text("k", "https://a.example/1", &"é".repeat(1000));
        assert_eq!(a.bytes, 1024);
        assert!(
            a.warnings.iter().any(|w| w.contains("truncated")),
            "{:?}",
            a.warnings
        );
    }

    #[test]
    fn unknown_detector_is_a_clear_error() {
        let mut config = Config::default();
        config.decide.detectors = vec!["exact".into(), "nope".into()];
        let err = Deduper::new(config).unwrap_err().to_string();
        assert!(err.contains("nope") && err.contains("simhash"), "{err}");
    }

    /// A build without a backend says which feature it lacks, as ripgrep
    /// does for PCRE2 (`cargo test -p neardup --no-default-features`, run by
    /// CI: in the workspace the CLI turns every feature on).
    #[cfg(not(all(feature = "redb", feature = "redis")))]
    #[test]
    fn a_build_without_a_backend_names_the_feature() {
        let registry = Registry::default();
        #[cfg(not(feature = "redis"))]
        {
            let location = IndexLocation::parse("redis://127.0.0.1:1/0").unwrap();
            let e = Deduper::open_at(Config::default(), &registry, &location).unwrap_err();
            let msg = e.to_string();
            assert!(
                msg.contains("no Redis support") && msg.contains("feature `redis`"),
                "{msg}"
            );
        }
        #[cfg(not(feature = "redb"))]
        {
            let location = IndexLocation::parse("index.redb").unwrap();
            let e = Deduper::open_at(Config::default(), &registry, &location).unwrap_err();
            let msg = e.to_string();
            assert!(
                msg.contains("no redb support") && msg.contains("feature `redb`"),
                "{msg}"
            );
        }
    }

    #[cfg(feature = "tokio")]
    #[test]
    fn shared_deduper_checks_from_async_tasks() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        let shared = SharedDeduper::new(Deduper::new(Config::default()).unwrap());
        let kinds = rt.block_on(async {
            let first = shared
                .check("https://a.example/1".into(), page(LONG), None)
                .await
                .unwrap();
            let second = shared
                .check("https://b.example/1".into(), page(LONG), None)
                .await
                .unwrap();
            (first.kind, second.kind)
        });
        assert_eq!(kinds, (VerdictKind::Unique, VerdictKind::Duplicate));
        assert_eq!(shared.with(|d| d.stats().checked).unwrap(), 2);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn check_never_panics_on_arbitrary_bytes(body in proptest::collection::vec(any::<u8>(), 0..4096),
                                                  ct in proptest::option::of("[ -~]{0,40}")) {
            let mut d = Deduper::new(Config::default()).unwrap();
            let v = d.check("https://p.example/x", &body, ct.as_deref()).unwrap();
            let again = d.check("https://p.example/y", &body, ct.as_deref()).unwrap();
            if v.indexed_as.is_some() {
                prop_assert!(again.kind.is_drop());
            }
        }

        #[test]
        fn check_never_panics_on_html_like_text(body in "(<[a-z/!]{0,8}[^<>]{0,20}>|[^<]{0,30}){0,60}") {
            let mut d = Deduper::new(Config::default()).unwrap();
            let _ = d.check("https://p.example/x", body.as_bytes(), Some("text/html")).unwrap();
        }
    }

    /// The stop-word vote must not change any page's language: on every page
    /// of ../shared it runs with the vote on and off, and the vote must have
    /// settled most of them (else this test would prove nothing).
    /// It lives here, not in `text`, because it needs HTML extraction.
    /// `cargo test --release --lib stop_word_vote -- --nocapture`
    #[test]
    fn stop_word_vote_agrees_with_whatlang_on_real_pages() {
        use neardup_html::extract;
        use neardup_html::{ExtractConfig, ExtractMode};
        use neardup_text::{Normalizer, TextConfig};
        let (Some(dev), Some(pan)) = (
            crate::skip::shared("bench/neardup-dev/docs"),
            crate::skip::shared("datasets/pan-text-alignment/susp"),
        ) else {
            return;
        };
        let mut files: Vec<std::path::PathBuf> = Vec::new();
        for dir in [dev, pan] {
            let rd = std::fs::read_dir(&dir).unwrap();
            files.extend(rd.filter_map(|e| e.ok().map(|e| e.path())));
        }
        assert!(!files.is_empty(), "no pages in ../shared");
        files.sort();
        let on = Normalizer::new(&TextConfig::default());
        let off = Normalizer::new(&TextConfig {
            stop_word_vote: false,
            ..TextConfig::default()
        });
        let c = ExtractConfig::default();
        let (mut pages, mut voted) = (0usize, 0usize);
        let mut differ = Vec::new();
        for f in &files {
            let Ok(bytes) = std::fs::read(f) else {
                continue;
            };
            let html = String::from_utf8_lossy(&bytes);
            let e = extract(&html, None, &c);
            let text = e.text(ExtractMode::Main);
            let a = on.normalize(&text, e.lang.as_deref());
            let b = off.normalize(&text, e.lang.as_deref());
            pages += 1;
            voted += usize::from(on.settled_by_vote(&text));
            if a != b {
                differ.push((f.display().to_string(), a.lang, b.lang));
            }
        }
        eprintln!(
            "{pages} pages, {voted} settled by the vote, {} differ",
            differ.len()
        );
        assert!(differ.is_empty(), "{differ:?}");
        assert!(
            voted * 2 > pages,
            "the vote settled only {voted} of {pages}"
        );
    }
}
