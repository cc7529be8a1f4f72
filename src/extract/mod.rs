//! HTML to text blocks, metadata and links; main content vs boilerplate.

pub mod classify;
pub mod quality;
pub mod tags;
pub mod tokenizer;
pub mod tree;

use url::Url;

use crate::config::{ExtractConfig, ExtractMode};
use tags::Tag;

/// One block of text (a paragraph, heading, list item, table cell...).
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// Whitespace-collapsed text of the block.
    pub text: String,
    /// The block-level tag that delimited it (`p`, `h2`, `li`, `div`...).
    pub tag: String,
    /// Share of the block's characters inside links, `0.0..=1.0`.
    pub link_density: f32,
    /// Whether the classifier kept it as main content.
    pub is_main: bool,
}

/// What extraction found in a page.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Extracted {
    /// `<title>` text.
    pub title: String,
    /// `<link rel=canonical>` resolved against the base URL.
    pub canonical: Option<String>,
    /// `<meta name=robots>` content, lowercased.
    pub robots: Option<String>,
    /// `<base href>` as written.
    pub base_href: Option<String>,
    /// `<html lang>` as written.
    pub lang: Option<String>,
    /// Outgoing links (`<a href>`), resolved, http(s) only, in page order.
    pub links: Vec<String>,
    /// Text blocks in document order.
    pub blocks: Vec<Block>,
    /// Problems worth telling the user.
    pub warnings: Vec<String>,
}

impl Extracted {
    /// The text the signatures see under `mode`: main blocks, or all blocks.
    pub fn text(&self, mode: ExtractMode) -> String {
        let mut out = String::new();
        for b in &self.blocks {
            if mode == ExtractMode::Full || b.is_main {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(&b.text);
            }
        }
        out
    }
}

/// Extracts text blocks, metadata and links from `html`. `page_url` resolves
/// relative links (after any `<base href>`).
///
/// One streaming pass ([`tokenizer`] + a stack of open elements) builds the
/// blocks and a light element tree; [`classify`] then marks main-content
/// blocks. Never panics; cost is linear in the input.
pub fn extract(html: &str, page_url: Option<&Url>, config: &ExtractConfig) -> Extracted {
    let parsed = tree::parse(html);
    let mask = classify::classify(&parsed);
    let mut warnings = Vec::new();

    // Base URL: <base href> resolved against the page URL (or absolute on
    // its own); a base that does not parse is ignored with a warning.
    let base = match (&parsed.base_href, page_url) {
        (Some(b), Some(page)) => match page.join(b) {
            Ok(u) => Some(u),
            Err(_) => {
                warnings.push(format!("ignored unparseable <base href> {b:?}"));
                Some(page.clone())
            }
        },
        (Some(b), None) => Url::parse(b).ok(),
        (None, Some(page)) => Some(page.clone()),
        (None, None) => None,
    };
    let resolve = |raw: &str| -> Option<Url> {
        let raw = raw.trim();
        if raw.is_empty() {
            return None;
        }
        let joined = match &base {
            Some(b) => b.join(raw).ok()?,
            None => Url::parse(raw).ok()?,
        };
        matches!(joined.scheme(), "http" | "https").then_some(joined)
    };

    let mut links = Vec::new();
    if config.max_links > 0 {
        for raw in &parsed.hrefs {
            let decoded = html_escape::decode_html_entities(raw);
            if let Some(mut u) = resolve(&decoded) {
                u.set_fragment(None);
                links.push(String::from(u));
                if links.len() >= config.max_links {
                    break;
                }
            }
        }
    }
    let canonical = parsed
        .canonical
        .as_deref()
        .and_then(resolve)
        .map(String::from);

    let blocks = parsed
        .blocks
        .iter()
        .zip(mask.iter().copied().chain(std::iter::repeat(false)))
        .map(|(b, is_main)| Block {
            text: b.text.clone(),
            tag: parsed
                .nodes
                .get(b.owner as usize)
                .map_or("body", |n| match n.tag {
                    Tag::Root | Tag::Html => "body",
                    t => t.name(),
                })
                .to_string(),
            link_density: if b.chars == 0 {
                0.0
            } else {
                b.link_chars as f32 / b.chars as f32
            },
            is_main,
        })
        .collect();

    Extracted {
        title: parsed.title,
        canonical,
        robots: parsed.robots,
        base_href: parsed.base_href,
        lang: parsed.lang,
        links,
        blocks,
        warnings,
    }
}
