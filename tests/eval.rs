//! `neardup eval` on a tiny benchmark written by the test.

use crate::util::Dir;

/// Five docs: an article, an exact copy on another site, an unrelated page
/// and its copy, and a loner; crawl order puts a copy before its original.
fn tiny_bench(dir: &Dir) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/pages");
    let read = |n: &str| std::fs::read_to_string(root.join(n)).unwrap();
    dir.write("bench/docs/d1.html", read("article.html"));
    dir.write("bench/docs/d2.html", read("copy.html"));
    dir.write("bench/docs/d3.html", read("unrelated.html"));
    dir.write("bench/docs/d4.html", read("unrelated.html"));
    dir.write("bench/docs/d5.html", read("short.html"));
    dir.write(
        "bench/labels.tsv",
        "doc_id\tcluster_id\tsite\turl\tkind\n\
         d1\tc1\ta.example\thttps://a.example/1\toriginal\n\
         d2\tc1\tb.example\thttps://b.example/1\tsyndicated\n\
         d3\tc2\ta.example\thttps://a.example/2\toriginal\n\
         d4\tc2\ta.example\thttps://a.example/2?utm=x\tnatural\n\
         d5\tc3\tc.example\thttps://c.example/\tnegative\n",
    );
    dir.write("bench/order.txt", "d4\nd1\nd3\nd2\nd5\n");
    dir.write(
        "bench/manifest.tsv",
        "doc_id\turl\tpath\n\
         d4\thttps://a.example/2?utm=x\tdocs/d4.html\n\
         d1\thttps://a.example/1\tdocs/d1.html\n\
         d3\thttps://a.example/2\tdocs/d3.html\n\
         d2\thttps://b.example/1\tdocs/d2.html\n\
         d5\thttps://c.example/\tdocs/d5.html\n",
    );
}

#[test]
fn eval_scores_exact_copies_perfectly_and_ends_with_f1_line() {
    let dir = Dir::new();
    tiny_bench(&dir);
    let run = dir
        .run(&["eval", "bench", "--out", "kept", "--threads", "2"])
        .expect_code(0);
    let out = run.stdout();
    let lines: Vec<&str> = out.lines().collect();
    // Both gold pairs are exact copies, so the prediction equals the gold.
    assert_eq!(
        lines.last().copied(),
        Some("pairF1=1.0000 dropF1=1.0000"),
        "{out}"
    );
    assert!(lines[0].contains("5 docs, 3 gold clusters"), "{out}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("pairs") && l.ends_with("1.000  1.000  1.000")),
        "{out}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("throughput: 5 pages")),
        "{out}"
    );
    // --out keeps the files; clusters are named after the first doc crawled.
    let tsv = dir.read("kept/clusters.tsv");
    assert_eq!(
        tsv,
        "doc_id\tcluster_id\nd4\td4\nd1\td1\nd3\td4\nd2\td1\nd5\td5\n"
    );
}

#[test]
fn eval_with_exact_only_still_ends_with_f1_line_and_missing_labels_exit_2() {
    let dir = Dir::new();
    tiny_bench(&dir);
    let run = dir
        .run(&["eval", "bench", "--detector", "exact"])
        .expect_code(0);
    let out = run.stdout();
    assert!(
        out.lines().last().unwrap_or("").starts_with("pairF1="),
        "{out}"
    );
    assert!(out.contains("neardup [exact]"), "{out}");

    std::fs::remove_file(dir.join("bench/labels.tsv")).unwrap();
    let run = dir.run(&["eval", "bench"]).expect_code(2);
    assert!(run.stderr().contains("labels.tsv"), "{}", run.stderr());
}
