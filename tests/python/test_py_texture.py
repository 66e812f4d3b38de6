# SPDX-License-Identifier: BSD-3-Clause
"""winent.texture and winent.entropy(measure=): every measure from Python
gives the bytes of ``winent-stream --measure ...`` on the same raster, for
numpy, masked, xarray (and its accessor), dask (several blocks, chunks a
little larger than the halo, so every seam is a window's reach) and a
dask.distributed LocalCluster; and the maps agree with independent
oracles on small arrays: numpy histograms of each cropped window for the
diversity measures, scikit-image's graycomatrix/graycoprops of each
cropped window for the co-occurrence ones (float32 rounding)."""
import math
import os
import warnings

from py_harness import check, cli, expect_raises, finish, need, path, run_test, same_bits

need("numpy", "dask", "xarray", "rasterio")
import dask.array as da  # noqa: E402
import numpy as np  # noqa: E402
import xarray as xr  # noqa: E402

import winent  # noqa: E402

ALL = ["entropy", "renyi:2", "renyi:0.5", "simpson", "richness", "evenness", "majority",
       "glcm-entropy", "glcm-asm", "glcm-energy", "glcm-contrast", "glcm-dissimilarity",
       "glcm-homogeneity", "glcm-correlation", "glcm-mean", "glcm-variance",
       "glcm-cluster-shade", "glcm-cluster-prominence", "glcm-cond-entropy", "glcm-mutual-info"]
H, W = 61, 73
RNG = np.random.default_rng(39)


def landscape(dtype, values, scale=1):
    """Patches of classes with noise: windows of one class, of several."""
    yy, xx = np.mgrid[0:H, 0:W]
    a = ((xx // 9 + 2 * (yy // 7)) % values) + (RNG.random((H, W)) < 0.15) * \
        RNG.integers(0, values, (H, W))
    return ((a % values) * scale).astype(dtype)


def cli_maps(a, dtype, n, *options):
    """The CLI's maps (n, H, W) of raw input `a`: the bands of its GeoTIFF,
    read by GDAL (rasterio), with their descriptions."""
    import rasterio
    raw, out = path("in-%s.raw" % dtype), path("cli.tif")
    a.astype(a.dtype.newbyteorder("<")).tofile(raw)
    code, _ = cli("--quiet", "--size", "%dx%d" % (a.shape[1], a.shape[0]), "--dtype", dtype,
                  *options, raw, out)
    check("the CLI runs (%s)" % (options,), code == 0)
    if code != 0:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no georeferencing: rasterio says so
        with rasterio.open(out) as f:
            maps = f.read()
            cli_maps.descriptions = list(f.descriptions)
    check("the CLI wrote %d maps" % n, maps.shape == (n,) + a.shape, maps.shape)
    return maps


# (what, array, dtype, the CLI's options, texture's keywords)
def configs():
    u8 = landscape(np.uint8, 12)
    u16 = landscape(np.uint16, 40, 1500)
    u16[RNG.random(u16.shape) < 0.04] = 7
    f32 = landscape(np.float32, 30) * np.float32(0.37) - 2
    f32[RNG.random(f32.shape) < 0.03] = np.nan
    return [
        ("u8, 5 rows x 7 columns, defaults", u8, "u8", ["--window", "7x5"], dict(window=(5, 7))),
        ("u16, 16 levels over auto, d=2, 0 and 90 degrees, asymmetric, nodata", u16, "u16",
         ["--window", "9", "--levels", "16", "--distance", "2", "--angles", "0,90",
          "--asymmetric", "--nodata", "7"],
         dict(window=9, levels=16, distances=[2], angles=[0, np.pi / 2], symmetric=False,
              nodata=7)),
        ("f32 with NaN, 20 levels over 0:10, 45 degrees, base e", f32, "f32",
         ["--window", "5", "--levels", "20", "--range", "0:10", "--angles", "45", "--base", "e"],
         dict(window=5, levels=20, range=(0, 10), angles=[45], base="e")),
    ]


def test_every_measure_every_kind():
    for what, a, dtype, cli_opts, kw in configs():
        ref = cli_maps(a, dtype, len(ALL), "--measure", ",".join(ALL), *cli_opts)
        if ref is None:
            continue
        check("%s: the CLI's maps are not all NaN or equal" % what,
              all(np.nanmax(m) > np.nanmin(m) for m in ref[[0, 3, 7, 10]]))
        got = winent.texture(a, ALL, **kw)
        check("%s: numpy: shape %r" % (what, got.shape), got.shape == (len(ALL), H, W))
        for k, name in enumerate(ALL):
            check("%s: numpy %s: the CLI's bytes" % (what, name), same_bits(got[k], ref[k]))
        x = xr.DataArray(a, dims=("y", "x"), coords={"y": np.arange(H), "x": np.arange(W)})
        tx = x.winent.texture(ALL, **kw)
        check("%s: xarray: the CLI's bytes" % what, same_bits(tx.values, ref))
        cli_desc = [d.rsplit(" of band", 1)[0] for d in cli_maps.descriptions]
        check("%s: xarray: each map's description begins with the CLI's band's (%s)"
              % (what, cli_desc[:2]),
              all(p.startswith(c) for p, c in zip(tx["description"].values, cli_desc)))
        check("%s: xarray: the measure dim first, names in order" % what,
              tx.dims == ("measure", "y", "x") and list(tx["measure"].values) ==
              [winent_name(n, kw) for n in ALL], list(tx["measure"].values))
        lazy = winent.texture(da.from_array(a, chunks=(13, 17)), ALL, **kw)
        check("%s: dask: one chunk of every measure" % what, lazy.chunks[0] == (len(ALL),))
        check("%s: dask, 5 x 5 blocks: the CLI's bytes" % what,
              same_bits(lazy.compute(scheduler="threads"), ref))
        for k in (0, 3, 9):
            one = winent.entropy(a, measure=ALL[k], **{
                key: v for key, v in kw.items() if key in ("window", "nodata", "base", "range")},
                **({"bins": kw["levels"]} if "levels" in kw else {}),
                **({"range": "auto"} if "levels" in kw and "range" not in kw else {}))
            if ALL[k].startswith("glcm") and ("distances" in kw or "angles" in kw):
                continue  # entropy(measure=) takes the pairs' defaults
            check("%s: entropy(measure=%r): the CLI's bytes" % (what, ALL[k]),
                  same_bits(one, ref[k]))


def winent_name(name, kw):
    """The CLI's name of a map (its pairs' options where not the defaults)."""
    if not name.startswith("glcm"):
        return name
    tail = ""
    if kw.get("distances", 1) not in (1, [1]):
        tail += ":d%d" % (kw["distances"][0] if isinstance(kw["distances"], list)
                          else kw["distances"])
    angles = kw.get("angles")
    if angles is not None:
        deg = sorted({int(round(math.degrees(v))) if v < 3 else int(v) for v in angles})
        if len(deg) < 4:
            tail += ":a" + "+".join(str(d) for d in deg)
    if kw.get("symmetric") is False:
        tail += ":asym"
    return name + tail


def test_attrs_and_layouts():
    a = landscape(np.uint8, 9)
    x = xr.DataArray(np.stack([a, a[::-1]]), dims=("band", "y", "x"),
                     coords={"band": [1, 2]}, attrs={"units": "class"})
    t = winent.texture(x, ["glcm-entropy", "simpson", "majority"], window=15)
    check("band dim kept after measure", t.dims == ("measure", "band", "y", "x"), t.dims)
    desc = list(t["description"].values)
    check("each map described as the CLI names it, with its unit (%s)" % desc,
          desc == ["glcm-entropy 15x15 (bits)", "simpson 15x15", "majority 15x15"])
    check("units per map", list(t["units"].values) == ["bits", "", ""], t["units"].values)
    check("attrs: measures, distance, angles, symmetric",
          t.attrs["measures"] == ["glcm-entropy", "simpson", "majority"] and
          t.attrs["distance"] == 1 and t.attrs["angles"] == [0, 45, 90, 135] and
          t.attrs["symmetric"] == 1 and "units" not in t.attrs, t.attrs)
    ref = winent.texture(np.stack([a, a[::-1]]), ["glcm-entropy", "simpson", "majority"],
                         window=15)
    check("xarray band-first == numpy", same_bits(t.values, ref))
    rgb = np.moveaxis(np.stack([a, a[::-1], a[:, ::-1]]), 0, -1)
    m = winent.texture(rgb, ["entropy", "richness"], window=5, channel_axis=-1)
    check("channel_axis=-1: shape (measures,) + the input's", m.shape == (2,) + rgb.shape,
          m.shape)
    check("channel_axis=-1: the planes' maps",
          same_bits(m[1, :, :, 1], winent.texture(rgb[:, :, 1], "richness", window=5)[0]))
    masked = np.ma.masked_array(a, mask=RNG.random(a.shape) < 0.1)
    # (A masked u8 array is read as u16 with a nodata value past 255, so the
    # co-occurrence measures need levels= there.)
    mt = winent.texture(masked, ["simpson", "glcm-contrast"], window=5, levels=9)
    filled = np.where(masked.mask, 255, a).astype(np.uint8)
    check("masked: the map of its pixels as nodata",
          isinstance(mt, np.ma.MaskedArray) and same_bits(
              mt.filled(np.nan), winent.texture(filled, ["simpson", "glcm-contrast"], window=5,
                                                nodata=255, levels=9)))
    e = winent.entropy(xr.DataArray(a, dims=("y", "x")), window=5, measure="simpson")
    check("entropy(measure=) of a DataArray: named and described",
          e.name == "simpson" and e.attrs["long_name"] == "simpson 5x5" and
          e.attrs["measure"] == "simpson" and "units" not in e.attrs, (e.name, e.attrs))


def brute(a, ky, kx, fn):
    """fn(values of the cropped window) at every pixel."""
    out = np.empty(a.shape, np.float64)
    for y in range(a.shape[0]):
        for x in range(a.shape[1]):
            out[y, x] = fn(a[max(0, y - ky // 2):y + ky // 2 + 1,
                             max(0, x - kx // 2):x + kx // 2 + 1].ravel())
    return out


def _p(v):
    _, c = np.unique(v, return_counts=True)
    return c / c.sum()


def _majority(v):
    u, c = np.unique(v, return_counts=True)
    return float(u[np.argmax(c)])  # the first of the most frequent: the smallest


ORACLE = {
    "entropy": lambda v: -(_p(v) * np.log2(_p(v))).sum(),
    "renyi:2": lambda v: -np.log2((_p(v) ** 2).sum()),
    "simpson": lambda v: 1 - (_p(v) ** 2).sum(),
    "richness": lambda v: float(len(np.unique(v))),
    "evenness": lambda v: 0.0 if len(np.unique(v)) == 1 else
    -(_p(v) * np.log(_p(v))).sum() / math.log(len(np.unique(v))),
    "majority": _majority,
}


def close(got, want, rel=2e-6):
    return np.all(np.abs(got.astype(np.float64) - want) <= rel * np.maximum(1.0, np.abs(want)))


def test_histogram_oracle():
    a = RNG.integers(0, 6, (17, 23)).astype(np.uint8)
    a[:6, :8] = 3  # windows of one value: evenness 0, not NaN
    names = list(ORACLE)
    got = winent.texture(a, names, window=(5, 3))
    for k, n in enumerate(names):
        want = brute(a, 5, 3, ORACLE[n])
        check("%s: numpy's histogram of each cropped window" % n, close(got[k], want),
              np.abs(got[k] - want).max())


def test_glcm_oracle():
    try:
        from skimage.feature import graycomatrix, graycoprops
    except ImportError:
        print("scikit-image absent: the co-occurrence oracle skipped")
        return
    a = RNG.integers(0, 8, (15, 18)).astype(np.uint8)
    a[8:, 10:] = 2
    props = ["contrast", "ASM", "energy", "homogeneity", "correlation", "dissimilarity"]
    names = ["glcm-" + p.lower() for p in props]
    angles = [0, np.pi / 4, np.pi / 2, 3 * np.pi / 4]
    got = winent.texture(a, names, window=5, levels=8, range=(0, 8), angles=angles)
    want = {p: np.empty(a.shape) for p in props}
    for y in range(a.shape[0]):
        for x in range(a.shape[1]):
            win = a[max(0, y - 2):y + 3, max(0, x - 2):x + 3]
            per = {p: [] for p in props}
            for ang in angles:
                # The engine's pair at 45 degrees is (1, 1): graycomatrix's
                # offset round(d sin a), round(d cos a) needs d = sqrt(2).
                d = math.sqrt(2) if ang in (np.pi / 4, 3 * np.pi / 4) else 1
                g = graycomatrix(win, [d], [ang], levels=8, symmetric=True)
                if g.sum() == 0:
                    continue
                for p in props:
                    per[p].append(graycoprops(g, p)[0, 0])
            for p in props:
                want[p][y, x] = np.mean(per[p])
    for k, p in enumerate(props):
        check("glcm-%s: scikit-image's graycoprops of each cropped window" % p.lower(),
              close(got[k], want[p], 5e-6), np.abs(got[k] - want[p]).max())


def test_errors_name_arguments():
    a = landscape(np.uint8, 5)
    cases = [
        (dict(measures="glcm-bogus"), "measures='glcm-bogus': give a measure"),
        (dict(measures=["simpson", "simpson"]), "measures: simpson given twice"),
        (dict(measures="glcm-asm", distances=[1, 2]), "distances=[1, 2]: the co-occurrence"),
        (dict(measures="glcm-asm", distances=0), "distances=0: give one distance"),
        (dict(measures="glcm-asm", angles=[30]), "angles=[30]: give angles in radians"),
        (dict(measures="glcm-asm", levels=2000), "levels=2000: give at most 1024"),
        (dict(measures="glcm-asm", window=("disk", 2)), "measures='glcm-asm': the co-occurrence"),
        (dict(measures="renyi:-1"), "measures='renyi:-1': renyi's order"),
    ]
    for kw, text in cases:
        for kind, x in (("numpy", a), ("dask", da.from_array(a, chunks=30)),
                        ("xarray", xr.DataArray(a, dims=("y", "x")))):
            expect_raises("%s %r" % (kind, kw), winent.UsageError, winent.texture, x,
                          status=2, contains=text, **kw)
    expect_raises("u16 without levels", winent.UsageError, winent.texture,
                  a.astype(np.uint16), "glcm-entropy", contains="levels: a uint16 band")
    expect_raises("entropy(measure=) of no measure", winent.UsageError, winent.entropy, a,
                  measure="glcm", contains="measure='glcm': give one measure")


def test_distributed():
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        print("dask.distributed absent: the cluster case skipped")
        return
    what, a, dtype, cli_opts, kw = configs()[1]
    ref = cli_maps(a, dtype, len(ALL), "--measure", ",".join(ALL), *cli_opts)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None, memory_limit="1GiB") as cluster, \
            Client(cluster) as client:
        lazy = winent.texture(da.from_array(a, chunks=(20, 24)), ALL, **kw)
        got = client.compute(lazy).result()
        pids = set(client.run(os.getpid).values())
    check("LocalCluster of 2 worker processes: the CLI's bytes of every measure",
          ref is not None and same_bits(got, ref))
    check("the cluster's workers are processes of their own", os.getpid() not in pids)


def main():
    tests = (test_every_measure_every_kind, test_attrs_and_layouts, test_histogram_oracle,
             test_glcm_oracle, test_errors_name_arguments, test_distributed)
    for t in tests:
        if os.environ.get("WINENT_TEST_ONLY", t.__name__) == t.__name__:
            run_test(t)
    finish()


if __name__ == "__main__":  # the cluster's worker processes import this module again
    main()
