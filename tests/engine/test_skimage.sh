#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# scikit-image's filters.rank.entropy (base 2, footprint ones((Ky, Kx)))
# against winent-stream through the CLI, u8 and u16, square and oblong
# windows, landscape and uniform inputs, border windows included.
set -eu
WS="$WINENT_BIN/winent-stream"
MK="$WINENT_TOOLS/winent-mksample"
PY="${PYTHON:-/usr/bin/python3}"
CMP="$WINENT_SRC/tests/engine/skimage_compare.py"
"$PY" -c 'import numpy, skimage.filters.rank' 2>/dev/null || {
    echo "no numpy/scikit-image for $PY: skipped"
    exit 77
}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
passed=0
failed=0

# run NAME SIZE DTYPE KIND VALUES WINDOW
run() {
    name=$1 size=$2 dtype=$3 kind=$4 values=$5 win=$6
    w=${size%x*} h=${size#*x}
    case $win in
    *x*) kx=${win%x*} ky=${win#*x} ;;
    *) kx=$win ky=$win ;;
    esac
    "$MK" --size "$size" --dtype "$dtype" --kind "$kind" --values "$values" --seed 5 "$T/$name.raw"
    if "$WS" --quiet --device cpu --size "$size" --dtype "$dtype" --window "$win" --base 2 \
        "$T/$name.raw" "$T/$name.f32" &&
        "$PY" "$CMP" "$T/$name.raw" "$T/$name.f32" "$w" "$h" "$dtype" "$kx" "$ky"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAILED: $name ($size $dtype $kind $values values, window $win)" >&2
    fi
}

run u8-5 203x151 u8 landscape 12 5
run u8-3 203x151 u8 uniform 16 3
run u8-7x3 203x151 u8 uniform 40 7x3
run u8-3x7 151x203 u8 landscape 200 3x7
run u8-31 120x90 u8 uniform 256 31
run u8-1 50x40 u8 uniform 16 1
run u8-small 4x3 u8 uniform 16 5
run u16-5 160x120 u16 uniform 4000 5
run u16-9x5 160x120 u16 landscape 3000 9x5

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
