//! `neardup serve` end to end: a real server on 127.0.0.1:0 and a real HTTP
//! client (reqwest), or raw TCP where a test must hold a request half-sent.

use std::net::SocketAddr;
use std::time::Duration;

use neardup::Config;
use neardup::Deduper;
use neardup::SharedDeduper;
use neardup_serve::{self as serve, ServeOptions};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A running server and the means to stop it.
pub(crate) struct Server {
    pub(crate) addr: SocketAddr,
    /// The server's deduper (to hold its lock from a test).
    pub(crate) deduper: SharedDeduper,
    stop: Option<oneshot::Sender<()>>,
    handle: JoinHandle<neardup::Result<()>>,
    pub(crate) http: reqwest::Client,
}

impl Server {
    pub(crate) async fn start(options: ServeOptions) -> Server {
        let deduper = SharedDeduper::new(Deduper::new(Config::default()).unwrap());
        Server::start_with(deduper, options).await
    }

    pub(crate) async fn start_with(deduper: SharedDeduper, options: ServeOptions) -> Server {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let handle = tokio::spawn(serve::run(listener, deduper.clone(), options, async {
            let _ = stopped.await;
        }));
        Server {
            addr,
            deduper,
            stop: Some(stop),
            handle,
            http: reqwest::Client::new(),
        }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// POSTs JSON; returns status and parsed body.
    async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        let resp = self
            .http
            .post(self.url(path))
            .json(body)
            .send()
            .await
            .unwrap();
        let status = resp.status().as_u16();
        (status, resp.json().await.unwrap())
    }

    pub(crate) async fn send(&self, req: reqwest::RequestBuilder) -> (u16, Value) {
        let resp = req.send().await.unwrap();
        let status = resp.status().as_u16();
        let text = resp.text().await.unwrap();
        let body = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text:?}"));
        (status, body)
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        self.send(self.http.get(self.url(path))).await
    }

    /// Checks one page given as HTML.
    pub(crate) async fn check(&self, url: &str, html: &str) -> (u16, Value) {
        self.send(
            self.http
                .post(self.url("/v1/check"))
                .json(&json!({"url": url, "html": html})),
        )
        .await
    }

    async fn stats(&self) -> Value {
        let (status, body) = self.get("/v1/stats").await;
        assert_eq!(status, 200, "{body}");
        body
    }

    async fn metrics(&self) -> String {
        let resp = self.http.get(self.url("/metrics")).send().await.unwrap();
        assert_eq!(resp.status().as_u16(), 200);
        resp.text().await.unwrap()
    }

    /// Signals shutdown and waits for `run` to return.
    pub(crate) async fn stop(mut self) -> neardup::Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        tokio::time::timeout(Duration::from_secs(20), self.handle)
            .await
            .expect("server returns after shutdown")
            .unwrap()
    }
}

/// A page of ~120 words that no other seed's page resembles.
fn article(seed: u64) -> String {
    const WORDS: [&str; 32] = [
        "harbour",
        "tide",
        "storm",
        "buoy",
        "satellite",
        "sensor",
        "pier",
        "coast",
        "river",
        "valley",
        "engine",
        "market",
        "village",
        "school",
        "garden",
        "forest",
        "bridge",
        "train",
        "museum",
        "letter",
        "winter",
        "summer",
        "island",
        "mountain",
        "kitchen",
        "doctor",
        "teacher",
        "farmer",
        "painter",
        "castle",
        "library",
        "orchard",
    ];
    let mut rng = neardup_api::SplitMix64::new(seed);
    let words: Vec<&str> = (0..120).map(|_| *rng.pick(&WORDS)).collect();
    format!(
        "<html><head><title>page {seed}</title></head><body><article><p>{}</p></article></body></html>",
        words.join(" ")
    )
}

fn page(url: &str, seed: u64) -> Value {
    json!({"url": url, "html": article(seed)})
}

/// The value of a metric line `name` (with labels as written), or 0.
fn metric(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or(0.0)
}

fn openapi() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/openapi.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Structural validation of `value` against an OpenAPI 3.1 schema: `$ref`,
/// `oneOf`, `type` (one or a list), `enum`, `required`, `properties`,
/// `items`, `additionalProperties`, `minimum`/`maximum`.
fn validate(doc: &Value, schema: &Value, value: &Value, at: &str) -> Result<(), String> {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        let pointer = r.trim_start_matches('#');
        let target = doc
            .pointer(pointer)
            .ok_or_else(|| format!("{at}: dangling $ref {r}"))?;
        return validate(doc, target, value, at);
    }
    if let Some(options) = schema.get("oneOf").and_then(Value::as_array) {
        let ok = options
            .iter()
            .filter(|s| validate(doc, s, value, at).is_ok())
            .count();
        return if ok == 1 {
            Ok(())
        } else {
            Err(format!("{at}: {value} matches {ok} of oneOf"))
        };
    }
    if let Some(t) = schema.get("type") {
        let types: Vec<&str> = match t {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => return Err(format!("{at}: bad type in schema")),
        };
        let fits = types.iter().any(|t| match *t {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string(),
            "integer" => value.is_u64() || value.is_i64(),
            "number" => value.is_number(),
            "boolean" => value.is_boolean(),
            "null" => value.is_null(),
            _ => false,
        });
        if !fits {
            return Err(format!("{at}: {value} is not {types:?}"));
        }
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array) {
        if !allowed.contains(value) {
            return Err(format!("{at}: {value} not in {allowed:?}"));
        }
    }
    if let Some(n) = value.as_f64() {
        if let Some(min) = schema.get("minimum").and_then(Value::as_f64) {
            if n < min {
                return Err(format!("{at}: {n} < {min}"));
            }
        }
        if let Some(max) = schema.get("maximum").and_then(Value::as_f64) {
            if n > max {
                return Err(format!("{at}: {n} > {max}"));
            }
        }
    }
    if let Some(obj) = value.as_object() {
        for key in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let key = key.as_str().unwrap_or_default();
            if !obj.contains_key(key) {
                return Err(format!("{at}: missing required {key}"));
            }
        }
        let props = schema.get("properties").and_then(Value::as_object);
        for (k, v) in obj {
            if let Some(s) = props.and_then(|p| p.get(k)) {
                validate(doc, s, v, &format!("{at}.{k}"))?;
            } else if let Some(s) = schema.get("additionalProperties") {
                validate(doc, s, v, &format!("{at}.{k}"))?;
            }
        }
    }
    if let (Some(items), Some(arr)) = (schema.get("items"), value.as_array()) {
        for (i, v) in arr.iter().enumerate() {
            validate(doc, items, v, &format!("{at}[{i}]"))?;
        }
    }
    Ok(())
}

/// Asserts an error answer: the status, the code, and that the body fits
/// the documented Error schema.
fn assert_error(got: &(u16, Value), status: u16, code: &str) {
    assert_eq!(got.0, status, "{}", got.1);
    assert_eq!(got.1["error"]["code"], code, "{}", got.1);
    assert!(
        got.1["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{}",
        got.1
    );
    let doc = openapi();
    validate(
        &doc,
        &json!({"$ref": "#/components/schemas/Error"}),
        &got.1,
        "error",
    )
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unique_then_duplicate_points_at_the_first_page() {
    let s = Server::start(ServeOptions::default()).await;
    let (status, first) = s.post("/v1/check", &page("https://a.example/1", 1)).await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["kind"], "unique");
    assert!(first["matched"].is_null());
    let id = first["indexed_as"]
        .as_u64()
        .expect("unique pages are indexed");
    let (status, copy) = s
        .post(
            "/v1/check",
            &json!({"url": "https://b.example/copy", "key": "b-copy", "html": article(1)}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(copy["kind"], "duplicate");
    assert_eq!(copy["matched"]["url"], "https://a.example/1");
    assert_eq!(
        copy["matched"]["key"], "https://a.example/1",
        "key defaults to the URL"
    );
    assert_eq!(copy["matched"]["id"].as_u64(), Some(id));
    assert_eq!(copy["matched"]["detector"], "exact");
    assert!(copy["indexed_as"].is_null());
    s.stop().await.unwrap();
}

/// A part of an all-in-one page is kept, and the answer names the larger
/// page as `contained_in`, in the document's `Verdict` shape.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_part_of_an_all_in_one_page_is_answered_contained_in() {
    let fixture = |name: &str| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/site-template/genindex")
            .join(name);
        std::fs::read_to_string(&path).expect("fixture")
    };
    let s = Server::start(ServeOptions::default()).await;
    let all = json!({"url": "http://docs.example/genindex/all.html", "html": fixture("all.html")});
    let (status, first) = s.post("/v1/check", &all).await;
    assert_eq!(status, 200, "{first}");
    let part = json!({"url": "http://docs.example/genindex/a.html", "html": fixture("a.html")});
    let (status, v) = s.post("/v1/check", &part).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["kind"], "unique", "{v}");
    assert!(v["indexed_as"].is_u64(), "{v}");
    assert_eq!(
        v["contained_in"]["url"], "http://docs.example/genindex/all.html",
        "{v}"
    );
    let doc = openapi();
    let schema = json!({"$ref": "#/components/schemas/Verdict"});
    validate(&doc, &schema, &v, "contained_in answer").unwrap();
    assert!(first.get("contained_in").is_none(), "{first}");
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_input_matches_text_and_html_with_the_same_words() {
    let s = Server::start(ServeOptions::default()).await;
    let words = "the committee approved the new budget for the city library after a long \
        debate about opening hours, staff salaries and the cost of repairing the roof \
        before the winter storms arrive in the northern districts of the town";
    let (_, a) = s
        .post(
            "/v1/check",
            &json!({"url": "https://a.example/t", "text": words}),
        )
        .await;
    assert_eq!(a["kind"], "unique", "{a}");
    let html = format!("<html><body><article><p>{words}</p></article></body></html>");
    let (_, b) = s
        .post(
            "/v1/check",
            &json!({"url": "https://b.example/h", "html": html}),
        )
        .await;
    assert_eq!(b["kind"], "duplicate", "{b}");
    assert_eq!(b["matched"]["url"], "https://a.example/t");
    // Markup sent as text/plain is not parsed: the tags become words, so it
    // no longer equals the plain text.
    let (_, c) = s
        .post(
            "/v1/check",
            &json!({"url": "https://c.example/p", "html": html,
                    "headers": {"Content-Type": "text/plain; charset=utf-8"}}),
        )
        .await;
    assert_ne!(c["kind"], "duplicate", "{c}");
    s.stop().await.unwrap();
}

/// French text of about 150 words, nearly every one accented and half of
/// them with an "œ", all in ISO-8859-15 (Latin-9). Its bytes read as
/// windows-1252, which is what detection takes Latin text for, turn
/// every "œ" into "½": the declared charset decides whether this is the
/// same text.
fn accented_text(seed: u64) -> String {
    const WORDS: [&str; 16] = [
        "café",
        "élève",
        "forêt",
        "garçon",
        "château",
        "décembre",
        "hôpital",
        "fenêtre",
        "cœur",
        "sœur",
        "œuvre",
        "bœuf",
        "vœu",
        "œil",
        "nœud",
        "manœuvre",
    ];
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let words: Vec<&str> = (0..150)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            WORDS[(x % WORDS.len() as u64) as usize]
        })
        .collect();
    words.join(" ")
}

/// `text` in ISO-8859-15: "œ" is byte 0xBD; the test texts hold no other
/// character that Latin-9 moved from Latin-1.
fn latin9(text: &str) -> Vec<u8> {
    text.chars()
        .map(|c| match c {
            'œ' => 0xBD,
            c => u8::try_from(u32::from(c)).expect("a Latin-1 character"),
        })
        .collect()
}

impl Server {
    /// `POST /v1/check/raw` with `query`, `content_type` (if any) and `body`.
    async fn raw(&self, query: &str, content_type: Option<&str>, body: Vec<u8>) -> (u16, Value) {
        let mut req = self.http.post(self.url(&format!("/v1/check/raw{query}")));
        if let Some(ct) = content_type {
            req = req.header("content-type", ct);
        }
        self.send(req.body(body)).await
    }
}

/// A page sent as fetched, in Latin-9, is decoded by the charset its
/// content type or its `<meta>` declares: the same words as the page sent
/// as a Unicode JSON string, so an exact duplicate of it. Without a
/// declaration the bytes are detected as windows-1252: other words.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn raw_bodies_are_decoded_by_their_declared_charset() {
    let s = Server::start(ServeOptions::default()).await;
    let text = accented_text(5);
    let html = format!("<html><body><article><p>{text}</p></article></body></html>");
    let (_, first) = s.check("https://a.example/fr", &html).await;
    assert_eq!(first["kind"], "unique", "{first}");
    let (status, by_header) = s
        .raw(
            "?url=https%3A%2F%2Fb.example%2Ffr&key=b",
            Some("text/html; charset=ISO-8859-15"),
            latin9(&html),
        )
        .await;
    assert_eq!(status, 200, "{by_header}");
    assert_eq!(by_header["kind"], "duplicate", "{by_header}");
    assert_eq!(by_header["matched"]["url"], "https://a.example/fr");
    let with_meta = format!(
        "<html><head><meta charset=\"iso-8859-15\"></head><body><article><p>{text}</p>\
         </article></body></html>"
    );
    let (_, by_meta) = s
        .raw(
            "?url=https://c.example/fr",
            Some("application/xhtml+xml"),
            latin9(&with_meta),
        )
        .await;
    assert_eq!(by_meta["kind"], "duplicate", "{by_meta}");
    let (_, undeclared) = s
        .raw(
            "?url=https://d.example/fr",
            Some("text/html"),
            latin9(&html),
        )
        .await;
    assert_ne!(undeclared["kind"], "duplicate", "{undeclared}");
    s.stop().await.unwrap();
}

/// `text/plain` is decoded by its charset and taken as text, as a JSON
/// `text` is; binary bytes get a verdict with the reason in its warnings.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn raw_plain_text_is_text_and_binary_is_said() {
    let s = Server::start(ServeOptions::default()).await;
    let text = format!("{}\n\n{}", accented_text(7), accented_text(8));
    let (_, first) = s
        .post(
            "/v1/check",
            &json!({"url": "https://a.example/t", "text": text}),
        )
        .await;
    assert_eq!(first["kind"], "unique", "{first}");
    let (status, raw) = s
        .raw(
            "?url=https://b.example/t",
            Some("text/plain; charset=iso-8859-15"),
            latin9(&text),
        )
        .await;
    assert_eq!(status, 200, "{raw}");
    assert_eq!(raw["kind"], "duplicate", "{raw}");
    assert_eq!(raw["matched"]["url"], "https://a.example/t");
    let (_, undeclared) = s
        .raw(
            "?url=https://c.example/t",
            Some("text/plain"),
            latin9(&text),
        )
        .await;
    assert_ne!(undeclared["kind"], "duplicate", "{undeclared}");
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend((0..2_000u32).map(|i| (i * 7 % 256) as u8));
    let (status, binary) = s
        .raw("?url=https://d.example/img", Some("text/html"), png)
        .await;
    assert_eq!(status, 200, "{binary}");
    assert!(
        binary["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains("binary")),
        "{binary}"
    );
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn raw_requests_without_a_page_type_or_url_get_json_errors() {
    let s = Server::start(ServeOptions::default()).await;
    let html = || article(3).into_bytes();
    let ok = "?url=https://a.example/x";
    assert_error(
        &s.raw(ok, None, html()).await,
        415,
        "unsupported_media_type",
    );
    assert_error(
        &s.raw(ok, Some("application/json"), html()).await,
        415,
        "unsupported_media_type",
    );
    assert_error(
        &s.raw(ok, Some("image/png"), html()).await,
        415,
        "unsupported_media_type",
    );
    assert_error(
        &s.raw("", Some("text/html"), html()).await,
        400,
        "missing_field",
    );
    assert_error(
        &s.raw("?key=k", Some("text/html"), html()).await,
        400,
        "missing_field",
    );
    assert_error(
        &s.raw("?uri=https://a.example/x", Some("text/html"), html())
            .await,
        400,
        "invalid_field",
    );
    assert_error(
        &s.raw(
            &format!("{ok}&url=https://b.example/"),
            Some("text/html"),
            html(),
        )
        .await,
        400,
        "invalid_field",
    );
    assert_error(
        &s.raw("?url=ftp://a.example/x", Some("text/html"), html())
            .await,
        400,
        "invalid_url",
    );
    let long = format!("?url=https://a.example/{}", "a".repeat(3_000));
    assert_error(
        &s.raw(&long, Some("text/html"), html()).await,
        400,
        "url_too_long",
    );
    // None of them was checked; a valid one after them is.
    assert_eq!(s.stats().await["checked"], 0);
    let (status, v) = s.raw(ok, Some("TEXT/HTML;charset=utf-8"), html()).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["kind"], "unique", "{v}");
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_verdicts_come_in_request_order() {
    let s = Server::start(ServeOptions::default()).await;
    let pages = json!({"pages": [
        page("https://a.example/1", 10),
        page("https://a.example/2", 11),
        page("https://mirror.example/1", 10),
        page("https://a.example/3", 12),
        page("https://mirror.example/2", 11),
    ]});
    let (status, body) = s.post("/v1/check/batch", &pages).await;
    assert_eq!(status, 200, "{body}");
    let v = body["verdicts"].as_array().unwrap();
    let kinds: Vec<&str> = v.iter().map(|v| v["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["unique", "unique", "duplicate", "unique", "duplicate"]
    );
    assert_eq!(v[2]["matched"]["url"], "https://a.example/1");
    assert_eq!(v[4]["matched"]["url"], "https://a.example/2");
    // Ids are handed out in request order.
    let ids: Vec<u64> = [0, 1, 3]
        .iter()
        .map(|&i| v[i]["indexed_as"].as_u64().unwrap())
        .collect();
    assert!(ids[0] < ids[1] && ids[1] < ids[2], "{ids:?}");
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleted_page_no_longer_matches_and_stats_count() {
    let s = Server::start(ServeOptions::default()).await;
    let (_, first) = s.post("/v1/check", &page("https://a.example/1", 20)).await;
    s.post("/v1/check", &page("https://a.example/2", 21)).await;
    s.post("/v1/check", &page("https://b.example/1", 20)).await;
    let stats = s.stats().await;
    assert_eq!(stats["checked"], 3);
    assert_eq!(stats["unique"], 2);
    assert_eq!(stats["duplicates"], 1);
    assert_eq!(stats["indexed"], 2);
    assert_eq!(stats["detectors"], json!(["exact", "simhash", "chunks"]));
    let tiers: Vec<&str> = stats["memory"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["tier"].as_str().unwrap())
        .collect();
    assert_eq!(
        tiers,
        ["exact", "simhash", "chunks", "urls", "content", "store"]
    );
    assert!(stats["memory"][4]["bytes"].as_u64().unwrap() > 0);

    let id = first["indexed_as"].as_u64().unwrap();
    let (status, body) = s
        .send(s.http.delete(s.url(&format!("/v1/docs/{id}"))))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!({"id": id, "removed": true}));
    assert_eq!(s.stats().await["indexed"], 1);
    let again = s
        .send(s.http.delete(s.url(&format!("/v1/docs/{id}"))))
        .await;
    assert_error(&again, 404, "not_found");
    let (_, recheck) = s.post("/v1/check", &page("https://c.example/1", 20)).await;
    assert_eq!(recheck["kind"], "unique", "{recheck}");
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delete_by_url_then_the_same_page_is_unique_and_recrawls_replace() {
    let s = Server::start(ServeOptions::default()).await;
    let (_, first) = s
        .post("/v1/check", &page("https://a.example/news", 30))
        .await;
    let id = first["indexed_as"].as_u64().unwrap();
    // Unchanged re-fetch: a duplicate of itself, named as such.
    let (_, again) = s
        .post("/v1/check", &page("https://a.example/news", 30))
        .await;
    assert_eq!(again["kind"], "duplicate", "{again}");
    assert_eq!(again["matched"]["detector"], "same_url");
    assert_eq!(again["matched"]["id"], id);
    // Changed page at the same URL: unique, and replaces the old version.
    let (_, changed) = s
        .post("/v1/check", &page("https://a.example/news", 31))
        .await;
    assert_eq!(changed["kind"], "unique", "{changed}");
    let new_id = changed["indexed_as"].as_u64().unwrap();
    assert_ne!(new_id, id);
    assert_eq!(s.stats().await["indexed"], 1, "the old version is gone");

    let missing = s.send(s.http.delete(s.url("/v1/docs"))).await;
    assert_error(&missing, 400, "missing_field");
    let bad = s
        .send(s.http.delete(s.url("/v1/docs?url=not%20a%20url")))
        .await;
    assert_error(&bad, 400, "invalid_url");
    let none = s
        .send(
            s.http
                .delete(s.url("/v1/docs?url=https%3A%2F%2Fa.example%2Fother")),
        )
        .await;
    assert_error(&none, 404, "not_found");
    // Another spelling of the same URL (case, default port, fragment).
    let (status, body) = s
        .send(
            s.http
                .delete(s.url("/v1/docs?url=HTTPS%3A%2F%2FA.example%3A443%2Fnews%23top")),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!({"id": new_id, "removed": true}));
    assert_eq!(s.stats().await["indexed"], 0);
    // The identical page, anywhere, is now unique.
    let (_, recheck) = s
        .post("/v1/check", &page("https://b.example/copy", 31))
        .await;
    assert_eq!(recheck["kind"], "unique", "{recheck}");
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn healthz_and_metrics_move() {
    let s = Server::start(ServeOptions::default()).await;
    assert_eq!(s.get("/healthz").await, (200, json!({"status": "ok"})));
    let before = s.metrics().await;
    let ok_series = "neardup_http_requests_total{endpoint=\"/v1/check\",status=\"200\"}";
    let bad_series = "neardup_http_requests_total{endpoint=\"/v1/check\",status=\"400\"}";
    assert_eq!(metric(&before, ok_series), 0.0);
    s.post("/v1/check", &page("https://a.example/1", 30)).await;
    s.post("/v1/check", &page("https://b.example/1", 30)).await;
    s.post("/v1/check", &json!({"url": "nope", "html": "x"}))
        .await;
    let after = s.metrics().await;
    assert_eq!(metric(&after, ok_series), 2.0, "{after}");
    assert_eq!(metric(&after, bad_series), 1.0, "{after}");
    assert_eq!(
        metric(&after, "neardup_checks_total{verdict=\"unique\"}"),
        1.0
    );
    assert_eq!(
        metric(&after, "neardup_checks_total{verdict=\"duplicate\"}"),
        1.0
    );
    assert_eq!(metric(&after, "neardup_index_documents"), 1.0);
    // One after the other, each check is its own group: two commits.
    assert_eq!(metric(&after, "neardup_index_commits_total"), 2.0);
    assert_eq!(
        metric(
            &after,
            "neardup_http_request_duration_seconds_count{endpoint=\"/v1/check\"}"
        ),
        3.0
    );
    assert!(metric(&after, "neardup_index_memory_bytes{tier=\"store\"}") > 0.0);
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_json_errors() {
    let s = Server::start(ServeOptions {
        max_batch: 3,
        ..ServeOptions::default()
    })
    .await;
    let raw = |body: &'static str, ct: Option<&'static str>| {
        let mut r = s.http.post(s.url("/v1/check")).body(body);
        if let Some(ct) = ct {
            r = r.header("content-type", ct);
        }
        r
    };
    let json_ct = Some("application/json");
    assert_error(
        &s.send(raw("{\"url\":", json_ct)).await,
        400,
        "malformed_json",
    );
    assert_error(
        &s.send(raw("not json", json_ct)).await,
        400,
        "malformed_json",
    );
    assert_error(
        &s.send(raw("{\"html\":\"<p>x</p>\"}", json_ct)).await,
        400,
        "missing_field",
    );
    assert_error(
        &s.send(raw("{\"url\":\"https://a.example/\"}", json_ct))
            .await,
        400,
        "missing_field",
    );
    assert_error(
        &s.send(raw("{\"url\":5,\"html\":\"x\"}", json_ct)).await,
        400,
        "invalid_field",
    );
    assert_error(
        &s.send(raw(
            "{\"url\":\"https://a.example/\",\"html\":\"x\",\"text\":\"x\"}",
            json_ct,
        ))
        .await,
        400,
        "invalid_field",
    );
    for bad in [
        "not a url",
        "/relative/path",
        "ftp://a.example/file",
        "mailto:x@y.z",
    ] {
        let got = s.post("/v1/check", &json!({"url": bad, "html": "x"})).await;
        assert_error(&got, 400, "invalid_url");
    }
    assert_error(
        &s.send(raw(
            "{\"url\":\"https://a.example/\",\"html\":\"x\"}",
            Some("text/plain"),
        ))
        .await,
        415,
        "unsupported_media_type",
    );
    assert_error(
        &s.send(raw("{\"url\":\"https://a.example/\",\"html\":\"x\"}", None))
            .await,
        415,
        "unsupported_media_type",
    );
    assert_error(
        &s.post("/v1/check/batch", &json!({})).await,
        400,
        "missing_field",
    );
    let four = json!({"pages": [page("https://a.example/1", 1), page("https://a.example/2", 2),
                                page("https://a.example/3", 3), page("https://a.example/4", 4)]});
    assert_error(
        &s.post("/v1/check/batch", &four).await,
        400,
        "batch_too_large",
    );
    // One bad page rejects the batch before any page is decided.
    let mixed = json!({"pages": [page("https://a.example/1", 1), {"url": "bad", "html": "x"}]});
    let got = s.post("/v1/check/batch", &mixed).await;
    assert_error(&got, 400, "invalid_url");
    assert!(got.1["error"]["message"]
        .as_str()
        .unwrap()
        .contains("pages[1].url"));
    assert_eq!(s.stats().await["checked"], 0);
    assert_error(
        &s.send(s.http.delete(s.url("/v1/docs/abc"))).await,
        400,
        "invalid_id",
    );
    assert_error(&s.get("/v2/nothing").await, 404, "not_found");
    assert_error(&s.get("/v1/check").await, 405, "method_not_allowed");
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_body_is_413() {
    let s = Server::start(ServeOptions {
        max_body: 4096,
        ..ServeOptions::default()
    })
    .await;
    let big = json!({"url": "https://a.example/", "html": "x".repeat(5000)});
    assert_error(&s.post("/v1/check", &big).await, 413, "payload_too_large");
    let fits = json!({"url": "https://a.example/", "html": "x".repeat(3000)});
    assert_eq!(s.post("/v1/check", &fits).await.0, 200);
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bearer_token_is_required_except_for_healthz() {
    let s = Server::start(ServeOptions {
        token: Some("s3cret".into()),
        ..ServeOptions::default()
    })
    .await;
    let body = page("https://a.example/1", 40);
    let none = s.send(s.http.post(s.url("/v1/check")).json(&body)).await;
    assert_error(&none, 401, "unauthorized");
    let wrong = s
        .send(
            s.http
                .post(s.url("/v1/check"))
                .bearer_auth("s3cre")
                .json(&body),
        )
        .await;
    assert_error(&wrong, 401, "unauthorized");
    let longer = s
        .send(s.http.get(s.url("/v1/stats")).bearer_auth("s3cret!"))
        .await;
    assert_error(&longer, 401, "unauthorized");
    let resp = s.http.get(s.url("/metrics")).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 401);
    let ok = s
        .send(
            s.http
                .post(s.url("/v1/check"))
                .bearer_auth("s3cret")
                .json(&body),
        )
        .await;
    assert_eq!(ok.0, 200, "{}", ok.1);
    assert_eq!(ok.1["kind"], "unique");
    assert_eq!(s.get("/healthz").await.0, 200);
    s.stop().await.unwrap();
}

/// Opens a raw connection and sends a check whose body is `total` bytes
/// long but only the first `sent` bytes of it, so the request stays in
/// flight until the rest is written.
async fn half_sent_check(addr: SocketAddr, body: &[u8], sent: usize) -> tokio::net::TcpStream {
    let mut conn = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /v1/check HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n\
         content-length: {}\r\n\r\n",
        body.len()
    );
    conn.write_all(head.as_bytes()).await.unwrap();
    conn.write_all(&body[..sent]).await.unwrap();
    conn.flush().await.unwrap();
    conn
}

/// Sends the rest of the body and reads the whole response.
async fn finish(mut conn: tokio::net::TcpStream, rest: &[u8]) -> String {
    conn.write_all(rest).await.unwrap();
    let mut out = Vec::new();
    // The server closes the connection after answering during shutdown; in
    // other cases read until the JSON body is complete.
    let mut buf = [0u8; 4096];
    loop {
        let n = tokio::time::timeout(Duration::from_secs(10), conn.read(&mut buf))
            .await
            .expect("response within 10 s")
            .unwrap();
        if n == 0 {
            break;
        }
        out.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&out);
        if let Some((_, body)) = text.split_once("\r\n\r\n") {
            if serde_json::from_str::<Value>(body).is_ok() {
                break;
            }
        }
    }
    String::from_utf8(out).unwrap()
}

/// Gives the half-sent request time to pass the limit layer and reach its
/// body read (headers are parsed as soon as they arrive; 200 ms is ample on
/// a loaded machine), then checks the server still answers others.
async fn wait_until_connected(s: &Server) {
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(s.get("/healthz").await.0, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graceful_shutdown_finishes_the_request_in_flight() {
    let s = Server::start(ServeOptions::default()).await;
    let body = serde_json::to_vec(&page("https://a.example/inflight", 50)).unwrap();
    let conn = half_sent_check(s.addr, &body, 10).await;
    wait_until_connected(&s).await;
    let addr = s.addr;
    let mut s = s;
    let _ = s.stop.take().unwrap().send(());
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        !s.handle.is_finished(),
        "server waits for the request in flight"
    );
    let answer = finish(conn, &body[10..]).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("\"kind\":\"unique\""), "{answer}");
    tokio::time::timeout(Duration::from_secs(10), s.handle)
        .await
        .expect("server returns once drained")
        .unwrap()
        .unwrap();
    assert!(
        tokio::net::TcpStream::connect(addr).await.is_err(),
        "no longer accepting"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_clients_lose_nothing_and_get_one_answer_each() {
    let s = Server::start(ServeOptions::default()).await;
    let (tasks, per_task) = (50u64, 20u64);
    let mut handles = Vec::new();
    for t in 0..tasks {
        let (http, url) = (s.http.clone(), s.url("/v1/check"));
        handles.push(tokio::spawn(async move {
            let mut answers = Vec::new();
            for i in 0..per_task {
                // Every fifth page repeats content another task also sends.
                let seed = if i % 5 == 0 { 1_000 + i } else { t * 100 + i };
                let body = page(&format!("https://t{t}.example/{i}"), seed);
                let resp = http.post(&url).json(&body).send().await.unwrap();
                assert_eq!(resp.status().as_u16(), 200);
                answers.push(resp.json::<Value>().await.unwrap());
            }
            answers
        }));
    }
    let mut answers = Vec::new();
    for h in handles {
        answers.extend(h.await.unwrap());
    }
    assert_eq!(answers.len() as u64, tasks * per_task);
    let stats = s.stats().await;
    assert_eq!(stats["checked"].as_u64(), Some(tasks * per_task));
    let unique = answers.iter().filter(|a| a["kind"] == "unique").count();
    let dup = answers.iter().filter(|a| a["kind"] == "duplicate").count();
    assert_eq!(stats["unique"].as_u64(), Some(unique as u64));
    assert_eq!(stats["duplicates"].as_u64(), Some(dup as u64));
    // 4 shared seeds sent 50 times each: exactly one copy of each is kept.
    let distinct = tasks * (per_task - per_task / 5) + per_task / 5;
    assert_eq!(unique as u64, distinct);
    let mut ids: Vec<u64> = answers
        .iter()
        .filter_map(|a| a["indexed_as"].as_u64())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), unique, "every kept page got its own id");
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openapi_document_matches_the_server() {
    let doc = openapi();
    // Every example in the document fits its own schema.
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let at = format!("{method} {path}");
            if let Some(media) = op.pointer("/requestBody/content/application~1json") {
                validate(&doc, &media["schema"], &media["example"], &at).unwrap();
            }
            for (status, resp) in op["responses"].as_object().unwrap() {
                if let Some(media) = resp.pointer("/content/application~1json") {
                    if let Some(example) = media.get("example") {
                        validate(&doc, &media["schema"], example, &format!("{at} {status}"))
                            .unwrap();
                    }
                }
            }
        }
    }

    // Every documented operation is served, and its answer fits the schema
    // documented for the status it returned.
    let s = Server::start(ServeOptions::default()).await;
    let (_, seeded) = s
        .post("/v1/check", &page("https://seed.example/", 70))
        .await;
    let id = seeded["indexed_as"].as_u64().unwrap();
    // Query parameters take their documented examples; the page to delete
    // by URL is indexed at the example URL.
    let query = |op: &Value| -> String {
        let params: Vec<String> = op["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|p| p["in"] == "query")
            .map(|p| {
                let value = p["example"].as_str().unwrap();
                let encoded: String =
                    url::form_urlencoded::byte_serialize(value.as_bytes()).collect();
                format!("{}={encoded}", p["name"].as_str().unwrap())
            })
            .collect();
        if params.is_empty() {
            String::new()
        } else {
            format!("?{}", params.join("&"))
        }
    };
    let by_url = doc.pointer("/paths/~1v1~1docs/delete").unwrap();
    let example_url = by_url["parameters"][0]["example"].as_str().unwrap();
    let (status, _) = s.post("/v1/check", &page(example_url, 71)).await;
    assert_eq!(status, 200);
    let mut served = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let url = s.url(&format!(
                "{}{}",
                path.replace("{id}", &id.to_string()),
                query(op)
            ));
            let mut req = match method.as_str() {
                "get" => s.http.get(&url),
                "post" => s.http.post(&url),
                "delete" => s.http.delete(&url),
                other => panic!("undocumented method {other} in test"),
            };
            if let Some(example) = op.pointer("/requestBody/content/application~1json/example") {
                req = req.json(example);
            } else if let Some(example) = op.pointer("/requestBody/content/text~1html/example") {
                req = req
                    .header("content-type", "text/html")
                    .body(example.as_str().unwrap().to_owned());
            }
            let resp = req.send().await.unwrap();
            let status = resp.status().as_u16();
            assert_eq!(status, 200, "{method} {path}");
            let documented = &op["responses"][status.to_string()];
            let content_type = resp.headers()["content-type"].to_str().unwrap().to_owned();
            let text = resp.text().await.unwrap();
            if let Some(media) = documented.pointer("/content/application~1json") {
                assert!(
                    content_type.starts_with("application/json"),
                    "{content_type}"
                );
                let body: Value = serde_json::from_str(&text).unwrap();
                validate(&doc, &media["schema"], &body, &format!("{method} {path}")).unwrap();
            } else {
                assert!(documented.pointer("/content/text~1plain").is_some());
                assert!(content_type.starts_with("text/plain"), "{content_type}");
            }
            served += 1;
        }
    }
    assert_eq!(served, 9);

    // Error answers are documented for the operations that give them.
    let documented_error = |path: &str, method: &str, status: u16, body: &Value| {
        let op = &doc["paths"][path][method];
        let media = op
            .pointer(&format!("/responses/{status}/content/application~1json"))
            .unwrap_or_else(|| panic!("{method} {path}: {status} undocumented"));
        validate(
            &doc,
            &media["schema"],
            body,
            &format!("{method} {path} {status}"),
        )
        .unwrap();
    };
    for path in ["/v1/check", "/v1/check/batch"] {
        let got = s
            .send(
                s.http
                    .post(s.url(path))
                    .body("{}")
                    .header("content-type", "text/plain"),
            )
            .await;
        documented_error(path, "post", got.0, &got.1);
        let got = s.post(path, &json!({"url": "ftp://x/"})).await;
        documented_error(path, "post", got.0, &got.1);
    }
    let long = format!("https://a.example/{}", "a".repeat(3000));
    let got = s
        .post("/v1/check", &json!({"url": long, "html": "x"}))
        .await;
    assert_eq!(
        (got.0, &got.1["error"]["code"]),
        (400, &json!("url_too_long"))
    );
    documented_error("/v1/check", "post", got.0, &got.1);
    let batch = json!({"pages": [{"url": long, "html": "x"}]});
    let got = s.post("/v1/check/batch", &batch).await;
    documented_error("/v1/check/batch", "post", got.0, &got.1);
    for (query, content_type) in [
        ("?url=https://a.example/r", "application/json"),
        ("?url=ftp://x/", "text/html"),
        ("", "text/plain"),
    ] {
        let got = s.raw(query, Some(content_type), b"<p>x</p>".to_vec()).await;
        documented_error("/v1/check/raw", "post", got.0, &got.1);
    }
    let got = s
        .send(s.http.delete(s.url("/v1/docs?url=javascript%3Aalert(1)")))
        .await;
    assert_eq!(
        (got.0, &got.1["error"]["code"]),
        (400, &json!("invalid_url"))
    );
    documented_error("/v1/docs", "delete", got.0, &got.1);
    let got = s.send(s.http.delete(s.url("/v1/docs/999999"))).await;
    documented_error("/v1/docs/{id}", "delete", got.0, &got.1);
    let got = s.send(s.http.delete(s.url("/v1/docs/x"))).await;
    documented_error("/v1/docs/{id}", "delete", got.0, &got.1);
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validator_rejects_wrong_shapes() {
    // The schema checks above mean something only if the validator fails
    // on bodies that do not fit.
    let doc = openapi();
    let verdict = json!({"$ref": "#/components/schemas/Verdict"});
    let ok = json!({"kind": "unique", "matched": null, "indexed_as": 3, "warnings": []});
    assert!(validate(&doc, &verdict, &ok, "v").is_ok());
    for bad in [
        json!({"kind": "unique", "matched": null, "warnings": []}),
        json!({"kind": "maybe", "matched": null, "indexed_as": 3, "warnings": []}),
        json!({"kind": "unique", "matched": null, "indexed_as": "3", "warnings": []}),
        json!({"kind": "unique", "matched": {"id": 1}, "indexed_as": 3, "warnings": []}),
        json!({"kind": "unique", "matched": null, "indexed_as": 3, "warnings": [1]}),
    ] {
        assert!(validate(&doc, &verdict, &bad, "v").is_err(), "{bad}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn load_generator_counts_every_request() {
    let s = Server::start(ServeOptions::default()).await;
    let options = neardup_cli::load::LoadOptions {
        target: format!("http://{}", s.addr),
        clients: 4,
        requests: 120,
        page_bytes: 4_000,
        ..Default::default()
    };
    let report = neardup_cli::load::run(&options).await.unwrap();
    assert_eq!((report.sent, report.ok), (120, 120), "{report:?}");
    assert_eq!(report.server_checked, Some(120));
    assert_eq!(report.verdicts.values().sum::<usize>(), 120);
    assert_eq!(
        s.stats().await["unique"].as_u64(),
        report.verdicts.get("unique").map(|&n| n as u64)
    );
    // The generator repeats pages: some come back as copies.
    assert!(
        report.verdicts.get("duplicate").is_some_and(|&n| n > 0),
        "{report:?}"
    );
    assert!(
        report.p50_ms > 0.0 && report.p50_ms <= report.p99_ms && report.p99_ms <= report.max_ms
    );
    s.stop().await.unwrap();
    // The same pages, in one order (one client), as JSON and raw to two
    // fresh servers: the same verdicts.
    let mut reports = Vec::new();
    for raw in [false, true] {
        let s = Server::start(ServeOptions::default()).await;
        let report = neardup_cli::load::run(&neardup_cli::load::LoadOptions {
            target: format!("http://{}", s.addr),
            clients: 1,
            raw,
            ..options.clone()
        })
        .await
        .unwrap();
        assert_eq!((report.sent, report.ok), (120, 120), "{report:?}");
        s.stop().await.unwrap();
        reports.push(report);
    }
    assert_eq!(reports[1].verdicts, reports[0].verdicts);
    assert!(
        reports[1].body_bytes < reports[0].body_bytes,
        "raw bodies carry no JSON escapes: {reports:?}"
    );
}

#[test]
fn binary_serves_until_sigterm_and_exits_zero() {
    use std::io::BufRead as _;
    let dir = crate::util::Dir::new();
    let mut child = dir
        .cmd()
        .args(["serve", "--listen", "127.0.0.1:0", "--token", "t0k"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let addr = line
        .trim()
        .strip_prefix("neardup: listening on http://")
        .unwrap_or_else(|| panic!("{line:?}"))
        .to_owned();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let statuses = rt.block_on(async {
        let http = reqwest::Client::new();
        let health = http
            .get(format!("http://{addr}/healthz"))
            .send()
            .await
            .unwrap();
        let stats = http
            .get(format!("http://{addr}/v1/stats"))
            .send()
            .await
            .unwrap();
        let authed = http
            .get(format!("http://{addr}/v1/stats"))
            .bearer_auth("t0k")
            .send()
            .await
            .unwrap();
        (
            health.status().as_u16(),
            stats.status().as_u16(),
            authed.status().as_u16(),
        )
    });
    assert_eq!(statuses, (200, 401, 200));
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    assert_eq!(status.code(), Some(0), "{rest}");
    assert!(rest.contains("shut down"), "{rest}");
}

/// A signal sent the moment the address is announced is a clean shutdown
/// (exit 0, "shut down"), never the default action that kills the process
/// before it flushes: the handlers are installed before the announcement.
/// Seen once in a full test run on 2 busy cores: SIGINT right after the
/// first answer killed the server, whose signal future had not been
/// polled yet. On an idle machine that window is microseconds and this
/// test passes with or without the fix; under load it fails without it,
/// so the case is tried eight times.
#[test]
fn a_signal_right_after_the_announcement_shuts_down_cleanly() {
    let dir = crate::util::Dir::new();
    for (i, signal) in ["-INT", "-TERM"].iter().cycle().take(8).enumerate() {
        let (mut child, _addr, rest) =
            spawn_serve(&dir, &["--listen", "127.0.0.1:0", "--in-memory"]);
        let sent = std::process::Command::new("kill")
            .args([*signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let status = child.wait().unwrap();
        let rest = rest.join().unwrap();
        assert_eq!(
            status.code(),
            Some(0),
            "try {i} ({signal}): {status:?}: {rest}"
        );
        assert!(rest.contains("shut down"), "try {i} ({signal}): {rest}");
    }
}

/// Starts the binary's server in `dir` with `extra` flags; returns the
/// child and its address.
fn spawn_binary(dir: &crate::util::Dir, extra: &[&str]) -> (std::process::Child, String) {
    let args: Vec<&str> = ["--listen", "127.0.0.1:0"]
        .into_iter()
        .chain(extra.iter().copied())
        .collect();
    let (child, addr, _stderr) = spawn_serve(dir, &args);
    (child, addr)
}

/// Starts the binary's server with `args` in `dir`; returns it with its
/// address and a thread collecting the rest of its stderr (so the server
/// never blocks on a full pipe).
pub(crate) fn spawn_serve(
    dir: &crate::util::Dir,
    args: &[&str],
) -> (std::process::Child, String, std::thread::JoinHandle<String>) {
    use std::io::{BufRead as _, Read as _};
    let mut child = dir
        .cmd()
        .arg("serve")
        .args(args)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let addr = line
        .trim()
        .strip_prefix("neardup: listening on http://")
        .unwrap_or_else(|| panic!("{line:?}"))
        .to_owned();
    let rest = std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = stderr.read_to_string(&mut rest);
        rest
    });
    (child, addr, rest)
}

/// Stops a binary server with SIGTERM and expects exit code 0.
pub(crate) fn stop_binary(mut child: std::process::Child) {
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

/// Posts one page (as text) to a binary server; returns the verdict kind.
fn check_kind(addr: &str, url: &str, text: &str) -> String {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let body: serde_json::Value = reqwest::Client::new()
            .post(format!("http://{addr}/v1/check"))
            .json(&serde_json::json!({ "url": url, "text": text }))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        body["kind"]
            .as_str()
            .unwrap_or_else(|| panic!("{body}"))
            .to_owned()
    })
}

#[test]
fn binary_persists_by_default_and_in_memory_forgets() {
    let text = "The harbour authority published the tide tables for the coming winter \
        season, and the fishermen of the northern bay compared them with the records \
        their grandparents kept in notebooks at the old pier, finding that the spring \
        tides now arrive almost a full day earlier than they did sixty years ago.";
    // Default: a redb file in the working directory, kept across restarts.
    let dir = crate::util::Dir::new();
    let (child, addr) = spawn_binary(&dir, &[]);
    assert_eq!(check_kind(&addr, "https://a.example/tides", text), "unique");
    stop_binary(child);
    assert!(dir.path().join("neardup-index.redb").is_file());
    let (child, addr) = spawn_binary(&dir, &[]);
    assert_eq!(
        check_kind(&addr, "https://b.example/copy", text),
        "duplicate"
    );
    stop_binary(child);

    // --in-memory: no file, nothing remembered.
    let dir = crate::util::Dir::new();
    for _ in 0..2 {
        let (child, addr) = spawn_binary(&dir, &["--in-memory"]);
        assert_eq!(check_kind(&addr, "https://a.example/tides", text), "unique");
        stop_binary(child);
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// A distinct page of pseudo-words for `seed` (never a near copy of another).
fn distinct_text(seed: u64) -> String {
    crate::util::pseudo_words(seed, 120, 100_000)
}

#[test]
fn acknowledged_verdicts_survive_sigkill() {
    // Many clients at once, so the decider commits pages in groups; then
    // SIGKILL without any shutdown: every page a client was told about must
    // be in the reopened index (durable before the answer).
    const PAGES: u64 = 160;
    let dir = crate::util::Dir::new();
    let (mut child, addr) = spawn_binary(&dir, &[]);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let kinds = rt.block_on(async {
        let http = reqwest::Client::new();
        let tasks: Vec<_> = (0..PAGES)
            .map(|i| {
                let http = http.clone();
                let addr = addr.clone();
                tokio::spawn(async move {
                    let body: serde_json::Value = http
                        .post(format!("http://{addr}/v1/check"))
                        .json(&serde_json::json!({
                            "url": format!("https://a.example/{i}"),
                            "text": distinct_text(i),
                        }))
                        .send()
                        .await
                        .unwrap()
                        .json()
                        .await
                        .unwrap();
                    body["kind"].as_str().unwrap().to_owned()
                })
            })
            .collect();
        let mut kinds = Vec::new();
        for t in tasks {
            kinds.push(t.await.unwrap());
        }
        kinds
    });
    assert!(kinds.iter().all(|k| k == "unique"), "{kinds:?}");
    child.kill().unwrap();
    child.wait().unwrap();
    let (child, addr) = spawn_binary(&dir, &[]);
    for i in 0..PAGES {
        let url = format!("https://b.example/{i}");
        assert_eq!(check_kind(&addr, &url, &distinct_text(i)), "duplicate");
    }
    stop_binary(child);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_pages_are_checked_off_the_runtime_and_decided_in_order() {
    // Over 256 KB a single page is analyzed on the worker pool instead of
    // the runtime thread; the verdicts must be the same as for small ones.
    let s = Server::start(ServeOptions::default()).await;
    let text = (0..60_000u64)
        .map(|i| {
            distinct_text(i % 500)
                .split(' ')
                .nth(i as usize % 100)
                .unwrap_or("w")
                .to_owned()
        })
        .collect::<Vec<_>>()
        .join(" ");
    assert!(text.len() > 256 * 1024, "{}", text.len());
    let (status, first) = s
        .post(
            "/v1/check",
            &json!({"url": "https://a.example/big", "text": text}),
        )
        .await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["kind"], "unique", "{first}");
    let (status, copy) = s
        .post(
            "/v1/check",
            &json!({"url": "https://b.example/big", "text": text}),
        )
        .await;
    assert_eq!(status, 200, "{copy}");
    assert_eq!(copy["kind"], "duplicate", "{copy}");
    assert_eq!(copy["matched"]["url"], "https://a.example/big");
    s.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_returns_with_the_index_released_and_committed() {
    // After `run` returns, the decider has stopped and dropped its handle:
    // the caller's is the last, so the redb file closes when it is dropped
    // and can be opened again in this process, with every page in it.
    let dir = crate::util::Dir::new();
    let path = dir.path().join("index.redb");
    let registry = neardup::Registry::default();
    let deduper = SharedDeduper::new(Deduper::open(Config::default(), &registry, &path).unwrap());
    let s = Server::start_with(deduper, ServeOptions::default()).await;
    let (_, first) = s.post("/v1/check", &page("https://a.example/1", 1)).await;
    let (_, second) = s.post("/v1/check", &page("https://a.example/2", 2)).await;
    assert_eq!(
        (&first["kind"], &second["kind"]),
        (&json!("unique"), &json!("unique"))
    );
    s.stop().await.unwrap();
    let reopened = Deduper::open(Config::default(), &registry, &path).unwrap();
    assert_eq!(reopened.stats().indexed, 2);
}
