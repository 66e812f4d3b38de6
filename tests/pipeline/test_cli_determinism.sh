#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The output never depends on the machine: .zst bytes identical across
# --threads and --mem; the decoded map identical across --frame-rows too,
# and equal to the raw output; chunk edges (small --mem) leave no seams.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
[ -x "$MK" ] || { echo "no winent-mksample: skipped"; exit 77; }
command -v zstd >/dev/null || { echo "no zstd: skipped"; exit 77; }
SZ=1500x1100
"$MK" --size $SZ --dtype u16 --kind landscape --values 300 --holes 0.05 --nodata 0 --seed 9 "$T/in.raw"
A="--quiet --size $SZ --dtype u16 --nodata 0 --window 7x5 --frame-rows 32"
"$WS" $A --threads 1 --mem 1G "$T/in.raw" "$T/ref.raw"
"$WS" $A --threads 1 --mem 1G "$T/in.raw" "$T/ref.zst"
for th in 1 2 4; do
    for mem in 4M 64M 1G; do
        "$WS" $A --threads $th --mem $mem "$T/in.raw" "$T/t.zst"
        check ".zst bytes, threads $th, mem $mem" same_zst "$T/ref.zst" "$T/t.zst"
        "$WS" $A --threads $th --mem $mem "$T/in.raw" "$T/t.raw"
        check "raw bytes, threads $th, mem $mem" cmp -s "$T/ref.raw" "$T/t.raw"
    done
done
for fr in 1 7 64 2000; do
    "$WS" $A --frame-rows $fr "$T/in.raw" "$T/f.zst"
    zstd -qdc "$T/f.zst" >"$T/f.raw"
    check "decoded map, frame rows $fr" cmp -s "$T/ref.raw" "$T/f.raw"
done
# Levels change the bytes, never the map.
"$WS" $A --level 5 "$T/in.raw" "$T/l5.zst"
zstd -qdc "$T/l5.zst" | cmp -s - "$T/ref.raw" && ok || bad "level 5 decodes to the same map"
finish
