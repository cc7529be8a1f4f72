//! The plugin detectors through the real binary: each, alone in the chain,
//! finds the fixture's near copy of the article and keeps the unrelated
//! page; bad plugin settings are config errors naming the key.

use crate::util::{read_verdicts, verdict, Dir};

const PLUGINS: [&str; 5] = ["minhash", "min_n", "mod_n", "bsw", "sentence"];

#[test]
fn each_plugin_alone_finds_the_near_copy() {
    let dir = Dir::new();
    dir.copy_testdata("pages", "pages");
    for name in PLUGINS {
        let out = format!("out-{name}");
        dir.run(&["dedup", "pages", "--out", &out, "--detector", name, "-q"])
            .expect_code(0);
        let verdicts = read_verdicts(&dir.read(&format!("{out}/verdicts.jsonl")));
        let near = verdict(&verdicts, "near");
        assert!(
            near["verdict"] == "near_duplicate" || near["verdict"] == "duplicate",
            "{name}: {near}"
        );
        assert_eq!(near["of"], "article", "{name}: {near}");
        assert_eq!(near["detector"], name, "{name}: {near}");
        // The exact copy is caught by the plugin too (no exact detector in
        // the chain), and the unrelated page is not matched.
        let copy = verdict(&verdicts, "copy");
        assert_eq!(copy["verdict"], "duplicate", "{name}: {copy}");
        assert_eq!(copy["detector"], name, "{name}: {copy}");
        let unrelated = verdict(&verdicts, "unrelated");
        assert_eq!(unrelated["verdict"], "unique", "{name}: {unrelated}");
    }
}

#[test]
fn plugins_chain_after_builtins() {
    let dir = Dir::new();
    dir.copy_testdata("pages", "pages");
    dir.run(&[
        "dedup",
        "pages",
        "--out",
        "out",
        "--detector",
        "exact",
        "--detector",
        "minhash",
        "-q",
    ])
    .expect_code(0);
    let verdicts = read_verdicts(&dir.read("out/verdicts.jsonl"));
    // The exact copy is decided by the first detector of the chain.
    assert_eq!(verdict(&verdicts, "copy")["detector"], "exact");
    assert_eq!(verdict(&verdicts, "near")["detector"], "minhash");
}

#[test]
fn bad_plugin_setting_is_a_config_error_naming_the_key() {
    let dir = Dir::new();
    dir.copy_testdata("pages", "pages");
    dir.write("bad.toml", "[plugins.minhash]\nbands = 64\nrows = 4\n");
    let run = dir
        .run(&[
            "--config",
            "bad.toml",
            "dedup",
            "pages",
            "--out",
            "out",
            "--detector",
            "minhash",
        ])
        .expect_code(2);
    let err = run.stderr();
    assert!(err.contains("plugins.minhash.bands"), "{err}");
    assert!(err.contains("num_perm"), "{err}");

    dir.write("typo.toml", "[plugins.sentence]\nallow = 0.3\n");
    let run = dir
        .run(&[
            "--config",
            "typo.toml",
            "dedup",
            "pages",
            "--out",
            "out",
            "--detector",
            "sentence",
        ])
        .expect_code(2);
    let err = run.stderr();
    assert!(err.contains("plugins.sentence"), "{err}");
    assert!(err.contains("allow"), "{err}");
}

/// An article page of the given sentences.
fn article(title: &str, sentences: &[&str]) -> String {
    format!(
        "<html><head><title>{title}</title></head><body><article><h1>{title}</h1><p>{}</p></article></body></html>",
        sentences.join(" ")
    )
}

#[test]
fn sentence_percentage_counts_all_earlier_pages_through_the_core() {
    let a = [
        "The harbor market opened at dawn on Saturday morning.",
        "Fishermen unloaded crates of mackerel onto the old stone pier.",
        "Children chased gulls between the wooden stalls near the water.",
        "A brass band played sea shanties beside the lighthouse steps.",
    ];
    let b = [
        "The mountain railway closed for repairs during the spring thaw.",
        "Engineers replaced three rusted bridges along the northern line.",
        "Hikers walked the empty track to reach the alpine meadows.",
        "The station cafe sold hot chocolate to the waiting tourists.",
    ];
    // Half of each: 50% of its sentences in either page, 100% seen overall.
    let stitched = [a[0], a[1], b[2], b[3]];
    let dir = Dir::new();
    dir.write("pages/1-a.html", article("Harbor market", &a));
    dir.write("pages/2-b.html", article("Mountain railway", &b));
    dir.write("pages/3-c.html", article("Weekend roundup", &stitched));
    dir.write("strict.toml", "[plugins.sentence]\nallowed = 0.6\n");
    dir.run(&[
        "--config",
        "strict.toml",
        "dedup",
        "pages",
        "--out",
        "out",
        "--detector",
        "sentence",
        "-q",
    ])
    .expect_code(0);
    let verdicts = read_verdicts(&dir.read("out/verdicts.jsonl"));
    assert_eq!(verdict(&verdicts, "2-b")["verdict"], "unique");
    let c = verdict(&verdicts, "3-c");
    // Pairwise (50% < 60%) it would be kept; over all earlier pages every
    // sentence was seen, so the detector matches the page sharing most (a
    // tie at 50%: the earlier page wins). The core still keeps it: half
    // of it is in no single kept page, and a drop must lose nothing. The
    // verdict says what matched and why it was kept.
    assert_eq!(c["verdict"], "unique", "{c}");
    let warning = c["warnings"][0].as_str().unwrap_or("");
    assert!(warning.contains("kept although sentence matched"), "{c}");
    assert!(warning.contains("1-a.html"), "{c}");
}
