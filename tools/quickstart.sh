#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# README command 1: install what is missing, build, then the demo
# (tools/demo.sh): a small GeoTIFF made by winent-mksample, its entropy map
# as a Cloud-Optimized GeoTIFF and the map's preview PNG, in demo/.
set -eu
cd "$(dirname "$0")/.."
sh tools/setup-debian.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
sh tools/demo.sh build demo
