# SPDX-License-Identifier: BSD-3-Clause
"""winent.entropy() on the user's own kind of array, each
held to the CLI's map of the same samples bit for bit:

- numpy masked arrays (masked = nodata) for every dtype, with and without
  a nodata value: the CLI's map of the array with its masked pixels set to
  a nodata value no other pixel holds;
- dask arrays for every dtype, square and oblong windows, chunks that do
  not divide the image, nodata and NaN, bins, range="auto" (one range for
  the whole array, equal to the whole image's), 3-D (a map per band); the
  result lazy, with the input's chunks, no task ever holding the whole
  image; chunks too small for the window: an error that says what to
  rechunk (a small last chunk merged);
- xarray DataArrays, numpy- and dask-backed, from rioxarray.open_rasterio
  of a GeoTIFF (CRS, transform, nodata): the same dims, coords, CRS and
  transform, _FillValue NaN, long_name; masked=True (decoded to floats)
  read back as the integers; a band dim; the accessor."""
import math

from py_harness import (check, cli, cli_map, expect_raises, finish, mksample, need, path,
                        run_test, same_bits)

need("numpy", "dask", "xarray")
import dask  # noqa: E402
import dask.array as da  # noqa: E402
import numpy as np  # noqa: E402
import xarray as xr  # noqa: E402

import winent  # noqa: E402
from winent import _compute  # noqa: E402

RNG = np.random.default_rng(29)
W, H = 97, 71
DTYPES = {"u8": np.uint8, "i8": np.int8, "u16": np.uint16, "i16": np.int16, "u32": np.uint32,
          "i32": np.int32, "f32": np.float32, "f64": np.float64}


def sample(dtype, values=9, shape=(H, W)):
    base = RNG.integers(0, values, size=shape)
    dt = np.dtype(DTYPES[dtype])
    if dt.kind == "i":
        a = (base - values // 2) * (1 if dt.itemsize == 1 else 1000)
    elif dt.kind == "u":
        a = base * (1 if dt.itemsize == 1 else 3001)
    else:
        a = base * 0.37 - 1.0
    a = a.astype(dt)
    if dt.kind == "f":
        a[RNG.random(shape) < 0.03] = np.nan
    return a


def raw(a, name):
    p = path(name)
    a.astype(a.dtype.newbyteorder("<")).tofile(p)
    return p


def ref_map(a, dtype, *opts):
    return cli_map(raw(a, "in-%s.raw" % dtype), a.shape[1], a.shape[0], dtype, *opts)


def float_opts(dtype):
    """Float input needs a range: the CLI's options and winent's."""
    if DTYPES[dtype] in (np.float32, np.float64):
        return ["--bins", "32", "--range=-1.5:2.5"], {"bins": 32, "range": (-1.5, 2.5)}
    return [], {}


def test_masked():
    for dtype in DTYPES:
        a = sample(dtype)
        mask = RNG.random(a.shape) < 0.1
        mask[:5, :7] = True
        m = np.ma.masked_array(a, mask=mask)
        fopts, popts = float_opts(dtype)
        # The CLI's map of the same samples, the masked ones as an explicit nodata.
        filled = a.copy()
        if filled.dtype.kind == "f":
            filled[mask] = np.nan
            nd = []
        else:
            v = int(a.min()) - 1 if int(a.min()) > np.iinfo(a.dtype).min else int(a.max()) + 1
            filled[mask] = v
            nd = ["--nodata", str(v)]
        ref = ref_map(filled, dtype, "--window", "7", *nd, *fopts)
        got = winent.entropy(m, window=7, **popts)
        check("masked %s: a masked array back" % dtype, isinstance(got, np.ma.MaskedArray))
        check("masked %s: the CLI's map with the masked pixels as nodata" % dtype,
              ref is not None and same_bits(got.filled(np.nan), ref))
        check("masked %s: masked where the map is NaN" % dtype,
              np.array_equal(np.ma.getmaskarray(got), np.isnan(ref)) and mask[mask].all() and
              np.ma.getmaskarray(got)[mask].all())
        if dtype in ("u8", "i16"):
            # A nodata value too: both are skipped.
            nodata = a[0, 10]
            both = filled.copy()
            both[a == nodata] = v
            ref2 = ref_map(both, dtype, "--window", "7", *nd)
            got2 = winent.entropy(m, window=7, nodata=nodata)
            check("masked %s with nodata %s: both skipped" % (dtype, nodata),
                  ref2 is not None and same_bits(got2.filled(np.nan), ref2))
    # dask masked arrays: masked in, masked out, the same map.
    a = sample("i8")
    mask = RNG.random(a.shape) < 0.1
    m = np.ma.masked_array(a, mask=mask)
    lazy = winent.entropy(da.ma.masked_array(da.from_array(a, chunks=(20, 30)),
                                             mask=da.from_array(mask, chunks=(20, 30))),
                          window=7, range="auto")
    got = lazy.compute()
    want = winent.entropy(m, window=7, range="auto")
    check("dask masked i8, range auto: masked out, numpy's masked map",
          isinstance(got, np.ma.MaskedArray) and same_bits(got.filled(np.nan),
                                                           want.filled(np.nan)) and
          np.array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(want)))
    # range="auto" counts the unmasked samples only.
    a = sample("u16", values=40)
    m = np.ma.masked_array(a, mask=a >= 30 * 3001)
    filled = np.where(m.mask, 65535, a).astype(np.uint16)
    ref = ref_map(filled, "u16", "--window", "5", "--nodata", "65535", "--range", "auto")
    got = winent.entropy(m, window=5, range="auto")
    check("masked u16, range auto: the unmasked samples' range",
          ref is not None and same_bits(got.filled(np.nan), ref))


class _Shapes(dask.callbacks.Callback):
    """The largest array any task of a computation returned."""

    def __init__(self):
        super().__init__()
        self.largest = 0

    def _posttask(self, key, result, dsk, state, id):
        if isinstance(result, np.ndarray):
            self.largest = max(self.largest, result.size)


def test_dask_against_cli():
    for dtype in DTYPES:
        a = sample(dtype)
        fopts, popts = float_opts(dtype)
        for window, wopt, chunks in ((9, "9", (20, 33)), ((3, 7), "7x3", (16, 9)),
                                     (15, "15", (71, 97))):
            ref = ref_map(a, dtype, "--window", wopt, *fopts)
            lazy = winent.entropy(da.from_array(a, chunks=chunks), window=window, **popts)
            check("dask %s %s: lazy, float32, the input's chunks" % (dtype, wopt),
                  isinstance(lazy, da.Array) and lazy.dtype == np.float32 and
                  lazy.chunks == da.from_array(a, chunks=chunks).chunks, lazy)
            with _Shapes() as s, dask.config.set(scheduler="sync"):
                got = lazy.compute()
            check("dask %s %s chunks %s: the CLI's bits" % (dtype, wopt, chunks),
                  ref is not None and same_bits(got, ref))
            if chunks != (71, 97):
                # window=(rows, columns)
                ry, rx = window if isinstance(window, tuple) else (window,) * 2
                most = (chunks[0] + ry - 1) * (chunks[1] + rx - 1)
                check("dask %s %s: no task holds more than a block and its halo (%d, %d)"
                      % (dtype, wopt, s.largest, most), s.largest <= most)
    # nodata, and range="auto": one range for the whole array.
    a = sample("i16", values=30)
    nodata = int(a[3, 3])
    ref = ref_map(a, "i16", "--window", "9", "--nodata", str(nodata), "--range", "auto",
                  "--bins", "16")
    d = da.from_array(a, chunks=(10, 40))
    got = winent.entropy(d, window=9, nodata=nodata, range="auto", bins=16).compute()
    check("dask i16 nodata, range auto, bins 16: the CLI's bits", ref is not None and
          same_bits(got, ref))
    f = sample("f32", values=50) * 7
    f[np.isnan(f)] = -9999
    f[RNG.random(f.shape) < 0.02] = np.nan
    whole = _compute._auto_range(f, -9999)
    from winent import _dask
    part = _dask.auto_range(da.from_array(f, chunks=(13, 17)), -9999)
    check("dask range auto %r is the whole image's %r" % (part, whole), part == whole)
    ref = ref_map(f, "f32", "--window", "5", "--nodata", "-9999", "--range", "auto")
    got = winent.entropy(da.from_array(f, chunks=(13, 17)), window=5, nodata=-9999,
                         range="auto").compute(scheduler="threads")
    check("dask f32 nodata and NaN, range auto: the CLI's bits (not a range per block)",
          ref is not None and same_bits(got, ref))
    # 3-D: a map per band, range auto per band (the CLI's --band all).
    bands = np.stack([sample("u16", values=12), sample("u16", values=40)])
    got = winent.entropy(da.from_array(bands, chunks=(1, 30, 30)), window=5,
                         range="auto").compute()
    for b in range(2):
        ref = ref_map(bands[b], "u16", "--window", "5", "--range", "auto")
        check("dask 3-D band %d, range auto: the CLI's bits of that band" % b,
              ref is not None and same_bits(got[b], ref))
    check("numpy 3-D: the same maps", same_bits(winent.entropy(bands, window=5, range="auto"),
                                                got))


def test_dask_chunks_and_errors():
    a = sample("u8")
    e = expect_raises("chunks of 3 rows for a 9 x 9 window", winent.UsageError, winent.entropy,
                      da.from_array(a, chunks=(3, 50)), window=9, contains="rechunk")
    check("the message names the axis and the size", e is not None and
          "at least 4" in str(e) and "axis -2" in str(e), e)
    # A last chunk smaller than the halo is merged into the one before it.
    d = da.from_array(a, chunks=(34, 48))  # 71 = 34 + 34 + 3; 97 = 48 + 48 + 1
    got = winent.entropy(d, window=9)
    check("a small last chunk merged: chunks %r" % (got.chunks,),
          got.chunks == ((34, 37), (48, 49)))
    check("... and the CLI's bits", same_bits(got.compute(), ref_map(a, "u8", "--window", "9")))
    expect_raises("out= with a dask array", winent.UsageError, winent.entropy, d,
                  out=np.empty(a.shape, np.float32))
    expect_raises("a 1-D dask array", winent.UsageError, winent.entropy,
                  da.from_array(a.ravel(), chunks=100))


def geotiff(name, bands, nodata=None, dtype="uint16"):
    import rasterio
    from rasterio.transform import from_origin
    p = path(name)
    with rasterio.open(p, "w", driver="GTiff", width=bands.shape[2], height=bands.shape[1],
                       count=bands.shape[0], dtype=dtype, crs="EPSG:32633",
                       transform=from_origin(500000, 4600000, 30, 30), nodata=nodata,
                       tiled=True, blockxsize=16, blockysize=16) as f:
        f.write(bands)
    return p


def cli_tif_map(tif, *opts):
    out = path("cli-tif-map.raw")
    code, _ = cli(*opts, tif, out)
    if code != 0:
        return None
    import rasterio
    with rasterio.open(tif) as f:
        h, w = f.height, f.width
    return np.fromfile(out, "<f4").reshape(h, w)


def test_xarray():
    a = sample("u16", values=20)
    nodata = int(a[1, 1])
    tif = geotiff("geo.tif", a[None], nodata=nodata)
    ref = cli_tif_map(tif, "--window", "9", "--base", "2")
    need("rioxarray")
    import rioxarray
    src = rioxarray.open_rasterio(tif)
    src.attrs["description"] = "kept"
    got = winent.entropy(src, window=9, base=2)
    check("xarray: a DataArray with the same dims and coords",
          isinstance(got, xr.DataArray) and got.dims == src.dims and
          all(got[c].equals(src[c]) for c in src.coords), got)
    check("xarray: numpy-backed out", isinstance(got.data, np.ndarray))
    check("xarray: the CLI's bits (nodata from the file)", ref is not None and
          same_bits(got.values[0], ref))
    check("xarray: CRS and transform kept", got.rio.crs == src.rio.crs and
          got.rio.transform() == src.rio.transform(), (got.rio.crs, got.rio.transform()))
    check("xarray: nodata NaN, long_name, attrs", math.isnan(got.rio.nodata) and
          got.attrs["long_name"] == "entropy 9x9 (bits)" and got.attrs["description"] == "kept"
          and "scale_factor" not in got.attrs, got.attrs)
    # The library's default base, named.
    dflt = winent.entropy(src, window=(3, 7))
    unit = {"e": "nats", "2": "bits", "10": "bans"}[winent._arrays.default_base()]
    check("xarray: long_name of the default base (%s)" % unit,
          dflt.attrs["long_name"] == "entropy 7x3 (%s)" % unit, dflt.attrs)
    # dask-backed: lazy, the same bits.
    lazy = rioxarray.open_rasterio(tif, chunks=(1, 32, 48))
    got2 = lazy.winent.entropy(window=9, base=2)
    check("xarray dask: lazy out", isinstance(got2.data, da.Array))
    check("xarray dask (accessor): the CLI's bits", ref is not None and
          same_bits(got2.values[0], ref))
    check("xarray dask: CRS kept", got2.rio.crs == src.rio.crs)
    e = expect_raises("xarray dask: chunks too small", winent.UsageError, winent.entropy,
                      rioxarray.open_rasterio(tif, chunks=(1, 3, 48)), window=9)
    check("... the message names the dim to rechunk", e is not None and "'y'" in str(e) and
          "chunk({'y'" in str(e), e)
    # masked=True: floats with NaN; read back as the integers.
    got3 = winent.entropy(rioxarray.open_rasterio(tif, masked=True, chunks=(1, 40, 40)),
                          window=9, base=2)
    check("xarray masked=True: the CLI's bits", ref is not None and
          same_bits(got3.values[0], ref))
    # range auto through the nodata of the file.
    ref = cli_tif_map(tif, "--window", "5", "--range", "auto", "--bins", "64")
    got4 = winent.entropy(rioxarray.open_rasterio(tif, chunks=(1, 20, 20)), window=5,
                          range="auto", bins=64)
    check("xarray dask range auto: the CLI's bits", ref is not None and
          same_bits(got4.values[0], ref))
    # Recorded statistics (GDAL_METADATA), wider than the samples: taken as the CLI takes them.
    import rasterio
    dense = RNG.integers(0, 700, size=a.shape).astype(np.uint16)  # bins merge values
    tif3 = geotiff("geo-stats.tif", dense[None])
    with rasterio.open(tif3, "r+") as f:
        f.update_tags(1, STATISTICS_MINIMUM=str(int(dense.min()) - 300),
                      STATISTICS_MAXIMUM=str(int(dense.max()) + 500))
    ref = cli_tif_map(tif3, "--window", "5", "--range", "auto")
    for chunks in (None, (1, 25, 30)):
        got7 = winent.entropy(rioxarray.open_rasterio(tif3, chunks=chunks), window=5,
                              range="auto")
        check("xarray %s range auto from the file's statistics: the CLI's bits"
              % ("dask" if chunks else "numpy"), ref is not None and
              same_bits(got7.values[0], ref))
    check("... which is not the map of the samples' own range",
          not same_bits(winent.entropy(dense, window=5, range="auto"), ref))
    # Two bands: a map per band.
    b2 = np.stack([a, sample("u16", values=5)])
    tif2 = geotiff("geo2.tif", b2, nodata=nodata)
    got5 = winent.entropy(rioxarray.open_rasterio(tif2, chunks=(1, 30, 30)), window=5)
    for b in (1, 2):
        ref = cli_tif_map(tif2, "--window", "5", "--band", str(b))
        check("xarray band %d: the CLI's --band %d" % (b, b),
              ref is not None and same_bits(got5.values[b - 1], ref))
    # A plain DataArray: nodata from _FillValue, dims in another order.
    x = xr.DataArray(a.T, dims=("x", "y"), attrs={"_FillValue": nodata})
    got6 = winent.entropy(x, window=9, base=2)
    check("xarray (x, y) order, _FillValue: the same dims back, the CLI's bits",
          got6.dims == ("x", "y") and same_bits(got6.values.T, cli_tif_map(
              tif, "--window", "9", "--base", "2")))
    check("xarray with nodata: _FillValue NaN", math.isnan(got6.attrs["_FillValue"]))
    plain = winent.entropy(xr.DataArray(a, dims=("y", "x")), window=3)
    check("xarray integers without nodata: no _FillValue (no NaN can occur; as the CLI's "
          "GDAL_NODATA)", "_FillValue" not in plain.attrs and
          plain.encoding.get("_FillValue", 0) is None, (plain.attrs, plain.encoding))
    fl = winent.entropy(xr.DataArray(a.astype(np.float32), dims=("y", "x")), window=3,
                        bins=8, range=(0, 60000))
    check("xarray floats: _FillValue NaN", math.isnan(fl.attrs["_FillValue"]))
    cube = RNG.integers(0, 9, (2, 2, 13, 17)).astype(np.uint8)
    four = winent.entropy(xr.DataArray(cube, dims=("t", "b", "y", "x")), window=3)
    check("a 4-D DataArray: a map of each (t, b) plane", four.dims == ("t", "b", "y", "x") and
          same_bits(four.values, winent.entropy(cube, window=3)))


def test_sample_mksample_raw():
    # The CLI reading what winent-mksample wrote, through dask: a landscape
    # with holes of nodata.
    p = mksample("land.raw", 150, 90, "u16", "--kind", "landscape", "--values", "25",
                 "--holes", "0.1", "--nodata", "0")
    a = np.fromfile(p, "<u2").reshape(90, 150)
    ref = cli_map(p, 150, 90, "u16", "--window", "11", "--nodata", "0")
    got = winent.entropy(da.from_array(a, chunks=(25, 40)), window=11, nodata=0).compute()
    check("dask landscape with holes: the CLI's bits", same_bits(got, ref))


def test_import_order():
    import subprocess
    import sys
    code = ("import sys, winent; print('xarray' in sys.modules); import xarray as xr; "
            "print(hasattr(xr.DataArray([[1]]), 'winent'))")
    r = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    # As rioxarray's: the accessor registered at import, where xarray is
    # importable (no import hook).
    check("import winent registers the accessor with xarray",
          r.stdout.decode().split() == ["True", "True"], r.stdout + r.stderr)
    code = "import xarray as xr, winent; print(hasattr(xr.DataArray([[1]]), 'winent'))"
    r = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    check("xarray first, then winent: the accessor", r.stdout.decode().split() == ["True"],
          r.stdout + r.stderr)


run_test(test_import_order)
run_test(test_masked)
run_test(test_dask_against_cli)
run_test(test_dask_chunks_and_errors)
run_test(test_xarray)
run_test(test_sample_mksample_raw)
finish()
