//! The private-address guard.
//!
//! A crawl that starts from public seeds must not reach into the machine's
//! own network: a link, a redirect or a DNS answer can all point at
//! `127.0.0.1`, `10.0.0.5` or a cloud metadata address (169.254.169.254).
//! [`PublicOnlyResolver`] is the DNS resolver of the HTTP client: it drops
//! non-public answers, so the connection goes only to public addresses
//! (checking the addresses actually connected to, not a separate lookup,
//! also defeats DNS rebinding). Literal IPs in URLs do not go through a
//! resolver; the fetcher checks them on every hop with [`is_public`].

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// Whether an address is globally reachable: not loopback, private,
/// link-local, unique-local, shared (CGNAT), multicast, broadcast,
/// documentation, benchmarking, reserved or unspecified.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_multicast()
        || ip.is_broadcast()
        || ip.is_documentation()
        || a == 0 // "this network"
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT)
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || a >= 240) // reserved
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = embedded_ipv4(ip) {
        return is_public_v4(v4);
    }
    let seg = ip.segments();
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_multicast()
        || (seg[0] & 0xfe00) == 0xfc00 // unique local fc00::/7
        || (seg[0] & 0xffc0) == 0xfe80 // link local fe80::/10
        || (seg[0] & 0xffc0) == 0xfec0 // site local (deprecated) fec0::/10
        || (seg[0] == 0x2001 && seg[1] == 0x0db8) // documentation 2001:db8::/32
        || (seg[0] & 0xfff0) == 0x3ff0 // documentation 3fff::/20
        || (seg[0] == 0x2001 && seg[1] == 0) // Teredo 2001::/32 (see below)
        || (seg[0] == 0x0100 && seg[1..4] == [0, 0, 0]) // discard-only 100::/64
        // NAT64: the rest of 64:ff9b::/32 (local-use 64:ff9b:1::/48 and
        // unassigned); the well-known 64:ff9b::/96 is checked above.
        || (seg[0] == 0x0064 && seg[1] == 0xff9b)
        || (seg[0..6] == [0, 0, 0, 0, 0, 0])) // IPv4-compatible ::/96 (deprecated)
}

/// The IPv4 address an IPv6 address stands for, where the prefix makes
/// the network deliver it to that IPv4 host: IPv4-mapped `::ffff:0:0/96`,
/// IPv4-translated `::ffff:0:0:0/96`, 6to4 `2002::/16` (the relay sends
/// to the IPv4 address in bits 16..48: `2002:7f00:1::` reaches
/// 127.0.0.1) and NAT64 `64:ff9b::/96` (RFC 6052: the translator connects
/// to the last 32 bits). Such an address is public exactly when its IPv4
/// address is.
///
/// Teredo `2001::/32` is not here: it is refused outright. It carries a
/// server and an obfuscated client IPv4, reaching it needs a Teredo
/// relay, and no site is served from it today; blocking it is simpler
/// and safer than judging which of its two embedded addresses counts.
fn embedded_ipv4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let seg = ip.segments();
    let [.., a, b, c, d] = ip.octets();
    let last32 = Ipv4Addr::new(a, b, c, d);
    if seg[0..5] == [0, 0, 0, 0, 0] && seg[5] == 0xffff {
        return Some(last32); // ::ffff:a.b.c.d
    }
    if seg[0..4] == [0, 0, 0, 0] && seg[4] == 0xffff && seg[5] == 0 {
        return Some(last32); // ::ffff:0:a.b.c.d
    }
    if seg[0] == 0x0064 && seg[1] == 0xff9b && seg[2..6] == [0, 0, 0, 0] {
        return Some(last32); // 64:ff9b::a.b.c.d
    }
    if seg[0] == 0x2002 {
        let [hi, lo] = seg[1].to_be_bytes();
        let [hi2, lo2] = seg[2].to_be_bytes();
        return Some(Ipv4Addr::new(hi, lo, hi2, lo2));
    }
    None
}

/// The resolver's error when every answer is non-public; the fetcher finds
/// it in the error chain and reports [`super::FetchError::PrivateAddress`].
#[derive(Debug, thiserror::Error)]
#[error("{host} resolves only to private or local addresses")]
pub struct PrivateAddressError {
    /// The host name.
    pub host: String,
}

/// Which addresses the guard refuses: `true` = blocked.
pub type AddressFilter = fn(IpAddr) -> bool;

/// The default [`AddressFilter`]: everything that is not [`is_public`].
pub fn non_public(ip: IpAddr) -> bool {
    !is_public(ip)
}

/// A DNS resolver (system resolver, off the async threads) that returns
/// only the addresses its filter does not block.
#[derive(Clone, Copy, Debug)]
pub struct PublicOnlyResolver {
    blocked: AddressFilter,
}

impl PublicOnlyResolver {
    /// A resolver dropping the addresses `blocked` says are blocked.
    pub fn new(blocked: AddressFilter) -> PublicOnlyResolver {
        PublicOnlyResolver { blocked }
    }
}

impl Default for PublicOnlyResolver {
    fn default() -> Self {
        PublicOnlyResolver::new(non_public)
    }
}

impl Resolve for PublicOnlyResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_owned();
        let blocked = self.blocked;
        Box::pin(async move {
            let answers: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let public: Vec<SocketAddr> =
                answers.into_iter().filter(|a| !blocked(a.ip())).collect();
            if public.is_empty() {
                return Err(Box::new(PrivateAddressError { host }) as _);
            }
            Ok(Box::new(public.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_public_addresses() {
        for ip in [
            "127.0.0.1",
            "127.8.9.10",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "255.255.255.255",
            "224.0.0.1",
            "192.0.2.1",
            "198.18.0.1",
            "240.0.0.1",
            "::1",
            "::",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::ffff:0:127.0.0.1",
            "64:ff9b::a00:1",
            "64:ff9b::127.0.0.1",
            "64:ff9b::169.254.169.254",
            // NAT64 local-use 64:ff9b:1::/48, whatever it embeds.
            "64:ff9b:1::808:808",
            "64:ff9b:1:2::1",
            // 6to4 embedding loopback, private, link-local addresses.
            "2002:7f00:1::",
            "2002:7f00:0001:0:0:0:0:1",
            "2002:a00:1::1",
            "2002:c0a8:101::1",
            "2002:a9fe:a9fe::1",
            // Teredo: refused whatever it embeds (see embedded_ipv4).
            "2001::1",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "2001:0:7f00:1::1",
            "100::1",
            "3fff::1",
            "2001:db8::1",
            "ff02::1",
        ] {
            let parsed: IpAddr = ip.parse().unwrap();
            assert!(!is_public(parsed), "{ip} should not be public");
        }
    }

    #[test]
    fn public_addresses() {
        for ip in [
            "8.8.8.8",
            "1.1.1.1",
            "172.15.0.1",
            "172.32.0.1",
            "100.63.0.1",
            "100.128.0.1",
            "93.184.216.34",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
            // NAT64 and 6to4 of public IPv4 addresses reach those hosts.
            "64:ff9b::8.8.8.8",
            "2002:808:808::1",
            "2001:4860:4860::8888",
        ] {
            let parsed: IpAddr = ip.parse().unwrap();
            assert!(is_public(parsed), "{ip} should be public");
        }
    }
}
