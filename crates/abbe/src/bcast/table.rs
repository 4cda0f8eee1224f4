//! Broadcast public keys read one element at a time.
//!
//! A BGW05 public key holds O(N) points (192 MB at N = 10^6 on BN254), but
//! encrypting to S reads |S| of them and decrypting (with the CCA check)
//! 2|S|. So such a key is kept where it is (a file, or bytes in memory)
//! behind [`RandomAccess`], and its arrays are [`Table`]s: points in a
//! fixed-size encoding, in chunks of [`TABLE_CHUNK`] points, each chunk
//! with a SHA-256 digest. The
//! digests sit at the end of the key and the setup id is computed over them
//! (docs/FORMAT.md), so a key of that setup id vouches for each digest (N/1024
//! · 32 bytes are read to open a key); every chunk read is checked against
//! its digest, and only the points used are decoded (and so validated).

use super::CHUNK;
use crate::curve::{par_map, Curve, Group};
pub(crate) use crate::wire::source::read_at;
pub use crate::wire::source::{RandomAccess, Source};
use crate::wire::WireError;
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// Points per digest.
pub const TABLE_CHUNK: usize = 1024;
const _: () = assert!(CHUNK % TABLE_CHUNK == 0);

/// The digest of one chunk of encoded points.
pub(crate) fn chunk_digest(bytes: &[u8]) -> [u8; 32] {
    Sha256::new()
        .chain_update(b"abbe/v1/table-chunk")
        .chain_update(bytes)
        .finalize()
        .into()
}

/// How a table encodes its points (fixed size either way).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// Decoding takes a square root: for tables read one point at a time.
    Compressed,
    /// Decoding takes no square root: for tables summed over S.
    Uncompressed,
}

impl Encoding {
    pub(crate) fn width<G: Group>(self) -> usize {
        match self {
            Encoding::Compressed => G::COMPRESSED_BYTES,
            Encoding::Uncompressed => G::UNCOMPRESSED_BYTES,
        }
    }
    pub(crate) fn encode<G: Group>(self, p: &G) -> Vec<u8> {
        match self {
            Encoding::Compressed => p.to_compressed(),
            Encoding::Uncompressed => p.to_uncompressed(),
        }
    }
    pub(crate) fn decode<G: Group>(self, b: &[u8]) -> Result<G, WireError> {
        Ok(match self {
            Encoding::Compressed => G::from_compressed(b)?,
            Encoding::Uncompressed => G::from_uncompressed(b)?,
        })
    }
    /// The layout text of docs/FORMAT.md.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Encoding::Compressed => "compressed",
            Encoding::Uncompressed => "uncompressed",
        }
    }
}

/// Number of digests of a table of `count` points.
pub fn digest_count(count: u32) -> usize {
    (count as usize).div_ceil(TABLE_CHUNK)
}

/// `count` points of `G` at `offset` of a source, with one digest per
/// [`TABLE_CHUNK`] of them. Points are decoded (and so validated) when read.
pub struct Table<G: Group> {
    src: Source,
    offset: u64,
    count: u32,
    encoding: Encoding,
    digests: Arc<[[u8; 32]]>,
    /// The points themselves, for a table computed in this process (a
    /// setup in memory): read from here, with nothing to check or decode.
    decoded: Option<Arc<Vec<G::Affine>>>,
    _g: std::marker::PhantomData<fn() -> G>,
}

impl<G: Group> Clone for Table<G> {
    fn clone(&self) -> Self {
        Table {
            src: self.src.clone(),
            offset: self.offset,
            count: self.count,
            encoding: self.encoding,
            digests: self.digests.clone(),
            decoded: self.decoded.clone(),
            _g: std::marker::PhantomData,
        }
    }
}

impl<G: Group> Table<G> {
    pub(crate) fn new(
        src: Source,
        offset: u64,
        count: u32,
        encoding: Encoding,
        digests: Arc<[[u8; 32]]>,
    ) -> Self {
        debug_assert_eq!(digests.len(), digest_count(count));
        Table {
            src,
            offset,
            count,
            encoding,
            digests,
            decoded: None,
            _g: std::marker::PhantomData,
        }
    }

    /// The same table with its points already at hand (they must be the
    /// points encoded in the source: the setup that wrote them keeps them).
    pub(crate) fn with_decoded(mut self, points: Vec<G::Affine>) -> Self {
        debug_assert_eq!(points.len(), self.count as usize);
        self.decoded = Some(Arc::new(points));
        self
    }

    /// Bytes the table's points take.
    pub fn byte_len(count: u32, encoding: Encoding) -> u64 {
        count as u64 * encoding.width::<G>() as u64
    }

    /// The bytes of chunk `c`, checked against its digest.
    fn chunk(&self, c: usize) -> Result<Vec<u8>, WireError> {
        let w = self.encoding.width::<G>();
        let first = c * TABLE_CHUNK;
        let n = TABLE_CHUNK.min(self.count as usize - first);
        let bytes = read_at(
            &*self.src,
            self.offset + (first * w) as u64,
            n * w,
            "public key table",
        )?;
        if chunk_digest(&bytes) != self.digests[c] {
            return Err(WireError::Invalid {
                what: "public key",
                detail: format!(
                    "points {}..{} do not match their digest (a corrupt file, or not this setup's public key)",
                    first + 1,
                    first + n
                ),
            });
        }
        Ok(bytes)
    }

    /// Point k ∈ [1, count].
    pub fn get(&self, k: u32) -> Result<G, WireError> {
        if k == 0 || k > self.count {
            return Err(WireError::Truncated("public key table"));
        }
        let i = k as usize - 1;
        if let Some(d) = &self.decoded {
            return Ok(G::from_affine(&d[i]));
        }
        let bytes = self.chunk(i / TABLE_CHUNK)?;
        let w = self.encoding.width::<G>();
        let at = (i % TABLE_CHUNK) * w;
        self.encoding.decode(&bytes[at..at + w])
    }

    /// Σ of the points at `ks` (1-based, any order, repeats counted): each
    /// chunk holding one of them is read once, checked against its digest,
    /// and only the points used are decoded. Chunks are handled in
    /// parallel; memory is one chunk per thread and the list of indices.
    pub fn sum<C: Curve>(&self, ks: impl Iterator<Item = u32>) -> Result<Option<G>, WireError> {
        let mut by_chunk: Vec<(usize, Vec<u32>)> = Vec::new();
        let mut ks: Vec<u32> = ks.collect();
        if ks.iter().any(|&k| k == 0 || k > self.count) {
            return Err(WireError::Truncated("public key table"));
        }
        if let Some(d) = &self.decoded {
            return Ok(super::sum_points::<G>(
                ks.into_iter().map(|k| d[k as usize - 1]),
            ));
        }
        ks.sort_unstable();
        for k in ks {
            let c = (k as usize - 1) / TABLE_CHUNK;
            match by_chunk.last_mut() {
                Some((last, v)) if *last == c => v.push(k),
                _ => by_chunk.push((c, vec![k])),
            }
        }
        let w = self.encoding.width::<G>();
        let parts = par_map::<C, _, _>(&by_chunk, |(c, ks)| -> Result<G, WireError> {
            let bytes = self.chunk(*c)?;
            let pts = ks
                .iter()
                .map(|&k| {
                    let at = ((k as usize - 1) % TABLE_CHUNK) * w;
                    self.encoding.decode::<G>(&bytes[at..at + w])
                })
                .collect::<Result<Vec<G>, WireError>>()?;
            Ok(G::sum_affine(&G::to_affine_batch(&pts)))
        });
        let mut acc: Option<G> = None;
        for p in parts {
            let p = p?;
            acc = Some(acc.map_or(p, |a| a + p));
        }
        Ok(acc)
    }

    /// Reads, checks and decodes every point (for a full check of a key
    /// file; the points a setup kept in memory need none).
    pub fn verify_all<C: Curve>(&self) -> Result<(), WireError> {
        self.sum::<C>(1..=self.count).map(|_| ())
    }
}

/// Encodes points into a table's bytes and digests, as they come (setup
/// writes a public key in bounded memory).
pub(crate) struct TableWriter {
    encoding: Encoding,
    pending: Vec<u8>,
    pub(crate) digests: Vec<[u8; 32]>,
}

impl TableWriter {
    pub(crate) fn new(encoding: Encoding) -> Self {
        TableWriter {
            encoding,
            pending: Vec::new(),
            digests: Vec::new(),
        }
    }

    /// Encodes `points` (in parallel) and returns their bytes, recording a
    /// digest for every full chunk.
    pub(crate) fn push<C: Curve, G: Group>(&mut self, points: &[G::Affine]) -> Vec<u8> {
        let e = self.encoding;
        let parts: Vec<&[G::Affine]> = points.chunks(TABLE_CHUNK).collect();
        let enc: Vec<Vec<u8>> = par_map::<C, _, _>(&parts, |c| {
            let mut v = Vec::with_capacity(c.len() * e.width::<G>());
            for a in c.iter() {
                v.extend_from_slice(&e.encode(&G::from_affine(a)));
            }
            v
        });
        let out: Vec<u8> = enc.concat();
        self.pending.extend_from_slice(&out);
        let full = TABLE_CHUNK * e.width::<G>();
        let whole = self.pending.len() / full * full;
        for c in self.pending[..whole].chunks(full) {
            self.digests.push(chunk_digest(c));
        }
        self.pending.drain(..whole);
        out
    }

    /// The digests, including that of the last, partial chunk.
    pub(crate) fn finish(mut self) -> Vec<[u8; 32]> {
        if !self.pending.is_empty() {
            self.digests.push(chunk_digest(&self.pending));
        }
        self.digests
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curve::{Bls12, Bn254, Scalar};
    use rand_chacha::rand_core::SeedableRng;

    fn table<C: Curve>(count: u32, enc: Encoding) -> (Vec<C::G1>, Table<C::G1>) {
        let mut r = rand_chacha::ChaCha20Rng::seed_from_u64(count as u64);
        let pts: Vec<C::G1> = (0..count)
            .map(|_| C::G1::generator() * C::Scalar::random(&mut r))
            .collect();
        let mut w = TableWriter::new(enc);
        let mut bytes = vec![0xEEu8; 5]; // an offset
        for part in pts.chunks(700) {
            bytes.extend(w.push::<C, C::G1>(&C::G1::to_affine_batch(part)));
        }
        let digests: Arc<[[u8; 32]]> = w.finish().into();
        let t = Table::new(Arc::new(bytes), 5, count, enc, digests);
        (pts, t)
    }

    fn sums<C: Curve>(enc: Encoding) {
        let n = 2500;
        let (pts, t) = table::<C>(n, enc);
        assert_eq!(t.get(1).unwrap(), pts[0]);
        assert_eq!(t.get(n).unwrap(), pts[n as usize - 1]);
        assert!(t.get(0).is_err() && t.get(n + 1).is_err());
        let ks = [3u32, 1024, 1025, 2500, 7, 1024];
        let want = ks
            .iter()
            .fold(C::G1::identity(), |a, &k| a + pts[k as usize - 1]);
        assert_eq!(t.sum::<C>(ks.into_iter()).unwrap(), Some(want));
        assert_eq!(t.sum::<C>(std::iter::empty()).unwrap(), None);
        t.verify_all::<C>().unwrap();
        // The same table with its points at hand reads the same.
        let d = t.clone().with_decoded(C::G1::to_affine_batch(&pts));
        assert_eq!(d.sum::<C>(ks.into_iter()).unwrap(), Some(want));
        assert_eq!(d.get(1025).unwrap(), pts[1024]);
        assert!(d.get(n + 1).is_err() && d.sum::<C>([0].into_iter()).is_err());
    }

    #[test]
    fn tables_read_back_what_was_written() {
        sums::<Bn254>(Encoding::Uncompressed);
        sums::<Bls12>(Encoding::Compressed);
    }

    /// A public key read whole is refused above its bound before anything is
    /// allocated for it (a source that claims 5 GiB and holds nothing).
    #[test]
    fn oversized_public_keys_are_refused_unread() {
        struct Huge;
        impl RandomAccess for Huge {
            fn size(&self) -> u64 {
                5 << 30
            }
            fn read_exact_at(&self, _: &mut [u8], _: u64) -> std::io::Result<()> {
                panic!("an oversized key must not be read")
            }
        }
        let r =
            <crate::bcast::Gw09<Bn254> as crate::kem::Authority>::open_public_key(Arc::new(Huge));
        assert!(matches!(r, Err(WireError::TooLong { .. })));
    }

    /// A flipped byte anywhere in the points fails its chunk's digest; a
    /// short source fails as truncated.
    #[test]
    fn corrupt_or_short_tables_are_refused() {
        let (_, t) = table::<Bn254>(1500, Encoding::Uncompressed);
        let mut bytes = vec![0u8; t.src.size() as usize];
        t.src.read_exact_at(&mut bytes, 0).unwrap();
        for at in [5usize, 5 + 1024 * 64 + 3, bytes.len() - 1] {
            let mut bad = bytes.clone();
            bad[at] ^= 0x40;
            let tb = Table::<<Bn254 as Curve>::G1>::new(
                Arc::new(bad),
                5,
                1500,
                Encoding::Uncompressed,
                t.digests.clone(),
            );
            assert!(tb.verify_all::<Bn254>().is_err(), "byte {at}");
        }
        bytes.truncate(bytes.len() - 1);
        let short = Table::<<Bn254 as Curve>::G1>::new(
            Arc::new(bytes),
            5,
            1500,
            Encoding::Uncompressed,
            t.digests.clone(),
        );
        assert!(matches!(short.get(1500), Err(WireError::Truncated(_))));
        assert!(short.get(1).is_ok());
    }
}
