#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# GDAL reads our GeoTIFF back: the raw map's pixels, the input's
# geotransform and CRS, NaN as nodata when nodata is in play; every
# compression and tile size; identical bytes whatever the thread count;
# failures leave nothing behind.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
command -v gdal_translate >/dev/null 2>&1 || { echo "no gdal_translate: skipped"; exit 77; }
"$PY" -c "from osgeo import gdal" 2>/dev/null || { echo "no GDAL bindings: skipped"; exit 77; }

"$PY" -c "
import numpy as np
rng = np.random.default_rng(3)
yy, xx = np.mgrid[0:301, 0:517]
a = ((np.sin(xx / 23.0) * np.cos(yy / 9.0)) * 6 + 6 + rng.integers(0, 3, (301, 517))).astype('u1')
a[100:140, 200:260] = 0   # a flat area: long LZW strings and zero entropy
a.tofile('$T/in.raw')"
printf 'ENVI\nsamples = 517\nlines = 301\nbands = 1\nheader offset = 0\nfile type = ENVI Standard\ndata type = 1\ninterleave = bsq\nbyte order = 0\n' >"$T/in.hdr"
gdal_translate -q -of GTiff -a_srs EPSG:32618 -a_ullr 440720 3751320 456230 3742290 \
    -co TILED=YES -co COMPRESS=DEFLATE "$T/in.raw" "$T/in.tif"

# readback OUT.tif WANT.raw NODATA(none|nan): pixels, georeferencing, nodata.
readback() {
    "$PY" - "$1" "$2" "$3" "$T/in.tif" <<'PY'
import sys, numpy as np
from osgeo import gdal, osr
gdal.UseExceptions()
out, want, nodata, src = sys.argv[1:5]
ds, ref = gdal.Open(out), gdal.Open(src)
b = ds.GetRasterBand(1)
a = b.ReadAsArray()
w = np.fromfile(want, '<f4').reshape(ds.RasterYSize, ds.RasterXSize)
errs = []
if b.DataType != gdal.GDT_Float32: errs.append('not float32')
if not np.array_equal(a.view('u4'), w.view('u4')): errs.append('pixels differ')
if not np.allclose(ds.GetGeoTransform(), ref.GetGeoTransform(), rtol=0, atol=1e-9):
    errs.append('geotransform %s != %s' % (ds.GetGeoTransform(), ref.GetGeoTransform()))
s1, s2 = osr.SpatialReference(ds.GetProjection()), osr.SpatialReference(ref.GetProjection())
if not s1.IsSame(s2) or s1.GetAuthorityCode(None) != '32618': errs.append('CRS differs')
nd = b.GetNoDataValue()
if nodata == 'nan' and not (nd is not None and np.isnan(nd)): errs.append('nodata %r, want nan' % nd)
if nodata == 'none' and nd is not None: errs.append('nodata %r, want none' % nd)
md = ds.GetMetadata()
if md.get('window') != '5x5' or 'source' not in md: errs.append('metadata %r' % md)
if errs: print(out, errs); sys.exit(1)
PY
}

"$WS" --quiet --device cpu --size 517x301 --dtype u8 "$T/in.raw" "$T/want.raw"
for c in zstd deflate lzw none; do
    for tile in 16 256 512; do
        "$WS" --quiet --device cpu --compress $c --tile $tile "$T/in.tif" "$T/out.tif"
        check "read back, $c, tile $tile" readback "$T/out.tif" "$T/want.raw" none
    done
done
"$PY" -c "
from osgeo import gdal
ds = gdal.Open('$T/out.tif')
assert ds.GetRasterBand(1).GetBlockSize() == [512, 512]
assert ds.GetMetadata('IMAGE_STRUCTURE').get('COMPRESSION') is None" || bad "tile 512, no compression"
"$WS" --quiet --device cpu "$T/in.tif" "$T/def.tif"
# No predictor for float32: the floating-point one doubles entropy maps'
# tiles (docs/PERFORMANCE.md, "Output sizes").
check "default: zstd, no predictor" "$PY" -c "
import sys
from osgeo import gdal
m = gdal.Open('$T/def.tif').GetMetadata('IMAGE_STRUCTURE')
sys.exit(0 if m.get('COMPRESSION') == 'ZSTD' and m.get('PREDICTOR') in (None, '1') else 1)"

# Nodata in play: NaN is the output's nodata.
"$WS" --quiet --device cpu --size 517x301 --dtype u8 --nodata 0 "$T/in.raw" "$T/want0.raw"
"$WS" --quiet --device cpu --nodata 0 --compress lzw --tile 64 "$T/in.tif" "$T/nd.tif"
check "nodata NaN" readback "$T/nd.tif" "$T/want0.raw" nan

# The same bytes whatever the thread count (tiles compress on several
# threads), both layouts. The same words each time, in a folder of its own:
# the command line is in the metadata (less --threads, which only says how
# the job runs).
for th in 1 2 7; do
    mkdir "$T/th$th"
    ln -s "$T/in.tif" "$T/th$th/in.tif"
    (cd "$T/th$th" && "$WS" --quiet --device cpu --threads $th --tile 32 in.tif t.tif &&
        "$WS" --quiet --device cpu --threads $th --tile 32 --tif-layout tiled in.tif p.tif)
done
check "threads 1 = 2, byte for byte" cmp -s "$T/th1/t.tif" "$T/th2/t.tif"
check "threads 1 = 7, byte for byte" cmp -s "$T/th1/t.tif" "$T/th7/t.tif"
check "tiled: threads 1 = 2, byte for byte" cmp -s "$T/th1/p.tif" "$T/th2/p.tif"
check "tiled: threads 1 = 7, byte for byte" cmp -s "$T/th1/p.tif" "$T/th7/p.tif"

# Raw input to TIFF output: no georeferencing, still a valid float map.
"$WS" --quiet --device cpu --size 517x301 --dtype u8 "$T/in.raw" "$T/plain.tif"
check "raw in, tif out" "$PY" -c "
import sys, numpy as np
from osgeo import gdal
ds = gdal.Open('$T/plain.tif')
a = ds.GetRasterBand(1).ReadAsArray()
w = np.fromfile('$T/want.raw', '<f4').reshape(301, 517)
sys.exit(0 if np.array_equal(a.view('u4'), w.view('u4')) and ds.GetProjection() == '' else 1)"

# Errors: TIFF to standard output; a folder that does not exist; a full disk.
expect_exit 2 "tif to stdout" "$WS" --quiet --device cpu --format tif "$T/in.tif" -
expect_exit 4 "missing folder" "$WS" --quiet --device cpu "$T/in.tif" "$T/no/such/out.tif"
echo keep >"$T/keep.tif"
# Not under TSan: its runtime's own file (tsan.rodata.PID) would be cut by
# the limit too (SIGBUS at startup).
if [ "${WINENT_SANITIZE:-}" != thread ]; then
expect_exit 4 "full disk" sh -c "trap '' XFSZ; ulimit -f 100; exec '$WS' --quiet --device cpu --compress none '$T/in.tif' '$T/keep.tif'"
check "full disk keeps the old file" grep -q keep "$T/keep.tif"
fi
check "no temporary files left" [ -z "$(ls "$T" | grep tmp- || true)" ]
finish
