#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# What --preview costs: the same job with and without it, interleaved in
# one run, best of N wall times (--stats) and best of N CPU times (user +
# system, /usr/bin/time), for a .zst file and raw to /dev/null.
#
#   sh tools/bench-preview.sh [BUILD_DIR] [SIZE] [REPEAT] [KIND]
#
# BUILD_DIR defaults to build, SIZE (a square side) to 8192, REPEAT to 3,
# KIND to uniform: winent-mksample's u8, 16 values, independent (the
# fastest engine path, where the preview's share is largest, and a noisy
# map, the PNG's worst case); landscape: smooth classes with nodata holes.
# Temporary files in $TMPDIR.
set -eu
B=${1:-build}
N=${2:-8192}
R=${3:-3}
KIND=${4:-uniform}
WS="$B/src/winent-stream"
MK="$B/tools/winent-mksample"
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT INT TERM
. "$(dirname "$0")/bench-lib.sh"
if [ "$KIND" = landscape ]; then
    "$MK" --size "${N}x$N" --dtype u8 --kind landscape --holes 0.1 --nodata 0 "$D/in.u8"
    NODATA="--nodata 0"
else
    "$MK" --size "${N}x$N" --dtype u8 "$D/in.u8"
    NODATA=""
fi
wall() { # "WALL CPU" seconds of one job: its --stats wall time, user + system
    /usr/bin/time -f "cpu %U %S" -o "$D/time" \
        "$WS" --quiet --stats --size "${N}x$N" --dtype u8 $NODATA "$@" 2>"$D/stats" >/dev/null
    w=$(stats_num wall_s "$D/stats")
    c=$(awk '/^cpu/ { print $2 + $3 }' "$D/time")
    echo "$w $c"
}
echo "| job | wall s | with --preview | wall cost | CPU s | with --preview | CPU cost |"
echo "|---|---|---|---|---|---|---|"
for out in zst raw; do
    : >"$D/a"
    : >"$D/b"
    for i in $(seq "$R"); do
        if [ "$out" = zst ]; then
            wall "$D/in.u8" "$D/o.zst" >>"$D/a"
            wall --preview "$D/p.png" "$D/in.u8" "$D/o.zst" >>"$D/b"
        else
            wall "$D/in.u8" /dev/null >>"$D/a"
            wall --preview "$D/p.png" "$D/in.u8" /dev/null >>"$D/b"
        fi
    done
    a=$(lowest <"$D/a")
    b=$(lowest <"$D/b")
    ca=$(awk '{ print $2 }' "$D/a" | lowest)
    cb=$(awk '{ print $2 }' "$D/b" | lowest)
    awk -v o="$out" -v a="${a%% *}" -v b="${b%% *}" -v ca="$ca" -v cb="$cb" -v n="$N" \
        -v k="$KIND" 'BEGIN {
        printf "| %dx%d u8 %s -> %s | %.3f | %.3f | %+.1f %% | %.2f | %.2f | %+.1f %% |\n",
               n, n, k, o == "zst" ? ".zst file" : "raw /dev/null", a, b, 100 * (b - a) / a,
               ca, cb, 100 * (cb - ca) / ca }'
done
echo "PNG: $(wc -c <"$D/p.png") bytes, $(file -b "$D/p.png" 2>/dev/null || echo png)"
