//! Benchmarks of YCT14 KP-ABE — a BROKEN scheme, measured only to reproduce
//! the YCT curves of Perazzo et al. (Figs. 6–13). Built only with
//! `--features insecure-benchmark-only`.
//!
//! One criterion group per curve, `yct14/<curve name>`. For every
//! N ∈ {5, 10, 20, 30, 40, 50} (perazzo's x axis): the ciphertext attribute
//! set is `A1 … AN` and the key policy is the flat AND over the same N
//! attributes (perazzo's worst case, every leaf visited). Benchmark ids:
//!
//! * `keygen/N` — scalar arithmetic only (N inversions in Z_r).
//! * `encrypt/N` — N variable-base G1 multiplications + 1 fixed-base (k·Y).
//! * `decrypt/N` — one N-term G1 MSM (+ LSSS reconstruction, KDF).
//! * `lower-bound-encrypt/N` — N+1 variable-base G1 multiplications alone.
//! * `lower-bound-decrypt/N` — one N-term G1 MSM on random points alone.
//!
//! The public key's fixed-base table of Y is built before measuring.
//!
//! Run: `cargo bench -p abbe --features insecure-benchmark-only --bench yct14`.

use abbe::abe::yct14::InsecureYct14;
use abbe::curve::{Bls12, Bn254, Curve, Group, Scalar};
use abbe::kem::Authority;
use abbe::policy::{generate, AttributeSet};
use abbe::Kem;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::hint::black_box;
use std::time::Duration;

const SIZES: [usize; 6] = [5, 10, 20, 30, 40, 50];

fn bench_scheme<C: Curve>(c: &mut Criterion) {
    type S<C> = InsecureYct14<C>;
    let mut rng = ChaCha20Rng::seed_from_u64(0xabbe_0014);
    let mut group = c.benchmark_group(format!("yct14/{}", C::NAME));
    group.sample_size(20);
    let (pk, mk) = S::<C>::setup(&Default::default(), &mut rng).unwrap();

    for n in SIZES {
        let policy = generate::flat_and(n).expect("flat AND policy");
        let set = AttributeSet::from_names(policy.attributes()).expect("attribute set");
        assert_eq!(set.len(), n);
        let key = S::<C>::keygen(&pk, &mk, &policy, &mut rng).expect("keygen");
        let (session, header) = S::<C>::encapsulate(&pk, &set, &mut rng).expect("encapsulate");
        assert_eq!(
            S::<C>::decapsulate(&key, &header).expect("decapsulate"),
            session
        );

        group.bench_function(BenchmarkId::new("keygen", n), |b| {
            b.iter(|| S::<C>::keygen(&pk, &mk, black_box(&policy), &mut rng))
        });
        group.bench_function(BenchmarkId::new("encrypt", n), |b| {
            b.iter(|| S::<C>::encapsulate(&pk, black_box(&set), &mut rng))
        });
        group.bench_function(BenchmarkId::new("decrypt", n), |b| {
            b.iter(|| S::<C>::decapsulate(black_box(&key), black_box(&header)))
        });

        let points: Vec<C::G1> = (0..n)
            .map(|_| C::G1::generator() * C::Scalar::random(&mut rng))
            .collect();
        let scalars: Vec<C::Scalar> = (0..n).map(|_| C::Scalar::random(&mut rng)).collect();
        let k = C::Scalar::random(&mut rng);
        group.bench_function(BenchmarkId::new("lower-bound-encrypt", n), |b| {
            b.iter(|| {
                let mut acc = black_box(points[0]) * k;
                for p in &points {
                    acc = black_box(*p * k);
                }
                acc
            })
        });
        group.bench_function(BenchmarkId::new("lower-bound-decrypt", n), |b| {
            b.iter(|| C::G1::msm(black_box(&points), black_box(&scalars)))
        });
    }
    group.finish();
}

fn bench_bls12(c: &mut Criterion) {
    bench_scheme::<Bls12>(c);
}

fn bench_bn254(c: &mut Criterion) {
    bench_scheme::<Bn254>(c);
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    targets = bench_bls12, bench_bn254
}
criterion_main!(benches);
