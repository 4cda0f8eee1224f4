#!/usr/bin/env bash
# Debian's mosquitto broker and clients, for `abbe mqtt`'s end-to-end tests
# (crates/abbe-cli/tests/mqtt.rs starts its own broker on loopback). Installs
# them with apt-get when missing and running as root; otherwise says what to
# install.
set -euo pipefail
if [ -x /usr/sbin/mosquitto ] && command -v mosquitto_sub >/dev/null && command -v mosquitto_pub >/dev/null; then
    exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing mosquitto and mosquitto-clients (apt-get)" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mosquitto mosquitto-clients >/dev/null
    exit 0
fi
echo "no mosquitto found: install Debian's mosquitto and mosquitto-clients packages" >&2
exit 1
