//! Tests over the real WARC/ARC samples in `../shared/datasets/warc-samples`
//! (skipped when absent).

use std::path::{Path, PathBuf};

use super::{open, Item};

const SAMPLES: &str = "../shared/datasets/warc-samples";

fn samples_root() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(SAMPLES);
    if root.is_dir() {
        Some(root)
    } else {
        eprintln!("note: {} absent; real-sample tests skipped", root.display());
        None
    }
}

/// Every `*.warc*` / `*.arc*` file under the samples, sorted.
fn sample_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let name = e.file_name().to_string_lossy().to_string();
                if name.contains(".warc") || name.contains(".arc") {
                    out.push(p);
                }
            }
        }
    }
    out.sort();
    out
}

struct Tally {
    pages: usize,
    warnings: Vec<String>,
    keys: Vec<String>,
}

fn tally(path: &Path) -> Result<Tally, String> {
    let items = open(path).map_err(|e| e.to_string())?;
    let mut t = Tally {
        pages: 0,
        warnings: Vec::new(),
        keys: Vec::new(),
    };
    for item in items {
        match item {
            Item::Page(p) => {
                t.pages += 1;
                t.keys.push(p.key);
            }
            Item::Warning(w) => t.warnings.push(w.to_string()),
        }
    }
    Ok(t)
}

#[test]
fn survey_all_samples() {
    let Some(root) = samples_root() else { return };
    let files = sample_files(&root);
    assert!(
        files.len() >= 20,
        "expected the sample files, found {}",
        files.len()
    );
    for f in &files {
        let rel = f.strip_prefix(&root).unwrap_or(f).display().to_string();
        match tally(f) {
            Ok(t) => {
                eprintln!("{rel}: {} pages, {} warnings", t.pages, t.warnings.len());
                for w in t.warnings.iter().take(5) {
                    eprintln!("    {w}");
                }
                // Every file either yields pages or says why not.
            }
            Err(e) => eprintln!("{rel}: ERR {e}"),
        }
    }
}
