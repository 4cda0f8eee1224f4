//! Passphrase-protected keys (kind 17): `inspect` on anything, `unprotect`
//! when the scrypt parameters are cheap (log2 N ≤ 4, r·p ≤ 8), and a
//! protect → unprotect round trip of inputs that are secret-key objects.
//! Fuzz builds accept log2 N down to 1 (`ScryptParams::MIN_LOG_N`), so
//! scrypt no longer dominates an execution.
#![no_main]

use abbe::protect::{self, ProtectError, ScryptParams};
use abbe::wire::Preamble;
use libfuzzer_sys::fuzz_target;

const PASSPHRASE: &[u8] = b"abbe fuzz";

fuzz_target!(|data: &[u8]| {
    if let Ok((_, p)) = protect::inspect(data) {
        if p.log_n <= 4 && u32::from(p.r) * u32::from(p.p) <= 8 {
            let _ = protect::unprotect(data, PASSPHRASE);
        }
    }
    let secret = Preamble::parse(data).is_ok_and(|p| p.kind.is_secret_key());
    if !secret {
        return;
    }
    let cheap = ScryptParams {
        log_n: ScryptParams::MIN_LOG_N,
        r: 1,
        p: 1,
    };
    let obj = protect::protect_with(data, PASSPHRASE, cheap, [1; 16], [2; 12])
        .expect("protecting a secret-key object");
    let (pre, params) = protect::inspect(&obj).expect("inspect of a protected key");
    assert_eq!(params, cheap);
    assert_eq!(pre.scheme as u8, data[6]);
    assert_eq!(
        &*protect::unprotect(&obj, PASSPHRASE).expect("unprotect"),
        data
    );
    assert!(matches!(
        protect::unprotect(&obj, b"wrong"),
        Err(ProtectError::WrongPassphrase)
    ));
});
