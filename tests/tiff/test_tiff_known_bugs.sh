#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test_tiff_known_bugs.sh BUG: reproducers of bugs in the TIFF source
# (src/tiles/sources/source_tiff.c) found by fuzz_tiff (tests/fuzz); the inputs are
# made here, small and readable. A bug still open is skipped (77) with its
# reason (WINENT_KNOWN_BUGS=1 runs it: it fails while the bug is there); a
# fixed one runs always, as a regression test.
#
#   tiff-sparse-strip   FIXED, runs always: a TIFF
#                       with no StripByteCounts whose one strip
#                       starts past the end of the file (110 bytes): libtiff
#                       warns and estimates 0 bytes, the source takes the
#                       strip for a sparse one and fills it, and the job
#                       exits 0 with a map of the fill value. SPEC 6:
#                       missing blocks and counts that disagree with the
#                       layout are input errors (exit 3). (The fuzzer's
#                       251-byte file declared 42112 x 64273 pixels: exit
#                       0 after 147 s and a 10.8 GB map.)
#   tiff-strip-memory   FIXED, runs always (strips too big for --mem are
#                       read in slices of rows): a valid 20000 x 20000 u8
#                       TIFF stored as one deflate strip (1.7 MB): the source decodes the whole strip
#                       and keeps a batch copy of it, 825 MiB resident with
#                       --mem 64M. SPEC 5: peak memory under --mem plus a
#                       fixed overhead (64 MiB in test_cli_memory), whatever
#                       the layout. (source_tiff.c sizes t->batch and the
#                       block scratch from the declared strip, not --mem.)
#   tiff-tall-tile      FIXED, runs always: a valid
#                       36637 x 1 u8 TIFF in 16 x 65040 tiles (19 KB; GDAL
#                       reads it): the batch was width x tile height, not
#                       clipped to the image, 2.4 GB for one row; under a
#                       2 GB address space limit the job failed with "out of
#                       memory" (exit 1). (The fuzzer's file was 1-bit.)
. "$WINENT_SRC/tests/lib/cli_lib.sh"
bug=$1
if [ "$bug" = tiff-tall-tile ] && [ -n "${WINENT_SANITIZE:-}" ]; then
    echo "tiff-tall-tile: an address space limit and a sanitizer's shadow memory do not mix: skipped"
    exit 77
fi
case $bug in tiff-tall-tile | tiff-sparse-strip | tiff-strip-memory) fixed=1 ;; *) fixed=0 ;; esac
if [ "${WINENT_KNOWN_BUGS:-0}" != 1 ] && [ $fixed = 0 ]; then
    echo "known bug $bug (see this script): skipped until source_tiff.c is fixed"
    exit 77
fi
case $bug in
tiff-sparse-strip)
    "$PY" - "$T/sparse.tif" <<'PY'
import struct, sys
# 64 x 48 u8, deflate, one strip at offset 4096 (past the end), no StripByteCounts.
entries = [(256, 3, 64), (257, 3, 48), (258, 3, 8), (259, 3, 8), (262, 3, 1),
           (273, 4, 4096), (277, 3, 1), (278, 3, 48)]
ifd = struct.pack('<H', len(entries))
for tag, typ, val in entries:
    ifd += struct.pack('<HHI', tag, typ, 1)
    ifd += struct.pack('<HH', val, 0) if typ == 3 else struct.pack('<I', val)
open(sys.argv[1], 'wb').write(b'II*\x00' + struct.pack('<I', 8) + ifd + struct.pack('<I', 0))
PY
    expect_exit 3 "strip past the end, no StripByteCounts" "$WS" --quiet --device cpu \
        "$T/sparse.tif" "$T/out.raw"
    check "no output" test ! -e "$T/out.raw"
    ;;
tiff-strip-memory)
    [ -x /usr/bin/time ] || { echo "no /usr/bin/time: skipped"; exit 77; }
    "$PY" - "$T/strip.tif" 20000 20000 <<'PY'
import struct, sys, zlib
# A valid W x H u8 TIFF stored as one deflate strip (of zeros).
W, H = int(sys.argv[2]), int(sys.argv[3])
c = zlib.compressobj(1)
data = b''.join(c.compress(bytes(W)) for _ in range(H)) + c.flush()
entries = [(256, 4, W), (257, 4, H), (258, 3, 8), (259, 3, 8), (262, 3, 1),
           (273, 4, 0), (277, 3, 1), (278, 4, H), (279, 4, len(data))]
start = 8 + 2 + 12 * len(entries) + 4
ifd = struct.pack('<H', len(entries))
for tag, typ, val in entries:
    val = start if tag == 273 else val
    ifd += struct.pack('<HHI', tag, typ, 1)
    ifd += struct.pack('<HH', val, 0) if typ == 3 else struct.pack('<I', val)
open(sys.argv[1], 'wb').write(b'II*\x00' + struct.pack('<I', 8) + ifd + struct.pack('<I', 0) + data)
PY
    /usr/bin/time -f '%M' -o "$T/rss" "$WS" --quiet --device cpu --threads 2 --mem 64M \
        "$T/strip.tif" "$T/out.raw"
    kib=$(tail -n 1 "$T/rss")
    echo "peak resident memory: $kib KiB"
    check "peak RSS $kib KiB < 128 MiB (--mem 64M)" test "$kib" -lt $((128 * 1024))
    ;;
tiff-tall-tile)
    "$PY" - "$T/tall.tif" <<'PY'
import struct, sys, zlib
# W x 1 u8 in deflate tiles of 16 x 65040 (TileLength need only be a
# multiple of 16); every tile entry points at one compressed tile of zeros.
W, TW, TL = 36637, 16, 65040
tile = zlib.compress(bytes(TW * TL), 9)
n = (W + TW - 1) // TW
entries = [(256, 4, 1, W), (257, 4, 1, 1), (258, 3, 1, 8), (259, 3, 1, 8), (262, 3, 1, 1),
           (277, 3, 1, 1), (322, 4, 1, TW), (323, 4, 1, TL), (324, 4, n, 0), (325, 4, n, 0)]
offs_at = 8 + 2 + 12 * len(entries) + 4
counts_at = offs_at + 4 * n
data_at = counts_at + 4 * n
ifd = struct.pack('<H', len(entries))
for tag, typ, cnt, val in entries:
    val = offs_at if tag == 324 else counts_at if tag == 325 else val
    ifd += struct.pack('<HHI', tag, typ, cnt)
    ifd += struct.pack('<HH', val, 0) if typ == 3 else struct.pack('<I', val)
out = b'II*\x00' + struct.pack('<I', 8) + ifd + struct.pack('<I', 0)
out += struct.pack('<%dI' % n, *([data_at] * n)) + struct.pack('<%dI' % n, *([len(tile)] * n))
open(sys.argv[1], 'wb').write(out + tile)
PY
    expect_exit 0 "one row in tall tiles, 2 GB of address space" sh -c \
        "ulimit -v 2000000; exec '$WS' --quiet --device cpu --mem 64M '$T/tall.tif' '$T/out.raw'"
    ;;
*)
    echo "unknown bug '$bug'"
    exit 1
    ;;
esac
finish
