//! What every request goes through before its handler: the access log
//! and metrics (`track`), the token (`auth`), the in-flight limit
//! (`limit`), and the body read within its limits (`read_body`,
//! `parse_json`).

use std::time::Instant;

use axum::body::{Body, Bytes};
use axum::extract::rejection::BytesRejection;
use axum::extract::{ConnectInfo, MatchedPath, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt as _;
use serde::de::DeserializeOwned;
use tokio::sync::OwnedSemaphorePermit;

use crate::app_state::{AppState, Shared};
use crate::error::{ApiError, ErrorCode};

/// Outermost layer: counts every answer by route and status, with latency,
/// and writes the access log line.
pub(crate) async fn track(State(state): State<Shared>, req: Request, next: Next) -> Response {
    let endpoint = req
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", MatchedPath::as_str)
        .to_owned();
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    let peer = req
        .extensions()
        .get::<ConnectInfo<std::net::SocketAddr>>()
        .map(|c| c.0);
    let declared = content_length(req.headers());
    let start = Instant::now();
    let resp = next.run(req).await;
    let elapsed = start.elapsed();
    let status = resp.status().as_u16();
    state.metrics.record(&endpoint, status, elapsed);
    let bytes_out = axum::body::HttpBody::size_hint(resp.body()).exact();
    // Received if the body was read; else what the client declared (a body
    // refused unread, or an endpoint that reads none).
    let bytes_in = resp
        .extensions()
        .get::<BodyBytes>()
        .map(|b| b.0)
        .or(declared)
        .unwrap_or(0);
    tracing::info!(
        target: "neardup_serve::access",
        method = %method,
        path = %path,
        status,
        latency_ms = format_args!("{:.3}", elapsed.as_secs_f64() * 1000.0),
        bytes_in,
        bytes_out,
        peer = peer.map(tracing::field::display),
        error = resp.extensions().get::<ErrorCode>().map(|c| c.0),
    );
    resp
}

/// The declared `Content-Length` of a request, if valid.
pub(crate) fn content_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Bearer-token check; the token is compared in constant time so its
/// content cannot be guessed from response timing.
pub(crate) async fn auth(State(state): State<Shared>, req: Request, next: Next) -> Response {
    if let Some(token) = &state.options.token {
        let given = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or("");
        let ok: bool = subtle::ConstantTimeEq::ct_eq(given.as_bytes(), token.as_bytes()).into();
        if !ok {
            return ApiError::new(
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                "missing or wrong bearer token (Authorization: Bearer <token>)",
            )
            .into_response();
        }
    }
    next.run(req).await
}

/// Body, memory, concurrency and time limits for `/v1/*`, in that order:
/// the body is read first (its own deadline and size limit, its bytes
/// counted against [`ServeOptions::max_body_memory`]), and only a request
/// whose body has arrived takes a concurrency slot. So a stalled upload
/// never holds a slot, and the slots bound the CPU work, not the wait for
/// slow clients.
pub(crate) async fn limit(State(state): State<Shared>, req: Request, next: Next) -> Response {
    let (parts, body) = req.into_parts();
    // Held until the answer is ready: the body's bytes stay in memory (as
    // bytes, then parsed) until then.
    let (body, _memory) = match read_body(&state, &parts.headers, body).await {
        Ok(read) => read,
        Err(e) => return e.into_response(),
    };
    let received = BodyBytes(body.len() as u64);
    let req = Request::from_parts(parts, Body::from(body));
    let Ok(_permit) = state.in_flight.clone().try_acquire_owned() else {
        let mut resp = ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "overloaded",
            format!(
                "more than {} requests in flight; retry later",
                state.options.max_concurrency
            ),
        )
        .into_response();
        resp.extensions_mut().insert(received);
        return resp;
    };
    let mut resp = match tokio::time::timeout(state.options.timeout, next.run(req)).await {
        Ok(resp) => resp,
        Err(_) => ApiError::new(
            StatusCode::GATEWAY_TIMEOUT,
            "timeout",
            format!(
                "request took longer than {} ms; its page may or may not be indexed",
                state.options.timeout.as_millis()
            ),
        )
        .into_response(),
    };
    resp.extensions_mut().insert(received);
    resp
}

/// The bytes of a request body actually received, in its answer's
/// extensions: for the access log (a chunked body declares no length).
#[derive(Clone, Copy, Debug)]
pub(crate) struct BodyBytes(u64);

/// Reads a request body into memory within the limits: over
/// [`ServeOptions::max_body`] is 413 (at once if the declared length is
/// over: the body is not read, and a client that sent
/// `Expect: 100-continue` is never told to send it), not complete within
/// [`ServeOptions::body_timeout`] is 408, and bytes that do not fit in
/// [`ServeOptions::max_body_memory`] (all bodies being read or answered)
/// are 503. Permits are taken as bytes arrive, so a stalled upload holds
/// only what it sent.
pub(crate) async fn read_body(
    state: &AppState,
    headers: &HeaderMap,
    body: Body,
) -> Result<(Bytes, Option<OwnedSemaphorePermit>), ApiError> {
    let max = state.options.max_body;
    let too_large = || {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            format!("request body exceeds the server's limit of {max} bytes (--max-body)"),
        )
    };
    let declared = content_length(headers);
    if declared.is_some_and(|n| n > max as u64) {
        return Err(too_large());
    }
    let deadline = tokio::time::Instant::now() + state.options.body_timeout;
    let mut stream = body.into_data_stream();
    // Not the declared length: a client may declare much and send nothing.
    let start = declared.map_or(0, |n| usize::try_from(n).unwrap_or(0));
    let mut buf = Vec::with_capacity(start.min(64 << 10));
    let mut held: Option<OwnedSemaphorePermit> = None;
    loop {
        let chunk = match tokio::time::timeout_at(deadline, stream.next()).await {
            Ok(None) => break,
            Ok(Some(Ok(chunk))) => chunk,
            Ok(Some(Err(e))) => {
                return Err(ApiError::bad_request(
                    "bad_body",
                    format!("reading the request body: {e}"),
                ))
            }
            Err(_) => {
                return Err(ApiError::new(
                    StatusCode::REQUEST_TIMEOUT,
                    "body_timeout",
                    format!(
                        "request body not received within {} ms (--body-timeout-ms): got {} \
                         of {} bytes",
                        state.options.body_timeout.as_millis(),
                        buf.len(),
                        declared.map_or_else(|| "?".to_owned(), |n| n.to_string())
                    ),
                ))
            }
        };
        if buf.len() + chunk.len() > max {
            return Err(too_large());
        }
        let permit = u32::try_from(chunk.len())
            .ok()
            .and_then(|n| state.body_memory.clone().try_acquire_many_owned(n).ok())
            .ok_or_else(|| {
                ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "overloaded",
                    format!(
                        "request bodies in memory exceed {} bytes (--max-body-memory); retry later",
                        state.options.max_body_memory
                    ),
                )
            })?;
        match &mut held {
            Some(h) => h.merge(permit),
            None => held = Some(permit),
        }
        buf.extend_from_slice(&chunk);
    }
    Ok((Bytes::from(buf), held))
}

/// The body's bytes, or the error that kept them from arriving.
pub(crate) fn read_bytes(body: Result<Bytes, BytesRejection>) -> Result<Bytes, ApiError> {
    body.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "payload_too_large",
                "request body exceeds the server's limit (--max-body)",
            )
        } else {
            ApiError::bad_request("bad_body", rejection.body_text())
        }
    })
}

/// Checks the content type and parses the body as JSON `T`.
pub(crate) fn parse_json<T: DeserializeOwned>(
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<T, ApiError> {
    let ct = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let essence = ct.split(';').next().unwrap_or("").trim();
    if !essence.eq_ignore_ascii_case("application/json") {
        return Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            format!("Content-Type must be application/json, got {ct:?}"),
        ));
    }
    let body = read_bytes(body)?;
    serde_json::from_slice(&body).map_err(|e| match e.classify() {
        serde_json::error::Category::Data => ApiError::bad_request("invalid_field", e.to_string()),
        _ => ApiError::bad_request("malformed_json", e.to_string()),
    })
}
