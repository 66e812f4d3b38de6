#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# --preview FILE.png as a user runs it: the PNG read back by
# tests/preview/preview_check.py (decoded with Pillow, colours against numpy's block
# means of the raw map of the same job and the colour map rebuilt from its
# construction), the main output byte-identical with and without it, with
# every format and a pipe; no PNG and no temporary file when the job fails;
# the checks before any work.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
need_python numpy PIL
CHK="$WINENT_SRC/tests/preview/preview_check.py"

# No temporary file of ours left in $1 (NAME.tmp-XXXXXX or .winent-XXXXXX).
no_temp() {
    ! ls -a "$1" | grep -q -e '\.tmp-' -e '^\.winent-'
}

check "the colour map's lightness (construction in Python)" "$PY" "$CHK" colormap

# A landscape with nodata holes: every format, the PNG against the raw map.
"$MK" --size 700x450 --dtype u8 --kind landscape --values 40 --holes 0.2 --nodata 0 \
    "$T/land.u8"
IN="--quiet --size 700x450 --dtype u8 --nodata 0 --base e"
expect_exit 0 "raw map with a preview" "$WS" $IN --preview "$T/p.png" --preview-size 256 \
    "$T/land.u8" "$T/map.raw"
check "preview of the raw map: size, colours stretched over the 2-98 percentiles, transparency, legend" \
    "$PY" "$CHK" image "$T/p.png" "$T/map.raw" 700 450 256 auto nat
expect_exit 0 "raw map without a preview" "$WS" $IN "$T/land.u8" "$T/map0.raw"
check "raw output the same with and without --preview" cmp "$T/map.raw" "$T/map0.raw"
for fmt in zst tif; do
    expect_exit 0 ".$fmt without a preview" "$WS" $IN "$T/land.u8" "$T/o0.$fmt"
    expect_exit 0 ".$fmt with a preview" "$WS" $IN --preview "$T/p.$fmt.png" \
        --preview-size 256 "$T/land.u8" "$T/o1.$fmt"
    # The outputs record the command line, which names the preview: the
    # rest is the same, byte for byte (.zst: frames and seek table; .tif:
    # pixels, overviews and every other metadata item, read by GDAL).
    if [ "$fmt" = zst ]; then
        check ".zst the same with and without --preview (but the command line)" \
            "$PY" "$WINENT_SRC/tests/lib/zst_read.py" same "$T/o0.zst" "$T/o1.zst"
    elif ! has_python osgeo; then
        skip_part ".tif with and without --preview: no GDAL Python bindings (osgeo) to read it"
    else
        check ".tif the same with and without --preview (but the command line)" "$PY" -c '
import sys
from osgeo import gdal
def look(path):
    d = gdal.Open(path)
    b = d.GetRasterBand(1)
    md = {k: v for k, v in d.GetMetadata().items() if k != "command_line"}
    ovs = [b.GetOverview(i).ReadRaster() for i in range(b.GetOverviewCount())]
    return (b.ReadRaster(), ovs, md, b.GetDescription(), d.GetGeoTransform(), d.GetProjection())
sys.exit(0 if look(sys.argv[1]) == look(sys.argv[2]) else 1)
' "$T/o0.tif" "$T/o1.tif"
    fi
    check "the preview does not depend on the format (.$fmt)" cmp "$T/p.png" "$T/p.$fmt.png"
done
# Raw to a pipe, and the rows cut otherwise (one thread, small chunks,
# small frames): the same PNG, byte for byte.
"$WS" $IN --preview "$T/pipe.png" --preview-size 256 "$T/land.u8" - | cat >"$T/pipe.raw"
check "raw through a pipe: the same map" cmp "$T/pipe.raw" "$T/map.raw"
check "raw through a pipe: the same preview" cmp "$T/pipe.png" "$T/p.png"
expect_exit 0 "one thread, small chunks" "$WS" $IN --threads 1 --mem 2M --frame-rows 16 \
    --preview "$T/t1.png" --preview-size 256 "$T/land.u8" "$T/t1.zst"
check "one thread, small chunks: the same preview" cmp "$T/t1.png" "$T/p.png"
# The path a GPU's chunks take (added after compute), forced on the CPU.
WINENT_PREVIEW_AFTER=1 "$WS" $IN --preview "$T/after.png" --preview-size 256 \
    "$T/land.u8" "$T/after.zst"
check "chunks added after compute: the same preview" cmp "$T/after.png" "$T/p.png"
check "chunks added after compute: the same output (but the command line)" \
    "$PY" "$WINENT_SRC/tests/lib/zst_read.py" same "$T/after.zst" "$T/o0.zst"

# Sizes: the default, a map smaller than the size (never upsampled), a
# tall map, one pixel; base 2 and bins change the scale and the unit.
expect_exit 0 "default size" "$WS" $IN --preview "$T/d.png" "$T/land.u8" /dev/null
check "default size: the longest side min(1024, the map's)" \
    "$PY" "$CHK" image "$T/d.png" "$T/map.raw" 700 450 1024 auto nat
"$MK" --size 90x300 --dtype u16 --kind landscape --values 3000 --holes 0.1 --nodata 7 \
    "$T/tall.u16"
TALL="--quiet --size 90x300 --dtype u16 --nodata 7 --window 9x3 --base 2"
expect_exit 0 "tall map" "$WS" $TALL --preview "$T/tall.png" --preview-size 100 \
    "$T/tall.u16" "$T/tall.raw"
check "tall map, base 2: 30x100, colours over the percentiles, in bit" \
    "$PY" "$CHK" image "$T/tall.png" "$T/tall.raw" 90 300 100 auto bit
expect_exit 0 "base 10, 8 bins, --preview-range" "$WS" $TALL --base 10 --bins 8 --range 0:3000 \
    --preview "$T/b10.png" --preview-size 64 --preview-range 0.1:0.75 "$T/tall.u16" "$T/b10.raw"
check "base 10 with 8 bins, --preview-range 0.1:0.75: colours on 0.1 .. 0.75 ban" \
    "$PY" "$CHK" image "$T/b10.png" "$T/b10.raw" 90 300 64 0.1:0.75 ban
# Measures past the entropy's scale: a richness (a count up to 81) is
# the block means, not clamped; a majority of classes 0..255 (a class
# map) is each block's centre class, so no colour stands for a mean of
# two classes. Classes that share a block: 9 x 9 blocks on 300 classes.
"$MK" --size 700x450 --dtype u8 --kind landscape --values 250 --holes 0.1 --nodata 0 \
    "$T/many.u8"
expect_exit 0 "richness preview" "$WS" --quiet --size 700x450 --dtype u8 --nodata 0 \
    --measure richness --window 9 --preview "$T/rich.png" --preview-size 256 "$T/many.u8" \
    "$T/rich.raw"
check "richness: colours of the block means (counts above 16 too)" \
    "$PY" "$CHK" image "$T/rich.png" "$T/rich.raw" 700 450 256 auto ""
expect_exit 0 "majority preview" "$WS" --quiet --size 700x450 --dtype u8 --nodata 0 \
    --measure majority --window 5 --preview "$T/maj.png" --preview-size 80 "$T/many.u8" \
    "$T/maj.raw"
check "majority: each pixel its block's centre class, none a mean of classes" \
    "$PY" "$CHK" classes "$T/maj.png" "$T/maj.raw" 700 450 80
# A constant map (every window of one value: entropy 0) has no spread to
# stretch: the colours span 0 .. the largest entropy the options allow.
"$MK" --size 60x40 --dtype u8 --kind uniform --values 1 --holes 0.2 --nodata 9 "$T/flat.u8"
expect_exit 0 "constant map" "$WS" --quiet --size 60x40 --dtype u8 --nodata 9 --base 2 \
    --preview "$T/flat.png" "$T/flat.u8" "$T/flat.raw"
check "constant map: colours on 0 .. log2(25) bit" \
    "$PY" "$CHK" image "$T/flat.png" "$T/flat.raw" 60 40 64 \
    "full:$("$PY" -c 'import math; print(repr(math.log2(25)))')" bit
expect_exit 0 "size 1" "$WS" $TALL --preview "$T/one.png" --preview-size 1 "$T/tall.u16" \
    /dev/null
check "size 1: one pixel" "$PY" "$CHK" size "$T/one.png" 90 300 1

# Failures: no PNG, no temporary file, the main output not there either.
expect_exit 4 "output folder missing" "$WS" $IN --preview "$T/f0.png" "$T/land.u8" \
    "$T/nodir/o.zst"
check "output folder missing: no preview" test ! -e "$T/f0.png"
check "output folder missing: no temporary" no_temp "$T"
expect_exit 4 "preview folder missing" "$WS" $IN --preview "$T/nodir/p.png" "$T/land.u8" \
    "$T/f0.zst"
check "preview folder missing: no output" test ! -e "$T/f0.zst"
check "preview folder missing: no temporary" no_temp "$T"
mkdir "$T/ro"
chmod 555 "$T/ro"
if touch "$T/ro/probe" 2>/dev/null; then
    echo "running as a user who writes into read-only folders: unwritable cases skipped"
    rm -f "$T/ro/probe"
else
    expect_exit 4 "unwritable output folder" "$WS" $IN --preview "$T/f1.png" "$T/land.u8" \
        "$T/ro/o.zst"
    check "unwritable output: no preview" test ! -e "$T/f1.png"
    check "unwritable output: no temporary" no_temp "$T"
    expect_exit 4 "unwritable preview folder" "$WS" $IN --preview "$T/ro/p.png" "$T/land.u8" \
        "$T/f2.zst"
    check "unwritable preview: no output" test ! -e "$T/f2.zst"
    check "unwritable preview: no temporaries" no_temp "$T"
fi
# The output fails mid-run (a file size limit of 64 KiB). Not under TSan:
# its runtime maps a file of its own that the limit truncates (SIGBUS at
# startup, as test_cli_errors says).
if [ "${WINENT_SANITIZE:-}" != thread ]; then
    set +e
    (ulimit -f 128; "$WS" $IN --preview "$T/f3.png" "$T/land.u8" "$T/f3.raw") 2>"$T/err"
    rc=$?
    set -e
    check "file size limit: exit 4 (got $rc)" test "$rc" -eq 4
    check "file size limit: no preview" test ! -e "$T/f3.png"
    check "file size limit: no output" test ! -e "$T/f3.raw"
    check "file size limit: no temporaries" no_temp "$T"
fi
# SIGINT while the input pipe has gone quiet.
rm -f "$T/fifo"
mkfifo "$T/fifo"
"$WS" --quiet --size 1000x1000 --dtype u8 --preview "$T/f4.png" "$T/fifo" "$T/f4.zst" \
    2>"$T/err" &
pid=$!
exec 3>"$T/fifo"
"$PY" -c "import sys; sys.stdout.buffer.write(bytes(range(256)) * 2000)" >&3
sleep 1
kill -INT $pid
set +e
wait $pid
rc=$?
set -e
exec 3>&-
check "SIGINT: exit 130 (got $rc)" test "$rc" -eq 130
check "SIGINT: no preview" test ! -e "$T/f4.png"
check "SIGINT: no output" test ! -e "$T/f4.zst"
check "SIGINT: no temporaries" no_temp "$T"

# The checks before any work: usage errors, nothing read or written.
cp "$T/land.u8" "$T/in.png"
expect_exit 2 "preview is the input" "$WS" $IN --preview "$T/in.png" "$T/in.png" "$T/u1.zst"
check "input untouched" cmp "$T/in.png" "$T/land.u8"
expect_exit 2 "preview is the output (a new name)" "$WS" $IN --format raw --preview "$T/u2.png" \
    "$T/land.u8" "$T/u2.png"
check "nothing written for a refused job" test ! -e "$T/u2.png"
cp "$T/map.raw" "$T/old.png"
expect_exit 2 "preview is the output (a file)" "$WS" $IN --format raw --preview "$T/old.png" \
    "$T/land.u8" "$T/./old.png"
check "an existing output untouched" cmp "$T/old.png" "$T/map.raw"
expect_exit 2 "both to standard output" "$WS" $IN --preview - "$T/land.u8" -
expect_exit 2 "not a .png name" "$WS" $IN --preview "$T/p.jpg" "$T/land.u8" /dev/null
expect_exit 2 "--preview-size without --preview" "$WS" $IN --preview-size 64 "$T/land.u8" \
    /dev/null
expect_exit 2 "--preview-size 0" "$WS" $IN --preview "$T/z.png" --preview-size 0 \
    "$T/land.u8" /dev/null
expect_exit 2 "--preview-size too large" "$WS" $IN --preview "$T/z.png" --preview-size 99999 \
    "$T/land.u8" /dev/null
expect_exit 2 "--mem too small for the preview" "$WS" --quiet --size 16384x16384 --dtype u8 \
    --mem 256M --preview "$T/z.png" --preview-size 16384 /dev/zero /dev/null
grep -q 'too small for a 16384x16384 preview' "$T/stderr" || bad "--mem message: $(cat "$T/stderr")"
check "no preview from refused jobs" test ! -e "$T/z.png"
check "no temporaries at the end" no_temp "$T"
finish
