//! [`Deduper`]: the online near-duplicate check.
//!
//! A check has two halves with different needs:
//! - [`Deduper::analyze`] (decode, extract, normalize, sign) is pure CPU work
//!   on one page, takes `&self`, and runs on any thread, many pages at once;
//! - [`Deduper::decide`] (look up, verify, insert) takes `&mut self` and runs
//!   in arrival order, so verdicts do not depend on thread count.
//!
//! [`Deduper::check`] does both. Batch runs analyze in parallel and decide
//! sequentially; [`SharedDeduper`](crate::SharedDeduper) (the crate's
//! `shared`, beside this folder) does the same for tokio callers without
//! blocking the runtime.
//!
//! Files: `analyze` (the first half, [`Analyzer`]), `decide` (the second),
//! `chain` (what a config builds: detectors, store, identity); the
//! [`Deduper`] itself, its constructors and its index maintenance (insert,
//! remove, expire) are here.
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

use neardup_api::{Detector, DocId, Signature};

use crate::config::Config;
use crate::content::KeptUrls;
use crate::derived::Derived;
use crate::index::{unix_now, DocStore, IndexLocation, MemoryStore, RedisLocation};
use crate::registry::Registry;
use crate::verdict::{Verdict, VerdictCounts, VerdictKind};

mod analyze;
mod chain;
mod decide;

pub use analyze::{Analyzed, Analyzer};
pub(crate) use chain::identity_of;
pub use chain::store_identity;
use chain::{build_chain, redb_store, redis_store};

/// Counters over the life of a [`Deduper`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// Pages checked.
    pub checked: u64,
    /// Their verdicts, by kind.
    #[serde(flatten)]
    pub verdicts: VerdictCounts,
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

/// The near-duplicate checker: a detector chain, its candidate indexes and a
/// document store.
pub struct Deduper {
    pub(super) config: Config,
    /// The analysis half, shared with [`Deduper::analyzer`] handles.
    pub(super) analyzer: Arc<Analyzer>,
    pub(super) detectors: Arc<[Box<dyn Detector>]>,
    /// What is derived from the store: candidate indexes, templates,
    /// block index, URL map, expiry queue.
    pub(crate) derived: Derived,
    pub(super) store: Box<dyn DocStore>,
    pub(super) clock: Clock,
    pub(super) stats: Stats,
    /// The words of the kept URLs last compared (not derived from the
    /// store: a memo of what each URL spells, in whatever state).
    pub(super) kept_urls: KeptUrls,
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
            kept_urls: KeptUrls::default(),
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

    /// Frees what [`Deduper::decide`] does not read from `analyzed` (see
    /// [`Analyzer::shrink_for_decide`]).
    pub fn shrink_for_decide(&self, analyzed: &mut Analyzed) {
        self.analyzer.shrink_for_decide(analyzed);
    }

    /// Stops collecting each page's outgoing links
    /// ([`Extracted::links`](neardup_html::Extracted::links) stays empty). Verdicts never read them: only a
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

impl Deduper {
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

    /// Counts a verdict in [`Deduper::stats`]: one of [`Deduper::decide`],
    /// or one reached without it (a page that names an indexed page as its
    /// canonical URL).
    pub fn count_verdict(&mut self, kind: VerdictKind) {
        self.stats.checked += 1;
        self.stats.verdicts.add(kind);
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

#[cfg(test)]
mod tests;
