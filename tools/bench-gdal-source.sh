#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The GDAL source beside the libtiff one: the decode stage alone
# (`winent-bench stage decode`, the job's pool and chunks, nothing
# computed) of one large u8 image as a tiled deflate TIFF, a striped
# deflate TIFF and a striped uncompressed one, each read through libtiff
# and through GDAL (WINENT_TIFF_READER=libtiff|gdal); then whole jobs
# (`winent-stream --stats`, .zst out) on the tiled TIFF, a VRT over it and
# a lossless JPEG2000 of the same pixels. Best and median of REPS runs.
#
#   tools/bench-gdal-source.sh [BUILD_DIR] [WxH] [THREADS] [REPS]
#
# Default 12000x12000 (144 MB of samples); needs about 4 x that in $TMPDIR.
set -eu
B=${1:-build}
SIZE=${2:-12000x12000}
TH=${3:-$(nproc)}
REPS=${4:-3}
WS="$B/src/winent-stream"
BENCH="$B/tools/winent-bench"
PY=${PYTHON:-/usr/bin/python3}
D=$(mktemp -d "${TMPDIR:-/tmp}/bench-gdal.XXXXXX")
trap 'rm -rf "$D"' EXIT INT TERM
W=${SIZE%x*}
H=${SIZE#*x}
. "$(dirname "$0")/bench-lib.sh"

# A landscape of 12 values, as tools/bench-tiff.sh.
landscape_raw "$D/in.raw" "$W" "$H" "$PY"
envi_hdr "$D/in.hdr" "$W" "$H" 1
geo="-a_srs EPSG:32618 -a_ullr 0 $H $W 0"
# shellcheck disable=SC2086
gdal_translate -q -of GTiff $geo -co TILED=YES -co COMPRESS=DEFLATE "$D/in.raw" "$D/tiled.tif"
# shellcheck disable=SC2086
gdal_translate -q -of GTiff $geo -co COMPRESS=DEFLATE "$D/in.raw" "$D/striped.tif"
# shellcheck disable=SC2086
gdal_translate -q -of GTiff $geo "$D/in.raw" "$D/plain.tif"
gdal_translate -q -of VRT "$D/tiled.tif" "$D/tiled.vrt"
gdal_translate -q -of JP2OpenJPEG -co REVERSIBLE=YES -co QUALITY=100 -co BLOCKXSIZE=1024 \
    -co BLOCKYSIZE=1024 "$D/tiled.tif" "$D/in.jp2"
rm -f "$D/in.raw"

# best_median CMD...: REPS runs of a command that prints a --stats line;
# prints "best median" of wall_s.
best_median() {
    _all=""
    _i=0
    while [ $_i -lt "$REPS" ]; do
        _t=$("$@" | stats_num wall_s)
        _all="$_all $_t"
        _i=$((_i + 1))
    done
    echo "$_all" | tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{a[NR]=$1} END {print a[1], a[int((NR+1)/2)]}'
}
# job ARGS...: winent-stream's --stats line on stdout.
job() { "$WS" --quiet --stats "$@" 2>&1 >/dev/null; }
mpx() { awk "BEGIN { printf \"%.0f\", $W * $H / $1 / 1e6 }"; }

echo "machine: $(machine); threads: $TH; best and median of $REPS"
echo "input: ${SIZE} u8 ($(awk "BEGIN { print $W * $H / 1e6 }") Mpixel)"
echo
echo "Decode stage alone (winent-bench stage decode --device cpu):"
echo
printf '| file | bytes | libtiff s (best / median) | GDAL s (best / median) | libtiff Mpx/s | GDAL Mpx/s |\n|---|---|---|---|---|---|\n'
for f in tiled striped plain; do
    # shellcheck disable=SC2046
    set -- $(WINENT_TIFF_READER=libtiff best_median "$BENCH" stage decode --device cpu \
        --threads "$TH" "$D/$f.tif" "$D/o.zst")
    lb=$1 lm=$2
    # shellcheck disable=SC2046
    set -- $(WINENT_TIFF_READER=gdal best_median "$BENCH" stage decode --device cpu \
        --threads "$TH" "$D/$f.tif" "$D/o.zst")
    gb=$1 gm=$2
    printf '| %s.tif | %s | %s / %s | %s / %s | %s | %s |\n' "$f" "$(wc -c <"$D/$f.tif")" \
        "$lb" "$lm" "$gb" "$gm" "$(mpx "$lb")" "$(mpx "$gb")"
done
echo
echo "Whole jobs (winent-stream --stats --device cpu IN out.zst):"
echo
printf '| input | reader | bytes | s (best / median) | Mpx/s |\n|---|---|---|---|---|\n'
for f in tiled.tif tiled.vrt in.jp2; do
    case $f in *.tif) r=libtiff ;; *) r=GDAL ;; esac
    # shellcheck disable=SC2046
    set -- $(best_median job --device cpu --threads "$TH" "$D/$f" "$D/o.zst")
    printf '| %s | %s | %s | %s / %s | %s |\n' "$f" "$r" "$(wc -c <"$D/$f")" "$1" "$2" "$(mpx "$1")"
done
# The same bytes whatever the reader.
"$WS" --quiet --device cpu "$D/tiled.tif" "$D/a.raw"
"$WS" --quiet --device cpu "$D/in.jp2" "$D/b.raw"
cmp -s "$D/a.raw" "$D/b.raw" && echo && echo "JPEG2000 map = TIFF map: yes" || echo "JPEG2000 map = TIFF map: NO"
