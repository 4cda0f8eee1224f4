//! End-to-end tests of the `abbe` binary: every test runs the real executable
//! in a temporary directory and checks exit codes, output bytes, file modes
//! and that failures leave no output (or temporary) file behind.
//!
//! File layout relied on (crates/abbe/src/envelope): 8-byte preamble (kind at
//! byte 5), big-endian u32 header length, header, [32-byte digest in
//! transformed files], 16-byte salt, then the STREAM payload: 64 KiB
//! plaintext chunks, each followed by a 16-byte GCM tag.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

mod common;

use common::{Run, BIN};

const CHUNK: usize = 64 * 1024;
const TAG: usize = 16;
const ENC_CHUNK: usize = CHUNK + TAG;
const MIB: usize = 1 << 20;

const POLICY: &str = "(doctor and cardiology) or 2 of (nurse, ward25, age >= 30)";
const ALICE: &str = "doctor, cardiology, age = 42";
const BOB: &str = "nurse, age = 25";

const KIND_CIPHERTEXT: u8 = 8;
const KIND_TRANSFORMED: u8 = 9;

// ---------------------------------------------------------------------------
// Running the binary
// ---------------------------------------------------------------------------

fn run(args: &[&str]) -> Run {
    let out = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("cannot run abbe");
    out.into()
}

/// Runs abbe with `input` written to its stdin from another thread.
fn run_piped(args: &[&str], input: Vec<u8>) -> Run {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot run abbe");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        // A child that fails early closes the pipe; that shows in its exit code.
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("cannot wait for abbe");
    writer.join().unwrap();
    out.into()
}

fn p(path: &Path) -> &str {
    path.to_str().expect("temporary paths are UTF-8")
}

#[track_caller]
fn assert_ok(r: &Run) {
    assert_eq!(r.code, Some(0), "expected success, stderr: {}", r.stderr);
    assert!(!r.stderr.contains("panicked"), "stderr: {}", r.stderr);
}

/// The failure contract: the exit code, one `abbe: error:` line on stderr,
/// no panic, nothing on stdout.
#[track_caller]
fn assert_fails(r: &Run, code: i32) {
    assert_eq!(
        r.code,
        Some(code),
        "expected exit {code}, stderr: {}",
        r.stderr
    );
    assert!(
        r.stderr.starts_with("abbe: error: "),
        "stderr does not start with 'abbe: error:': {:?}",
        r.stderr
    );
    // One line, or under it only indented context (a policy error's
    // input with a caret).
    assert!(
        r.stderr.ends_with('\n') && r.stderr.lines().skip(1).all(|l| l.starts_with("  ")),
        "stderr is not one line and its indented context: {:?}",
        r.stderr
    );
    assert!(!r.stderr.contains("panicked"), "stderr: {}", r.stderr);
    assert!(
        r.stdout.is_empty(),
        "a failing command printed {} bytes to stdout",
        r.stdout.len()
    );
}

/// No temporary file of an atomic write is left in `dir`.
#[track_caller]
fn assert_no_stray_tmp(dir: &Path) {
    for e in fs::read_dir(dir).unwrap() {
        let name = e.unwrap().file_name();
        let name = name.to_string_lossy();
        assert!(
            !name.starts_with(".abbe-tmp-"),
            "stray temporary file {name} in {}",
            dir.display()
        );
    }
}

/// A failed command left neither `out` nor a temporary file next to it.
#[track_caller]
fn assert_no_output(out: &Path) {
    assert!(!out.exists(), "{} was left behind", out.display());
    assert_no_stray_tmp(out.parent().unwrap());
}

/// Runs a command that must fail with `code` without writing `out`.
#[track_caller]
fn expect_failure(args: &[&str], out: &Path, code: i32) -> Run {
    let r = run(args);
    assert_fails(&r, code);
    assert_no_output(out);
    r
}

// ---------------------------------------------------------------------------
// Data and file layout helpers
// ---------------------------------------------------------------------------

/// Deterministic pseudo-random bytes (xorshift64*).
fn pseudo_random(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut v = Vec::with_capacity(len + 8);
    while v.len() < len {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        v.extend_from_slice(&x.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes());
    }
    v.truncate(len);
    v
}

fn header_len(file: &[u8]) -> usize {
    u32::from_be_bytes(file[8..12].try_into().unwrap()) as usize
}

/// Offset of the STREAM payload in a ciphertext or transformed file
/// (format version 2: AEAD id and flags after the salt).
fn payload_offset(file: &[u8]) -> usize {
    let digest = match file[5] {
        KIND_CIPHERTEXT => 0,
        KIND_TRANSFORMED => 32,
        k => panic!("not a ciphertext file (kind {k})"),
    };
    assert_eq!(file[4], 2, "files are written in format version 2");
    12 + header_len(file) + digest + 16 + 2
}

/// Size of the STREAM payload for `n` plaintext bytes.
fn payload_len(n: usize) -> usize {
    n + TAG * n.div_ceil(CHUNK).max(1)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// A setup (public.key, master.key) and keys for alice and bob in a temp dir.
struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn new(curve: &str) -> Env {
        let dir = tempfile::tempdir().unwrap();
        let env = Env { dir };
        let keys = env.path("keys");
        assert_ok(&run(&["setup", "--curve", curve, "--out", p(&keys)]));
        env.keygen("alice", ALICE);
        env.keygen("bob", BOB);
        env
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn public(&self) -> PathBuf {
        self.path("keys/public.key")
    }

    fn master(&self) -> PathBuf {
        self.path("keys/master.key")
    }

    fn key(&self, who: &str) -> PathBuf {
        self.path(&format!("{who}.key"))
    }

    fn keygen(&self, who: &str, attrs: &str) -> PathBuf {
        let key = self.key(who);
        assert_ok(&run(&[
            "keygen",
            "--master",
            p(&self.master()),
            "--attrs",
            attrs,
            "-o",
            p(&key),
        ]));
        key
    }

    /// Splits `who`'s key into (transformation key, retrieval key).
    fn transform_key(&self, who: &str) -> (PathBuf, PathBuf) {
        let (r, tk, rk) = self.split_key(who, &[], None);
        assert_ok(&r);
        (tk, rk)
    }

    /// Runs `transform-key` on `who`'s key with `extra` arguments, the
    /// passphrase (if any) read from the file `pass`.
    fn split_key(&self, who: &str, extra: &[&str], pass: Option<&Path>) -> (Run, PathBuf, PathBuf) {
        let tk = self.path(&format!("{who}.tk"));
        let rk = self.path(&format!("{who}.rk"));
        let key = self.key(who);
        let mut cmd = Command::new(BIN);
        cmd.args([
            "transform-key",
            "--key",
            p(&key),
            "--tk",
            p(&tk),
            "--rk",
            p(&rk),
        ])
        .args(extra)
        .stdin(Stdio::null());
        if let Some(pass) = pass {
            cmd.env("ABBE_PASSPHRASE_FILE", pass);
        }
        (cmd.output().unwrap().into(), tk, rk)
    }

    /// Encrypts `plain` (via `NAME.plain`) to `NAME.abbe`.
    fn encrypt(&self, name: &str, plain: &[u8], policy: &str) -> PathBuf {
        self.encrypt_mode(name, plain, policy, "cca")
    }

    /// Encrypts with `--mode` (cca, rcca or cpa).
    fn encrypt_mode(&self, name: &str, plain: &[u8], policy: &str, mode: &str) -> PathBuf {
        let input = self.path(&format!("{name}.plain"));
        let ct = self.path(&format!("{name}.abbe"));
        fs::write(&input, plain).unwrap();
        assert_ok(&run(&[
            "encrypt",
            "--mode",
            mode,
            "--public",
            p(&self.public()),
            "--policy",
            policy,
            "-o",
            p(&ct),
            p(&input),
        ]));
        ct
    }

    /// Decrypts `ct` with `key` into a file and returns the plaintext.
    fn decrypt(&self, key: &Path, ct: &Path) -> Vec<u8> {
        let out = self.path("decrypted.out");
        let _ = fs::remove_file(&out);
        assert_ok(&run(&["decrypt", "--key", p(key), "-o", p(&out), p(ct)]));
        let plain = fs::read(&out).unwrap();
        fs::remove_file(&out).unwrap();
        plain
    }

    /// Decrypts the transformed file `t` of ciphertext `original` with
    /// retrieval key `rk` into a file and returns the plaintext.
    fn decrypt_transformed(&self, rk: &Path, t: &Path, original: &Path) -> Vec<u8> {
        let out = self.path("decrypted.out");
        let _ = fs::remove_file(&out);
        assert_ok(&run(&[
            "decrypt",
            "--key",
            p(rk),
            "--original",
            p(original),
            "-o",
            p(&out),
            p(t),
        ]));
        let plain = fs::read(&out).unwrap();
        fs::remove_file(&out).unwrap();
        plain
    }

    /// Writes `bytes` to `name` and returns its path.
    fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.path(name);
        fs::write(&path, bytes).unwrap();
        path
    }
}

// ---------------------------------------------------------------------------
// Round trips
// ---------------------------------------------------------------------------

fn round_trips(curve: &str) {
    let env = Env::new(curve);
    let alice = env.key("alice");
    let public = env.public();
    for (i, len) in [0usize, 1, MIB].into_iter().enumerate() {
        let plain = pseudo_random(len, 100 + i as u64);

        // Files in, files out.
        let ct = env.encrypt(&format!("rt{len}"), &plain, POLICY);
        let ct_bytes = fs::read(&ct).unwrap();
        assert_eq!(&ct_bytes[..4], b"ABBE");
        assert_eq!(ct_bytes[5], KIND_CIPHERTEXT);
        assert_eq!(
            ct_bytes.len(),
            payload_offset(&ct_bytes) + payload_len(len),
            "ciphertext size for {len} bytes"
        );
        if len >= 16 {
            // The payload is encrypted, not copied (a shorter one matches its
            // ciphertext by chance too often: 1 byte in 256 runs).
            let off = payload_offset(&ct_bytes);
            assert_ne!(&ct_bytes[off..off + len.min(64)], &plain[..len.min(64)]);
        }
        assert!(
            env.decrypt(&alice, &ct) == plain,
            "file round trip of {len} bytes on {curve}"
        );

        // Bob does not satisfy the policy.
        let refused = env.path("refused.out");
        expect_failure(
            &[
                "decrypt",
                "--key",
                p(&env.key("bob")),
                "-o",
                p(&refused),
                p(&ct),
            ],
            &refused,
            2,
        );

        // File in, stdout out: stdout holds exactly the plaintext.
        let r = run(&["decrypt", "--key", p(&alice), p(&ct)]);
        assert_ok(&r);
        assert!(
            r.stdout == plain,
            "decrypt to stdout of {len} bytes on {curve}"
        );

        // stdin -> stdout, both ways.
        let enc = run_piped(
            &["encrypt", "--public", p(&public), "--policy", POLICY],
            plain.clone(),
        );
        assert_ok(&enc);
        assert!(
            enc.stderr.is_empty(),
            "encrypt wrote to stderr: {}",
            enc.stderr
        );
        assert_eq!(&enc.stdout[..4], b"ABBE");
        assert_eq!(
            enc.stdout.len(),
            payload_offset(&enc.stdout) + payload_len(len),
            "piped ciphertext holds something besides the envelope"
        );
        assert_ne!(enc.stdout, ct_bytes, "encryption is randomized");
        let dec = run_piped(&["decrypt", "--key", p(&alice)], enc.stdout.clone());
        assert_ok(&dec);
        assert!(
            dec.stderr.is_empty(),
            "decrypt wrote to stderr: {}",
            dec.stderr
        );
        assert_eq!(dec.stdout.len(), plain.len());
        assert!(
            dec.stdout == plain,
            "piped round trip of {len} bytes on {curve}"
        );

        // "-" names stdin and stdout explicitly.
        let dec = run_piped(&["decrypt", "--key", p(&alice), "-o", "-", "-"], enc.stdout);
        assert_ok(&dec);
        assert!(
            dec.stdout == plain,
            "'-' round trip of {len} bytes on {curve}"
        );
    }

    // Every file is on the requested curve.
    for f in [env.public(), env.master(), alice, env.path("rt0.abbe")] {
        let r = run(&["inspect", p(&f)]);
        assert_ok(&r);
        let text = String::from_utf8(r.stdout).unwrap();
        assert!(
            text.lines()
                .any(|l| l.starts_with("curve:") && l.contains(curve)),
            "{} is not on {curve}:\n{text}",
            f.display()
        );
    }
    assert_no_stray_tmp(env.dir.path());
}

#[test]
fn round_trips_bls12_381() {
    round_trips("bls12-381");
}

/// `-o` naming a FIFO (or /dev/null, a terminal) writes into it: the
/// atomic rename replaced the pipe with a file, and as root `-o /dev/null`
/// replaced the device.
#[test]
#[cfg(unix)]
fn output_to_a_pipe_is_written_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let env = Env::new("bls12-381");
    let alice = env.key("alice");
    let plain = pseudo_random(300_000, 7);
    let ct = env.encrypt("piped", &plain, POLICY);
    let fifo = env.path("out.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    // A second name for the pipe, to end the reader if the first is renamed over.
    let link = env.path("out.fifo.link");
    fs::hard_link(&fifo, &link).unwrap();
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read(fifo).unwrap())
    };
    let r = run(&["decrypt", "--key", p(&alice), "-o", p(&fifo), p(&ct)]);
    drop(fs::OpenOptions::new().read(true).write(true).open(&link));
    assert_ok(&r);
    assert!(
        reader.join().unwrap() == plain,
        "the pipe got the plaintext"
    );
    let kind = fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(kind.is_fifo(), "the pipe was replaced by {kind:?}");
}

#[test]
fn round_trips_bn254() {
    round_trips("bn254");
}

/// The 200 MiB plaintext: 1 MiB pseudo-random block `i`, with the global
/// chunk index stamped into every 64 KiB chunk so that no two chunks repeat.
fn big_block(base: &[u8], i: usize, buf: &mut Vec<u8>) {
    buf.clear();
    buf.extend_from_slice(base);
    for j in 0..MIB / CHUNK {
        let index = (i * (MIB / CHUNK) + j) as u64;
        buf[j * CHUNK..j * CHUNK + 8].copy_from_slice(&index.to_le_bytes());
    }
}

#[track_caller]
fn check_rss(what: &str, kib: Option<u64>) {
    match kib {
        Some(kib) => {
            eprintln!(
                "abbe {what} of 200 MiB: peak RSS {kib} KiB ({:.1} MiB)",
                kib as f64 / 1024.0
            );
            assert!(
                kib < 64 * 1024,
                "{what} used {kib} KiB peak RSS (limit 64 MiB)"
            );
            if kib >= 32 * 1024 {
                eprintln!("warning: {what} peak RSS {kib} KiB is above the 32 MiB target");
            }
        }
        None if cfg!(target_os = "linux") => panic!("cannot measure the peak RSS of abbe {what}"),
        None => eprintln!("abbe {what}: peak RSS not measurable on this platform"),
    }
}

/// A broadcast setup writes its O(N) public key as it makes it, armored or
/// not: the peak RSS stays far below the key's size.
#[test]
fn broadcast_setup_streams_its_public_key() {
    let d = tempfile::tempdir().unwrap();
    for (out, armor) in [("b", false), ("a", true)] {
        let mut args = vec![
            "setup", "--scheme", "bgw05", "--level", "100", "--users", "300000", "--out", out,
        ];
        if armor {
            args.push("--armor");
        }
        let (r, kib) = common::run_measured(d.path(), &args);
        assert_eq!(r.code, Some(0), "{}", r.stderr);
        let size = fs::metadata(d.path().join(out).join("public.key"))
            .unwrap()
            .len();
        assert!(size > 50 << 20, "a {size}-byte public key");
        if let Some(kib) = kib {
            assert!(
                kib * 1024 < size / 2,
                "peak RSS {kib} KiB for a {size}-byte public key"
            );
        }
    }
}

#[test]
fn large_payload_round_trip_in_constant_memory() {
    const BLOCKS: usize = 200;
    let env = Env::new("bls12-381");
    let base = pseudo_random(MIB, 42);
    let mut block = Vec::with_capacity(MIB);

    let plain = env.path("big.plain");
    {
        let mut f = fs::File::create(&plain).unwrap();
        for i in 0..BLOCKS {
            big_block(&base, i, &mut block);
            f.write_all(&block).unwrap();
        }
    }
    let total = BLOCKS * MIB;
    assert_eq!(fs::metadata(&plain).unwrap().len(), total as u64);

    let ct = env.path("big.abbe");
    let t = Instant::now();
    let (r, kib) = common::run_measured(
        env.dir.path(),
        &[
            "encrypt",
            "--public",
            p(&env.public()),
            "--policy",
            POLICY,
            "-o",
            p(&ct),
            p(&plain),
        ],
    );
    assert_ok(&r);
    eprintln!("abbe encrypt of 200 MiB took {:.2?}", t.elapsed());
    check_rss("encrypt", kib);
    fs::remove_file(&plain).unwrap();

    let mut head = vec![0u8; 12];
    fs::File::open(&ct).unwrap().read_exact(&mut head).unwrap();
    assert_eq!(head[5], KIND_CIPHERTEXT);
    let expected_len = 12 + header_len(&head) + 16 + 2 + payload_len(total);
    assert_eq!(fs::metadata(&ct).unwrap().len(), expected_len as u64);

    let out = env.path("big.out");
    let t = Instant::now();
    let (r, kib) = common::run_measured(
        env.dir.path(),
        &[
            "decrypt",
            "--key",
            p(&env.key("alice")),
            "-o",
            p(&out),
            p(&ct),
        ],
    );
    assert_ok(&r);
    eprintln!("abbe decrypt of 200 MiB took {:.2?}", t.elapsed());
    check_rss("decrypt", kib);

    // Streaming comparison against the regenerated plaintext.
    let mut f = fs::File::open(&out).unwrap();
    let mut got = vec![0u8; MIB];
    for i in 0..BLOCKS {
        f.read_exact(&mut got)
            .unwrap_or_else(|e| panic!("decrypted file ends in block {i}: {e}"));
        big_block(&base, i, &mut block);
        assert!(got == block, "decrypted block {i} differs");
    }
    assert_eq!(
        f.read(&mut got).unwrap(),
        0,
        "decrypted file is longer than 200 MiB"
    );
    assert_no_stray_tmp(env.dir.path());
}

// ---------------------------------------------------------------------------
// Outsourced decryption
// ---------------------------------------------------------------------------

fn outsourced(curve: &str) {
    let env = Env::new(curve);
    let (tk, rk) = env.transform_key("alice");
    let plain = pseudo_random(3 * CHUNK + 4321, 5);
    let ct = env.encrypt_mode("o", &plain, POLICY, "rcca");
    let ct_bytes = fs::read(&ct).unwrap();

    // Transform a file.
    let t = env.path("o.transformed");
    assert_ok(&run(&["transform", "--tk", p(&tk), "-o", p(&t), p(&ct)]));
    let t_bytes = fs::read(&t).unwrap();
    assert_eq!(&t_bytes[..4], b"ABBE");
    assert_eq!(t_bytes[5], KIND_TRANSFORMED);
    assert!(
        t_bytes.len() < ct_bytes.len(),
        "transformed file ({} B) is not smaller than the ciphertext ({} B)",
        t_bytes.len(),
        ct_bytes.len()
    );
    // The RCCA transformed header is constant size: preamble + C and T in GT.
    let gt = if curve == "bn254" { 384 } else { 288 };
    assert_eq!(header_len(&t_bytes), 8 + 2 * gt, "transformed header size");
    assert!(
        header_len(&t_bytes) < header_len(&ct_bytes),
        "transformed header {} B vs original {} B",
        header_len(&t_bytes),
        header_len(&ct_bytes)
    );
    // The salt and payload are carried over unchanged.
    let (to, co) = (payload_offset(&t_bytes), payload_offset(&ct_bytes));
    assert_eq!(&t_bytes[to - 18..], &ct_bytes[co - 18..]);
    assert_eq!(t_bytes.len() - to, payload_len(plain.len()));

    // The retrieval key finishes the decryption.
    assert!(
        env.decrypt_transformed(&rk, &t, &ct) == plain,
        "outsourced file decryption on {curve}"
    );

    // Transform and decrypt through pipes.
    let tr = run_piped(&["transform", "--tk", p(&tk)], ct_bytes.clone());
    assert_ok(&tr);
    assert_eq!(tr.stdout.len(), t_bytes.len());
    assert_eq!(tr.stdout[5], KIND_TRANSFORMED);
    let dec = run_piped(
        &["decrypt", "--key", p(&rk), "--original", p(&ct)],
        tr.stdout,
    );
    assert_ok(&dec);
    assert!(
        dec.stdout == plain,
        "outsourced piped decryption on {curve}"
    );

    // inspect tells what a transformed file is.
    let r = run(&["inspect", p(&t)]);
    assert_ok(&r);
    assert!(String::from_utf8(r.stdout).unwrap().contains("transformed"));

    // A transformed file cannot be transformed again.
    let again = env.path("again.out");
    expect_failure(
        &["transform", "--tk", p(&tk), "-o", p(&again), p(&t)],
        &again,
        3,
    );

    // A transformation key whose attributes do not satisfy the policy: exit 2.
    let (bob_tk, _) = env.transform_key("bob");
    let bob_t = env.path("bob.transformed");
    expect_failure(
        &["transform", "--tk", p(&bob_tk), "-o", p(&bob_t), p(&ct)],
        &bob_t,
        2,
    );
    assert_no_stray_tmp(env.dir.path());
}

#[test]
fn outsourced_decryption_bls12_381() {
    outsourced("bls12-381");
}

#[test]
fn outsourced_decryption_bn254() {
    outsourced("bn254");
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

#[test]
fn unsatisfied_key_exits_2() {
    let env = Env::new("bls12-381");
    let ct = env.encrypt("m", b"for doctors only", POLICY);
    let out = env.path("m.out");
    let r = expect_failure(
        &[
            "decrypt",
            "--key",
            p(&env.key("bob")),
            "-o",
            p(&out),
            p(&ct),
        ],
        &out,
        2,
    );
    assert!(r.stderr.contains("does not satisfy"), "{}", r.stderr);
    // Also when writing to stdout: nothing leaks.
    let r = run(&["decrypt", "--key", p(&env.key("bob")), p(&ct)]);
    assert_fails(&r, 2);
    // The same key does satisfy a policy it matches.
    let ct2 = env.encrypt("n", b"for nurses", "nurse and age < 30");
    assert_eq!(env.decrypt(&env.key("bob"), &ct2), b"for nurses");
}

/// Decrypting `bytes` (written to `name`) with alice's key fails with exit 3.
#[track_caller]
fn assert_corrupt(env: &Env, name: &str, bytes: &[u8]) -> Run {
    let bad = env.file(name, bytes);
    let out = env.path(&format!("{name}.out"));
    expect_failure(
        &[
            "decrypt",
            "--key",
            p(&env.key("alice")),
            "-o",
            p(&out),
            p(&bad),
        ],
        &out,
        3,
    )
}

#[test]
fn truncated_ciphertexts_exit_3() {
    let env = Env::new("bls12-381");
    let small = fs::read(env.encrypt("small", b"hello world", POLICY)).unwrap();
    let multi =
        fs::read(env.encrypt("multi", &pseudo_random(4 * CHUNK + 1000, 1), POLICY)).unwrap();
    let exact = fs::read(env.encrypt("exact", &pseudo_random(3 * CHUNK, 2), POLICY)).unwrap();
    let (so, mo, eo) = (
        payload_offset(&small),
        payload_offset(&multi),
        payload_offset(&exact),
    );
    assert_eq!(multi.len() - mo, 4 * ENC_CHUNK + 1000 + TAG);
    assert_eq!(exact.len() - eo, 3 * ENC_CHUNK);

    let cases: [(&str, &[u8]); 11] = [
        ("empty", &[]),
        ("in-preamble", &small[..5]),
        ("in-header", &small[..12 + header_len(&small) / 2]),
        ("no-payload", &small[..so]),
        ("small-last-byte", &small[..small.len() - 1]),
        ("small-in-tag", &small[..so + 5]),
        ("multi-in-chunk", &multi[..mo + ENC_CHUNK + 1234]),
        ("multi-boundary-2", &multi[..mo + 2 * ENC_CHUNK]),
        ("multi-boundary-4", &multi[..mo + 4 * ENC_CHUNK]),
        ("exact-boundary-2", &exact[..eo + 2 * ENC_CHUNK]),
        ("exact-in-last", &exact[..exact.len() - 100]),
    ];
    for (name, bytes) in cases {
        assert_corrupt(&env, name, bytes);
    }
    // Through a pipe to stdout as well.
    let r = run_piped(
        &["decrypt", "--key", p(&env.key("alice"))],
        small[..small.len() - 1].to_vec(),
    );
    assert_fails(&r, 3);
    // The untouched files still decrypt.
    assert_eq!(
        env.decrypt(&env.key("alice"), &env.path("small.abbe")),
        b"hello world"
    );
}

#[test]
fn reordered_duplicated_and_extended_chunks_exit_3() {
    let env = Env::new("bls12-381");
    let ct = fs::read(env.encrypt("m", &pseudo_random(4 * CHUNK + 1000, 3), POLICY)).unwrap();
    let off = payload_offset(&ct);
    let chunk = |i: usize| off + i * ENC_CHUNK..off + (i + 1) * ENC_CHUNK;

    for (a, b) in [(0, 1), (1, 2), (0, 3)] {
        let mut bad = ct.clone();
        let ca = ct[chunk(a)].to_vec();
        let cb = ct[chunk(b)].to_vec();
        bad[chunk(a)].copy_from_slice(&cb);
        bad[chunk(b)].copy_from_slice(&ca);
        assert_eq!(bad.len(), ct.len());
        assert_corrupt(&env, &format!("swap-{a}-{b}"), &bad);
    }

    let mut dup = ct.clone();
    let c1 = ct[chunk(1)].to_vec();
    dup[chunk(2)].copy_from_slice(&c1);
    assert_corrupt(&env, "duplicate", &dup);

    let mut dropped = ct[..off + ENC_CHUNK].to_vec();
    dropped.extend_from_slice(&ct[off + 2 * ENC_CHUNK..]);
    assert_corrupt(&env, "dropped-chunk", &dropped);

    let mut extended = ct.clone();
    extended.extend_from_slice(b"trailing");
    assert_corrupt(&env, "trailing", &extended);

    // A full-chunk plaintext followed by trailing data.
    let full = fs::read(env.encrypt("full", &pseudo_random(2 * CHUNK, 4), POLICY)).unwrap();
    let mut extended = full.clone();
    extended.extend_from_slice(&full[payload_offset(&full)..payload_offset(&full) + ENC_CHUNK]);
    assert_corrupt(&env, "trailing-chunk", &extended);
}

#[test]
fn bit_flips_exit_3() {
    let env = Env::new("bls12-381");
    let plain = pseudo_random(4 * CHUNK + 1000, 6);
    let ct = fs::read(env.encrypt("m", &plain, POLICY)).unwrap();
    let hlen = header_len(&ct);
    let off = payload_offset(&ct);
    let positions = [
        ("preamble-magic", 0),
        ("preamble-kind", 5),
        ("header-group-element", 12 + hlen / 2),
        ("header-group-element-2", 12 + hlen - 100),
        ("header-last-byte", 12 + hlen - 1),
        ("salt", off - 1),
        ("payload-first-byte", off),
        ("payload-chunk-2", off + 2 * ENC_CHUNK + 777),
        ("payload-tag-of-chunk-0", off + CHUNK + 3),
        ("payload-last-byte", ct.len() - 1),
    ];
    for (name, pos) in positions {
        for bit in [0x01u8, 0x80] {
            let mut bad = ct.clone();
            bad[pos] ^= bit;
            assert_corrupt(&env, &format!("{name}-{bit:02x}"), &bad);
        }
    }
    assert!(env.decrypt(&env.key("alice"), &env.path("m.abbe")) == plain);
}

#[test]
fn malformed_policies_exit_3_with_position() {
    let env = Env::new("bls12-381");
    let input = env.file("m.txt", b"hello");
    let out = env.path("m.abbe");
    let cases = [
        ("doctor and (", Some("byte 12")),
        ("doctor and and nurse", Some("byte 11")),
        ("(doctor or nurse", Some("byte")),
        ("3 of (doctor, nurse)", Some("byte")),
        ("doctor ))", Some("byte")),
        ("", Some("byte")),
    ];
    for (policy, needle) in cases {
        let r = expect_failure(
            &[
                "encrypt",
                "--public",
                p(&env.public()),
                "--policy",
                policy,
                "-o",
                p(&out),
                p(&input),
            ],
            &out,
            3,
        );
        if let Some(needle) = needle {
            assert!(r.stderr.contains(needle), "policy {policy:?}: {}", r.stderr);
        }
    }
    // Also when the output would go to stdout.
    let r = run_piped(
        &["encrypt", "--public", p(&env.public()), "--policy", "a and"],
        b"x".to_vec(),
    );
    assert_fails(&r, 3);
}

#[test]
fn missing_files_exit_1() {
    let env = Env::new("bls12-381");
    let ct = env.encrypt("m", b"hello", POLICY);
    let input = env.path("m.plain");
    let missing = env.path("does-not-exist");
    let out = env.path("out.bin");
    let alice = env.key("alice");
    let (tk, _rk) = env.transform_key("alice");

    // Missing input files.
    for args in [
        vec![
            "encrypt",
            "--public",
            p(&env.public()),
            "--policy",
            POLICY,
            "-o",
            p(&out),
            p(&missing),
        ],
        vec!["decrypt", "--key", p(&alice), "-o", p(&out), p(&missing)],
        vec!["transform", "--tk", p(&tk), "-o", p(&out), p(&missing)],
    ] {
        let r = expect_failure(&args, &out, 1);
        assert!(r.stderr.contains("does-not-exist"), "{}", r.stderr);
    }
    let r = run(&["inspect", p(&missing)]);
    assert_fails(&r, 1);

    // Missing key files.
    for args in [
        vec![
            "encrypt",
            "--public",
            p(&missing),
            "--policy",
            POLICY,
            "-o",
            p(&out),
            p(&input),
        ],
        vec!["decrypt", "--key", p(&missing), "-o", p(&out), p(&ct)],
        vec!["transform", "--tk", p(&missing), "-o", p(&out), p(&ct)],
        vec![
            "keygen",
            "--master",
            p(&missing),
            "--attrs",
            ALICE,
            "-o",
            p(&out),
        ],
    ] {
        let r = expect_failure(&args, &out, 1);
        assert!(r.stderr.contains("does-not-exist"), "{}", r.stderr);
    }
    let (tk2, rk2) = (env.path("x.tk"), env.path("x.rk"));
    let r = run(&[
        "transform-key",
        "--key",
        p(&missing),
        "--tk",
        p(&tk2),
        "--rk",
        p(&rk2),
    ]);
    assert_fails(&r, 1);
    assert_no_output(&tk2);
    assert_no_output(&rk2);
}

#[test]
fn key_from_another_setup_exits_3() {
    let env = Env::new("bls12-381");
    let other = Env::new("bls12-381");
    let ct = env.encrypt_mode("m", b"hello", POLICY, "rcca");
    let out = env.path("m.out");
    let r = expect_failure(
        &[
            "decrypt",
            "--key",
            p(&other.key("alice")),
            "-o",
            p(&out),
            p(&ct),
        ],
        &out,
        3,
    );
    assert!(r.stderr.contains("different setups"), "{}", r.stderr);

    // The other setup's transformation key neither.
    let (tk, _) = other.transform_key("alice");
    let t = env.path("m.transformed");
    let r = expect_failure(&["transform", "--tk", p(&tk), "-o", p(&t), p(&ct)], &t, 3);
    assert!(r.stderr.contains("different setups"), "{}", r.stderr);
}

#[test]
fn wrong_key_kinds_exit_3() {
    let env = Env::new("bls12-381");
    let ct = env.encrypt_mode("m", b"hello", POLICY, "rcca");
    let input = env.path("m.plain");
    let (tk, rk) = env.transform_key("alice");
    let t = env.path("m.transformed");
    assert_ok(&run(&["transform", "--tk", p(&tk), "-o", p(&t), p(&ct)]));
    let out = env.path("out.bin");
    let alice = env.key("alice");

    // A user key on a transformed file.
    let r = expect_failure(
        &["decrypt", "--key", p(&alice), "-o", p(&out), p(&t)],
        &out,
        3,
    );
    assert!(r.stderr.contains("retrieval key"), "{}", r.stderr);
    // A retrieval key on a normal ciphertext.
    let r = expect_failure(
        &["decrypt", "--key", p(&rk), "-o", p(&out), p(&ct)],
        &out,
        3,
    );
    assert!(r.stderr.contains("transform"), "{}", r.stderr);
    // Other objects in the key's place.
    for key in [&tk, &env.public(), &env.master(), &ct] {
        expect_failure(
            &["decrypt", "--key", p(key), "-o", p(&out), p(&ct)],
            &out,
            3,
        );
    }
    for key in [&alice, &rk, &env.public()] {
        expect_failure(
            &["transform", "--tk", p(key), "-o", p(&out), p(&ct)],
            &out,
            3,
        );
    }
    expect_failure(
        &[
            "encrypt",
            "--public",
            p(&env.master()),
            "--policy",
            POLICY,
            "-o",
            p(&out),
            p(&input),
        ],
        &out,
        3,
    );
    expect_failure(
        &[
            "keygen",
            "--master",
            p(&env.public()),
            "--attrs",
            ALICE,
            "-o",
            p(&out),
        ],
        &out,
        3,
    );
    // A key in the ciphertext's place.
    expect_failure(
        &["decrypt", "--key", p(&alice), "-o", p(&out), p(&alice)],
        &out,
        3,
    );
    // The right pairings still work.
    assert_eq!(env.decrypt_transformed(&rk, &t, &ct), b"hello");
    assert_eq!(env.decrypt(&alice, &ct), b"hello");
}

#[test]
fn key_on_another_curve_exits_3() {
    let bls = Env::new("bls12-381");
    let bn = Env::new("bn254");
    let ct = bls.encrypt("m", b"hello", POLICY);
    let out = bls.path("m.out");
    let r = expect_failure(
        &[
            "decrypt",
            "--key",
            p(&bn.key("alice")),
            "-o",
            p(&out),
            p(&ct),
        ],
        &out,
        3,
    );
    assert!(
        r.stderr.contains("bn254") && r.stderr.contains("bls12-381"),
        "{}",
        r.stderr
    );

    let bn_ct = bn.encrypt("m", b"hello", POLICY);
    let bn_out = bn.path("m.out");
    expect_failure(
        &[
            "decrypt",
            "--key",
            p(&bls.key("alice")),
            "-o",
            p(&bn_out),
            p(&bn_ct),
        ],
        &bn_out,
        3,
    );

    let (bn_tk, _) = bn.transform_key("alice");
    let t = bls.path("m.transformed");
    expect_failure(
        &["transform", "--tk", p(&bn_tk), "-o", p(&t), p(&ct)],
        &t,
        3,
    );
}

#[test]
fn policy_and_attributes_go_to_their_own_side() {
    let env = Env::new("bls12-381");
    let out = env.path("carol.key");
    let r = run(&[
        "keygen",
        "--master",
        p(&env.master()),
        "--policy",
        "doctor and cardiology",
        "-o",
        p(&out),
    ]);
    assert_ne!(r.code, Some(0));
    assert_fails(&r, r.code.unwrap());
    assert_no_output(&out);
    assert!(r.stderr.contains("encrypt --policy"), "{}", r.stderr);
    assert!(r.stderr.contains("--attrs"), "{}", r.stderr);

    let input = env.file("m.txt", b"hello");
    let ct = env.path("m.abbe");
    let r = run(&[
        "encrypt",
        "--public",
        p(&env.public()),
        "--attrs",
        "doctor",
        "-o",
        p(&ct),
        p(&input),
    ]);
    assert_ne!(r.code, Some(0));
    assert_fails(&r, r.code.unwrap());
    assert_no_output(&ct);
    assert!(r.stderr.contains("keygen --attrs"), "{}", r.stderr);
    assert!(r.stderr.contains("--policy"), "{}", r.stderr);
}

#[test]
fn garbage_keys_exit_3() {
    let env = Env::new("bls12-381");
    let ct = env.encrypt("m", b"hello", POLICY);
    let alice = fs::read(env.key("alice")).unwrap();
    let out = env.path("m.out");

    let mut with_preamble = alice[..8].to_vec();
    with_preamble.extend_from_slice(&pseudo_random(3000, 9));
    let mut body_flipped = alice.clone();
    let mid = alice.len() / 2;
    body_flipped[mid] ^= 0x40;
    let keys: [(&str, Vec<u8>); 5] = [
        ("random.key", pseudo_random(500, 8)),
        ("empty.key", Vec::new()),
        ("preamble-then-garbage.key", with_preamble),
        ("half.key", alice[..alice.len() / 2].to_vec()),
        ("trailing.key", [&alice[..], b"junk"].concat()),
    ];
    for (name, bytes) in keys {
        let key = env.file(name, &bytes);
        let r = run(&["decrypt", "--key", p(&key), "-o", p(&out), p(&ct)]);
        assert_fails(&r, 3);
        assert_no_output(&out);
        // Not a key for transform-key, transform or inspect either.
        let (tk, rk) = (env.path("g.tk"), env.path("g.rk"));
        let r = run(&[
            "transform-key",
            "--key",
            p(&key),
            "--tk",
            p(&tk),
            "--rk",
            p(&rk),
        ]);
        assert_fails(&r, 3);
        assert_no_output(&tk);
        assert_no_output(&rk);
        expect_failure(
            &["transform", "--tk", p(&key), "-o", p(&out), p(&ct)],
            &out,
            3,
        );
        assert_fails(&run(&["inspect", p(&key)]), 3);
    }
    // A key with one bit flipped inside a group element is rejected as invalid.
    let key = env.file("flipped.key", &body_flipped);
    expect_failure(
        &["decrypt", "--key", p(&key), "-o", p(&out), p(&ct)],
        &out,
        3,
    );
}

// ---------------------------------------------------------------------------
// setup, file modes, inspect, demo, policy syntaxes
// ---------------------------------------------------------------------------

#[test]
fn setup_refuses_to_overwrite_without_force() {
    let env = Env::new("bls12-381");
    let keys = env.path("keys");
    let public = fs::read(env.public()).unwrap();
    let master = fs::read(env.master()).unwrap();

    let r = run(&["setup", "--out", p(&keys)]);
    assert_fails(&r, 1);
    assert!(r.stderr.contains("--force"), "{}", r.stderr);
    assert_eq!(fs::read(env.public()).unwrap(), public);
    assert_eq!(fs::read(env.master()).unwrap(), master);
    assert_no_stray_tmp(&keys);

    // Either file existing is enough to refuse.
    fs::remove_file(env.public()).unwrap();
    let r = run(&["setup", "--out", p(&keys)]);
    assert_fails(&r, 1);
    assert!(!env.public().exists());
    assert_eq!(fs::read(env.master()).unwrap(), master);
    fs::write(env.public(), &public).unwrap();

    let old_ct = env.encrypt("old", b"old setup", POLICY);
    let r = run(&["setup", "--out", p(&keys), "--force"]);
    assert_ok(&r);
    assert_ne!(fs::read(env.public()).unwrap(), public);
    assert_ne!(fs::read(env.master()).unwrap(), master);
    assert_no_stray_tmp(&keys);

    // The old key belongs to the old setup only.
    assert_eq!(env.decrypt(&env.key("alice"), &old_ct), b"old setup");
    let new_ct = env.encrypt("new", b"new setup", POLICY);
    let out = env.path("new.out");
    let r = expect_failure(
        &[
            "decrypt",
            "--key",
            p(&env.key("alice")),
            "-o",
            p(&out),
            p(&new_ct),
        ],
        &out,
        3,
    );
    assert!(r.stderr.contains("different setups"), "{}", r.stderr);
    let fresh = env.keygen("alice2", ALICE);
    assert_eq!(env.decrypt(&fresh, &new_ct), b"new setup");
}

/// The errors a new user meets first name what is wrong in their terms.
#[test]
fn first_errors_say_the_right_thing() {
    let env = Env::new("bls12-381");
    let plain = env.file("plain", b"x");
    let fails = |args: &[&str], code: i32, message: &str| {
        let r = run(args);
        assert_fails(&r, code);
        assert_eq!(r.stderr, format!("abbe: error: {message}\n"), "{args:?}");
    };
    // A broadcast key that cannot decrypt is not a recipient.
    let b = env.path("b");
    assert_ok(&run(&[
        "setup",
        "--scheme",
        "bgw05",
        "--users",
        "8",
        "--out",
        p(&b),
    ]));
    let (bpk, bmk) = (b.join("public.key"), b.join("master.key"));
    let u3 = env.path("u3.key");
    assert_ok(&run(&[
        "keygen",
        "--master",
        p(&bmk),
        "--user",
        "3",
        "-o",
        p(&u3),
    ]));
    let to12 = env.path("to12.abbe");
    assert_ok(&run(&[
        "encrypt",
        "--public",
        p(&bpk),
        "--to",
        "1-2",
        "-o",
        p(&to12),
        p(&plain),
    ]));
    fails(
        &["decrypt", "--key", p(&u3), "--public", p(&bpk), p(&to12)],
        2,
        "your key is not one of this ciphertext's recipients",
    );
    // A public key where a decryption key belongs.
    let public = env.public();
    let ct = env.encrypt("doc", b"for doctors", POLICY);
    fails(
        &["decrypt", "--key", p(&public), p(&ct)],
        3,
        &format!(
            "{}: this is a public key, expected a user decryption key or a retrieval key",
            p(&public)
        ),
    );
    // A negated plain attribute, and a list without its comma.
    fails(
        &["encrypt", "--public", p(&public), "--policy", "doctor and not nurse", p(&plain)],
        3,
        "policy error at byte 11: expected a negated comparison, e.g. `not (level = 3)` or `level != 3` (a key lists the attributes it has, never those it lacks, so no scheme can negate a plain attribute) but found 'not nurse'\n  doctor and not nurse\n             ^",
    );
    // The caret stands under the error's position.
    fails(
        &["encrypt", "--public", p(&public), "--policy", "doctor and (nurse or", p(&plain)],
        3,
        "policy error at byte 20: expected an attribute name, '(' or a threshold 'K of (...)' but found end of input\n  doctor and (nurse or\n                      ^",
    );
    // A misspelt attribute, against the authority's list or a key.
    let list = env.path("attributes.txt");
    fs::write(
        &list,
        "# the hospital's\ndoctor, nurse, cardiology\nage = 0\n",
    )
    .unwrap();
    fails(
        &[
            "encrypt",
            "--public",
            p(&public),
            "--policy",
            "doctr or (nurse and age >= 30)",
            "--check-against",
            p(&list),
            p(&plain),
        ],
        3,
        &format!(
            "the policy names 'doctr' (did you mean 'doctor'?), not in {} (--check-against)",
            p(&list)
        ),
    );
    let doc = env.keygen("doc", "doctor, cardiology");
    assert_ok(&run(&[
        "encrypt",
        "--public",
        p(&public),
        "--policy",
        "doctor and cardiology",
        "--check-against",
        p(&doc),
        "-o",
        p(&env.path("dc.abbe")),
        p(&plain),
    ]));
    fails(
        &["keygen", "--master", p(&env.master()), "--attrs", "nurse, cardiolgy", "--check-against", p(&list), "--check-against", p(&doc), "-o", p(&env.path("nc.key"))],
        3,
        &format!("the attribute list names 'cardiolgy' (did you mean 'cardiology'?), not in {}, {} (--check-against)", p(&list), p(&doc)),
    );
    assert!(!env.path("nc.key").exists());
    // User indices start at 1, whatever N is.
    fails(
        &["keygen", "--master", p(&b.join("master.key")), "--user", "0", "-o", p(&env.path("u0.key"))],
        3,
        "user index error at byte 0: expected a user index (users are numbered from 1) but found 0\n  0\n  ^",
    );
    fails(
        &["keygen", "--master", p(&env.master()), "--attrs", "doctor cardiology", "-o", p(&env.path("dc.key"))],
        3,
        "attribute list error at byte 7: expected ',' between two attributes (\"doctor, cardiology\") but found 'cardiology'\n  doctor cardiology\n         ^",
    );
}

/// An environment with an RCCA file for doctors and Alice's transformation
/// key: something for every command to write.
fn outsourcing_env() -> (Env, PathBuf, PathBuf) {
    let env = Env::new("bls12-381");
    let ct = env.encrypt_mode("doc", b"for doctors", POLICY, "rcca");
    let (tk, _) = env.transform_key("alice");
    (env, ct, tk)
}

/// One rule for every command that writes: an existing file is replaced
/// only with `--force` (or `-f`), and a refusal leaves it as it was.
#[test]
fn every_writing_command_refuses_to_overwrite_without_force() {
    let (env, ct, tk) = outsourcing_env();
    let taken = env.file("taken", b"precious");
    let t = p(&taken);
    let (master, public, alice) = (env.master(), env.public(), env.key("alice"));
    let plain = env.file("plain", b"new plaintext");
    let (tk_out, rk_out) = (env.path("fresh.tk"), env.path("fresh.rk"));
    let signer = env.path("signer.key");
    // A device, also through a link, is written in place without --force.
    #[cfg(unix)]
    for device in ["/dev/null", "/dev/stdout"] {
        let r = run(&[
            "encrypt",
            "--public",
            p(&public),
            "-p",
            POLICY,
            "-o",
            device,
            p(&plain),
        ]);
        assert_ok(&r);
    }
    #[cfg(unix)]
    {
        let link = env.path("link");
        std::os::unix::fs::symlink(&taken, &link).unwrap();
        let r = run(&["keygen", "-m", p(&master), "-a", ALICE, "-o", p(&link)]);
        assert_fails(&r, 1);
        assert_eq!(fs::read(&taken).unwrap(), b"precious", "through a link");
    }
    let cases: Vec<Vec<&str>> = vec![
        vec!["keygen", "--master", p(&master), "--attrs", ALICE, "-o", t],
        vec![
            "encrypt",
            "--public",
            p(&public),
            "--policy",
            POLICY,
            "-o",
            t,
            p(&plain),
        ],
        vec!["decrypt", "--key", p(&alice), "-o", t, p(&ct)],
        vec!["transform", "--tk", p(&tk), "-o", t, p(&ct)],
        vec![
            "transform-key",
            "--key",
            p(&alice),
            "--tk",
            t,
            "--rk",
            p(&rk_out),
        ],
        vec![
            "transform-key",
            "--key",
            p(&alice),
            "--tk",
            p(&tk_out),
            "--rk",
            t,
        ],
        vec!["signer-keygen", "-o", t, "--public", p(&signer)],
    ];
    for args in cases {
        let r = run(&args);
        assert_fails(&r, 1);
        assert_eq!(
            r.stderr,
            format!("abbe: error: {t} already exists (use --force to overwrite)\n"),
            "{args:?}"
        );
        assert_eq!(fs::read(&taken).unwrap(), b"precious", "{args:?}");
        assert!(
            !tk_out.exists() && !rk_out.exists() && !signer.exists(),
            "{args:?}"
        );
        assert_no_stray_tmp(env.dir.path());
        for force in ["--force", "-f"] {
            let mut forced = args.clone();
            forced.push(force);
            assert_ok(&run(&forced));
            assert_ne!(fs::read(&taken).unwrap(), b"precious", "{forced:?}");
            fs::write(&taken, b"precious").unwrap();
            for made in [&tk_out, &rk_out, &signer] {
                let _ = fs::remove_file(made);
            }
            let _ = fs::remove_file(signer.with_extension("pub"));
        }
    }
}

/// SIGINT or SIGTERM while `encrypt -o` or `decrypt -o` streams leaves
/// neither the output nor its temporary file, and the exit status says
/// which signal (128 + its number); a signal the command was started
/// with ignored (`nohup`) stays ignored.
#[cfg(unix)]
#[test]
fn an_interrupted_command_leaves_no_partial_output() {
    let env = Env::new("bls12-381");
    let ct = env.encrypt("doc", &pseudo_random(3 << 20, 7), POLICY);
    let (public, alice) = (env.public(), env.key("alice"));
    let out = env.path("out");
    let encrypt = format!(
        "exec '{BIN}' encrypt --public '{}' --policy '{POLICY}' -o '{}'",
        p(&public),
        p(&out)
    );
    let decrypt = format!(
        "exec '{BIN}' decrypt --key '{}' -o '{}'",
        p(&alice),
        p(&out)
    );
    let ciphertext = fs::read(&ct).unwrap()[..2 << 20].to_vec();
    for (cmd, input) in [
        (&encrypt, pseudo_random(2 << 20, 8)),
        (&decrypt, ciphertext),
    ] {
        for (signal, code) in [("INT", 130), ("TERM", 143)] {
            let status = signalled_mid_stream(env.dir.path(), cmd, &input, signal);
            assert_eq!(status.code(), Some(code), "{cmd} SIG{signal}");
            assert_no_output(&out);
        }
    }
    // Started with SIGINT ignored, the command ignores it and finishes.
    let ignoring = format!("trap '' INT; {encrypt}");
    let status = signalled_mid_stream(env.dir.path(), &ignoring, &pseudo_random(1 << 20, 9), "INT");
    assert!(status.success());
    assert!(out.exists());
    assert_no_stray_tmp(env.dir.path());
}

/// Runs `sh -c cmd`, writes `input` to its stdin and holds the pipe open
/// (the command is mid-stream), waits for its temporary output file in
/// `dir`, sends it SIG`signal`, closes stdin and returns its exit status.
fn signalled_mid_stream(
    dir: &Path,
    cmd: &str,
    input: &[u8],
    signal: &str,
) -> std::process::ExitStatus {
    let mut child = Command::new("sh")
        .args(["-c", cmd])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input).unwrap();
    let started = Instant::now();
    while !has_tmp(dir) {
        assert!(
            started.elapsed().as_secs() < 60,
            "no temporary file appeared: {cmd}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let killed = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    // The pipe stays open until the signal has ended the command (an
    // end of input first would end it as a truncated stream); one that
    // ignores the signal gets its end of input after a while.
    let signalled = Instant::now();
    while child.try_wait().unwrap().is_none() && signalled.elapsed().as_secs() < 3 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    drop(stdin);
    child.wait().unwrap()
}

fn has_tmp(dir: &Path) -> bool {
    fs::read_dir(dir).unwrap().any(|e| {
        e.unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with(".abbe-tmp-")
    })
}

/// `encrypt` and `transform` do not write binary to a terminal (run under
/// a pseudo-terminal by util-linux's `script`); armored output, `-o` and a
/// pipe are fine.
#[cfg(unix)]
#[test]
fn binary_output_to_a_terminal_is_refused() {
    let (env, ct, tk) = outsourcing_env();
    let plain = env.file("plain", b"to encrypt");
    let in_terminal = |cmd: String| {
        let out = Command::new("script")
            .args(["-qec", &cmd, "/dev/null"])
            .stdin(Stdio::null())
            .output()
            .expect("util-linux's script runs a command under a pseudo-terminal");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let encrypt = format!(
        "'{BIN}' encrypt --public '{}' --policy '{POLICY}' '{}'",
        p(&env.public()),
        p(&plain)
    );
    let transform = format!("'{BIN}' transform --tk '{}' '{}'", p(&tk), p(&ct));
    for (cmd, what) in [
        (&encrypt, "a binary ciphertext"),
        (&transform, "a binary transformed file"),
    ] {
        let (code, text) = in_terminal(cmd.clone());
        assert_eq!(code, Some(1), "{text}");
        assert_eq!(
            text.trim_end(),
            format!(
                "abbe: error: refusing to write {what} to a terminal: use --armor, or -o FILE, or a pipe"
            )
        );
        let (code, text) = in_terminal(format!("{cmd} --armor"));
        assert_eq!(code, Some(0), "{text}");
        assert!(text.contains("-----BEGIN ABBE"), "{text}");
        let (code, text) = in_terminal(format!("{cmd} | wc -c"));
        assert_eq!(code, Some(0), "{text}");
    }
}

/// `transform-key` on a passphrase-protected key protects the retrieval
/// key with the same passphrase (and says so) unless told otherwise.
#[test]
fn transform_key_keeps_the_protection_of_its_key() {
    let env = Env::new("bls12-381");
    let pw = env.file("pw", b"correct horse battery staple\n");
    let key = env.key("carol");
    let keygen = Command::new(BIN)
        .args(["keygen", "--master", p(&env.master()), "--attrs", ALICE])
        .args(["--passphrase", "-o", p(&key)])
        .env("ABBE_PASSPHRASE_FILE", &pw)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_ok(&keygen.into());
    let (r, tk, rk) = env.split_key("carol", &[], Some(&pw));
    assert_ok(&r);
    assert_eq!(
        r.stderr,
        format!(
            "abbe: {} is protected with the passphrase of {}\n",
            p(&rk),
            p(&key)
        )
    );
    assert_eq!(fs::read(&rk).unwrap()[5], 17, "retrieval key protected");
    assert_ne!(
        fs::read(&tk).unwrap()[5],
        17,
        "transformation key in the clear"
    );
    let (r, _, rk) = env.split_key("carol", &["--no-passphrase", "-f"], Some(&pw));
    assert_ok(&r);
    assert_ne!(fs::read(&rk).unwrap()[5], 17, "--no-passphrase");
}

#[cfg(unix)]
#[test]
fn file_modes() {
    let env = Env::new("bls12-381");
    assert_eq!(mode(&env.master()), 0o600, "master.key");
    assert_eq!(mode(&env.public()), 0o644, "public.key");
    assert_eq!(mode(&env.key("alice")), 0o600, "user key");
    assert_eq!(mode(&env.key("bob")), 0o600, "user key");
    let (tk, rk) = env.transform_key("alice");
    assert_eq!(mode(&tk), 0o600, "transformation key");
    assert_eq!(mode(&rk), 0o600, "retrieval key");
    let ct = env.encrypt("m", b"hello", POLICY);
    assert_eq!(mode(&ct), 0o644, "ciphertext");
    let out = env.path("m.out");
    assert_ok(&run(&[
        "decrypt",
        "--key",
        p(&env.key("alice")),
        "-o",
        p(&out),
        p(&ct),
    ]));
    assert_eq!(mode(&out), 0o600, "decrypted plaintext");
    // Overwriting with --force keeps the modes.
    assert_ok(&run(&["setup", "--out", p(&env.path("keys")), "--force"]));
    assert_eq!(mode(&env.master()), 0o600, "master.key after --force");
    assert_eq!(mode(&env.public()), 0o644, "public.key after --force");
}

fn inspect(path: &Path) -> String {
    let r = run(&["inspect", p(path)]);
    assert_ok(&r);
    String::from_utf8(r.stdout).unwrap()
}

/// `text` contains no 8-byte run of `secret` (hex-encoded), once the public
/// setup id (which key files embed) is removed from `text`.
#[track_caller]
fn assert_no_key_bytes(text: &str, secret: &[u8], setup_id: &str) {
    let text = text.to_lowercase().replace(setup_id, "<setup id>");
    let secret_hex = hex(secret);
    for w in (16..secret_hex.len()).step_by(2) {
        let window = &secret_hex[w - 16..w];
        assert!(
            !text.contains(window),
            "inspect printed key bytes {window}:\n{text}"
        );
    }
}

#[test]
fn inspect_describes_without_secrets() {
    let env = Env::new("bls12-381");
    let ct = env.encrypt("m", b"hello", POLICY);
    let (tk, rk) = env.transform_key("alice");

    let public = inspect(&env.public());
    let setup_id = public
        .lines()
        .find_map(|l| l.strip_prefix("setup id:"))
        .expect("public key shows its setup id")
        .trim()
        .to_lowercase();
    assert_eq!(setup_id.len(), 32, "setup id {setup_id:?}");

    let text = inspect(&ct);
    assert!(text.contains("kind:           ciphertext"), "{text}");
    let policy = text
        .lines()
        .find_map(|l| l.strip_prefix("policy:"))
        .unwrap_or_else(|| panic!("no policy line:\n{text}"))
        .trim();
    for part in [
        "doctor",
        "cardiology",
        "2 of (",
        "nurse",
        "ward25",
        "age >= 30",
    ] {
        assert!(
            policy.contains(part),
            "policy line {policy:?} lacks {part:?}"
        );
    }
    assert!(
        text.contains(&setup_id),
        "ciphertext shows the setup id:\n{text}"
    );
    assert!(text.contains("payload:        21 bytes"), "{text}");

    let text = inspect(&env.key("alice"));
    assert!(text.contains("user decryption key"), "{text}");
    assert!(
        text.contains("attributes:     doctor, cardiology, age = 42"),
        "{text}"
    );
    let text_bob = inspect(&env.key("bob"));
    assert!(
        text_bob.contains("attributes:     nurse, age = 25"),
        "{text_bob}"
    );

    for secret in [env.key("alice"), env.key("bob"), env.master(), tk, rk] {
        let text = inspect(&secret);
        let bytes = fs::read(&secret).unwrap();
        assert!(text.contains("kind:"), "{text}");
        assert!(
            text.len() < bytes.len() || text.len() < 1024,
            "inspect of {} prints {} bytes",
            secret.display(),
            text.len()
        );
        assert_no_key_bytes(&text, &bytes[8..], &setup_id);
    }
}

#[test]
fn demo_runs_and_shows_a_refusal() {
    for curve in ["bls12-381", "bn254"] {
        let r = run(&["demo", "--curve", curve]);
        assert_ok(&r);
        let text = String::from_utf8(r.stdout).unwrap();
        assert!(text.contains("refused"), "demo on {curve}:\n{text}");
        assert!(text.contains(curve), "demo on {curve}:\n{text}");
        // The README's story: outsourcing through an RCCA file, finished
        // against the original.
        assert!(
            text.contains("--mode rcca") && text.contains("--original"),
            "{text}"
        );
    }
    let r = run(&["demo", "--curve", "p256"]);
    assert_fails(&r, 1);
}

#[test]
fn alternative_policy_syntaxes() {
    let env = Env::new("bls12-381");
    let alice = env.key("alice");
    let bob = env.key("bob");
    for (name, policy) in [
        ("postfix", "doctor cardiology 2of2"),
        ("fbf", "(doctor,cardiology,2)"),
    ] {
        let ct = env.encrypt(name, b"syntax", policy);
        assert_eq!(env.decrypt(&alice, &ct), b"syntax", "{policy}");
        let text = inspect(&ct);
        assert!(
            text.contains("policy:         doctor and cardiology"),
            "{policy}:\n{text}"
        );
        // Read as an AND: bob is refused.
        let out = env.path(&format!("{name}.bob"));
        expect_failure(
            &["decrypt", "--key", p(&bob), "-o", p(&out), p(&ct)],
            &out,
            2,
        );
    }
    // A 1-of-2 threshold lets bob in.
    for (name, policy) in [
        ("postfix1", "doctor nurse 1of2"),
        ("fbf1", "(doctor,nurse,1)"),
    ] {
        let ct = env.encrypt(name, b"either", policy);
        assert_eq!(env.decrypt(&bob, &ct), b"either", "{policy}");
        assert_eq!(env.decrypt(&alice, &ct), b"either", "{policy}");
    }
}

/// Usage errors exit 1 (clap's own code 2 would read as "not satisfied").
#[test]
fn usage_errors_exit_1() {
    for args in [&["setup"][..], &["decrypt", "--bogus"], &["frobnicate"]] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_abbe"))
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "abbe {args:?}");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_abbe"))
        .arg("--help")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

/// The options every command takes are described once, in `abbe --help`;
/// each argument of a command has its help; the usual flags have short
/// forms (-m, -a, -p, -k, -o, -f).
#[test]
fn help_and_short_flags() {
    let help = |args: &[&str]| {
        let r = run(args);
        assert_ok(&r);
        String::from_utf8(r.stdout).unwrap()
    };
    assert!(help(&["--help"]).contains("--max-policy-work <UNITS>"));
    for cmd in [
        "setup",
        "keygen",
        "encrypt",
        "decrypt",
        "transform-key",
        "transform",
        "inspect",
    ] {
        let text = help(&[cmd, "--help"]);
        assert!(!text.contains("--max-policy-work"), "{cmd}: {text}");
        // Every argument has its explanation: after the name, or (clap's
        // long layout) on the next, deeper-indented line.
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let name = line.trim_start();
            let is_argument = (name.starts_with('-') && !name.starts_with("- "))
                || name.starts_with('[')
                || name.starts_with('<');
            if !is_argument {
                continue;
            }
            let indent = line.len() - name.len();
            let below = lines.get(i + 1).copied().unwrap_or("");
            let explained = name.trim_end().contains("  ")
                || (below.len() - below.trim_start().len() > indent && !below.trim().is_empty());
            assert!(explained, "{cmd}: no help for {line:?}");
        }
    }
    let env = Env::new("bls12-381");
    let plain = env.file("plain", b"short flags");
    let (ct, dk) = (env.path("short.abbe"), env.path("short.key"));
    assert_ok(&run(&[
        "keygen",
        "-m",
        p(&env.master()),
        "-a",
        ALICE,
        "-o",
        p(&dk),
    ]));
    let public = env.public();
    assert_ok(&run(&[
        "encrypt",
        "--public",
        p(&public),
        "-p",
        "doctor",
        "-o",
        p(&ct),
        p(&plain),
    ]));
    let r = run(&["decrypt", "-k", p(&dk), p(&ct)]);
    assert_ok(&r);
    assert_eq!(r.stdout, b"short flags");
}

/// Shell completions and the manual page come from the same definitions
/// as the commands.
#[test]
fn completions_and_manual_page() {
    for (shell, marker) in [
        ("bash", "_abbe()"),
        ("zsh", "#compdef abbe"),
        ("fish", "complete -c abbe"),
    ] {
        let r = run(&["completions", shell]);
        assert_ok(&r);
        let text = String::from_utf8(r.stdout).unwrap();
        assert!(text.contains(marker), "{shell}");
        assert!(
            text.contains("transform-key") && text.contains("force"),
            "{shell}"
        );
    }
    let r = run(&["manpage"]);
    assert_ok(&r);
    let page = String::from_utf8(r.stdout).unwrap();
    assert!(
        page.contains(".TH abbe 1") && page.contains("transform\\-key"),
        "{page}"
    );
    // A usage error, as clap reports it (exit 1).
    assert_eq!(run(&["completions", "nosh"]).code, Some(1));
}

/// The default (CCA) ciphertexts cannot go through a proxy; CPA-mode ones
/// can (GHW11's CPA scheme), and the same retrieval key finishes them.
#[test]
fn modes_and_outsourcing() {
    let env = Env::new("bls12-381");
    let (tk, rk) = env.transform_key("alice");
    let cca = env.encrypt("cca", b"cca", POLICY);
    let t = env.path("cca.t");
    let r = expect_failure(&["transform", "--tk", p(&tk), "-o", p(&t), p(&cca)], &t, 3);
    assert!(r.stderr.contains("--mode rcca"), "{}", r.stderr);
    let cpa = env.encrypt_mode("cpa", b"cpa payload", POLICY, "cpa");
    let t = env.path("cpa.t");
    assert_ok(&run(&["transform", "--tk", p(&tk), "-o", p(&t), p(&cpa)]));
    let out = env.path("cpa.out");
    // CPA files and transformations are unchecked: only with --allow-cpa.
    expect_failure(&["decrypt", "--key", p(&rk), "-o", p(&out), p(&t)], &out, 3);
    assert_ok(&run(&[
        "decrypt",
        "--allow-cpa",
        "--key",
        p(&rk),
        "-o",
        p(&out),
        p(&t),
    ]));
    assert_eq!(fs::read(&out).unwrap(), b"cpa payload");
    // and the user key decrypts every mode directly
    for (name, mode) in [("m1", "cca"), ("m2", "rcca"), ("m3", "cpa")] {
        let ct = env.encrypt_mode(name, b"direct", POLICY, mode);
        let out = env.path(&format!("{name}.out"));
        assert_ok(&run(&[
            "decrypt",
            "--allow-cpa",
            "--key",
            p(&env.key("alice")),
            "-o",
            p(&out),
            p(&ct),
        ]));
        assert_eq!(fs::read(&out).unwrap(), b"direct");
    }
}

/// The foundation's flow for every attribute-based scheme of the table:
/// setup, keygen on the right side, encrypt (CCA by default), decrypt,
/// refusal, and which side takes the policy; outsourcing where the scheme
/// has it. The broadcast families run in the tests below;
/// `every_scheme_has_an_end_to_end_test` checks that none is left out.
#[test]
fn every_scheme_end_to_end() {
    use abbe::kem::ParamsKind;
    use abbe::wire::Family;
    // (scheme, key side flag, key side, ciphertext side flag, ciphertext side, a key that fails, outsourcing)
    let mut cases: Vec<(&str, &str, &str, &str, &str, &str, bool)> = Vec::new();
    for id in abbe::facade::schemes().filter(|s| s.is_abe() && !s.is_insecure()) {
        let info = abbe::facade::scheme(id, abbe::curve::CurveId::Bn254)
            .unwrap()
            .info();
        // A small universe is A1..An (the default setup).
        let (attrs, policy, bad_attrs, bad_policy) = match info.params {
            ParamsKind::Universe => ("A1, A2, A3", "A1 and A2", "A4", "A4"),
            // A negation too: every scheme takes `!=` (tkn20 as one row).
            _ => (
                "doctor, age = 42",
                "doctor and age >= 30 and not (age = 41)",
                "nurse",
                "nurse or age < 18",
            ),
        };
        let (a, pol) = ("--attrs", "--policy");
        cases.push(match id.family() {
            Family::CpAbe => (
                id.name(),
                a,
                attrs,
                pol,
                policy,
                bad_attrs,
                info.outsourcing,
            ),
            Family::KpAbe => (
                id.name(),
                pol,
                policy,
                a,
                attrs,
                bad_policy,
                info.outsourcing,
            ),
            _ => continue,
        });
    }
    assert!(cases.len() >= 6, "{cases:?}");
    for &(scheme, kflag, kside, cflag, cside, bad, outsourcing) in &cases {
        for curve in ["bls12-381", "bn254"] {
            let dir = tempfile::tempdir().unwrap();
            let d = |n: &str| dir.path().join(n);
            assert_ok(&run(&[
                "setup",
                "--scheme",
                scheme,
                "--curve",
                curve,
                "--out",
                p(&d("k")),
            ]));
            let (mk, pk) = (d("k/master.key"), d("k/public.key"));
            assert_ok(&run(&[
                "keygen",
                "--master",
                p(&mk),
                kflag,
                kside,
                "-o",
                p(&d("good.key")),
            ]));
            assert_ok(&run(&[
                "keygen",
                "--master",
                p(&mk),
                kflag,
                bad,
                "-o",
                p(&d("bad.key")),
            ]));
            fs::write(d("m"), b"per scheme").unwrap();
            assert_ok(&run(&[
                "encrypt",
                "--public",
                p(&pk),
                cflag,
                cside,
                "-o",
                p(&d("m.abbe")),
                p(&d("m")),
            ]));
            assert_ok(&run(&[
                "decrypt",
                "--key",
                p(&d("good.key")),
                "-o",
                p(&d("m.out")),
                p(&d("m.abbe")),
            ]));
            assert_eq!(
                fs::read(d("m.out")).unwrap(),
                b"per scheme",
                "{scheme} {curve}"
            );
            let r = expect_failure(
                &[
                    "decrypt",
                    "--key",
                    p(&d("bad.key")),
                    "-o",
                    p(&d("x")),
                    p(&d("m.abbe")),
                ],
                &d("x"),
                2,
            );
            assert!(r.stderr.contains("does not satisfy"), "{}", r.stderr);
            // The wrong side: the key side's flag given to encrypt.
            let r = run(&[
                "encrypt",
                "--public",
                p(&pk),
                kflag,
                kside,
                "-o",
                p(&d("y")),
                p(&d("m")),
            ]);
            assert_eq!(r.code, Some(1), "{scheme}: {}", r.stderr);
            assert!(
                r.stderr.contains(&format!("abbe keygen {kflag}")),
                "{}",
                r.stderr
            );
            assert!(!d("y").exists());
            // Outsourcing.
            let r = run(&[
                "transform-key",
                "--key",
                p(&d("good.key")),
                "--tk",
                p(&d("t.tk")),
                "--rk",
                p(&d("t.rk")),
            ]);
            if outsourcing {
                assert_ok(&r);
                assert_ok(&run(&[
                    "encrypt",
                    "--mode",
                    "rcca",
                    "--public",
                    p(&pk),
                    cflag,
                    cside,
                    "-o",
                    p(&d("o.abbe")),
                    p(&d("m")),
                ]));
                assert_ok(&run(&[
                    "transform",
                    "--tk",
                    p(&d("t.tk")),
                    "-o",
                    p(&d("o.t")),
                    p(&d("o.abbe")),
                ]));
                assert_ok(&run(&[
                    "decrypt",
                    "--key",
                    p(&d("t.rk")),
                    "--original",
                    p(&d("o.abbe")),
                    "-o",
                    p(&d("o.out")),
                    p(&d("o.t")),
                ]));
                assert_eq!(fs::read(d("o.out")).unwrap(), b"per scheme");
            } else {
                assert_eq!(r.code, Some(1));
                assert!(
                    r.stderr.contains("does not support outsourced decryption"),
                    "{}",
                    r.stderr
                );
            }
        }
    }
}

/// `abbe schemes` prints a line per scheme of the build under its name,
/// with its family, levels, setup parameters and what it is; an unknown
/// `--scheme` is answered with the names of the build and a pointer to it.
#[test]
fn schemes_lists_every_scheme_of_the_build() {
    let r = run(&["schemes"]);
    assert_ok(&r);
    let out = String::from_utf8(r.stdout).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("SCHEME"), "{out}");
    let line = |name: &str| {
        *lines
            .iter()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no line for {name}: {out}"))
    };
    for id in abbe::facade::schemes().filter(|s| !s.is_insecure()) {
        let l = line(id.name());
        assert!(
            l.contains(id.family().label()) && l.contains(id.what()),
            "{l}"
        );
    }
    let waters11 = line("waters11");
    assert!(
        waters11.contains("100,128,192,256") && waters11.contains("outsourcing"),
        "{waters11}"
    );
    assert!(
        waters11.contains("decrypt: standard, encrypt: swapped"),
        "{waters11}"
    );
    let zha20 = line("zha20");
    assert!(
        zha20.contains("--users --expansion") && zha20.contains("tracing"),
        "{zha20}"
    );
    assert!(line("elgamal-p256").contains(" 128 "), "{out}");
    // Not KEMs of this build: the signature scheme, and broken ones.
    assert!(out.contains("bls-sig"), "{out}");
    for id in abbe::wire::SchemeId::ALL
        .into_iter()
        .filter(|s| s.is_insecure())
    {
        let l = line(id.name());
        if cfg!(feature = "insecure-benchmark-only") {
            assert!(l.contains("BROKEN"), "{l}");
        } else {
            assert!(l.contains("insecure-benchmark-only"), "{l}");
        }
    }
    let r = run(&["setup", "--scheme", "waters", "--out", "never"]);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(
        r.stderr.contains("waters11, bsw07")
            && r.stderr.contains("zha20")
            && r.stderr.contains("`abbe schemes`"),
        "{}",
        r.stderr
    );
}

/// The schemes of the table whose ciphertexts are made for `side`, each
/// with a curve to run on (BN254 and BLS12-381 in turn; the first on
/// both; the curve is ignored where the scheme has one curve of its own).
fn schemes_for(side: abbe::kem::SideKind) -> Vec<(&'static str, &'static str)> {
    let mut out = Vec::new();
    let ids = abbe::facade::schemes().filter(|s| !s.is_insecure());
    for id in ids {
        let curve = abbe::facade::curves(id).next().unwrap();
        let info = abbe::facade::scheme(id, curve).unwrap().info();
        if info.ciphertext_side != side {
            continue;
        }
        if out.is_empty() {
            out.push((id.name(), "bls12-381"));
        }
        out.push((id.name(), ["bn254", "bls12-381"][out.len() % 2]));
    }
    out
}

/// Every scheme of the table runs end to end through the CLI: attribute-
/// based ones in `every_scheme_end_to_end`, broadcast ones to sets of users
/// or identities below, and those that encrypt to everyone (traitor
/// tracing) in tests/trace.rs.
#[test]
fn every_scheme_has_an_end_to_end_test() {
    use abbe::kem::SideKind;
    for id in abbe::facade::schemes().filter(|s| !s.is_insecure()) {
        let curve = abbe::facade::curves(id).next().unwrap();
        let info = abbe::facade::scheme(id, curve).unwrap().info();
        let side = info.ciphertext_side;
        let covered = match side {
            SideKind::Policy | SideKind::Attributes => true,
            SideKind::Users | SideKind::Identities => {
                schemes_for(side).iter().any(|(s, _)| *s == id.name())
            }
            SideKind::Everyone => {
                let trace = include_str!("trace.rs");
                trace.contains(&format!("Setup::of(\"{}\"", id.name()))
            }
            SideKind::User | SideKind::Identity => false,
        };
        assert!(
            covered,
            "{} has no end-to-end test through the CLI",
            id.name()
        );
    }
}

/// Broadcast encryption through the CLI: setup for N users, keys for user
/// indices, encryption to ranges and to a file of indices, refusal outside S.
#[test]
fn broadcast_schemes_end_to_end() {
    for (scheme, curve) in schemes_for(abbe::kem::SideKind::Users) {
        let dir = tempfile::tempdir().unwrap();
        let d = |n: &str| dir.path().join(n);
        assert_ok(&run(&[
            "setup",
            "--scheme",
            scheme,
            "--curve",
            curve,
            "--users",
            "50",
            "--out",
            p(&d("k")),
        ]));
        let mk = d("k/master.key");
        assert_ok(&run(&[
            "keygen",
            "--master",
            p(&mk),
            "--user",
            "7",
            "-o",
            p(&d("u7.key")),
        ]));
        assert_ok(&run(&[
            "keygen",
            "--master",
            p(&mk),
            "--user",
            "40",
            "-o",
            p(&d("u40.key")),
        ]));
        fs::write(d("m"), b"to some users").unwrap();
        assert_ok(&run(&[
            "encrypt",
            "--public",
            p(&d("k/public.key")),
            "--to",
            "1-10,20",
            "-o",
            p(&d("m.abbe")),
            p(&d("m")),
        ]));
        assert_ok(&run(&[
            "decrypt",
            "--key",
            p(&d("u7.key")),
            "--public",
            p(&d("k/public.key")),
            "-o",
            p(&d("m.out")),
            p(&d("m.abbe")),
        ]));
        assert_eq!(fs::read(d("m.out")).unwrap(), b"to some users", "{scheme}");
        expect_failure(
            &[
                "decrypt",
                "--key",
                p(&d("u40.key")),
                "--public",
                p(&d("k/public.key")),
                "-o",
                p(&d("x")),
                p(&d("m.abbe")),
            ],
            &d("x"),
            2,
        );
        // A file of indices.
        fs::write(d("to.txt"), "3\n40 41-45\n").unwrap();
        assert_ok(&run(&[
            "encrypt",
            "--public",
            p(&d("k/public.key")),
            "--to-file",
            p(&d("to.txt")),
            "-o",
            p(&d("f.abbe")),
            p(&d("m")),
        ]));
        assert_ok(&run(&[
            "decrypt",
            "--key",
            p(&d("u40.key")),
            "--public",
            p(&d("k/public.key")),
            "-o",
            p(&d("f.out")),
            p(&d("f.abbe")),
        ]));
        expect_failure(
            &[
                "decrypt",
                "--key",
                p(&d("u7.key")),
                "--public",
                p(&d("k/public.key")),
                "-o",
                p(&d("y")),
                p(&d("f.abbe")),
            ],
            &d("y"),
            2,
        );
        // Out-of-range recipients are invalid input.
        let r = run(&[
            "encrypt",
            "--public",
            p(&d("k/public.key")),
            "--to",
            "1-51",
            "-o",
            p(&d("z")),
            p(&d("m")),
        ]);
        assert_eq!(r.code, Some(3), "{scheme}: {}", r.stderr);
    }
}

/// Identity-based broadcast through the CLI: setup for ℓ recipients, keys
/// for identities, encryption to identities given inline and in a file,
/// refusal of non-members, of sets over ℓ and of keys without a public key.
#[test]
fn identity_based_broadcast_end_to_end() {
    for (scheme, curve) in schemes_for(abbe::kem::SideKind::Identities) {
        let dir = tempfile::tempdir().unwrap();
        let d = |n: &str| dir.path().join(n);
        let pk = d("k/public.key");
        let (ek, ak, x, mabbe, fout, fabbe) = (
            d("e.key"),
            d("a.key"),
            d("x"),
            d("m.abbe"),
            d("f.out"),
            d("f.abbe"),
        );
        assert_ok(&run(&[
            "setup",
            "--scheme",
            scheme,
            "--curve",
            curve,
            "--max-recipients",
            "4",
            "--out",
            p(&d("k")),
        ]));
        for (who, file) in [
            ("alice@example.com", "a.key"),
            ("Bob Ünïcode", "b.key"),
            ("eve", "e.key"),
        ] {
            assert_ok(&run(&[
                "keygen",
                "--master",
                p(&d("k/master.key")),
                "--identity",
                who,
                "-o",
                p(&d(file)),
            ]));
        }
        fs::write(d("m"), b"to some identities").unwrap();
        assert_ok(&run(&[
            "encrypt",
            "--public",
            p(&pk),
            "--to-identities",
            "Bob Ünïcode, alice@example.com",
            "-o",
            p(&mabbe),
            p(&d("m")),
        ]));
        let info = inspect(&d("m.abbe"));
        assert!(info.contains("Bob Ünïcode, alice@example.com"), "{info}");
        for key in ["a.key", "b.key"] {
            assert_ok(&run(&[
                "decrypt",
                "--key",
                p(&d(key)),
                "--public",
                p(&pk),
                "-o",
                p(&d(&format!("m.{key}.out"))),
                p(&mabbe),
            ]));
            assert_eq!(
                fs::read(d(&format!("m.{key}.out"))).unwrap(),
                b"to some identities",
                "{scheme}"
            );
        }
        let no = [
            "decrypt",
            "--key",
            p(&ek),
            "--public",
            p(&pk),
            "-o",
            p(&x),
            p(&mabbe),
        ];
        expect_failure(&no, &x, 2);
        // Without the public key a key cannot decrypt.
        let r = run(&["decrypt", "--key", p(&ak), "-o", p(&x), p(&mabbe)]);
        assert_ne!(r.code, Some(0), "{scheme}");
        // One identity per line in a file.
        fs::write(d("to.txt"), "eve\n\nalice@example.com\n").unwrap();
        assert_ok(&run(&[
            "encrypt",
            "--public",
            p(&pk),
            "--to-file",
            p(&d("to.txt")),
            "-o",
            p(&fabbe),
            p(&d("m")),
        ]));
        let yes = [
            "decrypt",
            "--key",
            p(&ek),
            "--public",
            p(&pk),
            "-o",
            p(&fout),
            p(&fabbe),
        ];
        assert_ok(&run(&yes));
        // More than ℓ recipients is invalid input; user indices are not
        // identities' flag.
        let r = run(&[
            "encrypt",
            "--public",
            p(&pk),
            "--to-identities",
            "a, b, c, d, e",
            "-o",
            p(&d("z")),
            p(&d("m")),
        ]);
        assert_eq!(r.code, Some(3), "{scheme}: {}", r.stderr);
        let r = run(&["encrypt", "--public", p(&pk), "-o", p(&d("z")), p(&d("m"))]);
        assert!(r.stderr.contains("--to-identities"), "{}", r.stderr);
    }
}

/// At 10^4 users BGW05's public key (and the user key bundle that carries
/// it) is over 1 MiB: keys made from the stored public key (`keygen
/// --public`, no O(N) recomputation) and from the master key alone both
/// decrypt; a public key of another setup is refused.
#[test]
fn broadcast_keygen_from_a_stored_public_key() {
    for scheme in ["bgw05", "gw09"] {
        let dir = tempfile::tempdir().unwrap();
        let d = |n: &str| dir.path().join(n);
        for (out, users) in [("k", "10000"), ("other", "10000")] {
            assert_ok(&run(&[
                "setup",
                "--scheme",
                scheme,
                "--curve",
                "bn254",
                "--users",
                users,
                "--out",
                p(&d(out)),
            ]));
        }
        let mk = d("k/master.key");
        let pk = d("k/public.key");
        assert_ok(&run(&[
            "keygen",
            "--master",
            p(&mk),
            "--public",
            p(&pk),
            "--user",
            "9999",
            "-o",
            p(&d("fast.key")),
        ]));
        assert_ok(&run(&[
            "keygen",
            "--master",
            p(&mk),
            "--user",
            "9999",
            "-o",
            p(&d("slow.key")),
        ]));
        fs::write(d("m"), b"ten thousand users").unwrap();
        assert_ok(&run(&[
            "encrypt",
            "--public",
            p(&pk),
            "--to",
            "9000-10000",
            "-o",
            p(&d("m.abbe")),
            p(&d("m")),
        ]));
        for key in ["fast.key", "slow.key"] {
            let out = d(&format!("{key}.out"));
            assert_ok(&run(&[
                "decrypt",
                "--key",
                p(&d(key)),
                "--public",
                p(&pk),
                "-o",
                p(&out),
                p(&d("m.abbe")),
            ]));
            assert_eq!(
                fs::read(out).unwrap(),
                b"ten thousand users",
                "{scheme} {key}"
            );
            // Without the public key, or with another setup's: refused.
            let (k, x, m, other) = (d(key), d("x"), d("m.abbe"), d("other/public.key"));
            for public in [None, Some(&other)] {
                let mut args = vec!["decrypt", "--key", p(&k), "-o", p(&x)];
                if let Some(o) = public {
                    args.extend(["--public", p(o)]);
                }
                args.push(p(&m));
                let r = run(&args);
                assert_eq!(r.code, Some(3), "{}", r.stderr);
                assert!(r.stderr.contains("public key"), "{}", r.stderr);
                assert!(!d("x").exists());
            }
        }
        // The key files are small: no public key inside (BGW05: one G1
        // element and a header).
        if scheme == "bgw05" {
            assert!(fs::metadata(d("fast.key")).unwrap().len() < 200);
        }
        let r = run(&[
            "keygen",
            "--master",
            p(&mk),
            "--public",
            p(&d("other/public.key")),
            "--user",
            "1",
            "-o",
            p(&d("bad.key")),
        ]);
        assert_eq!(r.code, Some(3), "{}", r.stderr);
        assert!(
            r.stderr.contains("not the public key of this master key"),
            "{}",
            r.stderr
        );
        assert!(!d("bad.key").exists());
    }
}

/// Key expiry end to end, CP and KP: a key past its last day cannot open a
/// file dated after it (exit 2, saying so), opens the files dated up to
/// it, and `--no-expiry` files open for every key; a key without a last
/// day opens everything; the reserved names and a date on a scheme
/// without dates are refused.
#[test]
fn expired_keys_refuse_newer_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = |n: &str| dir.path().join(n);
    let plain = d("plain");
    fs::write(&plain, b"dated").unwrap();
    for (scheme, side, target) in [
        ("waters11", "--attrs", "--policy"),
        ("fabeo-kp", "--policy", "--attrs"),
    ] {
        let keys = d(scheme);
        assert_ok(&run(&["setup", "--scheme", scheme, "--out", p(&keys)]));
        let master = keys.join("master.key");
        let public = keys.join("public.key");
        let key = |name: &str, until: Option<&str>| {
            let out = d(&format!("{scheme}-{name}.key"));
            let mut args = vec![
                "keygen",
                "--master",
                p(&master),
                side,
                "doctor",
                "-o",
                p(&out),
            ];
            if let Some(u) = until {
                args.extend(["--valid-until", u]);
            }
            assert_ok(&run(&args));
            out
        };
        let (expired, valid, never) = (
            key("expired", Some("2026-01-31")),
            key("valid", Some("2149-06-06")),
            key("never", None),
        );
        let file = |name: &str, extra: &[&str]| {
            let out = d(&format!("{scheme}-{name}.abbe"));
            let mut args = vec![
                "encrypt",
                "--public",
                p(&public),
                target,
                "doctor",
                "-o",
                p(&out),
            ];
            args.extend(extra);
            args.push(p(&plain));
            assert_ok(&run(&args));
            out
        };
        let today = file("today", &[]);
        let last_day = file("last-day", &["--as-of", "2026-01-31"]);
        let undated = file("undated", &["--no-expiry"]);
        let opens = |k: &Path, f: &Path| {
            let r = run(&["decrypt", "--key", p(k), p(f)]);
            if r.code == Some(0) {
                assert_eq!(r.stdout, b"dated");
            }
            r
        };
        let r = opens(&expired, &today);
        assert_fails(&r, 2);
        assert!(
            r.stderr
                .contains("your key expired: its last day was 2026-01-31"),
            "{scheme}: {}",
            r.stderr
        );
        for (k, f) in [
            (&expired, &last_day),
            (&expired, &undated),
            (&valid, &today),
            (&valid, &undated),
            (&never, &today),
            (&never, &last_day),
            (&never, &undated),
        ] {
            assert_ok(&opens(k, f));
        }
        let reserved = run(&[
            "keygen",
            "--master",
            p(&master),
            side,
            "abbe:no-expiry",
            "-o",
            p(&d("x.key")),
        ]);
        assert_fails(&reserved, 3);
        assert!(
            reserved.stderr.contains("reserved for key expiry"),
            "{}",
            reserved.stderr
        );
        let both = run(&[
            "encrypt",
            "--public",
            p(&public),
            target,
            "doctor",
            "--no-expiry",
            "--as-of",
            "2026-01-01",
            p(&plain),
        ]);
        assert_ne!(both.code, Some(0));
        let bad_date = run(&[
            "keygen",
            "--master",
            p(&master),
            side,
            "doctor",
            "--valid-until",
            "2026-02-30",
            "-o",
            p(&d("y.key")),
        ]);
        assert_fails(&bad_date, 3);
        assert!(
            bad_date.stderr.contains("YYYY-MM-DD"),
            "{}",
            bad_date.stderr
        );
    }
    let small = d("small");
    assert_ok(&run(&[
        "setup",
        "--scheme",
        "gpsw06-small",
        "--universe",
        "doctor",
        "--out",
        p(&small),
    ]));
    let r = run(&[
        "keygen",
        "--master",
        p(&small.join("master.key")),
        "--policy",
        "doctor",
        "--valid-until",
        "2030-01-01",
        "-o",
        p(&d("s.key")),
    ]);
    assert_fails(&r, 1);
    assert!(r.stderr.contains("cannot expire"), "{}", r.stderr);
}
