//! `abbe mqtt publish|subscribe` through a real mosquitto on loopback
//! (scripts/install-mosquitto.sh installs it; with ABBE_REQUIRE_MOSQUITTO=1,
//! as scripts/test.sh sets, a missing broker fails the test).
//! A `#` subscriber with no key plays the malicious broker's view.

mod common;

use abbe::facade::{self, Mode};
use abbe_mqtt::mosquitto::{self, Mosquitto};
use abbe_mqtt::{publisher, record};
use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::Aes256Gcm;
use common::{abbe, ok, BIN};
use rand_core::{OsRng, RngCore};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::thread::JoinHandle;
use std::time::Duration;

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
    assert!(err.contains("replayed reading"), "{err}");
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

/// The attacker's raw MQTT client: publishes `messages` (topic, payload,
/// retained) at QoS 1 and returns once the broker acknowledged them all.
fn raw_publish(b: &Mosquitto, messages: Vec<(String, Vec<u8>, bool)>) {
    use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let mut o = MqttOptions::new("attacker", "127.0.0.1", b.port());
        o.set_max_packet_size(64 << 20, 64 << 20);
        let (client, mut events) = AsyncClient::new(o, 64);
        let n = messages.len();
        let sender = tokio::spawn(async move {
            for (topic, payload, retain) in messages {
                client
                    .publish(topic, QoS::AtLeastOnce, retain, payload)
                    .await
                    .unwrap();
            }
            client
        });
        let mut acked = 0;
        while acked < n {
            let event = tokio::time::timeout(Duration::from_secs(30), events.poll())
                .await
                .expect("the broker answers")
                .expect("connected to the broker");
            if let Event::Incoming(Packet::PubAck(_)) = event {
                acked += 1;
            }
        }
        sender.await.unwrap().disconnect().await.unwrap();
        let _ = tokio::time::timeout(Duration::from_secs(1), events.poll()).await;
    });
}

/// The id of the publisher whose epoch key is retained for `topic`, read
/// from its key topic as anyone on the broker can.
fn publisher_id(b: &Mosquitto, topic: &str) -> record::PublisherId {
    let out = Command::new("mosquitto_sub")
        .args(client_args(b))
        .args(["-t", &format!("{topic}/abbe-epoch/+")])
        .args(["-C", "1", "-W", "20", "-F", "%t"])
        .output()
        .unwrap();
    let line = String::from_utf8(out.stdout).unwrap();
    let hex = line.trim().rsplit('/').next().unwrap();
    assert_eq!(hex.len(), 32, "key topic {line:?}");
    std::array::from_fn(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
}

/// An abbe encrypted file made with the public key only.
fn encrypt_with_public_key(dir: &Path, policy: &str, plain: &[u8]) -> Vec<u8> {
    let pk = std::fs::read(dir.join("keys/public.key")).unwrap();
    let mut out = Vec::new();
    facade::encrypt(
        &pk,
        policy,
        Mode::Cca,
        plain,
        &mut out,
        &Default::default(),
        &mut OsRng,
    )
    .unwrap();
    out
}

fn lines(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}-{i:02}\n")).collect()
}

/// abbe issue 34 (a): while an unsigned publisher runs, a readable epoch key
/// numbered 2^32 − 1 under its id and a reading at seq 2^64 − 1 under that
/// key: the 26 later honest readings all arrive (the forged one too: an
/// unsigned subscriber cannot tell it apart).
#[test]
fn a_forged_jump_in_epoch_and_sequence_shuts_out_no_later_reading() {
    let Some(bin) = mosquitto() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    keys(dir);
    let broker = start(&bin, dir);
    let url = broker.url();
    let topic = "ward/9";
    let sub = subscriber(
        dir,
        &url,
        topic,
        "doctor.key",
        &["--count", "31", "--timeout", "60s"],
    );
    let mut honest = spawn(
        dir,
        &[
            "mqtt",
            "publish",
            "--broker",
            &url,
            "--topic",
            topic,
            "--public",
            "keys/public.key",
            "--policy",
            "doctor",
            "--rekey-every",
            "4",
        ],
    );
    let mut stdin = honest.stdin.take().unwrap();
    let readings = lines("honest", 30);
    stdin.write_all(readings[..4].concat().as_bytes()).unwrap();
    stdin.flush().unwrap();
    let id = publisher_id(&broker, topic);
    let mut key = [0u8; 32];
    OsRng.fill_bytes(&mut key);
    let plain = record::epoch_key_plaintext(&id, u32::MAX, topic, &key).unwrap();
    let forged_key = [
        record::epoch_key_head(&id, u32::MAX),
        encrypt_with_public_key(dir, "doctor", &plain),
    ]
    .concat();
    let head = record::reading_head(&id, u32::MAX, u64::MAX, false);
    let aad = record::reading_aad(&head, topic).unwrap();
    let ct = Aes256Gcm::new_from_slice(&key)
        .unwrap()
        .encrypt(
            &record::nonce(u64::MAX).into(),
            Payload {
                msg: b"forged",
                aad: &aad,
            },
        )
        .unwrap();
    raw_publish(
        &broker,
        vec![
            (publisher::key_topic(topic, &id), forged_key, true),
            (topic.to_owned(), [head, ct].concat(), false),
        ],
    );
    stdin.write_all(readings[4..].concat().as_bytes()).unwrap();
    drop(stdin);
    let published = honest.wait_with_output().unwrap();
    assert!(
        published.status.success(),
        "{}",
        String::from_utf8_lossy(&published.stderr)
    );
    let (out, err) = finish(sub);
    assert_eq!(out.replace("forged\n", ""), readings.concat(), "{err}");
    assert!(out.contains("forged\n"), "{out}");
    assert!(
        err.contains("31 readings, 0 skipped (policy not satisfied), 0 refused, 0 missed"),
        "{err}"
    );
}

/// abbe issue 34 (b): 4 200 retained epoch keys under random publisher ids,
/// all one ABE file for a policy nobody holds, published before the
/// subscriber starts: a publisher signing with `--sign-with`, read with
/// `--verify-with`, still gets all its readings through.
#[test]
fn unreadable_epoch_keys_under_random_ids_lock_out_no_signed_publisher() {
    let Some(bin) = mosquitto() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    keys(dir);
    ok(dir, &["signer-keygen", "-o", "signer.key"]);
    let broker = start(&bin, dir);
    let url = broker.url();
    let topic = "ward/3";
    let junk = encrypt_with_public_key(dir, "nobody", &[0u8; 32]);
    let flood = (0..4200)
        .map(|_| {
            let mut id = [0u8; 16];
            OsRng.fill_bytes(&mut id);
            let payload = [record::epoch_key_head(&id, 1), junk.clone()].concat();
            (publisher::key_topic(topic, &id), payload, true)
        })
        .collect();
    raw_publish(&broker, flood);
    let sub = subscriber(
        dir,
        &url,
        topic,
        "doctor.key",
        &[
            "--verify-with",
            "signer.pub",
            "--count",
            "10",
            "--timeout",
            "60s",
        ],
    );
    let readings = lines("signed", 10);
    publish(
        dir,
        &url,
        topic,
        readings.concat().as_bytes(),
        &["--policy", "doctor", "--sign-with", "signer.key"],
    );
    let (out, err) = finish(sub);
    assert_eq!(
        out,
        readings.concat(),
        "{}",
        &err[err.len().saturating_sub(2000)..]
    );
    assert!(
        err.contains("10 readings, 0 skipped"),
        "{}",
        &err[err.len() - 300..]
    );
}

/// abbe issue 34 (c): one retained message above 16 MiB on a key topic: the
/// subscriber reports it once, stays connected and delivers every reading.
#[test]
fn an_oversized_retained_message_cuts_no_subscriber_off() {
    let Some(bin) = mosquitto() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    keys(dir);
    let broker = start(&bin, dir);
    let url = broker.url();
    let topic = "ward/5";
    raw_publish(
        &broker,
        vec![(
            publisher::key_topic(topic, &[0xab; 16]),
            vec![b'A'; record::MAX_LEN + 1],
            true,
        )],
    );
    let sub = subscriber(
        dir,
        &url,
        topic,
        "doctor.key",
        &["--count", "20", "--timeout", "60s"],
    );
    let readings = lines("reading", 20);
    publish(
        dir,
        &url,
        topic,
        readings.concat().as_bytes(),
        &["--policy", "doctor"],
    );
    let (out, err) = finish(sub);
    assert_eq!(out, readings.concat(), "{err}");
    assert_eq!(err.matches("above the 16 MiB").count(), 1, "{err}");
    assert!(!err.contains("lost the broker"), "{err}");
    assert!(
        err.contains("20 readings, 0 skipped (policy not satisfied), 1 refused"),
        "{err}"
    );
}
