#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The checking builds, after the normal suite (tools/test.sh calls this;
# CI runs both). Every step runs, each ends with its own summary line, and
# the exit status is 1 when any failed.
#
#   asan   clang, ASan + UBSan (every undefined behaviour fatal), CUDA off:
#          the whole ctest (valgrind and peak-RSS tests disabled there),
#          every report of every process collected (tests/sanitizers.cmake)
#   fuzz   the libFuzzer harnesses (tiff, raw, zst_info, options,
#          zst_readers, and gdal where GDAL is built in), 20 s each, one
#          per core at a time (tests/fuzz/run.sh), from seed corpora made
#          now; docs/FUZZING.md
#          for longer runs; fuzz_zst_readers compares the three .zst
#          readers' verdicts
#   tsan   clang, TSan with libomp's Archer, CUDA off: the pipeline tests
#          (ctest -L pipeline: CLI determinism, signals, errors, whole jobs
#          on 1..4 threads) and the race canaries
#
#   WINENT_CHECK_STEPS   steps to run (default "asan fuzz tsan")
#   WINENT_FUZZ_SECONDS  seconds per fuzzer (default 20)
#   WINENT_JOBS          build, ctest and fuzzer parallelism (default: nproc)
set -u
cd "$(dirname "$0")/.."
STEPS=${WINENT_CHECK_STEPS:-asan fuzz tsan}
J=${WINENT_JOBS:-$(nproc)}
failed=""
summary=""
now() { date +%s; }

# build DIR SANITIZERS [CMAKE ARGS...]: configure and build quietly (the
# log is kept in DIR/build.log, its tail printed on failure).
build() {
    _dir=$1
    _san=$2
    shift 2
    mkdir -p "$_dir"
    if cmake -S . -B "$_dir" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DWINENT_CUDA=OFF -DWINENT_SANITIZE="$_san" "$@" >"$_dir/build.log" 2>&1 &&
        cmake --build "$_dir" -j "$J" >>"$_dir/build.log" 2>&1; then
        return 0
    fi
    tail -n 40 "$_dir/build.log"
    return 1
}

# record STEP RC SECONDS
record() {
    if [ "$2" -eq 0 ]; then
        summary="$summary $1 passed ($3 s);"
    else
        summary="$summary $1 FAILED ($3 s);"
        failed="$failed $1"
    fi
}

for s in $STEPS; do
    t0=$(now)
    case $s in
    asan)
        echo "== ASan + UBSan build: the whole test suite"
        # The fuzzers' coverage instrumentation rides along (WINENT_FUZZ):
        # one build serves the suite and the fuzz step.
        if build build-asan address,undefined -DWINENT_FUZZ=ON; then
            (cd build-asan && ctest --output-on-failure -j "$J" --timeout 600)
            rc=$?
        else
            rc=1
        fi
        ;;
    fuzz)
        echo "== libFuzzer: tiff, raw, zst_info, options, zst_readers, gdal"
        if [ -x build-asan/tests/fuzz_tiff ] && [ -f build-asan/CMakeCache.txt ] &&
            grep -q '^WINENT_FUZZ:BOOL=ON' build-asan/CMakeCache.txt; then
            sh tests/fuzz/run.sh build-asan "${WINENT_FUZZ_SECONDS:-20}"
            rc=$?
        else
            echo "fuzz: no fuzzer build (the asan step makes it)"
            rc=1
        fi
        ;;
    tsan)
        echo "== TSan build: the pipeline tests"
        if build build-tsan thread; then
            (cd build-tsan && ctest -L pipeline --output-on-failure -j "$J" --timeout 600)
            rc=$?
        else
            rc=1
        fi
        ;;
    *)
        echo "test-sanitizers: unknown step '$s'"
        rc=1
        ;;
    esac
    record "$s" "$rc" $(($(now) - t0))
done
echo "sanitizers:$summary"
[ -z "$failed" ]
