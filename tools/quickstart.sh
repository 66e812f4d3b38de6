#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# README command 1, on Debian 12 as root: install what is missing, build,
# install the command, the C library and the man page under /usr/local
# (cmake --install: `winent-stream` on PATH, `man winent-stream`), the
# Python package into the venv venv/ (tools/install-venv.sh, with Debian's
# /usr/bin/python3), then the demo (tools/demo.sh): a small GeoTIFF made by
# winent-mksample, its entropy map as a Cloud-Optimized GeoTIFF and the
# map's preview PNG, in demo/.
set -eu
cd "$(dirname "$0")/.."
sh tools/setup-debian.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO cmake --install build >/dev/null
# A new library in /usr/local/lib: the loader's cache learns of it.
$SUDO ldconfig
sh tools/install-venv.sh build venv
sh tools/demo.sh build demo
echo "quickstart: winent-stream is $(command -v winent-stream); Python: venv/bin/python" \
    "(or . venv/bin/activate); man winent-stream"
