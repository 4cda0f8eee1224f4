#!/usr/bin/env bash
# Broadcast keys at scale through the binary (BGW05, N = 10^6, a random
# |S| = 10^5, BN254): wall time and peak RSS of setup, keygen, encrypt and
# decrypt of a 1 MB file, and the sizes of the user key, the public key and
# the ciphertext. Decryption reads only the 2|S| public-key elements it
# needs (--public). Needs ~200 MB of disk in $TMPDIR and GNU time.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet -p abbe-cli
B=$PWD/target/release/abbe
[ -x /usr/bin/time ] || { echo "needs GNU time (/usr/bin/time)" >&2; exit 1; }
D=$(mktemp -d "${TMPDIR:-/tmp}/abbe-keys.XXXXXX")
trap 'rm -rf "$D"' EXIT
cd "$D"
/usr/bin/time -f "setup %e s %M KB" $B setup --scheme bgw05 --curve bn254 --users 1000000 --out k
/usr/bin/time -f "keygen %e s %M KB" $B keygen --master k/master.key --user 42 -o u42.key
# S: 10^5 users drawn reproducibly from [1, 10^6], user 42 among them.
{ shuf -n 99999 -i 1-1000000 --random-source=<(yes); echo 42; } | sort -nu >ids.txt
head -c 1000000 /dev/urandom > msg
/usr/bin/time -f "encrypt %e s %M KB" $B encrypt --public k/public.key --to-file ids.txt -o msg.abbe msg
/usr/bin/time -f "decrypt %e s %M KB" $B decrypt --key u42.key --public k/public.key -o out msg.abbe
cmp msg out && echo "round trip ok"
ls -l u42.key k/public.key msg.abbe | awk '{print $5, $9}'
