//! A page's visible content as block hashes and word hashes (`PageContent`): what analysis computes for every page.

use neardup_api::hash64;
use neardup_html::Block;

use super::evidence::Evidence;
use super::names::{host_words, lowercase_into, title_edges};
use super::thresholds::MAX_SAMPLE;

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
    /// A paragraph (`p`) of text, not navigation: what an item's page says
    /// of it in sentences (see [`crate::content::Coverage::Measured`]'s
    /// `own_sentences`).
    #[serde(default)]
    pub para: bool,
    /// The block's words: `words[start..end]` of the page.
    pub(super) start: u32,
    pub(super) end: u32,
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
    pub(super) words: Vec<u32>,
    /// Every block's shingles ([`block_shingles`]) as `shingle << 32 |
    /// position`, sorted: the shingle starting at word `position` (a block
    /// of one or two words has one, at its first word). Sorted once at
    /// analysis, on any thread, so that deciding (one thread, every page
    /// in turn) only filters it. Not serialized: [`PageContent::index_shingles`]
    /// rebuilds it from the words and blocks.
    #[serde(skip)]
    pub(super) by_shingle: Vec<u64>,
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
pub(super) mod le_u32s {
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
        sort_by_shingle(&mut self.by_shingle);
    }

    /// The content of an extracted page ([`PageContent::from_page`] and
    /// whether extraction found an article in it).
    pub fn from_extracted(e: &neardup_html::Extracted) -> PageContent {
        let mut out = PageContent::from_page(&e.title, &e.blocks);
        out.no_article = e.main_text == neardup_html::MainText::Page;
        out
    }

    /// [`PageContent::from_extracted`], taking the words of the blocks
    /// `normalized` split (those of `e.selected(mode)`, in order) where
    /// they are the words this content hashes (plain: see
    /// [`neardup_text::Normalized::plain_words_of`]) instead of splitting
    /// them again. The same content either way.
    pub fn from_normalized(
        e: &neardup_html::Extracted,
        normalized: &neardup_text::Normalized,
        mode: neardup_html::ExtractMode,
    ) -> PageContent {
        let mut split = vec![None; e.blocks.len()];
        for (k, (i, _)) in e.selected(mode).enumerate() {
            if let Some(s) = split.get_mut(i) {
                *s = Some(k);
            }
        }
        let split = Split { normalized, split };
        let mut out = PageContent::build(&e.title, &e.blocks, Some(&split));
        out.no_article = e.main_text == neardup_html::MainText::Page;
        out
    }

    /// The content of a page from its `<title>` and extracted blocks. The
    /// title comes first, as a main block: what a page is called is part
    /// of what it says (two API items or two tables of contents often
    /// differ in little else).
    pub fn from_page(title: &str, blocks: &[Block]) -> PageContent {
        PageContent::build(title, blocks, None)
    }

    /// [`PageContent::from_page`], with the words of some blocks split
    /// already.
    fn build(title: &str, blocks: &[Block], split: Option<&Split<'_>>) -> PageContent {
        let mut out = PageContent::default();
        // About a word per six bytes of text: sized once, not grown by
        // doubling (each doubling copies what the page has so far).
        let bytes: usize = title.len() + blocks.iter().map(|b| b.text.len()).sum::<usize>();
        out.words.reserve(bytes / 6);
        out.by_shingle.reserve(bytes / 6);
        let mut lower = String::new();
        let mut shingles = Vec::new();
        let mut visible = xxhash_rust::xxh3::Xxh3::with_seed(neardup_api::HASH_SEED);
        let edges = title_edges(title);
        let title = (!title.trim().is_empty()).then_some((0, title, true, Kind::Title));
        let title = title
            .map(|(source, text, main, kind)| (source, text, main, kind, [false, false, false]));
        let blocks = blocks.iter().enumerate().map(|(i, b)| {
            let tags = [b.tag == "h1", b.tag == "pre", b.tag == "p"];
            (i as u32 + 1, b.text.as_str(), b.is_main, Kind::of(b), tags)
        });
        let mut numbers = Vec::new();
        let mut pieces = Vec::new();
        for (source, text, main, kind, [h1, pre, para]) in title.into_iter().chain(blocks) {
            let start = out.words.len();
            numbers.clear();
            let mut word = |w: &str| {
                if w.is_ascii() || w.chars().any(neardup_text::is_alphanumeric) {
                    out.words.push(hash64(w.as_bytes()) as u32);
                    numbers.push(w.bytes().all(|b| b.is_ascii_digit()));
                }
            };
            let known = (source as usize)
                .checked_sub(1)
                .and_then(|i| split?.plain_words_of(i));
            match known {
                Some(words) => words.for_each(word),
                None => {
                    lowercase_into(text, &mut lower);
                    neardup_text::for_each_word(&lower, &mut word);
                }
            }
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
                    para: para && !links,
                    start: at as u32,
                    end: (at + words.len()) as u32,
                });
            }
        }
        out.visible = visible.digest();
        sort_by_shingle(&mut out.by_shingle);
        out.title_edges = edges;
        out
    }

    /// Words of the main content (the article, or for a page without one
    /// its content blocks), link text in it included: an index's or a
    /// table of contents' entries are links, and what it says. Navigation
    /// is outside the main content.
    pub fn main_words(&self) -> u32 {
        self.blocks
            .iter()
            .filter(|b| b.main)
            .map(ContentBlock::words)
            .sum()
    }

    /// Records which words of `title` name the site of `url` (see
    /// [`PageContent::title_host`]).
    pub fn set_host(&mut self, title: &str, url: &str) {
        self.title_host = host_words(title, url);
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
    pub(super) fn words_of(&self, b: &ContentBlock) -> &[u32] {
        self.words
            .get(b.start as usize..b.end as usize)
            .unwrap_or_default()
    }
}

/// The blocks a normalizer has split ([`PageContent::from_normalized`]):
/// for each block of the page, its index among those given to
/// [`neardup_text::Normalizer::normalize_blocks`], if it was one.
struct Split<'a> {
    normalized: &'a neardup_text::Normalized,
    split: Vec<Option<usize>>,
}

impl Split<'_> {
    /// The words of the page's block `i`, if it was split and its words
    /// are plain.
    fn plain_words_of(&self, i: usize) -> Option<impl Iterator<Item = &str> + '_> {
        let k = (*self.split.get(i)?)?;
        self.normalized.plain_words_of(k)
    }
}

/// A preformatted block of at least this many words is cut into pieces
/// ([`cut_pieces`]), each a block of its own for the template model.
pub(super) const PIECE_BLOCK_WORDS: usize = 64;
/// Pieces hold at least this many words...
pub(super) const PIECE_MIN_WORDS: usize = 8;
/// ...and at most this many.
pub(super) const PIECE_MAX_WORDS: usize = 48;
/// A piece ends after a word whose hash is `0 mod PIECE_MODULUS` (once it
/// has [`PIECE_MIN_WORDS`]): about 24 words a piece.
pub(super) const PIECE_MODULUS: u32 = 16;

/// Cuts a preformatted block's `words` into content-defined pieces and
/// pushes the end of each (exclusive, within `words`) to `ends`. A source
/// file or a listing often starts with a header every file of its site
/// repeats (a license, an import block) in the same block as its own
/// code: the block as a whole is on one page only, but the pieces of its
/// header are on many and are learned as template. Cut points depend only
/// on the words since the previous cut, so a run of words that two blocks
/// share (at their start, or after the first cut inside it) is cut alike
/// in both.
pub(super) fn cut_pieces(words: &[u32], ends: &mut Vec<usize>) {
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

/// Sorts `keys` (`shingle << 32 | position`) into ascending order, as
/// `sort_unstable` would: by their top bits, which are the shingle's hash
/// bits ([`crate::hashsort`]). Every analyzed page sorts one key per word.
pub(super) fn sort_by_shingle(keys: &mut Vec<u64>) {
    crate::hashsort::sort_hashed(keys);
}

/// Appends the word-3-shingles of one block's `words` (one shingle for a
/// block of one or two words). Shingles never span two blocks: which
/// blocks stand between two others depends on the template around them,
/// and a page's own blocks must be found in the kept page whatever
/// template blocks separate them there.
pub(super) fn block_shingles(words: &[u32], out: &mut Vec<u32>) {
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

/// The words of `page`'s compared top-level headings (`own`) that its
/// URL's file name spells (`file`, its [`file_words`](super::names::file_words)), less those of its
/// `title` and its URL's `place` ([`place_words`](super::names::place_words); all
/// three sorted):
/// sorted and distinct (see `OwnContent::heading_name`).
pub(super) fn heading_name(
    page: &PageContent,
    own: &[(usize, &ContentBlock)],
    title: &[u32],
    file: &[u32],
    place: &[u32],
) -> Vec<u32> {
    let headings = own.iter().filter(|(_, b)| b.h1 && b.source != 0);
    let mut out: Vec<u32> = headings
        .flat_map(|(_, b)| page.words_of(b).iter().copied())
        .filter(|w| file.binary_search(w).is_ok())
        .filter(|w| title.binary_search(w).is_err() && place.binary_search(w).is_err())
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Combines word (or shingle) hashes into one 32-bit hash, stably: a
/// multiply-xorshift chain (fixed constants, wrapping arithmetic, so the
/// same on every platform and run). Called once per word of every page,
/// so it must cost nanoseconds: a seeded streaming xxh3 per shingle
/// (which derives its secret at each start) halved analysis speed.
#[inline]
pub(super) fn fold(hashes: &[u32]) -> u32 {
    fold_with(0, hashes)
}

/// [`fold`] with a leading tag.
#[inline]
pub(super) fn fold_with(tag: u32, hashes: &[u32]) -> u32 {
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
pub(super) enum Kind {
    Text = 0,
    Heading = 1,
    Links = 2,
    Title = 3,
}

impl Kind {
    /// A heading is a heading even when it is a link (generators wrap
    /// headings in their own anchors): the same words as a link in a table
    /// of contents are another block.
    pub(super) fn of(b: &Block) -> Kind {
        if matches!(b.tag, "h1" | "h2" | "h3" | "h4" | "h5" | "h6") {
            Kind::Heading
        } else if b.link_density >= 0.5 {
            Kind::Links
        } else {
            Kind::Text
        }
    }
}
