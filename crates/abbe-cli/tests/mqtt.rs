//! `abbe mqtt publish|subscribe` through a real mosquitto on loopback
//! (scripts/install-mosquitto.sh installs it; with ABBE_REQUIRE_MOSQUITTO=1,
//! as scripts/test.sh sets, a missing broker fails the test).
//! A `#` subscriber with no key plays the malicious broker's view.

use abbe_mqtt::mosquitto::{self, Mosquitto};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::thread::JoinHandle;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_abbe");

fn mosquitto() -> Option<PathBuf> {
    let found = mosquitto::find();
    if found.is_none() {
        assert!(
            std::env::var_os("ABBE_REQUIRE_MOSQUITTO").is_none(),
            "mosquitto is required (scripts/install-mosquitto.sh)"
        );
        eprintln!("skipped: no mosquitto (scripts/install-mosquitto.sh installs it)");
    }
    found
}

fn start(bin: &Path, dir: &Path) -> Mosquitto {
    Mosquitto::start(bin, dir, None, None).expect("mosquitto starts")
}

/// mosquitto_sub/mosquitto_pub arguments for a broker.
fn client_args(b: &Mosquitto) -> [String; 4] {
    [
        "-h".into(),
        "127.0.0.1".into(),
        "-p".into(),
        b.port().to_string(),
    ]
}

fn abbe(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

fn ok(dir: &Path, args: &[&str]) {
    let out = abbe(dir, args);
    assert!(
        out.status.success(),
        "abbe {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn spawn(dir: &Path, args: &[&str]) -> Child {
    Command::new(BIN)
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn try_publish(dir: &Path, url: &str, topic: &str, input: &[u8], extra: &[&str]) -> Output {
    let mut args = vec!["mqtt", "publish", "--broker", url, "--topic", topic];
    args.extend_from_slice(extra);
    let mut p = spawn(dir, &args);
    p.stdin.take().unwrap().write_all(input).unwrap();
    p.wait_with_output().unwrap()
}

fn publish(dir: &Path, url: &str, topic: &str, input: &[u8], extra: &[&str]) {
    let pk = ["--public", "keys/public.key"];
    let out = try_publish(dir, url, topic, input, &[&pk[..], extra].concat());
    assert!(
        out.status.success(),
        "publish: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A running `abbe mqtt subscribe`, past its "subscribed" line.
struct Subscribed {
    child: Child,
    stderr: JoinHandle<String>,
}

fn subscriber(dir: &Path, url: &str, topic: &str, key: &str, extra: &[&str]) -> Subscribed {
    let mut args = vec![
        "mqtt",
        "subscribe",
        "--broker",
        url,
        "--topic",
        topic,
        "--key",
        key,
    ];
    args.extend_from_slice(extra);
    let mut child = spawn(dir, &args);
    // Nothing is published before the broker granted the subscription.
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    err.read_line(&mut first).unwrap();
    assert!(first.contains("abbe: subscribed to"), "subscribe: {first}");
    let stderr = std::thread::spawn(move || {
        let mut rest = first;
        err.read_to_string(&mut rest).unwrap();
        rest
    });
    Subscribed { child, stderr }
}

fn finish(s: Subscribed) -> (String, String) {
    let out = s.child.wait_with_output().unwrap();
    let err = s.stderr.join().unwrap();
    assert!(out.status.success(), "subscribe: {err}");
    (String::from_utf8(out.stdout).unwrap(), err)
}

/// A raw `#` subscriber printing `topic hex-payload` lines.
fn raw_subscriber(b: &Mosquitto, secs: u32) -> Child {
    let child = Command::new("mosquitto_sub")
        .args(client_args(b))
        .args(["-t", "#", "-v", "-F", "%t %x", "-W", &secs.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("mosquitto_sub (package mosquitto-clients)");
    std::thread::sleep(Duration::from_millis(500));
    child
}

fn raw_lines(child: Child) -> Vec<(String, Vec<u8>)> {
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(t, h)| {
            let bytes = (0..h.len() / 2)
                .map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).unwrap())
                .collect();
            (t.to_owned(), bytes)
        })
        .collect()
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

fn keys(dir: &Path) {
    ok(dir, &["setup", "--scheme", "waters11", "--out", "keys"]);
    ok(
        dir,
        &[
            "keygen",
            "--master",
            "keys/master.key",
            "--attrs",
            "doctor, cardiology",
            "-o",
            "doctor.key",
        ],
    );
    ok(
        dir,
        &[
            "keygen",
            "--master",
            "keys/master.key",
            "--attrs",
            "nurse",
            "-o",
            "nurse.key",
        ],
    );
}

#[test]
fn readers_get_plaintext_while_the_broker_and_other_keys_see_none() {
    let Some(bin) = mosquitto() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    keys(dir);
    let mut broker = start(&bin, dir);
    let url = broker.url();
    let secrets = [
        "reading-AAAA-0001",
        "reading-BBBB-0002",
        "reading-CCCC-0003",
        "reading-DDDD-0004",
    ];
    let input = secrets.join("\n") + "\n";
    let raw = raw_subscriber(&broker, 12);
    for (topic, extra) in [
        ("plant/epochs", &["--rekey-every", "2"][..]),
        ("plant/sealed", &["--per-message"][..]),
    ] {
        let doctor = subscriber(
            dir,
            &url,
            topic,
            "doctor.key",
            &["--count", "4", "--timeout", "20s"],
        );
        let nurse = subscriber(dir, &url, topic, "nurse.key", &["--timeout", "4s"]);
        publish(
            dir,
            &url,
            topic,
            input.as_bytes(),
            &[&["--policy", "doctor and cardiology"], extra].concat(),
        );
        let (out, _) = finish(doctor);
        assert_eq!(out, input, "{topic}");
        let (out, err) = finish(nurse);
        assert_eq!(out, "", "{topic}");
        assert_eq!(
            err.matches("does not satisfy its policy").count(),
            1,
            "{topic}: told once: {err}"
        );
        assert!(err.contains("0 readings, 4 skipped"), "{topic}: {err}");
    }
    // What the broker saw: records and retained epoch keys, no plaintext.
    let seen = raw_lines(raw);
    assert!(seen.len() >= 4 + 2 + 4, "{} messages seen", seen.len());
    assert!(seen
        .iter()
        .any(|(t, _)| t.starts_with("plant/epochs/abbe-epoch/")));
    broker.stop();
    let db = std::fs::read(dir.join("mosquitto.db")).expect("mosquitto's persistence file");
    assert!(
        contains(&db, b"abbe-epoch"),
        "the retained epoch key is persisted"
    );
    for s in secrets {
        assert!(
            !seen.iter().any(|(_, p)| contains(p, s.as_bytes())),
            "{s} seen by '#'"
        );
        assert!(
            !contains(&db, s.as_bytes()),
            "{s} in the broker's persistence file"
        );
    }
}

#[test]
fn late_join_after_a_broker_restart_and_replayed_or_tampered_records() {
    let Some(bin) = mosquitto() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    keys(dir);
    let mut broker = start(&bin, dir);
    let url = broker.url();
    let raw = raw_subscriber(&broker, 5);
    publish(
        dir,
        &url,
        "ward/7",
        b"pulse 61\npulse 62\n",
        &["--policy", "doctor"],
    );
    let seen = raw_lines(raw);
    let readings: Vec<&Vec<u8>> = seen
        .iter()
        .filter(|(t, _)| t == "ward/7")
        .map(|(_, p)| p)
        .collect();
    assert_eq!(readings.len(), 2);
    // The broker restarts; the retained epoch key survives in its database.
    broker.stop();
    broker.run().unwrap();
    let late = subscriber(dir, &url, "ward/7", "doctor.key", &["--timeout", "4s"]);
    let send = |payload: &[u8]| {
        let f = dir.join("payload.bin");
        std::fs::write(&f, payload).unwrap();
        let st = Command::new("mosquitto_pub")
            .args(client_args(&broker))
            .args(["-t", "ward/7", "-q", "1", "-f"])
            .arg(&f)
            .status()
            .unwrap();
        assert!(st.success());
    };
    // The recorded readings, delivered after the restart: readable with the
    // retained key. Then a replay, a reordering and a tampered copy.
    send(readings[0]);
    send(readings[1]);
    send(readings[0]);
    let mut tampered = readings[1].clone();
    *tampered.last_mut().unwrap() ^= 1;
    send(&tampered);
    let (out, err) = finish(late);
    assert_eq!(out, "pulse 61\npulse 62\n", "{err}");
    assert!(err.contains("replayed or reordered"), "{err}");
    assert!(err.contains("failed authentication"), "{err}");
    assert!(
        err.contains("2 readings, 0 skipped (policy not satisfied), 2 refused"),
        "{err}"
    );
}

#[test]
fn bad_arguments_fail_before_connecting() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    keys(dir);
    for (args, why) in [
        (
            &["--broker", "http://x", "--topic", "t", "--policy", "a"][..],
            "expected mqtt://",
        ),
        (
            &[
                "--broker",
                "mqtt://127.0.0.1:1",
                "--topic",
                "t/#",
                "--policy",
                "a",
            ][..],
            "wildcards",
        ),
        (
            &[
                "--broker",
                "mqtt://127.0.0.1:1",
                "--topic",
                "t",
                "--policy",
                "a and (",
            ][..],
            "",
        ),
        (
            &[
                "--broker",
                "mqtt://127.0.0.1:1",
                "--topic",
                "t",
                "--attrs",
                "a",
            ][..],
            "--policy",
        ),
    ] {
        let out = abbe(
            dir,
            &[&["mqtt", "publish", "--public", "keys/public.key"], args].concat(),
        );
        assert!(!out.status.success(), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(why),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // A broker that is not there.
    let out = abbe(
        dir,
        &[
            "mqtt",
            "subscribe",
            "--broker",
            "mqtt://127.0.0.1:1",
            "--topic",
            "t",
            "--key",
            "doctor.key",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("broker"));
}

/// A test CA and a certificate for `localhost` signed by it (PEM files in
/// `dir`): (CA certificate, server files).
fn test_ca(dir: &Path) -> (PathBuf, mosquitto::TlsFiles) {
    use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair};
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(DnType::CommonName, "abbe test CA");
    let ca = ca.self_signed(&ca_key).unwrap();
    let key = KeyPair::generate().unwrap();
    let cert = CertificateParams::new(vec!["localhost".to_string()])
        .unwrap()
        .signed_by(&key, &ca, &ca_key)
        .unwrap();
    let files = mosquitto::TlsFiles {
        cert: dir.join("server.pem"),
        key: dir.join("server.key"),
    };
    std::fs::write(dir.join("ca.pem"), ca.pem()).unwrap();
    std::fs::write(&files.cert, cert.pem()).unwrap();
    std::fs::write(&files.key, key.serialize_pem()).unwrap();
    (dir.join("ca.pem"), files)
}

#[test]
fn tls_with_a_password_and_a_key_policy_scheme() {
    let Some(bin) = mosquitto() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // KP: the readings carry attributes, the key a policy.
    ok(dir, &["setup", "--scheme", "gpsw06", "--out", "keys"]);
    let keygen = |policy: &str, out: &str| {
        ok(
            dir,
            &[
                "keygen",
                "--master",
                "keys/master.key",
                "--policy",
                policy,
                "-o",
                out,
            ],
        )
    };
    keygen("boiler and (pressure or temperature)", "engineer.key");
    keygen("boiler and humidity", "intern.key");
    let (_, server) = test_ca(dir);
    let passwords = dir.join("passwords");
    let st = Command::new("mosquitto_passwd")
        .args(["-c", "-b"])
        .arg(&passwords)
        .args(["meter-7", "correct horse"])
        .status()
        .expect("mosquitto_passwd (package mosquitto)");
    assert!(st.success());
    let broker = Mosquitto::start(&bin, dir, Some(&server), Some(&passwords)).unwrap();
    let url = broker.url();
    assert!(url.starts_with("mqtts://localhost:"), "{url}");
    std::fs::write(dir.join("auth"), "meter-7\ncorrect horse\n").unwrap();
    std::fs::write(dir.join("wrong"), "meter-7\nbattery staple\n").unwrap();
    let tls = ["--ca-file", "ca.pem", "--auth-file", "auth"];
    for (topic, mode) in [
        ("plant/boiler", "--rekey-every=2"),
        ("plant/sealed", "--per-message"),
    ] {
        let engineer = subscriber(
            dir,
            &url,
            topic,
            "engineer.key",
            &[&tls[..], &["--count", "3", "--timeout", "20s"]].concat(),
        );
        let intern = subscriber(
            dir,
            &url,
            topic,
            "intern.key",
            &[&tls[..], &["--timeout", "4s"]].concat(),
        );
        let attrs = ["--attrs", "boiler, pressure", mode];
        publish(
            dir,
            &url,
            topic,
            b"bar 1.9\nbar 2.0\nbar 2.1\n",
            &[&tls[..], &attrs[..]].concat(),
        );
        let (out, _) = finish(engineer);
        assert_eq!(out, "bar 1.9\nbar 2.0\nbar 2.1\n", "{topic}");
        let (out, err) = finish(intern);
        assert_eq!(out, "", "{topic}");
        assert!(err.contains("0 readings, 3 skipped"), "{topic}: {err}");
        assert!(err.contains("0 missed"), "{topic}: {err}");
    }
    // A wrong password, and a broker certificate checked against the
    // public roots instead of the test CA: refused, with the reason.
    let pk = ["--public", "keys/public.key", "--attrs", "boiler"];
    for (extra, why) in [
        (
            &["--ca-file", "ca.pem", "--auth-file", "wrong"][..],
            "NotAuthorized",
        ),
        (&["--auth-file", "auth"][..], "certificate"),
    ] {
        let out = try_publish(
            dir,
            &url,
            "plant/boiler",
            b"x\n",
            &[&pk[..], extra].concat(),
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{extra:?} accepted");
        assert!(err.contains(why), "{extra:?}: {err}");
    }
}
