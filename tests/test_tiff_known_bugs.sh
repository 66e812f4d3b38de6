#!/bin/sh
# test_tiff_known_bugs.sh BUG: reproducers of known bugs in the TIFF source
# (src/tiles/source_tiff.c, owned elsewhere at the time: reported, not
# fixed here). Each is skipped (77) with its reason until the bug is fixed;
# WINENT_KNOWN_BUGS=1 runs it (it fails while the bug is there). Found by
# fuzz_tiff (tests/fuzz); the inputs are made here, small and readable.
#
#   tiff-sparse-strip   a TIFF with no StripByteCounts whose one strip
#                       starts past the end of the file (110 bytes): libtiff
#                       warns and estimates 0 bytes, the source takes the
#                       strip for a sparse one and fills it, and the job
#                       exits 0 with a map of the fill value. SPEC 6:
#                       missing blocks and counts that disagree with the
#                       layout are input errors (exit 3). (The fuzzer's
#                       251-byte file declared 42112 x 64273 pixels: exit
#                       0 after 147 s and a 10.8 GB map.)
#   tiff-strip-memory   a valid 20000 x 20000 u8 TIFF stored as one deflate
#                       strip (1.7 MB): the source decodes the whole strip
#                       and keeps a batch copy of it, 825 MiB resident with
#                       --mem 64M. SPEC 5: peak memory under --mem plus a
#                       fixed overhead (64 MiB in test_cli_memory), whatever
#                       the layout. (source_tiff.c sizes t->batch and the
#                       block scratch from the declared strip, not --mem.)
. "$WINENT_SRC/tests/cli_lib.sh"
bug=$1
if [ "${WINENT_KNOWN_BUGS:-0}" != 1 ]; then
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
*)
    echo "unknown bug '$bug'"
    exit 1
    ;;
esac
finish
