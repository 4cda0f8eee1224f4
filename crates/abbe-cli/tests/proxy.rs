//! `abbe proxy serve` as a process, driven by the CLI: token, register,
//! `decrypt --proxy`, wrong tenant, SIGTERM.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_abbe");

fn abbe(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let out = abbe(dir, args);
    assert!(
        out.status.success(),
        "abbe {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `abbe proxy serve` on a free loopback port; returns its URL.
fn serve(dir: &Path) -> (Server, String) {
    let mut child = Command::new(BIN)
        .current_dir(dir)
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
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no URL in {line:?}"))
        .to_owned();
    (Server(child), url)
}

#[test]
fn decrypt_through_the_proxy() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    ok(dir, &["setup", "--out", "keys"]);
    ok(
        dir,
        &[
            "keygen",
            "--master",
            "keys/master.key",
            "--attrs",
            "doctor, cardiology",
            "-o",
            "alice.key",
        ],
    );
    ok(
        dir,
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
    let alice = ok(
        dir,
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
    std::fs::write(dir.join("alice.token"), alice.trim()).unwrap();
    let bob = ok(
        dir,
        &[
            "proxy",
            "token",
            "create",
            "--store",
            "sqlite:proxy.db",
            "--tenant",
            "bob",
        ],
    );
    std::fs::write(dir.join("bob.token"), bob.trim()).unwrap();
    let (mut server, url) = serve(dir);

    let id = ok(
        dir,
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
    let id = id.trim();
    let data: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(dir.join("rec"), &data).unwrap();
    for mode in ["rcca", "cpa"] {
        ok(
            dir,
            &[
                "encrypt",
                "--mode",
                mode,
                "--public",
                "keys/public.key",
                "--policy",
                "doctor and cardiology",
                "-o",
                "rec.abbe",
                "rec",
            ],
        );
        ok(
            dir,
            &[
                "decrypt",
                "--key",
                "alice.rk",
                "--proxy",
                &url,
                "--tk-id",
                id,
                "--token-file",
                "alice.token",
                "-o",
                "rec.out",
                "rec.abbe",
            ],
        );
        assert_eq!(std::fs::read(dir.join("rec.out")).unwrap(), data);
    }
    // Bob cannot use Alice's TK (exit 1, 404).
    let out = abbe(
        dir,
        &[
            "decrypt",
            "--key",
            "alice.rk",
            "--proxy",
            &url,
            "--tk-id",
            id,
            "--token-file",
            "bob.token",
            "rec.abbe",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("404"));
    // A policy Alice does not satisfy: exit 2, as for local decryption.
    ok(
        dir,
        &[
            "encrypt",
            "--mode",
            "rcca",
            "--public",
            "keys/public.key",
            "--policy",
            "nurse",
            "-o",
            "n.abbe",
            "rec",
        ],
    );
    let out = abbe(
        dir,
        &[
            "decrypt",
            "--key",
            "alice.rk",
            "--proxy",
            &url,
            "--tk-id",
            id,
            "--token-file",
            "alice.token",
            "n.abbe",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    ok(
        dir,
        &[
            "proxy",
            "delete",
            "--tk-id",
            id,
            "--proxy",
            &url,
            "--token-file",
            "alice.token",
        ],
    );

    // Tokens: the list shows ids, tenants and times, never a token; a
    // revoked token gets 401 from the running server at once.
    let list = ok(
        dir,
        &["proxy", "token", "list", "--store", "sqlite:proxy.db"],
    );
    assert!(list.starts_with("ID"), "{list}");
    assert!(
        !list.contains(alice.trim()) && !list.contains(bob.trim()),
        "{list}"
    );
    let bob_id = list
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some("bob"))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("no bob in {list}"))
        .to_owned();
    assert_eq!(bob_id.len(), 16);
    assert!(list.contains("alice") && list.contains("Z\n"), "{list}");
    let only_alice = ok(
        dir,
        &[
            "proxy",
            "token",
            "list",
            "--store",
            "sqlite:proxy.db",
            "--tenant",
            "alice",
        ],
    );
    assert!(
        !only_alice.contains("bob") && only_alice.contains("alice"),
        "{only_alice}"
    );
    ok(
        dir,
        &[
            "proxy",
            "token",
            "revoke",
            &bob_id,
            "--store",
            "sqlite:proxy.db",
        ],
    );
    let out = abbe(
        dir,
        &[
            "proxy",
            "register",
            "--tk",
            "alice.tk",
            "--proxy",
            &url,
            "--token-file",
            "bob.token",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("401"),
        "{out:?}"
    );
    let list = ok(
        dir,
        &["proxy", "token", "list", "--store", "sqlite:proxy.db"],
    );
    assert!(!list.contains(&bob_id), "{list}");
    let out = abbe(
        dir,
        &[
            "proxy",
            "token",
            "revoke",
            &bob_id,
            "--store",
            "sqlite:proxy.db",
        ],
    );
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no token with id"),
        "{out:?}"
    );
    // Alice's token still works.
    ok(
        dir,
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
    // Unreadable CA files are refused before anything starts.
    let out = abbe(
        dir,
        &[
            "proxy",
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--fetch-ca",
            "nope.pem",
        ],
    );
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("nope.pem"),
        "{out:?}"
    );
    let out = abbe(
        dir,
        &[
            "proxy",
            "delete",
            "--tk-id",
            id,
            "--proxy",
            &url,
            "--proxy-ca",
            "nope.pem",
        ],
    );
    assert!(!out.status.success());

    // SIGTERM: graceful exit 0.
    let pid = server.0.id().to_string();
    assert!(Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    let status = server.0.wait().unwrap();
    assert!(status.success(), "{status:?}");
}
