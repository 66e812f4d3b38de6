#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench-gpu-scaling.sh - the several-GPU figures on a GPU machine, in one call:
# build, then in memory (winent-bench pipeline, 32768x32768 u16, 65536
# values, 31x31 and 63x63) one GPU against every GPU; the same cells
# through winent-stream to a raw map in /dev/shm, beside the host's
# write bound (cp alone, and several dd writers at once); --device 0's
# setup against the same process seeing one GPU (CUDA_VISIBLE_DEVICES);
# optionally the six jobs of tools/bench-job.sh (auto against each single
# choice). Every run leaves its timeline (WINENT_TRACE) under $OUT, summed
# by tools/trace-summary.py into $OUT/traces.md.
#
# Run from the repository root on the device machine (carry .devdebs:
# ../shared/DEVICE.md). Environment:
#   WINENT_BUILD    build folder (default build-dev)
#   SCALE_SIZE      image (default 32768x32768)
#   SCALE_WINDOWS   windows (default "31 63")
#   SCALE_REPEAT    runs of each timing (default 3; the median counts)
#   SCALE_RAW=0     skip the raw-map runs;   SCALE_SETUP=0  skip the setup runs
#   SCALE_JOBS=1    also the job harness: SCALE_JOBS_ARGS its options
#                   (default "--engines cpu,0,gpu,auto --repeat 2")
#   SCALE_TESTS=1   also the GPU tests (SCALE_TESTS_RE, default test_cli_gpu,
#                   test_pipeline_writers, test_gpu_pinned) before the figures
#   SCALE_PINNED=0  skip the in-memory runs on pinned buffers (--pinned)
#   SCALE_BOUNDS=0  skip the bounds: winent-bench hostpath (every GPU's copy
#                   engines, the host's copies, both at once, the map stored
#                   into one file in /dev/shm) and the raw-map jobs at 1 x 1,
#                   whose kernel is next to nothing: the job's host path alone
set -u
OUT=${OUT:-/tmp/winent-out}
B=${WINENT_BUILD:-build-dev}
SIZE=${SCALE_SIZE:-32768x32768}
REP=${SCALE_REPEAT:-3}
mkdir -p "$OUT"
T0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
. tools/device-env.sh
. tools/bench-lib.sh
NPROC=$(nproc)
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader > "$OUT/gpu.txt" 2>&1
NG=$(grep -c . "$OUT/gpu.txt")
ALLG=$(seq -s, 0 $((NG - 1)))
# One GPU, two (where there are more than two), every one.
DEVS="0"
[ "$NG" -gt 2 ] && DEVS="$DEVS 0,1"
[ "$NG" -gt 1 ] && DEVS="$DEVS $ALLG"
echo "$NG GPUs ($ALLG), $NPROC cores: $(head -1 "$OUT/gpu.txt")"

stamp build
{
    cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DWINENT_CUDA_ARCHITECTURES=90 &&
        if [ "${SCALE_JOBS:-0}" = 1 ] || [ "${SCALE_TESTS:-0}" = 1 ]; then
            cmake --build "$B" -j"$NPROC"
        else
            cmake --build "$B" -j"$NPROC" --target winent-stream winent-bench winent-mksample
        fi
} > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
WS=$B/src/winent-stream
BENCH=$B/tools/winent-bench
TR=/tmp/scale-traces
rm -rf "$TR"
WK=/tmp/scale-work
mkdir -p "$WK"
mkdir -p "$TR"
FIG=$OUT/figures.md
: > "$FIG"

if [ "${SCALE_TESTS:-0}" = 1 ]; then
    stamp tests
    # The pipeline's GPU test (every GPU choice against the CPU's bytes)
    # and the writers' test: what the binaries built above can run.
    RE=${SCALE_TESTS_RE:-test_cli_gpu|test_pipeline_writers|test_gpu_pinned}
    (cd "$B" && ctest -R "$RE" --output-on-failure --timeout 300) > "$OUT/ctest.log" 2>&1
    echo "ctest $RE rc=$?: $(grep 'tests passed' "$OUT/ctest.log")" | tee -a "$FIG"
fi

stamp "in memory"
echo "### in memory: winent-bench pipeline --size $SIZE --dtype u16 --values 65536 --repeat $REP" >> "$FIG"
for w in ${SCALE_WINDOWS:-31 63}; do
    for d in $DEVS; do
        tag=$d; [ "$d" = "$ALLG" ] && tag=all
        WINENT_TRACE=$TR/mem-w$w-d$tag.csv "$BENCH" pipeline --size "$SIZE" --dtype u16 \
            --values 65536 --window "$w" --device "$d" --repeat "$REP" >> "$FIG" 2>&1
    done
done
if [ "${SCALE_PINNED:-1}" = 1 ]; then
    # The caller's buffers pinned already: copied directly, nothing staged.
    echo "### in memory, the image and map in pinned memory: the same with --pinned" >> "$FIG"
    for w in ${SCALE_WINDOWS:-31 63}; do
        for d in $DEVS; do
            tag=$d; [ "$d" = "$ALLG" ] && tag=all
            WINENT_TRACE=$TR/pin-w$w-d$tag.csv "$BENCH" pipeline --size "$SIZE" --dtype u16 \
                --values 65536 --window "$w" --device "$d" --repeat "$REP" --pinned >> "$FIG" 2>&1
        done
    done
fi

# raw_job D K TRACE: the job to a raw map in /dev/shm, $REP times, on
# --device D at K x K (TRACE: its timeline's file, or ""); sets wall and
# flow (the medians of the whole job and of after setup) and eng (the
# engines' chunks), and keeps the --stats lines in $WK/raw.log.
raw_job() {
    : > "$WK/raw.tmp"
    for r in $(seq "$REP"); do
        rm -f /dev/shm/scale-out.raw
        WINENT_TRACE=$3 "$WS" --quiet --stats --device "$1" --window "$2" \
            --size "$SIZE" --dtype u16 "$IN" /dev/shm/scale-out.raw 2>> "$WK/raw.tmp"
    done
    grep '^{' "$WK/raw.tmp" | sed 's/.*"wall_s":\([0-9.]*\).*"setup_s":\([0-9.]*\).*/\1 \2/' > "$WK/raw.t"
    wall=$(awk '{print $1}' "$WK/raw.t" | median)
    flow=$(awk '{print $1 - $2}' "$WK/raw.t" | median)
    eng=$(grep -o '"engine":"[^"]*"' "$WK/raw.tmp" | tail -1)
    cat "$WK/raw.tmp" >> "$WK/raw.log"
}
gpix() { awk "BEGIN{printf \"%.2f\", $W*$H/$1/1e9}"; }
W=${SIZE%x*} H=${SIZE#*x}
IN=/dev/shm/scale-in.raw

if [ "${SCALE_RAW:-1}" = 1 ]; then
    stamp "raw map to /dev/shm"
    [ -f $IN ] || "$B/tools/winent-mksample" --size "$SIZE" --dtype u16 --values 65536 --seed 1 $IN
    echo "### to a raw map in /dev/shm: winent-stream --stats --device D --window K --size $SIZE --dtype u16 IN.raw /dev/shm/out.raw (median of $REP)" >> "$FIG"
    for w in ${SCALE_WINDOWS:-31 63}; do
        for d in $DEVS; do
            tag=$d; [ "$d" = "$ALLG" ] && tag=all
            raw_job "$d" "$w" "$TR/raw-w$w-d$tag.csv"
            echo "| raw /dev/shm | $w x $w | --device $d | $eng | wall $wall s | after setup $flow s | $(gpix "$flow") Gpixel/s |" >> "$FIG"
        done
    done
    # The host's write bound in /dev/shm: one cp, then N writers at once.
    t0=$(now); cp /dev/shm/scale-out.raw /dev/shm/scale-cp.raw; t1=$(now)
    BYTES=$(stat -c %s /dev/shm/scale-out.raw)
    echo "| write bound | cp of the map | $(awk "BEGIN{printf \"%.2f GB/s\", $BYTES/($t1-$t0)/1e9}") |" >> "$FIG"
    rm -f /dev/shm/scale-cp.raw
    for n in 4 8 16; do
        t0=$(now)
        for i in $(seq $n); do
            dd if=/dev/shm/scale-out.raw of=/dev/shm/scale-dd$i bs=4M skip=$(( (i - 1) * BYTES / n / 4194304 )) \
                count=$(( BYTES / n / 4194304 )) status=none &
        done
        wait
        t1=$(now)
        echo "| write bound | $n dd at once | $(awk "BEGIN{printf \"%.2f GB/s\", $BYTES/($t1-$t0)/1e9}") |" >> "$FIG"
        rm -f /dev/shm/scale-dd*
    done
    rm -f /dev/shm/scale-out.raw
fi

if [ "${SCALE_BOUNDS:-1}" = 1 ]; then
    stamp bounds
    "$BENCH" hostpath --size "$SIZE" --repeat "$REP" --file /dev/shm/scale-hp.raw \
        --threads "16,$NPROC" >> "$FIG" 2>&1
    "$BENCH" hostpath --size "$SIZE" --repeat "$REP" --devices 0 --threads 16 >> "$FIG" 2>&1
    if [ "${SCALE_RAW:-1}" = 1 ]; then
        echo "### the raw-map job at 1 x 1 (the host path alone): median of $REP" >> "$FIG"
        for d in $DEVS; do
            raw_job "$d" 1 ""
            echo "| raw /dev/shm | 1 x 1 | --device $d | after setup $flow s | $(gpix "$flow") Gpixel/s |" >> "$FIG"
        done
        rm -f /dev/shm/scale-out.raw
    fi
fi

if [ "${SCALE_SETUP:-1}" = 1 ]; then
    stamp setup
    echo "### --device 0 setup (setup_s of winent-stream --stats on 1024x1024 u16, median of 5)" >> "$FIG"
    SM=/tmp/scale-small.raw
    "$B/tools/winent-mksample" --size 1024x1024 --dtype u16 --values 65536 $SM
    for how in "all" "visible0"; do
        : > "$WK/setup.tmp"
        for r in 1 2 3 4 5; do
            if [ $how = visible0 ]; then
                CUDA_VISIBLE_DEVICES=0 "$WS" --quiet --stats --device 0 --size 1024x1024 --dtype u16 $SM /tmp/scale-small.out.raw 2>> "$WK/setup.tmp"
            else
                "$WS" --quiet --stats --device 0 --size 1024x1024 --dtype u16 $SM /tmp/scale-small.out.raw 2>> "$WK/setup.tmp"
            fi
        done
        s=$(grep -o '"setup_s":[0-9.]*' "$WK/setup.tmp" | cut -d: -f2 | median)
        echo "| --device 0 | $how GPUs visible to the process | setup $s s |" >> "$FIG"
    done
fi

if [ "${SCALE_JOBS:-0}" = 1 ]; then
    stamp "job harness"
    mkdir -p "$OUT/jobs"
    LEFT=$(( 540 - ($(date +%s) - T0) ))
    [ "$LEFT" -gt 30 ] || LEFT=30
    # shellcheck disable=SC2086
    TMPDIR=/tmp sh tools/bench-job.sh --build "$B" --out "$OUT/jobs" --work /tmp/bench-job-work \
        --stages no --deadline "$LEFT" ${SCALE_JOBS_ARGS:---engines cpu,0,gpu,auto --repeat 2} > /dev/null 2>&1
fi

python3 tools/trace-summary.py "$TR"/*.csv > "$OUT/traces.md" 2>&1
tar czf "$OUT/traces.tgz" -C "$TR" . 2>/dev/null
stamp done
echo "==== figures ===="
cat "$FIG"
[ -f "$OUT/jobs/bench-job.md" ] && { echo "==== jobs ===="; cat "$OUT/jobs/bench-job.md"; }
echo "==== traces (short) ===="
grep -E '^## |gpu|writer|reader|pool' "$OUT/traces.md" | cut -c1-200 | head -90
