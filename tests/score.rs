//! The Rust scorer against the Python reference (`../shared/bench/score.py`)
//! on the dev benchmark's labels: the whole report must be identical, digit
//! for digit. Skipped (with a note) when python3 or ../shared is missing.

use std::path::{Path, PathBuf};
use std::process::Command;

use neardup_api::SplitMix64 as Rng;

use crate::util::{has_python, shared_bench, Dir};

fn setup() -> Option<(PathBuf, PathBuf)> {
    let bench = shared_bench()?;
    if !has_python() {
        return None;
    }
    let labels = crate::skip::shared("bench/neardup-dev/labels.tsv")?;
    Some((bench.join("score.py"), labels))
}

fn python(script: &Path, args: &[&Path]) -> String {
    let out = Command::new("python3")
        .arg(script)
        .args(args)
        .output()
        .expect("run score.py");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Both scorers on `pred`; panics on any difference.
fn compare(dir: &Dir, script: &Path, labels: &Path, pred: &Path) {
    let want = python(script, &[labels, pred]);
    let labels_s = labels.to_str().unwrap();
    let pred_s = pred.to_str().unwrap();
    let got = dir
        .run(&["score", labels_s, pred_s])
        .expect_code(0)
        .stdout();
    assert_eq!(got, want, "differs from score.py on {}", pred.display());
    assert!(want.lines().last().unwrap().starts_with("pairF1="));
}

/// Gold doc ids and clusters, in file order.
fn gold(labels: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(labels).unwrap();
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let mut f = l.split('\t');
            Some((f.next()?.to_owned(), f.next()?.to_owned()))
        })
        .collect()
}

#[test]
fn same_report_as_score_py_on_several_predictions() {
    let Some((script, labels)) = setup() else {
        return;
    };
    let dir = Dir::new();
    let docs = gold(&labels);
    assert!(docs.len() > 100);

    // All singletons.
    let mut singletons = String::from("doc_id\tcluster_id\n");
    for (d, _) in &docs {
        singletons.push_str(&format!("{d}\t{d}\n"));
    }
    let p = dir.write("singletons.tsv", singletons);
    compare(&dir, &script, &labels, &p);

    // The gold itself (labels.tsv is a valid predictions file).
    compare(&dir, &script, &labels, &labels);

    // Perturbations with fixed seeds: docs moved to another gold cluster,
    // made singletons, or left out; one as TSV without header, one as JSONL
    // with numeric cluster ids.
    let clusters: Vec<&str> = docs.iter().map(|(_, c)| c.as_str()).collect();
    for (seed, name) in [(7u64, "perturbed.tsv"), (99, "perturbed.jsonl")] {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ seed);
        let mut text = String::new();
        for (i, (d, c)) in docs.iter().enumerate() {
            let roll = rng.below(100);
            let cluster = match roll {
                0..=11 => clusters[rng.below(clusters.len())].to_owned(),
                12..=16 => format!("solo-{i}"),
                17..=19 => continue,
                _ => c.clone(),
            };
            if name.ends_with(".jsonl") {
                let n = cluster.bytes().fold(0u64, |h, b| h * 31 + u64::from(b)) % 1_000_000;
                text.push_str(&format!("{{\"doc_id\": \"{d}\", \"cluster_id\": {n}}}\n"));
            } else {
                text.push_str(&format!("{d}\t{cluster}\n"));
            }
        }
        // Ids the labels do not know are ignored by both.
        if name.ends_with(".tsv") {
            text.push_str("not-a-doc\tx\n");
        }
        let p = dir.write(name, text);
        compare(&dir, &script, &labels, &p);
    }

    // The naive baseline's predictions, written by score.py itself.
    let base = dir.join("baseline.tsv");
    let out = Command::new("python3")
        .arg(&script)
        .arg(&labels)
        .arg("--baseline")
        .arg("--write-pred")
        .arg(&base)
        .output()
        .expect("run score.py --baseline");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    compare(&dir, &script, &labels, &base);
}

#[test]
fn eval_report_matches_score_py_on_its_own_clusters() {
    let Some((script, _)) = setup() else {
        return;
    };
    let dir = Dir::new();
    dir.copy_testdata("pages", "bench/docs");
    // A small labeled set over the fixtures: the article family is one
    // cluster, so the stub's misses and hits both show up in the numbers.
    let docs = [
        ("article", "c1", "original"),
        ("copy", "c1", "syndicated"),
        ("near", "c1", "edited"),
        ("print", "c1", "print"),
        ("unrelated", "c2", "negative"),
        ("short", "c3", "negative"),
        ("invalid-utf8", "c4", "negative"),
    ];
    let mut labels = String::from("doc_id\tcluster_id\tsite\turl\tkind\n");
    let mut manifest = String::from("doc_id\turl\tpath\n");
    let mut order = String::new();
    for (i, (d, c, k)) in docs.iter().enumerate() {
        labels.push_str(&format!(
            "{d}\t{c}\ts{i}.example\thttps://s{i}.example/{d}\t{k}\n"
        ));
        manifest.push_str(&format!("{d}\thttps://s{i}.example/{d}\tdocs/{d}.html\n"));
        order.push_str(&format!("{d}\n"));
    }
    dir.write("bench/labels.tsv", labels);
    dir.write("bench/manifest.tsv", manifest);
    dir.write("bench/order.txt", order);
    let run = dir
        .run(&["eval", "bench", "--out", "out", "-q"])
        .expect_code(0);
    let ours: Vec<String> = run
        .stdout()
        .lines()
        .skip(1) // names differ
        .filter(|l| {
            !["throughput:", "memory:", "output:"]
                .iter()
                .any(|p| l.starts_with(p))
        })
        .map(str::to_owned)
        .collect();
    let theirs = python(
        &script,
        &[&dir.join("bench/labels.tsv"), &dir.join("out/clusters.tsv")],
    );
    let theirs: Vec<String> = theirs.lines().skip(1).map(str::to_owned).collect();
    assert_eq!(ours, theirs);
}
