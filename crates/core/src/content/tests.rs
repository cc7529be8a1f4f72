//! Unit tests of the content evidence.

use super::measure::{found_in, words_covered};
use super::page::sort_by_shingle;
use super::thresholds::*;
use super::*;
use neardup_html::Block;

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
        tag: "p",
        link_density: 0.0,
        is_main: main,
    }
}

fn page(texts: &[(&str, bool)]) -> PageContent {
    let blocks: Vec<Block> = texts.iter().map(|(t, m)| block(t, *m)).collect();
    PageContent::from_page("", &blocks)
}

const FOOTER: &str = "Copyright 2001 the example foundation, all rights reserved under the license";

/// A kept URL's words are those of its URL, made once and handed out
/// again for the same URL; another URL gets its own; a full memo forgets
/// what it held and still answers right.
#[test]
fn kept_urls_hold_each_urls_words() {
    let urls = KeptUrls::default();
    let a = "https://docs.example/std/io/struct.Stderr.html";
    let b = "https://docs.example/std/io/index.html";
    let first = urls.get(a);
    assert_eq!(first.as_str(), a);
    assert_eq!(first.page_name(), page_name(a));
    assert_eq!(first.place(), place_words(a).as_slice());
    assert_eq!(first.file(), file_words(a).as_slice());
    assert!(first
        .file()
        .contains(&(neardup_api::hash64(b"stderr") as u32)));
    assert!(std::sync::Arc::ptr_eq(&first, &urls.get(a)));
    let other = urls.get(b);
    assert!(!std::sync::Arc::ptr_eq(&first, &other));
    assert_eq!(other.file(), file_words(b).as_slice());
    for i in 0..KeptUrls::CAPACITY {
        urls.get(&format!("https://s.example/p{i}.html"));
    }
    let again = urls.get(a);
    assert!(
        !std::sync::Arc::ptr_eq(&first, &again),
        "forgotten when full"
    );
    assert_eq!(again.place(), place_words(a).as_slice());
}

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

proptest::proptest! {
    /// Splitting a title only at the separators found in it gives the
    /// segments of splitting at every separator in turn: on titles of
    /// words, spaces and separator characters, separators touching and
    /// overlapping (`a / - b`: which one cuts depends on their order).
    #[test]
    fn title_segments_are_those_of_every_separator_in_turn(
        title in "([a-z]{1,3}| |\\||-|–|—|::|·|»|/){0,14}",
    ) {
        let mut expected: Vec<&str> = vec![title.as_str()];
        for sep in super::names::TITLE_SEPARATORS {
            expected = expected.iter().flat_map(|s| s.split(sep)).collect();
        }
        proptest::prop_assert_eq!(super::names::title_segments(&title), expected);
    }

    /// Lowercasing by runs gives `char::to_lowercase` of every character:
    /// on text mixing ASCII with accented, Greek, Turkish, caseless and
    /// expanding characters.
    #[test]
    fn lowercase_into_is_lowercase_by_char(text in "[a-zA-Z0-9 .,]{0,10}([ÀÉßΣİĞ東京한ᾈ][a-zA-Z .]{0,6}){0,6}") {
        let mut out = String::from("left over");
        lowercase_into(&text, &mut out);
        let by_char: String = text.chars().flat_map(char::to_lowercase).collect();
        proptest::prop_assert_eq!(out, by_char);
    }

    /// A page's content built with the words its normalizer split is the
    /// content built by splitting every block itself: blocks main or not,
    /// pre or not, with NFKC-changing characters, capital sigmas and CJK,
    /// under either extraction mode.
    #[test]
    fn content_from_normalized_words_is_content_from_blocks(
        title in "(|[A-Za-z ]{1,12}|ΣΟΦΟΣ)",
        texts in proptest::collection::vec(
            ("([a-zA-Z]{1,8}|ΟΔΟΣ|ﬁne|ＡＢＣ|中文|3\\.14|it’s|\\+|\n| |, ){0,80}", proptest::bool::ANY, proptest::sample::select(vec!["p", "pre", "h1", "li"])),
            0..8,
        ),
        full in proptest::bool::ANY,
    ) {
        let blocks: Vec<Block> = texts
            .iter()
            .map(|(text, main, tag)| Block { text: text.clone(), tag, link_density: 0.0, is_main: *main })
            .collect();
        let e = neardup_html::Extracted { title, blocks, ..Default::default() };
        let mode = if full { neardup_html::ExtractMode::Full } else { neardup_html::ExtractMode::Main };
        let normalizer = neardup_text::Normalizer::new(&neardup_text::TextConfig::default());
        let selected: Vec<&str> = e.selected(mode).map(|(_, b)| b.text.as_str()).collect();
        let normalized = normalizer.normalize_blocks(&selected, None);
        proptest::prop_assert_eq!(
            PageContent::from_normalized(&e, &normalized, mode),
            PageContent::from_extracted(&e)
        );
    }

    /// The sort of a page's shingle keys orders them as the standard
    /// sort does: shingles drawn from a wide range, from a narrow one
    /// (many repeats, whose positions must stay in order; all in one
    /// bucket of the top bits, left to the standard sort) and from one
    /// whose keys differ in a few scattered bits, on both sides of the
    /// size where the bucket scatter takes over; also with the positions
    /// out of order.
    #[test]
    fn shingle_keys_sort_as_the_standard_sort(
        shingles in proptest::collection::vec(proptest::num::u32::ANY, 0..3000),
        narrow in proptest::sample::select(vec![u32::MAX, 2047, 40, 1]),
        gaps in proptest::collection::vec(1u32..4, 3000),
    ) {
        let mut position = 0u32;
        let mut keys: Vec<u64> = shingles
            .iter()
            .zip(&gaps)
            .map(|(&s, &gap)| {
                position += gap;
                u64::from(s % narrow.max(1) * if narrow == 40 { 0x0100_0001 } else { 1 }) << 32
                    | u64::from(position)
            })
            .collect();
        let mut expected = keys.clone();
        expected.sort_unstable();
        // Positions out of order (a corrupt page) are sorted all the same.
        let mut shuffled = keys.clone();
        shuffled.reverse();
        sort_by_shingle(&mut keys);
        proptest::prop_assert_eq!(&keys, &expected);
        sort_by_shingle(&mut shuffled);
        proptest::prop_assert_eq!(&shuffled, &expected);
    }
}

#[test]
fn long_preformatted_blocks_are_cut_alike_where_they_agree() {
    let header: Vec<String> = (0..120).map(|i| format!("h{i}")).collect();
    let pre = |tail: &str| Block {
        text: format!("{} {tail}", header.join(" ")),
        tag: "pre",
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
    p.tag = "p";
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
        words_covered(&spans, &rank_at, &[], &[true, false, true, false], 1),
        5.0 / 7.0
    );
    assert_eq!(
        words_covered(&spans, &rank_at, &[], &[false, true, false, true], 1),
        5.0 / 7.0
    );
    assert_eq!(words_covered(&spans, &rank_at, &[], &[false; 4], 1), 0.0);
    assert_eq!(words_covered(&spans, &rank_at, &[], &[true; 4], 1), 1.0);
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

/// The distinct words of `text` as [`word_hashes`] counts them, sorted:
/// the form of the name and place word sets.
fn sorted_words(text: &str) -> Vec<u32> {
    let mut w = word_hashes(text);
    w.sort_unstable();
    w.dedup();
    w
}

#[test]
fn title_edges_are_a_short_site_name_around_the_page_name() {
    let sorted = sorted_words;
    let edges = |title: &str| super::names::title_edges(title);
    // The shorter edge segment; of two as long, the last.
    assert_eq!(
        edges("Part I: Getting started \u{2014} TinyORM 3.11 documentation"),
        sorted("TinyORM 3.11 documentation")
    );
    assert_eq!(
        edges("Part II: Querying \u{2014} TinyORM 3.11 documentation"),
        sorted("TinyORM 3.11 documentation")
    );
    assert_eq!(
        edges("Council approves solar farm on former airfield | Riverside Gazette"),
        sorted("Riverside Gazette")
    );
    // A word also in the page's segment stays; a title of one segment,
    // or of short segments only, has no edge.
    assert_eq!(
        edges("Herald wins award for local news | Herald"),
        Vec::<u32>::new()
    );
    assert!(edges("Solar farm approved").is_empty());
    assert!(edges("Index | TinyORM").is_empty());
}

#[test]
fn file_words_are_the_file_name_without_its_extension() {
    let words = sorted_words;
    let f = file_words("http://h/en/stable/api/tinyorm.fields.IntegerField.html?x=1#top");
    for w in words("tinyorm.fields.IntegerField tinyorm fields integerfield") {
        assert!(f.binary_search(&w).is_ok());
    }
    assert!(f.binary_search(&words("html")[0]).is_err());
    assert!(f.binary_search(&words("api")[0]).is_err());
    // A folder's index page is named by its folder; a slug splits at dashes.
    assert_eq!(
        file_words("http://h/guide/part-one/index.html"),
        words("part-one part one")
    );
    assert_eq!(
        file_words("http://h/story/solar-farm"),
        words("solar-farm solar farm")
    );
    assert!(file_words("http://h/").is_empty());
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
fn named_coverage((title, url): (&str, &str), (kept_title, kept_url): (&str, &str)) -> Coverage {
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
            url: &KeptUrl::new(kept_url),
        },
        SiteTemplate::default(),
        false,
    )
}

/// Coverage of an article of `paragraphs` paragraphs titled `title`
/// against a kept article of the first `kept` of them titled
/// `kept_title`.
fn extending_coverage(paragraphs: usize, title: &str, kept: usize, kept_title: &str) -> Coverage {
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
            url: &KeptUrl::new(kept_url),
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

/// The coverage, found through the block index (strict), of a page of
/// main-content blocks `texts` at `url` by a kept page of blocks
/// `kept_texts` at `kept_url`, both titled `title`; and the kept page's
/// sampling modulus.
fn strict_coverage_of_texts(
    title: &str,
    (texts, url): (&[String], &str),
    (kept_texts, kept_url): (&[String], &str),
) -> (Coverage, u32) {
    let blocks =
        |texts: &[String]| -> Vec<Block> { texts.iter().map(|t| block(t, true)).collect() };
    let page = PageContent::from_page(title, &blocks(texts));
    let kept_ev = PageContent::from_page(title, &blocks(kept_texts)).evidence();
    let own = OwnContent::new(&page, SiteTemplate::default(), url);
    let kept = Kept {
        evidence: kept_ev.as_ref(),
        page_name: page_name(kept_url),
        url: &KeptUrl::new(kept_url),
    };
    let c = own.coverage(&page, kept, SiteTemplate::default(), true);
    (c, kept_ev.modulus)
}

#[test]
fn a_story_with_a_table_its_print_view_leaves_out_extends_it() {
    // The print view kept first: seven paragraphs. The story's page
    // after it: the same seven and a statistics table of fifty rows
    // (a district and three counts each); the print view is 45% of it. Found
    // through the block index (strict: measured by sampled shingles),
    // the print view's whole text is there and the names agree: the
    // same story, extended, so a copy.
    let title = "Trump talks retaliation if India rejects export of key drug";
    let paragraph = |p: usize| -> String {
        let words: Vec<String> = (0..40).map(|w| format!("word{p}x{w}")).collect();
        format!("{}.", words.join(" "))
    };
    let kept: Vec<String> = (0..7).map(paragraph).collect();
    let mut story = kept.clone();
    story.extend(
        (0..50).map(|r| format!("district{r} cases{r} 1{r}0 recovered{r} 2{r} deaths{r} {r}")),
    );
    story.extend((0..4).map(|r| format!("Source: ministry of health bulletin number {r} updated daily with district counts and state totals for every region listed above.")));
    let url = "http://s/india-news/trump-retaliation-2207327";
    let kept_url = "http://s/print/india-news/trump-retaliation-2207327";
    let (c, _) = strict_coverage_of_texts(title, (&story, url), (&kept, kept_url));
    assert!(
        matches!(c, Coverage::Measured { holds: Some(h), covered, .. } if h >= EXTENDS_MIN_HOLDS && (EXTENDS_MIN_COVERED..0.5).contains(&covered)),
        "{c:?}"
    );
    assert!(c.allows_drop(0.8), "{c:?}");
    // Three times the print view: a page that includes it.
    story.extend((0..8).map(|p| paragraph(100 + p)));
    let (c, _) = strict_coverage_of_texts(title, (&story, url), (&kept, kept_url));
    assert!(!c.allows_drop(0.8), "{c:?}");
}

#[test]
fn a_record_of_short_fields_is_held_whole_by_its_fuller_page() {
    // A study record's summary kept first on another site: 600 short
    // fields (four words each, two shingles) and a few sentences. The
    // record's own page after it holds every field and sentence and
    // says 0.7 times as much again in prose; the summary is large enough
    // to be stored as a sample. Its fields have half as many shingles as
    // words: counted as words, all of it is here, so the fuller page
    // extends it, named alike.
    let title = "Changes in circulating tumor DNA in patients with lung cancer";
    let field = |f: usize| format!("field{f} value{f} unit{f} note{f}");
    let sentence = |p: usize| -> String {
        let words: Vec<String> = (0..30).map(|w| format!("word{p}x{w}")).collect();
        format!("{}.", words.join(" "))
    };
    let mut kept: Vec<String> = (0..600).map(field).collect();
    kept.extend((0..5).map(sentence));
    let mut record = kept.clone();
    record.extend((100..158).map(sentence));
    let url = "http://registry.example/study/record.html";
    let kept_url = "http://other.example/syndication/changes-in-circulating-tumor-dna";
    let (c, modulus) = strict_coverage_of_texts(title, (&record, url), (&kept, kept_url));
    assert!(modulus > 1, "the kept page must be sampled");
    assert!(
        matches!(c, Coverage::Measured { holds: Some(h), covered, .. } if h >= 0.9 && (EXTENDS_MIN_COVERED..0.5).contains(&covered)),
        "{c:?}"
    );
    assert!(c.allows_drop(0.8), "{c:?}");
}

#[test]
fn an_annotated_edition_does_not_extend_the_story() {
    // An interview kept first: twelve paragraphs of 40 words. Its
    // annotated edition after it, under the same headline in another
    // folder: the same paragraphs, each with a 35-word annotation run
    // into it after its first sentence. It holds all of the interview,
    // and about half of it is the interview, but the other half is new
    // sentences inside the interview's paragraphs: another edition of
    // the story, kept. The same interview with the same 420 words added
    // as paragraphs of their own (comments, a sidebar) still extends it.
    let title = "Greg Berlanti knows the secret to superhero TV";
    let sentence = |p: usize, from: usize, to: usize| -> String {
        let words: Vec<String> = (from..to).map(|w| format!("word{p}x{w}")).collect();
        words.join(" ")
    };
    let note = |p: usize| -> String {
        let words: Vec<String> = (0..35).map(|w| format!("note{p}x{w}")).collect();
        words.join(" ")
    };
    let kept: Vec<String> = (0..12)
        .map(|p| format!("{}. {}.", sentence(p, 0, 20), sentence(p, 20, 40)))
        .collect();
    let annotated: Vec<String> = (0..12)
        .map(|p| {
            format!(
                "{}. {}. {}.",
                sentence(p, 0, 20),
                note(p),
                sentence(p, 20, 40)
            )
        })
        .collect();
    let url = "http://s/print/2016/08/berlanti.html";
    let kept_url = "http://s/2016/09/berlanti.html";
    let (c, _) = strict_coverage_of_texts(title, (&annotated, url), (&kept, kept_url));
    assert!(
        matches!(c, Coverage::Measured { holds: None, covered, .. } if (EXTENDS_MIN_COVERED..0.8).contains(&covered)),
        "{c:?}"
    );
    assert!(!c.allows_drop(0.8), "{c:?}");
    let mut around = kept.clone();
    around.extend((0..12).map(|p| format!("{}.", note(p))));
    let (c, _) = strict_coverage_of_texts(title, (&around, url), (&kept, kept_url));
    assert!(
        matches!(c, Coverage::Measured { holds: Some(h), covered, .. } if h >= 0.9 && covered < 0.8),
        "{c:?}"
    );
    assert!(c.allows_drop(0.8), "{c:?}");
}

#[test]
fn an_entry_of_one_listing_does_not_extend_its_sibling() {
    // `struct.Stderr` after `fn.stderr`, one folder: named alike (the
    // case differs), it holds all of the function's page and says 70%
    // more. Another item, not the function's page extended; the same
    // story under another folder (print) or site still extends.
    let c = extending_coverage_at(
        (
            12,
            "Stderr in std::io - Rust",
            "http://s/std/io/struct.Stderr.html",
        ),
        (
            7,
            "stderr in std::io - Rust",
            "http://s/std/io/fn.stderr.html",
        ),
    );
    assert!(matches!(c, Coverage::Measured { holds: None, .. }), "{c:?}");
    assert!(!c.allows_drop(0.8), "{c:?}");
    // The query is not the file: a tracking parameter is the same page.
    let c = extending_coverage_at(
        (
            12,
            "Stderr in std::io - Rust",
            "http://s/std/io/fn.stderr.html?utm_source=rss",
        ),
        (
            7,
            "stderr in std::io - Rust",
            "http://s/std/io/fn.stderr.html",
        ),
    );
    assert!(
        matches!(c, Coverage::Measured { holds: Some(_), .. }),
        "{c:?}"
    );
}

#[test]
fn file_place_splits_folder_and_file_name() {
    let (f1, n1) = file_place("http://s/std/io/struct.Stderr.html");
    let (f2, n2) = file_place("https://s/std/io/fn.stderr.html?x=1#y");
    assert_eq!(f1, f2);
    assert_ne!(n1, n2);
    assert_ne!(f1, file_place("http://s/core/io/fn.stderr.html").0);
    assert_ne!(f1, file_place("http://t/std/io/fn.stderr.html").0);
    // `index.html` is its folder's page.
    assert_eq!(
        file_place("http://s/a/b/index.html"),
        file_place("http://s/a/b/")
    );
    assert_eq!(
        file_place("http://s/a/b/index.html"),
        file_place("http://s/a/b")
    );
}

#[test]
fn an_edited_original_extends_its_syndicated_copy() {
    // The syndicated copy kept first: seven paragraphs and the
    // partner's credit line. The original after it: twelve
    // paragraphs (a longer extraction), one word in forty edited in
    // each of the seven. The copy's credit line is not in the
    // original, and an edited word costs itself: the original holds
    // about 90% of the copy by words, which is enough.
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
    kept.push(
        "This article originally appeared on the Times website and is republished under licence."
            .into(),
    );
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
            url: &KeptUrl::new("http://t/syndication/haley"),
        },
        SiteTemplate::default(),
        false,
    );
    assert!(
        matches!(c, Coverage::Measured { holds: Some(h), covered, .. } if (EXTENDS_MIN_HOLDS..0.95).contains(&h) && covered < 0.8),
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
        tag: "p",
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

/// The coverage of an alphabetical index's page for `letter` (a page
/// without an article, titled like every index page of its site, named by
/// its heading and its file name) against the page of `kept_letter` with
/// the same blocks but its heading, at `kept_folder`.
fn index_letter_coverage(letter: &str, kept_letter: &str, kept_folder: &str) -> Coverage {
    let blocks = |letter: &str| -> Vec<Block> {
        let mut blocks = vec![Block {
            text: format!("Index – {letter}"),
            tag: "h1",
            link_density: 0.0,
            is_main: false,
        }];
        blocks.extend(
            [
                "Full index on one page, every entry of every letter.",
                "add() (tinyorm.Session method) apply() (tinyorm.migrations.Migration method)",
                "BigIntegerField (class in tinyorm.fields) CharField (class in tinyorm.fields)",
            ]
            .map(|t| block(t, false)),
        );
        blocks
    };
    let title = "Index — TinyORM 3.11 documentation";
    let url = format!("http://docs.example/en/genindex-{letter}.html");
    let kept_url = format!("http://docs.example/{kept_folder}/genindex-{kept_letter}.html");
    let page = PageContent::from_page(title, &blocks(letter));
    let kept = PageContent::from_page(title, &blocks(kept_letter)).evidence();
    let own = OwnContent::new(&page, SiteTemplate::default(), &url);
    assert_eq!(own.heading_name, sorted_words(letter), "{letter}");
    own.coverage(
        &page,
        Kept {
            evidence: kept.as_ref(),
            page_name: page_name(&kept_url),
            url: &KeptUrl::new(&kept_url),
        },
        SiteTemplate::default(),
        false,
    )
}

#[test]
fn a_page_is_named_by_the_heading_words_its_file_name_spells() {
    // `Index – B` on genindex-B.html is not `Index – A`, whatever else the
    // two pages share under one title...
    let other = index_letter_coverage("B", "A", "en");
    assert!(matches!(other, Coverage::OtherName { .. }), "{other:?}");
    // ...but is the same letter's page under another folder.
    let same = index_letter_coverage("B", "B", "fr");
    assert!(matches!(same, Coverage::Measured { .. }), "{same:?}");
    assert!(same.allows_drop(0.8), "{same:?}");
}

#[test]
fn main_words_count_the_link_text_of_the_main_content() {
    let entries = Block {
        text: "add() apply() BigIntegerField CharField".into(),
        tag: "li",
        link_density: 1.0,
        is_main: true,
    };
    let nav = Block {
        is_main: false,
        ..entries.clone()
    };
    let page = PageContent::from_page("", &[block("Index of every entry", true), entries, nav]);
    // An index's entries are links, and what it says: 4 + 4 words; the
    // same links outside the main content are navigation.
    assert_eq!(page.main_words(), 8);
}

/// The coverage of an item's page (no article) at `url` against the page
/// of the same name at `kept_url`, the two made of the same blocks but
/// `(own, kept)`, a block of tag `tag` that differs.
fn namesake_coverage(
    url: &str,
    kept_url: &str,
    tag: &'static str,
    (own, kept): (&str, &str),
) -> Coverage {
    let blocks = |differing: &str| -> Vec<Block> {
        let mut blocks: Vec<Block> = [
            "impl Clone for EscapeDefault, impl Debug for EscapeDefault, impl Display for EscapeDefault",
            "fn clone(&self) -> EscapeDefault returns a copy of the value",
            "fn fmt(&self, f: &mut Formatter<'_>) -> Result formats the value using the given formatter",
            "impl Iterator for EscapeDefault, impl ExactSizeIterator for EscapeDefault, impl FusedIterator",
            "This struct is created by the escape_default function. See its documentation for more.",
        ]
        .map(|t| block(t, false))
        .to_vec();
        blocks.insert(
            0,
            Block {
                tag,
                ..block(differing, false)
            },
        );
        blocks
    };
    let title = "EscapeDefault in std - Rust";
    let page = PageContent::from_page(title, &blocks(own));
    let kept = PageContent::from_page(title, &blocks(kept)).evidence();
    let own = OwnContent::new(&page, SiteTemplate::default(), url);
    own.coverage(
        &page,
        Kept {
            evidence: kept.as_ref(),
            page_name: page_name(kept_url),
            url: &KeptUrl::new(kept_url),
        },
        SiteTemplate::default(),
        false,
    )
}

#[test]
fn a_namesake_in_a_sibling_module_says_sentences_of_its_own() {
    let (ascii, char) = (
        "http://doc.example/std/ascii/struct.EscapeDefault.html",
        "http://doc.example/std/char/struct.EscapeDefault.html",
    );
    // Another type of the same name: its description is its own.
    let sentences = (
        "An iterator over the escaped version of a byte.",
        "An iterator that yields the literal escape code of a char.",
    );
    let c = namesake_coverage(ascii, char, "p", sentences);
    assert!(
        matches!(
            c,
            Coverage::Measured {
                mirror: true,
                own_sentences: 9,
                ..
            }
        ),
        "{c:?}"
    );
    assert!(!c.allows_drop(0.8), "{c:?}");
    // The same item on another platform: a note (not a paragraph) says
    // where it is available, its sentences are the kept page's.
    let note = (
        "Available on ARM and target feature crc only.",
        "Available on AArch64 and target feature crc only.",
    );
    let c = namesake_coverage(ascii, char, "div", note);
    assert!(
        matches!(
            c,
            Coverage::Measured {
                mirror: true,
                own_sentences: 0,
                ..
            }
        ),
        "{c:?}"
    );
    assert!(c.allows_drop(0.8), "{c:?}");
    // A folder more (a print view) is not a sibling module: its edits are
    // a copy's.
    let c = namesake_coverage(
        "http://doc.example/std/ascii/print/struct.EscapeDefault.html",
        char,
        "p",
        sentences,
    );
    assert!(
        matches!(
            c,
            Coverage::Measured {
                own_sentences: 0,
                ..
            }
        ),
        "{c:?}"
    );
}
