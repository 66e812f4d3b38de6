#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# TIFF input in every layout GDAL writes (tiles, strips, sizes that are not
# multiples of the block, BigTIFF, big-endian, compressions, predictors,
# types, three bands contiguous and separate, a nodata tag) gives the same
# map, bit for bit, as the raw path on the same pixels.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
command -v gdal_translate >/dev/null 2>&1 || { echo "no gdal_translate: skipped"; exit 77; }
"$PY" -c "from osgeo import gdal" 2>/dev/null || { echo "no GDAL bindings: skipped"; exit 77; }

# Three bands of 333 x 217 in each type; band b of type t also as raw.
"$PY" - "$T" <<'PY'
import sys, numpy as np
from osgeo import gdal, osr
d = sys.argv[1]
rng = np.random.default_rng(7)
w, h = 333, 217
yy, xx = np.mgrid[0:h, 0:w]
base = ((np.sin(xx / 17.0) + np.cos(yy / 11.0)) * 4 + 8).astype(int)
bands = [np.clip(base + rng.integers(-2, 3, (h, w)), 0, 15),
         rng.integers(0, 16, (h, w)),
         (base * 3 + rng.integers(0, 5, (h, w))) % 40]
types = {'u8': (gdal.GDT_Byte, 'u1', 0), 'i8': (gdal.GDT_Byte, 'i1', -8),
         'u16': (gdal.GDT_UInt16, '<u2', 1000), 'i16': (gdal.GDT_Int16, '<i2', -300),
         'u32': (gdal.GDT_UInt32, '<u4', 70000), 'i32': (gdal.GDT_Int32, '<i4', -70000),
         'f32': (gdal.GDT_Float32, '<f4', 0), 'f64': (gdal.GDT_Float64, '<f8', 0)}
srs = osr.SpatialReference(); srs.ImportFromEPSG(32618)
for t, (gt, npt, off) in types.items():
    opts = ['PIXELTYPE=SIGNEDBYTE'] if t == 'i8' else []
    ds = gdal.GetDriverByName('GTiff').Create(f'{d}/base_{t}.tif', w, h, 3, gt, opts)
    ds.SetGeoTransform([500000, 30, 0, 4500000, 0, -30]); ds.SetProjection(srs.ExportToWkt())
    for i, b in enumerate(bands):
        v = (b + off).astype(npt)
        ds.GetRasterBand(i + 1).WriteArray(v.view('u1') if t == 'i8' else v)
        v.tofile(f'{d}/band{i + 1}_{t}.raw')
    ds = None
PY

# variant TYPE BAND NAME GDAL_OPTIONS...: translate, then compare maps.
variant() {
    t=$1; b=$2; name=$3; shift 3
    extra=""
    case $t in f32|f64) extra="--range 0:16 --bins 16" ;; esac
    gdal_translate -q "$@" "$T/base_$t.tif" "$T/v.tif"
    # shellcheck disable=SC2086
    "$WS" --quiet --device cpu $extra --size 333x217 --dtype $t "$T/band${b}_$t.raw" "$T/want.raw"
    # shellcheck disable=SC2086
    if ! "$WS" --quiet --device cpu $extra --band "$b" "$T/v.tif" "$T/got.raw" 2>"$T/err"; then
        bad "$name ($t, band $b): $(cat "$T/err")"
        return
    fi
    check "$name ($t, band $b)" cmp -s "$T/want.raw" "$T/got.raw"
}

for t in u8 i8 u16 i16 u32 i32 f32 f64; do
    variant $t 1 "tiled 16" -b 1 -co TILED=YES -co BLOCKXSIZE=16 -co BLOCKYSIZE=16
    variant $t 1 "striped, 7 rows" -b 1 -co BLOCKYSIZE=7 -co COMPRESS=LZW
    variant $t 2 "3 bands contiguous, tiled 256x128, deflate" -co TILED=YES \
        -co BLOCKXSIZE=256 -co BLOCKYSIZE=128 -co INTERLEAVE=PIXEL -co COMPRESS=DEFLATE
    variant $t 3 "3 bands separate, striped, zstd" -co INTERLEAVE=BAND -co COMPRESS=ZSTD \
        -co BLOCKYSIZE=32
    variant $t 1 "predictor 2" -b 1 -co TILED=YES -co COMPRESS=LZW -co PREDICTOR=2
    variant $t 2 "big-endian BigTIFF, 3 bands" -co BIGTIFF=YES -co ENDIANNESS=BIG -co TILED=YES
done
for t in u8 i16; do
    variant $t 1 "tiled 256" -b 1 -co TILED=YES -co BLOCKXSIZE=256 -co BLOCKYSIZE=256
    variant $t 1 "tiled 512 (one overhanging tile)" -b 1 -co TILED=YES -co BLOCKXSIZE=512 \
        -co BLOCKYSIZE=512 -co COMPRESS=ZSTD
    variant $t 1 "one strip" -b 1 -co BLOCKYSIZE=217
    variant $t 2 "packbits" -co COMPRESS=PACKBITS -co TILED=YES -co BLOCKXSIZE=32 \
        -co BLOCKYSIZE=32
done
variant f32 1 "float predictor 3" -b 1 -co TILED=YES -co COMPRESS=DEFLATE -co PREDICTOR=3
variant f64 2 "float64 predictor 3 striped" -co COMPRESS=ZSTD -co PREDICTOR=3 \
    -co BLOCKYSIZE=10
variant f32 1 "half float (NBITS=16)" -b 1 -co NBITS=16 -co TILED=YES

# A GDAL_NODATA tag is the default nodata; --nodata overrides it.
gdal_translate -q -b 1 -a_nodata 7 -co TILED=YES "$T/base_u8.tif" "$T/nd.tif"
"$WS" --quiet --device cpu --size 333x217 --dtype u8 --nodata 7 "$T/band1_u8.raw" "$T/want.raw"
"$WS" --quiet --device cpu "$T/nd.tif" "$T/got.raw"
check "GDAL_NODATA 7 = --nodata 7" cmp -s "$T/want.raw" "$T/got.raw"
"$WS" --quiet --device cpu --size 333x217 --dtype u8 --nodata 9 "$T/band1_u8.raw" "$T/want.raw"
"$WS" --quiet --device cpu --nodata 9 "$T/nd.tif" "$T/got.raw"
check "--nodata 9 beats GDAL_NODATA 7" cmp -s "$T/want.raw" "$T/got.raw"

# Packed samples: 4-bit and 1-bit data widen to u8 with the same values.
gdal_translate -q -b 1 -co NBITS=4 -co TILED=YES -co BLOCKXSIZE=16 -co BLOCKYSIZE=16 \
    "$T/base_u8.tif" "$T/n4.tif"
"$WS" --quiet --device cpu --size 333x217 --dtype u8 "$T/band1_u8.raw" "$T/want.raw"
"$WS" --quiet --device cpu "$T/n4.tif" "$T/got.raw"
check "4-bit tiled" cmp -s "$T/want.raw" "$T/got.raw"
"$PY" -c "
import numpy as np
(np.fromfile('$T/band1_u8.raw', 'u1') & 1).tofile('$T/bit.raw')"
gdal_translate -q -of GTiff -b 1 -scale 0 15 0 15 -co NBITS=1 -co BLOCKYSIZE=5 \
    "$T/base_u8.tif" "$T/tmp.tif"
"$PY" -c "
from osgeo import gdal; import numpy as np
gdal.UseExceptions()
a = np.fromfile('$T/bit.raw', 'u1').reshape(217, 333)
ds = gdal.GetDriverByName('GTiff').Create('$T/n1.tif', 333, 217, 1, gdal.GDT_Byte, ['NBITS=1', 'TILED=YES', 'BLOCKXSIZE=32', 'BLOCKYSIZE=16'])
ds.GetRasterBand(1).WriteArray(a); ds = None"
"$WS" --quiet --device cpu --size 333x217 --dtype u8 "$T/bit.raw" "$T/want.raw"
"$WS" --quiet --device cpu "$T/n1.tif" "$T/got.raw"
check "1-bit tiled" cmp -s "$T/want.raw" "$T/got.raw"

# Sparse tiles read as 0, like GDAL.
"$PY" -c "
from osgeo import gdal; import numpy as np
gdal.UseExceptions()
a = np.zeros((217, 333), 'u1'); a[40:60, 100:140] = np.arange(800).reshape(20, 40) % 13
ds = gdal.GetDriverByName('GTiff').Create('$T/sp.tif', 333, 217, 1, gdal.GDT_Byte, ['SPARSE_OK=YES', 'TILED=YES', 'BLOCKXSIZE=64', 'BLOCKYSIZE=64'])
ds.GetRasterBand(1).WriteArray(a); ds = None
a.tofile('$T/sp.raw')"
"$WS" --quiet --device cpu --size 333x217 --dtype u8 "$T/sp.raw" "$T/want.raw"
"$WS" --quiet --device cpu "$T/sp.tif" "$T/got.raw"
check "sparse tiles" cmp -s "$T/want.raw" "$T/got.raw"

# Bad --band is a usage error naming the option; threads do not change bits.
expect_exit 2 "--band 4 of 3" "$WS" --quiet --device cpu --band 4 "$T/base_u8.tif" "$T/x.raw"
grep -q -- '--band' "$T/stderr" || bad "--band error does not name --band"
gdal_translate -q -co TILED=YES -co BLOCKXSIZE=16 -co BLOCKYSIZE=16 -co COMPRESS=DEFLATE \
    "$T/base_u16.tif" "$T/t16.tif"
"$WS" --quiet --device cpu --threads 1 --band 3 "$T/t16.tif" "$T/t1.raw"
"$WS" --quiet --device cpu --threads 2 --band 3 "$T/t16.tif" "$T/t2.raw"
"$WS" --quiet --device cpu --threads 5 --band 3 "$T/t16.tif" "$T/t5.raw"
check "threads 1 = 2" cmp -s "$T/t1.raw" "$T/t2.raw"
check "threads 1 = 5" cmp -s "$T/t1.raw" "$T/t5.raw"
finish
