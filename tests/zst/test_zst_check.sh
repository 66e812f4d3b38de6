#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# --info --check (and its alias --test) verifies a .zst output whole: a
# good file passes with one "OK" line; a flipped byte inside a data frame,
# a damaged stored checksum, a cut file, a damaged seek table (an entry,
# its footer, its magic) or a header whose width disagrees with the frames
# fail with exit 3 and one line naming the first bad frame and its byte
# offset. Plain --info checks only the layout and keeps passing a file
# whose frame data are damaged.
. "$WINENT_SRC/tests/lib/cli_lib.sh"

# 300 x 170 in frames of 16 rows: 11 frames, the last of 10 rows.
"$PY" -c "
import random
random.seed(7)
open('$T/in.raw', 'wb').write(bytes(random.randrange(16) for _ in range(300 * 170)))"
"$WS" --quiet --device cpu --size 300x170 --dtype u8 --frame-rows 16 "$T/in.raw" "$T/good.zst"

# damage NAME HOW: a copy of good.zst changed by HOW (Python, on `data`, a
# bytearray, with `t` the seek table entries (c_offset, d_offset, c_size,
# d_size, checksum), the header frame first, from tests/lib/zst_read.py).
damage() {
    "$PY" - "$T/good.zst" "$T/$1.zst" "$2" "$WINENT_SRC/tests/lib" <<'PY'
import sys
sys.path.insert(0, sys.argv[4])
import zst_read
data = bytearray(open(sys.argv[1], 'rb').read())
t = zst_read.seek_table(bytes(data))
exec(sys.argv[3])
open(sys.argv[2], 'wb').write(data)
PY
}
# frame_at I: the byte offset of data frame I (entry I + 1 of the table).
frame_at() {
    "$PY" -c "
import sys
sys.path.insert(0, '$WINENT_SRC/tests/lib')
import zst_read
print(zst_read.seek_table(open('$T/good.zst', 'rb').read())[$1 + 1][0])"
}
F3=$(frame_at 3)
F5=$(frame_at 5)

expect_exit 0 "--info --check on a good file" "$WS" --info --check "$T/good.zst"
check "one OK line" test "$(cat "$T/stdout")" = "OK: 11 frames, 300 x 170"
check "nothing on stderr" test ! -s "$T/stderr"
expect_exit 0 "--test on a good file" "$WS" --test "$T/good.zst"
check "--test says the same" test "$(cat "$T/stdout")" = "OK: 11 frames, 300 x 170"
expect_exit 0 "--info FILE --check" "$WS" --info "$T/good.zst" --check
expect_exit 0 "--test=FILE" "$WS" --test="$T/good.zst"
# Every level and frame size the writer makes passes.
"$WS" --quiet --device cpu --size 300x170 --dtype u8 --level 19 --frame-rows 1 "$T/in.raw" "$T/l19.zst"
expect_exit 0 "one-row frames at level 19" "$WS" --test "$T/l19.zst"
check "170 frames" test "$(cat "$T/stdout")" = "OK: 170 frames, 300 x 170"
"$WS" --quiet --device cpu --size 300x170 --dtype u8 --frame-rows 1000 "$T/in.raw" "$T/one.zst"
expect_exit 0 "one frame" "$WS" --test "$T/one.zst"

# fails NAME WHAT...: --info --check refuses NAME.zst with every WHAT in
# its one line.
fails() {
    _f=$1; shift
    expect_exit 3 "$_f" "$WS" --info --check "$T/$_f.zst"
    for _w in "$@"; do
        grep -qF -- "$_w" "$T/stderr" || bad "$_f: the message lacks '$_w': $(cat "$T/stderr")"
    done
    check "$_f: nothing on stdout" test ! -s "$T/stdout"
}

# A flipped byte in the middle of frame 3's compressed data.
damage flip 'c = t[4][0] + t[4][2] // 2; data[c] ^= 0x40'
fails flip "frame 3 (rows 48-63) at byte $F3: "
expect_exit 0 "plain --info checks the layout only" "$WS" --info "$T/flip.zst"
# Frame 3's stored checksum (its last 4 bytes), data intact.
damage sum 'c = t[4][0] + t[4][2] - 1; data[c] ^= 0x01'
fails sum "frame 3 (rows 48-63) at byte $F3: checksum mismatch"
# Cut inside frame 5: the seek table is gone too; the frame says more.
damage cut 'del data[t[6][0] + 100:]'
fails cut "frame 5 (rows 80-95) at byte $F5: truncated"
# Cut at the end of the last frame: every frame whole, no seek table.
damage notable 'del data[t[-1][0] + t[-1][2]:]'
fails notable "no seek table" "after frame 10"
# A seek table entry that lies about frame 5's compressed size.
damage entry 'import struct; e = len(data) - 9 - 12 * (len(t) - 6); struct.pack_into("<I", data, e, t[6][2] + 1)'
fails entry "frame 5 (rows 80-95) at byte $F5: the seek table says"
# ... about frame 2's checksum.
damage entrysum 'e = len(data) - 9 - 12 * (len(t) - 3); data[e + 8] ^= 0xFF'
fails entrysum "frame 2 (rows 32-47)" "the seek table says"
# ... about the header frame.
damage entry0 'e = len(data) - 9 - 12 * len(t); data[e] ^= 0x01'
fails entry0 "does not start with the header frame"
# The footer's magic, its frame count, the table frame's own magic.
damage magic 'data[-1] ^= 0x01'
fails magic "no seek table"
damage count 'data[-9] ^= 0x01'
fails count "seek table"
damage tmagic 'e = len(data) - 9 - 12 * len(t) - 8; data[e] ^= 0x01'
fails tmagic "seek table frame is damaged"
# A header whose width (300 -> 310, same length) disagrees with the frames.
damage width 'import re; i = re.search(rb"\"width\":\s*300", data).end(); data[i - 2] = ord("1")'
fails width "frame 0 (rows 0-15)" "holds 19200 bytes, but the header's 310 x 170 image needs 19840"
# Not ours at all, or not there.
expect_exit 3 "raw samples" "$WS" --test "$T/in.raw"
expect_exit 3 "missing file" "$WS" --test "$T/nothing.zst"
# Usage: --check alone, --check with two files.
expect_exit 2 "--check without --info" "$WS" --check "$T/good.zst"
expect_exit 2 "--info --check with two files" "$WS" --info --check "$T/good.zst" "$T/good.zst"
finish
