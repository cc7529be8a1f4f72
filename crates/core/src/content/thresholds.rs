//! The content judgement's thresholds, in one place: how many shingles a
//! stored sample keeps, when a block is template, and how much of a page
//! a drop must cover, hold and name.

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
pub(super) const MIN_SAMPLED: usize = 16;

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
