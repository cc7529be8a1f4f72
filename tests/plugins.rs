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
