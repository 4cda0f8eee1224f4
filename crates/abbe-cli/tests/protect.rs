//! End-to-end tests of passphrase-protected keys (`--passphrase`,
//! `ABBE_PASSPHRASE_FILE`) and ASCII armor (`--armor`, armored input read
//! without a flag), running the real binary. Every command that needs a
//! passphrase uses the CLI's default scrypt work factor (log2 N = 18).

mod common;
use common::*;

use std::fs;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

fn keygen_args<'a>(master: &'a str, out: &'a str) -> Vec<&'a str> {
    vec![
        "keygen",
        "--master",
        master,
        "--attrs",
        "doctor, cardiology",
        "-o",
        out,
    ]
}

#[test]
fn passphrase_protected_keys_end_to_end() {
    let t = T::new();
    t.ok(Some("pw"), &["setup", "--out", "keys", "--passphrase"]);
    let mk = t.read("keys/master.key");
    assert_eq!(mk[5], KIND_PROTECTED);
    assert_eq!(&mk[8..11], &[18, 8, 1], "default scrypt parameters");
    assert_ne!(t.read("keys/public.key")[5], KIND_PROTECTED);
    #[cfg(unix)]
    assert_eq!(mode(&t.path("keys/master.key")), 0o600);

    // keygen reads the protected master key; the user key is protected too.
    t.ok(
        Some("pw"),
        &[
            keygen_args("keys/master.key", "alice.key"),
            vec!["--passphrase"],
        ]
        .concat(),
    );
    assert_eq!(t.read("alice.key")[5], KIND_PROTECTED);
    #[cfg(unix)]
    assert_eq!(mode(&t.path("alice.key")), 0o600);
    t.ok(Some("pw"), &keygen_args("keys/master.key", "plain.key"));
    assert_eq!(
        t.read("plain.key")[5],
        11,
        "without --passphrase: a plain key"
    );

    let plain = data(200_000);
    fs::write(t.path("rec"), &plain).unwrap();
    t.ok(
        None,
        &[
            "encrypt",
            "--public",
            "keys/public.key",
            "--policy",
            "doctor",
            "--mode",
            "rcca",
            "-o",
            "rec.abbe",
            "rec",
        ],
    );
    t.ok(
        Some("pw"),
        &["decrypt", "--key", "alice.key", "-o", "out", "rec.abbe"],
    );
    assert_eq!(t.read("out"), plain);

    // transform-key: the retrieval key is protected, the TK (for the proxy) is not.
    t.ok(
        Some("pw"),
        &[
            "transform-key",
            "--key",
            "alice.key",
            "--tk",
            "alice.tk",
            "--rk",
            "alice.rk",
            "--passphrase",
        ],
    );
    assert_eq!(t.read("alice.rk")[5], KIND_PROTECTED);
    assert_eq!(t.read("alice.tk")[5], 4);
    t.ok(
        None,
        &["transform", "--tk", "alice.tk", "-o", "rec.t", "rec.abbe"],
    );
    t.ok(
        Some("pw"),
        &[
            "decrypt",
            "--key",
            "alice.rk",
            "--original",
            "rec.abbe",
            "-o",
            "out2",
            "rec.t",
        ],
    );
    assert_eq!(t.read("out2"), plain);

    // inspect never asks: it works without any passphrase source.
    let info = String::from_utf8(t.ok(None, &["inspect", "alice.key"])).unwrap();
    assert!(
        info.contains("kind:           passphrase-protected key"),
        "{info}"
    );
    assert!(
        info.contains("passphrase-protected (scrypt log2N=18, r=8, p=1"),
        "{info}"
    );
    assert!(info.contains("scheme:         waters11"), "{info}");
}

#[test]
fn wrong_or_missing_passphrase() {
    let t = T::new();
    t.ok(Some("pw"), &["setup", "--out", "keys", "--passphrase"]);
    // Wrong passphrase: exit 3, a clear message, no output.
    let e = t.fails(
        Some("wrong"),
        &keygen_args("keys/master.key", "alice.key"),
        3,
    );
    assert!(
        e.contains("wrong passphrase (or the file is corrupt)"),
        "{e}"
    );
    assert!(e.contains("master.key"), "{e}");
    assert_no_output(&t, "alice.key");

    // No passphrase source (variable unset, no terminal): exit 1 naming the variable.
    let e = t.fails(None, &keygen_args("keys/master.key", "alice.key"), 1);
    assert!(e.contains("ABBE_PASSPHRASE_FILE"), "{e}");
    assert!(e.contains("no terminal"), "{e}");
    assert_no_output(&t, "alice.key");
    let e = t.fails(None, &["setup", "--out", "k2", "--passphrase"], 1);
    assert!(e.contains("ABBE_PASSPHRASE_FILE"), "{e}");
    assert!(!t.path("k2/master.key").exists() && !t.path("k2/public.key").exists());

    // An empty or missing passphrase file.
    fs::write(t.path("empty"), "\n").unwrap();
    let e = t.fails(
        Some("empty"),
        &keygen_args("keys/master.key", "alice.key"),
        1,
    );
    assert!(e.contains("is empty"), "{e}");
    let e = t.fails(
        Some("nope"),
        &keygen_args("keys/master.key", "alice.key"),
        1,
    );
    assert!(e.contains("cannot read the passphrase file"), "{e}");
    assert_no_output(&t, "alice.key");

    // Only the first line counts; CRLF is stripped.
    fs::write(
        t.path("crlf"),
        "correct horse battery staple\r\nsecond line\n",
    )
    .unwrap();
    t.ok(Some("crlf"), &keygen_args("keys/master.key", "alice.key"));

    // Decrypting with a wrong passphrase leaves no output either.
    t.ok(
        Some("pw"),
        &[
            keygen_args("keys/master.key", "bob.key"),
            vec!["--passphrase"],
        ]
        .concat(),
    );
    fs::write(t.path("rec"), b"secret").unwrap();
    t.ok(
        None,
        &[
            "encrypt",
            "--public",
            "keys/public.key",
            "--policy",
            "doctor",
            "-o",
            "rec.abbe",
            "rec",
        ],
    );
    let e = t.fails(
        Some("wrong"),
        &["decrypt", "--key", "bob.key", "-o", "out", "rec.abbe"],
        3,
    );
    assert!(e.contains("wrong passphrase"), "{e}");
    assert_no_output(&t, "out");

    // A protected key where a public key is expected: refused without asking.
    let e = t.fails(
        None,
        &[
            "encrypt",
            "--public",
            "keys/master.key",
            "--policy",
            "doctor",
            "-o",
            "x",
            "rec",
        ],
        3,
    );
    assert!(
        e.contains("passphrase-protected key, expected a public key"),
        "{e}"
    );
    assert_no_output(&t, "x");
}

#[test]
fn tampered_protected_keys_exit_3() {
    let t = T::new();
    t.ok(Some("pw"), &["setup", "--out", "keys", "--passphrase"]);
    let mk = t.read("keys/master.key");
    // Absurd scrypt parameters are refused before any work or prompt.
    let mut bad = mk.clone();
    bad[8] = 40;
    fs::write(t.path("bad.key"), &bad).unwrap();
    let e = t.fails(None, &keygen_args("bad.key", "alice.key"), 3);
    assert!(e.contains("scrypt parameters refused"), "{e}");
    // A flipped ciphertext bit is indistinguishable from a wrong passphrase.
    let mut bad = mk.clone();
    let last = bad.len() - 20;
    bad[last] ^= 1;
    fs::write(t.path("bad.key"), &bad).unwrap();
    let e = t.fails(Some("pw"), &keygen_args("bad.key", "alice.key"), 3);
    assert!(
        e.contains("wrong passphrase (or the file is corrupt)"),
        "{e}"
    );
    // Truncated.
    fs::write(t.path("bad.key"), &mk[..30]).unwrap();
    t.fails(Some("pw"), &keygen_args("bad.key", "alice.key"), 3);
    assert_no_output(&t, "alice.key");
}

#[test]
fn armored_keys_and_files_round_trip() {
    let t = T::new();
    t.ok(None, &["setup", "--out", "keys", "--armor"]);
    for (f, label) in [
        ("keys/public.key", "PUBLIC KEY"),
        ("keys/master.key", "MASTER KEY"),
    ] {
        let text = String::from_utf8(t.read(f)).unwrap();
        assert!(
            text.starts_with(&format!("-----BEGIN ABBE {label}-----\n")),
            "{text}"
        );
        assert!(
            text.ends_with(&format!("-----END ABBE {label}-----\n")),
            "{text}"
        );
    }
    #[cfg(unix)]
    {
        assert_eq!(mode(&t.path("keys/master.key")), 0o600);
        assert_eq!(mode(&t.path("keys/public.key")), 0o644);
    }
    t.ok(
        None,
        &[keygen_args("keys/master.key", "alice.key"), vec!["--armor"]].concat(),
    );
    assert!(t
        .read("alice.key")
        .starts_with(b"-----BEGIN ABBE USER KEY-----\n"));
    t.ok(
        None,
        &[
            "transform-key",
            "--key",
            "alice.key",
            "--tk",
            "alice.tk",
            "--rk",
            "alice.rk",
            "--armor",
        ],
    );
    assert!(t
        .read("alice.tk")
        .starts_with(b"-----BEGIN ABBE TRANSFORMATION KEY-----\n"));
    assert!(t
        .read("alice.rk")
        .starts_with(b"-----BEGIN ABBE RETRIEVAL KEY-----\n"));

    // 3 chunks and a bit, so the armor spans STREAM chunk boundaries.
    let plain = data(3 * 65_536 + 1000);
    fs::write(t.path("rec"), &plain).unwrap();
    // Each mode's file is decrypted to the same `out` again.
    let decrypt_to_out = |input: &str| {
        t.ok(
            None,
            &["decrypt", "--key", "alice.key", "-f", "-o", "out", input],
        );
        t.read("out")
    };
    for mode in ["cca", "rcca"] {
        t.ok(
            None,
            &[
                "encrypt",
                "--public",
                "keys/public.key",
                "--policy",
                "doctor",
                "--mode",
                mode,
                "--armor",
                "-f",
                "-o",
                "rec.asc",
                "rec",
            ],
        );
        let text = String::from_utf8(t.read("rec.asc")).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "-----BEGIN ABBE ENCRYPTED FILE-----");
        assert_eq!(*lines.last().unwrap(), "-----END ABBE ENCRYPTED FILE-----");
        assert!(lines[1..lines.len() - 2].iter().all(|l| l.len() == 64));
        // Armored input needs no flag: from a file and from stdin.
        assert_eq!(decrypt_to_out("rec.asc"), plain);
        let r = t.run_with(
            None,
            &["decrypt", "--key", "alice.key"],
            Some(text.clone().into_bytes()),
        );
        assert_eq!(r.code, Some(0), "{}", r.stderr);
        assert_eq!(r.stdout, plain);
        // CRLF line ends are accepted.
        fs::write(t.path("crlf.asc"), text.replace('\n', "\r\n")).unwrap();
        assert_eq!(decrypt_to_out("crlf.asc"), plain);
    }
    // Transform an armored file (armored output), then finish it.
    t.ok(
        None,
        &[
            "transform",
            "--tk",
            "alice.tk",
            "--armor",
            "-o",
            "rec.t.asc",
            "rec.asc",
        ],
    );
    assert!(t
        .read("rec.t.asc")
        .starts_with(b"-----BEGIN ABBE TRANSFORMED FILE-----\n"));
    t.ok(
        None,
        &[
            "decrypt",
            "--key",
            "alice.rk",
            "--original",
            "rec.asc",
            "-f",
            "-o",
            "out",
            "rec.t.asc",
        ],
    );
    assert_eq!(t.read("out"), plain);
    // Unarmored output from armored input, and the other way round.
    t.ok(
        None,
        &["transform", "--tk", "alice.tk", "-o", "rec.t", "rec.asc"],
    );
    assert_eq!(t.read("rec.t")[..4], *b"ABBE");
    t.ok(
        None,
        &[
            "decrypt",
            "--key",
            "alice.rk",
            "--original",
            "rec.asc",
            "-f",
            "-o",
            "out",
            "rec.t",
        ],
    );
    assert_eq!(t.read("out"), plain);

    let info = String::from_utf8(t.ok(None, &["inspect", "rec.asc"])).unwrap();
    assert!(
        info.contains("armor:          ASCII (-----BEGIN ABBE ENCRYPTED FILE-----)"),
        "{info}"
    );
    assert!(
        info.contains(&format!("payload:        {} bytes", plain.len() + 4 * 16)),
        "{info}"
    );
    let info = String::from_utf8(t.ok(None, &["inspect", "alice.key"])).unwrap();
    assert!(
        info.contains("policy") || info.contains("attributes"),
        "{info}"
    );
}

#[test]
fn damaged_armor_exits_3_without_output() {
    let t = T::new();
    t.ok(None, &["setup", "--out", "keys"]);
    t.ok(None, &keygen_args("keys/master.key", "alice.key"));
    fs::write(t.path("rec"), data(150_000)).unwrap();
    t.ok(
        None,
        &[
            "encrypt",
            "--public",
            "keys/public.key",
            "--policy",
            "doctor",
            "--armor",
            "-o",
            "rec.asc",
            "rec",
        ],
    );
    let text = String::from_utf8(t.read("rec.asc")).unwrap();
    let end = "-----END ABBE ENCRYPTED FILE-----";
    let mut bad_char = text.clone();
    let at = text.len() / 2;
    let at = at
        + text[at..]
            .find(|c: char| c.is_ascii_alphanumeric())
            .unwrap();
    bad_char.replace_range(at..at + 1, "*");
    // The first two base64 lines joined into one of 128 characters.
    let first = text.find('\n').unwrap() + 1;
    let second = first + text[first..].find('\n').unwrap();
    let joined = format!("{}{}", &text[..second], &text[second + 1..]);
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "bad END line",
            text.replace(end, "-----END ABBE ENCRYPTED FILE----"),
            "expected '-----END ABBE ENCRYPTED FILE-----'",
        ),
        (
            "other END label",
            text.replace(end, "-----END ABBE TRANSFORMED FILE-----"),
            "expected '-----END",
        ),
        (
            "no END line",
            text.replace(&format!("{end}\n"), ""),
            "missing END line",
        ),
        ("bad character", bad_char, "invalid character '*'"),
        (
            "garbage after END",
            format!("{text}trailing garbage\n"),
            "data after the END line",
        ),
        (
            "label lies",
            text.replace("ENCRYPTED FILE", "TRANSFORMED FILE"),
            "the label says TRANSFORMED FILE",
        ),
        ("long line", joined, "armor line 2: longer than 76"),
    ];
    for (what, bad, msg) in cases {
        fs::write(t.path("bad.asc"), &bad).unwrap();
        let e = t.fails(
            None,
            &["decrypt", "--key", "alice.key", "-o", "out", "bad.asc"],
            3,
        );
        assert!(e.contains(msg), "{what}: {e}");
        assert_no_output(&t, "out");
        // From stdin too.
        let r = t.run_with(
            None,
            &["decrypt", "--key", "alice.key"],
            Some(bad.clone().into_bytes()),
        );
        assert_eq!(r.code, Some(3), "{what} (stdin): {}", r.stderr);
        // transform and inspect refuse it the same way.
        t.fails(None, &["inspect", "bad.asc"], 3);
    }
    // A damaged armored key.
    t.ok(
        None,
        &[keygen_args("keys/master.key", "a.key"), vec!["--armor"]].concat(),
    );
    let k = String::from_utf8(t.read("a.key")).unwrap();
    fs::write(
        t.path("b.key"),
        k.replace("-----END ABBE USER KEY-----", "-----END ABBE USER KEY"),
    )
    .unwrap();
    let e = t.fails(
        None,
        &["decrypt", "--key", "b.key", "-o", "out", "rec.asc"],
        3,
    );
    assert!(e.contains("b.key: armor line"), "{e}");
    assert_no_output(&t, "out");
}

#[test]
fn protected_and_armored_keys() {
    let t = T::new();
    t.ok(
        Some("pw"),
        &["setup", "--out", "keys", "--passphrase", "--armor"],
    );
    let mk = String::from_utf8(t.read("keys/master.key")).unwrap();
    assert!(
        mk.starts_with("-----BEGIN ABBE PROTECTED KEY-----\n"),
        "{mk}"
    );
    assert!(t
        .read("keys/public.key")
        .starts_with(b"-----BEGIN ABBE PUBLIC KEY-----\n"));
    t.ok(
        Some("pw"),
        &[
            keygen_args("keys/master.key", "alice.key"),
            vec!["--passphrase", "--armor"],
        ]
        .concat(),
    );
    assert!(t
        .read("alice.key")
        .starts_with(b"-----BEGIN ABBE PROTECTED KEY-----\n"));
    let info = String::from_utf8(t.ok(None, &["inspect", "alice.key"])).unwrap();
    assert!(
        info.contains("armor:          ASCII (-----BEGIN ABBE PROTECTED KEY-----)"),
        "{info}"
    );
    assert!(
        info.contains("passphrase-protected (scrypt log2N=18, r=8, p=1"),
        "{info}"
    );
    fs::write(t.path("rec"), b"armored and protected").unwrap();
    t.ok(
        None,
        &[
            "encrypt",
            "--public",
            "keys/public.key",
            "--policy",
            "doctor",
            "--armor",
            "-o",
            "rec.asc",
            "rec",
        ],
    );
    t.ok(
        Some("pw"),
        &["decrypt", "--key", "alice.key", "-o", "out", "rec.asc"],
    );
    assert_eq!(t.read("out"), b"armored and protected");
    let e = t.fails(
        Some("wrong"),
        &["decrypt", "--key", "alice.key", "-o", "out2", "rec.asc"],
        3,
    );
    assert!(e.contains("wrong passphrase"), "{e}");
    assert_no_output(&t, "out2");
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `decrypt --proxy` with an armored ciphertext and a protected, armored
/// retrieval key; `proxy register` with an armored TK.
#[test]
fn proxy_decrypt_accepts_armor_and_protected_keys() {
    let t = T::new();
    t.ok(None, &["setup", "--out", "keys"]);
    t.ok(None, &keygen_args("keys/master.key", "alice.key"));
    t.ok(
        Some("pw"),
        &[
            "transform-key",
            "--key",
            "alice.key",
            "--tk",
            "alice.tk",
            "--rk",
            "alice.rk",
            "--armor",
            "--passphrase",
        ],
    );
    let token = t.ok(
        None,
        &[
            "proxy",
            "token",
            "create",
            "--store",
            "sqlite:proxy.db",
            "--tenant",
            "alice",
        ],
    );
    fs::write(
        t.path("alice.token"),
        String::from_utf8(token).unwrap().trim(),
    )
    .unwrap();
    let mut child = Command::new(BIN)
        .current_dir(t.dir.path())
        .args([
            "proxy",
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--store",
            "sqlite:proxy.db",
        ])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _server = Server(child);
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no URL in {line:?}"))
        .to_owned();
    let id = t.ok(
        None,
        &[
            "proxy",
            "register",
            "--tk",
            "alice.tk",
            "--proxy",
            &url,
            "--token-file",
            "alice.token",
        ],
    );
    let id = String::from_utf8(id).unwrap();
    let plain = data(100_000);
    fs::write(t.path("rec"), &plain).unwrap();
    t.ok(
        None,
        &[
            "encrypt",
            "--mode",
            "rcca",
            "--public",
            "keys/public.key",
            "--policy",
            "doctor",
            "--armor",
            "-o",
            "rec.asc",
            "rec",
        ],
    );
    let args = [
        "decrypt",
        "--key",
        "alice.rk",
        "--proxy",
        &url,
        "--tk-id",
        id.trim(),
        "--token-file",
        "alice.token",
        "-o",
        "out",
        "rec.asc",
    ];
    t.ok(Some("pw"), &args);
    assert_eq!(t.read("out"), plain);
    fs::remove_file(t.path("out")).unwrap();
    let e = t.fails(Some("wrong"), &args, 3);
    assert!(e.contains("wrong passphrase"), "{e}");
    assert_no_output(&t, "out");
    // A damaged armor is found after the proxy answered: still no output.
    let text = String::from_utf8(t.read("rec.asc")).unwrap();
    fs::write(t.path("rec.asc"), format!("{text}x")).unwrap();
    let e = t.fails(Some("pw"), &args, 3);
    assert!(e.contains("data after the END line"), "{e}");
    assert_no_output(&t, "out");
}
