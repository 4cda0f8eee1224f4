//! The README's shell examples, run as written.
//!
//! Every ```sh block of README.md runs in order, each as one bash script
//! (`set -euo pipefail`, traced), in one directory shared by all blocks, with
//! the `abbe` under test first on PATH and HOME in that directory. The
//! runner changes only:
//! - the lines of [`NOT_RUN`], each with why and what runs it instead (an
//!   entry that matches no README line fails the test, so the list cannot
//!   go stale, and a new line is run unless listed);
//! - the fixed ports of the examples (8700, 1883) → free ones, the broker
//!   a private mosquitto;
//! - a line ending in `&` gets its stderr in a file and the script waits
//!   until the server says it is ready;
//! - a block's background jobs are stopped at its end.
//!
//! The user's own files (`record.pdf`, `note.txt`, …) are made first; then
//! what the README promises is checked: every decrypted file equals its
//! original, the tracer accuses the key in the decoder, the subscriber
//! prints both readings. The Python example runs in pytest
//! (bindings/python/tests/test_readme.py).

mod common;

use abbe_mqtt::mosquitto::{self, Mosquitto};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// README lines (by prefix) not run here, and why.
const NOT_RUN: &[(&str, &str)] = &[
    (
        "cargo build --release -p abbe-cli && target/release/abbe lab",
        "the lab's quick report: tests/lab.rs runs it",
    ),
    ("bash scripts/test.sh", "the suite this test belongs to"),
    (
        "abbe lab",
        "3 minutes to over an hour each: tests/lab.rs runs the quick profile",
    ),
    (
        "cargo install --path crates/abbe-cli",
        "installs the binary this test runs from target/",
    ),
    (
        "scripts/measure-broadcast-keys.sh",
        "minutes at N = 10^6; its commands are the ones run above",
    ),
    (
        "pip install ./bindings/python",
        "scripts/test-python.sh installs it into a fresh venv and pytest runs the README's Python",
    ),
    (
        "cargo bench",
        "criterion benchmarks, minutes each: checked here to name benches that exist",
    ),
];

/// The user's own files the examples encrypt, and their sizes.
const FIXTURES: &[(&str, usize)] = &[
    ("record.pdf", 200_000),
    ("note.txt", 1_000),
    ("movie.mp4", 1_000_000),
    ("show.mp4", 10_000),
    ("m.txt", 100),
];

/// What the examples decrypt, and the original each must equal.
const ROUND_TRIPS: &[(&str, &str)] = &[
    ("opened.pdf", "record.pdf"),
    ("shared.pdf", "record.pdf"),
    ("shared.proxy.pdf", "record.pdf"),
    ("note.out.txt", "note.txt"),
    ("movie.out.mp4", "movie.mp4"),
    ("m.out.txt", "m.txt"),
];

/// Waits for a background server's ready line; fails if it exits first.
const PRELUDE: &str = r#"set -euo pipefail
ready() {
    for _ in $(seq 600); do
        if grep -q -e 'listening on' -e 'subscribed to' "$1"; then return 0; fi
        if ! kill -0 "$2" 2>/dev/null; then cat "$1" >&2; return 1; fi
        sleep 0.1
    done
    cat "$1" >&2; return 1
}
trap 'kill $(jobs -p) 2>/dev/null || true; wait' EXIT
PS4='+ README: '
set -x
"#;

fn readme_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md")
}

/// The ```sh blocks: each a list of logical lines (continuations joined).
fn sh_blocks(readme: &str) -> Vec<Vec<String>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<String>> = None;
    let mut pending = String::new();
    for line in readme.lines() {
        match current.as_mut() {
            None if line.trim_end() == "```sh" => current = Some(Vec::new()),
            None => {}
            Some(_) if line.starts_with("```") => {
                assert!(pending.is_empty(), "a ```sh block ends in a continuation");
                blocks.extend(current.take());
            }
            Some(block) => {
                pending.push_str(line);
                if line.ends_with('\\') {
                    pending.push('\n');
                } else {
                    block.push(std::mem::take(&mut pending));
                }
            }
        }
    }
    assert!(current.is_none(), "an unterminated ```sh block");
    blocks
}

fn not_run(line: &str) -> Option<usize> {
    NOT_RUN.iter().position(|(p, _)| line.starts_with(p))
}

/// `cmd &  # comment` → the command, if the line runs in the background.
fn background(line: &str) -> Option<&str> {
    let code = line.split(" #").next().unwrap_or(line).trim_end();
    let cmd = code.strip_suffix('&')?;
    (!cmd.ends_with('&')).then(|| cmd.trim_end())
}

/// The bash script for a block, and whether it ran anything.
fn script(block: &[String], ports: &[(&str, String)], used: &mut [bool]) -> (String, bool) {
    let mut s = String::from(PRELUDE);
    let mut runs = false;
    for (n, line) in block.iter().enumerate() {
        if let Some(i) = not_run(line) {
            used[i] = true;
            continue;
        }
        let mut line = line.clone();
        for (from, to) in ports {
            line = line.replace(from, to);
        }
        match background(&line) {
            Some(cmd) => s += &format!("{cmd} 2>bg{n}.err &\nready bg{n}.err $!\n"),
            None => s += &format!("{line}\n"),
        }
        runs |= !line.trim().is_empty() && !line.trim_start().starts_with('#');
    }
    (s, runs)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn readme_examples_run_as_written() {
    let readme = fs::read_to_string(readme_path()).unwrap();
    let blocks = sh_blocks(&readme);
    assert!(blocks.len() >= 8, "README's ```sh blocks not found");
    let dir = tempfile::tempdir().unwrap();
    for (i, (name, len)) in FIXTURES.iter().enumerate() {
        fs::write(dir.path().join(name), common::data(len + i)).unwrap();
    }
    let broker = match mosquitto::find() {
        Some(bin) => {
            let bdir = tempfile::tempdir().unwrap();
            Some((
                Mosquitto::start(&bin, bdir.path(), None, None).unwrap(),
                bdir,
            ))
        }
        None => {
            assert!(
                std::env::var_os("ABBE_REQUIRE_MOSQUITTO").is_none(),
                "mosquitto is required (scripts/install-mosquitto.sh)"
            );
            eprintln!("skipping the MQTT example: no mosquitto (scripts/install-mosquitto.sh)");
            None
        }
    };
    let mut ports = vec![("127.0.0.1:8700", format!("127.0.0.1:{}", free_port()))];
    if let Some((b, _)) = &broker {
        ports.push(("127.0.0.1:1883", format!("127.0.0.1:{}", b.port())));
    }
    let bin_dir = Path::new(common::BIN).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut used = vec![false; NOT_RUN.len()];
    let mut stdout = String::new();
    for block in &blocks {
        if broker.is_none() && block.iter().any(|l| l.contains("abbe mqtt")) {
            continue;
        }
        let (script, runs) = script(block, &ports, &mut used);
        if !runs {
            continue;
        }
        let out = Command::new("bash")
            .arg("-c")
            .arg(&script)
            .current_dir(dir.path())
            .env("PATH", &path)
            .env("HOME", dir.path())
            .env_remove("ABBE_PASSPHRASE_FILE")
            .env_remove("ABBE_PROXY_TOKEN")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "a README example failed:\n{script}\n--- stderr:\n{err}"
        );
        stdout += &String::from_utf8_lossy(&out.stdout);
    }
    for (i, (prefix, why)) in NOT_RUN.iter().enumerate() {
        assert!(used[i], "NOT_RUN names no README line: {prefix} ({why})");
    }
    for (out, original) in ROUND_TRIPS {
        let d = dir.path();
        assert_eq!(
            fs::read(d.join(out)).unwrap_or_default(),
            fs::read(d.join(original)).unwrap(),
            "{out} is not {original}"
        );
    }
    assert!(
        stdout.contains("accused: user 42\n") && stdout.contains("accused: user 7\n"),
        "the tracer did not accuse the decoders' keys:\n{stdout}"
    );
    if broker.is_some() {
        assert!(
            stdout.contains("21.5\n21.7\n"),
            "the subscriber did not print both readings:\n{stdout}"
        );
    }
    for f in ["abbe.bash", "abbe.1"] {
        assert!(fs::metadata(dir.path().join(f)).unwrap().len() > 0, "{f}");
    }
}

/// The benchmarks the README names exist (they are not run here).
#[test]
fn readme_benches_exist() {
    let readme = fs::read_to_string(readme_path()).unwrap();
    let benches = Path::new(env!("CARGO_MANIFEST_DIR")).join("../abbe/benches");
    let mut named = 0;
    for line in sh_blocks(&readme).concat() {
        if let Some(rest) = line.strip_prefix("cargo bench -p abbe ") {
            let name = rest
                .split_whitespace()
                .skip_while(|w| *w != "--bench")
                .nth(1)
                .expect("a cargo bench line names its --bench");
            assert!(
                benches.join(format!("{name}.rs")).is_file(),
                "README names a bench that does not exist: {name}"
            );
            named += 1;
        }
    }
    assert!(named > 0, "README names no bench");
}
