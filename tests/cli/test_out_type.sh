#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# --ot float16|uint16|uint8: every output format against the
# float32 map of the same job, within the rounding docs/SPEC.md states
# ("Output sample types"), read back by numpy, zstandard, GDAL and rasterio
# (tests/cli/out_type_check.py): scale, offset and nodata where GDAL reads
# them, every COG overview level in the same type; --decode and --info
# --check of the typed .zst; several maps; the refusals.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
need_python numpy zstandard osgeo
CHK="$WINENT_SRC/tests/cli/out_type_check.py"

# A landscape with nodata holes (NaN in the map), 5 x 5 windows, base 2:
# the top is log2(25).
"$MK" --size 700x450 --dtype u8 --kind landscape --values 40 --holes 0.2 --nodata 0 \
    "$T/land.u8"
IN="--quiet --size 700x450 --dtype u8 --nodata 0 --tile 128"
TOP=$("$PY" -c 'import math; print(repr(math.log2(25)))')
expect_exit 0 "the float32 map" "$WS" $IN "$T/land.u8" "$T/ref.raw"
expect_exit 0 "the float32 COG" "$WS" $IN "$T/land.u8" "$T/ref.raw.tif"
expect_exit 0 "--ot float32 is the default" "$WS" $IN --ot float32 "$T/land.u8" "$T/f32.raw"
check "--ot float32: the same bytes as without it" cmp "$T/ref.raw" "$T/f32.raw"
for t in float16 uint16 uint8; do
    for out in "$t.raw" "$t.zst" "$t.tif"; do
        expect_exit 0 "--ot $t to $out" "$WS" $IN --ot $t "$T/land.u8" "$T/$out"
    done
    expect_exit 0 "--ot $t, tiled GeoTIFF with deflate" "$WS" $IN --ot $t --tif-layout tiled \
        --compress deflate "$T/land.u8" "$T/$t.tiled.tif"
    expect_exit 0 "--ot $t, COG with LZW" "$WS" $IN --ot $t --compress lzw "$T/land.u8" \
        "$T/$t.lzw.tif"
    expect_exit 0 "--ot $t, uncompressed COG" "$WS" $IN --ot $t --compress none "$T/land.u8" \
        "$T/$t.none.tif"
    check "--ot $t: raw, .zst, COG, tiled, LZW, none within the stated rounding" \
        "$PY" "$CHK" $t "$T/ref.raw" 700 450 "$TOP" "$T/$t.raw" "$T/$t.zst" "$T/$t.tif" \
        "$T/$t.tiled.tif" "$T/$t.lzw.tif" "$T/$t.none.tif"
    expect_exit 0 "--info --check of the $t .zst" "$WS" --info --check "$T/$t.zst"
    # --decode: to float32 the decoded values; to the same type the same
    # samples (the scale comes from the header's options).
    expect_exit 0 "--decode of the $t .zst to raw float32" "$WS" --quiet --decode "$T/$t.zst" \
        "$T/$t.dec.raw"
    check "--decode of the $t .zst: within the rounding" "$PY" -c "
import sys, numpy as np
sys.path.insert(0, '$WINENT_SRC/tests/cli')
import out_type_check as c
ref = np.fromfile('$T/ref.raw', '<f4').reshape(450, 700)
got = np.fromfile('$T/$t.dec.raw', '<f4').reshape(450, 700)
c.within('decoded', '$t', got, ref, $TOP)
sys.exit(1 if c.problems else 0)"
    expect_exit 0 "--decode --ot $t of the $t .zst" "$WS" --quiet --decode --ot $t "$T/$t.zst" \
        "$T/$t.again.raw"
    check "--decode --ot $t: the same samples" cmp "$T/$t.raw" "$T/$t.again.raw"
done
# GDAL's COG validator accepts the typed COGs (where it is installed).
VALIDATE=/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_cloud_optimized_geotiff.py
if [ -f "$VALIDATE" ]; then
    for t in float16 uint16 uint8; do
        check "--ot $t: GDAL's COG validator, full check" \
            "$PY" "$VALIDATE" --full-check=yes "$T/$t.tif"
    done
else
    echo "SKIP part: no validate_cloud_optimized_geotiff.py"
fi
# Sizes: each type smaller than float32 here.
check "uint8 .tif smaller than uint16 smaller than float32" sh -c \
    "[ \$(wc -c <'$T/uint8.tif') -lt \$(wc -c <'$T/uint16.tif') ] &&
     [ \$(wc -c <'$T/uint16.tif') -lt \$(wc -c <'$T/ref.raw.tif') ]"

# The unit, GDAL's band unit type of the GeoTIFF: bit by default, nat
# with --base e (every band of several maps).
check "the GeoTIFF's unit: bit" sh -c "gdalinfo '$T/uint16.tif' | grep -q 'Unit Type: bit'"
expect_exit 0 "base e, two windows" "$WS" $IN --base e --window 3,5 "$T/land.u8" "$T/nat.tif"
check "the GeoTIFF's unit with --base e: nat on each band" sh -c \
    "[ \$(gdalinfo '$T/nat.tif' | grep -c 'Unit Type: nat') -eq 2 ]"

# The ENVI sidecar of an integer map: GDAL reads the scale and nodata.
expect_exit 0 "--ot uint16 --sidecar" "$WS" $IN --ot uint16 --sidecar "$T/land.u8" "$T/s16.raw"
check "the sidecar's scale, offset and nodata, read by GDAL" "$PY" -c "
import math, sys
from osgeo import gdal
ds = gdal.Open('$T/s16.raw'); b = ds.GetRasterBand(1)
ok = (b.DataType == gdal.GDT_UInt16 and abs(b.GetScale() - math.log2(25) / 65534) < 1e-15
      and b.GetOffset() == 0 and b.GetNoDataValue() == 65535)
sys.exit(0 if ok else 1)"
expect_exit 2 "--sidecar with float16 is refused" "$WS" $IN --ot float16 --sidecar "$T/land.u8" \
    "$T/s.raw"
check "... and says why" grep -q "ENVI has no float16" "$T/stderr"
expect_exit 2 "an unknown --ot" "$WS" $IN --ot int16 "$T/land.u8" "$T/x.raw"
check "... names the types" grep -q "float32, float16, uint16 or uint8" "$T/stderr"

# Bins over a range set the top: log2(min(25, 8)) = 3.
expect_exit 0 "bins: float32" "$WS" $IN --bins 8 --range 0:40 "$T/land.u8" "$T/b.raw"
expect_exit 0 "bins: uint8" "$WS" $IN --bins 8 --range 0:40 --ot uint8 "$T/land.u8" "$T/b8.tif"
check "--bins 8: the scale is 3 / 254" "$PY" "$CHK" uint8 "$T/b.raw" 700 450 3 "$T/b8.tif"

# Several maps in one output: one scale, that of the largest window.
expect_exit 0 "two windows, uint8" "$WS" $IN --window 3,7 --ot uint8 "$T/land.u8" "$T/mm.tif"
expect_exit 0 "two windows, uint8 .zst" "$WS" $IN --window 3,7 --ot uint8 "$T/land.u8" \
    "$T/mm.zst"
expect_exit 0 "window 3, float32" "$WS" $IN --window 3 "$T/land.u8" "$T/w3.raw"
expect_exit 0 "window 7, float32" "$WS" $IN --window 7 "$T/land.u8" "$T/w7.raw"
check "two windows: each band within the rounding of log2(49) / 254" "$PY" -c "
import math, sys, numpy as np
from osgeo import gdal
sys.path.insert(0, '$WINENT_SRC/tests/cli')
import out_type_check as c
top = math.log2(49)
ds = gdal.Open('$T/mm.tif')
for i, ref in ((1, '$T/w3.raw'), (2, '$T/w7.raw')):
    b = ds.GetRasterBand(i)
    if abs(b.GetScale() - top / 254) > 1e-15:
        c.bad('band %d: scale %r' % (i, b.GetScale()))
    r = np.fromfile(ref, '<f4').reshape(450, 700)
    c.within('band %d' % i, 'uint8', c.decode('uint8', b.ReadAsArray(), b.GetScale(), 0, 255), r, top)
h, codes = c.read_zst('$T/mm.zst')
if abs(h['scale'] - top / 254) > 1e-15:
    c.bad('.zst: scale %r' % h['scale'])
sys.exit(1 if c.problems else 0)"
expect_exit 0 "two windows, uint8 .zst: --info --check" "$WS" --info --check "$T/mm.zst"
finish
