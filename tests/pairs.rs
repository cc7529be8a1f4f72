//! Exact all-pairs Jaccard (`neardup-allpairs`, `neardup pairs`): the join
//! against brute force on random set families and real text, the counters
//! against independent counts, and the command's edge cases.

use std::collections::BTreeSet;
use std::path::Path;

use neardup_allpairs::{
    all_pairs, brute_force, length_scan, shingle_ids, DocSet, LengthFilter, Options, Pair,
};
use proptest::prelude::*;

use crate::util::Dir;

const THRESHOLDS: [f64; 6] = [0.1, 0.3, 0.5, 0.8, 0.9, 1.0];

/// The comparable part of a pair list: ids and shared counts.
fn keys(pairs: &[Pair]) -> Vec<(u32, u32, u32)> {
    pairs.iter().map(|p| (p.a, p.b, p.shared)).collect()
}

/// Jaccard by `BTreeSet`s, independent of the crate's merge.
fn naive_pairs(sets: &[BTreeSet<u64>], j: f64) -> Vec<(u32, u32, u32)> {
    let mut out = Vec::new();
    for (a, x) in sets.iter().enumerate() {
        for (b, y) in sets.iter().enumerate().skip(a + 1) {
            let inter = x.intersection(y).count();
            let union = x.union(y).count();
            if union > 0 && inter as f64 / union as f64 >= j {
                out.push((a as u32, b as u32, inter as u32));
            }
        }
    }
    out
}

/// Spreads small integers over the whole u64 range, so every partition of
/// the index's shingle-id space is exercised.
fn spread(x: u64) -> u64 {
    x.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(17)
}

/// Families with many near pairs: sets from a small universe, plus copies
/// of earlier sets with a few edits.
fn families() -> impl Strategy<Value = Vec<BTreeSet<u64>>> {
    (2u64..60).prop_flat_map(|universe| {
        let set = prop::collection::btree_set(0..universe, 0..25);
        let edit = (
            any::<prop::sample::Index>(),
            prop::collection::vec(0..universe, 0..3),
            0usize..3,
        );
        (
            prop::collection::vec(set, 0..25),
            prop::collection::vec(edit, 0..15),
        )
            .prop_map(|(mut sets, edits)| {
                for (from, add, remove) in edits {
                    if sets.is_empty() {
                        break;
                    }
                    let mut copy: BTreeSet<u64> = sets[from.index(sets.len())].clone();
                    for _ in 0..remove {
                        if let Some(&first) = copy.iter().next() {
                            copy.remove(&first);
                        }
                    }
                    copy.extend(add);
                    sets.push(copy);
                }
                sets.into_iter()
                    .map(|s| s.into_iter().map(spread).collect())
                    .collect()
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn join_equals_brute_force_on_random_families(sets in families()) {
        let docs: Vec<DocSet> = sets.iter().map(|s| DocSet::from_set(s.iter().copied())).collect();
        let n = sets.len() as u64;
        for j in THRESHOLDS {
            let expected = naive_pairs(&sets, j);
            prop_assert_eq!(&keys(&brute_force(&docs, j).unwrap()), &expected);
            for filter in [LengthFilter::None, LengthFilter::Set] {
                for count_unfiltered in [true, false] {
                    let options = Options { threshold: j, filter, count_unfiltered };
                    let out = all_pairs(&docs, &options).unwrap();
                    prop_assert_eq!(&keys(&out.pairs), &expected, "J={} {:?}", j, options);
                    for p in &out.pairs {
                        let inter = p.shared as f64;
                        let union = (sets[p.a as usize].len() + sets[p.b as usize].len()) as f64 - inter;
                        prop_assert_eq!(p.jaccard, inter / union);
                    }
                    prop_assert_eq!(out.counters.all_pairs, n * n.saturating_sub(1) / 2);
                    prop_assert_eq!(out.counters.output, expected.len() as u64);
                }
            }
            let (scan, comparisons) = length_scan(&docs, j, false).unwrap();
            prop_assert_eq!(keys(&scan), expected.clone());
            // Independent count of pairs within the set-length bound.
            let mut within = 0u64;
            for (a, x) in sets.iter().enumerate() {
                for y in sets.iter().skip(a + 1) {
                    let (s, l) = (x.len().min(y.len()), x.len().max(y.len()));
                    within += u64::from(l > 0 && s as f64 / l as f64 >= j);
                }
            }
            prop_assert_eq!(comparisons, within);

            // The weighted bound may lose pairs but never invents one, and
            // its loss counter is the difference.
            let options = Options { threshold: j, filter: LengthFilter::Weighted, count_unfiltered: true };
            let weighted = all_pairs(&docs, &options).unwrap();
            let found: BTreeSet<_> = keys(&weighted.pairs).into_iter().collect();
            let all: BTreeSet<_> = expected.iter().copied().collect();
            prop_assert!(found.is_subset(&all));
            prop_assert_eq!(weighted.counters.lost_by_weighted, Some((all.len() - found.len()) as u64));
        }
    }

    #[test]
    fn join_counters_match_independent_counts(sets in families(), j in prop::sample::select(THRESHOLDS.to_vec())) {
        let docs: Vec<DocSet> = sets.iter().map(|s| DocSet::from_set(s.iter().copied())).collect();
        let options = Options { threshold: j, filter: LengthFilter::Set, count_unfiltered: true };
        let c = all_pairs(&docs, &options).unwrap().counters;
        let (mut sharing, mut sharing_within) = (0u64, 0u64);
        for (a, x) in sets.iter().enumerate() {
            for y in sets.iter().skip(a + 1) {
                if x.intersection(y).next().is_some() {
                    sharing += 1;
                    let (s, l) = (x.len().min(y.len()), x.len().max(y.len()));
                    sharing_within += u64::from(s as f64 / l as f64 >= j);
                }
            }
        }
        prop_assert_eq!(c.joined, Some(sharing));
        prop_assert_eq!(c.joined_length, Some(sharing_within));
        prop_assert_eq!(c.verified, sharing_within);
        let postings: u64 = sets.iter().map(|s| s.len() as u64).sum();
        prop_assert_eq!(c.postings, postings);
        let mut df = std::collections::BTreeMap::new();
        for s in &sets {
            for id in s {
                *df.entry(*id).or_insert(0u64) += 1;
            }
        }
        prop_assert_eq!(c.shingles, df.len() as u64);
        prop_assert_eq!(c.postings_kept, df.values().filter(|&&d| d >= 2).sum::<u64>());
    }
}

/// Terms of every plain-text file of `dir`, normalized like `pairs --text`.
fn text_dir_terms(dir: &Path) -> Vec<Vec<String>> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    let normalizer = neardup_text::Normalizer::new(&neardup::Config::default().text);
    files
        .iter()
        .map(|p| {
            let text = String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
            normalizer.normalize(&text, None).terms.to_vec()
        })
        .collect()
}

fn check_real(terms: &[Vec<String>], ks: &[usize]) {
    for &k in ks {
        let docs: Vec<DocSet> = terms
            .iter()
            .map(|t| DocSet::from_shingles(shingle_ids(t, k)))
            .collect();
        let sets: Vec<BTreeSet<u64>> = docs
            .iter()
            .map(|d| d.ids().iter().copied().collect())
            .collect();
        for j in THRESHOLDS {
            let expected = naive_pairs(&sets, j);
            let out = all_pairs(
                &docs,
                &Options {
                    threshold: j,
                    ..Options::default()
                },
            )
            .unwrap();
            assert_eq!(keys(&out.pairs), expected, "k={k} J={j}");
            let (scan, _) = length_scan(&docs, j, false).unwrap();
            assert_eq!(keys(&scan), expected, "scan k={k} J={j}");
        }
    }
}

#[test]
fn join_equals_brute_force_on_clough_stevenson() {
    let Some(dir) = crate::skip::shared("datasets/clough-stevenson/data") else {
        return;
    };
    let terms = text_dir_terms(&dir);
    assert!(terms.len() >= 95, "{} files", terms.len());
    check_real(&terms, &[1, 3, 5]);
}

#[test]
fn join_equals_brute_force_on_dev_bench_main_text() {
    let Some(bench) = crate::util::shared_bench() else {
        return;
    };
    let dev = bench.join("neardup-dev");
    let manifest = std::fs::read_to_string(dev.join("manifest.tsv")).unwrap();
    let deduper = neardup::Deduper::new(neardup::Config::default()).unwrap();
    // Every third page keeps the debug-build test short while keeping many
    // of the set's near-duplicate clusters.
    let terms: Vec<Vec<String>> = manifest
        .lines()
        .skip(1)
        .step_by(3)
        .map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            let body = std::fs::read(dev.join(cols[2])).unwrap();
            deduper
                .analyze(cols[0], cols[1], &body, None)
                .doc
                .terms
                .to_vec()
        })
        .collect();
    assert!(terms.len() > 100);
    check_real(&terms, &[5]);
}

/// Runs `neardup pairs --text` on files of `dir`, returning the pairs as
/// (file a, file b, jaccard) and stderr.
fn pairs_cmd(dir: &Dir, files: &[&str], extra: &[&str]) -> (Vec<(String, String, String)>, String) {
    let mut args = vec!["pairs", "--text"];
    args.extend_from_slice(extra);
    args.extend_from_slice(files);
    let run = dir.run(&args).expect_code(0);
    let pairs = run
        .stdout()
        .lines()
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            assert_eq!(cols.len(), 6, "{l}");
            (cols[0].to_owned(), cols[1].to_owned(), cols[2].to_owned())
        })
        .collect();
    (pairs, run.stderr())
}

fn pair(a: &str, b: &str, j: &str) -> (String, String, String) {
    (a.to_owned(), b.to_owned(), j.to_owned())
}

const TEN: &str = "alpha bravo charlie delta echo foxtrot golf hotel india juliet";

#[test]
fn pairs_command_finds_hand_computed_jaccard() {
    let dir = Dir::new();
    dir.write("x.txt", TEN);
    // 9 of x's words plus one new one: 9 / 11 = 0.8182.
    dir.write(
        "y.txt",
        "alpha bravo charlie delta echo foxtrot golf hotel india kilo",
    );
    dir.write("z.txt", "lima mike november oscar papa");
    let files = ["x.txt", "y.txt", "z.txt"];
    let (found, stderr) = pairs_cmd(&dir, &files, &["-k", "1", "-j", "0.8"]);
    assert_eq!(found, vec![pair("x.txt", "y.txt", "0.8182")], "{stderr}");
    assert!(
        stderr.contains("all pairs (brute force)          3"),
        "{stderr}"
    );
    let (found, _) = pairs_cmd(&dir, &files, &["-k", "1", "-j", "0.82"]);
    assert!(found.is_empty());
    // With 2-shingles: x has 9, y has 9, they share 8: 8 / 10.
    let (found, _) = pairs_cmd(&dir, &files, &["-k", "2", "-j", "0.5"]);
    assert_eq!(found, vec![pair("x.txt", "y.txt", "0.8000")]);
}

#[test]
fn pairs_command_edge_cases() {
    let dir = Dir::new();
    dir.write("a.txt", TEN);
    dir.write("b.txt", TEN.to_uppercase()); // identical after normalization
    dir.write("empty1.txt", "");
    dir.write("empty2.txt", "   \n");
    dir.write("short1.txt", "alpha bravo");
    dir.write("short2.txt", "Alpha, bravo!");
    dir.write("short3.txt", "alpha bravo charlie");
    let files = [
        "a.txt",
        "b.txt",
        "empty1.txt",
        "empty2.txt",
        "short1.txt",
        "short2.txt",
        "short3.txt",
    ];
    // J = 1.0: identical documents only; two empty documents are no pair
    // (0 / 0); documents shorter than k are one shingle each, equal only
    // when their terms are.
    for extra in [
        &["-j", "1.0", "-k", "5"][..],
        &["-j", "1.0", "-k", "5", "--scan"],
        &["-j", "1", "-k", "5", "--no-length-filter"],
    ] {
        let (found, stderr) = pairs_cmd(&dir, &files, extra);
        assert_eq!(
            found,
            vec![
                pair("a.txt", "b.txt", "1.0000"),
                pair("short1.txt", "short2.txt", "1.0000")
            ],
            "{extra:?} {stderr}"
        );
    }
}

#[test]
fn pairs_command_json_and_bad_threshold() {
    let dir = Dir::new();
    dir.write("a.txt", TEN);
    dir.write("b.txt", TEN);
    let run = dir
        .run(&["pairs", "--text", "--json", "a.txt", "b.txt"])
        .expect_code(0);
    let line: serde_json::Value = serde_json::from_str(run.stdout().trim()).unwrap();
    assert_eq!(line["a"], "a.txt");
    assert_eq!(line["b"], "b.txt");
    assert_eq!(line["jaccard"], 1.0);
    // 10 terms, 5-shingles: 6 distinct shingles each.
    assert_eq!(line["size_a"], 6);
    assert_eq!(line["shared"], 6);
    let counters: serde_json::Value = serde_json::from_str(run.stderr().trim()).unwrap();
    assert_eq!(counters["all_pairs"], 1);
    assert_eq!(counters["output"], 1);
    for bad in ["0", "1.5", "-1"] {
        let arg = format!("--threshold={bad}");
        dir.run(&["pairs", "--text", &arg, "a.txt"]).expect_code(2);
    }
}
