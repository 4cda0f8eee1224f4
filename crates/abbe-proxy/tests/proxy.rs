//! The real server on a loopback port: SQLite in a temp dir always, and the
//! same suite on PostgreSQL when ABBE_TEST_POSTGRES_URL is set
//! (scripts/test-postgres.sh starts one).

use abbe::abe::cca::CcaKey;
use abbe::abe::{Cca, Rcca, Waters11};
use abbe::curve::Bls12;
use abbe::envelope;
use abbe::kem::Authority;
use abbe::kem::{Kem, Outsourcing, SessionKey};
use abbe::policy::{AttributeSet, Policy};
use abbe::wire::{Encoded, ObjectKind};
use abbe_proxy::fetch::FetchPolicy;
use abbe_proxy::server::{self, Running};
use abbe_proxy::{Config, ProxyClient, Store};
use rand_core::OsRng;
use std::sync::Arc;
use std::time::Duration;
use tokio_rustls::rustls::pki_types::CertificateDer;

type W = Waters11<Bls12>;

struct Keys {
    pk: <W as Kem>::PublicKey,
    tk: Vec<u8>,
    rk: Vec<u8>,
}

fn keys(attrs: &str) -> Keys {
    let (pk, mk) = W::setup(&Default::default(), &mut OsRng).unwrap();
    let key: CcaKey<W> =
        abbe::kem::keygen::<Cca<W>>(&pk, &mk, &AttributeSet::parse(attrs).unwrap(), &mut OsRng)
            .unwrap();
    let (tk, rk) = Rcca::<W>::transform_key(&key, &mut OsRng);
    Keys {
        pk,
        tk: tk.to_bytes(),
        rk: rk.to_bytes(),
    }
}

/// A ciphertext file (RCCA or CPA header) of `data` under `policy`.
fn encrypt(k: &Keys, policy: &str, rcca: bool, data: &[u8]) -> Vec<u8> {
    let policy = Policy::parse(policy).unwrap();
    let (session, header) = if rcca {
        let (s, h) = Rcca::<W>::encapsulate(&k.pk, &policy, &mut OsRng).unwrap();
        (s, h.to_bytes())
    } else {
        let (s, h) = W::encapsulate(&k.pk, &policy, &mut OsRng).unwrap();
        (s, h.to_bytes())
    };
    let mut out = Vec::new();
    envelope::seal(&header, &session, &mut OsRng, data, &mut out).unwrap();
    out
}

fn session_of(rk: &[u8], transformed_header: &[u8]) -> SessionKey {
    abbe::facade::decrypt_transformed_bytes(
        rk,
        transformed_header,
        // The suite transforms both modes; CPA transformations are taken on
        // purpose here (`decrypt --allow-cpa`), and RCCA ones of whatever
        // header (the proxy's answers are checked elsewhere).
        &abbe::outsource::Expect {
            header_id: None,
            any_original: true,
            allow_cpa: true,
        },
    )
    .unwrap()
}

/// Decrypts a transformed file with the retrieval key.
fn open_transformed(rk: &[u8], file: &[u8]) -> Vec<u8> {
    let mut cur = file;
    let head = envelope::read_head(&mut cur).unwrap();
    assert_eq!(head.preamble.kind, ObjectKind::TransformedFile);
    let s = session_of(rk, &head.header);
    let mut out = Vec::new();
    envelope::open(&head, &s, cur, &mut out).unwrap();
    out
}

/// A server on its own runtime (the tests use the blocking client).
struct Harness {
    rt: tokio::runtime::Runtime,
    running: Option<Running>,
    store: Store,
}

impl Harness {
    fn start(store_url: &str, cfg: Config) -> Harness {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let store = rt.block_on(Store::open(store_url)).unwrap();
        let running = rt
            .block_on(server::spawn(
                "127.0.0.1:0".parse().unwrap(),
                store.clone(),
                cfg,
            ))
            .unwrap();
        Harness {
            rt,
            running: Some(running),
            store,
        }
    }
    fn url(&self) -> String {
        self.running.as_ref().unwrap().url()
    }
    fn token(&self, tenant: &str) -> String {
        self.rt.block_on(self.store.create_token(tenant)).unwrap()
    }
    fn client(&self, token: &str) -> ProxyClient {
        ProxyClient::new(&self.url(), Some(token.to_owned()))
    }
    /// A plain HTTP server on loopback serving `routes` (path → body).
    fn web(&self, routes: Vec<(&'static str, Vec<u8>)>) -> String {
        let mut app = axum::Router::new();
        for (path, body) in routes {
            app = app.route(path, axum::routing::get(move || async move { body }));
        }
        let listener = self
            .rt
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let addr = listener.local_addr().unwrap();
        self.rt.spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        format!("http://{addr}")
    }
    /// An HTTPS server on loopback serving `routes` with `cert` (a minimal
    /// HTTP/1.1 responder over tokio-rustls); returns its port.
    fn https_web(&self, cert: &TestCert, routes: Vec<(&'static str, Vec<u8>)>) -> u16 {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        use tokio_rustls::rustls::{self, pki_types::PrivateKeyDer};
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let cfg = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![cert.leaf.clone()],
                PrivateKeyDer::Pkcs8(cert.leaf_key.clone().into()),
            )
            .unwrap();
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(cfg));
        let listener = self
            .rt
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let port = listener.local_addr().unwrap().port();
        let routes = Arc::new(routes);
        self.rt.spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let (acceptor, routes) = (acceptor.clone(), routes.clone());
                tokio::spawn(async move {
                    // A failed handshake (an untrusting client) just ends.
                    let Ok(mut tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let mut req = Vec::new();
                    let mut buf = [0u8; 4096];
                    while !req.windows(4).any(|w| w == b"\r\n\r\n") {
                        match tls.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => req.extend_from_slice(&buf[..n]),
                        }
                    }
                    let line = String::from_utf8_lossy(&req).into_owned();
                    let path = line.split_whitespace().nth(1).unwrap_or("/").to_owned();
                    let head = |status: &str, len: usize| {
                        format!("HTTP/1.1 {status}\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n")
                    };
                    let resp = match routes.iter().find(|(p, _)| *p == path) {
                        Some((_, body)) => [head("200 OK", body.len()).into_bytes(), body.clone()].concat(),
                        None => head("404 Not Found", 0).into_bytes(),
                    };
                    let _ = tls.write_all(&resp).await;
                    let _ = tls.shutdown().await;
                });
            }
        });
        port
    }
    fn stop(mut self) {
        if let Some(r) = self.running.take() {
            self.rt.block_on(r.stop());
        }
    }
}

/// A test CA and a certificate for "localhost" it signed.
struct TestCert {
    ca: CertificateDer<'static>,
    ca_pem: String,
    leaf: CertificateDer<'static>,
    leaf_key: Vec<u8>,
}

fn test_cert() -> TestCert {
    use rcgen::{
        BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose,
    };
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "abbe test CA");
    ca_params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, ca_key);
    let leaf_key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(vec!["localhost".to_owned()])
        .unwrap()
        .signed_by(&leaf_key, &issuer)
        .unwrap();
    TestCert {
        ca: ca.der().clone(),
        ca_pem: ca.pem(),
        leaf: leaf.der().clone(),
        leaf_key: leaf_key.serialize_der(),
    }
}

fn test_config() -> Config {
    Config {
        max_body: 1 << 20,
        request_timeout: Duration::from_secs(30),
        fetch: FetchPolicy {
            allow_loopback: true,
            allow_private: false,
            timeout: Duration::from_secs(5),
            max_bytes: 1 << 20,
            extra_roots: Vec::new(),
        },
        workers: 2,
        ..Config::default()
    }
}

fn status_of<T: std::fmt::Debug>(r: Result<T, abbe_proxy::ClientError>) -> (u16, String) {
    match r {
        Err(abbe_proxy::ClientError::Status { status, message }) => (status, message),
        other => panic!("expected an error status, got {other:?}"),
    }
}

/// The whole acceptance suite against one store.
fn suite(store_url: &str) {
    let h = Harness::start(store_url, test_config());
    let alice_tok = h.token("alice");
    let bob_tok = h.token("bob");
    let alice = h.client(&alice_tok);
    let bob = h.client(&bob_tok);
    let k = keys("doctor, cardiology");
    let id = alice.register(&k.tk).unwrap();
    assert_eq!(id.len(), 32);

    // Register: no token, unknown token, garbage TK.
    let anon = ProxyClient::new(&h.url(), None);
    assert_eq!(status_of(anon.register(&k.tk)).0, 401);
    assert_eq!(status_of(h.client("abbe_nope").register(&k.tk)).0, 401);
    let (s, m) = status_of(alice.register(b"not a key"));
    assert_eq!(s, 400);
    assert!(!m.is_empty());
    assert_eq!(status_of(alice.register(&k.rk)).0, 400);

    // Push a whole RCCA file: transformed file, payload unchanged.
    let data: Vec<u8> = (0..150_000u32).map(|i| (i * 7) as u8).collect();
    let file = encrypt(&k, "doctor and cardiology", true, &data);
    let tfile = alice.transform(&id, &file).unwrap();
    assert!(tfile.len() < file.len());
    assert_eq!(open_transformed(&k.rk, &tfile), data);

    // Push only the KEM header (CPA and RCCA): the transformed header.
    for rcca in [false, true] {
        let file = encrypt(&k, "doctor", rcca, b"hello");
        let mut cur = &file[..];
        let head = envelope::read_head(&mut cur).unwrap();
        let t = alice.transform(&id, &head.header).unwrap();
        let s = session_of(&k.rk, &t);
        let mut out = Vec::new();
        envelope::open(&head, &s, cur, &mut out).unwrap();
        assert_eq!(out, b"hello");
    }

    // transform-url from a second local web server.
    let big = vec![0u8; 2 << 20];
    let web = h.web(vec![("/record.abbe", file.clone()), ("/big", big)]);
    let t = alice
        .transform_url(&id, &format!("{web}/record.abbe"))
        .unwrap();
    assert_eq!(open_transformed(&k.rk, &t), data);
    assert_eq!(
        status_of(alice.transform_url(&id, &format!("{web}/missing"))).0,
        502
    );
    assert_eq!(
        status_of(alice.transform_url(&id, &format!("{web}/big"))).0,
        413
    );

    // SSRF: link-local / metadata addresses are refused without a connection.
    for url in [
        "http://169.254.169.254/latest/meta-data/",
        "http://[fe80::1]/x",
        "http://100.100.100.200/",
        "http://[::ffff:169.254.169.254]/",
        "http://10.0.0.1/x",
    ] {
        let (s, m) = status_of(alice.transform_url(&id, url));
        assert_eq!(s, 403, "{url}: {m}");
        assert!(m.contains("refused"), "{m}");
    }
    assert_eq!(
        status_of(alice.transform_url(&id, "ftp://example.com/x")).0,
        400
    );
    assert_eq!(status_of(alice.transform_url(&id, "not a url")).0, 400);

    // Another tenant cannot use or delete alice's TK; unknown ids are 404 too.
    assert_eq!(status_of(bob.transform(&id, &file)).0, 404);
    assert_eq!(status_of(bob.delete(&id)).0, 404);
    assert_eq!(status_of(bob.get(&format!("/v1/tks/{id}"))).0, 404);
    assert_eq!(status_of(alice.transform("0123abcd", &file)).0, 404);

    // Limits and bad input.
    let oversized = vec![7u8; (1 << 20) + 1];
    let (s, m) = status_of(alice.transform(&id, &oversized));
    assert_eq!(s, 413);
    assert!(m.contains("limit"), "{m}");
    let (s, m) = status_of(alice.transform(&id, b"garbage ciphertext"));
    assert_eq!(s, 400);
    assert!(m.contains("not an abbe ciphertext"), "{m}");
    let (s, m) = status_of(alice.transform(&id, &file[..200]));
    assert_eq!(s, 400, "{m}");
    assert!(m.contains("truncated"), "{m}");
    assert_eq!(status_of(alice.transform(&id, &tfile)).0, 400);
    // A policy the TK does not satisfy.
    let other = encrypt(&k, "doctor and oncology", true, b"x");
    assert_eq!(status_of(alice.transform(&id, &other)).0, 422);
    // A CCA ciphertext cannot be outsourced.
    let (s, h2) =
        Cca::<W>::encapsulate(&k.pk, &Policy::parse("doctor").unwrap(), &mut OsRng).unwrap();
    let mut cca = Vec::new();
    envelope::seal(&h2.to_bytes(), &s, &mut OsRng, &b"x"[..], &mut cca).unwrap();
    let (s, m) = status_of(alice.transform(&id, &cca));
    assert_eq!(s, 400);
    assert!(m.contains("CCA"), "{m}");

    // Health and metrics.
    let health = String::from_utf8(anon.get("/healthz").unwrap()).unwrap();
    assert!(health.contains("ok"), "{health}");
    let metrics = String::from_utf8(anon.get("/metrics").unwrap()).unwrap();
    assert!(
        metrics.contains("abbe_proxy_transforms_total{scheme=\"waters11\",curve=\"bls12-381\",mode=\"rcca\",outcome=\"ok\"}"),
        "{metrics}"
    );
    assert!(metrics.contains("abbe_proxy_request_duration_seconds_bucket"));
    // The TK was decoded at registration and served from the cache since.
    assert!(
        metrics.contains("abbe_proxy_tk_cache_lookups_total{result=\"hit\"}"),
        "{metrics}"
    );
    assert!(
        metrics.contains("abbe_proxy_tk_cache_lookups_total{result=\"miss\"} 0"),
        "{metrics}"
    );
    assert!(
        metrics.contains("abbe_proxy_tk_cache_entries 1"),
        "{metrics}"
    );
    assert!(metrics.contains("status=\"413\""));

    // Tokens: listed with id, tenant and time (the secret is not stored, so
    // cannot be listed); a revoked token is refused at once, the tenant's
    // other tokens and its TKs stay.
    let (extra_tok, extra_id) =
        h.rt.block_on(h.store.create_token_with_id("alice"))
            .unwrap();
    let extra = h.client(&extra_tok);
    assert!(extra.get("/v1/tks").is_ok());
    let listed = h.rt.block_on(h.store.list_tokens(Some("alice"))).unwrap();
    assert!(listed.iter().all(|t| t.tenant == "alice"));
    assert!(listed.iter().any(|t| t.id == extra_id && t.created_at > 0));
    assert!(listed.len() >= 2);
    let all = h.rt.block_on(h.store.list_tokens(None)).unwrap();
    assert!(all.iter().any(|t| t.tenant == "bob"));
    assert!(all
        .iter()
        .all(|t| t.id.len() == 16 && !extra_tok.contains(&t.id)));
    let revoked =
        h.rt.block_on(h.store.revoke_token(&extra_id.to_uppercase()))
            .unwrap()
            .unwrap();
    assert_eq!(
        (revoked.id.as_str(), revoked.tenant.as_str()),
        (extra_id.as_str(), "alice")
    );
    let (s, m) = status_of(extra.get("/v1/tks"));
    assert_eq!((s, m.as_str()), (401, "unknown token"));
    assert_eq!(status_of(extra.transform(&id, &file)).0, 401);
    assert!(alice.get("/v1/tks").is_ok());
    assert!(h
        .rt
        .block_on(h.store.revoke_token(&extra_id))
        .unwrap()
        .is_none());
    for junk in [
        "",
        "zz",
        "0123456789abcdef0",
        "../../etc",
        "0123456789abcdeg",
    ] {
        assert!(h.rt.block_on(h.store.revoke_token(junk)).unwrap().is_none());
    }
    assert!(!h
        .rt
        .block_on(h.store.list_tokens(None))
        .unwrap()
        .iter()
        .any(|t| t.id == extra_id));

    // Metadata, delete, then 404.
    let info = String::from_utf8(alice.get(&format!("/v1/tks/{id}")).unwrap()).unwrap();
    assert!(info.contains("waters11"), "{info}");
    alice.delete(&id).unwrap();
    assert_eq!(status_of(alice.transform(&id, &file)).0, 404);
    assert_eq!(status_of(alice.delete(&id)).0, 404);
    h.stop();
}

#[test]
fn sqlite_suite() {
    let dir = tempfile::tempdir().unwrap();
    suite(&format!("sqlite:{}", dir.path().join("proxy.db").display()));
}

#[test]
fn sqlite_survives_restart() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("proxy.db").display());
    let k = keys("a");
    let h = Harness::start(&url, test_config());
    let tok = h.token("t");
    let id = h.client(&tok).register(&k.tk).unwrap();
    h.stop();
    let h = Harness::start(&url, test_config());
    let file = encrypt(&k, "a", true, b"after restart");
    let t = h.client(&tok).transform(&id, &file).unwrap();
    assert_eq!(open_transformed(&k.rk, &t), b"after restart");
    h.stop();
}

#[test]
fn loopback_fetch_needs_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = test_config();
    cfg.fetch.allow_loopback = false;
    let h = Harness::start(
        &format!("sqlite:{}", dir.path().join("p.db").display()),
        cfg,
    );
    let tok = h.token("t");
    let k = keys("a");
    let c = h.client(&tok);
    let id = c.register(&k.tk).unwrap();
    let web = h.web(vec![("/x", encrypt(&k, "a", false, b"x"))]);
    let (s, m) = status_of(c.transform_url(&id, &format!("{web}/x")));
    assert_eq!(s, 403);
    assert!(m.contains("refused") && m.contains("SSRF"), "{m}");
    // The same server through the IPv4-compatible IPv6 form of 127.0.0.1:
    // refused too, and the answer does not tell the resolved address.
    let port = web.rsplit(':').next().unwrap();
    let (s, m) = status_of(c.transform_url(&id, &format!("http://[::127.0.0.1]:{port}/x")));
    assert_eq!(s, 403, "{m}");
    assert!(!m.contains("127.0.0.1"), "{m}");
    h.stop();
}

/// transform-url over https://: TLS on the checked socket, the URL's host
/// name verified against the certificate, a private CA trusted only when
/// configured (`--fetch-ca`).
#[test]
fn https_fetch() {
    let dir = tempfile::tempdir().unwrap();
    let cert = test_cert();
    let ca_file = dir.path().join("ca.pem");
    std::fs::write(&ca_file, &cert.ca_pem).unwrap();
    let roots = abbe_proxy::fetch::load_ca_pem(&ca_file).unwrap();
    assert_eq!(roots, vec![cert.ca.clone()]);

    let k = keys("doctor");
    let data = b"over TLS".to_vec();
    let file = encrypt(&k, "doctor", true, &data);
    let mut cfg = test_config();
    cfg.fetch.extra_roots = roots;
    let trusting = Harness::start(
        &format!("sqlite:{}", dir.path().join("a.db").display()),
        cfg,
    );
    let port = trusting.https_web(&cert, vec![("/r.abbe", file.clone())]);
    let tok = trusting.token("t");
    let c = trusting.client(&tok);
    let id = c.register(&k.tk).unwrap();
    let t = c
        .transform_url(&id, &format!("https://localhost:{port}/r.abbe"))
        .unwrap();
    assert_eq!(open_transformed(&k.rk, &t), data);
    // An HTTP error over TLS is still a 502 with the status.
    let (s, m) = status_of(c.transform_url(&id, &format!("https://localhost:{port}/nope")));
    assert_eq!(s, 502, "{m}");
    assert!(m.contains("404"), "{m}");
    // The certificate names "localhost", not 127.0.0.1: refused.
    let (s, m) = status_of(c.transform_url(&id, &format!("https://127.0.0.1:{port}/r.abbe")));
    assert_eq!(s, 502, "{m}");
    assert!(m.contains("TLS"), "{m}");
    // Plain HTTP to the TLS port fails cleanly too.
    assert_eq!(
        status_of(c.transform_url(&id, &format!("http://localhost:{port}/r.abbe"))).0,
        502
    );

    // Without the CA (Mozilla's roots only): a clear 502.
    let untrusting = Harness::start(
        &format!("sqlite:{}", dir.path().join("b.db").display()),
        test_config(),
    );
    let tok = untrusting.token("t");
    let c = untrusting.client(&tok);
    let id = c.register(&k.tk).unwrap();
    let (s, m) = status_of(c.transform_url(&id, &format!("https://localhost:{port}/r.abbe")));
    assert_eq!(s, 502, "{m}");
    assert!(m.contains("TLS with localhost:"), "{m}");
    assert!(m.contains("--fetch-ca"), "{m}");

    // The blocking client (CLI side) speaks https:// too: with the CA, and
    // not without it (Mozilla's roots only).
    let url = format!("https://localhost:{port}");
    let with_ca = ProxyClient::with_ca(&url, None, std::slice::from_ref(&cert.ca));
    assert_eq!(with_ca.get("/r.abbe").unwrap(), file);
    match ProxyClient::new(&url, None).get("/r.abbe") {
        Err(abbe_proxy::ClientError::Transport(m)) => assert!(m.contains("UnknownIssuer"), "{m}"),
        other => panic!("expected a TLS failure, got {other:?}"),
    }

    // The deny-list applies to https:// as to http://.
    let (s, m) = status_of(c.transform_url(&id, "https://169.254.169.254/latest/meta-data/"));
    assert_eq!(s, 403, "{m}");

    // Unusable CA files are refused with a message.
    let junk = dir.path().join("junk.pem");
    std::fs::write(&junk, "not a certificate").unwrap();
    assert!(abbe_proxy::fetch::load_ca_pem(&junk)
        .unwrap_err()
        .contains("no CERTIFICATE"));
    assert!(abbe_proxy::fetch::load_ca_pem(&dir.path().join("missing.pem")).is_err());
    trusting.stop();
    untrusting.stop();
}

fn postgres_url() -> Option<String> {
    let url = std::env::var("ABBE_TEST_POSTGRES_URL")
        .ok()
        .filter(|u| !u.is_empty());
    if url.is_none() {
        // Written to the real stderr (not captured by the test harness), so
        // the skip is visible in a normal `cargo test` run.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr().lock(),
            "note: ABBE_TEST_POSTGRES_URL is not set: PostgreSQL tests skipped (scripts/test-postgres.sh runs them)"
        );
    }
    url
}

#[test]
fn postgres_suite() {
    if let Some(url) = postgres_url() {
        suite(&url);
    }
}

/// Two proxies on one SQLite file (as a fleet on PostgreSQL): a TK cached
/// decoded by one and deleted through the other is never used again.
#[test]
fn sqlite_two_instances_never_use_a_deleted_tk() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("proxy.db").display());
    let a = Harness::start(&url, test_config());
    let b = Harness::start(&url, test_config());
    let tok = a.token("t");
    let k = keys("x, y");
    let id = a.client(&tok).register(&k.tk).unwrap();
    let file = encrypt(&k, "x and y", true, b"cached");
    for _ in 0..2 {
        let t = a.client(&tok).transform(&id, &file).unwrap();
        assert_eq!(open_transformed(&k.rk, &t), b"cached");
    }
    // b has no cached copy: it decodes from the store (a miss), then hits.
    let t = b.client(&tok).transform(&id, &file).unwrap();
    assert_eq!(open_transformed(&k.rk, &t), b"cached");
    b.client(&tok).delete(&id).unwrap();
    assert_eq!(status_of(a.client(&tok).transform(&id, &file)).0, 404);
    let web = a.web(vec![("/x", file.clone())]);
    assert_eq!(
        status_of(a.client(&tok).transform_url(&id, &format!("{web}/x"))).0,
        404
    );
    let m = String::from_utf8(a.client(&tok).get("/metrics").unwrap()).unwrap();
    assert!(m.contains("abbe_proxy_tk_cache_entries 0"), "{m}");
    let m = String::from_utf8(b.client(&tok).get("/metrics").unwrap()).unwrap();
    assert!(
        m.contains("abbe_proxy_tk_cache_lookups_total{result=\"miss\"} 1"),
        "{m}"
    );

    // With the cache off, transformations decode every time and still work.
    let mut cfg = test_config();
    cfg.tk_cache_entries = 0;
    let c = Harness::start(&url, cfg);
    let id = c.client(&tok).register(&k.tk).unwrap();
    for _ in 0..2 {
        let t = c.client(&tok).transform(&id, &file).unwrap();
        assert_eq!(open_transformed(&k.rk, &t), b"cached");
    }
    a.stop();
    b.stop();
    c.stop();
}

/// Two proxies on one PostgreSQL: a TK registered through one is used and
/// deleted through the other.
#[test]
fn postgres_fleet() {
    let Some(url) = postgres_url() else { return };
    let a = Harness::start(&url, test_config());
    let b = Harness::start(&url, test_config());
    let tok = a.token("fleet");
    let k = keys("x, y");
    let id = a.client(&tok).register(&k.tk).unwrap();
    let file = encrypt(&k, "x and y", true, b"fleet");
    let t = b.client(&tok).transform(&id, &file).unwrap();
    assert_eq!(open_transformed(&k.rk, &t), b"fleet");
    b.client(&tok).delete(&id).unwrap();
    assert_eq!(status_of(a.client(&tok).transform(&id, &file)).0, 404);
    a.stop();
    b.stop();
}

#[path = "common/push.rs"]
mod push;

use push::{Gen, Upload};
use sha2::{Digest, Sha256};

/// A server, a tenant with a registered TK, and a small real ciphertext
/// file for that TK (its head is what streamed pushes start with).
struct Streaming {
    h: Harness,
    tok: String,
    id: String,
    k: Keys,
    data: Vec<u8>,
    file: Vec<u8>,
    head_len: usize,
    _dir: tempfile::TempDir,
}

impl Streaming {
    fn start(cfg: Config) -> Streaming {
        let dir = tempfile::tempdir().unwrap();
        let h = Harness::start(
            &format!("sqlite:{}", dir.path().join("s.db").display()),
            cfg,
        );
        let tok = h.token("streamer");
        let k = keys("doctor");
        let id = h.client(&tok).register(&k.tk).unwrap();
        let data = b"the real payload of the small file".to_vec();
        let file = encrypt(&k, "doctor", true, &data);
        let mut cur = &file[..];
        envelope::read_head(&mut cur).unwrap();
        let head_len = file.len() - cur.len();
        Streaming {
            h,
            tok,
            id,
            k,
            data,
            file,
            head_len,
            _dir: dir,
        }
    }
    fn head(&self) -> Vec<u8> {
        self.file[..self.head_len].to_vec()
    }
    fn push(&self, up: Upload, sink: impl FnMut(&[u8])) -> push::Answer {
        let path = format!("/v1/tks/{}/transform", self.id);
        push::push(
            self.h.running.as_ref().unwrap().addr,
            &path,
            &self.tok,
            up,
            sink,
        )
    }
    /// The answer's head is the transformation of our file's head: with the
    /// retrieval key it opens the small file's real payload.
    fn check_head(&self, answer_head: &[u8]) {
        let mut cur = answer_head;
        let thead = envelope::read_head(&mut cur).unwrap();
        assert!(cur.is_empty());
        assert_eq!(thead.preamble.kind, ObjectKind::TransformedFile);
        let s = session_of(&self.k.rk, &thead.header);
        let mut out = Vec::new();
        envelope::open(&thead, &s, &self.file[self.head_len..], &mut out).unwrap();
        assert_eq!(out, self.data);
    }
    fn metrics(&self) -> String {
        String::from_utf8(self.h.client(&self.tok).get("/metrics").unwrap()).unwrap()
    }
}

fn sha256_of_gen(seed: u64, len: u64) -> [u8; 32] {
    let mut g = Gen::new(seed);
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut left = len;
    while left > 0 {
        let n = left.min(buf.len() as u64) as usize;
        g.fill(&mut buf[..n]);
        h.update(&buf[..n]);
        left -= n as u64;
    }
    h.finalize().into()
}

/// A pushed file is streamed: 256 MiB (no Content-Length, chunked) go
/// through with only the head held in memory; the answer is the
/// transformed head, then exactly the bytes sent after the head.
#[test]
fn pushed_file_streams_through() {
    const BIG: u64 = 256 << 20;
    let s = Streaming::start(Config {
        max_body: 512 << 20,
        ..test_config()
    });
    let mut hasher = Sha256::new();
    let t0 = std::time::Instant::now();
    let a = s.push(Upload::new(s.head(), BIG), |b| hasher.update(b));
    let took = t0.elapsed();
    assert_eq!(a.status, 200, "{a:?}");
    assert!(a.complete, "{a:?}");
    assert_eq!(a.send_error, None);
    assert_eq!(a.header("x-abbe-object"), Some("transformed-ciphertext"));
    assert_eq!(a.header("transfer-encoding"), Some("chunked"));
    assert_eq!(a.sent, s.head_len as u64 + BIG);
    assert_eq!(a.payload_len, BIG);
    s.check_head(&a.head);
    let got: [u8; 32] = hasher.finalize().into();
    assert_eq!(got, sha256_of_gen(0x5eed, BIG));
    eprintln!(
        "streamed {} MiB through the proxy in {:.2} s",
        BIG >> 20,
        took.as_secs_f64()
    );
    // A KEM header pushed alone is read whole: never more than the
    // format's 16 MiB, however large the cap for streamed files.
    let kem_header = s.file[12..s.head_len - 16].to_vec();
    let a = s.push(Upload::new(kem_header, 17 << 20), |_| {});
    assert_eq!(a.status, 413, "{a:?}");
    let msg = String::from_utf8_lossy(&a.head).into_owned();
    assert!(msg.contains(&(16u32 << 20).to_string()), "{msg}");

    let m = s.metrics();
    assert!(
        m.contains("abbe_proxy_streams_total{outcome=\"ok\"} 1"),
        "{m}"
    );
    assert!(
        m.contains(&format!("abbe_proxy_streamed_bytes_total {BIG}")),
        "{m}"
    );
    s.h.stop();
}

/// A real file, pushed with Content-Length and chunked: the answer has the
/// exact length when the request declared one, and decrypts.
#[test]
fn pushed_real_file_decrypts() {
    let s = Streaming::start(Config {
        max_body: 16 << 20,
        ..test_config()
    });
    let data: Vec<u8> = (0..(8u32 << 20) + 12_345)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let file = encrypt(&s.k, "doctor", false, &data);
    for chunked in [false, true] {
        let mut payload = Vec::new();
        let up = Upload {
            chunked,
            piece: 64 << 10,
            ..Upload::new(file.clone(), 0)
        };
        let a = s.push(up, |b| payload.extend_from_slice(b));
        assert_eq!(a.status, 200, "{a:?}");
        assert!(a.complete, "{a:?}");
        let tfile = [a.head.clone(), payload].concat();
        if chunked {
            assert_eq!(a.header("content-length"), None);
        } else {
            assert_eq!(a.header("content-length"), Some(&*tfile.len().to_string()));
        }
        assert_eq!(open_transformed(&s.k.rk, &tfile), data);
    }
    // The head in 7-byte chunks (each a separate frame for the server).
    let tiny = Upload {
        piece: 7,
        ..Upload::new(s.file.clone(), 0)
    };
    let mut payload = Vec::new();
    let a = s.push(tiny, |b| payload.extend_from_slice(b));
    assert_eq!(a.status, 200, "{a:?}");
    assert_eq!(payload, s.file[s.head_len..]);
    s.check_head(&a.head);
    // Cut anywhere in the head: a JSON 400 that says why.
    for cut in [0, 5, 8, 11, 12, 100, s.head_len - 1] {
        let up = Upload {
            piece: 5,
            ..Upload::new(s.file[..cut].to_vec(), 0)
        };
        let a = s.push(up, |_| {});
        let msg = String::from_utf8_lossy(&a.head).into_owned();
        assert_eq!(a.status, 400, "cut at {cut}: {msg}");
        let why = if cut < 8 {
            "not an abbe ciphertext"
        } else {
            "truncated"
        };
        assert!(msg.contains(why), "cut at {cut}: {msg}");
    }
    s.h.stop();
}

/// The cap: declared (413 up front, JSON), a head larger than it (413), a
/// KEM header length beyond the format's limit (400), and a streamed body
/// that passes it — the 200 has started, so the answer is cut short.
#[test]
fn pushed_file_over_the_cap() {
    let s = Streaming::start(test_config()); // max_body: 1 MiB
    let cap = 1u64 << 20;

    let a = s.push(Upload::new(s.head(), 4 * cap), |_| {});
    assert_eq!(a.status, 200, "{a:?}");
    assert!(!a.complete, "{a:?}");
    assert!(a.error.is_some());
    s.check_head(&a.head);
    assert!(a.payload_len <= cap, "{}", a.payload_len);

    let declared = Upload {
        chunked: false,
        ..Upload::new(s.head(), 4 * cap)
    };
    let a = s.push(declared, |_| {});
    assert_eq!(a.status, 413, "{a:?}");
    assert!(String::from_utf8_lossy(&a.head).contains("limit"), "{a:?}");

    for (len, status, msg) in [
        (2u32 << 20, 413, "limit"),
        (u32::MAX, 400, "above the proxy's limit of 16777216 bytes"),
    ] {
        let mut prefix = s.file[..8].to_vec();
        prefix.extend_from_slice(&len.to_be_bytes());
        let a = s.push(Upload::new(prefix, 64 << 10), |_| {});
        assert_eq!(a.status, status, "{a:?}");
        assert!(String::from_utf8_lossy(&a.head).contains(msg), "{a:?}");
    }
    let m = s.metrics();
    assert!(
        m.contains("abbe_proxy_streams_total{outcome=\"too_large\"} 1"),
        "{m}"
    );
    s.h.stop();
}

/// The request timeout covers the head only: a file whose bytes keep
/// flowing outlives it; a pause longer than the idle timeout cuts the
/// answer; a head that does not arrive in time is a 503.
#[test]
fn pushed_file_timeouts() {
    let s = Streaming::start(Config {
        request_timeout: Duration::from_secs(2),
        stream_idle_timeout: Duration::from_secs(1),
        ..test_config()
    });
    let len = 512u64 << 10;

    let slow = Upload {
        piece: 32 << 10,
        delay: Duration::from_millis(200),
        ..Upload::new(s.head(), len)
    };
    let mut g = Gen::new(slow.seed);
    let mut same = true;
    let t0 = std::time::Instant::now();
    let a = s.push(slow, |b| {
        let mut want = vec![0u8; b.len()];
        g.fill(&mut want);
        same &= want == b;
    });
    assert!(t0.elapsed() > Duration::from_secs(3));
    assert_eq!(a.status, 200, "{a:?}");
    assert!(a.complete, "{a:?}");
    assert_eq!(a.payload_len, len);
    assert!(same);

    let stalled = Upload {
        stall: Some((64 << 10, Duration::from_secs(3))),
        piece: 32 << 10,
        ..Upload::new(s.head(), len)
    };
    let a = s.push(stalled, |_| {});
    assert_eq!(a.status, 200, "{a:?}");
    assert!(!a.complete, "{a:?}");
    assert_eq!(a.payload_len, 64 << 10);

    let slow_head = Upload {
        stall: Some((0, Duration::from_secs(3))),
        ..Upload::new(s.head()[..20].to_vec(), 1 << 10)
    };
    let a = s.push(slow_head, |_| {});
    assert_eq!(a.status, 503, "{a:?}");
    assert!(
        String::from_utf8_lossy(&a.head).contains("timed out"),
        "{a:?}"
    );

    let m = s.metrics();
    assert!(
        m.contains("abbe_proxy_streams_total{outcome=\"ok\"} 1"),
        "{m}"
    );
    assert!(
        m.contains("abbe_proxy_streams_total{outcome=\"idle_timeout\"} 1"),
        "{m}"
    );
    s.h.stop();
}
