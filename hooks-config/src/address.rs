//! Which addresses an HTTP hook may reach: not loopback, private, link-local,
//! shared (CGNAT), unspecified or cloud-metadata addresses, unless allow-listed —
//! so a config file, or a DNS answer, cannot point hooks at internal services.
//!
//! An IPv6 address that carries an IPv4 address — mapped (`::ffff:a.b.c.d`),
//! compatible (`::a.b.c.d`), NAT64 (`64:ff9b::/96`, `64:ff9b:1::/48`) or
//! 6to4 (`2002::/16`) — is judged by the IPv4 address it reaches.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

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
            || !internal(address)
    }
}

/// The allow-list entry that lets `host` (as a URL writes it) through, in a
/// form [`AddressPolicy::new`] accepts: `::1` for `[::1]`.
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

/// Whether an address is one hooks must not reach without an allow-list entry.
pub(crate) fn internal(address: IpAddr) -> bool {
    match reached(address) {
        IpAddr::V4(v4) => internal_v4(v4),
        IpAddr::V6(v6) => internal_v6(v6),
    }
}

/// The address a connection to `address` reaches: the IPv4 address an IPv6
/// one carries (mapped, compatible, NAT64, 6to4), else itself.
fn reached(address: IpAddr) -> IpAddr {
    let IpAddr::V6(v6) = address else {
        return address;
    };
    let bits = u128::from(v6);
    let low = |bits: u128| Ipv4Addr::from((bits & 0xffff_ffff) as u32);
    let segments = v6.segments();
    if let Some(v4) = v6.to_ipv4_mapped() {
        return IpAddr::V4(v4);
    }
    // ::a.b.c.d, IPv4-compatible (deprecated, still routed by some stacks);
    // not :: and ::1, which are IPv6's own.
    if bits >> 32 == 0 && bits > 1 {
        return IpAddr::V4(low(bits));
    }
    // 64:ff9b::/96, the well-known NAT64 prefix; 64:ff9b:1::/48, local-use NAT64.
    if bits >> 32 == 0x0064_ff9b_0000_0000_0000_0000 || segments[..3] == [0x64, 0xff9b, 1] {
        return IpAddr::V4(low(bits));
    }
    // 2002:AABB:CCDD::/48, 6to4: the IPv4 address is the next 32 bits.
    if segments[0] == 0x2002 {
        return IpAddr::V4(Ipv4Addr::from(
            (u32::from(segments[1]) << 16) | u32::from(segments[2]),
        ));
    }
    address
}

fn internal_v4(address: Ipv4Addr) -> bool {
    let [a, b, ..] = address.octets();
    address.is_loopback()
        || address.is_private()
        || address.is_link_local() // 169.254.0.0/16, including 169.254.169.254 metadata
        || address.is_unspecified()
        || address.is_broadcast()
        || (a == 100 && (64..128).contains(&b)) // 100.64.0.0/10, shared address space
        || a == 0
        || address == Ipv4Addr::new(100, 100, 100, 200) // Alibaba Cloud metadata
}

fn internal_v6(address: Ipv6Addr) -> bool {
    let first = address.segments()[0];
    address.is_loopback()
        || address.is_unspecified()
        || (first & 0xfe00) == 0xfc00 // fc00::/7, unique local (incl. fd00:ec2::254 metadata)
        || (first & 0xffc0) == 0xfe80 // fe80::/10, link-local
}

fn contains(network: IpAddr, bits: u8, address: IpAddr) -> bool {
    match (network, address) {
        (IpAddr::V4(network), IpAddr::V4(address)) => {
            let mask = u32::MAX.checked_shl(32 - u32::from(bits)).unwrap_or(0);
            u32::from(network) & mask == u32::from(address) & mask
        }
        (IpAddr::V6(network), IpAddr::V6(address)) => {
            let mask = u128::MAX.checked_shl(128 - u32::from(bits)).unwrap_or(0);
            u128::from(network) & mask == u128::from(address) & mask
        }
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
