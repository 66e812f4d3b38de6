#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Advice that works (docs/SPEC.md section 3, "Memory"): every "give at
# least --mem XM" names the smallest --mem that runs the job, within
# 1 MiB. For each kind of job (raw, .zst, GeoTIFF/COG outputs, a preview,
# several maps, TIFFs read by libtiff and by GDAL whose readers need more
# than their quarter of --mem, --range auto, --sidecar), a --mem far too small
# gives the advice X; X runs the job and gives the map of a run without
# --mem; X - 1 MiB is refused with the same advice. The threads are fixed,
# so the figures are the same on every machine.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
W=20000
H=40
C="--quiet --device cpu --threads 2"
R="$C --size ${W}x$H --dtype u8"
"$MK" --size ${W}x$H --dtype u8 --values 200 --seed 5 "$T/in.raw"
# Tiles 16 high: a tile row that the reader holds in a quarter of --mem 2M
# (the pipeline's advice is the one under test).
"$MK" --size ${W}x$H --dtype u8 --values 200 --seed 5 --tiff --tile 16 "$T/in.tif"
# advice: the X of "at least --mem XM" in the last message, or "".
advice() { sed -n 's/.*at least --mem \([0-9][0-9]*\)M.*/\1/p' "$T/stderr"; }
# same OUT REF: the maps agree (a .zst compared by its maps).
same() {
    case $1 in
    *.zst) same_zst "$1" "$2" ;;
    *.tif) "$PY" -c "
import sys
from osgeo import gdal
a = gdal.Open(sys.argv[1]).ReadAsArray(); b = gdal.Open(sys.argv[2]).ReadAsArray()
sys.exit(0 if a.tobytes() == b.tobytes() else 1)" "$1" "$2" ;;
    *) cmp -s "$1" "$2" ;;
    esac
}
# case NAME OUT ARGS...: the advice at --mem 2M, then X and X - 1 MiB.
case_() {
    _name=$1 _out=$2
    shift 2
    rm -rf "$T/o" && mkdir "$T/o"
    "$WS" "$@" "$T/o/ref.$_out" 2>"$T/stderr" || { bad "$_name: the run without --mem: $(cat "$T/stderr")"; return; }
    expect_exit 2 "$_name: --mem 2M is too small" "$WS" --mem 2M "$@" "$T/o/a.$_out"
    _x=$(advice)
    if [ -z "$_x" ]; then
        bad "$_name: no 'at least --mem XM' in: $(cat "$T/stderr")"
        return
    fi
    expect_exit 0 "$_name: the advised --mem ${_x}M runs" "$WS" --mem "${_x}M" "$@" "$T/o/x.$_out"
    if [ "$_got" -eq 0 ]; then
        for _r in "$T"/o/ref*."$_out"; do
            _m=$(basename "$_r")
            check "$_name: --mem ${_x}M gives the map ($_m)" same "$T/o/x${_m#ref}" "$_r"
        done
    fi
    _less=$((_x - 1))
    expect_exit 2 "$_name: --mem ${_less}M is too small" "$WS" --mem "${_less}M" "$@" "$T/o/y.$_out"
    check "$_name: --mem ${_less}M advises ${_x}M again (got $(advice))" test "$(advice)" = "$_x"
    check "$_name: nothing left of the refused runs" sh -c "! ls '$T/o' | grep -q '^[ay][._]'"
}
case_ "raw" raw $R "$T/in.raw"
case_ "raw, --sidecar" raw $R --sidecar "$T/in.raw"
case_ ".zst" zst $R "$T/in.raw"
case_ ".zst, --frame-rows 16" zst $R --frame-rows 16 "$T/in.raw"
case_ "several maps to a .zst" zst $R --window 3,7x5,disk2 "$T/in.raw"
case_ "several maps to raw files" raw $R --window 3,5 "$T/in.raw"
case_ "a TIFF read by libtiff, to raw" raw $C "$T/in.tif"
case_ "a TIFF read by libtiff, to .zst" zst $C "$T/in.tif"
case_ "a preview" raw $R --preview "$T/o/p.png" "$T/in.raw"
case_ "a large preview" raw $R --preview "$T/o/p.png" --preview-size 16384 "$T/in.raw"
# The readers' own need (docs/SPEC.md section 3): a row of 256-row tiles
# 20000 pixels wide is more than the quarter of --mem 2M (and of the
# --mem the chunks alone would take) that the reader may hold; the advice
# holds the reader's quarter and the chunks beside it.
"$MK" --size ${W}x300 --dtype u8 --values 200 --seed 7 --tiff "$T/wide.tif"
case_ "a wide tiled TIFF read by libtiff" raw $C "$T/wide.tif"
case_ "a wide tiled TIFF read by libtiff, to .zst" zst $C "$T/wide.tif"
# Standard input cannot be opened again to ask the reader what it holds
# under each --mem tried: its whole quarter is counted, so the advice runs
# the job (the least or above it).
set +e
"$WS" $C --mem 2M - "$T/o/s.raw" <"$T/wide.tif" 2>"$T/stderr"
set -e
_x=$(advice)
check "standard input: the advice given ($(cat "$T/stderr"))" test -n "$_x"
if [ -n "$_x" ]; then
    "$WS" $C - "$T/o/sref.raw" <"$T/wide.tif"
    check "standard input: the advised --mem ${_x}M runs, the same map" sh -c \
        "'$WS' $C --mem ${_x}M - '$T/o/s.raw' <'$T/wide.tif' && cmp -s '$T/o/s.raw' '$T/o/sref.raw'"
fi
# --range auto: a float TIFF without statistics takes a first pass, which
# must not read past --mem either; the advice is the job's.
"$MK" --size ${W}x300 --dtype f32 --values 50 --seed 8 --tiff "$T/wide_f32.tif"
case_ "--range auto over a wide tiled TIFF" raw $C "$T/wide_f32.tif"
if [ "${WINENT_HAVE_GDAL:-OFF}" = ON ] && has_python osgeo.gdal; then
    # The same files read by GDAL (libtiff checks them beside it): the
    # same advice, and it works.
    export WINENT_TIFF_READER=gdal
    case_ "a wide tiled TIFF read by GDAL" raw $C "$T/wide.tif"
    case_ "--range auto over a wide tiled TIFF read by GDAL" raw $C "$T/wide_f32.tif"
    unset WINENT_TIFF_READER
    # Strips of 300 rows, uncompressed and deflate: the reader holds
    # slices of rows (what it holds grows with --mem); and one deflate
    # strip of rows of 500000 pixels, a row of which (with the strip's
    # stream it decodes) is more than the reader's quarter of --mem 2M.
    "$MK" --size 500000x20 --dtype u8 --values 200 --seed 9 --tiff "$T/w500k.tif"
    "$PY" -c "
import sys
from osgeo import gdal
for name, src, rows, comp in (('strips.tif', 'wide.tif', 300, 'NONE'),
                              ('strips_z.tif', 'wide.tif', 300, 'DEFLATE'),
                              ('rows.tif', 'w500k.tif', 20, 'DEFLATE')):
    gdal.Translate(sys.argv[1] + '/' + name, sys.argv[1] + '/' + src,
                   creationOptions=['TILED=NO', 'BLOCKYSIZE=%d' % rows, 'COMPRESS=' + comp])
" "$T"
    rm -f "$T/w500k.tif"
    case_ "a TIFF of one 300-row strip" raw $C "$T/strips.tif"
    case_ "a TIFF of one 300-row deflate strip" raw $C "$T/strips_z.tif"
    case_ "a TIFF of 500000-pixel rows in one strip" raw $C "$T/rows.tif"
    check "rows of 500000 pixels: the reader's need named at --mem 2M" sh -c \
        "'$WS' $C --mem 2M '$T/rows.tif' '$T/o/z.raw' 2>&1 | grep -q 'one row of 500000 pixels decodes to 500000 bytes: reading it takes [0-9]* MiB, more than the quarter of --mem 2M that the reader may hold: give at least --mem [0-9]*M'"
    check "a wide tiled TIFF: the reader's need named at --mem 2M" sh -c \
        "'$WS' $C --mem 2M '$T/wide.tif' '$T/o/z.raw' 2>&1 | grep -q 'a row of its 256 x 256 tiles decodes to 5120000 bytes (one tile 65536 bytes): reading it takes 6 MiB'"
    export WINENT_TIFF_READER=gdal
    case_ "a TIFF of one 300-row strip read by GDAL" raw $C "$T/strips.tif"
    unset WINENT_TIFF_READER
    # A driver other than GTiff: a VRT of 4096 x 256 blocks (1 MiB, which
    # GDAL holds whole) over the small-tiled TIFF.
    "$PY" -c "
import sys
from osgeo import gdal
gdal.Translate(sys.argv[1] + '/v.vrt', sys.argv[1] + '/in.tif', format='VRT')
with open(sys.argv[1] + '/v.vrt') as f:
    x = f.read().replace('band=\"1\"', 'band=\"1\" blockXSize=\"4096\" blockYSize=\"256\"', 1)
with open(sys.argv[1] + '/v.vrt', 'w') as f:
    f.write(x)
" "$T"
    check "a VRT of 4096 x 256 blocks: the reader's need named at --mem 2M" sh -c \
        "'$WS' $C --mem 2M '$T/v.vrt' '$T/o/z.raw' 2>&1 | grep -q 'one 4096 x 256 block of band 1 decodes to 1048576 bytes, which GDAL holds whole: reading it takes 1 MiB'"
    case_ "a VRT of big blocks" raw $C "$T/v.vrt"
    export WINENT_TIFF_READER=gdal
    case_ "a TIFF of 500000-pixel rows in one strip read by GDAL" raw $C "$T/rows.tif"
    unset WINENT_TIFF_READER
    case_ "a GeoTIFF" tif $R "$T/in.raw"
    case_ "a GeoTIFF of several maps" tif $R --window 3,5 "$T/in.raw"
else
    skip_part "no GDAL in Python: the GeoTIFF outputs are not read back"
fi
# --mem's own floor: 1M is a size it takes (the job's advice follows),
# anything less is refused with "at least 1M".
expect_exit 2 "--mem 1023K" "$WS" --mem 1023K $R "$T/in.raw" "$T/o/z.raw"
check "--mem 1023K: at least 1M" grep -q "give a size of at least 1M" "$T/stderr"
expect_exit 2 "--mem 1M" "$WS" --mem 1M $R "$T/in.raw" "$T/o/z.raw"
check "--mem 1M is taken (the job's own advice follows)" test -n "$(advice)"
finish
