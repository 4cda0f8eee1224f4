//! `--cca`: what CCA security costs at decryption — each ABE scheme's CPA
//! decapsulation against its CCA one (`abbe::abe::Cca`, the
//! Fujisaki–Okamoto transform with its re-encryption check), on one key and
//! one header, on the flat-AND workload.
//!
//! The two are interleaved round by round and each is the minimum of its
//! rounds in process CPU time (single thread), so machine load moves
//! neither. "Cold" decapsulations start with an empty attribute-hash cache,
//! as a fresh `abbe decrypt` does; "warm" ones find the hashes of an earlier
//! decryption, as a long-running decryptor (a subscriber, a Python program)
//! does — the CCA check recomputes the header's attribute hashes.

use std::fmt::Write as _;

use abbe::abe::fabeo::{FabeoCp, FabeoKp};
use abbe::abe::yct14::InsecureYct14;
use abbe::abe::{Bsw07, Cca, FameCp, FameKp, Gpsw06, Gpsw06Small, Tkn20, Waters11};
use abbe::curve::{Bls12, Bn254};
use abbe::Kem;
use cpu_time::ProcessTime;
use rand_core::OsRng;

use crate::ours::FlatSide;

/// CPA decapsulation, CCA decapsulation cold and warm: ms of CPU time
/// (minimum of the rounds).
type RowFn = fn(usize, usize) -> [f64; 3];

fn row<K: Kem>(n: usize, rounds: usize) -> [f64; 3]
where
    K::KeySide: FlatSide,
    K::CiphertextSide: FlatSide,
{
    let (pk, mk) = abbe::kem::setup::<Cca<K>>(&Default::default(), &mut OsRng).unwrap();
    let key =
        abbe::kem::keygen::<Cca<K>>(&pk, &mk, &FlatSide::flat(n), &mut OsRng).expect("keygen");
    let (session, header) =
        Cca::<K>::encapsulate(&pk, &FlatSide::flat(n), &mut OsRng).expect("encapsulate");
    let timed = |cold: bool, f: &dyn Fn() -> bool| {
        if cold {
            abbe::abe::clear_attribute_hash_cache();
        }
        let t = ProcessTime::now();
        assert!(f(), "a decapsulation failed");
        t.elapsed().as_secs_f64() * 1e3
    };
    let cpa = || K::decapsulate(&key.key, &header.inner).is_ok();
    let cca = || Cca::<K>::decapsulate(&key, &header).is_ok_and(|k| k == session);
    let mut best = [f64::INFINITY; 3];
    for _ in 0..rounds.max(1) {
        best[0] = best[0].min(timed(true, &cpa));
        best[1] = best[1].min(timed(true, &cca));
        best[2] = best[2].min(timed(false, &cca));
    }
    best
}

macro_rules! rows {
    ($($name:literal => $k:ident),* $(,)?) => {
        [$(
            ($name, "BLS12-381", row::<$k<Bls12>> as RowFn),
            ($name, "BN254", row::<$k<Bn254>> as RowFn),
        )*]
    };
}

/// The table, one line per scheme and curve (`only` as for the peer tables).
pub fn table(n: usize, rounds: usize, only: Option<&str>) -> String {
    let rows: [(&str, &str, RowFn); 20] = rows![
        "Waters11" => Waters11, "Bsw07" => Bsw07, "Gpsw06" => Gpsw06,
        "Gpsw06Small" => Gpsw06Small, "FameCp" => FameCp, "FameKp" => FameKp,
        "FabeoCp" => FabeoCp, "FabeoKp" => FabeoKp, "Tkn20" => Tkn20,
        "Yct14 (insecure)" => InsecureYct14,
    ];
    let mut out = format!(
        "CPA vs CCA decapsulation, flat AND of N = {n}, ms of process CPU time (min of {rounds} interleaved rounds, 1 thread)\n\n\
         | scheme | curve | CPA decrypt | CCA decrypt, cold | CCA / CPA | CCA decrypt, warm | CCA / CPA |\n|---|---|---:|---:|---:|---:|---:|\n"
    );
    for (name, curve, f) in rows {
        if only.is_some_and(|o| !crate::matches_only(name, o)) {
            continue;
        }
        let [cpa, cold, warm] = f(n, rounds);
        eprintln!("  {name:<18} {curve:<9} {cpa:>9.2} {cold:>9.2} {warm:>9.2} ms");
        let _ = writeln!(
            out,
            "| {name} | {curve} | {cpa:.2} | {cold:.2} | {:.2} | {warm:.2} | {:.2} |",
            cold / cpa,
            warm / cpa
        );
    }
    out
}
