//! Which addresses `transform-url` may reach: only global unicast (the IANA
//! IPv4 and IPv6 Special-Purpose Address Registries), with loopback and
//! private blocks behind the proxy's flags; see the module above.

use super::FetchPolicy;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// How a non-global address block is treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// Allowed with [`FetchPolicy::allow_loopback`].
    Loopback,
    /// Allowed with [`FetchPolicy::allow_private`].
    Private,
    /// Always denied.
    Never,
}

const LOOPBACK: &str = "loopback address (start the proxy with --allow-loopback-fetch to allow)";
const PRIVATE: &str = "private address (start the proxy with --allow-private-fetch to allow)";
const METADATA: &str = "cloud metadata address";

/// The IPv4 blocks that are not global unicast (IANA IPv4 Special-Purpose
/// Address Registry, plus multicast and broadcast): network, prefix
/// length, class, reason. Everything else is allowed.
const V4_NON_GLOBAL: &[(Ipv4Addr, u8, Class, &str)] = &[
    (
        Ipv4Addr::new(0, 0, 0, 0),
        8,
        Class::Never,
        "\"this network\" (0.0.0.0/8)",
    ),
    (Ipv4Addr::new(10, 0, 0, 0), 8, Class::Private, PRIVATE),
    (Ipv4Addr::new(100, 64, 0, 0), 10, Class::Private, PRIVATE),
    (Ipv4Addr::new(127, 0, 0, 0), 8, Class::Loopback, LOOPBACK),
    (
        Ipv4Addr::new(169, 254, 0, 0),
        16,
        Class::Never,
        "link-local address (169.254.0.0/16, cloud metadata)",
    ),
    (Ipv4Addr::new(172, 16, 0, 0), 12, Class::Private, PRIVATE),
    (
        Ipv4Addr::new(192, 0, 0, 0),
        24,
        Class::Never,
        "IETF protocol assignment (192.0.0.0/24)",
    ),
    (
        Ipv4Addr::new(192, 0, 2, 0),
        24,
        Class::Never,
        "documentation address (TEST-NET-1)",
    ),
    (
        Ipv4Addr::new(192, 88, 99, 0),
        24,
        Class::Never,
        "6to4 relay anycast (192.88.99.0/24, deprecated)",
    ),
    (Ipv4Addr::new(192, 168, 0, 0), 16, Class::Private, PRIVATE),
    (
        Ipv4Addr::new(198, 18, 0, 0),
        15,
        Class::Never,
        "benchmarking address (198.18.0.0/15)",
    ),
    (
        Ipv4Addr::new(198, 51, 100, 0),
        24,
        Class::Never,
        "documentation address (TEST-NET-2)",
    ),
    (
        Ipv4Addr::new(203, 0, 113, 0),
        24,
        Class::Never,
        "documentation address (TEST-NET-3)",
    ),
    (
        Ipv4Addr::new(224, 0, 0, 0),
        4,
        Class::Never,
        "multicast address (224.0.0.0/4)",
    ),
    (
        Ipv4Addr::new(240, 0, 0, 0),
        4,
        Class::Never,
        "reserved address (240.0.0.0/4)",
    ),
    (
        Ipv4Addr::new(255, 255, 255, 255),
        32,
        Class::Never,
        "limited broadcast address",
    ),
];

/// The IPv6 blocks that are not global unicast (IANA IPv6 Special-Purpose
/// Address Registry), first match wins. The forms that carry an IPv4
/// address (::/96, ::ffff:0:0/96, 64:ff9b::/96, 2002::/16) are judged by
/// that address before this table ([`embedded_v4`]); anything outside
/// 2000::/3 that is not listed is denied too.
const V6_NON_GLOBAL: &[(Ipv6Addr, u8, Class, &str)] = &[
    (
        Ipv6Addr::UNSPECIFIED,
        128,
        Class::Never,
        "unspecified address (::)",
    ),
    (Ipv6Addr::LOCALHOST, 128, Class::Loopback, LOOPBACK),
    (
        Ipv6Addr::new(0x64, 0xff9b, 1, 0, 0, 0, 0, 0),
        48,
        Class::Never,
        "local-use NAT64 address (64:ff9b:1::/48)",
    ),
    (
        Ipv6Addr::new(0x100, 0, 0, 0, 0, 0, 0, 0),
        64,
        Class::Never,
        "discard-only address (100::/64)",
    ),
    (
        Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0),
        32,
        Class::Never,
        "Teredo address (2001::/32)",
    ),
    (
        Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0),
        23,
        Class::Never,
        "IETF protocol assignment (2001::/23)",
    ),
    (
        Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0),
        32,
        Class::Never,
        "documentation address (2001:db8::/32)",
    ),
    (
        Ipv6Addr::new(0x3fff, 0, 0, 0, 0, 0, 0, 0),
        20,
        Class::Never,
        "documentation address (3fff::/20)",
    ),
    (
        Ipv6Addr::new(0x5f00, 0, 0, 0, 0, 0, 0, 0),
        16,
        Class::Never,
        "SRv6 SID (5f00::/16)",
    ),
    (
        Ipv6Addr::new(0xfc00, 0, 0, 0, 0, 0, 0, 0),
        7,
        Class::Private,
        PRIVATE,
    ),
    (
        Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 0),
        10,
        Class::Never,
        "link-local address (fe80::/10)",
    ),
    (
        Ipv6Addr::new(0xfec0, 0, 0, 0, 0, 0, 0, 0),
        10,
        Class::Never,
        "site-local address (fec0::/10, deprecated)",
    ),
    (
        Ipv6Addr::new(0xff00, 0, 0, 0, 0, 0, 0, 0),
        8,
        Class::Never,
        "multicast address (ff00::/8)",
    ),
];

/// Whether `ip` is in `net`/`len` (`ip`, `net` as integers of `BITS` bits).
fn in_block<const BITS: u32>(ip: u128, net: u128, len: u8) -> bool {
    let len = u32::from(len);
    len == 0 || (ip ^ net) >> (BITS - len) == 0
}

/// The verdict for an address of class `class` under `policy`.
fn judge(class: Class, why: &'static str, policy: &FetchPolicy) -> Option<&'static str> {
    match class {
        Class::Loopback if policy.allow_loopback => None,
        Class::Private if policy.allow_private => None,
        _ => Some(why),
    }
}

/// Why `ip` may not be fetched from under `policy`, if it may not: only
/// global unicast addresses pass, plus loopback / private ones when the
/// policy allows them.
pub fn denied(ip: IpAddr, policy: &FetchPolicy) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => denied_v4(v4, policy),
        IpAddr::V6(v6) => match embedded_v4(v6) {
            Some(v4) => denied_v4(v4, policy),
            None => denied_v6(v6, policy),
        },
    }
}

/// The IPv4 address an IPv6 address stands for, in the transition forms
/// that carry one: IPv4-compatible (::/96, but not :: and ::1),
/// IPv4-mapped (::ffff:0:0/96), NAT64 well-known prefix (64:ff9b::/96,
/// last 32 bits) and 6to4 (2002::/16, bits 16..48). Teredo (2001::/32)
/// and local-use NAT64 (64:ff9b:1::/48) are denied outright instead.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let low = Ipv4Addr::from(u128::from(ip) as u32);
    match s {
        [0, 0, 0, 0, 0, 0, ..] if !ip.is_unspecified() && !ip.is_loopback() => Some(low),
        [0, 0, 0, 0, 0, 0xffff, ..] => Some(low),
        [0x64, 0xff9b, 0, 0, 0, 0, ..] => Some(low),
        [0x2002, hi, lo, ..] => Some(Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo))),
        _ => None,
    }
}

fn denied_v4(ip: Ipv4Addr, policy: &FetchPolicy) -> Option<&'static str> {
    // Metadata services, explicitly (100.100.100.200 is in 100.64/10,
    // which --allow-private-fetch allows).
    let metadata = [
        Ipv4Addr::new(169, 254, 169, 254), // AWS, GCP, Azure, ...
        Ipv4Addr::new(100, 100, 100, 200), // Alibaba Cloud
        Ipv4Addr::new(192, 0, 0, 192),     // Oracle Cloud
    ];
    if metadata.contains(&ip) {
        return Some(METADATA);
    }
    let bits = u128::from(u32::from(ip));
    V4_NON_GLOBAL
        .iter()
        .find(|(net, len, ..)| in_block::<32>(bits, u128::from(u32::from(*net)), *len))
        .and_then(|&(_, _, class, why)| judge(class, why, policy))
}

fn denied_v6(ip: Ipv6Addr, policy: &FetchPolicy) -> Option<&'static str> {
    // AWS's IPv6 metadata service (in fc00::/7, which
    // --allow-private-fetch allows).
    if ip == Ipv6Addr::new(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x254) {
        return Some(METADATA);
    }
    let bits = u128::from(ip);
    if let Some(&(_, _, class, why)) = V6_NON_GLOBAL
        .iter()
        .find(|(net, len, ..)| in_block::<128>(bits, u128::from(*net), *len))
    {
        return judge(class, why, policy);
    }
    if !in_block::<128>(bits, 0x2000 << 112, 3) {
        return Some("not a global unicast address (outside 2000::/3)");
    }
    None
}

#[cfg(test)]
pub(super) mod tests;
