# SPDX-License-Identifier: BSD-3-Clause
"""Read a Zarr store the CLI wrote the way a user would, with xarray and
zarr alone (no winent on the path), and compare it with the same map
written as a GeoTIFF (read by rasterio) or as raw float32:

    zarr_check.py same STORE REFERENCE.tif|REFERENCE.raw [NMAPS]
    zarr_check.py geo STORE REFERENCE.tif
    zarr_check.py int STORE REFERENCE.tif   (an --ot integer store, decoded)
"""
import sys

import numpy as np
import xarray as xr


def reference(path, nmaps, shape):
    if path.endswith(".tif"):
        import rasterio
        with rasterio.open(path) as r:
            return r.read()
    a = np.fromfile(path, dtype="<f4")
    return a.reshape((nmaps,) + shape)


def main():
    what, store, ref = sys.argv[1:4]
    ds = xr.open_zarr(store)  # consolidated metadata, no warning
    da = ds["entropy"]
    if what == "same":
        nmaps = int(sys.argv[4]) if len(sys.argv) > 4 else 1
        got = da.values if da.ndim == 3 else da.values[None]
        want = reference(ref, nmaps, got.shape[1:])
        assert got.dtype == np.float32, got.dtype
        assert got.shape == want.shape, (got.shape, want.shape)
        assert np.array_equal(got.view(np.uint32), want.astype(np.float32).view(np.uint32)), \
            "the store's bits differ from the reference's"
        assert da.attrs["units"] in ("bits", "nats", "bans"), da.attrs
        if nmaps > 1:
            assert list(da.dims) == ["band", "y", "x"], da.dims
            assert list(ds["band"].values) == list(range(1, nmaps + 1))
    elif what == "geo":
        import rasterio
        import rioxarray  # noqa: F401  (the .rio accessor)
        with rasterio.open(ref) as r:
            crs, transform = r.crs, r.transform
        assert da.rio.crs is not None and da.rio.crs.to_epsg() == crs.to_epsg(), da.rio.crs
        assert da.rio.transform().almost_equals(transform), (da.rio.transform(), transform)
        x0 = transform.c + transform.a / 2
        assert abs(float(ds.x[0]) - x0) < 1e-6, (float(ds.x[0]), x0)
        assert np.isnan(da.encoding["_FillValue"]), da.encoding
    elif what == "int":
        import rasterio
        with rasterio.open(ref) as r:
            codes = r.read(1)
            scale, nodata = r.scales[0], r.nodata
        raw = xr.open_zarr(store, mask_and_scale=False)["entropy"]
        assert raw.dtype == codes.dtype, (raw.dtype, codes.dtype)
        assert np.array_equal(raw.values, codes), "integer codes differ"
        assert raw.encoding.get("_FillValue", raw.attrs.get("_FillValue")) == nodata
        assert abs(da.encoding["scale_factor"] - scale) < 1e-12 * scale
        decoded = da.values
        assert np.array_equal(np.isnan(decoded), codes == nodata)
    else:
        raise SystemExit("unknown check %r" % what)
    print("ok", what, store)


if __name__ == "__main__":
    main()
