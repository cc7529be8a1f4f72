//! Bench inputs shared by `benches/text.rs` and `benches/signature.rs`: the
//! main text of the readability test pages (`expected.html`) from
//! `../shared/datasets` when present, else generated English-like text so
//! the benches still run (their numbers are then only indicative).

use std::path::Path;

/// Texts of the readability pages' expected main content, or generated
/// pages when the shared datasets are absent. The flag says which.
pub fn pages() -> (Vec<String>, bool) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/datasets/readability-test-pages/test/test-pages");
    let mut names: Vec<_> = match std::fs::read_dir(&dir) {
        Ok(rd) => rd.filter_map(|e| e.ok()).map(|e| e.path()).collect(),
        Err(_) => Vec::new(),
    };
    names.sort();
    let texts: Vec<String> = names
        .iter()
        .filter_map(|p| std::fs::read_to_string(p.join("expected.html")).ok())
        .map(|html| {
            let frag = scraper::Html::parse_fragment(&html);
            let parts: Vec<&str> = frag.root_element().text().collect();
            parts.join(" ")
        })
        .filter(|t| !t.trim().is_empty())
        .collect();
    if texts.is_empty() {
        eprintln!(
            "note: {} not found; benchmarking generated text",
            dir.display()
        );
        (generated(), false)
    } else {
        (texts, true)
    }
}

/// 100 generated pages of ~800 words of English function and content words.
fn generated() -> Vec<String> {
    const WORDS: &[&str] = &[
        "the",
        "of",
        "and",
        "to",
        "in",
        "is",
        "that",
        "for",
        "it",
        "as",
        "was",
        "with",
        "on",
        "research",
        "computer",
        "system",
        "network",
        "people",
        "government",
        "market",
        "water",
        "history",
        "university",
        "development",
        "information",
        "children",
        "program",
        "world",
        "company",
        "students",
        "service",
        "problem",
        "building",
        "question",
        "economic",
        "public",
        "running",
        "changed",
        "studies",
        "important",
        "different",
        "national",
        "political",
        "2024",
        "percent",
        "million",
        "report",
        "according",
        "officials",
        "published",
        "said",
    ];
    let mut rng = neardup_api::SplitMix64::new(0x1234_5678);
    (0..100)
        .map(|_| {
            let mut page = String::new();
            for i in 0..800 {
                let w = rng.pick(WORDS);
                page.push_str(w);
                page.push_str(if i % 15 == 14 { ". " } else { " " });
            }
            page
        })
        .collect()
}
