#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Benchmark of GeoTIFF in and out: `winent-stream big.tif out.tif` (decode
# a tiled compressed input, compute, write a tiled ZSTD + predictor 3
# GeoTIFF) against GDAL writing the same map alone:
# `gdal_translate -co TILED=YES -co COMPRESS=ZSTD -co PREDICTOR=3
# -co NUM_THREADS=ALL_CPUS map.raw copy.tif`, side by side in one run.
#
#   tools/bench-tiff.sh [BUILD_DIR] [WxH] [THREADS]
#
# The default size, 32768x32768 u8, is a 1 GiB input (a 4 GiB map).
# Needs about 7 x the input size of free disk in $TMPDIR.
set -eu
B=${1:-build}
SIZE=${2:-32768x32768}
TH=${3:-$(nproc)}
WS="$B/src/winent-stream"
PY=${PYTHON:-/usr/bin/python3}
D=$(mktemp -d "${TMPDIR:-/tmp}/bench-tiff.XXXXXX")
trap 'rm -rf "$D"' EXIT INT TERM
W=${SIZE%x*}
H=${SIZE#*x}

. "$(dirname "$0")/bench-lib.sh"

# A landscape of 12 values (smooth fields plus noise), streamed in bands of rows.
landscape_raw "$D/in.raw" "$W" "$H" "$PY"
envi_hdr "$D/in.hdr" "$W" "$H" 1
gdal_translate -q -of GTiff -co TILED=YES -co COMPRESS=ZSTD -co NUM_THREADS=ALL_CPUS \
    -co BIGTIFF=IF_SAFER -a_srs EPSG:32618 -a_ullr 0 "$H" "$W" 0 "$D/in.raw" "$D/big.tif"
rm -f "$D/in.raw"
inbytes=$(wc -c <"$D/big.tif")

echo "machine: $(machine)"
echo "input: ${SIZE} u8, tiled 256x256 ZSTD GeoTIFF of $(calc "$inbytes / 1e6") MB; threads: $TH"
echo

sync
t0=$(now)
"$WS" --quiet --device cpu --threads "$TH" "$D/big.tif" "$D/map.raw"
t1=$(now)
"$WS" --quiet --device cpu --threads "$TH" "$D/big.tif" "$D/out.tif"
t2=$(now)
envi_hdr "$D/map.hdr" "$W" "$H" 4
gdal_translate -q -of GTiff -co TILED=YES -co COMPRESS=ZSTD -co PREDICTOR=3 \
    -co NUM_THREADS=ALL_CPUS -co BIGTIFF=IF_SAFER "$D/map.raw" "$D/copy.tif"
t3=$(now)
mapbytes=$(wc -c <"$D/map.raw")
raw=$(secs "$t0" "$t1")
ours=$(secs "$t1" "$t2")
gdal=$(secs "$t2" "$t3")
# The two GeoTIFFs hold the same pixels.
same=$("$PY" - "$D/out.tif" "$D/copy.tif" <<'PY'
import sys, numpy as np
from osgeo import gdal
a, b = gdal.Open(sys.argv[1]), gdal.Open(sys.argv[2])
ok = True
for y in range(0, a.RasterYSize, 4096):
    n = min(4096, a.RasterYSize - y)
    ra = a.GetRasterBand(1).ReadAsArray(0, y, a.RasterXSize, n)
    rb = b.GetRasterBand(1).ReadAsArray(0, y, a.RasterXSize, n)
    ok = ok and np.array_equal(ra.view('u4'), rb.view('u4'))
print('yes' if ok else 'NO')
PY
)
printf '| step | seconds | MB/s of map | output MB |\n|---|---|---|---|\n'
printf '| winent-stream big.tif map.raw (decode + compute) | %.2f | %.0f | %.0f |\n' "$raw" \
    "$(calc "$mapbytes / $raw / 1e6")" "$(calc "$mapbytes / 1e6")"
printf '| winent-stream big.tif out.tif (decode + compute + ZSTD tiles) | %.2f | %.0f | %.0f |\n' \
    "$ours" "$(calc "$mapbytes / $ours / 1e6")" "$(calc "$(wc -c <"$D/out.tif") / 1e6")"
printf '| gdal_translate map.raw copy.tif (ZSTD, predictor 3, all CPUs) | %.2f | %.0f | %.0f |\n' \
    "$gdal" "$(calc "$mapbytes / $gdal / 1e6")" "$(calc "$(wc -c <"$D/copy.tif") / 1e6")"
echo
echo "ours / gdal_translate alone: $(calc "$ours / $gdal"); same pixels: $same"
