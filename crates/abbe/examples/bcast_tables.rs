//! Fills chhatrapati22's Tables 7–8 (setup, keygen, encrypt, decrypt times;
//! pk/sk/ct sizes) for the broadcast schemes, |S| = 10% of N, on BN254 (the
//! paper's curve) and P-256 for the ElGamal baseline, and writes CSV with
//! the paper's published value and the ratio ours/paper.
//!
//! ```text
//! cargo run --release -p abbe --example bcast_tables -- [--max N] [--only scheme,...] [--out file.csv]
//! ```
//! N runs over 10^2, 10^3, 10^4 by default, up to 10^6 with `--max 1000000`.
//! The paper's values: `crates/abbe/data/chhatrapati22.csv` (Tables 7, 8).

use abbe::bcast::{Bgw05, Bgw05Sqrt, ElGamalP256, Gw09, Recipients, UserIndex, Waters09};
use abbe::curve::{Bn254, Curve, Group};
use abbe::kem::Kem;
use abbe::wire::Encoded;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::collections::HashMap;
use std::io::Write;
use std::time::Instant;

const PAPER: &str = include_str!("../data/chhatrapati22.csv");

type C = Bn254;

fn paper() -> HashMap<(String, String, u32), f64> {
    let mut m = HashMap::new();
    for line in PAPER.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split(',').collect();
        if let (Some(s), Some(i), Some(n), Some(v)) = (f.first(), f.get(1), f.get(2), f.get(3)) {
            if let (Ok(n), Ok(v)) = (n.parse(), v.parse()) {
                m.insert((s.to_string(), i.to_string(), n), v);
            }
        }
    }
    m
}

/// Median time in ms of `reps` runs.
fn time_ms<T>(reps: usize, mut f: impl FnMut() -> T) -> f64 {
    let mut v: Vec<f64> = (0..reps.max(1))
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

struct Row {
    scheme: &'static str,
    item: &'static str,
    n: u32,
    s: usize,
    ours: f64,
    unit: &'static str,
}

fn random_set(n: u32, rng: &mut ChaCha20Rng) -> Recipients {
    let k = (n / 10).max(1) as usize;
    // a uniformly random k-subset (partial Fisher–Yates over [1, n])
    let mut all: Vec<u32> = (1..=n).collect();
    for i in 0..k {
        let j = i + (rng.next_u64() % (n as u64 - i as u64)) as usize;
        all.swap(i, j);
    }
    Recipients::from_indices(all[..k].iter().copied()).expect("non-empty")
}

#[allow(clippy::too_many_arguments)]
fn run<K>(
    name: &'static str,
    n: u32,
    rows: &mut Vec<Row>,
    setup: impl Fn(u32, &mut ChaCha20Rng) -> (K::PublicKey, K::MasterKey),
    rng: &mut ChaCha20Rng,
) where
    K: Kem<KeySide = UserIndex, CiphertextSide = Recipients>,
{
    let reps = if n >= 100_000 { 3 } else { 7 };
    let t = Instant::now();
    let (pk, mk) = setup(n, rng);
    let setup_ms = t.elapsed().as_secs_f64() * 1e3;
    let set = random_set(n, rng);
    let member = set.iter().next().expect("non-empty");
    let kg_reps = if matches!(name, "gw09" | "waters09") && n >= 100_000 {
        1
    } else {
        reps
    };
    let keygen_ms = time_ms(kg_reps, || {
        K::keygen(&pk, &mk, &UserIndex(member), rng).unwrap()
    });
    let key = K::keygen(&pk, &mk, &UserIndex(member), rng).unwrap();
    let enc_ms = time_ms(reps, || K::encapsulate(&pk, &set, rng).unwrap());
    let (k0, header) = K::encapsulate(&pk, &set, rng).unwrap();
    assert!(K::decapsulate(&key, &header).unwrap() == k0);
    let dec_ms = time_ms(reps, || K::decapsulate(&key, &header).unwrap());
    let pk_len = pk.to_bytes().len();
    let sk_len = key.to_bytes().len() - (8 + 16 + 4 + 4);
    let ct_len = header.to_bytes().len() - (8 + 16 + 4) - (4 + 8 * set.ranges().len());
    let s = set.len();
    for (item, ours, unit) in [
        ("setup", setup_ms, "ms"),
        ("keygen", keygen_ms, "ms"),
        ("encrypt", enc_ms, "ms"),
        ("decrypt", dec_ms, "ms"),
        ("pk", pk_len as f64, "B"),
        ("sk", sk_len as f64, "B"),
        ("ct", ct_len as f64, "B"),
    ] {
        rows.push(Row {
            scheme: name,
            item,
            n,
            s,
            ours,
            unit,
        });
    }
    eprintln!(
        "{name:>12} N={n:>8} |S|={s:>7}: setup {setup_ms:>10.2} ms  keygen {keygen_ms:>9.3} ms  enc {enc_ms:>8.3} ms  dec {dec_ms:>8.3} ms  pk {pk_len} B  sk {sk_len} B  ct {ct_len} B"
    );
}

/// The lower bound of Waters09 decryption: the shared Miller loop over 8
/// prepared pairs + one final exponentiation (and, separately, with the
/// |S| G1 additions and E_2's line computation that decryption also needs).
fn waters09_lower_bound(n: u32, rows: &mut Vec<Row>, rng: &mut ChaCha20Rng) {
    let s = (n / 10).max(1) as usize;
    let g1: Vec<<C as Curve>::G1> = (0..8)
        .map(|k| {
            <C as Curve>::G1::generator()
                * <<C as Curve>::Scalar as abbe::curve::Scalar>::from_u64(k + 3)
        })
        .collect();
    let q: Vec<<C as Curve>::G2> = (0..8)
        .map(|k| {
            <C as Curve>::G2::generator()
                * <<C as Curve>::Scalar as abbe::curve::Scalar>::from_u64(k + 5)
        })
        .collect();
    let prepared: Vec<_> = q.iter().map(C::prepare).collect();
    let terms: Vec<_> = g1.iter().copied().zip(prepared.iter()).collect();
    let pairs_ms = time_ms(15, || C::multi_pairing(&terms));
    let pts: Vec<<C as Curve>::G1> = (0..s)
        .map(|_| {
            <C as Curve>::G1::generator()
                * <<C as Curve>::Scalar as abbe::curve::Scalar>::random(rng)
        })
        .collect();
    let aff = <C as Curve>::G1::to_affine_batch(&pts);
    let sum_ms = time_ms(7, || <C as Curve>::G1::sum_affine(&aff));
    let prep_ms = time_ms(15, || C::prepare(&q[0]));
    for (item, v) in [
        ("decrypt-lower-bound-8-pairs", pairs_ms),
        ("decrypt-lower-bound-with-sum", pairs_ms + sum_ms + prep_ms),
    ] {
        rows.push(Row {
            scheme: "waters09",
            item,
            n,
            s,
            ours: v,
            unit: "ms",
        });
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let get = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let max: u32 = get("--max").and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let only: Option<Vec<String>> =
        get("--only").map(|v| v.split(',').map(str::to_owned).collect());
    let out = get("--out").unwrap_or_else(|| "bcast_tables.csv".into());
    let want = |s: &str| only.as_ref().is_none_or(|o| o.iter().any(|x| x == s));
    let paper = paper();
    let mut rng = ChaCha20Rng::seed_from_u64(2022);
    let mut rows = Vec::new();
    let mut n = 100u32;
    while n <= max {
        if want("elgamal-p256") {
            run::<ElGamalP256>(
                "elgamal-p256",
                n,
                &mut rows,
                |n, r| ElGamalP256::setup_n(n, r).unwrap(),
                &mut rng,
            );
        }
        if want("bgw05") {
            run::<Bgw05<C>>(
                "bgw05",
                n,
                &mut rows,
                |n, r| Bgw05::<C>::setup_n(n, r).unwrap(),
                &mut rng,
            );
        }
        if want("bgw05-sqrt") {
            run::<Bgw05Sqrt<C>>(
                "bgw05-sqrt",
                n,
                &mut rows,
                |n, r| Bgw05Sqrt::<C>::setup_n(n, r).unwrap(),
                &mut rng,
            );
        }
        if want("gw09") {
            run::<Gw09<C>>(
                "gw09",
                n,
                &mut rows,
                |n, r| Gw09::<C>::setup_n(n, r).unwrap(),
                &mut rng,
            );
        }
        if want("waters09") {
            run::<Waters09<C>>(
                "waters09",
                n,
                &mut rows,
                |n, r| Waters09::<C>::setup_n(n, r).unwrap(),
                &mut rng,
            );
            waters09_lower_bound(n, &mut rows, &mut rng);
        }
        n = n.saturating_mul(10);
    }
    let mut f = std::fs::File::create(&out).expect("create output");
    writeln!(f, "scheme,item,N,S,ours,unit,paper,ratio_ours_over_paper").unwrap();
    for r in &rows {
        let p = paper.get(&(r.scheme.to_string(), r.item.to_string(), r.n));
        let (ps, ratio) = match p {
            Some(p) => (format!("{p}"), format!("{:.4}", r.ours / p)),
            None => (String::new(), String::new()),
        };
        writeln!(
            f,
            "{},{},{},{},{:.4},{},{},{}",
            r.scheme, r.item, r.n, r.s, r.ours, r.unit, ps, ratio
        )
        .unwrap();
    }
    eprintln!("wrote {out}");
}
