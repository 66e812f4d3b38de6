#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# run.sh BUILD [SECONDS]: run the libFuzzer harnesses (tiff, raw, zst_info,
# options, zst_readers, and gdal and gdal_doors where GDAL is built in) of a WINENT_FUZZ
# build one after the other, SECONDS each (default 30, or WINENT_FUZZ_SECONDS),
# from the seed corpora (seeds.sh) in a temporary folder: nothing grown by
# fuzzing lands in the tree. Ends with "fuzz: N passed, M failed".
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
S=${2:-${WINENT_FUZZ_SECONDS:-30}}
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
passed=0
failed=0
for f in ${WINENT_FUZZ_ONLY:-tiff raw zst_info options zst_readers gdal gdal_doors}; do
    if [ ! -x "$F/fuzz_$f" ]; then
        echo "fuzz_$f: not in this build (gdal, gdal_doors: built without GDAL), skipped"
        continue
    fi
    if [ -n "${WINENT_FUZZ_CORPUS:-}" ]; then
        c="$WINENT_FUZZ_CORPUS/$f"
    else
        c="$W/corpus-$f"
    fi
    mkdir -p "$c"
    cp "$W/seeds/$f"/* "$c/"
    dict=""
    d=$f
    [ "$f" = gdal_doors ] && d=tiff # a TIFF after the door's byte: TIFF's words
    [ -f "$SRC/tests/fuzz/$d.dict" ] && dict="-dict=$SRC/tests/fuzz/$d.dict"
    log="$LOGS/$f.log"
    # shellcheck disable=SC2086
    "$F/fuzz_$f" -max_total_time="$S" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$ART/$f-" $dict "$c" >"$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
    if [ "$rc" -eq 0 ]; then
        passed=$((passed + 1))
        echo "fuzz_$f: ok, ${runs:-?} runs in ${S} s, ${cov:-cov: ?}"
    else
        failed=$((failed + 1))
        echo "fuzz_$f: FAILED (exit $rc), log $log:"
        grep -E -A 12 '^==[0-9]+==ERROR|runtime error|^SUMMARY|deadly signal|ALARM|out-of-memory' \
            "$log" | head -n 40
        grep -E 'Test unit written to' "$log"
    fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
