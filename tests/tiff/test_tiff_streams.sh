#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Compressed TIFF blocks are checked to the end of their stream, checksum
# included, and both readers of a TIFF (libtiff, and GDAL as for a masked
# file: WINENT_TIFF_READER=gdal) give the same map or the same error
# (docs/SPEC.md sections 3 and 6).
# make_tiff_streams.py (beside this script) writes one-block TIFFs byte by byte: whole deflate,
# LZW, zstd, PackBits and LZMA streams (exit 0, the same map through both
# readers), and
# streams that decode to more than the block (libtiff stops when the block
# is full and says nothing: 30 wrong pixels), a wrong adler32 or zstd
# checksum, a stored deflate block with one changed byte, a stream cut
# short: exit 3 through both readers, the same line naming the file, the
# block and its rows. A GDAL_NODATA tag that is not one number is the same
# input error through both (GDAL alone would read 'abc' as 0), unless
# --nodata says what nodata is. The big-* files hold one strip of 8 MB
# decoded: under --mem 24M it is read in slices of rows
# and its stream checked a piece at a time, with the same verdicts and the
# same map as when it is read whole.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
R="--quiet --device cpu --threads 2"
"$PY" "$WINENT_SRC/tests/tiff/make_tiff_streams.py" "$T"
readers=libtiff
[ "${WINENT_HAVE_GDAL:-OFF}" = ON ] && readers="libtiff gdal"
while read -r name want; do
    for r in $readers; do
        set +e
        WINENT_TIFF_READER=$r "$WS" $R "$T/$name.tif" "$T/$name-$r.raw" 2>"$T/$name-$r.err"
        rc=$?
        set -e
        if [ "$want" = ok ]; then
            check "$name ($r): exit 0 (got $rc: $(cat "$T/$name-$r.err"))" test "$rc" -eq 0
        else
            check "$name ($r): exit 3 (got $rc)" test "$rc" -eq 3
            check "$name ($r): one line naming the file ($(cat "$T/$name-$r.err"))" sh -c \
                "[ \$(wc -l <'$T/$name-$r.err') -eq 1 ] && grep -q '^winent-stream: $T/$name.tif: ' '$T/$name-$r.err'"
            check "$name ($r): no output" test ! -e "$T/$name-$r.raw"
        fi
    done
    case $name in big-*)
        set +e
        "$WS" $R --mem 24M "$T/$name.tif" "$T/$name-sliced.raw" 2>"$T/$name-sliced.err"
        rc=$?
        set -e
        if [ "$want" = ok ]; then
            check "$name in slices: exit 0 (got $rc: $(cat "$T/$name-sliced.err"))" test "$rc" -eq 0
            check "$name in slices: the same map" cmp -s "$T/$name-libtiff.raw" "$T/$name-sliced.raw"
        else
            check "$name in slices: exit 3 (got $rc)" test "$rc" -eq 3
            check "$name in slices: the same error" cmp -s "$T/$name-libtiff.err" "$T/$name-sliced.err"
        fi ;;
    esac
    case $want in bad) ;; *) continue ;; esac
    case $name in nodata-*) ;; big-*) grep -q "strip 0 (rows 0-1999)" "$T/$name-libtiff.err" || bad "$name: the strip and its rows" ;; deflate-strip-*) grep -q "strip 0 (rows 0-47)" "$T/$name-libtiff.err" || bad "$name: the strip and its rows" ;; *) grep -q "tile 0 (rows 0-47)" "$T/$name-libtiff.err" || bad "$name: the tile and its rows" ;; esac
    if [ "$readers" != libtiff ]; then
        check "$name: the same error through both readers" cmp -s "$T/$name-libtiff.err" "$T/$name-gdal.err"
    fi
done <"$T/cases"
# The whole streams: the same map through both readers, and the one of the
# pixels written raw.
"$PY" -c "
import sys
W, H = 64, 48
sys.stdout.buffer.write(bytes((x * 7 + y * 3) % 13 for y in range(H) for x in range(W)))" >"$T/pixels.raw"
"$WS" $R --size 64x48 --dtype u8 "$T/pixels.raw" "$T/want.raw"
while read -r name want; do
    [ "$want" = ok ] || continue
    case $name in nodata-* | big-*) continue ;; esac
    for r in $readers; do
        check "$name ($r): the map of the pixels" cmp -s "$T/want.raw" "$T/$name-$r.raw"
    done
done <"$T/cases"
# An unparsable GDAL_NODATA: --nodata says what nodata is, and the file reads.
for r in $readers; do
    expect_exit 0 "nodata-word with --nodata ($r)" env WINENT_TIFF_READER=$r \
        "$WS" $R --nodata 3 "$T/nodata-word.tif" "$T/nd-$r.raw"
done
grep -q "its GDAL_NODATA tag 'abc' is not a number: give --nodata V" "$T/nodata-word-libtiff.err" ||
    bad "nodata-word: the message says what to do"
finish
