#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# run.sh BUILD [SECONDS]: run the libFuzzer harnesses (tiff, raw, zst_info,
# options, zst_readers, and gdal and gdal_doors where GDAL is built in) of a WINENT_FUZZ
# build, SECONDS each (default 20, or WINENT_FUZZ_SECONDS), from the seed
# corpora (seeds.sh) in a temporary folder: nothing grown by fuzzing lands
# in the tree. Ends with "fuzz: N passed, M failed".
#
# A harness is one process on one core for its SECONDS, so they run
# WINENT_FUZZ_JOBS at a time (default WINENT_JOBS, else the cores):
# each still has a core of its own for its whole time, and a 2-core
# machine is not left with one core idle. Their reports are printed in
# the order above.
#
# A crash, leak, sanitizer report, timeout (over 10 s on one input) or
# out-of-memory (over 2 GiB) fails its fuzzer; the input that did it is kept
# under BUILD/fuzz-artifacts/ and the log under BUILD/fuzz-logs/ (the tail
# is printed). docs/FUZZING.md says how to run them for hours and how a
# crash becomes a regression test.
#
#   WINENT_FUZZ_ONLY="tiff raw"   run only these
#   WINENT_FUZZ_CORPUS=DIR        keep and reuse corpora in DIR/NAME
set -u
B=$(cd "$1" && pwd)
S=${2:-${WINENT_FUZZ_SECONDS:-20}}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
F="$B/tests"
LOGS="$B/fuzz-logs"
ART="$B/fuzz-artifacts"
mkdir -p "$LOGS" "$ART"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT INT TERM
WINENT_BIN="$B/src" sh "$SRC/tests/fuzz/seeds.sh" "$W/seeds" || {
    echo "fuzz: cannot make the seed corpora"
    exit 1
}
# fuzz_one NAME: one harness for $S seconds; its report in $W/report-NAME,
# its exit status in $W/rc-NAME.
fuzz_one() {
    _f=$1
    if [ -n "${WINENT_FUZZ_CORPUS:-}" ]; then
        _c="$WINENT_FUZZ_CORPUS/$_f"
    else
        _c="$W/corpus-$_f"
    fi
    mkdir -p "$_c"
    cp "$W/seeds/$_f"/* "$_c/"
    _dict=""
    _d=$_f
    [ "$_f" = gdal_doors ] && _d=tiff # a TIFF after the door's byte: TIFF's words
    [ -f "$SRC/tests/fuzz/$_d.dict" ] && _dict="-dict=$SRC/tests/fuzz/$_d.dict"
    _log="$LOGS/$_f.log"
    # shellcheck disable=SC2086
    "$F/fuzz_$_f" -max_total_time="$S" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$ART/$_f-" $_dict "$_c" >"$_log" 2>&1
    _rc=$?
    _runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$_log" | tail -n 1)
    _cov=$(grep -o 'cov: [0-9]*' "$_log" | tail -n 1)
    if [ "$_rc" -eq 0 ]; then
        echo "fuzz_$_f: ok, ${_runs:-?} runs in ${S} s, ${_cov:-cov: ?}"
    else
        echo "fuzz_$_f: FAILED (exit $_rc), log $_log:"
        grep -E -A 12 '^==[0-9]+==ERROR|runtime error|^SUMMARY|deadly signal|ALARM|out-of-memory' \
            "$_log" | head -n 40
        grep -E 'Test unit written to' "$_log"
    fi >"$W/report-$_f"
    echo "$_rc" >"$W/rc-$_f"
}

names=""
for f in ${WINENT_FUZZ_ONLY:-tiff raw zst_info options zst_readers gdal gdal_doors}; do
    if [ -x "$F/fuzz_$f" ]; then
        names="$names $f"
    else
        echo "fuzz_$f: not in this build (gdal, gdal_doors: built without GDAL), skipped"
    fi
done
J=${WINENT_FUZZ_JOBS:-${WINENT_JOBS:-$(nproc 2>/dev/null || echo 1)}}
[ "$J" -ge 1 ] 2>/dev/null || J=1
# J lanes, the harnesses dealt to them in turn; each lane runs its own one
# after the other.
lane=0
while [ "$lane" -lt "$J" ]; do
    (
        i=0
        for f in $names; do
            [ $((i % J)) -eq "$lane" ] && fuzz_one "$f"
            i=$((i + 1))
        done
    ) &
    lane=$((lane + 1))
done
wait
passed=0
failed=0
for f in $names; do
    cat "$W/report-$f" 2>/dev/null
    if [ "$(cat "$W/rc-$f" 2>/dev/null)" = 0 ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        [ -f "$W/rc-$f" ] || echo "fuzz_$f: FAILED (no report)"
    fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
