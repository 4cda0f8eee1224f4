//! The MQTT record decoder (abbe-mqtt's `record::decode`, docs/FORMAT.md
//! "MQTT records"), with the signature block lengths the subscriber uses.
//!
//! Checked: any input decodes or is refused without a panic; a decoded
//! record is exactly its input — its head written again by the record
//! module's own writers, then its body — with a signature block of its
//! curve's length, a reading at least a tag long and a file never empty; a
//! reading's authenticated bytes are its head.
#![no_main]

use abbe::curve::CurveId;
use abbe::signature;
use abbe_mqtt::record::{self, Record};
use libfuzzer_sys::fuzz_target;

fn block_len(curve: u8) -> Option<usize> {
    CurveId::from_u8(curve).and_then(signature::block_len)
}

fuzz_target!(|data: &[u8]| {
    let Ok(rec) = record::decode(data, block_len) else {
        return;
    };
    let written = match rec {
        Record::EpochKey {
            publisher,
            epoch,
            file,
        } => {
            assert!(!file.is_empty(), "epoch key without a file");
            [record::epoch_key_head(&publisher, epoch), file.to_vec()].concat()
        }
        Record::Reading {
            publisher,
            epoch,
            seq,
            signature,
            ciphertext,
            authenticated,
        } => {
            let mut out = record::reading_head(&publisher, epoch, seq, signature.is_some());
            assert_eq!(authenticated, &out[..], "authenticated bytes");
            if let Some((curve, block)) = signature {
                assert_eq!(Some(block.len()), block_len(curve), "signature block");
                out.push(curve);
                out.extend_from_slice(block);
            }
            assert!(ciphertext.len() >= record::TAG_LEN, "reading without a tag");
            out.extend_from_slice(ciphertext);
            out
        }
        Record::Sealed {
            publisher,
            seq,
            file,
        } => {
            assert!(!file.is_empty(), "sealed reading without a file");
            [record::sealed_head(&publisher, seq), file.to_vec()].concat()
        }
    };
    assert_eq!(written, data, "a decoded record is not its input");
});
