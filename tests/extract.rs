//! `neardup extract`: the text neardup compares, and its JSON view.

use crate::util::{block_role, fake_png, Dir, SITE_TEMPLATE};

#[test]
fn text_holds_the_article_and_json_has_every_field() {
    let dir = Dir::new();
    dir.copy_testdata("pages", "pages");
    let run = dir.run(&["extract", "pages/article.html"]).expect_code(0);
    let text = run.stdout();
    assert!(
        text.contains("The old fish market on the north quay"),
        "{text}"
    );
    assert!(
        text.contains("guided tours of the restored building"),
        "{text}"
    );

    let run = dir
        .run(&[
            "extract",
            "--json",
            "pages/article.html",
            "pages/unrelated.html",
        ])
        .expect_code(0);
    let objs: Vec<serde_json::Value> = run
        .stdout()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objs.len(), 2);
    assert_eq!(objs[0]["file"], "pages/article.html");
    assert_eq!(objs[1]["file"], "pages/unrelated.html");
    for o in &objs {
        for key in [
            "title",
            "language",
            "canonical",
            "robots",
            "links",
            "blocks",
            "text",
        ] {
            assert!(o.get(key).is_some(), "missing {key}: {o}");
        }
        assert!(o["links"].is_u64(), "{o}");
        let blocks = o["blocks"].as_array().unwrap();
        assert!(!blocks.is_empty());
        for b in blocks {
            assert!(b["text"].is_string() && b["tag"].is_string(), "{b}");
            assert!(
                b["main"].is_boolean() && b["link_density"].is_number(),
                "{b}"
            );
        }
    }
    assert!(objs[1]["text"]
        .as_str()
        .unwrap()
        .contains("Cherry varieties"));
}

/// The JSON view shows what a drop is judged on: blocks the earlier files
/// repeat are `template`, the page's own blocks `compared`.
#[test]
fn json_shows_which_blocks_are_template_and_which_are_compared() {
    let dir = Dir::new();
    let site = SITE_TEMPLATE;
    let files: Vec<String> = [
        "index.html",
        "guides/index.html",
        "api/index.html",
        "about.html",
        "contact.html",
        "api/fn.alpha.html",
        "manual/chapter-1.html",
        "old-edition/chapter-1.html",
    ]
    .iter()
    .map(|f| format!("{site}/{f}"))
    .collect();
    let mut args = vec!["extract", "--json"];
    args.extend(files.iter().map(String::as_str));
    let run = dir.run(&args).expect_code(0);
    let objs: Vec<serde_json::Value> = run
        .stdout()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objs.len(), files.len());
    let role_of = block_role;
    // The first page knows no template yet: its sidebar is its own.
    assert_eq!(role_of(&objs[0], "Installing widgets"), "compared");
    let stub = objs.last().unwrap();
    assert_eq!(stub["basis"], "page", "{stub}");
    assert_eq!(role_of(stub, "Installing widgets"), "template");
    assert_eq!(role_of(stub, "Copyright 2019"), "template");
    assert_eq!(role_of(stub, "Chapter 1: Shapes"), "compared");
    let chapter = &objs[6];
    assert_eq!(chapter["basis"], "article", "{chapter}");
    assert_eq!(role_of(chapter, "Every widget has a shape"), "compared");
}

#[test]
fn several_files_get_headers_and_a_missing_one_exits_2() {
    let dir = Dir::new();
    dir.copy_testdata("pages", "pages");
    dir.write("bin.html", fake_png());
    let run = dir
        .run(&["extract", "pages/short.html", "nope.html", "bin.html"])
        .expect_code(2);
    let out = run.stdout();
    assert!(out.contains("==> pages/short.html <=="), "{out}");
    assert!(out.contains("Page not found"), "{out}");
    assert!(out.contains("==> bin.html <=="), "{out}");
    let err = run.stderr();
    assert!(err.contains("nope.html"), "{err}");
    assert!(err.contains("bin.html") && err.contains("binary"), "{err}");
}

#[test]
fn full_mode_is_accepted_and_bad_mode_is_a_usage_error() {
    let dir = Dir::new();
    dir.copy_testdata("pages", "pages");
    let run = dir
        .run(&["extract", "--mode", "full", "pages/article.html"])
        .expect_code(0);
    // Full mode keeps everything visible, navigation included.
    assert!(run.stdout().contains("Sport"), "{}", run.stdout());
    dir.run(&["extract", "--mode", "most", "pages/article.html"])
        .expect_code(2);
}

/// The JSON view names a redirect stub's target (a meta refresh to an
/// absolute URL: relative targets of a local file resolve to `file:` URLs,
/// which are not redirects a crawler could follow), and only a stub's.
#[test]
fn json_names_a_redirect_stubs_target() {
    let dir = Dir::new();
    let stub = dir.write(
        "old.html",
        "<html><head><meta http-equiv=\"refresh\" content=\"0; URL='https://e.com/new/page.html'\">\
         <title>Moved</title></head><body><p>Moved to \
         <a href=\"https://e.com/new/page.html\">the new page</a>.</p></body></html>",
    );
    let page = dir.write(
        "page.html",
        "<html><head><title>A page</title></head><body><p>Nothing moved here.</p></body></html>",
    );
    let run = dir
        .run(&[
            "extract",
            "--json",
            stub.to_str().expect("utf-8 path"),
            page.to_str().expect("utf-8 path"),
        ])
        .expect_code(0);
    let objs: Vec<serde_json::Value> = run
        .stdout()
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    assert_eq!(
        objs[0]["redirect_to"], "https://e.com/new/page.html",
        "{}",
        objs[0]
    );
    assert_eq!(objs[0]["redirect_kind"], "meta_refresh");
    assert!(objs[1]["redirect_to"].is_null(), "{}", objs[1]);
}

/// The JSON view shows what the drop policy reads besides the blocks
/// (`policy`): the page's name (its title less the words its site's titles
/// share and the words of its folders), its language, its main-content
/// words and its basis.
#[test]
fn json_shows_the_name_language_size_and_basis_the_policy_reads() {
    let dir = Dir::new();
    let files = [
        "api/fn.alpha.html",
        "api/fn.beta.html",
        "api/struct.Gear.html",
        "api/struct.Lever.html",
        "arch/x86/fn.add_lanes.html",
        "fr/manual/painting.html",
        "genindex/a.html",
        "genindex/all.html",
    ];
    let paths: Vec<String> = files
        .iter()
        .map(|f| {
            let body = std::fs::read(format!("{SITE_TEMPLATE}/{f}")).expect("fixture");
            dir.write(&format!("site/{f}"), body);
            format!("site/{f}")
        })
        .collect();
    let mut args = vec!["extract", "--json"];
    args.extend(paths.iter().map(String::as_str));
    let run = dir.run(&args).expect_code(0);
    let objs: Vec<serde_json::Value> = run
        .stdout()
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    assert_eq!(objs.len(), files.len());
    let policy = |i: usize| &objs[i]["policy"];
    let name = |i: usize| -> Vec<&str> {
        policy(i)["name"]
            .as_array()
            .unwrap_or_else(|| panic!("a name: {}", objs[i]))
            .iter()
            .map(|w| w.as_str().expect("a word"))
            .collect()
    };
    for (i, o) in objs.iter().enumerate() {
        assert_eq!(policy(i)["basis"], o["basis"], "{o}");
        assert!(
            policy(i)["main_words"].as_u64().is_some_and(|n| n > 0),
            "{o}"
        );
    }
    // The first page: its whole title but the site's name (a short edge
    // segment while the site is young).
    assert_eq!(name(0), ["alpha", "in", "widget"]);
    // Three titles later, "widget" and "in" are what the site's titles
    // share: the name is the item's.
    assert_eq!(name(3), ["lever"]);
    // "arch" and "x86" are the page's folders: where it is, not its name.
    assert_eq!(name(4), ["add_lanes"]);
    assert_eq!(policy(0)["language"], "eng");
    assert_eq!(policy(5)["language"], "fra");
    assert_eq!(policy(2)["basis"], "article");
    assert_eq!(policy(6)["basis"], "page");
    // The all-in-one index says several times what its part says.
    let words = |i: usize| policy(i)["main_words"].as_u64().expect("a count");
    assert!(words(7) > 3 * words(6), "{} vs {}", words(7), words(6));
}

/// A page without an article titled like its siblings is called by the
/// words of its heading that its file name spells: `policy.heading_name`
/// shows them (`Index – B` on `genindex-B.html`), and none where the
/// heading says nothing the title does not (`genindex-all.html`).
#[test]
fn json_shows_the_heading_words_a_file_name_spells() {
    let dir = Dir::new();
    let sphinx = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/generators/sphinx/en/stable"
    );
    for f in ["genindex-B.html", "genindex-all.html"] {
        let body = std::fs::read(format!("{sphinx}/{f}")).expect("fixture");
        dir.write(f, body);
    }
    let run = dir
        .run(&["extract", "--json", "genindex-B.html", "genindex-all.html"])
        .expect_code(0);
    let objs: Vec<serde_json::Value> = run
        .stdout()
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    assert_eq!(objs[0]["policy"]["basis"], "page", "{}", objs[0]);
    assert_eq!(
        objs[0]["policy"]["heading_name"],
        serde_json::json!(["b"]),
        "{}",
        objs[0]
    );
    assert_eq!(
        objs[1]["policy"]["heading_name"],
        serde_json::json!([]),
        "{}",
        objs[1]
    );
}
