#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Messages and exit codes of SPEC section 6; outputs appear only when whole.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
need_python numpy
S="$WINENT_SRC/samples/course-5x5-u8.raw"
R="--size 5x5 --dtype u8"
expect_exit 2 "no arguments" "$WS"
expect_exit 2 "unknown option" "$WS" --frobnicate 1 "$S" "$T/o.raw"
expect_exit 2 "a window of no pixels" "$WS" $R --window 0 "$S" "$T/o.raw"
grep -q -- '--window' "$T/stderr" || bad "the window message names --window"
expect_exit 2 "window too big" "$WS" $R --window 257 "$S" "$T/o.raw"
expect_exit 2 "bad base" "$WS" $R --base 3 "$S" "$T/o.raw"
expect_exit 2 "bad dtype" "$WS" --size 5x5 --dtype u9 "$S" "$T/o.raw"
expect_exit 2 "bad size" "$WS" --size 5 --dtype u8 "$S" "$T/o.raw"
expect_exit 2 "raw without --size" "$WS" --dtype u8 "$S" "$T/o.raw"
expect_exit 2 "raw without --dtype" "$WS" --size 5x5 "$S" "$T/o.raw"
expect_exit 2 "nodata no u8 sample can equal" "$WS" --size 5x5 --dtype u8 --nodata 300 "$S" "$T/o.raw"
grep -q -- "--nodata: '300': a u8 band holds whole numbers from 0 to 255" "$T/stderr" ||
    bad "the nodata message names the band's type and its range"
expect_exit 2 "bins without range" "$WS" $R --bins 4 "$S" "$T/o.raw"
expect_exit 2 "inverted range" "$WS" $R --bins 4 --range 5:1 "$S" "$T/o.raw"
expect_exit 2 "bad threads" "$WS" $R --threads 0 "$S" "$T/o.raw"
expect_exit 2 "bad mem" "$WS" $R --mem lots "$S" "$T/o.raw"
expect_exit 2 "band out of range" "$WS" $R --bands 1 --band 2 "$S" "$T/o.raw"
expect_exit 2 "bad device list" "$WS" $R --device gpu0 "$S" "$T/o.raw"
check "no output after usage errors" test ! -e "$T/o.raw"
expect_exit 0 "--help" "$WS" --help
grep -q -- '--window' "$T/stdout" || bad "--help lists --window"
expect_exit 0 "--version" "$WS" --version
# Input errors: exit 3, no output left behind.
expect_exit 3 "missing input" "$WS" $R "$T/nope.raw" "$T/o.raw"
head -c 20 "$S" >"$T/short.raw"
expect_exit 3 "truncated file" "$WS" $R "$T/short.raw" "$T/o.raw"
expect_exit 3 "truncated stdin" sh -c "head -c 20 '$S' | '$WS' $R - '$T/o.raw'"
check "no output after input errors" test ! -e "$T/o.raw"
check "no temporary files left" sh -c "! ls '$T' | grep -q tmp-"
# A failure leaves an existing file at the final name untouched.
echo precious >"$T/keep.raw"
expect_exit 3 "truncated over an existing output" "$WS" $R "$T/short.raw" "$T/keep.raw"
check "existing output untouched" grep -q precious "$T/keep.raw"
# Output errors: exit 4.
expect_exit 4 "missing output folder" "$WS" $R "$S" "$T/no/such/dir/o.raw"
mkdir "$T/ro" && chmod 555 "$T/ro"
if [ "$(id -u)" -ne 0 ]; then
    expect_exit 4 "read-only folder" "$WS" $R "$S" "$T/ro/o.raw"
fi
# A full disk: a file size limit makes the write fail (SIGXFSZ ignored).
# Not under TSan: its runtime maps a file of its own (tsan.rodata.PID, the
# shadow of read-only memory) that the limit truncates: SIGBUS at startup.
if [ "${WINENT_SANITIZE:-}" != thread ]; then
"$PY" -c "open('$T/big.raw','wb').write(bytes(300*300))"
expect_exit 4 "file size limit" sh -c "trap '' XFSZ; ulimit -f 100; exec '$WS' --size 300x300 --dtype u8 '$T/big.raw' '$T/full.raw'"
check "no output after a full disk" sh -c "! ls '$T' | grep -q full"
fi
# A file system too small for a raw map: its space is reserved while the
# job starts, so it fails at the first write, saying so. A tmpfs of 1 MiB
# in a private mount namespace (root and unshare needed: else a note).
"$PY" -c "open('$T/big3.raw','wb').write(bytes(1000*1000))"
mkdir "$T/small"
if unshare -m sh -c "mount -t tmpfs -o size=1m none '$T/small'" 2>/dev/null; then
    expect_exit 4 "a raw map past a small tmpfs" unshare -m sh -c \
        "mount -t tmpfs -o size=1m none '$T/small' && exec '$WS' --size 1000x1000 --dtype u8 '$T/big3.raw' '$T/small/o.raw'"
    check "the message says the map has no room" grep -q "no room for the map's 4000000 bytes" "$T/stderr"
else
    echo "note: no private tmpfs here (unshare -m and mount need root): small file system case not run"
fi
# A closed output pipe is an output error, not a crash.
"$PY" -c "open('$T/big2.raw','wb').write(bytes(2000*2000))"
set +e
"$WS" --quiet --size 2000x2000 --dtype u8 "$T/big2.raw" - 2>"$T/pipe.err" | head -c 10 >/dev/null
set -e
check "closed pipe reported" grep -q '^winent-stream: .*write failed' "$T/pipe.err"
# Device errors: exit 5 when a GPU is demanded and there is none.
if [ "$("$WS" --quiet --device gpu $R "$S" "$T/g.raw" 2>/dev/null; echo $?)" = 0 ]; then
    ok # a GPU is here: nothing to check
else
    expect_exit 5 "--device gpu without a GPU" "$WS" --device gpu $R "$S" "$T/g.raw"
    expect_exit 5 "--device 0 without a GPU" "$WS" --device 0 $R "$S" "$T/g.raw"
    # auto computes on the CPU and says nothing about it (SPEC 5).
    expect_exit 0 "auto without a GPU" "$WS" $R "$S" "$T/a.raw"
    check "no notice" test ! -s "$T/stderr"
    "$WS" --device cpu $R "$S" "$T/c.raw"
    check "auto gives the CPU's bytes" cmp -s "$T/a.raw" "$T/c.raw"
fi
finish
