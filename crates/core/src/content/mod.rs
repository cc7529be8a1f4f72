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
//!   is young, a short edge segment (`Headline | Site`) unless the URL's
//!   file name spells it ([`file_words`]: `tinyorm.fields.IntegerField —
//!   TinyORM 3.11 documentation`). A page without an article is also
//!   called by the words of its top-level heading that its URL's file
//!   name spells (`Index – B` on `genindex-B.html`, where every index
//!   page has the title `Index — TinyORM`): the kept page's title or file
//!   name must carry them. A page without an
//!   article must carry the kept page's name and the kept page its name
//!   (two API items, commands or tables of contents share most of their
//!   text and differ in what they are called); an article, whose headline
//!   print views and syndicated copies shorten or edit, half of it either
//!   way, once its site's title template is known or when the match is
//!   weak (a chapter against its manual's print view). The same item
//!   under another folder (the same [`page_name`]) is measured without its
//!   title and naming headings; a page without an article there, under a
//!   sibling folder of its site (another module, platform or version),
//!   must also say nothing in its paragraphs that the kept page does not:
//!   a sentence of its own makes it a namesake, another item
//!   (`std::ascii::EscapeDefault`, an iterator over a byte's escape, and
//!   `std::char::EscapeDefault`, over a char's; `measure::own_sentence_words`).
//!   Within a site, a main text in another
//!   language under another title is a translation ([`Coverage::OtherLanguage`]).
//! - Size: a page without an article whose content is in a kept page that
//!   says [`CONTAINED_RATIO`] times as much (an article:
//!   [`ARTICLE_CONTAINED_RATIO`]) is a part of an all-in-one page, kept and
//!   reported `contained_in` ([`Coverage::Contained`]). An article that holds
//!   a kept article under its name and says at most twice as much extends
//!   it, and is its copy ([`EXTENDS_MIN_HOLDS`]), when what it adds is
//!   around the kept text, not new sentences in its paragraphs
//!   ([`EXTENDS_MAX_REVISED`]).
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
//! Files, one concept each: `page` ([`PageContent`]), `evidence`
//! ([`Evidence`]), `templates` ([`Templates`], [`SiteTemplate`], page names
//! and folders), `names` (title and place words), `block_index`
//! ([`BlockIndex`]) and `coverage` ([`OwnContent`], [`Coverage`]: the gate
//! itself); the thresholds they share are here.
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
/// words are part of a page's content and evidence. 4: extraction widens
/// the article to a common ancestor of strong candidates only when their
/// text, not their class names, made them strong; of two title edge
/// segments as long as each other and as any, the last is an edge. 5: a
/// page's main-content size counts the link text in it (an index's
/// entries are links).
pub const ANALYSIS_VERSION: u32 = 5;

mod block_index;
mod coverage;
mod evidence;
mod measure;
mod names;
mod page;
mod templates;

pub use block_index::*;
pub use coverage::*;
pub use evidence::*;
pub use names::*;
pub use page::*;
pub use templates::*;

pub use crate::identity::EVIDENCE_SLOTS;

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

/// An article that holds at least this share of a kept article (the kept
/// article's words found here, by words when the kept page's shingles are
/// all stored, else by its sampled shingles; over the kept page's
/// main-content words) under the kept page's name *extends* it: the same
/// article with more around it (comments, a longer extraction of the same
/// story, an update's added paragraphs, a statistics table the print view
/// leaves out). It is the kept article's copy when the kept article is
/// also at least [`EXTENDS_MIN_COVERED`] of its own content.
///
/// Not higher: an edited copy that also lacks the kept copy's credit line
/// holds about 85% of it (a New York Times story after its syndicated
/// copy on neardup-dev2: 0.848), and 0.85 misses that page
/// (docs/results.md). An entry of one listing holding most of its
/// sibling (`struct.Stderr` and `fn.stderr`, 80%) is no extension
/// whatever its share: see [`file_place`].
pub const EXTENDS_MIN_HOLDS: f64 = 0.80;

/// Most words of an item's name (an API item, a command, a version, a
/// chapter): two titles of one pattern naming such items differently are
/// two items, whatever their pages share. A headline is longer; its copies
/// edit it ([`OwnContent::coverage`]).
pub const ITEM_NAME_WORDS: usize = 3;

/// The least share of an extending article's own content that must be
/// the kept article (see [`EXTENDS_MIN_HOLDS`]): an article that says
/// more than 1 / this (2.5) times as much as the kept one is another page
/// that quotes it, or an all-in-one page that includes it. Not higher: a
/// news story whose page carries a 750-word statistics table its print
/// view leaves out is 48% the print view (neardup-dev2's NDTV story).
pub const EXTENDS_MIN_COVERED: f64 = 0.4;

/// The most share of an extending article's words that may be new words
/// inside the kept article's own paragraphs (blocks of which a quarter to
/// 60% is found in the kept page, a sentence of it whole; see
/// [`EXTENDS_MIN_HOLDS`]): what a copy adds is around the kept text
/// (comments, a table, a video's transcript, a box of key facts), and its
/// edits change a word here and there; an article whose paragraphs carry
/// new sentences is another edition of the story. On neardup-dev and
/// neardup-dev2 the copies that extend a kept page have none of such
/// words; Vulture's annotated edition of an interview, a page of its own
/// there, 12%.
pub const EXTENDS_MAX_REVISED: f64 = 0.05;

#[cfg(test)]
mod tests;
