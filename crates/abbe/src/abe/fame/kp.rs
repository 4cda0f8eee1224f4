//! FAME KP-ABE (Agrawal–Chase) in KEM form.
//!
//! Paper: S. Agrawal and M. Chase, "FAME: Fast Attribute-based Message
//! Encryption", ACM CCS 2017 (ePrint 2017/807), the KP-ABE scheme that
//! accompanies the CP-ABE of §4 (same setup, the MSP moved into the key).
//! KEM form: the session key is derived from T_1^{s_1}·T_2^{s_2} ∈ GT.
//! Setup, public and master keys, the hash and the decryption pairing are
//! shared with FAME-CP in [`super`] (whose documentation explains the hash
//! encoding and the Type-III placement); objects carry the FAME-KP scheme id
//! and hash under their own domain-separation tag.
//!
//! Notation (the paper's): g, h, e: G × H → GT, random oracle H into G,
//! MSP (M, π) with n_1 rows and n_2 columns (our column 0 is the paper's
//! j = 1), l ∈ {1,2,3}, t ∈ {1,2}.
//!
//! ```text
//! Setup:   as FAME-CP: pk = (h, H_1 = h^{a_1}, H_2 = h^{a_2}, T_1, T_2),
//!          T_t = e(g,h)^{d_t a_t + d_3}; msk = (a_1, a_2, b_1, b_2, d_1, d_2, d_3)
//! KeyGen (M, π): r_1, r_2, σ'_j (j = 2..n_2), σ_i (i = 1..n_1) ←R Z_p
//!          sk_0 = (h^{b_1 r_1}, h^{b_2 r_2}, h^{r_1+r_2})
//!          sk_{i,t} = H(π(i)1t)^{b_1r_1/a_t} · H(π(i)2t)^{b_2r_2/a_t} · H(π(i)3t)^{(r_1+r_2)/a_t}
//!                     · g^{σ_i/a_t} · (g^{d_t})^{M_{i,1}}
//!                     · Π_{j=2..n_2} [H(0j1t)^{b_1r_1/a_t} · H(0j2t)^{b_2r_2/a_t}
//!                                     · H(0j3t)^{(r_1+r_2)/a_t} · g^{σ'_j/a_t}]^{M_{i,j}}
//!          sk_{i,3} = g^{-σ_i} · (g^{d_3})^{M_{i,1}} · Π_{j=2..n_2} g^{-σ'_j M_{i,j}}
//! Encrypt S: s_1, s_2 ←R Z_p
//!          ct_0 = (H_1^{s_1}, H_2^{s_2}, h^{s_1+s_2})
//!          ct_{y,l} = H(yl1)^{s_1} · H(yl2)^{s_2}   (y ∈ S)
//!          session key from T_1^{s_1} · T_2^{s_2}
//! Decrypt: γ_i with Σ_{i∈I} γ_i M_i = (1, 0, …, 0), π(I) ⊆ S:
//!          B_t = Π_{i∈I} sk_{i,t}^{γ_i},  A_l = Π_{i∈I} ct_{π(i),l}^{γ_i}
//!          T_1^{s_1}T_2^{s_2} = Π_{t=1..3} e(B_t, ct_{0,t}) · Π_{l=1..3} e(A_l^{-1}, sk_{0,l})
//! ```
//!
//! Key generation computes, per row, the g-exponent
//! σ_i/a_t + Σ_j M_ij σ'_j/a_t + M_i1·d_t as a scalar (the master key holds
//! d_t) and one fixed-base exponentiation of g, and the hash part as
//! Σ_l (k_l/a_t)·(H(π(i)lt) + Σ_{j≥2} M_ij·H(0jlt)) — a combination over
//! the row's nonzero entries (additions for ±1) and one three-term MSM per t.
//! The column hashes H(0jlt) are computed once per key generation (and
//! cached), never per (row, column) pair: key generation is linear in the
//! number of nonzero MSP entries (2n − 1 for an AND of n attributes).
//!
//! ## Type-III placement
//! As FAME-CP: G → G1 (hashes, sk_{i,t}, ct_{y,l}), H → G2 (h, H_1, H_2,
//! ct_0, sk_0). The key's sk_0 lines are cached per key; ct_0's three lines
//! are computed at each decryption.
//!
//! ## Side channels
//! As in [`super`]: secret scalars through fixed-base tables,
//! [`Group::mul_secret`] and [`Group::msm_secret`]; public ones (M_ij, γ_i)
//! through the variable-time linear combinations.
//!
//! ## Operation counts
//! Checked against the formula (and the paper's table where it has one)
//! by `op_counts_*` in the tests below, on `Counted` curves.

use crate::curve::{lincomb, par_map, wipe, Curve, Group, Scalar};
use crate::kem::exps::Base::Point;
use crate::kem::{same_setup, Authority, Exps, Kem, KemError, SessionKey};
use crate::policy::{AttributeSet, Lsss, Policy, PolicyTree};
use crate::wire::codec::{names_match, object, rows_match};
use crate::wire::{SchemeId, Secret};
use rand_core::{CryptoRng, RngCore};
use std::collections::BTreeMap;
use std::marker::PhantomData;
use std::sync::OnceLock;

use super::{
    by_t, decrypt6, gather, k_over_a, lt, prepare3, wipe_scalars, FameMasterKey, FamePublicKey, Kp,
};

/// The scheme, generic over the curve.
#[derive(Clone, Copy, Debug, Default)]
pub struct FameKp<C>(PhantomData<C>);

pub type PublicKey<C> = FamePublicKey<C, Kp>;
pub type MasterKey<C> = FameMasterKey<C, Kp>;

object! {
    /// A user key for a policy: sk_0 ∈ G2³ (lines cached on first use) and
    /// sk_i ∈ G1³ per MSP row; wiped on drop.
    pub struct UserKey<C> = (SchemeUserKey, SchemeId::FameKp), bound {
        policy: PolicyTree => "policy",
        sk0: Secret<[C::G2; 3]> => "sk_0",
        rows: Secret<Vec<[C::G1; 3]>> => "sk_i",
    }
    cached { sk0_lines: OnceLock<[C::G2Prepared; 3]> }
    check "one sk_i per leaf of the policy" => |k| rows_match("key", &k.policy, k.rows.len());
    made_for Policy = |key| key.policy.policy.clone();
}

impl<C: Curve> UserKey<C> {
    pub fn policy(&self) -> &Policy {
        &self.policy.policy
    }
    pub fn rows(&self) -> usize {
        self.rows.len()
    }
    fn sk0_lines(&self) -> &[C::G2Prepared; 3] {
        self.sk0_lines.get_or_init(|| prepare3::<C>(&self.sk0))
    }
}

object! {
    /// The KEM header: the attribute set, ct_0 ∈ G2³ and ct_y ∈ G1³ per
    /// (expanded) attribute.
    pub struct Header<C> = (KemHeader, SchemeId::FameKp), bound {
        set: AttributeSet => "attribute list",
        ct0: [C::G2; 3] => "ct_0",
        cty: BTreeMap<String, [C::G1; 3]> => "ct_y",
    }
    check "the ct_y are named by the expansion of the attribute list, in order" =>
        |h| names_match("header", &h.set, h.cty.keys());
    made_for AttributeSet = |header| header.set.clone();
}

impl<C: Curve> Header<C> {
    /// The attributes as given at encryption.
    pub fn attributes(&self) -> Vec<String> {
        self.set.display_attrs()
    }
}

impl<C: Curve> Authority for FameKp<C> {
    crate::kem::authority_objects!((), Policy);

    fn setup<R: RngCore + CryptoRng>(
        _: &(),
        rng: &mut R,
    ) -> Result<(PublicKey<C>, MasterKey<C>), KemError> {
        Ok(MasterKey::<C>::generate(rng))
    }

    fn keygen<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        mk: &MasterKey<C>,
        policy: &Policy,
        rng: &mut R,
    ) -> Result<UserKey<C>, KemError> {
        same_setup(pk, mk)?;
        let policy = PolicyTree::new(policy.clone())?;
        let lsss = Lsss::<C::Scalar>::from_tree(&policy.tree);
        // Randomness in a fixed order: r_1, r_2, σ'_j (j = 2..n_2), σ_i.
        let (sk0, mut k) = mk.sk0(pk, rng);
        let mut sigma_col: Vec<C::Scalar> =
            (1..lsss.width()).map(|_| C::Scalar::random(rng)).collect();
        let mut sigma_row: Vec<C::Scalar> =
            (0..lsss.len()).map(|_| C::Scalar::random(rng)).collect();

        let mut a_inv = mk.a_inv();
        let mut koa = k_over_a(&k, &a_inv);
        let tb = pk.tables();
        // H(0jlt) for j = 2..n_2, once per column (our column c is j = c + 1;
        // index 0, the paper's j = 1, carries no hash in KP-ABE).
        let cols: Vec<usize> = (1..lsss.width()).collect();
        let col_hashes = par_map::<C, _, _>(&cols, |c| pk.column_hashes(c + 1));
        let rows: Vec<usize> = (0..lsss.len()).collect();
        let out = par_map::<C, _, _>(&rows, |&i| -> Result<[C::G1; 3], KemError> {
            let label = lsss
                .rho(i)
                .ok_or_else(|| KemError::Invalid("row without a label".into()))?;
            let row = lsss
                .row(i)
                .ok_or_else(|| KemError::Invalid("row index out of range".into()))?;
            let sigma = *sigma_row
                .get(i)
                .ok_or_else(|| KemError::Invalid("row index out of range".into()))?;
            // g-exponents: σ_i/a_t + Σ_{j≥2} M_ij σ'_j/a_t + M_i1·d_t, and
            // −σ_i − Σ_{j≥2} M_ij σ'_j + M_i1·d_3.
            let mut m1 = C::Scalar::zero();
            let mut col_sum = C::Scalar::zero();
            let mut pts: Vec<[C::G1; 6]> = Vec::with_capacity(row.len());
            let mut coeffs: Vec<C::Scalar> = Vec::with_capacity(row.len());
            for (c, m) in row {
                if *c == 0 {
                    m1 = *m;
                } else {
                    let sp = sigma_col
                        .get(c - 1)
                        .ok_or_else(|| KemError::Invalid("column out of range".into()))?;
                    let h = col_hashes
                        .get(c - 1)
                        .ok_or_else(|| KemError::Invalid("column out of range".into()))?;
                    col_sum += *m * *sp;
                    pts.push(*h);
                    coeffs.push(*m);
                }
            }
            let mut e = [
                (sigma + col_sum) * a_inv[0] + m1 * mk.d[0],
                (sigma + col_sum) * a_inv[1] + m1 * mk.d[1],
                m1 * mk.d[2] - sigma - col_sum,
            ];
            // Hash part: base_{l,t} = H(π(i)lt) + Σ_{j≥2} M_ij·H(0jlt).
            let ah = pk.attr_hashes(label);
            let mut bases = [C::G1::identity(); 6];
            for (idx, b) in bases.iter_mut().enumerate() {
                let col: Vec<C::G1> = pts.iter().map(|h| h[idx]).collect();
                *b = ah[idx] + lincomb(&col, &coeffs);
            }
            let hb = by_t(&bases);
            let triple = [
                C::G1::msm_secret(&hb[0], &koa[0]) + C::G1::mul_fixed(&tb.g, &e[0]),
                C::G1::msm_secret(&hb[1], &koa[1]) + C::G1::mul_fixed(&tb.g, &e[1]),
                C::G1::mul_fixed(&tb.g, &e[2]),
            ];
            wipe_scalars(&mut e);
            wipe(&mut col_sum, C::Scalar::zero());
            Ok(triple)
        });
        wipe_scalars(&mut k);
        wipe_scalars(&mut a_inv);
        wipe_scalars(&mut koa[0]);
        wipe_scalars(&mut koa[1]);
        wipe_scalars(&mut sigma_col);
        wipe_scalars(&mut sigma_row);
        let rows = out.into_iter().collect::<Result<Vec<_>, _>>()?;
        Ok(UserKey {
            setup_id: mk.setup_id,
            policy,
            sk0: Secret(sk0),
            rows: Secret(rows),
            sk0_lines: OnceLock::new(),
        })
    }
}

impl<C: Curve> Kem for FameKp<C> {
    crate::kem::kem_objects!(SchemeId::FameKp, Policy => AttributeSet; the issued key decrypts);

    crate::kem::encapsulate_computing!();

    fn encapsulate_with<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        attrs: &AttributeSet,
        rng: &mut R,
        exps: &mut Exps<'_>,
    ) -> Result<(SessionKey, Header<C>), KemError> {
        if attrs.is_empty() {
            return Err(KemError::Invalid(
                "a ciphertext needs at least one attribute".into(),
            ));
        }
        let s1 = C::Scalar::random(rng);
        let s2 = C::Scalar::random(rng);
        let (ct0, mask) = pk.ct0_and_mask(&s1, &s2);
        // In the order the header lists them (its map's).
        let mut names: Vec<&str> = attrs.iter().collect();
        names.sort_unstable();
        // ct_{y,l} = H(ylt1)^{s_1} · H(ylt2)^{s_2}; each y's hashes once.
        let hashes = par_map::<C, _, _>(&names, |y| pk.attr_hashes(y));
        let items: Vec<(&[C::G1; 6], usize)> = hashes
            .iter()
            .flat_map(|h| (1..=3).map(move |l| (h, l)))
            .collect();
        let cts = exps.each_shared::<C, _, _>(&items, &[s1, s2], |(h, l)| {
            (
                vec![],
                vec![(Point(h[lt(*l, 1)]), 0), (Point(h[lt(*l, 2)]), 1)],
            )
        });
        let cty = names
            .iter()
            .zip(cts.chunks_exact(3))
            .map(|(y, p)| (y.to_string(), [p[0], p[1], p[2]]))
            .collect();
        let key = SessionKey::from_gt(&mask, SchemeId::FameKp, C::ID);
        let (mut s1, mut s2) = (s1, s2);
        wipe(&mut s1, C::Scalar::zero());
        wipe(&mut s2, C::Scalar::zero());
        Ok((
            key,
            Header {
                setup_id: pk.setup_id(),
                set: attrs.clone(),
                ct0,
                cty,
            },
        ))
    }

    fn decapsulate(key: &UserKey<C>, header: &Header<C>) -> Result<SessionKey, KemError> {
        same_setup(header, key)?;
        let (gammas, sks, cts) = gather::<C>(&key.policy.tree, &header.set, &key.rows, |a| {
            header.cty.get(a)
        })?;
        let e = decrypt6::<C>(&cts, &sks, &gammas, None, &header.ct0, key.sk0_lines());
        Ok(SessionKey::from_gt(&e, SchemeId::FameKp, C::ID))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{self, attrs, rng, Case};
    use crate::curve::{Bls12, Bn254, Counted, OpCounts};

    type F = FameKp<Bls12>;

    conformance::tests!(FameKp: Case::one_key((), conformance::POLICY, conformance::ATTRIBUTE_SETS); random_policies);

    /// Keys for "a and b" cannot decrypt a ciphertext for {a} or {b}; rows
    /// taken from two different keys do not combine (r_1, r_2, σ'_j bind a
    /// key's sk_0 and rows together, and each key shares d afresh); a
    /// ciphertext element relabelled to a missing attribute does not help.
    #[test]
    fn collusion_fails() {
        let mut r = rng(3);
        let (pk, mk) = F::setup(&(), &mut r).unwrap();
        let policy = Policy::parse("a and b").unwrap();
        let k1 = F::keygen(&pk, &mk, &policy, &mut r).unwrap();
        let k2 = F::keygen(&pk, &mk, &policy, &mut r).unwrap();
        let (key_a, header_a) = F::encapsulate(&pk, &attrs("a"), &mut r).unwrap();
        let (key_b, header_b) = F::encapsulate(&pk, &attrs("b"), &mut r).unwrap();
        let (key_ab, header_ab) = F::encapsulate(&pk, &attrs("a, b"), &mut r).unwrap();
        for k in [&k1, &k2] {
            assert!(matches!(
                F::decapsulate(k, &header_a),
                Err(KemError::NotSatisfied)
            ));
            assert!(matches!(
                F::decapsulate(k, &header_b),
                Err(KemError::NotSatisfied)
            ));
            assert_eq!(F::decapsulate(k, &header_ab).unwrap(), key_ab);
        }
        // Row for "a" from k1, row for "b" from k2, sk_0 of either: wrong key.
        for sk0 in [*k1.sk0, *k2.sk0] {
            let merged = UserKey::<Bls12> {
                setup_id: k1.setup_id,
                policy: PolicyTree::new(policy.clone()).unwrap(),
                sk0: Secret(sk0),
                rows: Secret(vec![k1.rows[0], k2.rows[1]]),
                sk0_lines: OnceLock::new(),
            };
            assert_ne!(F::decapsulate(&merged, &header_ab).unwrap(), key_ab);
            let decoded = UserKey::<Bls12>::from_bytes(&merged.to_bytes()).unwrap();
            assert_ne!(F::decapsulate(&decoded, &header_ab).unwrap(), key_ab);
        }
        // Relabelling a ciphertext element to a missing attribute fails.
        let mut cty = BTreeMap::new();
        cty.insert("a".to_string(), header_a.cty["a"]);
        cty.insert("b".to_string(), header_a.cty["a"]);
        let forged = Header::<Bls12> {
            setup_id: header_a.setup_id,
            set: attrs("a, b"),
            ct0: header_a.ct0,
            cty,
        };
        let got = F::decapsulate(&k1, &forged).unwrap();
        assert_ne!(got, key_a);
        assert_ne!(got, key_b);
    }

    #[test]
    fn op_counts_match_the_formula() {
        type CF = FameKp<Counted<Bls12>>;
        let mut r = rng(5);
        let (pk, mk) = CF::setup(&(), &mut r).unwrap();
        for n in [1usize, 5, 20] {
            let names: Vec<String> = (0..n).map(|i| format!("opcount-kp-{n}-{i}")).collect();
            let policy = Policy::parse(&names.join(" and ")).unwrap();
            let set = AttributeSet::from_names(names.clone()).unwrap();
            let n = n as u64;

            let (key, kg) = OpCounts::measure(|| CF::keygen(&pk, &mk, &policy, &mut r).unwrap());
            assert!(
                kg.hash_g1 <= 6 * (n + n - 1),
                "6(ℓ + n_2 − 1) hashes at most"
            );
            assert_eq!(kg.g1_msm_terms, 6 * n, "2 three-term MSMs per row");
            assert_eq!(kg.g1_fixed_exp, 3 * n);
            assert_eq!(kg.g2_fixed_exp, 3);
            assert_eq!(kg.g1_exp + kg.g2_exp + kg.gt_exp + kg.miller_loops, 0);
            assert!(
                kg.g1_add <= 6 * (2 * n) + 6 * n,
                "linear number of additions"
            );
            let (_, kg2) = OpCounts::measure(|| CF::keygen(&pk, &mk, &policy, &mut r).unwrap());
            assert_eq!(kg2.hash_g1, 0, "hashes are cached");

            let ((_, header), enc) =
                OpCounts::measure(|| CF::encapsulate(&pk, &set, &mut r).unwrap());
            assert!(enc.hash_g1 <= 6 * n);
            assert_eq!(enc.g1_msm_terms, 6 * n, "3 two-term MSMs per attribute");
            assert_eq!(enc.g1_exp + enc.g1_fixed_exp + enc.g2_exp, 0);
            assert_eq!(enc.g2_fixed_exp, 3);
            assert_eq!(enc.gt_exp, 2);
            assert_eq!(enc.miller_loops, 0);

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
        let policy = Policy::parse("2 of (opk-x, opk-y, opk-z)").unwrap();
        let key = CF::keygen(&pk, &mk, &policy, &mut r).unwrap();
        let (_, header) = CF::encapsulate(&pk, &attrs("opk-x, opk-z"), &mut r).unwrap();
        let (_, dec) = OpCounts::measure(|| CF::decapsulate(&key, &header).unwrap());
        assert_eq!(dec.miller_loops, 6);
        assert_eq!(dec.final_exps, 1);
        assert_eq!(dec.g1_msm_terms, 6 * 2);
    }

    #[test]
    fn foreign_and_forged_objects_are_refused() {
        let mut r = rng(6);
        let (pk, _) = F::setup(&(), &mut r).unwrap();
        let (_, header) = F::encapsulate(&pk, &attrs("a, b"), &mut r).unwrap();
        assert!(Header::<Bn254>::from_bytes(&header.to_bytes()).is_err());
        // FAME-CP objects are refused.
        let (cp_pk, _) = super::super::cp::FameCp::<Bls12>::setup(&(), &mut r).unwrap();
        assert!(PublicKey::<Bls12>::from_bytes(&cp_pk.to_bytes()).is_err());
    }
}
