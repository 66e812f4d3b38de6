#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# --decode MAP.zst OUT: a .zst map back to a GeoTIFF that GDAL
# reads as the direct .tif job's (pixels, geotransform, CRS, nodata), or to
# raw (zstd -dc's bytes); frames that do not line up with the output's
# units; every frame's checksum checked (a damaged one: exit 3, nothing
# left behind); files that are not ours refused; files written before the
# provenance keys decode the same. The header's new keys are shown by
# --info and read by tests/lib/zst_read.py.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
command -v zstd >/dev/null 2>&1 || { echo "no zstd: skipped"; exit 77; }
need_python numpy
HAVE_GDAL=0
"$PY" -c "from osgeo import gdal" 2>/dev/null && command -v gdal_translate >/dev/null && HAVE_GDAL=1
R="--quiet --device cpu"

# A georeferenced float input with nodata (made by GDAL when it is there),
# else a raw one.
"$PY" -c "
import numpy as np
rng = np.random.default_rng(6)
a = (rng.random((301, 517)) * 50).astype('<f4')
a[20:30, 40:90] = -1
a.tofile('$T/in.raw')"
if [ $HAVE_GDAL = 1 ]; then
    printf 'ENVI\nsamples = 517\nlines = 301\nbands = 1\nheader offset = 0\nfile type = ENVI Standard\ndata type = 4\ninterleave = bsq\nbyte order = 0\n' >"$T/in.hdr"
    gdal_translate -q -of GTiff -a_srs EPSG:32633 -a_ullr 500000 4600000 515510 4590970 \
        -a_nodata -1 -co TILED=YES "$T/in.raw" "$T/in.tif"
    rm "$T/in.hdr"
    IN="$T/in.tif"
    OPTS="--range 0:50"
else
    IN="$T/in.raw"
    OPTS="--size 517x301 --dtype f32 --nodata -1 --range 0:50"
fi

# The map as a .zst (frames of 7 rows: they never line up with the 512-row
# tiles or the chunks), and the direct jobs.
"$WS" $R $OPTS --frame-rows 7 "$IN" "$T/map.zst"
"$WS" $R $OPTS "$IN" "$T/direct.raw"
"$WS" $R $OPTS "$IN" "$T/direct.tif"

# --info shows the provenance; the tree's Python reader reads it.
"$WS" --info "$T/map.zst" >"$T/info.json"
check "--info shows command_line and source_band" "$PY" -c "
import json, sys
h = json.load(open('$T/info.json'))['header']
sys.exit(0 if h['source_band'] == 1 and '--frame-rows 7' in h['command_line'] and
         h['source_dtype'] == 'f32' else 1)"
check "zst_read.py reads the same keys" "$PY" -c "
import json, subprocess, sys
h = json.loads(subprocess.run([sys.executable, '$WINENT_SRC/tests/lib/zst_read.py', 'header', '$T/map.zst'],
    stdout=subprocess.PIPE, check=True).stdout)
sys.exit(0 if h['source_band'] == 1 and h['source_dtype'] == 'f32' and 'command_line' in h else 1)"
# The command line as a shell reads it back: the same words, quoted where
# a word needs it (a space, a quote).
"$WS" $R $OPTS "$IN" "$T/it's a map.zst"
check "the command line reads back as the words given" "$PY" - "$T/it's a map.zst" "$WS" $R $OPTS \
    "$IN" "$T/it's a map.zst" <<'PY'
import json, shlex, subprocess, sys, os
h = json.loads(subprocess.run([sys.executable, os.environ['WINENT_SRC'] + '/tests/lib/zst_read.py',
                               'header', sys.argv[1]], stdout=subprocess.PIPE, check=True).stdout)
# Without the options that only say how the job runs (--quiet, --device
# and its value): the output's bytes never depend on them.
words, skip = [], 0
for w in sys.argv[2:]:
    if skip:
        skip = 0
        continue
    if w == '--device':
        skip = 1
        continue
    if w != '--quiet':
        words.append(w)
assert shlex.split(h['command_line']) == words, (h['command_line'], words)
assert "'" in h['command_line'] and '--device' not in h['command_line'], h['command_line']
PY

# To raw: zstd -dc's bytes, and the direct job's; to standard output too.
expect_exit 0 "--decode to raw" "$WS" $R --decode "$T/map.zst" "$T/dec.raw"
zstd -qdc "$T/map.zst" >"$T/zstd.raw"
check "decode = zstd -dc" cmp -s "$T/dec.raw" "$T/zstd.raw"
check "decode = the direct raw job" cmp -s "$T/dec.raw" "$T/direct.raw"
"$WS" $R --decode "$T/map.zst" - >"$T/stdout.raw"
check "decode to standard output" cmp -s "$T/stdout.raw" "$T/direct.raw"
expect_exit 0 "--decode, 1 thread, --mem 2M (many chunks)" "$WS" $R --threads 1 --mem 2M \
    --decode "$T/map.zst" "$T/dec1.raw"
check "the same bytes" cmp -s "$T/dec1.raw" "$T/direct.raw"
expect_exit 0 "--decode to .zst (other frames)" "$WS" $R --frame-rows 64 --decode "$T/map.zst" "$T/re.zst"
check "re-framed .zst holds the map" sh -c "zstd -qdc '$T/re.zst' | cmp -s - '$T/direct.raw'"
check "re-framed .zst keeps the provenance" "$PY" -c "
import json, subprocess, sys
h = json.loads(subprocess.run([sys.executable, '$WINENT_SRC/tests/lib/zst_read.py', 'header', '$T/re.zst'],
    stdout=subprocess.PIPE, check=True).stdout)
sys.exit(0 if '--frame-rows 7' in h['command_line'] and h['rows_per_frame'] == 64 else 1)"

# To a GeoTIFF: what GDAL reads equals the direct .tif job's.
expect_exit 0 "--decode to .tif" "$WS" $R --decode "$T/map.zst" "$T/dec.tif"
if [ $HAVE_GDAL = 1 ]; then
    check "GDAL: decoded .tif = direct .tif (pixels, georeferencing, nodata, metadata)" \
        "$PY" - "$T/dec.tif" "$T/direct.tif" "$T/in.tif" <<'PY'
import sys, numpy as np
from osgeo import gdal, osr
gdal.UseExceptions()
d, t, i = (gdal.Open(p) for p in sys.argv[1:4])
a, b = d.GetRasterBand(1), t.GetRasterBand(1)
assert np.array_equal(a.ReadAsArray().view('u4'), b.ReadAsArray().view('u4')), 'pixels'
assert np.isnan(a.ReadAsArray()).any(), 'nodata centres are NaN'
assert d.GetGeoTransform() == t.GetGeoTransform() == i.GetGeoTransform(), 'geotransform'
s1, s2 = osr.SpatialReference(d.GetProjection()), osr.SpatialReference(t.GetProjection())
assert s1.IsSame(s2) and s1.GetAuthorityCode(None) == '32633', 'CRS'
assert np.isnan(a.GetNoDataValue()) and np.isnan(b.GetNoDataValue()), 'nodata'
for k in ('window', 'base', 'bins', 'range', 'nodata', 'source'):
    assert d.GetMetadataItem(k) == t.GetMetadataItem(k), (k, d.GetMetadataItem(k), t.GetMetadataItem(k))
PY
fi
if [ -d "$WINENT_SHARED/data/tiff" ] && [ $HAVE_GDAL = 1 ]; then
    # A real GeoTIFF of other software, PixelIsPoint georeferencing.
    for f in RGB.byte.tif web.tif; do
        "$WS" $R "$WINENT_SHARED/data/tiff/$f" "$T/r.zst"
        "$WS" $R "$WINENT_SHARED/data/tiff/$f" "$T/r_direct.tif"
        "$WS" $R --decode "$T/r.zst" "$T/r_dec.tif"
        check "$f: decoded .tif = direct .tif for GDAL" "$PY" -c "
import sys, numpy as np
from osgeo import gdal, osr
d, t = gdal.Open('$T/r_dec.tif'), gdal.Open('$T/r_direct.tif')
ok = np.array_equal(d.ReadAsArray().view('u4'), t.ReadAsArray().view('u4'))
ok = ok and d.GetGeoTransform() == t.GetGeoTransform()
ok = ok and osr.SpatialReference(d.GetProjection()).IsSame(osr.SpatialReference(t.GetProjection()))
ok = ok and d.GetMetadataItem('AREA_OR_POINT') == t.GetMetadataItem('AREA_OR_POINT')
sys.exit(0 if ok else 1)"
    done
fi

# Damage: a byte of frame 2's compressed data, a seek table checksum, a
# cut file. Exit 3 naming the frame; no output, no temporary file.
"$PY" - "$T/map.zst" "$T" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], 'rb').read())
t = sys.argv[2]
hsize = 8 + struct.unpack_from('<I', data, 4)[0]
nentries = struct.unpack_from('<I', data, len(data) - 9)[0]
tstart = len(data) - (8 + nentries * 12 + 9)
sizes = [struct.unpack_from('<I', data, tstart + 8 + 12 * i)[0] for i in range(nentries)]
off2 = sum(sizes[:3])                      # header frame, frames 0 and 1
bad = bytearray(data)
bad[off2 + sizes[3] // 2] ^= 0x55           # inside frame 2
open(t + '/bad_frame.zst', 'wb').write(bad)
bad = bytearray(data)
bad[tstart + 8 + 12 * 3 + 8] ^= 0x01        # frame 2's checksum in the table
open(t + '/bad_table.zst', 'wb').write(bad)
open(t + '/cut.zst', 'wb').write(data[:off2 + 5])
PY
echo old >"$T/keep.tif"
for f in bad_frame bad_table; do
    expect_exit 3 "$f: exit 3" "$WS" $R --decode "$T/$f.zst" "$T/keep.tif"
    check "$f: names frame 2" grep -q "$f.zst: frame 2 (rows 14-20) at byte [0-9]*: " "$T/stderr"
    check "$f: the old file is kept" grep -q old "$T/keep.tif"
    expect_exit 3 "$f to raw: exit 3" "$WS" $R --decode "$T/$f.zst" "$T/none.raw"
    check "$f: no raw output" [ ! -e "$T/none.raw" ]
done
check "a damaged frame is a checksum mismatch" sh -c "'$WS' $R --decode '$T/bad_frame.zst' '$T/x.raw' 2>&1 | grep -q 'checksum mismatch\|corruption'"
expect_exit 3 "a cut file: exit 3" "$WS" $R --decode "$T/cut.zst" "$T/cut.tif"
check "a cut file: said before any output" grep -q "not a winent-stream .zst file: truncated" "$T/stderr"
check "no temporary file left" [ -z "$(ls -a "$T" | grep -e 'tmp-' -e '^\.winent-' || true)" ]

# Not ours: a plain zstd stream, a TIFF, a missing file.
zstd -q -c "$T/in.raw" >"$T/plain.zst"
expect_exit 3 "a plain zstd stream" "$WS" $R --decode "$T/plain.zst" "$T/o.tif"
check "says why" grep -q "not a winent-stream .zst file: a zstd stream without the winent-stream header" "$T/stderr"
expect_exit 3 "a TIFF" "$WS" $R --decode "$T/direct.tif" "$T/o.tif"
expect_exit 3 "a missing file" "$WS" $R --decode "$T/none.zst" "$T/o.tif"
check "nothing written" [ ! -e "$T/o.tif" ]
# Options of what is computed do not go with --decode.
expect_exit 2 "--decode --window" "$WS" $R --decode --window 7 "$T/map.zst" "$T/o.tif"
expect_exit 2 "--decode with one name" "$WS" $R --decode "$T/map.zst"
expect_exit 2 "--decode onto itself" "$WS" $R --decode --format zst "$T/map.zst" "$T/map.zst"

# A file written before command_line, source_band and source_dtype: the
# header without them (its frame and the seek table's first entry
# rewritten) reads, checks and decodes the same.
"$PY" - "$T/map.zst" "$T/old.zst" <<'PY'
import json, struct, sys
data = open(sys.argv[1], 'rb').read()
n = struct.unpack_from('<I', data, 4)[0]
h = json.loads(data[8:8 + n])
for k in ('command_line', 'source_band', 'source_dtype'):
    del h[k]
text = json.dumps(h, indent=2).encode() + b'\n'
rest = bytearray(data[8 + n:])
nentries = struct.unpack_from('<I', rest, len(rest) - 9)[0]
tstart = len(rest) - (8 + nentries * 12 + 9)
struct.pack_into('<I', rest, tstart + 8, 8 + len(text))
open(sys.argv[2], 'wb').write(struct.pack('<II', 0x184D2A50, len(text)) + text + rest)
PY
expect_exit 0 "old file: --info --check" "$WS" --info --check "$T/old.zst"
expect_exit 0 "old file: --info" "$WS" --info "$T/old.zst"
check "old file: no command_line in --info" sh -c "! grep -q command_line '$T/stdout'"
expect_exit 0 "old file: --decode" "$WS" $R --decode "$T/old.zst" "$T/old.raw"
check "old file: the same map" cmp -s "$T/old.raw" "$T/direct.raw"
expect_exit 0 "old file: --decode to .tif" "$WS" $R --decode "$T/old.zst" "$T/old.tif"

# --stats and --progress work on a decode.
expect_exit 0 "--decode --stats" "$WS" --quiet --stats --decode "$T/map.zst" "$T/s.raw"
check "--stats: one JSON line, no range" "$PY" -c "
import json, sys
d = json.loads(open('$T/stderr').read())
sys.exit(0 if d['pixels'] == 517 * 301 and d['clamped'] is None and d['bytes_in'] > 0 else 1)"
finish
