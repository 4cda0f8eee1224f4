#!/usr/bin/env bash
# Crash test of the proxy's durability: registers TKs in a loop (two
# concurrent clients), kill -9s the proxy at a random moment, restarts it and
# checks that every TK acknowledged with 201 is still there. Repeats ROUNDS
# times (default 50). Loopback only.
#
#   scripts/crash-test.sh [ROUNDS]          # SQLite (default store)
#   STORE=postgres://... scripts/crash-test.sh 20
#
# Uses target/release/abbe (built if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-50}
ABBE=${ABBE:-target/release/abbe}
[ -x "$ABBE" ] || CARGO_BUILD_JOBS=1 nice -n 10 cargo build --release -p abbe-cli
WORK=$(mktemp -d /tmp/abbe-crash.XXXXXX)
STORE=${STORE:-sqlite:$WORK/proxy.db}
PORT=${PORT:-$((20000 + RANDOM % 20000))}
URL="http://127.0.0.1:$PORT"
SERVER=""
LOOPS=()
cleanup() {
    for p in "${LOOPS[@]}"; do kill "$p" 2>/dev/null || true; done
    [ -n "$SERVER" ] && { kill "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null; } || true
    rm -rf "$WORK"
}
trap cleanup EXIT

"$ABBE" setup --out "$WORK/keys" 2>/dev/null
"$ABBE" keygen --master "$WORK/keys/master.key" --attrs "doctor, cardiology" -o "$WORK/alice.key"
"$ABBE" transform-key --key "$WORK/alice.key" --tk "$WORK/alice.tk" --rk "$WORK/alice.rk"
TOKEN=$("$ABBE" proxy token create --store "$STORE" --tenant crash 2>/dev/null)
: > "$WORK/acked"

start_server() {
    # Registrations as fast as they go: the per-tenant quotas are lifted.
    "$ABBE" proxy serve --listen "127.0.0.1:$PORT" --store "$STORE" \
        --tenant-concurrency 0 --tenant-rate 0 2>>"$WORK/server.log" &
    SERVER=$!
    for _ in $(seq 1 200); do
        curl -sf "$URL/healthz" >/dev/null 2>&1 && return 0
        sleep 0.02
    done
    echo "the proxy did not start" >&2; cat "$WORK/server.log" >&2; exit 1
}

# One client: registers TKs as fast as it can, records each id only after
# its 201 arrived.
register_loop() {
    while :; do
        out=$(curl -s -m 5 -w '\n%{http_code}' -X POST -H "Authorization: Bearer $TOKEN" \
            --data-binary "@$WORK/alice.tk" "$URL/v1/tks" 2>/dev/null) || { sleep 0.01; continue; }
        code=${out##*$'\n'}
        if [ "$code" = 201 ]; then
            id=$(printf '%s' "${out%$'\n'*}" | sed -n 's/.*"id":"\([0-9a-f]*\)".*/\1/p')
            [ -n "$id" ] && echo "$id" >> "$WORK/acked.$1"
        fi
    done
}

lost_total=0
for round in $(seq 1 "$ROUNDS"); do
    start_server
    LOOPS=()
    for c in 1 2; do register_loop "$c" & LOOPS+=($!); done
    sleep "0.$(printf '%03d' $((RANDOM % 900 + 50)))"
    kill -9 "$SERVER"; wait "$SERVER" 2>/dev/null || true
    for p in "${LOOPS[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
    cat "$WORK"/acked.* 2>/dev/null | sort -u > "$WORK/acked"
    start_server
    curl -sf -H "Authorization: Bearer $TOKEN" "$URL/v1/tks" | jq -r '.ids[]' | sort -u > "$WORK/present"
    lost=$(comm -23 "$WORK/acked" "$WORK/present" | wc -l)
    lost_total=$((lost_total + lost))
    printf 'round %3d: %6d acknowledged, %6d present, %d lost\n' \
        "$round" "$(wc -l < "$WORK/acked")" "$(wc -l < "$WORK/present")" "$lost"
    kill -9 "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=""
done
# A final end-to-end check that a surviving TK still transforms.
start_server
id=$(head -1 "$WORK/acked")
echo "hello" | "$ABBE" encrypt --public "$WORK/keys/public.key" --policy "doctor" --mode rcca -o "$WORK/ct"
echo "$TOKEN" > "$WORK/token"
got=$("$ABBE" decrypt --key "$WORK/alice.rk" --proxy "$URL" --tk-id "$id" --token-file "$WORK/token" "$WORK/ct")
[ "$got" = hello ] || { echo "decryption through a surviving TK failed" >&2; exit 1; }
echo "crash test: $ROUNDS kill -9 rounds, $(wc -l < "$WORK/acked") TKs acknowledged, $lost_total lost"
[ "$lost_total" = 0 ]
