//! The one local-site fixture of the crawl and fetch tests: a server on
//! 127.0.0.1 with fixed answers by path (or answers computed from the
//! request), every request recorded, an optional delay per answer.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Router;

/// What a [`Site`] saw of one request.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The `Host` header (`127.0.0.1:PORT`, `localhost:PORT`).
    pub host: String,
    /// The path, as the server received it (percent escapes kept).
    pub path: String,
    /// The query, if any.
    pub query: Option<String>,
}

impl Request {
    /// Path and query as requested: `/list.html?b=1&a=2`.
    pub fn target(&self) -> String {
        match &self.query {
            Some(q) => format!("{}?{q}", self.path),
            None => self.path.clone(),
        }
    }

    /// The port of the `Host` header.
    pub fn port(&self) -> &str {
        self.host.rsplit(':').next().unwrap_or("")
    }
}

/// An answer computed from the request.
type Route = Arc<dyn Fn(&Request) -> Answer + Send + Sync>;

/// One answer of a [`Site`]: status, headers, body.
#[derive(Clone)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// Headers (a content type is replaced, others added).
    pub headers: Vec<(&'static str, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl Answer {
    /// A 200 HTML page around `body`.
    pub fn html(body: &str) -> Answer {
        Answer {
            status: 200,
            headers: vec![("content-type", "text/html".into())],
            body: format!("<html><body>{body}</body></html>").into_bytes(),
        }
    }

    /// A 200 HTML page whose `<head>` holds `head`.
    pub fn html_head(head: &str, body: &str) -> Answer {
        Answer {
            body: format!("<html><head>{head}</head><body>{body}</body></html>").into_bytes(),
            ..Answer::html("")
        }
    }

    /// An answer with this content type and body.
    pub fn typed(content_type: &str, body: impl Into<Vec<u8>>) -> Answer {
        Answer {
            status: 200,
            headers: vec![("content-type", content_type.into())],
            body: body.into(),
        }
    }

    /// Adds a header.
    pub fn with(mut self, name: &'static str, value: &str) -> Answer {
        self.headers.push((name, value.into()));
        self
    }
}

/// A test site: fixed answers by path (404 for the rest), every request
/// path recorded, an optional delay per answer.
#[derive(Clone, Default)]
pub struct Site {
    pages: Arc<HashMap<String, Answer>>,
    hits: Arc<Mutex<Vec<String>>>,
    delay: Duration,
    routes: Arc<HashMap<String, Route>>,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl Site {
    /// A site with these answers.
    pub fn new(pages: Vec<(&str, Answer)>) -> Site {
        Site {
            pages: Arc::new(pages.into_iter().map(|(p, a)| (p.to_owned(), a)).collect()),
            ..Site::default()
        }
    }

    /// Answers `path` by calling `route` with each request: for answers
    /// that depend on the query, the `Host` header or the port.
    pub fn route(
        mut self,
        path: &str,
        route: impl Fn(&Request) -> Answer + Send + Sync + 'static,
    ) -> Site {
        let mut routes: HashMap<String, Route> = self.routes.as_ref().clone();
        routes.insert(path.to_owned(), Arc::new(route));
        self.routes = Arc::new(routes);
        self
    }

    /// Waits `delay` before each answer but robots.txt's.
    pub fn delayed(mut self, delay: Duration) -> Site {
        self.delay = delay;
        self
    }

    /// Paths requested so far, in order.
    pub fn hits(&self) -> Vec<String> {
        self.hits.lock().expect("lock").clone()
    }

    /// Requests so far, in order, with query and `Host`.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().expect("lock").clone()
    }

    /// Serves the site on 127.0.0.1 (on the current tokio runtime).
    pub async fn start(self) -> std::net::SocketAddr {
        self.start_on("127.0.0.1:0".parse().expect("address")).await
    }

    /// Serves the site on `addr`.
    pub async fn start_on(self, addr: std::net::SocketAddr) -> std::net::SocketAddr {
        async fn handle(State(site): State<Site>, headers: HeaderMap, uri: Uri) -> Response {
            let path = uri.path().to_owned();
            let request = Request {
                host: headers
                    .get(header::HOST)
                    .and_then(|h| h.to_str().ok())
                    .unwrap_or("")
                    .to_owned(),
                path: path.clone(),
                query: uri.query().map(str::to_owned),
            };
            site.hits.lock().expect("lock").push(path.clone());
            site.requests.lock().expect("lock").push(request.clone());
            if !site.delay.is_zero() && path != "/robots.txt" {
                tokio::time::sleep(site.delay).await;
            }
            let routed = site.routes.get(&path).map(|route| route(&request));
            let Some(a) = routed.as_ref().or_else(|| site.pages.get(&path)) else {
                return (StatusCode::NOT_FOUND, "no such page").into_response();
            };
            let mut r = a.body.clone().into_response();
            *r.status_mut() = StatusCode::from_u16(a.status).expect("status");
            // The body's default content type is replaced; other headers
            // may repeat (X-Robots-Tag).
            r.headers_mut().remove("content-type");
            for (k, v) in &a.headers {
                r.headers_mut().append(
                    HeaderName::from_static(k),
                    HeaderValue::from_str(v).expect("header"),
                );
            }
            r
        }
        let listener = tokio::net::TcpListener::bind(addr).await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let app = Router::new().fallback(handle).with_state(self);
        tokio::spawn(async move { axum::serve(listener, app).await });
        addr
    }
}

impl Answer {
    /// A redirect (`status`, 3xx) to `location`.
    pub fn redirect(status: u16, location: &str) -> Answer {
        Answer {
            status,
            headers: vec![("location", location.into())],
            body: Vec::new(),
        }
    }

    /// A plain-text answer (robots.txt).
    pub fn text(body: &str) -> Answer {
        Answer::typed("text/plain", body.as_bytes().to_vec())
    }
}
