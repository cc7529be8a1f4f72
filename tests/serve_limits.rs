//! `neardup serve` under hostile and faulty clients, on a real listener:
//! slowloris (idle, half-header and stalled-upload connections), the
//! per-address connection cap, half-closed clients, client faults (413 and
//! 408), the body memory budget, document-id errors, canonical links,
//! readiness, logs and a failed start. Short configured timeouts (1-3 s)
//! keep the tests quick; every timing assertion has a wide margin.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use neardup::Config;
use neardup::Deduper;
use neardup::SharedDeduper;
use neardup_serve::ServeOptions;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use crate::serve::{spawn_serve, stop_binary, Server};

/// A page of ~120 words that no other seed's page resembles.
fn article(seed: u64) -> String {
    format!(
        "<html><head><title>page {seed}</title></head><body><article><p>{}</p></article></body></html>",
        crate::util::pseudo_words(seed, 120, 100_000)
    )
}

/// A connection from `from` (another loopback address than the honest
/// clients' 127.0.0.1, so the per-address cap applies to it alone).
async fn connect_from(from: [u8; 4], addr: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::from((from, 0))).unwrap();
    socket.connect(addr).await.unwrap()
}

/// Reads until the server closes the connection or `limit` passes; returns
/// what was read and when the read ended.
async fn read_to_close(conn: &mut TcpStream, limit: Duration) -> (String, Option<Instant>) {
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        match tokio::time::timeout_at(deadline, conn.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => {
                return (
                    String::from_utf8_lossy(&out).into_owned(),
                    Some(Instant::now()),
                )
            }
            Ok(Ok(n)) => out.extend_from_slice(&buf[..n]),
            Err(_) => return (String::from_utf8_lossy(&out).into_owned(), None),
        }
    }
}

/// The head of a check request declaring `length` body bytes.
fn check_head(addr: SocketAddr, length: usize, extra: &str) -> String {
    format!(
        "POST /v1/check HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n\
         content-length: {length}\r\n{extra}\r\n"
    )
}

/// The JSON body of a raw answer, parsed.
fn answer_body(answer: &str) -> Value {
    let (_, body) = answer
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no body in {answer:?}"));
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {answer:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slowloris_connections_are_closed_and_never_shut_out_new_clients() {
    const IDLE: usize = 200;
    const HALF_HEADER: usize = 200;
    const STALLED: usize = 300;
    const HUGE: usize = 50;
    let s = Server::start(ServeOptions {
        idle_timeout: Duration::from_millis(2500),
        header_timeout: Duration::from_millis(2000),
        body_timeout: Duration::from_millis(3000),
        // Far fewer slots than stalled uploads: they must not hold any.
        max_concurrency: 16,
        max_body: 64 << 10,
        max_connections_per_address: 2000,
        ..ServeOptions::default()
    })
    .await;
    let attacker = [127, 0, 0, 2];
    let opened = Instant::now();
    let mut idle = Vec::new();
    for _ in 0..IDLE {
        idle.push(connect_from(attacker, s.addr).await);
    }
    let mut half = Vec::new();
    for _ in 0..HALF_HEADER {
        let mut c = connect_from(attacker, s.addr).await;
        c.write_all(b"POST /v1/check HTTP/1.1\r\nhost: x\r\ncontent-ty")
            .await
            .unwrap();
        half.push(c);
    }
    let mut stalled = Vec::new();
    for _ in 0..STALLED {
        let mut c = connect_from(attacker, s.addr).await;
        c.write_all(check_head(s.addr, 4000, "").as_bytes())
            .await
            .unwrap();
        c.write_all(b"{\"url\":\"https://a.example/\",\"html\":\"")
            .await
            .unwrap();
        stalled.push(c);
    }
    // Declared far over --max-body, waiting for "100 Continue".
    let mut huge = Vec::new();
    for _ in 0..HUGE {
        let mut c = connect_from(attacker, s.addr).await;
        c.write_all(check_head(s.addr, 200 << 20, "expect: 100-continue\r\n").as_bytes())
            .await
            .unwrap();
        huge.push(c);
    }
    // Every attacking connection is open: honest clients are answered at
    // once, checks included (no slot is held by an upload).
    for i in 0..20 {
        let (status, body) = s
            .check(&format!("https://honest.example/{i}"), &article(i))
            .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["kind"], "unique");
    }
    // A precondition, not a speed target: the honest checks must have run
    // before the first attacking connection could time out.
    assert!(
        opened.elapsed() < Duration::from_millis(2000),
        "the machine was too slow to open the attack within the 2 s header \
         timeout (took {:?}): the test proves nothing then",
        opened.elapsed()
    );

    // Uploads declared over the limit: 413 without being read.
    for mut c in huge {
        let (answer, closed) = read_to_close(&mut c, Duration::from_secs(10)).await;
        assert!(answer.starts_with("HTTP/1.1 413"), "{answer:?}");
        assert!(!answer.contains("100 Continue"), "{answer:?}");
        assert_eq!(answer_body(&answer)["error"]["code"], "payload_too_large");
        assert!(closed.is_some(), "closed after the 413");
    }
    // Idle and half-header connections are closed after their timeouts,
    // with nothing written.
    for (conns, timeout) in [(idle, 2500), (half, 2000)] {
        for mut c in conns {
            let (answer, closed) = read_to_close(&mut c, Duration::from_secs(20)).await;
            let closed = closed.expect("closed by the server");
            assert_eq!(answer, "");
            assert!(
                closed - opened >= Duration::from_millis(timeout * 9 / 10),
                "not before the timeout"
            );
        }
    }
    // Stalled uploads: 408 after the body timeout.
    for mut c in stalled {
        let (answer, _) = read_to_close(&mut c, Duration::from_secs(20)).await;
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer:?}");
        assert_eq!(answer_body(&answer)["error"]["code"], "body_timeout");
    }
    // Nothing from the attackers was checked.
    let (_, stats) = s.send(s.http.get(s.url("/v1/stats"))).await;
    assert_eq!(stats["checked"], 20, "{stats}");
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_over_the_per_address_cap_get_503_others_are_served() {
    let s = Server::start(ServeOptions {
        max_connections_per_address: 5,
        ..ServeOptions::default()
    })
    .await;
    let attacker = [127, 0, 0, 3];
    let mut held = Vec::new();
    for _ in 0..5 {
        held.push(connect_from(attacker, s.addr).await);
    }
    let mut sixth = connect_from(attacker, s.addr).await;
    let (answer, closed) = read_to_close(&mut sixth, Duration::from_secs(10)).await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer:?}");
    assert!(answer.contains("retry-after: 1"), "{answer:?}");
    assert_eq!(
        answer_body(&answer)["error"]["code"],
        "too_many_connections"
    );
    assert!(closed.is_some());
    // Another address is not affected.
    let (status, _) = s.send(s.http.get(s.url("/healthz"))).await;
    assert_eq!(status, 200);
    // A closed connection gives its slot back.
    drop(held.pop());
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut again = connect_from(attacker, s.addr).await;
    again
        .write_all(b"GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
        .await
        .unwrap();
    let (answer, _) = read_to_close(&mut again, Duration::from_secs(10)).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer:?}");
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_closed_clients_get_their_answer() {
    let s = Server::start(ServeOptions::default()).await;
    let mut conns = Vec::new();
    for i in 0..40u64 {
        let body = serde_json::to_vec(&json!({
            "url": format!("https://half.example/{i}"),
            "html": article(100 + i),
        }))
        .unwrap();
        let mut c = TcpStream::connect(s.addr).await.unwrap();
        c.write_all(check_head(s.addr, body.len(), "").as_bytes())
            .await
            .unwrap();
        c.write_all(&body).await.unwrap();
        // shutdown(SHUT_WR): the request is complete, nothing more comes.
        c.shutdown().await.unwrap();
        conns.push(c);
    }
    for mut c in conns {
        let (answer, _) = read_to_close(&mut c, Duration::from_secs(20)).await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer:?}");
        assert_eq!(answer_body(&answer)["kind"], "unique");
    }
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_faults_are_413_at_once_and_408_after_the_body_timeout() {
    let s = Server::start(ServeOptions {
        max_body: 4096,
        body_timeout: Duration::from_millis(1000),
        // Long, so that a 504 would show only after the test's limits.
        timeout: Duration::from_secs(60),
        ..ServeOptions::default()
    })
    .await;
    // Declared over the limit, body never sent: 413 without waiting.
    let mut c = TcpStream::connect(s.addr).await.unwrap();
    c.write_all(check_head(s.addr, 5000, "").as_bytes())
        .await
        .unwrap();
    let (answer, closed) = read_to_close(&mut c, Duration::from_secs(10)).await;
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer:?}");
    assert!(closed.is_some());
    // Expect: 100-continue with 200 MB: 413, and no 100 Continue.
    let mut c = TcpStream::connect(s.addr).await.unwrap();
    c.write_all(check_head(s.addr, 200 << 20, "expect: 100-continue\r\n").as_bytes())
        .await
        .unwrap();
    let (answer, _) = read_to_close(&mut c, Duration::from_secs(10)).await;
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer:?}");
    assert_eq!(answer_body(&answer)["error"]["code"], "payload_too_large");
    // Chunked, no declared length, growing past the limit: 413.
    let mut c = TcpStream::connect(s.addr).await.unwrap();
    let chunk = "x".repeat(3000);
    c.write_all(
        format!(
            "POST /v1/check HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
             transfer-encoding: chunked\r\n\r\nbb8\r\n{chunk}\r\nbb8\r\n{chunk}\r\n"
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    let (answer, _) = read_to_close(&mut c, Duration::from_secs(10)).await;
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer:?}");
    // A body shorter than declared, the connection left open: 408 after
    // the body timeout, not 504 after the request timeout.
    let mut c = TcpStream::connect(s.addr).await.unwrap();
    let sent = Instant::now();
    c.write_all(check_head(s.addr, 100, "").as_bytes())
        .await
        .unwrap();
    c.write_all(b"{\"url\":").await.unwrap();
    let (answer, closed) = read_to_close(&mut c, Duration::from_secs(30)).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer:?}");
    let body = answer_body(&answer);
    assert_eq!(body["error"]["code"], "body_timeout");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("7 of 100 bytes"),
        "{body}"
    );
    assert!(closed.unwrap() - sent >= Duration::from_millis(900));
    let (_, stats) = s.send(s.http.get(s.url("/v1/stats"))).await;
    assert_eq!(stats["checked"], 0);
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bodies_over_the_memory_budget_are_shed_with_503() {
    let s = Server::start(ServeOptions {
        max_body: 64 << 10,
        max_body_memory: 64 << 10,
        ..ServeOptions::default()
    })
    .await;
    // One upload holds 60 KiB of the 64 KiB budget...
    let body = serde_json::to_vec(&json!({
        "url": "https://big.example/",
        "html": format!("{}{}", article(7), " ".repeat(62 << 10)),
    }))
    .unwrap();
    assert!(body.len() < 64 << 10);
    let mut held = TcpStream::connect(s.addr).await.unwrap();
    held.write_all(check_head(s.addr, body.len(), "").as_bytes())
        .await
        .unwrap();
    held.write_all(&body[..60 << 10]).await.unwrap();
    // The gauge shows the held bytes once they have all been read.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let text = s
            .http
            .get(s.url("/metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        if text.contains("\nneardup_request_body_bytes 61440\n") {
            break;
        }
        assert!(Instant::now() < deadline, "{text}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // ...so a 10 KiB check does not fit: 503 with Retry-After.
    let resp = s
        .http
        .post(s.url("/v1/check"))
        .json(&json!({"url": "https://b.example/", "html": format!("{}{}", article(8), " ".repeat(10 << 10))}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 503);
    assert_eq!(resp.headers()["retry-after"], "1");
    let err: Value = resp.json().await.unwrap();
    assert_eq!(err["error"]["code"], "overloaded", "{err}");
    assert!(err["error"]["message"]
        .as_str()
        .unwrap()
        .contains("--max-body-memory"));
    // The held upload completes and is checked; its bytes are given back.
    held.write_all(&body[60 << 10..]).await.unwrap();
    let (answer, _) = {
        let mut out = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            let n = tokio::time::timeout(Duration::from_secs(10), held.read(&mut buf))
                .await
                .unwrap()
                .unwrap();
            out.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&out).into_owned();
            if n == 0 || text.ends_with('}') {
                break (text, ());
            }
        }
    };
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer:?}");
    let (status, body) = s.check("https://b.example/", &article(8)).await;
    assert_eq!(status, 200, "{body}");
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn document_ids_in_the_documented_range_and_errors_that_say_why() {
    let s = Server::start(ServeOptions::default()).await;
    let delete = |id: &str| s.send(s.http.delete(s.url(&format!("/v1/docs/{id}"))));
    // Integers >= 0 are valid ids: past 2^32-1 none exists (404).
    for id in [
        "0",
        "4294967295",
        "4294967296",
        "99999999999999999999999999",
    ] {
        let (status, body) = delete(id).await;
        assert_eq!(status, 404, "{id}: {body}");
        assert_eq!(body["error"]["code"], "not_found");
    }
    for (id, why) in [
        ("-1", "is negative"),
        ("abc", "is not an integer"),
        ("1.5", "is not an integer"),
        ("1e3", "is not an integer"),
        ("%20", "is not an integer"),
    ] {
        let (status, body) = delete(id).await;
        assert_eq!(status, 400, "{id}: {body}");
        assert_eq!(body["error"]["code"], "invalid_id");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains(why), "{id}: {message}");
    }
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn protocol_level_rejections_have_json_error_bodies() {
    let s = Server::start(ServeOptions {
        max_body: 1024,
        ..ServeOptions::default()
    })
    .await;
    let cases = [
        (s.http.post(s.url("/healthz")), 405, "method_not_allowed"),
        (s.http.put(s.url("/v1/check")), 405, "method_not_allowed"),
        (s.http.delete(s.url("/v1/stats")), 405, "method_not_allowed"),
        (s.http.get(s.url("/nothing/here")), 404, "not_found"),
        (
            s.http
                .post(s.url("/v1/check"))
                .header("content-type", "application/json")
                .body("x".repeat(2000)),
            413,
            "payload_too_large",
        ),
    ];
    for (req, status, code) in cases {
        let (got, body) = s.send(req).await;
        assert_eq!((got, body["error"]["code"].as_str()), (status, Some(code)));
    }
    // Requests hyper itself refuses before the application sees them: the
    // answer still carries the documented JSON body, and the connection
    // is closed.
    let long_uri = format!("GET /{} HTTP/1.1\r\nhost: x\r\n\r\n", "a".repeat(70_000));
    let raw: [(&str, &str, &str); 4] = [
        ("GARBAGE\r\n\r\n", "400", "bad_request"),
        (
            "GET /healthz HTTP/1.1\r\nno colon here\r\n\r\n",
            "400",
            "bad_request",
        ),
        (
            "GET /healthz HTTP/9.9\r\nhost: x\r\n\r\n",
            "400",
            "bad_request",
        ),
        (&long_uri, "414", "uri_too_long"),
    ];
    for (request, status, code) in raw {
        let mut conn = TcpStream::connect(s.addr).await.unwrap();
        conn.write_all(request.as_bytes()).await.unwrap();
        let (answer, closed) = read_to_close(&mut conn, Duration::from_secs(10)).await;
        assert!(closed.is_some(), "connection left open: {answer:?}");
        assert!(
            answer.starts_with(&format!("HTTP/1.1 {status} ")),
            "{answer:?}"
        );
        assert!(
            answer
                .to_ascii_lowercase()
                .contains("content-type: application/json"),
            "{answer:?}"
        );
        assert_eq!(answer_body(&answer)["error"]["code"], code, "{answer:?}");
    }
    s.stop().await.unwrap();
}

/// An HTTP/2 prior-knowledge client (the connection preface, as `curl
/// --http2-prior-knowledge` sends it) gets a JSON 505 and a closed
/// connection, sent at once or in pieces; HTTP/1.1 requests whose first
/// bytes arrive one by one (`P`, then `OST ...`) are still served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http2_preface_is_answered_505_with_a_json_body() {
    let s = Server::start(ServeOptions::default()).await;
    // The client preface and an empty SETTINGS frame.
    let mut preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    preface.extend_from_slice(&[0, 0, 0, 4, 0, 0, 0, 0, 0]);
    for split in [preface.len(), 3, 15] {
        let mut conn = TcpStream::connect(s.addr).await.unwrap();
        conn.write_all(&preface[..split]).await.unwrap();
        if split < preface.len() {
            tokio::time::sleep(Duration::from_millis(50)).await;
            conn.write_all(&preface[split..]).await.unwrap();
        }
        let (answer, closed) = read_to_close(&mut conn, Duration::from_secs(10)).await;
        assert!(closed.is_some(), "connection left open: {answer:?}");
        assert!(
            answer.starts_with("HTTP/1.1 505 HTTP Version Not Supported\r\n"),
            "split {split}: {answer:?}"
        );
        assert!(
            answer.contains("content-type: application/json\r\n"),
            "{answer:?}"
        );
        let body = answer_body(&answer);
        assert_eq!(
            body["error"]["code"], "http_version_not_supported",
            "{answer:?}"
        );
        assert!(body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("HTTP/1.1"));
    }
    let body = json!({"url": "https://a.example/p", "html": article(1)}).to_string();
    let request = format!(
        "{}{body}",
        check_head(s.addr, body.len(), "connection: close\r\n")
    );
    for split in [1, 2, 4] {
        let mut conn = TcpStream::connect(s.addr).await.unwrap();
        conn.write_all(&request.as_bytes()[..split]).await.unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
        conn.write_all(&request.as_bytes()[split..]).await.unwrap();
        let (answer, closed) = read_to_close(&mut conn, Duration::from_secs(10)).await;
        assert!(closed.is_some(), "connection left open: {answer:?}");
        assert!(
            answer.starts_with("HTTP/1.1 200 "),
            "split {split}: {answer:?}"
        );
        assert!(answer_body(&answer)["kind"].is_string(), "{answer:?}");
    }
    s.stop().await.unwrap();
}

/// `url` (and `key`) are capped at `canonical.max_url_len` bytes, as the
/// crawl caps URLs: a 1 MB URL is refused, not indexed; DELETE by URL
/// refuses what is not an absolute http(s) URL instead of answering 404.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn page_urls_are_capped_and_checked_as_the_crawl_does() {
    let s = Server::start(ServeOptions::default()).await;
    let max = Config::default().canonical.max_url_len;
    assert_eq!(max, 2048);
    let base = "https://a.example/";
    let of_len = |n: usize| format!("{base}{}", "a".repeat(n - base.len()));
    let code = |body: &Value| {
        body["error"]["code"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };

    let (status, body) = s.check(&of_len(1_000_000), &article(1)).await;
    assert_eq!(
        (status, code(&body)),
        (400, "url_too_long".into()),
        "{body}"
    );
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("1000000 bytes") && message.contains("2048"),
        "{message}"
    );
    assert!(
        message.len() < 200,
        "the URL is not echoed: {}",
        message.len()
    );
    let (status, body) = s.check(&of_len(max + 1), &article(2)).await;
    assert_eq!(
        (status, code(&body)),
        (400, "url_too_long".into()),
        "{body}"
    );
    let (status, body) = s.check(&of_len(max), &article(3)).await;
    assert_eq!(status, 200, "a URL of exactly the cap is taken: {body}");
    // In a batch: the page is named.
    let batch = json!({"pages": [
        {"url": "https://a.example/ok", "html": article(4)},
        {"url": of_len(max + 1), "html": article(5)},
    ]});
    let (status, body) = s
        .send(s.http.post(s.url("/v1/check/batch")).json(&batch))
        .await;
    assert_eq!(
        (status, code(&body)),
        (400, "url_too_long".into()),
        "{body}"
    );
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .starts_with("pages[1].url "));
    // A key over the cap.
    let long_key =
        json!({"url": "https://a.example/k", "key": "k".repeat(max + 1), "html": article(6)});
    let (status, body) = s
        .send(s.http.post(s.url("/v1/check")).json(&long_key))
        .await;
    assert_eq!(
        (status, code(&body)),
        (400, "invalid_field".into()),
        "{body}"
    );
    let (_, stats) = s.send(s.http.get(s.url("/v1/stats"))).await;
    assert_eq!(stats["indexed"], 1, "only the page at the cap: {stats}");

    let delete = |url: &str| {
        let q: String = url::form_urlencoded::byte_serialize(url.as_bytes()).collect();
        s.send(s.http.delete(s.url(&format!("/v1/docs?url={q}"))))
    };
    for (url, status, want) in [
        ("javascript:alert(1)", 400, "invalid_url"),
        ("mailto:a@a.example", 400, "invalid_url"),
        ("/relative/path", 400, "invalid_url"),
        (&of_len(max + 1), 400, "url_too_long"),
        ("https://a.example/never-indexed", 404, "not_found"),
    ] {
        let (got, body) = delete(url).await;
        assert_eq!(
            (got, code(&body)),
            (status, want.to_owned()),
            "{url}: {body}"
        );
    }
    let (got, body) = delete(&of_len(max)).await;
    assert_eq!(got, 200, "{body}");
    assert_eq!(body["removed"], true);
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_whose_canonical_names_an_indexed_url_is_its_duplicate() {
    let s = Server::start(ServeOptions::default()).await;
    let (_, first) = s.check("https://news.example/story", &article(1)).await;
    assert_eq!(first["kind"], "unique");
    let id = first["indexed_as"].as_u64().unwrap();
    // Other content at another URL, naming the story as its canonical
    // (relative, another spelling): a duplicate of it, not indexed.
    let tracked = article(2).replace(
        "<head>",
        "<head><link rel=\"canonical\" href=\"HTTPS://News.Example:443/story#top\">",
    );
    let (status, copy) = s
        .check("https://news.example/story?utm_source=feed", &tracked)
        .await;
    assert_eq!(status, 200, "{copy}");
    assert_eq!(copy["kind"], "duplicate", "{copy}");
    assert_eq!(copy["matched"]["detector"], "canonical");
    assert_eq!(copy["matched"]["id"].as_u64(), Some(id));
    assert_eq!(copy["matched"]["url"], "https://news.example/story");
    assert!(copy["indexed_as"].is_null());
    // A canonical naming a URL nothing is indexed at: judged on content.
    let elsewhere = article(3).replace(
        "<head>",
        "<head><link rel=\"canonical\" href=\"/not-indexed\">",
    );
    let (_, own) = s.check("https://news.example/other", &elsewhere).await;
    assert_eq!(own["kind"], "unique", "{own}");
    // A canonical naming the page itself: a recrawl of it, not a copy.
    let selfref = article(4).replace("<head>", "<head><link rel=\"canonical\" href=\"/self\">");
    let (_, a) = s.check("https://news.example/self", &selfref).await;
    let (_, b) = s.check("https://news.example/self", &selfref).await;
    assert_eq!(a["kind"], "unique", "{a}");
    assert_eq!(b["matched"]["detector"], "same_url", "{b}");
    let (_, stats) = s.send(s.http.get(s.url("/v1/stats"))).await;
    assert_eq!(
        (stats["checked"].as_u64(), stats["duplicates"].as_u64()),
        (Some(5), Some(2))
    );
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn saturation_is_503_and_slow_decisions_504() {
    let s = Server::start(ServeOptions {
        max_concurrency: 1,
        timeout: Duration::from_millis(4000),
        ..ServeOptions::default()
    })
    .await;
    // The server is up (it reads the deduper once while starting: locked
    // before that, it would not start until the lock is let go).
    assert_eq!(s.send(s.http.get(s.url("/healthz"))).await.0, 200);
    // Hold the deduper: the decider waits, so a check keeps its slot until
    // its timeout (4 s), well before the lock is let go (12 s).
    let (locked_tx, locked_rx) = std::sync::mpsc::channel();
    let deduper = s.deduper.clone();
    let holder = std::thread::spawn(move || {
        deduper
            .with(|_| {
                locked_tx.send(()).unwrap();
                std::thread::sleep(Duration::from_millis(12_000));
            })
            .unwrap();
    });
    locked_rx.recv().unwrap();
    let send = |seed: u64| {
        let req = s.http.post(s.url("/v1/check")).json(&json!({
            "url": format!("https://a.example/{seed}"),
            "html": article(seed),
        }));
        tokio::spawn(async move {
            let resp = req.send().await.unwrap();
            let retry = resp
                .headers()
                .get("retry-after")
                .map(|v| v.to_str().unwrap().to_owned());
            (
                resp.status().as_u16(),
                retry,
                resp.json::<Value>().await.unwrap(),
            )
        })
    };
    let first = send(60);
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let second = send(61);
    // Whichever reached the slot first times out (504); the other found
    // the slot taken and was shed at once (503), whatever the order in
    // which a loaded machine delivered them.
    let mut answers = [first.await.unwrap(), second.await.unwrap()];
    answers.sort_by_key(|a| a.0);
    let [(shed, retry, shed_body), (slow, _, slow_body)] = &answers;
    assert_eq!(*shed, 503, "{shed_body}");
    assert_eq!(retry.as_deref(), Some("1"));
    assert_eq!(shed_body["error"]["code"], "overloaded");
    assert_eq!(*slow, 504, "{slow_body}");
    assert_eq!(slow_body["error"]["code"], "timeout");
    holder.join().unwrap();
    // The abandoned check was not decided; the slot is free again.
    let (_, stats) = s.send(s.http.get(s.url("/v1/stats"))).await;
    assert_eq!(stats["checked"], 0);
    assert_eq!(s.check("https://a.example/3", &article(62)).await.0, 200);
    // Every slot and body byte was given back.
    let text = s
        .http
        .get(s.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        text.contains("\nneardup_http_requests_in_flight 0\n"),
        "{text}"
    );
    assert!(text.contains("\nneardup_request_body_bytes 0\n"), "{text}");
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stats_counters_are_per_process_and_indexed_persists() {
    // The decision (docs/serve.md): verdict counters count since the
    // server started, like every Prometheus counter; `indexed` is the
    // index's own size.
    let dir = crate::util::Dir::new();
    let path = dir.path().join("index.redb");
    let registry = neardup::Registry::default();
    for round in 0..2u64 {
        let deduper =
            SharedDeduper::new(Deduper::open(Config::default(), &registry, &path).unwrap());
        let s = Server::start_with(deduper, ServeOptions::default()).await;
        let (_, v) = s
            .check(&format!("https://a.example/{round}"), &article(round))
            .await;
        assert_eq!(v["kind"], "unique");
        let (_, stats) = s.send(s.http.get(s.url("/v1/stats"))).await;
        assert_eq!(stats["checked"], 1, "round {round}: {stats}");
        assert_eq!(stats["indexed"], round + 1, "round {round}: {stats}");
        s.stop().await.unwrap();
    }
}

#[test]
fn a_failed_start_creates_no_index_file() {
    let dir = crate::util::Dir::new();
    let out = dir
        .cmd()
        .args(["serve", "--listen", "127.0.0.1:99999"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = dir
        .cmd()
        .args(["serve", "--listen", &addr])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&format!("listen on {addr}")), "{stderr}");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "no ./neardup-index.redb"
    );
}

#[test]
fn every_request_gets_an_access_log_line() {
    let dir = crate::util::Dir::new();
    let (child, addr, rest) = spawn_serve(&dir, &["--listen", "127.0.0.1:0", "--in-memory"]);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let sent = rt.block_on(async {
        let http = reqwest::Client::new();
        // Chunked (no Content-Length): the log counts what arrived.
        let body =
            serde_json::to_vec(&json!({"url": "https://a.example/", "html": article(1)})).unwrap();
        let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
            body.chunks(100).map(|c| Ok(c.to_vec())).collect();
        let ok = http
            .post(format!("http://{addr}/v1/check"))
            .header("content-type", "application/json")
            .body(reqwest::Body::wrap_stream(futures_util::stream::iter(
                chunks,
            )))
            .send()
            .await
            .unwrap();
        assert_eq!(ok.status().as_u16(), 200);
        let bad = http
            .delete(format!("http://{addr}/v1/docs/nope"))
            .send()
            .await
            .unwrap();
        assert_eq!(bad.status().as_u16(), 400);
        body.len()
    });
    stop_binary(child);
    let log = rest.join().unwrap();
    let line = |needle: &str| {
        log.lines()
            .find(|l| l.contains("neardup_serve::access") && l.contains(needle))
            .unwrap_or_else(|| panic!("no access line with {needle:?} in\n{log}"))
            .to_owned()
    };
    let ok = line("path=/v1/check");
    let bytes_in = format!("bytes_in={sent} ");
    for field in [
        "method=POST",
        &bytes_in,
        "status=200",
        "latency_ms=",
        "bytes_out=",
        "peer=127.0.0.1:",
    ] {
        assert!(ok.contains(field), "{field} missing: {ok}");
    }
    let bad = line("path=/v1/docs/nope");
    assert!(
        bad.contains("status=400") && bad.contains("error=\"invalid_id\""),
        "{bad}"
    );
}

#[test]
fn readiness_follows_the_redis_backend_and_its_failures_are_logged() {
    let Some(redis) = crate::redis::RedisServer::start() else {
        return;
    };
    let dir = crate::util::Dir::new();
    let url = redis.url("ready");
    let (mut child, addr, rest) = spawn_serve(&dir, &["--listen", "127.0.0.1:0", "--index", &url]);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let http = reqwest::Client::new();
    let get = |path: &str| {
        let req = http.get(format!("http://{addr}{path}"));
        rt.block_on(async {
            let resp = req.send().await.unwrap();
            (resp.status().as_u16(), resp.json::<Value>().await.unwrap())
        })
    };
    let check = |i: u64| {
        let req = http
            .post(format!("http://{addr}/v1/check"))
            .json(&json!({"url": format!("https://a.example/{i}"), "html": article(i)}));
        rt.block_on(async {
            let resp = req.send().await.unwrap();
            (resp.status().as_u16(), resp.json::<Value>().await.unwrap())
        })
    };
    assert_eq!(get("/readyz"), (200, json!({"status": "ready"})));
    assert_eq!(check(1).0, 200);
    drop(redis);
    let (status, body) = get("/readyz");
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["error"]["code"], "not_ready");
    // Alive, not ready: a prober must not restart it for Redis being down.
    assert_eq!(get("/healthz").0, 200);
    let (status, body) = check(2);
    assert_eq!(status, 500, "{body}");
    // Redis is gone: the final flush may fail, so the exit code is not
    // checked here.
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let _ = child.wait();
    let log = rest.join().unwrap();
    assert!(
        log.lines()
            .any(|l| l.contains("ERROR") && l.contains("request failed") && l.contains("ns=ready")),
        "no error line naming the cause in\n{log}"
    );
    assert!(
        log.lines()
            .any(|l| l.contains("path=/v1/check") && l.contains("status=500")),
        "{log}"
    );
}
