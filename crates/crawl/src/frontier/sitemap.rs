//! Sitemaps (sitemaps.org protocol 0.9): URLs a site lists for crawlers,
//! read from the `Sitemap:` lines of robots.txt and from seeds that name a
//! sitemap, so pages that no link reaches are crawled too.
//!
//! - Formats: `<urlset>` (page URLs), `<sitemapindex>` (more sitemaps),
//!   and plain text (one URL per line). A body starting with the gzip
//!   magic bytes is decompressed first (`sitemap.xml.gz` is served as
//!   `application/gzip`, without `Content-Encoding`), capped like the
//!   rest. XML is read with `quick-xml`, namespaces ignored (only local
//!   names `loc`, `url`, `sitemap` count).
//! - Limits (`crawl.sitemaps`): bytes per sitemap after decompression
//!   (protocol: 50 MB; past it the body is cut and the URLs read until
//!   the cut are kept), URLs per sitemap (protocol: 50,000; the rest are
//!   counted as dropped), nesting depth of index files (the protocol
//!   allows none, sites nest anyway), sitemap files per crawl.
//! - Each sitemap URL is checked against robots.txt and fetched by the
//!   crawl's [`Fetcher`] (politeness, private-address guard, proxy); a
//!   sitemap listed twice is read once. Problems are counted and logged,
//!   never fatal: the crawl goes on with what was read.
//! - The URLs found go to the frontier like links (canonicalized, scope
//!   rules, seen set, budgets); what this module returns is in listing
//!   order, so a crawl is as deterministic with sitemaps as without.

use std::collections::HashSet;
use std::io::Read as _;

use quick_xml::events::Event;
use url::Url;

use super::robots::RobotsCache;
use crate::config::{Oversize, SitemapConfig};
use crate::fetch::{FetchError, FetchOptions, Fetcher};

/// Redirects followed for a sitemap (as for robots.txt).
const SITEMAP_REDIRECTS: usize = 5;

/// Why one sitemap could not be read (the crawl goes on).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SitemapError {
    /// The request failed.
    #[error("fetch failed: {0}")]
    Fetch(#[from] FetchError),
    /// A non-2xx answer.
    #[error("HTTP status {0}")]
    Status(u16),
    /// robots.txt disallows (or is unreachable for) the sitemap URL.
    #[error("disallowed by robots.txt")]
    Disallowed,
    /// A gzip body that does not decompress.
    #[error("bad gzip data: {0}")]
    Gzip(String),
    /// XML that does not parse (the URLs before the error are kept).
    #[error("bad XML: {0}")]
    Xml(String),
    /// An index nested deeper than `crawl.sitemaps.max_depth`.
    #[error("sitemap index nested deeper than {0}")]
    TooDeep(u32),
    /// More sitemap files than `crawl.sitemaps.max_files`.
    #[error("more than {0} sitemap files")]
    TooMany(usize),
}

/// What kind of sitemap a body is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `<urlset>`: page URLs.
    UrlSet,
    /// `<sitemapindex>`: URLs of more sitemaps.
    Index,
    /// Plain text, one URL per line.
    Text,
}

/// One parsed sitemap body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    /// Its kind.
    pub kind: Kind,
    /// The `<loc>` values (or lines), trimmed, in order, at most the
    /// configured number.
    pub locs: Vec<String>,
    /// Entries past the URL limit, not returned.
    pub dropped: u64,
    /// The body was cut at the byte limit.
    pub truncated: bool,
    /// A parse error after which reading stopped (`locs` holds what came
    /// before it).
    pub error: Option<SitemapError>,
}

/// Parses a sitemap body (gzip-compressed or not): at most `max_bytes`
/// bytes after decompression, at most `max_urls` entries.
///
/// # Errors
/// [`SitemapError::Gzip`] when the gzip stream is corrupt before any data.
/// XML errors are not errors: [`Parsed::error`] says where reading stopped.
pub fn parse(body: &[u8], max_bytes: usize, max_urls: usize) -> Result<Parsed, SitemapError> {
    let mut truncated = false;
    let plain;
    let data: &[u8] = if body.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        let limit = u64::try_from(max_bytes)
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        flate2::read::MultiGzDecoder::new(body)
            .take(limit)
            .read_to_end(&mut out)
            .map_err(|e| SitemapError::Gzip(e.to_string()))?;
        if out.len() > max_bytes {
            out.truncate(max_bytes);
            truncated = true;
        }
        plain = out;
        &plain
    } else if body.len() > max_bytes {
        truncated = true;
        body.get(..max_bytes).unwrap_or(body)
    } else {
        body
    };
    let start = data
        .strip_prefix(b"\xef\xbb\xbf".as_slice())
        .unwrap_or(data)
        .trim_ascii_start();
    let mut parsed = if start.starts_with(b"<") {
        parse_xml(start, max_urls)
    } else {
        parse_text(start, max_urls)
    };
    parsed.truncated = truncated;
    Ok(parsed)
}

/// A text sitemap: one absolute URL per line; other lines are ignored.
fn parse_text(data: &[u8], max_urls: usize) -> Parsed {
    let mut locs = Vec::new();
    let mut dropped = 0;
    for line in String::from_utf8_lossy(data).lines() {
        let line = line.trim();
        if !(line.starts_with("http://") || line.starts_with("https://")) {
            continue;
        }
        if locs.len() < max_urls {
            locs.push(line.to_owned());
        } else {
            dropped += 1;
        }
    }
    Parsed {
        kind: Kind::Text,
        locs,
        dropped,
        truncated: false,
        error: None,
    }
}

/// An XML sitemap or index: the text of each `<loc>` inside `<url>` or
/// `<sitemap>`, whatever the namespace prefix.
fn parse_xml(data: &[u8], max_urls: usize) -> Parsed {
    let mut reader = quick_xml::Reader::from_reader(data);
    let mut kind = Kind::UrlSet;
    let mut root_seen = false;
    let mut in_entry = false;
    let mut loc: Option<String> = None;
    let mut locs = Vec::new();
    let mut dropped = 0;
    let mut error = None;
    let mut buf = Vec::new();
    loop {
        let event = match reader.read_event_into(&mut buf) {
            Ok(e) => e,
            Err(e) => {
                error = Some(SitemapError::Xml(format!(
                    "at byte {}: {e}",
                    reader.buffer_position()
                )));
                break;
            }
        };
        match event {
            Event::Start(e) => {
                let name = e.local_name();
                let name = name.as_ref();
                if !root_seen {
                    root_seen = true;
                    if name.eq_ignore_ascii_case(b"sitemapindex") {
                        kind = Kind::Index;
                    }
                }
                if name == b"url" || name == b"sitemap" {
                    in_entry = true;
                } else if name == b"loc" && in_entry {
                    loc = Some(String::new());
                }
            }
            Event::End(e) => {
                let name = e.local_name();
                let name = name.as_ref();
                if name == b"loc" {
                    if let Some(l) = loc.take() {
                        let l = l.trim();
                        if !l.is_empty() {
                            if locs.len() < max_urls {
                                locs.push(l.to_owned());
                            } else {
                                dropped += 1;
                            }
                        }
                    }
                } else if name == b"url" || name == b"sitemap" {
                    in_entry = false;
                }
            }
            Event::Text(t) => {
                if let (Some(l), Ok(text)) = (loc.as_mut(), t.decode()) {
                    l.push_str(&text);
                }
            }
            Event::CData(t) => {
                if let (Some(l), Ok(text)) = (loc.as_mut(), t.decode()) {
                    l.push_str(&text);
                }
            }
            Event::GeneralRef(r) => {
                if let Some(l) = loc.as_mut() {
                    if let Ok(Some(c)) = r.resolve_char_ref() {
                        l.push(c);
                    } else if let Ok(name) = r.decode() {
                        match &*name {
                            "amp" => l.push('&'),
                            "lt" => l.push('<'),
                            "gt" => l.push('>'),
                            "quot" => l.push('"'),
                            "apos" => l.push('\''),
                            _ => {}
                        }
                    }
                }
            }
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    Parsed {
        kind,
        locs,
        dropped,
        truncated: false,
        error,
    }
}

/// Whether a seed names a sitemap rather than a page: its path ends in
/// `.xml`, `.xml.gz` or `.txt.gz` and its last segment mentions
/// `sitemap` (`/sitemap.xml`, `/sitemap_index.xml.gz`, `/sitemaps/news-sitemap.xml`).
pub fn is_sitemap_url(url: &Url) -> bool {
    let path = url.path().to_ascii_lowercase();
    let last = path.rsplit('/').next().unwrap_or_default();
    last.contains("sitemap")
        && [".xml", ".xml.gz", ".txt", ".txt.gz"]
            .iter()
            .any(|ext| last.ends_with(ext))
}

/// What reading the sitemaps of one start point gave.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// Page URLs listed, in listing order (not yet canonicalized nor
    /// scoped).
    pub urls: Vec<Url>,
    /// Sitemap files read (fetched and parsed, fully or in part).
    pub files: u64,
    /// Entries dropped: over the URL limit, not http(s) URLs.
    pub dropped: u64,
    /// Sitemaps that could not be read (or only in part), with why.
    pub errors: Vec<(String, SitemapError)>,
}

/// Reads sitemaps and the indexes they lead to, breadth-first from
/// `start` (depth 0), one at a time, fetching each through `fetcher` after
/// `robots` allows it. `budget` counts down the files read (across calls:
/// `crawl.sitemaps.max_files` per crawl).
pub async fn read_all(
    fetcher: &Fetcher,
    robots: &RobotsCache,
    config: &SitemapConfig,
    start: Vec<Url>,
    budget: &mut usize,
) -> Found {
    let options = FetchOptions {
        max_body_bytes: config.max_bytes,
        oversize: Oversize::Truncate,
        max_redirects: SITEMAP_REDIRECTS,
        content_types: None,
        body_budget: None,
    };
    let mut found = Found::default();
    let mut seen: HashSet<String> = HashSet::new();
    let mut queue: std::collections::VecDeque<(Url, u32)> =
        start.into_iter().map(|u| (u, 0)).collect();
    while let Some((url, depth)) = queue.pop_front() {
        if !seen.insert(url.as_str().to_owned()) {
            continue;
        }
        if *budget == 0 {
            found
                .errors
                .push((url.to_string(), SitemapError::TooMany(config.max_files)));
            continue;
        }
        if !robots.check(fetcher, &url).await.allowed {
            found
                .errors
                .push((url.to_string(), SitemapError::Disallowed));
            continue;
        }
        *budget -= 1;
        let outcome = match fetcher.fetch_with(&url, &options).await {
            Ok(o) => o,
            Err(e) => {
                found.errors.push((url.to_string(), e.into()));
                continue;
            }
        };
        if !(200..300).contains(&outcome.status) {
            found
                .errors
                .push((url.to_string(), SitemapError::Status(outcome.status)));
            continue;
        }
        let parsed = match parse(&outcome.body, config.max_bytes, config.max_urls) {
            Ok(p) => p,
            Err(e) => {
                found.errors.push((url.to_string(), e));
                continue;
            }
        };
        found.files += 1;
        found.dropped += parsed.dropped;
        if let Some(e) = parsed.error {
            found.errors.push((url.to_string(), e));
        }
        let base = outcome.final_url;
        for loc in parsed.locs {
            let Some(u) = base
                .join(&loc)
                .ok()
                .filter(|u| matches!(u.scheme(), "http" | "https"))
            else {
                found.dropped += 1;
                continue;
            };
            if parsed.kind == Kind::Index {
                if depth < config.max_depth {
                    queue.push_back((u, depth + 1));
                } else {
                    found
                        .errors
                        .push((u.to_string(), SitemapError::TooDeep(config.max_depth)));
                }
            } else {
                found.urls.push(u);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urlset_with_namespace_entities_and_cdata() {
        let xml = br#"<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc> https://example.com/a?x=1&amp;y=2 </loc><lastmod>2024-01-01</lastmod></url>
  <url><loc><![CDATA[https://example.com/b]]></loc></url>
  <url><loc>https://example.com/&#99;</loc></url>
  <loc>https://example.com/outside-an-entry</loc>
</urlset>"#;
        let p = parse(xml, 1 << 20, 100).unwrap();
        assert_eq!(p.kind, Kind::UrlSet);
        assert_eq!(
            p.locs,
            [
                "https://example.com/a?x=1&y=2",
                "https://example.com/b",
                "https://example.com/c"
            ]
        );
        assert_eq!(p.error, None);
    }

    #[test]
    fn index_gzip_text_and_limits() {
        let xml = b"<sm:sitemapindex xmlns:sm='http://www.sitemaps.org/schemas/sitemap/0.9'>\
            <sm:sitemap><sm:loc>https://example.com/s1.xml</sm:loc></sm:sitemap>\
            <sm:sitemap><sm:loc>https://example.com/s2.xml</sm:loc></sm:sitemap>\
            <sm:sitemap><sm:loc>https://example.com/s3.xml</sm:loc></sm:sitemap></sm:sitemapindex>";
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut gz, xml).unwrap();
        let gz = gz.finish().unwrap();
        let p = parse(&gz, 1 << 20, 2).unwrap();
        assert_eq!(p.kind, Kind::Index);
        assert_eq!(
            p.locs,
            ["https://example.com/s1.xml", "https://example.com/s2.xml"]
        );
        assert_eq!(p.dropped, 1);

        let text = b"https://example.com/a\n# comment\n\nhttps://example.com/b\r\nftp://x/\n";
        let p = parse(text, 1 << 20, 10).unwrap();
        assert_eq!(p.kind, Kind::Text);
        assert_eq!(p.locs, ["https://example.com/a", "https://example.com/b"]);

        // Cut at the byte limit: the URLs before the cut are kept.
        let xml = b"<urlset><url><loc>https://e.com/1</loc></url><url><loc>https://e.com/2</loc></url></urlset>";
        let p = parse(xml, 50, 10).unwrap();
        assert!(p.truncated);
        assert_eq!(p.locs, ["https://e.com/1"]);

        assert!(matches!(
            parse(&[0x1f, 0x8b, 1, 2, 3], 100, 10),
            Err(SitemapError::Gzip(_))
        ));
    }

    #[test]
    fn broken_xml_keeps_what_came_before() {
        let xml =
            b"<urlset><url><loc>https://e.com/1</loc></url><url><loc>https://e.com/2</lo></url>";
        let p = parse(xml, 1 << 20, 10).unwrap();
        assert_eq!(p.locs, ["https://e.com/1"]);
        assert!(matches!(p.error, Some(SitemapError::Xml(_))), "{p:?}");
    }

    #[test]
    fn sitemap_seeds_by_name() {
        for (u, yes) in [
            ("https://e.com/sitemap.xml", true),
            ("https://e.com/sitemap_index.xml.gz", true),
            ("https://e.com/maps/news-sitemap.txt", true),
            ("https://e.com/feed.xml", false),
            ("https://e.com/sitemap/", false),
            ("https://e.com/sitemap.html", false),
        ] {
            assert_eq!(is_sitemap_url(&Url::parse(u).unwrap()), yes, "{u}");
        }
    }
}
