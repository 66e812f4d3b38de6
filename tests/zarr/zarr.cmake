# SPDX-License-Identifier: BSD-3-Clause
# The Zarr store output: xarray (with zarr, without winent) reads back the
# CLI's bytes, CRS, transform and nodata (test_zarr.sh).
winent_sh_test(test_zarr test_zarr.sh)
