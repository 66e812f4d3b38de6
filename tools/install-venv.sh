#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The Python package into a virtual environment: the quick start's last
# step (tools/quickstart.sh), and what the README's "Five lines of Python"
# run in.
#
#     sh tools/install-venv.sh [BUILD [VENV]]      (defaults: build, venv)
#
# Debian's /usr/bin/python3 makes the venv, named explicitly: its pip,
# setuptools and wheel (python3-venv, -pip, -setuptools, -wheel) build the
# package, where another python3 first on PATH (pyenv, a conda base) may
# lack wheel and pip then stops with "invalid command 'bdist_wheel'".
# --system-site-packages: numpy, dask, xarray and rasterio come from
# Debian, so nothing is downloaded (--no-index). The library is BUILD's,
# copied into the package (WINENT_PREBUILT_LIBRARY), not compiled again.
# WINENT_VENV_PYTHON picks another interpreter (one with pip, setuptools
# and wheel).
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
venv=${2:-venv}
python=${WINENT_VENV_PYTHON:-/usr/bin/python3}
lib="$build/lib/libwinent.so.0"
if [ ! -f "$lib" ]; then
    echo "install-venv: no $lib: build first (cmake --build $build)" >&2
    exit 1
fi
lib="$(cd "$(dirname "$lib")" && pwd)/libwinent.so.0"
"$python" -m venv --system-site-packages "$venv"
WINENT_PREBUILT_LIBRARY="$lib" "$venv/bin/pip" install --quiet --no-build-isolation --no-index .
"$venv/bin/python" -c 'import sys, winent
print("install-venv: winent %s in %s (%s)" % (winent.__version__, sys.prefix, sys.version.split()[0]))'
