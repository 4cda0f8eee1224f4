#!/usr/bin/env bash
# The Python bindings' tests: a private venv (target/pyvenv) with maturin,
# pytest, hypothesis and mypy; the package built in release mode into it;
# mypy on the stubs; pytest. Run by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/pyvenv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    'maturin>=1.5,<2' 'pytest>=7' 'hypothesis>=6' 'mypy>=1.5'
# The interop tests run the abbe binary. Built as `cargo test --workspace`
# builds it (same features), so after scripts/test.sh's test run this is a
# no-op rather than a rebuild of the workspace with `-p abbe-cli`'s features.
cargo test --workspace --release --no-run --quiet
# maturin builds with cargo into target/ like the rest of the workspace.
VIRTUAL_ENV="$PWD/$venv" "$venv/bin/maturin" develop --release --quiet \
    --manifest-path bindings/python/Cargo.toml
"$venv/bin/mypy" --strict bindings/python/python/abbe bindings/python/tests
ABBE_BIN="$PWD/target/release/abbe" "$venv/bin/pytest" -q bindings/python/tests "$@"
