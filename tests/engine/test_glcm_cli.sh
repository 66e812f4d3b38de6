#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The co-occurrence measures through the CLI (--measure glcm-*, --levels,
# --distance, --angles, --asymmetric): every map the GLCM engine's bits as
# tools/winent-glcm computes them on the whole band at once (the engine
# itself is held to a brute-force oracle by test_glcm and to scikit-image
# by test_glcm_skimage), whatever the chunks, bands and threads of the
# pipeline; beside the histogram measures in one pass; refused where a
# map would be wrong.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
GLCM="$WINENT_TOOLS/winent-glcm"
[ -x "$GLCM" ] && [ -x "$MK" ] || { echo "no winent-glcm or winent-mksample: skipped"; exit 77; }
R="--quiet --device cpu"
W=301 H=233
"$MK" --size ${W}x$H --dtype u8 --kind landscape --values 32 --seed 4 "$T/a.u8"
"$MK" --size ${W}x$H --dtype u16 --kind landscape --values 900 --holes 0.03 --nodata 0 \
    --seed 5 "$T/b.u16"
# same_maps NAME TOOL.f32 K RAW...: the tool's K planes, in order, = the raw maps' bits.
same_maps() {
    _sn=$1 _tool=$2; shift 3
    _i=0
    for _m in "$@"; do
        dd if="$_tool" of="$T/plane" bs=$((W * H * 4)) skip=$_i count=1 2>/dev/null
        cmp -s "$T/plane" "$_m" || { echo "$_sn: $_m differs from the engine's plane $_i" >&2; return 1; }
        _i=$((_i + 1))
    done
}
# case NAME MEASURES CLI-OPTIONS -- TOOL-OPTIONS: one pass of the CLI with
# --measure MEASURES, raw maps (NAME_b1_wK_MEASURE...raw), against the tool.
case_() {
    _n=$1 _ms=$2; shift 2
    _cli=""
    while [ "$1" != -- ]; do _cli="$_cli $1"; shift; done
    shift
    for t in 1 2; do
        "$WS" $R --threads $t $_cli --measure "$_ms" --format raw "$T/in" "$T/$_n-t$t.raw"
    done
    "$GLCM" "$@" --measure "$_ms" "$T/in" "$T/$_n.f32"
    _files=""
    for m in $(echo "$_ms" | tr , ' '); do
        _files="$_files $(ls "$T"/$_n-t1_*_"$m"*.raw)"
    done
    _k=$(echo "$_ms" | tr , '\n' | wc -l)
    check "$_n: $_k maps, the engine's bits" same_maps "$_n" "$T/$_n.f32" "$_k" $_files
    for f in "$T"/$_n-t1_*.raw; do
        check "$_n: 1 and 2 threads, the same bits ($f)" cmp -s "$f" "$(echo "$f" | sed 's/-t1_/-t2_/')"
    done
}
cp "$T/a.u8" "$T/in"
A="--size ${W}x$H --dtype u8"
case_ u8-15 glcm-entropy,glcm-contrast,glcm-correlation $A --window 15 -- $A --window 15
case_ u8-oblong glcm-homogeneity,glcm-cond-entropy,glcm-mutual-info \
    $A --window 9x5 --distance 2 --angles 0,90 --asymmetric -- \
    $A --window 9x5 --distance 2 --angles 0,90 --asymmetric
case_ u8-levels glcm-asm,glcm-energy,glcm-variance,glcm-cluster-shade,glcm-cluster-prominence \
    $A --window 7 --levels 8 --range 0:32 --base e -- $A --window 7 --levels 8 --range 0:32 --base e
cp "$T/b.u16" "$T/in"
B="--size ${W}x$H --dtype u16 --nodata 0"
case_ u16-nodata glcm-dissimilarity,glcm-mean $B --window 11 --levels 64 --range 0:900 -- \
    $B --window 11 --levels 64 --range 0:900

# Beside a histogram measure in one pass: each map as alone.
cp "$T/a.u8" "$T/in"
"$WS" $R $A --window 9 --measure entropy,glcm-entropy --format raw "$T/in" "$T/mix.raw"
"$WS" $R $A --window 9 --measure glcm-entropy --format raw "$T/in" "$T/alone.raw"
"$WS" $R $A --window 9 --format raw "$T/in" "$T/ent.raw"
check "glcm-entropy beside entropy = alone" cmp -s "$T/mix_b1_w9_glcm-entropy.raw" "$T/alone.raw"
check "entropy beside glcm-entropy = alone" cmp -s "$T/mix_b1_w9.raw" "$T/ent.raw"

# Maps of one window that share their pairs are computed in one pass (one
# pair count per angle for all of them): each map of that pass, between
# histogram measures and at two windows, has the bits of its own pass.
SH="glcm-contrast glcm-entropy glcm-asm glcm-mutual-info glcm-cluster-shade"
"$WS" $R $A --window 5,9 --threads 2 --measure \
    glcm-contrast,glcm-entropy,entropy,glcm-asm,glcm-mutual-info,glcm-cluster-shade \
    --format raw "$T/in" "$T/grp.raw"
for w in 5 9; do
    for m in $SH; do
        "$WS" $R $A --window $w --measure $m --format raw "$T/in" "$T/one.raw"
        check "$m at $w in a shared pass = alone" cmp -s "$T/grp_b1_w${w}_$m.raw" "$T/one.raw"
    done
    "$WS" $R $A --window $w --format raw "$T/in" "$T/one.raw"
    check "entropy at $w between shared maps = alone" cmp -s "$T/grp_b1_w$w.raw" "$T/one.raw"
done
cp "$T/b.u16" "$T/in"
"$WS" $R $B --window 7 --levels 64 --range 0:900 --distance 2 --angles 45,135 --asymmetric \
    --measure glcm-mean,glcm-cond-entropy,glcm-homogeneity --format raw "$T/in" "$T/grp16.raw"
for m in glcm-mean glcm-cond-entropy glcm-homogeneity; do
    "$WS" $R $B --window 7 --levels 64 --range 0:900 --distance 2 --angles 45,135 --asymmetric \
        --measure $m --format raw "$T/in" "$T/one.raw"
    check "$m of 16-bit values with nodata in a shared pass = alone" \
        cmp -s "$T/grp16_b1_w7_$m"*.raw "$T/one.raw"
done

# Refused before any output, with one line.
cp "$T/a.u8" "$T/in"
expect_exit 2 "a disk" "$WS" $R $A --disk 3 --measure glcm-asm "$T/in" "$T/x.raw"
expect_exit 2 "a negative measure as uint8" "$WS" $R $A --measure glcm-correlation --ot uint8 \
    "$T/in" "$T/x.tif"
expect_exit 2 "an angle of 30" "$WS" $R $A --angles 30 --measure glcm-asm "$T/in" "$T/x.raw"
expect_exit 2 "a distance of 0" "$WS" $R $A --distance 0 --measure glcm-asm "$T/in" "$T/x.raw"
expect_exit 2 "2000 levels" "$WS" $R $A --levels 2000 --measure glcm-asm "$T/in" "$T/x.raw"
cp "$T/b.u16" "$T/in"
expect_exit 2 "16-bit values without levels" "$WS" $R $B --measure glcm-asm "$T/in" "$T/x.raw"
check "no output from a refused run" sh -c "! ls '$T'/x.* 2>/dev/null | grep -q ."
finish
