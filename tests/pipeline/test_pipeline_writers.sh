#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Several writers: a raw map to a file is written by the pool's
# threads at the rows' offsets, in any order; the bytes are those of the
# one ordered writer (a pipe) and of one thread, across many chunks (small
# --mem), one map or several. A memory job's staging is covered by the API
# tests (winent_entropy, auto). The job's timeline (WINENT_TRACE) names
# every lane and writes each chunk once.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
[ -x "$MK" ] || { echo "no winent-mksample: skipped"; exit 77; }
"$MK" --size 1537x1999 --dtype u16 --values 300 --seed 7 "$T/in.raw"
IO="--size 1537x1999 --dtype u16 --window 9"
"$WS" --quiet --device cpu --threads 1 $IO "$T/in.raw" - | cat >"$T/pipe.raw"
for th in 1 2 7; do
    for mem in 8M 1G; do
        "$WS" --quiet --device cpu --threads $th --mem $mem $IO "$T/in.raw" "$T/file.raw"
        check "raw file, $th threads, --mem $mem: the pipe's bytes" cmp -s "$T/pipe.raw" "$T/file.raw"
    done
done
# Every map of a pass, each to a file of its own, by offset.
"$WS" --quiet --device cpu --threads 3 --mem 8M $IO --window 3,9 "$T/in.raw" "$T/multi.raw"
"$WS" --quiet --device cpu --threads 1 $IO --window 3 "$T/in.raw" - | cat >"$T/w3.raw"
check "two maps: the 3x3 one" cmp -s "$T/w3.raw" "$T/multi_b1_w3.raw"
check "two maps: the 9x9 one" cmp -s "$T/pipe.raw" "$T/multi_b1_w9.raw"
# A file size limit mid-map (several writers hit it): the one-line error,
# naming the limit, and no file left behind.
expect_exit 4 "raw file over the size limit" sh -c 'ulimit -f 2048; exec "$@"' sh "$WS" --quiet \
    --device cpu --threads 3 --mem 8M $IO "$T/in.raw" "$T/big.raw"
check "the limit is named" grep -q 'ulimit -f' "$T/stderr"
check "no file left after the failure" sh -c "! ls '$T' | grep -q big"
# A write that fails in the pool stops the job before its chunk counts as
# done: the writer never commits the map over an old file (one chunk, so
# the failing piece is the last one's; several tries for the race).
echo old >"$T/old.raw"
for try in 1 2 3 4 5; do
    expect_exit 4 "size limit, an old file ($try)" sh -c 'ulimit -f 4; exec "$@"' sh "$WS" --quiet \
        --device cpu --threads 4 --size 300x200 --dtype u16 "$T/in.raw" "$T/old.raw"
    check "the old file kept ($try)" grep -qx old "$T/old.raw"
done
# The timeline: a CSV with the reader, the writer and the CPU's lane, and
# every chunk written once.
WINENT_TRACE="$T/trace.csv" "$WS" --quiet --device cpu --threads 2 --mem 8M $IO "$T/in.raw" "$T/t.raw"
check "trace: a header" grep -q '^lane,name,event,seq,t_ms$' "$T/trace.csv"
for lane in reader writer cpu; do
    check "trace: lane $lane" grep -q "^[0-9]*,$lane," "$T/trace.csv"
done
chunks=$(grep -c ',writer,written,' "$T/trace.csv")
distinct=$(grep ',writer,written,' "$T/trace.csv" | cut -d, -f4 | sort -u | wc -l)
check "trace: several chunks, each written once ($chunks)" test "$chunks" -gt 3 -a "$chunks" -eq "$distinct"
check "trace: tools/trace-summary.py reads it" sh -c \
    "'$PY' '$WINENT_SRC/tools/trace-summary.py' '$T/trace.csv' | grep -q '^| cpu |'"
finish
