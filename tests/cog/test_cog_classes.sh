#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The overviews of a class map (docs/SPEC.md, "Overviews"): a COG of
# --measure majority has overviews that are the recursive 2x2 mode of its
# full resolution, read back through GDAL and checked against numpy
# (tests/cog/cog_classes.py), every value one of the map's classes, and
# says RESAMPLING=MODE; as one band among several the rule is the band's
# own, and the entropy band beside it keeps the means, bit for bit those
# of an entropy-only COG. Every --ot, nodata, odd sizes, tiles where
# levels lie above the tile's inner ones, threads that put the overviews
# in place or through partials: the same bytes; a .zst decoded to a COG.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
command -v gdalinfo >/dev/null 2>&1 || { echo "no GDAL tools: skipped"; exit 77; }
need_python numpy osgeo.gdal
[ -x "$MK" ] || { echo "no winent-mksample: skipped"; exit 77; }
CC="$WINENT_SRC/tests/cog/cog_classes.py"
CHK="$WINENT_SRC/tests/cog/cog_check.py"
RUN="--quiet --device cpu"

"$MK" --size 1037x777 --dtype u8 --kind landscape --values 7 --holes 0.1 --nodata 0 --seed 4 \
    "$T/a.u8"
A="--size 1037x777 --dtype u8 --nodata 0 $T/a.u8"
"$MK" --size 601x1203 --dtype f32 --kind landscape --values 9 --holes 0.3 --seed 5 "$T/b.f32"
B="--size 601x1203 --dtype f32 --bins 16 --range 0:9 $T/b.f32"

# mode_case NAME OPTS...: band 1 of NAME.tif is the 2x2 mode, level by level.
mode_case() {
    _n=$1
    shift
    "$WS" $RUN --measure majority "$@" "$T/$_n.tif"
    check "$_n: overviews are the 2x2 mode of the classes" "$PY" "$CC" mode "$T/$_n.tif" 1
}

# Levels above the tile's inner ones (48 = 16 x 3: four inner levels).
mode_case u8_f32_t48 --window 5 --tile 48 $A
# All levels inside a tile; an integer output's codes (u8 classes in uint16).
mode_case u8_u16_t64 --window 5 --tile 64 --ot uint16 $A
mode_case u8_f16 --window 7x3 --tile 32 --ot float16 $A
# Bins' centres in uint8 codes (bins narrower than a code step merge as
# the file stores them), NaN holes, a tall odd image, a disk.
mode_case bins_u8 --window 9 --tile 48 --ot uint8 $B
mode_case bins_disk --disk 3 --tile 16 $B

# The same bytes however the overviews were made: one thread (each
# tile's levels through its partial) or several (put in place).
"$WS" $RUN --threads 1 --measure majority --window 5 --tile 48 $A "$T/t1.tif"
"$WS" $RUN --threads 3 --measure majority --window 5 --tile 48 $A "$T/t3.tif"
check "one thread or three: the same overviews" "$PY" "$CC" same-ovr "$T/t1.tif" 1 "$T/t3.tif" 1

# Several measures: the rule is each band's.
"$WS" $RUN --measure entropy,majority --window 5 --tile 48 $A "$T/two.tif"
"$WS" $RUN --measure entropy --window 5 --tile 48 $A "$T/ent.tif"
"$WS" $RUN --measure majority --window 5 --tile 48 $A "$T/maj.tif"
check "entropy,majority: band 2 by the mode" "$PY" "$CC" mode "$T/two.tif" 2
check "entropy,majority: band 1 says AVERAGE" "$PY" "$CC" mean-band "$T/two.tif" 1
check "entropy,majority: band 1 = the entropy-only COG's overviews" \
    "$PY" "$CC" same-ovr "$T/two.tif" 1 "$T/ent.tif" 1
check "entropy,majority: band 2 = the majority-only COG's overviews" \
    "$PY" "$CC" same-ovr "$T/two.tif" 2 "$T/maj.tif" 1
check "entropy: the block means" "$PY" "$CHK" overviews "$T/ent.tif" 48
check "entropy: says AVERAGE" "$PY" "$CC" mean-band "$T/ent.tif" 1

# A .zst decoded to a COG (--decode): its header names each map's
# measure, which decides its overviews (and its description, and the
# scale of integer codes: a majority's classes past the entropy's top
# were clamped to it).
"$WS" $RUN --measure entropy,majority --window 5 $A "$T/two.zst"
"$WS" $RUN --decode --tile 48 "$T/two.zst" "$T/two-dec.tif"
check "--decode: band 2 by the mode" "$PY" "$CC" mode "$T/two-dec.tif" 2
check "--decode: band 2 = the direct COG's overviews" \
    "$PY" "$CC" same-ovr "$T/two-dec.tif" 2 "$T/two.tif" 2
check "--decode: band 1 = the direct COG's overviews" \
    "$PY" "$CC" same-ovr "$T/two-dec.tif" 1 "$T/two.tif" 1
"$WS" $RUN --measure majority --window 5 $A "$T/maj.zst"
"$WS" $RUN --decode --tile 48 --ot uint16 "$T/maj.zst" "$T/maj-dec16.tif"
check "--decode --ot uint16: the mode of the codes" "$PY" "$CC" mode "$T/maj-dec16.tif" 1
check "--decode --ot uint16: the classes, not clamped to an entropy's top" \
    "$PY" "$CC" close "$T/maj-dec16.tif" "$T/maj.tif"
finish
