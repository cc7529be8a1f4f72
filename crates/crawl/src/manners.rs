//! Page-level robots directives: `<meta name=robots>`, the crawler's own
//! `<meta name=TOKEN>` (`crawl.robots_token`, as Google reads
//! `<meta name=googlebot>`), the `X-Robots-Tag` response header, and the
//! `rel` tokens of links (`nofollow`, `ugc`, `sponsored`).
//!
//! What the crawl does with them (`crawl.directives`):
//! - `noindex`: the page is fetched and analyzed but not checked against
//!   the index nor added to it: it gets no verdict, its `pages.jsonl` line
//!   says `"robots": "noindex (SOURCE)"`, and the summary counts it. A
//!   noindex page is usually a hub (search results, tag pages): its links
//!   are still followed unless it also says `nofollow`.
//! - `nofollow` (meta or header): none of the page's links are followed
//!   (counted as skipped links, reason `meta_nofollow`).
//! - `none` is `noindex, nofollow`; `all`, `index`, `follow` and the
//!   snippet/preview directives change nothing here.
//! - A link whose every `<a>` carries one of `crawl.directives.nofollow_rels`
//!   is not followed (reason `rel_nofollow`); a target linked once with and
//!   once without `rel=nofollow` is followed, as search engines do.
//!
//! Directives only ever restrict: any source saying `noindex` wins, as in
//! Google's reading of conflicting robots meta tags.

use crate::config::DirectivesConfig;

/// The directives that apply to one page, each with where it came from
/// (for the record: `meta robots`, `meta neardup`, `X-Robots-Tag`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Directives {
    /// Do not index: the source that said so.
    pub noindex: Option<String>,
    /// Do not follow the page's links: the source that said so.
    pub nofollow: Option<String>,
}

impl Directives {
    /// The page's directives from its `<meta>` pairs (lowercased name,
    /// content, as `extract` collects them) and its `X-Robots-Tag` header
    /// values, for the product token `token` (lowercase), under `config`
    /// (everything is ignored when `config.obey` is off).
    pub fn of_page(
        config: &DirectivesConfig,
        token: &str,
        metas: &[(String, String)],
        header_values: &[String],
    ) -> Directives {
        let mut d = Directives::default();
        if !config.obey {
            return d;
        }
        for (name, content) in metas {
            if name == "robots" || name.eq_ignore_ascii_case(token) {
                d.add(content, &format!("meta {name}"));
            }
        }
        for value in header_values {
            match header_target(value) {
                (None, rest) => d.add(rest, "X-Robots-Tag"),
                (Some(agent), rest) if agent.eq_ignore_ascii_case(token) => {
                    d.add(rest, "X-Robots-Tag");
                }
                _ => {}
            }
        }
        d
    }

    /// Adds the directives of one comma-separated list.
    fn add(&mut self, content: &str, source: &str) {
        let (noindex, nofollow) = parse_list(content);
        if noindex && self.noindex.is_none() {
            self.noindex = Some(source.to_owned());
        }
        if nofollow && self.nofollow.is_none() {
            self.nofollow = Some(source.to_owned());
        }
    }

    /// The `pages.jsonl` `robots` field: `noindex (meta robots), nofollow
    /// (X-Robots-Tag)`, or `None` without directives.
    pub fn describe(&self) -> Option<String> {
        let parts: Vec<String> = [("noindex", &self.noindex), ("nofollow", &self.nofollow)]
            .iter()
            .filter_map(|(what, source)| source.as_ref().map(|s| format!("{what} ({s})")))
            .collect();
        (!parts.is_empty()).then(|| parts.join(", "))
    }
}

/// `(noindex, nofollow)` of a directive list such as `noindex, follow` or
/// `none` (tokens separated by commas or whitespace, any case).
pub fn parse_list(content: &str) -> (bool, bool) {
    let mut noindex = false;
    let mut nofollow = false;
    for token in content.split(|c: char| c == ',' || c.is_ascii_whitespace()) {
        let token = token.trim();
        if token.eq_ignore_ascii_case("noindex") {
            noindex = true;
        } else if token.eq_ignore_ascii_case("nofollow") {
            nofollow = true;
        } else if token.eq_ignore_ascii_case("none") {
            noindex = true;
            nofollow = true;
        }
    }
    (noindex, nofollow)
}

/// Directives of an `X-Robots-Tag` value that carry a value after a colon
/// (`unavailable_after: DATE`, `max-snippet: 20`): a value starting with
/// one of them is for every crawler, not for a user agent of that name.
const VALUED: [&str; 4] = [
    "unavailable_after",
    "max-snippet",
    "max-image-preview",
    "max-video-preview",
];

/// Splits an `X-Robots-Tag` value into its user agent, if it names one
/// (`googlebot: noindex`), and the directive list.
fn header_target(value: &str) -> (Option<&str>, &str) {
    if let Some((head, rest)) = value.split_once(':') {
        let head = head.trim();
        let is_agent = !head.is_empty()
            && !head.contains([',', ' '])
            && !VALUED.iter().any(|v| head.eq_ignore_ascii_case(v));
        if is_agent {
            return (Some(head), rest);
        }
    }
    (None, value)
}

/// The [`neardup_html::LinkRels`] bits of `crawl.directives.nofollow_rels`
/// (unknown names are refused by config validation; ignored here). 0 when
/// `config.obey` is off.
pub fn nofollow_mask(config: &DirectivesConfig) -> u8 {
    if !config.obey {
        return 0;
    }
    config
        .nofollow_rels
        .iter()
        .filter_map(|r| neardup_html::LinkRels::bit(r))
        .fold(0, |a, b| a | b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metas(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect()
    }

    #[test]
    fn lists_parse_any_case_and_none_means_both() {
        assert_eq!(parse_list("noindex, follow"), (true, false));
        assert_eq!(parse_list("INDEX,NOFOLLOW"), (false, true));
        assert_eq!(parse_list(" none "), (true, true));
        assert_eq!(parse_list("all"), (false, false));
        assert_eq!(parse_list("noindexer"), (false, false));
    }

    #[test]
    fn meta_names_robots_and_the_token_only() {
        let config = DirectivesConfig::default();
        let d = Directives::of_page(
            &config,
            "neardup",
            &metas(&[("googlebot", "noindex"), ("neardup", "nofollow")]),
            &[],
        );
        assert_eq!(d.noindex, None);
        assert_eq!(d.nofollow.as_deref(), Some("meta neardup"));
        let d = Directives::of_page(&config, "neardup", &metas(&[("robots", "noindex")]), &[]);
        assert_eq!(d.describe().as_deref(), Some("noindex (meta robots)"));
    }

    #[test]
    fn header_for_everyone_or_for_the_token() {
        let config = DirectivesConfig::default();
        let of = |values: &[&str]| {
            let v: Vec<String> = values.iter().map(|s| (*s).to_owned()).collect();
            Directives::of_page(&config, "neardup", &[], &v)
        };
        assert!(of(&["noindex"]).noindex.is_some());
        assert!(of(&["googlebot: noindex"]).noindex.is_none());
        assert!(of(&["NearDup: noindex, nofollow"]).nofollow.is_some());
        // A valued directive is not a user agent.
        let d = of(&["unavailable_after: 25 Jun 2010 15:00:00 PST, nofollow"]);
        assert!(d.nofollow.is_some());
        assert!(d.noindex.is_none());
    }

    #[test]
    fn obey_off_ignores_everything() {
        let config = DirectivesConfig {
            obey: false,
            ..DirectivesConfig::default()
        };
        let d = Directives::of_page(
            &config,
            "neardup",
            &metas(&[("robots", "none")]),
            &["noindex".into()],
        );
        assert_eq!(d, Directives::default());
        assert_eq!(nofollow_mask(&config), 0);
        assert_eq!(
            nofollow_mask(&DirectivesConfig::default()),
            neardup_html::LinkRels::NOFOLLOW
                | neardup_html::LinkRels::UGC
                | neardup_html::LinkRels::SPONSORED
        );
    }
}
