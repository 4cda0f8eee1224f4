//! Criterion benches of the broadcast schemes on BN254 (the paper's curve)
//! at N = 1000, |S| = 100: encrypt and decrypt, plus the Waters09 lower
//! bound (8-pair shared Miller loop + final exponentiation). The full
//! Tables 1 and 3–10 sweep is the lab: `abbe lab --only chhatrapati22` (`--profile full` for N up to 10^6).

use abbe::bcast::Users;
use abbe::bcast::{Bgw05, Bgw05Sqrt, ElGamalP256, Gw09, Recipients, UserIndex, Waters09};
use abbe::curve::{Bn254, Curve, Group, Scalar};
use abbe::kem::{self, Authority, Kem};
use criterion::{criterion_group, criterion_main, Criterion};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;

type C = Bn254;
const N: u32 = 1000;

fn bench_scheme<K: Kem<KeySide = UserIndex, CiphertextSide = Recipients>>(
    c: &mut Criterion,
    name: &str,
) where
    K::Authority: Authority<Params = Users>,
{
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let (pk, mk) = kem::setup::<K>(&Users(N), &mut rng).unwrap();
    let set = Recipients::from_indices((1..=N).step_by(10)).unwrap();
    let key = kem::keygen::<K>(&pk, &mk, &UserIndex(1), &mut rng).unwrap();
    let (_, header) = K::encapsulate(&pk, &set, &mut rng).unwrap();
    c.bench_function(&format!("{name}/encrypt N=1000 S=100"), |b| {
        b.iter(|| K::encapsulate(&pk, &set, &mut rng).unwrap())
    });
    c.bench_function(&format!("{name}/decrypt N=1000 S=100"), |b| {
        b.iter(|| K::decapsulate(&key, &header).unwrap())
    });
}

fn benches(c: &mut Criterion) {
    bench_scheme::<Bgw05<C>>(c, "bgw05");
    bench_scheme::<Bgw05Sqrt<C>>(c, "bgw05-sqrt");
    bench_scheme::<Gw09<C>>(c, "gw09");
    bench_scheme::<Waters09<C>>(c, "waters09");
    bench_scheme::<ElGamalP256>(c, "elgamal-p256");
    let g1: Vec<<C as Curve>::G1> = (0..8u64)
        .map(|k| <C as Curve>::G1::generator() * <C as Curve>::Scalar::from_u64(k + 3))
        .collect();
    let prepared: Vec<_> = (0..8u64)
        .map(|k| {
            C::prepare(&(<C as Curve>::G2::generator() * <C as Curve>::Scalar::from_u64(k + 5)))
        })
        .collect();
    let terms: Vec<_> = g1.iter().copied().zip(prepared.iter()).collect();
    c.bench_function("waters09/lower bound: 8 prepared pairs + final exp", |b| {
        b.iter(|| C::multi_pairing(&terms))
    });
}

criterion_group! {
    name = group;
    config = Criterion::default().sample_size(10);
    targets = benches
}
criterion_main!(group);
