//! Hostile inputs through the real binary: policies whose work is far above
//! their size, objects offered in a mode they were not made for, the broken
//! YCT14 without its flag, and broadcast keys of any size.
//!
//! `cargo test --release -p abbe-cli --test hardening -- --nocapture`
//! prints the peak RSS and time of each hostile decryption beside an honest
//! one of the same byte size.

mod common;
use abbe::abe::Universe;
use abbe::kem::Authority;
use abbe::kem::MasterKeyOf;
use common::*;

use abbe::abe::cca::CcaHeader;
use abbe::abe::fabeo::{FabeoCp, FabeoKp};
use abbe::abe::{Bsw07, Cca, FameCp, FameKp, Gpsw06, Gpsw06Small, Tkn20, Waters11};
use abbe::curve::Bn254;
use abbe::envelope;
use abbe::kem::Kem;
use abbe::policy::{AttributeSet, Policy};
use abbe::wire::Encoded;
use rand_core::OsRng;
use std::fs;
use std::time::Instant;

/// Peak RSS allowed for refusing or decrypting a hostile file.
const MAX_RSS_KIB: u64 = 64 * 1024;

/// `doctor or 4094 of (x0, …, x4094)`: 4096 leaves, the most a policy may
/// have; a ~420 KB Waters11 header whose LSSS matrix has 16.8 million
/// non-zero entries.
fn hostile_policy() -> String {
    let xs: Vec<String> = (0..4095).map(|i| format!("x{i}")).collect();
    format!("doctor or 4094 of ({})", xs.join(", "))
}

/// `doctor or x0 or … or x4094`: the honest policy of the same leaves.
fn flat_or() -> String {
    let mut p = String::from("doctor");
    for i in 0..4095 {
        p.push_str(&format!(" or x{i}"));
    }
    p
}

/// Rewrites an object that ends in `u32 count ‖ rows` (an ABE header, or a
/// KP-ABE key) made for `small` ("doctor or x0", 2 rows), so that it
/// carries `policy` and `leaves` copies of its last row: what an attacker
/// sends without doing the work an honest encryptor would. `row` is the
/// encoded size of one row.
fn forge(obj: &[u8], small: &str, policy: &str, leaves: usize, row: usize) -> Vec<u8> {
    let mut needle = (small.len() as u32).to_be_bytes().to_vec();
    needle.extend_from_slice(small.as_bytes());
    let at = obj
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("the policy text is in the object");
    let rows_at = obj.len() - 2 * row;
    let mut out = obj[..at].to_vec();
    out.extend_from_slice(&(policy.len() as u32).to_be_bytes());
    out.extend_from_slice(policy.as_bytes());
    out.extend_from_slice(&obj[at + needle.len()..rows_at - 4]);
    out.extend_from_slice(&(leaves as u32).to_be_bytes());
    for _ in 0..leaves {
        out.extend_from_slice(&obj[obj.len() - row..]);
    }
    out
}

/// The encoded size of one row: the objects made for `a` (2 rows) and `b`
/// (3 rows) differ by one row and by their policy texts.
fn row_size(a: &[u8], b: &[u8], pa: &str, pb: &str) -> usize {
    b.len() - a.len() - (pb.len() - pa.len())
}

/// Writes a CCA file around `inner` (the scheme's header bytes), as `abbe
/// encrypt` would; its payload key is of no use to anyone.
fn write_file<K: Kem>(t: &T, name: &str, honest: &CcaHeader<K>, inner: &[u8]) {
    let honest = honest.to_bytes();
    let old_len = u32::from_be_bytes(honest[8..12].try_into().unwrap()) as usize;
    let mut header = honest[..8].to_vec();
    header.extend_from_slice(&(inner.len() as u32).to_be_bytes());
    header.extend_from_slice(inner);
    header.extend_from_slice(&honest[12 + old_len..]);
    let mut out = Vec::new();
    let session = abbe::kem::SessionKey::from_bytes([7; 32]);
    envelope::seal(&header, &session, &mut OsRng, &b"payload"[..], &mut out).unwrap();
    fs::write(t.path(name), out).unwrap();
}

const SMALL: &str = "doctor or x0";
const SMALL3: &str = "doctor or x0 or x1";

/// A CP-ABE scheme: a key for {doctor} and a forged hostile header.
fn cp_case<K>(t: &T, scheme: &str)
where
    K: Kem<KeySide = AttributeSet, CiphertextSide = Policy>,
{
    let (pk, mk) = abbe::kem::setup::<K>(&Default::default(), &mut OsRng).unwrap();
    let key = abbe::kem::keygen::<Cca<K>>(
        &pk,
        &mk,
        &AttributeSet::parse("doctor").unwrap(),
        &mut OsRng,
    )
    .unwrap();
    fs::write(t.path(&format!("{scheme}.key")), key.to_bytes()).unwrap();
    let (_, h2) = Cca::<K>::encapsulate(&pk, &Policy::parse(SMALL).unwrap(), &mut OsRng).unwrap();
    let (_, h3) = Cca::<K>::encapsulate(&pk, &Policy::parse(SMALL3).unwrap(), &mut OsRng).unwrap();
    let (a, b) = (h2.inner.to_bytes(), h3.inner.to_bytes());
    let row = row_size(&a, &b, SMALL, SMALL3);
    let forged = forge(&a, SMALL, &hostile_policy(), 4096, row);
    write_file(t, &format!("{scheme}.hostile"), &h2, &forged);
}

/// A KP-ABE scheme: a forged hostile key bundle (the policy is in the key)
/// and an honest file for {doctor}.
fn kp_case<K>(t: &T, scheme: &str, pk: K::PublicKey, mk: MasterKeyOf<K>)
where
    K: Kem<KeySide = Policy, CiphertextSide = AttributeSet>,
{
    let k2 =
        abbe::kem::keygen::<Cca<K>>(&pk, &mk, &Policy::parse(SMALL).unwrap(), &mut OsRng).unwrap();
    let k3 =
        abbe::kem::keygen::<Cca<K>>(&pk, &mk, &Policy::parse(SMALL3).unwrap(), &mut OsRng).unwrap();
    let (a, b) = (k2.key.to_bytes(), k3.key.to_bytes());
    let row = row_size(&a, &b, SMALL, SMALL3);
    let forged = forge(&a, SMALL, &hostile_policy(), 4096, row);
    let pk_bytes = pk.to_bytes();
    let mut bundle = k2.to_bytes()[..8].to_vec();
    bundle.extend_from_slice(&(forged.len() as u32).to_be_bytes());
    bundle.extend_from_slice(&forged);
    bundle.extend_from_slice(&(pk_bytes.len() as u32).to_be_bytes());
    bundle.extend_from_slice(&pk_bytes);
    fs::write(t.path(&format!("{scheme}.key")), bundle).unwrap();
    let (session, h) =
        Cca::<K>::encapsulate(&pk, &AttributeSet::parse("doctor").unwrap(), &mut OsRng).unwrap();
    let mut out = Vec::new();
    envelope::seal(&h.to_bytes(), &session, &mut OsRng, &b"x"[..], &mut out).unwrap();
    fs::write(t.path(&format!("{scheme}.hostile")), out).unwrap();
}

/// A level-100 Waters11 setup in `w/` and a key for {doctor} in `key`.
fn waters11_doctor(t: &T, key: &str) {
    t.ok(
        None,
        &[
            "setup", "--scheme", "waters11", "--level", "100", "--out", "w",
        ],
    );
    t.ok(
        None,
        &[
            "keygen",
            "--master",
            "w/master.key",
            "--attrs",
            "doctor",
            "-o",
            key,
        ],
    );
}

/// Every ABE scheme refuses a policy beyond the work budget — in the
/// header (CP) or in the key (KP) — before any group operation: exit 3, a
/// message naming the budget, no output, and bounded memory.
#[test]
fn hostile_thresholds_are_refused_by_the_work_budget() {
    // The attacker's side (this process) is not bound by the budget.
    abbe::policy::limits::set_max_policy_work(u64::MAX);
    let t = T::new();
    cp_case::<Waters11<Bn254>>(&t, "waters11");
    cp_case::<Bsw07<Bn254>>(&t, "bsw07");
    cp_case::<FameCp<Bn254>>(&t, "fame-cp");
    let (pk, mk) = Gpsw06::<Bn254>::setup(&Default::default(), &mut OsRng).unwrap();
    kp_case::<Gpsw06<Bn254>>(&t, "gpsw06", pk, mk);
    let (pk, mk) = FameKp::<Bn254>::setup(&Default::default(), &mut OsRng).unwrap();
    kp_case::<FameKp<Bn254>>(&t, "fame-kp", pk, mk);
    let mut universe: Vec<String> = (0..4095).map(|i| format!("x{i}")).collect();
    universe.push("doctor".into());
    let (pk, mk) =
        Gpsw06Small::<Bn254>::setup(&Universe::from_iter(&universe), &mut OsRng).unwrap();
    kp_case::<Gpsw06Small<Bn254>>(&t, "gpsw06-small", pk, mk);
    cp_case::<FabeoCp<Bn254>>(&t, "fabeo-cp");
    cp_case::<Tkn20<Bn254>>(&t, "tkn20");
    let (pk, mk) = FabeoKp::<Bn254>::setup(&Default::default(), &mut OsRng).unwrap();
    kp_case::<FabeoKp<Bn254>>(&t, "fabeo-kp", pk, mk);

    let schemes = [
        "waters11",
        "bsw07",
        "fame-cp",
        "gpsw06",
        "gpsw06-small",
        "fame-kp",
        "fabeo-cp",
        "fabeo-kp",
        "tkn20",
    ];
    // Every ABE scheme of the table is here: a new one fails until it is.
    let mut table: Vec<&str> = abbe::facade::schemes()
        .filter(|s| s.is_abe() && !s.is_insecure())
        .map(|s| s.name())
        .collect();
    let mut covered = schemes.to_vec();
    table.sort_unstable();
    covered.sort_unstable();
    assert_eq!(
        covered, table,
        "the hostile-policy cases and the ABE schemes"
    );
    for scheme in schemes {
        let (key, file) = (format!("{scheme}.key"), format!("{scheme}.hostile"));
        let started = Instant::now();
        let (r, kib) = t.run_measured(&["decrypt", "--key", &key, "-o", "out", &file]);
        eprintln!(
            "{scheme}: hostile {} bytes refused in {:?}, peak RSS {kib} KiB",
            fs::metadata(t.path(&file)).unwrap().len(),
            started.elapsed()
        );
        assert_fails(&r, 3);
        assert!(
            r.stderr.contains("work budget of 32768") && r.stderr.contains("16764931"),
            "{scheme}: {}",
            r.stderr
        );
        assert!(kib < MAX_RSS_KIB, "{scheme}: peak RSS {kib} KiB");
        assert_no_output(&t, "out");
    }
    // Encrypting to such a policy is refused too, before any work.
    t.ok(
        None,
        &[
            "setup", "--scheme", "waters11", "--level", "100", "--out", "w",
        ],
    );
    let policy = hostile_policy();
    let r = t.run_with(
        None,
        &[
            "encrypt",
            "--public",
            "w/public.key",
            "--policy",
            &policy,
            "-o",
            "c",
        ],
        Some(b"x".to_vec()),
    );
    assert_fails(&r, 3);
    assert!(r.stderr.contains("--max-policy-work"), "{}", r.stderr);
    assert_no_output(&t, "c");
}

/// Below the budget, or with it raised, the same hostile shape costs what
/// an honest flat OR of the same size costs: decryption works on the tree
/// (no n·k matrix), so memory stays flat.
#[test]
fn a_big_threshold_decrypts_in_bounded_memory_when_the_budget_allows_it() {
    let t = T::new();
    waters11_doctor(&t, "doctor.key");
    let budget = "20000000";
    for (name, policy) in [("or", flat_or()), ("threshold", hostile_policy())] {
        let started = Instant::now();
        let r = t.run_with(
            None,
            &[
                "--max-policy-work",
                budget,
                "encrypt",
                "--public",
                "w/public.key",
                "--policy",
                &policy,
                // At the leaf limit: no room for the expiry condition.
                "--no-expiry",
                "-o",
                name,
            ],
            Some(data(1000)),
        );
        assert_eq!(r.code, Some(0), "{}", r.stderr);
        let encrypt = started.elapsed();
        let started = Instant::now();
        let args = [
            "--max-policy-work",
            budget,
            "decrypt",
            "--key",
            "doctor.key",
            "-o",
            &format!("{name}.out"),
            name,
        ];
        let (r, kib) = t.run_measured(&args);
        assert_eq!(r.code, Some(0), "{}", r.stderr);
        eprintln!(
            "waters11 {name}: {} bytes, encrypt {encrypt:?}, CCA decrypt {:?}, peak RSS {kib} KiB",
            fs::metadata(t.path(name)).unwrap().len(),
            started.elapsed()
        );
        assert_eq!(t.read(&format!("{name}.out")), data(1000));
        assert!(kib < MAX_RSS_KIB, "{name}: peak RSS {kib} KiB");
    }
}

/// A key is accepted only in the mode it was made for: a CCA key bundle
/// refuses CPA (malleable) files and an RCCA retrieval key refuses CPA
/// transformations, unless `--allow-cpa`; a transformed file must be of the
/// ciphertext the user names with `--expect-header`.
#[test]
fn modes_cannot_be_swapped() {
    let t = T::new();
    waters11_doctor(&t, "alice.key");
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
        ],
    );
    fs::write(t.path("msg"), b"what the owner wrote").unwrap();
    fs::write(t.path("evil"), b"what an attacker chose").unwrap();
    let enc = |mode: &str, input: &str, out: &str| {
        t.ok(
            None,
            &[
                "encrypt",
                "--public",
                "w/public.key",
                "--policy",
                "doctor",
                "--mode",
                mode,
                "-o",
                out,
                input,
            ],
        );
    };
    // The attacker encrypts in CPA mode: the victim's decryptor refuses it.
    enc("cpa", "evil", "evil.cpa");
    let e = t.fails(
        None,
        &["decrypt", "--key", "alice.key", "-o", "out", "evil.cpa"],
        3,
    );
    assert!(e.contains("--allow-cpa"), "{e}");
    assert_no_output(&t, "out");
    t.ok(
        None,
        &[
            "decrypt",
            "--allow-cpa",
            "--key",
            "alice.key",
            "-o",
            "out",
            "evil.cpa",
        ],
    );
    assert_eq!(t.read("out"), b"what an attacker chose");
    fs::remove_file(t.path("out")).unwrap();
    // ... and its CPA transformation: the retrieval key refuses it.
    t.ok(
        None,
        &["transform", "--tk", "alice.tk", "-o", "evil.t", "evil.cpa"],
    );
    let e = t.fails(
        None,
        &["decrypt", "--key", "alice.rk", "-o", "out", "evil.t"],
        3,
    );
    assert!(e.contains("--allow-cpa"), "{e}");
    assert_no_output(&t, "out");

    // RCCA: a proxy handing back whole transformed files can substitute a
    // ciphertext it made; --expect-header (the id inspect prints) refuses it.
    enc("rcca", "msg", "msg.rcca");
    enc("rcca", "evil", "evil.rcca");
    t.ok(
        None,
        &["transform", "--tk", "alice.tk", "-o", "msg.t", "msg.rcca"],
    );
    t.ok(
        None,
        &[
            "transform",
            "--tk",
            "alice.tk",
            "-o",
            "evil.t2",
            "evil.rcca",
        ],
    );
    let id_of = |file: &str| {
        let text = String::from_utf8(t.ok(None, &["inspect", "--json", file])).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v["header_id"]
            .as_str()
            .unwrap_or_else(|| panic!("no header id in {text}"))
            .to_string()
    };
    let id = id_of("msg.rcca");
    assert_eq!(id.len(), 64);
    assert_eq!(id_of("msg.t"), id, "the transformation keeps the header id");
    assert_ne!(id_of("evil.t2"), id);
    // Without naming the original, a transformed file is not decrypted:
    // the proxy's substitute would otherwise pass (issue 34, point 6).
    for file in ["msg.t", "evil.t2"] {
        let e = t.fails(
            None,
            &["decrypt", "--key", "alice.rk", "-o", "out", file],
            3,
        );
        assert!(e.contains("which ciphertext"), "{e}");
        assert_no_output(&t, "out");
    }
    // Each way of naming the original: (key, how, file, the plaintext or
    // the exit code and what the error says).
    type Outcome<'a> = Result<&'a [u8], (i32, &'a str)>;
    let owner: Outcome = Ok(b"what the owner wrote");
    let cases: [(&str, &[&str], &str, Outcome); 7] = [
        // --original reads the id from the original file.
        (
            "alice.rk",
            &["--original", "msg.rcca"],
            "evil.t2",
            Err((3, "header id")),
        ),
        ("alice.rk", &["--original", "msg.rcca"], "msg.t", owner),
        (
            "alice.rk",
            &["--expect-header", &id],
            "evil.t2",
            Err((3, "header id")),
        ),
        ("alice.rk", &["--expect-header", &id], "msg.t", owner),
        // The id also checks the original file, and a malformed id is a usage error.
        (
            "alice.key",
            &["--expect-header", &id],
            "evil.rcca",
            Err((3, "--expect-header")),
        ),
        (
            "alice.rk",
            &["--expect-header", "12ab"],
            "msg.t",
            Err((1, "64 hex digits")),
        ),
        // Waived explicitly, whatever the proxy chose is decrypted.
        (
            "alice.rk",
            &["--any-original"],
            "evil.t2",
            Ok(b"what an attacker chose"),
        ),
    ];
    for (key, how, file, outcome) in cases {
        let mut args = vec!["decrypt", "--key", key];
        args.extend_from_slice(how);
        args.extend(["-o", "out", file]);
        match outcome {
            Ok(plain) => {
                t.ok(None, &args);
                assert_eq!(t.read("out"), plain, "{args:?}");
                fs::remove_file(t.path("out")).unwrap();
            }
            Err((code, says)) => {
                let e = t.fails(None, &args, code);
                assert!(e.contains(says), "{args:?}: {e}");
                assert_no_output(&t, "out");
            }
        }
    }
}

/// YCT14 is broken: no command touches a YCT14 object without
/// `--insecure-benchmark-only`, and the default build offers it on none;
/// `inspect` describes it with a warning.
#[test]
fn yct14_is_refused_everywhere_without_the_flag() {
    use abbe::abe::yct14::InsecureYct14;
    type Y = InsecureYct14<Bn254>;
    let t = T::new();
    let universe: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
    let (pk, mk) = Y::setup(&Universe::from_iter(&universe), &mut OsRng).unwrap();
    fs::write(t.path("y.pub"), pk.to_bytes()).unwrap();
    fs::write(t.path("y.master"), mk.to_bytes()).unwrap();
    let key = abbe::kem::keygen::<Cca<Y>>(&pk, &mk, &Policy::parse("a and b").unwrap(), &mut OsRng)
        .unwrap();
    fs::write(t.path("y.key"), key.to_bytes()).unwrap();
    let (session, h) =
        Cca::<Y>::encapsulate(&pk, &AttributeSet::parse("a, b").unwrap(), &mut OsRng).unwrap();
    let mut file = Vec::new();
    envelope::seal(
        &h.to_bytes(),
        &session,
        &mut OsRng,
        &b"bench"[..],
        &mut file,
    )
    .unwrap();
    fs::write(t.path("y.abbe"), file).unwrap();
    fs::write(t.path("m"), b"bench").unwrap();

    let commands: [&[&str]; 4] = [
        &[
            "setup",
            "--scheme",
            "yct14",
            "--level",
            "100",
            "--universe",
            "a, b",
            "--out",
            "k",
        ],
        &[
            "keygen", "--master", "y.master", "--policy", "a", "-o", "new.key",
        ],
        &[
            "encrypt", "--public", "y.pub", "--attrs", "a, b", "-o", "c", "m",
        ],
        &["decrypt", "--key", "y.key", "-o", "out", "y.abbe"],
    ];
    for args in commands {
        let e = t.fails(None, args, 1);
        assert!(e.contains("BROKEN"), "{args:?}: {e}");
        if cfg!(feature = "insecure-benchmark-only") {
            assert!(e.contains("--insecure-benchmark-only"), "{e}");
        } else {
            assert!(e.contains("does not include it"), "{e}");
        }
    }
    for out in ["k/public.key", "new.key", "c", "out"] {
        assert_no_output(&t, out);
    }
    let text = String::from_utf8(t.ok(None, &["inspect", "y.abbe"])).unwrap();
    assert!(
        text.contains("WARNING") && text.contains("BROKEN"),
        "{text}"
    );
    if cfg!(feature = "insecure-benchmark-only") {
        for args in commands {
            let mut with = vec!["--insecure-benchmark-only"];
            with.extend_from_slice(args);
            t.ok(None, &with);
        }
        assert_eq!(t.read("out"), b"bench");
    }
}

/// Broadcast keys of every scheme work through the CLI at N = 100 000
/// (they were refused above ~32 000 users: the key inside a bundle was read
/// with a 1 MiB cap).
#[test]
fn broadcast_keys_of_any_size_work() {
    let t = T::new();
    fs::write(t.path("m"), b"to many").unwrap();
    for scheme in ["bgw05", "bgw05-sqrt", "gw09", "waters09", "elgamal-p256"] {
        let dir = format!("{scheme}-keys");
        let mut setup = vec![
            "setup", "--scheme", scheme, "--users", "100000", "--out", &dir,
        ];
        if scheme != "elgamal-p256" {
            setup.extend(["--level", "100"]);
        }
        t.ok(None, &setup);
        let (pk, mk) = (format!("{dir}/public.key"), format!("{dir}/master.key"));
        let (inside, outside) = (format!("{scheme}.in"), format!("{scheme}.out"));
        for (user, key) in [("77777", &inside), ("5", &outside)] {
            t.ok(
                None,
                &[
                    "keygen", "--master", &mk, "--public", &pk, "--user", user, "-o", key,
                ],
            );
        }
        let ct = format!("{scheme}.abbe");
        t.ok(
            None,
            &[
                "encrypt",
                "--public",
                &pk,
                "--to",
                "10-20,77777,99990-100000",
                "-o",
                &ct,
                "m",
            ],
        );
        let plain = format!("{scheme}.plain");
        t.ok(
            None,
            &[
                "decrypt", "--key", &inside, "--public", &pk, "-o", &plain, &ct,
            ],
        );
        assert_eq!(t.read(&plain), b"to many", "{scheme}");
        t.fails(
            None,
            &[
                "decrypt", "--key", &outside, "--public", &pk, "-o", "no", &ct,
            ],
            2,
        );
        assert_no_output(&t, "no");
        eprintln!(
            "{scheme} at N = 100000: user key {} bytes",
            fs::metadata(t.path(&inside)).unwrap().len()
        );
    }
}

/// `--verify-with` releases nothing from a foreign signer, even to stdout:
/// the signer is checked before the first plaintext byte. A file of the
/// first signed layout (signer known only at its end) is refused on stdout
/// and decrypted to a file only once verified.
#[test]
fn verify_with_releases_nothing_from_a_foreign_signer() {
    let t = T::new();
    waters11_doctor(&t, "alice.key");
    for who in ["owner", "attacker"] {
        t.ok(
            None,
            &[
                "signer-keygen",
                "--level",
                "100",
                "-o",
                &format!("{who}.sig.key"),
            ],
        );
    }
    fs::write(t.path("evil"), vec![b'E'; 300_000]).unwrap();
    t.ok(
        None,
        &[
            "encrypt",
            "--public",
            "w/public.key",
            "--policy",
            "doctor",
            "--sign-with",
            "attacker.sig.key",
            "-o",
            "evil.abbe",
            "evil",
        ],
    );
    // To stdout: exit 3 and not one byte (assert_fails checks stdout).
    let r = t.run(
        None,
        &[
            "decrypt",
            "--key",
            "alice.key",
            "--verify-with",
            "owner.sig.pub",
            "evil.abbe",
        ],
    );
    assert_fails(&r, 3);
    assert!(r.stderr.contains("another key"), "{}", r.stderr);

    // The first signed layout, from the test vectors: readable to a file,
    // refused on stdout.
    let vector = fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/vectors/waters11-bn254.txt"
    ))
    .unwrap();
    let field = |name: &str| -> Vec<u8> {
        let hex = vector
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{name} = ")))
            .unwrap();
        (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect()
    };
    fs::write(t.path("v.key"), field("user-key")).unwrap();
    fs::write(t.path("v.pub"), field("verifying-key")).unwrap();
    fs::write(t.path("legacy.abbe"), field("legacy-signed-cca-file")).unwrap();
    let args = [
        "decrypt",
        "--key",
        "v.key",
        "--verify-with",
        "v.pub",
        "legacy.abbe",
    ];
    let e = t.fails(None, &args, 3);
    assert!(e.contains("-o"), "{e}");
    t.ok(None, &[&args[..], &["-o", "legacy.out"]].concat());
    assert_eq!(t.read("legacy.out"), field("plaintext"));
}

/// `setup --optimize encrypt` makes a Waters11 setup in the swapped
/// placement: `inspect` says so, it round-trips, and its objects are
/// refused by keys of the other placement (and the reverse) with a message
/// naming the placement.
#[test]
fn the_placement_is_chosen_at_setup_and_bound_to_every_object() {
    let t = T::new();
    t.ok(
        None,
        &[
            "setup",
            "--scheme",
            "waters11",
            "--level",
            "100",
            "--optimize",
            "encrypt",
            "--out",
            "e",
        ],
    );
    let shown = String::from_utf8(t.ok(None, &["inspect", "e/public.key"])).unwrap();
    assert!(shown.contains("swapped (G1 and G2 exchanged"), "{shown}");
    assert!(shown.contains("--optimize encrypt"), "{shown}");
    t.ok(
        None,
        &[
            "keygen",
            "--master",
            "e/master.key",
            "--attrs",
            "doctor",
            "-o",
            "e.key",
        ],
    );
    fs::write(t.path("plain"), b"vitals").unwrap();
    t.ok(
        None,
        &[
            "encrypt",
            "--public",
            "e/public.key",
            "--policy",
            "doctor",
            "-o",
            "e.abbe",
            "plain",
        ],
    );
    t.ok(
        None,
        &["decrypt", "--key", "e.key", "-o", "e.out", "e.abbe"],
    );
    assert_eq!(t.read("e.out"), b"vitals");

    waters11_doctor(&t, "d.key");
    let shown = String::from_utf8(t.ok(None, &["inspect", "w/public.key"])).unwrap();
    assert!(shown.contains("standard"), "{shown}");
    t.ok(
        None,
        &[
            "encrypt",
            "--public",
            "w/public.key",
            "--policy",
            "doctor",
            "-o",
            "w.abbe",
            "plain",
        ],
    );
    for (key, file) in [("d.key", "e.abbe"), ("e.key", "w.abbe")] {
        let err = t.fails(None, &["decrypt", "--key", key, "-o", "x.out", file], 3);
        assert!(err.contains("swapped placement"), "{err}");
        assert_no_output(&t, "x.out");
    }
    // --optimize and --placement are exclusive; unknown values are named
    // (clap's usage errors exit 1).
    for (args, says) in [
        (
            &[
                "setup",
                "--optimize",
                "encrypt",
                "--placement",
                "swapped",
                "--out",
                "x",
            ][..],
            "cannot be used with",
        ),
        (
            &["setup", "--optimize", "speed", "--out", "x"][..],
            "possible values: decrypt, encrypt",
        ),
    ] {
        let r = t.run(None, args);
        assert_eq!(r.code, Some(1), "{}", r.stderr);
        assert!(r.stderr.contains(says), "{}", r.stderr);
        assert!(!t.path("x").exists());
    }
}

/// The file preamble's scheme and curve bytes must be those of the KEM
/// header it carries (the header is what is authenticated): a Waters11
/// BN254 file relabelled as swapped, as BLS48-581 or as BSW07 is refused by
/// `decrypt` and by `inspect`, with nothing written (issue 34, point 7).
#[test]
fn a_file_preamble_must_name_its_header() {
    let t = T::new();
    waters11_doctor(&t, "alice.key");
    fs::write(t.path("msg"), b"the record").unwrap();
    t.ok(
        None,
        &[
            "encrypt",
            "--public",
            "w/public.key",
            "--policy",
            "doctor",
            "-o",
            "ok.abbe",
            "msg",
        ],
    );
    let file = t.read("ok.abbe");
    for (what, at, value) in [
        ("placement bit", 7, file[7] | 0x80),
        ("curve bls48-581", 7, 5),
        ("scheme bsw07", 6, 2),
    ] {
        let mut bad = file.clone();
        bad[at] = value;
        fs::write(t.path("bad.abbe"), &bad).unwrap();
        let e = t.fails(
            None,
            &["decrypt", "--key", "alice.key", "-o", "out", "bad.abbe"],
            3,
        );
        assert!(e.contains("file preamble"), "{what}: {e}");
        assert_no_output(&t, "out");
        let e = t.fails(None, &["inspect", "bad.abbe"], 3);
        assert!(e.contains("file preamble"), "{what}: {e}");
    }
    t.ok(
        None,
        &["decrypt", "--key", "alice.key", "-o", "out", "ok.abbe"],
    );
    assert_eq!(t.read("out"), b"the record");
}

/// Identities that do not show as what they are — a zero-width space, a
/// right-to-left override, a non-breaking space — are refused, with an
/// error that says "identity" and where, never "policy error".
#[test]
fn identities_must_be_visible() {
    let t = T::new();
    fs::write(t.path("msg"), b"m").unwrap();
    t.ok(
        None,
        &[
            "setup",
            "--scheme",
            "gw09-ibbe",
            "--level",
            "100",
            "--max-recipients",
            "4",
            "--out",
            "i",
        ],
    );
    for (id, at) in [
        ("alice\u{200b}@example.com", 5),
        ("\u{202e}moc.elpmaxe@ecila", 0),
        ("alice\u{a0}smith@example.com", 5),
    ] {
        let e = t.fails(
            None,
            &[
                "keygen",
                "--master",
                "i/master.key",
                "--identity",
                id,
                "-o",
                "k",
            ],
            3,
        );
        assert!(e.contains(&format!("identity error at byte {at}")), "{e}");
        assert!(e.contains("U+"), "{e}");
        // The message never echoes the character it refuses.
        let shown = e.replace('\n', " ");
        assert_eq!(
            abbe::policy::visible::first_invisible(&shown),
            None,
            "{e:?}"
        );
        assert_no_output(&t, "k");
        let e = t.fails(
            None,
            &[
                "encrypt",
                "--public",
                "i/public.key",
                "--to-identities",
                &format!("bob@example.com, {id}"),
                "-o",
                "c",
                "msg",
            ],
            3,
        );
        assert!(e.contains("identity error"), "{e}");
        assert_no_output(&t, "c");
    }
}

/// Flags a scheme does not take are refused, by every command that takes
/// them, naming what the scheme takes: `--max-recipients` for BGW05, a user
/// index for an ABE scheme (it would become an attribute "5"), `--to` for
/// an identity-based scheme (it would become an identity "1-3"), a policy
/// for a broadcast scheme, `--public` where keys need none.
#[test]
fn flags_a_scheme_does_not_take_are_refused() {
    let t = T::new();
    fs::write(t.path("msg"), b"m").unwrap();
    let e = t.fails(
        None,
        &[
            "setup",
            "--scheme",
            "bgw05",
            "--level",
            "100",
            "--users",
            "8",
            "--max-recipients",
            "4",
            "--out",
            "b",
        ],
        1,
    );
    assert!(e.contains("max-recipients"), "{e}");
    assert!(!t.path("b/public.key").exists());
    waters11_doctor(&t, "alice.key");
    for (flag, value, said) in [
        ("--user", "5", "a user index"),
        ("--identity", "alice@example.com", "an identity"),
    ] {
        let e = t.fails(
            None,
            &["keygen", "--master", "w/master.key", flag, value, "-o", "k"],
            1,
        );
        assert!(e.contains("attributes") && e.contains(said), "{e}");
        assert_no_output(&t, "k");
    }
    let e = t.fails(
        None,
        &[
            "keygen",
            "--master",
            "w/master.key",
            "--attrs",
            "doctor",
            "--public",
            "w/public.key",
            "-o",
            "k",
        ],
        1,
    );
    assert!(e.contains("--public"), "{e}");
    t.ok(
        None,
        &[
            "setup",
            "--scheme",
            "gw09-ibbe",
            "--level",
            "100",
            "--out",
            "i",
        ],
    );
    let e = t.fails(
        None,
        &[
            "encrypt",
            "--public",
            "i/public.key",
            "--to",
            "1-3",
            "-o",
            "c",
            "msg",
        ],
        1,
    );
    assert!(e.contains("identities") && e.contains("--to "), "{e}");
    t.ok(
        None,
        &[
            "setup", "--scheme", "bgw05", "--level", "100", "--users", "8", "--out", "b",
        ],
    );
    let e = t.fails(
        None,
        &[
            "encrypt",
            "--public",
            "b/public.key",
            "--policy",
            "doctor",
            "-o",
            "c",
            "msg",
        ],
        1,
    );
    assert!(
        e.contains("a set of users") && !e.contains("key-policy"),
        "{e}"
    );
    assert_no_output(&t, "c");
}
