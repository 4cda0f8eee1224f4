#!/usr/bin/env bash
# Readings/s and end-to-end latency through a real mosquitto on loopback:
# per-message ABE vs epoch keys, 64 B and 1 KiB readings, 1/10/30
# attributes, Waters11 (CP) and GPSW06 (KP) on BLS12-381. The lab's
# perazzo-broker table runs the same benchmark (abbe_mqtt::bench).
#   scripts/mqtt-bench.sh [--full] [--broker mqtt://HOST:PORT]
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ " $* " != *" --broker "* ]]; then
    scripts/install-mosquitto.sh
fi
exec cargo run --quiet --release -p abbe-mqtt --example bench -- "$@"
