//! Boneh–Gentry–Waters 2005 general construction (§3.2) with B = ⌊√N⌋, in
//! KEM form, Type-III, KeyGen separate from Setup.
//!
//! Papers: D. Boneh, C. Gentry, B. Waters, CRYPTO 2005, §3.2; its
//! asymmetric version evaluated in chhatrapati22 §3.1 ("[2, S3.2]"),
//! Tables 4, 7–9: B = ⌊√N⌋ as the authors suggest, A = ⌈N/B⌉ instances
//! of the B-user special case sharing the g_k.
//!
//! Notation (the paper's): g ∈ G1, ĝ ∈ G2; α, γ_1..γ_A ∈ Z_p; g_k = g^{α^k},
//! ĝ_k = ĝ^{α^k}; v_ℓ = g^{γ_ℓ}. User i ∈ [1, N] is user b = i − (ℓ−1)B of
//! instance ℓ = ⌈i/B⌉.
//!
//! ```text
//! Setup(N):  PK = (g_1..g_B, g_{B+2}..g_{2B}, ĝ_1..ĝ_B, v_1..v_A, Z = e(g_{B+1}, ĝ))
//!            MSK = (α, γ_1..γ_A)
//! KeyGen(i): d_i = g_b^{γ_ℓ}
//! Encrypt S: t ←R Z_p;  Ŝ_ℓ = {j − (ℓ−1)B : j ∈ S ∩ [(ℓ−1)B+1, ℓB]};
//!            Hdr = (C_0 = ĝ^t, C_ℓ = (v_ℓ · Π_{j∈Ŝ_ℓ} g_{B+1−j})^t for ℓ = 1..A),  K = Z^t
//! Decrypt i: K = e(C_ℓ, ĝ_b) / e(d_i · Π_{j∈Ŝ_ℓ, j≠b} g_{B+1−j+b}, C_0)
//! ```
//! The γ_ℓ are PRF_seed(ℓ) (the master key stays 64 bytes). The Ŝ_ℓ are
//! found by one pass over S (O(|S| + A)), not by the paper's O(N) scan.
//!
//! ## Type-III placement
//! As in [`super::bgw05`]: the g_k, v_ℓ, d_i and the C_ℓ in G1 (the A
//! ciphertext elements and the additions are in the cheaper group), C_0 and
//! the ĝ_k in G2 (the user's ĝ_b lines are cached in its key). Ciphertext:
//! 1 G2 + A G1 (the paper's 384 bytes at N = 100 on BN254).
//!
//! ## Side channels
//! γ_ℓ, α and t meet points only in fixed-base tables, [`Group::mul_secret`]
//! (the A values C_ℓ = (v_ℓ·Π g_{B+1−j})^t) and GT powers: constant time on
//! every curve. Block and index arithmetic is on public recipient indices.
//!
//! ## Operation counts
//! Checked against the formula (and the paper's table where it has one)
//! by `op_counts_*` in the tests below, on `Counted` curves.
//!
//! ## The swapped placement
//! Offered for completeness (the standard placement stays the default): the
//! public key's g_i move to G2 and the per-group ĝ elements to G1, under the
//! n-BDHE assumption with the source groups exchanged
//! ([`crate::curve::swapped`]).

use super::{
    fixed_base_affine, prf_scalar, scalar_pow, user_in_range, Points, Recipients, UserCount,
    UserIndex,
};
use crate::bcast::Users;
use crate::curve::{par_map, wipe, Curve, FixedBaseTable, Group, Scalar, Target};
use crate::kem::{bind, Authority, Kem, KemError, SessionKey};
use crate::wire::codec::object;
use crate::wire::{Lazy, SchemeId, Secret};
use rand_core::{CryptoRng, RngCore};
use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};

type G1A<C> = <<C as Curve>::G1 as Group>::Affine;

/// The scheme, generic over the curve.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bgw05Sqrt<C>(PhantomData<C>);

const SCHEME: SchemeId = SchemeId::Bgw05Sqrt;
const PRF_TAG: &[u8] = b"bgw05-sqrt/gamma";

/// (B, A) = (⌊√N⌋, ⌈N/B⌉).
pub fn shape(n: u32) -> (u32, u32) {
    let mut b = (n as f64).sqrt() as u32;
    while (b as u64 + 1) * (b as u64 + 1) <= n as u64 {
        b += 1;
    }
    while b as u64 * b as u64 > n as u64 {
        b -= 1;
    }
    let b = b.max(1);
    (b, n.div_ceil(b))
}

/// B = ⌊√n⌋, the size of an instance (named so in the format tables).
fn shape_b(n: UserCount) -> u32 {
    shape(n.get()).0
}

/// A = ⌈n/B⌉, the number of instances.
fn shape_a(n: UserCount) -> u32 {
    shape(n.get()).1
}

struct Tables<C: Curve> {
    g1: FixedBaseTable<C::G1>,
    g2: FixedBaseTable<C::G2>,
}

fn tables<C: Curve>() -> Tables<C> {
    Tables {
        g1: C::G1::generator().precompute(),
        g2: C::G2::generator().precompute(),
    }
}

object! {
    /// The public key: Z, g_k = g^{α^k} (k ∈ [1, 2B], k ≠ B+1), ĝ_1..ĝ_B
    /// and v_1..v_A (shared on clone).
    #[derive(Clone)]
    pub struct PublicKey<C> = (PublicKey, SCHEME), identified {
        n: UserCount => "N",
        z: C::Gt => "Z = e(g,ĝ)^{α^{B+1}}",
        g_low: Arc<Points<C, C::G1>> => "g_1..g_B" in shape_b(n),
        g_high: Arc<Points<C, C::G1>> => "g_{B+2}..g_{2B}" in shape_b(n) - 1,
        gh: Arc<Points<C, C::G2>> => "ĝ_1..ĝ_B" in shape_b(n),
        v: Arc<Points<C, C::G1>> => "v_1..v_A" in shape_a(n),
    }
    cached { b: u32 = shape_b(n), a: u32 = shape_a(n), tables: Lazy<Tables<C>> }
}

impl<C: Curve> PublicKey<C> {
    pub fn users(&self) -> u32 {
        self.n.get()
    }
    fn tables(&self) -> &Tables<C> {
        self.tables.get_or_init(tables::<C>)
    }
    /// g_k, k ∈ [1, 2B] \ {B+1}.
    fn g(&self, k: u32) -> G1A<C> {
        if k <= self.b {
            self.g_low[k as usize - 1]
        } else {
            self.g_high[(k - self.b - 2) as usize]
        }
    }
}

object! {
    /// The master key: α and the seed of the γ_ℓ; wiped on drop (checked
    /// against the setup id at key generation).
    pub struct MasterKey<C> = (MasterKey, SCHEME), bound {
        n: UserCount => "N",
        alpha: Secret<C::Scalar> => "α",
        seed: Secret<[u8; 32]> => "seed of the γ_ℓ",
    }
}

impl<C: Curve> MasterKey<C> {
    fn gamma(&self, l: u32) -> C::Scalar {
        prf_scalar(PRF_TAG, &self.seed, l)
    }
    /// Recomputes the public key.
    pub fn public_key(&self) -> PublicKey<C> {
        let t = tables::<C>();
        let (b, a) = shape(self.n.get());
        let pows: Vec<C::Scalar> = {
            let mut e = *self.alpha;
            (1..=2 * b)
                .filter_map(|k| {
                    let cur = e;
                    e *= *self.alpha;
                    (k != b + 1).then_some(cur)
                })
                .collect()
        };
        let mut g_low = fixed_base_affine::<C, C::G1>(&t.g1, &pows);
        let g_high = g_low.split_off(b as usize);
        let gh = fixed_base_affine::<C, C::G2>(&t.g2, &pows[..b as usize]);
        let gammas: Vec<C::Scalar> = (1..=a).map(|l| self.gamma(l)).collect();
        let v = fixed_base_affine::<C, C::G1>(&t.g1, &gammas);
        // Z = e(g_B, ĝ_1) = e(g, ĝ)^{α^{B+1}}
        let z = C::multi_pairing(&[(
            C::G1::from_affine(&g_low[b as usize - 1]),
            &C::prepare(&C::G2::from_affine(&gh[0])),
        )]);
        PublicKey {
            n: self.n,
            z,
            g_low: Arc::new(Points::new(g_low)),
            g_high: Arc::new(Points::new(g_high)),
            gh: Arc::new(Points::new(gh)),
            v: Arc::new(Points::new(v)),
            b,
            a,
            tables: Lazy::from(t),
            id: OnceLock::new(),
        }
    }
}

object! {
    /// A user's private key d_i ∈ G1 (wiped on drop), with (in memory) its
    /// public key and the lines of ĝ_b.
    pub struct UserKey<C> = (SchemeUserKey, SCHEME), bound {
        n: UserCount => "N",
        i: u32 => "user index i",
        d: Secret<C::G1> => "d_i",
    }
    cached { pk: Option<PublicKey<C>>, lines: OnceLock<C::G2Prepared> }
    check "1 ≤ i ≤ N" => |k| user_in_range(k.i, k.n);
    made_for UserIndex = |key| UserIndex(key.i);
}

impl<C: Curve> UserKey<C> {
    pub fn user(&self) -> UserIndex {
        UserIndex(self.i)
    }
    /// Attaches the public key decryption needs.
    pub fn with_public_key(mut self, pk: &PublicKey<C>) -> Result<Self, KemError> {
        self.attach(pk)?;
        Ok(self)
    }
    fn attach(&mut self, pk: &PublicKey<C>) -> Result<(), KemError> {
        if pk.setup_id() != self.setup_id || pk.n != self.n {
            return Err(KemError::WrongSetup);
        }
        self.pk = Some(pk.clone());
        Ok(())
    }
}

object! {
    /// The header: C_0 ∈ G2, C_1..C_A ∈ G1, with S.
    pub struct Header<C> = (KemHeader, SCHEME), bound {
        n: UserCount => "N",
        set: Recipients => "S" in n,
        c0: C::G2 => "C_0",
        c: Vec<C::G1> => "C_1..C_A" in shape_a(n),
    }
    made_for Recipients = |header| header.set.clone();
}

impl<C: Curve> Header<C> {
    pub fn recipients(&self) -> &Recipients {
        &self.set
    }
}

impl<C: Curve> Authority for Bgw05Sqrt<C> {
    crate::kem::authority_objects!(Users, UserIndex);

    /// Setup for N users (indices 1..=N).
    fn setup<R: RngCore + CryptoRng>(
        users: &Users,
        rng: &mut R,
    ) -> Result<(PublicKey<C>, MasterKey<C>), KemError> {
        let mut mk = MasterKey {
            setup_id: [0; 16],
            n: UserCount::new(users.0)?,
            alpha: Secret(C::Scalar::random(rng)),
            seed: Secret([0u8; 32]),
        };
        rng.fill_bytes(&mut *mk.seed);
        Ok(bind(mk.public_key(), mk))
    }

    fn keygen<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        mk: &MasterKey<C>,
        user: &UserIndex,
        _rng: &mut R,
    ) -> Result<UserKey<C>, KemError> {
        if pk.setup_id() != mk.setup_id || pk.n != mk.n {
            return Err(KemError::WrongSetup);
        }
        user.check(mk.n.get())?;
        let bb = pk.b;
        let (l, b) = ((user.0 - 1) / bb + 1, (user.0 - 1) % bb + 1);
        let mut e = mk.gamma(l) * scalar_pow(*mk.alpha, b as u64);
        let d = C::G1::mul_fixed(&pk.tables().g1, &e);
        wipe(&mut e, C::Scalar::zero());
        Ok(UserKey {
            setup_id: mk.setup_id,
            n: mk.n,
            i: user.0,
            d: Secret(d),
            pk: Some(pk.clone()),
            lines: OnceLock::new(),
        })
    }
}

impl<C: Curve> Kem for Bgw05Sqrt<C> {
    crate::kem::kem_objects!(SCHEME, UserIndex => Recipients);

    // Attaches the public key when it belongs to the key's setup (a
    // mismatch is left for decryption to report as `WrongSetup`): the
    // decryption sums public elements.
    super::unattached_keys!(UserKey<C>, PublicKey<C>; attach);

    fn encapsulate<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        set: &Recipients,
        rng: &mut R,
    ) -> Result<(SessionKey, Header<C>), KemError> {
        set.check(pk.users())?;
        let t = C::Scalar::random(rng);
        let c0 = C::G2::mul_fixed(&pk.tables().g2, &t);
        // Ŝ_ℓ, as the points g_{B+1−j} to multiply, in one pass over S.
        let mut parts: Vec<Vec<G1A<C>>> = vec![Vec::new(); pk.a as usize];
        for j in set.iter() {
            let (l, b) = ((j - 1) / pk.b, (j - 1) % pk.b + 1);
            parts[l as usize].push(pk.g(pk.b + 1 - b));
        }
        let idx: Vec<usize> = (0..pk.a as usize).collect();
        let c = par_map::<C, _, _>(&idx, |&l| {
            let v = C::G1::from_affine(&pk.v[l]);
            let s = if parts[l].is_empty() {
                v
            } else {
                C::G1::sum_affine(&parts[l]) + v
            };
            s.mul_secret(&t)
        });
        let key = SessionKey::from_gt(&pk.z.pow(&t), SCHEME, C::ID);
        Ok((
            key,
            Header {
                setup_id: pk.setup_id(),
                n: pk.n,
                set: set.clone(),
                c0,
                c,
            },
        ))
    }

    fn decapsulate(key: &UserKey<C>, header: &Header<C>) -> Result<SessionKey, KemError> {
        if header.setup_id != key.setup_id || header.n != key.n {
            return Err(KemError::WrongSetup);
        }
        if !header.set.contains(key.i) {
            return Err(KemError::NotSatisfied);
        }
        let p = key.pk.as_ref().ok_or_else(|| {
            KemError::Invalid(
                "BGW05 decryption needs the public key: attach it with UserKey::with_public_key"
                    .into(),
            )
        })?;
        let (l, b) = ((key.i - 1) / p.b, (key.i - 1) % p.b + 1);
        let lo = l * p.b + 1;
        let hi = ((l + 1) * p.b).min(p.users());
        let others: Vec<G1A<C>> = header
            .set
            .iter_range(lo, hi)
            .filter(|&j| j != key.i)
            .map(|j| p.g(p.b + 1 - (j - l * p.b) + b))
            .collect();
        let sum = if others.is_empty() {
            *key.d
        } else {
            C::G1::sum_affine(&others) + *key.d
        };
        let gh = key
            .lines
            .get_or_init(|| C::prepare(&C::G2::from_affine(&p.gh[b as usize - 1])));
        let c0_lines = C::prepare(&header.c0);
        let k = C::multi_pairing(&[(header.c[l as usize], gh), (-sum, &c0_lines)]);
        Ok(SessionKey::from_gt(&k, SCHEME, C::ID))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{self, rng, Retarget};
    use crate::curve::{Bls12, Bn254, Counted, OpCounts};
    use crate::kem::Side;

    type B = Bgw05Sqrt<Bls12>;

    conformance::tests!(Bgw05Sqrt: conformance::broadcast_case(); random_recipients, forged_recipients);
    conformance::retarget!(Bgw05Sqrt<C>, set);

    #[test]
    fn shapes() {
        assert_eq!(shape(1), (1, 1));
        assert_eq!(shape(3), (1, 3));
        assert_eq!(shape(4), (2, 2));
        assert_eq!(shape(100), (10, 10));
        assert_eq!(shape(101), (10, 11));
        assert_eq!(shape(1_000_000), (1000, 1000));
        assert_eq!(shape(999_999), (999, 1001));
    }

    #[test]
    fn sizes_match_table_8() {
        // Table 8 (BN254): ct 384 B at N = 100, 1.12 KB at 1K (B = 31,
        // A = 33: 33·32 + 64 = 1120), 3.26 KB at 10K, 32.06 KB at 1M
        // (bodies: after the preamble, setup id, N, i and S).
        let mut r = rng(8);
        for (n, ct) in [
            (100, 384),
            (1000, 1120),
            (10_000, 3264),
            (1_000_000, 32_064),
        ] {
            let (pk, mk) = Bgw05Sqrt::<Bn254>::setup(&Users(n), &mut r).unwrap();
            let set = Recipients::parse("1-10").unwrap();
            let (_, h) = Bgw05Sqrt::<Bn254>::encapsulate(&pk, &set, &mut r).unwrap();
            assert_eq!(h.to_bytes().len() - 8 - 16 - 4 - set.encoded_len(), ct);
            if n == 100 {
                // pk: (2B−1+A)·32 + B·64 (+ GT) — Table 8's 1.66 KB.
                assert_eq!(pk.to_bytes().len() - 8 - 4 - 384, 29 * 32 + 640);
                let key = Bgw05Sqrt::<Bn254>::keygen(&pk, &mk, &UserIndex(7), &mut r).unwrap();
                assert_eq!(key.to_bytes().len() - 8 - 16 - 4 - 4, 32);
            }
        }
    }

    /// A header replayed to another √N instance (the outsider's side:
    /// [`conformance::forged_recipients`]).
    #[test]
    fn headers_replayed_to_another_instance_fail() {
        let mut r = rng(3);
        let (pk, mk) = B::setup(&Users(16), &mut r).unwrap();
        let (key, header) =
            B::encapsulate(&pk, &Recipients::parse("1-3").unwrap(), &mut r).unwrap();
        let other_instance = B::keygen(&pk, &mk, &UserIndex(5), &mut r).unwrap();
        let forged = B::retarget(&header, Recipients::parse("1-3,5").unwrap());
        assert_ne!(B::decapsulate(&other_instance, &forged).unwrap(), key);
    }

    #[test]
    fn op_counts_match_table_9() {
        type CB = Bgw05Sqrt<Counted<Bls12>>;
        let mut r = rng(5);
        let n = 30u32;
        let (b, a) = shape(n);
        let (b, a) = (b as u64, a as u64);
        let ((pk, mk), setup) = OpCounts::measure(|| CB::setup(&Users(n), &mut r).unwrap());
        assert_eq!(setup.g1_fixed_exp, 2 * b + a - 1);
        assert_eq!(setup.g2_fixed_exp, b);
        assert_eq!((setup.miller_loops, setup.final_exps), (1, 1));
        let (key, kg) = OpCounts::measure(|| CB::keygen(&pk, &mk, &UserIndex(1), &mut r).unwrap());
        assert_eq!(kg.g1_fixed_exp, 1);
        for s in [1u32, 3, 4, 30] {
            let set = Recipients::range(1, s).unwrap();
            let ((_, h), enc) = OpCounts::measure(|| CB::encapsulate(&pk, &set, &mut r).unwrap());
            assert_eq!(enc.g1_exp, a, "λ1^3·A");
            assert_eq!(enc.g1_add, s as u64, "λ1·|S|");
            assert_eq!(enc.g2_fixed_exp, 1);
            let (_, dec) = OpCounts::measure(|| CB::decapsulate(&key, &h).unwrap());
            let sa = s.min(b as u32) as u64;
            assert_eq!(dec.g1_add, sa - 1, "λ1·(|S_a|−1)");
            assert_eq!((dec.miller_loops, dec.final_exps), (2, 1));
        }
    }
}
