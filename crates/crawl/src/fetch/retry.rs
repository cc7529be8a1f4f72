//! Retry timing: exponential backoff with jitter, and `Retry-After`.

use std::hash::BuildHasher;
use std::time::{Duration, SystemTime};

/// Backoff before retry number `retry` (0 = first retry): `base * 2^retry`
/// capped at `max`, then scaled into `[d/2, d]` by `jitter` in `[0, 1)`, so
/// clients that failed together do not retry together.
pub fn backoff(base: Duration, max: Duration, retry: u32, jitter: f64) -> Duration {
    let factor = 2u32.saturating_pow(retry.min(31));
    let d = base.saturating_mul(factor).min(max);
    let jitter = if jitter.is_finite() {
        jitter.clamp(0.0, 1.0)
    } else {
        0.0
    };
    d / 2 + (d / 2).mul_f64(jitter)
}

/// A jitter value in `[0, 1)`. Not stored anywhere, so the process-random
/// std hasher is the right source (no extra dependency, never repeats a
/// pattern across processes).
pub fn jitter(salt: u64) -> f64 {
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let h = std::collections::hash_map::RandomState::new().hash_one((salt, nanos));
    // 53 random bits into [0, 1).
    (h >> 11) as f64 / (1u64 << 53) as f64
}

/// Parses a `Retry-After` value: delay-seconds or an HTTP-date (RFC 9110
/// 10.2.3), relative to `now`. A date in the past means no wait; anything
/// unparseable is `None`.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        // Absurdly long digit strings saturate rather than fail.
        return Some(Duration::from_secs(
            value.parse::<u64>().unwrap_or(u64::MAX),
        ));
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_caps_and_jitters_in_upper_half() {
        let base = Duration::from_millis(100);
        let max = Duration::from_millis(1000);
        assert_eq!(backoff(base, max, 0, 1.0), Duration::from_millis(100));
        assert_eq!(backoff(base, max, 0, 0.0), Duration::from_millis(50));
        assert_eq!(backoff(base, max, 2, 1.0), Duration::from_millis(400));
        assert_eq!(backoff(base, max, 3, 0.5), Duration::from_millis(600));
        // Capped, also for huge retry numbers.
        assert_eq!(backoff(base, max, 10, 1.0), Duration::from_millis(1000));
        assert_eq!(backoff(base, max, 500, 0.0), Duration::from_millis(500));
        assert_eq!(backoff(base, max, 1, f64::NAN), Duration::from_millis(100));
    }

    #[test]
    fn jitter_is_in_unit_interval() {
        for salt in 0..1000 {
            let j = jitter(salt);
            assert!((0.0..1.0).contains(&j), "{j}");
        }
    }

    #[test]
    fn retry_after_seconds_and_dates() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_777); // Sun, 06 Nov 1994 08:49:37 GMT
        assert_eq!(
            parse_retry_after("120", now),
            Some(Duration::from_secs(120))
        );
        assert_eq!(parse_retry_after(" 0 ", now), Some(Duration::ZERO));
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:50:07 GMT", now),
            Some(Duration::from_secs(30))
        );
        // In the past: retry now.
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("-5", now), None);
        assert_eq!(parse_retry_after("", now), None);
        assert_eq!(
            parse_retry_after("99999999999999999999999", now),
            Some(Duration::from_secs(u64::MAX))
        );
    }
}
