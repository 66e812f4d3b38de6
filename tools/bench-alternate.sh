#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench-alternate.sh - one winent-stream job on several engines, the engines
# alternated round by round, so that a machine's drift (the page cache, the
# disk's writeback, a neighbour) falls on every engine alike. Where two
# engines are within a few per cent, this is the comparison to trust over
# tools/bench-job.sh, which runs all of one engine's repeats before the
# next engine's.
#
#   tools/bench-alternate.sh [--build DIR] [--rounds N] [--engines E1,E2,...]
#                            -- WINENT-STREAM-OPTIONS... IN OUT
#
#   --build DIR     build folder with src/winent-stream (default build)
#   --rounds N      rounds (default 5); each runs every engine once, in order
#   --engines LIST  --device of each engine, comma-separated (default cpu,auto;
#                   a device list inside one engine joins with +: 0+1)
#
# OUT `-` (standard output) goes to /dev/null. Before each run the output
# is removed and `sync` flushes what an earlier run left dirty. Each run's
# line on standard error: round, engine, the process's wall clock (ms,
# start to exit), and the job's --stats wall_s, setup_s and engine split.
# Last, on standard output, a Markdown table: each engine's fastest,
# median and slowest process wall, and the median against the engine with
# the lowest median.
set -u
B=build
ROUNDS=5
ENGINES=cpu,auto
while [ $# -gt 0 ]; do
    case $1 in
    --build) B=${2:?}; shift ;;
    --rounds) ROUNDS=${2:?}; shift ;;
    --engines) ENGINES=${2:?}; shift ;;
    --help | -h) sed -n '3,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; break ;;
    *) echo "bench-alternate.sh: unknown option $1 (--help)" >&2; exit 2 ;;
    esac
    shift
done
[ $# -ge 2 ] || { echo "bench-alternate.sh: give -- OPTIONS... IN OUT (--help)" >&2; exit 2; }
case $ROUNDS in '' | *[!0-9]* | 0) echo "bench-alternate.sh: --rounds: a whole number >= 1" >&2; exit 2 ;; esac
WS=$B/src/winent-stream
[ -x "$WS" ] || { echo "bench-alternate.sh: no $WS (--build)" >&2; exit 2; }
for OUTF; do :; done # the last argument: the output
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
. "$(dirname "$0")/bench-lib.sh"

r=1
while [ "$r" -le "$ROUNDS" ]; do
    for E in $(echo "$ENGINES" | tr , ' '); do
        D=$(echo "$E" | tr + ,)
        [ "$OUTF" = - ] || rm -f "$OUTF"
        sync
        t0=$(now_ms)
        "$WS" --stats --quiet --device "$D" "$@" 2>"$T/err" >/dev/null
        rc=$?
        t1=$(now_ms)
        stats=$(grep -o '"wall_s":[0-9.]*\|"setup_s":[0-9.]*\|"engine":"[^"]*"' "$T/err" | tr '\n' ' ')
        echo "round $r $E: $((t1 - t0)) ms, rc $rc, $stats" >&2
        [ "$rc" -eq 0 ] || { cat "$T/err" >&2; exit 1; }
        echo "$E $((t1 - t0))" >>"$T/walls"
    done
    r=$((r + 1))
done

python3 - "$T/walls" "$ENGINES" <<'EOF'
import statistics, sys
walls = {}
for line in open(sys.argv[1]):
    e, ms = line.split()
    walls.setdefault(e, []).append(int(ms) / 1000)
order = sys.argv[2].split(",")
med = {e: statistics.median(walls[e]) for e in order}
best = min(order, key=lambda e: med[e])
print("| engine | fastest s | median s | slowest s | median vs %s |" % best)
print("|---|---|---|---|---|")
for e in order:
    w = walls[e]
    print("| %s | %.3f | %.3f | %.3f | %+.0f %% |"
          % (e, min(w), med[e], max(w), 100 * (med[e] / med[best] - 1)))
EOF
