//! Verdicts on pages written in the style of real generators (issue 28's
//! classes): rustdoc items, mandoc manual pages, Doxygen structs, Sphinx
//! class, contents, index and translated pages, release notes, an mdBook
//! and its print page, news articles and their copies. Each fixture is a
//! small site under `testdata/generators/<site>/` (see its README), served
//! under its own host; a test first shows the checker enough of the site's
//! other pages for its template and title words to be learnt where the
//! real case has them, then asserts the verdict on the pair. A site's
//! first pages (`*_on_a_new_site`) and the offline pair judgement
//! (`Deduper::compare`) are tested on the same pairs.

use neardup::Config;
use neardup::Deduper;
use neardup::Verdict;
use neardup::VerdictKind;

/// One fixture site: its folder under `testdata/generators/` and the host
/// its pages are checked under.
#[derive(Clone, Copy)]
struct Site {
    dir: &'static str,
    host: &'static str,
}

const RUSTDOC: Site = Site {
    dir: "rustdoc",
    host: "doc.rust-lang.example",
};

const MAN: Site = Site {
    dir: "man",
    host: "manpages.debian.example",
};

const SPHINX: Site = Site {
    dir: "sphinx",
    host: "tinyorm.readthedocs.example",
};

const GAZETTE: Site = Site {
    dir: "news/gazette",
    host: "www.riversidegazette.example",
};

const HERALD: Site = Site {
    dir: "news/herald",
    host: "www.valleyherald.example",
};

const MDBOOK: Site = Site {
    dir: "mdbook",
    host: "rover.example",
};

const DOXYGEN: Site = Site {
    dir: "doxygen",
    host: "libelfin.example",
};

impl Site {
    fn url(self, path: &str) -> String {
        format!("http://{}/{path}", self.host)
    }

    fn body(self, path: &str) -> Vec<u8> {
        let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/generators")
            .join(self.dir)
            .join(path);
        std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
    }

    /// Checks the page at `path` of this site under its own URL.
    fn check(self, d: &mut Deduper, path: &str) -> Verdict {
        self.check_as(d, path, path)
    }

    /// Checks the page at `path` of this site under the URL of `as_path`.
    fn check_as(self, d: &mut Deduper, path: &str, as_path: &str) -> Verdict {
        d.check(&self.url(as_path), &self.body(path), Some("text/html"))
            .expect("in-memory check")
    }

    /// Checks each page, asserting that each is kept: the site's other
    /// pages, shown first so its template and title words are known.
    fn seed(self, d: &mut Deduper, paths: &[&str]) {
        for p in paths {
            let v = self.check(d, p);
            assert_eq!(v.kind, VerdictKind::Unique, "seed {p}: {v:?}");
        }
    }
}

/// A verdict in one line, for assertion messages.
fn show(v: &Verdict) -> String {
    let m = v.matched.as_ref().or(v.contained_in.as_ref());
    format!(
        "{:?} matched={:?} contained_in={:?} reason={:?} warnings={:?}",
        v.kind,
        v.matched.as_ref().map(|m| &m.url),
        v.contained_in.as_ref().map(|m| &m.url),
        m.map(|m| &m.reason),
        v.warnings
    )
}

fn fresh() -> Deduper {
    Deduper::new(Config::default()).expect("default config")
}

// --- rustdoc: sibling intrinsics -------------------------------------------

const X86_64: &str = "core/arch/x86_64";

/// Other intrinsics of the module: the same rustdoc template, other items.
const RUSTDOC_SEED: [&str; 10] = [
    "core/arch/x86_64/fn._mm512_sad_epu8.html",
    "core/arch/x86_64/fn._mm512_avg_epu8.html",
    "core/arch/x86_64/fn._mm512_abs_epi8.html",
    "core/arch/x86_64/fn._mm512_adds_epu8.html",
    "core/arch/x86_64/fn._mm512_subs_epu8.html",
    "core/arch/x86_64/fn._mm512_shuffle_epi8.html",
    "core/arch/x86_64/fn._mm512_packus_epi16.html",
    "core/arch/x86_64/fn._mm512_movepi8_mask.html",
    "core/arch/x86_64/fn._mm512_cmpeq_epi8_mask.html",
    "core/arch/x86_64/fn._mm512_maddubs_epi16.html",
];

/// `_mm256_dbsad_epu8` and `_mm512_dbsad_epu8` have the same long
/// description; they differ in their names, signatures and target
/// features. Neither is a copy of the other, nor is the masked variant,
/// whose description adds one clause.
#[test]
fn rustdoc_sibling_intrinsics_are_distinct() {
    let mut d = fresh();
    RUSTDOC.seed(&mut d, &RUSTDOC_SEED);
    for item in [
        "fn._mm256_dbsad_epu8.html",
        "fn._mm512_dbsad_epu8.html",
        "fn._mm512_mask_dbsad_epu8.html",
    ] {
        let v = RUSTDOC.check(&mut d, &format!("{X86_64}/{item}"));
        assert_eq!(v.kind, VerdictKind::Unique, "{item}: {}", show(&v));
    }
    // The same intrinsic re-exported under `core::arch::x86` is a copy.
    let v = RUSTDOC.check(&mut d, "core/arch/x86/fn._mm512_dbsad_epu8.html");
    assert!(v.kind.is_drop(), "{}", show(&v));
    assert_eq!(
        v.matched.map(|m| m.url),
        Some(RUSTDOC.url(&format!("{X86_64}/fn._mm512_dbsad_epu8.html")))
    );
}

/// The same siblings as a site's first pages (its template and title
/// words unknown): still distinct.
#[test]
fn rustdoc_sibling_intrinsics_are_distinct_on_a_new_site() {
    let mut d = fresh();
    for item in ["fn._mm256_dbsad_epu8.html", "fn._mm512_dbsad_epu8.html"] {
        let v = RUSTDOC.check(&mut d, &format!("{X86_64}/{item}"));
        assert_eq!(v.kind, VerdictKind::Unique, "{item}: {}", show(&v));
    }
}

/// Other items of `std::char` and `std::ascii`: functions, constants, an
/// enum.
const STD_SEED: [&str; 9] = [
    "std/char/fn.from_u32.html",
    "std/char/fn.from_digit.html",
    "std/char/fn.decode_utf16.html",
    "std/char/fn.from_u32_unchecked.html",
    "std/char/constant.MAX.html",
    "std/char/constant.REPLACEMENT_CHARACTER.html",
    "std/char/constant.UNICODE_VERSION.html",
    "std/ascii/fn.escape_default.html",
    "std/ascii/enum.Char.html",
];

/// Iterator structs: each page is a sentence or two of its own and some
/// seventy trait methods (Clone, Debug, Display, the iterator traits,
/// auto and blanket impls) listed alike on every one. `ToLowercase` and
/// `ToUppercase` differ in one word of their description.
const ITER_STRUCTS: [&str; 3] = [
    "std/char/struct.ToLowercase.html",
    "std/char/struct.ToUppercase.html",
    "std/char/struct.EscapeDefault.html",
];

#[test]
fn rustdoc_iterator_structs_sharing_their_trait_impls_are_distinct() {
    let mut d = fresh();
    RUSTDOC.seed(&mut d, &STD_SEED);
    for p in ITER_STRUCTS {
        let v = RUSTDOC.check(&mut d, p);
        assert_eq!(v.kind, VerdictKind::Unique, "{p}: {}", show(&v));
    }
}

/// The same structs as a site's first pages.
#[test]
fn rustdoc_iterator_structs_are_distinct_on_a_new_site() {
    let mut d = fresh();
    for p in ITER_STRUCTS {
        let v = RUSTDOC.check(&mut d, p);
        assert_eq!(v.kind, VerdictKind::Unique, "{p}: {}", show(&v));
    }
}

/// `std::char::EscapeDefault` (an iterator of `char`s) and
/// `std::ascii::EscapeDefault` (of bytes) share their page name and their
/// trait listings, but are two types with their own descriptions: not the
/// same item under another folder.
#[test]
fn rustdoc_structs_of_one_name_in_two_modules_are_distinct() {
    let mut d = fresh();
    RUSTDOC.seed(&mut d, &STD_SEED);
    RUSTDOC.seed(&mut d, &ITER_STRUCTS);
    let v = RUSTDOC.check(&mut d, "std/ascii/struct.EscapeDefault.html");
    assert_eq!(v.kind, VerdictKind::Unique, "{}", show(&v));
}

// --- Doxygen: 32-bit and 64-bit variants of one struct --------------------

/// Other struct reference pages of the library.
const DOXYGEN_SEED: [&str; 9] = [
    "libelfin/struct_elf32__shdr.html",
    "libelfin/struct_elf32__sym.html",
    "libelfin/struct_elf32__rel.html",
    "libelfin/struct_elf32__rela.html",
    "libelfin/struct_elf32__dyn.html",
    "libelfin/struct_elf32__nhdr.html",
    "libelfin/struct_elf32__chdr.html",
    "libelfin/struct_elf32__verdef.html",
    "libelfin/struct_elf32__auxv__t.html",
];

/// `Elf32_Ehdr` and `Elf64_Ehdr`: the same fourteen fields with the same
/// descriptions; their names, their one-line briefs and their field types
/// (`Elf32_Addr` / `Elf64_Addr`, ...) differ. Two structs, two pages.
const ELF_HEADERS: [&str; 2] = [
    "libelfin/struct_elf32__ehdr.html",
    "libelfin/struct_elf64__ehdr.html",
];

#[test]
fn doxygen_32_and_64_bit_structs_are_distinct() {
    let mut d = fresh();
    DOXYGEN.seed(&mut d, &DOXYGEN_SEED);
    for p in ELF_HEADERS {
        let v = DOXYGEN.check(&mut d, p);
        assert_eq!(v.kind, VerdictKind::Unique, "{p}: {}", show(&v));
    }
}

/// The same pair as a site's first pages.
#[test]
fn doxygen_32_and_64_bit_structs_are_distinct_on_a_new_site() {
    let mut d = fresh();
    for p in ELF_HEADERS {
        let v = DOXYGEN.check(&mut d, p);
        assert_eq!(v.kind, VerdictKind::Unique, "{p}: {}", show(&v));
    }
}

// --- mandoc: two commands sharing their global options ----------------------

const MAN_SEED: [&str; 9] = [
    "trixie/man1/rsnap.1.html",
    "trixie/man1/wcount.1.html",
    "trixie/man1/tzconv.1.html",
    "trixie/man1/linkcheck.1.html",
    "trixie/man1/pwgen-easy.1.html",
    "trixie/man1/imgshrink.1.html",
    "trixie/man1/csvcut2.1.html",
    "trixie/man1/mdtoc.1.html",
    "trixie/man1/netwait.1.html",
];

/// `rsnap-backup(1)` and `rsnap-restore(1)` list the same twenty-four global
/// options, environment and exit status; their NAME, SYNOPSIS,
/// DESCRIPTION, own options and examples differ. Two commands, two pages.
#[test]
fn man_pages_sharing_their_options_are_distinct() {
    let mut d = fresh();
    MAN.seed(&mut d, &MAN_SEED);
    let backup = MAN.check(&mut d, "trixie/man1/rsnap-backup.1.html");
    assert_eq!(backup.kind, VerdictKind::Unique, "{}", show(&backup));
    let restore = MAN.check(&mut d, "trixie/man1/rsnap-restore.1.html");
    assert_eq!(restore.kind, VerdictKind::Unique, "{}", show(&restore));
    // The same page under another release's folder is a copy.
    let v = MAN.check_as(
        &mut d,
        "trixie/man1/rsnap-restore.1.html",
        "testing/man1/rsnap-restore.1.html",
    );
    assert_copy_of(&v, MAN.url("trixie/man1/rsnap-restore.1.html"));
}

/// The same pair as a site's first pages.
#[test]
fn man_pages_sharing_their_options_are_distinct_on_a_new_site() {
    let mut d = fresh();
    let backup = MAN.check(&mut d, "trixie/man1/rsnap-backup.1.html");
    assert_eq!(backup.kind, VerdictKind::Unique, "{}", show(&backup));
    let restore = MAN.check(&mut d, "trixie/man1/rsnap-restore.1.html");
    assert_eq!(restore.kind, VerdictKind::Unique, "{}", show(&restore));
}

// --- Sphinx (Read the Docs theme): classes, guide parts, release notes ------

/// Pages of the Sphinx site other than the pairs under test: API classes
/// of other modules, guide chapters and earlier release notes.
const SPHINX_SEED: [&str; 17] = [
    "en/stable/api/tinyorm.Database.html",
    "en/stable/api/tinyorm.Session.html",
    "en/stable/api/tinyorm.Query.html",
    "en/stable/api/tinyorm.Model.html",
    "en/stable/api/tinyorm.migrations.Migration.html",
    "en/stable/api/tinyorm.exceptions.ValidationError.html",
    "en/stable/api/tinyorm.signals.Signal.html",
    "en/stable/guide/installing.html",
    "en/stable/guide/first-model.html",
    "en/stable/guide/sessions.html",
    "en/stable/guide/queries.html",
    "en/stable/guide/migrations.html",
    "en/stable/releases/3.11.0.html",
    "en/stable/releases/3.11.1.html",
    "en/stable/releases/3.11.2.html",
    "en/stable/releases/3.11.3.html",
    "en/stable/releases/3.10.12.html",
];

/// Checks each page of the Sphinx site (after its seed when `seeded`) and
/// asserts that each is kept.
fn sphinx_all_kept(seeded: bool, pages: &[&str]) {
    let mut d = fresh();
    if seeded {
        SPHINX.seed(&mut d, &SPHINX_SEED);
    }
    for p in pages {
        let v = SPHINX.check(&mut d, p);
        assert_eq!(v.kind, VerdictKind::Unique, "{p}: {}", show(&v));
    }
}

const FIELD_CLASSES: [&str; 2] = [
    "en/stable/api/tinyorm.fields.IntegerField.html",
    "en/stable/api/tinyorm.fields.BigIntegerField.html",
];

/// Two autosummary class pages built with `:inherited-members:`: each
/// class's own part (signature, bases, a docstring, one method) is short,
/// the thirteen methods inherited from `Field` are documented in full on
/// both. Two classes, two pages.
#[test]
fn class_pages_sharing_their_inherited_methods_are_distinct() {
    sphinx_all_kept(true, &FIELD_CLASSES);
}

/// The same pair as a site's first pages. Their titles' short first
/// segment (`tinyorm.fields.IntegerField`) is spelled by their file names:
/// it names the page, not the site, though the site is young.
#[test]
fn class_pages_sharing_their_inherited_methods_are_distinct_on_a_new_site() {
    sphinx_all_kept(false, &FIELD_CLASSES);
}

/// The same class page under another version's folder (`latest` built
/// from the same source) is a copy of the first.
#[test]
fn a_class_page_under_another_version_folder_is_a_copy() {
    let mut d = fresh();
    SPHINX.seed(&mut d, &SPHINX_SEED);
    let page = FIELD_CLASSES[0];
    SPHINX.check(&mut d, page);
    let v = SPHINX.check_as(&mut d, page, &page.replace("/stable/", "/latest/"));
    assert!(v.kind.is_drop(), "{}", show(&v));
    assert_eq!(v.matched.map(|m| m.url), Some(SPHINX.url(page)));
}

const GUIDE_PARTS: [&str; 3] = [
    "en/stable/guide/part-1.html",
    "en/stable/guide/part-2.html",
    "en/stable/guide/part-3.html",
];

/// The guide's parts are tables of contents: the same introductory
/// paragraph (how to read a part), then each its own list of chapters and
/// their sections. Three parts, three pages.
#[test]
fn tables_of_contents_sharing_their_intro_are_distinct() {
    sphinx_all_kept(true, &GUIDE_PARTS);
}

/// The same parts as a site's first pages: their intros are their
/// articles, alike, but their names (`Part II: Querying`, the title less
/// the site's name after it) are two parts of one pattern.
#[test]
fn tables_of_contents_sharing_their_intro_are_distinct_on_a_new_site() {
    sphinx_all_kept(false, &GUIDE_PARTS);
}

const RELEASE_NOTES: [&str; 3] = [
    "en/stable/releases/3.11.4.html",
    "en/stable/releases/3.10.13.html",
    "en/stable/releases/3.11.5.html",
];

/// Release notes of 3.11.4 and 3.10.13 (published the same day) and of
/// 3.11.5 (a re-release that repeats 3.11.4's security fixes) share three
/// long security sections; their versions, dates, introductions and
/// bug fixes differ. Three releases, three pages.
#[test]
fn release_notes_sharing_a_security_section_are_distinct() {
    sphinx_all_kept(true, &RELEASE_NOTES);
}

/// The same notes as a site's first pages.
#[test]
fn release_notes_sharing_a_security_section_are_distinct_on_a_new_site() {
    sphinx_all_kept(false, &RELEASE_NOTES);
}

/// Sphinx's split index: one page per letter, titled "Index" alike, each
/// with the same jump box of letters; the letters of a small API have one
/// to four entries.
const INDEX_LETTERS: [&str; 7] = [
    "en/stable/genindex-A.html",
    "en/stable/genindex-B.html",
    "en/stable/genindex-E.html",
    "en/stable/genindex-I.html",
    "en/stable/genindex-O.html",
    "en/stable/genindex-Q.html",
    "en/stable/genindex-U.html",
];

/// Tiny index pages (a heading, the jump box, one to four entries) are too
/// short to measure: none is a copy of another.
#[test]
fn tiny_index_pages_are_distinct() {
    sphinx_all_kept(true, &INDEX_LETTERS);
}

/// The same tiny pages as a site's first pages.
#[test]
fn tiny_index_pages_are_distinct_on_a_new_site() {
    sphinx_all_kept(false, &INDEX_LETTERS);
}

/// `genindex-all.html` holds every letter's entries. A letter's page is
/// a part of it, not its copy: kept when it comes after the full index.
#[test]
fn index_letters_after_the_full_index_are_kept() {
    let mut pages = vec![FULL_INDEX];
    pages.extend(INDEX_LETTERS);
    pages.extend(INDEX_LETTERS_LONGER);
    sphinx_all_kept(true, &pages);
}

/// The letters first, then the all-in-one page: it holds far more than any
/// of them, and is kept, contained in none.
#[test]
fn the_full_index_after_its_letters_is_kept() {
    let mut d = fresh();
    SPHINX.seed(&mut d, &SPHINX_SEED);
    SPHINX.seed(&mut d, &INDEX_LETTERS);
    SPHINX.seed(&mut d, &INDEX_LETTERS_LONGER);
    let all = SPHINX.check(&mut d, FULL_INDEX);
    assert_eq!(all.kind, VerdictKind::Unique, "{}", show(&all));
    assert!(all.contained_in.is_none(), "{}", show(&all));
}

const FULL_INDEX: &str = "en/stable/genindex-all.html";

/// Letters with enough entries (nine to twelve) to be measured.
const INDEX_LETTERS_LONGER: [&str; 2] = ["en/stable/genindex-C.html", "en/stable/genindex-V.html"];

/// A letter's page that can be measured, after the full index, names it as
/// the page it is `contained_in`.
#[test]
fn an_index_letter_is_contained_in_the_full_index() {
    let mut d = fresh();
    SPHINX.seed(&mut d, &SPHINX_SEED);
    SPHINX.seed(&mut d, &[FULL_INDEX]);
    for p in INDEX_LETTERS_LONGER {
        let v = SPHINX.check(&mut d, p);
        assert_eq!(v.kind, VerdictKind::Unique, "{p}: {}", show(&v));
        let c = v.contained_in.as_ref().map(|c| c.url.clone());
        assert_eq!(c, Some(SPHINX.url(FULL_INDEX)), "{p}: {}", show(&v));
    }
}

/// The French translation's chapters that the English seed also has.
const SPHINX_FR_SEED: [&str; 5] = [
    "fr/stable/guide/installing.html",
    "fr/stable/guide/first-model.html",
    "fr/stable/guide/sessions.html",
    "fr/stable/guide/queries.html",
    "fr/stable/guide/migrations.html",
];

const AGGREGATION: &str = "en/stable/guide/aggregation.html";

/// A chapter whose four code listings (about half its words) every
/// translation keeps as they are: its French translation, in full
/// (`fr/stable`) or in part (`fr/latest`, where the last two sections
/// still fall back to English), is another page, whichever comes first.
#[test]
fn translations_sharing_code_listings_are_distinct() {
    for translation in [
        "fr/stable/guide/aggregation.html",
        "fr/latest/guide/aggregation.html",
    ] {
        for pair in [[AGGREGATION, translation], [translation, AGGREGATION]] {
            let mut d = fresh();
            SPHINX.seed(&mut d, &SPHINX_SEED);
            SPHINX.seed(&mut d, &SPHINX_FR_SEED);
            for p in pair {
                let v = SPHINX.check(&mut d, p);
                assert_eq!(v.kind, VerdictKind::Unique, "{pair:?}: {p}: {}", show(&v));
            }
        }
    }
}

/// The same pages as a site's first pages.
#[test]
fn translations_sharing_code_listings_are_distinct_on_a_new_site() {
    sphinx_all_kept(false, &[AGGREGATION, "fr/stable/guide/aggregation.html"]);
    sphinx_all_kept(false, &[AGGREGATION, "fr/latest/guide/aggregation.html"]);
}

/// The development version's French pages are not translated yet: the
/// English chapter under the French site's chrome is a copy.
#[test]
fn an_untranslated_copy_under_another_language_folder_is_a_copy() {
    let mut d = fresh();
    SPHINX.seed(&mut d, &SPHINX_SEED);
    SPHINX.seed(&mut d, &SPHINX_FR_SEED);
    SPHINX.seed(&mut d, &[AGGREGATION]);
    let v = SPHINX.check(&mut d, "fr/dev/guide/aggregation.html");
    assert_copy_of(&v, SPHINX.url(AGGREGATION));
}

// --- mdBook: chapters and the print page --------------------------------

/// The book's chapters in its order; `print.html` holds them all.
const BOOK_CHAPTERS: [&str; 10] = [
    "handbook/introduction.html",
    "handbook/installing.html",
    "handbook/first-site.html",
    "handbook/configuration.html",
    "handbook/environments.html",
    "handbook/hooks.html",
    "handbook/rollback.html",
    "handbook/commands.html",
    "handbook/internals.html",
    "handbook/backends.html",
];

const BOOK_PRINT: &str = "handbook/print.html";

/// A crawl finds `print.html` from the first chapter's menu bar, before
/// the other chapters. Each chapter is in it, but a chapter is not a copy
/// of the book's print view: each is kept, and its verdict names the print
/// page (as `contained_in`, or in a warning saying why it is no copy).
#[test]
fn chapters_after_the_print_page_are_kept() {
    let mut d = fresh();
    MDBOOK.seed(&mut d, &BOOK_CHAPTERS[..1]);
    MDBOOK.seed(&mut d, &[BOOK_PRINT]);
    for p in &BOOK_CHAPTERS[1..] {
        let v = MDBOOK.check(&mut d, p);
        assert_eq!(v.kind, VerdictKind::Unique, "{p}: {}", show(&v));
        let print = MDBOOK.url(BOOK_PRINT);
        let named = v.contained_in.as_ref().is_some_and(|c| c.url == print)
            || v.warnings.iter().any(|w| w.contains(&print));
        assert!(named, "{p}: {}", show(&v));
    }
}

/// Every chapter first, then the print page: it holds far more than any
/// of them, and is kept, contained in none.
#[test]
fn the_print_page_after_its_chapters_is_kept() {
    let mut d = fresh();
    MDBOOK.seed(&mut d, &BOOK_CHAPTERS);
    let v = MDBOOK.check(&mut d, BOOK_PRINT);
    assert_eq!(v.kind, VerdictKind::Unique, "{}", show(&v));
    assert!(v.contained_in.is_none(), "{}", show(&v));
}

// --- news articles: an edited copy, a syndicated copy ----------------------

/// The Gazette's other articles of the month (`Headline | Riverside
/// Gazette`, one template).
const GAZETTE_SEED: [&str; 10] = [
    "news/2026/03/02/library-opening-hours.html",
    "news/2026/03/03/ferry-timetable.html",
    "news/2026/03/04/school-meals.html",
    "news/2026/03/05/flood-defences.html",
    "news/2026/03/06/bus-route-43.html",
    "news/2026/03/09/market-hall.html",
    "news/2026/03/10/cycle-lane.html",
    "news/2026/03/11/choir-competition.html",
    "news/2026/03/12/allotments.html",
    "news/2026/03/13/swimming-pool.html",
];

/// The Herald's own stories (`Headline | Valley Herald`, its own chrome).
const HERALD_SEED: [&str; 10] = [
    "story/quarry-plan",
    "story/farm-shop",
    "story/rail-works",
    "story/mountain-rescue",
    "story/village-hall",
    "story/broadband",
    "story/reservoir-level",
    "story/eisteddfod",
    "story/post-office",
    "story/bridge-repairs",
];

/// The article under test on the Gazette.
const ORIGINAL: &str = "news/2026/03/16/solar-farm-approved.html";
/// The Gazette's edited copy of it, a day later at another URL: eight of
/// its 326 words changed, an "Updated" date, an advert inside the text.
const EDITED: &str = "news/2026/03/17/council-approves-solar-farm.html";
/// The Herald's syndicated copy: the same text under the Herald's title
/// suffix and chrome, with a credit line.
const SYNDICATED: &str = "story/council-approves-solar-farm-on-former-airfield";

/// The Herald's copy under a shortened headline ("Council approves solar
/// farm"): every word of its headline is in the original's.
const SHORTENED: &str = "story/council-approves-solar-farm";

/// The Herald's copy in its comment-enabled template: a photo and caption,
/// a related-stories box in the text, the author's biography and four
/// readers' comments.
const WITH_COMMENTS: &str = "story/solar-farm-airfield-approved";

/// The Gazette's print view of the article: no chrome, the headline alone
/// as its title.
const PRINT: &str = "print/news/2026/03/16/solar-farm-approved.html";

/// The Gazette's annotated edition of the article a week later, under
/// the same headline in another date folder: each of its eight paragraphs
/// with a sentence or two of background run into it (257 new words to
/// the article's 326).
const ANNOTATED: &str = "news/2026/03/24/solar-farm-approved.html";

/// Checks `first` then `second` (each a site and a path) after `seeds`,
/// asserts `first` kept and returns the verdict on `second`.
fn copy_after(seeds: &[(Site, &[&str])], first: (Site, &str), second: (Site, &str)) -> Verdict {
    let mut d = fresh();
    for (site, paths) in seeds {
        site.seed(&mut d, paths);
    }
    let v = first.0.check(&mut d, first.1);
    assert_eq!(v.kind, VerdictKind::Unique, "{}: {}", first.1, show(&v));
    second.0.check(&mut d, second.1)
}

/// Asserts that `v` drops its page as a copy of `kept`.
fn assert_copy_of(v: &Verdict, kept: String) {
    assert!(v.kind.is_drop(), "{}", show(v));
    assert_eq!(
        v.matched.as_ref().map(|m| &m.url),
        Some(&kept),
        "{}",
        show(v)
    );
}

#[test]
fn an_edited_copy_with_a_new_date_is_a_near_duplicate() {
    let seeds: [(Site, &[&str]); 1] = [(GAZETTE, &GAZETTE_SEED)];
    let v = copy_after(&seeds, (GAZETTE, ORIGINAL), (GAZETTE, EDITED));
    assert_eq!(v.kind, VerdictKind::NearDuplicate, "{}", show(&v));
    assert_copy_of(&v, GAZETTE.url(ORIGINAL));
    // The edited copy first: the original that arrives after it is the
    // copy now.
    let v = copy_after(&seeds, (GAZETTE, EDITED), (GAZETTE, ORIGINAL));
    assert_eq!(v.kind, VerdictKind::NearDuplicate, "{}", show(&v));
    assert_copy_of(&v, GAZETTE.url(EDITED));
}

/// The annotated edition holds the whole article under its name, and the
/// article is more than 40% of it, but what it adds is inside the
/// article's paragraphs: another edition, kept, where an edited copy (a
/// word changed here and there, an advert around the text) is dropped.
/// The article after its annotated edition is wholly in it under its
/// name: a copy.
#[test]
fn an_annotated_edition_is_not_a_copy_of_the_article() {
    let seeded: [(Site, &[&str]); 1] = [(GAZETTE, &GAZETTE_SEED)];
    for seeds in [&seeded[..], &[]] {
        let v = copy_after(seeds, (GAZETTE, ORIGINAL), (GAZETTE, ANNOTATED));
        assert_eq!(v.kind, VerdictKind::Unique, "{}", show(&v));
        let v = copy_after(seeds, (GAZETTE, ANNOTATED), (GAZETTE, ORIGINAL));
        assert_copy_of(&v, GAZETTE.url(ANNOTATED));
    }
}

#[test]
fn an_edited_copy_is_a_near_duplicate_on_a_new_site() {
    let v = copy_after(&[], (GAZETTE, ORIGINAL), (GAZETTE, EDITED));
    assert_copy_of(&v, GAZETTE.url(ORIGINAL));
    let v = copy_after(&[], (GAZETTE, EDITED), (GAZETTE, ORIGINAL));
    assert_copy_of(&v, GAZETTE.url(EDITED));
}

/// The Herald republishes the Gazette's article under its own title
/// suffix, both sites' title templates known: a copy, whichever of the two
/// is crawled first.
#[test]
fn a_syndicated_copy_under_another_title_suffix_is_a_copy() {
    let seeds: [(Site, &[&str]); 2] = [(GAZETTE, &GAZETTE_SEED), (HERALD, &HERALD_SEED)];
    let v = copy_after(&seeds, (GAZETTE, ORIGINAL), (HERALD, SYNDICATED));
    assert_copy_of(&v, GAZETTE.url(ORIGINAL));
    let v = copy_after(&seeds, (HERALD, SYNDICATED), (GAZETTE, ORIGINAL));
    assert_copy_of(&v, HERALD.url(SYNDICATED));
}

/// The same, as the two sites' first pages (their title suffixes not yet
/// learnt).
#[test]
fn a_syndicated_copy_is_a_copy_on_new_sites() {
    let v = copy_after(&[], (GAZETTE, ORIGINAL), (HERALD, SYNDICATED));
    assert_copy_of(&v, GAZETTE.url(ORIGINAL));
    let v = copy_after(&[], (HERALD, SYNDICATED), (GAZETTE, ORIGINAL));
    assert_copy_of(&v, HERALD.url(SYNDICATED));
}

/// The edited copy and the syndicated copy of one article, all three in
/// one crawl after both sites' other pages: the first is kept, the other
/// two are dropped as its copies.
#[test]
fn every_copy_of_an_article_is_dropped_into_the_first_seen() {
    let mut d = fresh();
    GAZETTE.seed(&mut d, &GAZETTE_SEED);
    HERALD.seed(&mut d, &HERALD_SEED);
    let first = HERALD.check(&mut d, SYNDICATED);
    assert_eq!(first.kind, VerdictKind::Unique, "{}", show(&first));
    for p in [ORIGINAL, EDITED] {
        let v = GAZETTE.check(&mut d, p);
        assert_copy_of(&v, HERALD.url(SYNDICATED));
    }
}

/// A syndicated copy whose headline the other site shortened (all its
/// words are in the original's headline) is still a copy, either way
/// round.
#[test]
fn a_syndicated_copy_under_a_shortened_headline_is_a_copy() {
    let seeds: [(Site, &[&str]); 2] = [(GAZETTE, &GAZETTE_SEED), (HERALD, &HERALD_SEED)];
    let v = copy_after(&seeds, (GAZETTE, ORIGINAL), (HERALD, SHORTENED));
    assert_copy_of(&v, GAZETTE.url(ORIGINAL));
    let v = copy_after(&seeds, (HERALD, SHORTENED), (GAZETTE, ORIGINAL));
    assert_copy_of(&v, HERALD.url(SHORTENED));
    // On new sites too.
    let v = copy_after(&[], (HERALD, SHORTENED), (GAZETTE, ORIGINAL));
    assert_copy_of(&v, HERALD.url(SHORTENED));
}

/// The print view of an article is a copy of it, and the article of its
/// print view when the print view is crawled first.
#[test]
fn a_print_view_is_a_copy_either_way_round() {
    let seeds: [(Site, &[&str]); 1] = [(GAZETTE, &GAZETTE_SEED)];
    let v = copy_after(&seeds, (GAZETTE, ORIGINAL), (GAZETTE, PRINT));
    assert_copy_of(&v, GAZETTE.url(ORIGINAL));
    let v = copy_after(&seeds, (GAZETTE, PRINT), (GAZETTE, ORIGINAL));
    assert_copy_of(&v, GAZETTE.url(PRINT));
    let v = copy_after(&[], (GAZETTE, PRINT), (GAZETTE, ORIGINAL));
    assert_copy_of(&v, GAZETTE.url(PRINT));
}

/// A syndicated copy with a photo, an inline box, the author's biography
/// and readers' comments around the same text is a copy, either way round.
#[test]
fn a_syndicated_copy_with_comments_is_a_copy() {
    let seeds: [(Site, &[&str]); 2] = [(GAZETTE, &GAZETTE_SEED), (HERALD, &HERALD_SEED)];
    let v = copy_after(&seeds, (GAZETTE, ORIGINAL), (HERALD, WITH_COMMENTS));
    assert_copy_of(&v, GAZETTE.url(ORIGINAL));
    let v = copy_after(&seeds, (HERALD, WITH_COMMENTS), (GAZETTE, ORIGINAL));
    assert_copy_of(&v, HERALD.url(WITH_COMMENTS));
    let v = copy_after(&[], (HERALD, WITH_COMMENTS), (GAZETTE, ORIGINAL));
    assert_copy_of(&v, HERALD.url(WITH_COMMENTS));
}

// --- offline: the same pairs through `Deduper::compare` ---------------------

/// A page of a fixture site.
type Page = (Site, &'static str);

/// What `Deduper::compare` (the offline join's judgement, which knows no
/// site template) says of `later` against `earlier`, and what the online
/// decision says with only `earlier` checked before: the dropped kind, or
/// `None` for a page kept.
fn offline_and_online(earlier: Page, later: Page) -> (Option<VerdictKind>, Option<VerdictKind>) {
    let (ua, ub) = (earlier.0.url(earlier.1), later.0.url(later.1));
    let (ba, bb) = (earlier.0.body(earlier.1), later.0.body(later.1));
    let d = fresh();
    let pa = d.comparable(&d.analyze("a", &ua, &ba, Some("text/html")));
    let pb = d.comparable(&d.analyze("b", &ub, &bb, Some("text/html")));
    let offline = d.compare(&pa, &pb).map(|m| m.kind);
    let mut online = fresh();
    online.check(&ua, &ba, Some("text/html")).expect("check");
    let v = online.check(&ub, &bb, Some("text/html")).expect("check");
    (offline, v.kind.is_drop().then_some(v.kind))
}

/// Asserts, for each `(earlier, later, copy)`, that offline and online
/// agree, and that `later` is dropped exactly when it is a `copy`.
fn assert_pairs(pairs: &[(Page, Page, bool)]) {
    let mut wrong = Vec::new();
    for &(earlier, later, copy) in pairs {
        let (offline, online) = offline_and_online(earlier, later);
        if offline != online || online.is_some() != copy {
            wrong.push(format!(
                "{} -> {}: copy={copy} offline={offline:?} online={online:?}",
                earlier.1, later.1
            ));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// Copies and translations, judged as a pair: offline as online.
#[test]
fn offline_compare_judges_copies_and_translations_as_online() {
    assert_pairs(&[
        ((GAZETTE, ORIGINAL), (GAZETTE, EDITED), true),
        ((GAZETTE, EDITED), (GAZETTE, ORIGINAL), true),
        ((GAZETTE, ORIGINAL), (HERALD, SYNDICATED), true),
        ((HERALD, SYNDICATED), (GAZETTE, ORIGINAL), true),
        ((HERALD, SHORTENED), (GAZETTE, ORIGINAL), true),
        (
            (RUSTDOC, "core/arch/x86_64/fn._mm512_dbsad_epu8.html"),
            (RUSTDOC, "core/arch/x86/fn._mm512_dbsad_epu8.html"),
            true,
        ),
        (
            (SPHINX, AGGREGATION),
            (SPHINX, "fr/dev/guide/aggregation.html"),
            true,
        ),
        (
            (SPHINX, AGGREGATION),
            (SPHINX, "fr/stable/guide/aggregation.html"),
            false,
        ),
        (
            (SPHINX, AGGREGATION),
            (SPHINX, "fr/latest/guide/aggregation.html"),
            false,
        ),
    ]);
}

/// Distinct pages of one template, judged as a pair (a pair has no site
/// around it: a new site's rule): offline as online, and kept.
#[test]
fn offline_compare_keeps_distinct_pages_as_online() {
    assert_pairs(&[
        (
            (RUSTDOC, "core/arch/x86_64/fn._mm256_dbsad_epu8.html"),
            (RUSTDOC, "core/arch/x86_64/fn._mm512_dbsad_epu8.html"),
            false,
        ),
        (
            (RUSTDOC, "std/char/struct.ToLowercase.html"),
            (RUSTDOC, "std/char/struct.ToUppercase.html"),
            false,
        ),
        (
            (MAN, "trixie/man1/rsnap-backup.1.html"),
            (MAN, "trixie/man1/rsnap-restore.1.html"),
            false,
        ),
        (
            (SPHINX, FIELD_CLASSES[0]),
            (SPHINX, FIELD_CLASSES[1]),
            false,
        ),
        ((SPHINX, GUIDE_PARTS[0]), (SPHINX, GUIDE_PARTS[1]), false),
        (
            (SPHINX, RELEASE_NOTES[0]),
            (SPHINX, RELEASE_NOTES[1]),
            false,
        ),
        (
            (SPHINX, INDEX_LETTERS[0]),
            (SPHINX, INDEX_LETTERS[1]),
            false,
        ),
        (
            (MDBOOK, BOOK_PRINT),
            (MDBOOK, "handbook/installing.html"),
            false,
        ),
        ((DOXYGEN, ELF_HEADERS[0]), (DOXYGEN, ELF_HEADERS[1]), false),
    ]);
}

// --- a copy found through an earlier copy ----------------------------------

/// The Gazette's harbour-wall story: its print view (the headline and the
/// text), the story itself (photo captions, a key-facts box and a timeline
/// that the print view leaves out), and the story updated a day later at
/// another URL (an update paragraph, an advert, nine words edited).
const HARBOUR_PRINT: &str = "print/news/2026/03/18/harbour-wall-reopens.html";
const HARBOUR: &str = "news/2026/03/18/harbour-wall-reopens.html";
const HARBOUR_UPDATED: &str = "news/2026/03/19/harbour-wall-reopens-to-walkers.html";

/// Crawled in that order, the story is dropped into its print view, and
/// the updated story into the story, which it is much closer to than to
/// the print view (the boxes): the near duplicate dropped before it is
/// indexed (`decide.index_near_duplicates`, on by default). With the
/// setting off only first-seen pages are candidates.
#[test]
fn an_updated_story_after_its_print_view_and_itself_is_a_copy_of_the_story() {
    for seeded in [false, true] {
        for index_near in [true, false] {
            let mut config = Config::default();
            config.decide.index_near_duplicates = index_near;
            let mut d = Deduper::new(config).expect("config");
            if seeded {
                GAZETTE.seed(&mut d, &GAZETTE_SEED);
            }
            let print = GAZETTE.check(&mut d, HARBOUR_PRINT);
            assert_eq!(print.kind, VerdictKind::Unique, "{}", show(&print));
            let story = GAZETTE.check(&mut d, HARBOUR);
            assert_copy_of(&story, GAZETTE.url(HARBOUR_PRINT));
            let updated = GAZETTE.check(&mut d, HARBOUR_UPDATED);
            let context = format!(
                "seeded={seeded} index_near={index_near}: {}",
                show(&updated)
            );
            if index_near {
                assert_eq!(updated.kind, VerdictKind::NearDuplicate, "{context}");
                assert_copy_of(&updated, GAZETTE.url(HARBOUR));
                // Fetched again unchanged, the indexed story is still the
                // print view's copy (not an unchanged kept page), and the
                // print view is unchanged.
                let again = GAZETTE.check(&mut d, HARBOUR);
                assert_eq!(again.kind, VerdictKind::NearDuplicate, "{}", show(&again));
                assert_copy_of(&again, GAZETTE.url(HARBOUR_PRINT));
                let print_again = GAZETTE.check(&mut d, HARBOUR_PRINT);
                let basis = print_again
                    .matched
                    .as_ref()
                    .map(|m| m.basis.name().to_owned());
                assert_eq!(basis.as_deref(), Some("same_url"), "{}", show(&print_again));
                assert_copy_of(&print_again, GAZETTE.url(HARBOUR_PRINT));
            } else {
                // Only the print view is a candidate: the update is kept,
                // or (through the print view alone) dropped into it.
                let named = updated.matched.as_ref().map(|m| m.url.clone());
                assert_ne!(named, Some(GAZETTE.url(HARBOUR)), "{context}");
            }
        }
    }
}
