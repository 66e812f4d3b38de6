#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every measure on the GPU engine gives the CPU engine's bytes through the
# CLI (--device gpu against --device cpu, cmp): the histogram measures
# (renyi, simpson, richness, evenness, majority) on square, rectangular,
# disk and wide windows, and the co-occurrence (glcm-*) measures, on random
# u8, u16 with nodata, and floats with --bins/--levels; several chunks
# (small --mem) and several measures in one pass. The majority's tables
# (direct, hashed in shared memory, hashed in global memory for the
# widest windows) each meet the CPU's bytes.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
"$WS" --quiet --device gpu --size 5x5 --dtype u8 "$WINENT_SRC/samples/course-5x5-u8.raw" \
    "$T/probe.raw" 2>/dev/null || { echo "no usable GPU: skipped"; exit 77; }
[ -x "$MK" ] || { echo "no winent-mksample: skipped"; exit 77; }
mkdir -p "$T/cpu" "$T/gpu"
# same NAME INPUT winent-stream-args...: the map of each device, byte for
# byte (the .zst header records the command line but --device and --mem);
# small frames, so that a small --mem ($MEMS) cuts the image into many
# chunks.
same() {
    name=$1 in=$2
    shift 2
    (cd "$T/cpu" && "$WS" --quiet --device cpu --frame-rows 16 "$@" "$in" out.zst)
    for mem in $MEMS; do
        if (cd "$T/gpu" && "$WS" --quiet --device gpu --mem $mem --frame-rows 16 "$@" "$in" \
            out.zst); then
            check "$name, mem $mem" cmp -s "$T/cpu/out.zst" "$T/gpu/out.zst"
        else
            bad "$name, mem $mem: the GPU job failed"
        fi
    done
}
MEMS="8M 1G"
HIST="renyi:2 renyi:0.5 renyi:0 simpson richness evenness majority"
GLCM="glcm-entropy glcm-asm glcm-energy glcm-contrast glcm-dissimilarity glcm-homogeneity
glcm-correlation glcm-mean glcm-variance glcm-cluster-shade glcm-cluster-prominence
glcm-cond-entropy glcm-mutual-info"

"$MK" --size 1031x707 --dtype u8 --values 40 --seed 11 "$T/u8.raw"
"$MK" --size 911x613 --dtype u16 --values 4096 --holes 0.1 --nodata 7 --seed 12 "$T/u16.raw"
"$MK" --size 811x517 --dtype f32 --kind landscape --values 1000 --holes 0.05 --seed 13 "$T/f32.raw"
U8="--size 1031x707 --dtype u8"
U16="--size 911x613 --dtype u16 --nodata 7"
F32="--size 811x517 --dtype f32"

for m in $HIST; do
    same "u8 $m 7x7" "$T/u8.raw" $U8 --window 7 --measure $m
    same "u8 $m 9x5" "$T/u8.raw" $U8 --window 9x5 --measure $m
    same "u8 $m disk 4" "$T/u8.raw" $U8 --disk 4 --measure $m
    same "u8 $m 31x31" "$T/u8.raw" $U8 --window 31 --measure $m
    same "u16 nodata $m 5x5" "$T/u16.raw" $U16 --window 5 --measure $m
    same "u16 nodata $m 15x15" "$T/u16.raw" $U16 --window 15 --measure $m
    same "u16 nodata $m disk 3" "$T/u16.raw" $U16 --disk 3 --measure $m
    same "f32 bins $m 11x11" "$T/f32.raw" $F32 --bins 64 --range 0:1000 --window 11 --measure $m
done
# Small windows of few values (the kernels of 8-bit codes below 16) and a
# window wider than the image.
"$MK" --size 300x200 --dtype u8 --values 12 --seed 14 "$T/few.raw"
for m in simpson richness evenness renyi:2 majority; do
    same "u8 12 values $m 3x3" "$T/few.raw" --size 300x200 --dtype u8 --window 3 --measure $m
    same "u8 12 values $m 5x5" "$T/few.raw" --size 300x200 --dtype u8 --window 5 --measure $m
    same "u8 12 values $m 255x255" "$T/few.raw" --size 300x200 --dtype u8 --window 255 \
        --measure $m
done
for m in $GLCM; do
    same "u8 $m 5x5" "$T/u8.raw" $U8 --window 5 --measure $m
    same "u8 levels 32 $m 15x15 angle 0" "$T/u8.raw" $U8 --levels 32 --range 0:40 --window 15 \
        --angles 0 --measure $m
    same "u16 nodata levels 64 $m 7x5 d2" "$T/u16.raw" $U16 --levels 64 --range 0:4096 \
        --window 7x5 --distance 2 --measure $m
    same "f32 levels 16 $m 9x9 asymmetric" "$T/f32.raw" $F32 --levels 16 --range 0:1000 \
        --window 9 --asymmetric --measure $m
done
# Several measures and windows in one pass (10 maps: more memory).
MEMS="40M 1G"
same "u8 several measures" "$T/u8.raw" $U8 --levels 32 --range 0:40 --window 5,15 \
    --measure entropy,simpson,richness,glcm-contrast,glcm-entropy
# Every co-occurrence measure in one GPU pass (13 planes of one engine).
same "u16 nodata every glcm measure in one pass 7x5 d2" "$T/u16.raw" $U16 --levels 64 \
    --range 0:4096 --window 7x5 --distance 2 --measure "$(echo $GLCM | tr ' ' ',')"
# The majority's other tables: hashed keys (floats in 8192 bins; 16-bit
# values without a nodata), an even-sided box, and a window whose hash table
# passes shared memory (global tables); beside other maps in one pass.
same "f32 8192 bins majority 9x9" "$T/f32.raw" $F32 --bins 8192 --range 0:1000 --window 9 \
    --measure majority
same "u16 majority 8x6" "$T/u16.raw" --size 911x613 --dtype u16 --window 8x6 --measure majority
same "u16 nodata majority 101x101" "$T/u16.raw" $U16 --window 101 --measure majority
same "u8 majority beside glcm-asm" "$T/u8.raw" $U8 --levels 16 --range 0:40 --window 7 \
    --measure glcm-asm,majority,entropy
(cd "$T/cpu" && "$WS" --quiet --device cpu $U8 --measure majority "$T/u8.raw" maj.zst)
(cd "$T/gpu" && "$WS" --quiet --device auto $U8 --measure majority "$T/u8.raw" maj.zst)
check "majority under auto" cmp -s "$T/cpu/maj.zst" "$T/gpu/maj.zst"
finish
