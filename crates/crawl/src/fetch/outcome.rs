//! What a fetch gives back: the final response ([`FetchOutcome`], with
//! its [`Redirect`] hops) or why there is none ([`FetchError`]).

use std::time::Duration;

use url::Url;

use super::budget::BodyReservation;

/// Why a fetch failed. Each variant is one thing a crawl report counts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// The HTTP client could not be built (TLS setup, bad user agent).
    #[error("cannot build the HTTP client: {0}")]
    Build(String),
    /// A URL the fetcher cannot request (not http(s), no host).
    #[error("cannot fetch {0}")]
    InvalidUrl(String),
    /// The host is or resolves only to loopback, private, link-local or
    /// other non-public addresses, and `crawl.allow_private` is off.
    #[error("{host} is a private or local address (set crawl.allow_private to fetch it)")]
    PrivateAddress {
        /// The host name or IP literal.
        host: String,
    },
    /// Name resolution failed.
    #[error("cannot resolve {host}: {message}")]
    Dns {
        /// The host name.
        host: String,
        /// The resolver's message.
        message: String,
    },
    /// The TCP or TLS connection failed (refused, reset, bad certificate).
    #[error("connection failed: {0}")]
    Connect(String),
    /// No connection within `crawl.fetch.connect_timeout_ms`.
    #[error("connect timeout")]
    ConnectTimeout,
    /// No data for `crawl.fetch.read_timeout_ms` (headers or body).
    #[error("read timeout")]
    ReadTimeout,
    /// The request took longer than `crawl.fetch.total_timeout_ms`.
    #[error("total timeout")]
    TotalTimeout,
    /// More than `crawl.fetch.max_redirects` redirects.
    #[error("more than {max} redirects")]
    TooManyRedirects {
        /// The limit.
        max: usize,
        /// Every URL requested, in order.
        chain: Vec<Url>,
    },
    /// A redirect back to a URL already requested in this fetch.
    #[error("redirect loop back to {}", chain.last().map(Url::as_str).unwrap_or(""))]
    RedirectLoop {
        /// Every URL requested, in order, then the repeated one.
        chain: Vec<Url>,
    },
    /// A `Location` header that is not an http(s) URL.
    #[error("bad redirect location {location:?}")]
    BadRedirect {
        /// The header value (lossy UTF-8).
        location: String,
    },
    /// A redirect to a URL the crawl must not fetch: outside the crawl's
    /// scope, or disallowed by the target host's robots.txt. The target is
    /// not requested.
    #[error("redirect to {target} refused: {reason}")]
    RedirectRefused {
        /// The redirect target (as the `Location` header resolved).
        target: Url,
        /// Why: `robots_disallowed`, `robots_unreachable`, or a scope skip
        /// reason (`off_site`, `excluded`, ...).
        reason: String,
    },
    /// Response headers larger than `crawl.fetch.max_header_bytes`.
    #[error("response headers are {bytes} bytes, more than {max}")]
    HeadersTooLarge {
        /// Size of the headers (names + values).
        bytes: usize,
        /// The limit.
        max: usize,
    },
    /// A body longer than `crawl.fetch.max_body_bytes` with
    /// `oversize = "error"`.
    #[error("body longer than {max} bytes")]
    BodyTooLarge {
        /// The limit.
        max: usize,
    },
    /// Any other HTTP or transport error.
    #[error("http error: {0}")]
    Http(String),
}

impl FetchError {
    /// A short stable name for output files (`pages.jsonl` error field).
    pub fn name(&self) -> &'static str {
        match self {
            FetchError::Build(_) => "build",
            FetchError::InvalidUrl(_) => "invalid_url",
            FetchError::PrivateAddress { .. } => "private_address",
            FetchError::Dns { .. } => "dns",
            FetchError::Connect(_) => "connect",
            FetchError::ConnectTimeout => "connect_timeout",
            FetchError::ReadTimeout => "read_timeout",
            FetchError::TotalTimeout => "total_timeout",
            FetchError::TooManyRedirects { .. } => "too_many_redirects",
            FetchError::RedirectLoop { .. } => "redirect_loop",
            FetchError::BadRedirect { .. } => "bad_redirect",
            FetchError::RedirectRefused { .. } => "redirect_refused",
            FetchError::HeadersTooLarge { .. } => "headers_too_large",
            FetchError::BodyTooLarge { .. } => "body_too_large",
            FetchError::Http(_) => "http",
        }
    }

    /// Whether trying again later may succeed (timeouts, connection errors).
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            FetchError::Connect(_)
                | FetchError::ConnectTimeout
                | FetchError::ReadTimeout
                | FetchError::TotalTimeout
                | FetchError::Http(_)
        )
    }
}

/// One redirect hop: the URL requested and the 3xx status it answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redirect {
    /// The URL that answered with a redirect.
    pub url: Url,
    /// Its status (301, 302, 303, 307 or 308).
    pub status: u16,
}

/// A completed fetch: the final response, whatever its status.
#[derive(Clone, Debug)]
pub struct FetchOutcome {
    /// The URL asked for.
    pub url: Url,
    /// The URL that answered (differs from `url` after redirects).
    pub final_url: Url,
    /// Redirect hops, in order (empty without redirects).
    pub redirects: Vec<Redirect>,
    /// HTTP status of the final response (a 404 or a 503 after retries is
    /// an outcome, not an error).
    pub status: u16,
    /// The `Content-Type` header as sent (charset included, for decoding).
    pub content_type: Option<String>,
    /// Every `X-Robots-Tag` header value of the final response (lossy
    /// UTF-8), in order: page-level robots directives.
    pub robots_tags: Vec<String>,
    /// The body, decompressed, at most `max_body_bytes` long; empty when
    /// the content type was skipped.
    pub body: Vec<u8>,
    /// Body bytes read (after decompression) = `body.len()`.
    pub bytes: usize,
    /// Wall time from the first request to the end of the body, including
    /// politeness waits and retry backoff.
    pub elapsed: Duration,
    /// The body was cut at `max_body_bytes`.
    pub truncated: bool,
    /// The content type is not in `crawl.fetch.content_types`: the body was
    /// not downloaded.
    pub skipped_content_type: bool,
    /// Requests sent for the final hop (1 + retries used).
    pub attempts: u32,
    /// The body's share of [`super::FetchOptions::body_budget`], if one was
    /// given: drop it once the body is no longer held (clones of the
    /// outcome share it: it is released when the last one drops it).
    pub reservation: Option<std::sync::Arc<BodyReservation>>,
}
