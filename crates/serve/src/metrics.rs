//! Request counters and latency histograms, the standard `process_*`
//! metrics and `neardup_build_info`, rendered in the Prometheus text
//! exposition format (version 0.0.4). Hand-written: a handful of series does
//! not justify a metrics registry crate (docs/serve.md, "Metrics", has the
//! measurement behind this).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::Duration;

use neardup::Stats;

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
            stats.verdicts.unique, stats.verdicts.duplicates, stats.verdicts.near_duplicates, stats.indexed, commits
        );
        for (tier, bytes) in memory {
            let _ = writeln!(
                out,
                "neardup_index_memory_bytes{{tier=\"{}\"}} {bytes}",
                escape(tier)
            );
        }
        let _ = writeln!(
            out,
            "# HELP neardup_build_info The running build: always 1, its facts in labels.\n\
             # TYPE neardup_build_info gauge\n\
             neardup_build_info{{version=\"{}\",profile=\"{}\"}} 1",
            env!("CARGO_PKG_VERSION"),
            if cfg!(debug_assertions) {
                "debug"
            } else {
                "release"
            }
        );
        process_metrics(&mut out);
        out
    }
}

/// Linux reports CPU times in `/proc` in clock ticks of `USER_HZ`, which is
/// 100 on every architecture (the kernel's ABI; `sysconf(_SC_CLK_TCK)`).
const TICKS_PER_SECOND: f64 = 100.0;

/// The standard process metrics that Prometheus client libraries export
/// (`process_cpu_seconds_total`, `process_resident_memory_bytes`,
/// `process_virtual_memory_bytes`, `process_open_fds`, `process_max_fds`,
/// `process_start_time_seconds`, `process_threads`), read from `/proc`.
/// Elsewhere than Linux, or if `/proc` is not mounted, they are left out.
fn process_metrics(out: &mut String) {
    let mut put = |name: &str, kind: &str, help: &str, value: f64| {
        let _ = writeln!(
            out,
            "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}"
        );
    };
    let stat = std::fs::read_to_string("/proc/self/stat").ok();
    // Fields after the command name (which may hold spaces), which ends at
    // the last ')': field 3 (state) is index 0 here.
    let fields: Vec<&str> = stat
        .as_deref()
        .and_then(|s| s.rsplit_once(')'))
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    let field = |n: usize| -> Option<f64> { fields.get(n.checked_sub(3)?)?.parse().ok() };
    if let (Some(utime), Some(stime)) = (field(14), field(15)) {
        put(
            "process_cpu_seconds_total",
            "counter",
            "Total user and system CPU time spent in seconds.",
            (utime + stime) / TICKS_PER_SECOND,
        );
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let status_kb = |key: &str| -> Option<f64> {
        let line = status.lines().find(|l| l.starts_with(key))?;
        line[key.len()..].split_whitespace().next()?.parse().ok()
    };
    if let Some(kb) = status_kb("VmRSS:") {
        put(
            "process_resident_memory_bytes",
            "gauge",
            "Resident memory size in bytes.",
            kb * 1024.0,
        );
    }
    if let Some(kb) = status_kb("VmSize:") {
        put(
            "process_virtual_memory_bytes",
            "gauge",
            "Virtual memory size in bytes.",
            kb * 1024.0,
        );
    }
    if let Some(n) = status_kb("Threads:") {
        put("process_threads", "gauge", "Number of OS threads.", n);
    }
    if let Ok(dir) = std::fs::read_dir("/proc/self/fd") {
        put(
            "process_open_fds",
            "gauge",
            "Number of open file descriptors.",
            dir.count() as f64,
        );
    }
    let max_fds = std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|limits| {
            let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
            line["Max open files".len()..]
                .split_whitespace()
                .next()?
                .parse::<f64>()
                .ok()
        });
    if let Some(n) = max_fds {
        put(
            "process_max_fds",
            "gauge",
            "Maximum number of open file descriptors.",
            n,
        );
    }
    let boot_time = std::fs::read_to_string("/proc/stat").ok().and_then(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("btime "))?
            .trim()
            .parse::<f64>()
            .ok()
    });
    if let (Some(boot), Some(start)) = (boot_time, field(22)) {
        put(
            "process_start_time_seconds",
            "gauge",
            "Start time of the process since unix epoch in seconds.",
            boot + start / TICKS_PER_SECOND,
        );
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
    fn process_metrics_and_build_info_are_exported() {
        let text = Metrics::default().render(Stats::default(), 0, &[]);
        let value = |name: &str| -> f64 {
            text.lines()
                .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
                .unwrap_or_else(|| panic!("{name} missing in\n{text}"))
        };
        assert!(text.contains(&format!(
            "neardup_build_info{{version=\"{}\",",
            env!("CARGO_PKG_VERSION")
        )));
        if cfg!(target_os = "linux") {
            assert!(value("process_resident_memory_bytes") > 1e6);
            assert!(
                value("process_virtual_memory_bytes") >= value("process_resident_memory_bytes")
            );
            assert!(value("process_open_fds") >= 3.0);
            assert!(value("process_max_fds") >= value("process_open_fds"));
            assert!(value("process_threads") >= 1.0);
            assert!(value("process_cpu_seconds_total") >= 0.0);
            // Started after 2020 and not in the future.
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs_f64();
            let start = value("process_start_time_seconds");
            assert!(start > 1.58e9 && start <= now + 1.0, "{start} vs {now}");
        }
    }

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
