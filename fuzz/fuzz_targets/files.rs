//! Encrypted and transformed files (kinds 8 and 9, versions 1 and 2): the
//! head, then the payload. The payload is opened with the right session key
//! when the head's KEM header is one of the stored Waters11 BN254 files
//! (so the stream, lead-block and signature paths run on mutations of real
//! files), with a fixed key otherwise (the first chunk fails).
#![no_main]

use abbe::abe::rcca::RccaHeader;
use abbe::abe::{Cca, Rcca, Waters11};
use abbe::curve::Bn254;
use abbe::envelope;
use abbe::kem::Kem;
use abbe::outsource::{self, Expect};
use abbe::wire::Encoded;
use abbe::SessionKey;
use abbe_fuzz::{vector, waters11_bn254};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

type W = Waters11<Bn254>;

/// (KEM header, session key) of every stored Waters11 BN254 file.
fn known_sessions() -> &'static [(Vec<u8>, SessionKey)] {
    static KNOWN: OnceLock<Vec<(Vec<u8>, SessionKey)>> = OnceLock::new();
    KNOWN.get_or_init(|| {
        let v = waters11_bn254();
        let key = <<Cca<W> as Kem>::UserKey as Encoded>::from_bytes(&vector(v, "user-key"))
            .expect("stored user key");
        let head = |name: &str| {
            envelope::read_head(&mut &vector(v, name)[..])
                .expect(name)
                .header
        };
        let mut out = Vec::new();
        for name in ["cca-file", "signed-cca-file", "legacy-signed-cca-file"] {
            let h = head(name);
            let hdr = <<Cca<W> as Kem>::Header as Encoded>::from_bytes(&h).expect(name);
            out.push((h, Cca::<W>::decapsulate(&key, &hdr).expect(name)));
        }
        let h = head("rcca-file");
        let hdr = RccaHeader::<W>::from_bytes(&h).expect("rcca-file");
        // The stored transformed file is of the stored RCCA file.
        let expect = Expect {
            header_id: Some(outsource::header_id(&h).expect("rcca-file")),
            ..Expect::default()
        };
        out.push((h, Rcca::<W>::decapsulate(&key, &hdr).expect("rcca-file")));
        let h = head("transformed-file");
        let rk = vector(v, "retrieval-key");
        let s = outsource::decrypt_transformed_bytes(&rk, &h, &expect).expect("transformed-file");
        out.push((h, s));
        out
    })
}

fuzz_target!(|data: &[u8]| {
    let _ = envelope::head_len(data);
    let mut payload = data;
    let Ok(head) = envelope::read_head(&mut payload) else {
        return;
    };
    assert_eq!(
        head.encoded_len(),
        data.len() - payload.len(),
        "head length"
    );
    let fixed = SessionKey::from_bytes([7; 32]);
    let session = known_sessions()
        .iter()
        .find(|(h, _)| *h == head.header)
        .map_or(&fixed, |(_, s)| s);
    // Odd lengths also ask for the stored signer.
    static VK: OnceLock<Vec<u8>> = OnceLock::new();
    let vk = VK.get_or_init(|| vector(waters11_bn254(), "verifying-key"));
    let expected = (data.len() % 2 == 1).then_some(&vk[..]);
    let _ = envelope::open_with(&head, session, payload, std::io::sink(), expected);
});
