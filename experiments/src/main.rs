//! Reproduces section 4.1 of the shingling vs. content-chunking paper
//! (Figures 2, 3 and 4) with neardup's shipped detectors.
//!
//! ```text
//! cargo run --release -p neardup-experiments --bin modification -- \
//!     --corpus /work/shared/datasets/readability-test-pages/test/test-pages \
//!     --out docs/img/modification
//! ```
//!
//! Documents: the hand-checked article of each readability test page
//! (`expected.html`, text through neardup's extractor), those with at least
//! `--min-bytes` of text, one copy of each text, no Lorem ipsum filler. For each document, one seeded sequence of up to 50
//! random insertions of `"a "`; the average similarity over documents per
//! number of insertions, per method and window, goes to `modification.csv`
//! and one SVG per method. The similarity of every pair of distinct original
//! documents goes to `pairs.csv` and to CDF figures. `summary.json` holds the
//! run's parameters and the headline numbers.
#![forbid(unsafe_code)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Parser;
use neardup::{ExtractConfig, ExtractMode};
use neardup_experiments as modification;
use neardup_text::Normalizer;
use rayon::prelude::*;

#[derive(Parser, Debug)]
#[command(about = "Section 4.1 controlled-modification experiment, with plots")]
struct Args {
    /// Directory of readability test pages (one sub-directory per page,
    /// each with expected.html).
    #[arg(long)]
    corpus: PathBuf,
    /// Output directory for the CSV, JSON and SVG files.
    #[arg(long)]
    out: PathBuf,
    /// Largest number of insertions.
    #[arg(long, default_value_t = 50)]
    max_insertions: usize,
    /// Seed of the insertion positions.
    #[arg(long, default_value_t = 20_080_601)]
    seed: u64,
    /// Skip documents with less normalized text than this (bytes).
    #[arg(long, default_value_t = 2000)]
    min_bytes: usize,
}

/// One document of the corpus.
struct Doc {
    name: String,
    text: String,
    bytes: usize,
}

fn load(corpus: &Path, min_bytes: usize) -> Result<Vec<Doc>> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(corpus)
        .with_context(|| format!("reading corpus directory {}", corpus.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("expected.html").is_file())
        .collect();
    dirs.sort();
    let normalizer = modification::default_normalizer();
    let config = ExtractConfig::default();
    let mut docs = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for dir in dirs {
        let path = dir.join("expected.html");
        let raw = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        let html = String::from_utf8_lossy(&raw);
        let text = neardup_html::extract(&html, None, &config).text(ExtractMode::Full);
        let doc = modification::document(&normalizer, &text);
        let bytes = doc.words.iter().map(|w| w.len() + 1).sum::<usize>();
        if bytes < min_bytes {
            continue;
        }
        // The paper's corpus is 100 truly distinct reports. The test suite
        // has the same article twice (two lifehacker pages) and several
        // hand-made cases filled with Lorem ipsum: keep one copy of each
        // text and no filler, so the distinct-pairs CDF is about distinct
        // documents.
        if doc.words.first().is_some_and(|w| w == "lorem") {
            eprintln!("skipping {}: Lorem ipsum filler", dir.display());
            continue;
        }
        if !seen.insert(neardup_api::hash64(doc.words.join(" ").as_bytes())) {
            eprintln!("skipping {}: same text as an earlier page", dir.display());
            continue;
        }
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        docs.push(Doc { name, text, bytes });
    }
    if docs.len() < 2 {
        bail!(
            "{} has {} documents with at least {min_bytes} bytes of text; need 2",
            corpus.display(),
            docs.len()
        );
    }
    Ok(docs)
}

fn main() -> Result<()> {
    let args = Args::parse();
    let docs = load(&args.corpus, args.min_bytes)?;
    let methods = modification::methods().context("building the detectors")?;
    let normalizer = modification::default_normalizer();
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    eprintln!("{} documents, {} methods", docs.len(), methods.len());
    let avg = average_curves(&args, &docs, &methods, &normalizer)?;
    let pair_sims = pair_similarities(&args, &docs, &methods, &normalizer)?;
    let summary = family_charts(&args, &methods, &avg, &pair_sims)?;
    window20_chart(&args, &methods, &pair_sims)?;
    write_summary(&args, &docs, summary)
}

/// Figure 2: per document, the similarity of each method after `i`
/// insertions (`curves[m][i]`), averaged over the documents; written to
/// `modification.csv`.
fn average_curves(
    args: &Args,
    docs: &[Doc],
    methods: &[modification::Method],
    normalizer: &Normalizer,
) -> Result<Vec<Vec<f64>>> {
    // Figure 2: per document, curves[m][i]; then the average over documents.
    let per_doc: Vec<Vec<Vec<f64>>> = docs
        .par_iter()
        .map(|d| {
            let seed = args.seed ^ neardup_api::hash64(d.name.as_bytes());
            modification::similarity_curves(methods, normalizer, &d.text, args.max_insertions, seed)
        })
        .collect();
    let n_docs = per_doc.len() as f64;
    let mut avg = vec![vec![0.0; args.max_insertions + 1]; methods.len()];
    for curves in &per_doc {
        for (a, c) in avg.iter_mut().zip(curves) {
            for (x, y) in a.iter_mut().zip(c) {
                *x += y / n_docs;
            }
        }
    }
    let mut csv = String::from("family,window,insertions,avg_similarity,docs\n");
    for (m, a) in methods.iter().zip(&avg) {
        for (i, s) in a.iter().enumerate() {
            writeln!(csv, "{},{},{i},{s:.6},{}", m.family, m.window, docs.len())?;
        }
    }
    write(&args.out.join("modification.csv"), &csv)?;

    Ok(avg)
}

/// Figures 3 and 4: the similarity of every pair of distinct originals,
/// per method; the non-zero ones (SimHash's left out) written to
/// `pairs.csv`.
fn pair_similarities(
    args: &Args,
    docs: &[Doc],
    methods: &[modification::Method],
    normalizer: &Normalizer,
) -> Result<Vec<Vec<f64>>> {
    // Figures 3 and 4: similarity of every pair of distinct originals.
    let signed: Vec<Vec<_>> = docs
        .par_iter()
        .map(|d| {
            let doc = modification::document(normalizer, &d.text);
            methods.iter().map(|m| m.detector.sign(&doc)).collect()
        })
        .collect();
    let mut pair_sims: Vec<Vec<f64>> = vec![Vec::new(); methods.len()];
    let mut pairs_csv = String::from("family,window,doc_a,doc_b,similarity\n");
    for (a, sa) in signed.iter().enumerate() {
        for (b, sb) in signed.iter().enumerate().skip(a + 1) {
            for (k, m) in methods.iter().enumerate() {
                let (Some(x), Some(y)) = (sa.get(k), sb.get(k)) else {
                    continue;
                };
                let s = m.detector.similarity(x, y).resemblance;
                if let Some(v) = pair_sims.get_mut(k) {
                    v.push(s);
                }
                // SimHash's 1 - d/64 is about 0.5 for unrelated pages, never 0:
                // its rows would only bloat the file.
                if s > 0.0 && m.family != "SimHash" {
                    let (na, nb) = (&docs[a].name, &docs[b].name);
                    writeln!(pairs_csv, "{},{},{na},{nb},{s:.6}", m.family, m.window)?;
                }
            }
        }
    }
    write(&args.out.join("pairs.csv"), &pairs_csv)?;

    Ok(pair_sims)
}

/// Per family: the average curves (Figure 2) and the CDF of pair
/// similarities (Figure 3) as SVG charts, and each method's summary.
fn family_charts(
    args: &Args,
    methods: &[modification::Method],
    avg: &[Vec<f64>],
    pair_sims: &[Vec<f64>],
) -> Result<Vec<serde_json::Value>> {
    let mut families: Vec<&str> = methods.iter().map(|m| m.family).collect();
    families.dedup();
    let mut summary = Vec::new();
    for fam in &families {
        let idx: Vec<usize> = (0..methods.len())
            .filter(|&k| methods[k].family == *fam)
            .collect();
        let unit = if *fam == "SimHash" { "words" } else { "bytes" };
        let series: Vec<Series> = idx
            .iter()
            .map(|&k| Series {
                label: format!("window = {} {unit}", methods[k].window),
                points: avg[k]
                    .iter()
                    .enumerate()
                    .map(|(i, s)| (i as f64, *s))
                    .collect(),
            })
            .collect();
        let y_min = floor_tenth(series.iter().flat_map(|s| s.points.iter().map(|p| p.1)));
        let svg = line_chart(&Chart {
            title: format!("{fam}: average similarity vs. insertions of \"a \""),
            x_label: "number of insertions i".into(),
            y_label: "aver_sim(RC_a^i)".into(),
            x: (0.0, args.max_insertions as f64),
            y: (y_min, 1.0),
            series,
        });
        write(
            &args.out.join(format!("modification-{}.svg", slug(fam))),
            &svg,
        )?;
        let cdf: Vec<Series> = idx
            .iter()
            .map(|&k| Series {
                label: format!("window = {} {unit}", methods[k].window),
                points: cdf_points(&pair_sims[k]),
            })
            .collect();
        let svg = line_chart(&Chart {
            title: format!("{fam}: CDF of similarity over distinct pairs (non-zero only)"),
            x_label: "similarity".into(),
            y_label: "CDF of pairs with similarity > 0".into(),
            x: (0.0, cdf_x_max(&cdf)),
            y: (0.0, 1.0),
            series: cdf,
        });
        write(&args.out.join(format!("cdf-{}.svg", slug(fam))), &svg)?;
        for &k in &idx {
            let v = &pair_sims[k];
            let nonzero = v.iter().filter(|s| **s > 0.0).count();
            let above = v.iter().filter(|s| **s > 0.2).count();
            let max = v.iter().copied().fold(0.0, f64::max);
            let at = |i: usize| avg[k].get(i).copied().unwrap_or(f64::NAN);
            summary.push(serde_json::json!({
                "family": fam,
                "window": methods[k].window,
                "avg_sim_at_10": at(10),
                "avg_sim_at_25": at(25),
                "avg_sim_at_50": at(args.max_insertions.min(50)),
                "pairs": v.len(),
                "pairs_nonzero": nonzero,
                "pairs_above_0_2": above,
                "pair_max": max,
            }));
        }
    }
    Ok(summary)
}

/// Figure 4: the CDF of pair similarities of every set method at a
/// 20-byte window, as `cdf-window20.svg`.
fn window20_chart(
    args: &Args,
    methods: &[modification::Method],
    pair_sims: &[Vec<f64>],
) -> Result<()> {
    // Figure 4: every set method at a 20-byte window. SimHash is left
    // out: its 1 - d/64 sits near 0.5 for unrelated pages and would squash
    // the others against the axis.
    let fig4: Vec<Series> = methods
        .iter()
        .enumerate()
        .filter(|(_, m)| m.window == 20 && m.family != "SimHash")
        .map(|(k, m)| Series {
            label: m.family.to_owned(),
            points: cdf_points(&pair_sims[k]),
        })
        .collect();
    let svg = line_chart(&Chart {
        title: "CDF of similarity over distinct pairs, window = 20 bytes (non-zero only)".into(),
        x_label: "similarity".into(),
        y_label: "CDF of pairs with similarity > 0".into(),
        x: (0.0, cdf_x_max(&fig4)),
        y: (0.0, 1.0),
        series: fig4,
    });
    write(&args.out.join("cdf-window20.svg"), &svg)?;

    Ok(())
}

/// `summary.json` (the corpus, the settings and each method's summary),
/// and one line per method on stdout.
fn write_summary(args: &Args, docs: &[Doc], summary: Vec<serde_json::Value>) -> Result<()> {
    let sizes: Vec<usize> = docs.iter().map(|d| d.bytes).collect();
    let json = serde_json::json!({
        "corpus": args.corpus.display().to_string(),
        "documents": docs.len(),
        "doc_bytes_min": sizes.iter().min(),
        "doc_bytes_max": sizes.iter().max(),
        "doc_bytes_total": sizes.iter().sum::<usize>(),
        "insert": modification::INSERT,
        "max_insertions": args.max_insertions,
        "seed": args.seed,
        "methods": summary,
    });
    write(
        &args.out.join("summary.json"),
        &serde_json::to_string_pretty(&json)?,
    )?;
    for m in json["methods"].as_array().into_iter().flatten() {
        println!(
            "{:<10} w={:<3} sim@10={:.3} sim@50={:.3} pairs>0={} pairs>0.2={} max={:.3}",
            m["family"].as_str().unwrap_or(""),
            m["window"],
            m["avg_sim_at_10"].as_f64().unwrap_or(f64::NAN),
            m["avg_sim_at_50"].as_f64().unwrap_or(f64::NAN),
            m["pairs_nonzero"],
            m["pairs_above_0_2"],
            m["pair_max"].as_f64().unwrap_or(f64::NAN),
        );
    }
    Ok(())
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

fn slug(family: &str) -> String {
    family.to_lowercase().replace('_', "")
}

/// The largest tenth at or below every value (at most 0.9).
fn floor_tenth(values: impl Iterator<Item = f64>) -> f64 {
    let min = values.fold(1.0f64, f64::min);
    ((min * 10.0).floor() / 10.0).clamp(0.0, 0.9)
}

/// Empirical CDF of the non-zero similarities, as a step line; with many
/// pairs, evaluated on a grid of 1000 points instead (the figure looks the
/// same and the SVG stays small).
fn cdf_points(sims: &[f64]) -> Vec<(f64, f64)> {
    let mut v: Vec<f64> = sims.iter().copied().filter(|s| *s > 0.0).collect();
    v.sort_by(f64::total_cmp);
    let n = v.len() as f64;
    let mut out = vec![(0.0, 0.0)];
    if v.len() > 500 {
        for g in 1..=1000 {
            let x = f64::from(g) / 1000.0;
            let below = v.partition_point(|s| *s <= x);
            out.push((x, below as f64 / n));
        }
        return out;
    }
    for (i, s) in v.iter().enumerate() {
        out.push((*s, i as f64 / n));
        out.push((*s, (i + 1) as f64 / n));
    }
    out
}

/// The x-axis end of a CDF figure: the largest similarity rounded up to a
/// tenth (at least 0.1).
fn cdf_x_max(series: &[Series]) -> f64 {
    let max = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .fold(0.0f64, f64::max);
    ((max * 10.0).ceil() / 10.0).clamp(0.1, 1.0)
}

struct Series {
    label: String,
    points: Vec<(f64, f64)>,
}

struct Chart {
    title: String,
    x_label: String,
    y_label: String,
    x: (f64, f64),
    y: (f64, f64),
    series: Vec<Series>,
}

/// A line chart as a standalone SVG (written by hand: no font or system
/// library needed, and the output is byte-for-byte reproducible).
fn line_chart(c: &Chart) -> String {
    const W: f64 = 720.0;
    const H: f64 = 480.0;
    const L: f64 = 70.0;
    const R: f64 = 200.0;
    const T: f64 = 40.0;
    const B: f64 = 60.0;
    const COLORS: [&str; 6] = [
        "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
    ];
    let pw = W - L - R;
    let ph = H - T - B;
    let sx = |x: f64| L + (x - c.x.0) / (c.x.1 - c.x.0).max(1e-9) * pw;
    let sy = |y: f64| T + ph - (y - c.y.0) / (c.y.1 - c.y.0).max(1e-9) * ph;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="14">{}</text>"#,
        L + pw / 2.0,
        esc(&c.title)
    );
    for t in 0..=5 {
        let f = f64::from(t) / 5.0;
        let xv = c.x.0 + f * (c.x.1 - c.x.0);
        let yv = c.y.0 + f * (c.y.1 - c.y.0);
        let (x, y) = (sx(xv), sy(yv));
        let _ = writeln!(
            s,
            r##"<line x1="{x:.1}" y1="{T}" x2="{x:.1}" y2="{:.1}" stroke="#ddd"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            T + ph,
            T + ph + 18.0,
            tick(xv)
        );
        let _ = writeln!(
            s,
            r##"<line x1="{L}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            L + pw,
            L - 6.0,
            y + 4.0,
            tick(yv)
        );
    }
    let _ = writeln!(
        s,
        r#"<rect x="{L}" y="{T}" width="{pw}" height="{ph}" fill="none" stroke="black"/>"#
    );
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
        L + pw / 2.0,
        H - 18.0,
        esc(&c.x_label)
    );
    let _ = writeln!(
        s,
        r#"<text x="18" y="{:.1}" text-anchor="middle" transform="rotate(-90 18 {:.1})">{}</text>"#,
        T + ph / 2.0,
        T + ph / 2.0,
        esc(&c.y_label)
    );
    for (i, series) in c.series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let pts: Vec<String> = series
            .points
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", sx(x), sy(y.max(c.y.0))))
            .collect();
        let _ = writeln!(
            s,
            r#"<polyline fill="none" stroke="{color}" stroke-width="1.8" points="{}"/>"#,
            pts.join(" ")
        );
        let ly = T + 14.0 + 20.0 * i as f64;
        let lx = L + pw + 12.0;
        let _ = writeln!(
            s,
            r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{color}" stroke-width="2.5"/><text x="{}" y="{}">{}</text>"#,
            lx + 24.0,
            lx + 30.0,
            ly + 4.0,
            esc(&series.label)
        );
    }
    s.push_str("</svg>\n");
    s
}

fn tick(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
