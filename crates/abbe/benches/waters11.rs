//! Benchmarks of Waters11 CP-ABE (with GHW11 outsourcing), per curve.
//!
//! One criterion group per curve, `waters11/<curve name>`. For every
//! N ∈ {1, 10, 50, 100} the policy is the flat AND `A1 and … and AN` and the
//! key holds exactly `A1 … AN`; benchmark ids are `<operation>/<N>`:
//!
//! * `setup` (once per curve; it does not depend on N).
//! * `keygen/N`, `encrypt/N` — with the public key's attribute hash cache
//!   warm (the steady state of a long-running process);
//!   `keygen-cold/N`, `encrypt-cold/N` — the cache is cleared before every
//!   iteration (outside the timed region), so the N hashes to G2 are timed.
//! * `decrypt/N` — the same key for every iteration: its G2 lines are
//!   precomputed by the first decryption and cached (the intended steady
//!   state); `decrypt-fresh-key/N` — a key freshly decoded from bytes (outside
//!   the timed region) for every iteration, so the line precomputation of the
//!   N+1 key elements is timed.
//! * `transform-key/N`, `transform/N` (proxy side, cached lines as for
//!   `decrypt`), `final-decryption/N` (`decrypt_transformed`: one GT
//!   exponentiation).
//! * `lower-bound/N` — just the shared multi-Miller loop over N+2 random
//!   pairs with prepared G2 plus one final exponentiation: the pairing work
//!   of a decryption, so `decrypt/N ÷ lower-bound/N` is the overhead of
//!   everything else.
//!
//! The public key's fixed-base tables are built before measuring.
//!
//! Run: `cargo bench -p abbe --bench waters11` (optionally followed by
//! `-- <regex filter>`, e.g. `-- 'bls12-381/(decrypt|lower-bound)/100$'`).

use abbe::abe::clear_attribute_hash_cache;
use abbe::abe::waters11::UserKey;
use abbe::abe::Waters11;
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

/// Numbers of attributes (policy leaves = key attributes).
const SIZES: [usize; 4] = [1, 10, 50, 100];

/// Fewer samples as N grows, so the suite finishes in a few minutes.
fn configure(group: &mut BenchmarkGroup<'_, WallTime>, n: usize) {
    if n >= 50 {
        group.sample_size(10).sampling_mode(SamplingMode::Flat);
    } else if n >= 10 {
        group.sample_size(20).sampling_mode(SamplingMode::Auto);
    } else {
        group.sample_size(30).sampling_mode(SamplingMode::Auto);
    }
}

fn bench_scheme<C: Curve>(c: &mut Criterion) {
    let mut rng = ChaCha20Rng::seed_from_u64(0xabbe_0011);
    let mut group = c.benchmark_group(format!("waters11/{}", C::NAME));

    configure(&mut group, 1);
    group.bench_function("setup", |b| {
        b.iter(|| Waters11::<C>::setup(&Default::default(), &mut rng).unwrap())
    });
    let (pk, mk) = Waters11::<C>::setup(&Default::default(), &mut rng).unwrap();

    for n in SIZES {
        configure(&mut group, n);
        let policy = generate::flat_and(n).expect("flat AND policy");
        let set = AttributeSet::from_names(policy.attributes()).expect("attribute set");
        assert_eq!(set.len(), n);

        // Fixtures (this also builds the public key's fixed-base tables and
        // fills the attribute hash cache), checked for correctness.
        let key = Waters11::<C>::keygen(&pk, &mk, &set, &mut rng).expect("keygen");
        let (session, header) =
            Waters11::<C>::encapsulate(&pk, &policy, &mut rng).expect("encapsulate");
        assert_eq!(
            Waters11::<C>::decapsulate(&key, &header).expect("decapsulate"),
            session
        );
        let key_bytes = key.to_bytes();
        let (tk, rk) = Waters11::<C>::transform_key(&key, &mut rng);
        let transformed = Waters11::<C>::transform(&tk, &header).expect("transform");
        assert_eq!(
            Waters11::<C>::decrypt_transformed(&rk, &transformed).expect("final decryption"),
            session
        );

        group.bench_function(BenchmarkId::new("keygen", n), |b| {
            b.iter(|| Waters11::<C>::keygen(&pk, &mk, black_box(&set), &mut rng))
        });
        group.bench_function(BenchmarkId::new("keygen-cold", n), |b| {
            b.iter_batched(
                clear_attribute_hash_cache,
                |()| Waters11::<C>::keygen(&pk, &mk, black_box(&set), &mut rng),
                BatchSize::PerIteration,
            )
        });
        group.bench_function(BenchmarkId::new("encrypt", n), |b| {
            b.iter(|| Waters11::<C>::encapsulate(&pk, black_box(&policy), &mut rng))
        });
        group.bench_function(BenchmarkId::new("encrypt-cold", n), |b| {
            b.iter_batched(
                clear_attribute_hash_cache,
                |()| Waters11::<C>::encapsulate(&pk, black_box(&policy), &mut rng),
                BatchSize::PerIteration,
            )
        });
        group.bench_function(BenchmarkId::new("decrypt", n), |b| {
            b.iter(|| Waters11::<C>::decapsulate(black_box(&key), black_box(&header)))
        });
        group.bench_function(BenchmarkId::new("decrypt-fresh-key", n), |b| {
            b.iter_batched_ref(
                || UserKey::<C>::from_bytes(&key_bytes).expect("decode key"),
                |fresh| Waters11::<C>::decapsulate(black_box(&*fresh), black_box(&header)),
                BatchSize::PerIteration,
            )
        });
        group.bench_function(BenchmarkId::new("transform-key", n), |b| {
            b.iter(|| Waters11::<C>::transform_key(black_box(&key), &mut rng))
        });
        group.bench_function(BenchmarkId::new("transform", n), |b| {
            b.iter(|| Waters11::<C>::transform(black_box(&tk), black_box(&header)))
        });
        group.bench_function(BenchmarkId::new("final-decryption", n), |b| {
            b.iter(|| Waters11::<C>::decrypt_transformed(black_box(&rk), black_box(&transformed)))
        });

        // The pairing work of a decryption alone: N+2 pairs, G2 prepared.
        let g1s: Vec<C::G1> = (0..n + 2)
            .map(|_| C::G1::generator() * C::Scalar::random(&mut rng))
            .collect();
        let prepared: Vec<C::G2Prepared> = (0..n + 2)
            .map(|_| C::prepare(&(C::G2::generator() * C::Scalar::random(&mut rng))))
            .collect();
        let terms: Vec<(C::G1, &C::G2Prepared)> = g1s.iter().copied().zip(&prepared).collect();
        group.bench_function(BenchmarkId::new("lower-bound", n), |b| {
            b.iter(|| C::multi_pairing(black_box(terms.as_slice())))
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
    // Short defaults so the whole suite takes a few minutes; command-line
    // options (`--warm-up-time`, `--measurement-time`) override them.
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = bench_bls12, bench_bn254
}
criterion_main!(benches);
