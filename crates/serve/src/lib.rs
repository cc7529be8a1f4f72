//! `neardup serve`: the HTTP/JSON API over a [`SharedDeduper`], for crawlers
//! not written in Rust. This module is the only one that knows HTTP: the
//! wire types live in [`dto`], the API contract in `docs/openapi.json`.
//!
//! | method and path | answer |
//! |---|---|
//! | `POST /v1/check` | the verdict on one page |
//! | `POST /v1/check/batch` | verdicts on many pages, decided in order |
//! | `POST /v1/check/raw?url=URL[&key=K]` | the verdict on one page sent as fetched: its bytes, with the response's `Content-Type` |
//! | `DELETE /v1/docs/{id}` | removes an indexed page |
//! | `DELETE /v1/docs?url=URL` | removes the page indexed at a URL |
//! | `GET /v1/stats` | counters, detector chain, memory per tier |
//! | `GET /healthz` | `{"status":"ok"}` while the process serves (liveness), never authenticated |
//! | `GET /readyz` | 200 if the index backend answers, else 503 (readiness), never authenticated |
//! | `GET /metrics` | Prometheus text |
//!
//! # Limits and errors
//! Every error is `{"error": {"code", "message"}}` with a 4xx/5xx status:
//! a body over [`ServeOptions::max_body`] is 413 (at once when its declared
//! length is over, without reading it), a body not received within
//! [`ServeOptions::body_timeout`] is 408, a body that is not
//! `application/json` (for `/v1/check/raw`: not HTML or plain text) is 415,
//! bad JSON, fields or query parameters are 400 (a `url` longer
//! than `canonical.max_url_len`, as the crawl caps URLs, is 400
//! `url_too_long`; one that is not absolute http(s) is 400 `invalid_url`,
//! in `DELETE /v1/docs?url=` too), a missing or wrong
//! bearer token is 401, more than [`ServeOptions::max_concurrency`] requests
//! in flight, or request bodies over [`ServeOptions::max_body_memory`] in
//! memory, is 503 (load is shed at once, with `Retry-After: 1`, rather than
//! queued: a crawler retries later, and a queue would only add latency to
//! every request), and a request running longer than
//! [`ServeOptions::timeout`] after its body arrived is 504.
//!
//! A request's body is read before it takes one of the
//! [`ServeOptions::max_concurrency`] slots: a slow or stalled upload holds
//! only its connection and the bytes it sent, never a slot. Connections
//! themselves are bounded by the accept loop (`conn`): header-read and
//! idle timeouts, and a cap per client address. HTTP/1.1 only: an HTTP/2
//! preface is answered 505 `http_version_not_supported`.
//!
//! # Logs
//! One access line per request (`tracing`, target `neardup_serve::access`,
//! level info: method, path, status, latency, bytes in and out, peer, and
//! the error code of an error answer) and one error line with the cause of
//! every 500 (target `crate`, level error).
//!
//! A page that times out before its decision is not indexed; one that times
//! out during it may be (the client cannot tell, so a 504 means "unknown":
//! re-check the page).
//!
//! # Text input
//! `html` is analyzed as HTML (decode, main-content extraction); `text` (or
//! `html` with `headers.content-type: text/plain`) skips extraction: the
//! caller already extracted it, and every paragraph counts as main content
//! ([`Deduper::analyze_text`](neardup::Deduper::analyze_text)). JSON strings
//! are Unicode, so a `charset` in `headers.content-type` is ignored.
//!
//! # Raw bodies
//! `POST /v1/check/raw` takes the page's bytes as the crawler received
//! them, with the response's `Content-Type` as the request's: `text/html`
//! or `application/xhtml+xml` is decoded (BOM, the header's `charset`, a
//! `<meta charset>`, else detection) and extracted like a crawled page,
//! `text/plain` is decoded and taken as text; any other type is 415. No
//! transcoding or JSON escaping on the client, and no charset lost on the
//! way.
//!
//! # Example
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use neardup::SharedDeduper;
//! use neardup::{Config, Deduper};
//! use neardup_serve as serve;
//!
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! let deduper = SharedDeduper::new(Deduper::new(Config::default())?);
//! serve::run(listener, deduper, serve::ServeOptions::default(), async {
//!     let _ = tokio::signal::ctrl_c().await;
//! })
//! .await?;
//! # Ok(())
//! # }
//! ```

#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod app_state;
mod conn;
mod decider;
pub mod dto;
mod error;
mod guard;
mod metrics;
mod options;

use std::fmt::Write as _;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::{self};
use axum::response::Response;
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use rayon::prelude::*;
use tokio::sync::Semaphore;

use app_state::{AppState, Shared};
use decider::{Decider, Job, RemoveTarget};
use dto::{BatchBody, BatchRequest, CheckRequest, DeletedBody, HealthBody, StatsBody, VerdictBody};
use metrics::Metrics;
use neardup::{Analyzed, Analyzer, SharedDeduper};

pub use error::ApiError;
use guard::{auth, limit, parse_json, read_bytes, track};
pub use options::ServeOptions;

/// Serves the API on `listener` until `shutdown` completes, then stops
/// accepting, lets requests in flight finish, and returns.
///
/// # Errors
/// If the index cannot be flushed at the end.
pub async fn run(
    listener: tokio::net::TcpListener,
    deduper: SharedDeduper,
    options: ServeOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> neardup::Result<()> {
    let limits = conn::ConnLimits {
        header_timeout: options.header_timeout,
        idle_timeout: options.idle_timeout,
        max_per_address: options.max_connections_per_address,
    };
    let (app, decider) = build(deduper.clone(), options)?;
    conn::serve(listener, app, limits, shutdown).await;
    // Every request has been answered and the app dropped with its
    // senders: the decider finishes and lets go of the deduper, so the
    // caller holds the only handle (and may reopen the index file).
    tokio::task::spawn_blocking(move || decider.join())
        .await
        .map_err(|e| neardup::Error::runtime("decider thread", format!("join failed: {e}")))?;
    // The decider commits each group before answering; this flush only
    // covers writes of requests abandoned while their group was decided.
    deduper.with(|d| d.flush()).and_then(|r| r)?;
    Ok(())
}

/// The routes and middleware; public so that tests and embedders can drive
/// it without a socket.
///
/// # Errors
/// If the worker threads cannot be started.
pub fn router(deduper: SharedDeduper, options: ServeOptions) -> neardup::Result<Router> {
    // Detached: the decider stops by itself once the router is dropped.
    build(deduper, options).map(|(router, _)| router)
}

/// The router and the decider thread behind it.
fn build(
    deduper: SharedDeduper,
    options: ServeOptions,
) -> neardup::Result<(Router, decider::DeciderThread)> {
    let pool = |name: &'static str| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(options.workers)
            .thread_name(move |i| format!("neardup-{name}-{i}"))
            .build()
            .map_err(|e| {
                neardup::Error::runtime(format!("{name} thread pool"), format!("cannot start: {e}"))
            })
    };
    let workers = pool("check")?;
    let batch_workers = pool("batch")?;
    let analyzer = deduper.read(|d| d.analyzer())?;
    let max_url_len = deduper.read(|d| d.config().canonical.max_url_len)?;
    let (decider, decider_thread) = Decider::start(deduper.clone())?;
    // At least one largest body fits, so every valid request can pass
    // when the server is otherwise idle.
    let body_budget = options
        .max_body_memory
        .max(options.max_body)
        .min(Semaphore::MAX_PERMITS);
    let state = Arc::new(AppState {
        deduper,
        analyzer,
        max_url_len,
        decider,
        in_flight: Arc::new(Semaphore::new(options.max_concurrency.max(1))),
        body_memory: Arc::new(Semaphore::new(body_budget)),
        body_budget,
        options,
        metrics: Metrics::default(),
        workers,
        batch_workers,
    });
    let api = Router::new()
        .route("/v1/check", post(check))
        .route("/v1/check/batch", post(check_batch))
        .route("/v1/check/raw", post(check_raw))
        .route("/v1/docs/{id}", delete(remove_doc))
        .route("/v1/docs", delete(remove_doc_by_url))
        .route("/v1/stats", get(stats))
        .route_layer(middleware::from_fn_with_state(state.clone(), limit));
    let router = Router::new()
        .merge(api)
        .route("/metrics", get(metrics))
        .route_layer(middleware::from_fn_with_state(state.clone(), auth))
        // Added after the auth layer, so probes need no token.
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(state.options.max_body))
        .layer(middleware::from_fn_with_state(state.clone(), track))
        .with_state(state);
    Ok((router, decider_thread))
}

/// A request validated into what analysis needs.
struct Page {
    url: String,
    key: String,
    body: PageBody,
}

/// A page's content as the request gave it.
enum PageBody {
    /// `html` of a JSON request: Unicode already.
    Html(String),
    /// `text` of a JSON request, or its `html` declared `text/plain`.
    Text(String),
    /// The body of `POST /v1/check/raw`: bytes as fetched, decoded by the
    /// fetched response's content type (its charset), a BOM or detection.
    Raw {
        bytes: Bytes,
        content_type: String,
        /// `text/plain`: already-extracted text, not HTML.
        text: bool,
    },
}

impl PageBody {
    fn len(&self) -> usize {
        match self {
            PageBody::Html(s) | PageBody::Text(s) => s.len(),
            PageBody::Raw { bytes, .. } => bytes.len(),
        }
    }
}

impl Page {
    /// Validates one request; `at` prefixes field names (`pages[3].`);
    /// `url` and `key` may be `max_url_len` bytes long.
    fn from_request(req: CheckRequest, at: &str, max_url_len: usize) -> Result<Page, ApiError> {
        let (url, key) = names(req.url, req.key, at, max_url_len)?;
        let declared_text = req
            .headers
            .as_ref()
            .and_then(|h| {
                h.iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case("content-type"))
                    .map(|(_, v)| v.split(';').next().unwrap_or("").trim())
            })
            .is_some_and(|mime| mime.eq_ignore_ascii_case("text/plain"));
        let (body, is_text) = match (req.html, req.text) {
            (Some(html), None) => (html, declared_text),
            (None, Some(text)) => (text, true),
            (None, None) => {
                return Err(ApiError::bad_request(
                    "missing_field",
                    format!("{at}html or {at}text is required"),
                ))
            }
            (Some(_), Some(_)) => {
                return Err(ApiError::bad_request(
                    "invalid_field",
                    format!("give {at}html or {at}text, not both"),
                ))
            }
        };
        Ok(Page {
            key,
            url,
            body: if is_text {
                PageBody::Text(body)
            } else {
                PageBody::Html(body)
            },
        })
    }

    /// Validates a `POST /v1/check/raw`: `url` and `key` from the query,
    /// the kind of content from the request's `Content-Type` (the fetched
    /// response's, charset included).
    fn from_raw(
        query: Option<&str>,
        headers: &HeaderMap,
        bytes: Bytes,
        max_url_len: usize,
    ) -> Result<Page, ApiError> {
        let content_type = headers
            .get(header::CONTENT_TYPE)
            .map(|v| {
                v.to_str().map(str::to_owned).map_err(|_| {
                    ApiError::new(
                        StatusCode::UNSUPPORTED_MEDIA_TYPE,
                        "unsupported_media_type",
                        "Content-Type is not visible ASCII",
                    )
                })
            })
            .transpose()?
            .unwrap_or_default();
        let essence = content_type.split(';').next().unwrap_or("").trim();
        let text = if essence.eq_ignore_ascii_case("text/plain") {
            true
        } else if essence.eq_ignore_ascii_case("text/html")
            || essence.eq_ignore_ascii_case("application/xhtml+xml")
        {
            false
        } else {
            return Err(ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                format!(
                    "Content-Type must be the fetched page's: text/html, \
                     application/xhtml+xml or text/plain (a charset parameter \
                     is used), got {content_type:?}"
                ),
            ));
        };
        let (mut url, mut key) = (None, None);
        for (name, value) in url::form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
            let slot = match name.as_ref() {
                "url" => &mut url,
                "key" => &mut key,
                other => {
                    return Err(ApiError::bad_request(
                        "invalid_field",
                        format!("unknown query parameter {other:?}; url and key are known"),
                    ))
                }
            };
            if slot.replace(value.into_owned()).is_some() {
                return Err(ApiError::bad_request(
                    "invalid_field",
                    format!("query parameter {name} given twice"),
                ));
            }
        }
        let (url, key) = names(url, key, "query parameter ", max_url_len)?;
        Ok(Page {
            url,
            key,
            body: PageBody::Raw {
                bytes,
                content_type,
                text,
            },
        })
    }

    fn analyze(&self, d: &Analyzer) -> Analyzed {
        let (key, url) = (&self.key, &self.url);
        match &self.body {
            PageBody::Text(text) => d.analyze_text(key, url, text),
            // The body is already Unicode (a JSON string): say UTF-8 so a
            // stale <meta charset> cannot re-decode it.
            PageBody::Html(html) => {
                d.analyze(key, url, html.as_bytes(), Some("text/html; charset=utf-8"))
            }
            PageBody::Raw {
                bytes,
                content_type,
                text: true,
            } => d.analyze_text_bytes(key, url, bytes, Some(content_type)),
            PageBody::Raw {
                bytes,
                content_type,
                text: false,
            } => d.analyze(key, url, bytes, Some(content_type)),
        }
    }
}

/// A page's `url` (required, checked by [`check_url`]) and `key` (at most
/// `max_len` bytes; the URL when absent). `at` prefixes the field names.
fn names(
    url: Option<String>,
    key: Option<String>,
    at: &str,
    max_len: usize,
) -> Result<(String, String), ApiError> {
    let url =
        url.ok_or_else(|| ApiError::bad_request("missing_field", format!("{at}url is required")))?;
    check_url(&url, at, max_len)?;
    match key {
        Some(key) if key.len() > max_len => Err(ApiError::bad_request(
            "invalid_field",
            format!(
                "{at}key is {} bytes, longer than canonical.max_url_len ({max_len})",
                key.len()
            ),
        )),
        Some(key) => Ok((url, key)),
        None => Ok((url.clone(), url)),
    }
}

/// Checks a page URL as the crawl takes one: at most `max_len` bytes
/// (`canonical.max_url_len`, 400 `url_too_long`), absolute, http or
/// https (400 `invalid_url`). `at` prefixes the field name.
fn check_url(url: &str, at: &str, max_len: usize) -> Result<(), ApiError> {
    if url.len() > max_len {
        return Err(ApiError::bad_request(
            "url_too_long",
            format!(
                "{at}url is {} bytes, longer than canonical.max_url_len ({max_len})",
                url.len()
            ),
        ));
    }
    match url::Url::parse(url) {
        Ok(u) if matches!(u.scheme(), "http" | "https") => Ok(()),
        Ok(u) => Err(ApiError::bad_request(
            "invalid_url",
            format!("{at}url must be http or https, got scheme {:?}", u.scheme()),
        )),
        Err(e) => Err(ApiError::bad_request(
            "invalid_url",
            format!("{at}url {url:?} is not a valid absolute URL: {e}"),
        )),
    }
}

/// Sets its flag when dropped unless disarmed: tells the blocking task that
/// the request was abandoned (timeout, client gone) before its decision.
struct CancelOnDrop(Arc<AtomicBool>, bool);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if self.1 {
            self.0.store(true, Ordering::SeqCst);
        }
    }
}

/// Runs `f` on `pool` and awaits its result without blocking the runtime.
async fn on_pool<R: Send + 'static>(
    pool: &rayon::ThreadPool,
    f: impl FnOnce() -> neardup::Result<R> + Send + 'static,
) -> Result<R, ApiError> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    pool.spawn(move || {
        // The receiver is gone only if the request was abandoned.
        let _ = tx.send(f());
    });
    rx.await
        .map_err(|_| ApiError::internal("worker task failed"))?
        .map_err(ApiError::internal)
}

/// Runs `f` on the check workers.
async fn on_workers<R: Send + 'static>(
    state: &AppState,
    f: impl FnOnce() -> neardup::Result<R> + Send + 'static,
) -> Result<R, ApiError> {
    on_pool(&state.workers, f).await
}

/// Largest page analyzed on the async runtime's own thread, in bytes.
const INLINE_MAX: usize = 256 * 1024;

/// Analyzes `pages`, then has the decider decide them in order and commit
/// them; the answer comes after the commit that covers them.
///
/// One page of at most [`INLINE_MAX`] bytes is analyzed right here, on the
/// runtime thread that parsed its request: such a page costs a few hundred
/// microseconds of CPU, and handing it to another thread would add two
/// context switches per check. Larger pages go to the worker pool, so that
/// one huge page does not stall the other connections of this thread; a
/// batch is analyzed in parallel on its own pool.
async fn check_pages(state: &AppState, pages: Vec<Page>) -> Result<Vec<VerdictBody>, ApiError> {
    let cancelled = Arc::new(AtomicBool::new(false));
    let mut guard = CancelOnDrop(cancelled.clone(), true);
    let (reply, answer) = tokio::sync::oneshot::channel();
    let inline = pages.len() == 1 && pages.iter().all(|p| p.body.len() <= INLINE_MAX);
    if !inline {
        let analyzer = Arc::clone(&state.analyzer);
        let decider = state.decider.clone();
        let pool = if pages.len() > 1 {
            &state.batch_workers
        } else {
            &state.workers
        };
        pool.spawn(move || {
            if cancelled.load(Ordering::SeqCst) {
                return;
            }
            let pages = if pages.len() > 1 {
                pages.par_iter().map(|p| p.analyze(&analyzer)).collect()
            } else {
                pages.iter().map(|p| p.analyze(&analyzer)).collect()
            };
            decider.send(Job::Check {
                pages,
                cancelled,
                reply,
            });
        });
    } else {
        let pages = pages.iter().map(|p| p.analyze(&state.analyzer)).collect();
        let job = Job::Check {
            pages,
            cancelled,
            reply,
        };
        if let Err(job) = state.decider.try_send(job) {
            // The queue is full: wait for room off the runtime.
            let decider = state.decider.clone();
            state.workers.spawn(move || decider.send(job));
        }
    }
    let verdicts = answer
        .await
        .map_err(|_| ApiError::internal("worker task failed"))??;
    guard.1 = false;
    // None only when cancelled, and then nobody reads this answer.
    verdicts
        .map(|v| v.into_iter().map(VerdictBody::from).collect())
        .ok_or_else(|| ApiError::internal("request cancelled"))
}

async fn check(
    State(state): State<Shared>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<VerdictBody>, ApiError> {
    let req: CheckRequest = parse_json(&headers, body)?;
    check_one(&state, Page::from_request(req, "", state.max_url_len)?).await
}

/// The verdict on one validated page.
async fn check_one(state: &AppState, page: Page) -> Result<Json<VerdictBody>, ApiError> {
    let mut verdicts = check_pages(state, vec![page]).await?;
    verdicts
        .pop()
        .map(Json)
        .ok_or_else(|| ApiError::internal("no verdict"))
}

async fn check_raw(
    State(state): State<Shared>,
    axum::extract::RawQuery(query): axum::extract::RawQuery,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<VerdictBody>, ApiError> {
    let page = Page::from_raw(
        query.as_deref(),
        &headers,
        read_bytes(body)?,
        state.max_url_len,
    )?;
    check_one(&state, page).await
}

async fn check_batch(
    State(state): State<Shared>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<BatchBody>, ApiError> {
    let req: BatchRequest = parse_json(&headers, body)?;
    let requests = req
        .pages
        .ok_or_else(|| ApiError::bad_request("missing_field", "pages is required"))?;
    if requests.len() > state.options.max_batch {
        return Err(ApiError::bad_request(
            "batch_too_large",
            format!(
                "{} pages in one batch; at most {} (--max-batch)",
                requests.len(),
                state.options.max_batch
            ),
        ));
    }
    // All or nothing: one bad page rejects the batch before any decision,
    // so a retry after fixing it does not see its own earlier pages.
    let pages = requests
        .into_iter()
        .enumerate()
        .map(|(i, r)| Page::from_request(r, &format!("pages[{i}]."), state.max_url_len))
        .collect::<Result<Vec<_>, _>>()?;
    let verdicts = check_pages(&state, pages).await?;
    Ok(Json(BatchBody { verdicts }))
}

/// What a `{id}` path segment names.
#[derive(Debug, PartialEq, Eq)]
enum IdParam {
    /// A document id that can exist.
    Id(neardup_api::DocId),
    /// An integer >= 0 past the largest id the index hands out (2^32-1):
    /// valid, but no document has it.
    OutOfRange,
}

/// Parses a document id: any integer >= 0 (as documented); the error says
/// what is wrong with anything else.
fn parse_id(text: &str) -> Result<IdParam, ApiError> {
    let invalid = |why: &str| {
        ApiError::bad_request(
            "invalid_id",
            format!("document id {text:?} {why}; ids are integers >= 0"),
        )
    };
    if text.is_empty() {
        return Err(invalid("is empty"));
    }
    let digits = text.strip_prefix('+').unwrap_or(text);
    if let Some(rest) = text.strip_prefix('-') {
        return Err(
            if !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()) {
                invalid("is negative")
            } else {
                invalid("is not an integer")
            },
        );
    }
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid("is not an integer"));
    }
    Ok(digits
        .parse::<neardup_api::DocId>()
        .map_or(IdParam::OutOfRange, IdParam::Id))
}

async fn remove_doc(
    State(state): State<Shared>,
    Path(text): Path<String>,
) -> Result<Json<DeletedBody>, ApiError> {
    let not_found = || {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("no indexed document with id {text}"),
        )
    };
    let id = match parse_id(&text)? {
        IdParam::Id(id) => id,
        IdParam::OutOfRange => return Err(not_found()),
    };
    match remove(&state, RemoveTarget::Id(id)).await? {
        Some(id) => Ok(Json(DeletedBody { id, removed: true })),
        None => Err(not_found()),
    }
}

/// Has the decider remove a document, in order with the checks, and
/// commit the removal before answering.
async fn remove(
    state: &AppState,
    target: RemoveTarget,
) -> Result<Option<neardup_api::DocId>, ApiError> {
    let (reply, answer) = tokio::sync::oneshot::channel();
    let decider = state.decider.clone();
    // Sending may wait for room in the decider's queue, so it runs on a
    // worker.
    state
        .workers
        .spawn(move || decider.send(Job::Remove { target, reply }));
    answer
        .await
        .map_err(|_| ApiError::internal("worker task failed"))?
}

/// `DELETE /v1/docs?url=URL`: removes the page indexed at the URL's
/// canonical form (what a recrawl replaces), e.g. a page that went away.
async fn remove_doc_by_url(
    State(state): State<Shared>,
    axum::extract::RawQuery(query): axum::extract::RawQuery,
) -> Result<Json<DeletedBody>, ApiError> {
    let url = url::form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .find(|(k, _)| k == "url")
        .map(|(_, v)| v.into_owned())
        .ok_or_else(|| ApiError::bad_request("missing_field", "query parameter url is required"))?;
    check_url(&url, "", state.max_url_len)?;
    match remove(&state, RemoveTarget::Url(url.clone())).await? {
        Some(id) => Ok(Json(DeletedBody { id, removed: true })),
        None => Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("no indexed document at {url}"),
        )),
    }
}

/// Counters, chain and memory, read off the runtime (the read lock may wait
/// for a decision).
async fn snapshot(state: &AppState) -> Result<StatsBody, ApiError> {
    let deduper = state.deduper.clone();
    on_workers(state, move || {
        deduper.read(|d| StatsBody::new(d.stats(), d.detector_names(), d.memory()))
    })
    .await
}

async fn stats(State(state): State<Shared>) -> Result<Json<StatsBody>, ApiError> {
    snapshot(&state).await.map(Json)
}

async fn metrics(State(state): State<Shared>) -> Result<Response, ApiError> {
    let snap = snapshot(&state).await?;
    let stats = neardup::Stats {
        checked: snap.checked,
        verdicts: neardup::VerdictCounts {
            unique: snap.unique,
            duplicates: snap.duplicates,
            near_duplicates: snap.near_duplicates,
        },
        indexed: snap.indexed,
    };
    let memory: Vec<(String, usize)> = snap
        .memory
        .into_iter()
        .map(|m| (m.tier, usize::try_from(m.bytes).unwrap_or(usize::MAX)))
        .collect();
    let mut text = state
        .metrics
        .render(stats, state.decider.commits(), &memory);
    // The limits in use now: slots taken, body bytes held.
    let slots = state.options.max_concurrency.max(1);
    let _ = write!(
        text,
        "# HELP neardup_http_requests_in_flight Requests on /v1/* holding a concurrency slot \
         (body received, being answered).\n\
         # TYPE neardup_http_requests_in_flight gauge\n\
         neardup_http_requests_in_flight {}\n\
         # HELP neardup_request_body_bytes Bytes of request bodies held in memory \
         (of --max-body-memory).\n\
         # TYPE neardup_request_body_bytes gauge\n\
         neardup_request_body_bytes {}\n",
        slots.saturating_sub(state.in_flight.available_permits()),
        state
            .body_budget
            .saturating_sub(state.body_memory.available_permits())
    );
    Response::builder()
        .header(header::CONTENT_TYPE, "text/plain; version=0.0.4")
        .body(Body::from(text))
        .map_err(ApiError::internal)
}

/// Liveness: the process serves HTTP. Says nothing about the index (see
/// [`readyz`]): a prober that restarts on failure must not restart every
/// server because their shared Redis is down.
async fn healthz() -> Json<HealthBody> {
    Json(HealthBody {
        status: "ok".into(),
    })
}

/// Longest a readiness probe waits for the index backend.
const READY_TIMEOUT: Duration = Duration::from_secs(2);

/// Readiness: 200 `{"status":"ready"}` if the index backend answers (for
/// Redis one round trip), else 503 `not_ready` with the cause. Load
/// balancers send traffic only to ready servers.
async fn readyz(State(state): State<Shared>) -> Result<Json<HealthBody>, ApiError> {
    let deduper = state.deduper.clone();
    let probe = on_workers(&state, move || deduper.with(|d| d.ping()).and_then(|r| r));
    let not_ready = |why: String| {
        tracing::warn!(cause = %why, "not ready");
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "not_ready", why)
    };
    match tokio::time::timeout(READY_TIMEOUT, probe).await {
        Ok(Ok(())) => Ok(Json(HealthBody {
            status: "ready".into(),
        })),
        Ok(Err(e)) => Err(not_ready(format!("index backend: {}", e.message))),
        Err(_) => Err(not_ready(format!(
            "index backend did not answer within {} ms",
            READY_TIMEOUT.as_millis()
        ))),
    }
}

async fn not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such endpoint")
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "method not allowed on this endpoint",
    )
}
