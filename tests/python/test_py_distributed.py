# SPDX-License-Identifier: BSD-3-Clause
"""The same bytes everywhere: the map of a
dask.distributed LocalCluster (worker processes, one thread each), of the
threaded scheduler, of winent.entropy on the whole numpy array and of
winent-stream on the same file are byte-identical, for every dtype, with
nodata and with range="auto". The cluster reads a GeoTIFF lazily through
rioxarray and writes Zarr from its workers (read back) and a COG through
rioxarray/GDAL with the CLI's georeferencing and nodata. Each worker
loads libwinent itself."""
import math
import os
import warnings

from py_harness import check, cli, cli_map, finish, need, path, run_test, same_bits

need("numpy", "dask", "distributed", "xarray")
import dask.array as da  # noqa: E402
import numpy as np  # noqa: E402

import winent  # noqa: E402

WORKERS = int(os.environ.get("WINENT_TEST_WORKERS", "3"))
W, H = 131, 97
DTYPES = {"u8": np.uint8, "i8": np.int8, "u16": np.uint16, "i16": np.int16, "u32": np.uint32,
          "i32": np.int32, "f32": np.float32, "f64": np.float64}


def sample(rng, dtype, values=11):
    base = rng.integers(0, values, size=(H, W))
    dt = np.dtype(DTYPES[dtype])
    if dt.kind == "i":
        a = (base - values // 2) * (1 if dt.itemsize == 1 else 777)
    elif dt.kind == "u":
        a = base * (1 if dt.itemsize == 1 else 2999)
    else:
        a = base * 0.41 - 1.0
        a[rng.random((H, W)) < 0.03] = np.nan
    return a.astype(dt)


def test_every_dtype(client):
    rng = np.random.default_rng(5)
    for dtype in DTYPES:
        a = sample(rng, dtype)
        nodata = a.flat[7] if DTYPES[dtype] not in (np.float32, np.float64) else a.flat[3]
        raw = path("in-%s.raw" % dtype)
        a.astype(a.dtype.newbyteorder("<")).tofile(raw)
        for what, cli_opts, opts in (
                ("nodata", ["--window", "9", "--nodata", repr(float(nodata))] +
                 (["--bins", "20", "--range=-1:3.5"] if a.dtype.kind == "f" else []),
                 dict(window=9, nodata=nodata,
                      **({"bins": 20, "range": (-1, 3.5)} if a.dtype.kind == "f" else {}))),
                ("range auto", ["--window", "7x5", "--range", "auto"],
                 dict(window=(5, 7), range="auto"))):
            ref = cli_map(raw, W, H, dtype, *cli_opts)
            whole = winent.entropy(a, **opts)
            # 3 x 3 blocks: corners, edges, a centre, and a last row and
            # column of blocks (7 rows, 11 columns) narrower than the
            # windows; more blocks would repeat these kinds at a task
            # scheduler's cost per block.
            d = da.from_array(a, chunks=(45, 60))
            on_cluster = client.compute(winent.entropy(d, **opts)).result()
            with warnings.catch_warnings():
                # dask warns of a local scheduler beside an active client: that is the point.
                warnings.simplefilter("ignore", UserWarning)
                threaded = winent.entropy(d, **opts).compute(scheduler="threads")
            check("%s %s: the CLI and numpy agree" % (dtype, what), same_bits(whole, ref))
            check("%s %s: the LocalCluster's bytes" % (dtype, what), same_bits(on_cluster, ref))
            check("%s %s: the threaded scheduler's bytes" % (dtype, what),
                  same_bits(threaded, ref))


def test_files(client):
    need("rioxarray", "rasterio", "zarr")
    import rasterio
    import rioxarray
    import xarray as xr
    from rasterio.transform import from_origin
    rng = np.random.default_rng(9)
    a = sample(rng, "u16", values=30)
    nodata = int(a[2, 2])
    tif = path("geo.tif")
    with rasterio.open(tif, "w", driver="GTiff", width=W, height=H, count=1, dtype="uint16",
                       crs="EPSG:32633", transform=from_origin(500000, 4600000, 30, 30),
                       nodata=nodata, tiled=True, blockxsize=32, blockysize=32) as f:
        f.write(a[None])
    cli_cog = path("cli.tif")
    code, _ = cli("--window", "9", "--range", "auto", tif, cli_cog)
    with rasterio.open(cli_cog) as f:
        ref, ref_crs, ref_tf, ref_nd = f.read(1), f.crs, f.transform, f.nodata
    src = rioxarray.open_rasterio(tif, chunks=(1, 40, 48))
    m = src.winent.entropy(window=9, range="auto")
    # Zarr, written by the workers.
    store = path("map.zarr")
    m.to_dataset().to_zarr(store, mode="w", compute=True)
    back = xr.open_zarr(store, decode_coords="all")["entropy"]
    check("Zarr from the cluster: the CLI's bits", same_bits(back.values[0], ref))
    check("Zarr: CRS and transform", back.rio.crs == ref_crs and
          back.rio.transform() == ref_tf, (back.rio.crs, back.rio.transform()))
    # A COG through rioxarray/GDAL.
    cog = path("map-cog.tif")
    m.rio.to_raster(cog, driver="COG", compress="zstd")
    with rasterio.open(cog) as f:
        got, crs, tf, nd = f.read(1), f.crs, f.transform, f.nodata
        layout = f.tags(ns="IMAGE_STRUCTURE").get("LAYOUT")
    check("COG: the CLI's pixels", same_bits(got, ref))
    check("COG: the CLI's CRS and transform", crs == ref_crs and tf == ref_tf, (crs, tf))
    check("COG: the CLI's nodata (%r, %r)" % (nd, ref_nd),
          nd is not None and ref_nd is not None and math.isnan(nd) and math.isnan(ref_nd))
    check("COG: GDAL's COG layout", layout == "COG", layout)


def test_workers_load_the_library(client):
    paths = client.run(lambda: winent.library_path())
    check("%d workers each loaded libwinent" % WORKERS, len(paths) == WORKERS and
          all(p == winent.library_path() for p in paths.values()), paths)
    pids = client.run(os.getpid)
    check("the workers are processes of their own", os.getpid() not in pids.values())


def main():
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=WORKERS, threads_per_worker=1, processes=True,
                      dashboard_address=None, memory_limit="1GiB") as cluster, \
            Client(cluster) as client:
        run_test(lambda: test_every_dtype(client))
        run_test(lambda: test_files(client))
        run_test(lambda: test_workers_load_the_library(client))
    finish()


if __name__ == "__main__":
    main()
