//! Request counters and latency histograms, rendered in the Prometheus text
//! exposition format (version 0.0.4). Hand-written: a handful of series does
//! not justify a metrics registry crate.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::Duration;

use crate::deduper::Stats;

/// Upper bounds of the latency buckets, in seconds: fine below 20 ms (the
/// latency target), coarse above.
const BUCKETS: [f64; 14] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

#[derive(Default)]
struct Histogram {
    /// Observations per bucket (not cumulative; summed when rendered).
    counts: [u64; BUCKETS.len()],
    /// Observations above the last bucket.
    over: u64,
    sum: f64,
}

impl Histogram {
    fn observe(&mut self, seconds: f64) {
        match BUCKETS.iter().position(|&b| seconds <= b) {
            Some(i) => {
                if let Some(c) = self.counts.get_mut(i) {
                    *c += 1;
                }
            }
            None => self.over += 1,
        }
        self.sum += seconds;
    }

    fn count(&self) -> u64 {
        self.counts.iter().sum::<u64>() + self.over
    }
}

#[derive(Default)]
struct Inner {
    /// (endpoint, status) -> requests.
    requests: BTreeMap<(String, u16), u64>,
    /// endpoint -> latency.
    latency: BTreeMap<String, Histogram>,
}

/// The server's metrics. One mutex: a request updates it once, for well
/// under a microsecond, so it does not contend at the request rates a
/// two-core server reaches.
#[derive(Default)]
pub struct Metrics {
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Metrics {
    /// Records one answered request.
    pub fn record(&self, endpoint: &str, status: u16, elapsed: Duration) {
        // A poisoned lock only means another request panicked mid-update;
        // the counters are still usable.
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        *inner
            .requests
            .entry((endpoint.to_owned(), status))
            .or_default() += 1;
        inner
            .latency
            .entry(endpoint.to_owned())
            .or_default()
            .observe(elapsed.as_secs_f64());
    }

    /// The exposition text: request counters and latency, plus the
    /// deduper's verdict counters and index size passed in.
    pub fn render(&self, stats: Stats, commits: u64, memory: &[(String, usize)]) -> String {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = String::new();
        // Writing to a String cannot fail; the results are ignored.
        let _ = writeln!(
            out,
            "# HELP neardup_http_requests_total HTTP requests answered, by endpoint and status.\n\
             # TYPE neardup_http_requests_total counter"
        );
        for ((endpoint, status), n) in &inner.requests {
            let _ = writeln!(
                out,
                "neardup_http_requests_total{{endpoint=\"{}\",status=\"{status}\"}} {n}",
                escape(endpoint)
            );
        }
        let _ = writeln!(
            out,
            "# HELP neardup_http_request_duration_seconds Time from request to response, by endpoint.\n\
             # TYPE neardup_http_request_duration_seconds histogram"
        );
        for (endpoint, h) in &inner.latency {
            let endpoint = escape(endpoint);
            let mut cumulative = 0;
            for (bound, n) in BUCKETS.iter().zip(&h.counts) {
                cumulative += n;
                let _ = writeln!(
                    out,
                    "neardup_http_request_duration_seconds_bucket{{endpoint=\"{endpoint}\",le=\"{bound}\"}} {cumulative}"
                );
            }
            let _ = writeln!(
                out,
                "neardup_http_request_duration_seconds_bucket{{endpoint=\"{endpoint}\",le=\"+Inf\"}} {}\n\
                 neardup_http_request_duration_seconds_sum{{endpoint=\"{endpoint}\"}} {}\n\
                 neardup_http_request_duration_seconds_count{{endpoint=\"{endpoint}\"}} {}",
                h.count(),
                h.sum,
                h.count()
            );
        }
        let _ = writeln!(
            out,
            "# HELP neardup_checks_total Pages checked, by verdict.\n\
             # TYPE neardup_checks_total counter\n\
             neardup_checks_total{{verdict=\"unique\"}} {}\n\
             neardup_checks_total{{verdict=\"duplicate\"}} {}\n\
             neardup_checks_total{{verdict=\"near_duplicate\"}} {}\n\
             # HELP neardup_index_documents Documents in the index.\n\
             # TYPE neardup_index_documents gauge\n\
             neardup_index_documents {}\n\
             # HELP neardup_index_commits_total Index commits, each covering a group of decisions.\n\
             # TYPE neardup_index_commits_total counter\n\
             neardup_index_commits_total {}\n\
             # HELP neardup_index_memory_bytes Approximate heap bytes, by tier.\n\
             # TYPE neardup_index_memory_bytes gauge",
            stats.unique, stats.duplicates, stats.near_duplicates, stats.indexed, commits
        );
        for (tier, bytes) in memory {
            let _ = writeln!(
                out,
                "neardup_index_memory_bytes{{tier=\"{}\"}} {bytes}",
                escape(tier)
            );
        }
        out
    }
}

/// Escapes a label value (backslash, quote, newline), per the format spec.
fn escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_cumulative_and_count_everything() {
        let m = Metrics::default();
        m.record("/v1/check", 200, Duration::from_micros(300));
        m.record("/v1/check", 200, Duration::from_millis(3));
        m.record("/v1/check", 400, Duration::from_secs(20));
        let text = m.render(Stats::default(), 0, &[]);
        assert!(
            text.contains("neardup_http_requests_total{endpoint=\"/v1/check\",status=\"200\"} 2")
        );
        assert!(
            text.contains("neardup_http_requests_total{endpoint=\"/v1/check\",status=\"400\"} 1")
        );
        // 0.3 ms falls in the first bucket; 3 ms first counts at le=0.005.
        assert!(text.contains("_bucket{endpoint=\"/v1/check\",le=\"0.0005\"} 1\n"));
        assert!(text.contains("_bucket{endpoint=\"/v1/check\",le=\"0.0025\"} 1\n"));
        assert!(text.contains("_bucket{endpoint=\"/v1/check\",le=\"0.005\"} 2\n"));
        assert!(text.contains("_bucket{endpoint=\"/v1/check\",le=\"10\"} 2\n"));
        assert!(text.contains("_bucket{endpoint=\"/v1/check\",le=\"+Inf\"} 3\n"));
        assert!(text.contains("_count{endpoint=\"/v1/check\"} 3\n"));
    }

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
