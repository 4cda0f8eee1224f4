//! Benchmarks of GPSW06 KP-ABE: the large-universe random-oracle
//! construction (with GHW11 outsourcing) and the small-universe
//! construction, per curve.
//!
//! Criterion groups `gpsw06/<curve name>` and `gpsw06-small/<curve name>`.
//! For every N ∈ {1, 10, 50, 100} the KEY policy is the flat AND
//! `A1 and … and AN` and the ciphertext is labelled with exactly `A1 … AN`;
//! benchmark ids are `<operation>/<N>`:
//!
//! * `setup` (once per curve; the small universe's is over the default
//!   universe `A1 … A256`).
//! * `keygen/N`, `encrypt/N` — attribute hash cache warm (large universe),
//!   fixed-base tables on the T_i built (small universe).
//! * `encrypt-cold/N` (large universe) — the attribute hash cache is cleared
//!   before every iteration (outside the timed region), so the N hashes to
//!   G1 are timed.
//! * `decrypt/N` — the same key for every iteration, its G2 lines cached by
//!   the first decryption; `decrypt-fresh-key/N` — a key freshly decoded for
//!   every iteration, so the line precomputation of its N elements is timed.
//! * `transform-key/N`, `transform/N`, `final-decryption/N` (large universe
//!   only: GHW11 outsourcing).
//! * `lower-bound/N` — the shared multi-Miller loop over the same number of
//!   random pairs with prepared G2 (N+1 for the large universe, N for the
//!   small) plus one final exponentiation.
//!
//! Run: `cargo bench -p abbe --bench gpsw06` (optionally `-- <regex>`, e.g.
//! `-- 'bls12-381/(decrypt|encrypt|lower-bound)/100$'`).

use abbe::abe::clear_attribute_hash_cache;
use abbe::abe::{gpsw06, gpsw06_small, Gpsw06, Gpsw06Small};
use abbe::curve::{Bls12, Bn254, Curve, Group, Scalar};
use abbe::kem::Authority;
use abbe::policy::{generate, AttributeSet};
use abbe::{Kem, Outsourcing};
use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, BatchSize, BenchmarkGroup, BenchmarkId, Criterion,
    SamplingMode,
};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::hint::black_box;
use std::time::Duration;

const SIZES: [usize; 4] = [1, 10, 50, 100];

fn configure(group: &mut BenchmarkGroup<'_, WallTime>, n: usize) {
    if n >= 50 {
        group.sample_size(10).sampling_mode(SamplingMode::Flat);
    } else if n >= 10 {
        group.sample_size(20).sampling_mode(SamplingMode::Auto);
    } else {
        group.sample_size(30).sampling_mode(SamplingMode::Auto);
    }
}

/// The pairing work alone: `pairs` random pairs, G2 prepared, one shared
/// Miller loop and one final exponentiation.
fn lower_bound<C: Curve>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    n: usize,
    pairs: usize,
    rng: &mut ChaCha20Rng,
) {
    let g1s: Vec<C::G1> = (0..pairs)
        .map(|_| C::G1::generator() * C::Scalar::random(rng))
        .collect();
    let prepared: Vec<C::G2Prepared> = (0..pairs)
        .map(|_| C::prepare(&(C::G2::generator() * C::Scalar::random(rng))))
        .collect();
    let terms: Vec<(C::G1, &C::G2Prepared)> = g1s.iter().copied().zip(&prepared).collect();
    group.bench_function(BenchmarkId::new("lower-bound", n), |b| {
        b.iter(|| C::multi_pairing(black_box(terms.as_slice())))
    });
}

fn bench_large<C: Curve>(c: &mut Criterion) {
    type S<C> = Gpsw06<C>;
    let mut rng = ChaCha20Rng::seed_from_u64(0xabbe_0006);
    let mut group = c.benchmark_group(format!("gpsw06/{}", C::NAME));
    configure(&mut group, 1);
    group.bench_function("setup", |b| {
        b.iter(|| S::<C>::setup(&Default::default(), &mut rng).unwrap())
    });
    let (pk, mk) = S::<C>::setup(&Default::default(), &mut rng).unwrap();

    for n in SIZES {
        configure(&mut group, n);
        let policy = generate::flat_and(n).expect("flat AND policy");
        let set = AttributeSet::from_names(policy.attributes()).expect("attribute set");
        let key = S::<C>::keygen(&pk, &mk, &policy, &mut rng).expect("keygen");
        let (session, header) = S::<C>::encapsulate(&pk, &set, &mut rng).expect("encapsulate");
        assert_eq!(
            S::<C>::decapsulate(&key, &header).expect("decrypt"),
            session
        );
        let key_bytes = key.to_bytes();
        let (tk, rk) = S::<C>::transform_key(&key, &mut rng);
        let transformed = S::<C>::transform(&tk, &header).expect("transform");
        assert_eq!(
            S::<C>::decrypt_transformed(&rk, &transformed).expect("final decryption"),
            session
        );

        group.bench_function(BenchmarkId::new("keygen", n), |b| {
            b.iter(|| S::<C>::keygen(&pk, &mk, black_box(&policy), &mut rng))
        });
        group.bench_function(BenchmarkId::new("encrypt", n), |b| {
            b.iter(|| S::<C>::encapsulate(&pk, black_box(&set), &mut rng))
        });
        group.bench_function(BenchmarkId::new("encrypt-cold", n), |b| {
            b.iter_batched(
                clear_attribute_hash_cache,
                |()| S::<C>::encapsulate(&pk, black_box(&set), &mut rng),
                BatchSize::PerIteration,
            )
        });
        group.bench_function(BenchmarkId::new("decrypt", n), |b| {
            b.iter(|| S::<C>::decapsulate(black_box(&key), black_box(&header)))
        });
        group.bench_function(BenchmarkId::new("decrypt-fresh-key", n), |b| {
            b.iter_batched_ref(
                || gpsw06::UserKey::<C>::from_bytes(&key_bytes).expect("decode key"),
                |fresh| S::<C>::decapsulate(black_box(&*fresh), black_box(&header)),
                BatchSize::PerIteration,
            )
        });
        group.bench_function(BenchmarkId::new("transform-key", n), |b| {
            b.iter(|| S::<C>::transform_key(black_box(&key), &mut rng))
        });
        group.bench_function(BenchmarkId::new("transform", n), |b| {
            b.iter(|| S::<C>::transform(black_box(&tk), black_box(&header)))
        });
        group.bench_function(BenchmarkId::new("final-decryption", n), |b| {
            b.iter(|| S::<C>::decrypt_transformed(black_box(&rk), black_box(&transformed)))
        });
        lower_bound::<C>(&mut group, n, n + 1, &mut rng);
    }
    group.finish();
}

fn bench_small<C: Curve>(c: &mut Criterion) {
    type S<C> = Gpsw06Small<C>;
    let mut rng = ChaCha20Rng::seed_from_u64(0xabbe_0106);
    let mut group = c.benchmark_group(format!("gpsw06-small/{}", C::NAME));
    configure(&mut group, 50);
    group.bench_function("setup", |b| {
        b.iter(|| S::<C>::setup(&Default::default(), &mut rng).unwrap())
    });
    let (pk, mk) = S::<C>::setup(&Default::default(), &mut rng).unwrap();

    for n in SIZES {
        configure(&mut group, n);
        let policy = generate::flat_and(n).expect("flat AND policy");
        let set = AttributeSet::from_names(policy.attributes()).expect("attribute set");
        let key = S::<C>::keygen(&pk, &mk, &policy, &mut rng).expect("keygen");
        let (session, header) = S::<C>::encapsulate(&pk, &set, &mut rng).expect("encapsulate");
        assert_eq!(
            S::<C>::decapsulate(&key, &header).expect("decrypt"),
            session
        );
        let key_bytes = key.to_bytes();

        group.bench_function(BenchmarkId::new("keygen", n), |b| {
            b.iter(|| S::<C>::keygen(&pk, &mk, black_box(&policy), &mut rng))
        });
        group.bench_function(BenchmarkId::new("encrypt", n), |b| {
            b.iter(|| S::<C>::encapsulate(&pk, black_box(&set), &mut rng))
        });
        group.bench_function(BenchmarkId::new("decrypt", n), |b| {
            b.iter(|| S::<C>::decapsulate(black_box(&key), black_box(&header)))
        });
        group.bench_function(BenchmarkId::new("decrypt-fresh-key", n), |b| {
            b.iter_batched_ref(
                || gpsw06_small::UserKey::<C>::from_bytes(&key_bytes).expect("decode key"),
                |fresh| S::<C>::decapsulate(black_box(&*fresh), black_box(&header)),
                BatchSize::PerIteration,
            )
        });
        lower_bound::<C>(&mut group, n, n, &mut rng);
    }
    group.finish();
}

fn bench_bls12(c: &mut Criterion) {
    bench_large::<Bls12>(c);
    bench_small::<Bls12>(c);
}

fn bench_bn254(c: &mut Criterion) {
    bench_large::<Bn254>(c);
    bench_small::<Bn254>(c);
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = bench_bls12, bench_bn254
}
criterion_main!(benches);
