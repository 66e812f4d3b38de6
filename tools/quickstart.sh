#!/bin/sh
# README command 1: install what is missing, build, and run winent-stream
# on the bundled demo input.
set -eu
cd "$(dirname "$0")/.."
sh tools/setup-debian.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
build/src/winent-stream --size 512x384 --dtype u8 --stats \
    samples/demo-landscape-512x384-u8.raw demo-entropy.zst
build/src/winent-stream --info demo-entropy.zst
echo "wrote demo-entropy.zst: 'zstd -dc demo-entropy.zst' gives the 512 x 384 float32 map" >&2
