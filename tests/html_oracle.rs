//! scraper (html5ever, a WHATWG tree builder) as an oracle for neardup's
//! own tokenizer and tree: on the real pages of
//! `../shared/datasets/readability-test-pages` both must find the same
//! visible text.
//!
//! "Visible text" is defined once, with neardup's own tag tables, and
//! applied to both trees: the text of every text node outside the elements
//! neardup never shows (`Tag::is_skip`: head, title, script, style,
//! noscript, template, svg, iframe, select, textarea, ...) and outside
//! hidden elements (`hidden`, `aria-hidden=true`, `display:none` or
//! `visibility:hidden` in `style`), with a word break at each block
//! element (`Tag::is_block`) and `<br>`. So what differs is the parse: how
//! each recovers from malformed markup (misnested and unclosed elements,
//! stray end tags, text before `<body>`, foster-parented table text),
//! where raw text ends, and entity decoding (neardup decodes with
//! `html-escape`, html5ever by the WHATWG table, e.g. for a missing `;`).
//! neardup also cuts a block at elements whose class or role mark
//! boilerplate, where scraper runs the words together.
//!
//! The words of each side (whitespace-separated, as written) are compared
//! as bags: weighted Jaccard, `sum(min) / sum(max)` of the counts.

use std::collections::HashMap;
use std::path::PathBuf;

use neardup_html::tree;
use neardup_html::Tag;

/// Least word-bag similarity of one page (see the module docs).
const PAGE_MIN: f64 = 0.95;

/// Least word-bag similarity of all checked pages as one bag.
const CORPUS_MIN: f64 = 0.998;

/// Pages up to this size are all checked: the hand-made edge cases of the
/// readability suite (misnesting, comments in scripts, hidden nodes) are
/// small and cheap.
const SMALL: u64 = 60_000;

/// Of the larger (real, 60 KB to 1.5 MB) pages every `STRIDE`-th by name is
/// checked, so the test takes a few seconds in a debug build (html5ever
/// parses about 3 MB/s there).
const STRIDE: usize = 3;

/// The pages (`source.html` of each case), sorted by name, sampled
/// ([`SMALL`], [`STRIDE`]); `None` (a skip, or a failure under CI) without
/// `../shared`.
fn pages() -> Option<Vec<(String, PathBuf)>> {
    let dir = crate::skip::shared("datasets/readability-test-pages/test/test-pages")?;
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(&dir)
        .expect("read the test pages")
        .filter_map(Result::ok)
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, e.path().join("source.html"))
        })
        .filter(|(_, p)| p.is_file())
        .collect();
    out.sort();
    let size = |p: &PathBuf| std::fs::metadata(p).map_or(0, |m| m.len());
    let mut large = 0;
    out.retain(|(_, p)| {
        if size(p) <= SMALL {
            return true;
        }
        large += 1;
        (large - 1) % STRIDE == 0
    });
    Some(out)
}

/// neardup's visible text: its text blocks in document order.
fn neardup_text(html: &str) -> String {
    let parsed = tree::parse(html);
    let texts: Vec<&str> = parsed.blocks.iter().map(|b| b.text.as_str()).collect();
    texts.join(" ")
}

/// neardup's rule for a hidden element, on html5ever's element.
fn hidden(e: &scraper::node::Element) -> bool {
    if e.attr("hidden").is_some() {
        return true;
    }
    if let Some(style) = e.attr("style") {
        let s: String = style
            .chars()
            .filter(|c| !c.is_ascii_whitespace())
            .map(|c| c.to_ascii_lowercase())
            .collect();
        if s.contains("display:none") || s.contains("visibility:hidden") {
            return true;
        }
    }
    let aria = e
        .attr("aria-hidden")
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    aria && !e
        .attr("class")
        .is_some_and(|c| c.contains("fallback-image"))
}

/// scraper's visible text: a walk of html5ever's tree (an explicit stack,
/// so deep nesting cannot overflow), skipping what neardup skips.
fn scraper_text(html: &str) -> String {
    let doc = scraper::Html::parse_document(html);
    let mut out = String::new();
    // (node, true) marks the end of a block element.
    let mut stack = vec![(doc.tree.root(), false)];
    while let Some((node, end)) = stack.pop() {
        if end {
            out.push(' ');
            continue;
        }
        match node.value() {
            scraper::Node::Text(t) => {
                out.push_str(t);
                continue;
            }
            scraper::Node::Element(e) => {
                let tag = Tag::from_name(e.name());
                if tag.is_skip() || hidden(e) {
                    continue;
                }
                if tag.is_block() || tag == Tag::Br {
                    out.push(' ');
                    stack.push((node, true));
                }
            }
            scraper::Node::Document | scraper::Node::Fragment => {}
            _ => continue,
        }
        let children: Vec<_> = node.children().collect();
        stack.extend(children.into_iter().rev().map(|c| (c, false)));
    }
    out
}

/// Word counts.
fn bag(text: &str) -> HashMap<&str, u32> {
    let mut m = HashMap::new();
    for w in text.split_whitespace() {
        *m.entry(w).or_insert(0) += 1;
    }
    m
}

/// `(sum of min counts, sum of max counts)` over both bags' words.
fn min_max(a: &HashMap<&str, u32>, b: &HashMap<&str, u32>) -> (u64, u64) {
    let (mut min, mut max) = (0u64, 0u64);
    for (w, &x) in a {
        let y = b.get(w).copied().unwrap_or(0);
        min += u64::from(x.min(y));
        max += u64::from(x.max(y));
    }
    for (w, &y) in b {
        if !a.contains_key(w) {
            max += u64::from(y);
        }
    }
    (min, max)
}

#[test]
fn neardup_and_html5ever_see_the_same_visible_text_on_real_pages() {
    let Some(pages) = pages() else {
        return;
    };
    assert!(pages.len() >= 60, "{} pages", pages.len());
    let mut scores: Vec<(f64, String)> = Vec::new();
    let (mut min_sum, mut max_sum) = (0u64, 0u64);
    for (name, path) in &pages {
        let bytes = std::fs::read(path).expect("read page");
        let html = String::from_utf8_lossy(&bytes);
        // A byte-order mark is the decoder's (`neardup_html::decode` drops it
        // before extraction; html5ever's tokenizer skips it).
        let html = html.strip_prefix('\u{feff}').unwrap_or(&html);
        let ours = neardup_text(html);
        let theirs = scraper_text(html);
        let (min, max) = min_max(&bag(&ours), &bag(&theirs));
        min_sum += min;
        max_sum += max;
        let score = if max == 0 {
            1.0
        } else {
            min as f64 / max as f64
        };
        scores.push((score, name.clone()));
    }
    scores.sort_by(|a, b| a.0.total_cmp(&b.0));
    let at = |q: f64| scores[((scores.len() - 1) as f64 * q) as usize].0;
    let aggregate = min_sum as f64 / max_sum.max(1) as f64;
    eprintln!(
        "word-bag similarity neardup vs html5ever over {} pages: min {:.4}, p5 {:.4}, p25 {:.4}, \
         median {:.4}, corpus-wide {:.4}",
        scores.len(),
        at(0.0),
        at(0.05),
        at(0.25),
        at(0.5),
        aggregate
    );
    for (s, name) in scores.iter().take(5) {
        eprintln!("  {s:.4} {name}");
    }
    // Both sides really read the pages (an empty text would agree).
    assert!(max_sum > 50_000, "only {max_sum} words compared");
    for (score, name) in &scores {
        assert!(
            *score >= PAGE_MIN,
            "{name}: neardup and html5ever disagree on the visible text (word-bag \
             similarity {score:.4} < {PAGE_MIN})"
        );
    }
    let exact = scores.iter().filter(|(s, _)| *s == 1.0).count();
    assert!(
        exact * 4 >= scores.len() * 3,
        "only {exact} of {} pages have the same words on both sides",
        scores.len()
    );
    assert!(
        aggregate >= CORPUS_MIN,
        "corpus-wide word-bag similarity {aggregate:.4} < {CORPUS_MIN}"
    );
}
