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
cargo test --workspace --release --lib --bins --tests
cargo test --workspace --release --doc
bash scripts/test-postgres.sh
bash scripts/test-python.sh
