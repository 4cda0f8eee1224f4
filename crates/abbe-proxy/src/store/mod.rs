//! Durable storage of tenants' tokens and transformation keys: SQLite (one
//! proxy, no other process) or PostgreSQL (a fleet of proxies), the same
//! queries through `sqlx`.
//!
//! Durability: SQLite runs in WAL mode with `synchronous=FULL`, so a commit
//! is on disk (fsync of the WAL) before `put_tk` returns and before the
//! server answers 201; PostgreSQL commits with its default
//! `synchronous_commit=on`. A TK acknowledged with 201 survives `kill -9`.
//!
//! Tokens are random 256-bit strings: only their SHA-256 is stored, looked
//! up by digest and compared in constant time. A token's public id is the
//! first 8 bytes of that digest in hex ([`TokenInfo::id`]): it names the
//! token for listing and revocation and reveals nothing of it. Every
//! request looks its token up, so a revoked token is refused (401) by every
//! instance at once.

use sha2::{Digest, Sha256};
use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::Row;
use std::str::FromStr;
use std::time::Duration;
use subtle::ConstantTimeEq;

/// A storage failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("bad store URL '{0}' (expected sqlite:PATH or postgres://...)")]
    BadUrl(String),
    #[error("database error: {0}")]
    Db(#[from] sqlx::Error),
    #[error("cannot create the store: {0}")]
    Io(String),
}

/// Metadata of a stored transformation key.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TkInfo {
    pub id: String,
    pub scheme: String,
    pub curve: String,
    pub created_at: i64,
}

/// A bearer token as listed (never the secret).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TokenInfo {
    /// 16 hex digits: the first 8 bytes of SHA-256(token).
    pub id: String,
    pub tenant: String,
    /// Unix seconds.
    pub created_at: i64,
}

/// The store: one of the two backends.
#[derive(Clone, Debug)]
pub enum Store {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// Runs the same `$body` on whichever pool `$store` holds.
macro_rules! on_pool {
    ($store:expr, $p:ident => $body:expr) => {
        match $store {
            Store::Sqlite($p) => $body,
            Store::Postgres($p) => $body,
        }
    };
}

mod tokens;
pub use tokens::token_id;

const SQLITE_SCHEMA: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS tokens (token_hash BLOB PRIMARY KEY, tenant TEXT NOT NULL, created_at BIGINT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS tks (id TEXT PRIMARY KEY, tenant TEXT NOT NULL, scheme TEXT NOT NULL, curve TEXT NOT NULL, tk BLOB NOT NULL, created_at BIGINT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS tks_tenant ON tks (tenant)",
];

const PG_SCHEMA: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS tokens (token_hash BYTEA PRIMARY KEY, tenant TEXT NOT NULL, created_at BIGINT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS tks (id TEXT PRIMARY KEY, tenant TEXT NOT NULL, scheme TEXT NOT NULL, curve TEXT NOT NULL, tk BYTEA NOT NULL, created_at BIGINT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS tks_tenant ON tks (tenant)",
];

/// Advisory lock key serialising schema creation across a fleet.
const PG_MIGRATION_LOCK: i64 = 0x6162_6265_7072_7879; // "abbeprxy"

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// `n` random bytes as lowercase hex.
pub(crate) fn random_hex(n: usize) -> String {
    let mut b = vec![0u8; n];
    rand_core::RngCore::fill_bytes(&mut rand_core::OsRng, &mut b);
    hex(&b)
}

pub(crate) fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Creates the SQLite file (if missing) readable by its owner only: it
/// holds transformation keys and token hashes. SQLite gives its -wal and
/// -shm files the database file's mode. An existing file is narrowed to
/// 0600 too.
fn create_private(path: &str) -> Result<(), StoreError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        let io = |e: std::io::Error| StoreError::Io(format!("{path}: {e}"));
        let f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(path)
            .map_err(io)?;
        f.set_permissions(std::fs::Permissions::from_mode(0o600))
            .map_err(io)?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// The file of a SQLite store URL (`sqlite:PATH`, `sqlite://PATH` or a bare
/// path); `None` for PostgreSQL and malformed URLs.
pub fn sqlite_path(url: &str) -> Option<&str> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        return None;
    }
    match url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
    {
        Some(p) if !p.is_empty() => Some(p),
        None if !url.contains("://") && !url.is_empty() => Some(url),
        _ => None,
    }
}

impl Store {
    /// Opens (creating if needed) the store named by `url`:
    /// `sqlite:PATH` (or a bare path) or `postgres://...`.
    pub async fn open(url: &str) -> Result<Store, StoreError> {
        let store = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let pool = PgPoolOptions::new()
                .max_connections(8)
                .acquire_timeout(Duration::from_secs(10))
                .connect(url)
                .await?;
            Store::Postgres(pool)
        } else {
            let path = sqlite_path(url).ok_or_else(|| StoreError::BadUrl(url.to_owned()))?;
            create_private(path)?;
            let opts = SqliteConnectOptions::from_str("sqlite:")?
                .filename(path)
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Full)
                // Deleted TKs are overwritten with zeros, not left in free
                // pages (with WAL, delete_tk also checkpoints).
                .pragma("secure_delete", "ON")
                .busy_timeout(Duration::from_secs(10));
            let pool = SqlitePoolOptions::new()
                .max_connections(4)
                .connect_with(opts)
                .await?;
            Store::Sqlite(pool)
        };
        store.migrate().await?;
        Ok(store)
    }

    /// "sqlite" or "postgres".
    pub fn backend(&self) -> &'static str {
        match self {
            Store::Sqlite(_) => "sqlite",
            Store::Postgres(_) => "postgres",
        }
    }

    async fn migrate(&self) -> Result<(), StoreError> {
        match self {
            Store::Sqlite(p) => {
                for q in SQLITE_SCHEMA {
                    sqlx::query(q).execute(p).await?;
                }
            }
            Store::Postgres(p) => {
                let mut c = p.acquire().await?;
                sqlx::query("SELECT pg_advisory_lock($1)")
                    .bind(PG_MIGRATION_LOCK)
                    .execute(&mut *c)
                    .await?;
                let mut r = Ok(());
                for q in PG_SCHEMA {
                    if let Err(e) = sqlx::query(q).execute(&mut *c).await {
                        r = Err(e);
                        break;
                    }
                }
                sqlx::query("SELECT pg_advisory_unlock($1)")
                    .bind(PG_MIGRATION_LOCK)
                    .execute(&mut *c)
                    .await?;
                r?;
            }
        }
        Ok(())
    }

    /// Stores a transformation key for `tenant`; returns its new id once
    /// the commit is durable.
    pub async fn put_tk(
        &self,
        tenant: &str,
        scheme: &str,
        curve: &str,
        tk: &[u8],
    ) -> Result<String, StoreError> {
        let id = random_hex(16);
        on_pool!(self, p => sqlx::query(
            "INSERT INTO tks (id, tenant, scheme, curve, tk, created_at) VALUES ($1, $2, $3, $4, $5, $6)")
            .bind(&id)
            .bind(tenant)
            .bind(scheme)
            .bind(curve)
            .bind(tk)
            .bind(now())
            .execute(p)
            .await
            .map(|_| ()))?;
        Ok(id)
    }

    /// The transformation key `id` if it belongs to `tenant`.
    pub async fn get_tk(&self, tenant: &str, id: &str) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(on_pool!(self, p => {
            sqlx::query("SELECT tk FROM tks WHERE id = $1 AND tenant = $2")
                .bind(id)
                .bind(tenant)
                .fetch_optional(p)
                .await?
                .map(|r| r.try_get::<Vec<u8>, _>(0))
                .transpose()?
        }))
    }

    /// True when the transformation key `id` exists and belongs to `tenant`
    /// (a primary-key lookup; the decoded-key cache asks it on every use).
    pub async fn tk_exists(&self, tenant: &str, id: &str) -> Result<bool, StoreError> {
        Ok(on_pool!(self, p => {
            sqlx::query("SELECT 1 FROM tks WHERE id = $1 AND tenant = $2")
                .bind(id)
                .bind(tenant)
                .fetch_optional(p)
                .await?
                .is_some()
        }))
    }

    /// Metadata of the transformation key `id` if it belongs to `tenant`.
    pub async fn tk_info(&self, tenant: &str, id: &str) -> Result<Option<TkInfo>, StoreError> {
        Ok(on_pool!(self, p => {
            sqlx::query("SELECT id, scheme, curve, created_at FROM tks WHERE id = $1 AND tenant = $2")
                .bind(id)
                .bind(tenant)
                .fetch_optional(p)
                .await?
                .map(|r| Ok::<_, sqlx::Error>(TkInfo {
                    id: r.try_get(0)?,
                    scheme: r.try_get(1)?,
                    curve: r.try_get(2)?,
                    created_at: r.try_get(3)?,
                }))
                .transpose()?
        }))
    }

    /// The ids of `tenant`'s transformation keys, oldest first.
    pub async fn list_tks(&self, tenant: &str) -> Result<Vec<String>, StoreError> {
        Ok(on_pool!(self, p => {
            sqlx::query("SELECT id FROM tks WHERE tenant = $1 ORDER BY created_at, id")
                .bind(tenant)
                .fetch_all(p)
                .await?
                .iter()
                .map(|r| r.try_get::<String, _>(0))
                .collect::<Result<Vec<_>, _>>()?
        }))
    }

    /// Deletes the transformation key `id` of `tenant`; false if there was
    /// none.
    pub async fn delete_tk(&self, tenant: &str, id: &str) -> Result<bool, StoreError> {
        let n = on_pool!(self, p => sqlx::query("DELETE FROM tks WHERE id = $1 AND tenant = $2")
            .bind(id)
            .bind(tenant)
            .execute(p)
            .await?
            .rows_affected());
        if let Store::Sqlite(p) = self {
            // secure_delete zeroes the row in the page the WAL now holds;
            // the checkpoint writes that page into the database and
            // truncates the WAL, whose older frames still had the key.
            sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
                .execute(p)
                .await?;
        }
        Ok(n > 0)
    }

    /// A cheap round trip, for `/healthz`.
    pub async fn ping(&self) -> Result<(), StoreError> {
        on_pool!(self, p => sqlx::query("SELECT 1").execute(p).await.map(|_| ()))?;
        Ok(())
    }

    /// Closes the pool (after a graceful shutdown).
    pub async fn close(&self) {
        on_pool!(self, p => p.close().await)
    }
}

#[cfg(test)]
mod tests;
