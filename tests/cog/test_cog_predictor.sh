#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Integer GeoTIFF and COG maps with GDAL's horizontal predictor where it
# makes them smaller: uint8 always, uint16 for windows of 81 pixels or more
# (tile_codec.c says what was measured). GDAL reads the Predictor tag back
# (its IMAGE_STRUCTURE metadata, every overview of a COG too) and the same
# codes as the raw output of the same job (no compression, no predictor),
# with each codec; and, on scikit-image's camera, the file is no larger
# than GDAL's own rewrite of the same codes without the predictor.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
need_python numpy osgeo.gdal

"$MK" --size 700x520 --dtype u8 --kind landscape --values 60 --holes 0.05 --nodata 0 \
    --tiff --georef 32633,500000,4600000,30 "$T/in.tif"
for case in "uint8 5 2" "uint8 9 2" "uint16 5 1" "uint16 7 1" "uint16 9 2" "uint16 15 2"; do
    set -- $case
    ot=$1 w=$2 want=$3
    expect_exit 0 "raw codes, --ot $ot --window $w" "$WS" --quiet --ot "$ot" --window "$w" \
        --format raw "$T/in.tif" "$T/codes.raw"
    for fmt in cog tiled; do
        for c in zstd deflate lzw; do
            out="$T/m-$ot-$w-$fmt-$c.tif"
            expect_exit 0 "$fmt $c --ot $ot --window $w" "$WS" --quiet --ot "$ot" --window "$w" \
                --compress "$c" --tif-layout "$fmt" "$T/in.tif" "$out"
            check "$fmt $c --ot $ot --window $w: predictor $want, GDAL reads the raw output's codes" \
                "$PY" - "$out" "$T/codes.raw" "$want" <<'PYEOF'
import sys
import numpy as np
from osgeo import gdal
gdal.UseExceptions()
path, raw, want = sys.argv[1], sys.argv[2], sys.argv[3]
d = gdal.Open(path)
b = d.GetRasterBand(1)
a = b.ReadAsArray()
codes = np.fromfile(raw, dtype=a.dtype).reshape(a.shape)
bad = []
pred = d.GetMetadataItem("PREDICTOR", "IMAGE_STRUCTURE") or "1"
if pred != want:
    bad.append("PREDICTOR=%s, want %s" % (pred, want))
if not np.array_equal(a, codes):
    bad.append("%d codes differ from the raw output's" % int((a != codes).sum()))
# The overviews decode too (a COG's, written with the same predictor).
for i in range(b.GetOverviewCount()):
    o = b.GetOverview(i).ReadAsArray()
    if o is None or o.dtype != a.dtype:
        bad.append("overview %d unreadable" % i)
sys.exit("; ".join(bad) if bad else 0)
PYEOF
        done
    done
done

# Where the predictor is used it wins: the camera's 15 x 15 map as uint16
# and its 5 x 5 map as uint8, against GDAL writing the same codes in the
# same tiles without it.
if has_python skimage; then
    "$PY" -c 'import skimage.data; skimage.data.camera().astype("u1").tofile("'"$T"'/camera.u8")'
    for case in "uint16 15" "uint8 5"; do
        set -- $case
        out="$T/camera-$1-$2.tif"
        expect_exit 0 "camera --ot $1 --window $2" "$WS" --quiet --size 512x512 --dtype u8 \
            --ot "$1" --window "$2" --tif-layout tiled "$T/camera.u8" "$out"
        check "camera --ot $1 --window $2: smaller than without the predictor" "$PY" - "$out" \
            "$T/nopred.tif" <<'PYEOF'
import os, sys
from osgeo import gdal
gdal.UseExceptions()
src, dst = sys.argv[1:3]
d = gdal.Open(src)
bs = d.GetRasterBand(1).GetBlockSize()
gdal.Translate(dst, d, creationOptions=["TILED=YES", "BLOCKXSIZE=%d" % bs[0],
                                        "BLOCKYSIZE=%d" % bs[1], "COMPRESS=ZSTD",
                                        "ZSTD_LEVEL=3", "PREDICTOR=1"])
a, b = os.path.getsize(src), os.path.getsize(dst)
sys.exit(0 if a < b else "%d bytes with the predictor, %d without" % (a, b))
PYEOF
    done
else
    skip_part "no scikit-image: the camera's sizes"
fi
finish
