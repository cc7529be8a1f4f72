//! `neardup dedup`: output files, warnings, determinism, flags.

use std::collections::BTreeSet;

use crate::util::{fake_png, read_clusters, read_verdicts, verdict, Dir};

/// The fixture pages plus a binary file, in `pages/`.
fn fixture() -> Dir {
    let dir = Dir::new();
    dir.copy_testdata("pages", "pages");
    // A binary body served under an .html name, as broken servers do.
    dir.write("pages/binary.html", fake_png());
    dir
}

const STEMS: [&str; 9] = [
    "article",
    "binary",
    "copy",
    "empty",
    "invalid-utf8",
    "near",
    "print",
    "short",
    "unrelated",
];

#[test]
fn every_page_once_copy_is_exact_duplicate_and_bad_pages_warn() {
    let dir = fixture();
    let run = dir.run(&["dedup", "pages", "--out", "out"]).expect_code(0);

    let clusters = read_clusters(&dir.read("out/clusters.tsv"));
    let ids: Vec<&str> = clusters.iter().map(|(d, _)| d.as_str()).collect();
    let unique_ids: BTreeSet<&str> = ids.iter().copied().collect();
    assert_eq!(ids.len(), unique_ids.len(), "a doc listed twice: {ids:?}");
    assert_eq!(unique_ids, STEMS.into_iter().collect::<BTreeSet<_>>());
    let cluster_of = |d: &str| {
        clusters
            .iter()
            .find(|(x, _)| x == d)
            .map(|(_, c)| c.clone())
            .unwrap_or_default()
    };

    let verdicts = read_verdicts(&dir.read("out/verdicts.jsonl"));
    assert_eq!(verdicts.len(), STEMS.len());
    let copy = verdict(&verdicts, "copy");
    assert_eq!(copy["verdict"], "duplicate");
    assert_eq!(copy["of"], "article");
    assert_eq!(copy["detector"], "exact");
    assert_eq!(cluster_of("copy"), "article");
    assert_eq!(cluster_of("article"), "article");

    for doc in ["unrelated", "short", "invalid-utf8", "binary", "empty"] {
        assert_eq!(verdict(&verdicts, doc)["verdict"], "unique", "{doc}");
        assert_eq!(cluster_of(doc), doc);
    }
    for doc in ["binary", "empty"] {
        let w = verdict(&verdicts, doc)["warnings"]
            .as_array()
            .unwrap()
            .len();
        assert!(w > 0, "{doc} has no warning");
        assert!(
            run.stderr().contains(&format!("neardup: warning: {doc}: ")),
            "{}",
            run.stderr()
        );
    }
    assert!(
        verdict(&verdicts, "binary")["warnings"][0]
            .as_str()
            .unwrap()
            .contains("binary"),
        "{verdicts:?}"
    );
    assert!(run.stderr().contains("9 pages:"), "{}", run.stderr());

    let json: serde_json::Value = serde_json::from_str(&dir.read("out/clusters.json")).unwrap();
    assert_eq!(json["totals"]["pages"], 9);
    assert_eq!(json["totals"]["input_errors"], 0);
    // The outputs (and the report's files) and nothing else: no
    // temporaries left behind.
    let names: BTreeSet<String> = std::fs::read_dir(dir.join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let want: BTreeSet<String> = [
        "clusters.csv",
        "clusters.json",
        "clusters.tsv",
        "config.toml",
        "report.html",
        "sites.csv",
        "texts.jsonl",
        "verdicts.jsonl",
    ]
    .map(String::from)
    .into();
    assert_eq!(names, want);
}

/// 60 pages: 12 base articles (two paragraphs of the fixture article with a
/// numbered word), each repeated with variations, so exact and near
/// duplicates interleave across the whole input.
fn many_pages(dir: &Dir) {
    let article = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/pages/article.html"),
    )
    .unwrap();
    let unrelated = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/pages/unrelated.html"),
    )
    .unwrap();
    for i in 0..60 {
        let base = i % 12;
        let mut page = if base % 2 == 0 {
            article.clone()
        } else {
            unrelated.clone()
        };
        page = page.replace("storm", &format!("storm{base}"));
        page = page.replace("tomatoes", &format!("tomatoes{base}"));
        if i % 5 == 0 {
            page = page.replace("Saturday", &format!("day{i}"));
            page = page.replace("evening", &format!("evening{i}"));
        }
        dir.write(&format!("many/p{i:03}.html"), page);
    }
}

#[test]
fn outputs_identical_across_thread_counts_and_runs() {
    let dir = Dir::new();
    many_pages(&dir);
    dir.run(&["dedup", "many", "--out", "t1", "--threads", "1"])
        .expect_code(0);
    dir.run(&["dedup", "many", "--out", "t2", "--threads", "2"])
        .expect_code(0);
    dir.run(&["dedup", "many", "--out", "t2b", "--threads", "2"])
        .expect_code(0);
    let tsv = dir.read("t1/clusters.tsv");
    // The input has copies: a run where nothing clusters proves nothing.
    let clusters = read_clusters(&tsv);
    assert_eq!(clusters.len(), 60);
    assert!(clusters.iter().filter(|(d, c)| d != c).count() >= 12);
    for other in ["t2", "t2b"] {
        for file in ["clusters.tsv", "clusters.json", "verdicts.jsonl"] {
            assert_eq!(
                dir.read(&format!("t1/{file}")),
                dir.read(&format!("{other}/{file}")),
                "{file} differs between t1 and {other}"
            );
        }
    }
}

#[test]
fn bad_config_value_exits_2_naming_file_and_key() {
    let dir = fixture();
    dir.write("bad.toml", "[chunks]\nwindow = 2\n");
    let run = dir
        .run(&["dedup", "pages", "--out", "out", "--config", "bad.toml"])
        .expect_code(2);
    let err = run.stderr();
    assert!(err.contains("bad.toml"), "{err}");
    assert!(err.contains("chunks.window"), "{err}");
    assert!(err.contains("4..=64"), "{err}");
    assert!(
        !dir.join("out").exists(),
        "output written despite the error"
    );

    dir.write("typo.toml", "[simhash]\nshingles = 3\n");
    let run = dir
        .run(&["dedup", "pages", "--out", "out", "--config", "typo.toml"])
        .expect_code(2);
    assert!(run.stderr().contains("shingles"), "{}", run.stderr());
    assert!(run.stderr().contains("typo.toml"), "{}", run.stderr());
}

#[test]
fn detector_flag_replaces_the_chain() {
    let dir = fixture();
    dir.run(&["dedup", "pages", "--out", "exact", "--detector", "exact"])
        .expect_code(0);
    let verdicts = read_verdicts(&dir.read("exact/verdicts.jsonl"));
    assert_eq!(verdict(&verdicts, "copy")["detector"], "exact");
    // Without the chunk and SimHash tiers no verdict names them; an edited
    // copy is found, if at all, through its own blocks (`content`, the
    // core's fallback behind every chain).
    assert_ne!(verdict(&verdicts, "near")["detector"], "chunks");
    for v in &verdicts {
        let d = &v["detector"];
        assert!(d.is_null() || d == "exact" || d == "content", "{v}");
    }

    let run = dir
        .run(&["dedup", "pages", "--out", "x", "--detector", "nope"])
        .expect_code(2);
    assert!(
        run.stderr().contains("unknown detector `nope`"),
        "{}",
        run.stderr()
    );
}

#[test]
fn unreadable_manifest_record_is_an_error_line_not_a_page() {
    let dir = Dir::new();
    dir.copy_testdata("pages", "docs");
    dir.write(
        "manifest.tsv",
        "doc_id\turl\tpath\n\
         a1\thttps://a.example/1\tdocs/article.html\n\
         gone\thttps://a.example/2\tdocs/missing.html\n\
         c1\thttps://b.example/1\tdocs/copy.html\n",
    );
    let run = dir
        .run(&["dedup", "manifest.tsv", "--out", "out"])
        .expect_code(0);
    let clusters = read_clusters(&dir.read("out/clusters.tsv"));
    assert_eq!(
        clusters,
        vec![
            ("a1".to_owned(), "a1".to_owned()),
            ("c1".to_owned(), "a1".to_owned())
        ]
    );
    let verdicts = read_verdicts(&dir.read("out/verdicts.jsonl"));
    assert_eq!(verdicts.len(), 3);
    // In input order, between the two pages.
    assert_eq!(verdicts[1]["verdict"], "error");
    assert!(verdicts[1]["doc_id"].is_null());
    let location = verdicts[1]["location"].as_str().unwrap();
    assert!(location.contains("manifest.tsv"), "{location}");
    assert!(
        verdicts[1]["warnings"][0]
            .as_str()
            .unwrap()
            .contains("missing.html"),
        "{verdicts:?}"
    );
    assert_eq!(verdicts[2]["site"], "b.example");
    assert_eq!(verdicts[2]["of_url"], "https://a.example/1");
    assert!(run.stderr().contains("unreadable"), "{}", run.stderr());
    let json: serde_json::Value = serde_json::from_str(&dir.read("out/clusters.json")).unwrap();
    assert_eq!(json["totals"]["input_errors"], 1);
    // Two sites: the cluster is listed as cross-site.
    assert_eq!(json["cross_site"][0]["id"], "a1");
}

#[test]
fn same_input_twice_keeps_doc_ids_unique() {
    let dir = fixture();
    dir.run(&["dedup", "pages", "pages", "--out", "out", "-q"])
        .expect_code(0);
    let clusters = read_clusters(&dir.read("out/clusters.tsv"));
    assert_eq!(clusters.len(), 2 * STEMS.len());
    let ids: BTreeSet<&str> = clusters.iter().map(|(d, _)| d.as_str()).collect();
    assert_eq!(ids.len(), clusters.len());
    // The second article is an exact copy of the first.
    assert!(clusters.contains(&("article#2".to_owned(), "article".to_owned())));
}

#[test]
fn warnings_on_stderr_are_capped() {
    let dir = Dir::new();
    for i in 0..30 {
        dir.write(&format!("e/{i:02}.html"), "");
    }
    let run = dir.run(&["dedup", "e", "--out", "out"]).expect_code(0);
    let total: usize = read_verdicts(&dir.read("out/verdicts.jsonl"))
        .iter()
        .map(|v| v["warnings"].as_array().unwrap().len())
        .sum();
    assert!(total >= 30, "every empty page warns");
    let err = run.stderr();
    let printed = err
        .lines()
        .filter(|l| l.starts_with("neardup: warning: "))
        .count();
    assert_eq!(printed, 20, "{err}");
    assert!(
        err.contains(&format!("{} more warnings not shown", total - 20)),
        "{err}"
    );
}

#[test]
fn quiet_run_prints_nothing() {
    let dir = fixture();
    let run = dir
        .run(&["dedup", "pages", "--out", "out", "--quiet"])
        .expect_code(0);
    assert_eq!(run.stderr(), "");
    assert_eq!(run.stdout(), "");
}

#[test]
fn missing_input_exits_2_before_writing() {
    let dir = Dir::new();
    let run = dir
        .run(&["dedup", "no-such-dir", "--out", "out"])
        .expect_code(2);
    assert!(run.stderr().contains("no-such-dir"), "{}", run.stderr());
    assert!(!dir.join("out").exists());
}

#[test]

fn near_copy_and_print_version_cluster_with_article() {
    // Expected after the merge: the copy with three words edited and the
    // printer-friendly version (same title and paragraphs, no navigation or
    // footer) are both dropped as near duplicates (or duplicates) of the
    // article, and land in its cluster. The unrelated page stays alone.
    let dir = fixture();
    dir.run(&["dedup", "pages", "--out", "out", "-q"])
        .expect_code(0);
    let verdicts = read_verdicts(&dir.read("out/verdicts.jsonl"));
    for doc in ["near", "print"] {
        let v = verdict(&verdicts, doc);
        assert_ne!(v["verdict"], "unique", "{doc}: {v}");
        assert_eq!(v["of"], "article", "{doc}: {v}");
    }
    let clusters = read_clusters(&dir.read("out/clusters.tsv"));
    for (doc, cluster) in &clusters {
        let want = match doc.as_str() {
            "article" | "copy" | "near" | "print" => "article",
            other => other,
        };
        assert_eq!(cluster, want, "{doc}");
    }
}

#[test]

fn article_inside_other_site_chrome_is_near_duplicate() {
    // Expected after the merge: the article's body inside a different site's
    // heavy chrome (long menus, sidebar, footer) is a near duplicate of the
    // article, because main-content extraction drops the chrome; and a page
    // with that chrome but another body is not.
    let dir = Dir::new();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/pages");
    let article = std::fs::read_to_string(root.join("article.html")).unwrap();
    let unrelated = std::fs::read_to_string(root.join("unrelated.html")).unwrap();
    let body = |page: &str| {
        let start = page.find("<article>").unwrap();
        let end = page.find("</article>").unwrap() + "</article>".len();
        page[start..end].to_owned()
    };
    let menu: String = (0..40)
        .map(|i| format!("<li><a href=\"/section/{i}\">Section number {i} of the portal</a></li>"))
        .collect();
    let chrome = |b: &str| {
        format!(
            "<html><head><title>Portal</title></head><body><ul class=\"menu\">{menu}</ul>\
             <aside><h3>Most read</h3><ul>{menu}</ul></aside>{b}\
             <footer><p>Portal Media Group, registered office, terms of use, privacy, \
             cookies, contact us, advertise with us.</p></footer></body></html>"
        )
    };
    dir.write("in/a-article.html", &article);
    dir.write("in/b-syndicated.html", chrome(&body(&article)));
    dir.write("in/c-transplant.html", chrome(&body(&unrelated)));
    dir.run(&["dedup", "in", "--out", "out", "-q"])
        .expect_code(0);
    let verdicts = read_verdicts(&dir.read("out/verdicts.jsonl"));
    let syndicated = verdict(&verdicts, "b-syndicated");
    assert_ne!(syndicated["verdict"], "unique", "{syndicated}");
    assert_eq!(syndicated["of"], "a-article");
    let transplant = verdict(&verdicts, "c-transplant");
    assert_eq!(transplant["verdict"], "unique", "{transplant}");
}
