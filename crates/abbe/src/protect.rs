//! Passphrase-protected secret keys (kind 17), in the manner of `age`'s
//! scrypt recipient (docs/FORMAT.md, "Passphrase-protected keys").
//!
//! ```text
//! preamble (kind 17, the inner key's scheme and curve)     8 bytes
//! scrypt log2(N) ‖ r ‖ p                                    3 bytes
//! salt                                                     16 bytes
//! nonce                                                    12 bytes
//! AES-256-GCM(key = scrypt(passphrase, salt, N, r, p),
//!             plaintext = the whole inner key object,
//!             associated data = the 39 bytes above)        inner + 16 bytes
//! ```
//!
//! The associated data covers the preamble and the parameters, so neither
//! can be changed without the passphrase. Decoding checks the parameters
//! against fixed bounds *before* running scrypt (a file cannot make us
//! allocate gigabytes or spin for minutes), and after decryption checks that
//! the inner object is a secret key of the same scheme and curve.
//!
//! Secrets: the derived key lives in a [`Zeroizing`] buffer and the AES key
//! schedule is zeroized on drop (aes-gcm's `zeroize` feature); the decrypted
//! key is returned in a [`Zeroizing`] vector. The passphrase belongs to the
//! caller. The `scrypt` crate's internal working memory (the N·128·r-byte
//! ROMix table) is freed without being wiped.

use crate::wire::{ObjectKind, Preamble, WireError, PREAMBLE_LEN};
use aes_gcm::aead::{AeadInPlace, KeyInit};
use aes_gcm::{Aes256Gcm, Nonce, Tag};
use rand_core::{CryptoRng, RngCore};
use zeroize::Zeroizing;

pub const SALT_LEN: usize = 16;
pub const NONCE_LEN: usize = 12;
pub const TAG_LEN: usize = 16;
/// Preamble, scrypt parameters, salt and nonce: the associated data.
pub const HEADER_LEN: usize = PREAMBLE_LEN + 3 + SALT_LEN + NONCE_LEN;

/// scrypt's work factor and the bounds a decoder accepts.
///
/// The default, log2 N = 18, r = 8, p = 1 (128·r·N = 256 MiB of memory,
/// under a second per key operation: time `abbe keygen` with a protected
/// master key against an unprotected one); `age`'s scrypt recipient uses
/// the same N, r and p.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScryptParams {
    pub log_n: u8,
    pub r: u8,
    pub p: u8,
}

impl ScryptParams {
    /// What `protect` uses.
    pub const DEFAULT: ScryptParams = ScryptParams {
        log_n: 18,
        r: 8,
        p: 1,
    };
    /// Below this a passphrase is barely slowed down: refused both ways.
    /// Fuzz builds (`--cfg fuzzing`, set by cargo-fuzz, never by cargo)
    /// go down to 1 so that a round trip costs microseconds rather than
    /// three scrypts at the floor, and the decoders get 10^7 inputs in
    /// minutes.
    pub const MIN_LOG_N: u8 = if cfg!(fuzzing) { 1 } else { 10 };
    /// Above this (1 GiB at r = 8) a file could exhaust memory: refused.
    pub const MAX_LOG_N: u8 = 20;
    pub const MAX_R: u8 = 32;
    pub const MAX_P: u8 = 16;
    /// Largest scrypt memory, 128·r·N bytes: the default's 256 MiB × 4. A
    /// protected key is untrusted input until its tag verifies, which
    /// takes the whole scrypt: it may not ask for more.
    pub const MAX_MEMORY: u64 = 1 << 30;
    /// Largest scrypt work, p·r·N block mixes: log2 N = 20, r = 8, p = 1.
    pub const MAX_WORK: u64 = 8 << 20;

    /// Checks the bounds; nothing is computed before this passes.
    pub fn check(&self) -> Result<(), ProtectError> {
        let refuse = |reason: &'static str| {
            Err(ProtectError::Params {
                params: *self,
                reason,
            })
        };
        if self.log_n < Self::MIN_LOG_N {
            return refuse("log2 N below 10 gives no real protection");
        }
        if self.log_n > Self::MAX_LOG_N {
            return refuse("log2 N above 20 would take too much memory and time");
        }
        if self.r == 0 || self.r > Self::MAX_R {
            return refuse("r must be 1 to 32");
        }
        if self.p == 0 || self.p > Self::MAX_P {
            return refuse("p must be 1 to 16");
        }
        let n = 1u64 << self.log_n;
        if 128 * u64::from(self.r) * n > Self::MAX_MEMORY {
            return refuse("128·r·N is above 1 GiB of memory");
        }
        if u64::from(self.p) * u64::from(self.r) * n > Self::MAX_WORK {
            return refuse("p·r·N is above the work of log2 N = 20, r = 8, p = 1");
        }
        // scrypt's own conditions (N < 2^(16·r), p·r < 2^30) hold within
        // these bounds; the crate checks them again.
        Ok(())
    }
}

impl Default for ScryptParams {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Errors of [`protect`] and [`unprotect`]. `WrongPassphrase` is the only
/// one a correct file with a mistyped passphrase gives.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtectError {
    #[error(transparent)]
    Wire(#[from] WireError),
    #[error("this is a {found}, not a passphrase-protected key")]
    NotProtected { found: &'static str },
    #[error("truncated passphrase-protected key ({len} bytes, at least {min})")]
    Truncated { len: usize, min: usize },
    #[error(
        "scrypt parameters refused (log2N={}, r={}, p={}): {reason}",
        params.log_n,
        params.r,
        params.p
    )]
    Params {
        params: ScryptParams,
        reason: &'static str,
    },
    #[error("wrong passphrase (or the file is corrupt)")]
    WrongPassphrase,
    #[error("the protected key holds a {found}, which is not a secret key")]
    InnerNotSecret { found: &'static str },
    #[error("the protected key's contents are invalid: {0}")]
    InnerInvalid(WireError),
    #[error("the protected key says {outer}, the key inside is for {inner}")]
    InnerMismatch { outer: String, inner: String },
    #[error("only a secret key can be passphrase-protected, not a {found}")]
    NotASecretKey { found: &'static str },
    #[error("the passphrase is empty")]
    EmptyPassphrase,
}

/// Protects the secret key object `inner` under `passphrase` with the
/// default work factor, a random salt and a random nonce.
pub fn protect<G: RngCore + CryptoRng>(
    inner: &[u8],
    passphrase: &[u8],
    rng: &mut G,
) -> Result<Vec<u8>, ProtectError> {
    let mut salt = [0u8; SALT_LEN];
    let mut nonce = [0u8; NONCE_LEN];
    rng.fill_bytes(&mut salt);
    rng.fill_bytes(&mut nonce);
    protect_with(inner, passphrase, ScryptParams::DEFAULT, salt, nonce)
}

/// [`protect`] with explicit parameters, salt and nonce (deterministic: for
/// tests and test vectors). Reusing a salt with the same passphrase reuses
/// the key, so callers other than tests must draw both at random.
pub fn protect_with(
    inner: &[u8],
    passphrase: &[u8],
    params: ScryptParams,
    salt: [u8; SALT_LEN],
    nonce: [u8; NONCE_LEN],
) -> Result<Vec<u8>, ProtectError> {
    let pre = Preamble::parse(inner)?;
    if !pre.kind.is_secret_key() {
        return Err(ProtectError::NotASecretKey {
            found: pre.kind.describe(),
        });
    }
    if passphrase.is_empty() {
        return Err(ProtectError::EmptyPassphrase);
    }
    params.check()?;
    let outer = Preamble::new(ObjectKind::ProtectedKey, pre.scheme, pre.curve);
    let mut out = Vec::with_capacity(HEADER_LEN + inner.len() + TAG_LEN);
    out.extend_from_slice(&outer.to_bytes());
    out.extend_from_slice(&[params.log_n, params.r, params.p]);
    out.extend_from_slice(&salt);
    out.extend_from_slice(&nonce);
    out.extend_from_slice(inner);
    let cipher = cipher(passphrase, &salt, params);
    let (ad, body) = out.split_at_mut(HEADER_LEN);
    let tag = cipher
        .encrypt_in_place_detached(Nonce::from_slice(&nonce), ad, body)
        .expect("AES-GCM refuses only plaintexts above 64 GiB");
    out.extend_from_slice(&tag);
    Ok(out)
}

/// The preamble and scrypt parameters of a protected key, without any work
/// (for `abbe inspect`). The parameters are checked against the bounds.
pub fn inspect(obj: &[u8]) -> Result<(Preamble, ScryptParams), ProtectError> {
    let pre = Preamble::parse(obj)?;
    if pre.kind != ObjectKind::ProtectedKey {
        return Err(ProtectError::NotProtected {
            found: pre.kind.describe(),
        });
    }
    let min = HEADER_LEN + PREAMBLE_LEN + TAG_LEN;
    if obj.len() < min {
        return Err(ProtectError::Truncated {
            len: obj.len(),
            min,
        });
    }
    let params = ScryptParams {
        log_n: obj[PREAMBLE_LEN],
        r: obj[PREAMBLE_LEN + 1],
        p: obj[PREAMBLE_LEN + 2],
    };
    params.check()?;
    Ok((pre, params))
}

/// Decrypts a protected key: the inner secret key object, checked to be a
/// secret key kind of the outer scheme and curve.
pub fn unprotect(obj: &[u8], passphrase: &[u8]) -> Result<Zeroizing<Vec<u8>>, ProtectError> {
    // Every check on the layout and the parameters comes before scrypt.
    let (outer, params) = inspect(obj)?;
    let salt = &obj[PREAMBLE_LEN + 3..PREAMBLE_LEN + 3 + SALT_LEN];
    let nonce = &obj[PREAMBLE_LEN + 3 + SALT_LEN..HEADER_LEN];
    let (ad, rest) = obj.split_at(HEADER_LEN);
    let (ct, tag) = rest.split_at(rest.len() - TAG_LEN);
    let mut plain = Zeroizing::new(ct.to_vec());
    let salt: &[u8; SALT_LEN] = salt.try_into().expect("slice of SALT_LEN bytes");
    cipher(passphrase, salt, params)
        .decrypt_in_place_detached(
            Nonce::from_slice(nonce),
            ad,
            &mut plain,
            Tag::from_slice(tag),
        )
        .map_err(|_| ProtectError::WrongPassphrase)?;
    let inner = Preamble::parse(&plain).map_err(ProtectError::InnerInvalid)?;
    if !inner.kind.is_secret_key() {
        return Err(ProtectError::InnerNotSecret {
            found: inner.kind.describe(),
        });
    }
    if inner.scheme != outer.scheme || inner.curve != outer.curve {
        return Err(ProtectError::InnerMismatch {
            outer: format!("{} on {}", outer.scheme.name(), outer.curve.label()),
            inner: format!("{} on {}", inner.scheme.name(), inner.curve.label()),
        });
    }
    Ok(plain)
}

/// AES-256-GCM keyed with scrypt(passphrase, salt); `params` are checked.
fn cipher(passphrase: &[u8], salt: &[u8; SALT_LEN], params: ScryptParams) -> Aes256Gcm {
    let mut key = Zeroizing::new([0u8; 32]);
    let sp = scrypt::Params::new(
        params.log_n,
        u32::from(params.r),
        u32::from(params.p),
        key.len(),
    )
    .expect("parameters within ScryptParams::check's bounds are valid for scrypt");
    scrypt::scrypt(passphrase, salt, &sp, key.as_mut())
        .expect("a 32-byte output is a valid scrypt output length");
    Aes256Gcm::new_from_slice(key.as_ref()).expect("32-byte key")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curve::CurveId;
    use crate::wire::SchemeId;
    use proptest::prelude::*;
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    /// Fast parameters for tests.
    const FAST: ScryptParams = ScryptParams {
        log_n: 10,
        r: 8,
        p: 1,
    };
    const SALT: [u8; 16] = [0x5a; 16];
    const NONCE: [u8; 12] = [0xc3; 12];

    fn inner(kind: ObjectKind) -> Vec<u8> {
        let mut v = Preamble::new(kind, SchemeId::Waters11, CurveId::Bls12_381)
            .to_bytes()
            .to_vec();
        v.extend((0u8..48).map(|i| i.wrapping_mul(37)));
        v
    }

    fn fast(inner: &[u8], pass: &[u8]) -> Vec<u8> {
        protect_with(inner, pass, FAST, SALT, NONCE).unwrap()
    }

    #[test]
    fn round_trip_every_secret_kind() {
        for k in 1..=255u8 {
            let Some(kind) = ObjectKind::from_u8(k) else {
                continue;
            };
            let key = inner(kind);
            let r = protect_with(&key, b"pw", FAST, SALT, NONCE);
            if kind.is_secret_key() {
                let obj = r.unwrap();
                assert_eq!(obj.len(), HEADER_LEN + key.len() + TAG_LEN);
                assert_eq!(obj[5], 17);
                assert_eq!(&obj[6..8], &key[6..8]);
                assert_eq!(&obj[8..11], &[10, 8, 1]);
                assert_eq!(&*unprotect(&obj, b"pw").unwrap(), &key);
                assert_eq!(inspect(&obj).unwrap().1, FAST);
            } else {
                assert!(
                    matches!(r, Err(ProtectError::NotASecretKey { .. })),
                    "{kind:?}"
                );
            }
        }
    }

    #[test]
    fn default_parameters_and_random_salt() {
        let key = inner(ObjectKind::MasterKey);
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let a = protect(&key, b"correct horse", &mut rng).unwrap();
        let b = protect(&key, b"correct horse", &mut rng).unwrap();
        assert_ne!(a, b, "salt and nonce are fresh");
        assert_eq!(inspect(&a).unwrap().1, ScryptParams::DEFAULT);
        assert_eq!(&*unprotect(&a, b"correct horse").unwrap(), &key);
    }

    #[test]
    fn known_answer() {
        // Guards the format: scrypt(log2N=10, r=8, p=1) and AES-256-GCM with
        // the 39-byte head as associated data. Checked independently with
        // Python's hashlib.scrypt and cryptography's AESGCM.
        let obj = fast(&inner(ObjectKind::MasterKey), b"abbe test vector");
        let hex: String = obj.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, KAT);
    }
    const KAT: &str = "41424245011101010a08015a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5ac3c3c3c3c3c3c3c3c3c3c3c34b75bebd5fab78a1949c963a1b4593928575e7f6cd8a1fd4e6076152197dd8ad64596600f59658b8d091ac4f42c0b2b46121bc61161d155ea326edca09b856b9d0cd0a08cd3e5df6";

    #[test]
    fn wrong_passphrase() {
        let obj = fast(&inner(ObjectKind::UserKey), b"right");
        for wrong in [&b"wrong"[..], b"", b"righ", b"right "] {
            let e = unprotect(&obj, wrong).unwrap_err();
            assert_eq!(e, ProtectError::WrongPassphrase);
            assert_eq!(e.to_string(), "wrong passphrase (or the file is corrupt)");
        }
    }

    #[test]
    fn every_bit_flip_is_rejected() {
        let obj = fast(&inner(ObjectKind::CpaRetrievalKey), b"pw");
        for i in 0..obj.len() * 8 {
            let mut bad = obj.clone();
            bad[i / 8] ^= 1 << (i % 8);
            assert!(unprotect(&bad, b"pw").is_err(), "bit {i} accepted");
        }
    }

    #[test]
    fn truncations_and_extensions_are_rejected() {
        let obj = fast(&inner(ObjectKind::SchemeUserKey), b"pw");
        for n in 0..obj.len() {
            assert!(unprotect(&obj[..n], b"pw").is_err(), "length {n}");
        }
        let mut long = obj.clone();
        long.push(0);
        assert!(unprotect(&long, b"pw").is_err());
    }

    #[test]
    fn parameter_bounds() {
        let ok = |log_n, r, p| ScryptParams { log_n, r, p }.check().is_ok();
        assert!(ok(10, 8, 1));
        assert!(ok(18, 8, 1));
        assert!(ok(20, 8, 1));
        assert!(ok(18, 32, 1));
        assert!(!ok(9, 8, 1));
        assert!(!ok(21, 8, 1));
        assert!(!ok(22, 8, 1));
        assert!(!ok(255, 8, 1));
        assert!(!ok(18, 0, 1));
        assert!(!ok(18, 33, 1));
        assert!(!ok(18, 8, 0));
        assert!(!ok(18, 8, 17));
        assert!(!ok(20, 9, 1), "memory above 1 GiB");
        assert!(!ok(19, 8, 3), "work above the bound");
        // A file asking for absurd work is refused before any scrypt (a
        // forged header with log2 N = 255 would otherwise never finish).
        let mut obj = fast(&inner(ObjectKind::MasterKey), b"pw");
        for (i, v) in [(8, 23u8), (8, 255), (9, 0), (9, 200), (10, 0), (10, 255)] {
            let mut bad = obj.clone();
            bad[i] = v;
            let e = unprotect(&bad, b"pw").unwrap_err();
            assert!(matches!(e, ProtectError::Params { .. }), "{e}");
        }
        // Parameters are also refused when protecting.
        let weak = ScryptParams { log_n: 4, ..FAST };
        assert!(protect_with(&inner(ObjectKind::MasterKey), b"pw", weak, SALT, NONCE).is_err());
        obj.truncate(3);
        assert!(matches!(
            unprotect(&obj, b"pw"),
            Err(ProtectError::Wire(WireError::Truncated(_)))
        ));
    }

    #[test]
    fn inner_object_is_checked() {
        // Build objects whose ciphertext holds a bad inner object, with the
        // right key: what a forger who knows the passphrase could write.
        let seal = |outer: Preamble, plain: &[u8]| {
            let mut out = outer.to_bytes().to_vec();
            out.extend_from_slice(&[FAST.log_n, FAST.r, FAST.p]);
            out.extend_from_slice(&SALT);
            out.extend_from_slice(&NONCE);
            out.extend_from_slice(plain);
            let (ad, body) = out.split_at_mut(HEADER_LEN);
            let tag = cipher(b"pw", &SALT, FAST)
                .encrypt_in_place_detached(Nonce::from_slice(&NONCE), ad, body)
                .unwrap();
            out.extend_from_slice(&tag);
            out
        };
        let outer = Preamble::new(
            ObjectKind::ProtectedKey,
            SchemeId::Waters11,
            CurveId::Bls12_381,
        );
        let e = unprotect(&seal(outer, &inner(ObjectKind::PublicKey)), b"pw").unwrap_err();
        assert!(matches!(e, ProtectError::InnerNotSecret { .. }), "{e}");
        let e = unprotect(&seal(outer, b"garbage!garbage!"), b"pw").unwrap_err();
        assert!(matches!(e, ProtectError::InnerInvalid(_)), "{e}");
        let e = unprotect(&seal(outer, &[]), b"pw").unwrap_err();
        assert!(matches!(e, ProtectError::Truncated { .. }), "{e}");
        let nested = seal(outer, &inner(ObjectKind::MasterKey));
        let e = unprotect(&seal(outer, &nested), b"pw").unwrap_err();
        assert!(matches!(e, ProtectError::InnerNotSecret { .. }), "{e}");
        let bn = Preamble::new(ObjectKind::ProtectedKey, SchemeId::Waters11, CurveId::Bn254);
        let e = unprotect(&seal(bn, &inner(ObjectKind::MasterKey)), b"pw").unwrap_err();
        assert!(matches!(e, ProtectError::InnerMismatch { .. }), "{e}");
        assert!(e.to_string().contains("bn254"), "{e}");
    }

    #[test]
    fn refuses_what_is_not_a_secret_key() {
        assert!(matches!(
            protect_with(b"ABBE", b"pw", FAST, SALT, NONCE),
            Err(ProtectError::Wire(_))
        ));
        assert_eq!(
            protect_with(&inner(ObjectKind::MasterKey), b"", FAST, SALT, NONCE),
            Err(ProtectError::EmptyPassphrase)
        );
        let e = unprotect(&inner(ObjectKind::MasterKey), b"pw").unwrap_err();
        assert!(matches!(e, ProtectError::NotProtected { .. }), "{e}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Random bytes, and random bytes behind a valid head with the
        /// fast parameters, never panic and are never accepted.
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200),
                                    headed in any::<bool>()) {
            let obj = if headed {
                let mut o = Preamble::new(ObjectKind::ProtectedKey, SchemeId::Waters11, CurveId::Bn254)
                    .to_bytes().to_vec();
                o.extend_from_slice(&[FAST.log_n, FAST.r, FAST.p]);
                o.extend_from_slice(&bytes);
                o
            } else {
                bytes
            };
            prop_assert!(unprotect(&obj, b"pw").is_err());
        }
    }
}
