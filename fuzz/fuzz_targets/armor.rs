//! ASCII armor: the streaming reader (with read sizes from 1 byte up) must
//! agree with the in-memory decoder, and whatever dearmors re-armors to the
//! same text's content; any object armors and dearmors back to itself.
#![no_main]

use abbe::armor::{self, ArmorReader};
use abbe::wire::Preamble;
use libfuzzer_sys::fuzz_target;
use std::io::Read;

/// Far above what a 1 MiB input decodes to: the read is bounded, never cut.
const LIMIT: u64 = 4 << 20;

/// Reads `text` through an [`ArmorReader`] with reads of `step` bytes.
fn stream(text: &[u8], step: usize) -> Option<Vec<u8>> {
    let mut r = ArmorReader::new(text).take(LIMIT);
    let mut out = Vec::new();
    let mut buf = vec![0u8; step];
    loop {
        match r.read(&mut buf) {
            Ok(0) => return Some(out),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(_) => return None,
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let _ = armor::is_armored(data);
    let _ = armor::kind_of_label(data);
    let step = 1 + usize::from(data.last().copied().unwrap_or(0));
    let streamed = stream(data, step);
    let whole = armor::dearmor(data).ok();
    assert_eq!(
        streamed.as_deref(),
        whole.as_deref().map(|v| &v[..]),
        "read size {step}"
    );
    if let Some(obj) = &whole {
        if let Ok(text) = armor::armor(obj) {
            assert_eq!(&*armor::dearmor(&text).expect("re-armored"), &obj[..]);
        }
    }
    // The writer on the raw input, when it is an object.
    if Preamble::parse(data).is_ok() {
        let text = armor::armor(data).expect("armor of an object");
        assert!(armor::is_armored(&text));
        assert_eq!(&*armor::dearmor(&text).expect("armored object"), data);
    }
});
