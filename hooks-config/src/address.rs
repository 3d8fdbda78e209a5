//! Which addresses an HTTP hook may reach: no special-purpose address
//! (loopback, private, link-local, shared, documentation, benchmarking,
//! multicast, reserved, cloud metadata, ...: see `special_address`) unless
//! allow-listed — so a config file, or a DNS answer, cannot point hooks at
//! internal services. An allow-list entry opens exactly what it names (and
//! the IPv6 forms carrying the IPv4 address it names).

use std::net::IpAddr;

use crate::special_address::{carried, special, within_v4, within_v6};

/// An allow-list of hosts, addresses and networks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AddressPolicy {
    hosts: Vec<String>,
    networks: Vec<(IpAddr, u8)>,
}

impl AddressPolicy {
    /// Parses allow-list entries: a host name, an address, or a network
    /// (`10.0.0.0/8`, `fd00::/8`).
    pub fn new(entries: &[String]) -> Result<Self, String> {
        let mut policy = AddressPolicy::default();
        for entry in entries {
            let entry = entry.trim();
            // `[::1]`, as a URL writes it, is the address `::1`.
            let bare = entry
                .strip_prefix('[')
                .and_then(|inner| inner.strip_suffix(']'))
                .unwrap_or(entry);
            if let Some((address, bits)) = entry.split_once('/') {
                let address: IpAddr = address
                    .parse()
                    .map_err(|_| format!("`{entry}` is not a network"))?;
                let max = if address.is_ipv4() { 32 } else { 128 };
                let bits: u8 = bits
                    .parse()
                    .ok()
                    .filter(|bits| *bits <= max)
                    .ok_or_else(|| format!("`{entry}`: the prefix length must be 0 to {max}"))?;
                policy.networks.push((address, bits));
            } else if let Ok(address) = bare.parse::<IpAddr>() {
                policy
                    .networks
                    .push((address, if address.is_ipv4() { 32 } else { 128 }));
            } else if !entry.is_empty()
                && entry
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-'))
            {
                policy.hosts.push(entry.to_ascii_lowercase());
            } else {
                return Err(format!(
                    "`{entry}` is not a host name, an address or a network"
                ));
            }
        }
        Ok(policy)
    }

    /// Whether `host` is allow-listed by name.
    pub fn allows_host(&self, host: &str) -> bool {
        self.hosts
            .iter()
            .any(|allowed| allowed.eq_ignore_ascii_case(host))
    }

    /// Whether a connection to `address` (reached as `host`) is allowed.
    pub fn allows(&self, host: &str, address: IpAddr) -> bool {
        let reached = reached(address);
        self.allows_host(host)
            || self.networks.iter().any(|&(network, bits)| {
                contains(network, bits, address) || contains(network, bits, reached)
            })
            || internal(address).is_none()
    }
}

/// The allow-list entry that lets `host` (as a URL writes it) through, in a
/// form [`AddressPolicy::new`] accepts: `::1` for `[::1]`.
#[cfg_attr(not(feature = "http"), allow(dead_code))] // for HTTP hooks' refusals, and tests
pub(crate) fn allow_entry(host: &str) -> String {
    let bare = host
        .strip_prefix('[')
        .and_then(|inner| inner.strip_suffix(']'))
        .unwrap_or(host);
    match bare.parse::<IpAddr>() {
        Ok(address) => address.to_string(),
        Err(_) => bare.to_ascii_lowercase(),
    }
}

/// Why hooks must not reach `address` without an allow-list entry (the
/// special-purpose block it is in), or `None` for a public address.
pub(crate) fn internal(address: IpAddr) -> Option<&'static str> {
    special(address)
}

/// The address a connection to `address` reaches: the IPv4 address an IPv6
/// one carries (mapped, SIIT, compatible, NAT64, 6to4), else itself.
fn reached(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V6(v6) => carried(v6).map_or(address, IpAddr::V4),
        IpAddr::V4(_) => address,
    }
}

fn contains(network: IpAddr, bits: u8, address: IpAddr) -> bool {
    match (network, address) {
        (IpAddr::V4(network), IpAddr::V4(address)) => within_v4(network, bits, address),
        (IpAddr::V6(network), IpAddr::V6(address)) => within_v6(network, bits, address),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn internal_addresses_are_refused_by_default() {
        let policy = AddressPolicy::default();
        for address in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "::",
            "fd00:ec2::254",
            "fe80::1",
            "::ffff:127.0.0.1",
            "100.100.100.200",
            // IPv4 carried in IPv6.
            "::127.0.0.1",
            "::10.0.0.1",
            "::a9fe:a9fe",
            "64:ff9b::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b::10.1.2.3",
            "64:ff9b:1::192.168.0.1",
            "2002:7f00:1::",
            "2002:a9fe:a9fe::1",
        ] {
            assert!(!policy.allows("host", ip(address)), "{address}");
        }
        for address in [
            "93.184.216.34",
            "1.1.1.1",
            "2606:4700::1111",
            "172.32.0.1",
            "100.128.0.1",
            "64:ff9b::1.1.1.1",
            "::8.8.8.8",
            "2002:0808:0808::1",
        ] {
            assert!(policy.allows("host", ip(address)), "{address}");
        }
    }

    /// A sample of every block of the IANA IPv4 and IPv6 Special-Purpose
    /// Address Registries (first, last or a middle address of each),
    /// multicast, the reserved IPv6 space, and cloud metadata addresses.
    const SPECIAL: &[&str] = &[
        // IPv4 Special-Purpose Address Registry.
        "0.0.0.0",
        "0.255.255.255",
        "10.255.255.255",
        "100.64.0.0",
        "100.127.255.255",
        "127.255.255.254",
        "169.254.0.1",
        "172.31.255.255",
        "192.0.0.0",
        "192.0.0.8",
        "192.0.0.9",
        "192.0.0.10",
        "192.0.0.170",
        "192.0.0.255",
        "192.0.2.1",
        "192.31.196.1",
        "192.52.193.1",
        "192.88.99.1",
        "192.168.255.255",
        "192.175.48.1",
        "198.18.0.1",
        "198.19.255.255",
        "198.51.100.7",
        "203.0.113.9",
        "240.0.0.1",
        "254.255.255.255",
        "255.255.255.255",
        // Multicast.
        "224.0.0.1",
        "239.255.255.250",
        // Cloud metadata: Azure's WireServer (public), Alibaba's (shared
        // space), Oracle Cloud Classic's (IETF protocol block), AWS ECS,
        // Scaleway...
        "168.63.129.16",
        "100.100.100.200",
        "192.0.0.192",
        "169.254.170.2",
        "169.254.42.42",
        // ... and theirs in IPv6 (unique local, not link-local): AWS,
        // EKS pod identity, Google, Oracle, Scaleway.
        "fd00:ec2::254",
        "fd00:ec2::23",
        "fd20:ce::254",
        "fd00:c1::a9fe:a9fe",
        "fd00:42::42",
        // IPv6 Special-Purpose Address Registry.
        "::",
        "::1",
        "::ffff:0:0",
        "::ffff:10.0.0.1",
        "64:ff9b:1::8.8.8.8",
        "64:ff9b:1:ffff::1",
        "100::1",
        "100::ffff:ffff:ffff:ffff",
        "100:0:0:1::1",
        "2001::1",
        "2001:0:4136:e378:8000:63bf:3fff:fdd2",
        "2001:1::1",
        "2001:1::2",
        "2001:1::3",
        "2001:2::1",
        "2001:3::1",
        "2001:4:112::1",
        "2001:10::1",
        "2001:20::1",
        "2001:30::1",
        "2001:1ff:ffff::1",
        "2001:db8::1",
        "2001:db8:ffff::1",
        "2620:4f:8000::1",
        "3fff::1",
        "3fff:fff:ffff::1",
        "5f00::1",
        "5f00:ffff::1",
        "fc00::1",
        "fdff:ffff::1",
        "fe80::1",
        "febf:ffff::1",
        "fec0::1",
        "feff:ffff::1",
        "ff02::1",
        "ff0e::1",
        // Reserved by the IETF (outside 2000::/3, the global unicast space).
        "1::1",
        "200::1",
        "4000::1",
        "e000::1",
        // IPv4 carried in IPv6, judged by the IPv4: SIIT (`::ffff:0:a.b.c.d`),
        // mapped, NAT64, 6to4.
        "::ffff:0:127.0.0.1",
        "::ffff:0:169.254.169.254",
        "::ffff:0:198.18.0.1",
        "::ffff:168.63.129.16",
        "::ffff:198.18.0.1",
        "64:ff9b::198.18.0.1",
        "64:ff9b::168.63.129.16",
        "64:ff9b::224.0.0.1",
        "2002:c612:1::1",
        "2002:a83f:8110::1",
    ];

    /// Public addresses, some just beside a special block.
    const PUBLIC: &[&str] = &[
        "8.8.8.8",
        "168.63.129.15",
        "168.63.129.17",
        "192.0.1.1",
        "192.0.3.1",
        "198.17.255.255",
        "198.20.0.1",
        "198.51.101.1",
        "203.0.114.1",
        "223.255.255.255",
        "100.63.255.255",
        "::ffff:0:8.8.8.8",
        "64:ff9b::8.8.8.8",
        "2001:200::1",
        "2001:4860:4860::8888",
        "2002:0808:0808::1",
        "2620:4f:8001::1",
        "3fff:1000::1",
        "2c0f:f248::1",
        "3ffe:ffff::1",
        "2a00:1450:4001:81c::200e",
    ];

    #[test]
    fn every_special_purpose_block_is_refused_by_default() {
        let policy = AddressPolicy::default();
        let mut wrong = Vec::new();
        for address in SPECIAL {
            if policy.allows("host", ip(address)) {
                wrong.push(format!("{address} was allowed"));
            }
        }
        for address in PUBLIC {
            if !policy.allows("host", ip(address)) {
                wrong.push(format!("{address} was refused"));
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    #[test]
    fn an_allow_entry_opens_exactly_what_it_names() {
        let policy = AddressPolicy::new(&["198.18.0.0/15".into(), "168.63.129.16".into()]).unwrap();
        assert!(policy.allows("x", ip("198.18.0.1")));
        assert!(policy.allows("x", ip("198.19.255.255")));
        assert!(policy.allows("x", ip("::ffff:0:198.18.0.1")));
        assert!(policy.allows("x", ip("168.63.129.16")));
        assert!(!policy.allows("x", ip("198.51.100.1")));
        assert!(!policy.allows("x", ip("169.254.169.254")));
        assert!(!policy.allows("x", ip("::ffff:0:169.254.169.254")));
        let policy = AddressPolicy::new(&["2001:db8::/32".into()]).unwrap();
        assert!(policy.allows("x", ip("2001:db8::1")));
        assert!(!policy.allows("x", ip("2001:2::1")));
        assert!(!policy.allows("x", ip("fc00::1")));
    }

    #[test]
    fn the_allow_list_takes_names_addresses_and_networks() {
        let policy = AddressPolicy::new(&[
            "hooks.internal".into(),
            "127.0.0.1".into(),
            "10.0.0.0/8".into(),
        ])
        .unwrap();
        assert!(policy.allows("HOOKS.internal", ip("10.9.9.9")));
        assert!(policy.allows("x", ip("127.0.0.1")));
        assert!(!policy.allows("x", ip("127.0.0.2")));
        assert!(policy.allows("x", ip("10.200.0.1")));
        assert!(!policy.allows("x", ip("192.168.0.1")));
        assert!(
            AddressPolicy::new(&["10.0.0.0/40".into()])
                .unwrap_err()
                .contains("prefix length")
        );
        assert!(AddressPolicy::new(&["http://x".into()]).is_err());
    }

    #[test]
    fn an_allow_entry_for_a_carrier_address_covers_what_it_carries() {
        let policy = AddressPolicy::new(&["127.0.0.1".into()]).unwrap();
        assert!(policy.allows("x", ip("::ffff:127.0.0.1")));
        assert!(policy.allows("x", ip("64:ff9b::127.0.0.1")));
        assert!(!policy.allows("x", ip("64:ff9b::127.0.0.2")));
    }

    #[test]
    fn the_suggested_entry_is_one_the_parser_accepts_and_it_allows_the_host() {
        for (host, address) in [
            ("[::1]", "::1"),
            ("[64:ff9b::a9fe:a9fe]", "64:ff9b::a9fe:a9fe"),
            ("127.0.0.1", "127.0.0.1"),
            ("Hooks.Internal", "10.0.0.7"),
        ] {
            let entry = allow_entry(host);
            let policy = AddressPolicy::new(std::slice::from_ref(&entry))
                .unwrap_or_else(|error| panic!("suggested `{entry}`: {error}"));
            assert!(policy.allows(host, ip(address)), "{entry}");
        }
        // URL brackets are accepted in the allow-list too.
        assert!(
            AddressPolicy::new(&["[::1]".into()])
                .unwrap()
                .allows("x", ip("::1"))
        );
    }
}
