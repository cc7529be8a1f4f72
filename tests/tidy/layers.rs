//! The crate graph goes one way: each workspace crate depends (normal
//! dependencies) only on crates of a lower layer; the pure crates'
//! manifests name no I/O crate.

use std::collections::{BTreeMap, BTreeSet};

/// Each workspace crate's layer: a crate may depend only on crates of a
/// strictly lower layer (plugins sit beside the text crate, on the API).
const LAYERS: &[(&str, u32)] = &[
    ("neardup-api", 0),
    ("neardup-text", 1),
    ("neardup-minhash", 1),
    ("neardup-bsw", 1),
    ("neardup-sentence", 1),
    ("neardup-allpairs", 1),
    ("neardup-multiref", 1),
    ("neardup-html", 2),
    ("neardup", 3),
    ("neardup-output", 4),
    ("neardup-serve", 4),
    ("neardup-batch", 5),
    ("neardup-report", 5),
    ("neardup-crawl", 5),
    ("neardup-cli", 6),
    ("neardup-python", 6),
    ("neardup-experiments", 6),
];

fn normal_deps(manifest: &toml::Table) -> BTreeSet<String> {
    let mut deps = BTreeSet::new();
    if let Some(t) = manifest.get("dependencies").and_then(|d| d.as_table()) {
        deps.extend(t.keys().cloned());
    }
    if let Some(targets) = manifest.get("target").and_then(|d| d.as_table()) {
        for target in targets.values() {
            if let Some(t) = target.get("dependencies").and_then(|d| d.as_table()) {
                deps.extend(t.keys().cloned());
            }
        }
    }
    deps
}

#[test]
fn crates_depend_only_downward() {
    let layers: BTreeMap<&str, u32> = LAYERS.iter().copied().collect();
    let manifests = crate::manifests();
    assert!(manifests.len() >= 10, "found only {:?}", manifests.keys());
    let mut bad = Vec::new();
    for (name, (_, manifest)) in &manifests {
        let Some(&mine) = layers.get(name.as_str()) else {
            bad.push(format!(
                "{name}: not in tests/tidy/layers.rs's LAYERS; give it a layer"
            ));
            continue;
        };
        for dep in normal_deps(manifest) {
            if let Some(&theirs) = layers.get(dep.as_str()) {
                if theirs >= mine {
                    bad.push(format!(
                        "{name} (layer {mine}) depends on {dep} (layer {theirs}): not downward"
                    ));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Crates the pure layers must not depend on: HTTP, network, async
/// runtimes, storage.
const IO_CRATES: &[&str] = &[
    "reqwest",
    "hyper",
    "hyper-util",
    "axum",
    "tower",
    "tokio",
    "redis",
    "redb",
    "tempfile",
    "parquet",
    "indicatif",
    "clap",
];

#[test]
fn html_and_text_crates_have_no_io_dependencies() {
    let manifests = crate::manifests();
    for name in ["neardup-api", "neardup-text", "neardup-html"] {
        let (_, manifest) = &manifests[name];
        let io: Vec<String> = normal_deps(manifest)
            .into_iter()
            .filter(|d| IO_CRATES.contains(&d.as_str()))
            .collect();
        assert!(io.is_empty(), "{name} depends on {io:?}");
    }
}
