//! HTML to text blocks, metadata and links; main content vs boilerplate.

use url::Url;

use crate::config::{ExtractConfig, ExtractMode};

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
pub fn extract(html: &str, page_url: Option<&Url>, config: &ExtractConfig) -> Extracted {
    let _ = (page_url, config);
    let doc = scraper::Html::parse_document(html);
    let text: Vec<&str> = doc.root_element().text().collect();
    let text = text
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    Extracted {
        blocks: vec![Block {
            text,
            tag: "body".into(),
            link_density: 0.0,
            is_main: true,
        }],
        ..Extracted::default()
    }
}
