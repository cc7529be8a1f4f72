//! Verdicts on a hand-made documentation site (`testdata/site-template/`):
//! one template (top bar, sidebar, footer) around tables of contents, API
//! items, template siblings and a manual whose print page holds every
//! chapter. Each test names the failure class of issue 12 it guards.

use neardup::Config;
use neardup::Deduper;
use neardup::Verdict;
use neardup::VerdictKind;

const SITE: &str = "http://docs.example";

fn body(path: &str) -> Vec<u8> {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/site-template")
        .join(path);
    std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

fn check(d: &mut Deduper, path: &str) -> Verdict {
    d.check(&format!("{SITE}/{path}"), &body(path), Some("text/html"))
        .expect("in-memory check")
}

fn checks(d: &mut Deduper, paths: &[&str]) -> Vec<(String, Verdict)> {
    paths
        .iter()
        .map(|p| ((*p).to_owned(), check(d, p)))
        .collect()
}

fn kinds(verdicts: &[(String, Verdict)]) -> Vec<(&str, VerdictKind)> {
    verdicts.iter().map(|(p, v)| (p.as_str(), v.kind)).collect()
}

#[test]
fn tables_of_contents_are_not_copies_of_each_other() {
    let mut d = Deduper::new(Config::default()).unwrap();
    let v = checks(
        &mut d,
        &["index.html", "guides/index.html", "api/index.html"],
    );
    assert!(
        v.iter().all(|(_, v)| v.kind == VerdictKind::Unique),
        "{:?}",
        kinds(&v)
    );
}

#[test]
fn api_items_of_one_template_are_distinct() {
    let mut d = Deduper::new(Config::default()).unwrap();
    let v = checks(&mut d, &["api/fn.alpha.html", "api/fn.beta.html"]);
    assert!(
        v.iter().all(|(_, v)| v.kind == VerdictKind::Unique),
        "{:?}",
        kinds(&v)
    );
}

/// Pages of one template share long sections (here, trait impls every
/// struct page lists). Once the site's pages have shown that section three
/// times it is template, and what is left of a sibling (its name, its
/// signature, its description) is not in any other page. Before that the
/// section is indistinguishable from copied content: the first siblings of
/// a new template may still be dropped (a limit stated in `content`).
#[test]
fn template_siblings_are_distinct_once_their_template_is_known() {
    let mut d = Deduper::new(Config::default()).unwrap();
    checks(
        &mut d,
        &[
            "api/struct.Gear.html",
            "api/struct.Lever.html",
            "api/struct.Spring.html",
        ],
    );
    let v = checks(&mut d, &["api/struct.Wheel.html", "api/struct.Pulley.html"]);
    assert!(
        v.iter().all(|(_, v)| v.kind == VerdictKind::Unique),
        "{:?}",
        kinds(&v)
    );
}

#[test]
fn a_page_containing_another_is_not_its_copy() {
    let mut d = Deduper::new(Config::default()).unwrap();
    let chapter = check(&mut d, "manual/chapter-1.html");
    let print = check(&mut d, "manual/print.html");
    assert_eq!(chapter.kind, VerdictKind::Unique);
    assert_eq!(print.kind, VerdictKind::Unique, "{:?}", print.matched);
    // The other way round, each chapter is in the print page, but a
    // chapter is not a copy of its manual's print view: its URL is what a
    // reader of that chapter needs. Kept, and the verdict says which page
    // matched and why it is no copy.
    let mut d = Deduper::new(Config::default()).unwrap();
    check(&mut d, "manual/print.html");
    for chapter in ["manual/chapter-1.html", "manual/chapter-2.html"] {
        let v = check(&mut d, chapter);
        assert_eq!(v.kind, VerdictKind::Unique, "{chapter}: {v:?}");
        assert!(
            v.warnings
                .iter()
                .any(|w| w.contains("manual/print.html") && w.contains("named otherwise")),
            "{chapter}: {:?}",
            v.warnings
        );
    }
}

/// An all-in-one page (an index of every entry) and one of its parts
/// under the same title: the part's content is all in the larger page, and
/// both are named alike, but the part is a page of its own. It is kept,
/// indexed, and its verdict names the page that contains it.
#[test]
fn a_part_of_an_all_in_one_page_is_contained_in_it_not_dropped() {
    let mut d = Deduper::new(Config::default()).unwrap();
    let all = check(&mut d, "genindex/all.html");
    assert_eq!(all.kind, VerdictKind::Unique);
    let part = check(&mut d, "genindex/a.html");
    assert_eq!(part.kind, VerdictKind::Unique, "{part:?}");
    assert!(part.indexed_as.is_some(), "{part:?}");
    assert!(part.matched.is_none(), "{part:?}");
    let c = part.contained_in.expect("the larger page is named");
    assert_eq!(c.url, format!("{SITE}/genindex/all.html"));
    assert!(c.covered.is_some_and(|x| x >= 0.9), "{c:?}");
    assert!(c.reason.contains("contained in it"), "{}", c.reason);
    // The other way round the all-in-one page holds far more than the
    // part: unique, contained in nothing.
    let mut d = Deduper::new(Config::default()).unwrap();
    check(&mut d, "genindex/a.html");
    let all = check(&mut d, "genindex/all.html");
    assert_eq!(all.kind, VerdictKind::Unique, "{all:?}");
    assert!(all.contained_in.is_none(), "{all:?}");
}

#[test]
fn a_mirrored_page_is_a_duplicate() {
    let mut d = Deduper::new(Config::default()).unwrap();
    check(&mut d, "manual/chapter-1.html");
    let v = check(&mut d, "mirror/chapter-1.html");
    assert_eq!(v.kind, VerdictKind::Duplicate, "{v:?}");
    let m = v.matched.unwrap();
    assert_eq!(m.url, format!("{SITE}/manual/chapter-1.html"));
    assert_eq!(m.covered, Some(1.0));
}

#[test]
fn pages_with_little_own_content_are_kept() {
    let mut d = Deduper::new(Config::default()).unwrap();
    let v = checks(
        &mut d,
        &[
            "index.html",
            "guides/index.html",
            "api/index.html",
            "about.html",
            "contact.html",
        ],
    );
    assert!(
        v.iter().all(|(_, v)| v.kind == VerdictKind::Unique),
        "{:?}",
        kinds(&v)
    );
}

/// What a site's pages teach about its template is stored with the index:
/// a reopened index decides the next page as an uninterrupted run does.
#[test]
fn the_learned_template_survives_a_reopen() {
    let first = [
        "index.html",
        "guides/index.html",
        "api/index.html",
        "api/struct.Gear.html",
        "api/struct.Lever.html",
    ];
    let next = [
        "api/struct.Spring.html",
        "api/struct.Wheel.html",
        "about.html",
    ];
    let registry = neardup::Registry::default();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.redb");

    let mut whole = Deduper::new(Config::default()).unwrap();
    checks(&mut whole, &first);
    let expected = checks(&mut whole, &next);

    let mut d = Deduper::open(Config::default(), &registry, &path).unwrap();
    checks(&mut d, &first);
    d.flush().unwrap();
    drop(d);
    let mut d = Deduper::open(Config::default(), &registry, &path).unwrap();
    let got = checks(&mut d, &next);
    assert_eq!(got, expected);

    assert_eq!(got[1].1.kind, VerdictKind::Unique);
    // Without what the first pages taught, the same sibling is judged
    // without its site's common title words: its name is its whole title
    // less its folders (3 words), where the reopened index knows that all
    // but one of them are the site's (`Wheel`).
    let mut fresh =
        Deduper::open(Config::default(), &registry, &dir.path().join("b.redb")).unwrap();
    let alone = checks(
        &mut fresh,
        &["api/struct.Gear.html", "api/struct.Wheel.html"],
    );
    let said = |v: &Verdict| {
        format!(
            "{:?} {:?}",
            v.matched.as_ref().map(|m| &m.reason),
            v.warnings
        )
    };
    assert!(
        said(&alone[1].1).contains("of the 3 words of its name"),
        "{}",
        said(&alone[1].1)
    );
    assert!(
        said(&got[1].1).contains("of the 1 words of its name"),
        "{}",
        said(&got[1].1)
    );
}

/// An item re-exported under another module path (its title and heading
/// differ in the path alone) is a copy: it has the kept page's page name
/// (`struct.Gear.html`) and its own content, block by block, is in the
/// kept page.
#[test]
fn an_item_under_another_module_path_is_a_copy() {
    let mut d = Deduper::new(Config::default()).unwrap();
    check(&mut d, "api/struct.Gear.html");
    let v = check(&mut d, "api/legacy/struct.Gear.html");
    assert!(v.kind.is_drop(), "{v:?}");
    let m = v.matched.expect("a drop names its match");
    assert_eq!(m.url, format!("{SITE}/api/struct.Gear.html"));
    assert!(m.covered.is_some_and(|c| c >= 0.8), "{m:?}");
}

/// A sibling chapter (another name, the same template) is not a copy of
/// the first. (A chapter is not a copy of its manual's print page either:
/// `a_page_containing_another_is_not_its_copy`.)
#[test]
fn a_sibling_chapter_is_not_a_copy() {
    let mut d = Deduper::new(Config::default()).unwrap();
    check(&mut d, "manual/chapter-1.html");
    let v = check(&mut d, "manual/chapter-2.html");
    assert_eq!(v.kind, VerdictKind::Unique, "{v:?}");
}

/// A stub of a chapter left under an older edition's folder (its own
/// content is its title and heading, too little to measure) is the
/// current chapter mirrored: the same page name, the same title, each of
/// its own blocks in the kept page. Under another page name, or with a
/// sentence of its own, it is kept.
#[test]
fn a_small_page_mirrored_under_another_folder_is_a_copy() {
    let site = [
        "index.html",
        "guides/index.html",
        "api/index.html",
        "about.html",
        "contact.html",
        "api/fn.alpha.html",
        "api/fn.beta.html",
        "api/struct.Wheel.html",
        "api/struct.Lever.html",
        "api/struct.Spring.html",
        "manual/chapter-1.html",
        "manual/chapter-2.html",
    ];
    let mut d = Deduper::new(Config::default()).unwrap();
    checks(&mut d, &site);
    let v = check(&mut d, "old-edition/chapter-1.html");
    assert!(v.kind.is_drop(), "{v:?}");
    let m = v.matched.expect("a drop names its match");
    assert_eq!(m.url, format!("{SITE}/manual/chapter-1.html"));
    assert!(m.reason.contains("page name and title"), "{}", m.reason);

    let mut d = Deduper::new(Config::default()).unwrap();
    checks(&mut d, &site);
    for other in ["old-edition/shapes.html", "old-edition/chapter-2.html"] {
        let v = check(&mut d, other);
        assert_eq!(v.kind, VerdictKind::Unique, "{other}: {v:?}");
    }
}

/// The same intrinsic documented under two architecture modules: its title
/// and heading name the module, what it says besides (signature,
/// description) is the same. Once the section's titles show the module
/// path as common, the page's name is the item's (`add_lanes`), the same
/// as the kept page's and under the same page name: a copy, measured on
/// what it says besides its title and heading. A sibling with another name
/// (`add_lanes_masked`), whose description is almost the same, is not.
#[test]
fn the_same_item_under_two_folders_is_a_copy_but_a_sibling_is_not() {
    let mut d = Deduper::new(Config::default()).unwrap();
    let first = checks(
        &mut d,
        &[
            "arch/x86/fn.add_lanes.html",
            "arch/x86/fn.sub_lanes.html",
            "arch/x86_64/fn.read_counter64.html",
            "arch/x86_64/fn.swap_bytes64.html",
            "arch/x86_64/fn.load_wide64.html",
        ],
    );
    assert!(
        first.iter().all(|(_, v)| v.kind == VerdictKind::Unique),
        "{:?}",
        kinds(&first)
    );
    let sibling = check(&mut d, "arch/x86/fn.add_lanes_masked.html");
    assert_eq!(sibling.kind, VerdictKind::Unique, "{sibling:?}");
    let twin = check(&mut d, "arch/x86_64/fn.add_lanes.html");
    assert!(twin.kind.is_drop(), "{twin:?}");
    let m = twin.matched.expect("a drop names its match");
    assert_eq!(m.url, format!("{SITE}/arch/x86/fn.add_lanes.html"));
    assert!(m.reason.contains("another folder"), "{}", m.reason);
}

/// Source files that start with the same license header, in the same
/// preformatted block as their code: the header is most of each block, and
/// the block as a whole is on one page only. Long preformatted blocks are
/// cut into pieces, so the header's pieces are learned as template from the
/// first files and a later file is judged on its code, which no other file
/// has. A copy of a file is still a copy.
#[test]
fn a_license_header_shared_by_source_files_is_template() {
    let mut d = Deduper::new(Config::default()).unwrap();
    checks(
        &mut d,
        &["src/alpha.rs.html", "src/beta.rs.html", "src/gear.rs.html"],
    );
    let v = check(&mut d, "src/spring.rs.html");
    assert_eq!(v.kind, VerdictKind::Unique, "{v:?}");
    let copy = d
        .check(
            &format!("{SITE}/mirror/spring.rs.html"),
            &body("src/spring.rs.html"),
            Some("text/html"),
        )
        .unwrap();
    assert!(copy.kind.is_drop(), "{copy:?}");
    assert_eq!(
        copy.matched.map(|m| m.url),
        Some(format!("{SITE}/src/spring.rs.html"))
    );
}

/// Tiny index pages (a heading, a sentence every index page repeats, two
/// entries): too short to measure, so only an exact copy may drop one. The
/// block fallback follows the same short-page rule as the detectors.
#[test]
fn tiny_index_pages_sharing_an_intro_are_kept() {
    let mut d = Deduper::new(Config::default()).unwrap();
    let v = checks(&mut d, &["genindex/q.html", "genindex/x.html"]);
    assert!(
        v.iter().all(|(_, v)| v.kind == VerdictKind::Unique),
        "{:?}",
        v
    );
    let x = &v[1].1;
    assert!(
        x.warnings.iter().any(|w| w.contains("short page")),
        "{:?}",
        x.warnings
    );
    // An exact copy of a tiny page is still a copy.
    let copy = d
        .check(
            &format!("{SITE}/mirror/genindex-x.html"),
            &body("genindex/x.html"),
            Some("text/html"),
        )
        .unwrap();
    assert_eq!(copy.kind, VerdictKind::Duplicate, "{copy:?}");
}

/// A translated page shares its code listing and layout with the
/// original, under another title and in another language: not a copy.
#[test]
fn a_translation_is_not_a_copy() {
    let mut d = Deduper::new(Config::default()).unwrap();
    let en = check(&mut d, "manual/painting.html");
    assert_eq!(en.kind, VerdictKind::Unique);
    let fr = check(&mut d, "fr/manual/painting.html");
    assert_eq!(fr.kind, VerdictKind::Unique, "{fr:?}");
    assert!(fr.indexed_as.is_some(), "{fr:?}");
    // The shared listing is most of the page: the detectors match it, and
    // the verdict says why the page is kept.
    assert!(
        fr.warnings
            .iter()
            .any(|w| w.contains("another language") || w.contains("named otherwise")),
        "{:?}",
        fr.warnings
    );
}
