#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tools/bench-alternate.sh on a tiny image: the engines alternate round by
# round (the progress lines in order), the table has a row per engine with
# its fastest <= median <= slowest, the output is the job's (the CLI's
# bytes), and bad arguments exit 2. Two builds (a tree before and after a
# change): each runs each engine in every round, and a build that writes
# other bytes stops the run.
. "$WINENT_SRC/tests/lib/cli_lib.sh"

mkdir -p "$T/b/src"
ln -s "$WS" "$T/b/src/winent-stream"
"$MK" --size 96x64 --dtype u8 --kind landscape --values 12 --seed 3 "$T/in.raw" || bad "winent-mksample failed"
sh "$WINENT_SRC/tools/bench-alternate.sh" --build "$T/b" --rounds 2 --engines cpu,auto -- \
    --size 96x64 --dtype u8 --threads 2 "$T/in.raw" "$T/out.raw" >"$T/table.md" 2>"$T/progress" ||
    bad "bench-alternate.sh exited $?: $(tail -5 "$T/progress")"
check "the rounds alternate the engines" sh -c \
    "sed 's/:.*//' '$T/progress' | tr '\n' ',' | grep -qx 'round 1 cpu,round 1 auto,round 2 cpu,round 2 auto,'"
check "each run's line has the job's --stats" sh -c "[ \$(grep -c '\"wall_s\":' '$T/progress') -eq 4 ]"
check "a row per engine, fastest <= median <= slowest" "$PY" -c "
import sys
rows = [l.split('|')[1:-1] for l in open('$T/table.md') if l.startswith('| ') and not l.startswith('| engine')]
assert [r[0].strip() for r in rows] == ['cpu', 'auto'], rows
for r in rows:
    lo, med, hi = (float(x) for x in r[1:4])
    assert 0 < lo <= med <= hi, r
"
"$WS" --quiet --size 96x64 --dtype u8 "$T/in.raw" "$T/ref.raw" || bad "the CLI failed"
check "the output is the job's" cmp -s "$T/out.raw" "$T/ref.raw"
mkdir -p "$T/c/src"
ln -s "$WS" "$T/c/src/winent-stream"
sh "$WINENT_SRC/tools/bench-alternate.sh" --build "$T/b,$T/c" --rounds 2 --engines cpu -- \
    --size 96x64 --dtype u8 --threads 2 "$T/in.raw" "$T/out.raw" >"$T/table2.md" 2>"$T/progress2" ||
    bad "bench-alternate.sh with two builds exited $?: $(tail -5 "$T/progress2")"
check "two builds alternate in each round" sh -c \
    "sed 's/:.*//' '$T/progress2' | tr '\n' ',' | grep -qx 'round 1 b1/cpu,round 1 b2/cpu,round 2 b1/cpu,round 2 b2/cpu,'"
check "a row per build and engine" sh -c "grep -q '^| b1/cpu |' '$T/table2.md' && grep -q '^| b2/cpu |' '$T/table2.md'"
# A "build" whose program writes other bytes (a window of 3, not 9).
mkdir -p "$T/d/src"
printf '#!/bin/sh\nexec "%s" --window 3 "$@"\n' "$WS" >"$T/d/src/winent-stream"
chmod +x "$T/d/src/winent-stream"
check "a build writing other bytes: exit 1, said" sh -c "sh '$WINENT_SRC/tools/bench-alternate.sh' --build '$T/b,$T/d' --rounds 1 --engines cpu -- --size 96x64 --dtype u8 '$T/in.raw' '$T/out.raw' >/dev/null 2>'$T/progress3'; [ \$? -eq 1 ] && grep -q 'other bytes' '$T/progress3'"
check "no input and output: exit 2" sh -c "sh '$WINENT_SRC/tools/bench-alternate.sh' --build '$T/b' -- x 2>/dev/null; [ \$? -eq 2 ]"
check "an unknown option: exit 2" sh -c "sh '$WINENT_SRC/tools/bench-alternate.sh' --frob 2>/dev/null; [ \$? -eq 2 ]"
check "--rounds 0: exit 2" sh -c "sh '$WINENT_SRC/tools/bench-alternate.sh' --build '$T/b' --rounds 0 -- a b 2>/dev/null; [ \$? -eq 2 ]"
finish
