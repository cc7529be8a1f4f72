//! A load generator for `neardup serve`: N concurrent clients send
//! generated pages (a mix of distinct pages, exact copies and near copies)
//! to `POST /v1/check` (or, raw, to `POST /v1/check/raw`), bounded in
//! request count and time, and report throughput and latency percentiles.
//!
//! Pages and request bodies are generated before the clock starts, so on a
//! shared machine the generator's CPU goes to HTTP only.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

use neardup_serve::dto::{CheckRequest, VerdictBody};

/// What to send, how, and for how long.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    /// Server base URL, e.g. `http://127.0.0.1:8686`.
    pub target: String,
    /// Concurrent clients (each with at most one request in flight).
    pub clients: usize,
    /// Requests to send in all.
    pub requests: usize,
    /// Approximate HTML size of each page, in bytes.
    pub page_bytes: usize,
    /// Share of each page's bytes that is article text, `0..=1`; the rest
    /// is markup: a navigation list of links and an inline script. Real
    /// pages are mostly markup: on `../shared/bench/neardup-dev` visible
    /// text is 10% of the HTML bytes.
    pub text_share: f64,
    /// Share of requests that repeat an earlier page: half exact copies
    /// under a new URL, half near copies (2% of words changed).
    pub duplicate_share: f64,
    /// Stop sending after this long even if requests remain.
    pub max_time: Duration,
    /// Seed of the page generator: equal seeds send equal pages.
    pub seed: u64,
    /// Bearer token, if the server wants one.
    pub token: Option<String>,
    /// What the article text is made of.
    pub words: LoadWords,
    /// Send each page's HTML bytes to `POST /v1/check/raw` instead of JSON
    /// to `POST /v1/check`.
    pub raw: bool,
}

/// The words of generated article text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LoadWords {
    /// English-like: 40% of the words are the commonest English function
    /// words (as in real English text, where the top 40 cover about 40%
    /// of tokens), the rest pseudo-words. The stop-word vote then settles
    /// the language, as on real English pages.
    #[default]
    English,
    /// Pseudo-words only: text of no known language, the worst case for
    /// language identification (whatlang scores every Latin-script
    /// profile on every page).
    Pseudo,
}

impl Default for LoadOptions {
    fn default() -> LoadOptions {
        LoadOptions {
            target: "http://127.0.0.1:8686".into(),
            clients: 16,
            requests: 10_000,
            page_bytes: 10_000,
            text_share: 1.0,
            duplicate_share: 0.3,
            max_time: Duration::from_secs(60),
            seed: 1,
            token: None,
            words: LoadWords::English,
            raw: false,
        }
    }
}

/// The outcome of a load run.
#[derive(Clone, Debug, Serialize)]
pub struct LoadReport {
    /// Concurrent clients.
    pub clients: usize,
    /// Average request body bytes sent (JSON, or HTML when raw).
    pub body_bytes: usize,
    /// Requests sent.
    pub sent: usize,
    /// Requests answered with 2xx and a verdict.
    pub ok: usize,
    /// Requests answered with another status, by status.
    pub http_errors: BTreeMap<u16, usize>,
    /// Requests that got no answer (connection errors, client timeouts).
    pub transport_errors: usize,
    /// Wall time from first send to last answer, in seconds.
    pub seconds: f64,
    /// Successful checks per second.
    pub checks_per_sec: f64,
    /// Median latency of successful checks, in milliseconds.
    pub p50_ms: f64,
    /// 90th percentile latency, in milliseconds.
    pub p90_ms: f64,
    /// 99th percentile latency, in milliseconds.
    pub p99_ms: f64,
    /// Slowest successful check, in milliseconds.
    pub max_ms: f64,
    /// Verdicts received, by kind.
    pub verdicts: BTreeMap<String, usize>,
    /// Pages the server checked during the run (its `/v1/stats` counter
    /// before and after): equal to `ok` when no request was lost or
    /// answered twice, and no other client was sending.
    pub server_checked: Option<u64>,
    /// CPU time the generator itself spent per successful check while the
    /// clock ran, in microseconds (Linux: `/proc/thread-self/schedstat`;
    /// the generator runs on one thread). On a machine shared with the
    /// server this is CPU the server did not get.
    pub client_cpu_us_per_check: Option<f64>,
}

/// A small deterministic generator (splitmix64): page content must not
/// depend on std's randomly seeded hashers.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < p
    }
}

/// Vocabulary: pronounceable pseudo-words, so the normalizer sees words.
fn vocabulary(rng: &mut Rng, n: usize) -> Vec<String> {
    const SYL: [&str; 16] = [
        "ka", "lo", "mi", "ter", "san", "ve", "ro", "dun", "pli", "os", "gra", "fe", "nu", "bel",
        "tor", "wi",
    ];
    (0..n)
        .map(|_| {
            let syllables = 1 + rng.below(3);
            (0..syllables)
                .map(|_| SYL.get(rng.below(SYL.len())).copied().unwrap_or("a"))
                .collect()
        })
        .collect()
}

/// The commonest English words, most frequent first.
const FUNCTION_WORDS: [&str; 40] = [
    "the", "of", "and", "to", "a", "in", "is", "that", "for", "it", "as", "was", "with", "be",
    "by", "on", "not", "he", "this", "are", "or", "his", "from", "at", "which", "but", "have",
    "an", "had", "they", "you", "were", "their", "one", "all", "we", "can", "her", "has", "there",
];

/// One word of article text.
fn word(rng: &mut Rng, vocab: &[String], kind: LoadWords) -> String {
    if kind == LoadWords::English && rng.chance(0.4) {
        // Skewed towards the head of the list, as word frequencies are.
        let head = rng.below(FUNCTION_WORDS.len()) + 1;
        let i = rng.below(head);
        return FUNCTION_WORDS.get(i).copied().unwrap_or("the").to_owned();
    }
    vocab
        .get(rng.below(vocab.len()))
        .cloned()
        .unwrap_or_default()
}

/// One page of words, as paragraphs, to about `bytes` of text.
fn page_words(rng: &mut Rng, vocab: &[String], bytes: usize, kind: LoadWords) -> Vec<String> {
    let mut words = Vec::new();
    let mut len = 0;
    while len < bytes {
        let w = word(rng, vocab, kind);
        len += w.len() + 1;
        words.push(w);
    }
    words
}

/// The page: `markup` bytes of boilerplate (a fifth navigation links, the
/// rest an inline script), then the words as paragraphs of an article.
fn to_html(words: &[String], markup: usize) -> String {
    let mut html = String::from("<html><head><title>load page</title>");
    let nav_end = html.len() + markup / 5;
    html.push_str("<body><nav><ul>");
    let mut i = 0;
    while html.len() < nav_end {
        html.push_str(&format!(
            "<li><a href=\"/section/{i}\">section {i}</a></li>"
        ));
        i += 1;
    }
    html.push_str("</ul></nav><script>var config = [");
    let script_end = html.len() + markup.saturating_sub(markup / 5);
    while html.len() < script_end {
        html.push_str("1234567,");
    }
    html.push_str("0];</script><article>");
    for para in words.chunks(60) {
        html.push_str("<p>");
        html.push_str(&para.join(" "));
        html.push_str("</p>");
    }
    html.push_str("</article></body></html>");
    html
}

/// A generated page.
#[derive(Clone, Debug, PartialEq)]
struct GeneratedPage {
    url: String,
    html: String,
}

/// One request, ready to send again and again: its body is shared, not
/// copied, per send.
struct Prepared {
    endpoint: url::Url,
    content_type: &'static str,
    body: axum::body::Bytes,
}

/// The pages to send, in send order.
fn generate(options: &LoadOptions) -> Vec<GeneratedPage> {
    let mut rng = Rng(options.seed);
    let vocab = vocabulary(&mut rng, 5000);
    // Fixed markup adds ~150 bytes per page plus 7 per paragraph.
    let share = options.text_share.clamp(0.0, 1.0);
    let text_bytes =
        ((options.page_bytes.saturating_sub(150) as f64 * share) as usize).max(200) * 60 / 61;
    let markup = options
        .page_bytes
        .saturating_sub(150)
        .saturating_sub(text_bytes * 61 / 60);
    let mut distinct: Vec<Vec<String>> = Vec::new();
    let mut pages = Vec::with_capacity(options.requests);
    for i in 0..options.requests {
        let words = if !distinct.is_empty() && rng.chance(options.duplicate_share) {
            let original = distinct
                .get(rng.below(distinct.len()))
                .cloned()
                .unwrap_or_default();
            if rng.chance(0.5) {
                original
            } else {
                let mut near = original;
                let n = near.len();
                for _ in 0..n / 50 {
                    let at = rng.below(n);
                    if let Some(w) = near.get_mut(at) {
                        *w = word(&mut rng, &vocab, options.words);
                    }
                }
                near
            }
        } else {
            let words = page_words(&mut rng, &vocab, text_bytes, options.words);
            distinct.push(words.clone());
            words
        };
        pages.push(GeneratedPage {
            url: format!("http://load{}.example/page/{i}", i % 97),
            html: to_html(&words, markup),
        });
    }
    pages
}

/// The requests that send `pages` to the server at `base`: JSON to
/// `/v1/check`, or (`raw`) the HTML bytes to `/v1/check/raw?url=...`.
fn prepare(
    pages: Vec<GeneratedPage>,
    base: &url::Url,
    raw: bool,
) -> neardup::Result<Vec<Prepared>> {
    let bad_target = |e: url::ParseError| neardup::Error::Argument {
        name: format!("target {:?}", base.as_str()),
        message: e.to_string(),
    };
    let check = base.join("/v1/check").map_err(bad_target)?;
    let raw_check = base.join("/v1/check/raw").map_err(bad_target)?;
    pages
        .into_iter()
        .map(|page| {
            if raw {
                let mut endpoint = raw_check.clone();
                endpoint.query_pairs_mut().append_pair("url", &page.url);
                Ok(Prepared {
                    endpoint,
                    content_type: "text/html; charset=utf-8",
                    body: page.html.into(),
                })
            } else {
                let req = CheckRequest {
                    url: Some(page.url),
                    html: Some(page.html),
                    ..CheckRequest::default()
                };
                let body = serde_json::to_vec(&req).map_err(|e| {
                    neardup::Error::runtime(
                        "load generator",
                        format!("cannot encode a request: {e}"),
                    )
                })?;
                Ok(Prepared {
                    endpoint: check.clone(),
                    content_type: "application/json",
                    body: body.into(),
                })
            }
        })
        .collect()
}

/// What one client saw.
#[derive(Default)]
struct ClientTally {
    latencies: Vec<Duration>,
    http_errors: BTreeMap<u16, usize>,
    transport_errors: usize,
    verdicts: BTreeMap<String, usize>,
    body_bytes: usize,
}

/// Runs the load and reports. Request failures are counted, not returned.
///
/// # Errors
/// If the target URL is invalid or the HTTP client cannot be built.
pub async fn run(options: &LoadOptions) -> neardup::Result<LoadReport> {
    let bad_target = |message: String| neardup::Error::Argument {
        name: format!("target {:?}", options.target),
        message,
    };
    let base = url::Url::parse(&options.target).map_err(|e| bad_target(e.to_string()))?;
    let requests = Arc::new(prepare(generate(options), &base, options.raw)?);
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(options.clients)
        .timeout(options.max_time)
        .build()
        .map_err(|e| neardup::Error::runtime("HTTP client", format!("cannot build: {e}")))?;
    let stats_url = base
        .join("/v1/stats")
        .map_err(|e| bad_target(e.to_string()))?;
    let checked_before = server_checked(&client, &stats_url, options.token.as_deref()).await;
    let next = Arc::new(AtomicUsize::new(0));
    let cpu_before = thread_cpu_ns();
    let start = Instant::now();
    let deadline = start + options.max_time;
    let mut tasks = Vec::new();
    for _ in 0..options.clients.max(1) {
        let (client, requests, next) = (client.clone(), requests.clone(), next.clone());
        let token = options.token.clone();
        tasks.push(tokio::spawn(async move {
            let mut tally = ClientTally::default();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(prepared) = requests.get(i) else {
                    break;
                };
                if Instant::now() >= deadline {
                    break;
                }
                tally.body_bytes += prepared.body.len();
                let mut req = client
                    .post(prepared.endpoint.clone())
                    .header("content-type", prepared.content_type)
                    .body(prepared.body.clone());
                if let Some(t) = &token {
                    req = req.bearer_auth(t);
                }
                let sent = Instant::now();
                let resp = match req.send().await {
                    Ok(r) => r,
                    Err(_) => {
                        tally.transport_errors += 1;
                        continue;
                    }
                };
                let status = resp.status().as_u16();
                let bytes = match resp.bytes().await {
                    Ok(b) => b,
                    Err(_) => {
                        tally.transport_errors += 1;
                        continue;
                    }
                };
                let elapsed = sent.elapsed();
                match serde_json::from_slice::<VerdictBody>(&bytes) {
                    Ok(v) if status == 200 => {
                        tally.latencies.push(elapsed);
                        *tally
                            .verdicts
                            .entry(v.kind.as_str().to_owned())
                            .or_default() += 1;
                    }
                    _ => *tally.http_errors.entry(status).or_default() += 1,
                }
            }
            tally
        }));
    }
    let mut all = ClientTally::default();
    for task in tasks {
        let t = task
            .await
            .map_err(|e| neardup::Error::runtime("load client task", e))?;
        all.latencies.extend(t.latencies);
        all.transport_errors += t.transport_errors;
        all.body_bytes += t.body_bytes;
        for (k, v) in t.http_errors {
            *all.http_errors.entry(k).or_default() += v;
        }
        for (k, v) in t.verdicts {
            *all.verdicts.entry(k).or_default() += v;
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let cpu_after = thread_cpu_ns();
    let checked_after = server_checked(&client, &stats_url, options.token.as_deref()).await;
    all.latencies.sort_unstable();
    let pct = |p: f64| -> f64 {
        if all.latencies.is_empty() {
            return 0.0;
        }
        // Nearest rank.
        let rank = ((p * all.latencies.len() as f64).ceil() as usize).clamp(1, all.latencies.len());
        all.latencies
            .get(rank - 1)
            .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    };
    let ok = all.latencies.len();
    let sent = ok + all.transport_errors + all.http_errors.values().sum::<usize>();
    Ok(LoadReport {
        clients: options.clients,
        body_bytes: all.body_bytes / sent.max(1),
        sent,
        ok,
        http_errors: all.http_errors,
        transport_errors: all.transport_errors,
        seconds,
        checks_per_sec: ok as f64 / seconds.max(1e-9),
        p50_ms: pct(0.50),
        p90_ms: pct(0.90),
        p99_ms: pct(0.99),
        max_ms: pct(1.0),
        verdicts: all.verdicts,
        server_checked: checked_before
            .zip(checked_after)
            .map(|(b, a)| a.saturating_sub(b)),
        client_cpu_us_per_check: cpu_before
            .zip(cpu_after)
            .filter(|_| ok > 0)
            .map(|(b, a)| a.saturating_sub(b) as f64 / 1000.0 / ok as f64),
    })
}

/// CPU time of the calling thread in nanoseconds, where the kernel tells
/// (`/proc/thread-self/schedstat`, first field).
fn thread_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The server's `checked` counter, if `/v1/stats` answers.
async fn server_checked(
    client: &reqwest::Client,
    url: &url::Url,
    token: Option<&str>,
) -> Option<u64> {
    let mut req = client.get(url.clone());
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let stats: neardup_serve::dto::StatsBody = req.send().await.ok()?.json().await.ok()?;
    Some(stats.checked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_pages_have_the_requested_size_and_mix() {
        let options = LoadOptions {
            requests: 200,
            page_bytes: 10_000,
            duplicate_share: 0.3,
            ..LoadOptions::default()
        };
        let pages = generate(&options);
        assert_eq!(pages.len(), 200);
        let htmls: Vec<&String> = pages.iter().map(|p| &p.html).collect();
        for html in &htmls {
            assert!((9_000..=11_000).contains(&html.len()), "{}", html.len());
        }
        let exact_repeats = htmls
            .iter()
            .enumerate()
            .filter(|(i, h)| htmls[..*i].contains(h))
            .count();
        // ~15% exact copies expected (half of 30%); a wide band for chance.
        assert!((10..=55).contains(&exact_repeats), "{exact_repeats}");
        assert_eq!(generate(&options), pages, "same seed, same pages");
        let sparse = LoadOptions {
            requests: 5,
            text_share: 0.1,
            ..options
        };
        for page in generate(&sparse) {
            let html = page.html;
            assert!((9_000..=11_000).contains(&html.len()), "{}", html.len());
            let article = html.split("<article>").nth(1).unwrap().len();
            assert!((800..=1_400).contains(&article), "{article}");
        }
    }

    #[test]
    fn requests_carry_each_page_as_json_or_as_raw_bytes() {
        let pages = generate(&LoadOptions {
            requests: 3,
            ..LoadOptions::default()
        });
        let base = url::Url::parse("http://127.0.0.1:9/").unwrap();
        let json = prepare(pages.clone(), &base, false).unwrap();
        let raw = prepare(pages.clone(), &base, true).unwrap();
        for ((page, j), r) in pages.iter().zip(&json).zip(&raw) {
            assert_eq!(j.endpoint.as_str(), "http://127.0.0.1:9/v1/check");
            assert_eq!(j.content_type, "application/json");
            let req: CheckRequest = serde_json::from_slice(&j.body).unwrap();
            assert_eq!(req.url.as_deref(), Some(page.url.as_str()));
            assert_eq!(req.html.as_deref(), Some(page.html.as_str()));
            assert_eq!(r.endpoint.path(), "/v1/check/raw");
            let query: Vec<(String, String)> = r.endpoint.query_pairs().into_owned().collect();
            assert_eq!(query, vec![("url".to_owned(), page.url.clone())]);
            assert!(r.content_type.starts_with("text/html"));
            assert_eq!(&r.body[..], page.html.as_bytes());
        }
    }

    /// Share of the article's words that are English function words.
    fn function_share(options: &LoadOptions) -> f64 {
        let (mut all, mut function) = (0usize, 0usize);
        for page in generate(options) {
            let html = page.html;
            let article = html.split("<article>").nth(1).unwrap().replace("<p>", " ");
            for w in article
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
            {
                all += 1;
                function += usize::from(FUNCTION_WORDS.contains(&w));
            }
        }
        function as f64 / all.max(1) as f64
    }

    #[test]
    fn english_pages_are_two_fifths_function_words_and_pseudo_pages_none() {
        let english = LoadOptions {
            requests: 20,
            ..LoadOptions::default()
        };
        let share = function_share(&english);
        assert!((0.35..=0.45).contains(&share), "{share}");
        let pseudo = LoadOptions {
            words: LoadWords::Pseudo,
            ..english
        };
        assert!(function_share(&pseudo) < 0.01);
    }
}
