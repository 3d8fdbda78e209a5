//! Which addresses an HTTP hook may reach: not loopback, private, link-local,
//! shared (CGNAT), unspecified or cloud-metadata addresses, unless allow-listed —
//! so a config file, or a DNS answer, cannot point hooks at internal services.

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
            } else if let Ok(address) = entry.parse::<IpAddr>() {
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
        self.allows_host(host)
            || self
                .networks
                .iter()
                .any(|&(network, bits)| contains(network, bits, address))
            || !internal(address)
    }
}

/// Whether an address is one hooks must not reach without an allow-list entry.
pub(crate) fn internal(address: IpAddr) -> bool {
    match address {
        IpAddr::V4(v4) => internal_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => internal_v4(v4),
            None => internal_v6(v6),
        },
    }
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
        ] {
            assert!(!policy.allows("host", ip(address)), "{address}");
        }
        for address in [
            "93.184.216.34",
            "1.1.1.1",
            "2606:4700::1111",
            "172.32.0.1",
            "100.128.0.1",
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
}
