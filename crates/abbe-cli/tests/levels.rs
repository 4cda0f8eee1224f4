//! End-to-end tests of the security levels (`--level 100|128|192|256`) and
//! of signed files (`signer-keygen`, `encrypt --sign-with`, `decrypt
//! --verify-with`), running the real binary: 1 KB and 100 MB at every level,
//! signed and unsigned, in constant memory; and every refusal with a clear
//! message, a non-zero exit and no output left behind.

mod common;
use common::*;

use std::fs;

const POLICY: &str = "a and b and c and d";
const MB100: usize = 100_000_000;
/// Peak RSS allowed for a 100 MB encryption or decryption: the input is
/// streamed, so memory must not grow with it.
const MAX_RSS_KIB: u64 = 64 * 1024;

/// AEAD id written in the head after the level (FORMAT.md).
fn aead_of(level: u32) -> u8 {
    match level {
        100 => 1, // AES-128-GCM
        192 => 2, // AES-192-GCM
        _ => 3,   // AES-256-GCM (128, 256)
    }
}

/// Offset of the AEAD id in a ciphertext file (format version 2).
fn aead_offset(file: &[u8]) -> usize {
    let header = u32::from_be_bytes(file[8..12].try_into().unwrap()) as usize;
    12 + header + 16
}

/// setup, a user key for a, b, c, d and a signing key at `level`, in `t`.
fn setup(t: &T, level: u32) {
    let l = level.to_string();
    t.ok(None, &["setup", "--level", &l, "--out", &format!("k{l}")]);
    t.ok(
        None,
        &[
            "keygen",
            "--master",
            &format!("k{l}/master.key"),
            "--attrs",
            "a, b, c, d",
            "-o",
            &format!("u{l}.key"),
        ],
    );
    t.ok(
        None,
        &["signer-keygen", "--level", &l, "-o", &format!("s{l}.key")],
    );
}

fn encrypt_args(level: u32, input: &str, out: &str, sign: bool) -> Vec<String> {
    let mut a = vec![
        "encrypt".to_string(),
        "--public".into(),
        format!("k{level}/public.key"),
        "--policy".into(),
        POLICY.into(),
        "-o".into(),
        out.into(),
    ];
    if sign {
        a.push("--sign-with".into());
        a.push(format!("s{level}.key"));
    }
    a.push(input.into());
    a
}

fn decrypt_args(level: u32, input: &str, out: &str, verify: Option<&str>) -> Vec<String> {
    let mut a = vec![
        "decrypt".to_string(),
        "--key".into(),
        format!("u{level}.key"),
        "-o".into(),
        out.into(),
    ];
    if let Some(v) = verify {
        a.push("--verify-with".into());
        a.push(v.into());
    }
    a.push(input.into());
    a
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// Every level: 1 KB and 100 MB round trips, unsigned and signed (verified),
/// with the level's AEAD in the head and constant memory.
#[test]
fn every_level_round_trips_1kb_and_100mb_signed_and_unsigned() {
    let t = T::new();
    fs::write(t.path("small"), data(1000)).unwrap();
    fs::write(t.path("big"), data(MB100)).unwrap();
    for level in [100u32, 128, 192, 256] {
        setup(&t, level);
        let inspect =
            String::from_utf8(t.ok(None, &["inspect", &format!("k{level}/public.key")])).unwrap();
        assert!(
            inspect.contains(&format!("level:          {level}")),
            "{inspect}"
        );
        for (input, len) in [("small", 1000usize), ("big", MB100)] {
            for sign in [false, true] {
                let ct = format!("{input}.{level}.{sign}.abbe");
                let out = format!("{input}.{level}.{sign}.out");
                let (r, enc_kib) = t.run_measured(&strs(&encrypt_args(level, input, &ct, sign)));
                assert_eq!(r.code, Some(0), "encrypt level {level}: {}", r.stderr);
                let file = t.read(&ct);
                assert_eq!(file[4], 2, "format version");
                assert_eq!(
                    file[aead_offset(&file)],
                    aead_of(level),
                    "AEAD at level {level}"
                );
                // Signed files: signed | signer first (FORMAT.md).
                let flags = if sign { 0x03 } else { 0 };
                assert_eq!(file[aead_offset(&file) + 1], flags, "signed flags");
                let pubkey = format!("s{level}.pub");
                let verify = sign.then_some(pubkey.as_str());
                let (r, dec_kib) = t.run_measured(&strs(&decrypt_args(level, &ct, &out, verify)));
                assert_eq!(r.code, Some(0), "decrypt level {level}: {}", r.stderr);
                if sign {
                    assert!(
                        r.stderr.contains("signed by") && r.stderr.contains("verified"),
                        "{}",
                        r.stderr
                    );
                }
                let back = t.read(&out);
                assert_eq!(back.len(), len);
                assert!(
                    back == t.read(input),
                    "level {level} {input} signed={sign}: plaintext differs"
                );
                if len == MB100 {
                    eprintln!("level {level} signed={sign}: 100 MB encrypt peak RSS {enc_kib} KiB, decrypt {dec_kib} KiB");
                    assert!(
                        enc_kib < MAX_RSS_KIB && dec_kib < MAX_RSS_KIB,
                        "level {level}: {enc_kib}/{dec_kib} KiB"
                    );
                }
                fs::remove_file(t.path(&ct)).unwrap();
                fs::remove_file(t.path(&out)).unwrap();
            }
        }
        let insp = String::from_utf8(t.ok(None, &["inspect", &format!("s{level}.pub")])).unwrap();
        assert!(insp.contains("fingerprint"), "{insp}");
    }
}

/// Refusals: a tampered signed file, a cleared signed flag, a wrong signer,
/// an unsigned file when a signer is required, a signing key of another
/// level, a wrong passphrase on a protected signing key. Each is a one-line
/// error with a non-zero exit and leaves no output file.
#[test]
fn signature_refusals_are_clear_and_leave_nothing() {
    let t = T::new();
    fs::write(t.path("doc"), data(200_000)).unwrap();
    setup(&t, 128);
    setup(&t, 100);
    t.ok(
        None,
        &["signer-keygen", "--level", "128", "-o", "mallory.key"],
    );
    t.ok(None, &strs(&encrypt_args(128, "doc", "signed.abbe", true)));
    t.ok(None, &strs(&encrypt_args(128, "doc", "plain.abbe", false)));
    let signed = t.read("signed.abbe");

    // Any byte of the encrypted signature block changed: the chunk fails.
    let mut bad = signed.clone();
    let n = bad.len();
    bad[n - 40] ^= 1;
    fs::write(t.path("tampered.abbe"), &bad).unwrap();
    let e = t.fails(
        None,
        &strs(&decrypt_args(128, "tampered.abbe", "o1", Some("s128.pub"))),
        3,
    );
    assert!(e.contains("corrupt"), "{e}");
    assert_no_output(&t, "o1");

    // Clearing the signed flag changes the payload key.
    let mut bad = signed.clone();
    let at = aead_offset(&bad) + 1;
    bad[at] = 0;
    fs::write(t.path("unflagged.abbe"), &bad).unwrap();
    t.fails(
        None,
        &strs(&decrypt_args(128, "unflagged.abbe", "o2", None)),
        3,
    );
    assert_no_output(&t, "o2");

    // Someone else's verifying key.
    let e = t.fails(
        None,
        &strs(&decrypt_args(128, "signed.abbe", "o3", Some("mallory.pub"))),
        3,
    );
    assert!(e.contains("signed by another key"), "{e}");
    assert_no_output(&t, "o3");

    // Unsigned while a signer is required.
    let e = t.fails(
        None,
        &strs(&decrypt_args(128, "plain.abbe", "o4", Some("s128.pub"))),
        3,
    );
    assert!(e.contains("not signed"), "{e}");
    assert_no_output(&t, "o4");

    // A verifying key that is not one.
    let e = t.fails(
        None,
        &strs(&decrypt_args(128, "signed.abbe", "o5", Some("u128.key"))),
        3,
    );
    assert!(e.contains("expected a signature verifying key"), "{e}");
    assert_no_output(&t, "o5");

    // A signing key of another level.
    let mut args = encrypt_args(128, "doc", "o6", false);
    args.insert(args.len() - 1, "--sign-with".into());
    args.insert(args.len() - 1, "s100.key".into());
    let e = t.fails(None, &strs(&args), 1);
    assert!(e.contains("signer-keygen --level 128"), "{e}");
    assert_no_output(&t, "o6");

    // A passphrase-protected signing key: works with the passphrase,
    // refused with a wrong one.
    t.ok(
        Some("pw"),
        &[
            "signer-keygen",
            "--level",
            "128",
            "--passphrase",
            "-o",
            "owner.key",
        ],
    );
    let mut args = encrypt_args(128, "doc", "o7", false);
    args.insert(args.len() - 1, "--sign-with".into());
    args.insert(args.len() - 1, "owner.key".into());
    let e = t.fails(Some("wrong"), &strs(&args), 3);
    assert!(e.contains("wrong passphrase"), "{e}");
    assert_no_output(&t, "o7");
    t.ok(Some("pw"), &strs(&args));
    t.ok(
        None,
        &strs(&decrypt_args(128, "o7", "o8", Some("owner.pub"))),
    );
    assert_eq!(t.read("o8"), t.read("doc"));

    // Without --verify-with a signed file still decrypts, and says who signed.
    let r = t.run(None, &strs(&decrypt_args(128, "signed.abbe", "o9", None)));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stderr.contains("pass --verify-with"), "{}", r.stderr);
    assert_eq!(t.read("o9"), t.read("doc"));

    // --level and --curve exclude each other; unknown levels are refused.
    let r = t.run(
        None,
        &["setup", "--level", "128", "--curve", "bn254", "--out", "x"],
    );
    assert_eq!(r.code, Some(1));
    assert!(r.stderr.contains("cannot be used with"), "{}", r.stderr);
    let e = t.fails(None, &["setup", "--level", "160", "--out", "x"], 1);
    assert!(e.contains("expected 100, 128, 192 or 256"), "{e}");
}
