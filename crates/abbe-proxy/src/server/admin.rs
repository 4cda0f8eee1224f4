//! Running the server from the CLI (runtime, signals) and the token
//! commands against a store.

use super::*;

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

pub(super) fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
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
        if !addr.ip().is_loopback() {
            eprintln!(
                "abbe-proxy: warning: plain HTTP on {addr}, beyond this machine: bearer tokens and transformation keys cross the network unencrypted; serve on loopback behind a TLS-terminating reverse proxy"
            );
        }
        serve(listener, AppState::new(store, cfg), shutdown_signal())
            .await
            .map_err(|e| format!("server error: {e}"))?;
        eprintln!("abbe-proxy: stopped");
        Ok(())
    })
}

/// Opens the store at `store_url`, runs `f` on it, closes it (the CLI's
/// administrative commands). Only `create` may create a new store: a
/// misspelt `--store sqlite:typo.db` given to `list` or `revoke` would
/// otherwise leave an empty database and report no tokens.
pub(super) fn with_store<T, F, Fut>(store_url: &str, create: bool, f: F) -> Result<T, String>
where
    F: FnOnce(Store) -> Fut,
    Fut: Future<Output = Result<T, StoreError>>,
{
    let rt = runtime().map_err(|e| format!("cannot start the runtime: {e}"))?;
    if let (false, Some(path)) = (create, crate::store::sqlite_path(store_url)) {
        if !std::path::Path::new(path).exists() {
            return Err(format!(
                "no store at {store_url} (`abbe proxy token create` or `abbe proxy serve` creates one)"
            ));
        }
    }
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
    with_store(store_url, true, |s| async move {
        s.create_token_with_id(tenant).await
    })
}

/// `abbe proxy token list`: every token's id, tenant and creation time.
pub fn list_tokens_blocking(
    store_url: &str,
    tenant: Option<&str>,
) -> Result<Vec<crate::store::TokenInfo>, String> {
    with_store(
        store_url,
        false,
        |s| async move { s.list_tokens(tenant).await },
    )
}

/// `abbe proxy token revoke ID`: the revoked token, `None` if no token has
/// this id.
pub fn revoke_token_blocking(
    store_url: &str,
    id: &str,
) -> Result<Option<crate::store::TokenInfo>, String> {
    with_store(
        store_url,
        false,
        |s| async move { s.revoke_token(id).await },
    )
}
