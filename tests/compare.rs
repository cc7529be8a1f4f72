//! `neardup compare` on a hand-made graded corpus and a tiny benchmark:
//! the per-grade summary and separation are what the texts imply, and bad
//! input is a clear error.

use crate::util::Dir;

/// Deterministic pseudo-English text of `n` words from a 60-word
/// vocabulary (SplitMix64 with `seed`): two texts from different seeds
/// share essentially no 5-word shingle.
fn text(seed: u64, n: usize) -> Vec<String> {
    const VOCAB: &[&str] = &[
        "river", "mountain", "signal", "garden", "window", "market", "engine", "forest", "letter",
        "harbor", "planet", "bridge", "silver", "candle", "winter", "doctor", "island", "pocket",
        "thunder", "meadow", "castle", "rocket", "violin", "desert", "pepper", "ladder", "mirror",
        "falcon", "copper", "shadow", "basket", "anchor", "lantern", "saddle", "orchard",
        "glacier", "compass", "velvet", "harvest", "marble", "tunnel", "cactus", "pillow",
        "beacon", "walnut", "quarry", "jungle", "kettle", "nectar", "oyster", "parrot", "quiver",
        "ribbon", "summit", "timber", "umpire", "vessel", "wizard", "yogurt", "zipper",
    ];
    let mut rng = neardup_api::SplitMix64::new(seed);
    (0..n).map(|_| (*rng.pick(VOCAB)).to_owned()).collect()
}

/// A corpus of two tasks: per task, one verbatim copy (cut), one copy
/// with every 10th word replaced (light), half the source plus new text
/// (heavy) and two unrelated texts (non).
fn corpus(dir: &Dir) -> std::path::PathBuf {
    let mut info = String::from("File,Task,Category\n");
    for (t, task) in ["a", "b"].iter().enumerate() {
        let seed = 100 * (t as u64 + 1);
        let source = text(seed, 300);
        dir.write(&format!("data/orig_task{task}.txt"), source.join(" "));
        let light: Vec<String> = source
            .iter()
            .enumerate()
            .map(|(i, w)| {
                if i % 10 == 9 {
                    "zebra".to_owned()
                } else {
                    w.clone()
                }
            })
            .collect();
        let mut heavy: Vec<String> = source.iter().take(150).cloned().collect();
        heavy.extend(text(seed + 1, 150));
        let answers = [
            ("cut", source.join(" ")),
            ("light", light.join(" ")),
            ("heavy", heavy.join(" ")),
            ("non", text(seed + 2, 300).join(" ")),
            ("non", text(seed + 3, 300).join(" ")),
        ];
        for (i, (grade, body)) in answers.iter().enumerate() {
            let file = format!("g{i}_task{task}.txt");
            dir.write(&format!("data/{file}"), body);
            info.push_str(&format!("{file},{task},{grade}\n"));
        }
        info.push_str(&format!("orig_task{task}.txt,{task},orig\n"));
    }
    dir.write("data/file_information.csv", info)
        .parent()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_default()
}

/// The row of `table` (a Markdown table row starting with `| name |`)
/// split into trimmed cells after the name.
fn row(out: &str, header: &str, name: &str) -> Vec<String> {
    let table = out
        .split(header)
        .nth(1)
        .unwrap_or_else(|| panic!("no table {header:?} in\n{out}"));
    let line = table
        .lines()
        .find(|l| l.starts_with(&format!("| {name} |")))
        .unwrap_or_else(|| panic!("no row {name} in\n{table}"));
    line.trim_matches('|')
        .split('|')
        .skip(1)
        .map(|c| c.trim().to_owned())
        .collect()
}

#[test]
fn graded_separates_copies_from_unrelated_answers() {
    let dir = Dir::new();
    let data = corpus(&dir);
    let data = data.to_string_lossy().into_owned();
    let run = dir
        .run(&[
            "compare",
            "--clough",
            &data,
            "--detector",
            "minhash",
            "--detector",
            "exact",
        ])
        .expect_code(0);
    let out = run.stdout();
    assert!(out.contains("cut 2, light 2, heavy 2, non 4"), "{out}");

    let dist = row(&out, "| detector | cut |", "minhash");
    // Verbatim copies have resemblance exactly 1 (identical sketches).
    assert_eq!(dist[0], "1.00 / 1.00 / 1.00 / 1.00 / 1.00", "{out}");
    // Unrelated texts share no 5-shingle: every sketch position differs.
    assert_eq!(dist[3], "0.00 / 0.00 / 0.00 / 0.00 / 0.00", "{out}");
    // Every 10th word replaced breaks half the 5-shingles: Jaccard about
    // 1/3, well away from both ends.
    let light_median: f64 = dist[1].split(" / ").nth(2).unwrap().parse().unwrap();
    assert!((0.15..0.6).contains(&light_median), "{out}");

    let sep = row(&out, "| detector | AUC |", "minhash");
    assert_eq!(sep[0], "1.000", "AUC {out}");
    assert_eq!(sep[1], "1.000", "best accuracy {out}");
    // Exact hashing: the verbatim copy scores 1, everything else 0, so 2
    // of the 4 positives beat every negative and the light ones tie:
    // AUC = (2*4*1 + 2*4*0.5) / 16 = 0.75.
    let sep = row(&out, "| detector | AUC |", "exact");
    assert_eq!(sep[0], "0.750", "exact AUC {out}");
}

#[test]
fn sizes_on_a_benchmark_report_every_detector() {
    let dir = Dir::new();
    let para = |seed: u64| {
        format!(
            "<html><body><article><p>{}</p></article></body></html>",
            text(seed, 400).join(" ")
        )
    };
    let mut manifest = String::from("doc_id\turl\tpath\n");
    for i in 0..3u64 {
        dir.write(&format!("bench/docs/p{i}.html"), para(i + 1));
        manifest.push_str(&format!("p{i}\thttps://example.com/{i}\tdocs/p{i}.html\n"));
    }
    dir.write("bench/manifest.tsv", manifest);
    let run = dir
        .run(&[
            "compare",
            "--bench",
            "bench",
            "--detector",
            "exact",
            "--detector",
            "minhash",
        ])
        .expect_code(0);
    let out = run.stdout();
    // exact: a u64 fingerprint, postcard = 1 variant byte + varint (<= 10).
    let exact = row(&out, "| detector | signature", "exact");
    let sig: f64 = exact[0].parse().unwrap();
    assert!((2.0..=11.0).contains(&sig), "{out}");
    // minhash: 128 u32 values, postcard varints of 1..5 bytes each, plus
    // the variant and length bytes; three distinct pages all indexed.
    let minhash = row(&out, "| detector | signature", "minhash");
    let sig: f64 = minhash[0].parse().unwrap();
    assert!((128.0..=643.0).contains(&sig), "{out}");
    assert_eq!(minhash[3], "3", "{out}");
}

#[test]
fn bad_input_is_a_clear_error() {
    let dir = Dir::new();
    let run = dir.run(&["compare"]).expect_code(2);
    assert!(run.stderr().contains("--bench"), "{}", run.stderr());

    dir.write(
        "data/file_information.csv",
        "File,Task,Category\nx.txt,a,medium\n",
    );
    let run = dir.run(&["compare", "--clough", "data"]).expect_code(2);
    assert!(
        run.stderr().contains("unknown category \"medium\""),
        "{}",
        run.stderr()
    );
    assert!(
        run.stderr().contains("file_information.csv:2"),
        "{}",
        run.stderr()
    );

    dir.write(
        "data/file_information.csv",
        "File,Task,Category\nx.txt,a,cut\n",
    );
    let run = dir.run(&["compare", "--clough", "data"]).expect_code(2);
    assert!(
        run.stderr().contains("x.txt"),
        "missing file named: {}",
        run.stderr()
    );
}
