#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# .zst output end to end: zstd -dc gives the raw map, the seek table serves
# any range (tests/lib/zst_read.py walks it as zstd's seekable reader does),
# the bytes depend on nothing but the options, the georeferencing of a
# GeoTIFF input reaches the header as GDAL reads it, and --info describes
# good files and refuses others.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
need_python numpy json xxhash
RD="$WINENT_SRC/tests/lib/zst_read.py"
command -v zstd >/dev/null || { echo "no zstd command: skipped"; exit 77; }

"$PY" -c "
import numpy as np
np.random.seed(7)
open('$T/in.raw', 'wb').write(np.random.randint(0, 16, 300 * 170).astype('u1').tobytes())"
"$WS" --quiet --size 300x170 --dtype u8 "$T/in.raw" "$T/out.raw"
"$WS" --quiet --size 300x170 --dtype u8 --frame-rows 16 "$T/in.raw" "$T/out.zst"
zstd -dcq "$T/out.zst" >"$T/dec.raw"
check "zstd -dc out.zst = the raw map" cmp -s "$T/dec.raw" "$T/out.raw"
check "size is width x height x 4" test "$(wc -c <"$T/dec.raw")" -eq $((300 * 170 * 4))
check "seek table, checksums, frames" "$PY" "$RD" check "$T/out.zst"
# A range across frames 3 and 4, found through the seek table.
"$PY" "$RD" range "$T/out.zst" 60000 30000 >"$T/range.bin"
check "seekable range" "$PY" -c "
import sys
a = open('$T/range.bin', 'rb').read(); b = open('$T/dec.raw', 'rb').read()
sys.exit(0 if a == b[60000:90000] else 1)"
check "header" "$PY" -c "
import json, sys
h = json.loads(sys.argv[1])
sys.exit(0 if (h['width'], h['height'], h['rows_per_frame'], h['frames'], h['window'], h['source'])
         == (300, 170, 16, 11, [5, 5], '$T/in.raw') else 1)" "$("$PY" "$RD" header "$T/out.zst")"

# Standard output: the same bytes as a file (the format is streamable).
"$WS" --quiet --size 300x170 --dtype u8 --frame-rows 16 --format zst "$T/in.raw" - >"$T/pipe.zst"
check "stdout = file" same_zst "$T/pipe.zst" "$T/out.zst"
# Threads and memory budgets never change the bytes.
"$WS" --quiet --threads 1 --size 300x170 --dtype u8 --frame-rows 16 "$T/in.raw" "$T/t1.zst"
check "threads 1 = all threads" same_zst "$T/t1.zst" "$T/out.zst"
# Levels change the bytes, not the map.
"$WS" --quiet --level 5 --size 300x170 --dtype u8 "$T/in.raw" "$T/l5.zst"
check "level 5 decodes to the map" sh -c "zstd -dcq '$T/l5.zst' | cmp -s - '$T/out.raw'"

# --info: a JSON description with the header and the frame count.
expect_exit 0 "--info on a good file" "$WS" --info "$T/out.zst"
check "--info JSON" "$PY" -c "
import json, sys
d = json.load(open('$T/stdout'))
sys.exit(0 if d['frames'] == 11 and d['header']['height'] == 170
         and d['decompressed_bytes'] == 300 * 170 * 4 else 1)"
expect_exit 3 "--info on raw samples" "$WS" --info "$T/in.raw"
check "--info says why" grep -q 'not a winent-stream .zst' "$T/stderr"
head -c 1000 "$T/out.zst" >"$T/cut.zst"
expect_exit 3 "--info on a truncated file" "$WS" --info "$T/cut.zst"
expect_exit 3 "--info on a missing file" "$WS" --info "$T/nothing.zst"

# Numbers in the header read back exactly (cJSON's own printing would
# write 0.1 + 0.2 as 0.3): the range, nodata, through --info and through
# --decode into a .zst again, and --stats.
"$PY" -c "
import numpy as np
np.random.seed(3)
open('$T/f64.raw', 'wb').write(np.random.uniform(0.1, 0.3, 40 * 30).astype('<f8').tobytes())"
"$WS" --quiet --stats --size 40x30 --dtype f64 --range 0.1:0.30000000000000004 \
    --nodata -1.0000000000000002 "$T/f64.raw" "$T/exact.zst" 2>"$T/exact.stats"
"$WS" --info "$T/exact.zst" >"$T/exact.info"
"$WS" --quiet --decode "$T/exact.zst" "$T/exact2.zst"
check "range and nodata read back exactly" "$PY" -c "
import json, subprocess, sys
def header(p):
    return json.loads(subprocess.run([sys.executable, '$RD', 'header', p], check=True,
                                     stdout=subprocess.PIPE).stdout)
want = ([0.1, 0.30000000000000004], -1.0000000000000002)
for name, h in (('header', header('$T/exact.zst')),
                ('--info', json.load(open('$T/exact.info'))['header']),
                ('--decode to .zst', header('$T/exact2.zst'))):
    if (h['range'], h['nodata']) != want:
        sys.exit('%s: %r %r' % (name, h['range'], h['nodata']))
s = json.loads(open('$T/exact.stats').read().splitlines()[-1])
if s['range'] != want[0]:
    sys.exit('--stats: %r' % s['range'])"

# A failed run leaves an existing output untouched and no temporary file.
printf 'keep me' >"$T/keep.zst"
expect_exit 3 "input too short" "$WS" --quiet --size 300x171 --dtype u8 "$T/in.raw" "$T/keep.zst"
check "existing output untouched" test "$(cat "$T/keep.zst")" = "keep me"
check "no temporary file" sh -c "! ls '$T' | grep -q tmp"

# The georeferencing of a GeoTIFF input, as GDAL reads it.
if "$PY" -c "from osgeo import gdal" 2>/dev/null; then
    "$PY" -c "
from osgeo import gdal, osr
import numpy as np
d = gdal.GetDriverByName('GTiff').Create('$T/geo.tif', 64, 48, 1, gdal.GDT_Byte)
d.SetGeoTransform([500000.5, 30.0, 0.0, 4600000.25, 0.0, -30.0])
s = osr.SpatialReference(); s.ImportFromEPSG(32633); d.SetProjection(s.ExportToWkt())
d.GetRasterBand(1).WriteArray((np.arange(64 * 48).reshape(48, 64) * 7 % 13).astype('u1'))
d = None"
    "$WS" --quiet "$T/geo.tif" "$T/geo.zst"
    check "georef in the header" "$PY" -c "
import json, sys
from osgeo import gdal
h = json.loads(sys.argv[1]); g = h['georef']
want = list(gdal.Open('$T/geo.tif').GetGeoTransform())
sys.exit(0 if g['geotransform'] == want and g['epsg'] == 32633 and g['crs'] == 'EPSG:32633'
         else 'got %r' % g)" "$("$PY" "$RD" header "$T/geo.zst")"
    "$WS" --quiet "$T/geo.tif" "$T/geo.raw"
    check "GeoTIFF input: zstd -dc = raw" sh -c "zstd -dcq '$T/geo.zst' | cmp -s - '$T/geo.raw'"
else
    echo "no GDAL Python bindings: georeferencing not checked"
fi
finish
