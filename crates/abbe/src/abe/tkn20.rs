//! TKN20 CP-ABE (Tomida–Kawahara–Nishimaki, "Fast, Compact, and Expressive
//! Attribute-Based Encryption", PKC 2020, ePrint 2019/966) in KEM form:
//! the ciphertext-policy scheme with **negation**, on the decisional linear
//! assumption (k = 2). Its reading was checked against CIRCL's
//! `abe/cpabe/tkn20` (read, not copied).
//!
//! Notation (the paper's, k = 2): [x]_1, [x]_2, [x]_T are x in the exponent
//! of g, h, e(g,h); A ∈ Z_p^{3×2} has the DLIN shape (a_1 0; 0 a_2; 1 1);
//! B̄ ∈ Z_p^{4×4} is random, B its first two columns and (B* | B*_12) =
//! (B̄^T)^{-1}, so B*^T B = I and B*_12^T B = 0. An attribute is a label x
//! with a value y; H(x) = (U_0, U_1) ∈ G_1^{3×2} × G_1^{3×2} is a random
//! oracle and V(x) = (V_0, V_1) ∈ (Z_p^{3×2})² a PRF under the master key,
//! U_{x,y} = y U_0 + U_1, V_{x,y} = y V_0 + V_1 and
//! W_{x,y} = B* U_{x,y}^T + B*_12 V_{x,y}^T, so that W_{x,y}^T B = U_{x,y}:
//! the authority knows W_{x,y}, everyone knows [W_{x,y}^T B]_1. A policy is
//! an MSP whose rows are attributes (x, v), positive (the key holds x = v)
//! or negative (the key holds x with a value other than v); λ_j ∈ Z_p^2 are
//! shares of r; π(j) counts the earlier rows of the same label.
//!
//! ```text
//! Setup:  A ←R DLIN, B̄ ←R GL_4(Z_p), W ←R Z_p^{3×4}, k ←R Z_p^4
//!         pk = ([B]_2, [WB]_1, [B^T k]_T),  msk = (A, W, B̄^{-T}, k, PRF key)
//! KeyGen S = {(x, y_x)}:  s ←R Z_p^2
//!         K_1 = [As]_2,  K_2 = [k + W^T A s]_1,  K_{3,x} = [W_{x,y_x} A s]_1
//! Encrypt (M, ρ): r, r_τ ←R Z_p^2, shares λ_j of r
//!         C_1 = [Br]_2,  C_{2,τ} = [B r_τ]_2,  key [r^T B^T k]_T
//!         positive row j = (x, v):  C_{3,j} = [WBλ_j + U_{x,v} r_{π(j)}]_1
//!         negative row j = (x, v):  C_{3,j} = [U_0 r_{π(j)} − WBλ_j]_1,
//!                                   C'_{3,j} = [U_1 r_{π(j)} + v·WBλ_j]_1
//! Decrypt: ω_j with Σ ω_j λ_j = r over the rows I the key satisfies;
//!         positive: P_j = C_{3,j}, Q_j = K_{3,x};  negative, the key's value
//!         y ≠ v, δ = 1/(v − y): P_j = δ(y C_{3,j} + C'_{3,j}), Q_j = δ K_{3,x}
//!         e(K_2, C_1) · Π_τ e(Σ_{π(j)=τ} ω_j Q_j, C_{2,τ}) / e(Σ ω_j P_j, K_1)
//!           = [k^T B r]_T
//! ```
//!
//! Correctness: e(K_2, C_1) = [k^T B r + s^T A^T W B r]; each row's
//! e(Q_j, C_{2,π(j)}) = [s^T A^T U_{x,y} r_{π(j)}] cancels its share of the
//! last pairing, which leaves [s^T A^T W B Σ ω_j λ_j] = [s^T A^T W B r]. For a
//! negative row, y C_3 + C'_3 = U_{x,y} r_{π(j)} + (v − y) WBλ_j: the share
//! appears only when y ≠ v, which is why a key holding x = v cannot use it.
//!
//! ## abbe's attributes as labels and values
//! A plain attribute (and each bag-of-bits marker of a numeric attribute,
//! [`crate::policy::numeric`]) is a label of value 0, so every monotone
//! policy works as with the other schemes. A numeric attribute `x = y` also
//! gives the key the label `x#` of value y, on which `x != v` is one
//! negative row ([`crate::policy::Policy::to_negating_tree`]) instead of
//! the up to 128 leaves of its bag-of-bits expansion. A key without `x`
//! satisfies neither `x = v` nor `x != v`; a plain attribute cannot be
//! negated at all (a key lists what it holds, never what it lacks), so the
//! parser refuses `not intern` for every scheme.
//!
//! ## Type-III placement (e: G1 × G2 → GT)
//! The paper is written in asymmetric groups; as CIRCL does, every element
//! of linear size — the hashes U, the rows C_3, C'_3 and the key's K_3 — is
//! in G1, and G2 carries only the constant-size [B]_2, K_1, C_1 and one
//! C_{2,τ} per occurrence number. Decryption is 7 + 4·(occurrence numbers
//! used) pairings whatever the policy, K_1's lines cached per key. The
//! swapped placement moves every hash and row to G2; security rests on DLIN
//! in both groups either way, which the exchange keeps.
//!
//! ## Side channels
//! Secret scalars (s, r, r_τ, the shares, the master's matrices and the
//! PRF's V) are used through fixed-base tables, [`Group::mul_secret`] and
//! [`Group::msm_secret`]; decryption combines the key's points with the
//! public ω_j by [`lincomb_secret_points`] and the ciphertext's by the
//! variable-time [`lincomb`]; a negated row's coefficients δ = 1/(v − y)
//! and δy depend on the key's value y, so they go through the constant-time
//! [`Group::msm_secret`] ([`Terms`]). The inversion of the 4×4 secret
//! matrix (at setup, and when a master key is decoded: its check recomputes
//! the public key) branches on whether a pivot is zero, which happens with
//! probability ~4/p. The HKDF state of the PRF (the `hkdf` crate's) is not
//! wiped; its output is.

use crate::abe::attr_cache::{hash_tag, AttrHashes};
use crate::curve::{
    lincomb, lincomb_secret_points, par_map, Curve, FixedBaseTable, Group, LinedG2, Scalar, Target,
};
use crate::kem::exps::Base::{Fixed, Point};
use crate::kem::{bind, issuable, same_setup, Authority, Exps, Kem, KemError, SessionKey};
use crate::policy::numeric::parse_negated_exact_marker;
use crate::policy::{AttributeSet, NegatingPolicyTree, Policy};
use crate::wire::codec::{invalid, names_match, object, rows_match, secrets_match};
use crate::wire::{Lazy, SchemeId, Secret, WireError};
use hkdf::Hkdf;
use rand_core::{CryptoRng, RngCore};
use sha2::Sha256;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::marker::PhantomData;
use std::sync::OnceLock;
use zeroize::Zeroizing;

/// The scheme, generic over the curve.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tkn20<C>(PhantomData<C>);

const SCHEME: SchemeId = SchemeId::Tkn20;
const TAG: &str = "TKN20";

/// Fixed-base tables of g, the entries of [B]_2 and of [WB]_1.
struct Tables<C: Curve> {
    g: FixedBaseTable<C::G1>,
    b: Vec<FixedBaseTable<C::G2>>,
    wb: Vec<FixedBaseTable<C::G1>>,
}

object! {
    /// Public parameters: [B]_2 (4×2), [WB]_1 (3×2), [B^T k]_T, matrices
    /// by rows.
    #[derive(Clone)]
    pub struct PublicKey<C> = (PublicKey, SCHEME), identified {
        b: [C::G2; 8] => "[B]_2",
        wb: [C::G1; 6] => "[WB]_1",
        btk: [C::Gt; 2] => "[B^T k]_T",
    }
    cached {
        tables: Lazy<Tables<C>>,
        hashes: AttrHashes<[C::G1; 12]>,
    }
}

impl<C: Curve> PublicKey<C> {
    fn tables(&self) -> &Tables<C> {
        self.tables.get_or_init(|| Tables {
            g: C::G1::generator().precompute(),
            b: self.b.iter().map(Group::precompute).collect(),
            wb: self.wb.iter().map(Group::precompute).collect(),
        })
    }

    /// H(x) = (U_0, U_1), by rows: RFC 9380 hash-to-curve of the label under
    /// one domain tag per entry, cached by this key.
    fn h_of(&self, label: &str) -> [C::G1; 12] {
        self.hashes.get_or_insert(label, || {
            core::array::from_fn(|i| {
                let tag = hash_tag(&format!("{TAG}-U{}{}{}", i / 6, i % 6 / 2, i % 2), C::NAME);
                C::G1::hash_to_curve(label.as_bytes(), &tag)
            })
        })
    }

    /// [B v]_2 through the tables of [B]_2.
    fn b_times(&self, v: &[C::Scalar; 2]) -> [C::G2; 4] {
        let tb = &self.tables().b;
        core::array::from_fn(|t| {
            C::G2::mul_fixed(&tb[2 * t], &v[0]) + C::G2::mul_fixed(&tb[2 * t + 1], &v[1])
        })
    }
}

object! {
    /// The master key; wiped on drop.
    pub struct MasterKey<C> = (MasterKey, SCHEME), bound {
        a: Secret<[C::Scalar; 2]> => "a_1, a_2 of A",
        w: Secret<[C::Scalar; 12]> => "W (3×4)",
        d: Secret<[C::Scalar; 16]> => "(B*, B*_12) = (B̄^T)^{-1} (4×4)",
        k: Secret<[C::Scalar; 4]> => "k",
        prf: Secret<[u8; 32]> => "PRF key of V",
    }
    check "the secrets give the public key of the setup id" =>
        |mk| secrets_match(mk.public_key().setup_id(), mk.setup_id);
}

impl<C: Curve> MasterKey<C> {
    /// Recomputes the public key: B from (B̄^T)^{-1}, then [B]_2, [WB]_1 and
    /// [B^T k]_T. A singular matrix (only in a forged file) gives a public
    /// key that matches no setup id.
    pub fn public_key(&self) -> PublicKey<C> {
        let zero = C::Scalar::zero();
        let bbar_t = invert4(&self.d).unwrap_or(Secret([zero; 16]));
        // B[t][c] = B̄[t][c] = (B̄^T)[c][t], c < 2.
        let b: Secret<[C::Scalar; 8]> =
            Secret(core::array::from_fn(|i| bbar_t[(i % 2) * 4 + i / 2]));
        let wb: Secret<[C::Scalar; 6]> = Secret(core::array::from_fn(|i| {
            (0..4).fold(zero, |acc, t| {
                acc + self.w[(i / 2) * 4 + t] * b[t * 2 + i % 2]
            })
        }));
        let e = C::pairing(&C::G1::generator(), &C::G2::generator());
        let h = C::G2::generator();
        let g = C::G1::generator();
        PublicKey {
            b: core::array::from_fn(|i| h.mul_secret(&b[i])),
            wb: core::array::from_fn(|i| g.mul_secret(&wb[i])),
            btk: core::array::from_fn(|c| {
                e.pow(&(0..4).fold(zero, |acc, t| acc + b[t * 2 + c] * self.k[t]))
            }),
            tables: Lazy::default(),
            hashes: AttrHashes::default(),
            id: OnceLock::new(),
        }
    }

    /// V(x) = (V_0, V_1), by rows: HKDF-SHA256 of the PRF key, the label
    /// the info, each scalar from `WIDE_BYTES` of output.
    fn v_of(&self, label: &str) -> Secret<[C::Scalar; 12]> {
        let wide = C::Scalar::WIDE_BYTES;
        let mut out = Zeroizing::new(vec![0u8; 12 * wide]);
        let hk = Hkdf::<Sha256>::new(Some(b"ABBE-V1-TKN20-V"), &*self.prf);
        // 12 × 64..=96 bytes is far below HKDF-SHA256's 8160-byte limit.
        let _ = hk.expand(label.as_bytes(), &mut out);
        Secret(core::array::from_fn(|i| {
            C::Scalar::from_bytes_wide(&out[i * wide..(i + 1) * wide])
        }))
    }
}

object! {
    /// A user's decryption key: K_1 ∈ G2^3 (lines cached), K_2 ∈ G1^4, and
    /// K_{3,x} ∈ G1^4 per label: per expanded attribute (value 0) and per
    /// numeric attribute `x = y` (label `x#`, value y); wiped on drop.
    pub struct UserKey<C> = (SchemeUserKey, SCHEME), bound {
        set: AttributeSet => "attribute list",
        k1: Secret<[LinedG2<C>; 3]> => "K_1 = [As]_2",
        k2: Secret<[C::G1; 4]> => "K_2 = [k + W^T A s]_1",
        k3: Secret<BTreeMap<String, [C::G1; 4]>> => "K_{3,x}, x expanded attribute",
        k3_value: Secret<BTreeMap<String, [C::G1; 4]>> => "K_{3,x#}, x numeric attribute",
    }
    check "one K_{3,x} per expanded attribute and per numeric attribute" => |k| {
        names_match("key", &k.set, k.k3.keys())?;
        if k.k3_value.keys().eq(k.set.numeric_names()) {
            Ok(())
        } else {
            Err(invalid("key", "the K_{3,x#} do not match the numeric attributes"))
        }
    };
    made_for AttributeSet = |key| key.set.clone();
}

impl<C: Curve> UserKey<C> {
    /// The attributes as given at key generation.
    pub fn attributes(&self) -> Vec<String> {
        self.set.display_attrs()
    }
}

object! {
    /// The KEM header: the policy, C_1 ∈ G2^4, C_{2,τ} ∈ G2^4 per
    /// occurrence number, C'_{3,j} ∈ G1^3 per negated leaf and C_{3,j} ∈
    /// G1^3 per leaf (both left to right; the rows last, as in every ABE
    /// header).
    pub struct Header<C> = (KemHeader, SCHEME), bound {
        policy: NegatingPolicyTree => "policy",
        c1: [C::G2; 4] => "C_1 = [Br]_2",
        c2: Vec<[C::G2; 4]> => "C_{2,τ} = [B r_τ]_2",
        c3_neg: Vec<[C::G1; 3]> => "C'_{3,j}",
        c3: Vec<[C::G1; 3]> => "C_{3,j}",
    }
    check "one C_{3,j} per leaf, one C'_{3,j} per negated leaf, one C_{2,τ} per occurrence number" => |h| {
        rows_match("header", &h.policy, h.c3.len())?;
        let rows = Rows::of(&h.policy);
        if h.c3_neg.len() != rows.negated {
            return Err(invalid("header", format!("{} C'_3 for {} negated leaves", h.c3_neg.len(), rows.negated)));
        }
        if h.c2.len() != rows.tau {
            return Err(invalid("header", format!("{} C_2 for {} occurrence numbers", h.c2.len(), rows.tau)));
        }
        Ok::<(), WireError>(())
    };
    made_for Policy = |header| header.policy.policy.clone();
}

impl<C: Curve> Header<C> {
    pub fn policy(&self) -> &Policy {
        &self.policy.policy
    }
    pub fn rows(&self) -> usize {
        self.c3.len()
    }
}

/// What a leaf of a negating tree is as a row: its label and value, and
/// for a negated leaf its place among the negated ones.
#[derive(Clone, Debug)]
struct Row<'a> {
    label: Cow<'a, str>,
    /// The value v of a negated leaf `x#!=v` (positive rows have value 0).
    negated: Option<(usize, u64)>,
    /// π(j): the earlier rows of the same label.
    occurrence: usize,
}

struct Rows<'a> {
    rows: Vec<Row<'a>>,
    negated: usize,
    tau: usize,
}

impl<'a> Rows<'a> {
    fn of(policy: &'a NegatingPolicyTree) -> Self {
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut negated = 0;
        let rows: Vec<Row<'a>> = policy
            .tree
            .leaves()
            .iter()
            .map(|leaf| {
                let (label, value): (Cow<'a, str>, _) = match parse_negated_exact_marker(leaf) {
                    Some((name, v)) => {
                        negated += 1;
                        (Cow::Owned(value_label(name)), Some((negated - 1, v)))
                    }
                    None => (Cow::Borrowed(leaf.as_str()), None),
                };
                let n = seen.entry(label.to_string()).or_insert(0);
                *n += 1;
                Row {
                    label,
                    negated: value,
                    occurrence: *n - 1,
                }
            })
            .collect();
        let tau = rows.iter().map(|r| r.occurrence + 1).max().unwrap_or(0);
        Rows { rows, negated, tau }
    }
}

/// The label carrying the value of numeric attribute `name`: `name#`, which
/// no user attribute (no `#`) nor marker (`name#b…`, `name#=…`) equals.
fn value_label(name: &str) -> String {
    format!("{name}#")
}

impl<C: Curve> Authority for Tkn20<C> {
    crate::kem::authority_objects!((), AttributeSet);

    fn setup<R: RngCore + CryptoRng>(
        _: &(),
        rng: &mut R,
    ) -> Result<(PublicKey<C>, MasterKey<C>), KemError> {
        let random = |rng: &mut R| C::Scalar::random(rng);
        let a = Secret([random(rng), random(rng)]);
        let w = Secret(core::array::from_fn(|_| random(rng)));
        let k = Secret(core::array::from_fn(|_| random(rng)));
        let d = loop {
            let bbar_t: Secret<[C::Scalar; 16]> = Secret(core::array::from_fn(|_| random(rng)));
            if let Some(d) = invert4(&bbar_t) {
                break d;
            }
        };
        let mut prf = Secret([0u8; 32]);
        rng.fill_bytes(&mut prf.0);
        let mk = MasterKey {
            setup_id: [0; 16],
            a,
            w,
            d,
            k,
            prf,
        };
        Ok(bind(mk.public_key(), mk))
    }

    fn keygen<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        mk: &MasterKey<C>,
        attrs: &AttributeSet,
        rng: &mut R,
    ) -> Result<UserKey<C>, KemError> {
        issuable(pk, mk, attrs)?;
        let s = Secret([C::Scalar::random(rng), C::Scalar::random(rng)]);
        let (a, w) = (&mk.a, &mk.w);
        // As = (a_1 s_1, a_2 s_2, s_1 + s_2).
        let a_s = Secret([a[0] * s[0], a[1] * s[1], s[0] + s[1]]);
        let h = C::G2::generator();
        let k1 = core::array::from_fn(|t| LinedG2::new(h.mul_secret(&a_s[t])));
        let tb = pk.tables();
        let k2 = core::array::from_fn(|t| {
            let wt_as = (0..3).fold(C::Scalar::zero(), |acc, j| acc + w[j * 4 + t] * a_s[j]);
            C::G1::mul_fixed(&tb.g, &Secret(mk.k[t] + wt_as))
        });
        let labels: Vec<(String, u64)> = attrs
            .iter()
            .map(|x| (x.to_string(), 0))
            .chain(
                attrs
                    .numeric_names()
                    .filter_map(|x| attrs.numeric_value(x).map(|y| (value_label(x), y))),
            )
            .collect();
        let points = Secret(par_map::<C, _, _>(&labels, |(x, y)| {
            k3::<C>(pk, mk, &a_s, x, *y)
        }));
        let mut k3 = BTreeMap::new();
        let mut k3_value = BTreeMap::new();
        for ((x, _), p) in labels.into_iter().zip(points.iter().copied()) {
            match x.strip_suffix('#') {
                Some(name) => k3_value.insert(name.to_string(), p),
                None => k3.insert(x, p),
            };
        }
        Ok(UserKey {
            setup_id: mk.setup_id,
            set: attrs.clone(),
            k1: Secret(k1),
            k2: Secret(k2),
            k3: Secret(k3),
            k3_value: Secret(k3_value),
        })
    }
}

/// K_{3,x} = [W_{x,y} A s]_1 = B* (U_{x,y}^T As) + [B*_12 V_{x,y}^T As]_1:
/// the two points z_c = Σ_t (As)_t U_{x,y}[t][c], then each coordinate a
/// 2-point combination and one fixed-base term.
fn k3<C: Curve>(
    pk: &PublicKey<C>,
    mk: &MasterKey<C>,
    a_s: &[C::Scalar; 3],
    x: &str,
    y: u64,
) -> [C::G1; 4] {
    let u = pk.h_of(x);
    let v = mk.v_of(x);
    let y = C::Scalar::from_u64(y);
    let zero = C::Scalar::zero();
    let z: Secret<[C::G1; 2]> = Secret(core::array::from_fn(|c| {
        let points: Vec<C::G1> = (0..3)
            .map(|t| {
                let i = t * 2 + c;
                if y.is_zero() {
                    u[6 + i]
                } else {
                    u[i].mul_secret(&y) + u[6 + i]
                }
            })
            .collect();
        C::G1::msm_secret(&points, a_s)
    }));
    let vy_as: Secret<[C::Scalar; 2]> = Secret(core::array::from_fn(|c| {
        (0..3).fold(zero, |acc, t| {
            let i = t * 2 + c;
            acc + (y * v[i] + v[6 + i]) * a_s[t]
        })
    }));
    let d = &mk.d;
    core::array::from_fn(|t| {
        let e = Secret(d[t * 4 + 2] * vy_as[0] + d[t * 4 + 3] * vy_as[1]);
        C::G1::msm_secret(&*z, &[d[t * 4], d[t * 4 + 1]]) + C::G1::mul_fixed(&pk.tables().g, &e)
    })
}

impl<C: Curve> Kem for Tkn20<C> {
    crate::kem::kem_objects!(SCHEME, AttributeSet => Policy; the issued key decrypts);

    crate::kem::encapsulate_computing!();

    fn encapsulate_with<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        policy: &Policy,
        rng: &mut R,
        exps: &mut Exps<'_>,
    ) -> Result<(SessionKey, Header<C>), KemError> {
        let policy = NegatingPolicyTree::new(policy.clone())?;
        let rows = Rows::of(&policy);
        let tree = &policy.tree;
        let random2 = |rng: &mut R| Secret([C::Scalar::random(rng), C::Scalar::random(rng)]);
        let r = random2(rng);
        let r_tau: Vec<Secret<[C::Scalar; 2]>> = (0..rows.tau).map(|_| random2(rng)).collect();
        let width = tree.share_width().saturating_sub(1);
        let share = |secret: &C::Scalar, rng: &mut R| {
            let v: Secret<Vec<C::Scalar>> =
                Secret((0..width).map(|_| C::Scalar::random(rng)).collect());
            tree.shares(*secret, &v).map(Secret)
        };
        let (l0, l1) = (share(&r[0], rng)?, share(&r[1], rng)?);
        // The r_τ are shared by the rows of occurrence τ: secret 2τ + i is
        // r_τ[i].
        let shared = Secret(
            r_tau
                .iter()
                .flat_map(|rt| [rt[0], rt[1]])
                .collect::<Vec<_>>(),
        );
        let wb = &pk.tables().wb;
        // Each label's hashes once, before the points share them out.
        let u: Vec<[C::G1; 12]> = par_map::<C, _, _>(&rows.rows, |row| pk.h_of(&row.label));
        // Point t of row j: [W B λ_j]_1 scaled by `sign` (±1 or ±v), plus
        // [U_{x,base} r_τ]_1 (base 0: U_0, base 6: U_1).
        let point = |j: usize, row: &Row<'_>, t: usize, base: usize, sign: C::Scalar| {
            let u = &u[j];
            let tau = 2 * row.occurrence;
            (
                vec![
                    (Fixed(&wb[2 * t]), sign * l0[j]),
                    (Fixed(&wb[2 * t + 1]), sign * l1[j]),
                ],
                vec![
                    (Point(u[base + 2 * t]), tau),
                    (Point(u[base + 2 * t + 1]), tau + 1),
                ],
            )
        };
        let by_point = |keep: &dyn Fn(&Row<'_>) -> bool| -> Vec<(usize, &Row<'_>, usize)> {
            let kept = rows.rows.iter().enumerate().filter(|(_, row)| keep(row));
            kept.flat_map(|(j, row)| (0..3).map(move |t| (j, row, t)))
                .collect()
        };
        let one = C::Scalar::one();
        // In the order the header lists them: C'_3 (negated rows), then C_3.
        // Negated row, value v: C'_{3,j} = [U_1 r_τ + v·W B λ_j]_1.
        let c3_neg = exps.each_shared::<C, _, _>(
            &by_point(&|row| row.negated.is_some()),
            &shared,
            |(j, row, t)| {
                let v = row
                    .negated
                    .map_or(C::Scalar::zero(), |(_, v)| C::Scalar::from_u64(v));
                point(*j, row, *t, 6, v)
            },
        );
        // C_{3,j} = [W B λ_j + U_1 r_τ]_1, or for a negated row
        // [U_0 r_τ − W B λ_j]_1.
        let c3 =
            exps.each_shared::<C, _, _>(&by_point(&|_| true), &shared, |(j, row, t)| {
                match row.negated {
                    None => point(*j, row, *t, 6, one),
                    Some(_) => point(*j, row, *t, 0, -one),
                }
            });
        let triples = |p: Vec<C::G1>| -> Vec<[C::G1; 3]> {
            p.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect()
        };
        let (c3, c3_neg) = (triples(c3), triples(c3_neg));
        let key = pk.btk[0].pow(&r[0]) * pk.btk[1].pow(&r[1]);
        let header = Header {
            setup_id: pk.setup_id(),
            c1: pk.b_times(&r),
            c2: r_tau.iter().map(|rt| pk.b_times(rt)).collect(),
            c3,
            c3_neg,
            policy,
        };
        Ok((SessionKey::from_gt(&key, SCHEME, C::ID), header))
    }

    fn decapsulate(key: &UserKey<C>, header: &Header<C>) -> Result<SessionKey, KemError> {
        same_setup(header, key)?;
        let tree = &header.policy.tree;
        let holds = |leaf: &str| key.set.satisfies_leaf(leaf);
        let selection = tree
            .cheapest_satisfying_by(&holds)
            .ok_or(KemError::NotSatisfied)?;
        let omega = tree.reconstruction::<C::Scalar>(&selection)?;
        let rows = Rows::of(&header.policy);
        let out_of_range = || KemError::Invalid("row index out of range".into());
        // Σ ω_j P_j over the ciphertext's points, and Σ_{π(j)=τ} ω_j Q_j
        // over the key's per occurrence number.
        let mut p = Terms::<C::G1, 3>::new();
        let mut q: Vec<Terms<C::G1, 4>> = (0..rows.tau).map(|_| Terms::new()).collect();
        for (j, w) in &omega {
            let row = rows.rows.get(*j).ok_or_else(out_of_range)?;
            let c3 = header.c3.get(*j).ok_or_else(out_of_range)?;
            let class = q.get_mut(row.occurrence).ok_or_else(out_of_range)?;
            match row.negated {
                None => {
                    let k = key
                        .k3
                        .get(row.label.as_ref())
                        .ok_or(KemError::NotSatisfied)?;
                    p.public.push(*c3, *w);
                    class.public.push(*k, *w);
                }
                Some((n, v)) => {
                    let name = row.label.strip_suffix('#').ok_or_else(out_of_range)?;
                    let y = key.set.numeric_value(name).ok_or(KemError::NotSatisfied)?;
                    let k = key.k3_value.get(name).ok_or(KemError::NotSatisfied)?;
                    let c3_neg = header.c3_neg.get(n).ok_or_else(out_of_range)?;
                    let (v, y) = (C::Scalar::from_u64(v), C::Scalar::from_u64(y));
                    let delta = (v - y).invert().ok_or(KemError::NotSatisfied)?;
                    let wd = *w * delta;
                    p.secret.push(*c3, wd * y);
                    p.secret.push(*c3_neg, wd);
                    class.secret.push(*k, wd);
                }
            }
        }
        let p_sum: [C::G1; 3] = p.sum(lincomb).map(|x| -x);
        let q_sums: Vec<(usize, [C::G1; 4])> = q
            .iter()
            .enumerate()
            .filter(|(_, terms)| !terms.is_empty())
            .map(|(tau, terms)| (tau, terms.sum(lincomb_secret_points)))
            .collect();
        let c1_lines: Vec<C::G2Prepared> = header.c1.iter().map(C::prepare).collect();
        let c2_lines = q_sums
            .iter()
            .map(|(tau, _)| {
                let c2 = header.c2.get(*tau).ok_or_else(out_of_range)?;
                Ok(c2.iter().map(C::prepare).collect::<Vec<_>>())
            })
            .collect::<Result<Vec<_>, KemError>>()?;
        let mut terms: Vec<(C::G1, &C::G2Prepared)> = Vec::with_capacity(7 + 4 * q_sums.len());
        terms.extend(key.k2.iter().copied().zip(&c1_lines));
        for ((_, sum), lines) in q_sums.iter().zip(&c2_lines) {
            terms.extend(sum.iter().copied().zip(lines));
        }
        terms.extend(p_sum.iter().copied().zip(key.k1.iter().map(LinedG2::lines)));
        Ok(SessionKey::from_gt(
            &C::multi_pairing(&terms),
            SCHEME,
            C::ID,
        ))
    }
}

/// A sum Σ c_j·X_j of N-point vectors, kept as two lists: coefficients
/// that are public (the ω_j of positive rows) go through the given
/// combination with its ±1 fast paths; those of negated rows, which depend
/// on the key's value y through δ = 1/(v − y), through the constant-time
/// [`Group::msm_secret`].
struct Terms<G: Group, const N: usize> {
    public: List<G, N>,
    secret: List<G, N>,
}

struct List<G: Group, const N: usize>(Vec<[G; N]>, Vec<G::Scalar>);

impl<G: Group, const N: usize> List<G, N> {
    fn push(&mut self, point: [G; N], coefficient: G::Scalar) {
        self.0.push(point);
        self.1.push(coefficient);
    }

    fn coordinate(&self, t: usize) -> Vec<G> {
        self.0.iter().map(|p| p[t]).collect()
    }
}

impl<G: Group, const N: usize> Terms<G, N> {
    fn new() -> Self {
        Terms {
            public: List(Vec::new(), Vec::new()),
            secret: List(Vec::new(), Vec::new()),
        }
    }

    fn is_empty(&self) -> bool {
        self.public.0.is_empty() && self.secret.0.is_empty()
    }

    fn sum(&self, public: fn(&[G], &[G::Scalar]) -> G) -> [G; N] {
        core::array::from_fn(|t| {
            let secret = &self.secret;
            public(&self.public.coordinate(t), &self.public.1)
                + G::msm_secret(&secret.coordinate(t), &secret.1)
        })
    }
}

/// The inverse of a 4×4 matrix (by rows), by Gauss–Jordan elimination; `None`
/// when it is singular.
fn invert4<S: Scalar>(m: &[S; 16]) -> Option<Secret<[S; 16]>> {
    let (zero, one) = (S::zero(), S::one());
    let mut a = Secret(*m);
    let mut inv = Secret(core::array::from_fn(
        |i| if i % 5 == 0 { one } else { zero },
    ));
    for col in 0..4 {
        let pivot = (col..4).find(|&r| !a[r * 4 + col].is_zero())?;
        if pivot != col {
            for c in 0..4 {
                a.swap(pivot * 4 + c, col * 4 + c);
                inv.swap(pivot * 4 + c, col * 4 + c);
            }
        }
        let p = a[col * 4 + col].invert()?;
        for c in 0..4 {
            a[col * 4 + c] *= p;
            inv[col * 4 + c] *= p;
        }
        for r in (0..4).filter(|&r| r != col) {
            let f = a[r * 4 + col];
            for c in 0..4 {
                let (ac, ic) = (a[col * 4 + c], inv[col * 4 + c]);
                a[r * 4 + c] -= f * ac;
                inv[r * 4 + c] -= f * ic;
            }
        }
    }
    Some(inv)
}

#[cfg(test)]
#[path = "tkn20_tests.rs"]
mod tests;
