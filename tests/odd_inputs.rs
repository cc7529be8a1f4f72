//! Odd and hostile inputs to `dedup` and `extract`: a stray NUL byte,
//! binaries, gzip-compressed pages and gzip bombs, FIFOs, which files of a
//! directory are pages (`--glob`), a manifest on stdin, `--strict`, and a
//! `clusters.tsv` that standard TSV readers read back.

use std::io::Write as _;
use std::process::Stdio;
use std::time::{Duration, Instant};

use flate2::write::GzEncoder;

use crate::util::{fake_png, has_python, read_verdicts, verdict, Dir, Run};

const TEXT: &str = "Researchers at the harbour institute measured how quickly the tide \
    returned after the storm, comparing sensor logs from twelve buoys with satellite \
    images taken every hour, and found that the water rose faster near the old pier \
    than anywhere else along the northern coast of the bay during that week.";

fn original() -> String {
    format!(
        "<html><head><title>Tides</title></head><body><article><p>{TEXT}</p></article></body></html>"
    )
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn warnings(v: &serde_json::Value) -> String {
    v["warnings"].to_string()
}

/// Runs `args` in `dir`, killing the run after 60 s (a FIFO must not block it).
fn run_bounded(dir: &Dir, args: &[&str]) -> Run {
    let mut child = dir
        .cmd()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("neardup {args:?} still running after 60 s (blocked?)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Run {
        output: child.wait_with_output().unwrap(),
    }
}

#[test]
fn a_copy_with_a_stray_nul_is_a_duplicate_and_binaries_are_refused_with_a_reason() {
    let dir = Dir::new();
    dir.write("in/a-original.html", original());
    dir.write(
        "in/b-nul-copy.html",
        original().replace("<title>", "<!-- \0 --><title>"),
    );
    dir.write("in/c-png.html", fake_png());
    let random = crate::util::noise(0x9E37_79B9_7F4A_7C15, 3000);
    dir.write("in/d-random.html", &random);
    dir.run(&["dedup", "in", "--out", "out", "-q", "--no-report"])
        .expect_code(0);
    let v = read_verdicts(&dir.read("out/verdicts.jsonl"));
    let copy = verdict(&v, "b-nul-copy");
    assert_eq!(copy["verdict"], "duplicate", "{copy}");
    assert_eq!(copy["of"], "a-original", "{copy}");
    assert!(warnings(copy).contains("NUL"), "{copy}");
    let png = verdict(&v, "c-png");
    assert_eq!(png["verdict"], "unique");
    assert!(warnings(png).contains("PNG"), "{png}");
    let random = verdict(&v, "d-random");
    assert_eq!(random["verdict"], "unique");
    assert!(warnings(random).contains("control bytes"), "{random}");
}

#[test]
fn gzip_pages_are_decompressed_in_dirs_manifests_and_extract_and_a_bomb_is_cut() {
    let dir = Dir::new();
    dir.write("in/a.html", original());
    dir.write("in/b.html.gz", gzip(original().as_bytes()));
    // Sniffed by content, not by name.
    dir.write("in/c.html", gzip(original().as_bytes()));
    // 70 gzip members of 1 MiB of spaces each: 70 MiB, over the 64 MiB cap,
    // from about 70 KB on disk.
    let member = gzip(&vec![b' '; 1 << 20]);
    let bomb: Vec<u8> = member
        .iter()
        .copied()
        .cycle()
        .take(member.len() * 70)
        .collect();
    dir.write("in/d-bomb.html.gz", &bomb);
    let run = dir
        .run(&["dedup", "in", "--out", "out", "--no-report"])
        .expect_code(0);
    let v = read_verdicts(&dir.read("out/verdicts.jsonl"));
    assert_eq!(
        verdict(&v, "b.html")["of"],
        "a",
        "key of b.html.gz drops .gz only"
    );
    assert_eq!(verdict(&v, "c")["of"], "a");
    let bomb_line = v
        .iter()
        .find(|l| l["verdict"] == "error")
        .expect("the bomb is an unreadable record");
    assert!(
        bomb_line.to_string().contains("d-bomb.html.gz") && bomb_line.to_string().contains("limit"),
        "{bomb_line}"
    );
    assert!(run.stderr().contains("gzip bomb"), "{}", run.stderr());

    dir.write(
        "m.tsv",
        "doc_id\tpath\nfirst\tin/a.html\nzipped\tin/b.html.gz\n",
    );
    dir.run(&["dedup", "m.tsv", "--out", "out2", "-q", "--no-report"])
        .expect_code(0);
    let v = read_verdicts(&dir.read("out2/verdicts.jsonl"));
    assert_eq!(verdict(&v, "zipped")["of"], "first");

    let run = dir.run(&["extract", "in/b.html.gz"]).expect_code(0);
    assert!(
        run.stdout().contains("harbour institute"),
        "{}",
        run.stdout()
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_in_a_dir_or_a_manifest_is_a_per_record_error_and_strict_fails() {
    let dir = Dir::new();
    dir.write("in/a.html", original());
    dir.write("in/b.html", original());
    for fifo in ["in/pipe.html", "pipe2.html"] {
        let ok = std::process::Command::new("mkfifo")
            .arg(dir.join(fifo))
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "mkfifo {fifo}");
    }
    let run = run_bounded(&dir, &["dedup", "in", "--out", "out", "--no-report"]);
    assert_eq!(run.code(), 0, "{}", run.stderr());
    assert!(run.stderr().contains("FIFO"), "{}", run.stderr());
    let v = read_verdicts(&dir.read("out/verdicts.jsonl"));
    assert_eq!(verdict(&v, "b")["of"], "a", "the rest of the run goes on");

    dir.write(
        "m.tsv",
        "doc_id\tpath\none\tin/a.html\npiped\tpipe2.html\ntwo\tin/b.html\n",
    );
    let run = run_bounded(&dir, &["dedup", "m.tsv", "--out", "out2", "--no-report"]);
    assert_eq!(run.code(), 0, "{}", run.stderr());
    assert!(
        run.stderr().contains("m.tsv:3") && run.stderr().contains("FIFO"),
        "{}",
        run.stderr()
    );
    let run = run_bounded(
        &dir,
        &["dedup", "m.tsv", "--out", "out3", "--no-report", "--strict"],
    );
    assert_eq!(run.code(), 1, "--strict: {}", run.stderr());
    assert!(
        run.stderr().contains("1 input records could not be read"),
        "{}",
        run.stderr()
    );
    // The outputs are still written.
    let v = read_verdicts(&dir.read("out3/verdicts.jsonl"));
    assert_eq!(verdict(&v, "two")["of"], "one");
    // A FIFO given as the input itself is a stream (a manifest written by
    // another process, as `<(...)` makes): read once its writer comes.
    let child = dir
        .cmd()
        .args(["dedup", "pipe2.html", "--out", "out4", "-q", "--no-report"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Not a manifest name and not a WARC: refused once read, not hung.
    // (The reader may close first: a failed write is fine.)
    let _ = std::fs::write(dir.join("pipe2.html"), "doc_id\tpath\n");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    // extract refuses it too.
    let run = run_bounded(&dir, &["extract", "pipe2.html"]);
    assert_eq!(run.code(), 2);
    assert!(run.stderr().contains("FIFO"), "{}", run.stderr());
}

fn doc_ids(dir: &Dir, out: &str) -> Vec<String> {
    let mut ids: Vec<String> = read_verdicts(&dir.read(&format!("{out}/verdicts.jsonl")))
        .iter()
        .filter_map(|l| l["doc_id"].as_str().map(str::to_owned))
        .collect();
    ids.sort();
    ids
}

#[test]
fn directory_filters_default_globs_and_negation() {
    let dir = Dir::new();
    dir.write("site/index.html", original());
    dir.write("site/about", "<p>An extensionless page saved by wget.</p>");
    dir.write("site/meta.json", "{\"url\": \"https://example.com/\"}");
    dir.write(
        "site/LICENSE.md",
        "MIT License\n\nPermission is hereby granted.",
    );
    dir.write("site/drafts/old.html", "<p>draft</p>");
    dir.write("site/notes.txt", "plain text page");
    dir.run(&["dedup", "site", "--out", "o1", "-q", "--no-report"])
        .expect_code(0);
    assert_eq!(
        doc_ids(&dir, "o1"),
        ["about", "drafts/old", "index", "notes"]
    );
    dir.run(&[
        "dedup",
        "site",
        "--out",
        "o2",
        "-q",
        "--no-report",
        "-g",
        "*.json",
    ])
    .expect_code(0);
    assert_eq!(doc_ids(&dir, "o2"), ["meta"]);
    dir.run(&[
        "dedup",
        "site",
        "--out",
        "o3",
        "-q",
        "--no-report",
        "-g",
        "!drafts/**",
        "-g",
        "!*.txt",
    ])
    .expect_code(0);
    assert_eq!(doc_ids(&dir, "o3"), ["about", "index"]);
    dir.run(&[
        "dedup",
        "site",
        "--out",
        "o4",
        "-q",
        "--no-report",
        "--glob",
        "**/*.html",
    ])
    .expect_code(0);
    assert_eq!(doc_ids(&dir, "o4"), ["drafts/old", "index"]);
}

#[test]
fn dash_reads_a_manifest_from_stdin() {
    let dir = Dir::new();
    dir.write("p/a.html", original());
    dir.write("p/b.html", original());
    let mut child = dir
        .cmd()
        .args(["dedup", "-", "--out", "out", "-q", "--no-report"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"doc_id\turl\tpath\nx\thttps://a.example/x\tp/a.html\ny\thttps://a.example/y\tp/b.html\nz\t\tmissing.html\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = read_verdicts(&dir.read("out/verdicts.jsonl"));
    assert_eq!(verdict(&v, "y")["of"], "x");
    let missing = v
        .iter()
        .find(|l| l["verdict"] == "error")
        .expect("missing file");
    assert!(missing.to_string().contains("<stdin>:4"), "{missing}");
}

/// Keys with quotes (a leading one made pandas raise and Python's csv merge
/// rows) and other odd characters round-trip through `clusters.tsv`.
#[test]
fn clusters_tsv_reads_back_with_the_csv_crate_and_python() {
    let dir = Dir::new();
    dir.write("p/a.html", original());
    dir.write("p/b.html", original());
    dir.write(
        "p/c.html",
        "<p>Something else entirely, about gardens and bees.</p>",
    );
    dir.write(
        "m.tsv",
        "doc_id\tpath\n\"quoted start\tp/a.html\nmid\"dle\tp/b.html\n'single' , comma\tp/c.html\n",
    );
    dir.run(&["dedup", "m.tsv", "--out", "out", "-q", "--no-report"])
        .expect_code(0);
    let expected = [
        ("\"quoted start", "\"quoted start"),
        ("mid\"dle", "\"quoted start"),
        ("'single' , comma", "'single' , comma"),
    ];
    let mut r = csv::ReaderBuilder::new()
        .delimiter(b'\t')
        .from_path(dir.join("out/clusters.tsv"))
        .unwrap();
    assert_eq!(r.headers().unwrap(), vec!["doc_id", "cluster_id"]);
    let rows: Vec<(String, String)> = r
        .records()
        .map(|rec| {
            let rec = rec.unwrap();
            (rec[0].to_owned(), rec[1].to_owned())
        })
        .collect();
    let want: Vec<(String, String)> = expected
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(rows, want);

    if !has_python() {
        return;
    }
    let script = "import csv, json, sys\n\
                  with open(sys.argv[1], newline='') as f:\n    \
                  print(json.dumps(list(csv.reader(f, dialect='excel-tab'))))\n";
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(dir.join("out/clusters.tsv"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<Vec<String>> = serde_json::from_slice(&out.stdout).unwrap();
    let mut want_py = vec![vec!["doc_id".to_string(), "cluster_id".to_string()]];
    want_py.extend(
        expected
            .iter()
            .map(|(a, b)| vec![a.to_string(), b.to_string()]),
    );
    assert_eq!(rows, want_py);
}

#[test]
fn seeds_file_with_a_non_utf8_line_and_an_overlong_seed_names_their_lines() {
    let dir = Dir::new();
    let mut seeds = b"# seeds\nhttp://a.example/\xff\xfe\n".to_vec();
    seeds.extend_from_slice(format!("http://b.example/{}\n", "x".repeat(100_000)).as_bytes());
    dir.write("seeds.txt", &seeds);
    let run = dir.run(&["crawl", "--seeds", "seeds.txt", "--out", "out"]);
    let err = run.stderr();
    assert_ne!(run.code(), 0, "no valid seed is left");
    assert!(err.contains("line 2") && err.contains("not UTF-8"), "{err}");
    assert!(
        err.contains("line 3") && err.contains("2048-byte limit"),
        "{err}"
    );
    assert!(err.contains("no valid seed"), "{err}");
}
