//! The handlers: TK registration, listing, deletion, the transformations
//! (pushed and by URL), health and metrics.

use super::*;

pub(super) async fn register(
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

pub(super) async fn list_tks(
    State(st): State<AppState>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let tenant = tenant(&st, &headers).await?;
    let ids = st.store.list_tks(&tenant).await?;
    Ok(Json(serde_json::json!({ "ids": ids })).into_response())
}

pub(super) fn check_id(id: &str) -> ApiResult<()> {
    if id.is_empty() || id.len() > 64 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(ApiError::not_found());
    }
    Ok(())
}

pub(super) async fn tk_info(
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

pub(super) async fn delete_tk(
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
pub(super) async fn load_tk(
    st: &AppState,
    tenant: &str,
    id: &str,
) -> ApiResult<Arc<PreparedTransformKey>> {
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

pub(super) async fn transform(
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
pub(super) struct UrlRequest {
    url: String,
}

pub(super) async fn transform_url(
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

pub(super) async fn healthz(State(st): State<AppState>) -> ApiResult<Response> {
    st.store.ping().await?;
    Ok(Json(serde_json::json!({ "status": "ok", "store": st.store.backend() })).into_response())
}

pub(super) async fn metrics(State(st): State<AppState>) -> Response {
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
