//! Tracing through the registry: a pirate decoder given complete abbe
//! files, traced with the search of [`crate::bcast::trace`].

use super::{same_setup, scheme, Error};
use crate::bcast::trace::search::Query;
use crate::bcast::trace::{trace_indices, TraceOptions, TraceProgress, TraceReport, Traceable};
use crate::bcast::Source;
use crate::envelope;
use crate::kem::MasterKeyOf;
use crate::wire::{self, Encoded, ObjectKind, Preamble};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha20Rng;
use rand_core::{CryptoRng, CryptoRngCore, RngCore};

/// What a trace runs with, besides the keys: its bounds, the pirate decoder
/// (given complete ciphertext files, returning what it decrypted), a
/// progress callback and the randomness of the tracing encryptions.
pub struct Tracing<'a> {
    pub options: &'a TraceOptions,
    pub decoder: &'a mut dyn FnMut(&[u8]) -> std::io::Result<Vec<u8>>,
    pub progress: &'a mut dyn FnMut(&TraceProgress),
    pub rng: &'a mut dyn CryptoRngCore,
}

pub(super) type TraceResult = Result<TraceReport, Error>;

/// Traces a pirate decoder of a traceable scheme ([`crate::bcast::trace`])
/// with the setup's public key `pk` and, for private tracing, its master key
/// `mk`; `target` is the recipient set the decoder is traced for (every
/// user when `None`).
pub fn trace(
    pk: Source,
    mk: Option<&[u8]>,
    target: Option<&str>,
    tracing: &mut Tracing<'_>,
) -> TraceResult {
    tracing
        .options
        .check()
        .map_err(|why| Error::Invalid(why.into()))?;
    let mut head = [0u8; wire::PREAMBLE_LEN];
    pk.read_exact_at(&mut head, 0)
        .map_err(|_| Error::Invalid("the public key is truncated".into()))?;
    let pre = Preamble::parse(&head)?;
    if pre.kind != ObjectKind::PublicKey {
        return Err(Error::Invalid(format!(
            "tracing needs the public key, not a {}",
            pre.kind.describe()
        )));
    }
    if let Some(mk) = mk {
        let mpre = Preamble::parse(mk)?;
        if mpre.kind != ObjectKind::MasterKey {
            return Err(Error::Invalid(format!(
                "tracing needs the master key, not a {}",
                mpre.kind.describe()
            )));
        }
        same_setup((pre.scheme, pre.curve), &mpre)?;
    }
    scheme(pre.scheme, pre.curve)?.trace(pk, mk, target, tracing)
}

/// Traces a pirate decoder of `K` for `target` (every user when `None`):
/// each query is a complete abbe file (a fresh tracing header, an
/// authenticated payload drawn from `options.probes`) given to `decoder`,
/// whose output counts as a success when it equals that payload. An `Err`
/// from the decoder (it could not be run) ends the trace. `mk` is required
/// by private tracing ([`Traceable::PRIVATE`]).
///
/// The search's coins are drawn first from `rng` (which must be secret from
/// the decoder: OS randomness), then the encryptions' randomness.
pub(super) fn trace_kem<K: Traceable>(
    pk: &K::PublicKey,
    mk: Option<&MasterKeyOf<K>>,
    target: Option<&K::CiphertextSide>,
    options: &TraceOptions,
    decoder: &mut dyn FnMut(&[u8]) -> std::io::Result<Vec<u8>>,
    progress: &mut dyn FnMut(&TraceProgress),
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<TraceReport, Error> {
    let mut coins = ChaCha20Rng::from_rng(&mut *rng)
        .map_err(|e| Error::Invalid(format!("no randomness: {e}")))?;
    options.check().map_err(|why| Error::Invalid(why.into()))?;
    if K::PRIVATE && mk.is_none() {
        return Err(Error::Unsupported(format!(
            "{} traces privately: tracing needs the master key (--master)",
            K::SCHEME.name()
        )));
    }
    let everyone;
    let target = match target {
        Some(t) => t,
        None => {
            everyone = K::everyone(pk);
            &everyone
        }
    };
    let mut probe = |batch: &[Query]| -> Result<Vec<bool>, Error> {
        // Every header of the batch is made before the decoder sees the
        // first: how long the tracer works on an index cannot tell the
        // decoder which index a query is at.
        let headers = batch
            .iter()
            .map(|q| K::encapsulate_at(pk, mk, target, q.line, q.index, &mut *rng))
            .collect::<Result<Vec<_>, _>>()?;
        let mut answers = Vec::with_capacity(batch.len());
        for (session, header) in headers {
            let message = options.probes.draw(&mut *rng);
            let mut file = Vec::with_capacity(message.len() + 4096);
            envelope::seal_with(
                &header.to_bytes(),
                &session,
                &mut *rng,
                &message[..],
                &mut file,
                &envelope::SealOptions::default(),
            )?;
            let out = decoder(&file)
                .map_err(|e| Error::Invalid(format!("the decoder could not be run: {e}")))?;
            answers.push(out[..] == message[..]);
        }
        Ok(answers)
    };
    trace_indices(
        K::users(pk),
        K::lines(pk, mk),
        options,
        &mut coins,
        &mut probe,
        progress,
    )
}
