#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The Zarr output (docs/SPEC.md section 4): xarray.open_zarr reads the
# CLI's map bit for bit (one map, several, floats and --ot integers), with
# the CRS, transform and nodata a GeoTIFF of the same run carries; a store
# appears whole or not at all; only a Zarr store is replaced; a stream, a
# file or another folder is refused before anything is written.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
need_python numpy xarray zarr rasterio rioxarray
[ -x "$MK" ] || { echo "no winent-mksample: skipped"; exit 77; }
CHK="$WINENT_SRC/tests/zarr/zarr_check.py"
RUN="--quiet --device cpu"
cd "$T"

"$MK" --size 1100x700 --dtype u8 --kind landscape --values 40 --holes 0.02 --nodata 0 \
    --seed 5 --tiff --georef 32633,500000,4600000,30 lc.tif

# One map: the bits of the GeoTIFF of the same options, georeferenced.
"$WS" $RUN --window 9 lc.tif one.zarr
"$WS" $RUN --window 9 lc.tif one.tif
check "one map = the GeoTIFF's bits" "$PY" "$CHK" same one.zarr one.tif
check "CRS, transform and nodata as the GeoTIFF's" "$PY" "$CHK" geo one.zarr one.tif
check "a chunk is one zstd frame" sh -c "zstd -d -c one.zarr/entropy/0.0 | wc -c | grep -qx 1048576"

# Several maps (windows and a disk), small chunks, threads: a band dim.
"$WS" $RUN --window 5,9,disk3 --tile 128 --threads 2 lc.tif multi.zarr
"$WS" $RUN --window 5,9,disk3 --format raw lc.tif multi.raw
check "several maps = the raw maps' bits" "$PY" -c "
import numpy as np, xarray as xr
ds = xr.open_zarr('multi.zarr'); a = ds.entropy.values
names = ['multi_b1_w5.raw', 'multi_b1_w9.raw', 'multi_b1_disk3.raw']
for k, n in enumerate(names):
    want = np.fromfile(n, '<f4').reshape(a.shape[1:])
    assert np.array_equal(a[k].view(np.uint32), want.view(np.uint32)), n
assert list(ds.window.values) == ['5x5', '9x9', 'disk3'], ds.window.values
"

# --ot uint8: integer codes with CF's scale_factor and _FillValue.
"$WS" $RUN --window 7 --ot uint8 lc.tif small.zarr
"$WS" $RUN --window 7 --ot uint8 lc.tif small.tif
check "--ot uint8: codes, scale and nodata as the GeoTIFF's" "$PY" "$CHK" int small.zarr small.tif

# A second run replaces the store whole; nothing is left beside it.
"$WS" $RUN --window 3 lc.tif one.zarr
"$WS" $RUN --window 3 lc.tif three.tif
check "a store replaced by a new run" "$PY" "$CHK" same one.zarr three.tif
check "no temporary folder left" sh -c "! ls -a | grep -q tmp"

# Refused before anything is written.
mkdir notastore
expect_exit 2 "a folder that is not a store" "$WS" $RUN lc.tif notastore --format zarr
check "the folder is untouched" sh -c "[ -z \"\$(ls -A notastore)\" ]"
echo keep >afile.zarr
expect_exit 2 "a file named .zarr" "$WS" $RUN lc.tif afile.zarr
check "the file is untouched" grep -qx keep afile.zarr
expect_exit 2 "standard output" "$WS" $RUN lc.tif - --format zarr
expect_exit 2 "the store as its own output" "$WS" $RUN one.zarr one.zarr
expect_exit 2 "--sidecar" "$WS" $RUN --sidecar lc.tif side.zarr
check "no store from a refused run" sh -c "[ ! -e side.zarr ]"

# A failed run leaves the old store as it was.
"$WS" $RUN --window 5 lc.tif keep.zarr
cp -r keep.zarr before.zarr
head -c 5000 lc.tif >cut.tif
expect_exit 3 "a truncated input" "$WS" $RUN cut.tif keep.zarr
check "the old store is kept" diff -r keep.zarr before.zarr
check "no temporary folder left after a failure" sh -c "! ls -a | grep -q tmp"
finish
