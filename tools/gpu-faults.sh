#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# gpu-faults.sh - GPU error checks on the device machine, in one call:
#
#   memcheck   the GPU tests (ctest -L gpu) under compute-sanitizer's
#              memcheck (out-of-bounds and misaligned device accesses,
#              CUDA API errors, device memory leaks)
#   racecheck  the same under racecheck (shared-memory hazards)
#   inject     faults injected into the CUDA engine (WINENT_FAULT_INJECT,
#              src/kernels/engine_cuda.cu), checked through the CLI:
#               - --device gpu, the Nth submit fails: exit 5, one
#                 'winent-stream: ' line, no output file, no temporary file
#                 (raw, .zst, .tif; first submit and one mid-run)
#               - --device auto, engine creation fails: exit 0, one notice
#                 line, and the bytes of --device cpu
#               - --device auto, a submit fails mid-run: exit 0 and the
#                 bytes of --device cpu (SPEC 5: auto goes on with what
#                 works); the auto cases use a job long enough for auto to
#                 bring the GPU in
#
# Run from the repository root (the working tree is copied there; carry
# .devdebs for libtiff: ../shared/DEVICE.md). Logs go under $OUT; the last
# lines printed are the summary.
#
#   WINENT_BUILD          build folder (default build-dev, as device-check.sh)
#   WINENT_FAULTS_STEPS   steps to run (default "memcheck racecheck inject";
#                         one call of 10 minutes may not hold all three)
#   WINENT_FAULTS_TESTS   ctest -R regex of the GPU tests under the tools
#                         (default: every test labelled gpu)
#   WINENT_FAULTS_TIMEOUT seconds per test under a tool (default 280)
#
# The tools slow the GPU tests down many times: where one call cannot hold
# everything, split it, e.g. WINENT_FAULTS_STEPS=inject, then
# WINENT_FAULTS_STEPS=memcheck WINENT_FAULTS_TESTS=test_gpu_identity, ...
set -u
OUT=${OUT:-/tmp/winent-faults}
B=${WINENT_BUILD:-build-dev}
STEPS=${WINENT_FAULTS_STEPS:-memcheck racecheck inject}
TESTS=${WINENT_FAULTS_TESTS:-.}
TMO=${WINENT_FAULTS_TIMEOUT:-280}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd) # the tools run from the build folder
T0=$(date +%s)
stamp() { echo "[$(($(date +%s) - T0))s] $*"; }
summary=""
note() { summary="$summary$*
"; }

# libtiff and friends from the carried Debian packages.
. tools/device-env.sh
export PATH=$PATH:/usr/local/cuda/bin
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/compute-sanitizer/compute-sanitizer)
NPROC=$(nproc 2>/dev/null || echo 8)

stamp "configure + build ($B)"
{
    cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DWINENT_CUDA_ARCHITECTURES=90 -DWINENT_CUDA_VERBOSE=ON &&
        cmake --build "$B" -j"$NPROC"
} >"$OUT/faults-build.log" 2>&1 || {
    tail -n 30 "$OUT/faults-build.log"
    echo "gpu-faults: build failed"
    exit 1
}
WS="$B/src/winent-stream"
MK="$B/tools/winent-mksample"

# tool NAME ARGS...: the GPU tests under compute-sanitizer --tool NAME. The
# sanitizer follows ctest's children (the test programs, the shell tests'
# winent-stream runs); each process that has an error exits 86, so its test
# fails, and writes its report to $OUT/NAME.PID.log.
tool() {
    name=$1
    shift
    [ -x "$CS" ] || {
        note "$name: no compute-sanitizer"
        return
    }
    stamp "$name"
    rm -f "$OUT/$name".*.log
    (cd "$B" && "$CS" --tool "$name" "$@" --error-exitcode 86 --target-processes all \
        --log-file "$OUT/$name.%p.log" \
        ctest -L gpu -R "$TESTS" --output-on-failure --timeout "$TMO") >"$OUT/$name-ctest.log" 2>&1
    rc=$?
    errors=$(cat "$OUT/$name".*.log 2>/dev/null | grep -c -E "(ERROR|RACECHECK) SUMMARY: [1-9]")
    result=$(grep -E "tests passed|tests failed" "$OUT/$name-ctest.log" | tail -n 1)
    note "$name: ctest rc=$rc, $errors process(es) with errors; ${result:-no ctest summary}"
    grep -h -B2 -A8 -E "^========= (Invalid|Program hit|Race|Error|Leaked|Warning)" \
        "$OUT/$name".*.log 2>/dev/null | head -n 40
}

for s in $STEPS; do
    case $s in
    memcheck) tool memcheck --leak-check full ;;
    racecheck) tool racecheck --racecheck-report hazard ;;
    esac
done

case " $STEPS " in *" inject "*)
stamp "inject"
L="$OUT/inject.log"
: >"$L"
ipass=0
ifail=0
ok() { ipass=$((ipass + 1)); echo "ok: $*" >>"$L"; }
bad() { ifail=$((ifail + 1)); echo "FAILED: $*" >>"$L"; echo "FAILED: $*"; }
W=$(mktemp -d)
"$MK" --size 1999x1201 --dtype u8 --kind landscape --values 40 --seed 11 "$W/in.raw"
A="--size 1999x1201 --dtype u8 --window 7x5 --mem 8M --frame-rows 16 --tile 64"
"$WS" --quiet --device cpu $A "$W/in.raw" "$W/cpu.raw"
if ! "$WS" --quiet --device gpu $A "$W/in.raw" "$W/probe.raw" 2>"$W/err"; then
    bad "no usable GPU here: $(cat "$W/err")"
else
    # The cases below use a job of 6 chunks (1024 rows each), long enough
    # for --device auto to bring the GPU in (it does when the CPU alone
    # would take more than 0.4 s, SPEC 5: u16, 65536 values, 63 x 63 take
    # about 0.7 s on 16 cores).
    "$MK" --size 4096x6144 --dtype u16 --kind uniform --values 65536 --seed 5 "$W/big.raw"
    A="--size 4096x6144 --dtype u16 --window 63x63"
    "$WS" --quiet --device cpu $A "$W/big.raw" "$W/cpu.raw"
    # --device gpu, submit N fails: exit 5, one line, nothing left behind.
    for n in 1 5; do
        for ext in raw zst tif; do
            rm -f "$W/out.$ext"
            WINENT_FAULT_INJECT=submit:$n "$WS" --device gpu $A "$W/big.raw" "$W/out.$ext" \
                >"$W/stdout" 2>"$W/err"
            rc=$?
            what="gpu, submit:$n, .$ext"
            if [ "$rc" -ne 5 ]; then bad "$what: exit $rc, want 5: $(head -c 300 "$W/err")"; else ok "$what: exit 5"; fi
            if [ "$(wc -l <"$W/err")" -eq 1 ] && grep -q '^winent-stream: .*injected' "$W/err"; then
                ok "$what: one line"
            else
                bad "$what: stderr is not one 'winent-stream: ' line naming the fault: $(cat "$W/err")"
            fi
            if [ -e "$W/out.$ext" ]; then bad "$what: an output file was left"; else ok "$what: no output"; fi
            if ls "$W" | grep -q tmp-; then bad "$what: a temporary file was left: $(ls "$W")"; else ok "$what: no temporary"; fi
            rm -f "$W"/*tmp-*
        done
    done
    # --device auto, creation fails: the CPU's answer and one notice line
    # (notices show under --stats; the JSON line is the other line).
    WINENT_FAULT_INJECT=create "$WS" --stats --device auto $A "$W/big.raw" "$W/auto.raw" 2>"$W/err"
    rc=$?
    if [ "$rc" -ne 0 ]; then bad "auto, create: exit $rc, want 0: $(head -c 300 "$W/err")"; else ok "auto, create: exit 0"; fi
    grep -v '^{' "$W/err" >"$W/notice" || true
    if [ "$(wc -l <"$W/notice")" -eq 1 ] && grep -q '^winent-stream: ' "$W/notice"; then
        ok "auto, create: one notice line ($(cat "$W/notice"))"
    else
        bad "auto, create: want one notice line, got: $(cat "$W/notice")"
    fi
    if cmp -s "$W/cpu.raw" "$W/auto.raw"; then ok "auto, create: bytes of --device cpu"; else bad "auto, create: bytes differ from --device cpu"; fi
    # --device auto, a submit fails after the GPU has started: the job
    # still completes, with the CPU's bytes; the GPU's use is in --stats.
    rm -f "$W/auto.raw"
    WINENT_FAULT_INJECT=submit:2 "$WS" --stats --device auto $A "$W/big.raw" "$W/auto.raw" 2>"$W/err"
    rc=$?
    if [ "$rc" -ne 0 ]; then bad "auto, submit:2: exit $rc, want 0 (SPEC 5): $(head -c 300 "$W/err")"; else ok "auto, submit:2: exit 0"; fi
    if cmp -s "$W/cpu.raw" "$W/auto.raw"; then ok "auto, submit:2: bytes of --device cpu"; else bad "auto, submit:2: no output or bytes differ from --device cpu"; fi
    if grep -q 'injected' "$W/err"; then ok "auto, submit:2: the fault was met and said ($(grep -v '^{' "$W/err" | head -n 2 | tr '\n' ' '))"; else bad "auto, submit:2: the GPU never reached its second submit: $(cat "$W/err")"; fi
    # Without a fault the same job uses the GPU (otherwise the two cases
    # above prove nothing) and gives the CPU's bytes.
    rm -f "$W/auto.raw"
    "$WS" --stats --device auto $A "$W/big.raw" "$W/auto.raw" 2>"$W/err"
    if cmp -s "$W/cpu.raw" "$W/auto.raw"; then ok "auto: bytes of --device cpu"; else bad "auto: bytes differ from --device cpu"; fi
    echo "auto, no fault: $(grep '^{' "$W/err" | head -c 600)" >>"$L"
fi
rm -rf "$W"
note "inject: $ipass passed, $ifail failed (details in $L)"
;;
esac

stamp done
echo
echo "==== gpu-faults summary ===="
printf '%s' "$summary"
