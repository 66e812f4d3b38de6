#!/bin/sh
# README command 2 (and CI): install what is missing, build, run every test.
# GPU tests skip (exit 77) where no GPU is usable.
set -eu
cd "$(dirname "$0")/.."
sh tools/setup-debian.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
cd build
ctest --output-on-failure -j "$(nproc)" --timeout 600
