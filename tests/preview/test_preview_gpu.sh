#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# --preview with the GPU computing (its chunks go to the preview as slices
# after compute, not by band): the same PNG and output as the CPU's, with
# the GPU alone, the CPU and the GPU together, many chunks or few. Skipped
# (77) where no GPU is usable.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
"$WS" --quiet --device gpu --size 5x5 --dtype u8 "$WINENT_SRC/samples/course-5x5-u8.raw" \
    "$T/probe.raw" 2>/dev/null || { echo "no usable GPU: skipped"; exit 77; }
"$MK" --size 3001x2003 --dtype u8 --kind landscape --values 40 --holes 0.1 --nodata 0 \
    "$T/in.u8"
# Two workers, 256M: the preview's scratch per worker (a unit's column sums)
# makes the smallest --mem grow with the thread count, and with a GPU its
# context (128 MiB) counts too: at 64M a GPU job with a preview is refused.
IN="--quiet --threads 2 --size 3001x2003 --dtype u8 --nodata 0 --window 9"
# The same names in folders of their own: the .zst header records the
# command line (without --device and --mem), so the bytes are the same.
mkdir -p "$T/cpu" "$T/g"
(cd "$T/cpu" && "$WS" $IN --device cpu --preview p.png "$T/in.u8" out.zst)
for dev in gpu cpu,0; do
    for mem in 256M 1G; do
        (cd "$T/g" && "$WS" $IN --device $dev --mem $mem --preview p.png "$T/in.u8" out.zst)
        check "device $dev, mem $mem: the CPU's output" cmp -s "$T/cpu/out.zst" "$T/g/out.zst"
        check "device $dev, mem $mem: the CPU's preview" cmp -s "$T/cpu/p.png" "$T/g/p.png"
    done
done
finish
