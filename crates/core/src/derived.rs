//! What the deduper derives from its store and keeps in RAM: the
//! detectors' candidate indexes, the site templates, the block index, the
//! URL map and (with `index.ttl_secs`) the expiry queue.
//!
//! One owner, two operations: [`Derived::add`] when a record is stored (or
//! read at open, or seen stored by another process) and [`Derived::remove`]
//! when it is removed. Invariant: after `add` of every record of the store,
//! in id order, and `add` / `remove` of every later change, each structure
//! holds exactly what the store's records imply, so it can always be thrown
//! away and rebuilt from the store (which is what opening an index does).
//! An observation (a page that was not kept, stored for its blocks only)
//! counts towards its site's templates and nothing else.

use foldhash::{HashMap, HashMapExt};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use neardup_api::{CandidateIndex, Detector, DocId};

use crate::canonical::Canonicalizer;
use crate::config::Config;
use crate::content::{BlockIndex, Templates};
use crate::index::{Change, DocRecord};

/// The deduper's derived state (see the module docs).
pub(crate) struct Derived {
    /// One candidate index per detector, in chain order.
    pub(crate) indexes: Vec<Box<dyn CandidateIndex>>,
    /// Per site, the blocks its pages repeat.
    pub(crate) templates: Templates,
    /// Kept pages by their blocks.
    pub(crate) blocks: BlockIndex,
    /// Which kept page holds each URL.
    pub(crate) urls: UrlMap,
    /// `(fetched_at, id)`, earliest first, when `index.ttl_secs > 0`. An
    /// entry whose record was removed or fetched again since is skipped
    /// when it comes due (removal does not search the heap).
    pub(crate) expiry: Option<BinaryHeap<Reverse<(u64, DocId)>>>,
    /// Stored records that are not observations: the pages indexed.
    kept: u64,
}

/// Whether a record comes or goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Add,
    Remove,
}

impl Derived {
    /// Empty derived state for `detectors` under `config`.
    pub(crate) fn new(config: &Config, detectors: &[Box<dyn Detector>]) -> Derived {
        Derived {
            indexes: detectors.iter().map(|d| d.new_index()).collect(),
            templates: Templates::default(),
            blocks: BlockIndex::default(),
            urls: UrlMap {
                canon: Canonicalizer::new(&UrlMap::identity_rules(&config.canonical)),
                ids: HashMap::new(),
            },
            expiry: (config.index.ttl_secs > 0).then(BinaryHeap::new),
            kept: 0,
        }
    }

    /// Adds what stored record `id` contributes.
    pub(crate) fn add(&mut self, id: DocId, rec: &DocRecord) {
        self.update(Direction::Add, id, rec);
    }

    /// Takes back what [`Derived::add`] added for `id`.
    pub(crate) fn remove(&mut self, id: DocId, rec: &DocRecord) {
        self.update(Direction::Remove, id, rec);
    }

    /// Stored records that are kept pages (not observations).
    pub(crate) fn kept(&self) -> u64 {
        self.kept
    }

    /// Applies a change another process made to a shared store.
    pub(crate) fn apply(&mut self, change: Change<'_>) {
        match change {
            Change::Added(id, rec) => self.add(id, rec),
            Change::Removed(id, rec) => self.remove(id, rec),
        }
    }

    fn update(&mut self, direction: Direction, id: DocId, rec: &DocRecord) {
        let add = direction == Direction::Add;
        for (index, sig) in self.indexes.iter_mut().zip(&rec.signatures) {
            if sig.is_empty() {
                continue;
            }
            if add {
                index.insert(id, sig);
            } else {
                index.remove(id, sig);
            }
        }
        let e = rec.evidence.as_ref();
        if add {
            self.templates.added(&rec.site, &rec.url, e);
        } else {
            self.templates.removed(&rec.site, &rec.url, e);
        }
        if !rec.kind.is_indexed() {
            return;
        }
        if add {
            self.blocks.insert(id, e.blocks);
        } else {
            self.blocks.remove(id, e.blocks);
        }
        if add {
            self.kept += 1;
            self.urls.added(id, rec);
            if let Some(queue) = &mut self.expiry {
                queue.push(Reverse((rec.fetched_at, id)));
            }
        } else {
            self.kept = self.kept.saturating_sub(1);
            self.urls.removed(id, rec);
        }
    }
}

/// Which indexed page holds each URL: derived state, rebuilt from the store
/// on open like the candidate indexes. Keyed by a stable hash (xxh3, fixed
/// seed) of the URL's identity form ([`UrlMap::identity_rules`]: so
/// `HTTP://A.example:80/x#top` and `http://a.example/x` are one page, but
/// `/x?utm_source=feed` is not `/x`); a hit is confirmed against the
/// stored URL, so a hash collision can never replace another page.
pub(crate) struct UrlMap {
    canon: Canonicalizer,
    pub(crate) ids: HashMap<u64, DocId>,
}

impl UrlMap {
    /// The `canonical` rules that only rewrite one resource's
    /// spellings (RFC 3986 equivalence: fragment, percent-encoding, empty
    /// query, host dot), without the heuristics that merge URLs which may
    /// name different pages (dropped or sorted parameters, trailing
    /// slashes). A recrawl replaces the page fetched at the *same* URL; a
    /// copy at a tracking-parameter variant is a duplicate to report, not a
    /// new version (the crawl's frontier merges those before fetching).
    pub(crate) fn identity_rules(
        crawl: &crate::config::CanonicalConfig,
    ) -> crate::config::CanonicalConfig {
        crate::config::CanonicalConfig {
            sort_query: false,
            drop_params: Vec::new(),
            drop_path_params: false,
            trailing_slash: crate::config::TrailingSlash::Keep,
            ..crawl.clone()
        }
    }

    /// The identity form of `url` (the URL itself if it has none, e.g. a
    /// `file://` URL of a batch input).
    pub(crate) fn canonical(&self, url: &str) -> String {
        self.canon
            .canonicalize(url)
            .map_or_else(|_| url.to_owned(), String::from)
    }

    pub(crate) fn key(&self, url: &str) -> u64 {
        neardup_api::hash64(self.canonical(url).as_bytes())
    }

    fn added(&mut self, id: DocId, rec: &DocRecord) {
        // Ids grow: the newest record of a URL wins.
        self.ids.insert(self.key(&rec.url), id);
    }

    fn removed(&mut self, id: DocId, rec: &DocRecord) {
        let key = self.key(&rec.url);
        if self.ids.get(&key) == Some(&id) {
            self.ids.remove(&key);
        }
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        // hashbrown: one control byte per bucket besides the entry.
        self.ids.capacity() * (std::mem::size_of::<(u64, DocId)>() + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::Evidence;
    use crate::index::RecordKind;

    fn record(url: &str, observation: bool) -> DocRecord {
        let evidence = Evidence {
            blocks: vec![1, 2, 3],
            modulus: 1,
            sample: vec![4, 5],
            visible: 6,
            title: vec![7],
            lang: 0,
            main_words: 40,
        };
        let (kind, evidence) = if observation {
            (RecordKind::Observation, evidence.observation())
        } else {
            (RecordKind::Kept, evidence)
        };
        DocRecord {
            key: url.into(),
            url: url.into(),
            site: "s".into(),
            kind,
            signatures: Vec::new(),
            evidence,
            fetched_at: 0,
        }
    }

    #[test]
    fn kept_counts_kept_pages_and_not_observations_and_forgets_removed_ones() {
        let mut d = Derived::new(&Config::default(), &[]);
        let (a, b, c) = (
            record("http://s/a", false),
            record("http://s/b", true),
            record("http://s/c", false),
        );
        d.add(0, &a);
        d.add(1, &b);
        d.add(2, &c);
        assert_eq!(d.kept(), 2);
        assert_eq!(d.urls.ids.len(), 2, "an observation holds no URL");
        d.remove(1, &b);
        assert_eq!(d.kept(), 2);
        d.remove(0, &a);
        assert_eq!(d.kept(), 1);
        assert_eq!(d.urls.ids.len(), 1);
    }
}
