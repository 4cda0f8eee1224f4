#!/usr/bin/env bash
# Records the rows of crates/abbe-lab/tests/verdicts_under_load.rs: three
# quick runs of the lab on this machine — idle, beside two CPU-bound
# processes, and idle again — each kept as compact JSON in
# crates/abbe-lab/tests/data/quick-{idle,loaded,repeat}/.
#
#   scripts/lab-load-fixtures.sh
#
# Run it on an otherwise idle 2-core machine: the test checks that the idle
# runs were not under load and the loaded one was.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p abbe-cli
work=$(mktemp -d)
hogs=()
trap 'kill "${hogs[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
for run in idle loaded repeat; do
    if [[ $run == loaded ]]; then
        for _ in 1 2; do
            yes >/dev/null &
            hogs+=($!)
        done
        sleep 60 # the load average is a one-minute average
    fi
    start=$(date +%s)
    target/release/abbe lab --profile quick --quiet --out "$work/$run" >/dev/null
    echo "$run: $(($(date +%s) - start)) s, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    if [[ $run == loaded ]]; then
        kill "${hogs[@]}"
        hogs=()
        sleep 60
    fi
    dest=crates/abbe-lab/tests/data/quick-$run
    rm -rf "$dest"
    mkdir -p "$dest"
    for f in "$work/$run"/results/*.json; do
        python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1])), open(sys.argv[2], "w"), separators=(",", ":"))' \
            "$f" "$dest/$(basename "$f")"
    done
done
du -sh crates/abbe-lab/tests/data/quick-*
