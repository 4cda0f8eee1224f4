//! CCA (Fujisaki–Okamoto) and RCCA (GHW11) modes at N = 10 and 100, flat AND,
//! BLS12-381: encrypt, decrypt, and RCCA's final outsourced decryption.
//!
//! `cargo bench -p abbe --bench modes`

use abbe::abe::{Cca, Gpsw06, Rcca, Waters11};
use abbe::curve::Bls12;
use abbe::kem::{Kem, Outsourcing};
use abbe::policy::{generate, AttributeSet, Policy};
use criterion::{criterion_group, criterion_main, Criterion};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::time::Duration;

fn cp_sides(n: usize) -> (AttributeSet, Policy) {
    let policy = generate::flat_and(n).unwrap();
    (
        AttributeSet::from_names(policy.attributes()).unwrap(),
        policy,
    )
}

fn bench_mode<K: Kem>(
    c: &mut Criterion,
    name: &str,
    n: usize,
    key_side: K::KeySide,
    ct_side: K::CiphertextSide,
) {
    let mut rng = ChaCha20Rng::seed_from_u64(n as u64);
    let (pk, mk) = abbe::kem::setup::<K>(&Default::default(), &mut rng).unwrap();
    let key = abbe::kem::keygen::<K>(&pk, &mk, &key_side, &mut rng).unwrap();
    let (session, header) = K::encapsulate(&pk, &ct_side, &mut rng).unwrap();
    assert_eq!(K::decapsulate(&key, &header).unwrap(), session);
    let mut g = c.benchmark_group(format!("modes/{name}"));
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    g.bench_function(format!("encrypt/{n}"), |b| {
        b.iter(|| K::encapsulate(&pk, &ct_side, &mut rng).unwrap())
    });
    g.bench_function(format!("decrypt/{n}"), |b| {
        b.iter(|| K::decapsulate(&key, &header).unwrap())
    });
    g.finish();
}

fn bench_rcca_final<K: abbe::abe::ghw11::Scheme>(
    c: &mut Criterion,
    name: &str,
    key_side: K::KeySide,
    ct_side: K::CiphertextSide,
) {
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let (pk, mk) = abbe::kem::setup::<Rcca<K>>(&Default::default(), &mut rng).unwrap();
    let key = abbe::kem::keygen::<Rcca<K>>(&pk, &mk, &key_side, &mut rng).unwrap();
    let (session, header) = Rcca::<K>::encapsulate(&pk, &ct_side, &mut rng).unwrap();
    let (tk, rk) = Rcca::<K>::transform_key(&key, &mut rng);
    let t = Rcca::<K>::transform(&tk, &header).unwrap();
    assert_eq!(Rcca::<K>::decrypt_transformed(&rk, &t).unwrap(), session);
    c.bench_function(&format!("modes/{name}/final-decryption"), |b| {
        b.iter(|| Rcca::<K>::decrypt_transformed(&rk, &t).unwrap())
    });
}

fn modes(c: &mut Criterion) {
    for n in [10, 100] {
        let (attrs, policy) = cp_sides(n);
        bench_mode::<Cca<Waters11<Bls12>>>(c, "waters11-cca", n, attrs.clone(), policy.clone());
        bench_mode::<Rcca<Waters11<Bls12>>>(c, "waters11-rcca", n, attrs.clone(), policy.clone());
        bench_mode::<Cca<Gpsw06<Bls12>>>(c, "gpsw06-cca", n, policy.clone(), attrs.clone());
        bench_mode::<Rcca<Gpsw06<Bls12>>>(c, "gpsw06-rcca", n, policy, attrs);
    }
    let (attrs, policy) = cp_sides(10);
    bench_rcca_final::<Waters11<Bls12>>(c, "waters11-rcca", attrs.clone(), policy.clone());
    bench_rcca_final::<Gpsw06<Bls12>>(c, "gpsw06-rcca", policy, attrs);
}

criterion_group!(benches, modes);
criterion_main!(benches);
