//! Verdicts on pages written in the style of real generators (issue 28's
//! classes): rustdoc items, mandoc manual pages, Sphinx class and
//! contents pages, release notes, news articles and their copies. Each
//! fixture is a small site under `testdata/generators/<site>/`, served
//! under its own host; a test first shows the checker enough of the site's
//! other pages for its template and title words to be learnt where the
//! real case has them, then asserts the verdict on the pair.

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
#[ignore = "issue 28: on a young site the rustdoc item is judged as an article and not held to its name: _mm512_dbsad_epu8 is near_duplicate of _mm256_dbsad_epu8, chunk resemblance 0.61 >= 0.30; 95% of this page's own content (138 words of its article, site template not yet known) is in the kept page"]
fn rustdoc_sibling_intrinsics_are_distinct_on_a_new_site() {
    let mut d = fresh();
    for item in ["fn._mm256_dbsad_epu8.html", "fn._mm512_dbsad_epu8.html"] {
        let v = RUSTDOC.check(&mut d, &format!("{X86_64}/{item}"));
        assert_eq!(v.kind, VerdictKind::Unique, "{item}: {}", show(&v));
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
#[ignore = "issue 28: the options list is compared as the article and the name rule lets 'rsnap-restore' through: near_duplicate of rsnap-backup, chunk resemblance 0.68 >= 0.30; 84% of this page's own content (765 words of its article, site template removed) is in the kept page"]
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
    assert!(v.kind.is_drop(), "{}", show(&v));
}

/// The same pair as a site's first pages.
#[test]
#[ignore = "issue 28: near_duplicate of rsnap-backup, chunk resemblance 0.68 >= 0.30; 84% of this page's own content (765 words of its article, site template not yet known) is in the kept page"]
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

/// The same pair as a site's first pages.
#[test]
#[ignore = "issue 28: on a young site the inherited methods are compared as the article and the name is not required: BigIntegerField is duplicate of IntegerField, chunk resemblance 0.82 >= 0.80; 94% of this page's own content (791 words of its article, site template not yet known) is in the kept page"]
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

/// The same parts as a site's first pages.
#[test]
#[ignore = "issue 28: the intro is the article, h1 and chapter list are chrome, and a young site's article is not held to its name: part-2 is duplicate of part-1, identical normalized text; 98% of this page's own content (137 words of its article, site template not yet known) is in the kept page"]
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
#[ignore = "issue 28: on a young site the version in the title is not required: 3.10.13 is near_duplicate of 3.11.4, chunk resemblance 0.62 >= 0.30; 93% of this page's own content (330 words of its article, site template not yet known) is in the kept page"]
fn release_notes_sharing_a_security_section_are_distinct_on_a_new_site() {
    sphinx_all_kept(false, &RELEASE_NOTES);
}
