//! `abbe mqtt publish|subscribe` through a real mosquitto on loopback
//! (scripts/install-mosquitto.sh installs it; with ABBE_REQUIRE_MOSQUITTO=1,
//! as scripts/test.sh sets, a missing broker fails the test).
//! A `#` subscriber with no key plays the malicious broker's view.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_abbe");

fn mosquitto() -> Option<PathBuf> {
    let found = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file());
    if found.is_none() {
        assert!(
            std::env::var_os("ABBE_REQUIRE_MOSQUITTO").is_none(),
            "mosquitto is required (scripts/install-mosquitto.sh)"
        );
        eprintln!("skipped: no mosquitto (scripts/install-mosquitto.sh installs it)");
    }
    found
}

/// A mosquitto on a free loopback port, persisting into `dir`.
struct Broker {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    child: Option<Child>,
}

impl Broker {
    fn start(bin: PathBuf, dir: &Path) -> Broker {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let conf = dir.join("mosquitto.conf");
        // Started as root, mosquitto drops to the user `mosquitto`, which
        // cannot write our temporary directory: stay who we are.
        let uid = Command::new("id").arg("-u").output().unwrap().stdout;
        let user = if uid.trim_ascii() == b"0" {
            "user root\n"
        } else {
            ""
        };
        std::fs::write(
            &conf,
            format!(
                "listener {port} 127.0.0.1\nallow_anonymous true\npersistence true\npersistence_location {}/\n{user}",
                dir.display()
            ),
        )
        .unwrap();
        let mut b = Broker {
            bin,
            dir: dir.to_owned(),
            port,
            child: None,
        };
        b.run();
        b
    }
    fn run(&mut self) {
        let child = Command::new(&self.bin)
            .arg("-c")
            .arg(self.dir.join("mosquitto.conf"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        self.child = Some(child);
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("mosquitto did not start");
    }
    /// SIGTERM: mosquitto writes its persistence file and exits.
    fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = Command::new("kill")
                .arg("-TERM")
                .arg(c.id().to_string())
                .status();
            let _ = c.wait();
        }
    }
    fn url(&self) -> String {
        format!("mqtt://127.0.0.1:{}", self.port)
    }
    /// mosquitto_sub/mosquitto_pub arguments for this broker.
    fn client_args(&self) -> [String; 4] {
        [
            "-h".into(),
            "127.0.0.1".into(),
            "-p".into(),
            self.port.to_string(),
        ]
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
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

fn publish(dir: &Path, url: &str, topic: &str, input: &[u8], extra: &[&str]) {
    let mut args = vec![
        "mqtt",
        "publish",
        "--broker",
        url,
        "--topic",
        topic,
        "--public",
        "keys/public.key",
    ];
    args.extend_from_slice(extra);
    let mut p = spawn(dir, &args);
    p.stdin.take().unwrap().write_all(input).unwrap();
    let out = p.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "publish: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn subscriber(dir: &Path, url: &str, topic: &str, key: &str, extra: &[&str]) -> Child {
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
    let child = spawn(dir, &args);
    // Subscribed before anything is published.
    std::thread::sleep(Duration::from_millis(700));
    child
}

fn finish(child: Child) -> (String, String) {
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "subscribe: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// A raw `#` subscriber printing `topic hex-payload` lines.
fn raw_subscriber(b: &Broker, secs: u32) -> Child {
    let child = Command::new("mosquitto_sub")
        .args(b.client_args())
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
    let mut broker = Broker::start(bin, dir);
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
    let mut broker = Broker::start(bin, dir);
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
    broker.run();
    let late = subscriber(dir, &url, "ward/7", "doctor.key", &["--timeout", "4s"]);
    let send = |payload: &[u8]| {
        let f = dir.join("payload.bin");
        std::fs::write(&f, payload).unwrap();
        let st = Command::new("mosquitto_pub")
            .args(broker.client_args())
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
