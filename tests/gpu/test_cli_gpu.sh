#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The GPU engine inside the pipeline: --device gpu (every GPU) and each GPU
# alone give the CPU's bytes, across many chunks (small --mem) and formats,
# one map or several in one pass.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
"$WS" --quiet --device gpu --size 5x5 --dtype u8 "$WINENT_SRC/samples/course-5x5-u8.raw" \
    "$T/probe.raw" 2>/dev/null || { echo "no usable GPU: skipped"; exit 77; }
[ -x "$MK" ] || { echo "no winent-mksample: skipped"; exit 77; }
NG=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || echo 1)
devices="gpu 0"
[ "$NG" -gt 1 ] && devices="$devices 1 0,1"
run_case() { # name mksample-args -- winent-stream-args
    name=$1; shift
    mk=""
    while [ "$1" != "--" ]; do mk="$mk $1"; shift; done
    shift
    "$MK" $mk "$T/in.raw"
    # The same output name, in folders of their own: the header records the
    # command line (without --device and --mem, which must not change a
    # byte), so the files are the same byte for byte.
    mkdir -p "$T/cpu" "$T/gpu"
    (cd "$T/cpu" && "$WS" --quiet --device cpu "$@" "$T/in.raw" out.zst)
    for dev in $devices; do
        for mem in 8M 1G; do
            (cd "$T/gpu" && "$WS" --quiet --device "$dev" --mem $mem "$@" "$T/in.raw" out.zst)
            check "$name, device $dev, mem $mem" cmp -s "$T/cpu/out.zst" "$T/gpu/out.zst"
        done
    done
}
run_case "u8 0..15 5x5" --size 3001x2003 --dtype u8 --values 16 --seed 1 -- \
    --size 3001x2003 --dtype u8 --frame-rows 16
run_case "u8 landscape 31x31 base 2" --size 2048x1500 --dtype u8 --kind landscape --values 40 --seed 2 -- \
    --size 2048x1500 --dtype u8 --window 31 --base 2 --frame-rows 16
run_case "u16 65536 values 5x5" --size 1500x1200 --dtype u16 --values 65536 --seed 3 -- \
    --size 1500x1200 --dtype u16 --frame-rows 16
run_case "i32 landscape holes 7x3" --size 999x777 --dtype i32 --kind landscape --values 100000 --holes 0.1 --nodata -5 --seed 4 -- \
    --size 999x777 --dtype i32 --window 7x3 --nodata -5 --frame-rows 16
run_case "f32 bins 9x9" --size 1024x900 --dtype f32 --kind landscape --values 1000 --seed 5 -- \
    --size 1024x900 --dtype f32 --bins 64 --range 0:1000 --window 9 --frame-rows 16
# Several bands and windows in one pass: a GPU computes every map of the
# chunks it takes, and with cpu,0 of the tails of CPU chunks it takes over,
# as the CPU alone does.
for b in 1 2 3; do
    "$MK" --size 1501x1203 --dtype u8 --kind landscape --values $((10 * b)) --seed $b -
done >"$T/in3.raw"
M3="--size 1501x1203 --dtype u8 --bands 3 --band all --window 3,9,15 --frame-rows 16"
(cd "$T/cpu" && "$WS" --quiet --device cpu $M3 "$T/in3.raw" multi.zst)
for dev in $devices cpu,0; do
    # 40M: a GPU's context counts 128 MiB against --mem (a quarter is
    # left for the chunks), so many small chunks here too.
    for mem in 40M 1G; do
        (cd "$T/gpu" && "$WS" --quiet --device "$dev" --mem $mem $M3 "$T/in3.raw" multi.zst)
        check "3 bands x 3 windows, device $dev, mem $mem" cmp -s "$T/cpu/multi.zst" "$T/gpu/multi.zst"
    done
done
# auto within --mem: a GPU's context holds host memory of its own (128 MiB
# counted), so auto brings a GPU in only where that fits beside the chunks.
# 12 maps under --mem 128M stay on the CPU, within 128 + 64 MiB of peak
# resident memory (209 MiB before), and say why; with --mem 1G the same
# job takes the GPU. The same bytes either way. One thread: the CPU alone
# would take about 2 s, well past what makes auto bring a GPU in (0.8 s;
# with two threads the job sits at that edge and auto may not ask).
if [ -x /usr/bin/time ]; then
    for b in 1 2 3 4; do
        "$MK" --size 3000x3000 --dtype u8 --kind landscape --values $((8 + 4 * b)) --seed $b -
    done >"$T/big.raw"
    M12="--threads 1 --size 3000x3000 --dtype u8 --bands 4 --band all --window 3,5,9 --frame-rows 32"
    (cd "$T/cpu" && "$WS" --quiet --device cpu $M12 "$T/big.raw" big.zst)
    for mem in 128M 1G; do
        (cd "$T/gpu" && /usr/bin/time -f '%M' -o "$T/rss" "$WS" --stats --device auto --mem $mem \
            $M12 "$T/big.raw" big.zst 2>"$T/err")
        kib=$(tail -n 1 "$T/rss")
        engines=$(grep -o '"engine":"[^"]*"' "$T/err")
        echo "auto, --mem $mem, 12 maps: peak RSS $kib KiB, $engines"
        check "auto, --mem $mem: the CPU's bytes" cmp -s "$T/cpu/big.zst" "$T/gpu/big.zst"
        case $mem in
        128M)
            check "auto, --mem 128M: peak RSS $kib KiB < 192 MiB" test "$kib" -lt $((192 * 1024))
            check "auto, --mem 128M: the CPU alone ($engines)" test -z "$(echo "$engines" | grep gpu)"
            check "auto, --mem 128M: the notice says why" \
                grep -q "leaves no room beside the chunks for gpu0's context" "$T/err"
            ;;
        1G)
            check "auto, --mem 1G: a GPU computes ($engines)" test -n "$(echo "$engines" | grep gpu0)"
            ;;
        esac
    done
else
    echo "note: no /usr/bin/time: auto within --mem not checked"
fi
# Issue 31: a raw map to a file, written by the pool's threads at their
# offsets, holds the CPU's bytes on every GPU choice; a GPU list starts
# only those GPUs (CUDA_VISIBLE_DEVICES) and they keep the host's numbers.
"$MK" --size 2001x1703 --dtype u16 --values 65536 --seed 9 "$T/in31.raw"
R31="--size 2001x1703 --dtype u16 --window 31"
"$WS" --quiet --device cpu $R31 "$T/in31.raw" "$T/cpu31.raw"
for dev in $devices; do
    "$WS" --quiet --stats --device "$dev" --mem 64M $R31 "$T/in31.raw" "$T/gpu31.raw" 2>"$T/st31"
    check "raw map, device $dev: the CPU's bytes" cmp -s "$T/cpu31.raw" "$T/gpu31.raw"
    case "$dev" in
    [0-9] | [0-9][0-9]) check "device $dev: --stats names gpu$dev" grep -q "\"engine\":\"gpu$dev:" "$T/st31" ;;
    esac
done
finish
