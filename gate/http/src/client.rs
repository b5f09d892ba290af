//! Who the client is: the connection's peer, or, when that peer is a proxy the publisher named
//! with `--proxies`, the address the proxy reports in `Forwarded` (RFC 7239) or
//! `X-Forwarded-For`.
//!
//! The rate limits count refused payments per client address, so the address must be one a
//! client cannot choose: forwarding headers are believed only from the named proxies, and from
//! anyone else they are ignored. Behind a chain of trusted proxies the list is read from the
//! right (the hop nearest the gate) and the first address that is not a trusted proxy is the
//! client, as nginx's `real_ip_recursive` does.

use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use ipnet::IpNet;
use pingora_http::RequestHeader;

/// The proxies whose forwarding headers are believed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies {
    networks: Vec<IpNet>,
}

impl TrustedProxies {
    /// `10.0.0.0/8,192.0.2.7,2001:db8::/32`: networks or single addresses, comma-separated.
    pub fn parse(list: &str) -> Result<TrustedProxies, String> {
        let mut networks = Vec::new();
        for item in list.split(',').map(str::trim).filter(|item| !item.is_empty()) {
            let network = match item.parse::<IpNet>() {
                Ok(network) => network,
                Err(_) => item
                    .parse::<IpAddr>()
                    .map(IpNet::from)
                    .map_err(|_| format!("{item:?} no es una red CIDR (p. ej. 10.0.0.0/8) ni una dirección IP"))?,
            };
            networks.push(network.trunc());
        }
        networks.sort();
        networks.dedup();
        Ok(TrustedProxies { networks })
    }

    pub fn is_empty(&self) -> bool {
        self.networks.is_empty()
    }

    pub fn trusts(&self, address: IpAddr) -> bool {
        let address = canonical(address);
        self.networks.iter().any(|network| network.contains(&address))
    }

    /// Notes a request from `peer` that `carries_forwarding` headers: counted (and warned about
    /// once) when `peer` is not a trusted proxy, since those headers are then ignored.
    pub fn note_forwarding(&self, peer: IpAddr, carries_forwarding: bool) {
        let peer = canonical(peer);
        if carries_forwarding && !self.trusts(peer) {
            forwarding_from_untrusted(peer);
        }
    }

    /// The client's address for a request that arrived from `peer`.
    pub fn client(&self, peer: IpAddr, head: &RequestHeader) -> IpAddr {
        self.client_from(peer, |name| head.headers.get_all(name).iter().map(|value| value.as_bytes()).collect())
    }

    /// [`Self::client`] for a request whose headers are read through `values` (every value of
    /// a header, in order, by lowercase name): the fast lane has no Pingora head.
    pub fn client_from<'a>(&self, peer: IpAddr, values: impl Fn(&str) -> Vec<&'a [u8]>) -> IpAddr {
        let peer = canonical(peer);
        if !self.trusts(peer) {
            return peer;
        }
        let mut nearest = peer;
        for hop in forwarded_chain(values).iter().rev() {
            match hop {
                Some(address) if self.trusts(*address) => nearest = *address,
                Some(address) => return *address,
                // An address the proxy could not give (`unknown`, an obfuscated name, garbage):
                // the nearest trusted hop is all that is known.
                None => return nearest,
            }
        }
        nearest
    }
}

/// Requests that carried forwarding headers from a peer not in `--proxies`, in this process.
static FORWARDING_IGNORED: AtomicU64 = AtomicU64::new(0);
static FORWARDING_WARNED: AtomicBool = AtomicBool::new(false);

/// How many requests so far brought `Forwarded` or `X-Forwarded-For` from a peer the gate does
/// not trust (the `gate_reenvio_ignorado_total` metric).
pub fn forwarding_ignored() -> u64 {
    FORWARDING_IGNORED.load(Ordering::Relaxed)
}

/// Counts such a request, and says once what it likely means: a proxy in front of the gate
/// that `--proxies` does not name, so every buyer is counted as the proxy.
fn forwarding_from_untrusted(peer: IpAddr) {
    FORWARDING_IGNORED.fetch_add(1, Ordering::Relaxed);
    if !FORWARDING_WARNED.swap(true, Ordering::Relaxed) {
        tracing::warn!(
            "llegan Forwarded/X-Forwarded-For desde {peer}, que no está en --proxies: se ignoran y los límites cuentan a {peer} como un solo cliente; si es su proxy, nómbrelo con --proxies (solo se avisa una vez; la métrica gate_reenvio_ignorado_total los cuenta)"
        );
    }
}

/// The addresses a request passed through, client first: `Forwarded`'s `for=` values when the
/// request carries `Forwarded`, else `X-Forwarded-For`. `None` for an entry that is no address.
fn forwarded_chain<'a>(values: impl Fn(&str) -> Vec<&'a [u8]>) -> Vec<Option<IpAddr>> {
    // Values of visible ASCII only, as `HeaderValue::to_str` reads them.
    let visible = |v: &&[u8]| v.iter().all(|&b| b == b'\t' || (32..127).contains(&b));
    let text = |name| {
        values(name).into_iter().filter(visible).filter_map(|v| std::str::from_utf8(v).ok()).collect::<Vec<&str>>()
    };
    let forwarded = text("forwarded");
    if !forwarded.is_empty() {
        return forwarded
            .iter()
            .flat_map(|value| value.split(','))
            .map(|element| {
                element
                    .split(';')
                    .filter_map(|pair| pair.split_once('='))
                    .find(|(name, _)| name.trim().eq_ignore_ascii_case("for"))
                    .and_then(|(_, value)| parse_node(value.trim().trim_matches('"')))
            })
            .collect();
    }
    text("x-forwarded-for").iter().flat_map(|value| value.split(',')).map(|item| parse_node(item.trim())).collect()
}

/// An address as proxies write it: `192.0.2.1`, `192.0.2.1:4711`, `2001:db8::1`,
/// `[2001:db8::1]`, `[2001:db8::1]:4711`.
fn parse_node(node: &str) -> Option<IpAddr> {
    if let Ok(address) = node.parse::<IpAddr>() {
        return Some(canonical(address));
    }
    if let Some(rest) = node.strip_prefix('[') {
        let (address, _) = rest.split_once(']')?;
        return address.parse::<IpAddr>().ok().map(canonical);
    }
    let (address, port) = node.rsplit_once(':')?;
    port.parse::<u16>().ok()?;
    address.parse::<std::net::Ipv4Addr>().ok().map(IpAddr::V4)
}

/// An IPv4 address mapped into IPv6 (`::ffff:192.0.2.1`, as dual-stack sockets report) as the
/// IPv4 address it is.
fn canonical(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(address, IpAddr::V4),
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(headers: &[(&str, &str)]) -> RequestHeader {
        let mut head = RequestHeader::build("GET", b"/", None).expect("head");
        for (name, value) in headers {
            head.append_header(name.to_string(), *value).expect("header");
        }
        head
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("address")
    }

    #[test]
    fn lists_parse_and_refuse_garbage() {
        let proxies = TrustedProxies::parse("10.0.0.0/8, 192.0.2.7 ,2001:db8::/32,").expect("list");
        assert!(proxies.trusts(ip("10.1.2.3")) && proxies.trusts(ip("192.0.2.7")) && proxies.trusts(ip("2001:db8::5")));
        assert!(!proxies.trusts(ip("192.0.2.8")) && !proxies.trusts(ip("11.0.0.1")));
        assert!(proxies.trusts(ip("::ffff:10.0.0.1")), "IPv4 seen through a dual-stack socket");
        assert!(TrustedProxies::parse("").expect("empty").is_empty());
        let error = TrustedProxies::parse("10.0.0.0/8,proxy.example").expect_err("a name");
        assert!(error.contains("proxy.example"), "{error}");
        assert!(TrustedProxies::parse("10.0.0.0/33").is_err());
    }

    #[test]
    fn headers_from_anyone_else_are_ignored() {
        let proxies = TrustedProxies::parse("10.0.0.1").expect("list");
        let spoofed = head(&[("X-Forwarded-For", "1.2.3.4"), ("Forwarded", "for=5.6.7.8")]);
        assert_eq!(proxies.client(ip("203.0.113.9"), &spoofed), ip("203.0.113.9"));
        assert_eq!(TrustedProxies::default().client(ip("10.0.0.1"), &spoofed), ip("10.0.0.1"));
    }

    #[test]
    fn a_trusted_proxy_names_the_client() {
        let proxies = TrustedProxies::parse("10.0.0.0/8").expect("list");
        let peer = ip("10.0.0.1");
        // The client may send its own X-Forwarded-For: only the rightmost untrusted entry counts.
        let chain = head(&[("X-Forwarded-For", "6.6.6.6, 203.0.113.9, 10.0.0.2")]);
        assert_eq!(proxies.client(peer, &chain), ip("203.0.113.9"));
        let two_headers = head(&[("X-Forwarded-For", "6.6.6.6"), ("X-Forwarded-For", "198.51.100.4:5555")]);
        assert_eq!(proxies.client(peer, &two_headers), ip("198.51.100.4"));
        let forwarded = head(&[
            ("Forwarded", "for=6.6.6.6;proto=https, for=\"[2001:db8::7]:4711\";by=10.0.0.2"),
            ("X-Forwarded-For", "9.9.9.9"),
        ]);
        assert_eq!(proxies.client(peer, &forwarded), ip("2001:db8::7"), "Forwarded wins over X-Forwarded-For");
        assert_eq!(proxies.client(peer, &head(&[])), peer, "no header: the proxy itself");
        assert_eq!(proxies.client(peer, &head(&[("X-Forwarded-For", "10.0.0.9")])), ip("10.0.0.9"));
        assert_eq!(proxies.client(peer, &head(&[("Forwarded", "for=unknown")])), peer);
        assert_eq!(proxies.client(peer, &head(&[("X-Forwarded-For", "basura, 10.0.0.3")])), ip("10.0.0.3"));
    }
}
