//! `abbe trace` end to end: a gksw10-plbe setup, pirate decoders that are
//! shell scripts running the real `abbe decrypt` with colluders' keys, and
//! the binary's accusation checked against the coalition.

mod common;

use common::{abbe, ok, BIN};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    fn new(users: u32) -> Setup {
        Setup::of("gksw10-plbe", users)
    }
    fn of(scheme: &str, users: u32) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("k");
        ok(
            dir.path(),
            &[
                "setup",
                "--scheme",
                scheme,
                "--curve",
                "bn254",
                "--users",
                &users.to_string(),
                "--out",
                p(&out),
            ],
        );
        Setup { dir }
    }
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    fn key(&self, user: u32) -> String {
        let out = self.path(&format!("u{user}.key"));
        ok(
            self.dir.path(),
            &[
                "keygen",
                "--master",
                p(&self.path("k/master.key")),
                "--user",
                &user.to_string(),
                "-o",
                p(&out),
            ],
        );
        out.to_str().unwrap().to_owned()
    }
    /// A decoder script: `body` with $DEC bound to `abbe decrypt --public PK`.
    fn decoder(&self, name: &str, body: &str) -> String {
        let script = self.path(name);
        let text = format!(
            "#!/bin/sh\nDEC=\"{BIN} decrypt --public {}\"\n{body}\n",
            p(&self.path("k/public.key"))
        );
        fs::write(&script, text).unwrap();
        format!("sh {}", p(&script))
    }
    fn trace(&self, decoder: &str, extra: &[&str]) -> (Option<i32>, String) {
        let mk = self.path("k/master.key");
        let mut args = vec!["--master", p(&mk)];
        args.extend_from_slice(extra);
        self.trace_public(decoder, &args)
    }
    /// `abbe trace` with only the public key (and `extra`).
    fn trace_public(&self, decoder: &str, extra: &[&str]) -> (Option<i32>, String) {
        let pk = self.path("k/public.key");
        let mut args = vec!["trace", "--public", p(&pk), "--decoder", decoder];
        args.extend_from_slice(extra);
        let out = abbe(self.dir.path(), &args);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    }
}

fn accused(report: &str) -> Option<u32> {
    report
        .lines()
        .next()?
        .strip_prefix("accused: user ")?
        .parse()
        .ok()
}

#[test]
fn pirate_decoders_are_traced_to_a_colluder() {
    let s = Setup::new(36);
    let keys: Vec<(u32, String)> = [3, 14, 20, 29].iter().map(|&u| (u, s.key(u))).collect();
    let one = s.decoder("one.sh", &format!("exec $DEC --key {}", keys[2].1));
    let random_of_two = s.decoder(
        "two.sh",
        &format!(
            "if [ $(od -An -N1 -tu1 /dev/urandom) -lt 128 ]; then k={}; else k={}; fi\nexec $DEC --key $k",
            keys[0].1, keys[3].1
        ),
    );
    let half = s.decoder(
        "half.sh",
        &format!(
            "[ $(od -An -N1 -tu1 /dev/urandom) -lt 128 ] || exit 1\nexec $DEC --key {}",
            keys[1].1
        ),
    );
    // Five colluders (at random and every key in turn) are traced through
    // the same facade::trace in the library's tests (bcast/trace.rs); here
    // each query runs the real binary, so the cases are the cheap ones.
    for (decoder, coalition) in [
        (&one, &[20u32][..]),
        (&random_of_two, &[3, 29]),
        (&half, &[14]),
    ] {
        let (code, report) = s.trace(decoder, &[]);
        assert_eq!(code, Some(0), "{report}");
        let u = accused(&report).unwrap_or_else(|| panic!("no accusation: {report}"));
        assert!(
            coalition.contains(&u),
            "user {u} accused, coalition {coalition:?}\n{report}"
        );
        // The evidence: the accusing round at the accused index and the
        // next, and its permutation test.
        let evidence = report.lines().find(|l| l.starts_with("evidence: "));
        assert!(
            evidence
                .is_some_and(|l| l.contains(&format!("only for user {u}")) && l.contains("p = ")),
            "{report}"
        );
    }
}

#[test]
fn decoders_that_do_not_decrypt_accuse_nobody() {
    let s = Setup::new(9);
    // Showing a success below ε takes about 30/ε queries: ε = 0.2 here.
    let nothing = s.decoder("nothing.sh", "cat > /dev/null");
    let (code, report) = s.trace(&nothing, &["--min-success", "0.2"]);
    assert_eq!(code, Some(1));
    assert!(
        report.starts_with("accused: nobody (the decoder does not decrypt)"),
        "{report}"
    );
    // A decoder that hangs is killed after --query-timeout; the budget ends
    // the run.
    let hang = s.decoder("hang.sh", "sleep 30");
    // (the shell is killed; its `sleep` is left holding the pipes, which the
    // tracer must not wait for)
    let (code, report) = s.trace(&hang, &["--query-timeout", "1", "--max-queries", "3"]);
    assert_eq!(code, Some(1));
    assert!(report.starts_with("accused: nobody"), "{report}");
    // Only the master key of a traceable scheme traces.
    let out = abbe(
        s.dir.path(),
        &[
            "trace",
            "--master",
            p(&s.path("k/public.key")),
            "--public",
            p(&s.path("k/public.key")),
            "--decoder",
            "true",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn traceable_ciphertexts_are_cpa_only_and_decrypt_as_usual() {
    let s = Setup::new(9);
    let key = s.key(4);
    let (pk, m, c) = (s.path("k/public.key"), s.path("m"), s.path("c"));
    fs::write(&m, b"to everybody").unwrap();
    let dir = s.dir.path();
    ok(dir, &["encrypt", "--public", p(&pk), "-o", p(&c), p(&m)]);
    let out = ok(dir, &["decrypt", "--key", &key, "--public", p(&pk), p(&c)]);
    assert_eq!(out, "to everybody");
    let info = ok(dir, &["inspect", p(&c)]);
    assert!(
        info.contains("recipients:     all") && info.contains("traceable"),
        "{info}"
    );
    let refused = abbe(
        dir,
        &[
            "encrypt",
            "--public",
            p(&pk),
            "--mode",
            "cca",
            "-o",
            p(&s.path("c2")),
            p(&m),
        ],
    );
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("CPA-mode only"));
    assert!(!s.path("c2").exists());
    let subset = abbe(
        dir,
        &[
            "encrypt",
            "--public",
            p(&pk),
            "--to",
            "1-3",
            "-o",
            p(&s.path("c3")),
            p(&m),
        ],
    );
    assert_ne!(subset.status.code(), Some(0));
}

/// gksw10-augbe traces with the public key alone: a decoder sold for a set
/// S (it holds keys of members of S) is traced to a member, and a decoder
/// made of a revoked user's key decrypts nothing sent to S.
#[test]
fn augmented_broadcast_traces_publicly_within_the_recipient_set() {
    let s = Setup::of("gksw10-augbe", 30);
    let set = "1-12, 20-30";
    let keys: Vec<(u32, String)> = [4, 22, 15].iter().map(|&u| (u, s.key(u))).collect();
    let two = s.decoder(
        "two.sh",
        &format!(
            "if [ $(od -An -N1 -tu1 /dev/urandom) -lt 128 ]; then k={}; else k={}; fi\nexec $DEC --key $k",
            keys[0].1, keys[1].1
        ),
    );
    let (code, report) = s.trace_public(&two, &["--to", set]);
    assert_eq!(code, Some(0), "{report}");
    let u = accused(&report).unwrap_or_else(|| panic!("no accusation: {report}"));
    assert!([4, 22].contains(&u), "user {u} accused\n{report}");
    // User 15 is not in S: its key decrypts nothing sent to S.
    let revoked = s.decoder("revoked.sh", &format!("exec $DEC --key {}", keys[2].1));
    let (code, report) = s.trace_public(&revoked, &["--to", set, "--min-success", "0.2"]);
    assert_eq!(code, Some(1), "{report}");
    assert!(
        report.starts_with("accused: nobody (the decoder does not decrypt)"),
        "{report}"
    );
    // The master key is not needed, and a PLBE is not traced without it.
    let plbe = Setup::new(4);
    let (code, _) = plbe.trace_public("cat", &[]);
    assert_eq!(code, Some(1));
}

/// --query-timeout cannot overflow the deadline (it panicked at 2^64 − 1),
/// and a decoder's children die with its query: nothing it started is left
/// behind when the trace ends (`sleep`s were).
#[test]
fn timeouts_are_bounded_and_decoders_leave_nothing_behind() {
    let s = Setup::new(4);
    let (code, _) = s.trace("true", &["--query-timeout", "18446744073709551615"]);
    assert_eq!(code, Some(1), "a usage error (exit 1), not a panic (101)");
    // A unique duration marks this test's sleepers.
    let marker = format!(
        "{}.{}",
        300 + std::process::id() % 97,
        std::process::id() % 1000
    );
    let spawner = s.decoder(
        "spawner.sh",
        &format!("sleep {marker} &\nsleep {marker} &\nsleep 5"),
    );
    let (code, _) = s.trace(
        &spawner,
        &[
            "--query-timeout",
            "1",
            "--max-queries",
            "4",
            "--min-success",
            "0.9",
        ],
    );
    assert_eq!(code, Some(1));
    std::thread::sleep(std::time::Duration::from_millis(300));
    let left = Command::new("pgrep")
        .args(["-f", &format!("sleep {marker}")])
        .output()
        .expect("pgrep");
    assert!(
        left.stdout.is_empty(),
        "left behind: {}",
        String::from_utf8_lossy(&left.stdout)
    );
}

/// A long trace is never silent: with stderr not a terminal, a progress
/// line every 10 s, even while the decoder answers nothing.
#[test]
fn a_slow_trace_reports_progress_in_lines() {
    let s = Setup::new(4);
    let slow = s.decoder("slow.sh", "sleep 1\nexit 1");
    let (pk, mk) = (s.path("k/public.key"), s.path("k/master.key"));
    let out = abbe(
        s.dir.path(),
        &[
            "trace",
            "--public",
            p(&pk),
            "--master",
            p(&mk),
            "--decoder",
            &slow,
            "--max-queries",
            "14",
            "--min-success",
            "0.9",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("abbe: tracing: "))
        .collect();
    assert!(!lines.is_empty(), "{stderr}");
    assert!(
        lines[0].contains(" of at most 14 queries ("),
        "{}",
        lines[0]
    );
}

/// The decoder runs in an empty private directory with only PATH; with
/// --decoder-user (as root) it runs as that user and cannot read the
/// master key it could otherwise use to know every query's index.
#[test]
fn the_decoder_runs_apart_from_the_tracers_secrets() {
    use std::os::unix::fs::PermissionsExt;
    let s = Setup::new(4);
    let seen = tempfile::tempdir().unwrap();
    fs::set_permissions(seen.path(), fs::Permissions::from_mode(0o777)).unwrap();
    let report = seen.path().join("seen");
    let mk = s.path("k/master.key");
    let body = format!(
        "{{ pwd; env; id -u; if cat {} >/dev/null 2>&1; then echo readable; else echo denied; fi; }} > {} 2>&1",
        p(&mk),
        p(&report)
    );
    let run = |extra: &[&str]| {
        let mut args = vec!["--max-queries", "2", "--min-success", "0.9"];
        args.extend_from_slice(extra);
        s.trace(&body, &args)
    };
    run(&[]);
    let text = fs::read_to_string(&report).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].contains("abbe-trace-"), "{text}");
    let env: Vec<&str> = lines
        .iter()
        .filter(|l| {
            l.contains('=')
                && !l.starts_with("PWD=")
                && !l.starts_with("SHLVL=")
                && !l.starts_with('_')
        })
        .copied()
        .collect();
    assert!(
        env.iter()
            .all(|l| l.starts_with("PATH=") || l.starts_with("HOME=")),
        "{env:?}"
    );
    let root = String::from_utf8_lossy(&Command::new("id").arg("-u").output().unwrap().stdout)
        .trim()
        == "0";
    let nobody = fs::read_to_string("/etc/passwd")
        .map(|p| p.lines().any(|l| l.starts_with("nobody:")))
        .unwrap_or(false);
    if !(root && nobody) {
        eprintln!("skipped --decoder-user: needs root and a user nobody");
        return;
    }
    // Reachable by nobody: the directory (not the 0600 master key).
    fs::set_permissions(s.dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    fs::remove_file(&report).unwrap();
    run(&["--decoder-user", "nobody"]);
    let text = fs::read_to_string(&report).unwrap();
    assert!(
        text.contains("denied") && !text.contains("readable"),
        "{text}"
    );
    assert!(!text.lines().any(|l| l == "0"), "ran as root: {text}");
}
