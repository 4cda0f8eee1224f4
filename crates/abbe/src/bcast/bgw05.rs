//! Boneh–Gentry–Waters 2005 broadcast encryption, special case (§3.1), in
//! KEM form, Type-III, with KeyGen separate from Setup.
//!
//! Papers: D. Boneh, C. Gentry, B. Waters, "Collusion Resistant Broadcast
//! Encryption with Short Ciphertexts and Private Keys", CRYPTO 2005, §3.1;
//! its asymmetric rewriting and evaluation in Chhatrapati–Hohenberger–
//! Trombo–Vusirikala, ACNS 2022 (`chhatrapati22`, §3.1, Tables 7–9).
//!
//! Notation (the paper's): n = N users, generators g ∈ G1, ĝ ∈ G2, secrets
//! α, γ ∈ Z_p; g_k = g^{α^k}, ĝ_k = ĝ^{α^k}; v = g^γ.
//!
//! ```text
//! Setup(n):  PK = (g_1..g_n, g_{n+2}..g_{2n}, ĝ_1..ĝ_n, v, Z = e(g_{n+1}, ĝ))
//!            MSK = (α, γ)
//! KeyGen(i): d_i = g_i^γ = g^{γ·α^i}
//! Encrypt S: t ←R Z_p;  Hdr = (C_0, C_1) = (ĝ^t, (v · Π_{j∈S} g_{n+1−j})^t)
//!            K = Z^t = e(g_{n+1}, ĝ)^t
//! Decrypt i: K = e(C_1, ĝ_i) / e(d_i · Π_{j∈S, j≠i} g_{n+1−j+i}, C_0)
//! ```
//! (Z is computed as e(g_n, ĝ_1) = e(g, ĝ)^{α^{n+1}}; g_{n+1} is never
//! published.)
//!
//! ## Type-III placement (e: G1 × G2 → GT)
//! Decryption multiplies |S|−1 public-key elements g_{n+1−j+i}; they are in
//! **G1**, where an addition is about three times cheaper than in G2, and so
//! are d_i (the private key: 32 bytes on BN254) and v. The product is paired
//! with C_0, which is therefore in G2 (ĝ^t); C_1 = (vΠg_{n+1−j})^t is built
//! from G1 elements, so the user's other pairing partner ĝ_i must be in G2:
//! the public key holds ĝ_1..ĝ_n in G2 (the paper's "λ2^3·N" in Setup), and a
//! user key caches the Miller-loop lines of its ĝ_i. Decryption is one shared
//! multi-Miller loop over 2 pairs (C_0's lines are computed per header) and
//! one final exponentiation. Ciphertext: one G1 + one G2 element (96 bytes
//! on BN254, the paper's Table 8).
//!
//! ## Side channels
//! The secrets γ, α and t meet points only in fixed-base tables (d_i = g^{γα^i},
//! C0 = ĝ^t), [`Group::mul_secret`] (C1 = (v·Π g_{n+1−j})^t) and GT powers, all
//! constant time on every curve; the sums over S use public indices only.
//!
//! ## Operation counts
//! Checked against the formula (and the paper's table where it has one)
//! by `op_counts_*` in the tests below, on `Counted` curves.
//!
//! ## Scale
//! The g_k = g^{α^k} are computed from the exponents α^k (one field
//! multiplication each) by fixed-base exponentiation through one table for
//! g (and one for ĝ), in parallel lanes of 1024 exponents that stay affine
//! and share one constant-time inversion per window on BN254
//! ([`crate::curve::Group::mul_fixed_batch`]; one batch normalisation
//! elsewhere) — never one variable-base exponentiation after another. [`Bgw05::public_key_stream`]
//! writes the encoded public key chunk by chunk in bounded memory (the
//! caller streams it to a file) and returns the setup id.
//!
//! The public key is never decoded whole: [`PublicKey::open`] reads its
//! head and digest list; encryption reads the |S| points it uses, and
//! decryption with the CCA check 2|S| − 1 and ĝ_i, each run of 1024 checked
//! against its digest ([`super::table`]). A user key is d_i alone (76 bytes
//! on BN254); key generation needs only the master key.
//!
//! ## The swapped placement
//! Offered for completeness (the standard placement stays the default): the
//! public key's g_i move to G2 (twice the size) and ĝ_i to G1, under the n-BDHE
//! assumption with the source groups exchanged ([`crate::curve::swapped`]).

use super::table::{digest_count, read_at, Encoding, Source, Table, TableWriter};
use super::{
    fixed_base_affine, scalar_pow, user_in_range, Recipients, SetupIdHasher, UserCount, UserIndex,
    CHUNK,
};
use crate::bcast::Users;
use crate::curve::{wipe, Curve, FixedBaseTable, Group, Scalar, Target};
use crate::kem::{bind, Authority, Kem, KemError, SessionKey};
use crate::wire::codec::{object, Bound, Codec};
use crate::wire::{
    Encoded, Lazy, ObjectKind, Preamble, Reader, SchemeId, Secret, WireError, Writer, PREAMBLE_LEN,
};
use rand_core::{CryptoRng, RngCore};
use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};

type G1A<C> = <<C as Curve>::G1 as Group>::Affine;
type G2A<C> = <<C as Curve>::G2 as Group>::Affine;

/// The scheme, generic over the curve.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bgw05<C>(PhantomData<C>);

const SCHEME: SchemeId = SchemeId::Bgw05;

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

/// The three arrays of a public key, in file order: (label, count).
fn arrays(n: u32) -> [(&'static str, u32); 3] {
    [("g_1..g_n", n), ("g_{n+2}..g_{2n}", n - 1), ("ĝ_1..ĝ_n", n)]
}

/// The g_k are summed over S (uncompressed: no square root per point); one
/// ĝ_i is read per decryption (compressed: half the bytes).
const G1_ENC: Encoding = Encoding::Uncompressed;
const G2_ENC: Encoding = Encoding::Compressed;

/// The public key: v, Z and three tables read element by element — g_k =
/// g^{α^k} (k ∈ [1, 2n], k ≠ n+1, in G1) and ĝ_k = ĝ^{α^k} (k ∈ [1, n], in
/// G2). Cheap to clone (the source is shared).
///
/// Layout after the preamble (format version 2): u32 n ‖ v (G1) ‖ Z (GT) ‖
/// g_1..g_n (n × G1 uncompressed) ‖ g_{n+2}..g_{2n} ((n−1) × G1
/// uncompressed) ‖ ĝ_1..ĝ_n (n × G2 compressed) ‖ the SHA-256 digest of
/// every run of 1024 encoded points of each array, in order. The setup id
/// covers the preamble, n, v, Z and the digests (not the points, which the
/// digests cover), so a reader checks whatever it reads against the id of
/// the key that decrypts with it.
#[derive(Clone)]
pub struct PublicKey<C: Curve> {
    n: UserCount,
    v: C::G1,
    z: C::Gt,
    g_low: Table<C::G1>,
    g_high: Table<C::G1>,
    gh: Table<C::G2>,
    src: Source,
    id: [u8; 16],
    tables: Lazy<Tables<C>>,
}

impl<C: Curve> core::fmt::Debug for PublicKey<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "bgw05 PublicKey on {} (setup {})",
            C::NAME,
            crate::wire::hex(&self.id)
        )
    }
}

/// Length of the preamble, n, v and Z.
fn head_len<C: Curve>() -> usize {
    PREAMBLE_LEN + 4 + C::G1::COMPRESSED_BYTES + <C::Gt as Target>::BYTES
}

/// The encoding of the preamble, n, v and Z.
fn pk_head<C: Curve>(n: u32, v: &C::G1, z: &C::Gt) -> Vec<u8> {
    let mut w = Writer::new(Preamble::new(ObjectKind::PublicKey, SCHEME, C::ID));
    w.u32(n).point(v).gt(z);
    w.finish()
}

fn pk_setup_id(head: &[u8], digests: &[[u8; 32]]) -> [u8; 16] {
    let mut h = SetupIdHasher::new();
    h.update(head);
    for d in digests {
        h.update(d);
    }
    h.finish()
}

impl<C: Curve> PublicKey<C> {
    pub fn users(&self) -> u32 {
        self.n.get()
    }
    /// The setup id (see the type's documentation).
    pub fn setup_id(&self) -> [u8; 16] {
        self.id
    }
    fn tables(&self) -> &Tables<C> {
        self.tables.get_or_init(tables::<C>)
    }

    /// The key in `src` (a file or bytes): reads and checks n, v, Z and the
    /// digests (≈ N/1024 · 96 bytes), and that the length is exact; points
    /// are read, checked against their digests and decoded when used.
    pub fn open(src: Source) -> Result<Self, WireError> {
        let hl = head_len::<C>();
        if src.size() < hl as u64 {
            return Err(WireError::Truncated("public key"));
        }
        let head = read_at(&*src, 0, hl, "public key")?;
        let mut r = Reader::open_for(&head, ObjectKind::PublicKey, SCHEME, C::ID)?;
        let n = UserCount::decode(&mut r, "N")?;
        let v = r.point::<C::G1>("v = g^γ")?;
        let z = r.gt::<C::Gt>("Z = e(g,ĝ)^{α^{n+1}}")?;
        r.finish()?;
        let (points, ndig) = Self::sizes(n.get());
        let total = hl as u64 + points + 32 * ndig as u64;
        if src.size() < total {
            return Err(WireError::Truncated("public key"));
        }
        if src.size() > total {
            return Err(WireError::TrailingBytes((src.size() - total) as usize));
        }
        let raw = read_at(&*src, hl as u64 + points, 32 * ndig, "digests")?;
        let digests: Vec<[u8; 32]> = raw
            .chunks_exact(32)
            .map(|c| c.try_into().unwrap_or([0; 32]))
            .collect();
        let id = pk_setup_id(&head, &digests);
        Ok(Self::assemble(src, n, v, z, &digests, id))
    }

    /// (bytes of the points, number of digests) for n users.
    fn sizes(n: u32) -> (u64, usize) {
        let [(_, c0), (_, c1), (_, c2)] = arrays(n);
        let bytes = Table::<C::G1>::byte_len(c0, G1_ENC)
            + Table::<C::G1>::byte_len(c1, G1_ENC)
            + Table::<C::G2>::byte_len(c2, G2_ENC);
        (
            bytes,
            digest_count(c0) + digest_count(c1) + digest_count(c2),
        )
    }

    fn assemble(
        src: Source,
        n: UserCount,
        v: C::G1,
        z: C::Gt,
        digests: &[[u8; 32]],
        id: [u8; 16],
    ) -> Self {
        let [(_, c0), (_, c1), (_, c2)] = arrays(n.get());
        let d0 = digest_count(c0);
        let d1 = d0 + digest_count(c1);
        let o0 = head_len::<C>() as u64;
        let o1 = o0 + Table::<C::G1>::byte_len(c0, G1_ENC);
        let o2 = o1 + Table::<C::G1>::byte_len(c1, G1_ENC);
        PublicKey {
            n,
            v,
            z,
            g_low: Table::new(src.clone(), o0, c0, G1_ENC, digests[..d0].into()),
            g_high: Table::new(src.clone(), o1, c1, G1_ENC, digests[d0..d1].into()),
            gh: Table::new(src.clone(), o2, c2, G2_ENC, digests[d1..].into()),
            src,
            id,
            tables: Lazy::default(),
        }
    }

    /// Σ_k g_k over `ks` ⊂ [1, 2n] \ {n+1} (any order).
    fn sum_g(&self, ks: impl Iterator<Item = u32>) -> Result<Option<C::G1>, WireError> {
        let n = self.n.get();
        let (low, high): (Vec<u32>, Vec<u32>) = ks.partition(|&k| k <= n);
        if high.iter().any(|&k| k == n + 1) {
            return Err(WireError::Truncated("public key table"));
        }
        let a = self.g_low.sum::<C>(low.into_iter())?;
        let b = self.g_high.sum::<C>(high.into_iter().map(|k| k - n - 1))?;
        Ok(match (a, b) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        })
    }

    /// Reads every point and checks it (against its digest, and as a point
    /// of its group): a full check of a key file, O(N).
    pub fn verify(&self) -> Result<(), WireError> {
        self.g_low.verify_all::<C>()?;
        self.g_high.verify_all::<C>()?;
        self.gh.verify_all::<C>()
    }
}

impl<C: Curve> Bound for PublicKey<C> {
    fn setup_id(&self) -> [u8; 16] {
        PublicKey::setup_id(self)
    }
}

impl<C: Curve> Encoded for PublicKey<C> {
    /// The whole encoding (O(N): for small keys and tests; front ends keep
    /// the file).
    fn to_bytes(&self) -> Vec<u8> {
        let mut b = vec![0u8; self.src.size() as usize];
        // The source was checked to be this long when the key was opened.
        let _ = self.src.read_exact_at(&mut b, 0);
        b
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
        Self::open(Arc::new(bytes.to_vec()))
    }
    fn format_row() -> Option<(ObjectKind, String)> {
        let [(l0, _), (l1, _), (l2, _)] = arrays(1);
        Some((
            ObjectKind::PublicKey,
            format!(
                "version 2 · N (u32 n, 1 ≤ n ≤ 2^24) ‖ v = g^γ (G1) ‖ Z = e(g,ĝ)^{{α^{{n+1}}}} (GT) ‖ {l0} (n × G1 {}) ‖ {l1} (n − 1 × G1 {}) ‖ {l2} (n × G2 {}) ‖ digests (32 bytes per 1024 points of each array: SHA-256 of `abbe/v1/table-chunk` ‖ their encodings); setup id over everything but the points; each point checked when used",
                G1_ENC.name(),
                G1_ENC.name(),
                G2_ENC.name()
            ),
        ))
    }
}

object! {
    /// The master key (α, γ) and N; wiped on drop. The secrets are not
    /// checked against the setup id when decoded (that would recompute a
    /// public key of O(N) elements); a mismatch shows as
    /// [`KemError::WrongSetup`] at key generation.
    pub struct MasterKey<C> = (MasterKey, SCHEME), bound {
        n: UserCount => "N",
        alpha: Secret<C::Scalar> => "α",
        gamma: Secret<C::Scalar> => "γ",
    }
}

impl<C: Curve> MasterKey<C> {
    pub fn users(&self) -> u32 {
        self.n.get()
    }

    /// g^{α^k}… for k = k0, k0+1, … (count of them), affine.
    fn powers_g1(&self, t: &Tables<C>, k0: u64, count: usize) -> Vec<G1A<C>> {
        let exps = exponents::<C>(&self.alpha, k0, count);
        fixed_base_affine::<C, C::G1>(&t.g1, &exps)
    }
    fn powers_g2(&self, t: &Tables<C>, k0: u64, count: usize) -> Vec<G2A<C>> {
        let exps = exponents::<C>(&self.alpha, k0, count);
        fixed_base_affine::<C, C::G2>(&t.g2, &exps)
    }
    fn v_and_z(&self, t: &Tables<C>) -> (C::G1, C::Gt) {
        let n = self.n.get() as u64;
        let v = C::G1::mul_fixed(&t.g1, &self.gamma);
        // Z = e(g_n, ĝ_1) = e(g, ĝ)^{α^{n+1}}
        let gn = C::G1::mul_fixed(&t.g1, &scalar_pow(*self.alpha, n));
        let g1h = C::G2::mul_fixed(&t.g2, &self.alpha);
        let z = C::multi_pairing(&[(gn, &C::prepare(&g1h))]);
        (v, z)
    }

    /// Recomputes the public key in memory (O(N) elements).
    /// It keeps the points it computed, so its encryptions and decryptions
    /// neither read nor decode them.
    pub fn public_key(&self) -> PublicKey<C> {
        let mut bytes = Vec::new();
        let mut kept = Some(Kept::default());
        let st = stream(self, |b| bytes.extend_from_slice(b), &mut kept);
        let mut pk = PublicKey::assemble(Arc::new(bytes), self.n, st.v, st.z, &st.digests, st.id);
        if let Some(k) = kept {
            pk.g_low = pk.g_low.with_decoded(k.g_low);
            pk.g_high = pk.g_high.with_decoded(k.g_high);
            pk.gh = pk.gh.with_decoded(k.gh);
        }
        pk.tables = Lazy::from(st.tables);
        pk
    }
}

/// What [`stream`] computed besides the bytes.
struct Streamed<C: Curve> {
    id: [u8; 16],
    v: C::G1,
    z: C::Gt,
    digests: Vec<[u8; 32]>,
    tables: Tables<C>,
}

/// The points of a public key computed in memory.
struct Kept<C: Curve> {
    g_low: Vec<G1A<C>>,
    g_high: Vec<G1A<C>>,
    gh: Vec<G2A<C>>,
}

impl<C: Curve> Default for Kept<C> {
    fn default() -> Self {
        Kept {
            g_low: Vec::new(),
            g_high: Vec::new(),
            gh: Vec::new(),
        }
    }
}

/// Hands the encoding of `mk`'s public key to `sink` in order, one chunk of
/// at most `CHUNK` points at a time (bounded memory unless `kept` asks for
/// the points too).
fn stream<C: Curve>(
    mk: &MasterKey<C>,
    mut sink: impl FnMut(&[u8]),
    kept: &mut Option<Kept<C>>,
) -> Streamed<C> {
    let t = tables::<C>();
    let n = mk.users() as usize;
    let (v, z) = mk.v_and_z(&t);
    let head = pk_head::<C>(mk.users(), &v, &z);
    sink(&head);
    let mut digests = Vec::new();
    for (a, (lo, hi)) in [(1, n), (n + 2, 2 * n)].into_iter().enumerate() {
        let mut w = TableWriter::new(G1_ENC);
        for k0 in (lo..=hi).step_by(CHUNK) {
            let pts = mk.powers_g1(&t, k0 as u64, CHUNK.min(hi + 1 - k0));
            sink(&w.push::<C, C::G1>(&pts));
            if let Some(k) = kept {
                [&mut k.g_low, &mut k.g_high][a].extend(pts);
            }
        }
        digests.extend(w.finish());
    }
    let mut w = TableWriter::new(G2_ENC);
    for k0 in (1..=n).step_by(CHUNK) {
        let pts = mk.powers_g2(&t, k0 as u64, CHUNK.min(n + 1 - k0));
        sink(&w.push::<C, C::G2>(&pts));
        if let Some(k) = kept {
            k.gh.extend(pts);
        }
    }
    digests.extend(w.finish());
    for d in &digests {
        sink(d);
    }
    Streamed {
        id: pk_setup_id(&head, &digests),
        v,
        z,
        digests,
        tables: t,
    }
}

/// α^{k0}, α^{k0+1}, …, `count` of them (one field multiplication each).
fn exponents<C: Curve>(alpha: &C::Scalar, k0: u64, count: usize) -> Vec<C::Scalar> {
    let mut e = scalar_pow(*alpha, k0);
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        out.push(e);
        e *= *alpha;
    }
    wipe(&mut e, C::Scalar::zero());
    out
}

object! {
    /// A user's private key d_i ∈ G1 (wiped on drop), with (in memory only)
    /// the public key it decrypts with and the cached lines of ĝ_i.
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
    /// Attaches the public key decryption needs (the g_k and ĝ_i).
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
    /// The header (C_0 ∈ G2, C_1 ∈ G1) with the recipient set S.
    pub struct Header<C> = (KemHeader, SCHEME), bound {
        n: UserCount => "N",
        set: Recipients => "S" in n,
        c0: C::G2 => "C_0",
        c1: C::G1 => "C_1",
    }
    made_for Recipients = |header| header.set.clone();
}

impl<C: Curve> Header<C> {
    pub fn recipients(&self) -> &Recipients {
        &self.set
    }
}

impl<C: Curve> Bgw05<C> {
    fn draw<R: RngCore + CryptoRng>(n: u32, rng: &mut R) -> Result<MasterKey<C>, KemError> {
        Ok(MasterKey {
            setup_id: [0; 16],
            n: UserCount::new(n)?,
            alpha: Secret(C::Scalar::random(rng)),
            gamma: Secret(C::Scalar::random(rng)),
        })
    }

    /// Setup for N = `n` users in bounded memory: the encoded public key is
    /// handed to `sink` in order, chunk by chunk (a caller writes it to a
    /// file); the master key (with the setup id of those bytes) is returned.
    pub fn setup_stream<R: RngCore + CryptoRng>(
        n: u32,
        rng: &mut R,
        sink: impl FnMut(&[u8]),
    ) -> Result<MasterKey<C>, KemError> {
        let mut mk = Self::draw(n, rng)?;
        mk.setup_id = Self::public_key_stream(&mk, sink);
        Ok(mk)
    }

    /// Streams the encoding of the public key of `mk` to `sink` (chunks of
    /// at most `CHUNK` points) and returns its setup id. Memory: one chunk.
    pub fn public_key_stream(mk: &MasterKey<C>, sink: impl FnMut(&[u8])) -> [u8; 16] {
        stream(mk, sink, &mut None).id
    }

    /// The group element e(g_{n+1}, ĝ)^t recovered by user `key` (the
    /// pre-KDF value), for tests and benchmarks.
    pub fn decapsulate_gt(key: &UserKey<C>, header: &Header<C>) -> Result<C::Gt, KemError> {
        if header.setup_id != key.setup_id || header.n != key.n {
            return Err(KemError::WrongSetup);
        }
        if !header.set.contains(key.i) {
            return Err(KemError::NotSatisfied);
        }
        let pk = key.pk.as_ref().ok_or_else(|| {
            KemError::Invalid(
                "BGW05 decryption needs the public key: attach it with UserKey::with_public_key"
                    .into(),
            )
        })?;
        let (n, i) = (key.n.get(), key.i);
        let others = header.set.iter().filter(|&j| j != i);
        let sum = match pk.sum_g(others.map(|j| n + 1 - j + i))? {
            Some(s) => s + *key.d,
            None => *key.d,
        };
        let gh_i = match key.lines.get() {
            Some(lines) => lines,
            None => {
                let q = pk.gh.get(i)?;
                key.lines.get_or_init(|| C::prepare(&q))
            }
        };
        let c0_lines = C::prepare(&header.c0);
        Ok(C::multi_pairing(&[(header.c1, gh_i), (-sum, &c0_lines)]))
    }
}

impl<C: Curve> Authority for Bgw05<C> {
    crate::kem::authority_objects!(Users, UserIndex);

    /// Setup for N users, the public key in memory.
    fn setup<R: RngCore + CryptoRng>(
        users: &Users,
        rng: &mut R,
    ) -> Result<(PublicKey<C>, MasterKey<C>), KemError> {
        let n = users.0;
        let mk = Self::draw(n, rng)?;
        Ok(bind(mk.public_key(), mk))
    }

    /// The public key never whole in memory: [`Bgw05::setup_stream`].
    fn setup_streamed<R: RngCore + CryptoRng>(
        users: &Users,
        rng: &mut R,
        sink: &mut dyn FnMut(&[u8]),
    ) -> Result<MasterKey<C>, KemError> {
        Self::setup_stream(users.0, rng, sink)
    }

    fn open_public_key(src: Source) -> Result<PublicKey<C>, WireError> {
        PublicKey::open(src)
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
        let key = user_key_of(mk, user, &pk.tables().g1)?;
        key.with_public_key(pk)
    }

    fn keygen_without_public_key(
        mk: &MasterKey<C>,
        user: &UserIndex,
    ) -> Option<Result<UserKey<C>, KemError>> {
        Some(user_key_of(mk, user, &tables::<C>().g1))
    }
}

/// d_i = g^{γ·α^i}, through the fixed-base table of g.
fn user_key_of<C: Curve>(
    mk: &MasterKey<C>,
    user: &UserIndex,
    g: &FixedBaseTable<C::G1>,
) -> Result<UserKey<C>, KemError> {
    user.check(mk.users())?;
    let mut e = *mk.gamma * scalar_pow(*mk.alpha, user.0 as u64);
    let d = C::G1::mul_fixed(g, &e);
    wipe(&mut e, C::Scalar::zero());
    Ok(UserKey {
        setup_id: mk.setup_id,
        n: mk.n,
        i: user.0,
        d: Secret(d),
        pk: None,
        lines: OnceLock::new(),
    })
}

impl<C: Curve> Kem for Bgw05<C> {
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
        let n = pk.users();
        let t = C::Scalar::random(rng);
        let c0 = C::G2::mul_fixed(&pk.tables().g2, &t);
        let c1 = (pk
            .sum_g(set.iter().map(|j| n + 1 - j))?
            .unwrap_or_else(C::G1::identity)
            + pk.v)
            .mul_secret(&t);
        let key = SessionKey::from_gt(&pk.z.pow(&t), SCHEME, C::ID);
        Ok((
            key,
            Header {
                setup_id: pk.setup_id(),
                n: pk.n,
                set: set.clone(),
                c0,
                c1,
            },
        ))
    }

    fn decapsulate(key: &UserKey<C>, header: &Header<C>) -> Result<SessionKey, KemError> {
        let k = Self::decapsulate_gt(key, header)?;
        Ok(SessionKey::from_gt(&k, SCHEME, C::ID))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{self, rng, Retarget};
    use crate::curve::{Bls12, Bn254, Counted, OpCounts};
    use crate::kem::Side;

    type B = Bgw05<Bls12>;

    conformance::tests!(Bgw05: conformance::broadcast_case(); random_recipients, forged_recipients);
    conformance::retarget!(Bgw05<C>, set);

    #[test]
    fn sizes_match_table_2_and_8() {
        // Table 2: ciphertext O(λ), private key O(λ), public key O(λ·N).
        // Table 8 (BN254): ct 96 B, sk 32 B, pk ≈ 2N·32 + N·64 B (bodies:
        // after the preamble, setup id, N, i and S). Our g_k are stored
        // uncompressed (64 B: read element by element without a square
        // root), plus 32 B of digest per 1024 points.
        let mut r = rng(8);
        for n in [1u32, 100, 1000, 2049] {
            let (pk, mk) = Bgw05::<Bn254>::setup(&Users(n), &mut r).unwrap();
            let digests = 2 * digest_count(n) + digest_count(n - 1);
            let pk_len = 12 + 32 + 384 + 64 * (2 * n as usize - 1) + 64 * n as usize;
            assert_eq!(pk.to_bytes().len(), pk_len + 32 * digests);
            let set = Recipients::range(1, n.min(10)).unwrap();
            let (_, h) = Bgw05::<Bn254>::encapsulate(&pk, &set, &mut r).unwrap();
            assert_eq!(h.to_bytes().len() - 8 - 16 - 4 - set.encoded_len(), 96);
            let key = Bgw05::<Bn254>::keygen(&pk, &mk, &UserIndex(1), &mut r).unwrap();
            assert_eq!(key.to_bytes().len() - 8 - 16 - 4 - 4, 32);
        }
    }

    #[test]
    fn streamed_public_key_is_the_public_key() {
        let mut r = rng(9);
        let mut bytes = Vec::new();
        let mk = B::setup_stream(37, &mut r, |b| bytes.extend_from_slice(b)).unwrap();
        let pk = PublicKey::<Bls12>::from_bytes(&bytes).unwrap();
        assert_eq!(pk.setup_id(), mk.setup_id());
        assert_eq!(mk.public_key().to_bytes(), bytes);
        let set = Recipients::parse("2,5-9,37").unwrap();
        let (k, h) = B::encapsulate(&pk, &set, &mut r).unwrap();
        let uk = B::keygen(&pk, &mk, &UserIndex(37), &mut r).unwrap();
        assert_eq!(B::decapsulate(&uk, &h).unwrap(), k);
    }

    #[test]
    fn replayed_headers_and_bare_keys_fail() {
        let mut r = rng(3);
        let (pk, mk) = B::setup(&Users(16), &mut r).unwrap();
        let set = Recipients::parse("1-4,9").unwrap();
        let (key, header) = B::encapsulate(&pk, &set, &mut r).unwrap();
        // The same header with S' = S ∪ {5}: the real recipients do not get
        // the key either (user 5's side: conformance::forged_recipients).
        let forged = B::retarget(&header, Recipients::parse("1-5,9").unwrap());
        let inside = B::keygen(&pk, &mk, &UserIndex(2), &mut r).unwrap();
        assert_ne!(B::decapsulate(&inside, &forged).unwrap(), key);
        // A decoded key decrypts only once its public key is attached.
        let bare = UserKey::<Bls12>::from_bytes(&inside.to_bytes()).unwrap();
        assert!(matches!(
            B::decapsulate(&bare, &forged),
            Err(KemError::Invalid(_))
        ));
        // Another setup.
        let (pk2, mk2) = B::setup(&Users(16), &mut r).unwrap();
        let k2 = B::keygen(&pk2, &mk2, &UserIndex(2), &mut r).unwrap();
        assert!(matches!(
            B::decapsulate(&k2, &forged),
            Err(KemError::WrongSetup)
        ));
        assert!(B::keygen(&pk, &mk2, &UserIndex(1), &mut r).is_err());
        assert!(B::keygen(&pk, &mk, &UserIndex(17), &mut r).is_err());
        assert!(B::encapsulate(&pk, &Recipients::parse("3-17").unwrap(), &mut r).is_err());
        assert!(UserKey::<Bls12>::from_bytes(&inside.to_bytes())
            .unwrap()
            .with_public_key(&pk2)
            .is_err());
    }

    #[test]
    fn op_counts_match_table_9() {
        type CB = Bgw05<Counted<Bls12>>;
        let mut r = rng(5);
        let n = 24u64;
        let ((pk, mk), setup) = OpCounts::measure(|| CB::setup(&Users(n as u32), &mut r).unwrap());
        assert_eq!(
            setup.g1_fixed_exp,
            2 * n - 1 + 1 + 1,
            "2N−1 g_k, v, g_n for Z"
        );
        assert_eq!(setup.g2_fixed_exp, n + 1, "N ĝ_k, ĝ_1 for Z");
        assert_eq!((setup.miller_loops, setup.final_exps), (1, 1));
        for s in [1usize, 2, 7, 24] {
            let set = Recipients::range(1, s as u32).unwrap();
            let (key, kg) =
                OpCounts::measure(|| CB::keygen(&pk, &mk, &UserIndex(1), &mut r).unwrap());
            assert_eq!(kg.g1_fixed_exp, 1);
            assert_eq!(kg.g1_exp + kg.g2_exp + kg.g2_fixed_exp, 0);
            let ((_, h), enc) = OpCounts::measure(|| CB::encapsulate(&pk, &set, &mut r).unwrap());
            assert_eq!(enc.g1_add, s as u64, "λ1·|S|");
            assert_eq!(enc.g1_exp, 1);
            assert_eq!(enc.g2_fixed_exp, 1);
            assert_eq!(enc.miller_loops, 0);
            let (_, dec) = OpCounts::measure(|| CB::decapsulate(&key, &h).unwrap());
            assert_eq!(dec.g1_add, s as u64 - 1, "λ1·(|S|−1)");
            assert_eq!((dec.miller_loops, dec.final_exps), (2, 1), "2·e");
            assert_eq!(dec.g1_exp + dec.g2_exp + dec.gt_exp, 0);
        }
    }

    /// A public key read from bytes checks what it reads: the bytes
    /// round-trip and every user decrypts with it; a damaged point fails
    /// its chunk's digest when a decryption reads it (an error, never a
    /// panic or a wrong key); a damaged digest makes it another setup's key.
    #[test]
    fn damaged_public_keys_are_caught_when_read() {
        let mut r = rng(12);
        let n = 5u32;
        let (pk, mk) = B::setup(&Users(n), &mut r).unwrap();
        let set = Recipients::parse("1-5").unwrap();
        let (k, header) = B::encapsulate(&pk, &set, &mut r).unwrap();
        let bytes = pk.to_bytes();
        let read = PublicKey::<Bls12>::from_bytes(&bytes).unwrap();
        assert_eq!(
            (read.to_bytes(), read.setup_id()),
            (bytes.clone(), pk.setup_id())
        );
        read.verify().unwrap();
        for i in 1..=n {
            assert_eq!(read.gh.get(i).unwrap(), pk.gh.get(i).unwrap(), "ĝ_{i}");
            let key = B::keygen(&read, &mk, &UserIndex(i), &mut r).unwrap();
            assert_eq!(B::decapsulate(&key, &header).unwrap(), k, "user {i}");
        }
        let stored = UserKey::<Bls12>::from_bytes(
            &B::keygen(&read, &mk, &UserIndex(3), &mut r)
                .unwrap()
                .to_bytes(),
        )
        .unwrap();
        let w = <Bls12 as Curve>::G2::COMPRESSED_BYTES;
        let digests = 3 * 32;
        let hl = head_len::<Bls12>();
        let w1 = <Bls12 as Curve>::G1::UNCOMPRESSED_BYTES;
        for at in [
            bytes.len() - digests - (n as usize - 2) * w + 5, // ĝ_3
            hl + 4 * w1 + 7,                                  // g_5 = g_{n+1-j+i}
        ] {
            let mut bad = bytes.clone();
            bad[at] ^= 0x10;
            let bad = PublicKey::<Bls12>::from_bytes(&bad).unwrap();
            assert_eq!(bad.setup_id(), pk.setup_id(), "points are not in the id");
            assert!(bad.verify().is_err());
            let key = UserKey::<Bls12>::from_bytes(&stored.to_bytes())
                .unwrap()
                .with_public_key(&bad)
                .unwrap();
            let e = B::decapsulate(&key, &header).unwrap_err();
            assert!(e.to_string().contains("digest"), "{e}");
        }
        let mut bad = bytes.clone();
        *bad.last_mut().unwrap() ^= 1;
        let bad = PublicKey::<Bls12>::from_bytes(&bad).unwrap();
        assert!(matches!(
            stored.with_public_key(&bad),
            Err(KemError::WrongSetup)
        ));
    }
}
