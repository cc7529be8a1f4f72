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
//!   or navigation, and its words as stable hashes. A long preformatted
//!   block (a source file, a listing) is cut into content-defined pieces,
//!   each a block of its own (`cut_pieces`): a license or import header
//!   every file repeats sits in the same block as the file's own code.
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
//!   template), whose shingles are in the kept page. Shingles are taken
//!   within blocks, never across two, so the template blocks between a
//!   page's own blocks do not count against it.
//!   `decide` drops a page only when this reaches `decide.min_coverage`
//!   (more while its site or section is young, [`YOUNG_MIN_COVERAGE`]); a
//!   page whose own content is too small to measure is dropped only when
//!   its whole visible text is identical to the kept page's. The measure
//!   is one-way: a page that contains another is never its copy.
//! - Names: a drop must keep the page's *name*: the words of its title
//!   less those its section's titles commonly share ([`title_threshold`]),
//!   those of its URL's host and folders ([`place_words`]: a module path,
//!   a version or language folder says where a page is) and, while its site
//!   is young, a short edge segment (`Headline | Site`). A page without an
//!   article must carry the kept page's name and the kept page its name
//!   (two API items, commands or tables of contents share most of their
//!   text and differ in what they are called); an article, whose headline
//!   print views and syndicated copies shorten or edit, half of it either
//!   way, once its site's title template is known or when the match is
//!   weak (a chapter against its manual's print view). The same item
//!   under another folder (the same [`page_name`]) is measured without its
//!   title and naming headings. Within a site, a main text in another
//!   language under another title is a translation ([`Coverage::OtherLanguage`]).
//! - Size: a page without an article whose content is in a kept page that
//!   says [`CONTAINED_RATIO`] times as much (an article:
//!   [`ARTICLE_CONTAINED_RATIO`]) is a part of an all-in-one page, kept and
//!   reported `contained_in` ([`Coverage::Contained`]). An article that holds
//!   a kept article under its name and says at most twice as much extends
//!   it, and is its copy ([`EXTENDS_MIN_HOLDS`]).
//! - [`BlockIndex`]: kept pages by their blocks, the core's candidates for a
//!   page no detector of the chain matched to a page holding its content.
//!
//! Limits: the first pages of a template type whose shared section is
//! long enough to make them look like articles can still be dropped into
//! each other before the template is known (articles are not held to their
//! titles: print views and syndicated copies are often retitled); a copy
//! whose own content is too small to measure, not identical and not the
//! kept page mirrored (the same page name and title, its own blocks all in
//! the kept page; a stub of a chapter moved to another edition's folder
//! under a new file name) is kept: a missed copy costs a fetch, a wrong
//! drop loses a page.
//!
//! Invariants: every hash here is seeded with
//! [`neardup_api::HASH_SEED`] and stable across runs and platforms
//! (words, titles and page names: xxh3; blocks and shingles: a fixed
//! multiply-xorshift fold of word hashes); sampled shingle sets are nested (a
//! sample at `2m` is the sample at `m` filtered), so two pages sampled at
//! different rates compare at the coarser one.

/// The version of what analysis computes from the same bytes and settings
/// (extraction, text normalisation, signatures, content evidence). Bumped
/// whenever a change makes this build compute other signatures or evidence
/// for some page than the build before: it is recorded in the store
/// identity, so an index built by another analysis version is refused (its
/// stored pages would be compared with signatures made another way)
/// instead of quietly missing copies. 2: pages without an article get
/// their content blocks as main text; long preformatted blocks are cut for
/// the template model. 3: the main text's language and the title's edge
/// words are part of a page's content and evidence.
pub const ANALYSIS_VERSION: u32 = 3;

use std::collections::HashMap;

use neardup_api::hash64;
use neardup_html::Block;

/// Names of the parts of a record's [`Evidence`], listed after the detector
/// chain in the store identity (what a stored record holds).
pub const EVIDENCE_SLOTS: [&str; 5] = [
    "content.blocks",
    "content.shingles",
    "content.visible",
    "content.title",
    "content.about",
];

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

/// An article is named like a kept page when at least this share of its
/// name is in the kept page's title, or of the kept page's name in its
/// title; a top-level heading holding this share of a page's name names
/// it (what the same item under another folder is measured without).
pub const MIN_NAMED: f64 = 0.5;

/// An article that holds at least this share of a kept article (estimated
/// from the kept page's shingle sample and main-content size) under the
/// kept page's name *extends* it: the same article with more around it
/// (comments, a longer extraction of the same story, an update's added
/// paragraphs). It is the kept article's copy when the kept article is
/// also at least [`EXTENDS_MIN_COVERED`] of its own content.
///
/// Not higher: an edited copy (one word in forty changed takes three
/// 3-shingles with it) that also lacks the kept copy's credit line holds
/// about 84% of it (a New York Times story after its syndicated copy on
/// neardup-dev2). 0.70 to 0.80 score the same on dev, dev2 and both wild
/// sites; 0.85 misses that page (docs/results.md).
pub const EXTENDS_MIN_HOLDS: f64 = 0.80;

/// Most words of an item's name (an API item, a command, a version, a
/// chapter): two titles of one pattern naming such items differently are
/// two items, whatever their pages share. A headline is longer; its copies
/// edit it ([`OwnContent::coverage`]).
pub const ITEM_NAME_WORDS: usize = 3;

/// The least share of an extending article's own content that must be
/// the kept article (see [`EXTENDS_MIN_HOLDS`]): an article that says
/// more than 1 / this times as much as the kept one is another page that
/// quotes it, or an all-in-one page that includes it.
pub const EXTENDS_MIN_COVERED: f64 = 0.5;

/// One visible block of a page (every occurrence, in page order).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
    /// A top-level heading (`h1`): with the title, what names the page.
    pub h1: bool,
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
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PageContent {
    /// Blocks with at least one word, in page order.
    pub blocks: Vec<ContentBlock>,
    /// Word hashes of all blocks, in page order (serialized as 4 bytes
    /// each: hashes are incompressible, a varint would take 5).
    #[serde(with = "le_u32s")]
    words: Vec<u32>,
    /// Every block's shingles ([`block_shingles`]) as `shingle << 32 |
    /// position`, sorted: the shingle starting at word `position` (a block
    /// of one or two words has one, at its first word). Sorted once at
    /// analysis, on any thread, so that deciding (one thread, every page
    /// in turn) only filters it. Not serialized: [`PageContent::index_shingles`]
    /// rebuilds it from the words and blocks.
    #[serde(skip)]
    by_shingle: Vec<u64>,
    /// Stable hash of the whole visible text (all blocks, in order).
    pub visible: u64,
    /// Extraction found no article in the page (its main blocks are its
    /// content blocks, [`neardup_html::MainText::Page`]): it is judged
    /// on the whole page.
    pub no_article: bool,
    /// Sorted, distinct word hashes found only in a short first or last
    /// segment of the title (`Headline | Site`, `Site - Headline`): what a
    /// syndicated copy may change, set aside while its site's common title
    /// words are not known yet ([`title_edges`]).
    pub title_edges: Vec<u32>,
    /// Sorted, distinct word hashes of title words spelled inside a label
    /// of the page's host name (`Quanta Magazine` on
    /// `www.quantamagazine.org`, `The Verge` on `theverge.com`): the
    /// site's name, not the page's. Left out of [`PageContent::title_words`]
    /// (set by [`PageContent::set_host`]).
    pub title_host: Vec<u32>,
    /// The language of the page's main text ([`lang_code`] of an ISO
    /// 639-3 code; 0 when unknown): a page in another language than the
    /// kept page's is not its copy.
    pub lang: u32,
}

/// `Vec<u32>` as little-endian bytes, for serde.
mod le_u32s {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &[u32], s: S) -> Result<S::Ok, S::Error> {
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        s.serialize_bytes(&bytes)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u32>, D::Error> {
        let bytes: Vec<u8> = serde::de::Deserialize::deserialize(d).map(|b: ByteBuf| b.0)?;
        if bytes.len() % 4 != 0 {
            return Err(serde::de::Error::custom(
                "word hashes: length not a multiple of 4",
            ));
        }
        Ok(bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }

    /// Bytes as serde's byte-array type (a `Vec<u8>` deserializes as a
    /// sequence, which `serialize_bytes` does not write).
    struct ByteBuf(Vec<u8>);

    impl<'de> Deserialize<'de> for ByteBuf {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ByteBuf, D::Error> {
            struct Visitor;
            impl serde::de::Visitor<'_> for Visitor {
                type Value = ByteBuf;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("bytes")
                }
                fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<ByteBuf, E> {
                    Ok(ByteBuf(v.to_vec()))
                }
                fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<ByteBuf, E> {
                    Ok(ByteBuf(v))
                }
            }
            d.deserialize_bytes(Visitor)
        }
    }
}

impl PageContent {
    /// Returns true if and only if every block's span lies within the
    /// words, in order: what analysis builds, and what content read back
    /// from bytes must be before it is used.
    pub fn is_consistent(&self) -> bool {
        let n = self.words.len();
        self.blocks
            .iter()
            .all(|b| b.start <= b.end && b.end as usize <= n)
    }

    /// This content with its shingle index, rebuilt if it is missing (a
    /// deserialized page: see [`PageContent::index_shingles`]).
    pub fn indexed(&self) -> std::borrow::Cow<'_, PageContent> {
        if self.words.is_empty() || !self.by_shingle.is_empty() {
            return std::borrow::Cow::Borrowed(self);
        }
        let mut out = self.clone();
        out.index_shingles();
        std::borrow::Cow::Owned(out)
    }

    /// Rebuilds the shingle index from the words and blocks (after
    /// deserializing, which leaves it out). A block whose span is outside
    /// the words (corrupt input) adds no shingles.
    pub fn index_shingles(&mut self) {
        let mut shingles = Vec::new();
        self.by_shingle.clear();
        for b in &self.blocks {
            let Some(words) = self.words.get(b.start as usize..b.end as usize) else {
                continue;
            };
            shingles.clear();
            block_shingles(words, &mut shingles);
            self.by_shingle.extend(
                (u64::from(b.start)..)
                    .zip(&shingles)
                    .map(|(at, &s)| u64::from(s) << 32 | at),
            );
        }
        self.by_shingle.sort_unstable();
    }

    /// The content of an extracted page ([`PageContent::from_page`] and
    /// whether extraction found an article in it).
    pub fn from_extracted(e: &neardup_html::Extracted) -> PageContent {
        let mut out = PageContent::from_page(&e.title, &e.blocks);
        out.no_article = e.main_text == neardup_html::MainText::Page;
        out
    }

    /// The content of a page from its `<title>` and extracted blocks. The
    /// title comes first, as a main block: what a page is called is part
    /// of what it says (two API items or two tables of contents often
    /// differ in little else).
    pub fn from_page(title: &str, blocks: &[Block]) -> PageContent {
        let mut out = PageContent::default();
        let mut lower = String::new();
        let mut shingles = Vec::new();
        let mut visible = xxhash_rust::xxh3::Xxh3::with_seed(neardup_api::HASH_SEED);
        let edges = title_edges(title);
        let title = (!title.trim().is_empty()).then_some((0, title, true, Kind::Title));
        let title =
            title.map(|(source, text, main, kind)| (source, text, main, kind, false, false));
        let blocks = blocks.iter().enumerate().map(|(i, b)| {
            let (h1, pre) = (b.tag == "h1", b.tag == "pre");
            (
                i as u32 + 1,
                b.text.as_str(),
                b.is_main,
                Kind::of(b),
                h1,
                pre,
            )
        });
        let mut numbers = Vec::new();
        let mut pieces = Vec::new();
        for (source, text, main, kind, h1, pre) in title.into_iter().chain(blocks) {
            lowercase_into(text, &mut lower);
            let start = out.words.len();
            numbers.clear();
            neardup_text::for_each_word(&lower, |w| {
                if w.is_ascii() || w.chars().any(char::is_alphanumeric) {
                    out.words.push(hash64(w.as_bytes()) as u32);
                    numbers.push(w.bytes().all(|b| b.is_ascii_digit()));
                }
            });
            let Some(words) = out.words.get(start..) else {
                continue;
            };
            if words.is_empty() {
                continue;
            }
            pieces.clear();
            if pre && words.len() >= PIECE_BLOCK_WORDS {
                cut_pieces(words, &mut pieces);
            } else {
                pieces.push(words.len());
            }
            let mut from = 0;
            for &to in &pieces {
                let (Some(words), Some(numbers)) = (words.get(from..to), numbers.get(from..to))
                else {
                    break;
                };
                let at = start + from;
                from = to;
                shingles.clear();
                block_shingles(words, &mut shingles);
                out.by_shingle.extend(
                    (at as u64..)
                        .zip(&shingles)
                        .map(|(at, &s)| u64::from(s) << 32 | at),
                );
                // Runs of bare numbers (line numbers, pagination) are
                // navigation like link lists.
                let numbers = numbers.iter().filter(|&&n| n).count();
                let kind =
                    if kind == Kind::Text && words.len() >= 3 && numbers * 5 >= words.len() * 4 {
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
                    h1,
                    start: at as u32,
                    end: (at + words.len()) as u32,
                });
            }
        }
        out.visible = visible.digest();
        out.by_shingle.sort_unstable();
        out.title_edges = edges;
        out
    }

    /// Words of the main content (the article, or for a page without one
    /// its content blocks), navigation left out.
    pub fn main_words(&self) -> u32 {
        self.blocks
            .iter()
            .filter(|b| b.main && !b.links)
            .map(ContentBlock::words)
            .sum()
    }

    /// Records which words of `title` name the site of `url` (see
    /// [`PageContent::title_host`]).
    pub fn set_host(&mut self, title: &str, url: &str) {
        let rest = url.split_once("://").map_or(url, |(_, r)| r);
        let host = rest
            .split(['/', '?', '#'])
            .next()
            .unwrap_or_default()
            .to_lowercase();
        let labels: Vec<&str> = host.split('.').filter(|l| l.len() >= 3).collect();
        let mut lower = String::new();
        lowercase_into(title, &mut lower);
        let mut out = Vec::new();
        neardup_text::for_each_word(&lower, |w| {
            if w.chars().count() >= 3 && labels.iter().any(|l| l.contains(w)) {
                out.push(hash64(w.as_bytes()) as u32);
            }
        });
        out.sort_unstable();
        out.dedup();
        self.title_host = out;
    }

    /// Sorted, distinct word hashes of the title, less those naming its
    /// host ([`PageContent::title_host`]).
    pub fn title_words(&self) -> Vec<u32> {
        let mut words: Vec<u32> = self
            .blocks
            .iter()
            .filter(|b| b.source == 0)
            .flat_map(|b| self.words_of(b))
            .copied()
            .filter(|w| self.title_host.binary_search(w).is_err())
            .collect();
        words.sort_unstable();
        words.dedup();
        words
    }

    /// The words of block `b`.
    fn words_of(&self, b: &ContentBlock) -> &[u32] {
        self.words
            .get(b.start as usize..b.end as usize)
            .unwrap_or_default()
    }
}

/// How many shingles [`block_shingles`] takes from a block of `words`
/// words.
fn shingle_count(words: u32) -> usize {
    match words {
        0 => 0,
        1 | 2 => 1,
        n => n as usize - 2,
    }
}

/// A preformatted block of at least this many words is cut into pieces
/// ([`cut_pieces`]), each a block of its own for the template model.
const PIECE_BLOCK_WORDS: usize = 64;
/// Pieces hold at least this many words...
const PIECE_MIN_WORDS: usize = 8;
/// ...and at most this many.
const PIECE_MAX_WORDS: usize = 48;
/// A piece ends after a word whose hash is `0 mod PIECE_MODULUS` (once it
/// has [`PIECE_MIN_WORDS`]): about 24 words a piece.
const PIECE_MODULUS: u32 = 16;

/// Cuts a preformatted block's `words` into content-defined pieces and
/// pushes the end of each (exclusive, within `words`) to `ends`. A source
/// file or a listing often starts with a header every file of its site
/// repeats (a license, an import block) in the same block as its own
/// code: the block as a whole is on one page only, but the pieces of its
/// header are on many and are learned as template. Cut points depend only
/// on the words since the previous cut, so a run of words that two blocks
/// share (at their start, or after the first cut inside it) is cut alike
/// in both.
fn cut_pieces(words: &[u32], ends: &mut Vec<usize>) {
    let mut len = 0;
    for (i, &w) in words.iter().enumerate() {
        len += 1;
        if len >= PIECE_MAX_WORDS || (len >= PIECE_MIN_WORDS && w % PIECE_MODULUS == 0) {
            ends.push(i + 1);
            len = 0;
        }
    }
    if len > 0 {
        ends.push(words.len());
    }
}

/// `text` lowercased char by char (`char::to_lowercase`, so hashes do not
/// depend on context rules such as a final sigma) into `out`, replacing it.
/// ASCII runs are lowercased in bulk, and scripts without case (kana, Han,
/// Hangul, Yi) are copied as they are: most of a page's characters never
/// reach the Unicode case tables.
fn lowercase_into(text: &str, out: &mut String) {
    out.clear();
    if text.is_ascii() {
        out.push_str(text);
        out.make_ascii_lowercase();
        return;
    }
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        } else if has_no_case(c) {
            out.push(c);
        } else {
            out.extend(c.to_lowercase());
        }
    }
}

/// Returns true for characters of the caseless blocks from Hiragana to
/// Vai (U+3040..U+A63F: kana, Bopomofo, Hangul Jamo, Han, Yi, Lisu, Vai)
/// and the Hangul syllables: `to_lowercase` maps each to itself (a test
/// checks every one).
#[inline]
fn has_no_case(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{A63F}' | '\u{AC00}'..='\u{D7A3}')
}

/// Appends the word-3-shingles of one block's `words` (one shingle for a
/// block of one or two words). Shingles never span two blocks: which
/// blocks stand between two others depends on the template around them,
/// and a page's own blocks must be found in the kept page whatever
/// template blocks separate them there.
fn block_shingles(words: &[u32], out: &mut Vec<u32>) {
    match words.len() {
        0 => {}
        1 | 2 => out.push(fold(words)),
        _ => out.extend(words.windows(3).map(fold)),
    }
}

impl PageContent {
    /// The evidence to store if this page is kept.
    pub fn evidence(&self) -> Evidence {
        let mut blocks: Vec<u32> = self.blocks.iter().map(|b| b.hash).collect();
        blocks.sort_unstable();
        blocks.dedup();
        // The smallest power-of-two modulus that keeps at most MAX_SAMPLE
        // shingles (counted with repeats): a shingle `s` is kept at `2^k`
        // when `s` has at least `k` trailing zero bits.
        let mut with_zeros = [0usize; 33];
        for key in &self.by_shingle {
            with_zeros[((key >> 32) as u32).trailing_zeros() as usize] += 1;
        }
        let mut k = 0;
        let mut kept = self.by_shingle.len();
        while kept > MAX_SAMPLE && k < 30 {
            kept -= with_zeros[k];
            k += 1;
        }
        let modulus: u32 = 1 << k;
        let mut sample: Vec<u32> = self
            .by_shingle
            .iter()
            .map(|key| (key >> 32) as u32)
            .filter(|s| s & (modulus - 1) == 0)
            .collect();
        sample.dedup();
        Evidence {
            blocks,
            modulus,
            sample,
            visible: self.visible,
            title: self.title_words(),
            lang: self.lang,
            main_words: self.main_words(),
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
    let mut h = neardup_api::HASH_SEED ^ u64::from(tag).wrapping_mul(K);
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
    /// A heading is a heading even when it is a link (generators wrap
    /// headings in their own anchors): the same words as a link in a table
    /// of contents are another block.
    fn of(b: &Block) -> Kind {
        if matches!(b.tag.as_str(), "h1" | "h2" | "h3" | "h4" | "h5" | "h6") {
            Kind::Heading
        } else if b.link_density >= 0.5 {
            Kind::Links
        } else {
            Kind::Text
        }
    }
}

/// What is stored of a page to judge later pages against it: one part of
/// a stored record ([`crate::index::DocRecord::evidence`]).
///
/// Stored as is (postcard), its sorted sets delta-coded (`sorted_u32s`):
/// a sorted set of random 32-bit hashes costs about a byte less per value
/// than the values themselves.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Evidence {
    /// Sorted, distinct block hashes.
    #[serde(with = "sorted_u32s")]
    pub blocks: Vec<u32>,
    /// The sample keeps shingles `s` with `s % modulus == 0` (a power of
    /// two; 0 when there is no sample: an observation's evidence).
    pub modulus: u32,
    /// Sorted, distinct sampled shingles of the whole visible text.
    #[serde(with = "sorted_u32s")]
    pub sample: Vec<u32>,
    /// Hash of the whole visible text.
    pub visible: u64,
    /// Sorted, distinct word hashes of the title.
    #[serde(with = "sorted_u32s")]
    pub title: Vec<u32>,
    /// The main text's language (a stable hash of its ISO 639-3 code; 0 when unknown).
    pub lang: u32,
    /// Words of its main content (its article, or for a page without one
    /// its content blocks), navigation left out: how much it says.
    pub main_words: u32,
}

impl Evidence {
    /// Borrows it, as the judging code reads it.
    pub fn as_ref(&self) -> EvidenceRef<'_> {
        EvidenceRef {
            blocks: &self.blocks,
            modulus: self.modulus,
            sample: &self.sample,
            visible: self.visible,
            title: &self.title,
            lang: self.lang,
            main_words: self.main_words,
        }
    }

    /// What is stored for this page if it is not kept (an *observation*,
    /// [`crate::index::RecordKind::Observation`]): its blocks and title
    /// words, for the site's template, and no shingle sample (it is never
    /// the kept side of a drop).
    pub fn observation(&self) -> Evidence {
        Evidence {
            modulus: 0,
            sample: Vec::new(),
            blocks: self.blocks.clone(),
            visible: self.visible,
            title: self.title.clone(),
            lang: self.lang,
            main_words: self.main_words,
        }
    }

    /// Returns true if and only if the stored form is well formed: sets
    /// sorted and distinct, a sampling modulus that is 0 or a power of two.
    pub fn is_consistent(&self) -> bool {
        let sorted = |v: &[u32]| v.windows(2).all(|w| w[0] < w[1]);
        sorted(&self.blocks)
            && sorted(&self.sample)
            && sorted(&self.title)
            && (self.modulus == 0 || self.modulus.is_power_of_two())
    }

    /// Approximate heap bytes.
    pub fn heap_bytes(&self) -> usize {
        (self.blocks.capacity() + self.sample.capacity() + self.title.capacity())
            * std::mem::size_of::<u32>()
    }
}

/// A sorted `Vec<u32>` as its length, then its first value and the gaps
/// between neighbours, each a varint (postcard): for serde. Reading
/// refuses gaps that overflow; whether the set is sorted and distinct is
/// [`Evidence::is_consistent`]'s to check (a gap of 0 decodes).
pub mod sorted_u32s {
    use serde::de::{Error, SeqAccess, Visitor};
    use serde::ser::SerializeSeq;
    use serde::{Deserializer, Serializer};

    /// Writes `v` (sorted ascending) as gaps.
    ///
    /// # Errors
    /// The serializer's.
    pub fn serialize<S: Serializer>(v: &[u32], s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(v.len()))?;
        let mut previous = 0u32;
        for &x in v {
            seq.serialize_element(&x.wrapping_sub(previous))?;
            previous = x;
        }
        seq.end()
    }

    /// Reads what [`serialize`] wrote.
    ///
    /// # Errors
    /// The deserializer's, or a gap that runs past `u32::MAX`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u32>, D::Error> {
        struct Gaps;
        impl<'de> Visitor<'de> for Gaps {
            type Value = Vec<u32>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a delta-coded sorted set of u32")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u32>, A::Error> {
                // Bounded: a corrupt length must not reserve gigabytes.
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
                let mut previous = 0u32;
                while let Some(gap) = seq.next_element::<u32>()? {
                    previous = previous
                        .checked_add(gap)
                        .ok_or_else(|| A::Error::custom("a gap runs past u32::MAX"))?;
                    out.push(previous);
                }
                Ok(out)
            }
        }
        d.deserialize_seq(Gaps)
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
    /// Sorted, distinct word hashes of the title.
    pub title: &'a [u32],
    /// The main text's language (a stable hash of its ISO 639-3 code; 0 when unknown).
    pub lang: u32,
    /// Words of its main content, navigation left out.
    pub main_words: u32,
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
}

#[derive(Debug, Default)]
struct SiteBlocks {
    /// Stored pages (records) of the site.
    pages: u32,
    pages_with: HashMap<u32, Names>,
    /// On how many stored pages' titles each word is.
    titles_with: HashMap<u32, u32>,
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

/// Stable hashes of the words of `text` as the page's blocks hash them
/// (lowercased, Unicode words, symbols-only tokens left out).
pub fn word_hashes(text: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for_each_hashed_word(text, |_, hash| out.push(hash));
    out
}

/// Calls `f` with each word of `text` as [`word_hashes`] counts it
/// (lowercased; a word without a letter or digit only if ASCII) and its
/// hash.
fn for_each_hashed_word(text: &str, mut f: impl FnMut(&str, u32)) {
    let mut lower = String::new();
    lowercase_into(text, &mut lower);
    neardup_text::for_each_word(&lower, |w| {
        if w.is_ascii() || w.chars().any(char::is_alphanumeric) {
            f(w, hash64(w.as_bytes()) as u32);
        }
    });
}

/// Title segment separators: `Headline | Site`, `Item - Book`.
const TITLE_SEPARATORS: [&str; 8] = [
    " | ",
    " - ",
    " \u{2013} ",
    " \u{2014} ",
    " :: ",
    " \u{b7} ",
    " \u{bb} ",
    " / ",
];

/// Most words of a title segment that may be a site's name.
const TITLE_EDGE_WORDS: usize = 4;

/// The words of `title` found only in its first or last segment when
/// that segment is short (at most [`TITLE_EDGE_WORDS`] words) and another
/// segment is the longer one (at least 3 words): a site's name around a
/// headline. Sorted and distinct. Only set aside while the site's common
/// title words are not known ([`OwnContent::new`]): a syndicated copy
/// carries another site's name, a page's version or item name sits in a
/// middle segment or is the longest.
fn title_edges(title: &str) -> Vec<u32> {
    let mut segments: Vec<&str> = vec![title];
    for sep in TITLE_SEPARATORS {
        segments = segments.iter().flat_map(|s| s.split(sep)).collect();
    }
    let words: Vec<Vec<u32>> = segments
        .iter()
        .map(|s| word_hashes(s))
        .filter(|w| !w.is_empty())
        .collect();
    if words.len() < 2 {
        return Vec::new();
    }
    let longest = words.iter().map(Vec::len).max().unwrap_or(0);
    let last = words.len() - 1;
    let edge = |i: usize| {
        (i == 0 || i == last) && words[i].len() <= TITLE_EDGE_WORDS && words[i].len() < longest
    };
    if longest < 3 {
        return Vec::new();
    }
    let inner: std::collections::HashSet<u32> = (0..words.len())
        .filter(|&i| !edge(i))
        .flat_map(|i| words[i].iter().copied())
        .collect();
    let mut out: Vec<u32> = (0..words.len())
        .filter(|&i| edge(i))
        .flat_map(|i| words[i].iter().copied())
        .filter(|w| !inner.contains(w))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Words of where a page lives, not what it is called: its host's labels
/// and the folders of its URL path (not its file name). A module path, a
/// version folder or a language folder in the title says where the page
/// is, so the same item re-exported elsewhere keeps its name. Sorted and
/// distinct.
pub fn place_words(url: &str) -> Vec<u32> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.split(['#', '?']).next().unwrap_or_default();
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let folders = path.rsplit_once('/').map_or("", |(folders, _)| folders);
    let decoded = percent_encoding::percent_decode_str(folders).decode_utf8_lossy();
    let mut out = word_hashes(&host.replace('.', " "));
    out.extend(word_hashes(&decoded.replace(['/', '.', '-', '_'], " ")));
    out.extend(word_hashes(&decoded.replace('/', " ")));
    out.sort_unstable();
    out.dedup();
    out
}

/// The words that name a page wherever it lives, from its `title` and
/// `url` alone: the title's words (as `word_hashes` splits them) less its URL's
/// `place_words` (host labels, folders) and the words spelled inside a
/// label of its host (the site's name, `PageContent::title_host`).
/// Sorted and distinct. The drop policy's name (`OwnContent`) also
/// leaves out the words its section's titles commonly share, which only
/// an index knows; the report compares this one between the pages a
/// URL-pattern hint would merge.
pub fn title_name(title: &str, url: &str) -> Vec<u32> {
    let mut page = PageContent::default();
    page.set_host(title, url);
    let place = place_words(url);
    let mut out: Vec<u32> = word_hashes(title)
        .into_iter()
        .filter(|w| place.binary_search(w).is_err() && page.title_host.binary_search(w).is_err())
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// A language's ISO 639-3 code as stored with a page (0: unknown).
pub fn lang_code(lang: &str) -> u32 {
    if lang.is_empty() || lang == "und" {
        0
    } else {
        (hash64(lang.as_bytes()) as u32).max(1)
    }
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
        /// The page is the kept page's item under another folder: its
        /// title and naming headings were judged by name, not measured
        /// (see [`OwnContent::coverage`]).
        mirror: bool,
        /// For an article named like the kept page: the estimated share of
        /// the kept page's main content found in this page (see
        /// [`EXTENDS_MIN_HOLDS`]); `None` otherwise.
        holds: Option<f64>,
    },
    /// The page's own content is in the kept page, but the kept page
    /// holds [`CONTAINED_RATIO`] ([`ARTICLE_CONTAINED_RATIO`] for an
    /// article) times as much content or more: a focused
    /// page (a chapter, a module, an item) inside an all-in-one page (a
    /// print view, an index of everything). Its URL is what a reader
    /// needs: it is kept, and the verdict names the larger page as
    /// `contained_in`.
    Contained {
        /// Share of the page's own content in the kept page.
        covered: f64,
        /// What was compared.
        basis: Basis,
        /// Words compared.
        words: u32,
        /// Estimated ratio of the kept page's content to this page's.
        ratio: f64,
    },
    /// The page's main text is in another language than the kept page's,
    /// on the same site: a translation, not a copy, whatever code or
    /// names they share.
    OtherLanguage,
    /// The page is named otherwise than the kept page (see
    /// [`OwnContent::coverage`]): its own content is not measured, it
    /// is not a copy.
    OtherName {
        /// Share of its name's words in the kept page's title (for the
        /// warning).
        named: f64,
        /// Words of its name.
        words: u32,
    },
    /// The page's own content is too small to measure: it is a copy only
    /// when its whole visible text equals the kept page's (`identical`),
    /// or when it is the kept page mirrored (`mirrored`: the same page
    /// name in its URL and the same title words, and each of its own
    /// blocks whole in the kept page: a stub of a chapter left under an
    /// older edition's folder, an item re-exported under another module).
    TooSmall {
        /// Whole visible texts equal.
        identical: bool,
        /// Same page name and title, own blocks all in the kept page.
        mirrored: bool,
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
                holds,
                ..
            } => {
                let strict = young && basis == Basis::Page;
                let extends =
                    holds.is_some_and(|h| h >= EXTENDS_MIN_HOLDS) && covered >= EXTENDS_MIN_COVERED;
                extends
                    || covered
                        >= if strict {
                            min_coverage.max(YOUNG_MIN_COVERAGE)
                        } else {
                            min_coverage
                        }
            }
            Coverage::TooSmall {
                identical,
                mirrored,
                ..
            } => identical || mirrored,
            Coverage::OtherName { .. } | Coverage::OtherLanguage | Coverage::Contained { .. } => {
                false
            }
        }
    }

    /// Whether the page is contained in the kept page (at `min_coverage`)
    /// without being its copy: the kept page is much larger.
    pub fn contained(&self, min_coverage: f64) -> bool {
        matches!(*self, Coverage::Contained { covered, .. } if covered >= min_coverage)
    }

    /// The share used in verdicts (1.0 or 0.0 for a too-small page).
    pub fn share(&self) -> f64 {
        match *self {
            Coverage::Measured { covered, .. } => covered,
            Coverage::TooSmall {
                identical,
                mirrored,
                ..
            } => f64::from(u8::from(identical || mirrored)),
            Coverage::OtherName { named, .. } => named,
            Coverage::Contained { covered, .. } => covered,
            Coverage::OtherLanguage => 0.0,
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
                mirror,
                holds,
            } => format!(
                "{:.0}% of this page's own content ({words} words of its {}, {}{}) is in the kept page{}",
                covered * 100.0,
                basis.as_str(),
                if young {
                    "site template not yet known"
                } else {
                    "site template removed"
                },
                if mirror {
                    "; the same item under another folder: its title and heading judged by name"
                } else {
                    ""
                },
                match holds {
                    Some(h) => format!(
                        ", and about {:.0}% of the kept page's main content is in this page, named alike",
                        h.min(1.0) * 100.0
                    ),
                    None => String::new(),
                }
            ),
            Coverage::OtherName { named, words } => format!(
                "this page is named otherwise: {:.0}% of the {words} words of its name (its title less its site's common title words and the words of its URL's folders) are in the kept page's title",
                named * 100.0
            ),
            Coverage::OtherLanguage => {
                "this page's main text is in another language than the kept page's".to_owned()
            }
            Coverage::Contained {
                covered,
                basis,
                words,
                ratio,
            } => format!(
                "{:.0}% of this page's own content ({words} words of its {}) is in the kept page, which holds about {ratio:.1}x as much content: contained in it, not a copy of it",
                covered * 100.0,
                basis.as_str()
            ),
            Coverage::TooSmall {
                identical,
                mirrored,
                words,
            } => format!(
                "this page's own content ({words} words outside its site's template) is too small to compare; {}",
                if identical {
                    "its whole visible text is identical to the kept page's"
                } else if mirrored {
                    "it has the kept page's page name and title, and each of its own blocks is in the kept page"
                } else {
                    "its whole visible text is not identical to the kept page's, nor is it the kept page under another folder"
                }
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
    /// The basis is [`Basis::Article`] when extraction found an article in
    /// the page and it still is one outside the template
    /// ([`neardup_html::has_article`]: enough main content
    /// outside the template and navigation, a main text of line numbers or
    /// links is no article, and not a sliver of the page; what is outside
    /// an article is chrome a copy may lack); otherwise every
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
        let basis = if !page.no_article && neardup_html::has_article(main, all) {
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
    let mut roles: Vec<(u32, Role)> = Vec::with_capacity(page.blocks.len());
    for b in &page.blocks {
        let role = sel.role(b);
        match roles.last_mut() {
            // The pieces of one preformatted block: compared if any piece
            // is, else chrome if any piece is.
            Some((source, r)) if *source == b.source => {
                if role == Role::Compared || (role == Role::Chrome && *r == Role::Template) {
                    *r = role;
                }
            }
            _ => roles.push((b.source, role)),
        }
    }
    (sel.basis, roles)
}

/// The kept side of a comparison ([`OwnContent::coverage`]).
#[derive(Clone, Copy, Debug)]
pub struct Kept<'a> {
    /// The kept page's stored evidence.
    pub evidence: EvidenceRef<'a>,
    /// The kept page's [`page_name`].
    pub page_name: u64,
    /// The kept page's URL.
    pub url: &'a str,
}

/// A page contained in a kept page that holds this many times its content
/// (estimated) or more is not that page's copy but a part of it (see
/// [`Coverage::Contained`]). Sibling pages of one template hold about as
/// much as each other; a print view or an all-in-one page holds many
/// pages.
pub const CONTAINED_RATIO: f64 = 4.0;

/// [`CONTAINED_RATIO`] for an article. How much extraction calls an
/// article varies between a page and its print view or syndicated copy (a
/// lyrics page's one paragraph, all of it in print: 4.5x), so only a kept
/// page saying this many times as much is all-in-one: a ten-chapter
/// book's `print.html` says 8 times as much as a chapter, rust-doc's
/// books' 36-360 times. Measured at 6 and 16: the same scores on dev,
/// dev2 and both wild sites.
pub const ARTICLE_CONTAINED_RATIO: f64 = 6.0;

/// A page's own content under its template, computed once per decision
/// and compared with each candidate ([`OwnContent::coverage`]).
#[derive(Clone, Debug)]
pub struct OwnContent {
    basis: Basis,
    young: bool,
    visible: u64,
    /// Every compared block.
    all: Compared,
    /// Indexes (in the page's blocks) of the compared blocks other than
    /// those that name the page (its title and the top-level headings
    /// holding its name), when it has both kinds: what is measured against
    /// the same item under another folder (see [`OwnContent::coverage`]).
    unnamed: Option<Vec<usize>>,
    /// Those blocks made ready to measure, at the first such candidate.
    unnamed_compared: std::cell::OnceCell<Compared>,
    /// The page's name: the distinct words of its title less those its
    /// section's titles commonly share, those of its URL's host and
    /// folders ([`place_words`]) and, while its site is young, a short
    /// edge segment ([`PageContent::title_edges`]). Empty when its title
    /// is template or all such words.
    name: Vec<u32>,
    /// Sorted, distinct word hashes of its whole title.
    title: Vec<u32>,
    /// Its title's short edge segments' words ([`PageContent::title_edges`]).
    title_edges: Vec<u32>,
    /// Its [`page_name`].
    page_name: u64,
    /// How many folders its URL's path has ([`folder_depth`]).
    folders: usize,
    /// Its main text's language ([`lang_code`]).
    lang: u32,
    /// Words of its main content, navigation left out, counted as a kept
    /// page's [`Evidence::main_words`].
    main_words: u32,
    /// Its site ([`crate::site_of`]).
    site: String,
}

/// What the drop policy reads of a page besides its blocks' roles
/// (`roles`), as `neardup extract --json` shows it (`OwnContent::facts`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PageFacts {
    /// Whether it is judged on its article or on the whole page.
    pub basis: Basis,
    /// The words of its name, in title order, lowercased as compared: its
    /// title less its section's common title words, its URL's host and
    /// folder words and, while its site is young, a short edge segment.
    /// Empty when its title is template or all such words (a page without
    /// a name is not held to one).
    pub name: Vec<String>,
    /// Its main text's language (ISO 639-3), `None` when unknown: a page
    /// in another language than the kept page's is not its copy.
    pub language: Option<String>,
    /// Words of its main content, navigation left out: what the size rule
    /// (`CONTAINED_RATIO`) weighs.
    pub main_words: u32,
}

/// A set of compared blocks of a page, ready to be measured.
#[derive(Clone, Debug)]
struct Compared {
    /// Words of the blocks.
    words: u32,
    /// The blocks, in page order: (first word's position, words).
    spans: Vec<(u32, u32)>,
    /// Per word position of the page, the index in `shingles` of the
    /// shingle starting there (meaningful at compared shingle positions).
    rank_at: Vec<u32>,
    /// Sorted, distinct shingles of the blocks.
    shingles: Vec<u32>,
    /// The blocks: (hash, words), for the block-level fallback.
    blocks: Vec<(u32, u32)>,
}

impl Compared {
    fn new(page: &PageContent, own: &[&ContentBlock]) -> Compared {
        let blocks: Vec<(u32, u32)> = own.iter().map(|b| (b.hash, b.words())).collect();
        let spans = own.iter().map(|b| (b.start, b.words())).collect();
        // The page's shingles are sorted once at analysis: keeping those
        // of compared blocks gives the distinct shingles and each
        // position's index among them in one pass.
        let mut compared = vec![false; page.words.len()];
        for b in own {
            let start = b.start as usize;
            let end = (start + shingle_count(b.words())).min(compared.len());
            compared.get_mut(start..end).unwrap_or_default().fill(true);
        }
        let mut shingles: Vec<u32> = Vec::new();
        let mut rank_at = vec![0u32; page.words.len()];
        for key in &page.by_shingle {
            let (s, at) = ((key >> 32) as u32, *key as u32 as usize);
            if !compared.get(at).copied().unwrap_or(false) {
                continue;
            }
            if shingles.last() != Some(&s) {
                shingles.push(s);
            }
            if let Some(r) = rank_at.get_mut(at) {
                *r = shingles.len() as u32 - 1;
            }
        }
        Compared {
            words: blocks.iter().map(|b| b.1).sum(),
            spans,
            rank_at,
            shingles,
            blocks,
        }
    }
}

impl OwnContent {
    /// What of `page` is its own under `template`.
    pub fn new(page: &PageContent, template: SiteTemplate<'_>, url: &str) -> OwnContent {
        let sel = Selection::new(page, template);
        let own: Vec<(usize, &ContentBlock)> = page
            .blocks
            .iter()
            .enumerate()
            .filter(|(_, b)| sel.role(b) == Role::Compared)
            .collect();
        let title = page.title_words();
        let name: Vec<u32> = if own.iter().any(|(_, b)| b.source == 0) {
            let place = place_words(url);
            title
                .iter()
                .copied()
                .filter(|&w| !template.common_title_word(w))
                .filter(|w| place.binary_search(w).is_err())
                .filter(|w| !sel.young || page.title_edges.binary_search(w).is_err())
                .collect()
        } else {
            Vec::new()
        };
        // What names the page in a heading: its name, or its whole title
        // when every word of it is common in its section.
        let key = if name.is_empty() { &title } else { &name };
        let naming = |b: &ContentBlock| {
            b.h1 && !key.is_empty() && {
                let words = page.words_of(b);
                let held = key.iter().filter(|w| words.contains(w)).count();
                held as f64 >= MIN_NAMED * key.len() as f64
            }
        };
        // Without its title and naming headings, for the same item under
        // another folder; only for a page with a name and something else.
        let unnamed = if name.is_empty() {
            None
        } else {
            let rest: Vec<usize> = own
                .iter()
                .filter(|(_, b)| b.source != 0 && !naming(b))
                .map(|(i, _)| *i)
                .collect();
            (!rest.is_empty() && rest.len() < own.len()).then_some(rest)
        };
        let own: Vec<&ContentBlock> = own.into_iter().map(|(_, b)| b).collect();
        OwnContent {
            page_name: page_name(url),
            folders: folder_depth(url),
            title,
            title_edges: page.title_edges.clone(),
            name,
            basis: sel.basis,
            young: sel.young,
            visible: page.visible,
            all: Compared::new(page, &own),
            unnamed,
            unnamed_compared: std::cell::OnceCell::new(),
            lang: page.lang,
            main_words: page.main_words(),
            site: crate::canonical::site_of(url),
        }
    }

    /// What the policy reads of this page ([`PageFacts`]); `title` is the
    /// page's title and `lang` its language, as analyzed. Read-only: for
    /// `neardup extract --json`.
    pub fn facts(&self, title: &str, lang: &str) -> PageFacts {
        let mut name: Vec<String> = Vec::new();
        for_each_hashed_word(title, |w, hash| {
            if self.name.binary_search(&hash).is_ok() && !name.iter().any(|n| n == w) {
                name.push(w.to_owned());
            }
        });
        PageFacts {
            basis: self.basis,
            name,
            language: (self.lang != 0).then(|| lang.to_owned()),
            main_words: self.main_words,
        }
    }

    /// Share of a kept page's name (its title `kept_title` less its site's
    /// common title words and `kept_place`, the [`place_words`] of its
    /// URL) in this page's title; `None` when the kept page has no name.
    fn holds_name_of(
        &self,
        kept_title: &[u32],
        kept_place: &[u32],
        template: SiteTemplate<'_>,
    ) -> Option<f64> {
        let name: Vec<u32> = kept_title
            .iter()
            .copied()
            .filter(|&w| !template.common_title_word(w))
            .filter(|w| kept_place.binary_search(w).is_err())
            // A site's name around both titles, while its site is young.
            .filter(|w| !self.young || self.title_edges.binary_search(w).is_err())
            .collect();
        if name.is_empty() {
            return None;
        }
        let held = name
            .iter()
            .filter(|w| self.title.binary_search(w).is_ok())
            .count();
        Some(held as f64 / name.len() as f64)
    }

    /// Share of this page's name in a kept page's title (1.0 for a page
    /// without a name).
    fn named(&self, kept_title: &[u32]) -> f64 {
        if self.name.is_empty() {
            return 1.0;
        }
        self.name
            .iter()
            .filter(|w| kept_title.binary_search(w).is_ok())
            .count() as f64
            / self.name.len() as f64
    }

    /// The share of a kept article found in this article (its shingles
    /// `hit` in the kept page's sample, scaled by the sampling, over the
    /// kept page's main content) when this article may extend it (see
    /// [`EXTENDS_MIN_HOLDS`]): it says more than the kept one (at most
    /// twice as much: `covered`, the share of it that is the kept
    /// article, at least [`EXTENDS_MIN_COVERED`]) and the two name each
    /// other (at least [`MIN_NAMED`] of each name in the other's title,
    /// `named` being this page's share): a page holding a chapter under
    /// its book's title is not that chapter extended.
    /// `holds` is the kept page's name share in this page's title
    /// ([`OwnContent::holds_name_of`]).
    fn extends(
        &self,
        covered: f64,
        hit: &[bool],
        kept: EvidenceRef<'_>,
        named: f64,
        holds: impl FnOnce() -> Option<f64>,
    ) -> Option<f64> {
        if !(EXTENDS_MIN_COVERED..YOUNG_MIN_COVERAGE).contains(&covered)
            || kept.main_words == 0
            || self.name.is_empty()
            || named < MIN_NAMED
        {
            return None;
        }
        let m = f64::from(kept.modulus.max(1));
        let share = hit.iter().filter(|&&h| h).count() as f64 * m / f64::from(kept.main_words);
        if share < EXTENDS_MIN_HOLDS {
            return None;
        }
        holds().is_some_and(|h| h >= MIN_NAMED).then_some(share)
    }

    /// Whether this page carries the name of the kept page (see
    /// [`OwnContent::coverage`]), with the share of its name in the kept
    /// page's title; `holds` is the kept page's name share in this page's
    /// title ([`OwnContent::holds_name_of`]).
    fn name_known(
        &self,
        kept: EvidenceRef<'_>,
        weak: bool,
        holds: impl Fn() -> Option<f64>,
    ) -> (f64, bool) {
        let (basis, young) = (self.basis, self.young);
        let named = self.named(kept.title);
        // Two titles of one pattern (most of their words shared) whose
        // short names ([`ITEM_NAME_WORDS`]) each have a word the other
        // lacks: sibling items, versions or chapters (`ToLowercase in
        // std::char` / `ToUppercase in std::char`, `3.11.4` / `3.11.5`).
        // A headline is longer, and its copies edit it.
        let renamed = || {
            let shared = self
                .title
                .iter()
                .filter(|w| kept.title.binary_search(w).is_ok())
                .count();
            (1..=ITEM_NAME_WORDS).contains(&self.name.len())
                && named < 1.0
                && 2 * shared >= self.title.len().max(kept.title.len())
                && holds().is_some_and(|h| h < 1.0)
        };
        let known = match basis {
            // On a site's first pages its title template is unknown: a
            // syndicated or print copy's title may carry a site's name or
            // a shortened headline, or be another headline altogether. The
            // detectors' match and the article's content decide there,
            // unless the titles name two items of one pattern.
            Basis::Article if young && !weak => !renamed(),
            // A kept article without a title (or titled by its site's name
            // alone) names nothing to compare.
            Basis::Article if kept.title.is_empty() => true,
            // A headline is edited and shortened in print views and
            // syndicated copies; most of it stays, one way or the other.
            Basis::Article => {
                (named >= MIN_NAMED || holds().is_some_and(|h| h >= MIN_NAMED)) && !renamed()
            }
            // What a page without an article is called is most of what it
            // says: the same name both ways (`background` is not
            // `background-set`).
            Basis::Page => named >= 1.0 && holds().is_none_or(|h| h >= 1.0),
        };
        (named, known)
    }

    /// How much of this content is in the kept page `kept`.
    ///
    /// First, who the page is: a page whose main text is in another
    /// language than the kept page's is a translation
    /// ([`Coverage::OtherLanguage`]), and a page whose name (see
    /// [`OwnContent::new`]) is not wholly in the kept page's title is
    /// another item, command, version or chapter ([`Coverage::OtherName`]),
    /// whatever they share. Print views, syndicated and edited copies keep
    /// their headline; a site's name around it is its site's common title
    /// words, or a short edge segment while the site is young.
    ///
    /// Then what it says: an article is measured by words (the share of
    /// its words in a shingle of the kept page: an edited word costs
    /// itself) when the kept page's shingles are all stored; otherwise,
    /// and always when `strict`, by the share of its shingles (sampled as
    /// the kept page's) in the kept page. A kept page that holds
    /// [`CONTAINED_RATIO`] times this page's content or more contains it
    /// ([`Coverage::Contained`]).
    /// `page` is the page this content was computed from.
    #[cfg(test)]
    pub fn coverage(
        &self,
        page: &PageContent,
        kept: Kept<'_>,
        template: SiteTemplate<'_>,
        strict: bool,
    ) -> Coverage {
        self.coverage_of(page, kept, template, strict, true)
    }

    /// [`OwnContent::coverage`], where `weak` says whether the candidate
    /// was found weakly (the block index, or a detector finding the kept
    /// page's main text much larger than this page's): an article on a
    /// young site is then held to its name too (a chapter in its manual's
    /// print view), where a strong match is not (a print view or a
    /// syndicated copy of an article, often retitled).
    pub fn coverage_of(
        &self,
        page: &PageContent,
        kept: Kept<'_>,
        template: SiteTemplate<'_>,
        strict: bool,
        weak: bool,
    ) -> Coverage {
        let Kept {
            evidence: kept,
            page_name,
            url: kept_url,
        } = kept;
        let (basis, young) = (self.basis, self.young);
        let all = &self.all;
        if all.shingles.len() < MIN_SHINGLES {
            let mirrored = !self.title.is_empty()
                && !all.blocks.is_empty()
                && page_name == self.page_name
                && kept.title == self.title.as_slice()
                && all
                    .blocks
                    .iter()
                    .all(|(hash, _)| kept.blocks.binary_search(hash).is_ok());
            return Coverage::TooSmall {
                identical: self.visible == kept.visible,
                mirrored,
                words: all.words,
            };
        }
        // Within one site, whose chrome is in the site's language, a main
        // text in another language under another title is a translation.
        // Across sites the detected language of a copy can follow the
        // chrome of the site it was syndicated to, and a short or mixed
        // text can be detected either way (one page and its print view,
        // under one title): their content decides there.
        if self.lang != 0
            && kept.lang != 0
            && self.lang != kept.lang
            && kept.title != self.title.as_slice()
            && crate::canonical::site_of(kept_url) == self.site
        {
            return Coverage::OtherLanguage;
        }
        // The same item under another folder (the same page name): its
        // title and naming headings say where it is (a module path, a
        // version, a breadcrumb) and were judged by name; what it says
        // besides must be in the kept page.
        let mirror = self
            .unnamed
            .as_ref()
            .filter(|_| page_name == self.page_name)
            .map(|rest| {
                self.unnamed_compared.get_or_init(|| {
                    let rest: Vec<&ContentBlock> =
                        rest.iter().filter_map(|&i| page.blocks.get(i)).collect();
                    Compared::new(page, &rest)
                })
            })
            .filter(|u| u.shingles.len() >= MIN_SHINGLES);
        let (cmp, mirror) = match mirror {
            Some(u) => (u, true),
            None => (all, false),
        };
        let words = cmp.words;
        let m = kept.modulus.max(1);
        let hit = found_in(&cmp.shingles, kept.sample);
        let covered = if basis == Basis::Article && m == 1 && !strict {
            words_covered(&cmp.spans, &cmp.rank_at, &hit)
        } else {
            // The kept sample holds only shingles `0 mod m`: every hit is
            // one. (`m` is a power of two: a mask, not a division.)
            let sampled = cmp.shingles.iter().filter(|&s| s & (m - 1) == 0).count();
            let hits = hit.iter().filter(|&&h| h).count();
            if sampled >= MIN_SAMPLED {
                hits as f64 / sampled as f64
            } else {
                // Too few sampled shingles to estimate: whole blocks
                // present in the kept page, by words (stricter: an edited
                // block counts as absent).
                let present: u32 = cmp
                    .blocks
                    .iter()
                    .filter(|(hash, _)| kept.blocks.binary_search(hash).is_ok())
                    .map(|b| b.1)
                    .sum();
                f64::from(present) / f64::from(words.max(1))
            }
        };
        // How much the kept page says, by its main content, as much of
        // each page counted the same way: a copy's original says about as
        // much as the copy, an all-in-one page many times more, whatever
        // either is called. An article's size says less (see
        // [`ARTICLE_CONTAINED_RATIO`]): it needs a much larger kept page.
        // An article is weighed at least by its compared words: its
        // main-content count leaves out link text, which a list of deals
        // or references in an article is.
        let (size, all_in_one) = match basis {
            Basis::Page => (self.main_words, CONTAINED_RATIO),
            Basis::Article => (self.main_words.max(words), ARTICLE_CONTAINED_RATIO),
        };
        let ratio = f64::from(kept.main_words) / f64::from(size.max(1));
        if ratio >= all_in_one {
            return Coverage::Contained {
                covered,
                basis,
                words,
                ratio,
            };
        }
        // Who the page is: its name must be the kept page's.
        // The kept page's place words only when its name is needed, once.
        let kept_holds = std::cell::OnceCell::new();
        let holds = || {
            *kept_holds
                .get_or_init(|| self.holds_name_of(kept.title, &place_words(kept_url), template))
        };
        let (named, known) = self.name_known(kept, weak, holds);
        if !known {
            return Coverage::OtherName {
                named,
                words: self.name.len() as u32,
            };
        }
        // On one site, under a sibling folder (as many folders deep), the
        // same page name is another variant (a platform, a version): an
        // article there that says more than the kept one is that
        // variant's, not the same story extended. A print or AMP view is
        // a folder more or less, and may extend; so may another site's
        // copy.
        let sibling = mirror
            && folder_depth(kept_url) == self.folders
            && crate::canonical::site_of(kept_url) == self.site;
        let holds = (basis == Basis::Article && !strict && !sibling)
            .then(|| self.extends(covered, &hit, kept, named, holds))
            .flatten();
        Coverage::Measured {
            covered,
            basis,
            words,
            young,
            mirror,
            holds,
        }
    }
}

/// How much of `page`'s own content (outside `template`) is in the kept
/// page `kept` (see [`OwnContent::coverage`]); the tests' shorthand.
#[cfg(test)]
pub fn coverage(
    page: &PageContent,
    template: SiteTemplate<'_>,
    kept: EvidenceRef<'_>,
    strict: bool,
    same_site: bool,
) -> Coverage {
    let _ = same_site;
    let kept = Kept {
        evidence: kept,
        page_name: 0,
        url: "",
    };
    OwnContent::new(page, template, "").coverage(page, kept, template, strict)
}

/// The share of the words of the compared blocks (`spans`: first word's
/// position, words) that lie in a word-3-shingle of the kept page, given
/// which of the page's distinct shingles (`rank_at`: per word position,
/// the index of the shingle starting there) the kept page has (`hit`); a
/// block of one or two words counts when the kept page has it as a block.
/// For prose this is the share of the text that is there: an edited word
/// costs itself, not the three shingles around it.
fn words_covered(spans: &[(u32, u32)], rank_at: &[u32], hit: &[bool]) -> f64 {
    let is_hit = |r: &u32| hit.get(*r as usize).copied().unwrap_or(false);
    let (mut total, mut found) = (0usize, 0usize);
    for &(start, len) in spans {
        let (start, len) = (start as usize, len as usize);
        let block = rank_at
            .get(start..start + shingle_count(len as u32))
            .unwrap_or_default();
        total += len;
        if len < 3 {
            found += if block.first().is_some_and(is_hit) {
                len
            } else {
                0
            };
            continue;
        }
        // Shingle `i` covers words `i..i + 3`; words before `until` are
        // already counted.
        let mut until = 0;
        for (i, r) in block.iter().enumerate() {
            if is_hit(r) {
                found += i + 3 - i.max(until);
                until = i + 3;
            }
        }
    }
    found as f64 / total.max(1) as f64
}

/// For each of the sorted, distinct `own` shingles, whether the sorted
/// `kept` holds it: a merge of the two lists, or a binary search per
/// shingle when `kept` is much the longer.
fn found_in(own: &[u32], kept: &[u32]) -> Vec<bool> {
    if own.len().saturating_mul(16) < kept.len() {
        return own.iter().map(|s| kept.binary_search(s).is_ok()).collect();
    }
    let mut hit = vec![false; own.len()];
    let (mut i, mut j) = (0, 0);
    while let (Some(&a), Some(&b)) = (own.get(i), kept.get(j)) {
        if a < b {
            i += 1;
        } else if a > b {
            j += 1;
        } else {
            if let Some(h) = hit.get_mut(i) {
                *h = true;
            }
            i += 1;
            j += 1;
        }
    }
    hit
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Evidence with these blocks and nothing else.
    fn seen(blocks: &[u32]) -> EvidenceRef<'_> {
        EvidenceRef {
            blocks,
            modulus: 1,
            sample: &[],
            visible: 0,
            title: &[],
            lang: 0,
            main_words: 0,
        }
    }

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
    fn caseless_scripts_lowercase_to_themselves() {
        for c in ('\u{3040}'..='\u{A63F}').chain('\u{AC00}'..='\u{D7A3}') {
            assert!(has_no_case(c));
            assert!(c.to_lowercase().eq([c]), "{c:?} has a lowercase form");
        }
        assert!(!has_no_case('\u{A640}'), "Cyrillic Extended-B has case");
        let mut out = String::new();
        lowercase_into("ÀB Σ東京 ΣΑ", &mut out);
        let by_char: String = "ÀB Σ東京 ΣΑ".chars().flat_map(char::to_lowercase).collect();
        assert_eq!(out, by_char);
    }

    #[test]
    fn long_preformatted_blocks_are_cut_alike_where_they_agree() {
        let header: Vec<String> = (0..120).map(|i| format!("h{i}")).collect();
        let pre = |tail: &str| Block {
            text: format!("{} {tail}", header.join(" ")),
            tag: "pre".into(),
            link_density: 0.0,
            is_main: true,
        };
        let code_a: Vec<String> = (0..40).map(|i| format!("a{i}")).collect();
        let code_b: Vec<String> = (0..40).map(|i| format!("b{i}")).collect();
        let a = PageContent::from_page("", &[pre(&code_a.join(" "))]);
        let b = PageContent::from_page("", &[pre(&code_b.join(" "))]);
        assert!(
            a.blocks.len() >= 160 / PIECE_MAX_WORDS,
            "{}",
            a.blocks.len()
        );
        assert!(a.blocks.iter().all(|p| p.source == 1));
        assert!(a
            .blocks
            .iter()
            .all(|p| (p.words() as usize) <= PIECE_MAX_WORDS));
        // The pieces wholly inside the shared header are the same blocks.
        let shared = a
            .blocks
            .iter()
            .zip(&b.blocks)
            .take_while(|(x, y)| x.hash == y.hash)
            .count();
        let in_header = a.blocks.iter().take_while(|p| p.end <= 120).count();
        assert!(
            shared >= in_header && in_header >= 2,
            "{shared} {in_header}"
        );
        assert_ne!(a.visible, b.visible);
        // Not a preformatted block, or a short one: one block.
        let mut p = pre(&code_a.join(" "));
        p.tag = "p".into();
        assert_eq!(PageContent::from_page("", &[p]).blocks.len(), 1);
        let mut p = pre("");
        p.text = code_a.join(" ");
        assert_eq!(PageContent::from_page("", &[p]).blocks.len(), 1);
    }

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
    fn evidence_round_trips_through_its_stored_form() {
        let p = page(&[("one two three four five", true), (FOOTER, false)]);
        let e = p.evidence();
        assert!(e.is_consistent());
        let bytes = postcard::to_allocvec(&e).unwrap();
        let back: Evidence = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(back, e);
        assert_eq!(back.modulus, 1);
        assert_eq!(back.visible, p.visible);
        assert!(postcard::from_bytes::<Evidence>(&bytes[..bytes.len() / 2]).is_err());
        let observed = e.observation();
        assert_eq!((observed.modulus, observed.sample.len()), (0, 0));
        assert_eq!((&observed.blocks, observed.visible), (&e.blocks, e.visible));
    }

    #[test]
    fn sorted_sets_are_stored_as_gaps_and_read_back_exactly() {
        #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
        struct S(#[serde(with = "sorted_u32s")] Vec<u32>);
        for v in [
            vec![],
            vec![0],
            vec![u32::MAX],
            vec![0, 1, 2, u32::MAX - 1, u32::MAX],
            (0..500).map(|i| i * 8_589_934).collect(),
        ] {
            let bytes = postcard::to_allocvec(&S(v.clone())).unwrap();
            assert_eq!(postcard::from_bytes::<S>(&bytes).unwrap(), S(v));
        }
        // Gaps are smaller than values: a dense sorted set of large hashes
        // takes fewer bytes than the same values as plain varints.
        let dense: Vec<u32> = (0..1000).map(|i| 4_000_000_000 + i * 1000).collect();
        let gaps = postcard::to_allocvec(&S(dense.clone())).unwrap().len();
        let plain = postcard::to_allocvec(&dense).unwrap().len();
        assert!(gaps * 2 < plain, "{gaps} vs {plain} bytes");
        // A gap running past u32::MAX is refused, not wrapped.
        let overflow = postcard::to_allocvec(&vec![u32::MAX, 1u32]).unwrap();
        assert!(postcard::from_bytes::<S>(&overflow).is_err());
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
    fn the_sample_is_the_smallest_power_of_two_that_fits_counting_repeats() {
        // Repeated blocks: the modulus is chosen on shingles with repeats
        // (as stored indexes were built), the sample keeps distinct ones.
        let text: Vec<String> = (0..700).map(|i| format!("w{i}")).collect();
        let text = text.join(" ");
        let p = page(&[(&text, true), (&text, false), ("short one", true)]);
        let mut naive = Vec::new();
        for b in &p.blocks {
            block_shingles(p.words_of(b), &mut naive);
        }
        let mut modulus = 1u32;
        while naive.len() > MAX_SAMPLE && modulus < 1 << 30 {
            modulus <<= 1;
            naive.retain(|s| s % modulus == 0);
        }
        naive.sort_unstable();
        naive.dedup();
        let e = p.evidence();
        assert!(modulus > 1);
        assert_eq!((e.modulus, &e.sample), (modulus, &naive));
    }

    #[test]
    fn found_in_merges_or_searches_alike() {
        let own: Vec<u32> = (0..200).map(|i| i * 3).collect();
        let long: Vec<u32> = (0..10_000).map(|i| i * 2).collect();
        let short: Vec<u32> = (0..300).map(|i| i * 2).collect();
        for kept in [&long, &short] {
            let expect: Vec<bool> = own.iter().map(|s| kept.contains(s)).collect();
            assert_eq!(found_in(&own, kept), expect);
        }
        assert_eq!(found_in(&[], &short), Vec::<bool>::new());
        assert_eq!(found_in(&own[..3], &[]), vec![false; 3]);
    }

    #[test]
    fn words_covered_counts_each_word_once() {
        // Blocks of 5 words (shingles at 0..3) and of 2 words (one shingle).
        let spans = [(0, 5), (5, 2)];
        let rank_at = [0, 1, 2, 0, 0, 3, 0];
        // Shingles 0 and 2 overlap on word 2: words 0..5 all covered once.
        assert_eq!(
            words_covered(&spans, &rank_at, &[true, false, true, false]),
            5.0 / 7.0
        );
        assert_eq!(
            words_covered(&spans, &rank_at, &[false, true, false, true]),
            5.0 / 7.0
        );
        assert_eq!(words_covered(&spans, &rank_at, &[false; 4]), 0.0);
        assert_eq!(words_covered(&spans, &rank_at, &[true; 4]), 1.0);
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
            kept.evidence().as_ref(),
            true,
            true,
        );
        assert!(c.allows_drop(0.9), "{c:?}");
        // The other direction: the larger page is not in the smaller one.
        let back = coverage(
            &kept,
            SiteTemplate::default(),
            copy.evidence().as_ref(),
            true,
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
        let c = coverage(&b, t.of("s", "http://s/x"), ev.as_ref(), true, true);
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
                seen(&page(&[(FOOTER, false)]).evidence().blocks),
            );
        }
        assert!(t.of("s", "http://s/x").contains(a.blocks[3].hash));
        assert_eq!(a.blocks[3].words(), 11);
        let c = coverage(&b, t.of("s", "http://s/x"), ev.as_ref(), true, true);
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
                seen(&page(&[(FOOTER, false)]).evidence().blocks),
            );
        }
        let ev = a.evidence();
        let c = coverage(&b, t.of("s", "http://s/x"), ev.as_ref(), true, true);
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
        let same = coverage(&a, t.of("s", "http://s/x"), ev.as_ref(), true, true);
        assert!(same.allows_drop(1.0), "{same:?}");
    }

    #[test]
    fn templates_count_pages_and_forget_removed_ones() {
        let mut t = Templates::default();
        t.added("s", "http://s/a.html", seen(&[1, 2]));
        t.added("s", "http://s/b.html", seen(&[1]));
        t.added("s", "http://s/c.html", seen(&[1]));
        assert!(t.of("s", "http://s/x").contains(1));
        assert!(!t.of("s", "http://s/x").contains(2));
        assert!(!t.of("other", "http://other/x").contains(1));
        t.removed("s", "http://s/b.html", seen(&[1]));
        assert!(!t.of("s", "http://s/x").contains(1));
    }

    #[test]
    fn a_page_mirrored_under_other_folders_counts_once() {
        let mut t = Templates::default();
        t.added("s", "http://s/en/guide.html", seen(&[7]));
        t.added("s", "http://s/fr/guide.html", seen(&[7]));
        t.added("s", "http://s/v2/guide.html", seen(&[7]));
        assert!(
            !t.of("s", "http://s/x").contains(7),
            "one page and its mirrors are not a template"
        );
        t.added("s", "http://s/en/other/", seen(&[7]));
        assert!(!t.of("s", "http://s/x").contains(7), "two pages");
        // A mirror's blocks that the first copy lacked still count.
        t.added("s", "http://s/fr/guide.html", seen(&[8]));
        t.added("s", "http://s/a.html", seen(&[8]));
        t.added("s", "http://s/b.html", seen(&[8]));
        assert!(t.of("s", "http://s/x").contains(8));
        t.added("s", "http://s/third.html", seen(&[7]));
        assert!(t.of("s", "http://s/x").contains(7));
        t.removed("s", "http://s/third.html", seen(&[7]));
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

    /// The own content of a page without an article titled `title` at
    /// `url`, and the kept side made of `kept` titled `kept_title` at
    /// `kept_url`.
    fn named_coverage(
        (title, url): (&str, &str),
        (kept_title, kept_url): (&str, &str),
    ) -> Coverage {
        let text = [
            (
                "Sets whether the background of the tag is drawn in full.",
                false,
            ),
            ("Default value: FALSE. Flags: Read / Write.", false),
            ("Available since: 4.0. Deprecated: never.", false),
        ];
        let blocks: Vec<Block> = text.iter().map(|(t, m)| block(t, *m)).collect();
        let page = PageContent::from_page(title, &blocks);
        let kept = PageContent::from_page(kept_title, &blocks).evidence();
        let own = OwnContent::new(&page, SiteTemplate::default(), url);
        own.coverage(
            &page,
            Kept {
                evidence: kept.as_ref(),
                page_name: page_name(kept_url),
                url: kept_url,
            },
            SiteTemplate::default(),
            false,
        )
    }

    /// Coverage of an article of `paragraphs` paragraphs titled `title`
    /// against a kept article of the first `kept` of them titled
    /// `kept_title`.
    fn extending_coverage(
        paragraphs: usize,
        title: &str,
        kept: usize,
        kept_title: &str,
    ) -> Coverage {
        extending_coverage_at(
            (paragraphs, title, "http://s/news/story"),
            (kept, kept_title, "http://t/syndication/story"),
        )
    }

    /// [`extending_coverage`] with the two pages' URLs.
    fn extending_coverage_at(
        (paragraphs, title, url): (usize, &str, &str),
        (kept, kept_title, kept_url): (usize, &str, &str),
    ) -> Coverage {
        let texts: Vec<String> = (0..paragraphs)
            .map(|p| {
                let words: Vec<String> = (0..40).map(|w| format!("word{p}x{w}")).collect();
                format!("{}.", words.join(" "))
            })
            .collect();
        let blocks =
            |n: usize| -> Vec<Block> { texts.iter().take(n).map(|t| block(t, true)).collect() };
        let page = PageContent::from_page(title, &blocks(paragraphs));
        let kept_ev = PageContent::from_page(kept_title, &blocks(kept)).evidence();
        let own = OwnContent::new(&page, SiteTemplate::default(), url);
        own.coverage(
            &page,
            Kept {
                evidence: kept_ev.as_ref(),
                page_name: page_name(kept_url),
                url: kept_url,
            },
            SiteTemplate::default(),
            false,
        )
    }

    #[test]
    fn an_article_holding_the_kept_article_under_its_name_extends_it() {
        let headline = "Rosetta ends its mission by landing on its comet";
        // The original with 40% more than the syndicated copy kept first
        // (a longer extraction, comments): 71% of it is the kept article,
        // all of which it holds.
        let c = extending_coverage(12, headline, 7, headline);
        assert!(
            matches!(c, Coverage::Measured { basis: Basis::Article, holds: Some(h), covered, .. } if h >= EXTENDS_MIN_HOLDS && covered < 0.8),
            "{c:?}"
        );
        assert!(c.allows_drop(0.8), "{c:?}");
        assert!(c
            .describe()
            .contains("of the kept page's main content is in this page"));
        // Another headline: another story that quotes it.
        let c = extending_coverage(12, "Philae wakes up after seven months", 7, headline);
        assert!(!c.allows_drop(0.8), "{c:?}");
        // Four times as much: a page that includes it, not its copy.
        let c = extending_coverage(28, headline, 7, headline);
        assert!(!c.allows_drop(0.8), "{c:?}");
    }

    #[test]
    fn folder_depth_counts_the_folders_of_the_path() {
        assert_eq!(folder_depth("http://s/"), 0);
        assert_eq!(folder_depth("http://s/page.html"), 0);
        assert_eq!(folder_depth("http://s/a/b/page.html?x=/y/z#/q"), 2);
        assert_eq!(folder_depth("http://s/a/b/"), 1);
        assert_eq!(folder_depth("https://e.example/print/article/x.html"), 2);
    }

    #[test]
    fn a_longer_page_under_a_sibling_folder_does_not_extend_it() {
        // One source file's page under `arm/` and `aarch64/`: the arm one
        // holds all of the other and says 70% more. Another platform's
        // file, not the same story extended.
        let title = "armclang.rs - source";
        let c = extending_coverage_at(
            (12, title, "http://s/src/arm/armclang.rs.html"),
            (7, title, "http://s/src/aarch64/armclang.rs.html"),
        );
        assert!(matches!(c, Coverage::Measured { holds: None, .. }), "{c:?}");
        assert!(!c.allows_drop(0.8), "{c:?}");
        // The story after its print view, a folder less: it extends it.
        let title = "Rosetta ends its mission by landing on its comet";
        let c = extending_coverage_at(
            (12, title, "http://s/article/rosetta.html"),
            (7, title, "http://s/print/article/rosetta.html"),
        );
        assert!(c.allows_drop(0.8), "{c:?}");
    }

    #[test]
    fn an_edited_original_extends_its_syndicated_copy() {
        // The syndicated copy kept first: seven paragraphs and the
        // partner's credit line. The original after it: twelve
        // paragraphs (a longer extraction), one word in forty edited in
        // each of the seven. Each edit takes three shingles with it, and
        // the copy's own lines are not in the original: the original holds
        // about 84% of the copy, which must still be enough.
        let headline = "Nikki Haley to resign as ambassador to the United Nations";
        let paragraph = |p: usize, edited: bool| -> String {
            let words: Vec<String> = (0..40)
                .map(|w| {
                    if edited && w == 20 {
                        format!("edit{p}")
                    } else {
                        format!("word{p}x{w}")
                    }
                })
                .collect();
            format!("{}.", words.join(" "))
        };
        let mut page: Vec<String> = (0..12).map(|p| paragraph(p, p < 7)).collect();
        page.push("Related coverage and more stories from our newsroom.".into());
        let mut kept: Vec<String> = (0..7).map(|p| paragraph(p, false)).collect();
        kept.push("This article originally appeared on the Times website and is republished under licence.".into());
        let blocks =
            |texts: &[String]| -> Vec<Block> { texts.iter().map(|t| block(t, true)).collect() };
        let page = PageContent::from_page(headline, &blocks(&page));
        let kept_ev = PageContent::from_page(headline, &blocks(&kept)).evidence();
        let own = OwnContent::new(&page, SiteTemplate::default(), "http://s/politics/haley");
        let c = own.coverage(
            &page,
            Kept {
                evidence: kept_ev.as_ref(),
                page_name: page_name("http://t/syndication/haley"),
                url: "http://t/syndication/haley",
            },
            SiteTemplate::default(),
            false,
        );
        assert!(
            matches!(c, Coverage::Measured { holds: Some(h), covered, .. } if (EXTENDS_MIN_HOLDS..0.85).contains(&h) && covered < 0.8),
            "{c:?}"
        );
        assert!(c.allows_drop(0.8), "{c:?}");
    }

    #[test]
    fn a_page_without_an_article_must_be_named_like_the_kept_page() {
        // Same text, a title one word longer, another page name: another
        // property, not a copy.
        let c = named_coverage(
            (
                "Gtk.TextTag:background",
                "http://s/gtk4/property.TextTag.background.html",
            ),
            (
                "Gtk.TextTag:background-set",
                "http://s/gtk4/property.TextTag.background-set.html",
            ),
        );
        assert!(matches!(c, Coverage::OtherName { .. }), "{c:?}");
        assert!(!c.allows_drop(0.8));
        // The same item under another folder (another module path in its
        // title): a copy.
        let c = named_coverage(
            (
                "uint16x4_t in core::arch::arm",
                "http://s/core/arch/arm/struct.uint16x4_t.html",
            ),
            (
                "uint16x4_t in core::arch::aarch64",
                "http://s/core/arch/aarch64/struct.uint16x4_t.html",
            ),
        );
        assert!(c.allows_drop(0.8), "{c:?}");
        // Another URL with the very same title: judged on its content.
        let c = named_coverage(
            ("Index", "http://s/genindex-J.html"),
            ("Index", "http://s/genindex-K.html"),
        );
        assert!(c.allows_drop(0.8), "{c:?}");
    }

    #[test]
    fn a_page_without_article_is_judged_on_the_whole_page() {
        // On a page without an article the main blocks are most of the
        // page, often more than an article needs (an API item with a long
        // description: its heading and signature push it over): it must
        // still be judged as a page, every block compared, not as an
        // article whose chrome a copy may lack.
        use neardup_html::{Block, Extracted, MainText};
        let block = |text: String, main: bool| Block {
            text,
            tag: "p".into(),
            link_density: 0.0,
            is_main: main,
        };
        let description = "word ".repeat(120);
        let mut e = Extracted {
            title: "parse_flags in gizmo::cli".into(),
            blocks: vec![
                block("Function gizmo::cli::parse_flags".into(), true),
                block(description, true),
                block("Copyright The Gizmo Project".into(), false),
            ],
            main_text: MainText::Page,
            ..Extracted::default()
        };
        let (basis, judged) = roles(&PageContent::from_extracted(&e), SiteTemplate::default());
        assert_eq!(basis, Basis::Page);
        assert!(judged.iter().all(|r| r.1 == Role::Compared), "{judged:?}");
        e.main_text = MainText::Article;
        let (basis, judged) = roles(&PageContent::from_extracted(&e), SiteTemplate::default());
        assert_eq!(basis, Basis::Article);
        assert!(judged.iter().any(|r| r.1 == Role::Chrome), "{judged:?}");
    }
}
