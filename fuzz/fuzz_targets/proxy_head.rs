//! What the proxy does with a pushed body (crates/abbe-proxy/src/server.rs,
//! `read_pushed` and `transform_input`, private there): it reads a
//! ciphertext file up to `envelope::head_len` bytes, parses that much with
//! `read_head`, transforms the KEM header and streams the rest; any other
//! object is transformed whole. The stored BN254/BLS12-381 transformation
//! keys stand for the tenant's key.
//!
//! Checked: `head_len` is `None` below 12 bytes and the same for every
//! longer prefix; a head parses from exactly `head_len` bytes or not at
//! all; a header above the limit is refused; a transformed head writes and
//! reads back.
#![no_main]

use abbe::envelope::{self, MAX_HEADER_BYTES};
use abbe::wire::{ObjectKind, Preamble, PREAMBLE_LEN};
use abbe_fuzz::transform_key;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let full = envelope::head_len(data);
    for n in 0..=data.len() {
        let h = envelope::head_len(&data[..n]);
        if n < PREAMBLE_LEN + 4 {
            assert_eq!(h, None, "head_len of {n} bytes");
        } else {
            assert_eq!(h, full, "head_len of {n} bytes");
        }
    }
    let Ok(pre) = Preamble::parse(data) else {
        return;
    };
    match pre.kind {
        ObjectKind::EncryptedFile => {}
        ObjectKind::TransformedFile
        | ObjectKind::TransformedKemHeader
        | ObjectKind::RccaTransformedKemHeader => return, // "already transformed"
        _ => {
            // A KEM header object, transformed whole.
            if let Some(tk) = transform_key(&pre) {
                let _ = tk.transform(data);
            }
            return;
        }
    }
    let Some(need) = full else {
        assert!(data.len() < PREAMBLE_LEN + 4);
        return;
    };
    let header_len = u32::from_be_bytes(data[8..12].try_into().unwrap()) as usize;
    let whole = envelope::read_head(&mut &data[..]);
    if header_len > MAX_HEADER_BYTES {
        assert!(whole.is_err(), "header above the limit accepted");
        return;
    }
    if data.len() < need {
        assert!(whole.is_err(), "head parsed from fewer than head_len bytes");
        return;
    }
    let mut cur = &data[..need];
    let head = envelope::read_head(&mut cur);
    assert_eq!(
        head.is_ok(),
        whole.is_ok(),
        "head_len prefix and whole input disagree"
    );
    let Ok(head) = head else { return };
    assert!(
        cur.is_empty(),
        "read_head left {} of head_len bytes",
        cur.len()
    );
    assert_eq!(head.encoded_len(), need);
    let Some(tk) = transform_key(&pre) else {
        return;
    };
    let Ok(t) = tk.transform(&head.header) else {
        return;
    };
    let mut out = Vec::new();
    envelope::write_transformed(&head, &t, &data[need..], &mut out).expect("write_transformed");
    let back = envelope::read_head(&mut &out[..]).expect("transformed head reads back");
    assert_eq!(back.preamble.kind, ObjectKind::TransformedFile);
    assert_eq!(back.header, t);
    assert_eq!(back.header_digest, head.header_digest);
    assert_eq!(
        (back.salt, back.aead, back.flags),
        (head.salt, head.aead, head.flags)
    );
});
