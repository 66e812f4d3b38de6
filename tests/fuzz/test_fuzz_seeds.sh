#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The seed corpora of tests/fuzz/seeds.sh through each harness once (as
# files: fuzz_* replays them, libFuzzer binaries run them and exit).
. "$WINENT_SRC/tests/lib/cli_lib.sh"
sh "$WINENT_SRC/tests/fuzz/seeds.sh" "$T/seeds"
for f in tiff raw zst_info options zst_readers gdal gdal_doors; do
    if [ ! -x "$WINENT_FUZZ_BIN/fuzz_$f" ]; then
        echo "no fuzz_$f in this build (gdal, gdal_doors: built without GDAL): skipped"
        continue
    fi
    n=$(ls "$T/seeds/$f" | wc -l)
    check "seeds of $f ($n)" test "$n" -gt 3
    if "$WINENT_FUZZ_BIN/fuzz_$f" "$T/seeds/$f"/* >"$T/log" 2>&1; then
        ok
    else
        bad "fuzz_$f on its seeds"
        tail -n 40 "$T/log" >&2
    fi
done
finish
