#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# winent-mksample: byte counts, determinism, seeds, value ranges, byte
# order, landscape holes as the nodata value, streaming to stdout, errors.
set -eu
MK="$WINENT_TOOLS/winent-mksample"
PY="${PYTHON:-/usr/bin/python3}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
passed=0
failed=0
skipped=0
# The value checks read the samples with numpy; without it they are counted
# as skipped, and the test says so (77) unless another check failed.
HAVE_NUMPY=0
"$PY" -c "import numpy" 2>/dev/null && HAVE_NUMPY=1
check() { # check DESCRIPTION COMMAND...
    d=$1; shift
    if [ "$1" = pyrun ] || [ "$1" = "$PY" ] && [ $HAVE_NUMPY = 0 ]; then
        skipped=$((skipped + 1))
        return 0
    fi
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: $d" >&2; fi
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
check "landscape classes in 0..49, ten or more of them" \
    pyrun "$T/a.raw" "<u2" "a.max() <= 49 and len(np.unique(a)) >= 10"
# Smooth: neighbours mostly equal, unlike uniform noise.
check "landscape is spatially correlated" \
    pyrun "$T/a.raw" "<u2" "(a.reshape(200, 300)[:, 1:] == a.reshape(200, 300)[:, :-1]).mean() > 0.6"

"$MK" --size 256x256 --dtype u8 --values 16 --seed 2 "$T/u.raw"
check "uniform u8 covers exactly 0..15, evenly" \
    pyrun "$T/u.raw" "u1" "set(np.unique(a)) == set(range(16)) and abs(np.bincount(a).min() / len(a) - 1 / 16) < 0.01"
"$MK" --size 200x100 --dtype i32 --values 100000 --seed 2 "$T/i.raw"
check "i32 100000 values: 0..99999, many distinct" \
    pyrun "$T/i.raw" "<i4" "a.min() >= 0 and a.max() <= 99999 and len(np.unique(a)) > 15000"
"$MK" --size 100x100 --dtype f32 --values 3 --seed 2 "$T/f.raw"
check "f32 uniform: reals in [0, 3)" \
    pyrun "$T/f.raw" "<f4" "a.min() >= 0 and a.max() < 3 and len(np.unique(a)) > 9000"

"$MK" --size 64x32 --dtype u16 --values 1000 --byteorder big --seed 3 "$T/be.raw"
"$MK" --size 64x32 --dtype u16 --values 1000 --seed 3 "$T/le.raw"
check "big endian is the little-endian samples swapped" \
    "$PY" -c "import numpy as np, sys
sys.exit(0 if (np.fromfile('$T/be.raw', '>u2') == np.fromfile('$T/le.raw', '<u2')).all() else 1)"

"$MK" --size 400x300 --dtype u8 --kind landscape --values 12 --holes 0.2 --nodata 255 --seed 6 "$T/h.raw"
check "holes: about 20% of pixels are the nodata value 255, the rest classes 0..11" \
    pyrun "$T/h.raw" "u1" "0.12 < (a == 255).mean() < 0.28 and a[a != 255].max() <= 11"
"$MK" --size 400x300 --dtype f32 --kind landscape --values 12 --holes 0.1 --seed 6 "$T/hf.raw"
check "f32 holes default to NaN" pyrun "$T/hf.raw" "<f4" "0.05 < np.isnan(a).mean() < 0.15"
"$MK" --size 400x300 --dtype u8 --kind landscape --values 12 --seed 6 "$T/nh.raw"
check "without --holes no pixel is 255" pyrun "$T/nh.raw" "u1" "a.max() <= 11"

"$MK" --size 500x400 --dtype u8 --kind landscape --values 12 --holes 0.1 --nodata 255 --seed 8 - >"$T/so.raw"
"$MK" --size 500x400 --dtype u8 --kind landscape --values 12 --holes 0.1 --nodata 255 --seed 8 "$T/fi.raw"
check "stdout gives the file's bytes" cmp -s "$T/so.raw" "$T/fi.raw"
# A tall image streams: its first rows are the first rows of a shorter one.
"$MK" --size 500x4000 --dtype u8 --kind landscape --values 12 --seed 8 - | head -c 200000 >"$T/tall.raw"
"$MK" --size 500x400 --dtype u8 --kind landscape --values 12 --seed 8 "$T/short.raw"
check "rows do not depend on the image height" cmp -s "$T/tall.raw" "$T/short.raw"

# expect CODE DESCRIPTION ARGS...: exit code and one 'winent-mksample: ' line.
expect() {
    want=$1 d=$2; shift 2
    set +e
    "$MK" "$@" >"$T/out" 2>"$T/err"
    got=$?
    set -e
    if [ "$got" -eq "$want" ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q '^winent-mksample: ' "$T/err"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); echo "FAILED: $d: exit $got, stderr: $(cat "$T/err")" >&2
    fi
}
expect 2 "no size" --dtype u8 "$T/x"
expect 2 "bad dtype" --size 4x4 --dtype u9 "$T/x"
expect 2 "bad size" --size 4x0 --dtype u8 "$T/x"
expect 2 "unknown option" --size 4x4 --dtype u8 --frobnicate 1 "$T/x"
expect 2 "too many values for u8" --size 4x4 --dtype u8 --values 300 "$T/x"
expect 2 "integer holes need --nodata" --size 4x4 --dtype u8 --holes 0.1 "$T/x"
expect 2 "no output" --size 4x4 --dtype u8
expect 4 "unwritable output" --size 4x4 --dtype u8 "$T/no/such/dir/x.raw"
check "--help exits 0 and says usage" sh -c "'$MK' --help | grep -q usage"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] || exit 1
if [ "$skipped" -gt 0 ]; then
    echo "SKIP: $skipped value checks need numpy for $PY (apt-get install python3-numpy)"
    exit 77
fi
