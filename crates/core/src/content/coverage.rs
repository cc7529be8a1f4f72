//! How much of a page's own content a kept page holds (`OwnContent`, `Coverage`): the content gate.

use super::evidence::EvidenceRef;
use super::measure::{found_in, own_sentence_words, shingle_count, words_covered, words_revised};
use super::names::{file_words, for_each_hashed_word, place_words, KeptUrl};
use super::page::{heading_name, ContentBlock, PageContent};
use super::templates::{file_place, folder_depth, page_name, SiteTemplate};
use super::thresholds::{
    EXTENDS_MAX_REVISED, EXTENDS_MIN_COVERED, EXTENDS_MIN_HOLDS, ITEM_NAME_WORDS, MIN_NAMED,
    MIN_SAMPLED, MIN_SHINGLES, YOUNG_MIN_COVERAGE,
};

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
        /// For the same item under another folder (`mirror`): words of its
        /// paragraphs that are sentences of its own, mostly not in the kept
        /// page. Any makes it another item of the same name (a namesake in
        /// another module), not a copy; 0 otherwise.
        own_sentences: u32,
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
                own_sentences,
                ..
            } => {
                if own_sentences > 0 {
                    return false;
                }
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
                own_sentences,
            } => format!(
                "{:.0}% of this page's own content ({words} words of its {}, {}{}) is in the kept page{}{}",
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
                },
                if own_sentences > 0 {
                    format!("; but {own_sentences} words of its paragraphs are sentences of its own, not in the kept page: another item of the same name")
                } else {
                    String::new()
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
pub(super) struct Selection<'t> {
    pub(super) template: SiteTemplate<'t>,
    pub(super) basis: Basis,
    /// The page's section (or site) is young: its template is unknown.
    pub(super) young: bool,
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
    pub(super) fn new(page: &PageContent, template: SiteTemplate<'t>) -> Selection<'t> {
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

    pub(super) fn role(&self, b: &ContentBlock) -> Role {
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
    /// The kept page's URL, with its words as they are first asked.
    pub url: &'a KeptUrl,
}

/// A page contained in a kept page that holds this many times its content
/// (estimated) or more is not that page's copy but a part of it (see
/// [`Coverage::Contained`]). Sibling pages of one template hold about as
/// much as each other; a print view or an all-in-one page holds many
/// pages. Not higher: a Sphinx index letter with a dozen entries is 3.7
/// times smaller than its site's `genindex-all.html` of 50. Measured at
/// 2.5, 3 and 4: the same verdicts on dev, dev2 and both wild sites; at 2,
/// one source file of rust-doc is kept (docs/results.md).
pub const CONTAINED_RATIO: f64 = 3.0;

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
    pub(super) basis: Basis,
    pub(super) young: bool,
    pub(super) visible: u64,
    /// Every compared block.
    pub(super) all: Compared,
    /// Indexes (in the page's blocks) of the compared blocks other than
    /// those that name the page (its title and the top-level headings
    /// holding its name), when it has both kinds: what is measured against
    /// the same item under another folder (see [`OwnContent::coverage`]).
    pub(super) unnamed: Option<Vec<usize>>,
    /// Those blocks made ready to measure, at the first such candidate.
    pub(super) unnamed_compared: std::cell::OnceCell<Compared>,
    /// The page's name: the distinct words of its title less those its
    /// section's titles commonly share, those of its URL's host and
    /// folders ([`place_words`]) and, while its site is young, a short
    /// edge segment ([`PageContent::title_edges`]). Empty when its title
    /// is template or all such words.
    pub(super) name: Vec<u32>,
    /// For a page without an article: the words of its top-level headings
    /// that its URL's file name spells and its title lacks (`Index – B`
    /// on `genindex-B.html` under its site's title `Index — TinyORM`),
    /// less its place words. Sorted and distinct. A kept page must carry
    /// them, in its title or its file name ([`OwnContent::name_known`]).
    pub(super) heading_name: Vec<u32>,
    /// Sorted, distinct word hashes of its whole title.
    pub(super) title: Vec<u32>,
    /// Its title's short edge segments' words ([`PageContent::title_edges`]).
    pub(super) title_edges: Vec<u32>,
    /// Its [`page_name`].
    pub(super) page_name: u64,
    /// Its [`file_place`]: folder and file name.
    pub(super) file: (u64, u64),
    /// How many folders its URL's path has ([`folder_depth`]).
    pub(super) folders: usize,
    /// Its main text's language ([`lang_code`]).
    pub(super) lang: u32,
    /// Words of its main content, counted as a kept page's
    /// [`Evidence::main_words`].
    pub(super) main_words: u32,
    /// Its site ([`crate::site_of`]).
    pub(super) site: String,
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
    /// For a page without an article, the words of its top-level headings
    /// that its URL's file name spells and its title lacks, lowercased, in
    /// heading order (`["b"]` for `Index – B` on `genindex-B.html`): the
    /// kept page's title or file name must carry them too.
    pub heading_name: Vec<String>,
    /// Its main text's language (ISO 639-3), `None` when unknown: a page
    /// in another language than the kept page's is not its copy.
    pub language: Option<String>,
    /// Words of its main content, link text in it included: what the
    /// size rule (`CONTAINED_RATIO`) weighs.
    pub main_words: u32,
}

/// A set of compared blocks of a page, ready to be measured.
#[derive(Clone, Debug)]
pub(super) struct Compared {
    /// Words of the blocks.
    pub(super) words: u32,
    /// The blocks, in page order: (first word's position, words).
    pub(super) spans: Vec<(u32, u32)>,
    /// Per word position of the page, the index in `shingles` of the
    /// shingle starting there (meaningful at compared shingle positions).
    pub(super) rank_at: Vec<u32>,
    /// Sorted, distinct shingles of the blocks.
    pub(super) shingles: Vec<u32>,
    /// The blocks: (hash, words), for the block-level fallback.
    pub(super) blocks: Vec<(u32, u32)>,
    /// Per block, whether it is a paragraph ([`ContentBlock::para`]).
    pub(super) paras: Vec<bool>,
}

impl Compared {
    pub(super) fn new(page: &PageContent, own: &[&ContentBlock]) -> Compared {
        let blocks: Vec<(u32, u32)> = own.iter().map(|b| (b.hash, b.words())).collect();
        let spans = own.iter().map(|b| (b.start, b.words())).collect();
        let paras = own.iter().map(|b| b.para).collect();
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
            paras,
        }
    }
}

/// The kept article's words found in the compared blocks `cmp`, whose
/// shingles the kept sample (every `m`th) holds where `hit`: by words when
/// the kept page's shingles are all stored (`m == 1`), else by the words
/// under its sampled shingles ([`words_covered`]).
fn kept_words_found(cmp: &Compared, hit: &[bool], m: u32) -> f64 {
    words_covered(&cmp.spans, &cmp.rank_at, &cmp.shingles, hit, m) * f64::from(cmp.words)
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
        let (place, file) = (place_words(url), file_words(url));
        let name: Vec<u32> = if own.iter().any(|(_, b)| b.source == 0) {
            // A short edge segment is taken for the site's name while the
            // site is young, unless the URL's file name spells it: then it
            // is the page's (`tinyorm.fields.IntegerField — TinyORM 3.11
            // documentation`).
            title
                .iter()
                .copied()
                .filter(|&w| !template.common_title_word(w))
                .filter(|w| place.binary_search(w).is_err())
                .filter(|w| {
                    !sel.young
                        || page.title_edges.binary_search(w).is_err()
                        || file.binary_search(w).is_ok()
                })
                .collect()
        } else {
            Vec::new()
        };
        // What a page without an article is called where its title is
        // its site's: the words of its headings that its file name spells.
        let heading_name = if sel.basis == Basis::Page {
            heading_name(page, &own, &title, &file, &place)
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
            file: file_place(url),
            folders: folder_depth(url),
            title,
            title_edges: page.title_edges.clone(),
            name,
            heading_name,
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
    /// page's title, `headings` the text of its top-level headings and
    /// `lang` its language, as analyzed. Read-only: for `neardup extract
    /// --json`.
    pub fn facts<'h>(
        &self,
        title: &str,
        headings: impl IntoIterator<Item = &'h str>,
        lang: &str,
    ) -> PageFacts {
        // The words of `text` among `hashes`, once each, in text order.
        let spelled = |texts: &mut dyn Iterator<Item = &str>, hashes: &[u32]| {
            let mut out: Vec<String> = Vec::new();
            for text in texts {
                for_each_hashed_word(text, |w, hash| {
                    if hashes.binary_search(&hash).is_ok() && !out.iter().any(|n| n == w) {
                        out.push(w.to_owned());
                    }
                });
            }
            out
        };
        PageFacts {
            basis: self.basis,
            name: spelled(&mut std::iter::once(title), &self.name),
            heading_name: spelled(&mut headings.into_iter(), &self.heading_name),
            language: (self.lang != 0).then(|| lang.to_owned()),
            main_words: self.main_words,
        }
    }

    /// Share of a kept page's name (its title `kept_title` less its site's
    /// common title words and `kept_place`, the [`place_words`] of its
    /// URL) in this page's title; `None` when the kept page has no name.
    pub(super) fn holds_name_of(
        &self,
        kept_title: &[u32],
        kept_url: &KeptUrl,
        template: SiteTemplate<'_>,
    ) -> Option<f64> {
        let kept_place = kept_url.place();
        // As for this page's name (see [`OwnContent::new`]).
        let kept_file = if self.young { kept_url.file() } else { &[] };
        let name: Vec<u32> = kept_title
            .iter()
            .copied()
            .filter(|&w| !template.common_title_word(w))
            .filter(|w| kept_place.binary_search(w).is_err())
            // A site's name around both titles, while its site is young.
            .filter(|w| {
                !self.young
                    || self.title_edges.binary_search(w).is_err()
                    || kept_file.binary_search(w).is_ok()
            })
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
    pub(super) fn named(&self, kept_title: &[u32]) -> f64 {
        if self.name.is_empty() {
            return 1.0;
        }
        self.name
            .iter()
            .filter(|w| kept_title.binary_search(w).is_ok())
            .count() as f64
            / self.name.len() as f64
    }

    /// The share of a kept article found in this article (`found`, the
    /// kept article's words found here, over the kept page's main
    /// content) when this article may extend it (see
    /// [`EXTENDS_MIN_HOLDS`]): it says more than the kept one (at most
    /// 2.5 times as much: `covered`, the share of it that is the kept
    /// article, at least [`EXTENDS_MIN_COVERED`]) and the two name each
    /// other (at least [`MIN_NAMED`] of each name in the other's title,
    /// `named` being this page's share): a page holding a chapter under
    /// its book's title is not that chapter extended; and what it adds is
    /// not new sentences inside the kept article's paragraphs (`revised`,
    /// the share of its words that are, at most [`EXTENDS_MAX_REVISED`]).
    /// `holds` is the kept page's name share in this page's title
    /// ([`OwnContent::holds_name_of`]).
    pub(super) fn extends(
        &self,
        covered: f64,
        found: f64,
        kept: EvidenceRef<'_>,
        named: f64,
        holds: impl FnOnce() -> Option<f64>,
        revised: impl FnOnce() -> f64,
    ) -> Option<f64> {
        if !(EXTENDS_MIN_COVERED..YOUNG_MIN_COVERAGE).contains(&covered)
            || kept.main_words == 0
            || self.name.is_empty()
            || named < MIN_NAMED
        {
            return None;
        }
        let share = found / f64::from(kept.main_words);
        if share < EXTENDS_MIN_HOLDS || !holds().is_some_and(|h| h >= MIN_NAMED) {
            return None;
        }
        (revised() <= EXTENDS_MAX_REVISED).then_some(share)
    }

    /// Whether this page carries the name of the kept page (see
    /// [`OwnContent::coverage`]), with the share of its name in the kept
    /// page's title; `holds` is the kept page's name share in this page's
    /// title ([`OwnContent::holds_name_of`]).
    pub(super) fn name_known(
        &self,
        kept: EvidenceRef<'_>,
        kept_url: &KeptUrl,
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
            // `background-set`), and the name its headings and file name
            // agree on carried by the kept page's title or file name
            // (`genindex-A.html` does not carry `Index – B`).
            Basis::Page => {
                named >= 1.0
                    && holds().is_none_or(|h| h >= 1.0)
                    && (self.heading_name.is_empty() || {
                        let kept_file = kept_url.file();
                        self.heading_name.iter().all(|w| {
                            kept.title.binary_search(w).is_ok()
                                || kept_file.binary_search(w).is_ok()
                        })
                    })
            }
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
        let (kept, page_name, kept_names) = (kept.evidence, kept.page_name, kept.url);
        let kept_url = kept_names.as_str();
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
        let by_words = basis == Basis::Article && m == 1 && !strict;
        let covered = if by_words {
            words_covered(&cmp.spans, &cmp.rank_at, &cmp.shingles, &hit, 1)
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
        // An article is weighed at least by its compared words (the
        // blocks outside its site's template, wherever extraction put
        // them).
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
        let holds =
            || *kept_holds.get_or_init(|| self.holds_name_of(kept.title, kept_names, template));
        let (named, known) = self.name_known(kept, kept_names, weak, holds);
        if !known {
            return Coverage::OtherName {
                named,
                words: self.name.len() as u32,
            };
        }
        let holds = (basis == Basis::Article && !is_sibling(self, kept_url, mirror))
            .then(|| {
                // Measured by words above: the same count.
                let found = if by_words {
                    covered * f64::from(words)
                } else {
                    kept_words_found(cmp, &hit, m)
                };
                let revised = || words_revised(&cmp.spans, &cmp.rank_at, &cmp.shingles, &hit, m);
                self.extends(covered, found, kept, named, holds, revised)
            })
            .flatten();
        let own_sentences = if mirror {
            self.own_sentences(cmp, &hit, m, kept_url)
        } else {
            0
        };
        Coverage::Measured {
            covered,
            basis,
            words,
            young,
            mirror,
            holds,
            own_sentences,
        }
    }
}

impl OwnContent {
    /// For a page without an article measured as the same item under
    /// another folder (`cmp`, against a kept page at `kept_url` sampled
    /// every `m`th shingle, found where `hit`): the words of its paragraphs
    /// that are sentences of its own ([`own_sentence_words`]), when the
    /// kept page is under a sibling folder of its site (another module,
    /// platform or version, whose sentences must be the kept page's); 0
    /// otherwise. A print or AMP view is a folder more, and its copy of an
    /// article edits sentences.
    fn own_sentences(&self, cmp: &Compared, hit: &[bool], m: u32, kept_url: &str) -> u32 {
        if self.basis != Basis::Page || !under_sibling_folder(self, kept_url) {
            return 0;
        }
        own_sentence_words(&cmp.spans, &cmp.rank_at, &cmp.shingles, hit, m, &cmp.paras)
    }
}

/// Whether `own` (a page whose compared blocks are the kept page's
/// item under another folder when `mirror`) is a sibling of the kept page
/// at `kept_url`, which it cannot extend (see [`EXTENDS_MIN_HOLDS`]). On
/// one site, under a sibling folder (as many folders deep), the same page
/// name is another variant (a platform, a version): an article there that
/// says more than the kept one is that variant's, not the same story
/// extended. In one folder, another file name is another entry of its
/// listing (`struct.Stderr`, `fn.stderr`). A print or AMP view is a folder
/// more or less, and may extend; so may another site's copy.
fn is_sibling(own: &OwnContent, kept_url: &str, mirror: bool) -> bool {
    (mirror && under_sibling_folder(own, kept_url)) || {
        let (folder, file) = file_place(kept_url);
        folder == own.file.0 && file != own.file.1
    }
}

/// Whether the kept page at `kept_url` is on `own`'s site under a folder
/// as many folders deep (another module, platform, version or language
/// folder, when the two have the same page name); a print or AMP view is a
/// folder more or less.
fn under_sibling_folder(own: &OwnContent, kept_url: &str) -> bool {
    folder_depth(kept_url) == own.folders && crate::canonical::site_of(kept_url) == own.site
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
        url: &KeptUrl::new(""),
    };
    OwnContent::new(page, template, "").coverage(page, kept, template, strict)
}
