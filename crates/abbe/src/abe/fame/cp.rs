//! FAME CP-ABE (Agrawal–Chase) in KEM form. What it shares with FAME-KP
//! (setup, public and master keys, the hash, its placement, the decryption
//! multi-pairing) is in [`super`].
//!
//! Paper: S. Agrawal and M. Chase, "FAME: Fast Attribute-based Message
//! Encryption", ACM CCS 2017 (ePrint 2017/807), §4 ("CP-ABE", the scheme of
//! Figure 1, under the decisional linear assumption in the random-oracle
//! model; k = 2). KEM form: the ciphertext carries no
//! ct' = T_1^{s_1}·T_2^{s_2}·M; the session key is derived from
//! T_1^{s_1}·T_2^{s_2} ∈ GT.
//!
//! Notation (the paper's): groups G, H, GT with generators g, h;
//! e: G × H → GT; random oracle H: {0,1}* → G; MSP (M, π) of n_1 rows and
//! n_2 columns (ours: [`Lsss`], column 0 ↔ the paper's j = 1); l ∈ {1,2,3},
//! t ∈ {1,2}.
//!
//! ```text
//! Setup:   a_1, a_2, b_1, b_2, d_1, d_2, d_3 ←R Z_p
//!          pk  = (h, H_1 = h^{a_1}, H_2 = h^{a_2},
//!                 T_1 = e(g,h)^{d_1 a_1 + d_3}, T_2 = e(g,h)^{d_2 a_2 + d_3})
//!          msk = (g, h, a_1, a_2, b_1, b_2, g^{d_1}, g^{d_2}, g^{d_3})
//! KeyGen S: r_1, r_2, σ', σ_y (y ∈ S) ←R Z_p
//!          sk_0 = (h^{b_1 r_1}, h^{b_2 r_2}, h^{r_1+r_2})
//!          sk_{y,t} = H(y1t)^{b_1r_1/a_t} · H(y2t)^{b_2r_2/a_t} · H(y3t)^{(r_1+r_2)/a_t} · g^{σ_y/a_t}
//!          sk_{y,3} = g^{-σ_y}
//!          sk'_t = g^{d_t} · H(011t)^{b_1r_1/a_t} · H(012t)^{b_2r_2/a_t} · H(013t)^{(r_1+r_2)/a_t} · g^{σ'/a_t}
//!          sk'_3 = g^{d_3} · g^{-σ'}
//! Encrypt (M, π): s_1, s_2 ←R Z_p
//!          ct_0 = (H_1^{s_1}, H_2^{s_2}, h^{s_1+s_2})
//!          ct_{i,l} = H(π(i)l1)^{s_1} · H(π(i)l2)^{s_2} · Π_j [H(0jl1)^{s_1} · H(0jl2)^{s_2}]^{M_{i,j}}
//!          session key from T_1^{s_1} · T_2^{s_2}
//! Decrypt: γ_i with Σ_{i∈I} γ_i M_i = (1, 0, …, 0):
//!          A_l = Π_{i∈I} ct_{i,l}^{γ_i},  B_t = sk'_t · Π_{i∈I} sk_{π(i),t}^{γ_i}
//!          T_1^{s_1}T_2^{s_2} = Π_{t=1..3} e(B_t, ct_{0,t}) · Π_{l=1..3} e(A_l^{-1}, sk_{0,l})
//! ```
//!
//! Two implementation choices that keep the output identical to the paper's:
//! the master key stores d_1, d_2, d_3 instead of g^{d_t}, so every
//! g-power of a key element (d_t, σ/a_t, …) is one fixed-base
//! exponentiation of g; and encryption factors s_1, s_2 out of each row,
//! ct_{i,l} = (H(π(i)l1) · Π_j H(0jl1)^{M_ij})^{s_1} · (H(π(i)l2) · Π_j H(0jl2)^{M_ij})^{s_2},
//! so a row costs a combination over its nonzero M_ij (additions for the
//! ±1 entries of AND/OR rows) and one 2-term MSM per l.
//!
//! Speed against the 6-pair lower bound: `cargo bench -p abbe --bench fame`
//! and the lab.
//!
//! ## Operation counts
//! Checked against the formula (and the paper's table where it has one)
//! by `op_counts_*` in the tests below, on `Counted` curves.

use crate::curve::{lincomb, par_map, wipe, Curve, Group, Scalar};
use crate::kem::exps::Base::Point;
use crate::kem::{issuable, same_setup, Authority, Exps, Kem, KemError, SessionKey};
use crate::policy::{AttributeSet, Lsss, Policy, PolicyTree};
use crate::wire::codec::{names_match, object, rows_match};
use crate::wire::{SchemeId, Secret};
use rand_core::{CryptoRng, RngCore};
use std::collections::BTreeMap;
use std::marker::PhantomData;
use std::sync::OnceLock;

use super::{
    by_t, decrypt6, gather, k_over_a, key_triple, lt, prepare3, wipe_scalars, Cp, FameMasterKey,
    FamePublicKey,
};

// ---------------------------------------------------------------------------
// FAME CP-ABE
// ---------------------------------------------------------------------------

/// The scheme, generic over the curve.
#[derive(Clone, Copy, Debug, Default)]
pub struct FameCp<C>(PhantomData<C>);

pub type PublicKey<C> = FamePublicKey<C, Cp>;
pub type MasterKey<C> = FameMasterKey<C, Cp>;

object! {
    /// A user key for an attribute set: sk_0 ∈ G2³ (lines cached on first
    /// use), sk' ∈ G1³ and sk_y ∈ G1³ per (expanded) attribute y; wiped on
    /// drop.
    pub struct UserKey<C> = (SchemeUserKey, SchemeId::FameCp), bound {
        set: AttributeSet => "attribute list",
        sk0: Secret<[C::G2; 3]> => "sk_0",
        sk_prime: Secret<[C::G1; 3]> => "sk'",
        sky: Secret<BTreeMap<String, [C::G1; 3]>> => "sk_y",
    }
    cached { sk0_lines: OnceLock<[C::G2Prepared; 3]> }
    check "the sk_y are named by the expansion of the attribute list, in order" =>
        |k| names_match("key", &k.set, k.sky.keys());
    made_for AttributeSet = |key| key.set.clone();
}

impl<C: Curve> UserKey<C> {
    /// The attributes as given at key generation.
    pub fn attributes(&self) -> Vec<String> {
        self.set.display_attrs()
    }
    fn sk0_lines(&self) -> &[C::G2Prepared; 3] {
        self.sk0_lines.get_or_init(|| prepare3::<C>(&self.sk0))
    }
}

object! {
    /// The KEM header: the policy, ct_0 ∈ G2³ and ct_i ∈ G1³ per MSP row.
    pub struct Header<C> = (KemHeader, SchemeId::FameCp), bound {
        policy: PolicyTree => "policy",
        ct0: [C::G2; 3] => "ct_0",
        rows: Vec<[C::G1; 3]> => "ct_i",
    }
    check "one ct_i per leaf of the policy" => |h| rows_match("header", &h.policy, h.rows.len());
    made_for Policy = |header| header.policy.policy.clone();
}

impl<C: Curve> Header<C> {
    pub fn policy(&self) -> &Policy {
        &self.policy.policy
    }
    pub fn rows(&self) -> usize {
        self.rows.len()
    }
}

impl<C: Curve> Authority for FameCp<C> {
    crate::kem::authority_objects!((), AttributeSet);

    fn setup<R: RngCore + CryptoRng>(
        _: &(),
        rng: &mut R,
    ) -> Result<(PublicKey<C>, MasterKey<C>), KemError> {
        Ok(MasterKey::<C>::generate(rng))
    }

    fn keygen<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        mk: &MasterKey<C>,
        attrs: &AttributeSet,
        rng: &mut R,
    ) -> Result<UserKey<C>, KemError> {
        issuable(pk, mk, attrs)?;
        // Randomness in a fixed order: r_1, r_2, σ', then σ_y per attribute.
        let (sk0, mut k) = mk.sk0(pk, rng);
        let mut sigma_prime = C::Scalar::random(rng);
        let names: Vec<&str> = attrs.iter().collect();
        let mut sigmas: Vec<C::Scalar> = names.iter().map(|_| C::Scalar::random(rng)).collect();

        let mut a_inv = mk.a_inv();
        let mut koa = k_over_a(&k, &a_inv);
        let tb = pk.tables();
        // sk'_t = g^{d_t + σ'/a_t} · Π_l H(01lt)^{k_l/a_t}, sk'_3 = g^{d_3 − σ'}.
        let mut e_prime = [
            mk.d[0] + sigma_prime * a_inv[0],
            mk.d[1] + sigma_prime * a_inv[1],
            mk.d[2] - sigma_prime,
        ];
        let sk_prime = key_triple::<C>(&by_t(&pk.column_hashes(1)), &koa, &e_prime, &tb.g);
        let inputs: Vec<(&str, C::Scalar)> =
            names.iter().copied().zip(sigmas.iter().copied()).collect();
        let triples = par_map::<C, _, _>(&inputs, |(y, sigma)| {
            let mut e = [*sigma * a_inv[0], *sigma * a_inv[1], -*sigma];
            let out = key_triple::<C>(&by_t(&pk.attr_hashes(y)), &koa, &e, &tb.g);
            wipe_scalars(&mut e);
            out
        });
        let sky: BTreeMap<String, [C::G1; 3]> = names
            .iter()
            .zip(triples)
            .map(|(y, p)| (y.to_string(), p))
            .collect();

        wipe_scalars(&mut k);
        wipe_scalars(&mut a_inv);
        wipe_scalars(&mut koa[0]);
        wipe_scalars(&mut koa[1]);
        wipe_scalars(&mut e_prime);
        wipe_scalars(&mut sigmas);
        wipe(&mut sigma_prime, C::Scalar::zero());
        Ok(UserKey {
            setup_id: mk.setup_id,
            set: attrs.clone(),
            sk0: Secret(sk0),
            sk_prime: Secret(sk_prime),
            sky: Secret(sky),
            sk0_lines: OnceLock::new(),
        })
    }
}

impl<C: Curve> Kem for FameCp<C> {
    crate::kem::kem_objects!(SchemeId::FameCp, AttributeSet => Policy; the issued key decrypts);

    crate::kem::encapsulate_computing!();

    fn encapsulate_with<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        policy: &Policy,
        rng: &mut R,
        exps: &mut Exps<'_>,
    ) -> Result<(SessionKey, Header<C>), KemError> {
        let policy = PolicyTree::new(policy.clone())?;
        let lsss = Lsss::<C::Scalar>::from_tree(&policy.tree);
        // All the randomness: s_1, s_2.
        let s1 = C::Scalar::random(rng);
        let s2 = C::Scalar::random(rng);
        let (ct0, mask) = pk.ct0_and_mask(&s1, &s2);

        // H(0jlt), once per column (our column c is the paper's j = c + 1).
        let cols: Vec<usize> = (0..lsss.width()).collect();
        let col_hashes = par_map::<C, _, _>(&cols, |c| pk.column_hashes(c + 1));
        let rows: Vec<usize> = (0..lsss.len()).collect();
        // ct_{i,l} = base_{l,1}^{s_1} · base_{l,2}^{s_2}, where
        // base_{l,t} = H(π(i)lt) · Π_j H(0jlt)^{M_ij} over the row's nonzeros.
        let bases = par_map::<C, _, _>(&rows, |&i| -> Result<[[C::G1; 2]; 3], KemError> {
            let label = lsss
                .rho(i)
                .ok_or_else(|| KemError::Invalid("row without a label".into()))?;
            let row = lsss
                .row(i)
                .ok_or_else(|| KemError::Invalid("row index out of range".into()))?;
            let ah = pk.attr_hashes(label);
            let coeffs: Vec<C::Scalar> = row.iter().map(|(_, m)| *m).collect();
            let mut out = [[C::G1::identity(); 2]; 3];
            for (l, bases) in out.iter_mut().enumerate() {
                let l = l + 1;
                for (t, b) in bases.iter_mut().enumerate() {
                    let t = t + 1;
                    let pts: Option<Vec<C::G1>> = row
                        .iter()
                        .map(|(c, _)| col_hashes.get(*c).map(|h| h[lt(l, t)]))
                        .collect();
                    let pts = pts.ok_or_else(|| KemError::Invalid("column out of range".into()))?;
                    *b = ah[lt(l, t)] + lincomb(&pts, &coeffs);
                }
            }
            Ok(out)
        });
        let bases: Vec<[C::G1; 2]> = bases
            .into_iter()
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .flatten()
            .collect();
        let cts = exps.each_shared::<C, _, _>(&bases, &[s1, s2], |b| {
            (vec![], vec![(Point(b[0]), 0), (Point(b[1]), 1)])
        });
        let rows = cts.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
        let key = SessionKey::from_gt(&mask, SchemeId::FameCp, C::ID);
        let (mut s1, mut s2) = (s1, s2);
        wipe(&mut s1, C::Scalar::zero());
        wipe(&mut s2, C::Scalar::zero());
        Ok((
            key,
            Header {
                setup_id: pk.setup_id(),
                policy,
                ct0,
                rows,
            },
        ))
    }

    fn decapsulate(key: &UserKey<C>, header: &Header<C>) -> Result<SessionKey, KemError> {
        same_setup(header, key)?;
        let (gammas, cts, sks) = gather::<C>(&header.policy.tree, &key.set, &header.rows, |a| {
            key.sky.get(a)
        })?;
        let e = decrypt6::<C>(
            &cts,
            &sks,
            &gammas,
            Some(&key.sk_prime),
            &header.ct0,
            key.sk0_lines(),
        );
        Ok(SessionKey::from_gt(&e, SchemeId::FameCp, C::ID))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{self, attrs, rng, Case};
    use crate::curve::{Bls12, Bn254, Counted, OpCounts};

    type F = FameCp<Bls12>;

    conformance::tests!(FameCp: Case::one_target((), conformance::POLICY, conformance::ATTRIBUTE_SETS); random_policies);

    #[test]
    fn wrong_setup_is_reported() {
        let mut r = rng(2);
        let (pk1, _) = F::setup(&(), &mut r).unwrap();
        let (pk2, mk2) = F::setup(&(), &mut r).unwrap();
        let (_, header) = F::encapsulate(&pk1, &Policy::parse("a").unwrap(), &mut r).unwrap();
        let key = F::keygen(&pk2, &mk2, &attrs("a"), &mut r).unwrap();
        assert!(matches!(
            F::decapsulate(&key, &header),
            Err(KemError::WrongSetup)
        ));
        assert!(matches!(
            F::keygen(&pk1, &mk2, &attrs("a"), &mut r),
            Err(KemError::WrongSetup)
        ));
        // A FAME-KP object is not a FAME-CP object.
        let (kp_pk, _) = FameMasterKey::<Bls12, super::super::Kp>::generate(&mut r);
        assert!(PublicKey::<Bls12>::from_bytes(&kp_pk.to_bytes()).is_err());
    }

    /// Two keys, each missing a different attribute of an AND policy, cannot
    /// decrypt alone, nor with their components merged (r_1, r_2, σ' bind a
    /// key's sk_0, sk' and every sk_y together).
    #[test]
    fn collusion_fails() {
        let mut r = rng(3);
        let (pk, mk) = F::setup(&(), &mut r).unwrap();
        let policy = Policy::parse("a and b and c").unwrap();
        let (key, header) = F::encapsulate(&pk, &policy, &mut r).unwrap();
        let k1 = F::keygen(&pk, &mk, &attrs("a, b"), &mut r).unwrap();
        let k2 = F::keygen(&pk, &mk, &attrs("b, c"), &mut r).unwrap();
        for k in [&k1, &k2] {
            assert!(matches!(
                F::decapsulate(k, &header),
                Err(KemError::NotSatisfied)
            ));
        }
        for (base, other) in [(&k1, &k2), (&k2, &k1)] {
            let mut sky = BTreeMap::new();
            for (n, p) in base.sky.iter().chain(other.sky.iter()) {
                sky.entry(n.clone()).or_insert(*p);
            }
            let merged = UserKey::<Bls12> {
                setup_id: base.setup_id,
                set: attrs("a, b, c"),
                sk0: Secret(*base.sk0),
                sk_prime: Secret(*base.sk_prime),
                sky: Secret(sky),
                sk0_lines: OnceLock::new(),
            };
            // Syntactically satisfying, so the pairing runs; the key is wrong.
            assert_ne!(F::decapsulate(&merged, &header).unwrap(), key);
            let decoded = UserKey::<Bls12>::from_bytes(&merged.to_bytes()).unwrap();
            assert_ne!(F::decapsulate(&decoded, &header).unwrap(), key);
        }
    }

    /// A key element relabelled to another attribute does not decrypt.
    #[test]
    fn relabelled_attribute_does_not_decrypt() {
        let mut r = rng(4);
        let (pk, mk) = F::setup(&(), &mut r).unwrap();
        let (key, header) = F::encapsulate(&pk, &Policy::parse("b").unwrap(), &mut r).unwrap();
        let k = F::keygen(&pk, &mk, &attrs("a"), &mut r).unwrap();
        let mut sky = BTreeMap::new();
        sky.insert("b".to_string(), k.sky["a"]);
        let forged = UserKey::<Bls12> {
            setup_id: k.setup_id,
            set: attrs("b"),
            sk0: Secret(*k.sk0),
            sk_prime: Secret(*k.sk_prime),
            sky: Secret(sky),
            sk0_lines: OnceLock::new(),
        };
        assert_ne!(F::decapsulate(&forged, &header).unwrap(), key);
    }

    #[test]
    fn op_counts_match_the_formula() {
        type CF = FameCp<Counted<Bls12>>;
        let mut r = rng(5);
        let (pk, mk) = CF::setup(&(), &mut r).unwrap();
        for n in [1usize, 5, 20] {
            let names: Vec<String> = (0..n).map(|i| format!("opcount-cp-{n}-{i}")).collect();
            let policy = Policy::parse(&names.join(" and ")).unwrap();
            let set = AttributeSet::from_names(names.clone()).unwrap();
            let n = n as u64;

            let (key, kg) = OpCounts::measure(|| CF::keygen(&pk, &mk, &set, &mut r).unwrap());
            assert!(kg.hash_g1 <= 6 * (n + 1), "6(|S|+1) hashes at most");
            assert_eq!(kg.g1_msm_terms, 6 * (n + 1), "2(|S|+1) three-term MSMs");
            assert_eq!(kg.g1_fixed_exp, 3 * (n + 1));
            assert_eq!(kg.g2_fixed_exp, 3);
            assert_eq!(kg.g1_exp + kg.g2_exp + kg.gt_exp + kg.miller_loops, 0);
            let (_, kg2) = OpCounts::measure(|| CF::keygen(&pk, &mk, &set, &mut r).unwrap());
            assert_eq!(kg2.hash_g1, 0, "hashes are cached");

            let ((_, header), enc) =
                OpCounts::measure(|| CF::encapsulate(&pk, &policy, &mut r).unwrap());
            assert!(enc.hash_g1 <= 6 * (n + n), "6(ℓ + n_2) hashes at most");
            assert_eq!(enc.g1_msm_terms, 6 * n, "3 two-term MSMs per row");
            assert_eq!(enc.g1_exp + enc.g1_fixed_exp + enc.g2_exp, 0);
            assert_eq!(enc.g2_fixed_exp, 3);
            assert_eq!(enc.gt_exp, 2);
            assert_eq!(enc.miller_loops, 0);
            // AND rows: 2n−1 nonzeros; 6 combinations per nonzero entry
            // (one add per base for the hash, the rest inside the sums).
            assert!(
                enc.g1_add <= 6 * (2 * n) + 6 * n,
                "linear number of additions"
            );

            // First decryption prepares sk_0's lines, later ones only ct_0's.
            let (_, first) = OpCounts::measure(|| CF::decapsulate(&key, &header).unwrap());
            assert_eq!(first.g2_prepared, 6);
            let (_, dec) = OpCounts::measure(|| CF::decapsulate(&key, &header).unwrap());
            assert_eq!(dec.miller_loops, 6, "6 Miller loops whatever N");
            assert_eq!(dec.final_exps, 1);
            assert_eq!(dec.g2_prepared, 3);
            assert_eq!(
                dec.g1_exp + dec.g2_exp + dec.gt_exp + dec.g1_msm_terms,
                0,
                "no exponentiation for an AND policy"
            );
        }
        // A threshold policy: still 6 Miller loops; γ_i ≠ 1 go into MSMs.
        let policy = Policy::parse("2 of (opc-x, opc-y, opc-z)").unwrap();
        let key = CF::keygen(&pk, &mk, &attrs("opc-y, opc-z"), &mut r).unwrap();
        let (_, header) = CF::encapsulate(&pk, &policy, &mut r).unwrap();
        let (_, dec) = OpCounts::measure(|| CF::decapsulate(&key, &header).unwrap());
        assert_eq!(dec.miller_loops, 6);
        assert_eq!(dec.final_exps, 1);
        assert_eq!(dec.g1_msm_terms, 6 * 2);
    }

    #[test]
    fn foreign_and_forged_objects_are_refused() {
        let mut r = rng(6);
        let (pk, _) = F::setup(&(), &mut r).unwrap();
        let (_, header) = F::encapsulate(&pk, &Policy::parse("a or b").unwrap(), &mut r).unwrap();
        assert!(Header::<Bn254>::from_bytes(&header.to_bytes()).is_err());
        // A header whose row count does not match its policy.
        let (_, other) =
            F::encapsulate(&pk, &Policy::parse("a or b or c").unwrap(), &mut r).unwrap();
        let mut spliced = header.to_bytes();
        let hb = header.to_bytes();
        let ob = other.to_bytes();
        let tail_len = 4 + 3 * 48 * 3; // count + three rows
        spliced.truncate(hb.len() - (4 + 3 * 48 * 2));
        spliced.extend_from_slice(&ob[ob.len() - tail_len..]);
        assert!(Header::<Bls12>::from_bytes(&spliced).is_err());
    }
}
