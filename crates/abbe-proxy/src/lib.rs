//! `abbe-proxy` — the GHW11 outsourcing proxy (§6): tenants register
//! transformation keys, then push ABE ciphertexts (or point the proxy at a
//! URL) and get back the constant-size transformation, which the thin client
//! finishes with one exponentiation.
//!
//! * [`server`] — the HTTP service (axum/tokio); [`access_log`] its log.
//! * [`store`] — tokens and TKs in SQLite (default) or PostgreSQL (fleets).
//! * [`cache`] — decoded TKs kept in memory (LRU, bounded).
//! * [`fetch`] — the SSRF-guarded GET of `transform-url`.
//! * [`metrics`] — Prometheus text metrics.
//! * [`quota`] — per-tenant concurrency and rate limits (429).
//! * [`client`] — a blocking client for the CLI and examples.
//! * [`ehr`] — GHW11's iHealthEHR (Fig. 9) on loopback, for the example
//!   and the lab.
//!
//! The transform itself is `abbe::facade::PreparedTransformKey`, shared
//! with the CLI (`abbe::facade::transform_bytes`).

pub mod access_log;
pub mod cache;
pub mod client;
pub mod ehr;
pub mod fetch;
pub mod metrics;
pub mod quota;
pub mod server;
pub mod store;

pub use client::{ClientError, ProxyClient};
pub use server::{AppState, Config};
pub use store::Store;
