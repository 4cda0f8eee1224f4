//! The table of schemes: one row per scheme, and the only list of them.
//!
//! A row is `Variant = byte, "name", Family, registry(Type…), "what it is"`:
//!
//! * `byte` — the scheme id written in every object (docs/FORMAT.md);
//! * `"name"` — its name on the command line, in Python and in messages;
//! * `Family` — a [`crate::wire::Family`]: what its keys and ciphertexts
//!   are for;
//! * `registry(…)` — how [`crate::facade`] offers it: `pairing(T, O)` on the
//!   four pairing curves in both placements, `classic(T)` and `traced(T)`
//!   on BN254 and BLS12-381 in both placements (`traced`: with black-box
//!   tracing), `insecure(T)` like `classic` in builds with the
//!   `insecure-benchmark-only` feature, `p256(T)` on P-256 alone, `none()`
//!   when it is not a KEM; `T` is the scheme's type on the curve `C`, `O`
//!   its outsourcing (`Ghw11` or `Plain`);
//! * `"what it is"` — one line for `abbe schemes` and the docs.
//!
//! `schemes!` hands the rows to a macro. [`crate::wire::SchemeId`] (byte,
//! name, family) and the facade's registry are generated from them, and the
//! front ends and tests iterate `SchemeId::ALL` and the registry, so a scheme
//! cannot be known in one place and missing in another: a new scheme is its
//! file and a row here.
//!
//! The rows name types of the scheme families only as tokens: this module
//! imports nothing, and the wire layer that expands it ignores them.

/// Calls `$then! { rows }` with the table's rows (see the module docs).
macro_rules! schemes {
    ($then:ident) => {
        $then! {
            Waters11 = 1, "waters11", CpAbe, pairing(crate::abe::Waters11<C>, Ghw11),
                "Waters11 CP-ABE (LSSS policies) with GHW11 outsourced decryption";
            Bsw07 = 2, "bsw07", CpAbe, pairing(crate::abe::Bsw07<C>, Plain),
                "BSW07 CP-ABE (access trees)";
            Gpsw06 = 3, "gpsw06", KpAbe, pairing(crate::abe::Gpsw06<C>, Ghw11),
                "GPSW06 KP-ABE, large universe (random oracle), with GHW11 outsourcing";
            Gpsw06Small = 4, "gpsw06-small", KpAbe, pairing(crate::abe::Gpsw06Small<C>, Plain),
                "GPSW06 KP-ABE, small universe fixed at setup";
            FameCp = 5, "fame-cp", CpAbe, pairing(crate::abe::FameCp<C>, Plain),
                "FAME CP-ABE (Agrawal-Chase 2017), fast decryption";
            FameKp = 6, "fame-kp", KpAbe, pairing(crate::abe::FameKp<C>, Plain),
                "FAME KP-ABE (Agrawal-Chase 2017), fast decryption";
            Yct14 = 7, "yct14", KpAbe, insecure(crate::abe::yct14::InsecureYct14<C>),
                "YCT14 KP-ABE: BROKEN, to reproduce benchmarks only";
            FabeoCp = 8, "fabeo-cp", CpAbe, pairing(crate::abe::fabeo::FabeoCp<C>, Ghw11),
                "FABEO CP-ABE (Riepel-Wee 2022): 3 pairings to decrypt, GHW11 outsourcing";
            FabeoKp = 9, "fabeo-kp", KpAbe, pairing(crate::abe::fabeo::FabeoKp<C>, Ghw11),
                "FABEO KP-ABE (Riepel-Wee 2022): 2 pairings to decrypt, GHW11 outsourcing";
            Tkn20 = 10, "tkn20", CpAbe, pairing(crate::abe::Tkn20<C>, Plain),
                "TKN20 CP-ABE (Tomida-Kawahara-Nishimaki 2020): negation (x != v) as one row";
            Bgw05 = 16, "bgw05", Broadcast, classic(crate::bcast::Bgw05<C>),
                "Boneh-Gentry-Waters 2005 broadcast, section 3.1 (constant ciphertext)";
            Bgw05Sqrt = 17, "bgw05-sqrt", Broadcast, classic(crate::bcast::Bgw05Sqrt<C>),
                "Boneh-Gentry-Waters 2005 broadcast, section 3.2 (sqrt(N) public key)";
            Gw09 = 18, "gw09", Broadcast, classic(crate::bcast::Gw09<C>),
                "Gentry-Waters 2009 semi-static broadcast, section 3.1";
            Waters09 = 19, "waters09", Broadcast, classic(crate::bcast::Waters09<C>),
                "Waters 2009 dual-system broadcast (adaptively secure)";
            ElGamalP256 = 20, "elgamal-p256", Broadcast, p256(crate::bcast::ElGamalP256),
                "ElGamal on NIST P-256 with shared parameters: chhatrapati22's baseline";
            Gksw10Plbe = 21, "gksw10-plbe", Broadcast, traced(crate::bcast::Gksw10Plbe<C>),
                "GKSW private linear broadcast (ePrint 2009/532): traitor tracing";
            Gksw10AugBe = 22, "gksw10-augbe", Broadcast, traced(crate::bcast::Gksw10AugBe<C>),
                "GKSW augmented broadcast (CCS 2010): any set, publicly traceable";
            Gw09Ibbe = 23, "gw09-ibbe", IdentityBroadcast, classic(crate::bcast::Gw09Ibbe<C>),
                "Gentry-Waters 2009 identity-based broadcast, section 4.1 (adaptive)";
            Gw09IbbeSs = 24, "gw09-ibbe-ss", IdentityBroadcast, classic(crate::bcast::Gw09IbbeSs<C>),
                "Gentry-Waters 2009 identity-based broadcast, section 4.3.1 (semi-static)";
            Gw19Ibbe = 25, "gw19-ibbe", IdentityBroadcast, classic(crate::bcast::Gw19Ibbe<C>),
                "Ge-Wei 2019 identity-based broadcast (constant ciphertext)";
            Zha20Risky = 26, "zha20-risky", Broadcast, traced(crate::bcast::Zha20Risky<C>),
                "Zhandry 2020 risky broadcast-and-trace, section 9.3";
            Zha20 = 27, "zha20", Broadcast, traced(crate::bcast::Zha20<C>),
                "Zhandry 2020 broadcast-and-trace with user expansion and risk mitigation";
            BlsSig = 32, "bls-sig", Signature, none(),
                "BLS signatures, min-sig (draft-irtf-cfrg-bls-signature-05), for signed files";
        }
    };
}
pub(crate) use schemes;
