//! Benchmarks of BSW07 CP-ABE, per curve.
//!
//! Group `bsw07/<curve name>`: for every N ∈ {1, 10, 50, 100} the policy is
//! the flat AND `A1 and … and AN` and the key holds exactly `A1 … AN`;
//! benchmark ids are `<operation>/<N>`:
//!
//! * `setup` (once per curve).
//! * `keygen/N`, `encrypt/N` — attribute hash cache warm; `encrypt-cold/N` —
//!   the cache is cleared before every iteration (outside the timed region),
//!   so the N hashes to G1 are timed.
//! * `decrypt/N` — the same key for every iteration (its N+1 G2 lines cached
//!   after the first use; the N ciphertext C_y are prepared in every
//!   decryption); `decrypt-fresh-key/N` — a freshly decoded key per
//!   iteration, so its line precomputation is timed too.
//! * `lower-bound/N` — the shared multi-Miller loop over 2N+1 random pairs
//!   with prepared G2 plus one final exponentiation (the pairing work of a
//!   decryption); `lower-bound+ct-lines/N` — the same plus the N G2 line
//!   precomputations that the ciphertext's C_y ∈ G2 make unavoidable.
//!
//! Group `bsw07-shape/<curve name>` (perazzo Figs. 6–7): encryption of the
//! flat AND and of `generate::three_level(n)` for n ∈ {10, 20, 30, 40, 50}
//! (`encrypt-flat/n`, `encrypt-3level/n`), and the secret sharing alone
//! (`shares-flat/n`, `shares-3level/n`: random polynomials + Horner
//! evaluation, no group operation), to show whether encryption is linear in n
//! for both shapes.
//!
//! Run: `cargo bench -p abbe --bench bsw07` (optionally `-- <regex>`, e.g.
//! `-- 'bsw07/bls12-381/(decrypt|lower-bound)/100$'` or `-- 'shape/bls12'`).

use abbe::abe::bsw07::UserKey;
use abbe::abe::clear_attribute_hash_cache;
use abbe::abe::Bsw07;
use abbe::curve::{Bls12, Bn254, Curve, Group, Scalar};
use abbe::kem::Authority;
use abbe::policy::sharing::tree_shares;
use abbe::policy::{generate, AttributeSet};
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
const SHAPE_SIZES: [usize; 5] = [10, 20, 30, 40, 50];

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
    let mut rng = ChaCha20Rng::seed_from_u64(0xabbe_0007);
    let mut group = c.benchmark_group(format!("bsw07/{}", C::NAME));

    configure(&mut group, 1);
    group.bench_function("setup", |b| {
        b.iter(|| Bsw07::<C>::setup(&Default::default(), &mut rng).unwrap())
    });
    let (pk, mk) = Bsw07::<C>::setup(&Default::default(), &mut rng).unwrap();

    for n in SIZES {
        configure(&mut group, n);
        let policy = generate::flat_and(n).expect("flat AND policy");
        let set = AttributeSet::from_names(policy.attributes()).expect("attribute set");
        let key = Bsw07::<C>::keygen(&pk, &mk, &set, &mut rng).expect("keygen");
        let (session, header) =
            Bsw07::<C>::encapsulate(&pk, &policy, &mut rng).expect("encapsulate");
        assert_eq!(
            Bsw07::<C>::decapsulate(&key, &header).expect("decapsulate"),
            session
        );
        let key_bytes = key.to_bytes();

        group.bench_function(BenchmarkId::new("keygen", n), |b| {
            b.iter(|| Bsw07::<C>::keygen(&pk, &mk, black_box(&set), &mut rng))
        });
        group.bench_function(BenchmarkId::new("encrypt", n), |b| {
            b.iter(|| Bsw07::<C>::encapsulate(&pk, black_box(&policy), &mut rng))
        });
        group.bench_function(BenchmarkId::new("encrypt-cold", n), |b| {
            b.iter_batched(
                clear_attribute_hash_cache,
                |()| Bsw07::<C>::encapsulate(&pk, black_box(&policy), &mut rng),
                BatchSize::PerIteration,
            )
        });
        group.bench_function(BenchmarkId::new("decrypt", n), |b| {
            b.iter(|| Bsw07::<C>::decapsulate(black_box(&key), black_box(&header)))
        });
        group.bench_function(BenchmarkId::new("decrypt-fresh-key", n), |b| {
            b.iter_batched_ref(
                || UserKey::<C>::from_bytes(&key_bytes).expect("decode key"),
                |fresh| Bsw07::<C>::decapsulate(black_box(&*fresh), black_box(&header)),
                BatchSize::PerIteration,
            )
        });

        // The pairing work of a decryption alone: 2N+1 pairs, G2 prepared.
        let pairs = 2 * n + 1;
        let g1s: Vec<C::G1> = (0..pairs)
            .map(|_| C::G1::generator() * C::Scalar::random(&mut rng))
            .collect();
        let g2s: Vec<C::G2> = (0..pairs)
            .map(|_| C::G2::generator() * C::Scalar::random(&mut rng))
            .collect();
        let prepared: Vec<C::G2Prepared> = g2s.iter().map(C::prepare).collect();
        let terms: Vec<(C::G1, &C::G2Prepared)> = g1s.iter().copied().zip(&prepared).collect();
        group.bench_function(BenchmarkId::new("lower-bound", n), |b| {
            b.iter(|| C::multi_pairing(black_box(terms.as_slice())))
        });
        // Plus the N ciphertext lines (computed serially here).
        group.bench_function(BenchmarkId::new("lower-bound+ct-lines", n), |b| {
            b.iter(|| {
                let fresh: Vec<C::G2Prepared> = g2s[..n].iter().map(C::prepare).collect();
                let mut t: Vec<(C::G1, &C::G2Prepared)> = Vec::with_capacity(pairs);
                t.extend(g1s[..n].iter().copied().zip(&fresh));
                t.extend(g1s[n..].iter().copied().zip(&prepared[n..]));
                C::multi_pairing(black_box(t.as_slice()))
            })
        });
    }
    group.finish();
}

fn bench_shape<C: Curve>(c: &mut Criterion) {
    let mut rng = ChaCha20Rng::seed_from_u64(0xabbe_0607);
    let mut group = c.benchmark_group(format!("bsw07-shape/{}", C::NAME));
    let (pk, _mk) = Bsw07::<C>::setup(&Default::default(), &mut rng).unwrap();
    for n in SHAPE_SIZES {
        configure(&mut group, n);
        for (label, policy) in [
            ("flat", generate::flat_and(n).expect("flat")),
            ("3level", generate::three_level(n).expect("three level")),
        ] {
            // Warm the tables and the hash cache.
            let _ = Bsw07::<C>::encapsulate(&pk, &policy, &mut rng).expect("encapsulate");
            let tree = policy.to_tree().expect("tree");
            group.bench_function(BenchmarkId::new(format!("encrypt-{label}"), n), |b| {
                b.iter(|| Bsw07::<C>::encapsulate(&pk, black_box(&policy), &mut rng))
            });
            group.bench_function(BenchmarkId::new(format!("shares-{label}"), n), |b| {
                b.iter(|| {
                    let s = C::Scalar::random(&mut rng);
                    tree_shares(black_box(&tree), s, || C::Scalar::random(&mut rng))
                })
            });
        }
    }
    group.finish();
}

fn bench_bls12(c: &mut Criterion) {
    bench_scheme::<Bls12>(c);
    bench_shape::<Bls12>(c);
}

fn bench_bn254(c: &mut Criterion) {
    bench_scheme::<Bn254>(c);
    bench_shape::<Bn254>(c);
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = bench_bls12, bench_bn254
}
criterion_main!(benches);
