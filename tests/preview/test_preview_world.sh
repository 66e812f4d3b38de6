#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The preview placed by GIS tools: a georeferenced map's PNG gets NAME.pgw
# (world file) and NAME.png.aux.xml (CRS) beside it, and GDAL (osgeo.gdal,
# the PNG driver) reads the PNG's geotransform and CRS back: the map's, its
# pixels W / pw and H / ph as large, the PNG's extent exactly the map's
# (the legend is a PNG of its own, NAME.legend.png); EPSG:4326 in GIS axis
# order. No world file for a map without georeferencing, nothing beside a
# preview on a pipe; none of the files (nor a temporary one) after a failed
# job; a world file that is the input is refused. --preview-range: its
# checks.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
need_python numpy osgeo.gdal

no_temp() {
    ! ls -a "$1" | grep -q -e '\.tmp-' -e '^\.winent-'
}

# Georeferenced inputs made by GDAL: UTM 33N with 30 m pixels, and
# geographic degrees (EPSG:4326, whose CRS axes are latitude first).
"$PY" - "$T" <<'EOF'
import sys
import numpy as np
from osgeo import gdal, osr
gdal.UseExceptions()
t = sys.argv[1]
rng = np.random.default_rng(30)
for name, epsg, gt, w, h in (("utm", 32633, (500000.0, 30.0, 0.0, 4600000.0, 0.0, -30.0), 700, 450),
                             ("geo", 4326, (10.0, 0.001, 0.0, 50.0, 0.0, -0.0008), 300, 500)):
    d = gdal.GetDriverByName("GTiff").Create("%s/%s.tif" % (t, name), w, h, 1, gdal.GDT_Byte)
    d.SetGeoTransform(gt)
    s = osr.SpatialReference()
    s.ImportFromEPSG(epsg)
    d.SetProjection(s.ExportToWkt())
    d.GetRasterBand(1).WriteArray(rng.integers(0, 40, size=(h, w)).astype(np.uint8))
    d = None
EOF

# placed PNG MAP.tif: GDAL's geotransform and CRS of the PNG against the
# map's, scaled to the preview's pixels.
placed() {
    "$PY" - "$@" <<'EOF'
import sys
from osgeo import gdal
gdal.UseExceptions()
png, tif = sys.argv[1:3]
p, m = gdal.Open(png), gdal.Open(tif)
text = p.GetMetadata()
pw = m.RasterXSize if m.RasterXSize >= m.RasterYSize else None
# The image part of the PNG: its size from the Description ("at PWxPH").
import re
pw, ph = (int(v) for v in re.search(r" at (\d+)x(\d+),", text["Description"]).groups())
sx, sy = m.RasterXSize / pw, m.RasterYSize / ph
if (p.RasterXSize, p.RasterYSize) != (pw, ph):
    sys.exit("PNG %dx%d, want exactly the %dx%d image" % (p.RasterXSize, p.RasterYSize, pw, ph))
g, want = p.GetGeoTransform(), m.GetGeoTransform()
# The extent GDAL gives the PNG (its corners) is the map's.
def corners(t, w, h):
    return [(t[0] + x * t[1] + y * t[2], t[3] + x * t[4] + y * t[5])
            for x, y in ((0, 0), (w, 0), (0, h), (w, h))]
for (px, py), (mx, my) in zip(corners(g, p.RasterXSize, p.RasterYSize),
                              corners(want, m.RasterXSize, m.RasterYSize)):
    if abs(px - mx) > 1e-9 * max(1.0, abs(mx)) or abs(py - my) > 1e-9 * max(1.0, abs(my)):
        sys.exit("PNG corner (%r, %r), the map's (%r, %r)" % (px, py, mx, my))
want = (want[0], want[1] * sx, want[2] * sy, want[3], want[4] * sx, want[5] * sy)
bad = [i for i in range(6) if abs(g[i] - want[i]) > 1e-9 * max(1.0, abs(want[i]))]
if bad:
    sys.exit("geotransform %r, want %r" % (g, want))
ps, ms = p.GetSpatialRef(), m.GetSpatialRef()
if ps is None or not ps.IsSame(ms):
    sys.exit("CRS %s, want %s" % (ps and ps.GetAuthorityCode(None), ms.GetAuthorityCode(None)))
if ps.GetDataAxisToSRSAxisMapping() != ms.GetDataAxisToSRSAxisMapping():
    sys.exit("axis mapping %r, want %r" % (ps.GetDataAxisToSRSAxisMapping(),
                                           ms.GetDataAxisToSRSAxisMapping()))
# A point: the map's pixel (x, y) is the preview's (x / sx, y / sy).
x, y = 350, 200
mx = want[0] + x / sx * want[1] + y / sy * want[2]
gx = g[0] + x / sx * g[1] + y / sy * g[2]
if abs(mx - gx) > 1e-6 * max(1.0, abs(mx)):
    sys.exit("a point lands at %r, want %r" % (gx, mx))
EOF
}

for name in utm geo; do
    expect_exit 0 "$name: a map with a preview" "$WS" --quiet --base 2 --window 7 \
        --preview "$T/$name.png" --preview-size 200 "$T/$name.tif" "$T/$name-map.tif"
    check "$name: world file beside the PNG" test -s "$T/$name.pgw"
    check "$name: PAM file beside the PNG" test -s "$T/$name.png.aux.xml"
    check "$name: legend beside the PNG" test -s "$T/$name.legend.png"
    check "$name: GDAL places the PNG where the map is, with its CRS" \
        placed "$T/$name.png" "$T/$name-map.tif"
done
check "no temporary left" no_temp "$T"

# The world file alone places it too (GDAL without the PAM file).
mv "$T/utm.png.aux.xml" "$T/aux.keep"
check "the world file alone: GDAL's geotransform, the PNG's extent the map's" "$PY" -c '
import sys
from osgeo import gdal
d = gdal.Open(sys.argv[1])
g = d.GetGeoTransform()
east, south = g[0] + d.RasterXSize * g[1], g[3] + d.RasterYSize * g[5]
sys.exit(0 if abs(g[0] - 500000.0) < 1e-6 and abs(g[3] - 4600000.0) < 1e-6 and
         abs(g[1] - 30.0 * 700 / 200) < 1e-9 and abs(east - (500000.0 + 700 * 30)) < 1e-6 and
         abs(south - (4600000.0 - 450 * 30)) < 1e-6 else "%r %dx%d" % (g, d.RasterXSize,
                                                                     d.RasterYSize))' "$T/utm.png"
mv "$T/aux.keep" "$T/utm.png.aux.xml"

# No georeferencing (raw samples): the PNG alone.
"$MK" --size 90x60 --dtype u8 --values 30 "$T/raw.u8"
expect_exit 0 "raw input with a preview" "$WS" --quiet --size 90x60 --dtype u8 \
    --preview "$T/raw.png" "$T/raw.u8" "$T/raw.zst"
check "raw input: no world file" test ! -e "$T/raw.pgw"
check "raw input: no PAM file" test ! -e "$T/raw.png.aux.xml"
check "raw input: the legend beside the PNG" test -s "$T/raw.legend.png"

# A preview on a pipe: no files beside anything.
mkdir "$T/pipe"
(cd "$T/pipe" && "$WS" --quiet --preview - "$T/utm.tif" "$T/pipe.zst" | cat >"$T/pipe.png")
check "preview on a pipe: a PNG" "$PY" -c '
import sys
sys.exit(0 if open(sys.argv[1], "rb").read(8) == b"\x89PNG\r\n\x1a\n" else 1)' "$T/pipe.png"
check "preview on a pipe: nothing written beside it" test -z "$(ls -A "$T/pipe")"

# A failed job (the output's folder is missing): none of the three.
expect_exit 4 "output folder missing" "$WS" --quiet --preview "$T/f.png" "$T/utm.tif" \
    "$T/nodir/o.tif"
check "failed job: no PNG" test ! -e "$T/f.png"
check "failed job: no world file" test ! -e "$T/f.pgw"
check "failed job: no PAM file" test ! -e "$T/f.png.aux.xml"
check "failed job: no legend" test ! -e "$T/f.legend.png"
check "failed job: no temporary" no_temp "$T"

# The world file is an output: the input there is refused before any work.
cp "$T/utm.tif" "$T/in.pgw"
expect_exit 2 "world file that is the input" "$WS" --quiet --preview "$T/in.png" \
    "$T/in.pgw" "$T/o.zst"
check "the refusal names the world file" grep -q "world file" "$T/stderr"
check "the input is untouched" cmp "$T/in.pgw" "$T/utm.tif"

# --preview-range: finite LO < HI, with --preview.
expect_exit 2 "--preview-range 5:2" "$WS" --preview "$T/r.png" --preview-range 5:2 \
    "$T/utm.tif" "$T/o.zst"
expect_exit 2 "--preview-range 1:x" "$WS" --preview "$T/r.png" --preview-range 1:x \
    "$T/utm.tif" "$T/o.zst"
expect_exit 2 "--preview-range without --preview" "$WS" --preview-range 1:2 "$T/utm.tif" \
    "$T/o.zst"
expect_exit 0 "--preview-range -1:3.5" "$WS" --quiet --base 2 --preview "$T/r.png" \
    --preview-range -1:3.5 "$T/utm.tif" "$T/o.zst"
check "--preview-range in the PAM file" grep -q '<MDI key="STRETCH_MIN">-1</MDI>' \
    "$T/r.png.aux.xml"

finish
