#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench-alternate.sh - one winent-stream job on several engines, the engines
# alternated round by round, so that a machine's drift (the page cache, the
# disk's writeback, a neighbour) falls on every engine alike. Where two
# engines are within a few per cent, this is the comparison to trust over
# tools/bench-job.sh, which runs all of one engine's repeats before the
# next engine's. Given several builds (a tree before and after a change),
# every build runs every engine in each round, and the outputs of the
# first round must be the same bytes.
#
#   tools/bench-alternate.sh [--build DIR] [--rounds N] [--engines E1,E2,...]
#                            -- WINENT-STREAM-OPTIONS... IN OUT
#
#   --build DIRS    build folder(s) with src/winent-stream, comma-separated
#                   (default build); with several, each run is named
#                   bN/ENGINE, N the folder's place in the list (1 first)
#   --rounds N      rounds (default 5); each runs every engine once, in order
#   --engines LIST  --device of each engine, comma-separated (default cpu,auto;
#                   a device list inside one engine joins with +: 0+1)
#
# OUT `-` (standard output) goes to /dev/null (and no bytes are compared;
# across builds give a raw OUT: .zst and GeoTIFF headers name the version). Before each run the output
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
    --help | -h) sed -n '3,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; break ;;
    *) echo "bench-alternate.sh: unknown option $1 (--help)" >&2; exit 2 ;;
    esac
    shift
done
[ $# -ge 2 ] || { echo "bench-alternate.sh: give -- OPTIONS... IN OUT (--help)" >&2; exit 2; }
case $ROUNDS in '' | *[!0-9]* | 0) echo "bench-alternate.sh: --rounds: a whole number >= 1" >&2; exit 2 ;; esac
NB=0
for b in $(echo "$B" | tr , ' '); do
    [ -x "$b/src/winent-stream" ] || { echo "bench-alternate.sh: no $b/src/winent-stream (--build)" >&2; exit 2; }
    NB=$((NB + 1))
done
# The runs of a round: ENGINE, or bN/ENGINE with several builds.
RUNS=""
n=1
for b in $(echo "$B" | tr , ' '); do
    for E in $(echo "$ENGINES" | tr , ' '); do
        if [ "$NB" -gt 1 ]; then RUNS="$RUNS b$n/$E"; else RUNS="$RUNS $E"; fi
    done
    n=$((n + 1))
done
for OUTF; do :; done # the last argument: the output
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
. "$(dirname "$0")/bench-lib.sh"

r=1
while [ "$r" -le "$ROUNDS" ]; do
    for RUN in $RUNS; do
        E=${RUN#*/}
        case $RUN in
        b*/*) k=${RUN%%/*}; WS=$(echo "$B" | cut -d, -f"${k#b}")/src/winent-stream ;;
        *) WS=$B/src/winent-stream ;;
        esac
        D=$(echo "$E" | tr + ,)
        [ "$OUTF" = - ] || rm -f "$OUTF"
        sync
        t0=$(now_ms)
        "$WS" --stats --quiet --device "$D" "$@" 2>"$T/err" >/dev/null
        rc=$?
        t1=$(now_ms)
        stats=$(grep -o '"wall_s":[0-9.]*\|"setup_s":[0-9.]*\|"engine":"[^"]*"' "$T/err" | tr '\n' ' ')
        echo "round $r $RUN: $((t1 - t0)) ms, rc $rc, $stats" >&2
        [ "$rc" -eq 0 ] || { cat "$T/err" >&2; exit 1; }
        echo "$RUN $((t1 - t0))" >>"$T/walls"
        # The first round's outputs: every run the same bytes as the first.
        if [ "$r" -eq 1 ] && [ "$OUTF" != - ] && [ -f "$OUTF" ]; then
            if [ -f "$T/first" ]; then
                cmp -s "$T/first" "$OUTF" || { echo "bench-alternate.sh: $RUN wrote other bytes than the first run" >&2; exit 1; }
            else
                cp "$OUTF" "$T/first"
            fi
        fi
    done
    r=$((r + 1))
done

python3 - "$T/walls" "$(echo $RUNS | tr ' ' ,)" <<'EOF'
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
