//! What a page says that its site does not say everywhere: the evidence
//! behind every drop.
//!
//! The detectors (exact, SimHash, chunks, plugins) find *candidates*: pages
//! whose main text looks alike. On real sites that is not enough to drop a
//! page. Generated pages share long template sections (sidebars, notices,
//! blanket trait impls), and a table of contents or an API item may have no
//! article at all, so two distinct pages can look alike to every detector.
//! A drop is safe only when the **dropped** page's own content is in the
//! kept page: then nothing is lost. This module measures exactly that.
//!
//! - [`PageContent`] (analysis, any thread): the title and every visible
//!   block of the page as a stable block hash (of its words and whether it
//!   is a heading or the title), whether extraction called it main content
//!   or navigation, and its words as stable hashes.
//! - [`Evidence`] (stored with each kept page): the page's block hashes (for
//!   the template model and the [`BlockIndex`]), a sample of its word
//!   3-shingles (Broder's Mod_m: the shingles whose hash is `0 mod m`, `m`
//!   the smallest power of two that keeps at most [`MAX_SAMPLE`] of them)
//!   and a hash of its whole visible text. A dropped page is stored as an
//!   *observation*: its block hashes only, never a candidate.
//! - [`Templates`] (derived state, like the candidate indexes): per site and
//!   per section (first folder), on how many pages each block occurs (kept
//!   and observed; a page mirrored under several folders counts once). A
//!   block on 5% of them (at least 3, at most 8 pages) is template: it says
//!   nothing about any one page. Being derived from the store, what was
//!   learned persists with the index (memory, redb, Redis), a resumed crawl
//!   or restarted server decides the same way, and, being updated only in
//!   decision order, it never depends on thread count.
//! - [`coverage`]: the share of the new page's own content (its blocks minus
//!   the template; for an article, its main-content blocks minus the
//!   template), read as one text, whose shingles are in the kept page.
//!   `decide` drops a page only when this reaches `decide.min_coverage`
//!   (more while its site or section is young, [`YOUNG_MIN_COVERAGE`]); a
//!   page whose own content is too small to measure is dropped only when
//!   its whole visible text is identical to the kept page's. The measure
//!   is one-way: a page that contains another is never its copy.
//! - [`BlockIndex`]: kept pages by their blocks, the core's candidates for a
//!   page no detector of the chain matched to a page holding its content.
//!
//! Limits: the first pages of a template type (siblings whose shared
//! section has not been seen on enough pages yet) can still be dropped
//! into each other when the shared section is most of them; a copy whose
//! own text is small and differs in a path or name (an API item re-exported
//! under another module) is often kept: a missed copy costs a fetch, a
//! wrong drop loses a page.
//!
//! Invariants: every hash here is xxh3 with [`crate::signature::HASH_SEED`]
//! (stable across runs and platforms); sampled shingle sets are nested (a
//! sample at `2m` is the sample at `m` filtered), so two pages sampled at
//! different rates compare at the coarser one.

use std::collections::HashMap;

use neardup_api::Signature;

use crate::extract::Block;
use crate::signature::hash64;

/// Names of the evidence slots stored after the detectors' signatures in a
/// record (see [`Evidence::to_signatures`]); part of the store identity.
pub const EVIDENCE_SLOTS: [&str; 3] = ["content.blocks", "content.shingles", "content.visible"];

/// Most shingles kept in a stored sample (4 KiB).
pub const MAX_SAMPLE: usize = 1024;

/// A block is template when it is on this share of its site's pages...
pub const TEMPLATE_SHARE: u32 = 20; // 1/20 = 5%
/// ...but on at least this many pages (below it, a repetition may be a
/// coincidence of two or three related pages)...
pub const TEMPLATE_MIN_PAGES: u32 = 3;
/// ...and on at most this many: on a site of 100,000 pages a notice
/// repeated on 8 of them is template.
pub const TEMPLATE_MAX_PAGES: u32 = 8;

/// Below this many compared shingles a page's own content is too small to
/// judge by containment: only an identical visible text drops it.
pub const MIN_SHINGLES: usize = 8;

/// Below this many sampled shingles the sampled containment is too noisy;
/// the block-level measure is used instead.
const MIN_SAMPLED: usize = 16;

/// The least coverage of a drop of a page without an article while its
/// site or section is young (its template unknown: a footer or sidebar
/// shared with the kept page counts as content then, so only a
/// near-identical page is a copy). An article's own content is its main
/// text, which extraction already separates from such chrome.
pub const YOUNG_MIN_COVERAGE: f64 = 0.9;

/// An article: main content (outside the template) of at least this many
/// words...
const ARTICLE_MIN_WORDS: u32 = 100;
/// ...and at least this share of the page's words outside the template.
const ARTICLE_MIN_SHARE: f64 = 0.1;

/// One visible block of a page (every occurrence, in page order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContentBlock {
    /// Stable hash of the block's normalized words.
    pub hash: u32,
    /// Whether extraction kept it as main content.
    pub main: bool,
    /// Where it came from: 0 for the title, `i + 1` for extracted block `i`.
    pub source: u32,
    /// Navigation: mostly link text (link density at least one half), or
    /// a run of bare numbers.
    pub links: bool,
    /// The block's words: `words[start..end]` of the page.
    start: u32,
    end: u32,
}

impl ContentBlock {
    /// Number of words.
    pub fn words(&self) -> u32 {
        self.end - self.start
    }
}

/// Every visible block of a page, with its words as stable hashes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PageContent {
    /// Blocks with at least one word, in page order.
    pub blocks: Vec<ContentBlock>,
    /// Word hashes of all blocks, in page order.
    words: Vec<u32>,
    /// Stable hash of the whole visible text (all blocks, in order).
    pub visible: u64,
}

impl PageContent {
    /// The content of a page from its `<title>` and extracted blocks. The
    /// title comes first, as a main block: what a page is called is part
    /// of what it says (two API items or two tables of contents often
    /// differ in little else).
    pub fn from_page(title: &str, blocks: &[Block]) -> PageContent {
        let mut out = PageContent::default();
        let mut lower = String::new();
        let mut visible = xxhash_rust::xxh3::Xxh3::with_seed(crate::signature::HASH_SEED);
        let title = (!title.trim().is_empty()).then_some((0, title, true, Kind::Title));
        let blocks = blocks
            .iter()
            .enumerate()
            .map(|(i, b)| (i as u32 + 1, b.text.as_str(), b.is_main, Kind::of(b)));
        for (source, text, main, kind) in title.into_iter().chain(blocks) {
            lower.clear();
            if text.is_ascii() {
                lower.push_str(text);
                lower.make_ascii_lowercase();
            } else {
                lower.extend(text.chars().flat_map(char::to_lowercase));
            }
            let start = out.words.len();
            let mut numbers = 0usize;
            crate::text::for_each_word(&lower, |w| {
                if w.chars().any(char::is_alphanumeric) {
                    out.words.push(hash64(w.as_bytes()) as u32);
                    numbers += usize::from(w.bytes().all(|b| b.is_ascii_digit()));
                }
            });
            let Some(words) = out.words.get(start..) else {
                continue;
            };
            if words.is_empty() {
                continue;
            }
            // Runs of bare numbers (line numbers, pagination) are
            // navigation like link lists.
            let kind = if kind == Kind::Text && words.len() >= 3 && numbers * 5 >= words.len() * 4 {
                Kind::Links
            } else {
                kind
            };
            // Link text and plain text hash alike (a signature line's
            // link density varies with its rendering); headings and the
            // title do not.
            let tag = match kind {
                Kind::Heading | Kind::Title => kind as u32,
                Kind::Text | Kind::Links => Kind::Text as u32,
            };
            let hash = fold_with(tag, words);
            let links = kind == Kind::Links;
            visible.update(&hash.to_le_bytes());
            out.blocks.push(ContentBlock {
                hash,
                main,
                source,
                links,
                start: start as u32,
                end: out.words.len() as u32,
            });
        }
        out.visible = visible.digest();
        out
    }

    /// The words of the blocks `keep` selects, read as one text in page
    /// order. Where a block left out stood, the shingles across the gap
    /// are ones the kept page need not have: a page whose own text is
    /// scattered between template blocks (a short index page) is judged
    /// strictly, one whose own text is one piece (an article) hardly
    /// notices.
    fn stream(&self, keep: impl Fn(&ContentBlock) -> bool) -> Vec<u32> {
        self.blocks
            .iter()
            .filter(|b| keep(b))
            .flat_map(|b| {
                self.words
                    .get(b.start as usize..b.end as usize)
                    .unwrap_or_default()
            })
            .copied()
            .collect()
    }
}

/// The word-3-shingles of `stream`, in order (one shingle for a stream of
/// one or two words).
fn shingles_of(stream: &[u32]) -> Vec<u32> {
    match stream.len() {
        0 => Vec::new(),
        1 | 2 => vec![fold(stream)],
        _ => stream.windows(3).map(fold).collect(),
    }
}

/// The sorted, distinct word-3-shingles of `stream`.
fn shingle_set(stream: &[u32]) -> Vec<u32> {
    let mut out = shingles_of(stream);
    out.sort_unstable();
    out.dedup();
    out
}

impl PageContent {
    /// The evidence to store if this page is kept.
    pub fn evidence(&self) -> Evidence {
        let mut blocks: Vec<u32> = self.blocks.iter().map(|b| b.hash).collect();
        blocks.sort_unstable();
        blocks.dedup();
        // Sample before sorting: only the kept shingles are sorted.
        let mut sample = shingles_of(&self.words);
        let mut modulus: u32 = 1;
        while sample.len() > MAX_SAMPLE && modulus < 1 << 30 {
            modulus <<= 1;
            sample.retain(|s| s % modulus == 0);
        }
        sample.sort_unstable();
        sample.dedup();
        Evidence {
            blocks,
            modulus,
            sample,
            visible: self.visible,
        }
    }
}

/// Combines word (or shingle) hashes into one 32-bit hash, stably: a
/// multiply-xorshift chain (fixed constants, wrapping arithmetic, so the
/// same on every platform and run). Called once per word of every page,
/// so it must cost nanoseconds: a seeded streaming xxh3 per shingle
/// (which derives its secret at each start) halved analysis speed.
#[inline]
fn fold(hashes: &[u32]) -> u32 {
    fold_with(0, hashes)
}

/// [`fold`] with a leading tag.
#[inline]
fn fold_with(tag: u32, hashes: &[u32]) -> u32 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = crate::signature::HASH_SEED ^ u64::from(tag).wrapping_mul(K);
    for &x in hashes {
        h = (h ^ u64::from(x)).wrapping_mul(K);
        h ^= h >> 29;
    }
    h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    (h ^ (h >> 32)) as u32
}

/// What a block is, as far as its template status goes: a block hash
/// includes it, so a page's heading is not template because the same
/// words are a breadcrumb link on every other page of its section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Text = 0,
    Heading = 1,
    Links = 2,
    Title = 3,
}

impl Kind {
    fn of(b: &Block) -> Kind {
        if b.link_density >= 0.5 {
            Kind::Links
        } else if matches!(b.tag.as_str(), "h1" | "h2" | "h3" | "h4" | "h5" | "h6") {
            Kind::Heading
        } else {
            Kind::Text
        }
    }
}

/// What is stored of a kept page to judge later pages against it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Evidence {
    /// Sorted, distinct block hashes.
    pub blocks: Vec<u32>,
    /// The sample keeps shingles `s` with `s % modulus == 0` (a power of two).
    pub modulus: u32,
    /// Sorted, distinct sampled shingles of the whole visible text.
    pub sample: Vec<u32>,
    /// Hash of the whole visible text.
    pub visible: u64,
}

impl Evidence {
    /// The record slots, in [`EVIDENCE_SLOTS`] order. The shingle sample is
    /// a `Sketch` whose first value is the modulus.
    pub fn to_signatures(&self) -> [Signature; 3] {
        let mut sketch = Vec::with_capacity(self.sample.len() + 1);
        sketch.push(self.modulus);
        sketch.extend_from_slice(&self.sample);
        [
            Signature::Set(self.blocks.clone()),
            Signature::Sketch(sketch),
            Signature::Fingerprint(self.visible),
        ]
    }

    /// The slots stored for a page that is not kept (an *observation*): its
    /// blocks, for the site's template, and no shingles (it is never the
    /// kept side of a drop), marked by a sampling modulus of 0.
    pub fn observation(&self) -> [Signature; 3] {
        [
            Signature::Set(self.blocks.clone()),
            Signature::Sketch(vec![0]),
            Signature::Fingerprint(self.visible),
        ]
    }

    /// Reads the slots back; `None` if they are missing or malformed (a
    /// page with no evidence can never be the kept side of a drop).
    pub fn from_signatures(slots: &[Signature]) -> Option<EvidenceRef<'_>> {
        let [blocks, sample, visible] = slots else {
            return None;
        };
        let blocks = match blocks {
            Signature::Set(b) => b.as_slice(),
            Signature::Empty => &[],
            _ => return None,
        };
        let (modulus, sample) = match sample {
            Signature::Sketch(s) => s.split_first()?,
            _ => return None,
        };
        let Signature::Fingerprint(visible) = visible else {
            return None;
        };
        (*modulus == 0 || modulus.is_power_of_two()).then_some(EvidenceRef {
            blocks,
            modulus: *modulus,
            sample,
            visible: *visible,
        })
    }
}

/// A stored page's evidence, borrowed from its record.
#[derive(Clone, Copy, Debug)]
pub struct EvidenceRef<'a> {
    /// Sorted, distinct block hashes.
    pub blocks: &'a [u32],
    /// Sampling modulus (a power of two; 0 for an observation).
    pub modulus: u32,
    /// Sorted, distinct sampled shingles.
    pub sample: &'a [u32],
    /// Hash of the whole visible text.
    pub visible: u64,
}

impl EvidenceRef<'_> {
    /// Returns true if and only if this is an observation (a page not
    /// kept, stored for its blocks only; see [`Evidence::observation`]).
    pub fn is_observation(&self) -> bool {
        self.modulus == 0
    }
}

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
    sites: HashMap<u64, SiteBlocks>,
    observations: usize,
}

#[derive(Debug, Default)]
struct SiteBlocks {
    /// Stored pages (records) of the site.
    pages: u32,
    pages_with: HashMap<u32, Names>,
}

/// The distinct page names a block was seen on: the first two names (as
/// 32-bit hashes) and the count. Past two names a block's count only
/// grows: mirrors of a page whose block is already on three pages hardly
/// move it towards the template threshold, and remembering every name
/// would cost memory per page per block.
#[derive(Clone, Copy, Debug, Default)]
struct Names {
    first: [u32; 2],
    count: u32,
}

impl Names {
    fn known(&self) -> &[u32] {
        &self.first[..(self.count as usize).min(2)]
    }

    fn add(&mut self, name: u32) {
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
    fn remove(&mut self, name: u32) {
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
    fn key(site: &str) -> u64 {
        hash64(site.as_bytes())
    }

    /// The keys a page at `url` of `site` counts under: its site, and its
    /// site's section (first folder), if it is in one. A section (a book,
    /// a blog, an API reference) often has a template of its own, learned
    /// from its few pages long before it could reach 5% of a large site.
    fn keys(site: &str, url: &str) -> [Option<u64>; 2] {
        let section = section_of(url).map(|sec| {
            let mut h = xxhash_rust::xxh3::Xxh3::with_seed(crate::signature::HASH_SEED);
            h.update(site.as_bytes());
            h.update(b"/");
            h.update(sec.as_bytes());
            h.digest()
        });
        [Some(Templates::key(site)), section]
    }

    /// A stored page (kept, or an observation when `observation`) of
    /// `site` at `url` with these (distinct) block hashes.
    pub fn added(&mut self, site: &str, url: &str, blocks: &[u32], observation: bool) {
        self.observations += usize::from(observation);
        let name = page_name(url) as u32;
        for key in Templates::keys(site, url).into_iter().flatten() {
            let s = self.sites.entry(key).or_default();
            s.pages += 1;
            for &b in blocks {
                s.pages_with.entry(b).or_default().add(name);
            }
        }
    }

    /// Undoes [`Templates::added`].
    pub fn removed(&mut self, site: &str, url: &str, blocks: &[u32], observation: bool) {
        self.observations -= usize::from(observation);
        let name = page_name(url) as u32;
        for key in Templates::keys(site, url).into_iter().flatten() {
            let Some(s) = self.sites.get_mut(&key) else {
                continue;
            };
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

    /// Stored observations (dropped pages kept only for their blocks).
    pub fn observations(&self) -> usize {
        self.observations
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
            .map(|s| s.pages_with.capacity() * 17 + 64)
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
    let mut h = xxhash_rust::xxh3::Xxh3::with_seed(crate::signature::HASH_SEED);
    h.update(name.as_bytes());
    h.update(b"?");
    h.update(query.as_bytes());
    h.digest()
}

/// Kept pages by the blocks they hold: candidates for a page whose own
/// content the detectors' main-text signatures miss (a page without an
/// article, a copy whose main text differs only in a path in its heading).
///
/// A block held by more than [`MAX_BLOCK_POSTINGS`] kept pages is dropped
/// from the index for good: it is template or boilerplate somewhere, and
/// its postings would only cost memory and time.
#[derive(Debug, Default)]
pub struct BlockIndex {
    postings: HashMap<u32, Vec<neardup_api::DocId>>,
}

/// Kept pages listed per block at most.
pub const MAX_BLOCK_POSTINGS: usize = 32;

/// The posting list of a block held by too many kept pages.
const SATURATED: neardup_api::DocId = neardup_api::DocId::MAX;

/// Candidates returned per lookup at most.
const MAX_BLOCK_CANDIDATES: usize = 16;

impl BlockIndex {
    /// Lists a kept page under each of its blocks.
    pub fn insert(&mut self, id: neardup_api::DocId, blocks: &[u32]) {
        for &b in blocks {
            let list = self.postings.entry(b).or_default();
            if list.as_slice() == [SATURATED] {
                continue;
            }
            if list.len() < MAX_BLOCK_POSTINGS {
                list.push(id);
            } else {
                *list = vec![SATURATED];
            }
        }
    }

    /// Undoes [`BlockIndex::insert`] (a saturated block stays saturated).
    pub fn remove(&mut self, id: neardup_api::DocId, blocks: &[u32]) {
        for b in blocks {
            if let Some(list) = self.postings.get_mut(b) {
                if let Some(i) = list.iter().position(|&x| x == id) {
                    list.swap_remove(i);
                    if list.is_empty() {
                        self.postings.remove(b);
                    }
                }
            }
        }
    }

    /// Kept pages sharing most of `page`'s own words (outside `template`),
    /// best first (ties: the earliest page).
    pub fn candidates(
        &self,
        page: &PageContent,
        template: SiteTemplate<'_>,
        out: &mut Vec<neardup_api::DocId>,
    ) {
        let mut score: HashMap<neardup_api::DocId, u32> = HashMap::new();
        let mut seen = std::collections::HashSet::new();
        for b in &page.blocks {
            if template.contains(b.hash) || !seen.insert(b.hash) {
                continue;
            }
            let Some(list) = self.postings.get(&b.hash) else {
                continue;
            };
            for &id in list {
                if id != SATURATED {
                    *score.entry(id).or_insert(0) += b.words();
                }
            }
        }
        let mut ranked: Vec<(u32, neardup_api::DocId)> =
            score.into_iter().map(|(id, s)| (s, id)).collect();
        ranked.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        out.clear();
        out.extend(
            ranked
                .into_iter()
                .take(MAX_BLOCK_CANDIDATES)
                .map(|(_, id)| id),
        );
    }

    /// Approximate heap bytes.
    pub fn heap_bytes(&self) -> usize {
        self.postings.values().map(|l| l.capacity() * 4 + 40).sum()
    }
}

/// The first folder of `url`'s path, if the page is inside one.
fn section_of(url: &str) -> Option<&str> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let path = rest.split(['?', '#']).next()?.split_once('/')?.1;
    let (first, rest) = path.split_once('/')?;
    (!first.is_empty() && !rest.is_empty()).then_some(first)
}

/// A page's template as known so far: its site's and its section's.
#[derive(Clone, Copy, Debug, Default)]
pub struct SiteTemplate<'a> {
    site: Option<&'a SiteBlocks>,
    section: Option<&'a SiteBlocks>,
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

impl SiteTemplate<'_> {}

/// What was compared to judge a drop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// The page has an article: its main-content blocks outside the site
    /// template (what is outside the article is chrome a copy may lack).
    Article,
    /// No article: every visible block outside the site template.
    Page,
}

impl Basis {
    /// Lowercase name for verdict reasons.
    pub fn as_str(self) -> &'static str {
        match self {
            Basis::Article => "article",
            Basis::Page => "page",
        }
    }
}

/// How much of a page's own content is in a kept page.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Coverage {
    /// Share (`0.0..=1.0`) of the compared shingles (or, when too few are
    /// sampled, of the compared words by block) found in the kept page.
    Measured {
        /// The share.
        covered: f64,
        /// What was compared.
        basis: Basis,
        /// Words compared.
        words: u32,
        /// The page's site or section was young (see [`YOUNG_MIN_COVERAGE`]).
        young: bool,
    },
    /// The page's own content is too small to measure: `identical` tells
    /// whether its whole visible text equals the kept page's.
    TooSmall {
        /// Whole visible texts equal.
        identical: bool,
        /// Words of the page's own content.
        words: u32,
    },
}

impl Coverage {
    /// Whether the page may be dropped as a copy of the kept page at
    /// `min_coverage`.
    pub fn allows_drop(&self, min_coverage: f64) -> bool {
        match *self {
            Coverage::Measured {
                covered,
                young,
                basis,
                ..
            } => {
                let strict = young && basis == Basis::Page;
                covered
                    >= if strict {
                        min_coverage.max(YOUNG_MIN_COVERAGE)
                    } else {
                        min_coverage
                    }
            }
            Coverage::TooSmall { identical, .. } => identical,
        }
    }

    /// The share used in verdicts (1.0 or 0.0 for a too-small page).
    pub fn share(&self) -> f64 {
        match *self {
            Coverage::Measured { covered, .. } => covered,
            Coverage::TooSmall { identical, .. } => f64::from(u8::from(identical)),
        }
    }

    /// One line for a verdict's reason or warning.
    pub fn describe(&self) -> String {
        match *self {
            Coverage::Measured {
                covered,
                basis,
                words,
                young,
            } => format!(
                "{:.0}% of this page's own content ({words} words of its {}, {}) is in the kept page",
                covered * 100.0,
                basis.as_str(),
                if young {
                    "site template not yet known"
                } else {
                    "site template removed"
                }
            ),
            Coverage::TooSmall { identical, words } => format!(
                "this page's own content ({words} words outside its site's template) is too small to compare; its whole visible text is {}",
                if identical { "identical to the kept page's" } else { "not identical to the kept page's" }
            ),
        }
    }
}

/// How a page's blocks are selected for comparison under a template.
#[derive(Clone, Copy, Debug)]
struct Selection<'t> {
    template: SiteTemplate<'t>,
    basis: Basis,
    /// The page's section (or site) is young: its template is unknown.
    young: bool,
}

impl<'t> Selection<'t> {
    /// The basis is [`Basis::Article`] when the page has enough main
    /// content outside the template and navigation (a main text of line
    /// numbers or links is no article), and not a sliver of the page (what is
    /// outside an article is chrome a copy may lack); otherwise every
    /// block outside the template is the page's own. While the page's
    /// section (or site) is young ([`SiteTemplate::young`]) its template
    /// is not known, so what two pages share may be template: a drop of a
    /// page without an article then needs [`YOUNG_MIN_COVERAGE`].
    fn new(page: &PageContent, template: SiteTemplate<'t>) -> Selection<'t> {
        let (mut main, mut all) = (0u32, 0u32);
        for b in page
            .blocks
            .iter()
            .filter(|b| !template.contains(b.hash) && !b.links)
        {
            all += b.words();
            if b.main {
                main += b.words();
            }
        }
        let basis =
            if main >= ARTICLE_MIN_WORDS && f64::from(main) >= ARTICLE_MIN_SHARE * f64::from(all) {
                Basis::Article
            } else {
                Basis::Page
            };
        Selection {
            template,
            basis,
            young: template.young(),
        }
    }

    fn role(&self, b: &ContentBlock) -> Role {
        if self.template.contains(b.hash) {
            Role::Template
        } else if self.basis == Basis::Article && !b.main {
            Role::Chrome
        } else {
            Role::Compared
        }
    }
}

/// What a page's blocks count as when it is judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Repeated on many pages of the site: never compared.
    Template,
    /// Outside the article of a page that has one: chrome, not compared.
    Chrome,
    /// The page's own content: what must be in a kept page to drop it.
    Compared,
}

/// The basis and each block's role (by [`ContentBlock::source`]) for
/// `page` under `template`: what `neardup extract --json` and the report
/// show as "what was compared".
pub fn roles(page: &PageContent, template: SiteTemplate<'_>) -> (Basis, Vec<(u32, Role)>) {
    let sel = Selection::new(page, template);
    let roles = page
        .blocks
        .iter()
        .map(|b| (b.source, sel.role(b)))
        .collect();
    (sel.basis, roles)
}

/// A page's own content under its template, computed once per decision
/// and compared with each candidate ([`OwnContent::coverage`]).
#[derive(Clone, Debug)]
pub struct OwnContent {
    basis: Basis,
    young: bool,
    words: u32,
    visible: u64,
    /// Word hashes of the compared blocks, in page order.
    stream: Vec<u32>,
    /// Sorted, distinct shingles of `stream`.
    shingles: Vec<u32>,
    /// Compared blocks: (hash, words), for the block-level fallback.
    blocks: Vec<(u32, u32)>,
}

impl OwnContent {
    /// What of `page` is its own under `template`.
    pub fn new(page: &PageContent, template: SiteTemplate<'_>) -> OwnContent {
        let sel = Selection::new(page, template);
        let own = |b: &ContentBlock| sel.role(b) == Role::Compared;
        let blocks: Vec<(u32, u32)> = page
            .blocks
            .iter()
            .filter(|b| own(b))
            .map(|b| (b.hash, b.words()))
            .collect();
        let stream = page.stream(own);
        OwnContent {
            basis: sel.basis,
            young: sel.young,
            words: blocks.iter().map(|b| b.1).sum(),
            visible: page.visible,
            shingles: shingle_set(&stream),
            stream,
            blocks,
        }
    }

    /// How much of this content is in the kept page `kept`.
    ///
    /// An article is measured by words (the share of its words in a
    /// shingle of the kept page: an edited word costs itself) when the
    /// kept page's shingles are all stored; otherwise, and always when
    /// `strict`, by the share of its shingles (sampled as the kept page's)
    /// in the kept page.
    pub fn coverage(&self, kept: EvidenceRef<'_>, strict: bool) -> Coverage {
        let (basis, words, young) = (self.basis, self.words, self.young);
        if self.shingles.len() < MIN_SHINGLES {
            return Coverage::TooSmall {
                identical: self.visible == kept.visible,
                words,
            };
        }
        let m = kept.modulus.max(1);
        if basis == Basis::Article && m == 1 && !strict {
            return Coverage::Measured {
                covered: words_covered(&self.stream, kept.sample),
                basis,
                words,
                young,
            };
        }
        let (mut sampled, mut hits) = (0usize, 0usize);
        for s in self.shingles.iter().filter(|s| *s % m == 0) {
            sampled += 1;
            hits += usize::from(kept.sample.binary_search(s).is_ok());
        }
        let covered = if sampled >= MIN_SAMPLED {
            hits as f64 / sampled as f64
        } else {
            // Too few sampled shingles to estimate: whole blocks present in
            // the kept page, by words (stricter: an edited block counts as
            // absent).
            let present: u32 = self
                .blocks
                .iter()
                .filter(|(hash, _)| kept.blocks.binary_search(hash).is_ok())
                .map(|b| b.1)
                .sum();
            f64::from(present) / f64::from(words.max(1))
        };
        Coverage::Measured {
            covered,
            basis,
            words,
            young,
        }
    }
}

/// How much of `page`'s own content (outside `template`) is in the kept
/// page `kept` (see [`OwnContent::coverage`]).
pub fn coverage(
    page: &PageContent,
    template: SiteTemplate<'_>,
    kept: EvidenceRef<'_>,
    strict: bool,
) -> Coverage {
    OwnContent::new(page, template).coverage(kept, strict)
}

/// The share of `stream`'s words that lie in a word-3-shingle of the kept
/// page (`kept`: all its shingles, sorted). For prose this is the share of
/// the text that is there: an edited word costs itself, not the three
/// shingles around it.
fn words_covered(stream: &[u32], kept: &[u32]) -> f64 {
    if stream.len() < 3 {
        return f64::from(u8::from(kept.binary_search(&fold(stream)).is_ok()));
    }
    let mut covered = vec![false; stream.len()];
    for (i, w) in stream.windows(3).enumerate() {
        if kept.binary_search(&fold(w)).is_ok() {
            covered[i..i + 3].iter_mut().for_each(|c| *c = true);
        }
    }
    covered.iter().filter(|&&c| c).count() as f64 / stream.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(text: &str, main: bool) -> Block {
        Block {
            text: text.into(),
            tag: "p".into(),
            link_density: 0.0,
            is_main: main,
        }
    }

    fn page(texts: &[(&str, bool)]) -> PageContent {
        let blocks: Vec<Block> = texts.iter().map(|(t, m)| block(t, *m)).collect();
        PageContent::from_page("", &blocks)
    }

    const FOOTER: &str =
        "Copyright 2001 the example foundation, all rights reserved under the license";

    #[test]
    fn block_hashes_ignore_case_and_punctuation() {
        let a = page(&[("Hello, World: again!", true)]);
        let b = page(&[("hello world again", false)]);
        assert_eq!(a.blocks[0].hash, b.blocks[0].hash);
        assert_eq!(a.visible, b.visible);
        let c = page(&[("hello world once", false)]);
        assert_ne!(a.blocks[0].hash, c.blocks[0].hash);
    }

    #[test]
    fn repeated_blocks_are_one_template_entry() {
        let p = page(&[("menu item", false), ("menu item", true)]);
        assert_eq!(p.blocks.len(), 2);
        assert_eq!(p.evidence().blocks.len(), 1);
    }

    #[test]
    fn evidence_round_trips_through_signatures() {
        let p = page(&[("one two three four five", true), (FOOTER, false)]);
        let e = p.evidence();
        let sigs = e.to_signatures();
        let r = Evidence::from_signatures(&sigs).expect("well-formed");
        assert_eq!(r.blocks, e.blocks.as_slice());
        assert_eq!(r.sample, e.sample.as_slice());
        assert_eq!(r.modulus, 1);
        assert_eq!(r.visible, p.visible);
        assert!(Evidence::from_signatures(&sigs[..2]).is_none());
    }

    #[test]
    fn large_pages_are_sampled_to_a_bounded_nested_set() {
        let text: Vec<String> = (0..5000).map(|i| format!("w{i}")).collect();
        let p = page(&[(&text.join(" "), true)]);
        let e = p.evidence();
        assert!(e.sample.len() <= MAX_SAMPLE);
        assert!(e.modulus > 1);
        assert!(e.sample.iter().all(|s| s % e.modulus == 0));
        // About 4,998 / modulus shingles survive: the sample is not empty.
        assert!(e.sample.len() > MAX_SAMPLE / 4);
    }

    #[test]
    fn a_page_whose_content_is_in_the_kept_page_is_covered() {
        let kept = page(&[
            (
                "the quick brown fox jumps over the lazy dog near the river bank",
                true,
            ),
            (
                "a second paragraph tells more about the fox and its many friends",
                true,
            ),
            (FOOTER, false),
        ]);
        let copy = page(&[(
            "the quick brown fox jumps over the lazy dog near the river bank",
            true,
        )]);
        let c = coverage(
            &copy,
            SiteTemplate::default(),
            Evidence::from_signatures(&kept.evidence().to_signatures()).unwrap(),
            true,
        );
        assert!(c.allows_drop(0.9), "{c:?}");
        // The other direction: the larger page is not in the smaller one.
        let back = coverage(
            &kept,
            SiteTemplate::default(),
            Evidence::from_signatures(&copy.evidence().to_signatures()).unwrap(),
            true,
        );
        assert!(!back.allows_drop(0.5), "{back:?}");
    }

    #[test]
    fn shared_template_alone_does_not_cover_a_page() {
        // Two table-of-contents pages of one site: the footer is all they share.
        let toc = |items: &[&str]| {
            let mut v: Vec<(&str, bool)> = items.iter().map(|t| (*t, false)).collect();
            v.push((FOOTER, true));
            page(&v)
        };
        let a = toc(&[
            "installing python modules from the package index",
            "the python tutorial for newcomers to the language",
            "extending and embedding the python interpreter in c",
        ]);
        let b = toc(&[
            "curses programming with python on a text terminal",
            "descriptor guide: how attribute lookup really works",
            "functional programming howto with iterators and generators",
        ]);
        let mut t = Templates::default();
        let ev = a.evidence();
        let c = coverage(
            &b,
            t.of("s", "http://s/x"),
            Evidence::from_signatures(&ev.to_signatures()).unwrap(),
            true,
        );
        assert!(!c.allows_drop(0.5), "{c:?}");
        assert!(
            matches!(
                c,
                Coverage::Measured {
                    basis: Basis::Page,
                    ..
                }
            ),
            "{c:?}"
        );
        // Once the footer is known as template, it is not compared at all.
        for i in 0..TEMPLATE_MIN_PAGES {
            t.added(
                "s",
                &format!("http://s/p{i}"),
                &page(&[(FOOTER, false)]).evidence().blocks,
                false,
            );
        }
        assert!(t.of("s", "http://s/x").contains(a.blocks[3].hash));
        assert_eq!(a.blocks[3].words(), 11);
        let c = coverage(
            &b,
            t.of("s", "http://s/x"),
            Evidence::from_signatures(&ev.to_signatures()).unwrap(),
            true,
        );
        assert!(!c.allows_drop(0.5), "{c:?}");
    }

    #[test]
    fn too_small_own_content_needs_identical_visible_text() {
        let a = page(&[("tiny", true), (FOOTER, false)]);
        let b = page(&[("small", true), (FOOTER, false)]);
        let mut t = Templates::default();
        for i in 0..TEMPLATE_MIN_PAGES {
            t.added(
                "s",
                &format!("http://s/p{i}"),
                &page(&[(FOOTER, false)]).evidence().blocks,
                true,
            );
        }
        let ev = a.evidence().to_signatures();
        let c = coverage(
            &b,
            t.of("s", "http://s/x"),
            Evidence::from_signatures(&ev).unwrap(),
            true,
        );
        assert!(
            matches!(
                c,
                Coverage::TooSmall {
                    identical: false,
                    ..
                }
            ),
            "{c:?}"
        );
        assert!(!c.allows_drop(0.0));
        let same = coverage(
            &a,
            t.of("s", "http://s/x"),
            Evidence::from_signatures(&ev).unwrap(),
            true,
        );
        assert!(same.allows_drop(1.0), "{same:?}");
    }

    #[test]
    fn templates_count_pages_and_forget_removed_ones() {
        let mut t = Templates::default();
        t.added("s", "http://s/a.html", &[1, 2], false);
        t.added("s", "http://s/b.html", &[1], true);
        t.added("s", "http://s/c.html", &[1], false);
        assert!(t.of("s", "http://s/x").contains(1));
        assert!(!t.of("s", "http://s/x").contains(2));
        assert!(!t.of("other", "http://other/x").contains(1));
        assert_eq!(t.observations(), 1);
        t.removed("s", "http://s/b.html", &[1], true);
        assert!(!t.of("s", "http://s/x").contains(1));
        assert_eq!(t.observations(), 0);
    }

    #[test]
    fn a_page_mirrored_under_other_folders_counts_once() {
        let mut t = Templates::default();
        t.added("s", "http://s/en/guide.html", &[7], false);
        t.added("s", "http://s/fr/guide.html", &[7], true);
        t.added("s", "http://s/v2/guide.html", &[7], true);
        assert!(
            !t.of("s", "http://s/x").contains(7),
            "one page and its mirrors are not a template"
        );
        t.added("s", "http://s/en/other/", &[7], false);
        assert!(!t.of("s", "http://s/x").contains(7), "two pages");
        // A mirror's blocks that the first copy lacked still count.
        t.added("s", "http://s/fr/guide.html", &[8], true);
        t.added("s", "http://s/a.html", &[8], false);
        t.added("s", "http://s/b.html", &[8], false);
        assert!(t.of("s", "http://s/x").contains(8));
        t.added("s", "http://s/third.html", &[7], false);
        assert!(t.of("s", "http://s/x").contains(7));
        t.removed("s", "http://s/third.html", &[7], false);
        assert!(!t.of("s", "http://s/x").contains(7));
    }

    #[test]
    fn page_names_are_the_last_segment_or_the_folder_of_an_index() {
        assert_eq!(
            page_name("http://a/x/y.html"),
            page_name("https://b/z/y.html#top")
        );
        assert_eq!(
            page_name("http://a/docs/intro/index.html"),
            page_name("http://a/intro/")
        );
        assert_ne!(
            page_name("http://a/docs/intro/"),
            page_name("http://a/docs/setup/")
        );
        assert_ne!(
            page_name("http://a/item?id=1"),
            page_name("http://a/item?id=2")
        );
        assert_eq!(page_name("http://a/"), page_name("http://a"));
    }
}
