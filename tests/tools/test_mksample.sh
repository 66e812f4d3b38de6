#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# winent-mksample: byte counts, determinism, seeds, value ranges, byte
# order, landscape holes as the nodata value, streaming to stdout, errors.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
EXPECT_PROG=winent-mksample
# check_np DESCRIPTION COMMAND...: a check that reads the samples with
# numpy; where this Python has none it is a part skipped, with the reason.
HAVE_NUMPY=0
has_python numpy && HAVE_NUMPY=1
check_np() {
    if [ $HAVE_NUMPY = 1 ]; then
        check "$@"
    else
        skip_part "$1: no numpy for $PY (apt-get install python3-numpy)"
    fi
}
bytes() { wc -c <"$1" | tr -d ' '; }
# pyrun FILE DTYPE EXPR: EXPR (over numpy array a) must be true.
pyrun() {
    "$PY" -c "import numpy as np, sys
a = np.fromfile('$1', dtype='$2')
sys.exit(0 if ($3) else 1)"
}

for spec in u8:1 i8:1 u16:2 i16:2 u32:4 i32:4 f32:4 f64:8; do
    t=${spec%:*} s=${spec#*:}
    "$MK" --size 37x11 --dtype "$t" "$T/$t.raw"
    check "$t: 37x11 is $((37 * 11 * s)) bytes" [ "$(bytes "$T/$t.raw")" -eq $((37 * 11 * s)) ]
done

"$MK" --size 300x200 --dtype u16 --kind landscape --values 50 --seed 4 "$T/a.raw"
"$MK" --size 300x200 --dtype u16 --kind landscape --values 50 --seed 4 "$T/b.raw"
"$MK" --size 300x200 --dtype u16 --kind landscape --values 50 --seed 5 "$T/c.raw"
check "same seed, same bytes" cmp -s "$T/a.raw" "$T/b.raw"
check "another seed, other bytes" sh -c "! cmp -s '$T/a.raw' '$T/c.raw'"
check_np "landscape classes in 0..49, ten or more of them" \
    pyrun "$T/a.raw" "<u2" "a.max() <= 49 and len(np.unique(a)) >= 10"
# Smooth: neighbours mostly equal, unlike uniform noise.
check_np "landscape is spatially correlated" \
    pyrun "$T/a.raw" "<u2" "(a.reshape(200, 300)[:, 1:] == a.reshape(200, 300)[:, :-1]).mean() > 0.6"

"$MK" --size 256x256 --dtype u8 --values 16 --seed 2 "$T/u.raw"
check_np "uniform u8 covers exactly 0..15, evenly" \
    pyrun "$T/u.raw" "u1" "set(np.unique(a)) == set(range(16)) and abs(np.bincount(a).min() / len(a) - 1 / 16) < 0.01"
"$MK" --size 200x100 --dtype i32 --values 100000 --seed 2 "$T/i.raw"
check_np "i32 100000 values: 0..99999, many distinct" \
    pyrun "$T/i.raw" "<i4" "a.min() >= 0 and a.max() <= 99999 and len(np.unique(a)) > 15000"
"$MK" --size 100x100 --dtype f32 --values 3 --seed 2 "$T/f.raw"
check_np "f32 uniform: reals in [0, 3)" \
    pyrun "$T/f.raw" "<f4" "a.min() >= 0 and a.max() < 3 and len(np.unique(a)) > 9000"

"$MK" --size 64x32 --dtype u16 --values 1000 --byteorder big --seed 3 "$T/be.raw"
"$MK" --size 64x32 --dtype u16 --values 1000 --seed 3 "$T/le.raw"
check_np "big endian is the little-endian samples swapped" \
    "$PY" -c "import numpy as np, sys
sys.exit(0 if (np.fromfile('$T/be.raw', '>u2') == np.fromfile('$T/le.raw', '<u2')).all() else 1)"

"$MK" --size 400x300 --dtype u8 --kind landscape --values 12 --holes 0.2 --nodata 255 --seed 6 "$T/h.raw"
check_np "holes: about 20% of pixels are the nodata value 255, the rest classes 0..11" \
    pyrun "$T/h.raw" "u1" "0.12 < (a == 255).mean() < 0.28 and a[a != 255].max() <= 11"
"$MK" --size 400x300 --dtype f32 --kind landscape --values 12 --holes 0.1 --seed 6 "$T/hf.raw"
check_np "f32 holes default to NaN" pyrun "$T/hf.raw" "<f4" "0.05 < np.isnan(a).mean() < 0.15"
"$MK" --size 400x300 --dtype u8 --kind landscape --values 12 --seed 6 "$T/nh.raw"
check_np "without --holes no pixel is 255" pyrun "$T/nh.raw" "u1" "a.max() <= 11"

"$MK" --size 500x400 --dtype u8 --kind landscape --values 12 --holes 0.1 --nodata 255 --seed 8 - >"$T/so.raw"
"$MK" --size 500x400 --dtype u8 --kind landscape --values 12 --holes 0.1 --nodata 255 --seed 8 "$T/fi.raw"
check "stdout gives the file's bytes" cmp -s "$T/so.raw" "$T/fi.raw"
# A tall image streams: its first rows are the first rows of a shorter one.
"$MK" --size 500x4000 --dtype u8 --kind landscape --values 12 --seed 8 - | head -c 200000 >"$T/tall.raw"
"$MK" --size 500x400 --dtype u8 --kind landscape --values 12 --seed 8 "$T/short.raw"
check "rows do not depend on the image height" cmp -s "$T/tall.raw" "$T/short.raw"

expect_exit 2 "no size" "$MK" --dtype u8 "$T/x"
expect_exit 2 "bad dtype" "$MK" --size 4x4 --dtype u9 "$T/x"
expect_exit 2 "bad size" "$MK" --size 4x0 --dtype u8 "$T/x"
expect_exit 2 "unknown option" "$MK" --size 4x4 --dtype u8 --frobnicate 1 "$T/x"
expect_exit 2 "too many values for u8" "$MK" --size 4x4 --dtype u8 --values 300 "$T/x"
expect_exit 2 "integer holes need --nodata" "$MK" --size 4x4 --dtype u8 --holes 0.1 "$T/x"
expect_exit 2 "no output" "$MK" --size 4x4 --dtype u8
expect_exit 4 "unwritable output" "$MK" --size 4x4 --dtype u8 "$T/no/such/dir/x.raw"
check "--help exits 0 and says usage" sh -c "'$MK' --help | grep -q usage"

finish
