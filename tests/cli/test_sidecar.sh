#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# --sidecar: an ENVI header beside a raw map, OUT.raw.hdr, that
# GDAL opens: `gdalinfo OUT.raw` gives the map's pixels, NaN as nodata,
# the band's name, and the input GeoTIFF's own geotransform and CRS, for
# every real georeferenced file of ../shared/data/tiff that ENVI can
# describe. Written through a temporary file like the map, only on
# success; refused with .zst, .tif and outputs written in place.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
command -v gdalinfo >/dev/null 2>&1 || { echo "no gdalinfo: skipped"; exit 77; }
need_python numpy osgeo
R="--quiet --device cpu"

# gdal_same_georef OUT.raw INPUT.tif [nocrs]: GDAL reads the same
# geotransform (and CRS, unless nocrs) from the sidecar as from the input,
# the map's pixels, NaN nodata when nodata is in play.
gdal_same_georef() {
    "$PY" - "$@" <<'PY'
import sys, numpy as np
from osgeo import gdal, osr
gdal.UseExceptions()
out, src = sys.argv[1], sys.argv[2]
o, i = gdal.Open(out), gdal.Open(src)
errs = []
if o.GetDriver().ShortName != 'ENVI': errs.append('driver %s' % o.GetDriver().ShortName)
if sorted(o.GetFileList()) != sorted([out, out + '.hdr']): errs.append('files %r' % o.GetFileList())
gt, want = o.GetGeoTransform(), i.GetGeoTransform()
scale = max(abs(x) for x in want[1:3] + want[4:6])
if max(abs(a - b) for a, b in zip(gt, want)) > 1e-9 * max(1.0, abs(want[0]), abs(want[3])):
    errs.append('geotransform %r != %r' % (gt, want))
if len(sys.argv) < 4:
    s1, s2 = osr.SpatialReference(o.GetProjection()), osr.SpatialReference(i.GetProjection())
    if not s1.IsSame(s2): errs.append('CRS %s != %s' % (s1.GetName(), s2.GetName()))
b = o.GetRasterBand(1)
a = b.ReadAsArray()
w = np.fromfile(out, '<f4').reshape(o.RasterYSize, o.RasterXSize)
if b.DataType != gdal.GDT_Float32 or not np.array_equal(a.view('u4'), w.view('u4')):
    errs.append('pixels')
if (o.RasterXSize, o.RasterYSize) != (i.RasterXSize, i.RasterYSize): errs.append('size')
if not b.GetDescription().startswith('entropy 5x5 of band 1'): errs.append('band name %r' % b.GetDescription())
nd = b.GetNoDataValue()
if np.isnan(a).any() and not (nd is not None and np.isnan(nd)): errs.append('nodata %r' % nd)
if errs: print(out, errs); sys.exit(1)
PY
}

# A GeoTIFF of our own first (GDAL made: north-up, EPSG:32618), as raw and
# as the map of a --decode.
"$PY" -c "
import numpy as np
a = (np.random.default_rng(2).random((120, 170)) * 9).astype('u1'); a.tofile('$T/in.raw')"
printf 'ENVI\nsamples = 170\nlines = 120\nbands = 1\nheader offset = 0\ndata type = 1\nbyte order = 0\n' >"$T/in.hdr"
gdal_translate -q -of GTiff -a_srs EPSG:32618 -a_ullr 440720 3751320 445820 3747720 -a_nodata 0 \
    "$T/in.raw" "$T/in.tif"
expect_exit 0 "--sidecar" "$WS" $R --sidecar "$T/in.tif" "$T/out.raw"
check "OUT.raw.hdr beside OUT.raw" [ -s "$T/out.raw.hdr" ]
check "GDAL opens it with the input's georeferencing" gdal_same_georef "$T/out.raw" "$T/in.tif"
check "ENVI: samples, lines, float32 little-endian, bsq, NaN" sh -c "
    grep -qx 'samples = 170' '$T/out.raw.hdr' && grep -qx 'lines = 120' '$T/out.raw.hdr' &&
    grep -qx 'data type = 4' '$T/out.raw.hdr' && grep -qx 'byte order = 0' '$T/out.raw.hdr' &&
    grep -qx 'interleave = bsq' '$T/out.raw.hdr' && grep -qx 'header offset = 0' '$T/out.raw.hdr' &&
    grep -qx 'data ignore value = nan' '$T/out.raw.hdr'"
check "the description holds the provenance" grep -q "^description = {winent-stream .* of band 1 of $T/in.tif. Command: .*--sidecar.*out.raw. CRS: EPSG:32618}$" "$T/out.raw.hdr"
check "no temporary files left" [ -z "$(ls -a "$T" | grep -e 'tmp-' -e '^\.winent-' || true)" ]
# Names without an extension, and other raw extensions: NAME.hdr appended.
expect_exit 0 "--sidecar, no extension" "$WS" $R --sidecar "$T/in.tif" "$T/plain"
check "plain.hdr opens" gdal_same_georef "$T/plain" "$T/in.tif"
# Raw input, no georeferencing: a header all the same (GDAL opens the map).
expect_exit 0 "--sidecar, raw input" "$WS" $R --sidecar --size 170x120 --dtype u8 "$T/in.raw" "$T/r.f32"
check "r.f32.hdr: no map info, GDAL reads the pixels" "$PY" -c "
import sys, numpy as np
from osgeo import gdal
o = gdal.Open('$T/r.f32')
ok = o.GetGeoTransform(can_return_null=True) is None and o.GetProjection() == ''
ok = ok and np.array_equal(o.ReadAsArray().view('u4'), np.fromfile('$T/r.f32', '<u4').reshape(120, 170))
sys.exit(0 if ok else 1)"
check "r.f32.hdr: no nodata when none is in play" sh -c "! grep -q 'data ignore' '$T/r.f32.hdr'"
# --decode of a .zst: the header's georeferencing goes to the sidecar.
"$WS" $R "$T/in.tif" "$T/map.zst"
expect_exit 0 "--decode --sidecar" "$WS" $R --decode --sidecar "$T/map.zst" "$T/dec.raw"
check "decode's sidecar: the input's georeferencing" gdal_same_georef "$T/dec.raw" "$T/in.tif"
check "decode's sidecar: the pixels of the direct map" cmp -s "$T/dec.raw" "$T/out.raw"

# Refused: a .zst or .tif output (they describe themselves), raw written
# in place (no file to put a header beside). Nothing created.
expect_exit 2 "--sidecar with .zst" "$WS" $R --sidecar "$T/in.tif" "$T/x.zst"
check "says why (.zst)" grep -q "a .zst carries its own header: drop --sidecar" "$T/stderr"
expect_exit 2 "--sidecar with .tif" "$WS" $R --sidecar "$T/in.tif" "$T/x.tif"
check "says why (.tif)" grep -q "a GeoTIFF carries its georeferencing itself: drop --sidecar" "$T/stderr"
expect_exit 2 "--sidecar to standard output" "$WS" $R --sidecar "$T/in.tif" -
check "says why (stdout)" grep -q "needs a raw output file to put OUTPUT.hdr beside, and '-' is standard output" "$T/stderr"
mkfifo "$T/fifo"
expect_exit 2 "--sidecar into a FIFO" "$WS" $R --sidecar "$T/in.tif" "$T/fifo"
check "nothing created" sh -c "[ ! -e '$T/x.zst' ] && [ ! -e '$T/x.tif' ] &&
    [ ! -e '$T/x.zst.hdr' ] && [ ! -e '$T/fifo.hdr' ]"

# A failure (a file size limit) leaves neither the map nor its header, and
# an old pair untouched.
echo oldmap >"$T/keep.raw"
echo oldhdr >"$T/keep.raw.hdr"
if [ "${WINENT_SANITIZE:-}" != thread ]; then
    expect_exit 4 "full disk" sh -c "trap '' XFSZ; ulimit -f 20; exec '$WS' $R --sidecar '$T/in.tif' '$T/keep.raw'"
    check "the old map kept" grep -qx oldmap "$T/keep.raw"
    check "the old header kept" grep -qx oldhdr "$T/keep.raw.hdr"
    check "no temporary files left after the failure" [ -z "$(ls -a "$T" | grep -e 'tmp-' -e '^\.winent-' || true)" ]
fi

# The real GeoTIFFs of other software with georeferencing: GDAL reads back
# the input's geotransform and CRS from the sidecar. PixelIsPoint files
# (web.tif, cog_int16.tif) get GDAL's half-pixel shift; +y pixel sizes
# (inverted_lat.tif) stay. Two are beyond an ENVI header: rotated.tif's
# sheared geotransform (no map info can give it back: none is written) and
# cog_nonearth.tif's user-defined CRS (not an EPSG code: the geotransform
# only).
D="$WINENT_SHARED/data/tiff"
if [ -d "$D" ]; then
    for f in RGB.byte.tif RGBA.uint16.tif all-nodata.tif alpha.tif cog_int16.tif cogeo.tif \
        geo-5b.tif inverted_lat.tif pix4d_alpha_nodata.tif rgb_deflate.tif rgb_lzw.tif shade.tif \
        usda_naip_256_webp_z3.tif web.tif; do
        [ -f "$D/$f" ] || continue
        opts=
        case $f in inverted_lat.tif) opts="--range auto" ;; esac
        expect_exit 0 "$f --sidecar" "$WS" $R --sidecar $opts "$D/$f" "$T/real.raw"
        check "$f: gdalinfo gives the input's geotransform and CRS" gdal_same_georef "$T/real.raw" "$D/$f"
    done
    if [ -f "$D/cog_nonearth.tif" ]; then
        "$WS" $R --sidecar --range auto "$D/cog_nonearth.tif" "$T/ne.raw"
        check "cog_nonearth.tif: the geotransform (its CRS is not an EPSG code)" \
            gdal_same_georef "$T/ne.raw" "$D/cog_nonearth.tif" nocrs
    fi
    if [ -f "$D/rotated.tif" ]; then
        "$WS" $R --sidecar "$D/rotated.tif" "$T/rot.raw"
        check "rotated.tif: a shear is not written as a wrong map info" sh -c "! grep -q 'map info' '$T/rot.raw.hdr'"
    fi
else
    echo "no $D: the real files skipped"
fi
finish
