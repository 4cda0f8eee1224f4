use super::*;
use std::time::Duration;

pub(in crate::fetch) fn pol(loopback: bool, private: bool) -> FetchPolicy {
    FetchPolicy {
        allow_loopback: loopback,
        allow_private: private,
        timeout: Duration::from_secs(1),
        max_bytes: 1,
        extra_roots: Vec::new(),
    }
}

/// What an address is expected to be.
#[derive(Clone, Copy, Debug)]
enum Want {
    /// Allowed under every policy.
    Global,
    /// Allowed exactly when `allow_loopback`.
    Loopback,
    /// Allowed exactly when `allow_private`.
    Private,
    /// Denied under every policy, flags or not.
    Never,
}
use Want::*;

/// Every non-global block (its edges where they matter), every
/// IPv4-in-IPv6 form with a loopback / private / metadata / public
/// IPv4, public addresses; each checked under all four policies.
const TABLE: &[(&str, Want)] = &[
    // IPv4 blocks.
    ("0.0.0.0", Never),
    ("0.255.255.255", Never),
    ("10.0.0.1", Private),
    ("10.255.255.255", Private),
    ("9.255.255.255", Global),
    ("11.0.0.0", Global),
    ("100.64.0.1", Private),
    ("100.127.255.255", Private),
    ("100.63.255.255", Global),
    ("100.128.0.0", Global),
    ("127.0.0.1", Loopback),
    ("127.255.255.254", Loopback),
    ("169.254.0.1", Never),
    ("169.254.169.254", Never),
    ("172.16.0.1", Private),
    ("172.31.255.255", Private),
    ("172.15.255.255", Global),
    ("172.32.0.0", Global),
    ("192.0.0.1", Never),
    ("192.0.0.9", Never),
    ("192.0.0.192", Never),
    ("192.0.2.1", Never),
    ("192.0.3.0", Global),
    ("192.88.99.1", Never),
    ("192.168.0.1", Private),
    ("192.168.255.255", Private),
    ("198.18.0.1", Never),
    ("198.19.255.255", Never),
    ("198.17.255.255", Global),
    ("198.20.0.0", Global),
    ("198.51.100.7", Never),
    ("203.0.113.9", Never),
    ("224.0.0.1", Never),
    ("239.255.255.255", Never),
    ("240.0.0.1", Never),
    ("255.255.255.254", Never),
    ("255.255.255.255", Never),
    // Metadata: always, even in ranges the flags open.
    ("100.100.100.200", Never),
    ("fd00:ec2::254", Never),
    // Public IPv4.
    ("8.8.8.8", Global),
    ("1.1.1.1", Global),
    ("93.184.216.34", Global),
    ("223.255.255.255", Global),
    // IPv6 blocks.
    ("::", Never),
    ("::1", Loopback),
    ("100::1", Never),
    ("100::ffff:ffff:ffff:ffff", Never),
    ("2001:2::1", Never),
    ("2001:1ff:ffff::1", Never),
    ("2001:200::1", Global),
    ("2001:db8::1", Never),
    ("3fff::1", Never),
    ("3fff:fff:ffff::1", Never),
    ("3fff:1000::1", Global),
    ("5f00::1", Never),
    ("fc00::1", Private),
    ("fd12:3456::1", Private),
    ("fe80::1", Never),
    ("febf:ffff::1", Never),
    ("fec0::1", Never),
    ("ff02::1", Never),
    ("ff0e::1", Never),
    // Outside 2000::/3 and not listed: denied.
    ("1::1", Never),
    ("100:0:0:1::1", Never),
    ("::ffff:0:808:808", Never),
    ("4000::1", Never),
    ("e000::1", Never),
    // IPv4-compatible (::/96): judged by the IPv4.
    ("::127.0.0.1", Loopback),
    ("::10.0.0.1", Private),
    ("::169.254.169.254", Never),
    ("::0.0.0.2", Never),
    ("::8.8.8.8", Global),
    // IPv4-mapped (::ffff:0:0/96).
    ("::ffff:127.0.0.1", Loopback),
    ("::ffff:192.168.0.1", Private),
    ("::ffff:169.254.169.254", Never),
    ("::ffff:100.100.100.200", Never),
    ("::ffff:0.0.0.0", Never),
    ("::ffff:8.8.8.8", Global),
    // NAT64 well-known prefix (64:ff9b::/96).
    ("64:ff9b::7f00:1", Loopback),
    ("64:ff9b::a00:1", Private),
    ("64:ff9b::a9fe:a9fe", Never),
    ("64:ff9b::808:808", Global),
    // Local-use NAT64 (64:ff9b:1::/48): never, whatever it carries.
    ("64:ff9b:1::1", Never),
    ("64:ff9b:1::7f00:1", Never),
    ("64:ff9b:1::808:808", Never),
    ("64:ff9b:1:ffff:ffff:ffff:ffff:ffff", Never),
    // 6to4 (2002::/16, IPv4 in bits 16..48).
    ("2002:7f00:1::1", Loopback),
    ("2002:a00:1::1", Private),
    ("2002:a9fe:a9fe::1", Never),
    ("2002:c058:6301::1", Never),
    ("2002:0808:0808::1", Global),
    // Teredo (2001::/32): never, even with public server and client.
    ("2001:0:4136:e378:8000:63bf:3fff:fdd2", Never),
    ("2001:0:808:808::f7f7:f7f7", Never),
    ("2001:0:7f00:1::1", Never),
    // Public IPv6.
    ("2606:4700:4700::1111", Global),
    ("2a00:1450::1", Global),
    ("2001:4860:4860::8888", Global),
    ("2400::1", Global),
];

#[test]
fn only_global_unicast_passes() {
    for &(a, want) in TABLE {
        let ip: IpAddr = a.parse().unwrap_or_else(|e| panic!("{a}: {e}"));
        for (loopback, private) in [(false, false), (true, false), (false, true), (true, true)] {
            let allowed = match want {
                Global => true,
                Loopback => loopback,
                Private => private,
                Never => false,
            };
            let got = denied(ip, &pol(loopback, private));
            assert_eq!(
                got.is_none(),
                allowed,
                "{a} ({want:?}) with allow_loopback={loopback}, allow_private={private}: {got:?}"
            );
        }
    }
}

#[test]
fn denial_reasons() {
    let strict = pol(false, false);
    let why = |a: &str| denied(a.parse().unwrap(), &strict).unwrap();
    assert!(why("::127.0.0.1").contains("--allow-loopback-fetch"));
    assert!(why("2002:a00:1::1").contains("--allow-private-fetch"));
    assert!(why("fd00:ec2::254").contains("metadata"));
    assert!(why("100.100.100.200").contains("metadata"));
    assert!(why("2001:0:4136:e378:8000:63bf:3fff:fdd2").contains("Teredo"));
    assert!(why("2001:2::1").contains("2001::/23"));
    assert!(why("4000::1").contains("2000::/3"));
}
