#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Honest warnings: the notice of a saturated map (the
# count held to numpy's own of the windows whose values are all distinct);
# --range auto on GDAL's names (NETCDF:..., a NetCDF file, /vsizip/) by a
# first pass, the same map as the range numpy finds; the float-without-
# range message naming --range auto; an alpha band GDAL does not apply as
# a mask gets a notice, --band all skips alpha bands and says so.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
need_python numpy

# A u16 DEM-like band: smooth relief plus noise, so that most 3 x 3
# windows hold 9 distinct values: a saturated map.
"$PY" -c "
import numpy as np
rng = np.random.default_rng(4)
y, x = np.mgrid[0:300, 0:400]
dem = 1000 + 300 * np.sin(x / 40) + 200 * np.cos(y / 30) + rng.normal(0, 20, (300, 400))
dem.astype('<u2').tofile('$T/dem.u16')"
DEM="--size 400x300 --dtype u16"
"$WS" $DEM --window 3 "$T/dem.u16" "$T/dem.raw" 2>"$T/err" >/dev/null
check "saturated: one notice line" sh -c "[ \$(wc -l <'$T/err') -eq 1 ]"
check "saturated: says what to do" grep -q "the map is saturated: .* --bins 16 --range auto" \
    "$T/err"
check "saturated: the count of all-distinct windows, as numpy counts them" "$PY" -c "
import re, sys, numpy as np
from numpy.lib.stride_tricks import sliding_window_view
d = np.fromfile('$T/dem.u16', '<u2').reshape(300, 400)
w = np.sort(sliding_window_view(d, (3, 3)).reshape(298, 398, 9), axis=2)
n = int((np.diff(w, axis=2) != 0).all(axis=2).sum())
m = re.search(r'\(([0-9]+) of ([0-9]+)\) are at the largest entropy, log2\(9\)',
              open('$T/err').read())
sys.exit(0 if m and int(m.group(1)) == n and int(m.group(2)) == d.size else 1)"
"$WS" $DEM --window 3 --bins 16 --range auto "$T/dem.u16" "$T/dem16.raw" 2>"$T/err" >/dev/null
check "--bins 16 --range auto: no notice" sh -c "[ ! -s '$T/err' ]"
"$WS" $DEM --window 3 --quiet "$T/dem.u16" "$T/q.raw" 2>"$T/err" >/dev/null
check "--quiet: no notice" sh -c "[ ! -s '$T/err' ]"
"$MK" --size 300x200 --dtype u8 --kind landscape --values 12 "$T/land.u8"
"$WS" --size 300x200 --dtype u8 "$T/land.u8" "$T/land.raw" 2>"$T/err"
check "imagery of 12 values: no notice" sh -c "[ ! -s '$T/err' ]"
# Several maps: each says which it is; the 5 x 5 map of this DEM is not
# saturated (2 % of its windows).
"$WS" $DEM --window 3,5 "$T/dem.u16" "$T/mm.zst" 2>"$T/err"
check "several maps: the saturated one named, alone" sh -c \
    "[ \$(wc -l <'$T/err') -eq 1 ] && grep -q '^winent-stream: band 1, window 3x3: the map is saturated' '$T/err'"

# A float band without a range takes --range auto (256 bins), and says so.
"$PY" -c "import numpy as np; np.linspace(0, 1, 6000, dtype='<f4').tofile('$T/f.f32')"
"$WS" --size 100x60 --dtype f32 "$T/f.f32" "$T/o.raw" 2>"$T/err"
check "f32 without a range: the notice names the range taken" grep -q \
    "^winent-stream: f32 input without --range: --range auto took 0:1 from a first pass over the band, in 256 bins" "$T/err"
"$WS" --size 100x60 --dtype f32 --range auto "$T/f.f32" "$T/auto.raw" 2>/dev/null
check "... the map of --range auto" cmp -s "$T/o.raw" "$T/auto.raw"
# An input of several bands read for band 1: a notice names what maps the others.
"$PY" -c "import numpy as np; (np.arange(3 * 6000) % 11).astype('u1').tofile('$T/rgb.u8')"
"$WS" --size 100x60 --dtype u8 --bands 3 "$T/rgb.u8" "$T/b1.raw" 2>"$T/err"
check "3 bands, no --band: the notice" grep -q \
    "rgb.u8 has several bands: the map is of band 1 only; --band all" "$T/err"
"$WS" --size 100x60 --dtype u8 --bands 3 --band all "$T/rgb.u8" "$T/ball.tif" 2>"$T/err"
check "... --band all: none" sh -c "[ ! -s '$T/err' ]"

# --range auto on GDAL's names: a first pass, as for a file.
if ! "$PY" -c "from osgeo import gdal; assert gdal.GetDriverByName('netCDF')" 2>/dev/null; then
    echo "SKIP part: no GDAL Python module with the netCDF driver"
    finish
    exit $?
fi
"$PY" -c "
import zipfile, numpy as np
from osgeo import gdal
gdal.UseExceptions()
a = np.random.default_rng(6).normal(10, 3, (60, 80)).astype('f4')
d = gdal.GetDriverByName('netCDF').Create('$T/t.nc', 80, 60, 1, gdal.GDT_Float32)
d.GetRasterBand(1).WriteArray(a); d = None
d = gdal.GetDriverByName('GTiff').Create('$T/f.tif', 80, 60, 1, gdal.GDT_Float32)
d.GetRasterBand(1).WriteArray(a); d = None
with zipfile.ZipFile('$T/f.zip', 'w') as z:
    z.write('$T/f.tif', 'in/f.tif')
print(repr(float(a.min())) + ':' + repr(float(a.max())))" >"$T/range"
R=$(cat "$T/range")
expect_exit 0 "--range LO:HI with numpy's min and max" "$WS" --quiet --range "$R" "$T/f.tif" \
    "$T/want.raw"
for name in "$T/t.nc" "NETCDF:$T/t.nc:Band1" "/vsizip/$T/f.zip/in/f.tif"; do
    expect_exit 0 "--range auto on $name" "$WS" --quiet --stats --range auto "$name" "$T/got.raw"
    check "--range auto on $name: a first pass" grep -q '"range_from": *"a first pass over the band"' \
        "$T/stderr"
    check "--range auto on $name: the map of numpy's range" cmp "$T/got.raw" "$T/want.raw"
done
expect_exit 2 "--range auto on standard input: still refused" sh -c \
    "'$WS' --range auto --size 100x60 --dtype f32 - '$T/o.raw' <'$T/f.f32'"

# Alpha bands: an Int16 one (as gdalwarp -dstalpha writes for Int16 data)
# is no mask to GDAL: a notice; a Byte one is: none. --band all skips them.
"$PY" -c "
import numpy as np
from osgeo import gdal
gdal.UseExceptions()
for t, name in ((gdal.GDT_Int16, 'a16'), (gdal.GDT_Byte, 'a8')):
    d = gdal.GetDriverByName('GTiff').Create('$T/%s.tif' % name, 50, 40, 2, t, options=['ALPHA=YES'])
    alpha = np.zeros((40, 50)); alpha[:, :25] = 255
    d.GetRasterBand(1).WriteArray((np.arange(2000).reshape(40, 50) % 17) * (alpha > 0))
    d.GetRasterBand(2).WriteArray(alpha)
    d.GetRasterBand(2).SetColorInterpretation(gdal.GCI_AlphaBand)
    d = None"
"$WS" "$T/a16.tif" "$T/x.raw" 2>"$T/err"
check "Int16 alpha: a notice that it is not applied, and what to do" grep -q \
    "its alpha band (band 2, Int16) is not applied as a mask: .*--nodata V" "$T/err"
"$WS" "$T/a8.tif" "$T/x.raw" 2>"$T/err"
check "Byte alpha, applied as the mask: no notice" sh -c "[ ! -s '$T/err' ]"
"$WS" --band all "$T/a8.tif" "$T/all.tif" 2>"$T/err"
check "--band all: the alpha band skipped, and said" grep -q \
    "^winent-stream: --band all: .*a8.tif: band 2 is alpha (transparency, not data): skipped" \
    "$T/err"
check "--band all: one map, of band 1" "$PY" -c "
import sys
from osgeo import gdal
d = gdal.Open('$T/all.tif')
sys.exit(0 if d.RasterCount == 1 and d.GetMetadataItem('source_band') == '1' else 1)"
"$WS" --band 2 "$T/a8.tif" "$T/x.raw" 2>"$T/err"
check "--band 2, the alpha band itself: said" grep -q "band 2 is alpha (transparency, not data): its map is of the transparency" "$T/err"
finish
