//! ASCII armor: any abbe object as PEM-style text (RFC 7468's shape;
//! docs/FORMAT.md, "Armor").
//!
//! ```text
//! -----BEGIN ABBE ENCRYPTED FILE-----
//! QUJCRQEIAQEAAAFs... (standard base64, 64 characters a line)
//! ...
//! -----END ABBE ENCRYPTED FILE-----
//! ```
//!
//! The label names the object's kind ([`label`]) and must agree with the
//! kind byte of the object inside. Both directions stream in constant
//! memory: [`ArmorWriter`] encodes as bytes arrive, [`ArmorReader`] decodes
//! line by line. The reader accepts `\r\n` line ends and trailing spaces
//! and tabs, and rejects everything else that is not the writer's shape:
//! text before the BEGIN line, an unknown label, lines longer than 76
//! characters, empty or non-base64 lines, non-canonical padding, data after
//! the padding, a missing or different END line, and anything but
//! whitespace after it.
//!
//! Errors surface through `std::io::Error` (kind `InvalidData`) carrying an
//! [`ArmorError`]; [`ArmorError::from_io`] gets it back.

use crate::wire::{ObjectKind, WireError, MAGIC, PREAMBLE_LEN};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use std::io::{self, Read, Write};
use zeroize::{Zeroize, Zeroizing};

/// Every armored object starts with these bytes.
pub const BEGIN_PREFIX: &[u8] = b"-----BEGIN ABBE ";
const END_PREFIX: &[u8] = b"-----END ABBE ";
const DASHES: &[u8] = b"-----";
/// Characters per line written.
pub const LINE_LEN: usize = 64;
/// Longest line read (RFC 7468's lax parsers allow up to 76).
pub const MAX_LINE_LEN: usize = 76;
/// Bytes of data per written line.
const LINE_BYTES: usize = LINE_LEN / 4 * 3;
/// Longest raw line, trailing whitespace included, before it is refused.
const MAX_RAW_LINE: usize = 1024;
/// Decoded bytes buffered by the reader before handing them out.
const OUT_BATCH: usize = 32 << 10;
const IN_BUF: usize = 16 << 10;

/// The armor label of each object kind (unique per kind).
pub fn label(kind: ObjectKind) -> &'static str {
    use ObjectKind::*;
    match kind {
        PublicKey => "PUBLIC KEY",
        MasterKey => "MASTER KEY",
        SchemeUserKey => "SCHEME USER KEY",
        TransformationKey => "TRANSFORMATION KEY",
        CpaRetrievalKey => "CPA RETRIEVAL KEY",
        KemHeader => "KEM HEADER",
        TransformedKemHeader => "TRANSFORMED KEM HEADER",
        EncryptedFile => "ENCRYPTED FILE",
        TransformedFile => "TRANSFORMED FILE",
        CcaKemHeader => "CCA KEM HEADER",
        UserKey => "USER KEY",
        RccaKemHeader => "RCCA KEM HEADER",
        RccaTransformedKemHeader => "RCCA TRANSFORMED KEM HEADER",
        RetrievalKey => "RETRIEVAL KEY",
        SigningKey => "SIGNING KEY",
        VerifyingKey => "VERIFYING KEY",
        ProtectedKey => "PROTECTED KEY",
    }
}

/// The kind an armor label names.
pub fn kind_of_label(l: &[u8]) -> Option<ObjectKind> {
    (0..=u8::MAX)
        .filter_map(ObjectKind::from_u8)
        .find(|k| label(*k).as_bytes() == l)
}

/// Whether `prefix` (the first bytes of an input, at least 16 of them for a
/// positive answer) starts an armored object.
pub fn is_armored(prefix: &[u8]) -> bool {
    prefix.starts_with(BEGIN_PREFIX)
}

/// `input` as binary: decoded on the fly when it is armored (its first
/// bytes are peeked and replayed either way), and whether it was. Every
/// reader of ciphertexts takes armor this way, without a flag.
pub fn dearmored<'a>(mut input: impl Read + 'a) -> io::Result<(Box<dyn Read + 'a>, bool)> {
    let mut head = Vec::with_capacity(BEGIN_PREFIX.len());
    (&mut input)
        .take(BEGIN_PREFIX.len() as u64)
        .read_to_end(&mut head)?;
    let armored = is_armored(&head);
    let input = io::Cursor::new(head).chain(input);
    Ok(if armored {
        (Box::new(ArmorReader::new(input)), true)
    } else {
        (Box::new(input), false)
    })
}

/// An object given as bytes: as it is, or decoded from its armor (wiped
/// when dropped: it may be a key).
pub enum Unarmored<'a> {
    Binary(&'a [u8]),
    Dearmored(Zeroizing<Vec<u8>>),
}

impl std::ops::Deref for Unarmored<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Unarmored::Binary(b) => b,
            Unarmored::Dearmored(v) => v,
        }
    }
}

/// `bytes` without their armor, if armored.
pub fn unarmored(bytes: &[u8]) -> Result<Unarmored<'_>, ArmorError> {
    if is_armored(bytes) {
        dearmor(bytes).map(Unarmored::Dearmored)
    } else {
        Ok(Unarmored::Binary(bytes))
    }
}

/// A malformed armor. `line` counts from 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArmorError {
    #[error("armor: the first line is not '-----BEGIN ABBE <LABEL>-----'")]
    NoBegin,
    #[error("armor: unknown label '{0}'")]
    UnknownLabel(String),
    #[error("armor line {line}: longer than {MAX_LINE_LEN} characters")]
    LineTooLong { line: u64 },
    #[error("armor line {line}: invalid character {found} in the base64 text")]
    InvalidChar { line: u64, found: String },
    #[error("armor line {line}: empty line inside the base64 text")]
    EmptyLine { line: u64 },
    #[error("armor line {line}: bad base64 padding")]
    BadPadding { line: u64 },
    #[error("armor: missing END line (truncated)")]
    MissingEnd,
    #[error("armor line {line}: expected '-----END ABBE {expected}-----'")]
    BadEnd { line: u64, expected: &'static str },
    #[error("armor line {line}: data after the END line")]
    TrailingData { line: u64 },
    #[error("armor: the label says {label}, but the data inside is not one")]
    LabelMismatch { label: &'static str },
}

impl ArmorError {
    /// The armor error inside an I/O error from [`ArmorReader`], if any.
    pub fn from_io(e: &io::Error) -> Option<&ArmorError> {
        e.get_ref().and_then(|i| i.downcast_ref::<ArmorError>())
    }
    fn into_io(self) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, self)
    }
}

/// Armors a whole object in memory (keys); the label comes from its kind.
pub fn armor(obj: &[u8]) -> Result<Vec<u8>, WireError> {
    let kind = crate::wire::Preamble::parse(obj)?.kind;
    let mut w = ArmorWriter::new(Vec::with_capacity(obj.len() / 3 * 4 + 128), kind);
    w.write_all(obj).expect("writing to a Vec cannot fail");
    Ok(w.finish().expect("writing to a Vec cannot fail"))
}

/// Decodes a whole armored object in memory (keys). The result is wiped
/// when dropped; so are the reader's buffers.
pub fn dearmor(text: &[u8]) -> Result<Zeroizing<Vec<u8>>, ArmorError> {
    let mut out = Zeroizing::new(Vec::with_capacity(text.len() / 4 * 3));
    match ArmorReader::new(text).read_to_end(&mut out) {
        Ok(_) => Ok(out),
        Err(e) => Err(ArmorError::from_io(&e)
            .cloned()
            // Reading a slice cannot fail otherwise.
            .unwrap_or(ArmorError::MissingEnd)),
    }
}

/// Encodes as bytes arrive: the BEGIN line on the first write (or at
/// [`finish`](Self::finish)), then full 64-character lines. `finish` writes
/// the last partial line and the END line; without it the armor is
/// incomplete and readers reject it.
pub struct ArmorWriter<W: Write> {
    inner: W,
    label: &'static str,
    begun: bool,
    // Wiped when dropped: armored keys go through them.
    pending: Zeroizing<[u8; LINE_BYTES]>,
    npending: usize,
    enc: Zeroizing<Vec<u8>>,
}

impl<W: Write> ArmorWriter<W> {
    pub fn new(inner: W, kind: ObjectKind) -> Self {
        ArmorWriter {
            inner,
            label: label(kind),
            begun: false,
            pending: Zeroizing::new([0; LINE_BYTES]),
            npending: 0,
            enc: Zeroizing::new(Vec::new()),
        }
    }

    fn begin(&mut self) -> io::Result<()> {
        if !self.begun {
            self.begun = true;
            writeln!(self.inner, "-----BEGIN ABBE {}-----", self.label)?;
        }
        Ok(())
    }

    /// Appends the lines of `data` (a multiple of 48 bytes, or the final
    /// remainder) to `enc`.
    fn encode_lines(enc: &mut Vec<u8>, data: &[u8]) {
        for line in data.chunks(LINE_BYTES) {
            let at = enc.len();
            enc.resize(at + LINE_LEN + 1, 0);
            let n = STANDARD
                .encode_slice(line, &mut enc[at..])
                .expect("a line fits its buffer");
            enc.truncate(at + n);
            enc.push(b'\n');
        }
    }

    /// Writes the last line and the END line; returns the inner writer
    /// (not flushed).
    pub fn finish(mut self) -> io::Result<W> {
        self.begin()?;
        self.enc.clear();
        Self::encode_lines(&mut self.enc, &self.pending[..self.npending]);
        self.enc
            .extend_from_slice(format!("-----END ABBE {}-----\n", self.label).as_bytes());
        self.inner.write_all(&self.enc)?;
        Ok(self.inner)
    }
}

impl<W: Write> Write for ArmorWriter<W> {
    fn write(&mut self, mut data: &[u8]) -> io::Result<usize> {
        let n = data.len();
        if n == 0 {
            return Ok(0);
        }
        self.begin()?;
        self.enc.clear();
        if self.npending > 0 {
            let take = (LINE_BYTES - self.npending).min(data.len());
            self.pending[self.npending..self.npending + take].copy_from_slice(&data[..take]);
            self.npending += take;
            data = &data[take..];
            if self.npending == LINE_BYTES {
                Self::encode_lines(&mut self.enc, &*self.pending);
                self.npending = 0;
            }
        }
        let full = data.len() / LINE_BYTES * LINE_BYTES;
        // Batches of 256 lines keep the buffer small.
        for batch in data[..full].chunks(LINE_BYTES * 256) {
            Self::encode_lines(&mut self.enc, batch);
            self.inner.write_all(&self.enc)?;
            self.enc.clear();
        }
        self.inner.write_all(&self.enc)?;
        self.enc.clear();
        let rest = &data[full..];
        self.pending[self.npending..self.npending + rest.len()].copy_from_slice(rest);
        self.npending += rest.len();
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    Begin,
    Body,
    Trailer,
    Done,
}

/// Decodes an armored object on the fly, in constant memory. Its buffers
/// are wiped when dropped (armored keys go through it).
pub struct ArmorReader<R: Read> {
    inner: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    state: State,
    kind: Option<ObjectKind>,
    line_no: u64,
    line: Vec<u8>,
    /// Base64 characters not yet decoded (fewer than 4 between lines).
    text: Vec<u8>,
    out: Vec<u8>,
    out_pos: usize,
    decoded: u64,
    padded: bool,
    failed: Option<ArmorError>,
}

impl<R: Read> ArmorReader<R> {
    /// Nothing is read until the first `read`.
    pub fn new(inner: R) -> Self {
        ArmorReader {
            inner,
            buf: vec![0; IN_BUF],
            start: 0,
            end: 0,
            eof: false,
            state: State::Begin,
            kind: None,
            line_no: 0,
            line: Vec::with_capacity(MAX_RAW_LINE + 1),
            text: Vec::with_capacity(MAX_LINE_LEN + 4),
            out: Vec::with_capacity(OUT_BATCH + MAX_LINE_LEN),
            out_pos: 0,
            decoded: 0,
            padded: false,
            failed: None,
        }
    }

    /// The kind the BEGIN line names, once it has been read.
    pub fn kind(&self) -> Option<ObjectKind> {
        self.kind
    }

    /// Refills `buf` when it is empty; false at the end of the input.
    fn fill(&mut self) -> io::Result<bool> {
        if self.start < self.end {
            return Ok(true);
        }
        if self.eof {
            return Ok(false);
        }
        loop {
            match self.inner.read(&mut self.buf) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.start = 0;
                    self.end = n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Reads the next line into `self.line` without its line end and
    /// trailing whitespace; false at the end of the input.
    fn next_line(&mut self) -> io::Result<bool> {
        self.line.clear();
        let mut any = false;
        while self.fill()? {
            any = true;
            let avail = &self.buf[self.start..self.end];
            let (n, done) = match avail.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (avail.len(), false),
            };
            if self.line.len() + n > MAX_RAW_LINE {
                return Err(ArmorError::LineTooLong {
                    line: self.line_no + 1,
                }
                .into_io());
            }
            self.line.extend_from_slice(&avail[..n]);
            self.start += n;
            if done {
                break;
            }
        }
        if !any {
            return Ok(false);
        }
        self.line_no += 1;
        while matches!(self.line.last(), Some(b'\n' | b'\r' | b' ' | b'\t')) {
            self.line.pop();
        }
        if self.line.len() > MAX_LINE_LEN {
            return Err(ArmorError::LineTooLong { line: self.line_no }.into_io());
        }
        Ok(true)
    }

    fn label(&self) -> &'static str {
        label(self.kind.expect("set by the BEGIN line"))
    }

    fn begin(&mut self) -> io::Result<()> {
        if !self.next_line()? {
            return Err(ArmorError::NoBegin.into_io());
        }
        let l = &self.line[..];
        let Some(name) = l
            .strip_prefix(BEGIN_PREFIX)
            .and_then(|r| r.strip_suffix(DASHES))
        else {
            return Err(ArmorError::NoBegin.into_io());
        };
        match kind_of_label(name) {
            Some(k) => self.kind = Some(k),
            None => {
                return Err(
                    ArmorError::UnknownLabel(String::from_utf8_lossy(name).into_owned()).into_io(),
                )
            }
        }
        self.state = State::Body;
        Ok(())
    }

    /// Decodes body lines until a batch of output is ready or the END line.
    fn body(&mut self) -> io::Result<()> {
        while self.out.len() < OUT_BATCH {
            if !self.next_line()? {
                return Err(ArmorError::MissingEnd.into_io());
            }
            let line = self.line_no;
            if self.line.starts_with(DASHES) {
                let expected = self.label();
                let is_end = self
                    .line
                    .strip_prefix(END_PREFIX)
                    .and_then(|r| r.strip_suffix(DASHES))
                    == Some(expected.as_bytes());
                if !is_end {
                    return Err(ArmorError::BadEnd { line, expected }.into_io());
                }
                if !self.text.is_empty() {
                    // The base64 length is not a multiple of 4.
                    return Err(ArmorError::BadPadding { line }.into_io());
                }
                self.state = State::Trailer;
                return Ok(());
            }
            if self.line.is_empty() {
                return Err(ArmorError::EmptyLine { line }.into_io());
            }
            if let Some(&b) = self
                .line
                .iter()
                .find(|&&b| !(b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'='))
            {
                let found = if b.is_ascii_graphic() {
                    format!("'{}'", b as char)
                } else {
                    format!("0x{b:02x}")
                };
                return Err(ArmorError::InvalidChar { line, found }.into_io());
            }
            if self.padded {
                return Err(ArmorError::BadPadding { line }.into_io());
            }
            self.text.extend_from_slice(&self.line);
            let whole = self.text.len() / 4 * 4;
            let at = self.out.len();
            if STANDARD
                .decode_vec(&self.text[..whole], &mut self.out)
                .is_err()
            {
                return Err(ArmorError::BadPadding { line }.into_io());
            }
            if self.text[..whole].ends_with(b"=") {
                self.padded = true;
            }
            self.text.copy_within(whole.., 0);
            self.text.truncate(self.text.len() - whole);
            if self.padded && !self.text.is_empty() {
                return Err(ArmorError::BadPadding { line }.into_io());
            }
            self.check_magic(at)?;
        }
        Ok(())
    }

    /// The label must name the object inside: its magic and kind byte.
    fn check_magic(&mut self, at: usize) -> io::Result<()> {
        let kind = self.kind.expect("set by the BEGIN line") as u8;
        for (i, &b) in self.out[at..].iter().enumerate() {
            let pos = self.decoded + i as u64;
            let ok = match pos {
                0..=3 => b == MAGIC[pos as usize],
                5 => b == kind,
                p if p < PREAMBLE_LEN as u64 => true,
                _ => break,
            };
            if !ok {
                return Err(ArmorError::LabelMismatch {
                    label: self.label(),
                }
                .into_io());
            }
        }
        self.decoded += (self.out.len() - at) as u64;
        Ok(())
    }

    /// Only whitespace may follow the END line.
    fn trailer(&mut self) -> io::Result<()> {
        let mut line = self.line_no;
        while self.fill()? {
            for &b in &self.buf[self.start..self.end] {
                match b {
                    b'\n' => line += 1,
                    b' ' | b'\t' | b'\r' => {}
                    _ => return Err(ArmorError::TrailingData { line: line + 1 }.into_io()),
                }
            }
            self.start = self.end;
        }
        self.state = State::Done;
        Ok(())
    }
}

impl<R: Read> Read for ArmorReader<R> {
    fn read(&mut self, dst: &mut [u8]) -> io::Result<usize> {
        if dst.is_empty() {
            return Ok(0);
        }
        loop {
            if self.out_pos < self.out.len() {
                let n = dst.len().min(self.out.len() - self.out_pos);
                dst[..n].copy_from_slice(&self.out[self.out_pos..self.out_pos + n]);
                self.out_pos += n;
                return Ok(n);
            }
            if let Some(e) = &self.failed {
                return Err(e.clone().into_io());
            }
            self.out.zeroize();
            self.out_pos = 0;
            let r = match self.state {
                State::Begin => self.begin(),
                State::Body => self.body(),
                State::Trailer => self.trailer(),
                State::Done => return Ok(0),
            };
            if let Err(e) = r {
                if let Some(a) = ArmorError::from_io(&e) {
                    // A malformed armor stays malformed; drop what the
                    // failing batch decoded.
                    self.failed = Some(a.clone());
                    self.out.zeroize();
                }
                return Err(e);
            }
        }
    }
}

impl<R: Read> Drop for ArmorReader<R> {
    fn drop(&mut self) {
        self.buf.zeroize();
        self.line.zeroize();
        self.text.zeroize();
        self.out.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curve::CurveId;
    use crate::wire::{Preamble, SchemeId};
    use proptest::prelude::*;

    /// Armored or binary, short or empty, `dearmored` gives the same bytes.
    #[test]
    fn dearmored_reads_either_form() {
        let obj = Preamble::new(
            ObjectKind::EncryptedFile,
            SchemeId::Waters11,
            CurveId::Bls12_381,
        )
        .to_bytes()
        .iter()
        .copied()
        .chain(0..=255u8)
        .collect::<Vec<u8>>();
        let text = armor(&obj).unwrap();
        for (input, was_armored) in [
            (&text[..], true),
            (&obj[..], false),
            (&obj[..3], false),
            (&[][..], false),
        ] {
            let (mut r, armored) = dearmored(input).unwrap();
            let mut out = Vec::new();
            r.read_to_end(&mut out).unwrap();
            assert_eq!(armored, was_armored);
            let expected = if was_armored { &obj[..] } else { input };
            assert_eq!(out, expected);
        }
    }

    /// One name per kind: the armor label is the code's variant name in
    /// words, and docs/FORMAT.md lists every kind by that name, in its kind
    /// byte row and in its armor table.
    #[test]
    fn kind_names_agree_with_labels_and_format_md() {
        let format = include_str!("../../../docs/FORMAT.md");
        let kinds = format
            .lines()
            .find(|l| l.starts_with("| 5 | kind |"))
            .expect("FORMAT.md's preamble table has the kind byte");
        for v in 1..=u8::MAX {
            let Some(kind) = ObjectKind::from_u8(v) else {
                continue;
            };
            let words = label(kind).split(' ');
            let camel: String = words
                .clone()
                .map(|w| w[..1].to_string() + &w[1..].to_lowercase())
                .collect();
            assert_eq!(camel, format!("{kind:?}"), "kind {v}");
            let name: Vec<String> = words
                .map(|w| match w {
                    "KEM" | "CCA" | "RCCA" | "CPA" => w.to_string(),
                    _ => w.to_lowercase(),
                })
                .collect();
            let listed = format!(" {v} {}", name.join(" "));
            assert!(kinds.contains(&listed), "FORMAT.md kind byte: '{listed}'");
            let armored = format!("| {v} | `{}` |", label(kind));
            assert!(
                format.contains(&armored),
                "FORMAT.md armor table: '{armored}'"
            );
        }
    }

    fn object(kind: ObjectKind, body: &[u8]) -> Vec<u8> {
        let mut v = Preamble::new(kind, SchemeId::Waters11, CurveId::Bls12_381)
            .to_bytes()
            .to_vec();
        v.extend_from_slice(body);
        v
    }

    fn decode(text: &[u8]) -> Result<Vec<u8>, ArmorError> {
        dearmor(text).map(|z| z.to_vec())
    }

    /// Reads in small steps, as a streaming consumer would.
    fn decode_stepwise(text: &[u8], step: usize) -> Result<Vec<u8>, ArmorError> {
        let mut r = ArmorReader::new(text);
        let mut out = Vec::new();
        let mut buf = vec![0u8; step];
        loop {
            match r.read(&mut buf) {
                Ok(0) => return Ok(out),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) => return Err(ArmorError::from_io(&e).unwrap().clone()),
            }
        }
    }

    #[test]
    fn labels_are_unique_and_round_trip() {
        let kinds: Vec<_> = (0..=u8::MAX).filter_map(ObjectKind::from_u8).collect();
        for k in &kinds {
            assert_eq!(kind_of_label(label(*k).as_bytes()), Some(*k));
            let l = label(*k);
            assert!(l.bytes().all(|b| b.is_ascii_uppercase() || b == b' '));
        }
        assert_eq!(label(ObjectKind::EncryptedFile), "ENCRYPTED FILE");
        assert_eq!(label(ObjectKind::ProtectedKey), "PROTECTED KEY");
    }

    #[test]
    fn shape() {
        let obj = object(ObjectKind::EncryptedFile, &[7u8; 100]);
        let text = String::from_utf8(armor(&obj).unwrap()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "-----BEGIN ABBE ENCRYPTED FILE-----");
        assert_eq!(lines[1].len(), 64);
        assert_eq!(lines[2].len(), 64);
        assert_eq!(lines[3].len(), 4 * (108usize - 96).div_ceil(3));
        assert_eq!(lines[4], "-----END ABBE ENCRYPTED FILE-----");
        assert_eq!(lines.len(), 5);
        assert!(text.ends_with("-----\n"));
        assert!(is_armored(text.as_bytes()));
        assert!(!is_armored(&obj));
        assert!(!is_armored(b"-----BEGIN PGP"));
        assert_eq!(decode(text.as_bytes()).unwrap(), obj);
        // Exactly one full line, and an empty object.
        let one = object(ObjectKind::MasterKey, &[1; 40]);
        let t = armor(&one).unwrap();
        assert_eq!(t.iter().filter(|&&b| b == b'\n').count(), 3);
        assert_eq!(decode(&t).unwrap(), one);
        let empty = b"-----BEGIN ABBE USER KEY-----\n-----END ABBE USER KEY-----\n";
        assert_eq!(decode(empty).unwrap(), Vec::<u8>::new());
    }

    #[test]
    fn tolerates_crlf_trailing_whitespace_and_long_lines() {
        let obj = object(ObjectKind::PublicKey, &[0xab; 200]);
        let text = String::from_utf8(armor(&obj).unwrap()).unwrap();
        let crlf = text.replace('\n', " \t\r\n");
        assert_eq!(decode(crlf.as_bytes()).unwrap(), obj);
        let no_final_newline = text.trim_end();
        assert_eq!(decode(no_final_newline.as_bytes()).unwrap(), obj);
        let trailing = format!("{text}\n  \r\n\t\n");
        assert_eq!(decode(trailing.as_bytes()).unwrap(), obj);
        // Re-wrapped at 76 characters (the longest allowed).
        let b64 = STANDARD.encode(&obj);
        let mut rewrapped = "-----BEGIN ABBE PUBLIC KEY-----\n".to_string();
        for c in b64.as_bytes().chunks(76) {
            rewrapped.push_str(std::str::from_utf8(c).unwrap());
            rewrapped.push('\n');
        }
        rewrapped.push_str("-----END ABBE PUBLIC KEY-----\n");
        assert_eq!(decode(rewrapped.as_bytes()).unwrap(), obj);
        // Padding split over two lines is still base64.
        let small = object(ObjectKind::PublicKey, &[1, 2]);
        let b = STANDARD.encode(&small); // 10 bytes → 16 chars, "==" at the end
        assert!(b.ends_with("=="));
        let split = format!(
            "-----BEGIN ABBE PUBLIC KEY-----\n{}\n{}\n-----END ABBE PUBLIC KEY-----\n",
            &b[..15],
            &b[15..]
        );
        assert_eq!(decode(split.as_bytes()).unwrap(), small);
    }

    fn sample() -> (Vec<u8>, String) {
        let obj = object(ObjectKind::EncryptedFile, &(0..=255u8).collect::<Vec<_>>());
        let text = String::from_utf8(armor(&obj).unwrap()).unwrap();
        (obj, text)
    }

    #[track_caller]
    fn rejects(text: &str, what: fn(&ArmorError) -> bool) {
        let e = decode(text.as_bytes()).unwrap_err();
        assert!(what(&e), "unexpected error: {e}");
        let e = decode_stepwise(text.as_bytes(), 7).unwrap_err();
        assert!(what(&e), "unexpected error (stepwise): {e}");
    }

    #[test]
    fn rejects_bad_begin() {
        let (_, t) = sample();
        rejects("", |e| matches!(e, ArmorError::NoBegin));
        rejects(&format!("\n{t}"), |e| matches!(e, ArmorError::NoBegin));
        rejects(&format!("hello\n{t}"), |e| matches!(e, ArmorError::NoBegin));
        rejects(&t.replacen("-----\n", "----\n", 1), |e| {
            matches!(e, ArmorError::NoBegin)
        });
        let other = t.replace("ENCRYPTED FILE", "SECRET THING");
        rejects(&other, |e| matches!(e, ArmorError::UnknownLabel(_)));
    }

    #[test]
    fn rejects_bad_end() {
        let (_, t) = sample();
        let no_end = t.replace("-----END ABBE ENCRYPTED FILE-----\n", "");
        rejects(&no_end, |e| matches!(e, ArmorError::MissingEnd));
        let other = t.replace("END ABBE ENCRYPTED FILE", "END ABBE TRANSFORMED FILE");
        rejects(&other, |e| matches!(e, ArmorError::BadEnd { .. }));
        let damaged = t.replace(
            "END ABBE ENCRYPTED FILE-----",
            "END ABBE ENCRYPTED FILE----",
        );
        rejects(&damaged, |e| matches!(e, ArmorError::BadEnd { .. }));
        let lower = t.replace("END ABBE ENCRYPTED FILE", "END ABBE encrypted file");
        rejects(&lower, |e| matches!(e, ArmorError::BadEnd { .. }));
        rejects(&format!("{t}x"), |e| {
            matches!(e, ArmorError::TrailingData { .. })
        });
        rejects(&format!("{t}\n\n  more\n"), |e| {
            matches!(e, ArmorError::TrailingData { line: 11 })
        });
        rejects(&format!("{t}{t}"), |e| {
            matches!(e, ArmorError::TrailingData { .. })
        });
        // Truncated in the middle of the body.
        rejects(&t[..t.len() / 2], |e| matches!(e, ArmorError::MissingEnd));
    }

    #[test]
    fn rejects_bad_characters() {
        let (_, t) = sample();
        let mut lines: Vec<String> = t.lines().map(str::to_owned).collect();
        for bad in ["!", "-", "_", "é", "\u{0}", " ", "\t"] {
            let mut l = lines.clone();
            l[2].replace_range(10..11, bad);
            let text = l.join("\n") + "\n";
            rejects(&text, |e| {
                matches!(
                    e,
                    ArmorError::InvalidChar { line: 3, .. } | ArmorError::LineTooLong { .. }
                )
            });
        }
        // An empty line inside the body.
        lines.insert(2, String::new());
        rejects(&(lines.join("\n") + "\n"), |e| {
            matches!(e, ArmorError::EmptyLine { line: 3 })
        });
    }

    #[test]
    fn rejects_bad_padding() {
        let obj = object(ObjectKind::PublicKey, &[1, 2, 3, 4]); // 12 bytes: no padding
        let b = STANDARD.encode(&obj);
        let wrap = |body: &str| {
            format!("-----BEGIN ABBE PUBLIC KEY-----\n{body}\n-----END ABBE PUBLIC KEY-----\n")
        };
        assert_eq!(decode(wrap(&b).as_bytes()).unwrap(), obj);
        let is_pad = |e: &ArmorError| matches!(e, ArmorError::BadPadding { .. });
        rejects(&wrap(&b[..b.len() - 1]), is_pad); // not a multiple of 4
        rejects(&wrap(&format!("{b}=")), is_pad);
        rejects(&wrap(&format!("{b}====")), is_pad);
        let obj2 = object(ObjectKind::PublicKey, &[1, 2]); // 10 bytes: "=="
        let b2 = STANDARD.encode(&obj2);
        assert!(b2.ends_with("=="));
        rejects(&wrap(&b2[..b2.len() - 1]), is_pad); // one '=' short
        rejects(&wrap(&b2.replace("==", "")), is_pad); // unpadded
        rejects(&wrap(&format!("{b2}\nQUJD")), is_pad); // data after padding
        rejects(&wrap(&format!("{}=AAA", &b2[..b2.len() - 2])), is_pad); // '=' inside
                                                                         // Non-canonical trailing bits: "AQI=" is [1, 2]; "AQJ=" sets a
                                                                         // bit that no byte carries.
        let noncanon = format!("{}J==", &b2[..b2.len() - 3]);
        assert_ne!(noncanon, b2);
        rejects(&wrap(&noncanon), is_pad);
    }

    #[test]
    fn rejects_long_lines() {
        let obj = object(ObjectKind::PublicKey, &[9; 300]);
        let b = STANDARD.encode(&obj);
        let text = format!(
            "-----BEGIN ABBE PUBLIC KEY-----\n{}\n{}\n-----END ABBE PUBLIC KEY-----\n",
            &b[..80],
            &b[80..]
        );
        rejects(&text, |e| matches!(e, ArmorError::LineTooLong { line: 2 }));
        let spaces = format!("-----BEGIN ABBE PUBLIC KEY-----{}\n{b}\n", " ".repeat(5000));
        rejects(&spaces, |e| {
            matches!(e, ArmorError::LineTooLong { line: 1 })
        });
    }

    #[test]
    fn label_must_match_the_contents() {
        let obj = object(ObjectKind::MasterKey, &[5; 64]);
        let t = String::from_utf8(armor(&obj).unwrap()).unwrap();
        let lied = t.replace("MASTER KEY", "PUBLIC KEY");
        rejects(&lied, |e| matches!(e, ArmorError::LabelMismatch { .. }));
        let raw = b"not an abbe object at all, but base64 of it is fine";
        let mut w = ArmorWriter::new(Vec::new(), ObjectKind::UserKey);
        w.write_all(raw).unwrap();
        let t = w.finish().unwrap();
        assert!(matches!(
            decode(&t),
            Err(ArmorError::LabelMismatch { label: "USER KEY" })
        ));
    }

    #[test]
    fn errors_are_sticky_and_typed() {
        let (_, t) = sample();
        let bad = t.replace("-----END ABBE ENCRYPTED FILE-----", "-----END-----");
        let mut r = ArmorReader::new(bad.as_bytes());
        let mut sink = Vec::new();
        let e = r.read_to_end(&mut sink).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(e
            .to_string()
            .contains("expected '-----END ABBE ENCRYPTED FILE-----'"));
        let again = r.read(&mut [0u8; 10]).unwrap_err();
        assert_eq!(ArmorError::from_io(&again), ArmorError::from_io(&e));
    }

    proptest! {
        /// Random bytes behind a valid preamble, written in random chunks
        /// and read in random steps, round trip.
        #[test]
        fn round_trip_random_chunking(
            body in proptest::collection::vec(any::<u8>(), 0..3000),
            cuts in proptest::collection::vec(1usize..200, 1..20),
            step in 1usize..300,
            kind in 1u8..=17,
        ) {
            let kind = ObjectKind::from_u8(kind).unwrap_or(ObjectKind::ProtectedKey);
            let obj = object(kind, &body);
            let mut w = ArmorWriter::new(Vec::new(), kind);
            let mut rest = &obj[..];
            let mut i = 0;
            while !rest.is_empty() {
                let n = cuts[i % cuts.len()].min(rest.len());
                w.write_all(&rest[..n]).unwrap();
                rest = &rest[n..];
                i += 1;
            }
            let text = w.finish().unwrap();
            prop_assert_eq!(&text, &armor(&obj).unwrap());
            prop_assert!(text.split(|&b| b == b'\n').all(|l| l.len() <= LINE_LEN || l.starts_with(b"-----")));
            prop_assert_eq!(decode_stepwise(&text, step).unwrap(), obj);
        }

        /// Arbitrary text never panics.
        #[test]
        fn random_text_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..400),
                                    headed in any::<bool>()) {
            let text = if headed {
                let mut t = b"-----BEGIN ABBE USER KEY-----\n".to_vec();
                t.extend_from_slice(&bytes);
                t
            } else {
                bytes
            };
            let _ = decode(&text);
            let _ = decode_stepwise(&text, 3);
        }

        /// Any single changed byte of an armored object is either rejected
        /// or (whitespace at a line end) decodes to the same object.
        #[test]
        fn single_byte_changes(at in any::<prop::sample::Index>(), to in any::<u8>()) {
            let (obj, t) = sample();
            let mut bad = t.into_bytes();
            let i = at.index(bad.len());
            let old = bad[i];
            bad[i] = to;
            if let Ok(d) = decode(&bad) {
                prop_assert!(d == obj || old == to || bad[i].is_ascii_alphanumeric() || matches!(bad[i], b'+' | b'/'),
                    "changed byte {} from {} to {} decoded to other data", i, old, to);
            }
        }
    }
}
