//! The registry: the table of schemes ([`crate::schemes`]) read into
//! (scheme, curve) → [`Scheme`] entries.

use super::entry::Entry;
use super::extension::{Ghw11, Plain, Traced};
use super::Scheme;
use crate::curve::{Bls12, Bls24, Bls48, Bn254, CurveId, Swapped};
use crate::wire::SchemeId;
use std::marker::PhantomData;

/// The registry, from the table of schemes ([`crate::schemes`]).
pub(super) fn find(id: SchemeId, curve: CurveId) -> Option<&'static dyn Scheme> {
    // `$S` names the scheme on the curve `C`, defined per arm.
    macro_rules! on {
        ($S:ty, $O:ty, [$($id:ident => $C:ty),* $(,)?]) => {
            match curve {
                $(CurveId::$id => {
                    type C = $C;
                    Some(&Entry::<$S, $O>(PhantomData) as &dyn Scheme)
                })*
                #[allow(unreachable_patterns)]
                _ => None,
            }
        };
    }
    // Every pairing scheme in both placements (`Swapped`).
    macro_rules! pairing {
        ($S:ty, $O:ty) => {
            on!($S, $O, [Bls12_381 => Bls12, Bn254 => Bn254, Bls24_479 => Bls24, Bls48_581 => Bls48,
                Bls12_381Swapped => Swapped<Bls12>, Bn254Swapped => Swapped<Bn254>,
                Bls24_479Swapped => Swapped<Bls24>, Bls48_581Swapped => Swapped<Bls48>])
        };
    }
    macro_rules! classic {
        ($S:ty) => {
            on!($S, Plain, [Bls12_381 => Bls12, Bn254 => Bn254,
                Bls12_381Swapped => Swapped<Bls12>, Bn254Swapped => Swapped<Bn254>])
        };
    }
    macro_rules! traced {
        ($S:ty) => {
            on!($S, Traced, [Bls12_381 => Bls12, Bn254 => Bn254,
                Bls12_381Swapped => Swapped<Bls12>, Bn254Swapped => Swapped<Bn254>])
        };
    }
    // Broken schemes exist only in builds that ask for them.
    macro_rules! insecure {
        ($S:ty) => {{
            #[cfg(feature = "insecure-benchmark-only")]
            let found = classic!($S);
            #[cfg(not(feature = "insecure-benchmark-only"))]
            let found = None;
            found
        }};
    }
    macro_rules! p256 {
        ($S:ty) => {
            (curve == CurveId::P256).then_some(&Entry::<$S, Plain>(PhantomData) as &dyn Scheme)
        };
    }
    // Not a KEM (signatures).
    macro_rules! none {
        () => {
            None
        };
    }
    macro_rules! registry {
        ($($id:ident = $byte:literal, $name:literal, $family:ident, $form:ident($($args:tt)*), $what:literal;)*) => {
            match id {
                $(SchemeId::$id => $form!($($args)*),)*
            }
        };
    }
    crate::schemes::schemes!(registry)
}
