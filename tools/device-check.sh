#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# device-check.sh - build, test and benchmark on the GPU machine in one call.
#
# Run from the repository root on the device machine (the working tree is
# copied there; carry .devdebs, the Debian libtiff packages: DEVICE.md).
# Logs go under $OUT (at most 8 files come back); a short table is printed
# last, since the reply shows only the end of the output.
#
#   WINENT_BUILD   build folder (default build-dev)
#   WINENT_NCU=1   also profile the 5x5 and 31x31 kernels with ncu
#   WINENT_QUICK=1 benchmark on the small image (winent-bench gpu --quick)
#   WINENT_SKIP_ALL=1  run only the gpu-labelled tests, not the whole ctest
#   WINENT_PIPELINE=1  also time the whole pipeline: in memory on the CPU, one
#                  GPU and every GPU (winent-bench pipeline), and the .zst
#                  output against zstd alone on all cores (tools/bench-zst.sh)
#   WINENT_JOBS=1  the job harness (tools/bench-job.sh), full size,
#                  every engine, results under $OUT/jobs, its Markdown table
#                  printed last; skips the tests and the GPU benchmark (as
#                  WINENT_ONLY_PIPELINE=1) unless WINENT_JOBS_TESTS=1.
#                  WINENT_JOBS_ARGS: more options for it, e.g. "--jobs J1,J2
#                  --repeat 2"; inputs are kept in /tmp/bench-job-work for the
#                  next call on a warm machine. It starts nothing new once
#                  WINENT_JOBS_LIMIT (default 600) - 90 s have passed since this
#                  script began, so the table comes back inside the device's
#                  10-minute limit; what was left is listed as skipped
#   WINENT_KERNELS=1  the kernel tables (winent-bench kernels):
#                  WINENT_KERNELS_ARGS: its options (e.g. "--quick", or
#                  "--sets 16,256 --budget 0.1": the whole default grid can
#                  take minutes); its log in $OUT/kernels.log, its CSV in
#                  $OUT/kernels.csv, its tables printed last; skips the tests
#                  and the GPU benchmark unless WINENT_KERNELS_TESTS=1
#   WINENT_SKIMAGE=1  the CPU engine against scikit-image on every core
#                  (tools/bench-skimage-cpu.py: 8192^2, the whole job raw to
#                  raw); WINENT_SKIMAGE_ARGS: its options; its log in
#                  $OUT/skimage.log, its table printed last; skips the tests
#                  and the GPU benchmark unless WINENT_SKIMAGE_TESTS=1
set -u
OUT=${OUT:-/tmp/winent-out}
B=${WINENT_BUILD:-build-dev}
mkdir -p "$OUT"
T0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - T0 ))s] $*"; }

# libtiff and friends from the carried Debian packages.
. tools/device-env.sh

nvidia-smi --query-gpu=index,name,memory.total,clocks.sm,clocks.max.sm,driver_version \
    --format=csv > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"

stamp configure + build
NPROC=$(nproc 2>/dev/null || echo 8)
{
    cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DWINENT_CUDA_ARCHITECTURES=90 -DWINENT_CUDA_VERBOSE=ON &&
        cmake --build "$B" -j"$NPROC"
} > "$OUT/build.log" 2>&1
BUILD_RC=$?
grep -E "error|Error" "$OUT/build.log" | head -20
grep -A3 -E "Compiling entry function '_Z[0-9]+(smem|hash|maxcode|pack16x2)_kernel" "$OUT/build.log" |
    grep -E "Compiling|Used|stack" > "$OUT/ptxas.txt" 2>/dev/null
stamp "build rc=$BUILD_RC"
[ $BUILD_RC -eq 0 ] || { tail -40 "$OUT/build.log"; exit 1; }

SKIP_TESTS=${WINENT_ONLY_PIPELINE:-0}
[ "${WINENT_JOBS:-0}" = 1 ] && [ "${WINENT_JOBS_TESTS:-0}" != 1 ] && SKIP_TESTS=1
[ "${WINENT_KERNELS:-0}" = 1 ] && [ "${WINENT_KERNELS_TESTS:-0}" != 1 ] && SKIP_TESTS=1
[ "${WINENT_SKIMAGE:-0}" = 1 ] && [ "${WINENT_SKIMAGE_TESTS:-0}" != 1 ] && SKIP_TESTS=1
if [ "$SKIP_TESTS" = 1 ]; then GPU_RC=skipped; ALL_RC=skipped; BENCH_RC=skipped; else
stamp "ctest -L gpu"
(cd "$B" && ctest -L gpu --output-on-failure --timeout 600) > "$OUT/ctest-gpu.log" 2>&1
GPU_RC=$?
cat "$B"/Testing/Temporary/LastTest.log > /dev/null 2>&1
grep -E "identical|DIFFERS|FAILED|passed|tests passed|Test +#" "$OUT/ctest-gpu.log" | tail -60

ALL_RC=skipped
if [ "${WINENT_SKIP_ALL:-0}" != 1 ]; then
    stamp "ctest (all)"
    (cd "$B" && ctest -j"$NPROC" --output-on-failure --timeout 300) > "$OUT/ctest-all.log" 2>&1
    ALL_RC=$?
    grep -E "tests passed|Failed|\*\*\*" "$OUT/ctest-all.log" | tail -15
fi

# winent-bench gpu; until winent-bench.c dispatches "gpu", a small driver
# around bench_gpu_main is built here from the same libraries.
stamp "bench"
BENCH=$B/tools/winent-bench
if ! "$BENCH" gpu --help 2>&1 | grep -q "winent-bench gpu"; then
    printf 'int bench_gpu_main(int, char **);\nint main(int c, char **v) { return bench_gpu_main(c - 1, v + 1); }\n' \
        > "$B/bench_gpu_driver.c"
    CUDA_LIB=$(dirname "$(command -v nvcc)")/../lib64
    cc -O2 -std=gnu11 -fopenmp -Iinclude -Isrc -Itools tools/bench_gpu.c "$B/bench_gpu_driver.c" \
        "$B/src/libwinent_kernels.a" "$B/src/libwinent_base.a" "$CUDA_LIB/libcudart_static.a" \
        -lpthread -ldl -lrt -lm -lstdc++ -o "$B/bench-gpu-driver" >> "$OUT/build.log" 2>&1
    BENCH=$B/bench-gpu-driver
fi
QUICK=
[ "${WINENT_QUICK:-0}" = 1 ] && QUICK=--quick
"$BENCH" gpu $QUICK > "$OUT/bench.log" 2>&1
BENCH_RC=$?
fi

if [ "${WINENT_NCU:-0}" = 1 ] && command -v ncu > /dev/null; then
    stamp ncu
    : > "$OUT/ncu.txt"
    # One launch of each benchmarked kernel: smem 5x5 (8-bit counters),
    # smem 31x31 (16-bit counters), shared hash u16 5x5.
    for k in _Z11smem_kernelIhLb0EhLi16EE _Z11smem_kernelIhLb0EtLi16EE _Z11hash_kernelItLb0ELb1EE; do
        ncu --clock-control none --kernel-name-base mangled -k regex:"$k" -s 1 -c 1 \
            --section SpeedOfLight --section Occupancy --section LaunchStats \
            --section MemoryWorkloadAnalysis --section WarpStateStats --section ComputeWorkloadAnalysis \
            "$BENCH" gpu --quick >> "$OUT/ncu.txt" 2>&1
    done
    grep -E "_kernel|Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Theoretical Occupancy|L1/TEX Hit|Issued Ipc|Executed Ipc|Bank|One or More" \
        "$OUT/ncu.txt" | grep -v "^==PROF==" | head -60
fi

if [ "${WINENT_PIPELINE:-0}" = 1 ]; then
    stamp "pipeline benches"
    : > "$OUT/pipeline.txt"
    NG=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
    ALLG=$(seq -s, 0 $((NG - 1)))
    for d in cpu 0 0,1 0,1,2,3 "$ALLG"; do
        case "$d" in *[0-9],*) [ "$(echo "$d" | tr -cd , | wc -c)" -lt "$NG" ] || continue ;; esac
        "$B/tools/winent-bench" pipeline --device "$d" --size ${WINENT_PIPE_SIZE:-10240x10240} --repeat 3 \
            >> "$OUT/pipeline.txt" 2>&1
    done
    "$B/tools/winent-bench" pipeline --device 0 --size ${WINENT_PIPE_SIZE:-10240x10240} --window 31 --repeat 3 \
        >> "$OUT/pipeline.txt" 2>&1
    [ "$NG" -gt 1 ] && "$B/tools/winent-bench" pipeline --device "$ALLG" --size ${WINENT_PIPE_SIZE:-10240x10240} \
        --window 31 --repeat 3 >> "$OUT/pipeline.txt" 2>&1
    TMPDIR=/tmp sh tools/bench-zst.sh "$B" 10240x10240 "$NPROC" "1 3" > "$OUT/bench-zst.txt" 2>&1
    cat "$OUT/pipeline.txt" "$OUT/bench-zst.txt"
fi

if [ "${WINENT_E2E:-0}" = 1 ]; then
    # End to end on a large input: WINENT_E2E_SIZE (default
    # 92000x92000 u8, 8.5 GB), every GPU then one, .zst output with --stats.
    stamp "end to end"
    SZ=${WINENT_E2E_SIZE:-92000x92000}
    E=/tmp/e2e; mkdir -p $E
    "$B/tools/winent-mksample" --size "$SZ" --dtype u8 --kind landscape --values 12 --seed 1 $E/big.raw
    t0=$(date +%s.%N); cat $E/big.raw > /dev/null; t1=$(date +%s.%N)
    echo "read big.raw (page cache): $(awk "BEGIN{print $(stat -c %s $E/big.raw)/($t1-$t0)/1e9}") GB/s" | tee "$OUT/e2e.txt"
    NG=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
    for d in "$(seq -s, 0 $((NG - 1)))" 0; do
        echo "device $d:" >> "$OUT/e2e.txt"
        "$B/src/winent-stream" --quiet --stats --device "$d" --mem 8G --size "$SZ" --dtype u8 \
            $E/big.raw $E/out.zst >> "$OUT/e2e.txt" 2>&1
        ls -l $E/out.zst >> "$OUT/e2e.txt"; rm -f $E/out.zst
    done
    rm -rf $E
    cat "$OUT/e2e.txt"
fi

JOBS_RC=skipped
if [ "${WINENT_JOBS:-0}" = 1 ]; then
    # The job harness, full size; progress lines on stderr and in
    # $OUT/jobs/log.txt; the table in $OUT/jobs/bench-job.md, printed last.
    stamp "job harness"
    mkdir -p "$OUT/jobs"
    LEFT=$(( ${WINENT_JOBS_LIMIT:-600} - 90 - ($(date +%s) - T0) ))
    [ "$LEFT" -gt 0 ] || LEFT=1
    # shellcheck disable=SC2086
    TMPDIR=/tmp sh tools/bench-job.sh --build "$B" --out "$OUT/jobs" \
        --work /tmp/bench-job-work --deadline "$LEFT" ${WINENT_JOBS_ARGS:-} > /dev/null
    JOBS_RC=$?
fi

KERNELS_RC=skipped
if [ "${WINENT_KERNELS:-0}" = 1 ]; then
    # GPU kernel variants and the CPU engine over value sets x windows
    # (winent-bench kernels); the cell lines and the tables in $OUT/kernels.log.
    stamp "kernel tables"
    # shellcheck disable=SC2086
    "$B/tools/winent-bench" kernels --csv "$OUT/kernels.csv" ${WINENT_KERNELS_ARGS:-} \
        > "$OUT/kernels.log" 2>&1
    KERNELS_RC=$?
fi

SKIMAGE_RC=skipped
if [ "${WINENT_SKIMAGE:-0}" = 1 ]; then
    stamp "scikit-image side by side"
    # shellcheck disable=SC2086
    python3 tools/bench-skimage-cpu.py --winent "$B/src/winent-stream" ${WINENT_SKIMAGE_ARGS:-} \
        > "$OUT/skimage.log" 2>&1
    SKIMAGE_RC=$?
fi

stamp done
echo
echo "==== summary ===="
cat "$OUT/ptxas.txt" 2>/dev/null | paste - - - | sed 's/ptxas info    : //g' | cut -c1-160
echo "build rc=$BUILD_RC  ctest-gpu rc=$GPU_RC  ctest-all rc=$ALL_RC  bench rc=$BENCH_RC  jobs rc=$JOBS_RC  kernels rc=$KERNELS_RC  skimage rc=$SKIMAGE_RC"
grep -E "tests passed" "$OUT/ctest-gpu.log" "$OUT/ctest-all.log" 2>/dev/null
sed -n '/^GPU /p;/^kernel/,$p' "$OUT/bench.log" 2>/dev/null
if [ "${WINENT_JOBS:-0}" = 1 ]; then
    echo
    echo "==== job harness (tools/bench-job.sh) ===="
    cat "$OUT/jobs/bench-job.md" 2>/dev/null || tail -20 "$OUT/jobs/log.txt"
fi
if [ "${WINENT_KERNELS:-0}" = 1 ]; then
    echo
    echo "==== kernel tables (winent-bench kernels) ===="
    grep -E "^winent-bench kernels: " "$OUT/kernels.log"
    if grep -q '^## ' "$OUT/kernels.log"; then
        sed -n '/^## /,$p' "$OUT/kernels.log"
    else
        tail -20 "$OUT/kernels.log"
    fi
fi
if [ "${WINENT_SKIMAGE:-0}" = 1 ]; then
    echo
    echo "==== scikit-image side by side (tools/bench-skimage-cpu.py) ===="
    tail -12 "$OUT/skimage.log"
fi
