//! The site of a crawled URL, as reports name it.

use url::Url;

/// The site of a crawled URL for reports: its host, with the port when it
/// is not the scheme's default (two local test servers on one address are
/// two sites).
pub fn site_with_port(url: &Url) -> String {
    let host = url.host_str().unwrap_or("-").to_ascii_lowercase();
    match url.port() {
        Some(p) => format!("{host}:{p}"),
        None => host,
    }
}
