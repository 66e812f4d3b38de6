#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Benchmark of the .zst pipeline: `winent-stream in.raw out.zst`
# against `zstd -T<threads> -<level>` compressing the same float32 map alone,
# side by side in one run, on a landscape input and on random 0..15.
#
#   [WINENT_DEVICE=gpu] tools/bench-zst.sh [BUILD_DIR] [WxH] [THREADS] [LEVELS]
#
# Prints a markdown table; the ratio column is ours / zstd alone (target
# <= 1.1: reading and computing hide behind compression).
set -eu
B=${1:-build}
SIZE=${2:-8192x8192}
TH=${3:-$(nproc)}
LEVELS=${4:-"1 3"}
WS="$B/src/winent-stream --device ${WINENT_DEVICE:-cpu}"   # the CPU engine unless asked
MK="$B/tools/winent-mksample"
D=$(mktemp -d "${TMPDIR:-/tmp}/bench-zst.XXXXXX")
trap 'rm -rf "$D"' EXIT INT TERM
W=${SIZE%x*}
H=${SIZE#*x}

. "$(dirname "$0")/bench-lib.sh"

echo "machine: $(machine)"
echo "size: $SIZE u8, threads: $TH, levels: $LEVELS"
echo
echo "| input | level | frame rows | winent-stream in.raw out.zst (s) | zstd -T$TH alone (s) | ours / zstd | MB/s of map (ours) | ratio (ours) | ratio (zstd) |"
echo "|---|---|---|---|---|---|---|---|---|"
for kind in landscape uniform; do
    if [ $kind = landscape ]; then
        "$MK" --size "$SIZE" --dtype u8 --kind landscape --values 12 --seed 1 "$D/in.raw"
    else
        "$MK" --size "$SIZE" --dtype u8 --kind uniform --values 16 --seed 1 "$D/in.raw"
    fi
    $WS --quiet --threads "$TH" --size "$SIZE" --dtype u8 "$D/in.raw" "$D/map.raw"
    mapbytes=$(wc -c <"$D/map.raw")
    for L in $LEVELS; do
        for FR in ${FRAME_ROWS:-0}; do
            fr_opt=""
            [ "$FR" = 0 ] || fr_opt="--frame-rows $FR"
            sync
            t0=$(now)
            $WS --quiet --threads "$TH" --level "$L" $fr_opt --size "$SIZE" --dtype u8 \
                "$D/in.raw" "$D/out.zst"
            t1=$(now)
            zstd -q -f -T"$TH" -"$L" "$D/map.raw" -o "$D/copy.zst"
            t2=$(now)
            ours=$(secs "$t0" "$t1")
            alone=$(secs "$t1" "$t2")
            zo=$(wc -c <"$D/out.zst")
            zc=$(wc -c <"$D/copy.zst")
            frames=$($WS --info "$D/out.zst" | grep -o '"rows_per_frame": *[0-9]*' | grep -o '[0-9]*$' || echo "?")
            printf '| %s | %s | %s | %.2f | %.2f | %.2f | %.0f | %.2f | %.2f |\n' \
                "$kind" "$L" "$frames" "$ours" "$alone" "$(calc "$ours / $alone")" \
                "$(calc "$mapbytes / $ours / 1000000")" \
                "$(calc "$mapbytes / $zo")" "$(calc "$mapbytes / $zc")"
        done
    done
done
