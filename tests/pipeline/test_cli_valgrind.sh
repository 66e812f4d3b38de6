#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# No leaks, no invalid accesses: small runs under valgrind, successful and
# failing, raw and .zst output.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
need_python numpy
command -v valgrind >/dev/null || { echo "no valgrind: skipped"; exit 77; }
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"
"$PY" -c "
import numpy as np
np.random.default_rng(5).integers(0, 16, size=(70, 53), dtype=np.uint8).tofile('$T/in.raw')"
for out in o.raw o.zst; do
    expect_exit 0 "valgrind, $out" $VG "$WS" --quiet --threads 2 --mem 1M --frame-rows 16 \
        --size 53x70 --dtype u8 "$T/in.raw" "$T/$out"
done
head -c 1000 "$T/in.raw" >"$T/short.raw"
expect_exit 3 "valgrind, truncated input" $VG "$WS" --quiet --size 53x70 --dtype u8 \
    "$T/short.raw" "$T/o2.raw"
expect_exit 2 "valgrind, usage error" $VG "$WS" --window 0 "$T/in.raw" "$T/o3.raw"
finish
