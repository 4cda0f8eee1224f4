#!/usr/bin/env bash
# The whole test suite (the README's test command; .ci/run runs exactly this):
# every workspace test, then the proxy's suite and fleet test against a real
# PostgreSQL on a throw-away cluster (scripts/test-postgres.sh). Fails when any
# test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --release
bash scripts/test-postgres.sh
