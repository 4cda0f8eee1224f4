#!/usr/bin/env bash
# The whole test suite (the README's test command; .ci/run runs exactly this):
# every workspace test — including the lab's end-to-end test, which opens the
# report in headless Chromium (installed here when missing) and `abbe mqtt`'s
# tests against a real mosquitto (installed here when missing) — then the proxy's
# suite and fleet test against a real PostgreSQL on a throw-away cluster
# (scripts/test-postgres.sh), then the Python bindings' pytest suite in a private
# venv (scripts/test-python.sh). Fails when any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-chromium.sh
bash scripts/install-mosquitto.sh
export ABBE_REQUIRE_BROWSER=1 ABBE_REQUIRE_MOSQUITTO=1
# Libraries, binaries and test files, then the doc tests; not the examples
# (`cargo clippy --all-targets` checks they build; they run nothing here).
# The lab's end-to-end test (`test = false` in crates/abbe-cli/Cargo.toml)
# is mostly one single-threaded lab run: its binary runs niced in the
# background, on the CPU time the other tests leave idle (the tails of
# test binaries, servers starting, pip), and is waited for at the end.
# Built in the `ci` profile (Cargo.toml): release code without the ThinLTO
# pass across codegen units, the larger part of compiling the generic crates.
export ABBE_CARGO_PROFILE=ci
logs=$(mktemp -d)
trap 'kill "${lab_pid:-}" 2>/dev/null || true; rm -rf "$logs"' EXIT
cargo test --workspace --profile ci --lib --bins --tests --no-run
cargo test --workspace --profile ci --test lab --no-run 2>&1 | tee "$logs/build"
lab=$(sed -n 's/.*Executable tests\/lab\.rs (\(.*\))$/\1/p' "$logs/build")
[ -x "$lab" ] || { echo "no lab test binary in the build's output" >&2; exit 1; }
lab="$PWD/$lab"
(cd crates/abbe-cli && exec nice -n 10 "$lab") >"$logs/lab" 2>&1 &
lab_pid=$!
cargo test --workspace --profile ci --lib --bins --tests
cargo test --workspace --profile ci --doc
bash scripts/test-postgres.sh
bash scripts/test-python.sh
lab_status=0
wait "$lab_pid" || lab_status=$?
echo "lab end-to-end test (tests/lab.rs):"
cat "$logs/lab"
[ "$lab_status" = 0 ] || { echo "the lab's end-to-end test failed" >&2; exit 1; }
