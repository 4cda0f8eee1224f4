//! The HTTP service (axum on tokio).
//!
//! | route | what |
//! |---|---|
//! | `POST /v1/tks` | body: a TK file → 201 `{"id", "scheme", "curve"}` |
//! | `GET /v1/tks` | `{"ids": [...]}`: the tenant's TKs |
//! | `GET /v1/tks/{id}` | the TK's metadata |
//! | `DELETE /v1/tks/{id}` | 204 |
//! | `POST /v1/tks/{id}/transform` | body: a ciphertext file (kind 8) → the transformed file (kind 9), streamed; or a KEM header (kind 6/12) → its transformation (kind 7/13) |
//! | `POST /v1/tks/{id}/transform-url` | `{"url": "https://..."}` (or `http://`): the proxy GETs the ciphertext ([`crate::fetch`]), then as above |
//! | `GET /healthz`, `GET /metrics` | liveness (with a store round trip), Prometheus text |
//!
//! Every `/v1` request carries `Authorization: Bearer TOKEN`; a tenant sees
//! only its own TKs (another tenant's id is 404, as is an unknown id).
//! Errors are JSON `{"error": "..."}`. The pairing work runs on the blocking
//! pool behind a semaphore with one permit per core. Decoded TKs are kept in
//! a bounded LRU cache ([`crate::cache`]); whether the TK still exists and
//! is the tenant's is asked of the store on every request.
//!
//! # A pushed ciphertext file is streamed
//!
//! Only the file's head (preamble ‖ KEM header ‖ salt, at most
//! [`MAX_PUSHED_HEADER`] + 28 bytes) is read into memory; its KEM
//! header is transformed, and the answer starts at once: the new head, then
//! the rest of the request body passed through chunk by chunk, unchanged
//! ([`Body::from_stream`] over the request's data stream; hyper polls it only
//! when it can write, so a slow reader slows the upload instead of filling
//! memory). Memory per request is the head plus a chunk or two, whatever the
//! file's size (a KEM header pushed alone is read whole, at most
//! [`MAX_PUSHED_HEADER`] even when the cap is larger). Consequences:
//!
//! * Everything that fails before the answer starts is a JSON error: the
//!   token, the TK, `Content-Length` above [`Config::max_body`] (413), a bad
//!   or truncated head (400), an unsatisfied policy (422), the request
//!   timeout (503). Once the 200 and the new head are out, the status cannot
//!   change: a body that goes past [`Config::max_body`] (possible only
//!   without `Content-Length`), a client that stops sending for
//!   [`Config::stream_idle_timeout`], or a broken request body end the answer
//!   with an error — the connection is closed without the final chunk (or
//!   short of the announced `Content-Length`), which every HTTP client reports
//!   as a truncated body. `abbe_proxy_streams_total{outcome}` counts how
//!   streams ended.
//! * [`Config::request_timeout`] covers the request until the answer starts
//!   (for a file: receiving and transforming its head); the pass-through is
//!   then limited by the idle timeout only, so a large file is never cut
//!   while its bytes flow. A client that stops *reading* holds its
//!   connection without growing memory (hyper stops polling the body); put
//!   a reverse proxy's timeouts in front against that.
//! * The client must read the answer while it sends (HTTP/1.1 allows it;
//!   curl, hyper and a socket with a reader thread do). A client that writes
//!   the whole body before it reads (ureq) stalls once the socket buffers
//!   are full (on loopback: 16 MiB went through, 64 MiB hung until the
//!   client's timeout) — and since hyper then stops polling the body, the
//!   idle timeout cannot see it. [`crate::client`] therefore sends only a
//!   file's head and appends the payload itself (`abbe decrypt --proxy`
//!   sends only the KEM header).

use crate::cache::TkCache;
use crate::fetch::{FetchError, FetchPolicy, Fetcher};
use crate::metrics::Metrics;
use crate::quota::{QuotaConfig, Quotas, Refused, Slot};
use crate::store::{Store, StoreError};
use abbe::envelope;
use abbe::facade::PreparedTransformKey;
use abbe::outsource::OutsourceError;
use abbe::wire::{ObjectKind, Preamble, PREAMBLE_LEN};
use axum::body::{Body, BodyDataStream};
use axum::extract::{MatchedPath, Path, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use bytes::{Bytes, BytesMut};
use futures_util::StreamExt;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

mod admin;
mod auth;
mod error;
mod routes;
mod stream;
mod transform;

pub use admin::{
    create_token_blocking, list_tokens_blocking, revoke_token_blocking, run_blocking,
    shutdown_signal,
};
use auth::*;
pub use error::ApiError;
use error::*;
use routes::*;
pub use stream::MAX_PUSHED_HEADER;
use stream::*;
use transform::*;

/// Service limits and options.
#[derive(Clone, Debug)]
pub struct Config {
    /// Largest request body (a pushed ciphertext), bytes → 413 above (a
    /// streamed file without `Content-Length`: its answer ends with an error
    /// once more arrived).
    pub max_body: usize,
    /// Time limit until the answer starts → 503 after it (for a pushed
    /// file: until its head is received and transformed).
    pub request_timeout: Duration,
    /// A streamed file's pass-through ends with an error when no request
    /// bytes arrive for this long.
    pub stream_idle_timeout: Duration,
    /// transform-url: fetch limits and deny-list switches.
    pub fetch: FetchPolicy,
    /// Concurrent transformations (default: the number of cores).
    pub workers: usize,
    /// Decoded transformation keys kept in memory (0: none).
    pub tk_cache_entries: usize,
    /// Estimated memory the decoded-key cache may use, bytes (see
    /// [`crate::cache`]).
    pub tk_cache_memory: usize,
    /// Per-tenant concurrency and rate limits ([`crate::quota`]).
    pub quota: QuotaConfig,
    /// A line per request, where asked for ([`crate::access_log`]).
    pub access_log: Option<crate::access_log::AccessLog>,
}

impl Default for Config {
    fn default() -> Self {
        let workers = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1);
        Config {
            max_body: 64 << 20,
            request_timeout: Duration::from_secs(60),
            stream_idle_timeout: Duration::from_secs(60),
            fetch: FetchPolicy::default(),
            workers,
            tk_cache_entries: 256,
            tk_cache_memory: 512 << 20,
            quota: QuotaConfig::for_workers(workers),
            access_log: None,
        }
    }
}

/// Shared state of the handlers.
#[derive(Clone)]
pub struct AppState {
    store: Store,
    cfg: Arc<Config>,
    sem: Arc<Semaphore>,
    cache: Arc<TkCache>,
    fetcher: Arc<Fetcher>,
    quotas: Arc<Quotas>,
    pub metrics: Arc<Metrics>,
}

impl AppState {
    pub fn new(store: Store, cfg: Config) -> Self {
        let workers = cfg.workers.max(1);
        let cache = Arc::new(TkCache::new(cfg.tk_cache_entries, cfg.tk_cache_memory));
        let fetcher = Arc::new(Fetcher::new(cfg.fetch.clone()));
        let quotas = Quotas::new(cfg.quota);
        AppState {
            store,
            cfg: Arc::new(cfg),
            sem: Arc::new(Semaphore::new(workers)),
            cache,
            fetcher,
            quotas,
            metrics: Arc::new(Metrics::default()),
        }
    }
}

/// The router with every route and the metrics/timeout middleware.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/v1/tks", post(register).get(list_tks))
        .route("/v1/tks/{id}", get(tk_info).delete(delete_tk))
        .route("/v1/tks/{id}/transform", post(transform))
        .route("/v1/tks/{id}/transform-url", post(transform_url))
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .fallback(|| async { ApiError::new(StatusCode::NOT_FOUND, "no such route") })
        .layer(middleware::from_fn_with_state(state.clone(), observe))
        .with_state(state)
}

/// Serves on `listener` until `shutdown` resolves, then finishes the
/// requests in flight and closes the store.
pub async fn serve<F>(listener: TcpListener, state: AppState, shutdown: F) -> std::io::Result<()>
where
    F: Future<Output = ()> + Send + 'static,
{
    let store = state.store.clone();
    let app = router(state).into_make_service_with_connect_info::<SocketAddr>();
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await?;
    store.close().await;
    Ok(())
}

/// Binds `addr` and serves in a background task (tests, examples). Returns
/// the bound address and a handle that stops the server when dropped or
/// when [`Running::stop`] is called.
pub async fn spawn(addr: SocketAddr, store: Store, cfg: Config) -> std::io::Result<Running> {
    let listener = TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let state = AppState::new(store, cfg);
    let task = tokio::spawn(serve(listener, state, async {
        let _ = rx.await;
    }));
    Ok(Running {
        addr: local,
        stop: Some(tx),
        task: Some(task),
    })
}

/// A server started by [`spawn`].
pub struct Running {
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

impl Running {
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
    /// Graceful stop; waits for the server to finish.
    pub async fn stop(mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.task.take() {
            let _ = t.await;
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

/// Records every request in the metrics and enforces the request timeout.
/// Both end when the answer starts: a streamed file's pass-through is
/// timed by its idle timeout instead, and counted in
/// `abbe_proxy_streams_total` when it ends.
async fn observe(State(st): State<AppState>, req: Request, next: Next) -> Response {
    let method = req.method().as_str().to_owned();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_owned())
        .unwrap_or_else(|| "unmatched".into());
    let peer = req
        .extensions()
        .get::<axum::extract::ConnectInfo<SocketAddr>>()
        .map(|c| c.0);
    let t0 = Instant::now();
    let resp = match tokio::time::timeout(st.cfg.request_timeout, next.run(req)).await {
        Ok(r) => r,
        Err(_) => {
            ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "request timed out").into_response()
        }
    };
    let status = resp.status().as_u16();
    st.metrics.request(&method, &route, status, t0.elapsed());
    if let Some(log) = &st.cfg.access_log {
        log.record(peer, &method, &route, status, t0.elapsed());
    }
    resp
}
