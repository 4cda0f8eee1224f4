//! `transform-url`: the proxy fetches a ciphertext itself (GHW11's
//! "proxy+web"), as an HTTP/1.1 GET over `http://` or `https://`, with SSRF
//! protection.
//!
//! The host is resolved once, every resolved address is checked against the
//! deny-list, and the TCP connection goes to the checked address (so a DNS
//! answer cannot change between check and use). For `https://`, TLS (rustls,
//! TLS 1.2/1.3) then runs over that very socket: the server name sent (SNI)
//! and verified against the certificate is the URL's host name, and the
//! certificate must chain to Mozilla's roots (compiled in from
//! `webpki-roots`) or to an extra CA the operator trusts
//! ([`FetchPolicy::extra_roots`], `abbe proxy serve --fetch-ca FILE`: a
//! private S3-compatible store, tests). S3 presigned URLs are plain GETs
//! whose authorisation lives in the query string, so they work as they are.
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

/// Why a fetch failed.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("bad URL: {0}")]
    BadUrl(String),
    #[error("refused to fetch from {addr}: {why} (SSRF protection)")]
    Denied { addr: IpAddr, why: &'static str },
    #[error("cannot resolve {0}")]
    Resolve(String),
    #[error("fetch failed: {0}")]
    Upstream(String),
    #[error("TLS with {host} failed: {why}")]
    Tls { host: String, why: String },
    #[error("fetch timed out after {0:?}")]
    Timeout(Duration),
    #[error("the fetched object is larger than the limit of {0} bytes")]
    TooLarge(usize),
}

/// Why `ip` may not be fetched from under `policy`, if it may not.
pub fn denied(ip: IpAddr, policy: &FetchPolicy) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => denied_v4(v4, policy),
        IpAddr::V6(v6) => {
            // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible and NAT64
            // (64:ff9b::/96) addresses carry an IPv4 address: judge that.
            if let Some(v4) = v6.to_ipv4_mapped() {
                return denied_v4(v4, policy);
            }
            let s = v6.segments();
            if s[0] == 0x64 && s[1] == 0xff9b && s[2..6] == [0, 0, 0, 0] {
                let o = v6.octets();
                return denied_v4(Ipv4Addr::new(o[12], o[13], o[14], o[15]), policy);
            }
            denied_v6(v6, policy)
        }
    }
}

fn denied_v4(ip: Ipv4Addr, policy: &FetchPolicy) -> Option<&'static str> {
    let o = ip.octets();
    if ip.is_link_local() {
        return Some("link-local address (169.254.0.0/16, cloud metadata)");
    }
    if ip == Ipv4Addr::new(100, 100, 100, 200) || ip == Ipv4Addr::new(192, 0, 0, 192) {
        return Some("cloud metadata address");
    }
    if o[0] == 0 {
        return Some("unspecified address (0.0.0.0/8)");
    }
    if ip.is_multicast() || ip.is_broadcast() || o[0] >= 240 {
        return Some("multicast, broadcast or reserved address");
    }
    if ip.is_loopback() && !policy.allow_loopback {
        return Some("loopback address (start the proxy with --allow-loopback-fetch to allow)");
    }
    let cgnat = o[0] == 100 && (o[1] & 0xc0) == 64;
    if (ip.is_private() || cgnat) && !policy.allow_private {
        return Some("private address (start the proxy with --allow-private-fetch to allow)");
    }
    None
}

fn denied_v6(ip: Ipv6Addr, policy: &FetchPolicy) -> Option<&'static str> {
    let s = ip.segments();
    if (s[0] & 0xffc0) == 0xfe80 {
        return Some("link-local address (fe80::/10)");
    }
    if ip == Ipv6Addr::new(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x254) {
        return Some("cloud metadata address");
    }
    if ip.is_unspecified() {
        return Some("unspecified address");
    }
    if (s[0] & 0xff00) == 0xff00 {
        return Some("multicast address");
    }
    if ip.is_loopback() && !policy.allow_loopback {
        return Some("loopback address (start the proxy with --allow-loopback-fetch to allow)");
    }
    if (s[0] & 0xfe00) == 0xfc00 && !policy.allow_private {
        return Some("private address (start the proxy with --allow-private-fetch to allow)");
    }
    // Site-local (deprecated, fec0::/10).
    if (s[0] & 0xffc0) == 0xfec0 {
        return Some("site-local address");
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
                .map_err(|e| FetchError::Resolve(format!("{bare}: {e}")))?
                .collect(),
        };
        if addrs.is_empty() {
            return Err(FetchError::Resolve(bare.to_owned()));
        }
        // Every address the name resolves to must be allowed.
        for a in &addrs {
            if let Some(why) = denied(a.ip(), policy) {
                return Err(FetchError::Denied { addr: a.ip(), why });
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
            FetchError::Upstream(format!(
                "cannot connect to {}: {}",
                auth,
                last.map(|e| e.to_string()).unwrap_or_default()
            ))
        })?;
        let path = uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
        if !https {
            return get(stream, url, auth.as_str(), path, policy.max_bytes).await;
        }
        // TLS over the socket connected to the checked address; the name
        // verified (and sent as SNI) is the URL's host.
        let tls = self.tls.as_ref().map_err(|e| FetchError::Tls {
            host: auth.to_string(),
            why: format!("no TLS configuration: {e}"),
        })?;
        let name = ServerName::try_from(bare.to_owned())
            .map_err(|e| FetchError::BadUrl(format!("{url}: {e}")))?;
        let stream = tokio_rustls::TlsConnector::from(tls.clone())
            .connect(name, stream)
            .await
            .map_err(|e| FetchError::Tls {
                host: auth.to_string(),
                why: tls_hint(&e),
            })?;
        get(stream, url, auth.as_str(), path, policy.max_bytes).await
    }
}

/// Why a TLS handshake failed, with a hint for an unknown issuer.
fn tls_hint(e: &std::io::Error) -> String {
    let unknown_issuer = e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>())
        .is_some_and(|r| {
            matches!(
                r,
                rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer)
            )
        });
    if unknown_issuer {
        format!("{e} (the server's certificate does not chain to a trusted CA; a private CA can be trusted with `abbe proxy serve --fetch-ca FILE`)")
    } else {
        e.to_string()
    }
}

/// The GET itself, over a connected (and, for https, TLS) stream: no
/// redirects, a body of at most `max_bytes`.
async fn get<S>(
    stream: S,
    url: &str,
    host: &str,
    path: &str,
    max_bytes: usize,
) -> Result<Bytes, FetchError>
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
        return Err(FetchError::Upstream(format!(
            "{url} answered {status} (redirects are not followed)"
        )));
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

    #[test]
    fn deny_list() {
        let strict = pol(false, false);
        let open = pol(true, true);
        for a in [
            "169.254.169.254",
            "100.100.100.200",
            "fe80::1",
            "fd00:ec2::254",
            "0.0.0.0",
            "::",
            "::ffff:169.254.169.254",
            "64:ff9b::a9fe:a9fe",
            "224.0.0.1",
            "255.255.255.255",
        ] {
            let ip: IpAddr = a.parse().unwrap();
            assert!(denied(ip, &open).is_some(), "{a} must always be denied");
        }
        for a in [
            "127.0.0.1",
            "::1",
            "::ffff:127.0.0.1",
            "10.0.0.1",
            "192.168.1.1",
            "fc00::1",
            "100.64.0.1",
        ] {
            let ip: IpAddr = a.parse().unwrap();
            assert!(denied(ip, &strict).is_some(), "{a} denied by default");
            assert!(denied(ip, &open).is_none(), "{a} allowed by the flags");
        }
        for a in ["93.184.216.34", "2606:2800:220:1::1"] {
            assert!(denied(a.parse().unwrap(), &strict).is_none());
        }
    }
}
