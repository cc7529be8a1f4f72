//! Damaged index files and killed writers: every command that opens an
//! index (`dedup --index`, `export`, `serve`, `crawl --resume` in
//! `crawl_resume.rs`) answers a truncated, byte-flipped or empty redb file
//! with exit 2 and a message naming the file, never a panic (exit 101);
//! and `dedup --index` killed at many moments loses no acknowledged verdict
//! and leaves an index that opens.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use neardup::store_identity;
use neardup::Config;
use neardup::Registry;
use neardup::{DocStore as _, RedbStore};

use crate::util::{Dir, Run};

fn page(n: u64) -> Vec<u8> {
    format!(
        "<html><head><title>t</title></head><body><article><p>{}</p></article></body></html>",
        crate::util::pseudo_words(n, 50, 20_000)
    )
    .into_bytes()
}

fn write_pages(dir: &Dir, sub: &str, seeds: std::ops::Range<u64>) {
    for s in seeds {
        dir.write(&format!("{sub}/p{s:05}.html"), page(s));
    }
}

/// A good index of 40 pages, its bytes.
fn good_index(dir: &Dir) -> Vec<u8> {
    write_pages(dir, "in", 0..40);
    dir.run(&[
        "dedup",
        "in",
        "--out",
        "o",
        "--index",
        "good.redb",
        "-q",
        "--no-report",
    ])
    .expect_code(0);
    std::fs::read(dir.join("good.redb")).unwrap()
}

/// The damaged variants of `good`: name and bytes.
fn damaged(good: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut out = vec![("empty".to_string(), Vec::new())];
    for cut in [
        100,
        512,
        4096,
        100_000,
        1_000_000,
        good.len() / 2,
        good.len() - 1,
    ] {
        out.push((
            format!("truncated-{cut}"),
            good[..cut.min(good.len())].to_vec(),
        ));
    }
    // The header's magic number.
    let mut magic = good.to_vec();
    magic[0] ^= 0xFF;
    out.push(("flipped-magic".into(), magic));
    // One byte of every 4 KiB page.
    let mut pages = good.to_vec();
    for at in (100..pages.len()).step_by(4096) {
        pages[at] ^= 0xFF;
    }
    out.push(("flipped-pages".into(), pages));
    out
}

/// Asserts a run refused the index clearly.
fn refused(run: &Run, what: &str, file: &str) {
    let err = run.stderr();
    assert_eq!(run.code(), 2, "{what} on {file}: exit code\n{err}");
    assert!(
        err.contains(file) && err.contains("index"),
        "{what} on {file}: message names the index: {err}"
    );
    assert!(!err.contains("panicked"), "{what} on {file}: {err}");
}

/// `serve --index FILE`: it must exit (2) on its own; killed after 20 s.
fn serve(dir: &Dir, file: &str) -> Run {
    let mut child = dir
        .cmd()
        .args(["serve", "--listen", "127.0.0.1:0", "--index", file])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Run {
        output: child.wait_with_output().unwrap(),
    }
}

#[test]
fn truncated_flipped_and_empty_indexes_are_exit_2_in_every_command() {
    let dir = Dir::new();
    let good = good_index(&dir);
    assert!(good.len() > 1_000_000, "the index is {} bytes", good.len());
    for (name, bytes) in damaged(&good) {
        let file = format!("{name}.redb");
        dir.write(&file, &bytes);
        let run = dir.run(&["export", "--index", &file, "--out", "x.parquet"]);
        refused(&run, "export", &file);
        let run = dir.run(&[
            "dedup",
            "in",
            "--out",
            "o2",
            "--index",
            &file,
            "-q",
            "--no-report",
        ]);
        refused(&run, "dedup --index", &file);
        // The damaged file is left as it was: nothing "repaired" it away.
        assert_eq!(std::fs::read(dir.join(&file)).unwrap(), bytes, "{file}");
        refused(&serve(&dir, &file), "serve", &file);
    }
    // A truncated file says what happened and what to do.
    let err = dir
        .run(&[
            "export",
            "--index",
            "truncated-100000.redb",
            "--out",
            "x.parquet",
        ])
        .stderr();
    assert!(err.contains("damaged") && err.contains("rebuild"), "{err}");
}

#[test]
fn single_byte_flips_anywhere_never_panic() {
    let dir = Dir::new();
    let good = good_index(&dir);
    // Forty positions spread over the file: some hit live pages, some free
    // space. Exit 0 (the flip did not matter) or 2, never a panic.
    let mut outcomes: HashMap<i32, usize> = HashMap::new();
    for k in 0..40usize {
        let at = (k * 7919 * 131) % good.len();
        let mut bytes = good.clone();
        bytes[at] ^= 0x55;
        let file = format!("flip-{at}.redb");
        dir.write(&file, &bytes);
        let run = dir.run(&["export", "--index", &file, "--out", "x.parquet"]);
        assert!(
            matches!(run.code(), 0 | 2),
            "flip at {at}: exit {}\n{}",
            run.code(),
            run.stderr()
        );
        assert!(
            !run.stderr().contains("panicked"),
            "flip at {at}: {}",
            run.stderr()
        );
        // Writing into it too (every fourth: each run checks 40 pages).
        if k % 4 == 0 {
            let run = dir.run(&[
                "dedup",
                "in",
                "--out",
                "o2",
                "--index",
                &file,
                "-q",
                "--no-report",
            ]);
            assert!(
                matches!(run.code(), 0 | 2),
                "dedup on flip at {at}: exit {}\n{}",
                run.code(),
                run.stderr()
            );
            assert!(!run.stderr().contains("panicked"), "dedup on flip at {at}");
        }
        *outcomes.entry(run.code()).or_default() += 1;
        std::fs::remove_file(dir.join(&file)).unwrap();
    }
    eprintln!("byte flips: exit codes {outcomes:?}");
}

/// Verdict lines a killed run had written: its temporary verdicts file,
/// complete lines only (the last one may be cut).
fn written_lines(out: &Path) -> Vec<serde_json::Value> {
    let Ok(entries) = std::fs::read_dir(out) else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name == "verdicts.jsonl" || name.starts_with(".verdicts.jsonl.") {
            let text = std::fs::read_to_string(e.path()).unwrap_or_default();
            let complete = text.rfind('\n').map_or("", |end| &text[..end]);
            lines.extend(complete.lines().map(|l| serde_json::from_str(l).unwrap()));
        }
    }
    lines
}

/// The keys of the records in the index at `path`.
fn stored_keys(path: &Path) -> HashSet<String> {
    let identity = store_identity(&Config::default(), &Registry::default()).unwrap();
    let store = RedbStore::open(path, &identity).unwrap();
    let mut keys = HashSet::new();
    store
        .for_each(&mut |_, rec| {
            keys.insert(rec.key.clone());
        })
        .unwrap();
    keys
}

/// The promise (crates/core/src/index/redb_store.rs, "Durability contract"; crates/batch/src/run.rs):
/// the batch driver flushes the index (fsync) before it writes a window's
/// verdicts, so a verdict line that reached `verdicts.jsonl` (or its
/// temporary file, for a killed run) is acknowledged: its page, if kept,
/// is in the index whatever happens next.
#[cfg(unix)]
#[test]
fn dedup_index_killed_in_many_rounds_loses_no_acknowledged_verdict() {
    let dir = Dir::new();
    const ROUNDS: u64 = 10;
    const PER_ROUND: u64 = 600;
    let index: PathBuf = dir.join("i.redb");
    let mut kept: HashMap<String, u64> = HashMap::new();
    let mut acknowledged = 0usize;
    let mut finished = 0usize;
    // Moments spread from opening the index to the middle of writing
    // verdicts (pseudo-random, fixed seed).
    let mut rng = neardup_api::SplitMix64::new(0x2545_F491_4F6C_DD1D);
    for round in 0..ROUNDS {
        // Each round brings new pages (so every run writes) plus the
        // previous round's, which must be found in the index.
        let sub = format!("r{round}");
        write_pages(&dir, &sub, round * PER_ROUND..(round + 1) * PER_ROUND);
        let x = rng.next_u64();
        let out = dir.join(&format!("o{round}"));
        let mut child = dir
            .cmd()
            .args(["dedup", &sub, "--out"])
            .arg(&out)
            .arg("--index")
            .arg(&index)
            .args(["-q", "--no-report", "--threads", "2"])
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        if round % 2 == 0 {
            // Early: while the index is opened, rebuilt or first written.
            std::thread::sleep(Duration::from_millis(20 + x % 800));
        } else {
            // Late: once verdicts are being written (whatever the speed of
            // the machine), plus a little more, into the next writes.
            let start = Instant::now();
            while written_lines(&out).is_empty()
                && child.try_wait().unwrap().is_none()
                && start.elapsed() < Duration::from_secs(60)
            {
                std::thread::sleep(Duration::from_millis(10));
            }
            std::thread::sleep(Duration::from_millis(x % 400));
        }
        let _ = child.kill(); // SIGKILL: no destructor, no flush
        let status = child.wait().unwrap();
        if status.success() {
            finished += 1;
        }
        if status.code() == Some(2) || status.code() == Some(101) {
            let mut err = String::new();
            use std::io::Read as _;
            let _ = child.stderr.take().unwrap().read_to_string(&mut err);
            panic!("round {round}: the run failed before the kill: {err}");
        }
        for l in written_lines(&out) {
            acknowledged += 1;
            if l["verdict"] == "unique" {
                let key = l["doc_id"].as_str().unwrap().to_owned();
                assert!(
                    kept.insert(key.clone(), round).is_none(),
                    "{key} kept twice"
                );
            }
        }
        if !index.exists() {
            // Killed before the index was created (it appears complete or
            // not at all: created beside and renamed into place).
            assert!(
                kept.is_empty(),
                "round {round}: pages kept without an index"
            );
            continue;
        }
        // The index reopens through the binary (no panic, no error)...
        dir.run(&["export", "--index", "i.redb", "--out", "x.parquet"])
            .expect_code(0);
        // ... and every page acknowledged as kept is in it.
        let stored = stored_keys(&index);
        for key in kept.keys() {
            assert!(stored.contains(key), "{key} lost after round {round}");
        }
    }
    eprintln!(
        "kill loop: {ROUNDS} rounds ({finished} finished before the kill), {acknowledged} \
         acknowledged verdicts, {} pages kept",
        kept.len()
    );
    assert!(acknowledged > 0, "no round got as far as writing a verdict");
    assert!(
        finished < ROUNDS as usize / 2,
        "most runs must be killed, not finish"
    );
}
