#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Install what winent-stream needs to build and test on Debian 12, only the
# packages that are missing. Run as root (or with sudo available).
set -eu
# clang, its sanitizer and libFuzzer runtimes, libomp (with Archer, for
# TSan) and llvm-symbolizer: the checking builds of tools/test-sanitizers.sh.
# libcjson-dev: JSON of the .zst header, --info and --stats.
# python3-zstandard, python3-xxhash: the tests' own .zst reader
# (tests/lib/zst_read.py) and the README's numpy example; python3-pil: the
# tests' PNG reader (tests/preview/preview_check.py).
# libgdal-dev: the GDAL source (optional at build time: WINENT_GDAL).
# libproj-dev (and its proj-data): the CRS of --sidecar's ENVI headers.
# help2man: the man page made at build time; dpkg-dev (dpkg-shlibdeps): the
# .deb's dependencies (cpack -G DEB); groff-base: test_install renders the
# man page. python3-zstandard, python3-dask: the Python package's .zst
# reader and the dask example, and their tests.
# python3-xarray, -rioxarray, -rasterio, -distributed, -zarr: the xarray,
# dask.distributed, Zarr and COG paths of the Python package and their
# tests; python3-venv, -pip, -setuptools, -wheel: pip install . into a venv
# (tests/python/test_py_venv.py, tools/install-venv.sh); mypy: the
# package's type hints (tests/python/test_py_tool.py). man-db: `man
# winent-stream` after the quick start. slurmctld, slurmd, slurm-client,
# munge: a one-node SLURM that tests/slurm/test_slurm.sh starts for
# docs/SCALING.md's recipe, with daemons of its own (its ports, its files in
# a temporary folder; the packages' own services stay idle without an
# /etc/slurm/slurm.conf, which this script does not write).
pkgs="cmake gcc g++ make pkg-config libtiff-dev libzstd-dev zstd zlib1g-dev libpng-dev libcjson-dev libgdal-dev libdeflate-dev liblzma-dev libproj-dev \
python3 python3-numpy python3-skimage python3-pil python3-zstandard python3-xxhash python3-dask \
python3-xarray python3-rioxarray python3-rasterio python3-distributed python3-zarr python3-venv python3-pip python3-setuptools python3-wheel mypy gdal-bin python3-gdal time valgrind strace \
clang libclang-rt-dev libomp-dev llvm help2man dpkg-dev groff-base man-db \
slurmctld slurmd slurm-client munge"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "setup: installing$missing" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
