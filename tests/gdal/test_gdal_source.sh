#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The GDAL source: the same raw samples made by gdal_translate into a VRT,
# an ENVI file, a lossless JPEG2000, a NetCDF subdataset, a TIFF inside a
# zip (/vsizip/) and one on a local web server (/vsicurl/, http://) each
# give the map of the raw samples, byte for byte;
# GDAL's nodata and mask (alpha band, per-dataset mask, .msk file) are
# nodata; the georeferencing reaches the GeoTIFF output; broken inputs
# are input errors (exit 3, one line), never zeros.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
[ "${WINENT_HAVE_GDAL:-OFF}" = ON ] || { echo "built without GDAL (WINENT_GDAL=OFF or no libgdal-dev): skipped"; exit 77; }
command -v gdal_translate >/dev/null 2>&1 || { echo "no gdal_translate: skipped"; exit 77; }
need_python numpy osgeo.gdal
formats=$(gdalinfo --formats)
has_driver() { echo "$formats" | grep -q "^ *$1 "; }
W=517
H=301
R="--quiet --device cpu"

# The raw samples (u8, a few values, a flat area) and their map.
"$PY" -c "
import numpy as np
rng = np.random.default_rng(5)
yy, xx = np.mgrid[0:$H, 0:$W]
a = ((np.sin(xx / 23.0) * np.cos(yy / 9.0)) * 6 + 6 + rng.integers(0, 3, ($H, $W))).astype('u1')
a[100:140, 200:260] = 0
a.tofile('$T/in.raw')"
printf 'ENVI\nsamples = %d\nlines = %d\nbands = 1\nheader offset = 0\nfile type = ENVI Standard\ndata type = 1\ninterleave = bsq\nbyte order = 0\n' $W $H >"$T/in.hdr"
"$WS" $R --size ${W}x$H --dtype u8 "$T/in.raw" "$T/want.raw"
gdal_translate -q -of GTiff -a_srs EPSG:32618 -a_ullr 440720 3751320 456230 3742290 \
    "$T/in.raw" "$T/geo.tif"

# same_map NAME INPUT [OPTIONS]: the map of INPUT is the raw samples' map.
same_map() {
    _n=$1
    _in=$2
    shift 2
    rm -f "$T/got.raw"
    expect_exit 0 "$_n: runs" "$WS" $R "$@" "$_in" "$T/got.raw"
    check "$_n: the raw samples' map" cmp -s "$T/got.raw" "$T/want.raw"
    check "$_n: nothing on stderr" test ! -s "$T/stderr"
}

# GDAL is opened at first use (src/tiles/dynlib.h): a job on raw samples or
# a TIFF that libtiff reads never loads it; one on a format only GDAL reads
# does. The loader's own trace (LD_DEBUG=files) names each library it maps.
LD_DEBUG=files "$WS" $R --size ${W}x$H --dtype u8 "$T/in.raw" "$T/ld.raw" 2>"$T/ld.txt"
check "raw input: the job runs" cmp -s "$T/ld.raw" "$T/want.raw"
check "raw input: libgdal is not loaded" sh -c "! grep -q 'libgdal\.so' '$T/ld.txt'"
LD_DEBUG=files "$WS" $R "$T/geo.tif" "$T/ld.raw" 2>"$T/ld.txt"
check "TIFF input: the job runs" cmp -s "$T/ld.raw" "$T/want.raw"
check "TIFF input (libtiff): libgdal is not loaded" sh -c "! grep -q 'libgdal\.so' '$T/ld.txt'"
cp "$T/in.raw" "$T/ld.img"
cp "$T/in.hdr" "$T/ld.hdr"
LD_DEBUG=files "$WS" $R "$T/ld.img" "$T/ld.raw" 2>"$T/ld.txt"
check "ENVI input: libgdal is loaded, and reads it" sh -c "grep -q 'libgdal\.so' '$T/ld.txt' && cmp -s '$T/ld.raw' '$T/want.raw'"
rm -f "$T/ld.raw"
check "--version loads GDAL and names its version" sh -c "'$WS' --version | grep -q 'GDAL [0-9]'"

# ENVI: the raw file itself, recognised by its .hdr (no --size needed).
cp "$T/in.raw" "$T/envi.img"
cp "$T/in.hdr" "$T/envi.hdr"
same_map ENVI "$T/envi.img"
gdal_translate -q -of VRT "$T/geo.tif" "$T/in.vrt"
same_map VRT "$T/in.vrt"
if has_driver JP2OpenJPEG; then
    gdal_translate -q -of JP2OpenJPEG -co REVERSIBLE=YES -co QUALITY=100 -co BLOCKXSIZE=128 \
        -co BLOCKYSIZE=128 "$T/geo.tif" "$T/in.jp2"
    same_map "JPEG2000 (lossless, 128x128 tiles)" "$T/in.jp2"
    same_map "JPEG2000 on 3 threads" "$T/in.jp2" --threads 3
    # A truncated codestream: an input error, not zeros.
    head -c 20000 "$T/in.jp2" >"$T/cut.jp2"
    expect_exit 3 "truncated JPEG2000" "$WS" $R "$T/cut.jp2" "$T/o.raw"
    check "truncated JPEG2000: no output" test ! -e "$T/o.raw"
else
    echo "no JP2OpenJPEG driver: JPEG2000 not tested"
fi
if has_driver netCDF; then
    gdal_translate -q -of netCDF "$T/geo.tif" "$T/in.nc"
    same_map "NetCDF subdataset" "NETCDF:$T/in.nc:Band1"
    same_map "NetCDF file of one variable" "$T/in.nc"
    # Two variables: the file alone is a usage error that names one.
    gdal_translate -q -of netCDF -b 1 -b 1 "$T/geo.tif" "$T/two.nc"
    expect_exit 2 "NetCDF of two variables" "$WS" $R "$T/two.nc" "$T/o.raw"
    check "the message names a subdataset" grep -q "NETCDF:" "$T/stderr"
else
    echo "no netCDF driver: NetCDF not tested"
fi
"$PY" -c "
import zipfile
with zipfile.ZipFile('$T/in.zip', 'w', zipfile.ZIP_DEFLATED) as z:
    z.write('$T/geo.tif', 'dir/geo.tif')"
same_map "/vsizip/" "/vsizip/$T/in.zip/dir/geo.tif"
# Formats read front to back (one dataset, rows in order): PNG, gzip.
gdal_translate -q -of PNG "$T/geo.tif" "$T/in.png"
same_map "PNG on 3 threads" "$T/in.png" --threads 3
"$PY" -c "
import gzip, shutil
with open('$T/geo.tif', 'rb') as f, gzip.open('$T/geo.tif.gz', 'wb') as g:
    shutil.copyfileobj(f, g)"
same_map "/vsigzip/ on 3 threads" "/vsigzip/$T/geo.tif.gz" --threads 3
expect_exit 3 "/vsizip/ of a missing member" "$WS" $R "/vsizip/$T/in.zip/nope.tif" "$T/o.raw"
# /vsicurl/ and a plain URL, from a web server on this machine.
"$PY" -u -m http.server 0 --bind 127.0.0.1 --directory "$T" >"$T/http.log" 2>&1 &
http_pid=$!
trap 'kill $http_pid 2>/dev/null || true; rm -rf "$T"' EXIT INT TERM
n=0
while [ $n -lt 100 ] && ! grep -q "port [0-9]" "$T/http.log"; do
    sleep 0.1
    n=$((n + 1))
done
port=$(sed -n 's/.* port \([0-9]*\).*/\1/p' "$T/http.log" | head -n 1)
if [ -n "$port" ]; then
    same_map "/vsicurl/" "/vsicurl/http://127.0.0.1:$port/geo.tif"
    same_map "http:// URL" "http://127.0.0.1:$port/geo.tif"
    expect_exit 3 "/vsicurl/ of a missing file" "$WS" $R "/vsicurl/http://127.0.0.1:$port/nope.tif" \
        "$T/o.raw"
    check "the message gives the HTTP status" grep -q "404" "$T/stderr"
else
    echo "no local web server: /vsicurl/ not tested"
fi
kill $http_pid 2>/dev/null || true
# A VRT whose source file is missing: an input error at the first read.
sed "s|geo.tif|gone.tif|" "$T/in.vrt" >"$T/missing.vrt"
expect_exit 3 "VRT with a missing source" "$WS" $R "$T/missing.vrt" "$T/o.raw"
check "the message names the missing file" grep -q "gone.tif" "$T/stderr"
check "no output after input errors" test ! -e "$T/o.raw"
expect_exit 2 "--band past the bands" "$WS" $R --band 2 "$T/in.vrt" "$T/o.raw"

# Other types and nodata through a VRT, against GDAL's own reading of it.
for spec in "Int16:-scale 0 15 -900 900" "UInt16:-scale 0 15 0 60000" \
    "Float32:-scale 0 15 0 1" "Int32:-scale 0 15 -70000 70000" "Byte:-a_nodata 6"; do
    ot=${spec%%:*}
    gdal_translate -q -of VRT -ot $ot ${spec#*:} "$T/geo.tif" "$T/t.vrt"
    "$PY" - "$T/t.vrt" "$T/t.raw" <<'PY' >"$T/args"
import sys, numpy as np
from osgeo import gdal
ds = gdal.Open(sys.argv[1])  # kept alive while its band is used
b = ds.GetRasterBand(1)
a = b.ReadAsArray()
a.tofile(sys.argv[2])
dt = {'uint8': 'u8', 'int16': 'i16', 'uint16': 'u16', 'int32': 'i32', 'float32': 'f32'}[str(a.dtype)]
args = ['--size', '%dx%d' % (a.shape[1], a.shape[0]), '--dtype', dt]
if b.GetNoDataValue() is not None:
    args += ['--nodata', repr(b.GetNoDataValue())]
print(' '.join(args))
PY
    ex=""
    [ $ot = Float32 ] && ex="--range 0:1 --bins 16"
    # shellcheck disable=SC2046,SC2086
    "$WS" $R $ex $(cat "$T/args") "$T/t.raw" "$T/want_t.raw"
    # shellcheck disable=SC2086
    "$WS" $R $ex "$T/t.vrt" "$T/got_t.raw"
    check "VRT $spec: the map of GDAL's pixels" cmp -s "$T/want_t.raw" "$T/got_t.raw"
done
# --nodata beats the file's nodata value.
"$WS" $R --nodata 3 "$T/t.vrt" "$T/got_t.raw"
"$WS" $R --size ${W}x$H --dtype u8 --nodata 3 "$T/in.raw" "$T/want_t.raw"
check "--nodata beats GDAL's nodata" cmp -s "$T/want_t.raw" "$T/got_t.raw"

# Georeferencing: gdalinfo sees the input's geotransform and CRS in the
# GeoTIFF made from a VRT, a JPEG2000, a NetCDF; and a rotated one.
gdal_translate -q -of VRT -a_srs "+proj=lcc +lat_1=33 +lat_2=45 +lat_0=39 +lon_0=-96 +datum=NAD83 +units=m" \
    -a_ullr 1000 3000 6170 0 "$T/in.raw" "$T/lcc.vrt"
"$PY" - "$T/rot.vrt" "$T/geo.tif" <<'PY'
import sys
from osgeo import gdal
gdal.Translate(sys.argv[1], sys.argv[2], format='VRT')
ds = gdal.Open(sys.argv[1], gdal.GA_Update)
ds.SetGeoTransform([440720, 29.5, 4.0, 3751320, 3.0, -30.5])
PY
geo_inputs="$T/in.vrt $T/lcc.vrt $T/rot.vrt"
[ -e "$T/in.jp2" ] && geo_inputs="$geo_inputs $T/in.jp2"
[ -e "$T/in.nc" ] && geo_inputs="$geo_inputs NETCDF:$T/in.nc:Band1"
for g in $geo_inputs; do
    rm -f "$T/geo_out.tif"
    "$WS" $R "$g" "$T/geo_out.tif"
    gdalinfo -json "$g" >"$T/a.json"
    gdalinfo -json "$T/geo_out.tif" >"$T/b.json"
    check "georeferencing of $(basename "$g") kept" "$PY" - "$T/a.json" "$T/b.json" <<'PY'
import sys, json
from osgeo import osr
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ga, gb = a.get('geoTransform'), b.get('geoTransform')
ok = ga is not None and gb is not None and all(abs(x - y) <= 1e-9 * max(1.0, abs(x)) for x, y in zip(ga, gb))
wa, wb = a.get('coordinateSystem', {}).get('wkt'), b.get('coordinateSystem', {}).get('wkt')
sa, sb = osr.SpatialReference(), osr.SpatialReference()
ok = ok and wa and wb and sa.ImportFromWkt(wa) == 0 and sb.ImportFromWkt(wb) == 0 and sa.IsSame(sb)
if not ok:
    print('geotransform', ga, gb, 'crs', (wa or '')[:80], (wb or '')[:80])
sys.exit(0 if ok else 1)
PY
done

# GDAL's mask is nodata. alpha.tif (shared corpus): RGB + alpha, 1.47
# million pixels transparent; each must come out NaN, and the map must be
# that of the band with masked pixels as an explicit nodata value.
# mask_ref INPUT BAND: that map's raw samples (i32, nodata -7) and options.
mask_ref() {
    "$PY" - "$1" "$2" "$T/ref.raw" <<'PY'
import sys, numpy as np
from osgeo import gdal
ds = gdal.Open(sys.argv[1])
b = ds.GetRasterBand(int(sys.argv[2]))
a = b.ReadAsArray().astype(np.int64)
m = b.GetMaskBand().ReadAsArray()
a[m == 0] = -7
a.astype('<i4').tofile(sys.argv[3])
print('--size %dx%d --dtype i32 --nodata -7' % (a.shape[1], a.shape[0]))
PY
}
D="${WINENT_SHARED:-}/data/tiff"
if [ -f "$D/alpha.tif" ]; then
    for band in 1 3; do
        "$WS" $R --band $band "$D/alpha.tif" "$T/alpha.raw"
        # shellcheck disable=SC2046
        "$WS" $R $(mask_ref "$D/alpha.tif" $band) "$T/ref.raw" "$T/alpha_want.raw"
        check "alpha.tif band $band: the map with masked pixels as nodata" \
            cmp -s "$T/alpha.raw" "$T/alpha_want.raw"
    done
    check "alpha.tif: every transparent pixel NaN, no other" "$PY" - "$D/alpha.tif" "$T/alpha.raw" <<'PY'
import sys, numpy as np
from osgeo import gdal
ds = gdal.Open(sys.argv[1])
m = ds.GetRasterBand(4).ReadAsArray()
a = np.fromfile(sys.argv[2], '<f4').reshape(m.shape)
print('transparent:', int((m == 0).sum()), 'NaN:', int(np.isnan(a).sum()))
sys.exit(0 if (m == 0).sum() > 1400000 and np.array_equal(np.isnan(a), m == 0) else 1)
PY
    # The same through the GeoTIFF output: GDAL reads NaN as its nodata.
    "$WS" $R "$D/alpha.tif" "$T/alpha.tif"
    check "alpha.tif -> .tif: NaN where transparent" "$PY" - "$D/alpha.tif" "$T/alpha.tif" <<'PY'
import sys, numpy as np
from osgeo import gdal
src = gdal.Open(sys.argv[1])
m = src.GetRasterBand(4).ReadAsArray()
ds = gdal.Open(sys.argv[2])
b = ds.GetRasterBand(1)
a = b.ReadAsArray()
sys.exit(0 if np.isnan(b.GetNoDataValue()) and np.array_equal(np.isnan(a), m == 0) else 1)
PY
    # A per-dataset mask in a .msk file beside a 16-bit and a 32-bit TIFF
    # (no alpha: only the .msk says which pixels are out).
    for ot in UInt16 Int32; do
        rm -f "$T/m.tif" "$T/m.tif.msk"
        gdal_translate -q --config GDAL_TIFF_INTERNAL_MASK NO -ot $ot -b 1 -mask 4 \
            "$D/alpha.tif" "$T/m.tif"
        check "$ot: the mask is a .msk file" test -f "$T/m.tif.msk"
        # shellcheck disable=SC2046
        "$WS" $R $(mask_ref "$T/m.tif" 1) "$T/ref.raw" "$T/m_want.raw"
        if [ $ot = Int32 ]; then
            # No wider integer type: a nodata value must stand for the mask.
            expect_exit 3 "Int32 with a mask and no nodata" "$WS" $R "$T/m.tif" "$T/m.raw"
            check "the message says to give --nodata" grep -q -- "--nodata" "$T/stderr"
            "$WS" $R --nodata -7 "$T/m.tif" "$T/m.raw"
        else
            "$WS" $R "$T/m.tif" "$T/m.raw"
        fi
        check "$ot with a .msk mask: masked pixels are nodata" cmp -s "$T/m.raw" "$T/m_want.raw"
    done
else
    echo "no shared TIFF corpus: the alpha.tif checks skipped"
fi
finish
