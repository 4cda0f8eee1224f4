#!/usr/bin/env bash
# Load benchmark (not a test) of `abbe proxy serve`: transforms of Waters11
# ciphertexts on BLS12-381 with policies of N = 10 and N = 100 leaves
# (AND of N attributes), pushed as whole files (1 KiB payload) with wrk over
# loopback. Reports throughput and p50/p99 latency, the single-transform
# time from the proxy's own metrics (sequential run), for the target
# throughput >= 0.8 x (cores / single-transform time), and beside it the
# bare transformation on decoded objects (examples/latency.rs, same run):
# "of bare" = req/s / (cores in use / bare time), the target >= 0.9.
#
#   scripts/load-test.sh [DURATION_SECONDS] [MODE]     # defaults: 15 cpa
set -euo pipefail
cd "$(dirname "$0")/.."
DUR=${1:-15}
MODE=${2:-cpa}
ABBE=${ABBE:-target/release/abbe}
command -v wrk >/dev/null || { echo "wrk is missing (apt-get install wrk)" >&2; exit 1; }
[ -x "$ABBE" ] || CARGO_BUILD_JOBS=1 nice -n 10 cargo build --release -p abbe-cli
LATENCY=target/release/examples/latency
[ -x "$LATENCY" ] || CARGO_BUILD_JOBS=1 nice -n 10 cargo build --release -p abbe-proxy --example latency
WORK=$(mktemp -d /tmp/abbe-load.XXXXXX)
PORT=${PORT:-$((20000 + RANDOM % 20000))}
URL="http://127.0.0.1:$PORT"
SERVER=""
cleanup() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

attrs=$(seq -s ', ' -f 'a%g' 1 100)
"$ABBE" setup --out "$WORK/keys" 2>/dev/null
"$ABBE" keygen --master "$WORK/keys/master.key" --attrs "$attrs" -o "$WORK/u.key"
"$ABBE" transform-key --key "$WORK/u.key" --tk "$WORK/u.tk" --rk "$WORK/u.rk"
TOKEN=$("$ABBE" proxy token create --store "sqlite:$WORK/p.db" --tenant load 2>/dev/null)
head -c 1024 /dev/urandom > "$WORK/payload"
# One tenant drives the load: its quotas are lifted (they are for sharing).
"$ABBE" proxy serve --listen "127.0.0.1:$PORT" --store "sqlite:$WORK/p.db" \
    --tenant-concurrency 0 --tenant-rate 0 2>"$WORK/server.log" &
SERVER=$!
for _ in $(seq 1 100); do curl -sf "$URL/healthz" >/dev/null 2>&1 && break; sleep 0.05; done
echo "$TOKEN" > "$WORK/token"
ID=$("$ABBE" proxy register --tk "$WORK/u.tk" --proxy "$URL" --token-file "$WORK/token")

metric() { # sum count of the transform histogram for this mode
    curl -s "$URL/metrics" | awk -v m="mode=\"$MODE\"" '
        index($0, "abbe_proxy_transform_duration_seconds_sum") && index($0, m) {s=$2}
        index($0, "abbe_proxy_transform_duration_seconds_count") && index($0, m) {c=$2}
        END {print s+0, c+0}'
}

# The bare transformation (pairings on decoded TK and header), median of 20.
"$LATENCY" 10 100 --rounds 20 > "$WORK/bare"
bare_ms() { awk -v n="$1" -v m="$MODE" '$1==n && $2==m {print $5}' "$WORK/bare"; }
echo "load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %-4s %10s %10s %10s %10s %12s %10s %8s %8s\n' N conc "req/s" "p50" "p99" "single ms" "target req/s" "ratio" "bare ms" "of bare"
for N in 10 100; do
    policy=$(seq -s ' and ' -f 'a%g' 1 "$N")
    "$ABBE" encrypt --mode "$MODE" --public "$WORK/keys/public.key" --policy "$policy" -o "$WORK/ct$N" "$WORK/payload"
    cat > "$WORK/post$N.lua" <<LUA
wrk.method = "POST"
local f = io.open("$WORK/ct$N", "rb")
wrk.body = f:read("*all")
f:close()
wrk.headers["Authorization"] = "Bearer $TOKEN"
wrk.headers["Content-Type"] = "application/octet-stream"
LUA
    # Check one request by hand, then warm up.
    code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer $TOKEN" --data-binary "@$WORK/ct$N" "$URL/v1/tks/$ID/transform")
    [ "$code" = 200 ] || { echo "transform answered $code" >&2; exit 1; }
    wrk -t1 -c1 -d2s -s "$WORK/post$N.lua" "$URL/v1/tks/$ID/transform" >/dev/null
    # Sequential: the single-transform time (pairing work only, from the metrics).
    read -r s0 c0 < <(metric)
    wrk -t1 -c1 -d"${DUR}s" --latency -s "$WORK/post$N.lua" "$URL/v1/tks/$ID/transform" > "$WORK/seq$N"
    read -r s1 c1 < <(metric)
    single=$(awk -v a="$s0" -v b="$s1" -v c="$c0" -v d="$c1" 'BEGIN{printf "%.3f", (b-a)/(d-c)*1000}')
    cores=$(nproc)
    for C in 1 8; do
        if [ "$C" = 1 ]; then out="$WORK/seq$N"; else
            out="$WORK/par$N"
            wrk -t1 -c"$C" -d"${DUR}s" --latency -s "$WORK/post$N.lua" "$URL/v1/tks/$ID/transform" > "$out"
        fi
        rps=$(awk '/Requests\/sec/ {print $2}' "$out")
        p50=$(awk '$1=="50%" {print $2}' "$out")
        p99=$(awk '$1=="99%" {print $2}' "$out")
        errs=$(awk '/Non-2xx/ {print $4}' "$out")
        target=$(awk -v s="$single" -v c="$cores" 'BEGIN{printf "%.1f", 0.8*c/(s/1000)}')
        ratio=$(awk -v r="$rps" -v s="$single" -v c="$cores" 'BEGIN{printf "%.2f", r/(c/(s/1000))}')
        bare=$(bare_ms "$N")
        # Per core in use: one at concurrency 1, every core above.
        used=$(( C < cores ? C : cores ))
        of_bare=$(awk -v r="$rps" -v s="$bare" -v c="$used" 'BEGIN{printf "%.2f", r/(c/(s/1000))}')
        printf '%-5s %-4s %10s %10s %10s %10s %12s %10s %8s %8s %s\n' "$N" "$C" "$rps" "$p50" "$p99" "$single" "$target" "$ratio" "$bare" "$of_bare" "${errs:+($errs non-2xx)}"
    done
done
echo "ratio = req/s / (cores / single-transform time); the target is >= 0.80 at concurrency 8."
echo "of bare = req/s / (cores in use / bare transformation time); the target is >= 0.90."
echo "load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "(wrk runs on the same $cores cores as the proxy.)"
