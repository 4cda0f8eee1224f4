//! Broadcast-encryption specifics of the CLI: BGW05 setup with its public
//! key streamed to disk, and recipient files.

use crate::{io, CliError, Result};
use abbe::bcast::Bgw05;
use abbe::curve::{Bls12, Bn254, Curve, CurveId, Group};
use rand_core::OsRng;
use std::path::Path;

/// Largest recipient file read (indices are short; 10^7 users fit).
const MAX_INDEX_FILE: u64 = 256 << 20;

/// BGW05 setup whose public key goes straight into the (atomic) output file.
pub fn bgw05_streamed_setup(
    curve: CurveId,
    n: u32,
    pk_path: &Path,
    mk_path: &Path,
    keys: &crate::keyfile::KeyOut,
) -> Result<()> {
    let mut mk_bytes = None;
    // The public key's bulk: g_1..g_n, g_{n+2}..g_{2n} in G1 (uncompressed),
    // ĝ_1..ĝ_n in G2 (compressed).
    let bulk = |g1: usize, g2: usize| (2 * n as u64 - 1) * g1 as u64 + n as u64 * g2 as u64;
    fn sizes<C: Curve>() -> (usize, usize) {
        (C::G1::UNCOMPRESSED_BYTES, C::G2::COMPRESSED_BYTES)
    }
    let (g1, g2) = match curve {
        CurveId::Bls12_381 => sizes::<Bls12>(),
        _ => sizes::<Bn254>(),
    };
    let total = bulk(g1, g2);
    let pb = (n >= crate::progress::MIN_USERS)
        .then(|| crate::progress::bytes(total, format!("bgw05 public key for {n} users")));
    io::atomic(pk_path, io::Secrecy::Public, keys.overwrite, |w| {
        io::maybe_armored(w, keys.armor, abbe::wire::ObjectKind::PublicKey, |w| {
            let mut err = None;
            let mut sink = |b: &[u8]| {
                if let Some(pb) = &pb {
                    pb.inc(b.len() as u64);
                }
                if err.is_none() {
                    if let Err(e) = std::io::Write::write_all(w, b) {
                        err = Some(e);
                    }
                }
            };
            let mk = match curve {
                CurveId::Bls12_381 => {
                    Bgw05::<Bls12>::setup_stream(n, &mut OsRng, &mut sink)?.to_bytes()
                }
                CurveId::Bn254 => {
                    Bgw05::<Bn254>::setup_stream(n, &mut OsRng, &mut sink)?.to_bytes()
                }
                CurveId::P256 => return Err(CliError::Other("bgw05 needs a pairing curve".into())),
                c => {
                    return Err(CliError::Other(format!(
                        "bgw05 on {} is not supported by this command yet",
                        c.name()
                    )))
                }
            };
            if let Some(e) = err {
                return Err(CliError::Other(format!(
                    "cannot write {}: {e}",
                    pk_path.display()
                )));
            }
            mk_bytes = Some(zeroize::Zeroizing::new(mk));
            Ok(())
        })
    })?;
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    let mk = mk_bytes.ok_or_else(|| CliError::Other("setup produced no master key".into()))?;
    keys.write_secret(mk_path, &mk)?;
    eprintln!(
        "abbe: wrote {} and {} (keep the master key secret)",
        pk_path.display(),
        mk_path.display()
    );
    Ok(())
}

/// Reads a recipient file (at most [`MAX_INDEX_FILE`] bytes of UTF-8).
fn read_recipient_file(path: &Path) -> Result<String> {
    use std::io::Read;
    let f = std::fs::File::open(path)
        .map_err(|e| CliError::Other(format!("cannot read {}: {e}", path.display())))?;
    let mut text = String::new();
    f.take(MAX_INDEX_FILE + 1)
        .read_to_string(&mut text)
        .map_err(|e| CliError::Invalid(format!("{}: {e}", path.display())))?;
    if text.len() as u64 > MAX_INDEX_FILE {
        return Err(CliError::Invalid(format!(
            "{} is too large for a recipient list",
            path.display()
        )));
    }
    Ok(text)
}

/// Reads a file of identities, one per line (blank lines skipped), into the
/// `--to-identities` syntax; an identity cannot hold a comma.
pub fn read_identity_file(path: &Path) -> Result<String> {
    let text = read_recipient_file(path)?;
    let ids: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if let Some(bad) = ids.iter().find(|i| i.contains(',')) {
        return Err(CliError::Invalid(format!(
            "{}: the identity {bad:?} holds a comma, which identities cannot",
            path.display()
        )));
    }
    Ok(ids.join(","))
}

/// Reads a file of recipient indices and ranges into the `--to` syntax.
pub fn read_index_file(path: &Path) -> Result<String> {
    let text = read_recipient_file(path)?;
    Ok(text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join(","))
}
