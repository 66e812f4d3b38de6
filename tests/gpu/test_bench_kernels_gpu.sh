#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# winent-bench kernels --quick on a GPU: every GPU measurement checked bit
# for bit against the CPU engine (none DIFFERS), a measurement in every
# cell, the GPU, variant, CPU, ratio and roofline tables. Skipped (77)
# where no GPU is usable.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
B="$WINENT_TOOLS/winent-bench"
"$B" gpu-init >/dev/null 2>&1 || { echo "no usable GPU: skipped"; exit 77; }

set +e
"$B" kernels --quick --csv "$T/k.csv" >"$T/out" 2>"$T/err"
rc=$?
set -e
check "exit 0 (got $rc: $(head -c 500 "$T/err"))" [ "$rc" -eq 0 ]
check "no GPU output DIFFERS from the CPU engine's" sh -c "! grep -q DIFFERS '$T/out' '$T/err'"
for s in 16 65536 f32-4096; do
    for k in 3 15 63; do
        check "set $s, $k x $k: a GPU measurement, checked" \
            grep -q "^cell set=$s k=$k variant=[a-z]* path=.* check=ok$" "$T/out"
    done
done
for t in '## GPU kernel alone' '## Winning GPU variant' '## CPU engine' '## GPU / CPU' \
    '## Roofline'; do
    check "table: $t" grep -q "^$t" "$T/out"
done
check "GPU table header" grep -qx '| set | 3x3 | 15x15 | 63x63 |' "$T/out"
check "CSV: a row per measurement" \
    [ "$(($(wc -l <"$T/k.csv") - 1))" -eq "$(grep -c '^cell ' "$T/out")" ]
sed -n '/^## /,$p' "$T/out"
finish
