//! The CPU-heavy half of a check ([`Analyzer`]): decode, extract,
//! normalize, sign; on any thread, `&self`.

use std::sync::Arc;

use neardup_api::{Detector, Document, Signature};

use crate::canonical::site_of;
use crate::config::{Config, ExtractMode};
use crate::content::{Evidence, PageContent};
use neardup_html::decode;
use neardup_html::{extract, Extracted};
use neardup_text::Normalizer;

/// A page after the CPU-heavy half of a check, ready for
/// [`Deduper::decide`](super::Deduper::decide).
#[derive(Clone, Debug)]
pub struct Analyzed {
    /// The caller's key for the page.
    pub key: String,
    /// The normalized document.
    pub doc: Document,
    /// One signature per detector of the chain: what the candidate
    /// indexes hold if the page is indexed.
    pub signatures: Vec<Signature>,
    /// The page's content evidence: what is stored with it for later
    /// pages to be judged against.
    pub evidence: Evidence,
    /// Extraction output (links, canonical, blocks) for callers that need it.
    pub extracted: Extracted,
    /// Every visible block as hashes and shingles: what a drop is judged
    /// on (see `crate::content`).
    pub content: PageContent,
    /// Size of the body that was analyzed, in bytes.
    pub bytes: usize,
    /// Problems found so far.
    pub warnings: Vec<String>,
}

/// The analysis half of a [`Deduper`](super::Deduper) (decode, extract,
/// normalize, sign): immutable, so any number of threads share it without
/// a lock.
pub struct Analyzer {
    pub(super) config: Config,
    /// `config.extract`, with `max_links` 0 when links are not wanted
    /// ([`Deduper::without_links`](super::Deduper::without_links)).
    pub(super) extract: neardup_html::ExtractConfig,
    pub(super) normalizer: Normalizer,
    pub(super) detectors: Arc<[Box<dyn Detector>]>,
}

impl std::fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Analyzer")
            .field("detectors", &self.detectors.len())
            .finish()
    }
}

impl Analyzer {
    /// The analysis half for `config` and its detector chain.
    pub(super) fn new(config: &Config, detectors: Arc<[Box<dyn Detector>]>) -> Analyzer {
        Analyzer {
            normalizer: Normalizer::new(&config.text),
            extract: config.extract.clone(),
            config: config.clone(),
            detectors,
        }
    }

    /// The CPU-heavy half: decode, extract, normalize, sign. Never panics on
    /// any input bytes.
    pub fn analyze(
        &self,
        key: &str,
        url: &str,
        body: &[u8],
        content_type: Option<&str>,
    ) -> Analyzed {
        let mut warnings = Vec::new();
        let body = match self.readable(body, &mut warnings) {
            Ok(body) => body,
            Err(len) => return self.sign(key, url, len, Extracted::default(), warnings),
        };
        let decoded = decode(body, content_type);
        warnings.extend(decoded.warnings);
        let page_url = url::Url::parse(url).ok();
        let extracted = extract(&decoded.text, page_url.as_ref(), &self.extract);
        warnings.extend(extracted.warnings.iter().cloned());
        self.sign(key, url, body.len(), extracted, warnings)
    }

    /// `body` cut to `extract.max_body_bytes` (saying so in `warnings`),
    /// or, when it is binary (an image, an archive), `Err` with its length
    /// after the reason is added to `warnings`.
    fn readable<'b>(&self, body: &'b [u8], warnings: &mut Vec<String>) -> Result<&'b [u8], usize> {
        let limit = self.config.extract.max_body_bytes;
        let body = match body.get(..limit) {
            Some(cut) if body.len() > limit => {
                warnings.push(format!(
                    "body of {} bytes truncated to extract.max_body_bytes = {limit}",
                    body.len()
                ));
                cut
            }
            _ => body,
        };
        match neardup_html::binary_reason(body) {
            Some(reason) => {
                warnings.push(reason);
                Err(body.len())
            }
            None => Ok(body),
        }
    }

    /// Frees what [`Deduper::decide`](super::Deduper::decide) does not
    /// read from `analyzed`: the document's text and title, its words but
    /// one, its terms beyond `decide.min_terms` (decide reads only whether
    /// words is empty and whether terms reach `min_terms`, so the verdict
    /// is unchanged). A crawler holding analyzed pages until their turn to
    /// be decided keeps kilobytes per page instead of one heap string per
    /// word. Keep in sync with `decide`.
    pub fn shrink_for_decide(&self, analyzed: &mut Analyzed) {
        let doc = &mut analyzed.doc;
        doc.text = String::new();
        doc.title = String::new();
        doc.words.truncate(1);
        doc.words.shrink_to_fit();
        let min_terms = self.config.decide.min_terms;
        if doc.terms.len() >= min_terms {
            doc.terms.truncate(min_terms);
            doc.terms.shrink_to_fit();
        }
    }

    /// The CPU-heavy half for a page given as plain text, for callers that
    /// extracted the content themselves: no decoding or HTML extraction, and
    /// every paragraph (blank-line separated) counts as main content, so
    /// `extract.mode` does not drop any of it. Never panics.
    pub fn analyze_text(&self, key: &str, url: &str, text: &str) -> Analyzed {
        let mut warnings = Vec::new();
        let limit = self.config.extract.max_body_bytes;
        let text = if text.len() > limit {
            warnings.push(format!(
                "text of {} bytes truncated to extract.max_body_bytes = {limit}",
                text.len()
            ));
            let mut end = limit;
            // Cut on a character boundary; index 0 always is one.
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text.get(..end).unwrap_or_default()
        } else {
            text
        };
        let blocks = text
            .split("\n\n")
            .map(|para| para.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|para| !para.is_empty())
            .map(|text| neardup_html::Block {
                text,
                tag: "p",
                link_density: 0.0,
                is_main: true,
            })
            .collect();
        let extracted = Extracted {
            blocks,
            ..Extracted::default()
        };
        self.sign(key, url, text.len(), extracted, warnings)
    }

    /// [`Analyzer::analyze_text`] for a plain-text body as it was fetched:
    /// its bytes are decoded as [`Analyzer::analyze`] decodes HTML (a BOM,
    /// the charset of `content_type`, else detection), then taken as
    /// already-extracted text. For a sidecar's clients that pass a body
    /// through as they received it. Never panics on any input bytes.
    pub fn analyze_text_bytes(
        &self,
        key: &str,
        url: &str,
        body: &[u8],
        content_type: Option<&str>,
    ) -> Analyzed {
        let mut warnings = Vec::new();
        let body = match self.readable(body, &mut warnings) {
            Ok(body) => body,
            Err(len) => return self.sign(key, url, len, Extracted::default(), warnings),
        };
        let decoded = decode(body, content_type);
        warnings.extend(decoded.warnings);
        let mut analyzed = self.analyze_text(key, url, &decoded.text);
        warnings.append(&mut analyzed.warnings);
        analyzed.warnings = warnings;
        analyzed.bytes = body.len();
        analyzed
    }

    fn sign(
        &self,
        key: &str,
        url: &str,
        bytes: usize,
        extracted: Extracted,
        mut warnings: Vec<String>,
    ) -> Analyzed {
        let text = extracted.text(self.config.extract.mode);
        if self.config.extract.mode == ExtractMode::Main {
            if let Some((main_words, all_words)) = mostly_boilerplate(&extracted.blocks) {
                warnings.push(format!(
                    "mostly boilerplate: main content has {main_words} of {all_words} visible words"
                ));
            }
        }
        // Block by block, so that the content below takes the words of
        // the blocks split here instead of splitting them again.
        let selected: Vec<&str> = extracted
            .selected(self.config.extract.mode)
            .map(|(_, b)| b.text.as_str())
            .collect();
        let normalized = self
            .normalizer
            .normalize_blocks(&selected, extracted.lang.as_deref());
        let mut content =
            PageContent::from_normalized(&extracted, &normalized, self.config.extract.mode);
        warnings.extend(normalized.warnings);
        if normalized.words.is_empty() {
            warnings.push("no text extracted".into());
        }
        let doc = Document {
            url: url.to_owned(),
            site: site_of(url),
            title: extracted.title.clone(),
            text,
            lang: normalized.lang,
            words: normalized.words,
            terms: normalized.terms,
        };
        content.lang = crate::content::lang_code(&doc.lang);
        content.set_host(&extracted.title, url);
        let signatures: Vec<Signature> = self.detectors.iter().map(|d| d.sign(&doc)).collect();
        let evidence = content.evidence();
        Analyzed {
            key: key.to_owned(),
            doc,
            signatures,
            evidence,
            extracted,
            content,
            bytes,
            warnings,
        }
    }
}

/// A main content of fewer words than this is worth a warning when the
/// rest of the page is much larger ([`mostly_boilerplate`]).
const FEW_MAIN_WORDS: usize = 50;

/// `(main, all)` whitespace-separated words of a page whose visible text is
/// nearly all navigation, footers and link lists (fewer than
/// [`FEW_MAIN_WORDS`] main words and at least four times as many in all),
/// else `None`. Most pages have that many main words in their first
/// blocks, so the count stops there and the rest is never split.
fn mostly_boilerplate(blocks: &[neardup_html::Block]) -> Option<(usize, usize)> {
    let mut main = 0;
    for b in blocks.iter().filter(|b| b.is_main) {
        main += neardup_text::count_whitespace_words(&b.text);
        if main >= FEW_MAIN_WORDS {
            return None;
        }
    }
    let rest: usize = blocks
        .iter()
        .filter(|b| !b.is_main)
        .map(|b| neardup_text::count_whitespace_words(&b.text))
        .sum();
    let all = main + rest;
    (all >= 4 * main.max(5)).then_some((main, all))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(words: usize, is_main: bool) -> neardup_html::Block {
        neardup_html::Block {
            text: vec!["w"; words].join(" "),
            tag: "p",
            link_density: 0.0,
            is_main,
        }
    }

    #[test]
    fn a_page_of_navigation_around_a_few_words_is_mostly_boilerplate() {
        let page = [block(3, false), block(10, true), block(37, false)];
        assert_eq!(mostly_boilerplate(&page), Some((10, 50)));
        // Exactly four times the main words is enough; one fewer is not.
        let page = [block(10, true), block(30, false)];
        assert_eq!(mostly_boilerplate(&page), Some((10, 40)));
        let page = [block(10, true), block(29, false)];
        assert_eq!(mostly_boilerplate(&page), None);
        // A page with no main words at all counts from five.
        assert_eq!(mostly_boilerplate(&[block(20, false)]), Some((0, 20)));
        assert_eq!(mostly_boilerplate(&[block(19, false)]), None);
    }

    #[test]
    fn fifty_main_words_are_enough_whatever_surrounds_them() {
        let page = [block(30, true), block(20, true), block(5_000, false)];
        assert_eq!(mostly_boilerplate(&page), None);
        let page = [block(30, true), block(19, true), block(5_000, false)];
        assert_eq!(mostly_boilerplate(&page), Some((49, 5_049)));
    }
}
