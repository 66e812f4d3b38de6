#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Memory is bounded by --mem whatever a file claims
# (docs/SPEC.md sections 3 and 5). Small files that declare big blocks:
# - one 4096 x 4096 deflate tile (16 MiB decoded, a few KiB stored) under
#   --mem 16M: refused at once (exit 2, one line naming what the reader
#   needs and the --mem that holds it and the job's chunks), well under
#   64 MiB resident; with that --mem, read (exit 0) and the map of zeros
#   is all zeros (tests/cli/test_mem_advice.sh: that --mem is the least);
# - the same tile through GDAL (/vsizip/, and WINENT_TIFF_READER=gdal):
#   refused with the same line;
# - one strip of two rows of 50,000,000 pixels under --mem 64M: a row
#   alone is more than the reader may hold (exit 2, the amount named).
# - without --mem, rows of 2147483647 pixels: exit 3 with the amount.
# The strips that slices of rows can read are tests/tiff/test_tiff_streams.sh
# (big-*) and known_bug_tiff-strip-memory.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
R="--quiet --device cpu --threads 2"
need_python numpy
cd "$T"
"$PY" - <<'PY'
import struct, zlib


def tiff(path, W, H, TW=None, TH=None):
    """W x H u8 of zeros: one deflate tile of TW x TH, or one strip."""
    n = (TW * TH) if TW else W * H
    c = zlib.compressobj(9)
    z = b''
    chunk = bytes(1 << 20)
    while n > 0:
        k = min(n, 1 << 20)
        z += c.compress(chunk[:k])
        n -= k
    z += c.flush()
    if TW:
        block = [(322, 4, TW), (323, 4, TH), (324, 4, 'OFF'), (325, 4, len(z))]
    else:
        block = [(273, 4, 'OFF'), (278, 4, H), (279, 4, len(z))]
    entries = sorted([(256, 4, W), (257, 4, H), (258, 3, 8), (259, 3, 8), (262, 3, 1),
                      (277, 3, 1)] + block)
    start = 8 + 2 + 12 * len(entries) + 4
    ifd = struct.pack('<H', len(entries))
    for tag, typ, val in entries:
        val = start if val == 'OFF' else val
        ifd += struct.pack('<HHI', tag, typ, 1)
        ifd += struct.pack('<HH', val, 0) if typ == 3 else struct.pack('<I', val)
    with open(path, 'wb') as f:
        f.write(b'II*\x00' + struct.pack('<I', 8) + ifd + struct.pack('<I', 0) + z)


tiff('tile.tif', 4096, 4096, 4096, 4096)
tiff('wide.tif', 50000000, 2)
PY
rss_run() { # rss_run KIB_FILE COMMAND...: the command's exit code; its peak RSS (KiB) in KIB_FILE
    _f=$1
    shift
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f '%M' -o "$_f" "$@"
    else
        echo 0 >"$_f"
        "$@"
    fi
}

# A tile bigger than what --mem leaves the reader.
set +e
rss_run rss "$WS" $R --mem 16M tile.tif out.zst 2>err
rc=$?
set -e
check "a 16 MiB tile under --mem 16M: exit 2 (got $rc: $(cat err))" test "$rc" -eq 2
check "one line naming the tile and the --mem to give" sh -c \
    "[ \$(wc -l <err) -eq 1 ] && grep -q '^winent-stream: tile.tif: a row of its 4096 x 4096 tiles decodes to 16777216 bytes .*: give at least --mem [0-9]*M (for the reader and the chunks beside it)\$' err"
kib=$(tail -n 1 rss)
check "refused before any allocation ($kib KiB resident)" test "$kib" -lt $((64 * 1024))
check "no output" test ! -e out.zst
mem=$(sed -n 's/.*give at least --mem \([0-9]*M\) .*/\1/p' err)
expect_exit 0 "the tile with the --mem named ($mem)" "$WS" $R --mem "$mem" tile.tif out.raw
check "the map of zeros is zeros" "$PY" -c "
import numpy as np, sys
a = np.fromfile('out.raw', '<f4')
sys.exit(not (a.size == 4096 * 4096 and np.all(a == 0)))"
rm -f out.raw
# Through GDAL: the same rule.
if [ "${WINENT_HAVE_GDAL:-OFF}" = ON ]; then
    "$PY" -c "import zipfile; z = zipfile.ZipFile('tile.zip', 'w'); z.write('tile.tif'); z.close()"
    expect_exit 2 "the tile through GDAL (/vsizip/) under --mem 16M" "$WS" $R --mem 16M \
        /vsizip/tile.zip/tile.tif out2.zst
    # The libtiff reader checks the TIFF beside GDAL (every door to a TIFF
    # gives the file's own verdict): its message, naming the door.
    check "GDAL: the block and the --mem named ($(cat "$T/stderr"))" grep -q \
        "^winent-stream: /vsizip/tile.zip/tile.tif: a row of its 4096 x 4096 tiles decodes to 16777216 bytes .*: give at least --mem [0-9]*M (for the reader and the chunks beside it)\$" "$T/stderr"
    expect_exit 2 "the tile with WINENT_TIFF_READER=gdal under --mem 16M" \
        env WINENT_TIFF_READER=gdal "$WS" $R --mem 16M tile.tif out2.zst
    check "GDAL reader: the libtiff reader's message" cmp -s err "$T/stderr"
fi
# A row wider than the reader may hold.
expect_exit 2 "a 50,000,000 pixel row under --mem 64M" "$WS" $R --mem 64M wide.tif out3.zst
check "the row and its size named ($(cat "$T/stderr"))" grep -q \
    "wide.tif: one row of 50000000 pixels decodes to 50000000 bytes: reading it takes [0-9]* MiB, .*give at least --mem [0-9]*M " "$T/stderr"
# Without --mem, an absurd width is told what it needs, never a bare "out
# of memory": a sparse raw file of 3 rows of 2147483647 float64 samples.
if truncate -s $((2147483647 * 3 * 8)) absurd.raw 2>/dev/null; then
    expect_exit 3 "an absurd width without --mem" "$WS" $R --size 2147483647x3 --dtype f64 \
        --range 0:1 absurd.raw out4.raw
    check "the amount named ($(cat "$T/stderr"))" grep -q \
        "rows of 2147483647 pixels need at least [0-9]* MiB .*more than this machine's memory allows" "$T/stderr"
    rm -f absurd.raw
fi
finish
