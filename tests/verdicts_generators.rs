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
