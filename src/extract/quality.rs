//! Main-content extraction quality against hand-checked expectations.
//!
//! For the Mozilla readability test pages (`<name>/source.html` and
//! `<name>/expected.html`): tokens are lowercased `\w+` runs (Python
//! semantics: alphanumeric or `_` characters), counted with multiplicity.
//! Our main text of `source.html` is compared with the visible text of
//! `expected.html` (full mode, no boilerplate removal); per page precision,
//! recall and F1 are multiset overlaps, and the report macro-averages them
//! over all pages (an empty output scores 0).

use std::collections::HashMap;
use std::path::Path;

use crate::config::{ExtractConfig, ExtractMode};
use crate::error::{Error, Result};

use super::extract;

/// Scores of one page.
#[derive(Clone, Debug, PartialEq)]
pub struct PageScore {
    /// The page directory name.
    pub name: String,
    /// Share of our tokens that are expected.
    pub precision: f64,
    /// Share of expected tokens that we output.
    pub recall: f64,
    /// Harmonic mean of precision and recall.
    pub f1: f64,
}

/// Scores of a directory of pages.
#[derive(Clone, Debug, PartialEq)]
pub struct QualityReport {
    /// Per page, sorted by name.
    pub pages: Vec<PageScore>,
    /// Macro-averaged precision.
    pub precision: f64,
    /// Macro-averaged recall.
    pub recall: f64,
    /// Macro-averaged F1.
    pub f1: f64,
}

/// Lowercased `\w+` tokens (Python `re` semantics for `str`).
pub fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() || c == '_' {
            cur.extend(c.to_lowercase());
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Precision, recall and F1 of `got` against `want` as token multisets.
pub fn score_tokens(got: &[String], want: &[String]) -> (f64, f64, f64) {
    if got.is_empty() || want.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    let mut counts: HashMap<&str, i64> = HashMap::new();
    for t in want {
        *counts.entry(t.as_str()).or_insert(0) += 1;
    }
    let mut overlap = 0usize;
    for t in got {
        if let Some(c) = counts.get_mut(t.as_str()) {
            if *c > 0 {
                *c -= 1;
                overlap += 1;
            }
        }
    }
    let p = overlap as f64 / got.len() as f64;
    let r = overlap as f64 / want.len() as f64;
    let f = if p + r == 0.0 { 0.0 } else { 2.0 * p * r / (p + r) };
    (p, r, f)
}

/// Scores one page: our main text of `source` vs the full text of
/// `expected`.
pub fn score_page(name: &str, source: &str, expected: &str, config: &ExtractConfig) -> PageScore {
    let got = extract(source, None, config).text(ExtractMode::Main);
    let want = extract(expected, None, config).text(ExtractMode::Full);
    let (precision, recall, f1) = score_tokens(&tokens(&got), &tokens(&want));
    PageScore {
        name: name.to_string(),
        precision,
        recall,
        f1,
    }
}

/// Evaluates every `<dir>/<name>/{source,expected}.html` pair.
///
/// # Errors
/// The directory cannot be read, or a page's files are missing.
pub fn evaluate_dir(dir: &Path, config: &ExtractConfig) -> Result<QualityReport> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    let mut names = Vec::new();
    for e in entries {
        let e = e.map_err(|e| Error::io(dir, e))?;
        if e.path().join("source.html").is_file() {
            names.push(e.file_name().to_string_lossy().into_owned());
        }
    }
    names.sort();
    let mut pages = Vec::with_capacity(names.len());
    for name in names {
        let read = |f: &str| -> Result<String> {
            let path = dir.join(&name).join(f);
            let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
            Ok(crate::decode::decode(&bytes, None).text)
        };
        let source = read("source.html")?;
        let expected = read("expected.html")?;
        pages.push(score_page(&name, &source, &expected, config));
    }
    let n = pages.len().max(1) as f64;
    let precision = pages.iter().map(|p| p.precision).sum::<f64>() / n;
    let recall = pages.iter().map(|p| p.recall).sum::<f64>() / n;
    let f1 = pages.iter().map(|p| p.f1).sum::<f64>() / n;
    Ok(QualityReport {
        pages,
        precision,
        recall,
        f1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_follow_python_w() {
        assert_eq!(
            tokens("Hello, wörld_1! 日本 x-y"),
            vec!["hello", "wörld_1", "日本", "x", "y"]
        );
    }

    #[test]
    fn multiset_overlap() {
        let got = tokens("a a b c");
        let want = tokens("a b b d");
        let (p, r, f) = score_tokens(&got, &want);
        // overlap: a (1), b (1) = 2
        assert!((p - 0.5).abs() < 1e-9);
        assert!((r - 0.5).abs() < 1e-9);
        assert!((f - 0.5).abs() < 1e-9);
        assert_eq!(score_tokens(&[], &want), (0.0, 0.0, 0.0));
    }

    fn dataset() -> Option<std::path::PathBuf> {
        let d = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/datasets/readability-test-pages/test/test-pages");
        d.is_dir().then_some(d)
    }

    /// Quality floor on the readability test pages (skips without
    /// ../shared). Prints the report: `cargo test --release --lib
    /// readability_quality_floor -- --nocapture`.
    #[test]
    fn readability_quality_floor() {
        let Some(dir) = dataset() else {
            eprintln!("note: ../shared/datasets/readability-test-pages absent; skipping");
            return;
        };
        let report = evaluate_dir(&dir, &ExtractConfig::default()).unwrap();
        assert_eq!(report.pages.len(), 130);
        let mut worst = report.pages.clone();
        worst.sort_by(|a, b| a.f1.total_cmp(&b.f1));
        for p in worst.iter().take(15) {
            eprintln!("{:40} P={:.3} R={:.3} F1={:.3}", p.name, p.precision, p.recall, p.f1);
        }
        eprintln!(
            "macro over {} pages: P={:.4} R={:.4} F1={:.4}",
            report.pages.len(),
            report.precision,
            report.recall,
            report.f1
        );
        assert!(report.f1 >= 0.90, "macro F1 {:.4} below the 0.90 floor", report.f1);
    }
}
