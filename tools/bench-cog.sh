#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Benchmark of the Cloud-Optimized GeoTIFF output against the plain tiled
# one: the same job, `--tif-layout cog` and `--tif-layout tiled`,
# run alternately REPEAT times in one run; the best wall time of each, the
# user and system CPU of that run, the file sizes, and the COG's extra cost
# as a share of the plain job. The COG is checked with GDAL's validator.
#
#   tools/bench-cog.sh [BUILD_DIR] [WxH] [REPEAT] [winent-stream options...]
#
# The input is winent-mksample's u8 landscape of 40 classes, raw, in
# $TMPDIR (the outputs too: about 5 x W x H bytes of free disk).
set -eu
B=${1:-build}
SIZE=${2:-8192x8192}
REPEAT=${3:-3}
[ $# -ge 3 ] && shift 3 || shift $#
WS="$B/src/winent-stream"
MK="$B/tools/winent-mksample"
PY=${PYTHON:-/usr/bin/python3}
VALIDATE=/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_cloud_optimized_geotiff.py
D=$(mktemp -d "${TMPDIR:-/tmp}/bench-cog.XXXXXX")
trap 'rm -rf "$D"' EXIT INT TERM
. "$(dirname "$0")/bench-lib.sh"

"$MK" --size "$SIZE" --dtype u8 --kind landscape --values 40 --seed 5 "$D/in.raw"
echo "bench-cog: $SIZE u8, options: --quiet $* ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))" >&2

# run OPTIONS...: one timed job of layout $L; appends "wall user sys rss"
# to $D/$L.times.
run() {
    time_into "$D/$L.times" "$WS" --quiet "$@" --tif-layout "$L" \
        --size "$SIZE" --dtype u8 "$D/in.raw" "$D/$L.tif"
}
i=1
while [ "$i" -le "$REPEAT" ]; do
    for L in cog tiled; do
        run "$@"
        echo "bench-cog: $L run $i: $(tail -n 1 "$D/$L.times") (wall user sys s, RSS KiB)" >&2
    done
    i=$((i + 1))
done
valid=no
[ -f "$VALIDATE" ] && "$PY" "$VALIDATE" -q "$D/cog.tif" && valid=yes

set -- $(lowest <"$D/cog.times")
cw=$1 cu=$2 cs=$3
set -- $(lowest <"$D/tiled.times")
tw=$1 tu=$2 ts=$3
cb=$(wc -c <"$D/cog.tif")
tb=$(wc -c <"$D/tiled.tif")
echo "| layout | best wall s | user s | sys s | MB |"
echo "|---|---|---|---|---|"
echo "| cog | $cw | $cu | $cs | $(awk "BEGIN { printf \"%.1f\", $cb / 1e6 }") |"
echo "| tiled | $tw | $tu | $ts | $(awk "BEGIN { printf \"%.1f\", $tb / 1e6 }") |"
echo
awk "BEGIN { printf \"COG extra cost: %.2f s, %.1f %% of the plain job (best of $REPEAT each); CPU (user + sys) %+.1f %%; validator: $valid\n\", $cw - $tw, 100 * ($cw - $tw) / $tw, 100 * (($cu + $cs) - ($tu + $ts)) / ($tu + $ts) }"
