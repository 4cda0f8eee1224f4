//! Latency of one transformation through the proxy beside the cryptography
//! alone: Waters11 on BLS12-381, a key with N attributes and an AND policy
//! of all N (every leaf used), one request at a time over loopback, the KEM
//! header pushed (as `abbe decrypt --proxy` does).
//!
//! Columns (medians over the rounds):
//! * `tk decode` — decoding the TK (point validation, subgroup checks);
//! * `hdr decode` — decoding the KEM header (the same checks);
//! * `transform` — the transformation on decoded objects (pairings);
//! * `crypto` — `abbe::facade::transform_bytes` on encoded bytes: TK and
//!   header decoding plus the transformation, what the proxy ran per
//!   request before it cached decoded TKs;
//! * `uncached` — the whole request through a proxy started without the
//!   decoded-TK cache (HTTP, token lookup, TK load and decode, header decode,
//!   transformation): how every request ran before the cache;
//! * `service` — the same through a proxy with the cache (default): the TK
//!   is decoded once, with its Miller-loop lines, and each request checks
//!   in the store that it still exists.
//!
//! `cargo run --release -p abbe-proxy --example latency -- [N ...] [--rounds R]`
//! (default: N = 10 100, R = 30).
//!
//! On the 2-core development machine (idle), the proxy decoding headers
//! without subgroup checks (`abe/ghw11.rs`):
//!
//! ```text
//!     N  mode  tk decode hdr decode  transform     crypto   uncached    service   (ms, median of 40)
//!    10   cpa       1.12       1.69       1.92       4.58       4.84       2.96
//!    10  rcca       1.24       1.86       2.15       5.16       5.22       3.22
//!   100   cpa       9.51      16.08      11.47      32.12      37.04      17.76
//!   100  rcca       9.49      16.17      11.43      35.99      36.41      17.82
//! ```
//!
//! (`hdr decode` is the strict decoding; the transformation's own leaves
//! out the subgroup checks, about two thirds of it.)
//!
//! `crypto` exceeds the sum of its parts by the G2 Miller-loop lines a
//! freshly decoded Waters11 key prepares on first use (~9 ms at N = 100);
//! a cached key keeps them.

use abbe::abe::cca::CcaKey;
use abbe::abe::rcca::RccaHeader;
use abbe::abe::{Cca, Rcca, Waters11};
use abbe::curve::Bls12;
use abbe::kem::Authority;
use abbe::kem::{Kem, Outsourcing};
use abbe::policy::{AttributeSet, Policy};
use abbe::wire::Encoded;
use abbe_proxy::quota::QuotaConfig;
use abbe_proxy::{server, Config, ProxyClient, Store};
use rand_core::OsRng;
use std::time::{Duration, Instant};

type W = Waters11<Bls12>;

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64() * 1e3
}

/// Median time of `f`, which must succeed every time (a refused request
/// would be timed as a fast one).
fn time<T, E: std::fmt::Debug>(rounds: usize, mut f: impl FnMut() -> Result<T, E>) -> f64 {
    f().expect("warm-up");
    median(
        (0..rounds)
            .map(|_| {
                let t0 = Instant::now();
                std::hint::black_box(f().expect("a timed call failed"));
                t0.elapsed()
            })
            .collect(),
    )
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut ns = Vec::new();
    let mut rounds = 30usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--rounds" {
            rounds = args.next().ok_or("--rounds R")?.parse()?;
        } else {
            ns.push(a.parse::<usize>()?);
        }
    }
    if ns.is_empty() {
        ns = vec![10, 100];
    }
    let rounds = rounds.max(1);

    let rt = tokio::runtime::Runtime::new()?;
    let dir = tempfile::tempdir()?;
    let store = rt.block_on(Store::open(&format!(
        "sqlite:{}",
        dir.path().join("proxy.db").display()
    )))?;
    let token = rt.block_on(store.create_token("latency"))?;
    // One tenant drives every request: its quotas (for sharing) are lifted.
    let unlimited = Config {
        quota: QuotaConfig {
            concurrency: 0,
            rate: 0.0,
            burst: 0.0,
        },
        ..Config::default()
    };
    let proxy = rt.block_on(server::spawn(
        "127.0.0.1:0".parse()?,
        store.clone(),
        unlimited.clone(),
    ))?;
    let uncached_proxy = rt.block_on(server::spawn(
        "127.0.0.1:0".parse()?,
        store,
        Config {
            tk_cache_entries: 0,
            ..unlimited
        },
    ))?;
    let client = ProxyClient::new(&proxy.url(), Some(token.clone()));
    let uncached = ProxyClient::new(&uncached_proxy.url(), Some(token));

    println!(
        "{:>5} {:>5} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}   (ms, median of {rounds})",
        "N", "mode", "tk decode", "hdr decode", "transform", "crypto", "uncached", "service"
    );
    for &n in &ns {
        let attrs: Vec<String> = (1..=n).map(|i| format!("a{i}")).collect();
        let (pk, mk) = W::setup(&Default::default(), &mut OsRng).unwrap();
        let key: CcaKey<W> = abbe::kem::keygen::<Cca<W>>(
            &pk,
            &mk,
            &AttributeSet::parse(&attrs.join(", "))?,
            &mut OsRng,
        )?;
        let (tk, _rk) = Rcca::<W>::transform_key(&key, &mut OsRng);
        let tk = tk.to_bytes();
        let id = client.register(&tk)?;
        let policy = Policy::parse(&attrs.join(" and "))?;
        for rcca in [false, true] {
            let header = if rcca {
                Rcca::<W>::encapsulate(&pk, &policy, &mut OsRng)?
                    .1
                    .to_bytes()
            } else {
                W::encapsulate(&pk, &policy, &mut OsRng)?.1.to_bytes()
            };
            let decode = time(rounds, || <W as Outsourcing>::TransformKey::from_bytes(&tk));
            let dtk = <W as Outsourcing>::TransformKey::from_bytes(&tk)?;
            let (hdec, pure) = if rcca {
                let h = RccaHeader::<W>::from_bytes(&header)?;
                (
                    time(rounds, || RccaHeader::<W>::from_bytes(&header)),
                    time(rounds, || Rcca::<W>::transform(&dtk, &h)),
                )
            } else {
                let h = <W as Kem>::Header::from_bytes(&header)?;
                (
                    time(rounds, || <W as Kem>::Header::from_bytes(&header)),
                    time(rounds, || W::transform(&dtk, &h)),
                )
            };
            let crypto = time(rounds, || abbe::facade::transform_bytes(&tk, &header));
            let slow = time(rounds, || uncached.transform(&id, &header));
            let service = time(rounds, || client.transform(&id, &header));
            println!(
                "{n:>5} {:>5} {decode:>10.2} {hdec:>10.2} {pure:>10.2} {crypto:>10.2} {slow:>10.2} {service:>10.2}",
                if rcca { "rcca" } else { "cpa" }
            );
        }
    }
    rt.block_on(proxy.stop());
    rt.block_on(uncached_proxy.stop());
    Ok(())
}
