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
pub(crate) mod thresholds;

pub use block_index::*;
pub use coverage::*;
pub use evidence::*;
pub use names::*;
pub use page::*;
pub use templates::*;

pub use crate::identity::EVIDENCE_SLOTS;

#[cfg(test)]
mod tests;
