#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench-gpu-jobs.sh - the whole-job comparison of large windows: the CLI job on the
# CPU (all cores) against the same job on one GPU, for the five cases of
# large windows and many values, each writing its raw map into memory
# (a tmpfs), in one run on one machine; the bytes of both are compared.
#
#   tools/bench-gpu-jobs.sh [--build DIR] [--repeat R] [--shm DIR] [--cases 1,3]
#                           [--scale F] [--out FILE]
#
#   --build DIR   build folder with src/winent-stream, tools/winent-mksample
#                 (default build)
#   --repeat R    runs of each job; the best counts (default 2)
#   --shm DIR     memory-backed folder for inputs and maps (default /dev/shm)
#   --cases LIST  which cases (default 1,2,3,4,5)
#   --scale F     each image side divided by F (default 1: the sizes below;
#                 a quick look on a small machine: --scale 8)
#   --out FILE    also write the Markdown table there
#
# The cases:
#   1 16384x16384 u16 uniform 65536 values, window 31
#   2  8192x8192  u8 uniform 256 values, window 127
#   3  8192x8192  f32 uniform [0, 1), --bins 4096 --range 0:1, window 63
#   4 16384x16384 i32 uniform 10^6 values, window 15
#   5 16384x16384 u8 landscape 16 classes, window 255
#
# Each job is `winent-stream --stats --quiet --device cpu|0 OPTS IN MAP`;
# its wall time is the JSON wall_s, setup_s is the GPU's start inside it.
# What no engine can skip is timed in the same run: reading the input
# alone (cat to /dev/null) and writing a map of the same size into the same
# folder alone (dd of zeros, 1 MiB a write, as the job writes from its
# buffers; a cp would read the map too). "GPU floor" is the
# larger of the read and the GPU's setup plus the write (no map is written
# before the GPU is up); "5x needs" is the CPU job / 5 (the GPU's target).
set -u
B=build
R=2
SHM=/dev/shm
CASES=1,2,3,4,5
SCALE=1
MD=
while [ $# -gt 0 ]; do
    case $1 in
    --build) B=$2; shift 2 ;;
    --repeat) R=$2; shift 2 ;;
    --shm) SHM=$2; shift 2 ;;
    --cases) CASES=$2; shift 2 ;;
    --scale) SCALE=$2; shift 2 ;;
    --out) MD=$2; shift 2 ;;
    -h | --help) sed -n '2,27p' "$0"; exit 0 ;;
    *) echo "bench-gpu-jobs.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
WS=$B/src/winent-stream
MK=$B/tools/winent-mksample
for f in "$WS" "$MK"; do
    [ -x "$f" ] || { echo "bench-gpu-jobs.sh: $f not built" >&2; exit 2; }
done
W=$(mktemp -d "$SHM/gpu-jobs.XXXXXX") || exit 2
trap 'rm -rf "$W"' EXIT INT TERM
. "$(dirname "$0")/bench-lib.sh"
best() { # best wall and its setup over R runs of: best DEVICE LOGTAG ARGS...
    dev=$1; tag=$2; shift 2
    bw=; bs=
    i=0
    while [ $i -lt "$R" ]; do
        rm -f "$W/$tag.raw"
        "$WS" --stats --quiet --device "$dev" "$@" "$W/$tag.raw" 2>"$W/$tag.err" || {
            echo "FAILED: $dev $*: $(cat "$W/$tag.err")" >&2; return 1; }
        w=$(stats_num wall_s "$W/$tag.err"); s=$(stats_num setup_s "$W/$tag.err")
        if [ -z "$bw" ] || awk "BEGIN{exit !($w < $bw)}"; then bw=$w; bs=$s; fi
        i=$((i + 1))
    done
    echo "$bw $bs"
}
table="| case | pixels | CPU job (s) | GPU job (s) | GPU setup (s) | read alone (s) | write alone (s) | GPU floor (s) | 5x needs (s) | GPU / CPU | GPU Gpixel/s after setup | bytes |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for c in $(echo "$CASES" | tr ',' ' '); do
    case $c in
    1) name="u16 65536 values 31x31"; s=16384; t=u16; v=65536; k=uniform; o="--window 31" ;;
    2) name="u8 256 values 127x127"; s=8192; t=u8; v=256; k=uniform; o="--window 127" ;;
    3) name="f32 4096 bins 63x63"; s=8192; t=f32; v=1; k=uniform; o="--window 63 --bins 4096 --range 0:1" ;;
    4) name="i32 10^6 values 15x15"; s=16384; t=i32; v=1000000; k=uniform; o="--window 15" ;;
    5) name="u8 landscape 16 classes 255x255"; s=16384; t=u8; v=16; k=landscape; o="--window 255" ;;
    *) echo "bench-gpu-jobs.sh: no case $c" >&2; exit 2 ;;
    esac
    s=$((s / SCALE))
    in="$W/in$c.raw"
    "$MK" --size ${s}x$s --dtype $t --kind $k --values $v --seed $c "$in" || exit 1
    a="--size ${s}x$s --dtype $t $o $in"
    cpu=$(best cpu cpu $a) || exit 1
    gpu=$(best 0 gpu $a) || exit 1
    same=identical
    cmp -s "$W/cpu.raw" "$W/gpu.raw" || same=DIFFER
    t0=$(now)
    cat "$in" > /dev/null
    t1=$(now)
    mb=$(( ($(wc -c < "$W/gpu.raw") + 1048575) / 1048576 ))
    dd if=/dev/zero of="$W/copy.raw" bs=1M count=$mb 2>/dev/null
    t2=$(now)
    rd=$(secs "$t0" "$t1" %.3f)
    wr=$(secs "$t1" "$t2" %.3f)
    rm -f "$W/copy.raw"
    rm -f "$in" "$W/cpu.raw" "$W/gpu.raw"
    set -- $cpu
    cw=$1
    set -- $gpu
    gw=$1 gs=$2
    row=$(awk -v n="$name" -v px=$((s * s)) -v cw="$cw" -v gw="$gw" -v gs="$gs" -v b="$same" -v sz="${s}x$s" -v rd="$rd" -v wr="$wr" \
        'BEGIN{ r = gw - gs; fl = gs + wr; if (rd > fl) fl = rd
                printf "| %s, %s | %.1f M | %.3f | %.3f | %.3f | %s | %s | %.3f | %.3f | %.2fx faster | %.2f | %s |", n, sz, px/1e6, cw, gw, gs, rd, wr, fl, cw/5, cw/gw, (r > 0 ? px/r/1e9 : 0), b }')
    echo "$row"
    table="$table
$row"
done
echo
echo "$table"
[ -n "$MD" ] && echo "$table" >"$MD"
exit 0
