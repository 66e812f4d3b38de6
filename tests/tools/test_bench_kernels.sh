#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# winent-bench kernels on the CPU alone, tiny: exit 0, a `cell` line per
# cell, the CPU table with both windows and both value sets, the GPU tables
# said to be skipped, the CSV; windows of any sides; bad lists are usage
# errors (exit 2).
. "$WINENT_SRC/tests/lib/cli_lib.sh"
B="$WINENT_TOOLS/winent-bench"

"$B" kernels --cpu-only --size 256x64 --windows 3,31 --sets 16,1e6 --budget 0.01 \
    --csv "$T/k.csv" >"$T/out" 2>"$T/err" || bad "exit $?: $(head -c 300 "$T/err")"
check "CPU table" grep -q '^## CPU engine' "$T/out"
check "CPU table header: both windows" grep -qx '| set | 3x3 | 31x31 |' "$T/out"
check "CPU table row: set 16, two rates" grep -qx '| 16 | [0-9.]* | [0-9.]* |' "$T/out"
check "CPU table row: set 1e6, two rates" grep -qx '| 1e6 | [0-9.]* | [0-9.]* |' "$T/out"
check "a cell line per cell (4)" \
    [ "$(grep -c '^cell set=\(16\|1e6\) k=\(3\|31\) variant=cpu path=.* gpix=[0-9.]* ms=[0-9.]* rows=[0-9]* check=skipped$' "$T/out")" -eq 4 ]
check "GPU tables said to be skipped" grep -q '^GPU tables skipped' "$T/out"
check "no GPU table" sh -c "! grep -q '^## GPU' '$T/out'"
check "CSV: a header and 4 rows" [ "$(wc -l <"$T/k.csv")" -eq 5 ]
check "nothing on stderr" [ ! -s "$T/err" ]

# The 64-class landscape and a real file (raw here: --input-size, --input-dtype),
# with the path each cell's CPU engine took.
"$WINENT_TOOLS/winent-mksample" --size 40x30 --dtype u16 --kind landscape --values 200 \
    "$T/in.u16" || bad "winent-mksample failed"
"$B" kernels --cpu-only --size 128x64 --windows 5,31 --sets 64,real --input "$T/in.u16" \
    --input-size 40x30 --input-dtype u16 --budget 0.01 --cpu-time >"$T/out2" 2>"$T/err2" ||
    bad "exit $?: $(head -c 300 "$T/err2")"
check "set 64: a row" grep -qx '| 64 | [0-9.]* | [0-9.]* |' "$T/out2"
check "set real: a row" grep -qx '| real | [0-9.]* | [0-9.]* |' "$T/out2"
check "--cpu-time said" grep -q "CPU timed by the process.s CPU time" "$T/out2"
check "set real: the file named" grep -q '^# real: .*in.u16, 40x30 u16' "$T/out2"
check "cells name the CPU path" \
    [ "$(grep -c '^cell set=\(64\|real\) k=\(5\|31\) variant=cpu path=cpu/t[0-9]*/\(slide\|few\|cols64\|cols256\|cmp\) ' "$T/out2")" -eq 4 ]

# Windows of either parity and rectangles, as the library takes them
# (WxH: W wide, H high), beside a disk: a cell and a column each.
"$B" kernels --cpu-only --size 64x32 --windows 4,7x3,4x6,disk2 --sets 16 --budget 0.01 \
    --csv "$T/e.csv" >"$T/out3" 2>"$T/err3" || bad "exit $?: $(head -c 300 "$T/err3")"
check "even and rectangular windows: the table's columns" \
    grep -qx '| set | 4x4 | 7x3 | 4x6 | disk2 |' "$T/out3"
check "even and rectangular windows: a cell each" \
    [ "$(grep -c '^cell set=16 k=\(4\|7x3\|4x6\|5\) variant=cpu ' "$T/out3")" -eq 4 ]
check "the disk's cell says its shape" grep -q '^cell set=16 k=5 .* shape=disk$' "$T/out3"
check "CSV: the windows' keys" [ "$(cut -d, -f2 "$T/e.csv" | tr '\n' ' ')" = "k 4 7x3 4x6 -5 " ]

EXPECT_PROG="winent-bench kernels"
expect_exit 2 "set real without --input" "$B" kernels --cpu-only --sets real
expect_exit 2 "bad --input-dtype" "$B" kernels --cpu-only --input x --input-dtype u12
expect_exit 2 "a side of 0" "$B" kernels --cpu-only --windows 3,4x0
expect_exit 2 "a side of 256" "$B" kernels --cpu-only --windows 256
expect_exit 2 "a window of no height" "$B" kernels --cpu-only --windows 3x
expect_exit 2 "unknown value set" "$B" kernels --cpu-only --sets 16,17
expect_exit 2 "unknown variant" "$B" kernels --cpu-only --variants auto,bogus
expect_exit 2 "empty list item" "$B" kernels --cpu-only --windows 3,,5
expect_exit 2 "budget 0" "$B" kernels --cpu-only --budget 0
expect_exit 2 "size without height" "$B" kernels --cpu-only --size 256
expect_exit 0 "--help" "$B" kernels --help
check "--help prints the usage" grep -q '^usage: winent-bench kernels' "$T/stdout"
finish
