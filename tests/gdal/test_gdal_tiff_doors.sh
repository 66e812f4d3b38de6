#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A TIFF reached through any GDAL door gets the verdict of the file given
# directly (docs/SPEC.md section 3, "Every door to a TIFF"): a corpus of
# mutated TIFFs (tiff_mutants.py: flipped bytes at a stream's start,
# middle and end, byte counts a few bytes short, a block past the end, a
# cut file, a zeroed block; deflate, LZW with a predictor, zstd, PackBits
# on separate planes, uncompressed) is read directly (libtiff) and through
# GTIFF_DIR:1:, a VRT, a VRT over that VRT, /vsizip/, /vsigzip/, /vsitar/
# and /vsisubfile/ at an offset. Each door must give the direct path's
# exit code and, where that is 0, the same map byte for byte. Each input
# goes through a third of the doors (in turn), so every door meets every
# compression and a third of the mutations, and the test stays short.
# Then /vsimem/ from Python (a TIFF in memory), and the direct path's
# refusals are checked to be refusals of the defect (the whole files read).
. "$WINENT_SRC/tests/lib/cli_lib.sh"
[ "${WINENT_HAVE_GDAL:-OFF}" = ON ] || { echo "built without GDAL (WINENT_GDAL=OFF or no libgdal-dev): skipped"; exit 77; }
need_python numpy osgeo.gdal
R="--quiet --device cpu --threads 2 --range 0:60 --band all"
cd "$T"
mkdir c
"$PY" "$WINENT_SRC/tests/gdal/tiff_mutants.py" c >manifest
[ -s manifest ] || { bad "the corpus is empty"; finish; exit 1; }
cd c

# read NAME OUTDIR: exit code into $_rc, the maps (one per band) in OUTDIR.
read_door() {
    rm -rf "$2"
    mkdir "$2"
    set +e
    "$WS" $R "$1" "$2/m.raw" 2>"$T/stderr" >/dev/null
    _rc=$?
    set -e
}
tab=$(printf '\t')
i=0
refused=0
accepted=0
while IFS="$tab" read -r name direct d1 d2 d3 d4 d5 d6 d7; do
    i=$((i + 1))
    read_door "$direct" "$T/direct"
    want=$_rc
    case $want in
    0) accepted=$((accepted + 1)) ;;
    3) refused=$((refused + 1)) ;;
    *) bad "$name: direct read: exit $want ($(head -c 200 "$T/stderr"))"; continue ;;
    esac
    j=0
    for door in "$d1" "$d2" "$d3" "$d4" "$d5" "$d6" "$d7"; do
        j=$((j + 1))
        [ $(((i + j) % 3)) -eq 0 ] || continue
        read_door "$door" "$T/door"
        if [ "$_rc" -ne "$want" ]; then
            bad "$name through $door: exit $_rc where the file itself gives $want ($(head -c 200 "$T/stderr"))"
        elif [ "$want" -eq 0 ] && ! diff -r "$T/direct" "$T/door" >/dev/null; then
            bad "$name through $door: exit 0 with a map that differs from the file's own"
        else
            ok
        fi
    done
done <"$T/manifest"
# The corpus holds both verdicts, or it proves nothing.
check "the corpus has refused mutants ($refused)" test "$refused" -ge 15
check "the corpus has accepted inputs ($accepted)" test "$accepted" -ge 5

# The whole files (the first of each kind) read through every door.
for base in deflate_tiles lzw_strips_pred; do
    line=$(grep "^$base$tab" "$T/manifest")
    [ -n "$line" ] || continue
    read_door "$base.tif" "$T/direct"
    for door in $(printf '%s\n' "$line" | cut -f3-); do
        read_door "$door" "$T/door"
        check "$base through $door: exit $_rc ($(head -c 200 "$T/stderr"))" test "$_rc" -eq 0
        check "$base through $door: the file's own map" diff -r "$T/direct" "$T/door"
    done
done

# The message names the door and, for a VRT, the source.
read_door deflate_tiles_flip_end.vrt.vrt "$T/door"
check "a nested VRT's corrupt source is named ($(cat "$T/stderr"))" \
    grep -q "^winent-stream: deflate_tiles_flip_end.vrt.vrt: its source .*deflate_tiles_flip_end.tif: cannot decode tile" "$T/stderr"
read_door GTIFF_DIR:1:deflate_tiles_flip_end.tif "$T/door"
check "GTIFF_DIR: names the door ($(cat "$T/stderr"))" \
    grep -q "^winent-stream: GTIFF_DIR:1:deflate_tiles_flip_end.tif: cannot decode tile .*deflate stream is corrupt" "$T/stderr"

# GTIFF_DIR:2: reads the second directory: a corrupt block there is found
# although the first is whole, and the first's corruption does not matter.
"$PY" - <<'PY'
from osgeo import gdal
import numpy as np
gdal.UseExceptions()
src = gdal.Open('deflate_tiles.tif')
a = src.ReadAsArray()
opts = ['TILED=YES', 'BLOCKXSIZE=32', 'BLOCKYSIZE=32', 'COMPRESS=DEFLATE']
# Pages of one file: GDAL's GTiff writes a second image with APPEND_SUBDATASET.
d = gdal.GetDriverByName('GTiff').Create('two.tif', a.shape[1], a.shape[0], 1, gdal.GDT_Byte, opts)
d.GetRasterBand(1).WriteArray(a); d = None
d = gdal.GetDriverByName('GTiff').Create('two.tif', a.shape[1], a.shape[0], 1, gdal.GDT_Byte,
                                          opts + ['APPEND_SUBDATASET=YES'])
d.GetRasterBand(1).WriteArray((a + 1) % 61); d = None
ds = gdal.Open('GTIFF_DIR:2:two.tif')
b = ds.GetRasterBand(1)
off = int(b.GetMetadataItem('BLOCK_OFFSET_1_1', 'TIFF'))
n = int(b.GetMetadataItem('BLOCK_SIZE_1_1', 'TIFF'))
ds = None
d = bytearray(open('two.tif', 'rb').read())
d[off + n - 2] ^= 0x5A
open('two_bad2.tif', 'wb').write(d)
PY
read_door two_bad2.tif "$T/direct"
check "the first page of a file whose second is corrupt reads (exit $_rc)" test "$_rc" -eq 0
read_door GTIFF_DIR:1:two_bad2.tif "$T/door"
check "GTIFF_DIR:1: of it reads (exit $_rc)" test "$_rc" -eq 0
check "GTIFF_DIR:1: of it: the first page's map" diff -r "$T/direct" "$T/door"
read_door GTIFF_DIR:2:two.tif "$T/door"
check "GTIFF_DIR:2: of the whole file reads (exit $_rc: $(head -c 200 "$T/stderr"))" test "$_rc" -eq 0
read_door GTIFF_DIR:2:two_bad2.tif "$T/door"
check "GTIFF_DIR:2: with its block corrupt: exit 3 (got $_rc)" test "$_rc" -eq 3
check "GTIFF_DIR:2: names the stream ($(cat "$T/stderr"))" grep -q "deflate stream is corrupt" "$T/stderr"
read_door GTIFF_DIR:3:two.tif "$T/door"
check "GTIFF_DIR:3: of a file of two pages: exit 3 (got $_rc)" test "$_rc" -eq 3

# A VRT that resamples its source may read the source's overview: a
# corrupt overview refuses the VRT, though the image itself reads.
"$PY" - <<'PY'
from osgeo import gdal
gdal.UseExceptions()
gdal.Translate('ov.tif', 'deflate_tiles.tif', creationOptions=[
    'TILED=YES', 'BLOCKXSIZE=32', 'BLOCKYSIZE=32', 'COMPRESS=DEFLATE'])
ds = gdal.Open('ov.tif', gdal.GA_Update)
ds.BuildOverviews('NEAREST', [2])
ds = None
ds = gdal.Open('GTIFF_DIR:2:ov.tif')  # kept: a band outlived by its dataset crashes
b = ds.GetRasterBand(1)
off = int(b.GetMetadataItem('BLOCK_OFFSET_0_0', 'TIFF'))
n = int(b.GetMetadataItem('BLOCK_SIZE_0_0', 'TIFF'))
b = ds = None
d = bytearray(open('ov.tif', 'rb').read())
d[off + n - 2] ^= 0x5A
open('ovbad.tif', 'wb').write(d)
w, h = 96 // 2, 72 // 2
open('ovsrc.vrt', 'w').write(
    '<VRTDataset rasterXSize="%d" rasterYSize="%d"><VRTRasterBand dataType="Byte" band="1">'
    '<SimpleSource><SourceFilename relativeToVRT="1">ovbad.tif</SourceFilename>'
    '<SourceBand>1</SourceBand><SrcRect xOff="0" yOff="0" xSize="96" ySize="72"/>'
    '<DstRect xOff="0" yOff="0" xSize="%d" ySize="%d"/></SimpleSource></VRTRasterBand>'
    '</VRTDataset>\n' % (w, h, w, h))
PY
read_door ovbad.tif "$T/direct"
check "a TIFF whose overview is corrupt reads itself (exit $_rc)" test "$_rc" -eq 0
read_door ovsrc.vrt "$T/door"
check "a VRT resampling it: exit 3 (got $_rc)" test "$_rc" -eq 3
check "a VRT resampling it: the overview is named ($(cat "$T/stderr"))" \
    grep -q "ovsrc.vrt: its source .*ovbad.tif (its directory 2): cannot decode tile 0" "$T/stderr"

# /vsimem/ from Python: a TIFF in GDAL's memory, read in the same process.
LIB="$WINENT_BIN/../lib/libwinent.so.0"
# (The library loads at first use: a sanitizer build's cannot, in a Python
# not started under the sanitizer.)
if [ -f "$LIB" ] && WINENT_LIBRARY="$LIB" PYTHONPATH="$WINENT_SRC/python" "$PY" -c 'import winent; winent.gpu_count()' 2>/dev/null; then
    if WINENT_LIBRARY="$LIB" PYTHONPATH="$WINENT_SRC/python" PYTHONDONTWRITEBYTECODE=1 "$PY" - <<'PY'
import sys
from osgeo import gdal
import winent
gdal.UseExceptions()
for name, want_ok in (('deflate_tiles.tif', True), ('deflate_tiles_flip_end.tif', False),
                      ('zstd_tiles_count_short.tif', False)):
    gdal.FileFromMemBuffer('/vsimem/t/' + name, open(name, 'rb').read())
    try:
        winent.run('/vsimem/t/' + name, 'out_' + name + '.raw', window=5, range=(0, 60))
        ok = True
    except Exception as e:
        ok = False
        msg = str(e)
    gdal.Unlink('/vsimem/t/' + name)
    if ok != want_ok:
        print('/vsimem/ %s: %s' % (name, 'read' if ok else 'refused: ' + msg))
        sys.exit(1)
PY
    then ok; else bad "/vsimem/ from Python: the verdicts of the files themselves"; fi
else
    skip_part "no libwinent.so.0 beside the build's winent-stream, or it does not load in this Python (a sanitizer build): /vsimem/ from Python"
fi
finish
