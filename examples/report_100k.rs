//! Synthetic large-crawl report: `cargo run --release --example report_100k
//! -- DIR [PAGES]` pushes PAGES (default 100,000) synthetic pages through
//! the real output sink (verdicts.jsonl, clusters.*, texts.jsonl), then
//! times `neardup_report::generate` and prints the sizes of what it wrote.
//!
//! Shape: 1,000 sites; about 30% of pages are duplicates or near
//! duplicates in clusters of 2 to 10 pages whose URLs differ by a
//! `sessionid` parameter or a `/print` path segment; every page has a
//! navigation block, three paragraphs and a footer.

use std::time::Instant;

use neardup::Match;
use neardup::Verdict;
use neardup::VerdictKind;
use neardup_html::Block;
use neardup_output::{OutputDir, Sink};
use neardup_output::{PageRecord, Summary};

fn block(text: String, tag: &'static str, main: bool) -> Block {
    Block {
        text,
        tag,
        link_density: if main { 0.0 } else { 1.0 },
        is_main: main,
    }
}

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(args.next().unwrap_or_else(|| "report-100k".into()));
    let pages: usize = args.next().map_or(Ok(100_000), |s| s.parse())?;
    let started = Instant::now();
    let mut out = OutputDir::create(&dir)?;
    let mut summary = Summary::default();
    // Deterministic xorshift, so every run writes the same files.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut rand = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut position = 0usize;
    let mut group = 0usize;
    while position < pages {
        group += 1;
        let site = format!("site{:04}.example", rand() % 1000);
        // 1 page (unique) most of the time; clusters of 2..=10 otherwise.
        let size = if rand() % 100 < 88 {
            1
        } else {
            2 + (rand() % 9) as usize
        };
        let rep = position;
        let rep_key = format!("https://{site}/article/{group}?sessionid=0");
        for k in 0..size.min(pages - position) {
            let url = if k % 3 == 2 {
                format!("https://{site}/article/{group}/print")
            } else {
                format!("https://{site}/article/{group}?sessionid={k}")
            };
            let near = k > 0 && k % 2 == 0;
            let mut blocks = vec![block(
                format!("Home | News | Sport | Weather | {site}"),
                "nav",
                false,
            )];
            for p in 0..3 {
                blocks.push(block(
                    format!(
                        "Story {group} paragraph {p}: the council met on Tuesday to discuss the \
                         budget for the coming year, the new library and the repairs to the \
                         harbour wall, which residents have asked about for months."
                    ),
                    "p",
                    true,
                ));
            }
            if near {
                blocks.push(block(
                    format!("Updated edition {k} with a correction."),
                    "p",
                    true,
                ));
            }
            blocks.push(block(
                "Copyright 2026. All rights reserved.".into(),
                "footer",
                false,
            ));
            let kind = match (k, near) {
                (0, _) => VerdictKind::Unique,
                (_, true) => VerdictKind::NearDuplicate,
                _ => VerdictKind::Duplicate,
            };
            let matched = (k > 0).then(|| Match {
                covered: Some(1.0),
                id: None,
                key: rep_key.clone(),
                url: rep_key.clone(),
                basis: neardup::MatchBasis::Detector(if near { "simhash" } else { "exact" }.into()),
                similarity: if near { 0.94 } else { 1.0 },
                resemblance: if near { 0.9 } else { 1.0 },
                containment: if near { 0.97 } else { 1.0 },
                reason: if near {
                    "SimHash Hamming distance 2 <= 3"
                } else {
                    "identical normalized text"
                }
                .into(),
            });
            let key = if k == 0 { rep_key.clone() } else { url.clone() };
            summary.pages += 1;
            out.page(&PageRecord {
                position,
                key,
                url,
                site: site.clone(),
                bytes: 4000,
                title: format!("Article {group} - {site}"),
                verdict: Verdict {
                    kind,
                    matched,
                    contained_in: None,
                    indexed_as: None,
                    stored_as: None,
                    redirect: None,
                    warnings: Vec::new(),
                },
                of: (k > 0).then_some(rep),
                roles: Vec::new(),
                blocks,
            })?;
            position += 1;
        }
    }
    out.finish(&summary)?;
    let outputs = started.elapsed();
    let started = Instant::now();
    let report = neardup_report::generate(&dir)?;
    let took = started.elapsed();
    let size = |name: &str| std::fs::metadata(dir.join(name)).map_or(0, |m| m.len());
    println!(
        "{pages} pages, {} sites, {} clusters: outputs in {:.2}s; report in {:.2}s: \
         report.html {:.1} MB, texts.jsonl {:.1} MB, clusters.csv {:.1} MB, sites.csv {:.1} KB",
        report.sites.len(),
        report.clusters.len(),
        outputs.as_secs_f64(),
        took.as_secs_f64(),
        size("report.html") as f64 / 1e6,
        size("texts.jsonl") as f64 / 1e6,
        size("clusters.csv") as f64 / 1e6,
        size("sites.csv") as f64 / 1e3,
    );
    Ok(())
}
