//! Crawl scope: which canonical URLs are crawled, and link filtering.
//!
//! [`Scope::check`] is a pure test (scheme, depth, site, include/exclude
//! patterns); [`Scope::admit`] also counts the page against the per-site and
//! total budgets, so a URL is admitted once, when it enters the frontier.
//! [`Scope::links`] turns a page's raw `href`s into canonical URLs, with a
//! typed reason for every link it drops and a cap per page.

use hashbrown::HashTable;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::hash::BuildHasher;

use regex::RegexSet;
use url::Url;

use crate::config::{ScopeConfig, SiteScope};
use crate::site::ScopeSite;
use neardup::{CanonError, Canonicalizer};

/// Why a URL or link is not crawled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// A scheme other than http(s): `javascript`, `mailto`, `data`, `tel`...
    Scheme(String),
    /// Not a URL (the parser's message).
    Unparseable(String),
    /// An http(s) URL without a host.
    NoHost,
    /// A host name DNS cannot resolve (label over 63 bytes, name over 253).
    BadHost,
    /// Longer than `canonical.max_url_len`.
    TooLong,
    /// The link points at the page itself (after canonicalization).
    SelfLink,
    /// Deeper than `crawl.scope.max_depth`.
    TooDeep,
    /// The host is outside the crawled sites.
    OffSite,
    /// Matched an exclude pattern.
    Excluded,
    /// Matched no include pattern.
    NotIncluded,
    /// The site's `max_pages_per_site` budget is spent.
    SiteBudget,
    /// The crawl's `max_pages` budget is spent.
    CrawlBudget,
    /// Past `extract.max_links` links on one page.
    TooManyLinks,
    /// The page says `<meta name=robots content=nofollow>`: none of its
    /// links are followed.
    MetaNofollow,
    /// The link says `rel=nofollow` (or `ugc`, `sponsored`) wherever the
    /// page links its target.
    RelNofollow,
    /// The frontier holds `crawl.max_frontier` URLs already.
    FrontierFull,
    /// Fetched meanwhile as another URL's redirect target, while it waited
    /// in the queue.
    AlreadyFetched,
    /// One redirect stub more than `crawl.fetch.max_redirects` in a row.
    RedirectStubLimit,
    /// A redirect target that cannot be resolved into a URL.
    BadUrl,
}

impl SkipReason {
    /// A short stable name for logs and output files.
    pub fn name(&self) -> &'static str {
        match self {
            SkipReason::Scheme(_) => "scheme",
            SkipReason::Unparseable(_) => "unparseable",
            SkipReason::NoHost => "no_host",
            SkipReason::BadHost => "bad_host",
            SkipReason::TooLong => "too_long",
            SkipReason::SelfLink => "self_link",
            SkipReason::TooDeep => "too_deep",
            SkipReason::OffSite => "off_site",
            SkipReason::Excluded => "excluded",
            SkipReason::NotIncluded => "not_included",
            SkipReason::SiteBudget => "site_budget",
            SkipReason::CrawlBudget => "crawl_budget",
            SkipReason::TooManyLinks => "too_many_links",
            SkipReason::MetaNofollow => "meta_nofollow",
            SkipReason::RelNofollow => "rel_nofollow",
            SkipReason::FrontierFull => "frontier_full",
            SkipReason::AlreadyFetched => "already_fetched",
            SkipReason::RedirectStubLimit => "redirect_stub_limit",
            SkipReason::BadUrl => "bad_url",
        }
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::Scheme(s) => write!(f, "scheme `{s}`"),
            SkipReason::Unparseable(m) => write!(f, "unparseable: {m}"),
            other => f.write_str(other.name()),
        }
    }
}

impl From<CanonError> for SkipReason {
    fn from(e: CanonError) -> Self {
        match e {
            CanonError::Unparseable(m) => SkipReason::Unparseable(m),
            CanonError::Scheme(s) => SkipReason::Scheme(s),
            CanonError::NoHost => SkipReason::NoHost,
            CanonError::BadHost(_) => SkipReason::BadHost,
            CanonError::TooLong { .. } => SkipReason::TooLong,
        }
    }
}

/// One accepted link: what to request and what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// The URL to request: as linked, resolved against the base (see
    /// [`Canonicalizer::request`]); robots.txt is matched against it.
    pub url: Url,
    /// Its canonical key: the seen set's and dedup's identity; scope
    /// patterns are matched against it.
    pub key: Url,
}

/// The links of one page, canonical and filtered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Links {
    /// Links, first occurrence order, one per key (the first spelling
    /// linked is the one requested).
    pub accepted: Vec<Link>,
    /// Dropped links with the reason (at most `max_links` of them are kept,
    /// so a page of a million bad links costs bounded memory).
    pub skipped: Vec<(String, SkipReason)>,
    /// Links beyond the per-page cap, counted only.
    pub over_cap: usize,
}

/// The crawl's scope: sites, patterns, depth and page budgets.
#[derive(Debug)]
pub struct Scope {
    sites: SiteScope,
    /// Sites of the seeds (host or registrable domain).
    seed_sites: HashSet<ScopeSite>,
    /// Lowercased allow-list hosts (they and their subdomains).
    allow_hosts: Vec<String>,
    include: Option<RegexSet>,
    exclude: Option<RegexSet>,
    max_depth: u32,
    max_pages_per_site: u64,
    max_pages: u64,
    per_site: HashMap<ScopeSite, u64>,
    total: u64,
}

impl Scope {
    /// A scope for a crawl from these (canonical) seeds.
    ///
    /// # Errors
    /// A pattern that is not a valid regex (also caught by
    /// `Config::validate`).
    pub fn new(config: &ScopeConfig, seeds: &[Url]) -> Result<Scope, regex::Error> {
        let set = |patterns: &[String]| -> Result<Option<RegexSet>, regex::Error> {
            if patterns.is_empty() {
                Ok(None)
            } else {
                RegexSet::new(patterns).map(Some)
            }
        };
        let mut scope = Scope {
            sites: config.sites,
            seed_sites: HashSet::new(),
            allow_hosts: config
                .allow_hosts
                .iter()
                .map(|h| h.trim_end_matches('.').to_ascii_lowercase())
                .collect(),
            include: set(&config.include)?,
            exclude: set(&config.exclude)?,
            max_depth: config.max_depth,
            max_pages_per_site: config.max_pages_per_site,
            max_pages: config.max_pages,
            per_site: HashMap::new(),
            total: 0,
        };
        for seed in seeds {
            if let Some(key) = scope.site_key(seed) {
                scope.seed_sites.insert(key);
            }
        }
        Ok(scope)
    }

    /// The site a URL belongs to for the scope: its registrable domain
    /// with `sites = "domain"`, else its host. `None` without a host.
    pub fn site_key(&self, url: &Url) -> Option<ScopeSite> {
        let host = url.host_str()?;
        match (self.sites, url.host()) {
            (SiteScope::Domain, Some(url::Host::Domain(d))) => Some(ScopeSite::new(
                psl::domain_str(d)
                    // A bare public suffix or an unknown single label: the
                    // host is its own site.
                    .unwrap_or(d),
            )),
            _ => Some(ScopeSite::new(host)),
        }
    }

    fn allow_listed(&self, host: &str) -> bool {
        self.allow_hosts.iter().any(|a| {
            host == a
                || host
                    .strip_suffix(a.as_str())
                    .is_some_and(|rest| rest.ends_with('.'))
        })
    }

    /// Whether a canonical URL at this link depth is in scope (budgets are
    /// not looked at: see [`Scope::admit`]).
    ///
    /// # Errors
    /// The first [`SkipReason`] that applies.
    pub fn check(&self, url: &Url, depth: u32) -> Result<(), SkipReason> {
        if url.scheme() != "http" && url.scheme() != "https" {
            return Err(SkipReason::Scheme(url.scheme().to_owned()));
        }
        let host = url.host_str().ok_or(SkipReason::NoHost)?;
        if depth > self.max_depth {
            return Err(SkipReason::TooDeep);
        }
        let on_site = match self.sites {
            SiteScope::Any => true,
            SiteScope::AllowList => self.allow_listed(host),
            SiteScope::Host | SiteScope::Domain => {
                self.allow_listed(host)
                    || self
                        .site_key(url)
                        .is_some_and(|k| self.seed_sites.contains(&k))
            }
        };
        if !on_site {
            return Err(SkipReason::OffSite);
        }
        if let Some(exclude) = &self.exclude {
            if exclude.is_match(url.as_str()) {
                return Err(SkipReason::Excluded);
            }
        }
        if let Some(include) = &self.include {
            if !include.is_match(url.as_str()) {
                return Err(SkipReason::NotIncluded);
            }
        }
        Ok(())
    }

    /// [`Scope::check`], then counts the page against its site's and the
    /// crawl's budgets. Call once per new canonical URL (after the seen-set
    /// test), when it enters the frontier.
    ///
    /// # Errors
    /// As [`Scope::check`], or a spent budget.
    pub fn admit(&mut self, url: &Url, depth: u32) -> Result<(), SkipReason> {
        self.check(url, depth)?;
        if self.total >= self.max_pages {
            return Err(SkipReason::CrawlBudget);
        }
        let key = self.site_key(url).ok_or(SkipReason::NoHost)?;
        let count = self.per_site.entry(key).or_insert(0);
        if *count >= self.max_pages_per_site {
            return Err(SkipReason::SiteBudget);
        }
        *count += 1;
        self.total += 1;
        Ok(())
    }

    /// Pages admitted so far.
    pub fn admitted(&self) -> u64 {
        self.total
    }

    /// Resolves a page's raw links against its base URL (the page URL, or
    /// its `<base href>`) into request URLs and keys, dropping non-http(s),
    /// unparseable, too long and self links (the key is the page's key
    /// `page`), and everything past `max_links` (counted). Scope is not
    /// checked here: the frontier calls [`Scope::admit`] on new keys.
    pub fn links<'a>(
        canon: &Canonicalizer,
        page: &Url,
        base: &Url,
        hrefs: impl IntoIterator<Item = &'a str>,
        max_links: usize,
    ) -> Links {
        Self::gather(
            page,
            hrefs,
            max_links,
            |href| *href,
            |href| canon.resolve(base, href),
        )
    }

    /// [`Scope::links`] of links the extractor has resolved already
    /// (`Extracted::links`: absolute, http(s), fragment removed): the same
    /// request URLs, keys and reasons, without parsing each link again.
    pub fn resolved_links(
        canon: &Canonicalizer,
        page: &Url,
        links: impl IntoIterator<Item = Url>,
        max_links: usize,
    ) -> Links {
        Self::gather(page, links, max_links, Url::as_str, |url| {
            canon.resolve_parsed(url.clone())
        })
    }

    /// The links of `items` in order, each distinct key once: `raw` is an
    /// item as the page gave it (for the reasons of skipped links),
    /// `resolve` its request URL and key.
    fn gather<T>(
        page: &Url,
        items: impl IntoIterator<Item = T>,
        max_links: usize,
        raw: impl Fn(&T) -> &str,
        resolve: impl Fn(&T) -> Result<(Url, Url), CanonError>,
    ) -> Links {
        let items = items.into_iter();
        let mut links = Links {
            accepted: Vec::with_capacity(items.size_hint().0.min(max_links)),
            ..Links::default()
        };
        // Each accepted link's index by the hash of its key, kept beside
        // it: keys are hashed, not copied. The hash is keyed (SipHash): a
        // page cannot make its links collide.
        let mut seen: HashTable<(u64, usize)> = HashTable::with_capacity(links.accepted.capacity());
        let hasher = std::hash::RandomState::new();
        let mut considered = 0usize;
        for item in items {
            if considered >= max_links {
                links.over_cap += 1;
                continue;
            }
            considered += 1;
            match resolve(&item) {
                Ok((_, key)) if key == *page => {
                    links
                        .skipped
                        .push((raw(&item).to_owned(), SkipReason::SelfLink));
                }
                Ok((url, key)) => {
                    let hash = hasher.hash_one(key.as_str());
                    let accepted = &links.accepted;
                    let known = seen.find(hash, |&(h, at)| {
                        h == hash && accepted.get(at).is_some_and(|l| l.key == key)
                    });
                    if known.is_none() {
                        seen.insert_unique(hash, (hash, links.accepted.len()), |e| e.0);
                        links.accepted.push(Link { url, key });
                    }
                }
                Err(e) => {
                    // Keep the raw text short: it goes to logs and reports.
                    let mut raw = raw(&item).to_owned();
                    if raw.len() > 200 {
                        let mut cut = 200;
                        while !raw.is_char_boundary(cut) {
                            cut -= 1;
                        }
                        raw.truncate(cut);
                    }
                    links.skipped.push((raw, e.into()));
                }
            }
        }
        links
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup::CanonicalConfig;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    fn scope(config: ScopeConfig, seeds: &[&str]) -> Scope {
        let seeds: Vec<Url> = seeds.iter().map(|s| url(s)).collect();
        Scope::new(&config, &seeds).unwrap()
    }

    #[test]
    fn host_scope_is_the_seed_hosts() {
        let s = scope(ScopeConfig::default(), &["http://www.example.co.uk/"]);
        assert_eq!(s.check(&url("http://www.example.co.uk/a"), 1), Ok(()));
        assert_eq!(
            s.check(&url("http://blog.example.co.uk/a"), 1),
            Err(SkipReason::OffSite)
        );
    }

    #[test]
    fn domain_scope_uses_the_public_suffix_list() {
        let config = ScopeConfig {
            sites: SiteScope::Domain,
            ..ScopeConfig::default()
        };
        let s = scope(config, &["http://a.example.co.uk/", "http://x.github.io/"]);
        assert_eq!(s.check(&url("http://b.example.co.uk/"), 0), Ok(()));
        assert_eq!(s.check(&url("http://example.co.uk/"), 0), Ok(()));
        // co.uk is a public suffix: another registrant's site.
        assert_eq!(
            s.check(&url("http://other.co.uk/"), 0),
            Err(SkipReason::OffSite)
        );
        // github.io is a public suffix too: y.github.io is someone else.
        assert_eq!(s.check(&url("http://x.github.io/p"), 0), Ok(()));
        assert_eq!(
            s.check(&url("http://y.github.io/"), 0),
            Err(SkipReason::OffSite)
        );
        assert_eq!(
            s.site_key(&url("http://a.b.example.co.uk/"))
                .as_ref()
                .map(ScopeSite::as_str),
            Some("example.co.uk")
        );
    }

    #[test]
    fn allow_list_matches_host_and_subdomains_only() {
        let config = ScopeConfig {
            sites: SiteScope::AllowList,
            allow_hosts: vec!["Example.org".into()],
            ..ScopeConfig::default()
        };
        let s = scope(config, &["http://seed.net/"]);
        assert_eq!(s.check(&url("http://example.org/"), 0), Ok(()));
        assert_eq!(s.check(&url("http://www.example.org/"), 0), Ok(()));
        assert_eq!(
            s.check(&url("http://badexample.org/"), 0),
            Err(SkipReason::OffSite)
        );
        // The seed's own host is not in an allow-list scope.
        assert_eq!(
            s.check(&url("http://seed.net/"), 0),
            Err(SkipReason::OffSite)
        );
    }

    #[test]
    fn patterns_and_depth() {
        let config = ScopeConfig {
            sites: SiteScope::Any,
            include: vec![r"^https?://[^/]+/docs/".into()],
            exclude: vec![r"/calendar/".into(), r"\.pdf$".into()],
            max_depth: 2,
            ..ScopeConfig::default()
        };
        let s = scope(config, &[]);
        assert_eq!(s.check(&url("http://a.com/docs/x"), 2), Ok(()));
        assert_eq!(
            s.check(&url("http://a.com/docs/x"), 3),
            Err(SkipReason::TooDeep)
        );
        assert_eq!(
            s.check(&url("http://a.com/blog/x"), 0),
            Err(SkipReason::NotIncluded)
        );
        assert_eq!(
            s.check(&url("http://a.com/docs/calendar/2031"), 0),
            Err(SkipReason::Excluded)
        );
        assert_eq!(
            s.check(&url("http://a.com/docs/a.pdf"), 0),
            Err(SkipReason::Excluded)
        );
        assert_eq!(
            s.check(&url("ftp://a.com/docs/x"), 0),
            Err(SkipReason::Scheme("ftp".into()))
        );
    }

    #[test]
    fn budgets_per_site_and_total() {
        let config = ScopeConfig {
            sites: SiteScope::Any,
            max_pages_per_site: 2,
            max_pages: 3,
            ..ScopeConfig::default()
        };
        let mut s = scope(config, &[]);
        assert_eq!(s.admit(&url("http://a.com/1"), 0), Ok(()));
        assert_eq!(s.admit(&url("http://a.com/2"), 0), Ok(()));
        assert_eq!(
            s.admit(&url("http://a.com/3"), 0),
            Err(SkipReason::SiteBudget)
        );
        assert_eq!(s.admit(&url("http://b.com/1"), 0), Ok(()));
        assert_eq!(
            s.admit(&url("http://c.com/1"), 0),
            Err(SkipReason::CrawlBudget)
        );
        assert_eq!(s.admitted(), 3);
        // A rejected URL does not spend budget.
        let mut t = scope(
            ScopeConfig {
                max_pages: 1,
                ..ScopeConfig::default()
            },
            &["http://a.com/"],
        );
        assert_eq!(t.admit(&url("http://z.com/"), 0), Err(SkipReason::OffSite));
        assert_eq!(t.admit(&url("http://a.com/x"), 0), Ok(()));
    }

    #[test]
    fn link_filtering_has_reasons_and_a_cap() {
        let canon = Canonicalizer::new(&CanonicalConfig::default());
        let page = url("http://e.com/dir/page");
        let base = url("http://e.com/other/");
        let hrefs = [
            "javascript:void(0)",
            "mailto:me@e.com",
            "data:text/html,hi",
            "tel:+123",
            "http://[bad",
            "a.html",
            "/dir/page#section",
            "A.html?utm_source=x",
            "a.html",
            "//other.org/",
            "overflow-1",
            "overflow-2",
        ];
        let links = Scope::links(&canon, &page, &base, hrefs, 10);
        let accepted: Vec<&str> = links.accepted.iter().map(|l| l.key.as_str()).collect();
        assert_eq!(
            accepted,
            [
                "http://e.com/other/a.html",
                "http://e.com/other/A.html",
                "http://other.org/"
            ]
        );
        // Requested as linked: the tracking parameter stays in the request.
        assert_eq!(
            links.accepted[1].url.as_str(),
            "http://e.com/other/A.html?utm_source=x"
        );
        let reasons: Vec<&str> = links.skipped.iter().map(|(_, r)| r.name()).collect();
        assert_eq!(
            reasons,
            [
                "scheme",
                "scheme",
                "scheme",
                "scheme",
                "unparseable",
                "self_link"
            ]
        );
        assert_eq!(links.skipped[0].1, SkipReason::Scheme("javascript".into()));
        assert_eq!(links.skipped[3].1, SkipReason::Scheme("tel".into()));
        assert_eq!(links.over_cap, 2);
    }

    #[test]
    fn resolved_links_agree_with_raw_links() {
        let canon = Canonicalizer::new(&CanonicalConfig::default());
        let page = url("http://e.com/dir/page");
        let hrefs = [
            "http://e.com/a.html",
            "http://e.com/a.html?utm_source=x",
            "http://e.com/dir/page",
            "http://user:pw@e.com/b.html",
            "https://other.org/x?b=2&a=1",
            "http://e.com/a.html",
            "http://e.com/c",
            "http://e.com/d",
        ];
        let raw = Scope::links(&canon, &page, &page, hrefs, 6);
        let parsed = Scope::resolved_links(&canon, &page, hrefs.iter().map(|h| url(h)), 6);
        let pairs = |l: &Links| -> Vec<(String, String)> {
            l.accepted
                .iter()
                .map(|l| (l.url.to_string(), l.key.to_string()))
                .collect()
        };
        assert_eq!(pairs(&parsed), pairs(&raw));
        assert_eq!(
            pairs(&raw)
                .iter()
                .map(|(_, k)| k.as_str())
                .collect::<Vec<_>>(),
            [
                "http://e.com/a.html",
                "http://e.com/b.html",
                "https://other.org/x?a=1&b=2"
            ]
        );
        assert_eq!(parsed.skipped, raw.skipped);
        assert_eq!(parsed.skipped.len(), 1);
        assert_eq!(parsed.over_cap, 2);
        assert_eq!(raw.over_cap, 2);
    }
}
