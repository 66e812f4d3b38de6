#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The quick start's demo (tools/quickstart.sh; tests/docs/test_readme_examples.sh
# runs it too): a small GeoTIFF made by winent-mksample (512 x 384, 8-bit,
# a landscape of 12 classes, UTM zone 33N with 30 m pixels), its 5 x 5
# entropy map as a Cloud-Optimized GeoTIFF with the input's georeferencing,
# and the map's quicklook PNG.
#
#   sh tools/demo.sh [BUILD [DIR]]     (default: build, demo)
set -eu
BUILD=${1:-build}
DIR=${2:-demo}
mkdir -p "$DIR"
"$BUILD/tools/winent-mksample" --size 512x384 --dtype u8 --kind landscape --values 12 --seed 7 \
    --tiff --georef 32633,500000,4600000,30 "$DIR/demo.tif"
"$BUILD/src/winent-stream" --preview "$DIR/demo-entropy.png" \
    "$DIR/demo.tif" "$DIR/demo-entropy.tif"
if command -v gdalinfo >/dev/null 2>&1; then
    # What GDAL sees: the size, the input's place on Earth, the overviews.
    gdalinfo "$DIR/demo-entropy.tif" |
        grep -E '^(Size is|Origin|Pixel Size)|ID\["EPSG",32633\]\]$|Description'
fi
echo "demo: wrote $DIR/demo-entropy.tif (the 512 x 384 float32 map of $DIR/demo.tif) and" \
    "$DIR/demo-entropy.png (its quicklook)" >&2
