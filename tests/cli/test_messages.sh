#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Messages quote what the user typed (docs/SPEC.md section 6): the CLI
# puts its own words back into the library's line (a list of windows or
# bands, a number as written), and text from a file (a GDAL_NODATA tag)
# is printed as UTF-8 where it is UTF-8, only control characters and
# bytes that are not UTF-8 escaped as \xNN.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
R="--quiet --device cpu --size 8x8 --dtype u8"
head -c 64 /dev/zero >"$T/in.raw"
# says ARGS LINE: the CLI refuses ARGS with exactly LINE.
says() {
    expect_exit 2 "$1" "$WS" $R $1 "$T/in.raw" "$T/o.raw"
    check "$1: says '$2' (got: $(cat "$T/stderr"))" grep -qxF "winent-stream: $2" "$T/stderr"
}
says "--window 5,5x5" "--window: '5,5x5': 5 given twice: give each window once"
says "--window 3x0256" "--window: '3x0256': give K or WxH, sides from 1 to 255, or diskR with R from 0 to 127"
says "--window 007,3x00" "--window: '007,3x00': give K or WxH, sides from 1 to 255, diskR (R from 0 to 127), or a list of them (5,9,disk3)"
says "--window 4x6 --measure glcm-contrast" "--measure glcm-contrast: a 4x6 window: the co-occurrence measures take odd sides (a middle pixel): give --window K or WxH with K, W, H odd"
says "--disk 2,2" "--disk: '2,2': disk2 given twice: give each window once"
says "--disk 128" "--disk: '128': give a radius R from 0 to 127 (the pixels within distance R), or a list of them (3,5)"
says "--disk 3,128" "--disk: '3,128': give a radius R from 0 to 127 (the pixels within distance R), or a list of them (3,5)"
says "--disk x" "--disk: 'x': give a radius R from 0 to 127 (the pixels within distance R), or a list of them (3,5)"
says "--window disk2,5,disk02" "--window: 'disk2,5,disk02': disk2 given twice: give each window once"
says "--band 1,01" "--band: '1,01': band 1 given twice: give each band once"
says "--band 1,,3" "--band: '1,,3': give a band number from 1, a list of them (1,3,5), or all"
says "--measure entropy,,simpson" "--measure: 'entropy,,simpson': give a measure (entropy, renyi:Q, simpson, richness, evenness, majority, or a co-occurrence measure such as glcm-contrast) or a list of them (entropy,simpson)"
says "--measure entropy,bogus" "--measure: 'bogus': use entropy, renyi:Q, simpson, richness, evenness, majority, or a co-occurrence measure: glcm-entropy, glcm-asm, glcm-energy, glcm-contrast, glcm-dissimilarity, glcm-homogeneity, glcm-correlation, glcm-mean, glcm-variance, glcm-cluster-shade, glcm-cluster-prominence, glcm-cond-entropy, glcm-mutual-info"
says "--angles 0," "--angles: '0,': give degrees from 0, 45, 90 and 135, e.g. 0,90"
says "--window 5,,9" "--window: '5,,9': give K or WxH, sides from 1 to 255, diskR (R from 0 to 127), or a list of them (5,9,disk3)"
says "--range 1e308:-1e308" "--range: '1e308:-1e308': give finite numbers LO:HI with LO < HI, or auto"
# A GDAL_NODATA tag that is text: UTF-8 printed as it is, a control byte
# and a byte that is no UTF-8 escaped.
"$MK" --size 8x8 --dtype u8 --values 4 --seed 1 --tiff --nodata 7 "$T/t.tif"
# tag TEXT FILE: FILE with its GDAL_NODATA (tag 42113, ASCII, held in its
# IFD entry: at most 3 bytes and the NUL) set to TEXT.
tag() {
    "$PY" - "$1" "$2" <<'PY'
import struct, sys
text = sys.argv[1].encode('utf-8', 'surrogateescape') + b'\0'
data = bytearray(open(sys.argv[2], 'rb').read())
order = '<' if data[:2] == b'II' else '>'
ifd, = struct.unpack(order + 'I', data[4:8])
n, = struct.unpack(order + 'H', data[ifd:ifd + 2])
for i in range(n):
    e = ifd + 2 + 12 * i
    if struct.unpack(order + 'H', data[e:e + 2])[0] == 42113:
        assert len(text) <= 4
        data[e + 4:e + 8] = struct.pack(order + 'I', len(text))
        data[e + 8:e + 12] = text.ljust(4, b'\0')
        open(sys.argv[2], 'wb').write(data)
        sys.exit(0)
sys.exit('no GDAL_NODATA tag')
PY
}
cp "$T/t.tif" "$T/u.tif"
tag "é" "$T/u.tif"
expect_exit 3 "a GDAL_NODATA tag 'é'" "$WS" --quiet --device cpu "$T/u.tif" "$T/o.raw"
check "the tag quoted in UTF-8 (got: $(cat "$T/stderr"))" \
    grep -qF "its GDAL_NODATA tag 'é' is not a number" "$T/stderr"
cp "$T/t.tif" "$T/c.tif"
tag "$(printf 'a\001b')" "$T/c.tif"
expect_exit 3 "a GDAL_NODATA tag with a control byte" "$WS" --quiet --device cpu "$T/c.tif" "$T/o.raw"
check "the control byte escaped (got: $(cat "$T/stderr"))" \
    grep -qF "its GDAL_NODATA tag 'a\\x01b' is not a number" "$T/stderr"
cp "$T/t.tif" "$T/b.tif"
tag "$(printf 'x\351y')" "$T/b.tif"
expect_exit 3 "a GDAL_NODATA tag that is no UTF-8" "$WS" --quiet --device cpu "$T/b.tif" "$T/o.raw"
check "the stray byte escaped (got: $(cat "$T/stderr"))" \
    grep -qF "its GDAL_NODATA tag 'x\\xE9y' is not a number" "$T/stderr"
finish
