//! `transform-url`: the proxy fetches a ciphertext itself (GHW11's
//! "proxy+web"), as an HTTP/1.1 GET over `http://` or `https://`, with SSRF
//! protection.
//!
//! The host is resolved once, every resolved address is checked, and the TCP
//! connection goes to the checked address (so a DNS answer cannot change
//! between check and use). For `https://`, TLS (rustls, TLS 1.2/1.3) then
//! runs over that very socket: the server name sent (SNI) and verified
//! against the certificate is the URL's host name, and the certificate must
//! chain to Mozilla's roots (compiled in from `webpki-roots`) or to an extra
//! CA the operator trusts ([`FetchPolicy::extra_roots`], `abbe proxy serve
//! --fetch-ca FILE`: a private S3-compatible store, tests). S3 presigned URLs
//! are plain GETs whose authorisation lives in the query string, so they work
//! as they are.
//!
//! What may be fetched from ([`denied`]): only global unicast addresses
//! (IANA IPv4 and IPv6 Special-Purpose Address Registries; for IPv6, only
//! within 2000::/3). An IPv6 address carrying an IPv4 one (::/96,
//! ::ffff:0:0/96, 64:ff9b::/96, 2002::/16) is judged by that IPv4 address;
//! Teredo (2001::/32) and local-use NAT64 (64:ff9b:1::/48) are denied.
//! [`FetchPolicy::allow_loopback`] adds 127/8 and ::1,
//! [`FetchPolicy::allow_private`] 10/8, 172.16/12, 192.168/16, 100.64/10 and
//! fc00::/7; link-local and cloud metadata addresses are always denied. The
//! HTTP client is not told the resolved addresses, the reason or OS errors
//! ([`FetchError::client_message`]); the server log is.
//!
//! Redirects are not followed. A time limit covers the whole fetch
//! (resolution, connection, handshake, body) and the body is capped.

use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Limited};
use hyper_util::rt::TokioIo;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};
use tokio_rustls::rustls::{self, ClientConfig, RootCertStore};

/// What the fetcher may reach and how much it may read.
#[derive(Clone, Debug)]
pub struct FetchPolicy {
    /// Allow 127.0.0.0/8 and ::1 (tests, a co-located web server).
    pub allow_loopback: bool,
    /// Allow private ranges (10/8, 172.16/12, 192.168/16, 100.64/10,
    /// fc00::/7). Link-local and metadata addresses are always denied.
    pub allow_private: bool,
    pub timeout: Duration,
    pub max_bytes: usize,
    /// CA certificates trusted for `https://` besides Mozilla's roots
    /// (DER; [`load_ca_pem`] reads a PEM file).
    pub extra_roots: Vec<CertificateDer<'static>>,
}

impl Default for FetchPolicy {
    /// Public addresses only, 20 s, 64 MiB, Mozilla's roots only.
    fn default() -> Self {
        FetchPolicy {
            allow_loopback: false,
            allow_private: false,
            timeout: Duration::from_secs(20),
            max_bytes: 64 << 20,
            extra_roots: Vec::new(),
        }
    }
}

/// Reads the CA certificates of a PEM file (`--fetch-ca`), checking that
/// each is usable as a trust anchor.
pub fn load_ca_pem(path: &std::path::Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let pem = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let certs = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{}: not a PEM certificate file: {e}", path.display()))?;
    if certs.is_empty() {
        return Err(format!(
            "{}: no CERTIFICATE in this PEM file",
            path.display()
        ));
    }
    let mut store = RootCertStore::empty();
    for c in &certs {
        store
            .add(c.clone())
            .map_err(|e| format!("{}: unusable CA certificate: {e}", path.display()))?;
    }
    Ok(certs)
}

/// The TLS client configuration for `policy`: ring as the crypto provider,
/// Mozilla's roots plus `policy.extra_roots`, no client certificate.
fn tls_config(policy: &FetchPolicy) -> Result<Arc<ClientConfig>, String> {
    let mut roots = RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    let (_, ignored) = roots.add_parsable_certificates(policy.extra_roots.iter().cloned());
    if ignored > 0 {
        return Err(format!("{ignored} extra CA certificate(s) cannot be used"));
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let cfg = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(cfg))
}

/// Fetches URLs under one [`FetchPolicy`]; holds the TLS configuration,
/// built once.
#[derive(Clone)]
pub struct Fetcher {
    policy: FetchPolicy,
    tls: Result<Arc<ClientConfig>, String>,
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher")
            .field("policy", &self.policy)
            .field("tls", &self.tls.as_ref().map(|_| "rustls"))
            .finish()
    }
}

/// Why a fetch failed. `Display` is the full story for the server log
/// (resolved addresses, OS and TLS error texts); what the HTTP client is
/// told is [`FetchError::client_message`], which never contains them.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("bad URL: {0}")]
    BadUrl(String),
    #[error("refused to fetch from {host} ({addr}): {why} (SSRF protection)")]
    Denied {
        host: String,
        addr: IpAddr,
        why: &'static str,
    },
    #[error("cannot resolve {host}: {why}")]
    Resolve { host: String, why: String },
    #[error("fetch failed: {0}")]
    Upstream(String),
    #[error("{host} answered {status} (redirects are not followed)")]
    Status {
        host: String,
        status: hyper::StatusCode,
    },
    #[error("TLS with {host} failed: {why}")]
    Tls {
        host: String,
        why: String,
        /// What the client is told after "TLS with {host} failed: ".
        hint: &'static str,
    },
    #[error("fetch timed out after {0:?}")]
    Timeout(Duration),
    #[error("the fetched object is larger than the limit of {0} bytes")]
    TooLarge(usize),
}

impl FetchError {
    /// The message for the HTTP client: what it can act on, without the
    /// addresses the host resolved to, OS error texts or certificate
    /// details (those go to the server log, see `Display`).
    pub fn client_message(&self) -> String {
        match self {
            FetchError::BadUrl(m) => format!("bad URL: {m}"),
            FetchError::Denied { .. } => "refused to fetch this URL: its host resolves to an \
                 address that is not public (SSRF protection)"
                .into(),
            FetchError::Resolve { .. } => "cannot fetch this URL: its host does not resolve".into(),
            FetchError::Upstream(_) => "cannot fetch this URL".into(),
            FetchError::Status { status, .. } => {
                format!("the URL answered {status} (redirects are not followed)")
            }
            FetchError::Tls { host, hint, .. } => format!("TLS with {host} failed: {hint}"),
            FetchError::Timeout(_) | FetchError::TooLarge(_) => self.to_string(),
        }
    }
}

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

impl Fetcher {
    pub fn new(policy: FetchPolicy) -> Self {
        let tls = tls_config(&policy);
        Fetcher { policy, tls }
    }

    pub fn policy(&self) -> &FetchPolicy {
        &self.policy
    }

    /// GETs `url` and returns the body.
    pub async fn fetch(&self, url: &str) -> Result<Bytes, FetchError> {
        let limit = self.policy.timeout;
        match tokio::time::timeout(limit, self.fetch_inner(url)).await {
            Ok(r) => r,
            Err(_) => Err(FetchError::Timeout(limit)),
        }
    }

    async fn fetch_inner(&self, url: &str) -> Result<Bytes, FetchError> {
        let policy = &self.policy;
        let uri: hyper::Uri = url
            .parse()
            .map_err(|e| FetchError::BadUrl(format!("{url}: {e}")))?;
        let https = match uri.scheme_str() {
            Some("http") => false,
            Some("https") => true,
            _ => {
                return Err(FetchError::BadUrl(format!(
                    "{url}: only http:// and https:// URLs"
                )))
            }
        };
        let auth = uri
            .authority()
            .ok_or_else(|| FetchError::BadUrl(format!("{url}: no host")))?
            .clone();
        if auth.as_str().contains('@') {
            return Err(FetchError::BadUrl(
                "credentials in URLs are not supported".into(),
            ));
        }
        let host = auth.host();
        let port = auth.port_u16().unwrap_or(if https { 443 } else { 80 });
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let addrs: Vec<SocketAddr> = match bare.parse::<IpAddr>() {
            Ok(ip) => vec![SocketAddr::new(ip, port)],
            Err(_) => tokio::net::lookup_host((bare, port))
                .await
                .map_err(|e| FetchError::Resolve {
                    host: bare.to_owned(),
                    why: e.to_string(),
                })?
                .collect(),
        };
        if addrs.is_empty() {
            return Err(FetchError::Resolve {
                host: bare.to_owned(),
                why: "no address".into(),
            });
        }
        // Every address the name resolves to must be allowed.
        for a in &addrs {
            if let Some(why) = denied(a.ip(), policy) {
                return Err(FetchError::Denied {
                    host: auth.to_string(),
                    addr: a.ip(),
                    why,
                });
            }
        }
        let mut last = None;
        let mut stream = None;
        for a in &addrs {
            match tokio::net::TcpStream::connect(a).await {
                Ok(s) => {
                    stream = Some(s);
                    break;
                }
                Err(e) => last = Some(e),
            }
        }
        let stream = stream.ok_or_else(|| {
            let tried: Vec<String> = addrs.iter().map(|a| a.to_string()).collect();
            FetchError::Upstream(format!(
                "cannot connect to {auth} ({}): {}",
                tried.join(", "),
                last.map(|e| e.to_string()).unwrap_or_default()
            ))
        })?;
        let path = uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
        if !https {
            return get(stream, auth.as_str(), path, policy.max_bytes).await;
        }
        // TLS over the socket connected to the checked address; the name
        // verified (and sent as SNI) is the URL's host.
        let tls = self.tls.as_ref().map_err(|e| FetchError::Tls {
            host: auth.to_string(),
            why: format!("no TLS configuration: {e}"),
            hint: "the proxy has no usable TLS configuration",
        })?;
        let name = ServerName::try_from(bare.to_owned())
            .map_err(|e| FetchError::BadUrl(format!("{url}: {e}")))?;
        let stream = tokio_rustls::TlsConnector::from(tls.clone())
            .connect(name, stream)
            .await
            .map_err(|e| FetchError::Tls {
                host: auth.to_string(),
                why: e.to_string(),
                hint: tls_hint(&e),
            })?;
        get(stream, auth.as_str(), path, policy.max_bytes).await
    }
}

/// Why a TLS handshake failed, in words fit for the client (no addresses,
/// no certificate contents, no OS error text), with a hint for an unknown
/// issuer.
fn tls_hint(e: &std::io::Error) -> &'static str {
    use rustls::CertificateError as C;
    match e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>())
    {
        Some(rustls::Error::InvalidCertificate(C::UnknownIssuer)) => {
            "the server's certificate does not chain to a trusted CA (UnknownIssuer; a private CA can be trusted with `abbe proxy serve --fetch-ca FILE`)"
        }
        Some(rustls::Error::InvalidCertificate(C::NotValidForName | C::NotValidForNameContext { .. })) => {
            "the server's certificate is not valid for this host name"
        }
        Some(rustls::Error::InvalidCertificate(_)) => "the server's certificate was rejected",
        _ => "the TLS handshake failed",
    }
}

/// The GET itself, over a connected (and, for https, TLS) stream: no
/// redirects, a body of at most `max_bytes`.
async fn get<S>(stream: S, host: &str, path: &str, max_bytes: usize) -> Result<Bytes, FetchError>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| FetchError::Upstream(e.to_string()))?;
    let conn = tokio::spawn(conn);
    let req = hyper::Request::get(path)
        .header(hyper::header::HOST, host)
        .header(hyper::header::USER_AGENT, "abbe-proxy")
        .body(Empty::<Bytes>::new())
        .map_err(|e| FetchError::BadUrl(e.to_string()))?;
    let resp = sender
        .send_request(req)
        .await
        .map_err(|e| FetchError::Upstream(e.to_string()))?;
    let status = resp.status();
    if !status.is_success() {
        conn.abort();
        return Err(FetchError::Status {
            host: host.to_owned(),
            status,
        });
    }
    if let Some(len) = resp
        .headers()
        .get(hyper::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
    {
        if len > max_bytes as u64 {
            conn.abort();
            return Err(FetchError::TooLarge(max_bytes));
        }
    }
    let body = Limited::new(resp.into_body(), max_bytes)
        .collect()
        .await
        .map_err(|e| {
            if e.is::<http_body_util::LengthLimitError>() {
                FetchError::TooLarge(max_bytes)
            } else {
                FetchError::Upstream(e.to_string())
            }
        })?
        .to_bytes();
    conn.abort();
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pol(loopback: bool, private: bool) -> FetchPolicy {
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
            for (loopback, private) in [(false, false), (true, false), (false, true), (true, true)]
            {
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
        let e =
            FetchError::Upstream("cannot connect to x:1 (10.0.0.7:1): Connection refused".into());
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
}
