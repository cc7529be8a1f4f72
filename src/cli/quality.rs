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

use neardup::Error;
use neardup::Result;
use neardup_html::{extract, ExtractConfig, ExtractMode};

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
    let f = if p + r == 0.0 {
        0.0
    } else {
        2.0 * p * r / (p + r)
    };
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
            Ok(neardup_html::decode(&bytes, None).text.into_owned())
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
        crate::skip::shared("datasets/readability-test-pages/test/test-pages")
    }

    /// Quality floor on the readability test pages (skips without
    /// ../shared). Prints the report: `cargo test --release --lib
    /// readability_quality_floor -- --nocapture`.
    #[test]
    fn readability_quality_floor() {
        let Some(dir) = dataset() else {
            return;
        };
        let report = evaluate_dir(&dir, &ExtractConfig::default()).unwrap();
        assert_eq!(report.pages.len(), 130);
        let mut worst = report.pages.clone();
        worst.sort_by(|a, b| a.f1.total_cmp(&b.f1));
        for p in worst.iter().take(15) {
            eprintln!(
                "{:40} P={:.3} R={:.3} F1={:.3}",
                p.name, p.precision, p.recall, p.f1
            );
        }
        eprintln!(
            "macro over {} pages: P={:.4} R={:.4} F1={:.4}",
            report.pages.len(),
            report.precision,
            report.recall,
            report.f1
        );
        assert!(
            report.f1 >= 0.90,
            "macro F1 {:.4} below the 0.90 floor",
            report.f1
        );
        // The classifier must beat keeping everything by a wide margin on
        // precision, or the main/full distinction means nothing.
        let full_precision = full_text_precision(&dir);
        eprintln!("full-text baseline macro precision: {full_precision:.4}");
        assert!(report.precision > full_precision + 0.1);
    }

    /// Macro precision of the full text (no boilerplate removal).
    fn full_text_precision(dir: &Path) -> f64 {
        let mut sum = 0.0;
        let mut n = 0.0;
        for e in std::fs::read_dir(dir).unwrap() {
            let d = e.unwrap().path();
            let (Ok(s), Ok(x)) = (
                std::fs::read_to_string(d.join("source.html")),
                std::fs::read_to_string(d.join("expected.html")),
            ) else {
                continue;
            };
            let c = ExtractConfig::default();
            let got = extract(&s, None, &c).text(ExtractMode::Full);
            let want = extract(&x, None, &c).text(ExtractMode::Full);
            sum += score_tokens(&tokens(&got), &tokens(&want)).0;
            n += 1.0;
        }
        sum / n
    }
}

#[cfg(test)]
mod neardup_dev {
    use super::*;

    /// Print and syndicated pages of the near-duplicate benchmark: a print
    /// page is all content, so main text must keep (nearly) all of it.
    /// `cargo test --release --lib neardup_dev -- --nocapture`
    #[test]
    fn print_pages_keep_their_text() {
        let Some(dir) = crate::skip::shared("bench/neardup-dev") else {
            return;
        };
        let labels = std::fs::read_to_string(dir.join("labels.tsv")).unwrap();
        let c = ExtractConfig::default();
        let mut worst: Vec<(f64, String, String)> = Vec::new();
        for line in labels.lines().skip(1) {
            let f: Vec<&str> = line.split('\t').collect();
            let (Some(id), Some(kind)) = (f.first(), f.get(4)) else {
                continue;
            };
            if *kind != "print" && *kind != "syndicated" {
                continue;
            }
            let Ok(html) = std::fs::read_to_string(dir.join("docs").join(format!("{id}.html")))
            else {
                continue;
            };
            let e = extract(&html, None, &c);
            let main = tokens(&e.text(ExtractMode::Main)).len() as f64;
            let full = tokens(&e.text(ExtractMode::Full)).len().max(1) as f64;
            worst.push((main / full, id.to_string(), kind.to_string()));
        }
        worst.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (r, id, kind) in worst.iter().take(12) {
            eprintln!("{id} {kind} main/full tokens = {r:.3}");
        }
        let print: Vec<f64> = worst
            .iter()
            .filter(|w| w.2 == "print")
            .map(|w| w.0)
            .collect();
        let min_print = print.iter().copied().fold(1.0, f64::min);
        eprintln!(
            "print pages: {} min main/full = {min_print:.3}",
            print.len()
        );
        assert!(min_print >= 0.8, "a print page lost its text: {min_print}");

        // Every non-print page vs the print page of its cluster (the bare
        // article): F1 of main-text tokens.
        let mut by_cluster: HashMap<String, String> = HashMap::new();
        let rows: Vec<Vec<String>> = labels
            .lines()
            .skip(1)
            .map(|l| l.split('\t').map(str::to_string).collect())
            .collect();
        let main_of = |id: &str| -> Vec<String> {
            let html = std::fs::read_to_string(dir.join("docs").join(format!("{id}.html")))
                .unwrap_or_default();
            tokens(&extract(&html, None, &c).text(ExtractMode::Main))
        };
        for r in &rows {
            if r.get(4).map(String::as_str) == Some("print") {
                by_cluster.insert(r[1].clone(), r[0].clone());
            }
        }
        let mut scores: Vec<(f64, f64, f64, String, String)> = Vec::new();
        for r in &rows {
            let kind = r.get(4).cloned().unwrap_or_default();
            if kind == "print" {
                continue;
            }
            let Some(print) = by_cluster.get(&r[1]) else {
                continue;
            };
            let (p, rc, f) = score_tokens(&main_of(&r[0]), &main_of(print));
            scores.push((f, p, rc, r[0].clone(), kind));
        }
        scores.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (f, p, r, id, kind) in scores.iter().take(15) {
            eprintln!("{id} {kind:10} vs print: P={p:.3} R={r:.3} F1={f:.3}");
        }
        let mean = scores.iter().map(|s| s.0).sum::<f64>() / scores.len().max(1) as f64;
        eprintln!("mean F1 vs print over {} pages: {mean:.4}", scores.len());
    }
}
