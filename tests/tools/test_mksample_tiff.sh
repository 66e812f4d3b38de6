#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# winent-mksample --tiff: a tiled TIFF holding the raw output's samples.
# Read back by GDAL (where installed) and by winent-stream's own TIFF reader
# (its map of the TIFF is the map of the raw twin), for several sample
# types, both byte orders, deflate and none, tiles that do not divide the
# image; the GDAL_NODATA tag; --georef; bounded memory; usage errors.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
have_gdal=0
"$PY" -c "from osgeo import gdal" 2>/dev/null && have_gdal=1
[ $have_gdal = 1 ] || echo "no GDAL bindings: GDAL readback skipped, winent-stream readback only"

# gdal_check: GDAL reads each TIFF listed in $T/gdal.list ("TIF RAW DTYPE
# COMPRESS TILE" lines) as its raw twin's samples, tiled, compressed; one
# Python for all of them. Prints a line per failure.
gdal_check() {
    "$PY" - "$T/gdal.list" <<'PY'
import sys, numpy as np
from osgeo import gdal
gdal.UseExceptions()
bad = 0
for line in open(sys.argv[1]):
    tif, raw, dt, comp, tile = line.split()
    errs = []
    try:
        ds = gdal.Open(tif)
        b = ds.GetRasterBand(1)
        a = b.ReadAsArray()
        want = np.fromfile(raw, np.dtype(dt).newbyteorder('<'))
        if want.size != a.size:
            raise ValueError('%d samples, want %d' % (a.size, want.size))
        want = want.reshape(a.shape)
        if a.dtype != want.dtype.newbyteorder('='): errs.append('dtype %s' % a.dtype)
        if not np.array_equal(a.view('u1'), want.astype(a.dtype).view('u1')):
            errs.append('samples differ')
        if b.GetBlockSize() != [int(tile), int(tile)]: errs.append('blocks %s' % b.GetBlockSize())
        c = ds.GetMetadata('IMAGE_STRUCTURE').get('COMPRESSION')
        if (comp == 'deflate') != (c == 'DEFLATE'): errs.append('compression %s' % c)
    except Exception as e:
        errs.append(str(e))
    if errs:
        print('FAILED: GDAL reads %s: %s' % (tif, errs))
        bad += 1
print('%d passed, %d failed' % (sum(1 for _ in open(sys.argv[1])) - bad, bad))
PY
}

# ws_same TIF RAW WxH DTYPE [options]: winent-stream gives one map for both.
ws_same() {
    _tif=$1 _raw=$2 _size=$3 _dt=$4; shift 4
    "$WS" --quiet --device cpu "$@" "$_tif" "$T/m_tif.raw" &&
        "$WS" --quiet --device cpu "$@" --size "$_size" --dtype "$_dt" "$_raw" "$T/m_raw.raw" &&
        cmp -s "$T/m_tif.raw" "$T/m_raw.raw"
}

: >"$T/gdal.list"
for spec in u8:u1 i8:i1 u16:u2 i16:i2 u32:u4 i32:i4 f32:f4 f64:f8; do
    t=${spec%:*} np=${spec#*:}
    opts="--window 5"
    case $t in f*) opts="--window 5 --range 0:50 --bins 64" ;; esac
    "$MK" --size 301x203 --dtype $t --kind landscape --values 50 --seed 3 "$T/$t.raw"
    for bo in little big; do
        for comp in deflate none; do
            tile=32
            [ $comp = none ] && tile=64
            "$MK" --size 301x203 --dtype $t --kind landscape --values 50 --seed 3 \
                --byteorder $bo --tiff --tile $tile --compress $comp "$T/$t-$bo-$comp.tif"
            echo "$T/$t-$bo-$comp.tif $T/$t.raw $np $comp $tile" >>"$T/gdal.list"
            check "$t $bo $comp tile $tile: winent-stream's map equals the raw twin's" \
                ws_same "$T/$t-$bo-$comp.tif" "$T/$t.raw" 301x203 $t $opts
        done
    done
done

if [ $have_gdal = 1 ]; then
    gdal_check >"$T/gdal.out" 2>&1 || true
    check "GDAL reads every TIFF as its raw twin: $(tail -n 1 "$T/gdal.out")" \
        grep -q ' 0 failed$' "$T/gdal.out"
    grep FAILED "$T/gdal.out" >&2 || true
fi

# Header byte order: II for little, MM for big.
"$MK" --size 40x30 --dtype u16 --tiff "$T/le.tif"
"$MK" --size 40x30 --dtype u16 --tiff --byteorder big "$T/be.tif"
check "little-endian TIFF starts II*" [ "$(head -c 3 "$T/le.tif" | od -An -c | tr -d ' ')" = 'II*' ]
check "big-endian TIFF starts MM" [ "$(head -c 2 "$T/be.tif")" = MM ]

# A landscape with holes: the nodata value travels as GDAL_NODATA.
"$MK" --size 517x301 --dtype u8 --kind landscape --values 12 --holes 0.2 --nodata 255 \
    --seed 6 --tiff --tile 256 "$T/h.tif"
"$MK" --size 517x301 --dtype u8 --kind landscape --values 12 --holes 0.2 --nodata 255 \
    --seed 6 "$T/h.raw"
check "holes: the TIFF's GDAL_NODATA is what --nodata 255 gives on the raw twin" \
    sh -c "'$WS' --quiet --device cpu '$T/h.tif' '$T/mh1.raw' &&
           '$WS' --quiet --device cpu --nodata 255 --size 517x301 --dtype u8 '$T/h.raw' '$T/mh2.raw' &&
           cmp -s '$T/mh1.raw' '$T/mh2.raw'"
if [ $have_gdal = 1 ]; then
    check "GDAL sees nodata 255" "$PY" -c "
import sys
from osgeo import gdal
ds = gdal.Open('$T/h.tif')  # kept alive: a band outlives no dataset
sys.exit(0 if ds.GetRasterBand(1).GetNoDataValue() == 255 else 1)"
fi
"$MK" --size 200x100 --dtype f32 --kind landscape --values 9 --holes 0.2 --seed 6 --tiff "$T/hf.tif"
"$MK" --size 200x100 --dtype f32 --kind landscape --values 9 --holes 0.2 --seed 6 "$T/hf.raw"
check "f32 holes: NaN samples read back as NaN (same map as the raw twin)" \
    ws_same "$T/hf.tif" "$T/hf.raw" 200x100 f32 --range 0:9 --bins 32

# --georef: a GeoTIFF (the quick start's demo input) that GDAL places, and
# whose georeferencing winent-stream's GeoTIFF output keeps; its samples
# are those of the same TIFF without it.
"$MK" --size 96x64 --dtype u8 --kind landscape --tiff --georef 32633,500000,4600000,30 "$T/utm.tif"
"$MK" --size 96x64 --dtype u8 --tiff --georef 4326,10.5,50.25,0.001 "$T/ll.tif"
if [ $have_gdal = 1 ]; then
    "$WS" --quiet --device cpu "$T/utm.tif" "$T/utm-map.tif"
    check "--georef: GDAL reads the CRS and the geotransform (input and map)" "$PY" -c "
import sys
from osgeo import gdal, osr
def crs(ds):
    s = osr.SpatialReference(wkt=ds.GetProjection()); s.AutoIdentifyEPSG()
    return s.GetAuthorityCode(None), bool(s.IsGeographic())
bad = []
for path, want in (('$T/utm.tif', ((500000, 30, 0, 4600000, 0, -30), ('32633', False))),
                   ('$T/utm-map.tif', ((500000, 30, 0, 4600000, 0, -30), ('32633', False))),
                   ('$T/ll.tif', ((10.5, 0.001, 0, 50.25, 0, -0.001), ('4326', True)))):
    ds = gdal.Open(path)
    got = (ds.GetGeoTransform(), crs(ds))
    if got != want:
        bad.append('%s: %r' % (path, got))
sys.exit('; '.join(bad) if bad else 0)"
fi
"$MK" --size 96x64 --dtype u8 --kind landscape --tiff "$T/plain.tif"
check "--georef changes no sample" sh -c "'$WS' --quiet --format raw '$T/utm.tif' '$T/g1' &&
    '$WS' --quiet --format raw '$T/plain.tif' '$T/g2' && cmp -s '$T/g1' '$T/g2'"

# Streamed: memory follows the width and the tile, not the height (not
# measured in sanitizer builds: their shadow memory is most of the RSS).
if [ -x /usr/bin/time ] && [ -z "${WINENT_SANITIZE:-}" ]; then
    /usr/bin/time -f %M -o "$T/rss" "$MK" --size 8000x12000 --dtype u8 --kind landscape \
        --values 12 --tiff --tile 128 "$T/tall.tif"
    rss=$(tail -n 1 "$T/rss")
    check "96 MB of samples written in $rss KiB (< 40 MiB)" [ "$rss" -lt 40960 ]
fi
[ -e "$T/tall.tif" ] || "$MK" --size 8000x12000 --dtype u8 --kind landscape --values 12 \
    --tiff --tile 128 "$T/tall.tif"
if [ $have_gdal = 1 ] && [ -e "$T/tall.tif" ]; then
    "$MK" --size 8000x300 --dtype u8 --kind landscape --values 12 "$T/short.raw"
    check "GDAL: rows of the tall TIFF match the raw short one" "$PY" -c "
import sys, numpy as np
from osgeo import gdal
a = gdal.Open('$T/tall.tif').ReadAsArray(0, 0, 8000, 300)
b = np.fromfile('$T/short.raw', 'u1').reshape(300, 8000)
sys.exit(0 if np.array_equal(a, b) else 1)"
fi

# Usage and write errors: one 'winent-mksample: ' line and the exit code.
mk_expect() { # mk_expect CODE DESCRIPTION ARGS...
    _mw=$1 _md=$2
    shift 2
    EXPECT_PROG=winent-mksample
    expect_exit "$_mw" "$_md" "$MK" "$@"
    EXPECT_PROG=
}
mk_expect 2 "--tiff to standard output" --size 4x4 --dtype u8 --tiff -
mk_expect 2 "--tile without --tiff" --size 4x4 --dtype u8 --tile 32 "$T/x"
mk_expect 2 "--tile not a multiple of 16" --size 4x4 --dtype u8 --tiff --tile 40 "$T/x.tif"
mk_expect 2 "--compress lzw" --size 4x4 --dtype u8 --tiff --compress lzw "$T/x.tif"
mk_expect 2 "--georef without --tiff" --size 4x4 --dtype u8 --georef 32633,0,0,1 "$T/x"
mk_expect 2 "--georef without a pixel side" --size 4x4 --dtype u8 --tiff --georef 32633,0,0 "$T/x.tif"
mk_expect 2 "--georef with a negative pixel" --size 4x4 --dtype u8 --tiff --georef 32633,0,0,-1 "$T/x.tif"
mk_expect 4 "unwritable TIFF" --size 4x4 --dtype u8 --tiff "$T/no/such/dir/x.tif"
check "no file left by a failed TIFF" [ ! -e "$T/x.tif" ]

finish
