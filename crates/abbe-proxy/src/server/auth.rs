//! Who is asking (bearer tokens) and when they may run: tenant quotas,
//! worker permits, the blocking pool.

use super::*;

/// The tenant of the request's bearer token.
pub(super) async fn tenant(st: &AppState, headers: &HeaderMap) -> ApiResult<String> {
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

/// A worker permit: taken before a request's body is buffered and held
/// through its pairing work, so at most `workers` requests hold a body in
/// memory at once, whatever the number of connections.
pub(super) async fn worker(st: &AppState) -> ApiResult<OwnedSemaphorePermit> {
    st.sem
        .clone()
        .acquire_owned()
        .await
        .map_err(|_| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "shutting down"))
}

/// Admits a request of `tenant` (its quota), then waits for a worker.
pub(super) async fn admit(st: &AppState, tenant: &str) -> ApiResult<(Slot, OwnedSemaphorePermit)> {
    let slot = st.quotas.admit(tenant)?;
    Ok((slot, worker(st).await?))
}

/// Runs `f` on the blocking pool under the worker permit `permit`.
pub(super) async fn blocking<T: Send + 'static>(
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
