//! GHW11 outsourced decryption on encoded objects, dispatched on the
//! preamble's (scheme, curve) through the registry: what a proxy runs
//! ([`transform_bytes`], or [`PreparedTransformKey`] to decode a key once
//! for many headers) and what the thin client finishes with
//! ([`decrypt_transformed_bytes`], against the original's [`header_id`]).
//! The CLI (`abbe transform`, `abbe decrypt`), Python and the HTTP proxy
//! all call these.

use crate::kem::SessionKey;
use crate::outsource::{header_mode, Expect, OutsourceError, Outsourced};
use crate::wire::{ObjectKind, Preamble, WireError};
use std::any::Any;

/// The outsourcing of `pre`'s (scheme, curve), from the registry.
fn outsourced(pre: &Preamble) -> Result<&'static dyn Outsourced, OutsourceError> {
    super::scheme_allowing_insecure(pre.scheme, pre.curve)
        .ok()
        .and_then(|s| s.outsourcing())
        .ok_or(OutsourceError::Unsupported(pre.scheme.name()))
}

fn same_setup(key: &Preamble, obj: &Preamble, what: &'static str) -> Result<(), OutsourceError> {
    if key.scheme != obj.scheme || key.curve != obj.curve {
        return Err(OutsourceError::Mismatch {
            what,
            key: format!("{} on {}", key.scheme.name(), key.curve.label()),
            object: format!("{} on {}", obj.scheme.name(), obj.curve.label()),
        });
    }
    Ok(())
}

/// Checks that `tk` is a transformation key of an outsourcing scheme (what
/// a proxy does before storing it). Returns its preamble.
pub fn check_transform_key(tk: &[u8]) -> Result<Preamble, OutsourceError> {
    Ok(*PreparedTransformKey::decode(tk)?.preamble())
}

/// A transformation key decoded once, for many transformations: what a
/// proxy keeps in memory. Decoding validates every point (subgroup checks);
/// the scheme's lazily computed pairing data (the Miller-loop lines
/// of the key elements) is kept with it after the first use, so later
/// transformations pay only for the header.
pub struct PreparedTransformKey {
    pre: Preamble,
    /// `<K as Outsourcing>::TransformKey` for the `K` that `pre` names.
    key: Box<dyn Any + Send + Sync>,
}

impl std::fmt::Debug for PreparedTransformKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedTransformKey")
            .field("scheme", &self.pre.scheme.name())
            .field("curve", &self.pre.curve.name())
            .finish_non_exhaustive()
    }
}

impl PreparedTransformKey {
    /// Decodes an encoded transformation key (kind 10) of an outsourcing
    /// scheme.
    pub fn decode(tk: &[u8]) -> Result<Self, OutsourceError> {
        let pre = Preamble::parse(tk)?;
        if pre.kind != ObjectKind::TransformationKey {
            return Err(OutsourceError::Kind(format!(
                "this is a {}, expected a transformation key",
                pre.kind.describe()
            )));
        }
        let key = outsourced(&pre)?.decode_transform_key(tk)?;
        Ok(PreparedTransformKey { pre, key })
    }

    /// The key's preamble (scheme and curve).
    pub fn preamble(&self) -> &Preamble {
        &self.pre
    }

    /// As [`transform_bytes`], with this key.
    pub fn transform(&self, header: &[u8]) -> Result<Vec<u8>, OutsourceError> {
        let hpre = Preamble::parse(header)?;
        let mode = header_mode(header)?;
        same_setup(&self.pre, &hpre, "transformation key")?;
        outsourced(&self.pre)?.transform(&*self.key, header, mode)
    }
}

/// What a proxy runs: a CPA (kind 6) or RCCA (kind 12) KEM header object →
/// its constant-size transformation (kind 7 or 13). Decodes `tk` each time:
/// to transform many headers with one key, decode it once with
/// [`PreparedTransformKey::decode`].
pub fn transform_bytes(tk: &[u8], header: &[u8]) -> Result<Vec<u8>, OutsourceError> {
    let kpre = Preamble::parse(tk)?;
    let hpre = Preamble::parse(header)?;
    header_mode(header)?;
    same_setup(&kpre, &hpre, "transformation key")?;
    PreparedTransformKey::decode(tk)?.transform(header)
}

const HEADER_ID_DOMAIN: &[u8] = b"abbe/v1/rcca-header-id";

/// The id of an RCCA header that its transformation keeps: SHA-256 over a
/// domain tag, scheme, curve and the header's C = R·e(g,g)^{αs}, which the
/// transformed header (kind 13) carries unchanged. A transformation whose C
/// is the original's decrypts to the original's R or fails the RCCA check,
/// so checking this id binds a transformed file to the ciphertext it claims
/// to be (the carried header digest alone is only the proxy's word). Takes
/// an RCCA header (kind 12) or RCCA transformed header (kind 13); `abbe
/// inspect` prints it for both.
pub fn header_id(object: &[u8]) -> Result<[u8; 32], OutsourceError> {
    use sha2::{Digest, Sha256};
    let pre = Preamble::parse(object)?;
    if !matches!(
        pre.kind,
        ObjectKind::RccaKemHeader | ObjectKind::RccaTransformedKemHeader
    ) {
        return Err(OutsourceError::Kind(format!(
            "only RCCA (outsourceable, checked) ciphertexts have a header id, not a {}",
            pre.kind.describe()
        )));
    }
    let gt_bytes = outsourced(&pre)?.gt_bytes();
    let c = object
        .get(crate::wire::PREAMBLE_LEN..crate::wire::PREAMBLE_LEN + gt_bytes)
        .ok_or(WireError::Truncated("C"))?;
    Ok(Sha256::new()
        .chain_update(HEADER_ID_DOMAIN)
        .chain_update([pre.scheme as u8, pre.curve as u8])
        .chain_update(c)
        .finalize()
        .into())
}

/// The final step of outsourced decryption: a retrieval key (kind 14, or
/// kind 5 for CPA) and a transformed header (kind 13 or 7) → the session
/// key. RCCA transformations from a lying proxy are rejected; a
/// transformation of another header than `expect.header_id` is refused, and
/// one without an expected header id unless `expect.any_original`; an RCCA
/// retrieval key refuses CPA transformations unless `expect.allow_cpa`.
pub fn decrypt_transformed_bytes(
    rk: &[u8],
    transformed: &[u8],
    expect: &Expect,
) -> Result<SessionKey, OutsourceError> {
    let kpre = Preamble::parse(rk)?;
    let tpre = Preamble::parse(transformed)?;
    same_setup(&kpre, &tpre, "retrieval key")?;
    match (tpre.kind, expect.header_id) {
        (ObjectKind::RccaTransformedKemHeader, Some(id)) if header_id(transformed)? != id => {
            return Err(OutsourceError::Kind(
                "the transformed ciphertext is not of the expected header (its header id differs): \
                 the proxy returned a transformation of another ciphertext"
                    .into(),
            ))
        }
        (ObjectKind::RccaTransformedKemHeader, None) if !expect.any_original => {
            return Err(OutsourceError::Kind(
                "which ciphertext is this a transformation of? A proxy can return a valid \
                 transformation of any ciphertext, so a transformed file is decrypted only \
                 against its original: give the original file (--original; Python: original=) \
                 or its header id (--expect-header, as `abbe inspect --json` prints it; \
                 Python: expect_header=), or waive the check (--any-original)"
                    .into(),
            ))
        }
        (ObjectKind::TransformedKemHeader, Some(_)) => {
            return Err(OutsourceError::Kind(
                "a CPA transformation cannot be checked against an expected header; \
                 only RCCA ciphertexts (encrypt --mode rcca) can"
                    .into(),
            ))
        }
        _ => {}
    }
    outsourced(&kpre)?.decrypt_transformed(rk, transformed, expect.allow_cpa)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abe::cca::CcaKey;
    use crate::abe::rcca::RccaRetrievalKey;
    use crate::abe::Rcca;
    use crate::abe::{Cca, Waters11};
    use crate::curve::Bls12;
    use crate::kem::Authority;
    use crate::kem::Kem;
    use crate::kem::Outsourcing;
    use crate::policy::{AttributeSet, Policy};
    use crate::wire::Encoded;
    use rand_chacha::rand_core::SeedableRng;

    const CPA: Expect = Expect {
        header_id: None,
        any_original: false,
        allow_cpa: true,
    };
    /// The check waived, for the tests of everything else.
    const ANY: Expect = Expect {
        header_id: None,
        any_original: true,
        allow_cpa: false,
    };

    #[test]
    fn cpa_and_rcca_round_trip_and_refusals() {
        type W = Waters11<Bls12>;
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(5);
        let (pk, mk) = W::setup(&Default::default(), &mut rng).unwrap();
        let key: CcaKey<W> =
            crate::kem::keygen::<Cca<W>>(&pk, &mk, &AttributeSet::parse("a, b").unwrap(), &mut rng)
                .unwrap();
        let (tk, rk) = Rcca::<W>::transform_key(&key, &mut rng);
        let (tk, rk) = (tk.to_bytes(), rk.to_bytes());
        let policy = Policy::parse("a and b").unwrap();

        let (k1, h1) = W::encapsulate(&pk, &policy, &mut rng).unwrap();
        let t1 = transform_bytes(&tk, &h1.to_bytes()).unwrap();
        assert_eq!(
            decrypt_transformed_bytes(&rk, &t1, &CPA)
                .unwrap()
                .as_bytes(),
            k1.as_bytes()
        );
        // The RCCA retrieval key refuses an (unchecked) CPA transformation
        // unless asked to accept one.
        let e = decrypt_transformed_bytes(&rk, &t1, &Expect::default()).unwrap_err();
        assert!(e.to_string().contains("--allow-cpa"), "{e}");
        // So does the bare CPA retrieval key inside it (kind 5).
        let cpa_rk = RccaRetrievalKey::<W>::from_bytes(&rk)
            .unwrap()
            .inner()
            .to_bytes();
        assert_eq!(
            Preamble::parse(&cpa_rk).unwrap().kind,
            ObjectKind::CpaRetrievalKey
        );
        let e = decrypt_transformed_bytes(&cpa_rk, &t1, &Expect::default()).unwrap_err();
        assert!(e.to_string().contains("--allow-cpa"), "{e}");
        assert_eq!(
            decrypt_transformed_bytes(&cpa_rk, &t1, &CPA)
                .unwrap()
                .as_bytes(),
            k1.as_bytes()
        );

        let (k2, h2) = Rcca::<W>::encapsulate(&pk, &policy, &mut rng).unwrap();
        let t2 = transform_bytes(&tk, &h2.to_bytes()).unwrap();
        assert_eq!(
            decrypt_transformed_bytes(&rk, &t2, &ANY)
                .unwrap()
                .as_bytes(),
            k2.as_bytes()
        );
        // Without the original's header id, nothing is decrypted unless the
        // check was waived.
        let e = decrypt_transformed_bytes(&rk, &t2, &Expect::default()).unwrap_err();
        assert!(e.to_string().contains("which ciphertext"), "{e}");
        // The header id survives the transformation and binds it: the
        // transformation of another RCCA header is refused.
        let id2 = header_id(&h2.to_bytes()).unwrap();
        assert_eq!(header_id(&t2).unwrap(), id2);
        let expect2 = Expect {
            header_id: Some(id2),
            ..Expect::default()
        };
        assert!(decrypt_transformed_bytes(&rk, &t2, &expect2).is_ok());
        let (_, other) = Rcca::<W>::encapsulate(&pk, &policy, &mut rng).unwrap();
        let t_other = transform_bytes(&tk, &other.to_bytes()).unwrap();
        // A proxy's substitution: valid, and refused unless waived.
        assert!(decrypt_transformed_bytes(&rk, &t_other, &ANY).is_ok());
        assert!(decrypt_transformed_bytes(&rk, &t_other, &Expect::default()).is_err());
        let e = decrypt_transformed_bytes(&rk, &t_other, &expect2).unwrap_err();
        assert!(e.to_string().contains("header id"), "{e}");
        assert!(decrypt_transformed_bytes(&rk, &t1, &expect2).is_err());
        assert!(header_id(&h1.to_bytes()).is_err());
        assert!(header_id(b"ABBE\x01\x0d\x01\x01").is_err());

        // A lying proxy (the CPA transformation swapped in) is caught.
        let mut lie = t2.clone();
        let n = lie.len();
        lie[n - 1] ^= 1;
        assert!(decrypt_transformed_bytes(&rk, &lie, &ANY).is_err());

        // CCA headers and garbage are refused with a message, never a panic.
        let (_, h3) = Cca::<W>::encapsulate(&pk, &policy, &mut rng).unwrap();
        assert!(matches!(
            transform_bytes(&tk, &h3.to_bytes()),
            Err(OutsourceError::Kind(_))
        ));
        for junk in [&b""[..], b"ABBE", b"ABBE\x01\x06\x01\x01garbage"] {
            assert!(transform_bytes(&tk, junk).is_err());
            assert!(check_transform_key(junk).is_err());
        }
        assert!(check_transform_key(&tk).is_ok());
        assert!(check_transform_key(&rk).is_err());
        assert!(PreparedTransformKey::decode(&rk).is_err());

        // A key decoded once serves many headers, in both modes.
        let prepared = PreparedTransformKey::decode(&tk).unwrap();
        assert_eq!(prepared.preamble().scheme, crate::wire::SchemeId::Waters11);
        for _ in 0..2 {
            let t = prepared.transform(&h1.to_bytes()).unwrap();
            assert_eq!(
                decrypt_transformed_bytes(&rk, &t, &CPA).unwrap().as_bytes(),
                k1.as_bytes()
            );
            let t = prepared.transform(&h2.to_bytes()).unwrap();
            assert_eq!(
                decrypt_transformed_bytes(&rk, &t, &expect2)
                    .unwrap()
                    .as_bytes(),
                k2.as_bytes()
            );
        }
        assert!(matches!(
            prepared.transform(&h3.to_bytes()),
            Err(OutsourceError::Kind(_))
        ));
        for junk in [&b""[..], b"ABBE", b"ABBE\x01\x06\x01\x01garbage"] {
            assert!(prepared.transform(junk).is_err());
        }

        // Unsatisfied policy.
        let (_, h4) = W::encapsulate(&pk, &Policy::parse("a and c").unwrap(), &mut rng).unwrap();
        assert!(transform_bytes(&tk, &h4.to_bytes())
            .unwrap_err()
            .is_not_satisfied());
    }
}
