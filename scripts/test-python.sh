#!/usr/bin/env bash
# The Python bindings' tests: a private venv (target/pyvenv) with pytest,
# hypothesis and mypy; the package built (in $ABBE_CARGO_PROFILE, release
# when unset) and installed into it; mypy on the stubs; pytest. Run by
# scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/pyvenv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    'pytest>=7' 'hypothesis>=6' 'mypy>=1.5'
# The module is built by the workspace's own build, with the features
# `cargo test --workspace` resolves, so nothing is compiled a second time
# (a `maturin develop` build of the one package resolves its dependencies'
# features differently and recompiles ~90 crates, the library among them).
# It is installed as `maturin develop` installs it: editable, the module
# beside the package sources. Wheels are built by maturin (README).
profile=${ABBE_CARGO_PROFILE:-release}
cargo build --workspace --profile "$profile" --lib --bins --tests --quiet \
    --features abbe-python/extension-module
cp "target/$profile/lib_abbe.so" bindings/python/python/abbe/_abbe.abi3.so
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$PWD/bindings/python/python" >"$site/abbe.pth"
"$venv/bin/mypy" --strict bindings/python/python/abbe bindings/python/tests
ABBE_BIN="$PWD/target/$profile/abbe" "$venv/bin/pytest" -q bindings/python/tests "$@"
