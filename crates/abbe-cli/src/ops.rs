//! The CLI's operations, written once for any scheme (`K: Kem`) and, for
//! outsourcing, any scheme with GHW11's structure (`K: BlindedKem`).
//!
//! Key and header kinds handled here:
//! * user keys are written as bundles (kind 11: the scheme's key + its public
//!   key), which decrypt every mode; a bare scheme key (kind 3) decrypts CPA
//!   headers;
//! * headers: CCA (kind 10, the default), RCCA (kind 12, outsourceable and
//!   checked), CPA (kind 6, outsourceable, GHW11's CPA scheme);
//! * retrieval keys (kind 14) finish RCCA (kind 13) and CPA (kind 7)
//!   transformed headers.
//!
//! The transform and its final decryption are dispatched in the library
//! (`abbe::outsource`), shared with the proxy.

use crate::{CliError, Result};
use abbe::abe::cca::{CcaHeader, CcaKey};
use abbe::abe::rcca::RccaHeader;
use abbe::abe::{Cca, Rcca};
use abbe::kem::{Authority, BlindedKem, Kem, MasterKeyOf, Outsourcing, SessionKey, Side};
use abbe::wire::{Encoded, ObjectKind, Preamble};
use rand_core::OsRng;

/// How `encrypt` protects the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// CCA-secure (Fujisaki–Okamoto re-encryption check). The default.
    Cca,
    /// RCCA-secure and outsourceable (GHW11 §3.2/§4.2): a proxy can transform
    /// it, and the final decryption detects a lying proxy.
    Rcca,
    /// Only CPA-secure, outsourceable (GHW11's CPA scheme): for benchmarks.
    Cpa,
}

fn kind_of(bytes: &[u8]) -> Result<ObjectKind> {
    Ok(Preamble::parse(bytes)?.kind)
}

pub fn setup<K: Kem>() -> (Vec<u8>, Vec<u8>) {
    let (pk, mk) = abbe::kem::setup::<K>(&Default::default(), &mut OsRng).unwrap();
    (pk.to_bytes(), mk.to_bytes())
}

/// Checks that the user put the policy on the side this scheme takes it;
/// `command` is "keygen" or "encrypt".
pub fn side_text<S: Side>(
    scheme: &str,
    command: &str,
    wanted: Option<String>,
    other: Option<String>,
) -> Result<String> {
    let (what, flag, example) = if S::IS_POLICY {
        ("a policy", "--policy", "\"a and b\"")
    } else {
        ("attributes", "--attrs", "\"a, b, age = 42\"")
    };
    let (objects, there) = if command == "keygen" {
        ("keys", "encrypt")
    } else {
        ("ciphertexts", "keygen")
    };
    let kind = if S::IS_POLICY == (command == "keygen") {
        "key-policy"
    } else {
        "ciphertext-policy"
    };
    let (other_what, other_flag) = if S::IS_POLICY {
        ("attributes go", "--attrs")
    } else {
        ("the policy goes", "--policy")
    };
    match (wanted, other) {
        (Some(v), _) => Ok(v),
        (None, Some(_)) => Err(CliError::Other(format!(
            "{scheme} is {kind} ABE: {objects} take {what} ({flag} {example}); {other_what} to `abbe {there} {other_flag}`"
        ))),
        (None, None) => Err(CliError::Other(format!("`abbe {command}` needs {what} ({flag} {example})"))),
    }
}

/// A user key bundle; the public key is `public` when given (it must be the
/// master key's), else recomputed from the master key.
pub fn keygen<K: Kem>(mk: &[u8], side: &str, public: Option<&[u8]>) -> Result<Vec<u8>> {
    let side = K::KeySide::parse(side)?;
    let mk = MasterKeyOf::<K>::from_bytes(mk)?;
    let pk = match public {
        Some(bytes) => {
            let pk = K::PublicKey::from_bytes(bytes)?;
            if !K::Authority::is_public_key_of(&pk, &mk) {
                return Err(CliError::Invalid(
                    "--public is not the public key of this master key's setup".into(),
                ));
            }
            pk
        }
        None => K::Authority::public_key(&mk),
    };
    Ok(abbe::kem::keygen::<Cca<K>>(&pk, &mk, &side, &mut OsRng)?.to_bytes())
}

/// CCA or CPA encapsulation; RCCA goes through [`encrypt_rcca`].
pub fn encrypt<K: Kem>(pk: &[u8], side: &str, mode: Mode) -> Result<(SessionKey, Vec<u8>)> {
    let target = K::CiphertextSide::parse(side)?;
    let pk = K::PublicKey::from_bytes(pk)?;
    match mode {
        Mode::Cpa => {
            let (k, h) = K::encapsulate(&pk, &target, &mut OsRng)?;
            Ok((k, h.to_bytes()))
        }
        _ => {
            let (k, h) = Cca::<K>::encapsulate(&pk, &target, &mut OsRng)?;
            Ok((k, h.to_bytes()))
        }
    }
}

pub fn encrypt_rcca<K: BlindedKem>(pk: &[u8], side: &str) -> Result<(SessionKey, Vec<u8>)> {
    let target = K::CiphertextSide::parse(side)?;
    let pk = K::PublicKey::from_bytes(pk)?;
    let (k, h) = Rcca::<K>::encapsulate(&pk, &target, &mut OsRng)?;
    Ok((k, h.to_bytes()))
}

fn user_key<K: Kem>(key: &[u8]) -> Result<CcaKey<K>> {
    Ok(CcaKey::<K>::from_bytes(key)?)
}

/// Decapsulates a CCA (10) or CPA (6) header; RCCA headers need
/// [`decrypt_rcca`]. A key bundle (made for CCA) decrypts a CPA header only
/// with `allow_cpa`: otherwise anyone could downgrade its holder to the
/// malleable KEM.
pub fn decrypt<K: Kem>(key: &[u8], header: &[u8], allow_cpa: bool) -> Result<SessionKey> {
    match (kind_of(key)?, kind_of(header)?) {
        (ObjectKind::UserKey, ObjectKind::KemHeader) if !allow_cpa => Err(CliError::Invalid(
            abbe::outsource::cpa_refused("CPA ciphertext (encrypted with --mode cpa)"),
        )),
        (ObjectKind::UserKey, ObjectKind::CcaKemHeader) => Ok(Cca::<K>::decapsulate(
            &user_key::<K>(key)?,
            &CcaHeader::<K>::from_bytes(header)?,
        )?),
        (ObjectKind::UserKey, ObjectKind::KemHeader) => Ok(K::decapsulate(
            &user_key::<K>(key)?.key,
            &K::Header::from_bytes(header)?,
        )?),
        (ObjectKind::SchemeUserKey, ObjectKind::KemHeader) => Ok(K::decapsulate(
            &K::UserKey::from_bytes(key)?,
            &K::Header::from_bytes(header)?,
        )?),
        (ObjectKind::SchemeUserKey, ObjectKind::CcaKemHeader) => Err(CliError::Invalid(
            "this bare key cannot check CCA ciphertexts; use the key file written by `abbe keygen`"
                .into(),
        )),
        (k, h) => Err(CliError::Invalid(format!(
            "a {} cannot decrypt a {}",
            k.describe(),
            h.describe()
        ))),
    }
}

pub fn decrypt_rcca<K: BlindedKem>(key: &[u8], header: &[u8]) -> Result<SessionKey> {
    Ok(Rcca::<K>::decapsulate(
        &user_key::<K>(key)?,
        &RccaHeader::<K>::from_bytes(header)?,
    )?)
}

/// (transformation key, retrieval key) from a user key bundle.
pub fn transform_key<K: BlindedKem>(key: &[u8]) -> Result<(Vec<u8>, Vec<u8>)> {
    let (tk, rk) = Rcca::<K>::transform_key(&user_key::<K>(key)?, &mut OsRng);
    Ok((tk.to_bytes(), rk.to_bytes()))
}

/// `inspect` lines for a key or header of scheme `K` (never secrets).
pub fn describe<K: Kem>(bytes: &[u8]) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    match kind_of(bytes)? {
        ObjectKind::PublicKey => {
            let pk = K::PublicKey::from_bytes(bytes)?;
            out.push((
                "setup id".into(),
                hex(&abbe::wire::setup_id(&pk.to_bytes())),
            ));
        }
        ObjectKind::MasterKey => {
            MasterKeyOf::<K>::from_bytes(bytes)?;
            out.push((
                "note".into(),
                "secret: whoever holds this file can issue keys".into(),
            ));
        }
        ObjectKind::UserKey => {
            let k = user_key::<K>(bytes)?;
            out.push((side_label::<K::KeySide>(), K::key_side(&k.key).describe()));
        }
        ObjectKind::SchemeUserKey => {
            let k = K::UserKey::from_bytes(bytes)?;
            out.push((side_label::<K::KeySide>(), K::key_side(&k).describe()));
        }
        ObjectKind::KemHeader => {
            let h = K::Header::from_bytes(bytes)?;
            if let Some(id) = K::header_setup_id(&h) {
                out.push(("setup id".into(), hex(&id)));
            }
            out.push((
                side_label::<K::CiphertextSide>(),
                K::ciphertext_side(&h).describe(),
            ));
            out.push(("security".into(), "CPA only (outsourceable)".into()));
        }
        ObjectKind::CcaKemHeader => {
            let h = CcaHeader::<K>::from_bytes(bytes)?;
            if let Some(id) = Cca::<K>::header_setup_id(&h) {
                out.push(("setup id".into(), hex(&id)));
            }
            out.push((
                side_label::<K::CiphertextSide>(),
                K::ciphertext_side(&h.inner).describe(),
            ));
            out.push(("security".into(), "CCA (Fujisaki–Okamoto)".into()));
        }
        _ => {}
    }
    Ok(out)
}

/// `inspect` lines for RCCA headers.
pub fn describe_rcca<K: BlindedKem>(bytes: &[u8]) -> Result<Vec<(String, String)>> {
    let h = RccaHeader::<K>::from_bytes(bytes)?;
    let id = Rcca::<K>::header_setup_id(&h)
        .map(|id| hex(&id))
        .unwrap_or_default();
    Ok(vec![
        ("setup id".into(), id),
        (
            side_label::<K::CiphertextSide>(),
            K::ciphertext_side(&h.inner).describe(),
        ),
        ("security".into(), "RCCA (GHW11), outsourceable".into()),
    ])
}

fn side_label<S: Side>() -> String {
    if S::IS_POLICY {
        "policy".into()
    } else {
        "attributes".into()
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
