//! Zhandry's broadcast-and-trace with user expansion and risk mitigation
//! (parameter a), in KEM form, Type-III.
//!
//! Paper: M. Zhandry, "New Techniques for Traitor Tracing: Size N^{1/3} and
//! More from Pairings", CRYPTO 2020 (ePrint 2020/954): the risky scheme of
//! §9.3 ([`super::zha20_risky`]) through the user-expansion compiler (§2.1)
//! and the risk-mitigation compiler (§2.3); chhatrapati22's full version,
//! ref. [24, §9.3] ("Trace: O(λN^{1−a}), …, a ∈ [0, 1]"). Checked against
//! the authors' `NonriskyBroadcastAndTrace.java` (ArushC/broadcast; notes in
//! docs/sources/broadcast-ii/zha20.md), whose block and copy arithmetic we
//! keep (M = 1).
//!
//! ```text
//! Setup(N, a):  T = ⌈N^a⌉ blocks of n' = ⌈N/T⌉ users (T lowered to ⌈N/n'⌉ where
//!               rounding would leave blocks empty), k = n' copies;
//!               (PK, MSK) ← MTB.Gen(v = n');  i*_J ←R [1, n'] for every instance J ∈ [1, kT]
//! user u = (j, i):  j = ⌈u/n'⌉, i = u − (j−1)n';  instance of block j in copy X: J = j + T(X−1);
//!               its MTB identity (J−1)n' + i
//! KeyGen(u):    for X = 1..k:  sk_X = MTB.Extract(ID, x) with x = (1,1), (1,0), (0,0)
//!               as i <, =, > i*_J                                    (4k G2: O(N^{1−a}))
//! Enc(S):       X ←R [1, k];  κ ←R {0,1}^256;  for each block j with S_j ≠ ∅:
//!               (K_j, c1_j, c2_j) ← MTB.Enc({IDs of S_j in instance J});  e_j = κ ⊕ KDF(K_j, J)
//!               Hdr = (X, S, (c1_j, c2_j, e_j)_j)                       (O(N^a) blocks)
//! Dec(sk_u):    K_j ← MTB.Dec(sk_X, block j);  κ = e_j ⊕ KDF(K_j, J)
//! ```
//! Every block carries the same κ, so a block can be made junk (its e_j
//! random) without any other block changing: the tracer's hybrids.
//! (The authors' Java returns each block's K_j and never combines them; a
//! KEM has to, and a shared α would let anyone check a block against c1.)
//!
//! ## Tracing
//! Private (the i*_J and the basis B are secret). Copy X is a line of
//! hybrids of the tracer ([`super::trace`]): for each block j, (blocks < j
//! junk, the rest normal), then block j encrypted with y = (0,1) and with
//! (1,0) ([`super::mtb`]'s mixed bit matching), reaching the users of block
//! j from i*_J on or after it; last, every block junk. A decoder's success
//! drops across the blocks it holds keys of; only a drop at a block's step
//! (0,1) → (1,0), which differs for user i*_J alone, accuses (that user).
//! The other steps differ for several users — and two keys of one block
//! can tell a junk block from a trace mode, since below i*_J each recovers
//! its own garbage under a trace mode but the same K under junk — so they
//! only steer the search. A single key is hit in each copy with probability about 1/n', so
//! the k = n' copies trace one key with probability about
//! 1 − (1 − 1/n')^{n'} ≥ 63 % (the compiler's constant, as the authors set
//! it); a miss accuses nobody (never an innocent).
//!
//! ## Type-III placement
//! As [`super::mtb`]: per block c1 ∈ G2⁴, c2 ∈ G1⁴ (384 bytes on BN254) plus
//! the 32-byte wrap; keys in G2 (lines cached), the powers in G1.
//!
//! ## Modes
//! CPA only, as every traceable scheme here.
//!
//! ## The swapped placement
//! Offered for completeness (the standard placement stays the default): every
//! element changes group, under the assumptions of the risky scheme it compiles
//! with the source groups exchanged ([`crate::curve::swapped`]).

use super::mtb::{self, MasterSecrets};
use super::trace::{Line, Traceable};
use super::{user_in_range, Points, Recipients, UserCount, UserIndex};
use crate::bcast::Expansion;
use crate::curve::{wipe, Curve, LinedG2, Scalar};
use crate::kem::{bind, same_setup, Authority, Kem, KemError, MasterKeyOf, SessionKey};
use crate::wire::codec::{invalid, object};
use crate::wire::{SchemeId, Secret, WireError};
use rand_core::{CryptoRng, RngCore};
use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};

/// The scheme, generic over the curve.
#[derive(Clone, Copy, Debug, Default)]
pub struct Zha20<C>(PhantomData<C>);

const SCHEME: SchemeId = SchemeId::Zha20;

/// n' = ⌈N/⌈N^a⌉⌉ users per block and T = ⌈N/n'⌉ blocks (⌈N^a⌉, less
/// the blocks that rounding would leave empty).
pub fn shape(n: u32, a: f64) -> (u32, u32) {
    let t = ((n as f64).powf(a).ceil() as u32).clamp(1, n);
    let np = n.div_ceil(t);
    (n.div_ceil(np), np)
}

/// The layout of a setup: N, T blocks of n' users, k copies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    n: u32,
    t: u32,
    np: u32,
    k: u32,
}

impl Layout {
    fn new(n: u32, t: u32, np: u32, k: u32) -> Result<Self, String> {
        UserCount::new(n).map_err(|e| e.to_string())?;
        if t == 0 || np == 0 || k == 0 || t > n || np > n || k > n {
            return Err("blocks, block size and copies must be in [1, N]".into());
        }
        // Instances J = j + T(X − 1) ≤ Tk stay in u32 and identities
        // (J − 1)n' + i in u64 (setup makes k = n', so Tk < 2N).
        if (t as u64) * (k as u64) > u32::MAX as u64 {
            return Err("T·k must fit in 32 bits".into());
        }
        if (t as u64) * (np as u64) < n as u64 || ((t - 1) as u64) * (np as u64) >= n as u64 {
            return Err("T blocks of n' users must hold N, and the last block a user".into());
        }
        Ok(Layout { n, t, np, k })
    }
    /// 4(n'+1): the points of Π_0..Π_{n'} (or J).
    fn powers(self) -> u32 {
        4 * (self.np + 1)
    }
    /// Block j and position i of user u.
    fn position(self, u: u32) -> (u32, u32) {
        ((u - 1) / self.np + 1, (u - 1) % self.np + 1)
    }
    /// The instance of block j in copy X.
    fn instance(self, j: u32, x: u32) -> u32 {
        j + self.t * (x - 1)
    }
    /// The MTB identity of position i of instance J.
    fn id<S: Scalar>(self, instance: u32, i: u32) -> S {
        S::from_u64((instance as u64 - 1) * self.np as u64 + i as u64)
    }
    /// The members of block j: their positions i.
    fn members(self, set: &Recipients, j: u32) -> Vec<u32> {
        let lo = (j - 1) * self.np + 1;
        set.iter_range(lo, lo + self.np - 1)
            .map(|u| u - lo + 1)
            .collect()
    }
    /// The blocks with members of S as runs [first, end] (empty when
    /// first > end), one per range of S, each starting after the blocks
    /// already given: O(ranges), not O(|S|).
    fn block_runs(self, set: &Recipients) -> impl Iterator<Item = (u32, u32)> + '_ {
        let mut last = 0;
        set.ranges().iter().map(move |&(a, b)| {
            let (first, end) = (self.position(a).0.max(last + 1), self.position(b).0);
            last = last.max(end);
            (first, end)
        })
    }
    /// The blocks with members of S, in order.
    fn blocks(self, set: &Recipients) -> impl Iterator<Item = u32> + '_ {
        self.block_runs(set).flat_map(|(first, end)| first..=end)
    }
    /// How many blocks have members of S (a header's block count, read
    /// before its blocks).
    fn block_count(self, set: &Recipients) -> u32 {
        self.block_runs(set)
            .map(|(first, end)| (end + 1).saturating_sub(first))
            .sum()
    }
}

impl crate::wire::codec::Codec for Layout {
    const MIN_BYTES: usize = 16;
    fn layout() -> String {
        "u32 N ‖ u32 T ‖ u32 n' ‖ u32 k; 1 ≤ T, n', k ≤ N ≤ 2^24, (T−1)n' < N ≤ Tn', Tk < 2^32"
            .into()
    }
    fn encode(&self, w: &mut crate::wire::Writer) {
        w.u32(self.n).u32(self.t).u32(self.np).u32(self.k);
    }
    fn decode(r: &mut crate::wire::Reader<'_>, what: &'static str) -> Result<Self, WireError> {
        let (n, t, np, k) = (r.u32(what)?, r.u32(what)?, r.u32(what)?, r.u32(what)?);
        Layout::new(n, t, np, k).map_err(|e| invalid(what, e))
    }
}

/// The layout's N (a broadcast header's S is checked against it).
fn users_of(l: Layout) -> u32 {
    l.n
}

/// The number of blocks with members of S (the header's block count).
fn blocks_of(l: Layout, set: &Recipients) -> u32 {
    l.block_count(set)
}

object! {
    /// The public key: the layout, Y, P ∈ G2⁴, Π_i, h, J_i ∈ G1⁴ (i ≤ n').
    #[derive(Clone)]
    pub struct PublicKey<C> = (PublicKey, SCHEME), identified {
        layout: Layout => "layout",
        y: C::Gt => "Y = e(g,ĝ)^β",
        p: [C::G2; 4] => "P = [γ e_0]_2",
        pi: Arc<Points<C, C::G1>> => "Π_i = [γ^i e_0]_1, i = 0..n'" in layout.powers(),
        h: [C::G1; 4] => "h = [((β−τ)/γ) e_0]_1",
        j: Arc<Points<C, C::G1>> => "J_i = [τγ^i e_0]_1, i = 0..n'" in layout.powers(),
    }
}

impl<C: Curve> PublicKey<C> {
    pub fn users(&self) -> u32 {
        self.layout.n
    }
    /// (T, n', k).
    pub fn shape(&self) -> (u32, u32, u32) {
        (self.layout.t, self.layout.np, self.layout.k)
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
    /// The master key: the layout, β, γ, τ, B and the seed of the i*_J;
    /// wiped on drop. It is the tracing key.
    pub struct MasterKey<C> = (MasterKey, SCHEME), bound {
        layout: Layout => "layout",
        m: MasterSecrets<C> => "",
        seed: Secret<[u8; 32]> => "seed of the i*_J",
    }
    check "γ ≠ 0, B invertible" => |k| k.m.check();
}

impl<C: Curve> MasterKey<C> {
    /// i*_J.
    pub fn hidden_position(&self, instance: u32) -> u32 {
        mtb::hidden_position(&self.seed, instance, self.layout.np)
    }
}

/// k copies of a 4-vector key.
fn four_k(l: Layout) -> u32 {
    4 * l.k
}

object! {
    /// A user key: for each copy X its MTB key sk_X ∈ G2⁴ (lines cached);
    /// wiped on drop.
    pub struct UserKey<C> = (SchemeUserKey, SCHEME), bound {
        layout: Layout => "layout",
        i: u32 => "user index u",
        sk: Secret<Vec<LinedG2<C>>> => "sk_X, X = 1..k (4 × G2 each)" in four_k(layout),
    }
    cached { pk: Option<PublicKey<C>> }
    check "1 ≤ u ≤ N" => |k| user_in_range(k.i, UserCount::new(k.layout.n).map_err(|e| invalid("user key", e.to_string()))?);
    made_for UserIndex = |key| UserIndex(key.i);
}

/// One block of a header: c1 ∈ G2⁴, c2 ∈ G1⁴, e_j.
type Block<C> = ([<C as Curve>::G2; 4], [<C as Curve>::G1; 4], [u8; 32]);

object! {
    /// The header: the copy X, S, and for every block with members of S
    /// (in order) c1, c2 and the wrapped session key.
    pub struct Header<C> = (KemHeader, SCHEME), bound {
        layout: Layout => "layout",
        x: u32 => "copy X",
        set: Recipients => "S" in users_of(layout),
        blocks: Vec<Block<C>> => "per block with members: c1 (4 × G2) ‖ c2 (4 × G1) ‖ e_j (32 bytes)" in blocks_of(layout, &set),
    }
    check "1 ≤ X ≤ k" => |h| if (1..=h.layout.k).contains(&h.x) { Ok(()) } else { Err(invalid("header", "copy outside [1, k]")) };
    made_for Recipients = |header| header.set.clone();
}

/// KDF(K_j, J): the pad of block j.
fn pad<C: Curve>(k: &C::Gt, instance: u32) -> [u8; 32] {
    let mut bytes = crate::curve::Target::to_bytes(k);
    bytes.extend_from_slice(&instance.to_be_bytes());
    let key = SessionKey::from_bytes_kdf(&bytes, SCHEME, C::ID);
    crate::curve::wipe_bytes(&mut bytes);
    *key.as_bytes()
}

fn xor(a: &[u8; 32], b: &[u8; 32]) -> [u8; 32] {
    core::array::from_fn(|i| a[i] ^ b[i])
}

/// How the tracer encrypts a block: normally, junk (random e_j), or with
/// mixed-bit attributes y.
#[derive(Clone, Copy, PartialEq, Eq)]
enum BlockMode {
    Normal,
    Junk,
    Trace([bool; 2]),
}

/// Enc(S) in copy X, block j encrypted as `mode(j)`.
fn encrypt<C: Curve, R: RngCore + CryptoRng>(
    pk: &PublicKey<C>,
    set: &Recipients,
    x: u32,
    mode: impl Fn(u32) -> BlockMode,
    mk: Option<&MasterKey<C>>,
    rng: &mut R,
) -> Result<(SessionKey, Header<C>), KemError> {
    set.check(pk.users())?;
    let l = pk.layout;
    let mut kappa = [0u8; 32];
    rng.fill_bytes(&mut kappa);
    let mut bs = mk.and_then(|mk| mk.m.b_star());
    let mut blocks = Vec::new();
    for j in l.blocks(set) {
        let instance = l.instance(j, x);
        let ids: Vec<C::Scalar> = l
            .members(set, j)
            .into_iter()
            .map(|i| l.id(instance, i))
            .collect();
        let m = mode(j);
        let tr = match (m, &bs, mk) {
            (BlockMode::Trace(y), Some(bs), Some(mk)) => Some((bs, &mk.m.tables().0, y)),
            (BlockMode::Trace(_), ..) => {
                return Err(KemError::Invalid("tracing needs the master key".into()))
            }
            _ => None,
        };
        let (k, ct) = mtb::encrypt::<C, R>(&pk.mtb(), &ids, tr, rng)?;
        let e = match m {
            BlockMode::Junk => {
                let mut r = [0u8; 32];
                rng.fill_bytes(&mut r);
                r
            }
            _ => xor(&kappa, &pad::<C>(&k, instance)),
        };
        blocks.push((ct.c1, ct.c2, e));
    }
    if let Some(b) = bs.as_mut() {
        b.iter_mut()
            .flatten()
            .for_each(|s| wipe(s, C::Scalar::zero()));
    }
    let key = SessionKey::from_bytes_kdf(&kappa, SCHEME, C::ID);
    crate::curve::wipe_bytes(&mut kappa);
    Ok((
        key,
        Header {
            setup_id: pk.setup_id(),
            layout: l,
            x,
            set: set.clone(),
            blocks,
        },
    ))
}

/// A uniform copy in [1, k].
fn random_copy<R: RngCore + CryptoRng>(k: u32, rng: &mut R) -> u32 {
    let zone = u32::MAX - u32::MAX % k;
    loop {
        let v = rng.next_u32();
        if v < zone {
            return 1 + v % k;
        }
    }
}

impl<C: Curve> Authority for Zha20<C> {
    crate::kem::authority_objects!(Expansion, UserIndex; its own public_key);

    fn setup<R: RngCore + CryptoRng>(
        params: &Expansion,
        rng: &mut R,
    ) -> Result<(PublicKey<C>, MasterKey<C>), KemError> {
        let n = UserCount::new(params.users)?.get();
        let (t, np) = shape(n, params.a);
        let layout = Layout::new(n, t, np, np).map_err(KemError::Invalid)?;
        let mut mk = MasterKey {
            setup_id: [0; 16],
            layout,
            m: MasterSecrets::random(rng),
            seed: Secret([0u8; 32]),
        };
        rng.fill_bytes(&mut *mk.seed);
        Ok(bind(Self::public_key(&mk), mk))
    }

    fn public_key(mk: &MasterKey<C>) -> PublicKey<C> {
        let mut sec = mk.m.secrets();
        let p = mtb::public::<C>(&sec, mk.layout.np).expect("a decoded master key is checked");
        sec.wipe();
        PublicKey {
            layout: mk.layout,
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
            && pk.layout == mk.layout
            && mtb::binds::<C>(mk.m.secrets(), &pk.y, &pk.p)
    }

    /// k MTB keys: 4k fixed-base G2 exponentiations.
    fn keygen<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        mk: &MasterKey<C>,
        user: &UserIndex,
        rng: &mut R,
    ) -> Result<UserKey<C>, KemError> {
        if pk.setup_id() != mk.setup_id || pk.layout != mk.layout {
            return Err(KemError::WrongSetup);
        }
        let l = mk.layout;
        user.check(l.n)?;
        let (j, i) = l.position(user.0);
        let mut sec = mk.m.secrets();
        let mut sk = Vec::with_capacity(4 * l.k as usize);
        for x in 1..=l.k {
            let instance = l.instance(j, x);
            let attrs = mtb::attributes(i, mk.hidden_position(instance));
            let key = mtb::extract::<C, R>(&sec, &mk.m.tables().1, l.id(instance, i), attrs, rng);
            match key {
                Ok(k) => sk.extend(k.map(LinedG2::new)),
                Err(e) => {
                    sec.wipe();
                    return Err(e);
                }
            }
        }
        sec.wipe();
        Ok(UserKey {
            setup_id: mk.setup_id,
            layout: l,
            i: user.0,
            sk: Secret(sk),
            pk: None,
        })
    }
}

impl<C: Curve> Kem for Zha20<C> {
    crate::kem::kem_objects!(SCHEME, UserIndex => Recipients);

    // Attaches the public key (decryption sums its J_i) when it is the
    // key's setup's.
    super::unattached_keys!(UserKey<C>, PublicKey<C>; keep pk if layout);

    fn encapsulate<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        set: &Recipients,
        rng: &mut R,
    ) -> Result<(SessionKey, Header<C>), KemError> {
        let x = random_copy(pk.layout.k, rng);
        encrypt(pk, set, x, |_| BlockMode::Normal, None, rng)
    }

    fn decapsulate(key: &UserKey<C>, h: &Header<C>) -> Result<SessionKey, KemError> {
        let pk = key.pk.as_ref().ok_or_else(|| {
            KemError::Invalid("a zha20 key decrypts with its setup's public key".into())
        })?;
        if h.setup_id != key.setup_id || h.layout != key.layout {
            return Err(KemError::WrongSetup);
        }
        if !h.set.contains(key.i) {
            return Err(KemError::NotSatisfied);
        }
        let l = key.layout;
        let (j, i) = l.position(key.i);
        let rank = l
            .blocks(&h.set)
            .position(|b| b == j)
            .ok_or(KemError::NotSatisfied)?;
        let instance = l.instance(j, h.x);
        let others: Vec<C::Scalar> = l
            .members(&h.set, j)
            .into_iter()
            .filter(|p| *p != i)
            .map(|p| l.id(instance, p))
            .collect();
        let x0 = 4 * (h.x as usize - 1);
        let lines = [0, 1, 2, 3].map(|k| key.sk[x0 + k].lines());
        let (c1, c2, e) = h
            .blocks
            .get(rank)
            .ok_or_else(|| KemError::Invalid("a block of the header is missing".into()))?;
        let ct = mtb::Ciphertext { c1: *c1, c2: *c2 };
        let k = mtb::decrypt::<C>(&pk.mtb(), &lines, &others, &ct)?;
        let mut kappa = xor(e, &pad::<C>(&k, instance));
        let key = SessionKey::from_bytes_kdf(&kappa, SCHEME, C::ID);
        crate::curve::wipe_bytes(&mut kappa);
        Ok(key)
    }
}

impl<C: Curve> Traceable for Zha20<C> {
    const PRIVATE: bool = true;

    fn users(pk: &PublicKey<C>) -> u32 {
        pk.users()
    }

    fn everyone(pk: &PublicKey<C>) -> Recipients {
        Recipients::range(1, pk.users()).expect("N ≥ 1")
    }

    /// One line per copy X of 3T + 1 hybrids: for each block j in turn,
    /// (blocks < j junk, the rest normal), then block j in TrEnc(0,1) and
    /// TrEnc(1,0); last, every block junk. Only each block's step (0,1) →
    /// (1,0), which differs for its user i*_J alone, accuses; the others
    /// differ for several users (and a coalition of a block's keys can tell
    /// junk from a trace mode), so they only steer.
    fn lines(pk: &PublicKey<C>, mk: Option<&MasterKey<C>>) -> Vec<Line> {
        let l = pk.layout;
        let len = 3 * l.t + 1;
        let Some(mk) = mk else {
            return vec![Line::Hybrids {
                len,
                accuse: Vec::new(),
            }];
        };
        (1..=l.k)
            .map(|x| Line::Hybrids {
                len,
                accuse: (1..=l.t)
                    .filter_map(|j| {
                        let user = (j - 1) * l.np + mk.hidden_position(l.instance(j, x));
                        (user <= l.n).then_some((3 * (j - 1) + 2, user))
                    })
                    .collect(),
            })
            .collect()
    }

    fn reach(pk: &PublicKey<C>, mk: Option<&MasterKey<C>>, line: usize, position: u32) -> u32 {
        let l = pk.layout;
        match (hybrid(l, position), mk) {
            (Some((j, step)), Some(mk)) => {
                let base = (j - 1) * l.np;
                let star = mk.hidden_position(l.instance(j, line as u32 + 1));
                match step {
                    0 => base + 1,
                    1 => base + star,
                    _ => base + star + 1,
                }
            }
            _ => l.n + 1,
        }
    }

    fn encapsulate_at<R: RngCore + CryptoRng>(
        pk: &PublicKey<C>,
        mk: Option<&MasterKeyOf<Self>>,
        set: &Recipients,
        line: usize,
        position: u32,
        rng: &mut R,
    ) -> Result<(SessionKey, Header<C>), KemError> {
        let mk = mk.ok_or_else(|| KemError::Invalid("tracing needs the master key".into()))?;
        same_setup(pk, mk)?;
        let l = pk.layout;
        let x = line as u32 + 1;
        if x > l.k || position == 0 || position > 3 * l.t + 1 {
            return Err(KemError::Invalid(format!(
                "no position {position} in copy {x}"
            )));
        }
        let Some((j, step)) = hybrid(l, position) else {
            return encrypt(pk, set, x, |_| BlockMode::Junk, Some(mk), rng);
        };
        let own = match step {
            0 => BlockMode::Normal,
            1 => BlockMode::Trace([false, true]),
            _ => BlockMode::Trace([true, false]),
        };
        let mode = |b: u32| match b.cmp(&j) {
            core::cmp::Ordering::Less => BlockMode::Junk,
            core::cmp::Ordering::Equal => own,
            core::cmp::Ordering::Greater => BlockMode::Normal,
        };
        encrypt(pk, set, x, mode, Some(mk), rng)
    }
}

/// Hybrid `position` of a copy's line as (block j, step: 0 normal, 1
/// TrEnc(0,1), 2 TrEnc(1,0)); `None` for the last, every block junk.
fn hybrid(l: Layout, position: u32) -> Option<(u32, u32)> {
    (1..=3 * l.t)
        .contains(&position)
        .then(|| ((position - 1) / 3 + 1, (position - 1) % 3))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{self, rng, Case};
    use crate::curve::{Bls12, Bn254, Counted, OpCounts};
    use crate::kem::{self, Side};

    type Z = Zha20<Bls12>;

    conformance::tests!(Zha20: Case::one_target(
        Expansion { users: 12, a: 0.5 },
        "2-5, 11",
        conformance::MEMBERS,
    ));

    /// The blocks of S come from its ranges and agree with S's members; a
    /// header claiming every user of the largest setup counts its blocks
    /// without expanding S, and layouts whose instances overflow are
    /// refused.
    #[test]
    fn blocks_from_ranges() {
        let l = Layout::new(10, 4, 3, 3).unwrap();
        for text in ["1", "3-4", "2, 3, 9-10", "1-10", "4-6, 7", "6, 7", "10"] {
            let set = Recipients::parse(text).unwrap();
            let mut want: Vec<u32> = set.iter().map(|u| l.position(u).0).collect();
            want.dedup();
            assert_eq!(l.blocks(&set).collect::<Vec<_>>(), want, "{text}");
            assert_eq!(l.block_count(&set) as usize, want.len(), "{text}");
        }
        let max = crate::bcast::MAX_USERS;
        let big = Layout::new(max, max, 1, 1).unwrap();
        let all = Recipients::range(1, max).unwrap();
        assert_eq!(big.block_count(&all), max);
        assert!(Layout::new(max, max, 1, max).is_err());
    }

    #[test]
    fn shapes_follow_the_expansion() {
        assert_eq!(shape(1_000_000, 2.0 / 3.0), (10_000, 100));
        assert_eq!(shape(1_000_000, 0.5), (1000, 1000));
        assert_eq!(shape(1000, 1.0 / 3.0), (10, 100));
        assert_eq!(shape(100, 1.0), (100, 1));
        assert_eq!(shape(100, 0.0), (1, 100));
        assert_eq!(shape(10, 0.5), (4, 3));
        for n in [1u32, 7, 10, 99, 1000] {
            for a in [0.0, 0.3, 0.5, 2.0 / 3.0, 1.0] {
                let (t, np) = shape(n, a);
                assert!(Layout::new(n, t, np, np).is_ok(), "{n} {a}");
            }
        }
        assert!(Layout::new(10, 2, 3, 1).is_err());
        assert!(Layout::new(10, 4, 3, 0).is_err());
        assert_eq!(mtb::attributes(2, 3), [true, true]);
        assert_eq!(mtb::attributes(3, 3), [true, false]);
        assert_eq!(mtb::attributes(4, 3), [false, false]);
    }

    /// On every copy's line, the hybrid at each position reaches exactly
    /// the members of S from its `reach` on (the last: nobody), over blocks
    /// of unequal fill; the accusable steps are each block's (0,1) → (1,0)
    /// and accuse i*_J.
    #[test]
    fn tracing_encryptions_reach_the_users_from_u_on() {
        let mut r = rng(4);
        let n = 10; // T = 4 blocks of 3, the last with one user
        let (pk, mk) = Z::setup(&Expansion { users: n, a: 0.5 }, &mut r).unwrap();
        assert_eq!(pk.shape(), (4, 3, 3));
        let keys: Vec<_> = (1..=n)
            .map(|u| kem::keygen::<Z>(&pk, &mk, &UserIndex(u), &mut r).unwrap())
            .collect();
        let set = Recipients::parse("1-4, 6-10").unwrap();
        for (line, hybrids) in Z::lines(&pk, Some(&mk)).iter().enumerate() {
            let Line::Hybrids { len, accuse } = hybrids else {
                panic!("lines of hybrids")
            };
            assert_eq!(*len, 13);
            for &(p, user) in accuse {
                assert_eq!(p % 3, 2, "a block's (0,1) step");
                assert_eq!(Z::reach(&pk, Some(&mk), line, p), user);
                assert_eq!(Z::reach(&pk, Some(&mk), line, p + 1), user + 1);
            }
            for p in 1..=*len {
                let from = Z::reach(&pk, Some(&mk), line, p);
                let (k, h) = Z::encapsulate_at(&pk, Some(&mk), &set, line, p, &mut r).unwrap();
                let h = Header::<Bls12>::from_bytes(&h.to_bytes()).unwrap();
                for (idx, key) in keys.iter().enumerate() {
                    let v = idx as u32 + 1;
                    let got = matches!(Z::decapsulate(key, &h), Ok(g) if g == k);
                    assert_eq!(
                        got,
                        v >= from && set.contains(v),
                        "user {v}, copy {line}, position {p}"
                    );
                }
            }
            assert!(Z::encapsulate_at(&pk, Some(&mk), &set, line, len + 1, &mut r).is_err());
        }
    }

    #[test]
    fn sizes() {
        let mut r = rng(8);
        let (pk, mk) = Zha20::<Bn254>::setup(&Expansion { users: 100, a: 0.5 }, &mut r).unwrap();
        assert_eq!(pk.shape(), (10, 10, 10));
        let set = Recipients::parse("1-10, 95").unwrap();
        let (_, h) = Zha20::<Bn254>::encapsulate(&pk, &set, &mut r).unwrap();
        // Two blocks with members: 2 × (384 + 32) bytes.
        assert_eq!(
            h.to_bytes().len() - 8 - 16 - 16 - 4 - set.encoded_len(),
            2 * (384 + 32)
        );
        let key = kem::keygen::<Zha20<Bn254>>(&pk, &mk, &UserIndex(3), &mut r).unwrap();
        assert_eq!(key.to_bytes().len() - 8 - 16 - 16 - 4, 10 * 4 * 64);
    }

    #[test]
    fn op_counts() {
        type CZ = Zha20<Counted<Bls12>>;
        let mut r = rng(5);
        let (pk, mk) = CZ::setup(&Expansion { users: 16, a: 0.5 }, &mut r).unwrap();
        let (key, kg) =
            OpCounts::measure(|| kem::keygen::<CZ>(&pk, &mk, &UserIndex(2), &mut r).unwrap());
        assert_eq!(kg.g2_fixed_exp, 4 * 4, "4 per copy");
        let set = Recipients::parse("1-16").unwrap();
        let ((_, h), enc) = OpCounts::measure(|| CZ::encapsulate(&pk, &set, &mut r).unwrap());
        assert_eq!(
            enc.g1_msm_terms,
            4 * 4 * 5,
            "per block 4 MSMs of |S_j|+1 terms"
        );
        assert_eq!((enc.g2_exp, enc.gt_exp), (4 * 4, 4));
        let (_, dec) = OpCounts::measure(|| CZ::decapsulate(&key, &h).unwrap());
        assert_eq!((dec.miller_loops, dec.final_exps), (8, 1));
    }
}
