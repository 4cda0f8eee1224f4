//! A small blocking client of the proxy (`ureq`), for the CLI and the
//! example: register a TK, transform a header or file (pushed or by URL),
//! delete a TK. Counts the bytes it sends and receives (GHW11 Fig. 9).
//!
//! The proxy itself serves plain HTTP (run it on loopback or behind a
//! TLS-terminating reverse proxy); the client speaks `http://` and
//! `https://` (rustls with ring, Mozilla's roots from `webpki-roots`, or
//! only the CAs given to [`ProxyClient::with_ca`]).

use abbe::envelope;
use abbe::wire::{ObjectKind, Preamble};
use std::cell::Cell;
use std::time::Duration;
use tokio_rustls::rustls::pki_types::CertificateDer;
use ureq::tls::{Certificate, RootCerts, TlsConfig};

/// A client failure.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The proxy answered with an error status and message.
    #[error("the proxy answered {status}: {message}")]
    Status { status: u16, message: String },
    #[error("cannot reach the proxy: {0}")]
    Transport(String),
    #[error("unexpected answer from the proxy: {0}")]
    Protocol(String),
}

impl ClientError {
    /// The HTTP status, for errors the proxy answered.
    pub fn status(&self) -> Option<u16> {
        match self {
            ClientError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }
}

/// The length of the head of `input` if it is a ciphertext file (kind 8)
/// with a well-formed head.
fn file_head_len(input: &[u8]) -> Option<usize> {
    if Preamble::parse(input).ok()?.kind != ObjectKind::EncryptedFile {
        return None;
    }
    let mut cur = input;
    envelope::read_head(&mut cur).ok()?;
    Some(input.len() - cur.len())
}

/// Largest answer accepted (a transformed file carries the whole payload).
const MAX_ANSWER: u64 = 1 << 32;

/// A connection to one proxy with one tenant token.
pub struct ProxyClient {
    base: String,
    token: Option<String>,
    agent: ureq::Agent,
    sent: Cell<u64>,
    received: Cell<u64>,
}

impl ProxyClient {
    /// `base` is like `http://127.0.0.1:8700` or `https://proxy.example`
    /// (certificates checked against Mozilla's roots).
    pub fn new(base: &str, token: Option<String>) -> Self {
        Self::with_roots(base, token, RootCerts::WebPki)
    }

    /// As [`ProxyClient::new`], trusting only the CA certificates `cas`
    /// for `https://` (a private deployment; `--proxy-ca FILE`).
    pub fn with_ca(base: &str, token: Option<String>, cas: &[CertificateDer<'static>]) -> Self {
        let roots = cas
            .iter()
            .map(|c| Certificate::from_der(c.as_ref()).to_owned());
        Self::with_roots(base, token, RootCerts::from(roots))
    }

    fn with_roots(base: &str, token: Option<String>, roots: RootCerts) -> Self {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(120)))
            .tls_config(TlsConfig::builder().root_certs(roots).build())
            .build()
            .into();
        ProxyClient {
            base: base.trim_end_matches('/').to_owned(),
            token,
            agent,
            sent: Cell::new(0),
            received: Cell::new(0),
        }
    }

    /// Bytes of request bodies sent and response bodies received so far.
    pub fn traffic(&self) -> (u64, u64) {
        (self.sent.get(), self.received.get())
    }

    fn auth(&self) -> Option<String> {
        self.token.as_ref().map(|t| format!("Bearer {t}"))
    }

    fn finish(
        &self,
        resp: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
    ) -> Result<Vec<u8>, ClientError> {
        let mut resp = resp.map_err(|e| ClientError::Transport(e.to_string()))?;
        let status = resp.status().as_u16();
        let body = resp
            .body_mut()
            .with_config()
            .limit(MAX_ANSWER)
            .read_to_vec()
            .map_err(|e| ClientError::Transport(e.to_string()))?;
        self.received.set(self.received.get() + body.len() as u64);
        if (200..300).contains(&status) {
            Ok(body)
        } else {
            let message = serde_json::from_slice::<serde_json::Value>(&body)
                .ok()
                .and_then(|v| v.get("error").and_then(|e| e.as_str()).map(str::to_owned))
                .unwrap_or_else(|| String::from_utf8_lossy(&body).chars().take(200).collect());
            Err(ClientError::Status { status, message })
        }
    }

    fn post(&self, path: &str, content_type: &str, body: &[u8]) -> Result<Vec<u8>, ClientError> {
        let mut req = self
            .agent
            .post(format!("{}{path}", self.base))
            .content_type(content_type);
        if let Some(a) = self.auth() {
            req = req.header("Authorization", a);
        }
        if body.len() > 64 << 10 {
            // Lets the proxy refuse (401/404/413) before the body is sent.
            req = req.header("Expect", "100-continue");
        }
        self.sent.set(self.sent.get() + body.len() as u64);
        self.finish(req.send(body))
    }

    /// Registers a transformation key; returns its id.
    pub fn register(&self, tk: &[u8]) -> Result<String, ClientError> {
        let body = self.post("/v1/tks", "application/octet-stream", tk)?;
        let v: serde_json::Value =
            serde_json::from_slice(&body).map_err(|e| ClientError::Protocol(e.to_string()))?;
        v.get("id")
            .and_then(|i| i.as_str())
            .map(str::to_owned)
            .ok_or_else(|| ClientError::Protocol("no id in the answer".into()))
    }

    /// Transforms a KEM header object (→ transformed header) or a whole
    /// ciphertext file (→ transformed file).
    ///
    /// For a file, only its head (preamble ‖ KEM header ‖ salt) is sent;
    /// the proxy's answer is the transformed head, and the payload is
    /// appended here — the same bytes the proxy would stream back. The proxy
    /// echoes a pushed payload while it arrives, and ureq writes the whole
    /// request before it reads, so pushing a file larger than the socket
    /// buffers (a few MB) would stall both sides until the timeout.
    pub fn transform(&self, id: &str, input: &[u8]) -> Result<Vec<u8>, ClientError> {
        let path = format!("/v1/tks/{id}/transform");
        match file_head_len(input) {
            Some(n) => {
                let (head, payload) = input.split_at(n);
                let mut out = self.post(&path, "application/octet-stream", head)?;
                out.extend_from_slice(payload);
                Ok(out)
            }
            // Anything else (a header, or a damaged file the proxy will
            // name the fault of) goes as it is.
            None => self.post(&path, "application/octet-stream", input),
        }
    }

    /// Asks the proxy to fetch `url` and transform what it finds.
    pub fn transform_url(&self, id: &str, url: &str) -> Result<Vec<u8>, ClientError> {
        let body = serde_json::to_vec(&serde_json::json!({ "url": url }))
            .map_err(|e| ClientError::Protocol(e.to_string()))?;
        self.post(
            &format!("/v1/tks/{id}/transform-url"),
            "application/json",
            &body,
        )
    }

    /// The ids of this tenant's transformation keys.
    pub fn list(&self) -> Result<Vec<String>, ClientError> {
        let body = self.get("/v1/tks")?;
        let v: serde_json::Value =
            serde_json::from_slice(&body).map_err(|e| ClientError::Protocol(e.to_string()))?;
        v.get("ids")
            .and_then(|ids| ids.as_array())
            .and_then(|ids| {
                ids.iter()
                    .map(|i| i.as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>()
            })
            .ok_or_else(|| ClientError::Protocol("no list of ids in the answer".into()))
    }

    /// Deletes a transformation key.
    pub fn delete(&self, id: &str) -> Result<(), ClientError> {
        let mut req = self.agent.delete(format!("{}/v1/tks/{id}", self.base));
        if let Some(a) = self.auth() {
            req = req.header("Authorization", a);
        }
        self.finish(req.call()).map(|_| ())
    }

    /// GET `path` (health, metrics, TK metadata).
    pub fn get(&self, path: &str) -> Result<Vec<u8>, ClientError> {
        let mut req = self.agent.get(format!("{}{path}", self.base));
        if let Some(a) = self.auth() {
            req = req.header("Authorization", a);
        }
        self.finish(req.call())
    }
}
