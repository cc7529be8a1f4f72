//! Per site, which blocks its pages repeat (`Templates`, `SiteTemplate`), and the URL structure they are counted by.

use neardup_api::hash64;
// Keyed by our hashes: foldhash, not SipHash (see the crate's Cargo.toml).
use foldhash::HashMap;

use super::evidence::EvidenceRef;
use super::thresholds::{TEMPLATE_MAX_PAGES, TEMPLATE_MIN_PAGES, TEMPLATE_SHARE};

/// Per site, on how many of its pages each block occurs.
///
/// Every checked page with text counts, kept or dropped (a dropped page is
/// stored as an *observation*: its block hashes only, see
/// [`Evidence::observation`]). Counting only kept pages would never learn
/// a template whose pages are dropped before three of them are kept: the
/// first sibling would swallow the rest. A block counts once per *page
/// name* ([`page_name`]): the same page mirrored under several folders
/// (translations, versions, re-exports) is one page, so a copy does not
/// make its own text look like template.
#[derive(Debug, Default)]
pub struct Templates {
    pub(super) sites: HashMap<u64, SiteBlocks>,
}

#[derive(Debug, Default)]
pub(super) struct SiteBlocks {
    /// Stored pages (records) of the site.
    pub(super) pages: u32,
    pub(super) pages_with: HashMap<u32, Names>,
    /// On how many stored pages' titles each word is.
    pub(super) titles_with: HashMap<u32, u32>,
}

/// The distinct page names a block was seen on: the first two names (as
/// 32-bit hashes) and the count. Past two names a block's count only
/// grows: mirrors of a page whose block is already on three pages hardly
/// move it towards the template threshold, and remembering every name
/// would cost memory per page per block.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Names {
    pub(super) first: [u32; 2],
    pub(super) count: u32,
}

impl Names {
    pub(super) fn known(&self) -> &[u32] {
        &self.first[..(self.count as usize).min(2)]
    }

    pub(super) fn add(&mut self, name: u32) {
        if self.known().contains(&name) {
            return;
        }
        if let Some(slot) = self.first.get_mut(self.count as usize) {
            *slot = name;
        }
        self.count = self.count.saturating_add(1);
    }

    /// Undoes `add` (exact while the count is at most 2; past that the
    /// block stays counted as seen on that many pages less one).
    pub(super) fn remove(&mut self, name: u32) {
        let known = self.known().len();
        if let Some(i) = self.first[..known].iter().position(|&n| n == name) {
            self.first.copy_within(i + 1..known, i);
            self.count -= 1;
        } else if self.count > 2 {
            self.count -= 1;
        }
    }
}

impl Templates {
    pub(super) fn key(site: &str) -> u64 {
        hash64(site.as_bytes())
    }

    /// The keys a page at `url` of `site` counts under: its site, and its
    /// site's section (first folder), if it is in one. A section (a book,
    /// a blog, an API reference) often has a template of its own, learned
    /// from its few pages long before it could reach 5% of a large site.
    pub(super) fn keys(site: &str, url: &str) -> [Option<u64>; 2] {
        let section = section_of(url).map(|sec| {
            let mut h = xxhash_rust::xxh3::Xxh3::with_seed(neardup_api::HASH_SEED);
            h.update(site.as_bytes());
            h.update(b"/");
            h.update(sec.as_bytes());
            h.digest()
        });
        [Some(Templates::key(site)), section]
    }

    /// A stored page (kept, or an observation: both count) of `site` at
    /// `url` with these (distinct) block hashes.
    pub fn added(&mut self, site: &str, url: &str, e: EvidenceRef<'_>) {
        let blocks = e.blocks;
        let name = page_name(url) as u32;
        for key in Templates::keys(site, url).into_iter().flatten() {
            let s = self.sites.entry(key).or_default();
            for &w in e.title {
                *s.titles_with.entry(w).or_default() += 1;
            }
            s.pages += 1;
            for &b in blocks {
                s.pages_with.entry(b).or_default().add(name);
            }
        }
    }

    /// Undoes [`Templates::added`].
    pub fn removed(&mut self, site: &str, url: &str, e: EvidenceRef<'_>) {
        let blocks = e.blocks;
        let name = page_name(url) as u32;
        for key in Templates::keys(site, url).into_iter().flatten() {
            let Some(s) = self.sites.get_mut(&key) else {
                continue;
            };
            for w in e.title {
                if let Some(n) = s.titles_with.get_mut(w) {
                    *n -= 1;
                    if *n == 0 {
                        s.titles_with.remove(w);
                    }
                }
            }
            s.pages = s.pages.saturating_sub(1);
            for b in blocks {
                if let Some(n) = s.pages_with.get_mut(b) {
                    n.remove(name);
                    if n.count == 0 {
                        s.pages_with.remove(b);
                    }
                }
            }
            if s.pages == 0 {
                self.sites.remove(&key);
            }
        }
    }

    /// What is known of the template of the page at `url` of `site`: its
    /// site's and its section's.
    pub fn of(&self, site: &str, url: &str) -> SiteTemplate<'_> {
        let [site, section] =
            Templates::keys(site, url).map(|k| k.and_then(|k| self.sites.get(&k)));
        SiteTemplate { site, section }
    }

    /// Approximate heap bytes.
    pub fn heap_bytes(&self) -> usize {
        self.sites
            .values()
            .map(|s| s.pages_with.capacity() * 17 + s.titles_with.capacity() * 9 + 64)
            .sum()
    }
}

/// A page's name within its site, hashed: the last non-empty path segment
/// (its parent's when it is `index.*`), plus the query. Pages of one name
/// under several folders are taken as one page mirrored.
pub fn page_name(url: &str) -> u64 {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.split('#').next().unwrap_or_default();
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    let path = path.split_once('/').map_or("", |(_, p)| p);
    let mut segments = path.split('/').filter(|s| !s.is_empty()).rev();
    let mut name = segments.next().unwrap_or_default();
    if name.starts_with("index.") {
        name = segments.next().unwrap_or(name);
    }
    let mut h = xxhash_rust::xxh3::Xxh3::with_seed(neardup_api::HASH_SEED);
    h.update(name.as_bytes());
    h.update(b"?");
    h.update(query.as_bytes());
    h.digest()
}

/// Where `url`'s page file is: a hash of its host and folders, and one of
/// its file name (query and fragment left out; `index.*` is its folder's
/// page, as in [`page_name`]). Two pages of one folder under two file
/// names are two entries of one listing (`struct.Stderr.html`,
/// `fn.stderr.html`), whatever their titles share.
pub fn file_place(url: &str) -> (u64, u64) {
    /// A path's folder and last segment (trailing slashes left out).
    fn last(path: &str) -> (&str, &str) {
        let path = path.trim_end_matches('/');
        path.rsplit_once('/').unwrap_or(("", path))
    }
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.split(['#', '?']).next().unwrap_or_default();
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let (mut folder, mut file) = last(path);
    if file.starts_with("index.") {
        (folder, file) = last(folder);
    }
    let mut h = xxhash_rust::xxh3::Xxh3::with_seed(neardup_api::HASH_SEED);
    h.update(host.as_bytes());
    h.update(b"/");
    h.update(folder.trim_end_matches('/').as_bytes());
    (
        h.digest(),
        xxhash_rust::xxh3::xxh3_64_with_seed(file.as_bytes(), neardup_api::HASH_SEED),
    )
}

/// How many folders the path of `url` has: `/a/b/page.html` has two, the
/// site's root one none. The same page name under as many folders is a
/// sibling folder's page (`arm/x.rs`, `aarch64/x.rs`; `3.11/x`, `3.12/x`);
/// under one folder more or less, another view of the page (`print/`,
/// `amp/`).
pub fn folder_depth(url: &str) -> usize {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.split(['#', '?']).next().unwrap_or_default();
    let path = rest.split_once('/').map_or("", |(_, p)| p);
    path.split('/')
        .filter(|s| !s.is_empty())
        .count()
        .saturating_sub(1)
}

/// The first folder of `url`'s path, if the page is inside one.
pub(super) fn section_of(url: &str) -> Option<&str> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let path = rest.split(['?', '#']).next()?.split_once('/')?.1;
    let (first, rest) = path.split_once('/')?;
    (!first.is_empty() && !rest.is_empty()).then_some(first)
}

/// A page's template as known so far: its site's and its section's.
#[derive(Clone, Copy, Debug, Default)]
pub struct SiteTemplate<'a> {
    pub(super) site: Option<&'a SiteBlocks>,
    pub(super) section: Option<&'a SiteBlocks>,
}

impl SiteTemplate<'_> {
    /// Returns true if and only if the page's section (or, outside any
    /// section, its site) has fewer than [`YOUNG_PAGES`] stored pages.
    pub fn young(&self) -> bool {
        self.section
            .or(self.site)
            .is_none_or(|s| s.pages < YOUNG_PAGES)
    }

    /// Returns true if and only if `block` is template of the site or of
    /// the section: on [`threshold`] or more of its pages (by name).
    pub fn contains(&self, block: u32) -> bool {
        [self.site, self.section].into_iter().flatten().any(|s| {
            s.pages_with
                .get(&block)
                .is_some_and(|n| n.count >= threshold(s.pages))
        })
    }
}

/// Below this many stored pages a site or section is young: its template
/// cannot be told from its content yet.
pub const YOUNG_PAGES: u32 = 10;

/// On how many of `pages` pages a block must be to be template: 5% of
/// them, clamped to [`TEMPLATE_MIN_PAGES`]..=[`TEMPLATE_MAX_PAGES`]. It
/// grows with the site, so a block shared by a handful of related pages
/// (the same description on sibling API items) stays content on a large
/// site.
pub fn threshold(pages: u32) -> u32 {
    (pages / TEMPLATE_SHARE).clamp(TEMPLATE_MIN_PAGES, TEMPLATE_MAX_PAGES)
}

/// On how many of `pages` pages a title word must be to be common: 5%
/// of them, at least [`TEMPLATE_MIN_PAGES`]. Unlike a template block's
/// [`threshold`] it has no ceiling: on a site of 30,000 pages, a word in
/// the titles of a hundred (`f64`, the name of a type and of its methods'
/// module) still names those pages; the site's name, in every title,
/// does not.
pub fn title_threshold(pages: u32) -> u32 {
    (pages / TEMPLATE_SHARE).max(TEMPLATE_MIN_PAGES)
}

impl SiteTemplate<'_> {
    /// Returns true if and only if `word` is in the titles of at least
    /// [`title_threshold`] of the stored pages of the page's section (or,
    /// outside any section, its site): the site's or the book's name,
    /// "Index", "in", "Rust", "documentation". By section, because one
    /// part of a site (an API reference) would otherwise make the words
    /// that name pages of another (a book) look common.
    pub fn common_title_word(&self, word: u32) -> bool {
        self.section.or(self.site).is_some_and(|s| {
            s.titles_with
                .get(&word)
                .is_some_and(|&n| n >= title_threshold(s.pages))
        })
    }
}
