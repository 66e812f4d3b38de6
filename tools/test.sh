#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# README command 2 (and CI): install what is missing, build, run every test
# (GPU tests skip, exit 77, where no GPU is usable), then the checking
# builds: ASan + UBSan, the fuzzers, TSan (tools/test-sanitizers.sh).
# WINENT_CHECKS=0 runs the normal suite alone (a quicker local loop).
set -eu
cd "$(dirname "$0")/.."
t0=$(date +%s)
# The builds' and the tests' files under TMPDIR: a tmpfs with room (8 GiB
# free) spares them the disk (10-15 % of the I/O-heavy tests' time on
# the 2-core VM). A TMPDIR already set is kept.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ] &&
    [ "$(df -Pk /dev/shm | awk 'NR == 2 { print $4 }')" -ge 8388608 ]; then
    TMPDIR=$(mktemp -d /dev/shm/winent-test.XXXXXX)
    export TMPDIR
    trap 'rm -rf "$TMPDIR"' EXIT
fi
sh tools/setup-debian.sh
# The CUDA code (where nvcc is) for this machine's GPUs, or without one for
# one architecture: checked to compile, where the five of a release build
# took most of the test build's 6 minutes on 2 cores.
arch=75-real
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    arch=native
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DWINENT_CUDA_ARCHITECTURES="$arch" >/dev/null
cmake --build build -j "$(nproc)"
rc=0
(cd build && ctest --output-on-failure -j "$(nproc)" --timeout 600) || rc=1
t1=$(date +%s)
normal="normal suite $([ $rc -eq 0 ] && echo passed || echo FAILED) ($((t1 - t0)) s)"
if [ "${WINENT_CHECKS:-1}" != 0 ]; then
    sh tools/test-sanitizers.sh || rc=1
fi
echo "test.sh: $normal; $([ $rc -eq 0 ] && echo all passed || echo FAILURES), $(($(date +%s) - t0)) s in all"
exit $rc
