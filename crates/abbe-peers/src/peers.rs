//! The peers as benchmark subjects: Fraunhofer-AISEC's rabe 0.4 (BN254 via
//! rabe-bn) and Cosmian's abe_gpsw 2.0 (GPSW KP-ABE, BLS12-381).
//!
//! rabe encrypts a message (hybrid: the GT element keys AES-GCM); we give it
//! a fixed 32-byte message, so its symmetric part costs microseconds, and
//! check that decryption returns it. Sizes are rabe's serde_json encoding
//! (its default `serde` feature; the derive writes the Jacobian coordinates
//! as arrays of limbs, so these sizes are an encoding choice as much as the
//! scheme's). Cosmian's sizes are its own byte encoding (`AsBytes`).

use abe_gpsw::core::bilinear_map::bls12_381::Bls12_381;
use abe_gpsw::core::gpsw::{AbeScheme, AsBytes, Gpsw};
use abe_gpsw::core::Engine;
use abe_policy::{AccessPolicy, Attribute, Policy as CosmianPolicy, PolicyAxis};
use rabe::schemes::{ac17, bsw, ghw11, lsw, yct14};
use rabe::utils::policy::pest::PolicyLanguage;

use crate::measure::Subject;

/// The message rabe encrypts (32 bytes, like our session keys).
pub const MESSAGE: &[u8; 32] = b"abbe-peers: 32-byte test message";

/// `A1 … An` (no underscores: rabe strips `_suffix` from policy leaves).
pub fn names(n: usize) -> Vec<String> {
    (1..=n).map(abbe::policy::generate::attr_name).collect()
}

/// `"A1" and "A2" and … and "An"` (one n-ary AND).
pub fn rabe_flat_and(n: usize) -> String {
    names(n)
        .iter()
        .map(|a| format!("\"{a}\""))
        .collect::<Vec<_>>()
        .join(" and ")
}

/// The same AND as a balanced tree of binary ANDs: rabe's AC17 (and AW11)
/// panic on an n-ary AND.
pub fn rabe_binary_and(n: usize) -> String {
    fn go(leaves: &[String]) -> String {
        match leaves.len() {
            1 => format!("\"{}\"", leaves[0]),
            k => {
                let (l, r) = leaves.split_at(k / 2);
                format!("({} and {})", go(l), go(r))
            }
        }
    }
    go(&names(n))
}

fn json_len<T: serde::Serialize>(v: &T) -> usize {
    serde_json::to_vec(v).expect("serde_json").len()
}

/// What rabe's objects would take in a compact binary encoding, counted on
/// their serde tree: rabe-bn's serde writes points in Jacobian coordinates as
/// decimal u64 limbs, so its JSON says more about the encoding than about
/// the scheme. Counted as: G1 point 32 B and G2 point 64 B (compressed, as
/// ours on BN254), GT element 384 B (12 × 32, rabe-bn has no compression),
/// scalar 32 B, strings and byte arrays at their length. An estimate, not
/// an encoding rabe offers.
pub fn compact_len<T: serde::Serialize>(v: &T) -> usize {
    use serde_json::Value;
    fn limbs(v: &Value) -> bool {
        matches!(v, Value::Array(a) if a.len() == 4 && a.iter().all(Value::is_u64))
    }
    fn walk(v: &Value) -> usize {
        match v {
            Value::Object(o) => {
                let (x, y, z) = (o.get("x"), o.get("y"), o.get("z"));
                if let (Some(x), Some(_), Some(_)) = (x, y, z) {
                    // A point: G1 over Fq (limbs), G2 over Fq2 ({c0, c1}).
                    return if limbs(x) { 32 } else { 64 };
                }
                if let (Some(Value::Object(c0)), Some(_)) = (o.get("c0"), o.get("c1")) {
                    // Fq12 = (Fq6, Fq6) with Fq6 = (Fq2, Fq2, Fq2): GT.
                    if c0.contains_key("c2") {
                        return 384;
                    }
                }
                o.values().map(walk).sum()
            }
            Value::Array(_) if limbs(v) => 32,
            Value::Array(a) if a.iter().all(|x| x.as_u64().is_some_and(|b| b <= 255)) => a.len(),
            Value::Array(a) => a.iter().map(walk).sum(),
            Value::String(s) => s.len(),
            Value::Number(_) | Value::Bool(_) => 1,
            Value::Null => 0,
        }
    }
    walk(&serde_json::to_value(v).expect("serde_json"))
}

const HUMAN: PolicyLanguage = PolicyLanguage::HumanPolicy;

// ---------------------------------------------------------------- BSW (CP)

pub struct RabeBsw {
    pk: bsw::CpAbePublicKey,
    msk: bsw::CpAbeMasterKey,
    attrs: Vec<String>,
    policy: String,
}

impl Subject for RabeBsw {
    type Key = bsw::CpAbeSecretKey;
    type Ct = bsw::CpAbeCiphertext;
    type Secret = Vec<u8>;
    fn new(n: usize) -> Self {
        let (pk, msk) = bsw::setup();
        RabeBsw {
            pk,
            msk,
            attrs: names(n),
            policy: rabe_flat_and(n),
        }
    }
    fn keygen(&mut self) -> Self::Key {
        let a: Vec<&str> = self.attrs.iter().map(String::as_str).collect();
        bsw::keygen(&self.pk, &self.msk, &a).expect("rabe bsw keygen")
    }
    fn encrypt(&mut self) -> (Vec<u8>, Self::Ct) {
        let ct = bsw::encrypt(&self.pk, &self.policy, HUMAN, MESSAGE).expect("rabe bsw encrypt");
        (MESSAGE.to_vec(), ct)
    }
    fn decrypt(&mut self, key: &Self::Key, ct: &Self::Ct) -> Option<Vec<u8>> {
        bsw::decrypt(key, ct).ok()
    }
    fn key_bytes(&self, key: &Self::Key) -> usize {
        json_len(key)
    }
    fn ct_bytes(&self, ct: &Self::Ct) -> usize {
        json_len(ct)
    }
    fn compact_bytes(&self, key: &Self::Key, ct: &Self::Ct) -> Option<(usize, usize)> {
        Some((compact_len(key), compact_len(ct)))
    }
}

// ------------------------------------------------------- AC17 = FAME (CP)

pub struct RabeAc17Cp {
    pk: ac17::Ac17PublicKey,
    msk: ac17::Ac17MasterKey,
    attrs: Vec<String>,
    policy: String,
}

impl Subject for RabeAc17Cp {
    type Key = ac17::Ac17CpSecretKey;
    type Ct = ac17::Ac17CpCiphertext;
    type Secret = Vec<u8>;
    fn new(n: usize) -> Self {
        let (pk, msk) = ac17::setup();
        RabeAc17Cp {
            pk,
            msk,
            attrs: names(n),
            policy: rabe_binary_and(n),
        }
    }
    fn keygen(&mut self) -> Self::Key {
        let a: Vec<&str> = self.attrs.iter().map(String::as_str).collect();
        ac17::cp_keygen(&self.msk, &a).expect("rabe ac17 cp_keygen")
    }
    fn encrypt(&mut self) -> (Vec<u8>, Self::Ct) {
        let ct = ac17::cp_encrypt(&self.pk, &self.policy, MESSAGE, HUMAN).expect("ac17 cp_encrypt");
        (MESSAGE.to_vec(), ct)
    }
    fn decrypt(&mut self, key: &Self::Key, ct: &Self::Ct) -> Option<Vec<u8>> {
        ac17::cp_decrypt(key, ct).ok()
    }
    fn key_bytes(&self, key: &Self::Key) -> usize {
        json_len(key)
    }
    fn ct_bytes(&self, ct: &Self::Ct) -> usize {
        json_len(ct)
    }
    fn compact_bytes(&self, key: &Self::Key, ct: &Self::Ct) -> Option<(usize, usize)> {
        Some((compact_len(key), compact_len(ct)))
    }
}

// ------------------------------------------------------- AC17 = FAME (KP)

pub struct RabeAc17Kp {
    pk: ac17::Ac17PublicKey,
    msk: ac17::Ac17MasterKey,
    attrs: Vec<String>,
    policy: String,
}

impl Subject for RabeAc17Kp {
    type Key = ac17::Ac17KpSecretKey;
    type Ct = ac17::Ac17KpCiphertext;
    type Secret = Vec<u8>;
    fn new(n: usize) -> Self {
        let (pk, msk) = ac17::setup();
        RabeAc17Kp {
            pk,
            msk,
            attrs: names(n),
            policy: rabe_binary_and(n),
        }
    }
    fn keygen(&mut self) -> Self::Key {
        ac17::kp_keygen(&self.msk, &self.policy, HUMAN).expect("rabe ac17 kp_keygen")
    }
    fn encrypt(&mut self) -> (Vec<u8>, Self::Ct) {
        let a: Vec<&str> = self.attrs.iter().map(String::as_str).collect();
        let ct = ac17::kp_encrypt(&self.pk, &a, MESSAGE).expect("rabe ac17 kp_encrypt");
        (MESSAGE.to_vec(), ct)
    }
    fn decrypt(&mut self, key: &Self::Key, ct: &Self::Ct) -> Option<Vec<u8>> {
        ac17::kp_decrypt(key, ct).ok()
    }
    fn key_bytes(&self, key: &Self::Key) -> usize {
        json_len(key)
    }
    fn ct_bytes(&self, ct: &Self::Ct) -> usize {
        json_len(ct)
    }
    fn compact_bytes(&self, key: &Self::Key, ct: &Self::Ct) -> Option<(usize, usize)> {
        Some((compact_len(key), compact_len(ct)))
    }
}

// ------------------------------------- GHW11 (Waters11 CP, outsourced)

/// rabe's GHW11: Waters11 CP-ABE with outsourced decryption only; "decrypt"
/// is `transform` + `decrypt_out` (the transformation key is made once,
/// untimed; rabe's calls take ciphertext and key by value, so they are
/// cloned before each call, untimed).
pub struct RabeGhw11 {
    pk: ghw11::Ghw11PublicKey,
    msk: ghw11::Ghw11MasterKey,
    attrs: Vec<String>,
    policy: String,
    keys: Option<(ghw11::Ghw11TransformKey, ghw11::Ghw11RetrieveKey)>,
    pending: Option<(
        ghw11::Ghw11Ciphertext,
        ghw11::Ghw11TransformKey,
        ghw11::Ghw11RetrieveKey,
    )>,
}

impl Subject for RabeGhw11 {
    type Key = ghw11::Ghw11SecretKey;
    type Ct = ghw11::Ghw11Ciphertext;
    type Secret = Vec<u8>;
    fn new(n: usize) -> Self {
        let (pk, msk) = ghw11::setup();
        RabeGhw11 {
            pk,
            msk,
            attrs: names(n),
            policy: rabe_flat_and(n),
            keys: None,
            pending: None,
        }
    }
    fn keygen(&mut self) -> Self::Key {
        ghw11::keygen(&self.pk, &self.msk, &self.attrs).expect("rabe ghw11 keygen")
    }
    fn encrypt(&mut self) -> (Vec<u8>, Self::Ct) {
        let ct = ghw11::encrypt(&self.pk, &self.policy, HUMAN, MESSAGE).expect("ghw11 encrypt");
        (MESSAGE.to_vec(), ct)
    }
    fn before_decrypt(&mut self, key: &Self::Key, ct: &Self::Ct) {
        if self.keys.is_none() {
            self.keys = Some(ghw11::tkgen(key.clone()).expect("rabe ghw11 tkgen"));
        }
        let (tk, rk) = self.keys.clone().expect("transform key");
        self.pending = Some((ct.clone(), tk, rk));
    }
    fn decrypt(&mut self, _key: &Self::Key, _ct: &Self::Ct) -> Option<Vec<u8>> {
        let (ct, tk, rk) = self.pending.take()?;
        let data = ct.data.clone();
        let t = ghw11::transform(ct, tk).ok()?;
        ghw11::decrypt_out(t, rk, data).ok()
    }
    fn key_bytes(&self, key: &Self::Key) -> usize {
        json_len(key)
    }
    fn ct_bytes(&self, ct: &Self::Ct) -> usize {
        json_len(ct)
    }
    fn compact_bytes(&self, key: &Self::Key, ct: &Self::Ct) -> Option<(usize, usize)> {
        Some((compact_len(key), compact_len(ct)))
    }
}

// ---------------------------------------------------------- YCT14 (KP)

/// rabe's YCT14 with the same universe as ours (`A1 … A256`).
pub struct RabeYct14 {
    pk: yct14::Yct14AbePublicKey,
    msk: yct14::Yct14AbeMasterKey,
    attrs: Vec<String>,
    policy: String,
}

impl Subject for RabeYct14 {
    type Key = yct14::Yct14AbeSecretKey;
    type Ct = yct14::Yct14AbeCiphertext;
    type Secret = Vec<u8>;
    fn new(n: usize) -> Self {
        // Ours' default universe; the quick unit test uses only A1..An, as
        // setup (256 GT exponentiations) is not measured.
        let universe = names(if cfg!(test) { n } else { 256.max(n) });
        let (pk, msk) = yct14::setup(universe.iter().map(String::as_str).collect());
        RabeYct14 {
            pk,
            msk,
            attrs: names(n),
            policy: rabe_flat_and(n),
        }
    }
    fn keygen(&mut self) -> Self::Key {
        yct14::keygen(&self.msk, &self.policy, HUMAN).expect("rabe yct14 keygen")
    }
    fn encrypt(&mut self) -> (Vec<u8>, Self::Ct) {
        let a: Vec<&str> = self.attrs.iter().map(String::as_str).collect();
        let ct = yct14::encrypt(&self.pk, &a, MESSAGE).expect("rabe yct14 encrypt");
        (MESSAGE.to_vec(), ct)
    }
    fn decrypt(&mut self, key: &Self::Key, ct: &Self::Ct) -> Option<Vec<u8>> {
        yct14::decrypt(key, ct).ok()
    }
    fn key_bytes(&self, key: &Self::Key) -> usize {
        json_len(key)
    }
    fn ct_bytes(&self, ct: &Self::Ct) -> usize {
        json_len(ct)
    }
    fn compact_bytes(&self, key: &Self::Key, ct: &Self::Ct) -> Option<(usize, usize)> {
        Some((compact_len(key), compact_len(ct)))
    }
}

// ------------------------------------------------------------ LSW (KP)

/// rabe's LSW (Lewko–Sahai–Waters 2010 KP-ABE): not GPSW, its nearest
/// large-universe KP-ABE, shown beside our GPSW06 for reference.
pub struct RabeLsw {
    pk: lsw::KpAbePublicKey,
    msk: lsw::KpAbeMasterKey,
    attrs: Vec<String>,
    policy: String,
}

impl Subject for RabeLsw {
    type Key = lsw::KpAbeSecretKey;
    type Ct = lsw::KpAbeCiphertext;
    type Secret = Vec<u8>;
    fn new(n: usize) -> Self {
        let (pk, msk) = lsw::setup();
        RabeLsw {
            pk,
            msk,
            attrs: names(n),
            policy: rabe_flat_and(n),
        }
    }
    fn keygen(&mut self) -> Self::Key {
        lsw::keygen(&self.pk, &self.msk, &self.policy, HUMAN).expect("rabe lsw keygen")
    }
    fn encrypt(&mut self) -> (Vec<u8>, Self::Ct) {
        let a: Vec<&str> = self.attrs.iter().map(String::as_str).collect();
        let ct = lsw::encrypt(&self.pk, &a, MESSAGE).expect("rabe lsw encrypt");
        (MESSAGE.to_vec(), ct)
    }
    fn decrypt(&mut self, key: &Self::Key, ct: &Self::Ct) -> Option<Vec<u8>> {
        lsw::decrypt(key, ct).ok()
    }
    fn key_bytes(&self, key: &Self::Key) -> usize {
        json_len(key)
    }
    fn ct_bytes(&self, ct: &Self::Ct) -> usize {
        json_len(ct)
    }
    fn compact_bytes(&self, key: &Self::Key, ct: &Self::Ct) -> Option<(usize, usize)> {
        Some((compact_len(key), compact_len(ct)))
    }
}

// ------------------------------------------------ Cosmian abe_gpsw (KP)

type CosmianGpsw = Gpsw<Bls12_381>;

/// Cosmian's GPSW (small universe, BLS12-381) through its `Engine`: one
/// non-hierarchical policy axis `D` holding `A1 … An` (the master key has
/// one T_i per attribute value, N + 1 of them); the key's access policy is
/// `D::A1 && … && D::An`, the ciphertext carries all N. Its message is a
/// random GT element drawn untimed before each encryption (our KEM's key is
/// Y^s itself), and decryption must return it.
pub struct Cosmian {
    engine: Engine<CosmianGpsw>,
    policy: CosmianPolicy,
    msk: <CosmianGpsw as AbeScheme>::MasterPrivateKey,
    pk: <CosmianGpsw as AbeScheme>::MasterPublicKey,
    access: AccessPolicy,
    attrs: Vec<Attribute>,
    message: Option<<CosmianGpsw as AbeScheme>::PlainText>,
}

const AXIS: &str = "D";

impl Subject for Cosmian {
    type Key = <CosmianGpsw as AbeScheme>::UserDecryptionKey;
    type Ct = <CosmianGpsw as AbeScheme>::CipherText;
    type Secret = Vec<u8>;
    fn new(n: usize) -> Self {
        let names = names(n);
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut policy = CosmianPolicy::new(n as u32 + 1);
        policy
            .add_axis(&PolicyAxis::new(AXIS, &refs, false))
            .expect("cosmian policy axis");
        let engine = Engine::<CosmianGpsw>::new();
        let (msk, pk, _delegation) = engine.generate_master_key(&policy).expect("cosmian setup");
        let access = names
            .iter()
            .map(|a| AccessPolicy::new(AXIS, a))
            .reduce(|l, r| l & r)
            .expect("n ≥ 1");
        let attrs = names.iter().map(|a| Attribute::new(AXIS, a)).collect();
        Cosmian {
            engine,
            policy,
            msk,
            pk,
            access,
            attrs,
            message: None,
        }
    }
    fn before_op(&mut self) {
        self.message = Some(self.engine.random_message().expect("cosmian message"));
    }
    fn keygen(&mut self) -> Self::Key {
        self.engine
            .generate_user_key(&self.policy, &self.msk, &self.access)
            .expect("cosmian keygen")
    }
    fn encrypt(&mut self) -> (Vec<u8>, Self::Ct) {
        let m = self.message.take().expect("message drawn in before_op");
        let ct = self
            .engine
            .encrypt(&self.policy, &self.pk, &self.attrs, &m)
            .expect("cosmian encrypt");
        (m.try_into_bytes().expect("GT bytes"), ct)
    }
    fn decrypt(&mut self, key: &Self::Key, ct: &Self::Ct) -> Option<Vec<u8>> {
        let m = self.engine.decrypt(ct, key).ok()??;
        m.try_into_bytes().ok()
    }
    fn key_bytes(&self, key: &Self::Key) -> usize {
        key.try_into_bytes().expect("key bytes").len()
    }
    fn ct_bytes(&self, ct: &Self::Ct) -> usize {
        ct.try_into_bytes().expect("ct bytes").len()
    }
}
