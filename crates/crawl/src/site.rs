//! What "site" means in the crawl. Four meanings, each with its own name
//! (and, where it keys state, its own type), so one is not used where
//! another is meant:
//!
//! - [`HostKey`]: a URL's host, lowercased, without scheme or port. The key
//!   of politeness: the limiter's per-host slots
//!   ([`crate::fetch::Politeness`]) and the frontier's per-host queues
//!   ([`crate::frontier::HostQueues`]). Two ports of one host are one
//!   machine, so they share one budget.
//! - [`ScopeSite`]: what the scope counts pages per and compares with the
//!   seeds' (`crawl.scope.sites`): the registrable domain (public suffix
//!   list) with `sites = "domain"`, else the host
//!   ([`crate::frontier::Scope::site_key`]).
//! - [`site_with_port`]: the site a crawled page is reported under
//!   (`pages.jsonl`, verdicts, the report): the host with its port when it
//!   is not the scheme's default, so two local servers on one address are
//!   two sites.
//! - The core's [`neardup::site_of`]: the site a page's template is learned
//!   under (lowercased host, `-` without one): for a URL with a host, the
//!   same text as its [`HostKey`].

use std::fmt;
use std::sync::Arc;

use url::Url;

/// A URL's host as politeness keys it: lowercased, without scheme or port
/// (`[::1]` for IPv6, as `Url::host_str` spells it). See the module docs.
/// Cheap to clone (the queues keep it in several sets).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HostKey(Arc<str>);

impl HostKey {
    /// The key of `url`'s host; `None` without a host.
    pub fn of(url: &Url) -> Option<HostKey> {
        url.host_str().map(HostKey::new)
    }

    /// The key of a host name as written (lowercased).
    pub fn new(host: &str) -> HostKey {
        HostKey(host.to_ascii_lowercase().into())
    }

    /// The host, lowercased.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for HostKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The site the scope counts a URL's page under: its registrable domain
/// or its host (`crawl.scope.sites`; see the module docs).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ScopeSite(String);

impl ScopeSite {
    pub(crate) fn new(site: &str) -> ScopeSite {
        ScopeSite(site.to_owned())
    }

    /// The domain or host.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn the_meanings_differ_where_they_should() {
        let u = url("http://Docs.Example.org:8080/a");
        assert_eq!(HostKey::of(&u).unwrap().as_str(), "docs.example.org");
        assert_eq!(site_with_port(&u), "docs.example.org:8080");
        assert_eq!(neardup::site_of(u.as_str()), "docs.example.org");
        // Two ports of one host: one politeness key, two report sites.
        let v = url("http://docs.example.org:9090/b");
        assert_eq!(HostKey::of(&u), HostKey::of(&v));
        assert_ne!(site_with_port(&u), site_with_port(&v));
        assert_eq!(HostKey::new("A.COM"), HostKey::new("a.com"));
        assert_eq!(HostKey::of(&url("data:text/plain,x")), None);
    }
}
