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
use abbe::outsource::{OutsourceError, PreparedTransformKey};
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

/// An error answered as `{"error": "..."}`.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
    /// Answered as `Retry-After` (429, 503).
    pub retry_after: Option<Duration>,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        ApiError {
            status,
            message: message.into(),
            retry_after: None,
        }
    }
    fn bad(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, message)
    }
    fn not_found() -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "no such transformation key for this tenant",
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut resp = (
            self.status,
            Json(serde_json::json!({ "error": self.message })),
        )
            .into_response();
        if let Some(after) = self.retry_after {
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(after.as_secs()));
        }
        resp
    }
}

/// A tenant over its quota: 429 with `Retry-After`.
impl From<Refused> for ApiError {
    fn from(r: Refused) -> Self {
        ApiError {
            retry_after: Some(r.retry_after),
            ..ApiError::new(StatusCode::TOO_MANY_REQUESTS, r.why)
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        eprintln!("abbe-proxy: store error: {e}");
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "the key store is unavailable",
        )
    }
}

impl From<OutsourceError> for ApiError {
    fn from(e: OutsourceError) -> Self {
        if e.is_not_satisfied() {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "the transformation key does not satisfy this ciphertext's policy",
            )
        } else {
            ApiError::bad(e.to_string())
        }
    }
}

/// A failed `transform-url` fetch: the details (resolved addresses, the
/// reason for an SSRF refusal, OS and TLS errors) go to the server log,
/// the client gets [`FetchError::client_message`], which has none of them.
impl From<FetchError> for ApiError {
    fn from(e: FetchError) -> Self {
        let status = match &e {
            FetchError::BadUrl(_) => StatusCode::BAD_REQUEST,
            FetchError::Denied { .. } => StatusCode::FORBIDDEN,
            FetchError::Resolve { .. }
            | FetchError::Upstream(_)
            | FetchError::Status { .. }
            | FetchError::Tls { .. } => StatusCode::BAD_GATEWAY,
            FetchError::Timeout(_) => StatusCode::GATEWAY_TIMEOUT,
            FetchError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
        };
        // A bad URL is the client's own input, answered in full; it is not
        // logged (a presigned URL carries its credentials).
        if !matches!(e, FetchError::BadUrl(_)) {
            eprintln!("abbe-proxy: transform-url: {e}");
        }
        ApiError::new(status, e.client_message())
    }
}

type ApiResult<T> = Result<T, ApiError>;

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
    let app = router(state);
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
    let t0 = Instant::now();
    let resp = match tokio::time::timeout(st.cfg.request_timeout, next.run(req)).await {
        Ok(r) => r,
        Err(_) => {
            ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "request timed out").into_response()
        }
    };
    st.metrics
        .request(&method, &route, resp.status().as_u16(), t0.elapsed());
    resp
}

/// The tenant of the request's bearer token.
async fn tenant(st: &AppState, headers: &HeaderMap) -> ApiResult<String> {
    let unauthorized = |m: &str| ApiError::new(StatusCode::UNAUTHORIZED, m);
    let value = headers
        .get(header::AUTHORIZATION)
        .ok_or_else(|| unauthorized("missing Authorization: Bearer token"))?
        .to_str()
        .map_err(|_| unauthorized("malformed Authorization header"))?;
    let token = value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("bearer "))
        .map(str::trim)
        .filter(|t| !t.is_empty() && t.len() <= 256)
        .ok_or_else(|| unauthorized("malformed Authorization header (expected Bearer TOKEN)"))?;
    st.store
        .tenant_for_token(token)
        .await?
        .ok_or_else(|| unauthorized("unknown token"))
}

/// The largest KEM header the proxy buffers (in a file's head or alone):
/// 16 MiB, far above an outsourcing scheme's header at the default policy
/// work budget (a few MB on BLS48-581). The format allows more
/// ([`envelope::MAX_HEADER_BYTES`], for broadcast baselines the proxy never
/// transforms); this bounds the memory of every request.
pub const MAX_PUSHED_HEADER: usize = 16 << 20;

fn too_large(limit: usize) -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("request body larger than the limit of {limit} bytes"),
    )
}

/// The request's `Content-Length`, if declared; 413 when above `limit`.
fn declared_len(headers: &HeaderMap, limit: usize) -> ApiResult<Option<u64>> {
    let len = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    match len {
        Some(len) if len > limit as u64 => Err(too_large(limit)),
        _ => Ok(len),
    }
}

/// Reads a request body of at most `limit` bytes (413 above).
async fn read_body(headers: &HeaderMap, body: Body, limit: usize) -> ApiResult<Bytes> {
    declared_len(headers, limit)?;
    axum::body::to_bytes(body, limit).await.map_err(|e| {
        let mut src: Option<&(dyn std::error::Error + 'static)> = Some(&e);
        while let Some(s) = src {
            if s.is::<http_body_util::LengthLimitError>() {
                return too_large(limit);
            }
            src = s.source();
        }
        ApiError::bad(format!("cannot read the request body: {e}"))
    })
}

/// A worker permit: taken before a request's body is buffered and held
/// through its pairing work, so at most `workers` requests hold a body in
/// memory at once, whatever the number of connections.
async fn worker(st: &AppState) -> ApiResult<OwnedSemaphorePermit> {
    st.sem
        .clone()
        .acquire_owned()
        .await
        .map_err(|_| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "shutting down"))
}

/// Admits a request of `tenant` (its quota), then waits for a worker.
async fn admit(st: &AppState, tenant: &str) -> ApiResult<(Slot, OwnedSemaphorePermit)> {
    let slot = st.quotas.admit(tenant)?;
    Ok((slot, worker(st).await?))
}

/// Runs `f` on the blocking pool under the worker permit `permit`.
async fn blocking<T: Send + 'static>(
    permit: OwnedSemaphorePermit,
    f: impl FnOnce() -> T + Send + 'static,
) -> ApiResult<T> {
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        f()
    })
    .await
    .map_err(|_| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "the worker failed"))
}

async fn register(
    State(st): State<AppState>,
    headers: HeaderMap,
    body: Body,
) -> ApiResult<Response> {
    let tenant = tenant(&st, &headers).await?;
    let (_slot, permit) = admit(&st, &tenant).await?;
    let tk = read_body(&headers, body, st.cfg.max_body.min(16 << 20)).await?;
    let tk2 = tk.clone();
    let key = blocking(permit, move || PreparedTransformKey::decode(&tk2)).await??;
    let pre = *key.preamble();
    let (scheme, curve) = (pre.scheme.name(), pre.curve.name());
    let id = st.store.put_tk(&tenant, scheme, curve, &tk).await?;
    // The device registers a key to use it: keep it decoded.
    st.cache.insert(&tenant, &id, Arc::new(key), tk.len());
    Ok((
        StatusCode::CREATED,
        [(header::LOCATION, format!("/v1/tks/{id}"))],
        Json(serde_json::json!({ "id": id, "scheme": scheme, "curve": curve })),
    )
        .into_response())
}

async fn list_tks(State(st): State<AppState>, headers: HeaderMap) -> ApiResult<Response> {
    let tenant = tenant(&st, &headers).await?;
    let ids = st.store.list_tks(&tenant).await?;
    Ok(Json(serde_json::json!({ "ids": ids })).into_response())
}

fn check_id(id: &str) -> ApiResult<()> {
    if id.is_empty() || id.len() > 64 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(ApiError::not_found());
    }
    Ok(())
}

async fn tk_info(
    State(st): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let tenant = tenant(&st, &headers).await?;
    check_id(&id)?;
    match st.store.tk_info(&tenant, &id).await? {
        Some(info) => Ok(Json(info).into_response()),
        None => Err(ApiError::not_found()),
    }
}

async fn delete_tk(
    State(st): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<StatusCode> {
    let tenant = tenant(&st, &headers).await?;
    check_id(&id)?;
    if st.store.delete_tk(&tenant, &id).await? {
        st.cache.remove(&id);
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::not_found())
    }
}

/// The request tenant's TK `id`, decoded. The store is asked on every
/// request whether the TK exists and is the tenant's (a TK deleted through
/// another instance of a fleet is never used); the decoded value comes from
/// the cache when it is there, else from the store's bytes.
async fn load_tk(st: &AppState, tenant: &str, id: &str) -> ApiResult<Arc<PreparedTransformKey>> {
    check_id(id)?;
    if let Some(key) = st.cache.get(tenant, id) {
        if st.store.tk_exists(tenant, id).await? {
            st.metrics.tk_cache(true);
            return Ok(key);
        }
        st.cache.remove(id);
        return Err(ApiError::not_found());
    }
    let tk = st
        .store
        .get_tk(tenant, id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    st.metrics.tk_cache(false);
    let len = tk.len();
    let permit = worker(st).await?;
    let key = Arc::new(blocking(permit, move || PreparedTransformKey::decode(&tk)).await??);
    st.cache.insert(tenant, id, key.clone(), len);
    Ok(key)
}

async fn transform(
    State(st): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Body,
) -> ApiResult<Response> {
    let tenant = tenant(&st, &headers).await?;
    let slot = st.quotas.admit(&tenant)?;
    // The key first: loading it may take a worker of its own.
    let tk = load_tk(&st, &tenant, &id).await?;
    let limit = st.cfg.max_body;
    let declared = declared_len(&headers, limit)?;
    let permit = worker(&st).await?;
    match read_pushed(&st, &tk, body, limit).await? {
        Pushed::Whole(input) => run_transform(&st, permit, tk, input).await,
        Pushed::File {
            head,
            head_len,
            rest,
            body,
        } => {
            let new_head = run_head_transform(&st, permit, tk, head).await?;
            // The pass-through holds a chunk at a time and no worker.
            drop(slot);
            // With a declared length the answer's is known: hyper holds the
            // request body to it, so the pass-through yields exactly that.
            let len = declared
                .and_then(|l| l.checked_sub(head_len as u64))
                .and_then(|payload| payload.checked_add(new_head.len() as u64));
            let pass = PassThrough {
                body,
                pending: Some(rest),
                received: head_len as u64,
                limit: limit as u64,
                idle: st.cfg.stream_idle_timeout,
                metrics: st.metrics.clone(),
                outcome: None,
            };
            let first =
                futures_util::stream::once(futures_util::future::ready(
                    Ok::<Bytes, std::io::Error>(Bytes::from(new_head)),
                ));
            let stream = first.chain(futures_util::stream::unfold(pass, PassThrough::step));
            Ok(file_response(Body::from_stream(stream), len))
        }
    }
}

#[derive(serde::Deserialize)]
struct UrlRequest {
    url: String,
}

async fn transform_url(
    State(st): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Body,
) -> ApiResult<Response> {
    let tenant = tenant(&st, &headers).await?;
    let _slot = st.quotas.admit(&tenant)?;
    check_id(&id)?;
    // 404 before fetching anything; the key itself is loaded (and its
    // existence checked again) once the fetch is done, so a TK deleted
    // during a slow fetch is not used.
    if !st.store.tk_exists(&tenant, &id).await? {
        return Err(ApiError::not_found());
    }
    let raw = read_body(&headers, body, 64 << 10).await?;
    let req: UrlRequest = serde_json::from_slice(&raw)
        .map_err(|e| ApiError::bad(format!("expected JSON {{\"url\": \"https://...\"}}: {e}")))?;
    let tk = load_tk(&st, &tenant, &id).await?;
    // The fetched body (up to the fetch cap) is buffered under a worker.
    let permit = worker(&st).await?;
    let input = st.fetcher.fetch(&req.url).await?;
    run_transform(&st, permit, tk, input).await
}

/// A pushed body after its head phase.
enum Pushed {
    /// A ciphertext file (kind 8): its head, the head's length in bytes,
    /// the bytes already read past it, and the rest of the body, unread.
    File {
        head: envelope::Head,
        head_len: usize,
        rest: Bytes,
        body: BodyDataStream,
    },
    /// Anything else (a KEM header object, or a body too short to hold a
    /// head), read whole: at most the cap.
    Whole(Bytes),
}

/// The length of the head of a ciphertext file that starts with `prefix`
/// (a kind-8 preamble) and the length of its KEM header, once the header
/// length is in `prefix`; `None` before.
fn file_head_len(prefix: &[u8]) -> Option<(usize, usize)> {
    let header: [u8; 4] = prefix
        .get(PREAMBLE_LEN..PREAMBLE_LEN + 4)?
        .try_into()
        .ok()?;
    Some((
        envelope::head_len(prefix)?,
        u32::from_be_bytes(header) as usize,
    ))
}

async fn next_chunk(body: &mut BodyDataStream) -> ApiResult<Option<Bytes>> {
    body.next()
        .await
        .transpose()
        .map_err(|e| ApiError::bad(format!("cannot read the request body: {e}")))
}

/// Reads a pushed body: a ciphertext file up to the end of its head
/// (bounded by the head's own limit and by `limit`), anything else whole
/// (at most `limit` and [`MAX_PUSHED_HEADER`]). A bad preamble or
/// an oversized KEM header is refused as soon as its bytes are in, without
/// reading further. So a request holds at most about 16 MiB (and one
/// chunk) in memory, whatever `--max-body` allows a streamed file.
async fn read_pushed(
    st: &AppState,
    tk: &PreparedTransformKey,
    body: Body,
    limit: usize,
) -> ApiResult<Pushed> {
    let mut body = body.into_data_stream();
    let mut buf = BytesMut::new();
    let mut eof = false;
    let file = loop {
        // How many bytes the decision (or the file's head) needs.
        let need = if buf.len() < PREAMBLE_LEN {
            PREAMBLE_LEN
        } else {
            let invalid = |e: String| {
                let p = tk.preamble();
                st.metrics.transform(
                    p.scheme.name(),
                    p.curve.name(),
                    "invalid",
                    false,
                    Duration::ZERO,
                );
                ApiError::bad(e)
            };
            let pre = Preamble::parse(&buf)
                .map_err(|e| invalid(format!("not an abbe ciphertext: {e}")))?;
            if pre.kind != ObjectKind::Ciphertext {
                break false;
            }
            match file_head_len(&buf) {
                None => PREAMBLE_LEN + 4,
                Some((_, header)) if header > MAX_PUSHED_HEADER => {
                    return Err(invalid(format!(
                        "the file's KEM header is {header} bytes, above the proxy's limit of \
                         {MAX_PUSHED_HEADER} bytes"
                    )));
                }
                Some((n, _)) => n,
            }
        };
        if buf.len() >= need {
            break true;
        }
        if need > limit {
            return Err(too_large(limit));
        }
        match next_chunk(&mut body).await? {
            // Too short to be what it starts as: the whole-object path
            // reports why (not an abbe object, a truncated file).
            None => {
                eof = true;
                break false;
            }
            Some(chunk) => {
                if buf.len() + chunk.len() > limit {
                    return Err(too_large(limit));
                }
                buf.extend_from_slice(&chunk);
            }
        }
    };
    if !file {
        // A KEM header is at most what a file may carry, whatever the cap
        // for streamed files: this is the most a request ever buffers.
        let limit = limit.min(MAX_PUSHED_HEADER);
        if buf.len() > limit {
            return Err(too_large(limit));
        }
        while let Some(chunk) = if eof {
            None
        } else {
            next_chunk(&mut body).await?
        } {
            if buf.len() + chunk.len() > limit {
                return Err(too_large(limit));
            }
            buf.extend_from_slice(&chunk);
        }
        return Ok(Pushed::Whole(buf.freeze()));
    }
    let mut cur: &[u8] = &buf;
    let parsed = envelope::read_head(&mut cur);
    let head_len = buf.len() - cur.len();
    let head = match parsed {
        Ok(h) => h,
        Err(e) => {
            let p = tk.preamble();
            let mode = mode_of(&buf);
            st.metrics
                .transform(p.scheme.name(), p.curve.name(), mode, false, Duration::ZERO);
            return Err(ApiError::bad(format!("corrupt ciphertext: {e}")));
        }
    };
    let rest = buf.freeze().split_off(head_len);
    Ok(Pushed::File {
        head,
        head_len,
        rest,
        body,
    })
}

/// The rest of a pushed file's body, passed through unchanged after the new
/// head: counted against the cap, each wait for the client's next bytes
/// bounded by the idle timeout. How it ended goes to the metrics once (on
/// drop, so an answer abandoned by its client counts too).
struct PassThrough {
    body: BodyDataStream,
    /// Bytes read with the head, not yet passed on.
    pending: Option<Bytes>,
    /// Request bytes so far (head included), against `limit`.
    received: u64,
    limit: u64,
    idle: Duration,
    metrics: Arc<Metrics>,
    outcome: Option<&'static str>,
}

impl PassThrough {
    fn fail(
        mut self,
        outcome: &'static str,
        kind: std::io::ErrorKind,
        msg: String,
    ) -> Option<(Result<Bytes, std::io::Error>, Self)> {
        self.outcome = Some(outcome);
        Some((Err(std::io::Error::new(kind, msg)), self))
    }

    async fn step(mut self) -> Option<(Result<Bytes, std::io::Error>, Self)> {
        if self.outcome.is_some() {
            return None;
        }
        loop {
            let chunk = match self.pending.take() {
                Some(b) => b,
                None => match tokio::time::timeout(self.idle, self.body.next()).await {
                    Err(_) => {
                        let msg = format!(
                            "no request bytes for {} s: the answer is cut",
                            self.idle.as_secs_f64()
                        );
                        return self.fail("idle_timeout", std::io::ErrorKind::TimedOut, msg);
                    }
                    Ok(None) => {
                        self.outcome = Some("ok");
                        return None;
                    }
                    Ok(Some(Err(e))) => {
                        let msg = format!("the request body broke off: {e}");
                        return self.fail("client_error", std::io::ErrorKind::Other, msg);
                    }
                    Ok(Some(Ok(b))) => b,
                },
            };
            if chunk.is_empty() {
                continue;
            }
            self.received = self.received.saturating_add(chunk.len() as u64);
            if self.received > self.limit {
                let msg = format!(
                    "request body larger than the limit of {} bytes: the answer is cut",
                    self.limit
                );
                return self.fail("too_large", std::io::ErrorKind::InvalidData, msg);
            }
            self.metrics.streamed(chunk.len() as u64);
            return Some((Ok(chunk), self));
        }
    }
}

impl Drop for PassThrough {
    fn drop(&mut self) {
        self.metrics
            .stream_ended(self.outcome.unwrap_or("abandoned"));
    }
}

fn file_response(body: Body, len: Option<u64>) -> Response {
    let mut resp = (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/octet-stream"),
            ),
            (
                header::HeaderName::from_static("x-abbe-object"),
                HeaderValue::from_static("transformed-ciphertext"),
            ),
        ],
        body,
    )
        .into_response();
    if let Some(len) = len {
        resp.headers_mut()
            .insert(header::CONTENT_LENGTH, HeaderValue::from(len));
    }
    resp
}

/// The head of a transformed file for `head`: the transformed KEM header
/// in place of the original, the original's digest, the same salt.
fn transform_head(tk: &PreparedTransformKey, head: &envelope::Head) -> Result<Vec<u8>, ApiError> {
    let t = tk.transform(&head.header)?;
    let mut out = Vec::with_capacity(t.len() + 64);
    envelope::write_transformed(head, &t, std::io::empty(), &mut out)
        .map_err(|e| ApiError::bad(e.to_string()))?;
    Ok(out)
}

/// Transforms a pushed file's head on the blocking pool (a worker permit,
/// metrics as for any transformation).
async fn run_head_transform(
    st: &AppState,
    permit: OwnedSemaphorePermit,
    tk: Arc<PreparedTransformKey>,
    head: envelope::Head,
) -> ApiResult<Vec<u8>> {
    let (scheme, curve) = (tk.preamble().scheme.name(), tk.preamble().curve.name());
    let metrics = st.metrics.clone();
    blocking(permit, move || {
        metrics.in_flight(1);
        let t0 = Instant::now();
        let r = transform_head(&tk, &head);
        let took = t0.elapsed();
        metrics.in_flight(-1);
        let mode = header_mode(Preamble::parse(&head.header).ok().map(|p| p.kind));
        metrics.transform(scheme, curve, mode, r.is_ok(), took);
        r
    })
    .await?
}

/// What a transformation of a whole object produced.
enum Output {
    /// A transformed file: its new head, then the original payload.
    File { head: Vec<u8>, payload: Bytes },
    /// A transformed KEM header object.
    Header(Vec<u8>),
}

/// A ciphertext file or a KEM header object → its transformation.
fn transform_input(tk: &PreparedTransformKey, input: &Bytes) -> Result<Output, ApiError> {
    let pre = Preamble::parse(input)
        .map_err(|e| ApiError::bad(format!("not an abbe ciphertext: {e}")))?;
    match pre.kind {
        ObjectKind::Ciphertext => {
            let mut cur: &[u8] = input;
            let head = envelope::read_head(&mut cur)
                .map_err(|e| ApiError::bad(format!("corrupt ciphertext: {e}")))?;
            let consumed = input.len() - cur.len();
            Ok(Output::File {
                head: transform_head(tk, &head)?,
                payload: input.slice(consumed..),
            })
        }
        ObjectKind::TransformedCiphertext
        | ObjectKind::TransformedHeader
        | ObjectKind::RccaTransformed => {
            Err(ApiError::bad("this ciphertext is already transformed"))
        }
        _ => Ok(Output::Header(tk.transform(input)?)),
    }
}

/// Transforms a whole object in memory (a KEM header; a file fetched by
/// transform-url).
async fn run_transform(
    st: &AppState,
    permit: OwnedSemaphorePermit,
    tk: Arc<PreparedTransformKey>,
    input: Bytes,
) -> ApiResult<Response> {
    let (scheme, curve) = (tk.preamble().scheme.name(), tk.preamble().curve.name());
    let metrics = st.metrics.clone();
    let out = blocking(permit, move || {
        metrics.in_flight(1);
        let t0 = Instant::now();
        let r = transform_input(&tk, &input);
        let took = t0.elapsed();
        metrics.in_flight(-1);
        let mode = mode_of(&input);
        metrics.transform(scheme, curve, mode, r.is_ok(), took);
        r
    })
    .await??;
    Ok(match out {
        Output::Header(h) => (
            [
                (
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/octet-stream"),
                ),
                (
                    header::HeaderName::from_static("x-abbe-object"),
                    HeaderValue::from_static("transformed-header"),
                ),
            ],
            h,
        )
            .into_response(),
        Output::File { head, payload } => {
            let len = (head.len() + payload.len()) as u64;
            let chunks: [Result<Bytes, std::io::Error>; 2] = [Ok(Bytes::from(head)), Ok(payload)];
            file_response(
                Body::from_stream(futures_util::stream::iter(chunks)),
                Some(len),
            )
        }
    })
}

/// "cpa", "rcca" or "invalid", for the metrics, from a KEM header's kind.
fn header_mode(kind: Option<ObjectKind>) -> &'static str {
    match kind {
        Some(ObjectKind::Header) => "cpa",
        Some(ObjectKind::RccaHeader) => "rcca",
        _ => "invalid",
    }
}

/// "cpa", "rcca" or "invalid", for the metrics, from an object's bytes.
fn mode_of(input: &[u8]) -> &'static str {
    let header_kind = match Preamble::parse(input) {
        Ok(p) if p.kind == ObjectKind::Ciphertext => {
            // The KEM header's preamble follows the file preamble and length.
            input
                .get(PREAMBLE_LEN + 4..)
                .and_then(|h| Preamble::parse(h).ok())
                .map(|p| p.kind)
        }
        Ok(p) => Some(p.kind),
        Err(_) => None,
    };
    header_mode(header_kind)
}

async fn healthz(State(st): State<AppState>) -> ApiResult<Response> {
    st.store.ping().await?;
    Ok(Json(serde_json::json!({ "status": "ok", "store": st.store.backend() })).into_response())
}

async fn metrics(State(st): State<AppState>) -> Response {
    let mut text = st.metrics.render();
    text.push_str(&format!(
        "# HELP abbe_proxy_tk_cache_entries Decoded transformation keys in memory.\n# TYPE abbe_proxy_tk_cache_entries gauge\nabbe_proxy_tk_cache_entries {}\n\
         # HELP abbe_proxy_tk_cache_memory_bytes Estimated memory of the decoded keys.\n# TYPE abbe_proxy_tk_cache_memory_bytes gauge\nabbe_proxy_tk_cache_memory_bytes {}\n",
        st.cache.len(),
        st.cache.memory()
    ));
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; version=0.0.4"),
        )],
        text,
    )
        .into_response()
}

/// Resolves when SIGTERM or SIGINT arrives.
pub async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
}

/// `abbe proxy serve`: opens the store, binds `listen` and serves until
/// SIGTERM/SIGINT (graceful: requests in flight finish).
pub fn run_blocking(listen: &str, store_url: &str, cfg: Config) -> Result<(), String> {
    let rt = runtime().map_err(|e| format!("cannot start the runtime: {e}"))?;
    rt.block_on(async move {
        let store = Store::open(store_url)
            .await
            .map_err(|e| format!("cannot open the store: {e}"))?;
        let listener = TcpListener::bind(listen)
            .await
            .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        eprintln!(
            "abbe-proxy: listening on http://{addr} (store: {}, {} workers)",
            store.backend(),
            cfg.workers
        );
        serve(listener, AppState::new(store, cfg), shutdown_signal())
            .await
            .map_err(|e| format!("server error: {e}"))?;
        eprintln!("abbe-proxy: stopped");
        Ok(())
    })
}

/// Opens the store at `store_url`, runs `f` on it, closes it (the CLI's
/// administrative commands).
fn with_store<T, F, Fut>(store_url: &str, f: F) -> Result<T, String>
where
    F: FnOnce(Store) -> Fut,
    Fut: Future<Output = Result<T, StoreError>>,
{
    let rt = runtime().map_err(|e| format!("cannot start the runtime: {e}"))?;
    rt.block_on(async move {
        let store = Store::open(store_url)
            .await
            .map_err(|e| format!("cannot open the store: {e}"))?;
        let r = f(store.clone()).await.map_err(|e| e.to_string());
        store.close().await;
        r
    })
}

/// `abbe proxy token create`: a new bearer token for `tenant`, and its id.
pub fn create_token_blocking(store_url: &str, tenant: &str) -> Result<(String, String), String> {
    with_store(store_url, |s| async move {
        s.create_token_with_id(tenant).await
    })
}

/// `abbe proxy token list`: every token's id, tenant and creation time.
pub fn list_tokens_blocking(
    store_url: &str,
    tenant: Option<&str>,
) -> Result<Vec<crate::store::TokenInfo>, String> {
    with_store(store_url, |s| async move { s.list_tokens(tenant).await })
}

/// `abbe proxy token revoke ID`: the revoked token, `None` if no token has
/// this id.
pub fn revoke_token_blocking(
    store_url: &str,
    id: &str,
) -> Result<Option<crate::store::TokenInfo>, String> {
    with_store(store_url, |s| async move { s.revoke_token(id).await })
}
