//! Damaged index files and killed writers: every command that opens an
//! index (`dedup --index`, `export`, `serve`, and `crawl --resume` in
//! `crawl_resume.rs`) answers each case of a damage matrix (truncations,
//! flips in the header and in pages, zeroed pages) with exit 2 and a
//! message naming the file, or, where the damage cannot matter, with exit 0
//! and the right output; never a panic (101) or an abort (134). An index
//! left by a SIGKILL opens with or without its recovery bit; `dedup
//! --index` killed at many moments loses no acknowledged verdict, leaves
//! its verdicts readable in `verdicts.jsonl.partial`, and a rerun agrees.

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

/// What a damaged index must give in every command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Exit 2 and a message naming the file: the damage is detected.
    Refused,
    /// Exit 0 and the right output: the damage cannot matter (redb's
    /// recovery undoes it, or nothing reads those bytes).
    Harmless,
    /// One of the two, never anything else (a flip in a page that may be
    /// live, freed, or redb's allocator state).
    Either,
}

/// One damaged variant of an index file.
pub struct Damage {
    pub name: String,
    pub bytes: Vec<u8>,
    pub expect: Expect,
}

/// The pages of `good` (4 KiB each) after the header page that hold
/// anything: B-tree pages live or freed, allocator state.
fn used_pages(good: &[u8]) -> Vec<usize> {
    (1..good.len() / 4096)
        .filter(|p| good[p * 4096..(p + 1) * 4096].iter().any(|b| *b != 0))
        .collect()
}

/// The damage matrix over a redb index file (docs/usage.md, "When the
/// index file is damaged", says which damage is detected): truncations,
/// single-byte flips in the header (byte 9, redb's god byte, among them)
/// and in pages, zeroed pages. Offsets follow redb's file format 2: a
/// 64-byte header, then two 128-byte commit slots (the primary one is
/// given by bit 0 of byte 9). `killed`: `good` was left by a SIGKILL (its
/// recovery-required bit set); a flipped primary bit then goes unnoticed
/// (redb's recovery opens the commit before the last; docs/usage.md) and
/// is left out.
pub fn damage_matrix(good: &[u8], killed: bool) -> Vec<Damage> {
    use Expect::{Either, Harmless, Refused};
    let mut out = vec![Damage {
        name: "empty".into(),
        bytes: Vec::new(),
        expect: Refused,
    }];
    let len = good.len();
    for cut in [100, 320, 4096, len / 2, len - 4096, len - 1] {
        out.push(Damage {
            name: format!("truncated-{cut}"),
            bytes: good[..cut].to_vec(),
            expect: Refused,
        });
    }
    let primary = 64 + 128 * usize::from(good[9] & 1);
    let secondary = 64 + 128 * usize::from(good[9] & 1 == 0);
    let flips: [(&str, usize, u8, Expect); 16] = [
        ("magic", 0, 0xFF, Refused),
        ("byte9-primary-bit", 9, 0x01, Refused),
        ("byte9-recovery-bit", 9, 0x02, Harmless),
        ("byte9-two-phase-bit", 9, 0x04, Harmless),
        ("byte9-all", 9, 0xFF, Refused),
        ("header-padding", 10, 0x01, Refused),
        ("page-size", 13, 0x01, Refused),
        ("region-header-pages", 16, 0x01, Either),
        ("region-max-pages", 20, 0x01, Either),
        ("region-count", 24, 0x01, Either),
        ("region-tracker-page", 32, 0x01, Either),
        ("primary-slot-root", primary + 8, 0x01, Refused),
        ("primary-slot-length", primary + 32, 0x01, Refused),
        ("primary-slot-checksum", primary + 120, 0x01, Refused),
        ("secondary-slot-root", secondary + 8, 0x01, Harmless),
        ("header-page-tail", 1000, 0x01, Harmless),
    ];
    for (name, at, x, expect) in flips {
        if killed && name == "byte9-primary-bit" {
            continue;
        }
        let mut bytes = good.to_vec();
        bytes[at] ^= x;
        out.push(Damage {
            name: format!("flip-{name}"),
            bytes,
            expect,
        });
    }
    let used = used_pages(good);
    let mut every = good.to_vec();
    for p in &used {
        every[p * 4096 + 100] ^= 0x55;
    }
    out.push(Damage {
        name: "flip-every-page".into(),
        bytes: every,
        expect: Refused,
    });
    // Single pages spread over those in use: live or freed, which cannot
    // be told from outside.
    let step = (used.len() / 6).max(1);
    for p in used.iter().step_by(step) {
        let mut bytes = good.to_vec();
        bytes[p * 4096 + 40] ^= 0x55;
        out.push(Damage {
            name: format!("flip-page-{p}"),
            bytes,
            expect: Either,
        });
        let mut bytes = good.to_vec();
        bytes[p * 4096..(p + 1) * 4096].fill(0);
        out.push(Damage {
            name: format!("zeroed-page-{p}"),
            bytes,
            expect: Either,
        });
    }
    out
}

/// Asserts a run refused the index clearly.
pub fn refused(run: &Run, what: &str, file: &str) {
    let err = run.stderr();
    assert_eq!(run.code(), 2, "{what} on {file}: exit code\n{err}");
    assert!(
        err.contains(file) && err.contains("index"),
        "{what} on {file}: message names the index: {err}"
    );
    assert!(!err.contains("panicked"), "{what} on {file}: {err}");
}

/// `serve --index FILE`: `Err` with exit 2 at startup, or `Ok(indexed)`
/// once it listened, answered `GET /v1/stats` (its `indexed`), and then
/// shut down cleanly on SIGINT (exit 0), closing the index; killed after
/// 20 s.
fn serve(dir: &Dir, file: &str) -> Result<u64, Run> {
    use std::io::{BufRead as _, Read as _, Write as _};
    let mut child = dir
        .cmd()
        .args(["serve", "--listen", "127.0.0.1:0", "--index", file])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    let _ = stderr.read_line(&mut first);
    let mut indexed = None;
    if let Some(addr) = first.trim().strip_prefix("neardup: listening on http://") {
        // Once a request is answered the server (and its signal handler) runs.
        let mut conn = std::net::TcpStream::connect(addr).unwrap();
        write!(
            conn,
            "GET /v1/stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut response = String::new();
        conn.read_to_string(&mut response).unwrap();
        let body = response.split("\r\n\r\n").nth(1).unwrap_or_default();
        let stats: serde_json::Value = serde_json::from_str(body)
            .unwrap_or_else(|e| panic!("serve on {file}: {e}: {response}"));
        indexed = stats["indexed"].as_u64();
        let status = std::process::Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut rest = String::new();
    let _ = stderr.read_to_string(&mut rest);
    let status = child.wait().unwrap();
    match indexed {
        Some(n) if status.code() == Some(0) => Ok(n),
        _ => Err(Run {
            output: std::process::Output {
                status,
                stdout: Vec::new(),
                stderr: (first + &rest).into_bytes(),
            },
        }),
    }
}

/// The number of pages `export` wrote, from its summary line.
fn exported(run: &Run) -> usize {
    let err = run.stderr();
    let n = err
        .split("exported ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok());
    n.unwrap_or_else(|| panic!("no export summary: {err}"))
}

/// Runs `export`, `dedup --index` and `serve` on `file` holding `bytes`
/// and checks the outcome against `expect`: exit 2 with a clear message
/// (and the damaged bytes left as they were), or exit 0 with the right
/// output (`pages` records exported; every page of `input`, all in the
/// index before the damage, found as a copy; a clean close after which
/// the file opens whole). Returns whether the file was refused.
fn check_commands(dir: &Dir, file: &str, bytes: &[u8], expect: Expect, pages: usize) -> bool {
    dir.write(file, bytes);
    let out = format!("o-{file}");
    let dedup = [
        "dedup",
        "in",
        "--out",
        &out,
        "--index",
        file,
        "-q",
        "--no-report",
    ];
    let run = dir.run(&["export", "--index", file, "--out", "x.parquet"]);
    let was_refused = run.code() != 0;
    match (expect, was_refused) {
        (Expect::Harmless, true) => panic!("export on {file}: refused: {}", run.stderr()),
        (Expect::Refused, false) => panic!("export on {file}: not detected: {}", run.stderr()),
        _ => {}
    }
    if was_refused {
        refused(&run, "export", file);
        // Nothing was written to the damaged file, not even by redb's recovery.
        assert_eq!(std::fs::read(dir.join(file)).unwrap(), bytes, "{file}");
        refused(&dir.run(&dedup), "dedup --index", file);
        assert_eq!(std::fs::read(dir.join(file)).unwrap(), bytes, "{file}");
        match serve(dir, file) {
            Ok(_) => panic!("serve on {file}: started on an index export refused"),
            Err(run) => refused(&run, "serve", file),
        }
        return true;
    }
    assert_eq!(exported(&run), pages, "export on {file}");
    dir.run(&dedup).expect_code(0);
    let verdicts = crate::util::read_verdicts(&dir.read(&format!("{out}/verdicts.jsonl")));
    assert_eq!(verdicts.len(), pages, "{file}");
    for v in &verdicts {
        assert_ne!(
            v["verdict"], "unique",
            "dedup on {file}: a page was lost: {v}"
        );
    }
    match serve(dir, file) {
        Ok(indexed) => assert_eq!(indexed, pages as u64, "serve on {file}"),
        Err(run) => panic!("serve on {file}: exit {}: {}", run.code(), run.stderr()),
    }
    let run = dir
        .run(&["export", "--index", file, "--out", "x.parquet"])
        .expect_code(0);
    assert_eq!(exported(&run), pages, "export again on {file}");
    false
}

#[test]
fn damage_matrix_is_exit_2_or_harmless_in_dedup_export_and_serve() {
    let dir = Dir::new();
    let good = good_index(&dir);
    let mut outcomes: Vec<String> = Vec::new();
    let mut refused_either = 0;
    for d in damage_matrix(&good, false) {
        let file = format!("{}.redb", d.name);
        let was_refused = check_commands(&dir, &file, &d.bytes, d.expect, 40);
        if was_refused && d.expect == Expect::Either {
            refused_either += 1;
        }
        outcomes.push(format!("{} {}", d.name, if was_refused { 2 } else { 0 }));
        std::fs::remove_file(dir.join(&file)).unwrap();
    }
    eprintln!("damage matrix (exit codes): {}", outcomes.join(", "));
    assert!(
        refused_either > 0,
        "no single-page damage detected: {outcomes:?}"
    );
    // A truncated file says what happened and what to do.
    dir.write("t.redb", &good[..100_000]);
    let err = dir
        .run(&["export", "--index", "t.redb", "--out", "x.parquet"])
        .stderr();
    assert!(err.contains("damaged") && err.contains("rebuild"), "{err}");
}

/// An index left by a SIGKILL (redb's recovery-required bit set), as it
/// is and with that bit cleared (byte 9): the integrity check on open
/// recovers both. (The bit cleared, redb trusted a stale allocator state:
/// exit 2 on a recoverable file, or 101/134 when its close committed over
/// live pages.)
#[cfg(unix)]
#[test]
fn killed_index_with_its_recovery_bit_cleared_is_recovered() {
    let dir = Dir::new();
    const PAGES: usize = 700;
    write_pages(&dir, "big", 0..PAGES as u64);
    let mut child = dir
        .cmd()
        .args(["dedup", "big", "--out", "k", "--index", "k.redb", "-q"])
        .args(["--no-report", "--threads", "2"])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Killed once a window is committed and acknowledged.
    let start = Instant::now();
    while written_lines(&dir.join("k")).is_empty() && start.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
    let acknowledged: Vec<String> = written_lines(&dir.join("k"))
        .iter()
        .filter(|l| l["indexed"] == true)
        .map(|l| l["doc_id"].as_str().unwrap().to_owned())
        .collect();
    assert!(!acknowledged.is_empty());
    let killed = std::fs::read(dir.join("k.redb")).unwrap();
    assert_ne!(
        killed[9] & 0x02,
        0,
        "killed before the run closed its index"
    );
    let mut cleared = killed.clone();
    cleared[9] &= !0x02;
    for (name, bytes) in [("killed", killed), ("killed-bit-cleared", cleared)] {
        let file = format!("{name}.redb");
        dir.write(&file, &bytes);
        let run = dir
            .run(&["export", "--index", &file, "--out", "x.parquet"])
            .expect_code(0);
        let stored = exported(&run);
        assert!(stored >= acknowledged.len(), "{name}: {stored} records");
        let keys = stored_keys(&dir.join(&file));
        for k in &acknowledged {
            assert!(keys.contains(k), "{name}: acknowledged {k} lost");
        }
        // Every page again: those in the index are copies, the others new,
        // and the index ends with all of them.
        let out = format!("o-{name}");
        dir.run(&[
            "dedup",
            "big",
            "--out",
            &out,
            "--index",
            &file,
            "-q",
            "--no-report",
        ])
        .expect_code(0);
        let verdicts = crate::util::read_verdicts(&dir.read(&format!("{out}/verdicts.jsonl")));
        assert_eq!(verdicts.len(), PAGES);
        let unique = verdicts.iter().filter(|v| v["verdict"] == "unique").count();
        assert_eq!(unique, PAGES - stored, "{name}");
        let run = dir
            .run(&["export", "--index", &file, "--out", "x.parquet"])
            .expect_code(0);
        assert_eq!(exported(&run), PAGES, "{name}");
    }
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

/// Verdict lines a run had written: `verdicts.jsonl` once finished,
/// `verdicts.jsonl.partial` until then (also after a kill), never a hidden
/// temporary file. Every complete line is a JSON verdict; a last line cut
/// by a kill in the middle of a write (no newline) is skipped, as readers
/// must skip it.
fn written_lines(out: &Path) -> Vec<serde_json::Value> {
    let Ok(entries) = std::fs::read_dir(out) else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        assert!(
            !name.starts_with(".verdicts"),
            "hidden verdicts file {name}"
        );
        if name == "verdicts.jsonl" || name == "verdicts.jsonl.partial" {
            let text = std::fs::read_to_string(e.path()).unwrap_or_default();
            let complete = text.rfind('\n').map_or("", |end| &text[..end]);
            lines.extend(complete.lines().map(|l| {
                serde_json::from_str(l).unwrap_or_else(|e| panic!("{name}: bad line {l:?}: {e}"))
            }));
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
    // How long a whole run of one round's pages takes on this machine and
    // build (its own pages and index): the kill moments below are shares
    // of it, so that most runs are killed on a fast machine too.
    write_pages(&dir, "calibrate", 1_000_000..1_000_000 + PER_ROUND);
    let start = Instant::now();
    dir.run(&[
        "dedup",
        "calibrate",
        "--out",
        "calibrated",
        "--index",
        "calibrate.redb",
        "-q",
        "--no-report",
        "--threads",
        "2",
    ])
    .expect_code(0);
    let whole = start.elapsed();
    let share = |x: u64, most: f64| whole.mul_f64(most * (x % 1000) as f64 / 1000.0);
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
            std::thread::sleep(share(x, 0.6));
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
            std::thread::sleep(share(x, 0.3));
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
    // The last round's pages again, to the end, with the same index: a
    // complete verdicts.jsonl (the partial file renamed), and every page
    // acknowledged as kept is found as itself.
    let last = format!("r{}", ROUNDS - 1);
    dir.run(&[
        "dedup",
        &last,
        "--out",
        "rerun",
        "--index",
        "i.redb",
        "-q",
        "--no-report",
    ])
    .expect_code(0);
    assert!(!dir.join("rerun/verdicts.jsonl.partial").exists());
    let verdicts = crate::util::read_verdicts(&dir.read("rerun/verdicts.jsonl"));
    assert_eq!(verdicts.len(), PER_ROUND as usize);
    for v in &verdicts {
        let key = v["doc_id"].as_str().unwrap();
        if kept.contains_key(key) {
            assert_eq!(v["verdict"], "duplicate", "{v}");
            assert_eq!(v["of"], key, "{v}");
        }
    }
    let stored = stored_keys(&index);
    for v in &verdicts {
        let key = v["doc_id"].as_str().unwrap();
        assert!(
            stored.contains(key),
            "{key} not in the index after the rerun"
        );
    }
}
