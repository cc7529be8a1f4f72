//! [`Fetcher`]: one polite, bounded HTTP GET with its redirect chain.
//!
//! Per fetch: for each hop, check the private-address guard, wait for the
//! host's politeness slot, send (retrying timeouts, connection errors, 429
//! and 5xx with backoff and `Retry-After`), check the header size, follow a
//! 3xx by hand (recording the hop, stopping at the limit or at a URL seen
//! before in the chain), skip disallowed content types without reading the
//! body, then stream the body up to the cap.
//!
//! With `crawl.fetch.proxy`, reqwest resolves only the proxy's name (the
//! proxy resolves the targets), so the guard's resolver would see the
//! proxy, not the pages. The guard then runs before each hop instead: the
//! fetcher resolves the target host itself and refuses it if any address
//! is blocked (`Fetcher::check_proxied_target`); the proxy's own address
//! is the operator's choice and is not checked.

use std::collections::HashSet;
use std::error::Error as StdError;
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use reqwest::header::{HeaderMap, CONTENT_TYPE, LOCATION, RETRY_AFTER};
use reqwest::{redirect, Response, StatusCode};
use tokio::time::Instant;
use url::Url;

use super::limits::{Permit, Politeness};
use super::net::{non_public, AddressFilter, PrivateAddressError, PublicOnlyResolver};
use super::outcome::{FetchError, FetchOutcome, Redirect};
use super::retry::{backoff, jitter, parse_retry_after};
use crate::config::{CrawlConfig, FetchConfig, Oversize};
use crate::site::HostKey;

/// Per-call overrides of the configured limits (robots.txt is fetched with
/// any content type, fewer redirects and its own size cap).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FetchOptions {
    /// Body cap in bytes, after decompression.
    pub max_body_bytes: usize,
    /// What happens past the cap.
    pub oversize: Oversize,
    /// Redirects followed.
    pub max_redirects: usize,
    /// Media types whose bodies are read; `None` reads every type.
    pub content_types: Option<Vec<String>>,
    /// Body bytes held at once across fetches sharing it (see
    /// [`super::budget`]); `None`: no limit but each body's cap.
    pub body_budget: Option<super::BodyBudget>,
}

impl FetchOptions {
    /// The options of `crawl.fetch`.
    pub fn from_config(config: &FetchConfig) -> FetchOptions {
        FetchOptions {
            max_body_bytes: config.max_body_bytes,
            oversize: config.oversize,
            max_redirects: config.max_redirects,
            content_types: Some(
                config
                    .content_types
                    .iter()
                    .map(|t| t.trim().to_ascii_lowercase())
                    .collect(),
            ),
            body_budget: None,
        }
    }
}

/// A check run on every redirect target before it is requested: the crawl
/// loop refuses hops that leave the crawl's scope or that the target host's
/// robots.txt disallows (a redirect must not be a way around either). The
/// private-address guard runs on every hop regardless.
pub trait RedirectGuard: Sync {
    /// `Ok(())` to follow the redirect to `target`; an error (typically
    /// [`FetchError::RedirectRefused`]) ends the fetch with that error.
    fn check<'a>(
        &'a self,
        target: &'a Url,
    ) -> Pin<Box<dyn Future<Output = Result<(), FetchError>> + Send + 'a>>;
}

/// The crawler's HTTP client. Cheap to share behind an `Arc`; all methods
/// take `&self`.
#[derive(Debug)]
pub struct Fetcher {
    client: reqwest::Client,
    config: FetchConfig,
    defaults: FetchOptions,
    /// `None` when private addresses are allowed.
    blocked: Option<AddressFilter>,
    /// Requests go through `crawl.fetch.proxy`.
    proxied: bool,
    politeness: Arc<Politeness>,
}

impl Fetcher {
    /// A fetcher with the `[crawl]` settings.
    ///
    /// # Errors
    /// [`FetchError::Build`] if the TLS backend or client cannot be set up.
    pub fn new(crawl: &CrawlConfig) -> Result<Fetcher, FetchError> {
        Fetcher::with_address_filter(crawl, non_public)
    }

    /// A fetcher whose private-address guard (when `crawl.allow_private`
    /// is off) blocks the addresses `blocked` returns true for, instead of
    /// all non-public ones: for deployments that must also keep out some
    /// public ranges, and for tests of the guard on loopback.
    ///
    /// # Errors
    /// As [`Fetcher::new`].
    pub fn with_address_filter(
        crawl: &CrawlConfig,
        blocked: AddressFilter,
    ) -> Result<Fetcher, FetchError> {
        let f = &crawl.fetch;
        let mut builder = reqwest::Client::builder()
            .user_agent(crawl.user_agent.as_str())
            // Redirects are followed by hand so every hop is recorded and
            // checked (private addresses, loops).
            .redirect(redirect::Policy::none())
            .connect_timeout(Duration::from_millis(f.connect_timeout_ms))
            .read_timeout(Duration::from_millis(f.read_timeout_ms))
            // Proxies from the environment would bypass the address guard
            // (the proxy, not us, resolves the name).
            .no_proxy()
            .gzip(true)
            .brotli(true)
            .deflate(true);
        let proxied = !f.proxy.is_empty();
        if proxied {
            let proxy = reqwest::Proxy::all(f.proxy.as_str())
                .map_err(|e| FetchError::Build(format!("bad proxy URL: {}", error_chain(&e))))?;
            builder = builder.proxy(proxy);
        } else if !crawl.allow_private {
            builder = builder.dns_resolver(Arc::new(PublicOnlyResolver::new(blocked)));
        }
        let client = builder
            .build()
            .map_err(|e| FetchError::Build(error_chain(&e)))?;
        Ok(Fetcher {
            client,
            config: f.clone(),
            defaults: FetchOptions::from_config(f),
            blocked: (!crawl.allow_private).then_some(blocked),
            proxied,
            politeness: Arc::new(Politeness::new(
                f.concurrency,
                f.host_concurrency,
                Duration::from_millis(f.host_delay_ms),
            )),
        })
    }

    /// The politeness limiter (the robots layer raises host delays here).
    pub fn politeness(&self) -> &Politeness {
        &self.politeness
    }

    /// GET `url` with the configured limits.
    ///
    /// # Errors
    /// [`FetchError`] when no final response was obtained. An HTTP error
    /// status is an [`FetchOutcome`], not an error.
    pub async fn fetch(&self, url: &Url) -> Result<FetchOutcome, FetchError> {
        self.fetch_with(url, &self.defaults).await
    }

    /// GET `url` with the configured limits, asking `guard` before
    /// following each redirect (see [`Fetcher::fetch_guarded`]).
    ///
    /// # Errors
    /// As [`Fetcher::fetch_guarded`].
    pub async fn fetch_checked(
        &self,
        url: &Url,
        guard: &dyn RedirectGuard,
    ) -> Result<FetchOutcome, FetchError> {
        self.fetch_guarded(url, &self.defaults, Some(guard)).await
    }

    /// GET `url` with these limits.
    ///
    /// # Errors
    /// As [`Fetcher::fetch`].
    pub async fn fetch_with(
        &self,
        url: &Url,
        options: &FetchOptions,
    ) -> Result<FetchOutcome, FetchError> {
        self.fetch_guarded(url, options, None).await
    }

    /// GET `url` with these limits, asking `guard` (when given) before
    /// following each redirect. `url` itself is not passed to the guard:
    /// the caller checked it before asking for it.
    ///
    /// # Errors
    /// As [`Fetcher::fetch`], plus the guard's error for a refused hop.
    pub async fn fetch_guarded(
        &self,
        url: &Url,
        options: &FetchOptions,
        guard: Option<&dyn RedirectGuard>,
    ) -> Result<FetchOutcome, FetchError> {
        let start = Instant::now();
        let mut current = url.clone();
        let mut redirects = Vec::new();
        let mut chain = vec![url.clone()];
        let mut visited: HashSet<String> = HashSet::from([url.as_str().to_owned()]);
        loop {
            let host = self.check_url(&current)?;
            if self.proxied {
                self.check_proxied_target(&current).await?;
            }
            let (response, permit, attempts, deadline) = self.send(&current, &host).await?;
            check_header_size(response.headers(), self.config.max_header_bytes)?;
            let status = response.status();

            if status.is_redirection() {
                if let Some(location) = response.headers().get(LOCATION) {
                    let raw = String::from_utf8_lossy(location.as_bytes()).into_owned();
                    let next = current
                        .join(raw.trim())
                        .ok()
                        .filter(|u| matches!(u.scheme(), "http" | "https"))
                        .ok_or(FetchError::BadRedirect { location: raw })?;
                    drop(response);
                    drop(permit);
                    redirects.push(Redirect {
                        url: current,
                        status: status.as_u16(),
                    });
                    chain.push(next.clone());
                    if !visited.insert(next.as_str().to_owned()) {
                        return Err(FetchError::RedirectLoop { chain });
                    }
                    if redirects.len() > options.max_redirects {
                        return Err(FetchError::TooManyRedirects {
                            max: options.max_redirects,
                            chain,
                        });
                    }
                    if let Some(guard) = guard {
                        guard.check(&next).await?;
                    }
                    current = next;
                    continue;
                }
            }

            let content_type = response
                .headers()
                .get(CONTENT_TYPE)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
            let wanted = match (&options.content_types, &content_type) {
                (None, _) | (_, None) => true,
                (Some(types), Some(ct)) => {
                    let media = ct.split(';').next().unwrap_or_default().trim();
                    types.iter().any(|t| t.eq_ignore_ascii_case(media))
                }
            };
            let robots_tags: Vec<String> = response
                .headers()
                .get_all("x-robots-tag")
                .iter()
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
                .collect();
            let mut reservation = None;
            let (body, truncated) = if wanted {
                let mut deadline = deadline;
                if let Some(budget) = &options.body_budget {
                    let want = response
                        .content_length()
                        .map_or(super::budget::UNKNOWN_LENGTH_RESERVE, |n| {
                            usize::try_from(n).unwrap_or(usize::MAX)
                        });
                    let waited = Instant::now();
                    reservation = Some(budget.reserve(want.min(options.max_body_bytes)).await);
                    // Waiting for room is not the server's time.
                    deadline += waited.elapsed();
                }
                let read = read_body(response, options, deadline).await?;
                if let Some(r) = reservation.as_mut() {
                    r.try_grow(read.0.len());
                    r.shrink_to(read.0.len());
                }
                read
            } else {
                // Dropping the response closes the connection without
                // downloading the body.
                (Vec::new(), false)
            };
            drop(permit);
            return Ok(FetchOutcome {
                url: url.clone(),
                final_url: current,
                redirects,
                status: status.as_u16(),
                content_type,
                robots_tags,
                bytes: body.len(),
                body,
                elapsed: start.elapsed(),
                truncated,
                skipped_content_type: !wanted,
                reservation: reservation.map(std::sync::Arc::new),
                attempts,
            });
        }
    }

    /// The host to be polite to; refuses non-http(s) URLs and, unless
    /// private addresses are allowed, literal non-public IPs (names are
    /// checked by the resolver).
    fn check_url(&self, url: &Url) -> Result<HostKey, FetchError> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(FetchError::InvalidUrl(url.to_string()));
        }
        let key = || HostKey::of(url).unwrap_or_default();
        let ip: IpAddr = match url.host() {
            Some(url::Host::Domain(_)) => return Ok(key()),
            Some(url::Host::Ipv4(ip)) => ip.into(),
            Some(url::Host::Ipv6(ip)) => ip.into(),
            None => return Err(FetchError::InvalidUrl(url.to_string())),
        };
        if self.blocked.is_some_and(|blocked| blocked(ip)) {
            return Err(FetchError::PrivateAddress {
                host: ip.to_string(),
            });
        }
        // The politeness key is `host_str()` (`[::1]` for IPv6), the same
        // spelling the robots layer uses to set a Crawl-delay.
        Ok(key())
    }

    /// The private-address guard with a proxy: resolves the target's host
    /// name and refuses it when any of its addresses is blocked (stricter
    /// than the resolver without a proxy, which connects to the public
    /// ones: here the proxy picks the address). Literal IPs were checked
    /// by [`Fetcher::check_url`].
    async fn check_proxied_target(&self, url: &Url) -> Result<(), FetchError> {
        let (Some(blocked), Some(url::Host::Domain(host))) = (self.blocked, url.host()) else {
            return Ok(());
        };
        let port = url.port_or_known_default().unwrap_or(80);
        let addrs: Vec<std::net::SocketAddr> = tokio::net::lookup_host((host, port))
            .await
            .map_err(|e| FetchError::Dns {
                host: host.to_owned(),
                message: e.to_string(),
            })?
            .collect();
        if addrs.is_empty() || addrs.iter().any(|a| blocked(a.ip())) {
            return Err(FetchError::PrivateAddress {
                host: host.to_owned(),
            });
        }
        Ok(())
    }

    /// Sends one request, retrying per config. Returns the response with
    /// headers read, the politeness permit (held until the body is read),
    /// the attempts used and the deadline of the last attempt.
    async fn send(
        &self,
        url: &Url,
        host: &HostKey,
    ) -> Result<(Response, Permit, u32, Instant), FetchError> {
        let total = Duration::from_millis(self.config.total_timeout_ms);
        let base = Duration::from_millis(self.config.retry_base_ms);
        let max = Duration::from_millis(self.config.retry_max_ms);
        let mut attempt: u32 = 0;
        loop {
            let permit = self.politeness.acquire(host).await;
            let deadline = Instant::now() + total;
            let result = match tokio::time::timeout_at(
                deadline,
                self.client.get(url.clone()).send(),
            )
            .await
            {
                Ok(Ok(response)) => Ok(response),
                Ok(Err(e)) => Err(map_error(&e)),
                Err(_) => Err(FetchError::TotalTimeout),
            };
            let retries_left = attempt < self.config.retries;
            attempt += 1;
            let wait = match &result {
                Ok(response) if is_retryable_status(response.status()) && retries_left => {
                    let fallback = backoff(base, max, attempt - 1, jitter(u64::from(attempt)));
                    match response
                        .headers()
                        .get(RETRY_AFTER)
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| parse_retry_after(v, SystemTime::now()))
                    {
                        // The server asks for more than we are willing to
                        // wait: return its answer rather than retry early.
                        Some(asked) if asked > max => None,
                        Some(asked) => Some(asked.max(fallback)),
                        None => Some(fallback),
                    }
                }
                Err(e) if e.is_retryable() && retries_left => {
                    Some(backoff(base, max, attempt - 1, jitter(u64::from(attempt))))
                }
                _ => None,
            };
            match (result, wait) {
                (result, Some(wait)) => {
                    drop(result);
                    drop(permit);
                    tracing::debug!(%url, ?wait, attempt, "retrying");
                    // Other requests to the host wait too: the server asked
                    // the whole client to back off, not this URL.
                    self.politeness.defer(host, Instant::now() + wait).await;
                }
                (Ok(response), None) => return Ok((response, permit, attempt, deadline)),
                (Err(e), None) => return Err(e),
            }
        }
    }
}

fn is_retryable_status(status: StatusCode) -> bool {
    status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error()
}

/// HTTP/1.1 only (reqwest is built without http2): hyper already refuses
/// responses whose header block exceeds its read buffer (about 400 KiB) or
/// 100 headers; this is the configured, smaller cap on top.
fn check_header_size(headers: &HeaderMap, max: usize) -> Result<(), FetchError> {
    let bytes: usize = headers
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum();
    if bytes > max {
        return Err(FetchError::HeadersTooLarge { bytes, max });
    }
    Ok(())
}

/// Streams the body, stopping at the cap: memory never exceeds the cap
/// whatever the server sends (decompression happens before these chunks,
/// so the cap counts decompressed bytes).
async fn read_body(
    mut response: Response,
    options: &FetchOptions,
    deadline: Instant,
) -> Result<(Vec<u8>, bool), FetchError> {
    let max = options.max_body_bytes;
    let declared = response.content_length();
    if options.oversize == Oversize::Error && declared.is_some_and(|n| n > max as u64) {
        return Err(FetchError::BodyTooLarge { max });
    }
    // Trust a declared length only up to the cap and a modest first size.
    let capacity = declared
        .map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX))
        .min(max)
        .min(1 << 20);
    let mut body = Vec::with_capacity(capacity);
    loop {
        let chunk = match tokio::time::timeout_at(deadline, response.chunk()).await {
            Ok(Ok(Some(chunk))) => chunk,
            Ok(Ok(None)) => return Ok((body, false)),
            Ok(Err(e)) => return Err(map_error(&e)),
            Err(_) => return Err(FetchError::TotalTimeout),
        };
        let room = max.saturating_sub(body.len());
        if chunk.len() > room {
            return match options.oversize {
                Oversize::Truncate => {
                    body.extend_from_slice(chunk.get(..room).unwrap_or_default());
                    Ok((body, true))
                }
                Oversize::Error => Err(FetchError::BodyTooLarge { max }),
            };
        }
        body.extend_from_slice(&chunk);
    }
}

/// Maps a reqwest error to the specific variant, looking through the
/// source chain for our resolver's verdict and for timeouts.
fn map_error(e: &reqwest::Error) -> FetchError {
    let mut source: Option<&(dyn StdError + 'static)> = e.source();
    while let Some(s) = source {
        if let Some(private) = s.downcast_ref::<PrivateAddressError>() {
            return FetchError::PrivateAddress {
                host: private.host.clone(),
            };
        }
        source = s.source();
    }
    if e.is_timeout() {
        if e.is_connect() {
            FetchError::ConnectTimeout
        } else {
            FetchError::ReadTimeout
        }
    } else if e.is_connect() {
        let message = error_chain(e);
        if message.contains("failed to lookup address") || message.contains("dns error") {
            let host = e
                .url()
                .and_then(Url::host_str)
                .unwrap_or_default()
                .to_owned();
            FetchError::Dns { host, message }
        } else {
            FetchError::Connect(message)
        }
    } else {
        FetchError::Http(error_chain(e))
    }
}

/// The error and its sources, joined: reqwest's own message is often just
/// "error sending request".
fn error_chain(e: &dyn StdError) -> String {
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        message.push_str(": ");
        message.push_str(&s.to_string());
        source = s.source();
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_size_counts_names_and_values() {
        let mut headers = HeaderMap::new();
        headers.insert("x-a", "12345".parse().unwrap());
        // 3 + 5 + 4 = 12 bytes.
        assert!(check_header_size(&headers, 12).is_ok());
        assert_eq!(
            check_header_size(&headers, 11),
            Err(FetchError::HeadersTooLarge { bytes: 12, max: 11 })
        );
    }

    #[tokio::test]
    async fn literal_private_ips_are_refused_before_connecting() {
        let fetcher = Fetcher::new(&CrawlConfig::default()).unwrap();
        for url in [
            "http://127.0.0.1:9/",
            "http://[::1]:9/",
            "http://10.0.0.1/",
            "http://169.254.169.254/latest/meta-data/",
            "http://[::ffff:192.168.0.1]/",
        ] {
            let err = fetcher.fetch(&Url::parse(url).unwrap()).await.unwrap_err();
            assert!(
                matches!(err, FetchError::PrivateAddress { .. }),
                "{url}: {err:?}"
            );
        }
        let err = fetcher
            .fetch(&Url::parse("ftp://example.com/").unwrap())
            .await
            .unwrap_err();
        assert!(matches!(err, FetchError::InvalidUrl(_)), "{err:?}");
    }
}
