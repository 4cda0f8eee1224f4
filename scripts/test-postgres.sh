#!/usr/bin/env bash
# Runs the proxy's test suite against a real PostgreSQL (including the fleet
# test: two proxies on one database).
#
# Starts a throw-away PostgreSQL 15 cluster in a temp dir on a loopback port
# (as the `postgres` user when run as root: root cannot run postgres), exports
# ABBE_TEST_POSTGRES_URL, runs the workspace's proxy tests (built in
# $ABBE_CARGO_PROFILE, release when unset), and stops and removes the
# cluster on exit.
#
#   scripts/test-postgres.sh [extra cargo test args]
#   PG_BIN=/usr/lib/postgresql/15/bin PG_PORT=55432 scripts/test-postgres.sh
set -euo pipefail
cd "$(dirname "$0")/.."

PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
PG_PORT=${PG_PORT:-$((40000 + RANDOM % 20000))}
if [ ! -x "${PG_BIN:-}/initdb" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    # The project installs what it needs: Debian's PostgreSQL server.
    echo "installing postgresql (apt-get)" >&2
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
    PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
fi
[ -x "${PG_BIN:-}/initdb" ] || { echo "no PostgreSQL found (apt-get install postgresql)" >&2; exit 1; }

DATA=$(mktemp -d /tmp/abbe-pg.XXXXXX)
as_pg() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}
if [ "$(id -u)" = 0 ]; then chown postgres "$DATA"; fi
cleanup() {
    as_pg "$PG_BIN/pg_ctl" -D "$DATA/db" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$DATA"
}
trap cleanup EXIT

as_pg "$PG_BIN/initdb" -D "$DATA/db" -U abbe --auth=trust -E UTF8 >/dev/null
as_pg "$PG_BIN/pg_ctl" -D "$DATA/db" -l "$DATA/log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $DATA -c fsync=on" start >/dev/null
as_pg "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U abbe abbe_test

export ABBE_TEST_POSTGRES_URL="postgres://abbe@127.0.0.1:$PG_PORT/abbe_test"
echo "PostgreSQL on $ABBE_TEST_POSTGRES_URL"
# Built as the workspace's test run builds (scripts/test.sh ran it just
# before), so the features are the same and nothing recompiles: `-p`
# selections resolve features differently and rebuilt abbe and sqlx.
cargo test --profile "${ABBE_CARGO_PROFILE:-release}" --workspace --test proxy "$@" -- --nocapture
