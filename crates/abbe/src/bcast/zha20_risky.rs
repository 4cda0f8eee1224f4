//! Zhandry's risky broadcast-and-trace: one MTB instance for N users with
//! one hidden position i*, in KEM form, Type-III.
//!
//! Paper: M. Zhandry, "New Techniques for Traitor Tracing: Size N^{1/3} and
//! More from Pairings", CRYPTO 2020, §9.3, Construction 8 (ePrint
//! 2020/954): the MTB scheme of §9.2 ([`super::mtb`]) with one helper key in
//! the public key, a risky broadcast multi-scheme of size (N, 1, 1);
//! chhatrapati22's full version, ref. [24, §9.3]. Checked against the
//! authors' `Zha20Sec9Point3Risky.java` and `MTBRevised.java`
//! (ArushC/broadcast; notes in docs/sources/broadcast-ii/zha20-risky.md;
//! `RiskyMTBRevised.keyGen` indexes i* by the user instead of the instance).
//!
//! ```text
//! Setup(N):  (PK, MSK) ← MTB.Gen(v = N);  i* ←R [1, N];  tracing key (MSK, i*)
//! KeyGen(i): x = (1,1) if i < i*, (1,0) if i = i*, (0,0) if i > i*;  sk_i = MTB.Extract(i, x)
//! Enc(S):    MTB.Enc(S);  K = Y^α
//! Dec(sk_i, S), i ∈ S:  MTB.Dec
//! Trace: TrEnc(S, (0,1)) reaches the members i ≥ i*, TrEnc(S, (1,0)) those > i*;
//!        a decoder whose success drops between them holds user i*'s key.
//! ```
//! In the tracer's terms ([`super::trace`]) the scheme is a line of four
//! hybrids — normal, TrEnc(0,1), TrEnc(1,0), and a header whose payload key
//! is unrelated, which nobody decrypts — of which only the step TrEnc(0,1) →
//! TrEnc(1,0) accuses (user i*, when the decoder holds i*'s key and its
//! success drops there); the other steps differ for many users and only
//! steer. Over the hidden choice
//! of i* that happens with probability about 1/N — the scheme is *risky*;
//! [`super::zha20`] compiles copies of it into a scheme that traces.
//!
//! ## Type-III placement
//! As [`super::mtb`]: powers and c2 in G1, P, c1 and keys (lines cached) in
//! G2. Ciphertext 4 G1 + 4 G2 (384 bytes on BN254, as the paper's), key
//! 4 G2, public key 8N + 12 G1 + 4 G2 + GT.
//!
//! ## Modes
//! CPA only, as every traceable scheme here: a CCA check would refuse the
//! tracer's ciphertexts.
//!
//! ## The swapped placement
//! Offered for completeness (the standard placement stays the default): every
//! element changes group, under the paper's assumption with the source groups
//! exchanged ([`crate::curve::swapped`]).

use super::mtb::{self, MasterSecrets};
use super::trace::{Line, Traceable};
use super::{user_in_range, Points, Recipients, UserCount, UserIndex};
use crate::bcast::Users;
use crate::curve::{wipe, Curve, LinedG2, Scalar};
use crate::kem::{bind, same_setup, Authority, Kem, KemError, MasterKeyOf, SessionKey};
use crate::wire::codec::object;
use crate::wire::{SchemeId, Secret};
use rand_core::{CryptoRng, RngCore};
use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};

/// The scheme, generic over the curve.
#[derive(Clone, Copy, Debug, Default)]
pub struct Zha20Risky<C>(PhantomData<C>);

const SCHEME: SchemeId = SchemeId::Zha20Risky;

/// 4(N+1): the points of the 4-vectors Π_0..Π_N (or J_0..J_N).
fn four_n_plus_4(n: UserCount) -> u32 {
    4 * (n.get() + 1)
}

object! {
    /// The public key: Y, P ∈ G2⁴, Π_i, h, J_i ∈ G1⁴ (shared on clone).
    #[derive(Clone)]
    pub struct PublicKey<C> = (PublicKey, SCHEME), identified {
        n: UserCount => "N",
        y: C::Gt => "Y = e(g,ĝ)^β",
        p: [C::G2; 4] => "P = [γ e_0]_2",
        pi: Arc<Points<C, C::G1>> => "Π_i = [γ^i e_0]_1, i = 0..N" in four_n_plus_4(n),
        h: [C::G1; 4] => "h = [((β−τ)/γ) e_0]_1",
        j: Arc<Points<C, C::G1>> => "J_i = [τγ^i e_0]_1, i = 0..N" in four_n_plus_4(n),
    }
}

impl<C: Curve> PublicKey<C> {
    pub fn users(&self) -> u32 {
        self.n.get()
    }
    fn mtb(&self) -> mtb::PublicRef<'_, C> {
        mtb::Public {
            y: self.y,
            p: self.p,
            pi: &self.pi,
            h: self.h,
            j: &self.j,
        }
    }
}

object! {
    /// The master key: β, γ, τ, the basis B and the seed of i*; wiped on
    /// drop. It is the tracing key.
    pub struct MasterKey<C> = (MasterKey, SCHEME), bound {
        n: UserCount => "N",
        m: MasterSecrets<C> => "",
        seed: Secret<[u8; 32]> => "seed of i*",
    }
    check "γ ≠ 0, B invertible" => |k| k.m.check();
}

impl<C: Curve> MasterKey<C> {
    /// The hidden position i* ∈ [1, N].
    pub fn hidden_position(&self) -> u32 {
        mtb::hidden_position(&self.seed, 1, self.n.get())
    }
}

object! {
    /// A user key: sk = [(τ/P_i(γ), d_1 x_1, d_2 x_2, η)]_2 (lines cached);
    /// wiped on drop.
    pub struct UserKey<C> = (SchemeUserKey, SCHEME), bound {
        n: UserCount => "N",
        i: u32 => "user index i",
        sk: Secret<[LinedG2<C>; 4]> => "sk",
    }
    cached { pk: Option<PublicKey<C>> }
    check "1 ≤ i ≤ N" => |k| user_in_range(k.i, k.n);
    made_for UserIndex = |key| UserIndex(key.i);
}

object! {
    /// The header: S, c1 ∈ G2⁴, c2 ∈ G1⁴.
    pub struct Header<C> = (KemHeader, SCHEME), bound {
        n: UserCount => "N",
        set: Recipients => "S" in n,
        c1: [C::G2; 4] => "c1",
        c2: [C::G1; 4] => "c2",
    }
    made_for Recipients = |header| header.set.clone();
}

fn ids<S: Scalar>(set: &Recipients) -> Vec<S> {
    set.iter().map(|i| S::from_u64(i as u64)).collect()
}

/// An encryption to `set`, public (`y` = None) or tracing (with y).
fn encrypt<C: Curve, R: RngCore + CryptoRng>(
    pk: &PublicKey<C>,
    set: &Recipients,
    trace: Option<(&MasterKey<C>, [bool; 2])>,
    rng: &mut R,
) -> Result<(SessionKey, Header<C>), KemError> {
    set.check(pk.users())?;
    let mut bs = trace.and_then(|(mk, _)| mk.m.b_star());
    let tr = match (trace, &bs) {
        (Some((mk, y)), Some(bs)) => Some((bs, &mk.m.tables().0, y)),
        _ => None,
    };
    let (k, ct) = mtb::encrypt::<C, R>(&pk.mtb(), &ids(set), tr, rng)?;
    if let Some(b) = bs.as_mut() {
        b.iter_mut()
            .flatten()
            .for_each(|s| wipe(s, C::Scalar::zero()));
    }
    Ok((
        SessionKey::from_gt(&k, SCHEME, C::ID),
        Header {
            setup_id: pk.setup_id(),
            n: pk.n,
            set: set.clone(),
            c1: ct.c1,
            c2: ct.c2,
        },
    ))
}

impl<C: Curve> Authority for Zha20Risky<C> {
    crate::kem::authority_objects!(Users, UserIndex; its own public_key);

    fn setup<R: RngCore + CryptoRng>(
        users: &Users,
        rng: &mut R,
    ) -> Result<(PublicKey<C>, MasterKey<C>), KemError> {
        let n = UserCount::new(users.0)?;
        let mut mk = MasterKey {
            setup_id: [0; 16],
            n,
            m: MasterSecrets::random(rng),
            seed: Secret([0u8; 32]),
        };
        rng.fill_bytes(&mut *mk.seed);
        Ok(bind(Self::public_key(&mk), mk))
    }

    fn public_key(mk: &MasterKey<C>) -> PublicKey<C> {
        let mut sec = mk.m.secrets();
        let p = mtb::public::<C>(&sec, mk.n.get()).expect("a decoded master key is checked");
        sec.wipe();
        PublicKey {
            n: mk.n,
            y: p.y,
            p: p.p,
            pi: Arc::new(Points::new(p.pi)),
            h: p.h,
            j: Arc::new(Points::new(p.j)),
            id: OnceLock::new(),
        }
    }

    /// The setup id, and Y and P recomputed from the secrets: a master key
    /// carrying this setup's id with other secrets would trace with the
    /// wrong B*.
    fn is_public_key_of(pk: &PublicKey<C>, mk: &MasterKey<C>) -> bool {
        pk.setup_id() == mk.setup_id
            && pk.n == mk.n
            && mtb::binds::<C>(mk.m.secrets(), &pk.y, &pk.p)
    }

    fn keygen<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        mk: &MasterKey<C>,
        user: &UserIndex,
        rng: &mut R,
    ) -> Result<UserKey<C>, KemError> {
        if pk.setup_id() != mk.setup_id || pk.n != mk.n {
            return Err(KemError::WrongSetup);
        }
        user.check(mk.n.get())?;
        let star = mk.hidden_position();
        let x = mtb::attributes(user.0, star);
        let mut sec = mk.m.secrets();
        let sk = mtb::extract::<C, R>(
            &sec,
            &mk.m.tables().1,
            C::Scalar::from_u64(user.0 as u64),
            x,
            rng,
        );
        sec.wipe();
        Ok(UserKey {
            setup_id: mk.setup_id,
            n: mk.n,
            i: user.0,
            sk: Secret(sk?.map(LinedG2::new)),
            pk: None,
        })
    }
}

impl<C: Curve> Kem for Zha20Risky<C> {
    crate::kem::kem_objects!(SCHEME, UserIndex => Recipients);

    // Attaches the public key (decryption sums its J_i) when it is the
    // key's setup's.
    super::unattached_keys!(UserKey<C>, PublicKey<C>; keep pk if n);

    fn encapsulate<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        set: &Recipients,
        rng: &mut R,
    ) -> Result<(SessionKey, Header<C>), KemError> {
        encrypt(pk, set, None, rng)
    }

    fn decapsulate(key: &UserKey<C>, h: &Header<C>) -> Result<SessionKey, KemError> {
        let pk = key.pk.as_ref().ok_or_else(|| {
            KemError::Invalid("a zha20-risky key decrypts with its setup's public key".into())
        })?;
        if h.setup_id != key.setup_id || h.n != key.n {
            return Err(KemError::WrongSetup);
        }
        if !h.set.contains(key.i) {
            return Err(KemError::NotSatisfied);
        }
        let others: Vec<C::Scalar> = h
            .set
            .iter()
            .filter(|&u| u != key.i)
            .map(|u| C::Scalar::from_u64(u as u64))
            .collect();
        let lines = [0, 1, 2, 3].map(|k| key.sk[k].lines());
        let ct = mtb::Ciphertext { c1: h.c1, c2: h.c2 };
        let k = mtb::decrypt::<C>(&pk.mtb(), &lines, &others, &ct)?;
        Ok(SessionKey::from_gt(&k, SCHEME, C::ID))
    }
}

impl<C: Curve> Traceable for Zha20Risky<C> {
    const PRIVATE: bool = true;

    fn users(pk: &PublicKey<C>) -> u32 {
        pk.users()
    }

    fn everyone(pk: &PublicKey<C>) -> Recipients {
        Recipients::range(1, pk.users()).expect("N ≥ 1")
    }

    /// One line: 1, i*, i*+1 and N+1.
    /// One line of four hybrids: a normal encryption, TrEnc(S, (0,1)),
    /// TrEnc(S, (1,0)), and a header whose session key is unrelated; only
    /// the step (0,1) → (1,0), which differs for user i* alone, accuses.
    fn lines(pk: &PublicKey<C>, mk: Option<&MasterKey<C>>) -> Vec<Line> {
        let _ = pk;
        vec![Line::Hybrids {
            len: 4,
            accuse: mk
                .map(|mk| vec![(2, mk.hidden_position())])
                .unwrap_or_default(),
        }]
    }

    fn reach(pk: &PublicKey<C>, mk: Option<&MasterKey<C>>, _line: usize, position: u32) -> u32 {
        let star = mk.map_or(pk.users() + 1, MasterKey::hidden_position);
        match position {
            1 => 1,
            2 => star,
            3 => star + 1,
            _ => pk.users() + 1,
        }
    }

    fn encapsulate_at<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        mk: Option<&MasterKeyOf<Self>>,
        set: &Recipients,
        _line: usize,
        position: u32,
        rng: &mut R,
    ) -> Result<(SessionKey, Header<C>), KemError> {
        let mk = mk.ok_or_else(|| KemError::Invalid("tracing needs the master key".into()))?;
        same_setup(pk, mk)?;
        match position {
            1 => encrypt(pk, set, None, rng),
            2 => encrypt(pk, set, Some((mk, [false, true])), rng),
            3 => encrypt(pk, set, Some((mk, [true, false])), rng),
            4 => {
                let (_, header) = encrypt(pk, set, None, rng)?;
                let mut junk = [0u8; 32];
                rng.fill_bytes(&mut junk);
                Ok((SessionKey::from_bytes(junk), header))
            }
            p => Err(KemError::Invalid(format!(
                "position {p} is not on this setup's tracing line (1 to 4)"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{self, rng};
    use crate::curve::{Bls12, Bn254, Counted, OpCounts};
    use crate::kem::{self, Side};

    type Z = Zha20Risky<Bls12>;

    conformance::tests!(Zha20Risky: conformance::broadcast_case(); random_recipients);

    /// The tracing line's four hybrids reach the users from 1, i*, i*+1 and
    /// nobody; only (0,1) → (1,0) accuses, i*; other positions are refused.
    #[test]
    fn tracing_encryptions_reach_the_users_from_u_on() {
        let mut r = rng(4);
        let n = 9;
        let (pk, mk) = Z::setup(&Users(n), &mut r).unwrap();
        let star = mk.hidden_position();
        assert!((1..=n).contains(&star));
        let keys: Vec<_> = (1..=n)
            .map(|u| kem::keygen::<Z>(&pk, &mk, &UserIndex(u), &mut r).unwrap())
            .collect();
        let set = Recipients::range(1, n).unwrap();
        assert_eq!(
            Z::lines(&pk, Some(&mk)),
            vec![Line::Hybrids {
                len: 4,
                accuse: vec![(2, star)]
            }]
        );
        for p in 1..=4 {
            let from = Z::reach(&pk, Some(&mk), 0, p);
            assert_eq!(from, [1, star, star + 1, n + 1][p as usize - 1]);
            let (k, h) = Z::encapsulate_at(&pk, Some(&mk), &set, 0, p, &mut r).unwrap();
            let h = Header::<Bls12>::from_bytes(&h.to_bytes()).unwrap();
            for (idx, key) in keys.iter().enumerate() {
                let v = idx as u32 + 1;
                let got = Z::decapsulate(key, &h).unwrap() == k;
                assert_eq!(got, v >= from, "user {v}, position {p}, i* {star}");
            }
        }
        assert!(Z::encapsulate_at(&pk, Some(&mk), &set, 0, 5, &mut r).is_err());
        assert!(Z::encapsulate_at(&pk, None, &set, 0, 1, &mut r).is_err());
    }

    #[test]
    fn sizes() {
        let mut r = rng(8);
        let (pk, mk) = Zha20Risky::<Bn254>::setup(&Users(20), &mut r).unwrap();
        let set = Recipients::parse("1-10").unwrap();
        let (_, h) = Zha20Risky::<Bn254>::encapsulate(&pk, &set, &mut r).unwrap();
        // 4 G1 + 4 G2 = 384 bytes, the paper's figure.
        assert_eq!(h.to_bytes().len() - 8 - 16 - 4 - set.encoded_len(), 384);
        let key = kem::keygen::<Zha20Risky<Bn254>>(&pk, &mk, &UserIndex(3), &mut r).unwrap();
        assert_eq!(key.to_bytes().len() - 8 - 16 - 4 - 4, 4 * 64);
        let gt = <<Bn254 as Curve>::Gt as crate::curve::Element>::ENCODED_BYTES;
        assert_eq!(
            pk.to_bytes().len() - 8 - 4,
            gt + 4 * 64 + (8 * 20 + 12) * 32
        );
    }

    #[test]
    fn op_counts() {
        type CZ = Zha20Risky<Counted<Bls12>>;
        let mut r = rng(5);
        let (pk, mk) = CZ::setup(&Users(16), &mut r).unwrap();
        let key = kem::keygen::<CZ>(&pk, &mk, &UserIndex(2), &mut r).unwrap();
        let set = Recipients::parse("1-5").unwrap();
        let ((_, h), enc) = OpCounts::measure(|| CZ::encapsulate(&pk, &set, &mut r).unwrap());
        assert_eq!(enc.g1_msm_terms, 4 * 6, "4 MSMs of |S|+1 terms");
        assert_eq!((enc.g1_exp, enc.g2_exp, enc.gt_exp), (4, 4, 1));
        let (_, dec) = OpCounts::measure(|| CZ::decapsulate(&key, &h).unwrap());
        assert_eq!(dec.g1_msm_terms, 4 * 4, "4 MSMs of |S|−1 terms");
        assert_eq!((dec.miller_loops, dec.final_exps), (8, 1));
    }
}
