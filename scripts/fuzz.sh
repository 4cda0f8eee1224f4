#!/usr/bin/env bash
# Runs cargo-fuzz targets of fuzz/ for SECONDS each (default 60), all of
# them or those named:
#
#   scripts/fuzz.sh [SECONDS [TARGET...]]
#
# Installs cargo-fuzz (nightly) when missing, seeds the corpora from
# tests/vectors (fuzz/corpus/<target>/, not committed), builds the targets
# once (release; no sanitizer by default — the only unsafe code is blst's,
# and a plain build runs several times faster; FUZZ_SANITIZER=address for
# AddressSanitizer), then fuzzes them one after the other and prints, per
# target, the executions of this run, the executions so far in total (kept
# in fuzz/target/execs.tsv, one line per run) and whether it crashed (the
# input is in fuzz/artifacts/<target>/, the log in
# fuzz/target/logs/<target>.log). Exits non-zero when a target crashed.
# Reproduce a crash with
#   cargo +nightly fuzz run -s none <target> fuzz/artifacts/<target>/crash-...
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-60}
if ! [[ $secs =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: scripts/fuzz.sh [SECONDS per target, default 60 [TARGET...]]" >&2
    exit 2
fi
all=(objects objects_high files armor protected policy proxy_head points points_high mqtt_record)
targets=("${@:2}")
[[ ${#targets[@]} -gt 0 ]] || targets=("${all[@]}")
for t in "${targets[@]}"; do
    if [[ " ${all[*]} " != *" $t "* ]]; then
        echo "unknown target $t (targets: ${all[*]})" >&2
        exit 2
    fi
done
sanitizer=${FUZZ_SANITIZER:-none}

if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "installing cargo-fuzz"
    cargo +nightly install cargo-fuzz --locked
fi

# Seeds. Every `name = hex` line of tests/vectors is an object; the objects
# nested in it (length-prefixed "ABBE..." inside files, CCA headers and
# keys) are seeds too. objects: a family selector byte (see
# fuzz/src/objects.rs: index in SchemeId::ALL << 3 | curve id) and the
# object; objects_high: the same for BLS24-479 and BLS48-581 (curve ids
# 4, 5), only Waters11's objects up to 1 KiB: their points are slow to
# decode, and the decoders are generic over the curve, so these few reach
# the curves' own code;
# files: the files; proxy_head: files and KEM headers; armor: the
# objects armored, and raw; protected: the secret keys; policy: policies
# and attribute lists; mqtt_record: the files as epoch keys and sealed
# readings, and readings unsigned and signed (BLS12-381's 144-byte block).
# points takes structured input, no seeds.
for t in "${all[@]}"; do mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"; done
perl -MMIME::Base64 - tests/vectors fuzz/corpus <<'PERL'
use strict;
use warnings;
my ($vectors, $corpus) = @ARGV;
# Scheme byte => index in SchemeId::ALL: the rows of the table of schemes,
# in order (crates/abbe/src/schemes.rs: `Name = byte, "name", ...`).
my %index;
open my $table, '<', 'crates/abbe/src/schemes.rs' or die "schemes.rs: $!";
while (<$table>) {
    $index{$1} = scalar keys %index if /^\s*\w+ = (\d+), "/;
}
close $table;
die "no rows in crates/abbe/src/schemes.rs" unless %index;
# armor::label, by object kind.
my @label = (undef, 'PUBLIC KEY', 'MASTER KEY', 'SCHEME USER KEY',
    'TRANSFORMATION KEY', 'CPA RETRIEVAL KEY', 'KEM HEADER',
    'TRANSFORMED KEM HEADER', 'ENCRYPTED FILE', 'TRANSFORMED FILE',
    'CCA KEM HEADER', 'USER KEY', 'RCCA KEM HEADER',
    'RCCA TRANSFORMED KEM HEADER', 'RETRIEVAL KEY', 'SIGNING KEY',
    'VERIFYING KEY', 'PROTECTED KEY');
my %secret = map { $_ => 1 } (2, 3, 4, 5, 11, 14, 15);
my %seeds;

sub put {
    my ($target, $name, $bytes) = @_;
    open my $f, '>:raw', "$corpus/$target/seed-$name" or die "$corpus/$target: $!";
    print $f $bytes;
    close $f;
    $seeds{$target}++;
}

# The object and every length-prefixed object inside it.
sub objects {
    my ($b) = @_;
    my @out = ($b);
    for (my $i = 4; ($i = index($b, 'ABBE', $i)) >= 0; $i++) {
        next if $i < 12;
        my $len = unpack 'N', substr($b, $i - 4, 4);
        push @out, substr($b, $i, $len) if $len >= 8 && $i + $len <= length $b;
    }
    @out;
}

sub armored {
    my ($obj, $kind) = @_;
    my $text = encode_base64($obj, '');
    $text =~ s/(.{1,64})/$1\n/g;
    "-----BEGIN ABBE $label[$kind]-----\n$text-----END ABBE $label[$kind]-----\n";
}

for my $path (sort glob "$vectors/*.txt") {
    (my $vec = $path) =~ s{^.*/|\.txt$}{}g;
    open my $f, '<', $path or die "$path: $!";
    while (<$f>) {
        next unless /^([a-z0-9-]+) = ([0-9a-f]+)\s*$/ && $1 ne 'plaintext';
        my ($name, $blob) = ($1, pack 'H*', $2);
        my $n = 0;
        for my $obj (objects($blob)) {
            my $id = $n++ ? "$vec-$name-$n" : "$vec-$name";
            my ($kind, $scheme, $curve) = map { ord substr($obj, $_, 1) } 5 .. 7;
            if ($kind == 8 || $kind == 9) {
                put('files', $id, $obj);
                if ($kind == 8) {
                    my $head = "AbMQ\x01%s\x00" . ("\x5a" x 16);
                    put('mqtt_record', "$id-epoch-key", sprintf($head, "\x01") . pack('N', 7) . $obj);
                    put('mqtt_record', "$id-sealed", sprintf($head, "\x03") . pack('NN', 0, 9) . $obj);
                }
            } elsif (exists $index{$scheme} && $curve < 4) {
                put('objects', $id, chr(($index{$scheme} << 3) | $curve) . $obj);
            } elsif (exists $index{$scheme} && $scheme == 1 && length $obj <= 1024) {
                put('objects_high', $id, chr(($index{$scheme} << 3) | $curve) . $obj);
            }
            put('proxy_head', $id, $obj) if $kind >= 6 && $kind <= 13 && $kind != 11;
            put('protected', $id, $obj) if $secret{$kind};
            if ($kind >= 1 && $kind <= 17 && length $obj <= 16384) {
                put('armor', "$id.asc", armored($obj, $kind));
                put('armor', $id, $obj) if $n == 1;
            }
        }
    }
}

my @policies = (
    '(doctor and cardiology) or 2 of (nurse, ward25, age >= 30)',
    'A B 2of2 C 1of2',
    '((A,B,2),(C,D,1),2)',
    '(a and b) or 2 of (c, d, n >= 5)',
    'a and (b or c)',
    'level < 5#4 && (x || "head of ward")',
    ' ( A , "b c" , E , 2 ) ',
    "  A\tB 2-of-2\nC 1-OF-2 ",
    'A B C 2of3',
    'doctor, cardiology, age = 42',
    '"head of ward", x, x, "a\"b"',
);
my $i = 0;
put('policy', $i++, $_) for @policies;
my $reading = "AbMQ\x01\x02%s" . ("\x5a" x 16) . pack('NNN', 7, 0, 9);
put('mqtt_record', 'reading', sprintf($reading, "\x00") . ("\xc3" x 21));
put('mqtt_record', 'reading-signed',
    sprintf($reading, "\x01") . "\x01" . ("\xa5" x 144) . ("\xc3" x 21));
printf "seeds: %s\n", join ', ', map { "$_ $seeds{$_}" } sort keys %seeds;
PERL

echo "building the fuzz targets (nightly, release, sanitizer: $sanitizer)"
cargo +nightly fuzz build -s "$sanitizer"

mkdir -p fuzz/target/logs
crashed=()
tally=fuzz/target/execs.tsv
touch "$tally"
printf '%-12s %14s %14s  %s\n' target executions total result
for t in "${targets[@]}"; do
    log="fuzz/target/logs/$t.log"
    before=$(ls "fuzz/artifacts/$t")
    rc=0
    cargo +nightly fuzz run -s "$sanitizer" "$t" -- \
        -max_total_time="$secs" -rss_limit_mb=2048 -max_len=1048576 \
        -print_final_stats=1 >"$log" 2>&1 || rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
    printf '%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "${execs:-0}" "$sanitizer" >>"$tally"
    total=$(awk -v t="$t" '$2 == t { n += $3 } END { print n + 0 }' "$tally")
    new=$(comm -13 <(printf '%s\n' "$before" | sort) <(ls "fuzz/artifacts/$t" | sort) |
        grep -E '^(crash|leak|timeout|oom)-' || true)
    if [[ $rc -ne 0 || -n $new ]]; then
        crashed+=("$t")
        result="CRASH (exit $rc)"
        for a in $new; do result+=" fuzz/artifacts/$t/$a"; done
        [[ -n $new ]] || result+=", see $log"
    else
        result=ok
    fi
    printf '%-12s %14s %14s  %s\n' "$t" "${execs:-?}" "$total" "$result"
done

if [[ ${#crashed[@]} -gt 0 ]]; then
    echo "crashed: ${crashed[*]}" >&2
    exit 1
fi
