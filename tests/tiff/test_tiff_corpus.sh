#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every file of the shared third-party TIFF corpus is either processed
# (exit 0, and then the map equals the raw path's on the pixels GDAL reads,
# with GDAL's mask as nodata in a build with GDAL) or refused with exit 3
# and one 'winent-stream: ' line; never a crash or a hang. The files known
# to be broken or unsupported must be refused. With GDAL, reading every
# file through GDAL (WINENT_TIFF_READER=gdal) gives the same outcome and,
# where the band has no mask, the same map as libtiff.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
D="${WINENT_SHARED:-}/data/tiff"
[ -n "${WINENT_SHARED:-}" ] && [ -d "$D" ] || { echo "no shared TIFF corpus: skipped"; exit 77; }
"$PY" -c "from osgeo import gdal" 2>/dev/null || { echo "no GDAL bindings: skipped"; exit 77; }

refused=" 0x0.tiff colormap-shl-overflow.tiff corrupt.tif sample-get-lzw-stuck.tiff slc.tif "
for f in "$D"/*.tif "$D"/*.tiff; do
    [ -f "$f" ] || continue
    name=$(basename "$f")
    extra=""
    case $name in
    cog_nonearth.tif|inverted_lat.tif|predictor-3-*) extra="--range 0:1000" ;;
    esac
    case $refused in
    *" $name "*) want=3 ;;
    *) want=0 ;;
    esac
    # shellcheck disable=SC2086
    expect_exit $want "$name" timeout 60 "$WS" --quiet --device cpu $extra "$f" "$T/got.raw"
    if [ "${WINENT_HAVE_GDAL:-OFF}" = ON ]; then
        # shellcheck disable=SC2086
        expect_exit $want "$name through GDAL" env WINENT_TIFF_READER=gdal timeout 60 "$WS" \
            --quiet --device cpu $extra "$f" "$T/got_gdal.raw"
        [ "$want" -eq 0 ] && check "$name: GDAL's map = libtiff's" cmp -s "$T/got.raw" "$T/got_gdal.raw"
    fi
    [ "$want" -eq 0 ] || continue
    check "$name: nothing on stderr (libtiff warnings are captured)" [ ! -s "$T/stderr" ]
    # The same map from GDAL's reading of band 1 through the raw path.
    "$PY" - "$f" "$T" "${WINENT_HAVE_GDAL:-OFF}" <<'PY' >"$T/args" 2>"$T/pyerr" || { bad "$name: GDAL cannot read it: $(tail -1 "$T/pyerr")"; continue; }
import sys, numpy as np
from osgeo import gdal
gdal.UseExceptions()
ds = gdal.Open(sys.argv[1])  # keep the dataset alive while its band is used
b = ds.GetRasterBand(1)
a = b.ReadAsArray()
dt = {np.uint8: 'u8', np.int8: 'i8', np.uint16: 'u16', np.int16: 'i16', np.uint32: 'u32',
      np.int32: 'i32', np.float32: 'f32', np.float64: 'f64'}[a.dtype.type]
if dt == 'u8' and b.GetMetadataItem('PIXELTYPE', 'IMAGE_STRUCTURE') == 'SIGNEDBYTE':
    a, dt = a.view(np.int8), 'i8'
nd = b.GetNoDataValue()
flags = b.GetMaskFlags()
if sys.argv[3] == 'ON' and not flags & gdal.GMF_ALL_VALID and not (flags & gdal.GMF_NODATA and nd is not None):
    # Built with GDAL, the band's mask (alpha, per-dataset) is nodata: as
    # i32 with masked pixels (and nodata pixels) at a value of their own.
    m = b.GetMaskBand().ReadAsArray()
    a = a.astype(np.int64)
    if nd is not None and nd == int(nd):
        a[a == int(nd)] = -7
    a[m == 0] = -7
    a, dt, nd = a.astype('<i4'), 'i32', -7.0
np.ascontiguousarray(a).tofile(sys.argv[2] + '/gdal.raw')
args = ['--size', '%dx%d' % (a.shape[1], a.shape[0]), '--dtype', dt]
if nd is not None:
    args += ['--nodata', repr(nd)]
print(' '.join(args))
PY
    # shellcheck disable=SC2046,SC2086
    "$WS" --quiet --device cpu $extra $(cat "$T/args") "$T/gdal.raw" "$T/want.raw"
    check "$name: same map as GDAL's pixels" cmp -s "$T/want.raw" "$T/got.raw"
done
finish
