use blstrs::*;
use ff::Field;
use group::{Curve, Group};
use std::time::Instant;
fn t<F: FnMut()>(name: &str, n: u32, mut f: F) {
    f();
    let s = Instant::now();
    for _ in 0..n {
        f();
    }
    println!("{name}: {:?}", s.elapsed() / n);
}
fn main() {
    let mut rng = rand::thread_rng();
    let s = Scalar::random(&mut rng);
    let p = G1Projective::random(&mut rng);
    let q = G2Projective::random(&mut rng);
    let (pa, qa) = (p.to_affine(), q.to_affine());
    t("g1 mul", 200, || {
        std::hint::black_box(p * s);
    });
    t("g2 mul", 200, || {
        std::hint::black_box(q * s);
    });
    t("hash g1", 200, || {
        std::hint::black_box(G1Projective::hash_to_curve(b"attr", b"dst", b""));
    });
    t("hash g2", 200, || {
        std::hint::black_box(G2Projective::hash_to_curve(b"attr", b"dst", b""));
    });
    t("pairing", 100, || {
        std::hint::black_box(pairing(&pa, &qa));
    });
    let gt = pairing(&pa, &qa);
    t("gt exp", 100, || {
        std::hint::black_box(gt * s);
    });
    t("g1 add", 10000, || {
        std::hint::black_box(p + p);
    });
    t("g2 add", 10000, || {
        std::hint::black_box(q + q);
    });
    let pts: Vec<_> = (0..100).map(|_| G1Projective::random(&mut rng)).collect();
    let scs: Vec<_> = (0..100).map(|_| Scalar::random(&mut rng)).collect();
    t("msm100 g1", 50, || {
        std::hint::black_box(G1Projective::multi_exp(&pts, &scs));
    });
    t("g2 compress+decompress", 200, || {
        std::hint::black_box(G2Affine::from_compressed(&qa.to_compressed()).unwrap());
    });
    t("g1 compress+decompress", 200, || {
        std::hint::black_box(G1Affine::from_compressed(&pa.to_compressed()).unwrap());
    });
}
