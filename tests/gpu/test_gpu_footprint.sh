#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Footprints on the GPU (engine_cuda_disk.cuh's runs): --device gpu gives
# the CPU's bytes for --footprint FILE of several shapes (a diamond, a ring
# without its centre, even sides, a comb of several runs per column, a
# random mask, a 255-wide bar, a disk's own mask beside --disk) and for
# rectangles with an even side (--window 16, 4x6, 2x1, 64, a list), on every
# plane and histogram the GPU picks (u8 of 256 and of 12 values, u16 with
# nodata, i32, f32 with bins) and the majority's tables, across chunks
# (small --mem), and --disk R keeps its bytes. Skips (77) without a usable GPU.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
"$WS" --quiet --device gpu --size 5x5 --dtype u8 "$WINENT_SRC/samples/course-5x5-u8.raw" \
    "$T/probe.raw" 2>/dev/null || { echo "no usable GPU: skipped"; exit 77; }
[ -x "$MK" ] || { echo "no winent-mksample: skipped"; exit 77; }

# fp NAME W H EXPR: a text footprint of W x H whose pixel (c, r) is in where
# the awk expression EXPR (of c, r, dx = c - int(W/2), dy = r - int(H/2)) holds.
fp() {
    awk -v w="$2" -v h="$3" "BEGIN { srand(7); for (r = 0; r < h; r++) { s = \"\";
        for (c = 0; c < w; c++) { dx = c - int(w / 2); dy = r - int(h / 2);
            s = s ((($4)) ? 1 : 0) } print s } }" >"$T/$1.txt"
}
fp diamond 9 9 '(dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy) <= 4'
fp ring 13 13 'dx * dx + dy * dy <= 36 && dx * dx + dy * dy > 9'
fp ones16 16 16 '1'
fp comb 7 10 'r == 0 || (r + c) % 3 != 1'
fp random 9 6 'rand() < 0.5'
fp bar 255 3 'r != 1 || c % 2 == 0'
fp disk7 15 15 'dx * dx + dy * dy <= 49'

run_case() { # name mksample-args -- winent-stream-args
    name=$1; shift
    mk=""
    while [ "$1" != "--" ]; do mk="$mk $1"; shift; done
    shift
    "$MK" $mk "$T/in.raw"
    for f in diamond ring ones16 comb random bar disk7; do
        "$WS" --quiet --device cpu "$@" --footprint "$T/$f.txt" "$T/in.raw" "$T/cpu.raw"
        for mem in 16M 1G; do
            "$WS" --quiet --device gpu --mem $mem "$@" --footprint "$T/$f.txt" "$T/in.raw" \
                "$T/gpu.raw"
            check "$name, footprint $f, mem $mem: the CPU's bytes" cmp -s "$T/cpu.raw" "$T/gpu.raw"
        done
    done
    # A disk's own mask is the disk: --disk 7's bytes, on both engines.
    "$WS" --quiet --device gpu "$@" --disk 7 "$T/in.raw" "$T/gdisk.raw"
    check "$name: --footprint of disk(7) is --disk 7" cmp -s "$T/cpu.raw" "$T/gdisk.raw"
    # Rectangles with an even side (a shape of all ones): the CPU's bytes,
    # and --window 16 is --footprint of ones16 on the GPU too.
    for win in 16 4x6 2x1 1x2 64 6x3 16,4x6,5; do
        rm -rf "$T/c" "$T/g" && mkdir "$T/c" "$T/g"
        "$WS" --quiet --device cpu "$@" --window $win "$T/in.raw" "$T/c/m.raw"
        for mem in 16M 1G; do
            "$WS" --quiet --device gpu --mem $mem "$@" --window $win "$T/in.raw" "$T/g/m.raw"
            same=$(ls "$T/c" | wc -l)
            for f in $(ls "$T/c"); do cmp -s "$T/c/$f" "$T/g/$f" || same=-1; done
            check "$name, --window $win, mem $mem: the CPU's bytes ($same maps)" [ "$same" -gt 0 ]
        done
    done
    "$WS" --quiet --device gpu "$@" --window 16 "$T/in.raw" "$T/g16.raw"
    "$WS" --quiet --device gpu "$@" --footprint "$T/ones16.txt" "$T/in.raw" "$T/f16.raw"
    check "$name: --window 16 is --footprint of ones((16, 16))" cmp -s "$T/g16.raw" "$T/f16.raw"
}
run_case "u8 256 values" --size 1201x903 --dtype u8 --values 256 --seed 1 -- \
    --size 1201x903 --dtype u8
run_case "u8 12 values" --size 1100x700 --dtype u8 --kind landscape --values 12 --seed 2 -- \
    --size 1100x700 --dtype u8
run_case "u16 nodata" --size 901x655 --dtype u16 --values 3000 --holes 0.1 --nodata 7 --seed 3 -- \
    --size 901x655 --dtype u16 --nodata 7
run_case "i32 landscape" --size 700x500 --dtype i32 --kind landscape --values 100000 --seed 4 -- \
    --size 700x500 --dtype i32
run_case "f32 bins" --size 640x480 --dtype f32 --kind landscape --values 1000 --seed 5 -- \
    --size 640x480 --dtype f32 --bins 64 --range 0:1000
# The majority's own kernel (a list of the window's pixels) on the same
# shapes: a direct table (u8), hashed 16-bit values with nodata, hashed
# 32-bit values.
run_case "majority u8" --size 601x403 --dtype u8 --kind landscape --values 12 --seed 6 -- \
    --size 601x403 --dtype u8 --measure majority
run_case "majority u16 nodata" --size 501x355 --dtype u16 --values 3000 --holes 0.1 --nodata 7 \
    --seed 7 -- --size 501x355 --dtype u16 --nodata 7 --measure majority
run_case "majority i32" --size 400x300 --dtype i32 --kind landscape --values 100000 --seed 8 -- \
    --size 400x300 --dtype i32 --measure majority
finish
