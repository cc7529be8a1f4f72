//! The accept loop: one task per connection, each with its own deadlines.
//!
//! `axum::serve` accepts and serves connections but offers no header-read
//! or idle timeout, no cap on connections per client address, and no way
//! to answer a client that half-closed its side, so a few hundred idle or
//! half-sent connections (slowloris) held the server's sockets for as long
//! as their clients liked. This loop drives hyper's HTTP/1 connections
//! itself:
//!
//! - **Idle timeout**: a connection that has no request in progress and has
//!   sent no byte for [`ConnLimits::idle_timeout`] since it was accepted or
//!   since its last answer is closed (keep-alive connections included).
//! - **Header timeout**: once the first byte of a request has arrived, the
//!   whole head (request line and headers) must arrive within
//!   [`ConnLimits::header_timeout`]; a client trickling bytes is cut off.
//!   The body has its own deadline, in the request layer (408).
//! - **Per-address cap**: at most [`ConnLimits::max_per_address`] open
//!   connections per client IP; one more is answered 503 and closed, so one
//!   host cannot take every socket.
//! - **Half-close**: a client that sends its request and then shuts down
//!   its writing side (`shutdown(SHUT_WR)`) still gets its answer.
//! - **JSON for requests hyper rejects**: a request hyper cannot parse
//!   (400), whose URI is too long (414) or whose head overflows its buffer
//!   (431) never reaches the application; hyper answers it with an empty
//!   body and closes. The socket wrapper recognizes that canned answer
//!   ([`canned_rejection`]) and writes the documented `{"error": ...}` body
//!   in its place, so every answer of the API has one.
//! - **HTTP/2 prior knowledge**: the server speaks HTTP/1.1 only. A client
//!   that opens with the HTTP/2 connection preface (`PRI * HTTP/2.0`),
//!   which hyper's HTTP/1 parser drops without a byte, is answered 505
//!   `http_version_not_supported` with the JSON body and closed. The
//!   connection's first bytes are read here before hyper takes the
//!   connection ([`first_bytes`]), under the same idle and header
//!   deadlines, and handed to hyper as if unread.
//!
//! Both deadlines are kept by a watchdog per connection that reads the
//! connection's [`Activity`]: the socket wrapper ([`Watched`]) notes when a
//! request's first byte arrives, the service notes when a request starts
//! and when its answer is ready. Nothing is closed while a request is in
//! progress: the request layer bounds that time.
//!
//! **Shutdown**: when `shutdown` completes the listener is dropped (no new
//! connections), each connection is told to finish the request in progress
//! and close (hyper's graceful shutdown), connections that never sent a
//! request are closed at once, and the loop returns when every connection
//! task has ended.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};
use tower::ServiceExt as _;

/// Connection-level limits (see the module documentation).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ConnLimits {
    /// Longest wait for a request head once its first byte arrived.
    pub header_timeout: Duration,
    /// Longest silence on a connection with no request in progress.
    pub idle_timeout: Duration,
    /// Open connections allowed per client IP address.
    pub max_per_address: usize,
}

/// "No request head started": the value of [`Activity::head_started`]
/// between requests.
const NONE: u64 = u64::MAX;

/// What a connection is doing, shared by its socket wrapper, its service
/// and its watchdog. Times are milliseconds since the connection opened.
struct Activity {
    opened: Instant,
    /// Requests whose answer is not ready yet.
    in_flight: AtomicUsize,
    /// Requests seen on this connection so far.
    requests: AtomicU64,
    /// When the connection last became idle (accepted, or its last answer
    /// was ready).
    idle_since: AtomicU64,
    /// When the first byte of the next request arrived, or [`NONE`].
    head_started: AtomicU64,
}

impl Activity {
    fn new() -> Activity {
        Activity {
            opened: Instant::now(),
            in_flight: AtomicUsize::new(0),
            requests: AtomicU64::new(0),
            idle_since: AtomicU64::new(0),
            head_started: AtomicU64::new(NONE),
        }
    }

    fn now(&self) -> u64 {
        u64::try_from(self.opened.elapsed().as_millis()).unwrap_or(NONE - 1)
    }

    /// Bytes arrived: if no request is in progress, they start a head.
    fn bytes_read(&self) {
        if self.in_flight.load(Ordering::SeqCst) == 0 {
            let now = self.now();
            let _ =
                self.head_started
                    .compare_exchange(NONE, now, Ordering::SeqCst, Ordering::SeqCst);
        }
    }

    /// A request head was parsed: the request layer's deadlines apply now.
    fn request_started(self: &Arc<Self>) -> InFlight {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        self.requests.fetch_add(1, Ordering::SeqCst);
        self.head_started.store(NONE, Ordering::SeqCst);
        InFlight(Arc::clone(self))
    }

    /// When the watchdog should act next, and on what: `None` while a
    /// request is in progress.
    fn deadline(&self, limits: &ConnLimits) -> Option<(u64, &'static str)> {
        if self.in_flight.load(Ordering::SeqCst) > 0 {
            return None;
        }
        let millis = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(NONE / 2);
        match self.head_started.load(Ordering::SeqCst) {
            NONE => Some((
                self.idle_since
                    .load(Ordering::SeqCst)
                    .saturating_add(millis(limits.idle_timeout)),
                "idle timeout",
            )),
            started => Some((
                started.saturating_add(millis(limits.header_timeout)),
                "header timeout",
            )),
        }
    }
}

/// Marks a request in progress until dropped (when its answer is ready).
struct InFlight(Arc<Activity>);

impl Drop for InFlight {
    fn drop(&mut self) {
        let a = &self.0;
        if a.in_flight.fetch_sub(1, Ordering::SeqCst) == 1 {
            a.idle_since.store(a.now(), Ordering::SeqCst);
            a.head_started.store(NONE, Ordering::SeqCst);
        }
    }
}

/// The socket, noting each read in the connection's [`Activity`], and
/// giving hyper's bodiless rejections a JSON body.
struct Watched {
    stream: TcpStream,
    activity: Arc<Activity>,
    /// Bytes read before hyper took the connection ([`first_bytes`]),
    /// given to hyper first (from `replayed` on).
    replay: Vec<u8>,
    replayed: usize,
    /// A rewritten rejection not yet written (from `sent` on).
    pending: Vec<u8>,
    sent: usize,
}

/// If `head` is hyper's own answer to a request it could not take (status
/// 400, 414 or 431, `connection: close`, `content-length: 0`, nothing
/// after the head), the same answer with the API's JSON error body.
/// The application never writes such a head: its errors carry a body.
fn canned_rejection(head: &[u8]) -> Option<Vec<u8>> {
    // Every answer passes here: look at the status before anything else.
    if !matches!(
        head.get(..12),
        Some(b"HTTP/1.1 400" | b"HTTP/1.1 414" | b"HTTP/1.1 431")
    ) {
        return None;
    }
    let text = std::str::from_utf8(head).ok()?;
    let status_line = text.strip_prefix("HTTP/1.1 ")?;
    let (code, message) = match status_line.get(..3)? {
        "400" => (
            "bad_request",
            "the request is not valid HTTP/1.1 (request line or a header)",
        ),
        "414" => ("uri_too_long", "the request URI is too long"),
        "431" => ("header_too_large", "the request headers are too large"),
        _ => return None,
    };
    let end = text.find("\r\n\r\n")?;
    if end + 4 != text.len() {
        return None;
    }
    let lines: Vec<&str> = text[..end].split("\r\n").collect();
    let has = |want: &str| lines.iter().any(|l| l.eq_ignore_ascii_case(want));
    if !has("connection: close") || !has("content-length: 0") {
        return None;
    }
    let body = serde_json::json!({ "error": { "code": code, "message": message } }).to_string();
    let mut out = String::with_capacity(text.len() + body.len() + 64);
    for line in &lines {
        if line.eq_ignore_ascii_case("content-length: 0") {
            out.push_str("content-type: application/json\r\ncontent-length: ");
            out.push_str(&body.len().to_string());
        } else {
            out.push_str(line);
        }
        out.push_str("\r\n");
    }
    out.push_str("\r\n");
    out.push_str(&body);
    Some(out.into_bytes())
}

impl Watched {
    fn new(stream: TcpStream, activity: Arc<Activity>, replay: Vec<u8>) -> Watched {
        Watched {
            stream,
            activity,
            replay,
            replayed: 0,
            pending: Vec::new(),
            sent: 0,
        }
    }

    /// Writes what is pending; ready once nothing is.
    fn drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.sent < self.pending.len() {
            let n = std::task::ready!(
                Pin::new(&mut self.stream).poll_write(cx, &self.pending[self.sent..])
            )?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.sent += n;
        }
        self.pending.clear();
        self.sent = 0;
        Poll::Ready(Ok(()))
    }
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.replayed < self.replay.len() {
            // Already noted in the activity when first read.
            let n = buf.remaining().min(self.replay.len() - self.replayed);
            let start = self.replayed;
            buf.put_slice(&self.replay[start..start + n]);
            self.replayed += n;
            if self.replayed == self.replay.len() {
                self.replay = Vec::new();
                self.replayed = 0;
            }
            return Poll::Ready(Ok(()));
        }
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.bytes_read();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        std::task::ready!(self.drain(cx))?;
        if let Some(answer) = canned_rejection(buf) {
            // Taken whole: hyper is told every byte went out, and the
            // rewritten answer goes out by the next write, flush or shutdown.
            self.pending = answer;
            let _ = self.drain(cx)?;
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        std::task::ready!(self.drain(cx))?;
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        std::task::ready!(self.drain(cx))?;
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        // A canned rejection is a head alone, written as one slice.
        if let [only] = bufs {
            return self.poll_write(cx, only);
        }
        std::task::ready!(self.drain(cx))?;
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

/// Open connections per client address. A [`PeerSlot`] holds one and gives
/// it back when dropped.
#[derive(Clone, Default)]
struct PerAddress(Arc<Mutex<HashMap<IpAddr, usize>>>);

struct PeerSlot {
    table: PerAddress,
    ip: IpAddr,
}

impl PerAddress {
    /// Takes a slot for `ip`, or `None` if it has `max` connections open.
    fn take(&self, ip: IpAddr, max: usize) -> Option<PeerSlot> {
        // A poisoned lock means a panic mid-update of a counter: still usable.
        let mut table = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let open = table.entry(ip).or_insert(0);
        if *open >= max {
            return None;
        }
        *open += 1;
        Some(PeerSlot {
            table: self.clone(),
            ip,
        })
    }
}

impl Drop for PeerSlot {
    fn drop(&mut self) {
        let mut table = self.table.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(open) = table.get_mut(&self.ip) {
            *open -= 1;
            if *open == 0 {
                table.remove(&self.ip);
            }
        }
    }
}

/// Serves `app` on `listener` until `shutdown` completes, then drains (see
/// the module documentation). Accept errors (out of file descriptors, a
/// connection reset before it was accepted) are logged and retried: they
/// pass when connections close.
pub(crate) async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ConnLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let (stop_tx, stop_rx) = watch::channel(false);
    // Every connection task holds a clone of `done_tx`; `recv` returns
    // `None` once the last one has ended.
    let (done_tx, mut done_rx) = mpsc::channel::<()>(1);
    let per_address = PerAddress::default();
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    tracing::warn!(error = %e, "accept failed; retrying in 100 ms");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        let Some(slot) = per_address.take(peer.ip(), limits.max_per_address.max(1)) else {
            tracing::warn!(
                peer = %peer,
                max = limits.max_per_address,
                "connection refused: too many open connections from this address"
            );
            tokio::spawn(refuse(stream, limits.max_per_address));
            continue;
        };
        let task = Connection {
            app: app.clone(),
            limits,
            stop: stop_rx.clone(),
            _done: done_tx.clone(),
            _slot: slot,
        };
        tokio::spawn(task.run(stream, peer));
    }
    drop(listener);
    // Nobody may be listening any more: then no connection is left either.
    let _ = stop_tx.send(true);
    drop(done_tx);
    let _ = done_rx.recv().await;
}

/// Answers a connection over the per-address cap with 503 and closes it.
async fn refuse(stream: TcpStream, max: usize) {
    let message =
        format!("more than {max} open connections from this address; close some or retry later");
    answer_and_close(
        stream,
        "503 Service Unavailable",
        "retry-after: 1\r\n",
        "too_many_connections",
        &message,
    )
    .await;
}

/// The request line of the HTTP/2 connection preface (RFC 9113 3.4), the
/// first bytes of a client that assumes HTTP/2 ("prior knowledge").
const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n";

/// Reads the connection's first bytes: until they are the HTTP/2
/// preface's request line, or cannot be (the first differing byte; an
/// HTTP/1 request is told at its first byte, or its second for `POST`), or
/// the client closes. Returns them, to be handed to hyper unread.
async fn first_bytes(stream: &mut TcpStream, activity: &Activity) -> io::Result<Vec<u8>> {
    let mut seen = Vec::new();
    let mut chunk = [0u8; 2048];
    loop {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(seen);
        }
        activity.bytes_read();
        seen.extend_from_slice(&chunk[..n]);
        let common = seen.len().min(H2_PREFACE.len());
        if common == H2_PREFACE.len() || seen[..common] != H2_PREFACE[..common] {
            return Ok(seen);
        }
    }
}

/// Writes a JSON error answer on a connection hyper does not serve, then
/// closes it; what the client still sends meanwhile (the rest of an HTTP/2
/// preface) is read and dropped for up to a second, so that the close is
/// not a reset that could discard the answer before the client reads it.
async fn answer_and_close(
    mut stream: TcpStream,
    status: &str,
    headers: &str,
    code: &str,
    message: &str,
) {
    let body = serde_json::json!({ "error": { "code": code, "message": message } }).to_string();
    let answer = format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
         {headers}connection: close\r\n\r\n{body}",
        body.len()
    );
    // A client that does not read gets its socket closed after a second.
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        stream.write_all(answer.as_bytes()).await?;
        stream.shutdown().await?;
        let mut sink = [0u8; 4096];
        let mut left = 64usize << 10;
        while left > 0 {
            let n = stream.read(&mut sink).await?;
            if n == 0 {
                break;
            }
            left = left.saturating_sub(n);
        }
        io::Result::Ok(())
    })
    .await;
}

/// One accepted connection and what it needs.
struct Connection {
    app: Router,
    limits: ConnLimits,
    stop: watch::Receiver<bool>,
    /// Dropped when the task ends (see [`serve`]).
    _done: mpsc::Sender<()>,
    /// This connection's place in the per-address count.
    _slot: PeerSlot,
}

impl Connection {
    async fn run(mut self, mut stream: TcpStream, peer: SocketAddr) {
        // Answers are small and written at once: do not let Nagle delay them.
        let _ = stream.set_nodelay(true);
        let activity = Arc::new(Activity::new());
        let limits = self.limits;
        let first = tokio::select! {
            first = first_bytes(&mut stream, &activity) => first,
            reason = watchdog(&activity, &limits) => {
                tracing::debug!(peer = %peer, reason, "closing connection");
                return;
            }
            // Shutting down: nothing was asked yet, nothing to finish.
            _ = self.stop.wait_for(|stop| *stop) => return,
        };
        let Ok(first) = first else {
            return;
        };
        if first.starts_with(H2_PREFACE) {
            tracing::debug!(peer = %peer, "HTTP/2 preface refused");
            answer_and_close(
                stream,
                "505 HTTP Version Not Supported",
                "",
                "http_version_not_supported",
                "this server speaks HTTP/1.1 only: HTTP/2 (the PRI * HTTP/2.0 preface, prior \
                 knowledge) is not supported",
            )
            .await;
            return;
        }
        let io = TokioIo::new(Watched::new(stream, Arc::clone(&activity), first));
        let app = self.app.clone();
        let service_activity = Arc::clone(&activity);
        let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
            let in_flight = service_activity.request_started();
            req.extensions_mut().insert(ConnectInfo(peer));
            let answer = app.clone().oneshot(req.map(Body::new));
            async move {
                let resp = answer.await;
                drop(in_flight);
                resp
            }
        });
        let mut builder = hyper::server::conn::http1::Builder::new();
        // Deadlines are the watchdog's (hyper's own header timer would also
        // run while a keep-alive connection is idle); half-closed clients
        // are answered.
        builder.header_read_timeout(None).half_close(true);
        let conn = builder.serve_connection(io, service);
        tokio::pin!(conn);
        tokio::select! {
            served = conn.as_mut() => {
                log_end(peer, served);
                return;
            }
            reason = watchdog(&activity, &limits) => {
                tracing::debug!(peer = %peer, reason, "closing connection");
                return;
            }
            _ = self.stop.wait_for(|stop| *stop) => {}
        }
        // Shutting down: finish the request in progress, then close. A
        // connection that never sent anything has nothing to finish.
        conn.as_mut().graceful_shutdown();
        if activity.requests.load(Ordering::SeqCst) == 0
            && activity.head_started.load(Ordering::SeqCst) == NONE
        {
            return;
        }
        tokio::select! {
            served = conn.as_mut() => log_end(peer, served),
            reason = watchdog(&activity, &limits) => {
                tracing::debug!(peer = %peer, reason, "closing connection at shutdown");
            }
        }
    }
}

/// Logs how a connection ended, if not cleanly.
fn log_end(peer: SocketAddr, served: Result<(), hyper::Error>) {
    if let Err(e) = served {
        // Clients that vanish or send garbage are routine: debug level.
        tracing::debug!(peer = %peer, error = %e, "connection ended with an error");
    }
}

/// Completes when the connection has been idle, or has been sending one
/// request head, for too long; returns which.
async fn watchdog(activity: &Activity, limits: &ConnLimits) -> &'static str {
    loop {
        let now = activity.now();
        let wait = match activity.deadline(limits) {
            Some((at, reason)) if at <= now => return reason,
            Some((at, _)) => at - now,
            // A request is in progress: look again later.
            None => 250,
        };
        tokio::time::sleep(Duration::from_millis(wait.clamp(10, 1000))).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_hypers_bodiless_rejections_are_rewritten() {
        let canned = "HTTP/1.1 431 Request Header Fields Too Large\r\nconnection: close\r\n\
                      content-length: 0\r\ndate: Thu, 26 Nov 2026 14:57:01 GMT\r\n\r\n";
        let out = String::from_utf8(canned_rejection(canned.as_bytes()).unwrap()).unwrap();
        let (head, body) = out.split_once("\r\n\r\n").unwrap();
        let json: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(json["error"]["code"], "header_too_large");
        assert!(head.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"));
        assert!(head.contains("connection: close"));
        assert!(head.contains("date: Thu, 26 Nov 2026 14:57:01 GMT"));
        assert!(head.contains(&format!("content-length: {}", body.len())));
        assert!(head.contains("content-type: application/json"));
        // The application's own answers, and other statuses, pass as they are.
        for other in [
            // an API 400 with its body
            "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\n\
             content-length: 9\r\n\r\n{\"a\":1}xx",
            // a 400 head whose body follows in another write
            "HTTP/1.1 400 Bad Request\r\ncontent-length: 9\r\n\r\n",
            // bodiless but the connection stays open
            "HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n",
            "HTTP/1.1 204 No Content\r\nconnection: close\r\ncontent-length: 0\r\n\r\n",
            // a head cut short
            "HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n",
        ] {
            assert_eq!(canned_rejection(other.as_bytes()), None, "{other:?}");
        }
    }

    #[test]
    fn per_address_slots_are_counted_and_given_back() {
        let table = PerAddress::default();
        let ip: IpAddr = [127, 0, 0, 2].into();
        let a = table.take(ip, 2).unwrap();
        let b = table.take(ip, 2).unwrap();
        assert!(table.take(ip, 2).is_none(), "third over a cap of 2");
        assert!(
            table.take([127, 0, 0, 3].into(), 2).is_some(),
            "per address"
        );
        drop(a);
        let c = table.take(ip, 2);
        assert!(c.is_some(), "a closed connection frees its slot");
        drop((b, c));
        assert!(table.0.lock().unwrap().get(&ip).is_none(), "no entry left");
    }

    #[test]
    fn deadlines_follow_the_connection_state() {
        let limits = ConnLimits {
            header_timeout: Duration::from_millis(100),
            idle_timeout: Duration::from_millis(5000),
            max_per_address: 1,
        };
        let a = Arc::new(Activity::new());
        assert_eq!(a.deadline(&limits), Some((5000, "idle timeout")));
        a.bytes_read();
        let (at, reason) = a.deadline(&limits).unwrap();
        assert_eq!(reason, "header timeout");
        assert!(at < 5000, "{at}");
        let req = a.request_started();
        assert_eq!(a.deadline(&limits), None, "no deadline while answering");
        // Body bytes of the request in progress start no head.
        a.bytes_read();
        drop(req);
        assert_eq!(a.deadline(&limits).unwrap().1, "idle timeout");
    }
}
