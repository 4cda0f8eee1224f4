#!/usr/bin/env bash
# Debian's chromium, for the lab's end-to-end test (the report rendered in a
# headless browser). Installs it with apt-get when missing and running as root;
# otherwise says what to install.
set -euo pipefail
for b in chromium chromium-browser; do
    command -v "$b" >/dev/null && exit 0
done
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing chromium (apt-get)" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
    exit 0
fi
echo "no Chromium found: install Debian's chromium package (apt-get install chromium)" >&2
exit 1
