//! Setup and key generation of the broadcast schemes at large N, one run
//! each, with the process's peak memory (issue-4 scale figures; the lab's
//! `chhatrapati22` experiment has the full tables).
//!
//! ```text
//! cargo run --release -p abbe --example bcast_scale -- gw09,waters09 1000000
//! ```

use abbe::bcast::Users;
use abbe::bcast::{Bgw05, Gw09, UserIndex, Waters09};
use abbe::curve::Bn254;
use abbe::kem::{self, Authority, Kem};
use rand_core::OsRng;
use std::time::Instant;

fn peak_rss_kib() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM"))
                .map(|l| l.to_string())
        })
        .unwrap_or_default()
}

fn run<K: Kem<KeySide = UserIndex>>(name: &str, n: u32)
where
    K::Authority: Authority<Params = Users>,
{
    let t = Instant::now();
    let (pk, mk) = kem::setup::<K>(&Users(n), &mut OsRng).expect("setup");
    let s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let key = kem::keygen::<K>(&pk, &mk, &UserIndex(n / 2), &mut OsRng);
    let k = t.elapsed().as_secs_f64();
    assert!(key.is_ok());
    println!(
        "{name} N={n}: setup {s:.2} s, keygen {k:.2} s, {}",
        peak_rss_kib()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let schemes = args
        .get(1)
        .cloned()
        .unwrap_or_else(|| "gw09,waters09".into());
    let n: u32 = args
        .get(2)
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    for s in schemes.split(',') {
        match s {
            "bgw05" => run::<Bgw05<Bn254>>(s, n),
            "gw09" => run::<Gw09<Bn254>>(s, n),
            "waters09" => run::<Waters09<Bn254>>(s, n),
            other => eprintln!("unknown scheme {other} (bgw05, gw09, waters09)"),
        }
    }
}
