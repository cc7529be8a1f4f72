//! `neardup extract`: the text neardup compares, and its JSON view.

use crate::util::{fake_png, Dir};

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
