use super::address::tests::pol;
use super::*;

/// The client is told that the fetch was refused, not where the host
/// resolved to nor why; the log (`Display`) has both.
#[test]
fn client_message_hides_the_address() {
    for a in ["::127.0.0.1", "127.0.0.1", "10.1.2.3", "fd00:ec2::254"] {
        let addr: IpAddr = a.parse().unwrap();
        let e = FetchError::Denied {
            host: "internal.example:80".into(),
            addr,
            why: denied(addr, &pol(false, false)).unwrap(),
        };
        let m = e.client_message();
        assert!(m.contains("refused") && m.contains("SSRF"), "{m}");
        assert!(!m.contains(&addr.to_string()), "{m}");
        assert!(!m.contains("127.0.0.1") && !m.contains("10.1.2.3"), "{m}");
        assert!(!m.contains("loopback") && !m.contains("metadata"), "{m}");
        let log = e.to_string();
        assert!(
            log.contains(&addr.to_string()) && log.contains("internal.example"),
            "{log}"
        );
    }
    let e = FetchError::Upstream("cannot connect to x:1 (10.0.0.7:1): Connection refused".into());
    assert_eq!(e.client_message(), "cannot fetch this URL");
    let e = FetchError::Resolve {
        host: "nope.invalid".into(),
        why: "failed to lookup address information".into(),
    };
    assert!(!e.client_message().contains("lookup"));
}

/// The IPv4-compatible form of 127.0.0.1 is refused before any
/// connection (port 9 would otherwise fail to connect: a 502).
#[tokio::test]
async fn ipv4_compatible_loopback_is_refused() {
    let f = Fetcher::new(pol(false, false));
    for url in [
        "http://[::127.0.0.1]:9/x",
        "http://[64:ff9b::7f00:1]:9/x",
        "https://[2002:7f00:1::1]:9/x",
    ] {
        match f.fetch(url).await {
            Err(FetchError::Denied { addr, .. }) => assert!(addr.is_ipv6(), "{url}"),
            other => panic!("{url}: expected a refusal, got {other:?}"),
        }
    }
}
