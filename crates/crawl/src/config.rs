//! The crawler's configuration: `[crawl]` and its sections, owned and
//! validated here. The core keeps `[crawl]` as a TOML table it never reads
//! ([`neardup::Config::crawl`]), as it keeps `[plugins.NAME]` for plugins;
//! [`CrawlSettings::new`] parses it into these types once, at the edge
//! (the CLI), with the same rules as the core's sections (unknown keys are
//! errors; a range error names the key, the value and what is allowed),
//! and from then on a crawl reads only the typed settings.

use crate::error::{CrawlError, Result};
use neardup::Config;
use neardup_api::SettingError;
use serde::{Deserialize, Serialize};

/// Crawler settings: identity and the private-address guard, plus one
/// table per stage (`[crawl.scope]`, `[crawl.robots]`, `[crawl.directives]`,
/// `[crawl.sitemaps]`, `[crawl.fetch]`, `[crawl.limits]`). URL identity is
/// the core's `[canonical]`: a library check and a crawl key URLs alike.
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
    /// The crawl loop's own limits and checkpoints (the `neardup crawl`
    /// flags of the same names override them).
    pub limits: LimitsConfig,
}

impl Default for CrawlConfig {
    fn default() -> Self {
        CrawlConfig {
            user_agent: "neardup/0.1".into(),
            robots_token: "neardup".into(),
            allow_private: false,
            scope: ScopeConfig::default(),
            robots: RobotsConfig::default(),
            directives: DirectivesConfig::default(),
            sitemaps: SitemapConfig::default(),
            fetch: FetchConfig::default(),
            limits: LimitsConfig::default(),
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

    /// Checks every key of `[crawl]`.
    ///
    /// # Errors
    /// [`CrawlError::Config`] naming the first bad key.
    pub fn validate(&self) -> Result<()> {
        if self.user_agent.trim().is_empty() || self.user_agent.contains(['\r', '\n']) {
            return Err(CrawlError::Config {
                key: "crawl.user_agent".into(),
                value: format!("{:?}", self.user_agent),
                allowed: "must be a non-empty single line".into(),
            });
        }
        if !valid_product_token(&self.robots_token) {
            return Err(CrawlError::Config {
                key: "crawl.robots_token".into(),
                value: format!("{:?}", self.robots_token),
                allowed: "must be non-empty ASCII letters, `-` and `_` (RFC 9309 product-token; \
                          a robots.txt User-agent value is read up to its first other character)"
                    .into(),
            });
        }
        let s = &self.scope;
        for (key, patterns) in [
            ("crawl.scope.include", &s.include),
            ("crawl.scope.exclude", &s.exclude),
        ] {
            for p in patterns {
                if let Err(e) = regex::Regex::new(p) {
                    return Err(CrawlError::Config {
                        key: key.into(),
                        value: format!("{p:?}"),
                        allowed: format!("must be a valid regex: {e}"),
                    });
                }
            }
        }
        if s.sites == SiteScope::AllowList && s.allow_hosts.is_empty() {
            return Err(CrawlError::Config {
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
            if neardup_html::LinkRels::bit(r).is_none() {
                return Err(CrawlError::Config {
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
            return Err(CrawlError::Config {
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
                return Err(CrawlError::Config {
                    key: "crawl.fetch.proxy".into(),
                    // Never echo credentials.
                    value: "(the configured URL)".into(),
                    allowed: "must be empty or an http:// or https:// URL with a host".into(),
                });
            }
        }
        self.limits.validate()?;
        Ok(())
    }
}

/// The crawl loop's limits and checkpoints (`[crawl.limits]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LimitsConfig {
    /// Fetch workers; 0 uses `crawl.fetch.concurrency`.
    pub workers: usize,
    /// Largest number of URLs waiting in the frontier (all hosts together).
    pub max_frontier: usize,
    /// Largest number of pages dispatched but not yet decided; 0: four per
    /// fetch worker.
    pub max_in_flight: usize,
    /// Response-body bytes held at once, fetched and not yet analyzed, in
    /// MiB: fetches wait for room before reading a body.
    pub max_body_memory_mib: usize,
    /// A durable crawl (`neardup crawl --out`) checkpoints after this many
    /// decided pages, or after `checkpoint_secs`, whichever comes first.
    /// Each checkpoint fsyncs and rewrites the whole state: every 100
    /// pages halved the speed of a 21,000-page crawl.
    pub checkpoint_pages: u64,
    /// ... and at least this often, in seconds.
    pub checkpoint_secs: f64,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        LimitsConfig {
            workers: 0,
            max_frontier: 100_000,
            max_in_flight: 0,
            max_body_memory_mib: 64,
            checkpoint_pages: 10_000,
            checkpoint_secs: 10.0,
        }
    }
}

impl LimitsConfig {
    fn validate(&self) -> Result<()> {
        SettingError::range("crawl.limits.workers", self.workers, 0, 65_536)?;
        SettingError::range("crawl.limits.max_frontier", self.max_frontier, 1, 1 << 30)?;
        SettingError::range("crawl.limits.max_in_flight", self.max_in_flight, 0, 1 << 24)?;
        SettingError::range(
            "crawl.limits.max_body_memory_mib",
            self.max_body_memory_mib,
            1,
            1 << 20,
        )?;
        SettingError::range64(
            "crawl.limits.checkpoint_pages",
            self.checkpoint_pages,
            1,
            1 << 40,
        )?;
        if !(self.checkpoint_secs.is_finite() && (0.0..=86_400.0).contains(&self.checkpoint_secs)) {
            return Err(SettingError::new(
                "crawl.limits.checkpoint_secs",
                self.checkpoint_secs,
                "must be in 0.0..=86400.0",
            )
            .into());
        }
        Ok(())
    }
}

impl CrawlConfig {
    /// The `[crawl]` section of `config`, parsed and validated (defaults
    /// for what it leaves out).
    ///
    /// # Errors
    /// [`CrawlError::ConfigParse`] for an unknown key or a wrong type,
    /// [`CrawlError::Config`] for a value out of range.
    pub fn from_config(config: &Config) -> Result<CrawlConfig> {
        let crawl: CrawlConfig = toml::Value::Table(config.crawl.clone())
            .try_into()
            .map_err(|e: toml::de::Error| {
                CrawlError::ConfigParse(e.to_string().trim().to_owned())
            })?;
        crawl.validate()?;
        Ok(crawl)
    }

    /// These settings as a `[crawl]` table, every key written out.
    ///
    /// # Errors
    /// If the settings are invalid.
    fn to_table(&self) -> Result<toml::Table> {
        self.validate()?;
        let value = toml::Value::try_from(self).map_err(|e| CrawlError::Config {
            key: "crawl".into(),
            value: e.to_string(),
            allowed: "a serializable config".into(),
        })?;
        Ok(match value {
            toml::Value::Table(t) => t,
            _ => toml::Table::new(),
        })
    }
}

/// What a crawl is configured by, each part parsed and validated once:
/// the core's settings (extraction, detectors, decisions, URL rules) and
/// the crawler's own. What a crawl takes ([`crate::Crawler::new`],
/// [`crate::CrawlDir::create`]); flags change `crawl` in place, typed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CrawlSettings {
    /// The core's settings. Its `[crawl]` table is empty: it was parsed
    /// into `crawl`.
    pub core: Config,
    /// The crawler's settings.
    pub crawl: CrawlConfig,
}

impl CrawlSettings {
    /// Splits a config as read from a file: its `[crawl]` table parsed and
    /// validated ([`CrawlConfig::from_config`]) and taken out of the core's
    /// settings.
    ///
    /// # Errors
    /// As [`CrawlConfig::from_config`].
    pub fn new(mut config: Config) -> Result<CrawlSettings> {
        let crawl = CrawlConfig::from_config(&config)?;
        config.crawl.clear();
        Ok(CrawlSettings {
            core: config,
            crawl,
        })
    }

    /// The whole config in one `Config`, `[crawl]` with every key written
    /// out: what a crawl directory's `config.toml` records (so it shows
    /// what was used, flags included) and what its checkpoints hash.
    ///
    /// # Errors
    /// If the crawl settings are invalid.
    pub fn to_config(&self) -> Result<Config> {
        let mut config = self.core.clone();
        config.crawl = self.crawl.to_table()?;
        Ok(config)
    }
}

/// Whether `token` can name this crawler in a robots.txt `User-agent`
/// line (RFC 9309 2.2.1 `product-token`, Google's
/// `IsValidUserAgentToObey`): non-empty, ASCII letters, `-` and `_` only.
/// A token with other characters could never match: a `User-agent` value
/// is read only up to its first other character.
pub fn valid_product_token(token: &str) -> bool {
    !token.is_empty()
        && token
            .bytes()
            .all(|b| b.is_ascii_alphabetic() || b == b'-' || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crawl_of(text: &str) -> Result<CrawlConfig> {
        CrawlConfig::from_config(&Config::from_toml(text)?)
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
    fn crawl_keys_are_validated() {
        let err = crawl_of("[crawl.fetch]\nhost_concurrency = 0\n").unwrap_err();
        assert!(
            matches!(&err, CrawlError::Config { key, .. } if key == "crawl.fetch.host_concurrency"),
            "{err:?}"
        );
        assert!(
            err.to_string().contains("crawl.fetch.host_concurrency"),
            "{err}"
        );
        let err = crawl_of("[crawl.scope]\nexclude = [\"(\"]\n").unwrap_err();
        assert!(
            matches!(&err, CrawlError::Config { key, .. } if key == "crawl.scope.exclude"),
            "a bad pattern is the crawl's config error: {err:?}"
        );
        assert!(err.to_string().contains("crawl.scope.exclude"), "{err}");
        let err = crawl_of("[crawl.scope]\nsites = \"allow_list\"\n").unwrap_err();
        assert!(err.to_string().contains("crawl.scope.allow_hosts"), "{err}");
        let err = crawl_of("[crawl]\nrobots_token = \"my bot\"\n").unwrap_err();
        assert!(err.to_string().contains("crawl.robots_token"), "{err}");
        let err = crawl_of("[crawl.fetch]\nretry_base_ms = 10\nretry_max_ms = 5\n").unwrap_err();
        assert!(
            err.to_string().contains("crawl.fetch.retry_max_ms"),
            "{err}"
        );
        let err = crawl_of("[crawl.limits]\nmax_frontier = 0\n").unwrap_err();
        assert!(
            err.to_string().contains("crawl.limits.max_frontier"),
            "{err}"
        );
        let err = crawl_of("[crawl.fetch]\nretries = \"two\"\n").unwrap_err();
        assert!(matches!(err, CrawlError::ConfigParse(_)), "{err:?}");
        assert!(err.to_string().contains("[crawl]"), "{err}");
        let err = crawl_of("[crawl.fech]\nretries = 1\n").unwrap_err();
        assert!(matches!(err, CrawlError::ConfigParse(_)), "{err:?}");
        assert!(err.to_string().contains("fech"), "{err}");
        // What the core refuses stays the core's error, wrapped.
        let err = crawl_of("[simhash]\nshingle = 0\n").unwrap_err();
        assert!(
            matches!(err, CrawlError::Core(neardup::Error::Config { .. })),
            "{err:?}"
        );
    }

    #[test]
    fn shipped_default_toml_equals_code_default() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/default.toml");
        let shipped = Config::from_file(&path).unwrap();
        assert_eq!(
            CrawlConfig::from_config(&shipped).unwrap(),
            CrawlConfig::default()
        );
    }

    #[test]
    fn settings_take_crawl_out_of_the_core_and_write_it_back() {
        let config = Config::from_toml(
            "[decide]\nmin_terms = 25\n[crawl.fetch]\nretries = 5\n[crawl.limits]\nmax_frontier = 77\n",
        )
        .unwrap();
        let mut settings = CrawlSettings::new(config).unwrap();
        assert_eq!(
            (
                settings.crawl.fetch.retries,
                settings.crawl.limits.max_frontier
            ),
            (5, 77)
        );
        assert!(
            settings.core.crawl.is_empty(),
            "parsed once, then typed only"
        );
        assert_eq!(settings.core.decide.min_terms, 25);
        // Changed typed, written back with every key: a run's config.toml.
        settings.crawl.fetch.host_delay_ms = 250;
        let whole = settings.to_config().unwrap();
        let text = toml::to_string(&whole).unwrap();
        assert!(text.contains("max_frontier = 77"), "{text}");
        assert!(text.contains("host_delay_ms = 250"), "{text}");
        assert!(
            text.contains("robots_token"),
            "defaults written out: {text}"
        );
        let again = CrawlSettings::new(Config::from_toml(&text).unwrap()).unwrap();
        assert_eq!(again, settings);
        // A bad value set in code is refused when written.
        settings.crawl.fetch.host_concurrency = 0;
        let err = settings.to_config().unwrap_err();
        assert!(
            err.to_string().contains("crawl.fetch.host_concurrency"),
            "{err}"
        );
        // A typo in [crawl] is refused when the settings are made.
        let typo = Config::from_toml("[crawl.fetch]\nretrys = 1\n").unwrap();
        assert!(CrawlSettings::new(typo).is_err());
    }
}
