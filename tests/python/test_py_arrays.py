# SPDX-License-Identifier: BSD-3-Clause
"""How winent.entropy() reads arrays, each held to an independent answer
(the CLI's map of the same samples, scikit-image, the map of each plane
alone):

- layouts by name: a DataArray's spatial dims found by their names in any
  order (y/x, lat/lon, rows/cols, CF attrs), before and after rioxarray is
  imported; dims that cannot be placed named in the error; numpy and dask
  bands-last images refused without channel_axis, mapped per channel with
  it; the result in the input's dim order with its coordinates;
- scipy's convention: window=(rows, columns), as footprint=np.ones(...)
  and scikit-image; window="90m" and units="map" on a georeferenced
  DataArray, the pixels stated in the attrs;
- any integer array whose values fit (int64, uint64), refused with the
  range where they do not;
- the CLI's notices as winent.SaturationWarning and winent.RangeWarning,
  once per array on the dask path;
- datacubes: (time, band, y, x), numpy- and dask-backed, every coordinate
  kept; the attrs of the CLI's GeoTIFF, through to_zarr and rio.to_raster;
- no import circle in the package."""
import ast
import os
import sys
import warnings

import subprocess

from py_harness import (CHILD_ENV, SRC, WS, check, cli_map, expect_raises, finish, need, path,
                        run_test, same_bits)

need("numpy", "dask", "xarray", "skimage")
import dask  # noqa: E402
import dask.array as da  # noqa: E402
import numpy as np  # noqa: E402
import xarray as xr  # noqa: E402
from skimage import data as skdata  # noqa: E402
from skimage.filters.rank import entropy as sk_entropy  # noqa: E402

import winent  # noqa: E402

RNG = np.random.default_rng(40)
ASTRO = skdata.astronaut()  # 512 x 512 x 3, uint8


def cli(*args):
    """The CLI's exit code and standard error, notices included (no --quiet)."""
    r = subprocess.run([WS] + [str(a) for a in args], env=CHILD_ENV, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    return r.returncode, r.stderr.decode("utf-8", "replace")


def plane_maps(cube, **opts):
    """The map of each plane of the last two axes, one 2-D call each."""
    flat = cube.reshape((-1,) + cube.shape[-2:])
    return np.stack([winent.entropy(np.ascontiguousarray(p), **opts) for p in flat]).reshape(
        cube.shape)


def recorded(fn, *args, **kw):
    """(result, the winent warnings fn raised)."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = fn(*args, **kw)
    return r, [x for x in w if issubclass(x.category, winent.Warning)]


def test_bands_last_numpy_and_dask():
    e = expect_raises("numpy 512x512x3 without channel_axis", winent.UsageError,
                      winent.entropy, ASTRO, window=5, contains="channel_axis")
    check("... the message names the shape", e is not None and "(512, 512, 3)" in str(e), e)
    want = np.stack([winent.entropy(np.ascontiguousarray(ASTRO[..., c]), window=5)
                     for c in range(3)], axis=-1)
    got = winent.entropy(ASTRO, window=5, channel_axis=-1)
    check("channel_axis=-1: the input's shape", got.shape == ASTRO.shape, got.shape)
    check("channel_axis=-1: each channel's own map", same_bits(got, want))
    ref = sk_entropy(ASTRO[..., 1], np.ones((5, 5), np.uint8)).astype(np.float32)
    check("channel_axis=-1: scikit-image's map of the green channel (within 1e-5)",
          float(np.abs(got[..., 1] - ref).max()) <= 1e-5)
    check("channel_axis=2 is channel_axis=-1",
          same_bits(winent.entropy(ASTRO, window=5, channel_axis=2), got))
    # Bands first, said so: 512 maps of 512 x 3.
    first = winent.entropy(ASTRO, window=3, channel_axis=0)
    check("channel_axis=0: bands first, as said", same_bits(first, plane_maps(ASTRO, window=3)))
    expect_raises("channel_axis=3 of a 3-D array", winent.UsageError, winent.entropy, ASTRO,
                  channel_axis=3, contains="channel_axis=3")
    expect_raises("channel_axis of a 2-D array", winent.UsageError, winent.entropy,
                  ASTRO[..., 0], channel_axis=0, contains="channel_axis")
    # Bands first and few of them: read bands first without channel_axis.
    cube = RNG.integers(0, 9, (3, 40, 50), dtype=np.uint8)
    check("(3, 40, 50): a map per band", same_bits(winent.entropy(cube), plane_maps(cube)))
    d = da.from_array(ASTRO, chunks=(128, 200, 3))
    expect_raises("dask 512x512x3 without channel_axis", winent.UsageError, winent.entropy, d,
                  contains="channel_axis")
    lazy = winent.entropy(d, window=5, channel_axis=-1)
    check("dask channel_axis=-1: lazy, the input's shape",
          isinstance(lazy, da.Array) and lazy.shape == ASTRO.shape)
    check("dask channel_axis=-1: numpy's bits", same_bits(lazy.compute(), got))
    masked = np.ma.masked_equal(ASTRO, 0)
    mm = winent.entropy(masked, window=5, channel_axis=-1)
    check("masked channel_axis=-1: a masked array of the input's shape",
          isinstance(mm, np.ma.MaskedArray) and mm.shape == ASTRO.shape)


def dataarray_checks(tag):
    for dims in (("y", "x", "band"), ("lat", "lon", "band"), ("latitude", "longitude", "b"),
                 ("rows", "cols", "channel")):
        a = xr.DataArray(ASTRO, dims=dims,
                         coords={dims[0]: np.arange(512) * -2.0, dims[1]: np.arange(512) * 3.0,
                                 dims[2]: ["r", "g", "b"]})
        m = a.winent.entropy(window=5)
        check("%s %r: the input's dims and shape" % (tag, dims),
              m.dims == dims and m.shape == ASTRO.shape, (m.dims, m.shape))
        want = plane_maps(np.moveaxis(ASTRO, -1, 0), window=5)
        check("%s %r: a map per band, the planes' own" % (tag, dims),
              same_bits(np.moveaxis(m.values, -1, 0), want))
        check("%s %r: coordinates kept" % (tag, dims),
              all(np.array_equal(m[d].values, a[d].values) for d in dims))
    # x before y: the rows are still y's.
    img = RNG.integers(0, 20, (30, 45), dtype=np.uint8)  # (y, x)
    t = xr.DataArray(img.T, dims=("x", "y"))
    m = winent.entropy(t, window=(3, 7))  # 3 rows of y, 7 columns of x
    check("%s (x, y): the map of the (y, x) image, transposed back" % tag,
          m.dims == ("x", "y") and same_bits(m.values.T, winent.entropy(img, window=(3, 7))))
    # CF's attrs name the axes of dims with other names.
    cf = xr.DataArray(img, dims=("north", "east"),
                      coords={"north": ("north", np.arange(30.0), {"axis": "Y"}),
                              "east": ("east", np.arange(45.0),
                                       {"standard_name": "projection_x_coordinate"})})
    check("%s CF axis attrs: the spatial dims" % tag,
          same_bits(winent.entropy(cf).values, winent.entropy(img)))
    e = expect_raises("%s dims ('a', 'b'): refused" % tag, winent.UsageError, winent.entropy,
                      xr.DataArray(img, dims=("a", "b")), contains="'a'")
    check("%s ... naming both dims" % tag, e is not None and "'b'" in str(e), e)
    expect_raises("%s two x dims" % tag, winent.UsageError, winent.entropy,
                  xr.DataArray(ASTRO, dims=("y", "x", "lon")), contains="'x', 'lon'")
    expect_raises("%s channel_axis with a DataArray" % tag, winent.UsageError, winent.entropy,
                  xr.DataArray(img, dims=("y", "x")), channel_axis=0, contains="names")


def test_dataarray_without_rioxarray():
    if not check("rioxarray is not imported yet", "rioxarray" not in sys.modules):
        return
    dataarray_checks("no rioxarray:")


def test_dataarray_with_rioxarray():
    try:
        import rioxarray  # noqa: F401
    except ImportError:
        print("SKIP part: no rioxarray (Debian: apt-get install python3-rioxarray)")
        return
    dataarray_checks("rioxarray:")
    img = RNG.integers(0, 20, (30, 45), dtype=np.uint8)
    a = xr.DataArray(img, dims=("u", "v")).rio.set_spatial_dims(x_dim="u", y_dim="v")
    got = a.rio.x_dim == "u" and winent.entropy(a, window=(3, 5))
    check("rioxarray's own spatial dims (set_spatial_dims): v rows, u columns",
          got is not False and same_bits(got.values.T, winent.entropy(img.T, window=(3, 5))))


def test_window_rows_columns():
    img = RNG.integers(0, 30, (61, 83), dtype=np.uint8)
    raw = path("w.raw")
    img.tofile(raw)
    ref = cli_map(raw, 83, 61, "u8", "--window", "7x3")  # 7 wide, 3 high
    tup = winent.entropy(img, window=(3, 7))
    check("window=(3, 7) is 3 rows by 7 columns: the CLI's --window 7x3", same_bits(tup, ref))
    check("... footprint=np.ones((3, 7)) the same",
          same_bits(winent.entropy(img, footprint=np.ones((3, 7), np.uint8)), tup))
    check("... window='7x3' (the CLI's WxH) the same", same_bits(winent.entropy(img,
                                                                               window="7x3"), tup))
    sk = sk_entropy(img, np.ones((3, 7), np.uint8)).astype(np.float32)
    check("... scikit-image's footprint (3, 7) within 1e-5", float(np.abs(tup - sk).max()) <= 1e-5)
    d = winent.entropy(da.from_array(img, chunks=(20, 30)), window=(3, 7)).compute()
    check("dask window=(3, 7): the same", same_bits(d, tup))
    out = path("w.zst")
    winent.run(raw, out, size=(83, 61), dtype="u8", window=(3, 7))
    m, header = winent.read_zst(out)
    check("winent.run window=(3, 7): the same map, header window [7, 3] (WxH)",
          same_bits(m, tup) and header["window"] == [7, 3], header.get("window"))


def georef(img, xres=30.0, yres=-10.0, units="metre"):
    h, w = img.shape
    return xr.DataArray(img, dims=("y", "x"), coords={
        "y": ("y", 4600000 + yres * (np.arange(h) + 0.5), {"units": units}),
        "x": ("x", 500000 + xres * (np.arange(w) + 0.5), {"units": units})})


def test_window_map_units():
    img = RNG.integers(0, 30, (80, 90), dtype=np.uint8)
    a = georef(img)
    for text, rows, cols in (("90m", 9, 3), ("100m", 11, 3), ("0.15km", 15, 5), ("10m", 1, 1)):
        m = a.winent.entropy(window=text)
        check("window=%r on 30 x 10 m pixels: %d rows x %d columns" % (text, rows, cols),
              same_bits(m.values, winent.entropy(img, window=(rows, cols))))
        check("... stated in the attrs", m.attrs.get("window_distance") == text and
              m.attrs.get("window") == "%dx%d" % (cols, rows) and
              m.attrs.get("window_size") == [rows, cols], m.attrs)
    m = a.winent.entropy(window=(90, 150), units="map")
    check("window=(90, 150), units='map': 9 rows x 5 columns",
          same_bits(m.values, winent.entropy(img, window=(9, 5))) and
          "map units" in m.attrs.get("window_distance", ""), m.attrs)
    expect_raises("'90m' where the coordinates say degrees", winent.UsageError, winent.entropy,
                  georef(img, 0.001, -0.001, "degrees_east"), window="90m",
                  contains="units='map'")
    bare = xr.DataArray(img, dims=("y", "x"), coords={"y": np.arange(80.0), "x": np.arange(90.0)})
    expect_raises("'90m' without any units", winent.UsageError, winent.entropy, bare,
                  window="90m", contains="unknown")
    check("units='map' on bare coordinates: the CRS's units",
          same_bits(winent.entropy(bare, window=5, units="map").values,
                    winent.entropy(img, window=5)))
    irregular = xr.DataArray(img, dims=("y", "x"),
                             coords={"y": np.arange(80.0) ** 2, "x": np.arange(90.0)})
    expect_raises("map units on irregular coordinates", winent.UsageError, winent.entropy,
                  irregular, window=5, units="map", contains="evenly")
    expect_raises("map units for a numpy array", winent.UsageError, winent.entropy, img,
                  window=5, units="map", contains="DataArray")
    try:
        import rioxarray  # noqa: F401
    except ImportError:
        print("SKIP part: no rioxarray")
        return
    geo = georef(img, 0.001, -0.001, "").rio.write_crs("EPSG:4326")
    expect_raises("'90m' with a geographic CRS", winent.UsageError, winent.entropy, geo,
                  window="90m", contains="not in metres")
    utm = georef(img, 30.0, -30.0, "").rio.write_crs("EPSG:32633")
    check("'90m' with a UTM CRS: 3 x 3",
          same_bits(utm.winent.entropy(window="90m").values, winent.entropy(img, window=3)))


def test_integers():
    small = RNG.integers(0, 300, (50, 60))
    check("int64 is numpy's default integer", small.dtype == np.int64)
    check("int64 0..299: the uint16 map", same_bits(winent.entropy(small, window=7),
                                                    winent.entropy(small.astype(np.uint16),
                                                                   window=7)))
    neg = RNG.integers(-5, 6, (50, 60))
    check("int64 -5..5: the int8 map", same_bits(winent.entropy(neg, window=5, nodata=-5),
                                                 winent.entropy(neg.astype(np.int8), window=5,
                                                                nodata=-5)))
    big = (RNG.integers(0, 40, (50, 60)) * 100_000_000).astype(np.uint64)  # up to 3.9e9
    check("uint64 up to 3.9e9: the uint32 map", same_bits(winent.entropy(big),
                                                          winent.entropy(big.astype(np.uint32))))
    huge = small.astype(np.uint64)
    huge[3, 4] = 2**40
    e = expect_raises("uint64 2^40: refused, never wrapped", winent.UsageError, winent.entropy,
                      huge, contains=str(2**40))
    check("... the message names the types' range", e is not None and "4294967295" in str(e), e)
    wide = small.copy()
    wide[0, 0] = -1
    wide[0, 1] = 3_000_000_000
    expect_raises("int64 -1 .. 3e9 fits neither int32 nor uint32", winent.UsageError,
                  winent.entropy, wide, contains="-1 to 3000000000")
    d = winent.entropy(da.from_array(small, chunks=(20, 25)), window=7).compute()
    check("dask int64: the uint16 map", same_bits(d, winent.entropy(small.astype(np.uint16),
                                                                    window=7)))
    dh = winent.entropy(da.from_array(huge, chunks=(20, 25)))
    expect_raises("dask uint64 2^40: refused when computed", winent.UsageError, dh.compute,
                  contains=str(2**40))
    half, _ = recorded(winent.entropy, small.astype(np.float16), range=(0, 300))
    single, _ = recorded(winent.entropy, small.astype(np.float16).astype(np.float32),
                         range=(0, 300))
    check("float16: the float32 map", same_bits(half, single))


def test_saturation_warning():
    img = RNG.integers(0, 60000, (64, 80), dtype=np.uint16)
    raw = path("sat.raw")
    img.tofile(raw)
    _, err = cli("--size", "80x64", "--dtype", "u16", "--window", "9", raw, path("sat.zst"))
    check("the CLI says the map is saturated", "saturated" in err, err)
    m, ws = recorded(winent.entropy, img, window=9)
    sat = [w for w in ws if w.category is winent.SaturationWarning]
    check("numpy: one SaturationWarning", len(sat) == 1, [str(w.message) for w in ws])
    check("... a winent.Warning and a UserWarning",
          issubclass(winent.SaturationWarning, winent.Warning) and
          issubclass(winent.SaturationWarning, UserWarning))
    check("... in Python's words", sat and "bins=16, range='auto'" in str(sat[0].message) and
          "log2(81)" in str(sat[0].message), sat and str(sat[0].message))
    check("... the line points at the caller", sat and sat[0].filename == __file__,
          sat and sat[0].filename)
    numpy_line = str(sat[0].message) if sat else None
    quiet = RNG.integers(0, 4, (64, 80), dtype=np.uint8)
    quiet.tofile(path("q.raw"))
    _, err = cli("--size", "80x64", "--dtype", "u8", "--window", "9", path("q.raw"),
                 path("q.zst"))
    _, ws = recorded(winent.entropy, quiet, window=9)
    check("4 values: neither the CLI nor Python warns", "saturated" not in err and not ws,
          (err, [str(w.message) for w in ws]))
    _, ws = recorded(winent.entropy, img, window=9, bins=16, range="auto")
    check("quantized (bins=16): no warning", not ws, [str(w.message) for w in ws])
    # dask: once per array, when its last block is computed.
    lazy, ws = recorded(winent.entropy, da.from_array(img, chunks=(16, 20)), window=9)
    check("dask: no warning before compute", not ws)
    with dask.config.set(scheduler="threads"):
        got, ws = recorded(lazy.compute)
    sat = [w for w in ws if w.category is winent.SaturationWarning]
    check("dask, 16 blocks: one SaturationWarning", len(sat) == 1, len(sat))
    check("... the same map and the same line as numpy's (the halo not counted again)",
          same_bits(got, m) and sat and str(sat[0].message) == numpy_line,
          sat and str(sat[0].message))
    with dask.config.set(scheduler="threads"):
        _, ws = recorded(lazy.compute)
    check("dask, computed again: one more", len(ws) == 1, len(ws))
    x = xr.DataArray(img, dims=("y", "x"))
    _, ws = recorded(x.winent.entropy, window=9)
    check("DataArray: one SaturationWarning",
          [w.category for w in ws] == [winent.SaturationWarning])


def test_range_warning():
    f = np.linspace(0, 1, 60 * 70, dtype=np.float32).reshape(60, 70)
    raw = path("f.raw")
    f.tofile(raw)
    _, err = cli("--size", "70x60", "--dtype", "f32", "--range", "0:0.5", raw, path("f1.zst"))
    check("the CLI warns of clamped samples", "outside" in err, err)
    _, ws = recorded(winent.entropy, f, range=(0, 0.5))
    numpy_line = str(ws[0].message) if ws else ""
    check("numpy: one RangeWarning naming range=", [w.category for w in ws] ==
          [winent.RangeWarning] and "range=(0, 0.5)" in str(ws[0].message),
          [str(w.message) for w in ws])
    _, err = cli("--size", "70x60", "--dtype", "f32", "--range", "0:100", raw, path("f2.zst"))
    _, ws = recorded(winent.entropy, f, range=(0, 100))
    check("a range far too wide: the CLI and Python warn", "span only" in err and
          [w.category for w in ws] == [winent.RangeWarning] and
          "span only 1.00 %" in str(ws[0].message), (err, [str(w.message) for w in ws]))
    _, ws = recorded(winent.entropy, f, range=(0, 1))
    check("the right range: no warning", not ws, [str(w.message) for w in ws])
    lazy = winent.entropy(da.from_array(f, chunks=(20, 30)), range=(0, 0.5))
    with dask.config.set(scheduler="threads"):
        _, ws = recorded(lazy.compute)
    check("dask, 9 blocks: one RangeWarning", [w.category for w in ws] == [winent.RangeWarning],
          [str(w.message) for w in ws])
    check("... counting each sample once (the halo not again): numpy's line",
          ws and str(ws[0].message) == numpy_line and "(2100 of 4200)" in numpy_line,
          ws and (str(ws[0].message), numpy_line))
    with warnings.catch_warnings():
        warnings.simplefilter("error", winent.RangeWarning)
        expect_raises("filterwarnings('error', category=winent.RangeWarning)",
                      winent.RangeWarning, winent.entropy, f, range=(0, 0.5))


def cube_dataarray(chunked):
    c = RNG.integers(0, 12, (2, 3, 40, 50), dtype=np.uint8)
    a = xr.DataArray(c, dims=("time", "band", "y", "x"), coords={
        "time": np.array(["2024-01-01", "2024-02-01"], dtype="datetime64[ns]"),
        "band": ["red", "green", "nir"], "y": np.arange(40) * -10.0, "x": np.arange(50) * 10.0,
        "epsg": 32633, "cloud": ("time", [0.1, 0.5])}, attrs={"title": "kept"})
    return c, (a.chunk({"time": 1, "band": 1, "y": 16, "x": 20}) if chunked else a)


def test_datacube():
    for chunked in (False, True):
        tag = "dask" if chunked else "numpy"
        c, a = cube_dataarray(chunked)
        m = a.winent.entropy(window=5)
        check("%s (time, band, y, x): accepted, dims kept" % tag,
              m.dims == a.dims and m.shape == a.shape)
        check("%s cube: lazy where the input is" % tag, isinstance(m.data, da.Array) == chunked)
        check("%s cube: each plane's own map" % tag,
              same_bits(m.values, plane_maps(c, window=5)))
        check("%s cube: every coordinate kept" % tag,
              set(m.coords) == set(a.coords) and
              all(np.array_equal(m[k].values, a[k].values) for k in a.coords))
        f = (c.astype(np.float32) * 0.37) ** 1.5
        fa = a.copy(data=f if not chunked else da.from_array(f, chunks=(1, 1, 16, 20)))
        fm = fa.winent.entropy(window=5, range="auto")
        check("%s cube, range='auto': one range per plane" % tag,
              same_bits(fm.values, plane_maps(f, window=5, range="auto")))
        # Bands last, by name.
        t = a.transpose("y", "x", "time", "band")
        mt = t.winent.entropy(window=5)
        check("%s (y, x, time, band): the same maps in that order" % tag,
              mt.dims == t.dims and same_bits(mt.transpose(*a.dims).values, m.values))


def test_attrs():
    _, a = cube_dataarray(False)
    one = a.isel(time=0, band=0)
    m = one.winent.entropy(window=(3, 5), bins=16, range=(0, 12), nodata=11)
    at = m.attrs
    check("attrs: units, long_name, provenance",
          at.get("units") == "bits" and at.get("long_name") == "entropy 5x3 (bits)" and
          at.get("window") == "5x3" and at.get("window_size") == [3, 5] and
          at.get("base") == "2" and at.get("bins") == 16 and at.get("range") == "0:12" and
          at.get("nodata") == 11.0 and at.get("version") == winent.__version__ and
          at.get("title") == "kept", at)
    check("attrs: base e is nats", one.winent.entropy(base="e").attrs.get("units") == "nats")
    check("attrs: distinct values",
          one.winent.entropy().attrs.get("bins") == "distinct values")
    f = one.astype(np.float32)
    fa = f.winent.entropy(range="auto")
    check("attrs: range='auto' of one plane states the range found",
          fa.attrs.get("range") == "0:%.17g" % float(f.max()) and fa.attrs.get("bins") == 256,
          fa.attrs)
    try:
        import zarr  # noqa: F401
        store = path("m.zarr")
        m.to_dataset().to_zarr(store, mode="w")
        back = xr.open_zarr(store)["entropy"]
        check("to_zarr carries the attrs", all(back.attrs.get(k) == at[k] for k in
                                               ("units", "window", "base", "bins", "range",
                                                "version")), back.attrs)
    except ImportError:
        print("SKIP part: no zarr")
    try:
        import rasterio
        import rioxarray  # noqa: F401
    except ImportError:
        print("SKIP part: no rioxarray")
        return
    tif = path("m.tif")
    g = m.rio.write_crs("EPSG:32633")
    g.rio.to_raster(tif)
    with rasterio.open(tif) as src:
        tags = src.tags()
        desc = src.descriptions
    check("rio.to_raster writes the provenance as GDAL metadata",
          tags.get("window") == "5x3" and tags.get("version") == winent.__version__ and
          tags.get("range") == "0:12" and tags.get("base") == "2" and
          tags.get("units") == "bits", tags)
    check("... and long_name as the band's description", desc == ("entropy 5x3 (bits)",), desc)


def test_no_import_circle():
    pkg = os.path.join(SRC, "python", "winent")
    graph = {}
    for name in os.listdir(pkg):
        if not name.endswith(".py"):
            continue
        mod = name[:-3]
        tree = ast.parse(open(os.path.join(pkg, name)).read())
        deps = set()
        for node in ast.walk(tree):  # imports inside functions too
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    deps.add(node.module.split(".")[0])
                else:
                    deps.update(a.name for a in node.names)
        graph[mod] = deps & {f[:-3] for f in os.listdir(pkg) if f.endswith(".py")}
    state = {}
    cycle = []

    def visit(m, stack):
        state[m] = 1
        for d in sorted(graph.get(m, ())):
            if state.get(d) == 1 and not cycle:
                cycle.extend(stack[stack.index(d):] + [d])
            elif d not in state:
                visit(d, stack + [d])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    check("python/winent: no import circle", not cycle, " -> ".join(cycle))
    check("no import hook left on sys.meta_path",
          not any(type(f).__module__.startswith("winent") for f in sys.meta_path))
    check("the accessor is registered", hasattr(xr.DataArray, "winent"))


run_test(test_bands_last_numpy_and_dask)
run_test(test_dataarray_without_rioxarray)
run_test(test_dataarray_with_rioxarray)
run_test(test_window_rows_columns)
run_test(test_window_map_units)
run_test(test_integers)
run_test(test_saturation_warning)
run_test(test_range_warning)
run_test(test_datacube)
run_test(test_attrs)
run_test(test_no_import_circle)
finish()
