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

mod address;

pub use address::denied;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Limited};
use hyper_util::rt::TokioIo;
use std::net::{IpAddr, SocketAddr};
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
mod tests;
