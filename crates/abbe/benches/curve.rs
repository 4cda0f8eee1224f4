//! Benchmarks of the curve layer, run for every backend.
//!
//! One criterion group per curve, `curve/<curve name>`, e.g.
//! `curve/bls12-381/pairing` or `curve/bn254/multi-pairing/10/shared-lines`.
//!
//! * `pairing` — one full pairing (including the G2 line precomputation).
//! * `miller-loop/1` — one Miller loop over an already prepared G2 point.
//! * `final-exp` — one final exponentiation.
//! * `prepare-g2` — G2 line precomputation ([`Curve::prepare`]).
//! * `g1-mul`, `g2-mul` — variable-base scalar multiplication.
//! * `g1-mul-fixed`, `g2-mul-fixed` — fixed-base multiplication through a
//!   precomputed table; `g1-table`, `g2-table` — building that table.
//! * `gt-pow` — GT exponentiation ([`Target::pow`]).
//! * `hash-to-g1`, `hash-to-g2` — hash to the curve (cycling over 64
//!   attribute-like messages, so BN254's try-and-increment is averaged).
//! * `g1-msm/100` — multi-scalar multiplication of 100 G1 points.
//! * `g1-decompress`, `g2-decompress` — strict point decoding
//!   ([`Group::from_compressed`], with the subgroup check).
//! * `multi-miller-loop/{10,100}/shared-lines` — our shared multi-Miller loop
//!   over prepared G2 points (as keys hold them), without final exponentiation.
//! * `multi-pairing/10/shared-lines` — the same plus one final exponentiation.
//! * `lower-bound/100` — the shared loop over 100 prepared pairs plus one
//!   final exponentiation: the bound Waters11 decryption is compared to.
//! * BLS12-381 only: `multi-miller-loop/{10,100}/blst-miller-loop-n` and
//!   `multi-pairing/{10,100}/blst-miller-loop-n` — the same pairs through
//!   blst's own shared loop, which recomputes the lines
//!   ([`abbe::curve::bls12_381::reference_miller_loop_n`]), without and with
//!   the final exponentiation.
//!
//! BLS24-479 and BLS48-581 (`curve/bls24-479/…`, `curve/bls48-581/…`) skip
//! `g1-msm/100` and the 100-pair runs (a BLS48 pairing is ~40 ms).
//!
//! Run: `cargo bench -p abbe --bench curve` (optionally followed by
//! `-- <regex filter>`, e.g. `-- bls12-381/multi`).

use abbe::curve::{bls12_381, Bls12, Bls24, Bls48, Bn254, Curve, Group, Scalar, Target};
use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::hint::black_box;
use std::time::Duration;

/// A shared multi-Miller loop that takes unprepared G2 points.
type ReferenceLoop<C> = fn(&[(<C as Curve>::G1, <C as Curve>::G2)]) -> <C as Curve>::MillerOutput;

/// Per-backend extras of the benchmarks.
trait BenchCurve: Curve {
    /// The backend's own shared multi-Miller loop (recomputing lines), if
    /// there is one to compare against.
    const REFERENCE_LOOP: Option<ReferenceLoop<Self>>;
}

impl BenchCurve for Bls12 {
    const REFERENCE_LOOP: Option<ReferenceLoop<Self>> = Some(bls12_381::reference_miller_loop_n);
}

impl BenchCurve for Bn254 {
    const REFERENCE_LOOP: Option<ReferenceLoop<Self>> = None;
}

impl BenchCurve for Bls24 {
    const REFERENCE_LOOP: Option<ReferenceLoop<Self>> = None;
}

impl BenchCurve for Bls48 {
    const REFERENCE_LOOP: Option<ReferenceLoop<Self>> = None;
}

fn rng() -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(0xabbe_c0de)
}

fn random_g1<C: Curve>(rng: &mut ChaCha20Rng) -> C::G1 {
    C::G1::generator() * C::Scalar::random(rng)
}

fn random_g2<C: Curve>(rng: &mut ChaCha20Rng) -> C::G2 {
    C::G2::generator() * C::Scalar::random(rng)
}

/// Multi-pairing benchmarks over `n` random pairs. `pairing_id` names the
/// shared loop + final exponentiation benchmark.
fn bench_pairs<C: BenchCurve>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    rng: &mut ChaCha20Rng,
    n: usize,
    pairing_id: &str,
) {
    let g1s: Vec<C::G1> = (0..n).map(|_| random_g1::<C>(rng)).collect();
    let g2s: Vec<C::G2> = (0..n).map(|_| random_g2::<C>(rng)).collect();
    let prepared: Vec<C::G2Prepared> = g2s.iter().map(C::prepare).collect();
    let terms: Vec<(C::G1, &C::G2Prepared)> = g1s.iter().copied().zip(&prepared).collect();
    let pairs: Vec<(C::G1, C::G2)> = g1s.iter().copied().zip(g2s.iter().copied()).collect();
    if let Some(reference) = C::REFERENCE_LOOP {
        assert_eq!(
            C::multi_pairing(&terms),
            C::final_exponentiation(&reference(&pairs)),
            "shared loop and reference loop disagree"
        );
    }

    group.bench_function(format!("multi-miller-loop/{n}/shared-lines"), |b| {
        b.iter(|| C::multi_miller_loop(black_box(terms.as_slice())))
    });
    group.bench_function(pairing_id, |b| {
        b.iter(|| C::multi_pairing(black_box(terms.as_slice())))
    });
    if let Some(reference) = C::REFERENCE_LOOP {
        group.bench_function(format!("multi-miller-loop/{n}/blst-miller-loop-n"), |b| {
            b.iter(|| reference(black_box(pairs.as_slice())))
        });
        group.bench_function(format!("multi-pairing/{n}/blst-miller-loop-n"), |b| {
            b.iter(|| C::final_exponentiation(&reference(black_box(pairs.as_slice()))))
        });
    }
}

/// `full = false` (the slow BLS24/BLS48 curves) skips the 100-point MSM and
/// the 100-pair multi-pairing.
fn bench_curve<C: BenchCurve>(c: &mut Criterion, full: bool) {
    let mut rng = rng();
    let mut group = c.benchmark_group(format!("curve/{}", C::NAME));

    let p = random_g1::<C>(&mut rng);
    let q = random_g2::<C>(&mut rng);
    let s = C::Scalar::random(&mut rng);
    let q_prepared = C::prepare(&q);

    // Pairings.
    group.bench_function("pairing", |b| {
        b.iter(|| C::pairing(black_box(&p), black_box(&q)))
    });
    group.bench_function("miller-loop/1", |b| {
        b.iter(|| C::multi_miller_loop(&[(black_box(p), black_box(&q_prepared))]))
    });
    let f = C::multi_miller_loop(&[(p, &q_prepared)]);
    group.bench_function("final-exp", |b| {
        b.iter(|| C::final_exponentiation(black_box(&f)))
    });
    group.bench_function("prepare-g2", |b| b.iter(|| C::prepare(black_box(&q))));

    // Scalar multiplication.
    group.bench_function("g1-mul", |b| b.iter(|| black_box(p) * black_box(s)));
    group.bench_function("g2-mul", |b| b.iter(|| black_box(q) * black_box(s)));
    let p_table = p.precompute();
    let q_table = q.precompute();
    assert_eq!(C::G1::mul_fixed(&p_table, &s), p * s);
    assert_eq!(C::G2::mul_fixed(&q_table, &s), q * s);
    group.bench_function("g1-mul-fixed", |b| {
        b.iter(|| C::G1::mul_fixed(black_box(&p_table), black_box(&s)))
    });
    group.bench_function("g2-mul-fixed", |b| {
        b.iter(|| C::G2::mul_fixed(black_box(&q_table), black_box(&s)))
    });
    group.bench_function("g1-table", |b| b.iter(|| black_box(p).precompute()));
    group.bench_function("g2-table", |b| b.iter(|| black_box(q).precompute()));

    // GT exponentiation.
    let gt = C::pairing(&p, &q);
    group.bench_function("gt-pow", |b| b.iter(|| black_box(gt).pow(black_box(&s))));

    // Hash to curve, over several messages (BN254's try-and-increment takes
    // a message-dependent number of tries).
    let dst = format!("ABBE-BENCH-H-{}", C::NAME).into_bytes();
    let messages: Vec<Vec<u8>> = (1..=64).map(|i| format!("A{i}").into_bytes()).collect();
    group.bench_function("hash-to-g1", |b| {
        let mut next = messages.iter().cycle();
        b.iter(|| C::G1::hash_to_curve(black_box(next.next().unwrap_or(&messages[0])), &dst))
    });
    group.bench_function("hash-to-g2", |b| {
        let mut next = messages.iter().cycle();
        b.iter(|| C::G2::hash_to_curve(black_box(next.next().unwrap_or(&messages[0])), &dst))
    });

    // MSM of 100 G1 points.
    if full {
        let points: Vec<C::G1> = (0..100).map(|_| random_g1::<C>(&mut rng)).collect();
        let scalars: Vec<C::Scalar> = (0..100).map(|_| C::Scalar::random(&mut rng)).collect();
        group.bench_function("g1-msm/100", |b| {
            b.iter(|| C::G1::msm(black_box(points.as_slice()), black_box(scalars.as_slice())))
        });
    }

    // Strict decoding.
    let p_bytes = p.to_compressed();
    let q_bytes = q.to_compressed();
    group.bench_function("g1-decompress", |b| {
        b.iter(|| C::G1::from_compressed(black_box(p_bytes.as_slice())))
    });
    group.bench_function("g2-decompress", |b| {
        b.iter(|| C::G2::from_compressed(black_box(q_bytes.as_slice())))
    });

    // Multi-pairings: 10 pairs, then 100 pairs with fewer samples.
    bench_pairs::<C>(&mut group, &mut rng, 10, "multi-pairing/10/shared-lines");
    if full {
        group.sample_size(10);
        bench_pairs::<C>(&mut group, &mut rng, 100, "lower-bound/100");
    }

    group.finish();
}

fn bench_bls12(c: &mut Criterion) {
    bench_curve::<Bls12>(c, true);
}

fn bench_bn254(c: &mut Criterion) {
    bench_curve::<Bn254>(c, true);
}

fn bench_bls24(c: &mut Criterion) {
    bench_curve::<Bls24>(c, false);
}

fn bench_bls48(c: &mut Criterion) {
    bench_curve::<Bls48>(c, false);
}

criterion_group! {
    name = benches;
    // Defaults for this suite; command-line options override them.
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = bench_bls12, bench_bn254, bench_bls24, bench_bls48
}
criterion_main!(benches);
