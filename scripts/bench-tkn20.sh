#!/usr/bin/env bash
# abbe's TKN20 beside CIRCL's (Go), interleaved in one run: ROUNDS rounds of
# (CIRCL's driver, then abbe-peers' TKN20 group), each single-threaded, at
# N = 10, 25, 50, 100 (flat AND; CIRCL also its own benchmark policies).
# The summary takes each implementation's best median over the rounds and
# records the load average. Needs Go and the Go module proxy (CIRCL v1.6.5),
# so it is a manual tool, not part of the tests.
#
#   scripts/bench-tkn20.sh [ROUNDS] [OUT_DIR]
# ABBE_CARGO_PROFILE=ci reuses the test build (release without LTO).
set -euo pipefail
rounds=${1:-3}
out=${2:-results/bench-tkn20}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
(cd "$root/crates/abbe-peers/go/tkn20" && go build -o "$out/circl-tkn20" .)
profile=${ABBE_CARGO_PROFILE:-release}
cargo build --profile "$profile" -p abbe-peers --manifest-path "$root/Cargo.toml"
peers="$root/target/$profile/abbe-peers"
for r in $(seq 1 "$rounds"); do
  echo "round $r/$rounds: load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/load.txt"
  "$out/circl-tkn20" --n 10,25,50,100 --reps 10 --circl-bench > "$out/circl-$r.csv"
  "$peers" --n 10,25,50,100 --only Tkn20 --threads 1 --csv "$out/abbe-$r.csv" > /dev/null
done
echo "end: load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/load.txt"
python3 - "$out" "$rounds" <<'PY'
import csv, sys
out, rounds = sys.argv[1], int(sys.argv[2])
best = {}
def keep(key, v):
    if v:
        best[key] = min(best.get(key, float("inf")), float(v))
for r in range(1, rounds + 1):
    for row in csv.DictReader(open(f"{out}/circl-{r}.csv")):
        if row["workload"] == "and" and row["op"] in ("keygen", "encrypt", "decrypt"):
            keep(("CIRCL tkn20 (CCA2)", int(row["n"]), row["op"]), row["cpu_median_ms"])
    for row in csv.DictReader(open(f"{out}/abbe-{r}.csv")):
        if row["role"] == "ratio" or not row["keygen_ms"] or row["curve"] != "BLS12-381":
            continue
        for op in ("keygen", "encrypt", "decrypt"):
            keep((row["implementation"], int(row["n"]), op), row[f"{op}_ms"])
impls = sorted({k[0] for k in best})
print("ms, best median of", rounds, "interleaved rounds, BLS12-381, one thread")
print("| N | op | " + " | ".join(impls) + " | CIRCL / abbe Tkn20 | CIRCL / abbe Tkn20 CCA |")
print("|---|---|" + "---|" * (len(impls) + 2))
for n in (10, 25, 50, 100):
    for op in ("keygen", "encrypt", "decrypt"):
        cells = [best.get((i, n, op)) for i in impls]
        c = best.get(("CIRCL tkn20 (CCA2)", n, op))
        a = best.get(("abbe Tkn20", n, op))
        cca = best.get(("abbe Tkn20 CCA", n, op))
        ratio = lambda x: f"{c / x:.1f}" if c and x else ""
        print(f"| {n} | {op} | " + " | ".join(f"{v:.2f}" if v else "" for v in cells)
              + f" | {ratio(a)} | {ratio(cca)} |")
PY
