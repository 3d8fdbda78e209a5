//! Addresses no hook reaches unless allow-listed, from the IANA IPv4 and IPv6
//! Special-Purpose Address Registries — every block, whether or not the
//! registry calls it globally reachable: none is a web server's address, and
//! an anycast one (PCP, TURN) reaches the nearest router — plus multicast,
//! the IPv6 space the IETF keeps reserved (outside `2000::/3`), site-local,
//! and cloud metadata addresses that are public.
//!
//! An IPv6 address that carries an IPv4 one a connection reaches — mapped
//! (`::ffff:a.b.c.d`), SIIT (`::ffff:0:a.b.c.d`), compatible (`::a.b.c.d`),
//! NAT64 (`64:ff9b::a.b.c.d`), 6to4 (`2002:AABB:CCDD::`) — is judged by that
//! IPv4 address. The local-use NAT64 prefix `64:ff9b:1::/48` reaches a
//! translator inside the network, which may map it anywhere: refused as such.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// IPv4 blocks, first match wins (so a block inside another comes first).
const V4: &[(Ipv4Addr, u8, &str)] = &[
    (Ipv4Addr::UNSPECIFIED, 8, "\"this network\", RFC 791"),
    (Ipv4Addr::new(10, 0, 0, 0), 8, "private use, RFC 1918"),
    (
        Ipv4Addr::new(100, 100, 100, 200),
        32,
        "Alibaba Cloud metadata",
    ),
    (
        Ipv4Addr::new(100, 64, 0, 0),
        10,
        "shared address space, RFC 6598",
    ),
    (Ipv4Addr::new(127, 0, 0, 0), 8, "loopback, RFC 1122"),
    (
        Ipv4Addr::new(169, 254, 0, 0),
        16,
        "link-local and cloud metadata, RFC 3927",
    ),
    (Ipv4Addr::new(172, 16, 0, 0), 12, "private use, RFC 1918"),
    (
        Ipv4Addr::new(192, 0, 0, 192),
        32,
        "Oracle Cloud Classic metadata",
    ),
    (
        Ipv4Addr::new(192, 0, 0, 0),
        24,
        "IETF protocol assignments, RFC 6890",
    ),
    (
        Ipv4Addr::new(192, 0, 2, 0),
        24,
        "documentation, TEST-NET-1, RFC 5737",
    ),
    (Ipv4Addr::new(192, 31, 196, 0), 24, "AS112-v4, RFC 7535"),
    (Ipv4Addr::new(192, 52, 193, 0), 24, "AMT, RFC 7450"),
    (
        Ipv4Addr::new(192, 88, 99, 0),
        24,
        "deprecated 6to4 relay anycast, RFC 7526",
    ),
    (Ipv4Addr::new(192, 168, 0, 0), 16, "private use, RFC 1918"),
    (
        Ipv4Addr::new(192, 175, 48, 0),
        24,
        "direct delegation AS112 service, RFC 7534",
    ),
    (Ipv4Addr::new(198, 18, 0, 0), 15, "benchmarking, RFC 2544"),
    (
        Ipv4Addr::new(198, 51, 100, 0),
        24,
        "documentation, TEST-NET-2, RFC 5737",
    ),
    (
        Ipv4Addr::new(203, 0, 113, 0),
        24,
        "documentation, TEST-NET-3, RFC 5737",
    ),
    (Ipv4Addr::new(224, 0, 0, 0), 4, "multicast, RFC 5771"),
    (Ipv4Addr::BROADCAST, 32, "limited broadcast, RFC 919"),
    (Ipv4Addr::new(240, 0, 0, 0), 4, "reserved, RFC 1112"),
    // Public, and yet the Azure host itself: VM agent, DNS, health probes.
    (
        Ipv4Addr::new(168, 63, 129, 16),
        32,
        "Azure platform: WireServer",
    ),
];

/// IPv6 blocks inside and outside `2000::/3`, first match wins.
const V6: &[(Ipv6Addr, u8, &str)] = &[
    (Ipv6Addr::UNSPECIFIED, 128, "unspecified, RFC 4291"),
    (Ipv6Addr::LOCALHOST, 128, "loopback, RFC 4291"),
    (
        Ipv6Addr::new(0x64, 0xff9b, 1, 0, 0, 0, 0, 0),
        48,
        "local-use IPv4/IPv6 translation, RFC 8215",
    ),
    (
        Ipv6Addr::new(0x100, 0, 0, 0, 0, 0, 0, 0),
        64,
        "discard-only, RFC 6666",
    ),
    (
        Ipv6Addr::new(0x100, 0, 0, 1, 0, 0, 0, 0),
        64,
        "dummy prefix, RFC 9780",
    ),
    // Teredo, PCP, TURN and DNS-SD anycast, benchmarking, AMT, AS112,
    // ORCHID, drone remote ID tags.
    (
        Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0),
        23,
        "IETF protocol assignments, RFC 2928",
    ),
    (
        Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0),
        32,
        "documentation, RFC 3849",
    ),
    (
        Ipv6Addr::new(0x2620, 0x4f, 0x8000, 0, 0, 0, 0, 0),
        48,
        "direct delegation AS112 service, RFC 7534",
    ),
    (
        Ipv6Addr::new(0x3fff, 0, 0, 0, 0, 0, 0, 0),
        20,
        "documentation, RFC 9637",
    ),
    (
        Ipv6Addr::new(0x5f00, 0, 0, 0, 0, 0, 0, 0),
        16,
        "segment routing SIDs, RFC 9602",
    ),
    // Metadata: AWS fd00:ec2::254, Google fd20:ce::254, Oracle
    // fd00:c1::a9fe:a9fe, Scaleway fd00:42::42.
    (
        Ipv6Addr::new(0xfc00, 0, 0, 0, 0, 0, 0, 0),
        7,
        "unique local and cloud metadata, RFC 4193",
    ),
    (
        Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 0),
        10,
        "link-local, RFC 4291",
    ),
    (
        Ipv6Addr::new(0xfec0, 0, 0, 0, 0, 0, 0, 0),
        10,
        "site-local, deprecated, RFC 3879",
    ),
    (
        Ipv6Addr::new(0xff00, 0, 0, 0, 0, 0, 0, 0),
        8,
        "multicast, RFC 4291",
    ),
];

/// Why hooks must not reach `address` unasked (the block it is in), or
/// `None` for an ordinary public address.
pub(crate) fn special(address: IpAddr) -> Option<&'static str> {
    match address {
        IpAddr::V4(v4) => special_v4(v4),
        IpAddr::V6(v6) => match carried(v6) {
            Some(v4) => special_v4(v4),
            None => special_v6(v6),
        },
    }
}

/// The IPv4 address a connection to `address` reaches, if it carries one.
pub(crate) fn carried(address: Ipv6Addr) -> Option<Ipv4Addr> {
    let bits = u128::from(address);
    let low = Ipv4Addr::from((bits & 0xffff_ffff) as u32);
    let segments = address.segments();
    match bits >> 32 {
        // ::ffff:0:0/96, mapped (RFC 4291); ::ffff:0:0:0/96, SIIT's
        // IPv4-translated addresses (RFC 2765); 64:ff9b::/96, the
        // well-known NAT64 prefix (RFC 6052).
        0xffff | 0xffff_0000 | 0x0064_ff9b_0000_0000_0000_0000 => Some(low),
        // ::/96, compatible (deprecated, still routed by some stacks); not
        // :: and ::1, which are IPv6's own.
        0 if bits > 1 => Some(low),
        // 2002:AABB:CCDD::/48, 6to4 (RFC 3056): the next 32 bits.
        _ if segments[0] == 0x2002 => Some(Ipv4Addr::from(
            (u32::from(segments[1]) << 16) | u32::from(segments[2]),
        )),
        _ => None,
    }
}

fn special_v4(address: Ipv4Addr) -> Option<&'static str> {
    V4.iter()
        .find(|(network, bits, _)| within_v4(*network, *bits, address))
        .map(|(_, _, why)| *why)
}

fn special_v6(address: Ipv6Addr) -> Option<&'static str> {
    let found = V6
        .iter()
        .find(|(network, bits, _)| within_v6(*network, *bits, address))
        .map(|(_, _, why)| *why);
    // Global unicast is 2000::/3; the IETF keeps the rest reserved.
    let global_unicast = address.segments()[0] & 0xe000 == 0x2000;
    found.or((!global_unicast).then_some("reserved by the IETF: outside 2000::/3"))
}

pub(crate) fn within_v4(network: Ipv4Addr, bits: u8, address: Ipv4Addr) -> bool {
    let mask = u32::MAX.checked_shl(32 - u32::from(bits)).unwrap_or(0);
    u32::from(network) & mask == u32::from(address) & mask
}

pub(crate) fn within_v6(network: Ipv6Addr, bits: u8, address: Ipv6Addr) -> bool {
    let mask = u128::MAX.checked_shl(128 - u32::from(bits)).unwrap_or(0);
    u128::from(network) & mask == u128::from(address) & mask
}
