#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# --bins/--range that cannot silently go wrong: the samples put
# in the end bins are counted (numpy counts them too) and reported in
# --stats; more than 1 % of them, or samples spanning a sliver of the
# range, give one warning line; a good range gives none. --range auto takes
# the range from GDAL's statistics (a .aux.xml, the TIFF's GDAL metadata)
# or from a first pass, and gives the same map as that range given by hand;
# a pipe without statistics needs --range.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
need_python numpy

W=300 H=200
"$PY" - "$T" <<'PY'
import sys, numpy as np
t = sys.argv[1]
rng = np.random.default_rng(13)
a = rng.random((200, 300)).astype('<f4')          # 0..1 data
a.tofile(t + '/u01.raw')
b = (a * 100).astype('<f4')                       # 0..100, with NaN and nodata
b[5, :40] = np.nan
b[7, :25] = -9999
b[9, 3] = 40.0                                    # exactly HI: in range
b[9, 4] = 30.0                                    # exactly LO: in range
b.tofile(t + '/b.raw')
c = rng.integers(0, 256, (200, 300)).astype('u1')  # bytes for --bins on integers
c.tofile(t + '/c.raw')
PY
R="--quiet --device cpu --size ${W}x$H"

# stats_field FILE KEY: a field of the --stats JSON line in FILE.
stats_field() {
    "$PY" -c "import json,sys; d=json.loads(open(sys.argv[1]).read().strip().splitlines()[-1]); print(json.dumps(d$2))" "$1"
}

# A range far wider than the data: --range 0:100 on 0..1 data. Nothing is clamped, but the
# samples fill 3 of the 256 bins (with --bins 16 all of them bin 0, a map
# of zeros): a warning, exit 0.
expect_exit 0 "--range 0:100 on 0..1 data" "$WS" --device cpu --size ${W}x$H --dtype f32 \
    --range 0:100 --stats "$T/u01.raw" "$T/o.raw"
check "one warning line, then the stats" [ "$(wc -l <"$T/stderr")" -eq 2 ]
check "the warning says the span" grep -q '^winent-stream: warning: the samples (.* to .*) span only 1\.00 % of --range 0:100 and fall in 3 of its 256 bins: check the range, or use --range auto$' "$T/stderr"
check "stats: nothing clamped" [ "$(stats_field "$T/stderr" "['clamped']['below'] + d['clamped']['above']")" = 0 ]
check "stats: every sample valid" [ "$(stats_field "$T/stderr" "['clamped']['valid']")" = 60000 ]
expect_exit 0 "--bins 16 --range 0:100 on 0..1 data" "$WS" --device cpu --size ${W}x$H --dtype f32 \
    --bins 16 --range 0:100 "$T/u01.raw" "$T/z.raw"
check "the warning again" grep -q 'span only 1\.00 % of --range 0:100 and fall in 1 of its 16 bins' "$T/stderr"
check "that map is all zeros (why it must not be silent)" "$PY" -c "
import numpy as np, sys
sys.exit(0 if (np.fromfile('$T/z.raw', '<f4') == 0).all() else 1)"

# The good case: no warning about the range. (Uniform noise in 256 bins
# puts most 5 x 5 windows at the top: the saturation notice is
# right to come, and is not a range warning.)
expect_exit 0 "--range 0:1" "$WS" --device cpu --size ${W}x$H --dtype f32 --range 0:1 "$T/u01.raw" "$T/g.raw"
check "a good range: nothing on stderr but the saturation notice" sh -c \
    "! grep -v 'the map is saturated' '$T/stderr' | grep -q ."

# Clamped samples: counted as numpy counts them (NaN and nodata left out,
# v == HI and v == LO in range), on every thread count, and one warning.
for th in 1 2; do
    expect_exit 0 "--range 30:40, threads $th" "$WS" --device cpu --threads $th --size ${W}x$H \
        --dtype f32 --nodata -9999 --range 30:40 --stats "$T/b.raw" "$T/o.raw"
    check "numpy's counts, threads $th" "$PY" - "$T/b.raw" "$T/stderr" <<'PY'
import json, sys, numpy as np
b = np.fromfile(sys.argv[1], '<f4')
lines = open(sys.argv[2]).read().splitlines()
d = json.loads(lines[-1])
v = b[~np.isnan(b) & (b != -9999)]
want = {'below': int((v < 30).sum()), 'above': int((v > 40).sum()), 'valid': int(v.size)}
got = {k: d['clamped'][k] for k in want}
assert got == want, (got, want)
assert d['range'] == [30, 40] and d['range_from'] == '--range', d
assert d['samples'] == [float(v.min()), float(v.max())], d['samples']
pct = 100.0 * (want['below'] + want['above']) / want['valid']
msg = ('winent-stream: warning: %.1f %% of the samples (%d of %d) lie outside --range 30:40 and '
       'were put in the end bins (%d below, %d above): check the range, or use --range auto'
       % (pct, want['below'] + want['above'], want['valid'], want['below'], want['above']))
assert lines[0] == msg and len(lines) == 2, (lines[0], msg)
PY
done
# The GPU engines count the same (on the host, while the GPU computes),
# alone and sharing the chunks with the CPU.
if "$WS" --quiet --device gpu --size 4x4 --dtype u8 "$T/c.raw" /dev/null 2>/dev/null; then
    for d in gpu cpu,0; do
        expect_exit 0 "--device $d counts" "$WS" --device $d --size ${W}x$H --dtype f32 \
            --nodata -9999 --range 30:40 --stats "$T/b.raw" "$T/gpu.raw"
        tail -1 "$T/stderr" >"$T/gpu.json"
        "$WS" --device cpu --size ${W}x$H --dtype f32 --nodata -9999 --range 30:40 --stats \
            "$T/b.raw" "$T/cpu.raw" 2>"$T/cpu.err" || true
        check "--device $d: the CPU's counts" "$PY" -c "
import json, sys
a = json.loads(open('$T/gpu.json').read()); b = json.loads(open('$T/cpu.err').read().splitlines()[-1])
sys.exit(0 if a['clamped'] == b['clamped'] and a['samples'] == b['samples'] else 1)"
        check "--device $d: the same map" cmp -s "$T/gpu.raw" "$T/cpu.raw"
    done
else
    echo "no usable GPU: the GPU counting cases skipped"
fi
expect_exit 0 "--quiet: no warning" "$WS" $R --dtype f32 --nodata -9999 --range 30:40 "$T/b.raw" "$T/o.raw"
check "--quiet: stderr empty" [ ! -s "$T/stderr" ]
# The .zst and .tif outputs count the same way (the counts are the input's).
expect_exit 0 "clamp warning with a .zst output" "$WS" --device cpu --size ${W}x$H --dtype f32 \
    --nodata -9999 --range 30:40 "$T/b.raw" "$T/o.zst"
check "the same warning" grep -q 'lie outside --range 30:40' "$T/stderr"

# Integers with --bins: the range clamps them too.
expect_exit 0 "u8 --bins 8 --range 64:191" "$WS" --device cpu --size ${W}x$H --dtype u8 --bins 8 \
    --range 64:191 --nodata 0 --stats "$T/c.raw" "$T/o.raw"
check "u8: numpy's counts" "$PY" - "$T/c.raw" "$T/stderr" <<'PY'
import json, sys, numpy as np
c = np.fromfile(sys.argv[1], 'u1')
d = json.loads(open(sys.argv[2]).read().splitlines()[-1])
v = c[c != 0]
want = {'below': int((v < 64).sum()), 'above': int((v > 191).sum()), 'valid': int(v.size)}
assert {k: d['clamped'][k] for k in want} == want, (d['clamped'], want)
PY
check "u8: warned" grep -q 'lie outside --range 64:191' "$T/stderr"
# Distinct integer values: no range, nothing counted.
expect_exit 0 "u8 distinct values" "$WS" --device cpu --size ${W}x$H --dtype u8 --stats "$T/c.raw" "$T/o.raw"
check "stats: range null, clamped null" [ "$(stats_field "$T/stderr" "['clamped']")" = null ]

# --range auto, raw file without statistics: a first pass. The map is the
# one of --range MIN:MAX given by hand, MIN and MAX of the valid samples.
expect_exit 0 "--range auto, first pass" "$WS" --device cpu --size ${W}x$H --dtype f32 \
    --nodata -9999 --range auto --stats "$T/b.raw" "$T/auto.raw"
check "first pass: named, no warning" sh -c "[ \$(grep -cv 'the map is saturated' '$T/stderr') -eq 1 ] &&
    grep -q '\"range_from\":\"a first pass over the band\"' '$T/stderr'"
lohi=$("$PY" -c "
import numpy as np
b = np.fromfile('$T/b.raw', '<f4'); v = b[np.isfinite(b) & (b != -9999)]
print('%r:%r' % (float(v.min()), float(v.max())))")
check "first pass range = [min, max]" "$PY" -c "
import json, sys
d = json.loads(open('$T/stderr').read().splitlines()[-1])
lo, hi = [float(x) for x in '$lohi'.split(':')]
sys.exit(0 if d['range'] == [lo, hi] else 1)"
"$WS" $R --dtype f32 --nodata -9999 --range "$lohi" "$T/b.raw" "$T/hand.raw"
check "--range auto = --range MIN:MAX, byte for byte" cmp -s "$T/auto.raw" "$T/hand.raw"
expect_exit 0 "--range auto, threads 1, small --mem (several blocks)" "$WS" $R --threads 1 \
    --mem 2M --dtype f32 --nodata -9999 --range auto "$T/b.raw" "$T/auto1.raw"
check "the same map" cmp -s "$T/auto.raw" "$T/auto1.raw"

# --range auto on a pipe: no statistics, no second reading: a usage error.
expect_exit 2 "--range auto on standard input" sh -c "cat '$T/u01.raw' | '$WS' $R --dtype f32 --range auto - '$T/p.raw'"
check "the message says what to do" grep -q 'standard input is read once.*give --range LO:HI' "$T/stderr"
check "no output" [ ! -e "$T/p.raw" ]

if "$PY" -c "from osgeo import gdal" 2>/dev/null && command -v gdal_translate >/dev/null; then
    # GDAL's statistics in a .aux.xml beside a raw file (gdalinfo -stats
    # writes one for a file it reads through an ENVI header).
    cp "$T/b.raw" "$T/s.raw"
    printf 'ENVI\nsamples = %d\nlines = %d\nbands = 1\nheader offset = 0\ndata type = 4\nbyte order = 0\ndata ignore value = -9999\n' $W $H >"$T/s.hdr"
    gdalinfo -stats "$T/s.raw" >/dev/null 2>&1
    check "gdalinfo -stats wrote s.raw.aux.xml" [ -s "$T/s.raw.aux.xml" ]
    rm -f "$T/s.hdr" # our raw reader needs no header; the .aux.xml stays
    expect_exit 0 "--range auto from .aux.xml" "$WS" --device cpu --size ${W}x$H --dtype f32 \
        --nodata -9999 --range auto --stats "$T/s.raw" "$T/o.raw"
    check "from the .aux.xml, GDAL's min and max" "$PY" - "$T/s.raw.aux.xml" "$T/stderr" <<'PY'
import json, sys, re
x = open(sys.argv[1]).read()
lo = float(re.search(r'STATISTICS_MINIMUM">([^<]*)<', x).group(1))
hi = float(re.search(r'STATISTICS_MAXIMUM">([^<]*)<', x).group(1))
d = json.loads(open(sys.argv[2]).read().splitlines()[-1])
assert d['range_from'].endswith('s.raw.aux.xml'), d
assert abs(d['range'][0] - lo) <= 2e-13 * abs(lo) and abs(d['range'][1] - hi) <= 2e-13 * abs(hi), d
assert d['clamped']['below'] == 0 and d['clamped']['above'] == 0, d
PY

    # GDAL's statistics in the GDAL_METADATA tag of a GeoTIFF (written by
    # GDAL when it computes them on a file open for update).
    "$PY" - "$T" <<'PY'
import sys, numpy as np
from osgeo import gdal
t = sys.argv[1]
b = np.fromfile(t + '/b.raw', '<f4').reshape(200, 300)
ds = gdal.GetDriverByName('GTiff').Create(t + '/st.tif', 300, 200, 1, gdal.GDT_Float32,
                                          ['TILED=YES'])
band = ds.GetRasterBand(1)
band.SetNoDataValue(-9999)
band.WriteArray(b)
band.ComputeStatistics(False)
ds = None
PY
    check "no .aux.xml beside st.tif" [ ! -e "$T/st.tif.aux.xml" ]
    expect_exit 0 "--range auto from the TIFF's GDAL metadata" "$WS" --device cpu --range auto \
        --stats "$T/st.tif" "$T/st.raw"
    check "from the tag: GDAL's min and max, no warning" "$PY" - "$T/st.tif" "$T/stderr" <<'PY'
import json, sys
from osgeo import gdal
ds = gdal.Open(sys.argv[1])
b = ds.GetRasterBand(1)
lo = float(b.GetMetadataItem('STATISTICS_MINIMUM'))
hi = float(b.GetMetadataItem('STATISTICS_MAXIMUM'))
lines = [l for l in open(sys.argv[2]).read().splitlines() if 'the map is saturated' not in l]
d = json.loads(lines[-1])
assert len(lines) == 1, lines
# GDAL's 14 digits, widened by their rounding (1e-13 relative).
assert d['range_from'] == "the TIFF's GDAL metadata", d
assert abs(d['range'][0] - lo) <= 2e-13 * abs(lo) and d['range'][0] <= lo, (d, lo)
assert abs(d['range'][1] - hi) <= 2e-13 * abs(hi) and d['range'][1] >= hi, (d, hi)
assert d['clamped']['below'] == 0 and d['clamped']['above'] == 0, d
PY
    # The tag's range is the data's (widened by 1e-13): the same map as the
    # first pass's but where a sample sits within 1e-13 of a bin edge.
    check "the tag's range gives the first pass's map" "$PY" -c "
import numpy as np, sys
a, b = np.fromfile('$T/st.raw', '<f4'), np.fromfile('$T/auto.raw', '<f4')
sys.exit(0 if (np.isnan(a) == np.isnan(b)).all() and np.nanmax(abs(a - b)) < 1e-6 else 1)"

    # Approximate statistics are not used: a first pass instead.
    "$PY" -c "
from osgeo import gdal
ds = gdal.Open('$T/st.tif', gdal.GA_Update)
b = ds.GetRasterBand(1)
b.SetMetadataItem('STATISTICS_APPROXIMATE', 'YES')
ds = None"
    expect_exit 0 "approximate statistics" "$WS" --device cpu --range auto --stats "$T/st.tif" "$T/o.raw"
    check "approximate: a first pass" grep -q '"range_from":"a first pass over the band"' "$T/stderr"

    # Stale statistics (the file changed since): the clamp count says so.
    "$PY" -c "
from osgeo import gdal
ds = gdal.Open('$T/st.tif', gdal.GA_Update)
b = ds.GetRasterBand(1)
b.SetMetadataItem('STATISTICS_APPROXIMATE', None)
b.SetMetadataItem('STATISTICS_MAXIMUM', '50')
ds = None"
    expect_exit 0 "stale statistics" "$WS" --device cpu --range auto "$T/st.tif" "$T/o.raw"
    check "stale statistics: warned, naming where the range came from" grep -q \
        "lie outside --range auto (.*:50 from the TIFF's GDAL metadata)" "$T/stderr"
else
    echo "no GDAL: the .aux.xml and GDAL metadata cases skipped"
fi
finish
