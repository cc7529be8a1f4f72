//! Configuration: every knob of the pipeline, with defaults and validation.
//!
//! Two stages, as in ripgrep's low/high args: the TOML file is parsed into
//! these structs (unknown keys are errors), then [`Config::validate`] checks
//! every range and names the key, the bad value and what is allowed.
//! `configs/default.toml` documents each key; a test keeps it equal to
//! [`Config::default`].

use std::path::Path;

use serde::{Deserialize, Serialize};

use neardup_api::SettingError;

use crate::error::{Error, Result};

pub use crate::canonical::{CanonicalConfig, TrailingSlash};
pub use crate::index::IndexConfig;
pub use crate::signature::chunk::{ChunkConfig, Chunker};
pub use crate::signature::simhash::{SimhashConfig, SimhashWeights};
pub use neardup_html::extract::{ExtractConfig, ExtractMode};
pub use neardup_text::TextConfig;

/// The whole configuration. `Config::default()` is the tuned default.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Decoding and HTML extraction.
    pub extract: ExtractConfig,
    /// Tokenization, language, stop words and stemming.
    pub text: TextConfig,
    /// The SimHash detector.
    pub simhash: SimhashConfig,
    /// The content-defined chunk detector.
    pub chunks: ChunkConfig,
    /// The verdict: detector chain, short pages, what gets indexed.
    pub decide: DecideConfig,
    /// The index over time: recrawls, expiry, the record cache of `--index`.
    pub index: IndexConfig,
    /// URL identity: the canonicalization rules that make a URL's key.
    pub canonical: CanonicalConfig,
    /// The crawler: scope, robots.txt, fetching.
    pub crawl: CrawlConfig,
    /// Settings of plugin detectors, one table per detector name, e.g.
    /// `[plugins.minhash]`; each plugin validates its own keys when the
    /// detector is built (the core does not know them).
    pub plugins: std::collections::BTreeMap<String, toml::Table>,
}

/// The verdict: which detectors run in which order, and the page policy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DecideConfig {
    /// Detector chain, in order; the first that matches decides.
    pub detectors: Vec<String>,
    /// Pages with fewer terms than this are compared by exact hash only,
    /// so short pages do not cluster by chance.
    pub min_terms: usize,
    /// Index near duplicates too, so later variants of them are found
    /// (exact duplicates are never indexed: they add nothing). Off by
    /// default: an indexed near duplicate becomes the kept side of later
    /// drops, and drops chained through it join distinct pages.
    pub index_near_duplicates: bool,
    /// A page is dropped only when at least this share of its own content
    /// (its text minus its site's template; see `crate::content`) is in
    /// the page it matched: the drop then loses nothing.
    pub min_coverage: f64,
}

impl Default for DecideConfig {
    fn default() -> Self {
        DecideConfig {
            detectors: vec!["exact".into(), "simhash".into(), "chunks".into()],
            min_terms: 20,
            index_near_duplicates: false,
            min_coverage: 0.8,
        }
    }
}

impl DecideConfig {
    /// Checks every range of `[decide]`.
    ///
    /// # Errors
    /// The first bad key, its value and what is allowed.
    pub fn validate(&self) -> std::result::Result<(), SettingError> {
        SettingError::range("decide.min_terms", self.min_terms, 0, 100_000)?;
        SettingError::unit("decide.min_coverage", self.min_coverage, 1.0)?;
        if self.detectors.is_empty() {
            return Err(SettingError::new(
                "decide.detectors",
                "[]",
                "must name at least one detector",
            ));
        }
        Ok(())
    }
}

/// Crawler settings: identity and the private-address guard, plus one
/// table per stage (`[canonical]`, `[crawl.scope]`, `[crawl.robots]`,
/// `[crawl.fetch]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CrawlConfig {
    /// The `User-Agent` header sent with every request. The default names
    /// the software only; operators add how to reach them
    /// ([`CrawlConfig::user_agent_has_contact`]).
    pub user_agent: String,
    /// The product token matched against `User-agent:` lines of robots.txt.
    pub robots_token: String,
    /// Fetch loopback, private, link-local and unique-local addresses too.
    /// Off by default: a public page must not steer the crawler into the
    /// local network (through links, redirects or DNS answers).
    pub allow_private: bool,
    /// URL canonicalization rules.
    pub canonical: CanonicalConfig,
    /// Which URLs are crawled.
    pub scope: ScopeConfig,
    /// robots.txt handling.
    pub robots: RobotsConfig,
    /// Page-level robots directives: meta robots, `X-Robots-Tag`,
    /// `rel=nofollow`.
    pub directives: DirectivesConfig,
    /// Sitemaps from robots.txt and seeds.
    pub sitemaps: SitemapConfig,
    /// HTTP fetching: timeouts, limits, retries, politeness.
    pub fetch: FetchConfig,
}

impl Default for CrawlConfig {
    fn default() -> Self {
        CrawlConfig {
            user_agent: "neardup/0.1".into(),
            robots_token: "neardup".into(),
            allow_private: false,
            canonical: CanonicalConfig::default(),
            scope: ScopeConfig::default(),
            robots: RobotsConfig::default(),
            directives: DirectivesConfig::default(),
            sitemaps: SitemapConfig::default(),
            fetch: FetchConfig::default(),
        }
    }
}

/// Which sites a crawl stays on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SiteScope {
    /// Only the hosts of the seeds (plus `allow_hosts`).
    Host,
    /// The registrable domains of the seeds (public suffix list), so
    /// `www.example.co.uk` and `blog.example.co.uk` are one site.
    Domain,
    /// Only hosts in `allow_hosts`.
    AllowList,
    /// Any host (patterns and limits still apply).
    Any,
}

/// Crawl scope settings (see `frontier::scope`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ScopeConfig {
    /// Which sites are in scope.
    pub sites: SiteScope,
    /// Extra hosts in scope: `example.org` matches it and its subdomains.
    pub allow_hosts: Vec<String>,
    /// If not empty, a URL must match one of these regexes.
    pub include: Vec<String>,
    /// A URL matching any of these regexes is out of scope.
    pub exclude: Vec<String>,
    /// Largest link depth from a seed (seeds are depth 0).
    pub max_depth: u32,
    /// Pages admitted per site (site = host or registrable domain).
    pub max_pages_per_site: u64,
    /// Pages admitted in total.
    pub max_pages: u64,
    /// How far links of duplicates are followed: a page's links are
    /// followed when at most this many duplicates (exact, near-exact,
    /// `canonical` or `redirect`) come in a row on the link path ending at
    /// it, the page included. 0: never follow a duplicate's links.
    pub duplicate_hops: u32,
}

impl Default for ScopeConfig {
    fn default() -> Self {
        ScopeConfig {
            sites: SiteScope::Host,
            allow_hosts: Vec::new(),
            include: Vec::new(),
            exclude: Vec::new(),
            max_depth: 20,
            max_pages_per_site: 100_000,
            max_pages: 1_000_000,
            duplicate_hops: 1,
        }
    }
}

/// robots.txt settings (see `frontier::robots`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RobotsConfig {
    /// Obey robots.txt.
    pub obey: bool,
    /// After a 5xx, 429 or network error on robots.txt the host is treated
    /// as fully disallowed for this many seconds, then robots.txt is
    /// fetched again (RFC 9309 2.3.1.4).
    pub error_retry_secs: u64,
    /// Bytes of robots.txt that are parsed (RFC 9309 asks for >= 500 KiB).
    pub max_bytes: usize,
    /// Largest Crawl-delay honoured, in seconds; larger values are capped.
    pub max_crawl_delay_secs: u64,
}

impl Default for RobotsConfig {
    fn default() -> Self {
        RobotsConfig {
            obey: true,
            error_retry_secs: 600,
            max_bytes: 512 * 1024,
            max_crawl_delay_secs: 60,
        }
    }
}

/// Page-level robots directives (see `crawl::manners`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DirectivesConfig {
    /// Obey `noindex` and `nofollow` in `<meta name=robots>`, in
    /// `<meta name=TOKEN>` (`crawl.robots_token`) and in the
    /// `X-Robots-Tag` header (for every crawler or for the token), and
    /// the `nofollow_rels` of links.
    pub obey: bool,
    /// Links whose every `<a>` carries one of these `rel` tokens are not
    /// followed: any of `nofollow`, `ugc`, `sponsored`.
    pub nofollow_rels: Vec<String>,
}

impl Default for DirectivesConfig {
    fn default() -> Self {
        DirectivesConfig {
            obey: true,
            nofollow_rels: vec!["nofollow".into(), "ugc".into(), "sponsored".into()],
        }
    }
}

/// Sitemaps (see `frontier::sitemap`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SitemapConfig {
    /// Read the sitemaps that the seeds' hosts list in robots.txt
    /// (`Sitemap:` lines; needs `crawl.robots.obey`).
    pub from_robots: bool,
    /// Treat a seed whose file name mentions `sitemap` and ends in `.xml`,
    /// `.xml.gz`, `.txt` or `.txt.gz` as a sitemap to read, not a page.
    pub from_seeds: bool,
    /// URLs read per sitemap file (protocol: 50,000); the rest are dropped.
    pub max_urls: usize,
    /// Bytes read per sitemap file after decompression (protocol: 50 MB);
    /// the rest is cut.
    pub max_bytes: usize,
    /// Levels of sitemap indexes followed below a start sitemap: 1 reads
    /// the sitemaps an index lists (the protocol's only level).
    pub max_depth: u32,
    /// Sitemap files read in a crawl.
    pub max_files: usize,
}

impl Default for SitemapConfig {
    fn default() -> Self {
        SitemapConfig {
            from_robots: true,
            from_seeds: true,
            max_urls: 50_000,
            max_bytes: 50 * 1024 * 1024,
            max_depth: 2,
            max_files: 100,
        }
    }
}

/// What the fetcher does with a body longer than `max_body_bytes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Oversize {
    /// Keep the first `max_body_bytes` and mark the outcome truncated.
    Truncate,
    /// Fail the fetch with a body-too-large error.
    Error,
}

/// HTTP fetching settings (see `fetch`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FetchConfig {
    /// TCP + TLS connect timeout in milliseconds.
    pub connect_timeout_ms: u64,
    /// Longest wait for any single read (headers or a body chunk), ms.
    pub read_timeout_ms: u64,
    /// Longest time for one request, from sending it to the body's end, ms.
    pub total_timeout_ms: u64,
    /// Largest body in bytes, counted after decompression while streaming.
    pub max_body_bytes: usize,
    /// What happens past `max_body_bytes`.
    pub oversize: Oversize,
    /// Largest total size of the response headers in bytes.
    pub max_header_bytes: usize,
    /// Redirects followed per fetch.
    pub max_redirects: usize,
    /// Media types whose bodies are downloaded; others are recorded and
    /// skipped. A response without `Content-Type` is downloaded.
    pub content_types: Vec<String>,
    /// Retries after a timeout, connection error, 429 or 5xx.
    pub retries: u32,
    /// First retry backoff in ms; doubled per retry, with jitter.
    pub retry_base_ms: u64,
    /// Longest backoff in ms. A Retry-After asking for longer is not
    /// retried (the response is returned as it is).
    pub retry_max_ms: u64,
    /// Minimum time between the starts of two requests to one host, ms.
    pub host_delay_ms: u64,
    /// Requests in flight per host.
    pub host_concurrency: usize,
    /// Requests in flight in total.
    pub concurrency: usize,
    /// HTTP proxy for every request (`http://HOST:PORT`, with
    /// `USER:PASS@` if it needs them); empty: connect directly. Proxies
    /// from the environment (`HTTP_PROXY`, ...) are never used. With a
    /// proxy the private-address guard resolves each target host itself
    /// before the request goes to the proxy (see `fetch::client`).
    pub proxy: String,
}

impl Default for FetchConfig {
    fn default() -> Self {
        FetchConfig {
            connect_timeout_ms: 10_000,
            read_timeout_ms: 30_000,
            total_timeout_ms: 60_000,
            max_body_bytes: 8 * 1024 * 1024,
            oversize: Oversize::Truncate,
            max_header_bytes: 64 * 1024,
            max_redirects: 10,
            content_types: vec!["text/html".into(), "application/xhtml+xml".into()],
            retries: 2,
            retry_base_ms: 1000,
            retry_max_ms: 60_000,
            host_delay_ms: 1000,
            host_concurrency: 1,
            concurrency: 64,
            proxy: String::new(),
        }
    }
}

impl CrawlConfig {
    /// Whether the user agent tells a site operator how to reach whoever
    /// runs the crawl: a URL (`+https://...`, as search engines' bots do)
    /// or an e-mail address. Only a warning when missing: the default
    /// names the software, not its operator.
    pub fn user_agent_has_contact(&self) -> bool {
        let ua = self.user_agent.to_ascii_lowercase();
        ua.contains("http://")
            || ua.contains("https://")
            || ua
                .split(|c: char| c.is_whitespace() || "();<>".contains(c))
                .any(|word| matches!(word.split_once('@'), Some((a, b)) if !a.is_empty() && b.contains('.')))
    }

    fn validate(&self) -> Result<()> {
        if self.user_agent.trim().is_empty() || self.user_agent.contains(['\r', '\n']) {
            return Err(Error::Config {
                key: "crawl.user_agent".into(),
                value: format!("{:?}", self.user_agent),
                allowed: "must be a non-empty single line".into(),
            });
        }
        let token_ok = !self.robots_token.is_empty()
            && self
                .robots_token
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !token_ok {
            return Err(Error::Config {
                key: "crawl.robots_token".into(),
                value: format!("{:?}", self.robots_token),
                allowed: "must be non-empty, letters, digits, `-` and `_` (RFC 9309)".into(),
            });
        }
        let s = &self.scope;
        for (key, patterns) in [
            ("crawl.scope.include", &s.include),
            ("crawl.scope.exclude", &s.exclude),
        ] {
            for p in patterns {
                if let Err(e) = regex::Regex::new(p) {
                    return Err(Error::Config {
                        key: key.into(),
                        value: format!("{p:?}"),
                        allowed: format!("must be a valid regex: {e}"),
                    });
                }
            }
        }
        if s.sites == SiteScope::AllowList && s.allow_hosts.is_empty() {
            return Err(Error::Config {
                key: "crawl.scope.allow_hosts".into(),
                value: "[]".into(),
                allowed: "must not be empty with crawl.scope.sites = \"allow_list\"".into(),
            });
        }
        SettingError::range("crawl.scope.max_depth", s.max_depth as usize, 0, 10_000)?;
        SettingError::range(
            "crawl.scope.duplicate_hops",
            s.duplicate_hops as usize,
            0,
            100,
        )?;
        SettingError::range64(
            "crawl.scope.max_pages_per_site",
            s.max_pages_per_site,
            1,
            1 << 40,
        )?;
        SettingError::range64("crawl.scope.max_pages", s.max_pages, 1, 1 << 40)?;
        let r = &self.robots;
        SettingError::range64(
            "crawl.robots.error_retry_secs",
            r.error_retry_secs,
            1,
            30 * 86_400,
        )?;
        SettingError::range("crawl.robots.max_bytes", r.max_bytes, 1024, 64 << 20)?;
        SettingError::range64(
            "crawl.robots.max_crawl_delay_secs",
            r.max_crawl_delay_secs,
            0,
            3600,
        )?;
        for r in &self.directives.nofollow_rels {
            if neardup_html::extract::LinkRels::bit(r).is_none() {
                return Err(Error::Config {
                    key: "crawl.directives.nofollow_rels".into(),
                    value: format!("{r:?}"),
                    allowed: "entries must be \"nofollow\", \"ugc\" or \"sponsored\"".into(),
                });
            }
        }
        let m = &self.sitemaps;
        SettingError::range("crawl.sitemaps.max_urls", m.max_urls, 1, 1_000_000)?;
        SettingError::range("crawl.sitemaps.max_bytes", m.max_bytes, 1024, 1 << 30)?;
        SettingError::range("crawl.sitemaps.max_depth", m.max_depth as usize, 0, 10)?;
        SettingError::range("crawl.sitemaps.max_files", m.max_files, 1, 100_000)?;
        let f = &self.fetch;
        SettingError::range64(
            "crawl.fetch.connect_timeout_ms",
            f.connect_timeout_ms,
            1,
            600_000,
        )?;
        SettingError::range64("crawl.fetch.read_timeout_ms", f.read_timeout_ms, 1, 600_000)?;
        SettingError::range64(
            "crawl.fetch.total_timeout_ms",
            f.total_timeout_ms,
            1,
            3_600_000,
        )?;
        SettingError::range("crawl.fetch.max_body_bytes", f.max_body_bytes, 1, 1 << 30)?;
        SettingError::range(
            "crawl.fetch.max_header_bytes",
            f.max_header_bytes,
            1024,
            16 << 20,
        )?;
        SettingError::range("crawl.fetch.max_redirects", f.max_redirects, 0, 100)?;
        SettingError::range("crawl.fetch.retries", f.retries as usize, 0, 20)?;
        SettingError::range64("crawl.fetch.retry_base_ms", f.retry_base_ms, 1, 3_600_000)?;
        SettingError::range64("crawl.fetch.retry_max_ms", f.retry_max_ms, 1, 86_400_000)?;
        if f.retry_max_ms < f.retry_base_ms {
            return Err(Error::Config {
                key: "crawl.fetch.retry_max_ms".into(),
                value: f.retry_max_ms.to_string(),
                allowed: format!("must be >= crawl.fetch.retry_base_ms ({})", f.retry_base_ms),
            });
        }
        SettingError::range64("crawl.fetch.host_delay_ms", f.host_delay_ms, 0, 3_600_000)?;
        SettingError::range("crawl.fetch.host_concurrency", f.host_concurrency, 1, 1024)?;
        SettingError::range("crawl.fetch.concurrency", f.concurrency, 1, 65_536)?;
        if !f.proxy.is_empty() {
            let ok = url::Url::parse(&f.proxy)
                .ok()
                .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some());
            if ok.is_none() {
                return Err(Error::Config {
                    key: "crawl.fetch.proxy".into(),
                    // Never echo credentials.
                    value: "(the configured URL)".into(),
                    allowed: "must be empty or an http:// or https:// URL with a host".into(),
                });
            }
        }
        Ok(())
    }
}

impl Config {
    /// Reads and validates a TOML config file. Missing keys take defaults.
    ///
    /// # Errors
    /// A parse error names the file, line and key; a range error names the
    /// key, the value and the allowed range.
    pub fn from_file(path: &Path) -> Result<Config> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Config::from_toml(&text).map_err(|e| match e {
            Error::ConfigParse { message, .. } => Error::ConfigParse {
                path: path.to_owned(),
                message,
            },
            other => other,
        })
    }

    /// Parses and validates TOML text.
    ///
    /// # Errors
    /// As [`Config::from_file`].
    pub fn from_toml(text: &str) -> Result<Config> {
        let config: Config = toml::from_str(text).map_err(|e| Error::ConfigParse {
            path: "<config>".into(),
            message: e.to_string(),
        })?;
        config.validate()?;
        Ok(config)
    }

    /// Checks every range. Called by the loaders; call it yourself after
    /// changing a `Config` in code.
    ///
    /// # Errors
    /// [`Error::Config`] naming the first bad key.
    pub fn validate(&self) -> Result<()> {
        self.extract.validate()?;
        self.text.validate()?;
        self.simhash.validate()?;
        self.chunks.validate()?;
        self.decide.validate()?;
        self.index.validate()?;
        self.canonical.validate()?;
        self.crawl.validate()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_valid() {
        Config::default().validate().unwrap();
    }

    #[test]
    fn user_agent_contact_is_a_url_or_an_email_address() {
        let has = |ua: &str| {
            CrawlConfig {
                user_agent: ua.into(),
                ..CrawlConfig::default()
            }
            .user_agent_has_contact()
        };
        assert!(!has("neardup/0.1"));
        assert!(!has(&CrawlConfig::default().user_agent));
        assert!(has("examplebot/1.0 (+https://example.org/bot)"));
        assert!(has("examplebot/1.0 (bot@example.org)"));
        assert!(has("examplebot/1.0 (+HTTP://EXAMPLE.ORG)"));
        // An `@` alone, or a handle without a domain, reaches nobody.
        assert!(!has("examplebot/1.0 (@examplebot)"));
        assert!(!has("examplebot/1.0 (ops@localhost)"));
    }

    #[test]
    fn range_error_names_key_value_and_range() {
        let err = Config::from_toml("[chunks]\nwindow = 2\n").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("chunks.window"), "{msg}");
        assert!(msg.contains('2'), "{msg}");
        assert!(msg.contains("4..=64"), "{msg}");
    }

    #[test]
    fn chunk_sizes_must_be_ordered() {
        let err = Config::from_toml("[chunks]\nmin_size = 64\navg_size = 32\n").unwrap_err();
        assert!(err.to_string().contains("chunks.avg_size"), "{err}");
    }

    #[test]
    fn unknown_key_is_an_error() {
        let err = Config::from_toml("[simhash]\nshingles = 3\n").unwrap_err();
        assert!(err.to_string().contains("shingles"), "{err}");
    }

    #[test]
    fn thresholds_must_be_ordered() {
        let err =
            Config::from_toml("[chunks]\nduplicate = 0.5\nnear_duplicate = 0.6\n").unwrap_err();
        assert!(err.to_string().contains("chunks.near_duplicate"), "{err}");
    }

    #[test]
    fn detect_bytes_is_range_checked() {
        let err = Config::from_toml("[text]\ndetect_bytes = 10\n").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("text.detect_bytes"), "{msg}");
        assert!(msg.contains("64..=1048576"), "{msg}");
    }

    #[test]
    fn fastcdc_bounds_are_checked_not_panicking() {
        // The gear defaults (avg 32) are far below fastcdc's minimum average.
        let err = Config::from_toml("[chunks]\nchunker = \"fastcdc\"\n").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("chunks.min_size"), "{msg}");
        assert!(msg.contains("64..=1048576"), "{msg}");
        let err = Config::from_toml(
            "[chunks]\nchunker = \"fastcdc\"\nmin_size = 64\navg_size = 257\nmax_size = 1024\n",
        )
        .unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("chunks.avg_size") && msg.contains("even"),
            "{msg}"
        );
        let ok = Config::from_toml(
            "[chunks]\nchunker = \"fastcdc\"\nmin_size = 64\navg_size = 256\nmax_size = 1024\n",
        )
        .unwrap();
        assert_eq!(ok.chunks.chunker, Chunker::Fastcdc);
    }

    #[test]
    fn gear_window_must_cover_mask_bits() {
        let err = Config::from_toml("[chunks]\nwindow = 4\n").unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("chunks.window") && msg.contains("log2"),
            "{msg}"
        );
    }

    #[test]
    fn shipped_experiment_configs_load() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/experiments");
        let mut n = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let config = Config::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
            assert_ne!(
                config,
                Config::default(),
                "{} changes nothing",
                path.display()
            );
            n += 1;
        }
        assert!(n >= 4, "{n} experiment configs");
    }

    #[test]
    fn crawl_keys_are_validated() {
        let err = Config::from_toml("[crawl.fetch]\nhost_concurrency = 0\n").unwrap_err();
        assert!(
            err.to_string().contains("crawl.fetch.host_concurrency"),
            "{err}"
        );
        let err = Config::from_toml("[crawl.scope]\nexclude = [\"(\"]\n").unwrap_err();
        assert!(err.to_string().contains("crawl.scope.exclude"), "{err}");
        let err = Config::from_toml("[crawl.scope]\nsites = \"allow_list\"\n").unwrap_err();
        assert!(err.to_string().contains("crawl.scope.allow_hosts"), "{err}");
        let err = Config::from_toml("[crawl]\nrobots_token = \"my bot\"\n").unwrap_err();
        assert!(err.to_string().contains("crawl.robots_token"), "{err}");
        let err =
            Config::from_toml("[crawl.fetch]\nretry_base_ms = 10\nretry_max_ms = 5\n").unwrap_err();
        assert!(
            err.to_string().contains("crawl.fetch.retry_max_ms"),
            "{err}"
        );
        let ok = Config::from_toml("[canonical]\ntrailing_slash = \"strip\"\n").unwrap();
        assert_eq!(ok.canonical.trailing_slash, TrailingSlash::Strip);
    }

    #[test]
    fn shipped_default_toml_equals_code_default() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/default.toml");
        let shipped = Config::from_file(&path).unwrap();
        assert_eq!(shipped, Config::default());
    }
}
