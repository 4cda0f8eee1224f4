//! Records the versions of the cryptographic backends (from Cargo.lock) and
//! of rustc, so the report's environment section states what was measured
//! without anyone typing it in.

use std::process::Command;

const BACKENDS: [&str; 8] = [
    "blstrs",
    "blst",
    "ark-bn254",
    "ark-ec",
    "p256",
    "rsa",
    "aes-gcm",
    "sha2",
];

fn main() {
    let lock = concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.lock");
    println!("cargo:rerun-if-changed={lock}");
    let text = std::fs::read_to_string(lock).unwrap_or_default();
    let mut found = Vec::new();
    let mut name = String::new();
    for line in text.lines() {
        if let Some(v) = line.strip_prefix("name = ") {
            name = v.trim_matches('"').to_string();
        } else if let Some(v) = line.strip_prefix("version = ") {
            if BACKENDS.contains(&name.as_str()) {
                found.push(format!("{} {}", name, v.trim_matches('"')));
            }
        }
    }
    found.sort();
    found.dedup();
    println!("cargo:rustc-env=ABBE_LAB_BACKENDS={}", found.join(", "));
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .unwrap_or_default();
    println!("cargo:rustc-env=ABBE_LAB_RUSTC={}", version.trim());
}
