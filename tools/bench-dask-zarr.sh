#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench-dask-zarr.sh - the dask path against the command on the same
# GeoTIFF, alternated round by round: rioxarray.open_rasterio(chunks=...)
# -> data_array.winent.entropy(window=K) -> to_zarr on a dask.distributed
# LocalCluster of one-thread worker processes, against
# `winent-stream --window K IN.tif OUT.tif` writing a COG (its default).
#
#   tools/bench-dask-zarr.sh [--build DIR] [--size N] [--window K]
#                            [--rounds R] [--workers W] [--chunk C] [--dir D]
#
#   --build DIR   build folder with src/winent-stream and lib/ (default build)
#   --size N      an N x N u8 landscape GeoTIFF, 512-pixel tiles, deflate
#                 (default 8192)
#   --window K    (default 9)
#   --rounds R    rounds, each the CLI, dask, then dask without the map (default 3)
#   --workers W   LocalCluster worker processes of one thread each (default 2)
#   --chunk C     dask chunks of C x C (default 2048: the file's tiles, 16 blocks
#                 of an 8192 raster, 8 per worker)
#   --dir D       where the files go (default a temporary folder, removed)
#
# The cluster is started once, before the rounds (a user's cluster is up
# already); its start-up is reported apart. Each run's line on standard
# error; last, on standard output, a Markdown table of the median seconds
# and Mpixel/s of each path and the dask path's throughput over the CLI's;
# each round also times the dask path without the map (the GeoTIFF's
# samples read and written to Zarr), the part of it that is not winent's.
# Debian's /usr/bin/python3 with numpy, rasterio, rioxarray, dask,
# distributed and zarr (PYTHON= to change).
set -u
B=build
N=8192
K=9
ROUNDS=3
WORKERS=2
CHUNK=2048
DIR=
while [ $# -gt 0 ]; do
    case $1 in
    --build) B=${2:?}; shift ;;
    --size) N=${2:?}; shift ;;
    --window) K=${2:?}; shift ;;
    --rounds) ROUNDS=${2:?}; shift ;;
    --workers) WORKERS=${2:?}; shift ;;
    --chunk) CHUNK=${2:?}; shift ;;
    --dir) DIR=${2:?}; shift ;;
    --help | -h) sed -n '3,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-dask-zarr.sh: unknown option $1 (--help)" >&2; exit 2 ;;
    esac
    shift
done
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/bench-lib.sh"
ROOT=$(cd "$HERE/.." && pwd)
B=$(cd "$B" && pwd) || exit 2
PY=${PYTHON:-/usr/bin/python3}
if [ -z "$DIR" ]; then
    DIR=$(mktemp -d "${TMPDIR:-/tmp}/bench-dask-zarr.XXXXXX") || exit 1
    trap 'rm -rf "$DIR"' EXIT INT TERM
fi

# The input: a u8 landscape as a tiled, deflated GeoTIFF with a CRS (kept
# from an earlier run in --dir).
[ -s "$DIR/in.tif" ] || {
landscape_raw "$DIR/in.raw" "$N" "$N" "$PY"
envi_hdr "$DIR/in.hdr" "$N" "$N" 1
gdal_translate -q -of GTiff -a_srs EPSG:32633 -a_ullr 500000 4600000 $((500000 + 30 * N)) \
    $((4600000 - 30 * N)) -co TILED=YES -co BLOCKXSIZE=512 -co BLOCKYSIZE=512 \
    -co COMPRESS=DEFLATE "$DIR/in.raw" "$DIR/in.tif" || exit 1
rm -f "$DIR/in.raw" "$DIR/in.hdr"
}
echo "machine: $(machine); input ${N}x${N} u8 GeoTIFF (512 tiles, deflate), window $K" >&2

PYTHONPATH="$ROOT/python" WINENT_LIBRARY="$B/lib/libwinent.so.0" "$PY" "$HERE/bench-dask-zarr.py" \
    "$B/src/winent-stream" "$DIR" "$K" "$ROUNDS" "$WORKERS" "$CHUNK" "$N"
