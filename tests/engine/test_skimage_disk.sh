#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# --disk R against scikit-image's filters.rank.entropy(img, footprint=
# morphology.disk(R)) (base 2, given explicitly), through the CLI: u8 and
# u16 (values below 4096: scikit-image's rank filters take 12 bits), radii
# 0 to 15, images smaller than the disk, border windows included (both crop
# them), every pixel within one float32 ulp; a multimap list with a disk
# item gives the same bytes as the disk alone.
set -eu
WS="$WINENT_BIN/winent-stream"
MK="$WINENT_TOOLS/winent-mksample"
PY="${PYTHON:-/usr/bin/python3}"
CMP="$WINENT_SRC/tests/engine/skimage_compare.py"
"$PY" -c 'import numpy, skimage.filters.rank, skimage.morphology' 2>/dev/null || {
    echo "no numpy/scikit-image for $PY: skipped"
    exit 77
}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
passed=0
failed=0

# run NAME SIZE DTYPE KIND VALUES RADIUS
run() {
    name=$1 size=$2 dtype=$3 kind=$4 values=$5 r=$6
    w=${size%x*} h=${size#*x}
    k=$((2 * r + 1))
    "$MK" --size "$size" --dtype "$dtype" --kind "$kind" --values "$values" --seed 7 "$T/$name.raw"
    if "$WS" --quiet --device cpu --size "$size" --dtype "$dtype" --disk "$r" --base 2 \
        "$T/$name.raw" "$T/$name.f32" &&
        "$PY" "$CMP" "$T/$name.raw" "$T/$name.f32" "$w" "$h" "$dtype" "$k" "$k" disk; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAILED: $name ($size $dtype $kind $values values, disk $r)" >&2
    fi
}

run u8-d0 40x30 u8 uniform 16 0
run u8-d1 203x151 u8 landscape 12 1
run u8-d3 203x151 u8 uniform 256 3
run u8-d5 151x203 u8 landscape 200 5
run u8-d15 120x90 u8 uniform 256 15
run u8-small 6x4 u8 uniform 16 4
run u16-d4 160x120 u16 uniform 4000 4
run u16-d7 160x120 u16 landscape 3000 7

# A list with a disk item: each map the single run's bytes.
"$MK" --size 97x61 --dtype u8 --kind uniform --values 256 --seed 3 "$T/l.raw"
if "$WS" --quiet --device cpu --size 97x61 --dtype u8 --base 2 --window 5,disk3 "$T/l.raw" \
    "$T/l.raw.f32" &&
    "$WS" --quiet --device cpu --size 97x61 --dtype u8 --base 2 --disk 3 "$T/l.raw" "$T/one.f32" &&
    cmp "$T/l.raw_b1_disk3.f32" "$T/one.f32" &&
    "$WS" --quiet --device cpu --size 97x61 --dtype u8 --base 2 --window disk3 "$T/l.raw" \
        "$T/two.f32" &&
    cmp "$T/two.f32" "$T/one.f32"; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
    echo "FAILED: --window 5,disk3 (map disk3) or --window disk3 against --disk 3" >&2
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
