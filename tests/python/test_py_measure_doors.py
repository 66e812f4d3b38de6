# SPDX-License-Identifier: BSD-3-Clause
"""The measures through every door, by class (what tests/python/doors_fuzz.py
found, each kept small and deterministic):

- a several-map output with integer --ot has one scale, and every header
  says it (the raw maps' ENVI headers gave each map's own);
- an output names a nodata code where a map can be NaN with no nodata in
  the input (a co-occurrence window without a pair), in GeoTIFF, .zst and
  Zarr;
- --ot refuses what its samples cannot hold: a majority's classes that
  would share integer codes, negative values in unsigned
  codes (a majority of signed values, found from the file's type at the
  run too), values past 65504 in float16 (a cluster prominence, a u16
  majority);
- co-occurrence options that no pair fits (all-NaN maps) are refused by the
  CLI and by Python alike, and --levels with --bins by the CLI;
- a Zarr store names each map's measure, and units only where it has them;
- the saturation notice and SaturationWarning speak of each measure that
  can saturate in its own words (and of no other), RangeWarning of every
  measure.
"""
import re
import subprocess
import warnings

from py_harness import CHILD_ENV, WS, check, cli, expect_raises, finish, need, path, run_test

need("numpy", "rasterio", "xarray", "zarr")
import numpy as np  # noqa: E402
import rasterio  # noqa: E402
import xarray as xr  # noqa: E402

import winent  # noqa: E402

RNG = np.random.default_rng(40)
A = RNG.integers(0, 6, (12, 14)).astype(np.uint8)


def raw(a, name="in.raw"):
    a.tofile(path(name))
    return path(name)


def window_values(a, y, x, k):
    r = k // 2
    return a[max(0, y - r):y + r + 1, max(0, x - r):x + r + 1].ravel()


def richness(a, k):
    return np.array([[len(np.unique(window_values(a, y, x, k))) for x in range(a.shape[1])]
                     for y in range(a.shape[0])], float)


def test_raw_scale():
    """richness,renyi:0 --ot uint8 --sidecar: each file's gain decodes its
    codes to the map (to half a code)."""
    src = raw(A)
    cli("--size", "14x12", "--dtype", "u8", "--measure", "richness,renyi:0", "--window", "3",
        "--ot", "uint8", "--sidecar", src, path("o.raw"))
    want = {"richness": richness(A, 3), "renyi0": np.log2(richness(A, 3))}
    gains = set()
    for tag, w in want.items():
        f = path("o_b1_w3_%s.raw" % tag)
        hdr = open(f + ".hdr").read()
        gain = float(re.search(r"data gain values = \{([^}]*)\}", hdr).group(1))
        gains.add(gain)
        got = np.fromfile(f, np.uint8).reshape(A.shape) * gain
        err = np.abs(got - w).max()
        check("raw %s --ot uint8 decoded with its header's gain: within half a code" % tag,
              err <= gain / 2 + 1e-9, "off by %g, gain %g" % (err, gain))
    check("one scale for the output's maps", len(gains) == 1, gains)


def test_nan_code():
    """glcm-homogeneity --distance 3 in a 5x5 window: the corner windows
    (3x3 crops) have no pair, NaN; uint16 outputs name 65535 as nodata."""
    src = raw(A)
    opts = ["--size", "14x12", "--dtype", "u8", "--measure", "glcm-homogeneity", "--window", "5",
            "--distance", "3", "--ot", "uint16", src]
    cli(*(opts + [path("h.tif")]))
    with rasterio.open(path("h.tif")) as d:
        check("GeoTIFF: nodata 65535", d.nodata == 65535, d.nodata)
        m = d.read(1, masked=True)
    check("GeoTIFF: the corner (no pair) is masked", bool(m.mask[0, 0]))
    check("GeoTIFF: the centre is not", not bool(m.mask[6, 7]))
    cli(*(opts + [path("h.zst")]))
    maps, hdr = winent.read_zst(path("h.zst"))
    check(".zst: output_nodata 65535", hdr.get("output_nodata") == 65535, hdr.get("output_nodata"))
    check(".zst: the corner reads NaN", np.isnan(maps[0, 0]), maps[0, 0])
    cli(*(opts + [path("h.zarr")]))
    z = xr.open_zarr(path("h.zarr"))["entropy"].values
    check("Zarr: the corner reads NaN", np.isnan(z[0, 0]), z[0, 0])
    check("Zarr: the centre does not", not np.isnan(z[6, 7]), z[6, 7])


def test_out_type():
    s8 = RNG.integers(-5, 6, (12, 14)).astype(np.int8)
    src = raw(s8, "s8.raw")
    base = ["--size", "14x12", "--dtype", "i8", src]
    err = cli(*(base + ["--measure", "majority", "--ot", "uint8", path("m.tif")]), expect=2)[1]
    check("majority of i8 --ot uint8 refused, saying why", "negative" in err, err)
    cli(*(base + ["--measure", "majority", "--ot", "float32", path("m.tif")]))
    # The type known from the file only: refused by the run, before any output.
    with rasterio.open(path("s8.tif"), "w", driver="GTiff", width=14, height=12, count=1,
                       dtype="int8") as d:
        d.write(s8, 1)
    err = cli(path("s8.tif"), path("m2.tif"), "--measure", "majority", "--ot", "uint16",
              expect=2)[1]
    check("majority of an i8 GeoTIFF --ot uint16 refused at the run", "negative" in err, err)
    # Bins whose centres are all positive are fine, a negative one is not.
    cli(*(base + ["--measure", "majority", "--bins", "4", "--range", "0:10", "--ot", "uint8",
                  path("m3.tif")]))
    cli(*(base + ["--measure", "majority", "--bins", "4", "--range", "-6:6", "--ot", "uint8",
                  path("m4.tif")]), expect=2)
    u8 = raw(A)
    err = cli("--size", "14x12", "--dtype", "u8", "--measure", "glcm-cluster-prominence",
              "--levels", "32", "--ot", "float16", u8, path("p.tif"), expect=2)[1]
    check("cluster prominence --ot float16 refused (past 65504)", "65504" in err, err)
    cli("--size", "14x12", "--dtype", "u8", "--measure", "glcm-cluster-prominence", "--levels",
        "32", "--ot", "uint16", u8, path("p.tif"))
    u16 = raw(A.astype(np.uint16), "u16.raw")
    cli("--size", "14x12", "--dtype", "u16", "--measure", "majority", "--ot", "float16", u16,
        path("q.tif"), expect=2)
    cli("--size", "14x12", "--dtype", "u16", "--measure", "richness", "--ot", "float16", u16,
        path("q.tif"))


def test_majority_classes():
    """A majority is a class: integer samples keep a code for each, or the
    output is refused (u8 classes reach 255, past uint8's 254 codes beside
    its nodata code: a scale of 255/254 decoded some half-way between two)."""
    a = RNG.integers(0, 256, (12, 14)).astype(np.uint8)
    src = raw(a, "classes.raw")
    base = ["--size", "14x12", "--dtype", "u8", "--measure", "majority", src]
    err = cli(*(base + ["--ot", "uint8", path("c8.tif")]), expect=2)[1]
    check("majority of u8 --ot uint8 refused, naming uint16", "uint16" in err and "share" in err,
          err)
    with rasterio.open(path("c8in.tif"), "w", driver="GTiff", width=14, height=12, count=1,
                       dtype="uint8") as d:
        d.write(a, 1)
    err = cli(path("c8in.tif"), path("c8b.tif"), "--measure", "majority", "--ot", "uint8",
              expect=2)[1]
    check("majority of a u8 GeoTIFF --ot uint8 refused at the run", "share" in err, err)
    cli(*(base + ["--ot", "uint16", path("c16.tif")]))
    cli(*(base + ["--ot", "float32", path("c32.tif")]))
    with rasterio.open(path("c16.tif")) as d:
        got = d.read(1).astype(np.float64) * d.scales[0] + d.offsets[0]
    with rasterio.open(path("c32.tif")) as d:
        want = d.read(1)
    check("majority --ot uint16 decodes to its classes", np.array_equal(np.rint(got), want),
          np.abs(got - want).max())


def test_pairs_that_never_fit():
    u8 = raw(A)
    for words, kw in [(["--window", "3", "--distance", "5"], dict(window=3, distances=5)),
                      (["--window", "1"], dict(window=1)),
                      (["--window", "1x9", "--angles", "0,45"], dict(window=(9, 1),
                                                                     angles=[0, 45]))]:
        err = cli("--size", "14x12", "--dtype", "u8", "--measure", "glcm-contrast", u8,
                  path("g.zst"), *words, expect=2)[1]
        check("CLI %s: refused naming --distance" % " ".join(words), "--distance" in err, err)
        expect_raises("texture %r refused" % kw, winent.UsageError, winent.texture, A,
                      ["glcm-contrast"], contains="distances=", **kw)
    # A window of one column still has its pairs at 90 degrees.
    cli("--size", "14x12", "--dtype", "u8", "--measure", "glcm-contrast", "--window", "1x9", u8,
        path("g.zst"))
    m = winent.texture(A, ["glcm-contrast"], window=(9, 1))
    check("texture window=(9, 1): a map", not np.isnan(m).all())
    err = cli("--size", "14x12", "--dtype", "u8", "--measure", "glcm-contrast", "--levels", "8",
              "--bins", "16", u8, path("g.zst"), expect=2)[1]
    check("--levels with --bins refused", "--bins" in err, err)


def test_footprint_shapes():
    """--footprint of a rectangle of ones (a disk) is that window, as
    Python's footprint= takes it: a co-occurrence measure takes it, and
    the maps are --window 3's (disk1's) bytes."""
    u8 = raw(A)
    with open(path("ones.txt"), "w") as f:
        f.write("111\n111\n111\n")
    with open(path("d1.txt"), "w") as f:
        f.write("010\n111\n010\n")
    base = ["--size", "14x12", "--dtype", "u8", u8]
    cli(*(base + ["--footprint", path("ones.txt"), "--measure", "glcm-contrast,entropy",
                  path("f.raw")]))
    cli(*(base + ["--window", "3", "--measure", "glcm-contrast,entropy", path("w.raw")]))
    for tag in ("glcm-contrast", "entropy"):
        a = open(path("f_b1_w3%s.raw" % ("" if tag == "entropy" else "_" + tag)), "rb").read()
        b = open(path("w_b1_w3%s.raw" % ("" if tag == "entropy" else "_" + tag)), "rb").read()
        check("--footprint of ones: --window 3's %s" % tag, a == b)
    py = winent.texture(A, ["glcm-contrast"], window=3)[0]
    got = np.fromfile(path("f_b1_w3_glcm-contrast.raw"), np.float32).reshape(A.shape)
    check("--footprint of ones: Python's glcm-contrast", np.array_equal(got, py, equal_nan=True))
    cli(*(base + ["--footprint", path("d1.txt"), path("d.zst")]))
    _, hdr = winent.read_zst(path("d.zst"))
    check("--footprint of a disk: named disk1, as footprint=disk(1)", hdr.get("disk") == 1, hdr)


def test_zarr_describes_measures():
    u8 = raw(A)
    cli("--size", "14x12", "--dtype", "u8", "--measure", "simpson,glcm-entropy", "--window",
        "5,3", u8, path("z.zarr"))
    d = xr.open_zarr(path("z.zarr"))
    check("Zarr: a measure per map", list(d["measure"].values) ==
          ["simpson", "glcm-entropy", "simpson", "glcm-entropy"], d["measure"].values)
    check("Zarr: no one unit for a ratio and an entropy", "units" not in d["entropy"].attrs,
          d["entropy"].attrs)
    # The GeoTIFF's band unit and --info's unit: none for a count.
    cli("--size", "14x12", "--dtype", "u8", "--measure", "richness,entropy", u8, path("r.tif"))
    with rasterio.open(path("r.tif")) as d:
        check("GeoTIFF: richness has no unit, the entropy bits", tuple(u or "" for u in d.units) == ("", "bit"), d.units)
    cli("--size", "14x12", "--dtype", "u8", "--measure", "glcm-contrast", u8, path("c.zst"))
    info = subprocess.run([WS, "--info", path("c.zst")], env=CHILD_ENV, capture_output=True,
                          text=True).stdout
    check("--info of glcm-contrast: unit null", '"unit":\tnull' in info, info[-300:])
    cli("--size", "14x12", "--dtype", "u8", "--measure", "richness", u8, path("r.zarr"))
    at = xr.open_zarr(path("r.zarr"))["entropy"].attrs
    check("Zarr of richness: named, without units", at.get("measure") == "richness" and
          "richness" in at.get("long_name", "") and "units" not in at, at)


def test_saturation_words():
    noise = RNG.integers(0, 60000, (40, 40)).astype(np.uint16)
    src = raw(noise, "n.raw")
    # Not cli(): --quiet would silence the notices.
    r = subprocess.run([WS, "--size", "40x40", "--dtype", "u16", "--measure",
                        "richness,simpson,evenness,renyi:2,majority,entropy", src, path("s.zst")],
                       env=CHILD_ENV, capture_output=True, text=True)
    check("CLI: exit 0", r.returncode == 0, r.stderr)
    err = r.stderr
    lines = err.strip().splitlines()
    for m, words in [("richness", "largest richness, 25 values"),
                     ("simpson", "largest Gini-Simpson index, 1 - 1/25"),
                     ("renyi:2", "largest renyi:2 entropy, log2(25)"),
                     ("entropy", "largest entropy, log2(25)")]:
        check("CLI: %s's saturation in its words" % m,
              any(("5x5, %s:" % m) in ln and words in ln for ln in lines), err)
    check("CLI: no saturation notice for evenness or majority",
          not any("evenness:" in ln or "majority:" in ln for ln in lines), err)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        winent.texture(noise, ["richness", "evenness", "simpson"])
    sat = [str(x.message) for x in w if issubclass(x.category, winent.SaturationWarning)]
    check("Python: a SaturationWarning each for richness and simpson, none for evenness",
          len(sat) == 2 and sat[0].startswith("richness:") and sat[1].startswith("simpson:"),
          sat)
    # The range's warning concerns every measure that quantizes.
    r = subprocess.run([WS, "--size", "40x40", "--dtype", "u16", "--measure", "richness",
                        "--range", "0:100", src, path("s.zst")], env=CHILD_ENV,
                       capture_output=True, text=True)
    check("CLI: the range's warning for richness", "lie outside --range 0:100" in r.stderr,
          r.stderr)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        winent.entropy(noise, measure="richness", bins=16, range=(0, 100))
    check("Python: RangeWarning for richness",
          any(issubclass(x.category, winent.RangeWarning) for x in w), [str(x.message) for x in w])


for t in (test_raw_scale, test_nan_code, test_out_type, test_majority_classes,
          test_pairs_that_never_fit,
          test_footprint_shapes, test_zarr_describes_measures, test_saturation_words):
    run_test(t)
finish()
