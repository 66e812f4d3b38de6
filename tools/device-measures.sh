#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# device-measures.sh - the measures on the GPU machine in one call: build,
# the measures' GPU tests, then the figures (docs/PERFORMANCE.md): the
# glcm-entropy kernel at one offset (16384^2 u8, 32 levels, 15 x 15), the
# 8 OTB features as one job on the GPU against the CPU on every core, and
# simpson / richness beside the entropy (kernels alone).
#
# Run from the repository root there, carrying .devdebs (DEVICE.md); logs
# under $OUT. WINENT_MEASURES_PARTS: any of "build glcm job tests glcm8
# hist" (default all but glcm8, the 8 features' kernels one by one).
set -u
OUT=${OUT:-/tmp/winent-out}
B=${WINENT_BUILD:-build-dev}
PARTS=${WINENT_MEASURES_PARTS:-build tests glcm job hist}
mkdir -p "$OUT"
T0=$(date +%s)
stamp() { echo "[$(($(date +%s) - T0))s] $*"; }
has() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
. tools/device-env.sh
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv,noheader
echo "cores: $(nproc)"
NPROC=$(nproc)
if has build; then
    stamp build
    { cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DWINENT_CUDA_ARCHITECTURES=90 &&
        cmake --build "$B" -j"$NPROC"; } >"$OUT/build.log" 2>&1 ||
        { grep -E "error" "$OUT/build.log" | head -20; exit 1; }
fi
WB="$B/tools/winent-bench"
WS="$B/src/winent-stream"
if has glcm; then
    for h in warp thread; do
        stamp "glcm-entropy kernel, $h per segment"
        WINENT_GLCM_KERNEL=$h "$WB" kernels --size 16384x16384 --sets 256 --levels 32 \
            --windows 15 --angles 0 --measure glcm-entropy --variants auto --threads "$NPROC" \
            --budget 0.3 >"$OUT/glcm-$h.log" 2>&1
        grep -E "^cell|DIFFERS|rror" "$OUT/glcm-$h.log"
    done
fi
if has job; then
    F8=glcm-asm,glcm-entropy,glcm-correlation,glcm-homogeneity,glcm-contrast
    F8=$F8,glcm-cluster-shade,glcm-cluster-prominence,glcm-variance
    "$B/tools/winent-mksample" --size 8192x8192 --dtype u8 --values 256 --seed 7 /dev/shm/in8.raw
    for d in gpu cpu; do
        stamp "8 features, 8192^2 u8, 32 levels, 15x15, angle 0, --device $d"
        s=$(date +%s%N)
        "$WS" --quiet --device $d --size 8192x8192 --dtype u8 --levels 32 --range 0:256 \
            --window 15 --angles 0 --measure $F8 /dev/shm/in8.raw /dev/shm/job.raw || echo "rc $?"
        rm -f /dev/shm/job*
        echo "  $d: $((($(date +%s%N) - s) / 1000000)) ms"
    done
fi
if has tests; then
    stamp tests
    (cd "$B" && timeout "${WINENT_MEASURES_TEST_S:-300}" ctest -j4 --timeout 500 --output-on-failure -R \
        "${WINENT_MEASURES_TESTS:-test_measures_cli_gpu|test_gpu_measures|test_gpu_glcm_twin}") \
        >"$OUT/ctest.log" 2>&1
    grep -E "FAILED|DIFFERS|Test +#|tests passed" "$OUT/ctest.log" | tail -20
fi
if has glcm8; then
    for m in asm entropy correlation homogeneity contrast cluster-shade cluster-prominence variance; do
        stamp "glcm-$m kernel, 8192^2"
        "$WB" kernels --size 8192x8192 --sets 256 --levels 32 --windows 15 --angles 0 \
            --measure glcm-$m --variants auto --threads "$NPROC" --budget 0.2 \
            >"$OUT/glcm8.log" 2>&1
        grep -E "^cell|DIFFERS|rror" "$OUT/glcm8.log"
    done
fi
if has hist; then
    for m in ${WINENT_MEASURES_HIST:-entropy simpson richness}; do
        stamp "$m kernels"
        "$WB" kernels --size 8192x8192 --sets 16,256,4096 --windows 5,15,31 --measure $m \
            --variants auto --threads "$NPROC" --budget 0.1 >"$OUT/hist-$m.log" 2>&1
        grep -E "^cell|DIFFERS|rror" "$OUT/hist-$m.log"
    done
fi
stamp done
