//! Benchmarks of the schemes whose decryption is a constant number of
//! pairings: FAME CP-ABE and KP-ABE (Agrawal–Chase 2017, 6 pairings) and
//! FABEO CP-ABE and KP-ABE (Riepel–Wee 2022, 3 and 2), per curve, in one
//! run.
//!
//! Criterion groups `fame-cp/<curve>`, `fame-kp/<curve>`,
//! `fabeo-cp/<curve>` and `fabeo-kp/<curve>`. For every
//! N ∈ {1, 10, 50, 100} the policy is the flat AND `A1 and … and AN` (in the
//! ciphertext for CP-ABE, in the key for KP-ABE) and the attribute set is
//! exactly `A1 … AN`; benchmark ids are `<operation>/<N>`:
//!
//! * `keygen/N`, `encrypt/N` — attribute/column hash cache warm (the steady
//!   state of a long-running process); `keygen-cold/N`, `encrypt-cold/N` —
//!   the cache is cleared before every iteration (outside the timed region),
//!   so the hashes to G1 are timed too.
//! * `decrypt/N` — the same key every iteration (its G2 lines cached after
//!   the first decryption; the ciphertext's G2 lines are computed every
//!   time).
//! * `lower-bound-6` (group `fame-lower-bound/<curve>`) — the shared
//!   multi-Miller loop over 6 pairs with prepared G2 plus one final
//!   exponentiation: the pairing work of every FAME decryption, whatever N.
//!
//! Run: `cargo bench -p abbe --bench fame` (FABEO alone: `-- fabeo`) (optionally `-- <regex>`, e.g.
//! `-- 'bls12-381/decrypt'`).

use abbe::abe::fabeo::{FabeoCp, FabeoKp};
use abbe::abe::{clear_attribute_hash_cache, FameCp, FameKp};
use abbe::curve::{Bls12, Bn254, Curve, Group, Scalar};
use abbe::policy::{generate, AttributeSet, Policy};
use abbe::Kem;
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

/// Benchmarks one KEM on flat ANDs; `sides(policy, set)` gives
/// (key side, ciphertext side).
fn bench_kem<K: Kem>(
    c: &mut Criterion,
    name: &str,
    sides: impl Fn(&Policy, &AttributeSet) -> (K::KeySide, K::CiphertextSide),
) {
    let mut rng = ChaCha20Rng::seed_from_u64(0xfa3e);
    let mut group = c.benchmark_group(name);
    let (pk, mk) = abbe::kem::setup::<K>(&Default::default(), &mut rng).unwrap();
    for n in SIZES {
        configure(&mut group, n);
        let policy = generate::flat_and(n).expect("flat AND policy");
        let set = AttributeSet::from_names(policy.attributes()).expect("attribute set");
        assert_eq!(set.len(), n);
        let (key_side, ct_side) = sides(&policy, &set);
        // Fixtures (also build the fixed-base tables and warm the cache).
        let key = abbe::kem::keygen::<K>(&pk, &mk, &key_side, &mut rng).expect("keygen");
        let (session, header) = K::encapsulate(&pk, &ct_side, &mut rng).expect("encapsulate");
        assert!(K::decapsulate(&key, &header).expect("decapsulate") == session);

        group.bench_function(BenchmarkId::new("keygen", n), |b| {
            b.iter(|| abbe::kem::keygen::<K>(&pk, &mk, black_box(&key_side), &mut rng))
        });
        group.bench_function(BenchmarkId::new("keygen-cold", n), |b| {
            b.iter_batched(
                clear_attribute_hash_cache,
                |()| abbe::kem::keygen::<K>(&pk, &mk, black_box(&key_side), &mut rng),
                BatchSize::PerIteration,
            )
        });
        group.bench_function(BenchmarkId::new("encrypt", n), |b| {
            b.iter(|| K::encapsulate(&pk, black_box(&ct_side), &mut rng))
        });
        group.bench_function(BenchmarkId::new("encrypt-cold", n), |b| {
            b.iter_batched(
                clear_attribute_hash_cache,
                |()| K::encapsulate(&pk, black_box(&ct_side), &mut rng),
                BatchSize::PerIteration,
            )
        });
        group.bench_function(BenchmarkId::new("decrypt", n), |b| {
            b.iter(|| K::decapsulate(black_box(&key), black_box(&header)))
        });
    }
    group.finish();
}

fn bench_lower_bound<C: Curve>(c: &mut Criterion) {
    let mut rng = ChaCha20Rng::seed_from_u64(0x6);
    let mut group = c.benchmark_group(format!("fame-lower-bound/{}", C::NAME));
    let g1s: Vec<C::G1> = (0..6)
        .map(|_| C::G1::generator() * C::Scalar::random(&mut rng))
        .collect();
    let prepared: Vec<C::G2Prepared> = (0..6)
        .map(|_| C::prepare(&(C::G2::generator() * C::Scalar::random(&mut rng))))
        .collect();
    let terms: Vec<(C::G1, &C::G2Prepared)> = g1s.iter().copied().zip(&prepared).collect();
    group.bench_function("lower-bound-6", |b| {
        b.iter(|| C::multi_pairing(black_box(terms.as_slice())))
    });
    let g2 = C::G2::generator() * C::Scalar::random(&mut rng);
    group.bench_function("prepare-g2", |b| b.iter(|| C::prepare(black_box(&g2))));
    group.finish();
}

fn curve<C: Curve>(c: &mut Criterion) {
    bench_lower_bound::<C>(c);
    bench_kem::<FameCp<C>>(c, &format!("fame-cp/{}", C::NAME), |p, s| {
        (s.clone(), p.clone())
    });
    bench_kem::<FameKp<C>>(c, &format!("fame-kp/{}", C::NAME), |p, s| {
        (p.clone(), s.clone())
    });
    bench_kem::<FabeoCp<C>>(c, &format!("fabeo-cp/{}", C::NAME), |p, s| {
        (s.clone(), p.clone())
    });
    bench_kem::<FabeoKp<C>>(c, &format!("fabeo-kp/{}", C::NAME), |p, s| {
        (p.clone(), s.clone())
    });
}

fn bench_bls12(c: &mut Criterion) {
    curve::<Bls12>(c);
}

fn bench_bn254(c: &mut Criterion) {
    curve::<Bn254>(c);
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = bench_bls12, bench_bn254
}
criterion_main!(benches);
