//! `abbe proxy serve` as a process, driven by the CLI: token, register,
//! `decrypt --proxy`, wrong tenant, SIGTERM; a 1 GiB pushed file streamed
//! through it in constant memory.

mod common;
#[path = "../../abbe-proxy/tests/common/push.rs"]
mod push;

use common::{abbe, memory_kib, ok, BIN};

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A setup in keys/ (with `setup_args`), a doctor's key a.key and its
/// transformation and retrieval keys a.tk, a.rk.
fn doctor_tk(dir: &Path, setup_args: &[&str]) {
    ok(dir, &[&["setup", "--out", "keys"][..], setup_args].concat());
    ok(
        dir,
        &[
            "keygen",
            "-m",
            "keys/master.key",
            "-a",
            "doctor",
            "-o",
            "a.key",
        ],
    );
    ok(
        dir,
        &[
            "transform-key",
            "-k",
            "a.key",
            "--tk",
            "a.tk",
            "--rk",
            "a.rk",
        ],
    );
}

/// `abbe proxy token create` of `tenant` in sqlite:proxy.db.
fn create_token(tenant: &str) -> Vec<&str> {
    let store = ["--store", "sqlite:proxy.db"];
    [
        &["proxy", "token", "create", "--tenant", tenant][..],
        &store,
    ]
    .concat()
}

/// Starts `abbe proxy serve` on a free loopback port; returns its URL.
fn serve(dir: &Path) -> (Server, String) {
    serve_with(dir, &[])
}

/// `abbe proxy serve` on `listen` with sqlite:proxy.db and `extra`
/// options, its stderr piped.
fn spawn_serve(dir: &Path, listen: &str, extra: &[&str]) -> Child {
    Command::new(BIN)
        .current_dir(dir)
        .args(["proxy", "serve", "--listen", listen])
        .args(["--store", "sqlite:proxy.db"])
        .args(extra)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// As [`serve`], with more options.
fn serve_with(dir: &Path, extra: &[&str]) -> (Server, String) {
    let mut child = spawn_serve(dir, "127.0.0.1:0", extra);
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
    // RCCA last: the refusals below use rec.abbe as an RCCA file.
    for mode in ["cpa", "rcca"] {
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
                "-f",
                "-o",
                "rec.abbe",
                "rec",
            ],
        );
        let _ = std::fs::remove_file(dir.join("rec.out"));
        let mut args = vec![
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
        ];
        if mode == "cpa" {
            // Unchecked: refused unless asked for, and nothing is written.
            let out = abbe(dir, &args);
            assert_eq!(out.status.code(), Some(3));
            assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-cpa"));
            assert!(!dir.join("rec.out").exists());
            args.insert(1, "--allow-cpa");
        }
        ok(dir, &args);
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
    // A token that leaked is revoked by the file holding it.
    ok(
        dir,
        &[
            "proxy",
            "token",
            "revoke",
            "--token-file",
            "alice.token",
            "--store",
            "sqlite:proxy.db",
        ],
    );
    let out = abbe(
        dir,
        &[
            "proxy",
            "list",
            "--proxy",
            &url,
            "--token-file",
            "alice.token",
        ],
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("401"),
        "{out:?}"
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

/// A 1 GiB ciphertext file pushed to `POST /v1/tks/{id}/transform` streams
/// through `abbe proxy serve`: the answer is the transformed head, then the
/// same bytes, and the server's peak RSS does not grow with the file.
#[test]
fn pushed_file_streams_in_constant_memory() {
    const SIZE: u64 = 1 << 30;
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
            "doctor",
            "-o",
            "k.key",
        ],
    );
    ok(
        dir,
        &[
            "transform-key",
            "--key",
            "k.key",
            "--tk",
            "k.tk",
            "--rk",
            "k.rk",
        ],
    );
    let token = ok(
        dir,
        &["proxy", "token", "create", "--store", "sqlite:proxy.db"],
    );
    let token = token.trim();
    std::fs::write(dir.join("t.token"), token).unwrap();
    let (server, url) = serve_with(dir, &["--max-body", &(2 * SIZE).to_string()]);
    let id = ok(
        dir,
        &[
            "proxy",
            "register",
            "--tk",
            "k.tk",
            "--proxy",
            &url,
            "--token-file",
            "t.token",
        ],
    );
    std::fs::write(dir.join("small"), b"small").unwrap();
    ok(
        dir,
        &[
            "encrypt",
            "--mode",
            "rcca",
            "--public",
            "keys/public.key",
            "--policy",
            "doctor",
            "-o",
            "small.abbe",
            "small",
        ],
    );
    let file = std::fs::read(dir.join("small.abbe")).unwrap();
    let mut cur = &file[..];
    abbe::envelope::read_head(&mut cur).unwrap();
    let head = file[..file.len() - cur.len()].to_vec();

    let pid = server.0.id();
    let before = memory_kib(pid);
    let up = push::Upload::new(head, SIZE);
    let mut g = push::Gen::new(up.seed);
    let mut want = Vec::new();
    let mut same = true;
    let addr = url.trim_start_matches("http://").parse().unwrap();
    let t0 = std::time::Instant::now();
    let a = push::push(
        addr,
        &format!("/v1/tks/{}/transform", id.trim()),
        token,
        up,
        |b| {
            want.resize(b.len(), 0);
            g.fill(&mut want);
            same &= want == b;
        },
    );
    let took = t0.elapsed();
    let after = memory_kib(pid);
    assert_eq!(a.status, 200, "{a:?}");
    assert!(a.complete, "{a:?}");
    assert_eq!(a.payload_len, SIZE);
    assert!(same, "the payload came back changed");
    // The head is the transformed one.
    let mut cur = &a.head[..];
    let thead = abbe::envelope::read_head(&mut cur).unwrap();
    assert_eq!(thead.preamble.kind, abbe::wire::ObjectKind::TransformedFile);
    if let (Some(m0), Some(m1)) = (before, after) {
        let (hwm0, rss0, hwm1, rss1) = (m0.peak, m0.current, m1.peak, m1.current);
        // Written to the real stderr, so a plain `cargo test` shows it.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr().lock(),
            "note: 1 GiB pushed through `abbe proxy serve` in {:.1} s; its VmHWM {} -> {} MiB, VmRSS {} -> {} MiB",
            took.as_secs_f64(),
            hwm0 >> 10,
            hwm1 >> 10,
            rss0 >> 10,
            rss1 >> 10
        );
        assert!(
            hwm1 < hwm0 + (64 << 10),
            "the proxy's peak RSS grew from {hwm0} to {hwm1} KiB"
        );
    }
}

/// A raw HTTP/1.1 POST to the proxy; returns the status line, the headers
/// and the body.
fn post(url: &str, path: &str, token: &str, body: &[u8]) -> (u16, String, String) {
    use std::io::{Read, Write};
    let addr = url.trim_start_matches("http://").trim_end_matches('/');
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    // The server may answer (and close) before the whole body is sent.
    let _ = s.write_all(body);
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer).into_owned();
    let (headers, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = headers
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, headers.to_string(), body.to_string())
}

/// Hostile input at the proxy: a header over the policy work budget is
/// refused before any pairing; a burst of 16 MiB bodies from many tenants
/// buffers at most `workers` of them at once and the memory comes back; a
/// tenant over its quota gets 429 with Retry-After.
#[test]
fn hostile_bursts_are_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    doctor_tk(dir, &["--level", "100"]);
    let tokens: Vec<String> = (0..8)
        .map(|i| ok(dir, &create_token(&format!("t{i}"))).trim().to_string())
        .collect();
    let (server, url) = serve_with(
        dir,
        &[
            "--workers",
            "2",
            "--tenant-rate",
            "5",
            "--tenant-burst",
            "3",
        ],
    );
    let pid = server.0.id();
    // Every tenant registers the key: each request below reaches its body.
    let paths: Vec<String> = tokens
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let file = format!("t{i}.token");
            std::fs::write(dir.join(&file), t).unwrap();
            let id = ok(
                dir,
                &[
                    "proxy",
                    "register",
                    "--tk",
                    "a.tk",
                    "--proxy",
                    &url,
                    "--token-file",
                    &file,
                ],
            );
            format!("/v1/tks/{}/transform", id.trim())
        })
        .collect();
    let path = &paths[0];

    // The hostile threshold, encrypted by someone with a raised budget.
    let xs: Vec<String> = (0..4095).map(|i| format!("x{i}")).collect();
    let policy = format!("doctor or 4094 of ({})", xs.join(", "));
    std::fs::write(dir.join("m"), b"m").unwrap();
    ok(
        dir,
        &[
            "--max-policy-work",
            "20000000",
            "encrypt",
            "--mode",
            "rcca",
            "--public",
            "keys/public.key",
            "--policy",
            &policy,
            // At the leaf limit: no room for the expiry condition.
            "--no-expiry",
            "-o",
            "hostile.abbe",
            "m",
        ],
    );
    let hostile = std::fs::read(dir.join("hostile.abbe")).unwrap();
    let (status, _, body) = post(&url, path, &tokens[0], &hostile);
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("work budget"), "{body}");

    // A burst: 16 bodies of 15 MiB (a KEM header preamble, then junk),
    // two per tenant, all at once.
    std::thread::sleep(std::time::Duration::from_millis(300));
    let idle = memory_kib(pid).expect("/proc").current;
    let mut junk = vec![0u8; 15 << 20];
    junk[..8].copy_from_slice(&[b'A', b'B', b'B', b'E', 1, 6, 1, 2]);
    let junk = std::sync::Arc::new(junk);
    let answers: Vec<u16> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..16)
            .map(|i| {
                let (url, path, token, junk) = (&url, &paths[i % 8], &tokens[i % 8], junk.clone());
                s.spawn(move || post(url, path, token, &junk).0)
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let peak = memory_kib(pid).expect("/proc").peak;
    // Every answer is a refusal: 400 (not a header) or 429 (the rate);
    // none is a crash.
    assert!(
        answers.iter().all(|s| [400, 429].contains(s)),
        "{answers:?}"
    );
    assert!(answers.contains(&400), "{answers:?}");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let after = memory_kib(pid).expect("/proc").current;
    eprintln!("proxy RSS: idle {idle} KiB, peak {peak} KiB during the burst, {after} KiB after");
    assert!(
        after <= 2 * idle,
        "RSS after the burst {after} KiB, idle {idle} KiB"
    );
    // Two workers hold at most two bodies (and their copies) at once.
    assert!(peak < idle + 80 * 1024, "peak {peak} KiB, idle {idle} KiB");

    // One tenant over its rate: 429 with Retry-After.
    let mut seen = None;
    for _ in 0..10 {
        let (status, headers, _) = post(&url, path, &tokens[0], b"ABBE");
        if status == 429 {
            seen = Some(headers);
            break;
        }
    }
    let headers = seen.expect("a tenant over its rate gets 429");
    assert!(
        headers.to_ascii_lowercase().contains("retry-after:"),
        "{headers}"
    );
}

/// What an operator and a tenant meet around the proxy: a misspelt store
/// is refused (and not created), a token goes to a 0600 file, a tenant
/// lists their TK ids, the access log has a line per request (no TK id),
/// and plain HTTP beyond loopback is warned about.
#[test]
fn operator_and_tenant_commands() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let out = abbe(
        dir,
        &["proxy", "token", "list", "--store", "sqlite:typo.db"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "abbe: error: no store at sqlite:typo.db (`abbe proxy token create` or `abbe proxy serve` creates one)\n"
    );
    assert!(!dir.join("typo.db").exists());

    let to_file = [&create_token("alice")[..], &["-o", "alice.token"]].concat();
    let stdout = ok(dir, &to_file);
    assert!(stdout.is_empty(), "{stdout}");
    assert_eq!(common::mode(&dir.join("alice.token")), 0o600);
    let token = std::fs::read_to_string(dir.join("alice.token")).unwrap();
    assert_eq!(token.trim().len(), token.len() - 1, "one line: {token:?}");
    assert_eq!(abbe(dir, &to_file).status.code(), Some(1), "overwrite");

    doctor_tk(dir, &[]);
    let (server, url) = serve_with(dir, &["--access-log", "access.log"]);
    let remote = ["--proxy", url.as_str(), "--token-file", "alice.token"];
    assert_eq!(ok(dir, &[&["proxy", "list"][..], &remote].concat()), "");
    let id = ok(
        dir,
        &[&["proxy", "register", "--tk", "a.tk"][..], &remote].concat(),
    );
    let id = id.trim();
    assert_eq!(
        ok(dir, &[&["proxy", "list"][..], &remote].concat()),
        format!("{id}\n")
    );
    ok(
        dir,
        &[&["proxy", "delete", "--tk-id", id][..], &remote].concat(),
    );
    assert_eq!(ok(dir, &[&["proxy", "list"][..], &remote].concat()), "");
    drop(server);
    let log = std::fs::read_to_string(dir.join("access.log")).unwrap();
    let routes: Vec<String> = log
        .lines()
        .map(|l| l.split(' ').skip(2).take(3).collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(
        routes,
        [
            "GET /v1/tks 200",
            "POST /v1/tks 201",
            "GET /v1/tks 200",
            "DELETE /v1/tks/{id} 204",
            "GET /v1/tks 200"
        ],
        "{log}"
    );
    assert!(!log.contains(id), "{log}");
    assert_eq!(common::mode(&dir.join("access.log")), 0o600);

    // Beyond loopback, plain HTTP is said to be so.
    let mut child = spawn_serve(dir, "0.0.0.0:0", &[]);
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let second = lines.next().unwrap().unwrap();
    let _server = Server(child);
    assert!(first.contains("listening on http://0.0.0.0:"), "{first}");
    assert!(
        second.starts_with("abbe-proxy: warning: plain HTTP on 0.0.0.0:"),
        "{second}"
    );
}
