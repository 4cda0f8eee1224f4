//! Envelope throughput at every security level: a 100 MB file with a
//! 4-attribute AND policy (detabe Figs. 4/5), unsigned and signed, from
//! memory to memory (no disk), median of 7 runs.
//!
//! `cargo run --release -p abbe --example envelope_speed [MB]`

use abbe::abe::Waters11;
use abbe::curve::{Bls12, Bls24, Bls48, Bn254, Curve};
use abbe::envelope::{self, SealOptions};
use abbe::kem::Authority;
use abbe::kem::Kem;
use abbe::policy::Policy;
use abbe::signature::{AnySigningKey, Bls};
use rand_core::OsRng;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn level<C: Curve>(data: &[u8]) {
    let (pk, _mk) = Waters11::<C>::setup(&Default::default(), &mut OsRng).unwrap();
    let policy = Policy::parse("a and b and c and d").unwrap();
    let signer = AnySigningKey::from_bytes(&Bls::<C>::keygen(&mut OsRng).to_bytes()).unwrap();
    let mut out = Vec::with_capacity(data.len() + data.len() / 1000 + 4096);
    let mut run = |signed: bool| {
        median(
            (0..7)
                .map(|_| {
                    out.clear();
                    let t = Instant::now();
                    let (k, h) = Waters11::<C>::encapsulate(&pk, &policy, &mut OsRng).unwrap();
                    let opts = SealOptions {
                        aead: None,
                        signer: signed.then_some(&signer),
                    };
                    envelope::seal_with(&h.to_bytes(), &k, &mut OsRng, data, &mut out, &opts)
                        .unwrap();
                    t.elapsed().as_secs_f64()
                })
                .collect(),
        )
    };
    let plain = run(false);
    let signed = run(true);
    println!(
        "level {:>3} {:<10} {:>8.1} ms unsigned {:>8.1} ms signed  overhead {:>5.1} %",
        C::ID.level(),
        C::NAME,
        plain * 1e3,
        signed * 1e3,
        (signed / plain - 1.0) * 100.0
    );
}

fn main() {
    let mb: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100);
    let data = vec![0x5au8; mb * 1_000_000];
    level::<Bn254>(&data);
    level::<Bls12>(&data);
    level::<Bls24>(&data);
    level::<Bls48>(&data);
}
