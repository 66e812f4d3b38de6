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
  measure;
- the C doors (winent_engine_create, winent_job_create with options set
  field by field) refuse what the CLI refuses and compute what it
  computes: a nodata no sample can equal refused by the engine as by a
  job; a footprint of ones with odd sides is the rectangle for the
  co-occurrence measures on every door (the CLI's and Python's readers
  took it so, the library refused it);
- a majority of bins whose centres pass float32's largest value is refused
  on every door (the map held infinities), --range auto's too at the run;
- --range LO:HI takes LO written in as many digits as it has;
- winent.run takes measure= (a list too) and the co-occurrence options,
  the CLI's bytes, and refuses what the CLI refuses;
- a window past the limits is refused for its side before any measure's
  rule about it, and an option of its own (a range) before a rule of a
  window of a list with a measure, and the samples' own rules (a nodata
  no sample can equal) before the measure's, on every door (texture()
  checks with the array's type).
"""
import ctypes
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


def c_opts(a, measure, kx=3, ky=3, footprint=None, nodata=None, bins=0, rng=None):
    """winent_compute_opts for array `a`, field by field; the footprint's
    bytes are kept on the returned object."""
    from winent import _lib
    o = _lib.winent_compute_opts()
    _lib.lib().winent_compute_opts_default(ctypes.byref(o))
    o.kx, o.ky = kx, ky
    o.dtype = _lib.DTYPES.index({"uint8": "u8", "float64": "f64", "int8": "i8"}[a.dtype.name])
    o.measure = _lib.MEASURES.index(measure)
    o.bins = bins
    if rng is not None:
        o.range_lo, o.range_hi = rng
    if nodata is not None:
        o.has_nodata, o.nodata = 1, nodata
    keep = None
    if footprint is not None:
        f = np.ascontiguousarray(footprint, np.uint8)
        keep = (ctypes.c_ubyte * f.size).from_buffer_copy(f.tobytes())
        o.ky, o.kx = f.shape
        o.footprint = ctypes.cast(keep, ctypes.POINTER(ctypes.c_ubyte))
    return o, keep


def engine_map(a, o):
    """(status, message, map) of `a` through winent_engine_create/compute."""
    from winent import _lib
    L = _lib.lib()
    e = ctypes.c_void_p()
    err = _lib.winent_error()
    h, w = a.shape
    st = L.winent_engine_create(ctypes.byref(o), 0, 0, w, h, 1, ctypes.byref(e),
                                ctypes.byref(err))
    if st != 0:
        return st, _lib.message_of(err), None
    out = np.empty((h, w), np.float32)
    a = np.ascontiguousarray(a)
    st = L.winent_engine_compute(e, a.ctypes.data, a.strides[0], w, h, 0, h, 0, h,
                                 out.ctypes.data, w)
    msg = _lib.message_of(L.winent_engine_error(e).contents)
    L.winent_engine_free(e)
    return st, msg, out


def c_job(o, src, out, w, h):
    """(status, message) of a job built field by field around compute `o`."""
    from winent import _lib
    L = _lib.lib()
    jo = _lib.winent_job_opts()
    L.winent_job_opts_default(ctypes.byref(jo))
    keep = [src.encode(), out.encode()]
    jo.input, jo.output, jo.device = keep[0], keep[1], b"cpu"
    jo.width, jo.height, jo.dtype_given, jo.compute = w, h, 1, o
    jo.nodata_given = o.has_nodata
    err = _lib.winent_error()
    job = _lib.c_job_p()
    st = L.winent_job_create(ctypes.byref(jo), ctypes.byref(job), ctypes.byref(err))
    if st != 0:
        return st, _lib.message_of(err)
    st = L.winent_job_run(job)
    msg = _lib.message_of(L.winent_job_error(job).contents)
    L.winent_job_free(job)
    return st, msg


def test_engine_nodata():
    """u8 with nodata 300 or 2.5: no sample can equal it; the CLI and a
    job refuse it, and so does winent_engine_create, with the same line."""
    src = raw(A)
    for v in (300.0, 2.5):
        code, err = cli("--size", "14x12", "--dtype", "u8", "--nodata", "%g" % v, src,
                        path("n.zst"), expect=2)
        st, msg, _ = engine_map(A, c_opts(A, "entropy", nodata=v)[0])
        check("engine, u8 nodata %g: refused (status 2)" % v, st == 2, (st, msg))
        check("engine, u8 nodata %g: the CLI's line" % v, err.strip().endswith(msg), (err, msg))
        st, msg = c_job(c_opts(A, "entropy", nodata=v)[0], src, path("n.zst"), 14, 12)
        check("winent_job, u8 nodata %g: refused" % v, st == 2, (st, msg))
    st, msg, m = engine_map(A, c_opts(A, "entropy", nodata=3.0)[0])
    check("engine, u8 nodata 3: computed", st == 0 and not np.isnan(m[A != 3]).any(), msg)


def test_footprint_rectangle_glcm():
    """A 3x3 footprint of ones with glcm-contrast: the CLI's and Python's
    readers take it as --window 3; the engine and a job given the mask
    field by field compute the same bits (they refused it); a mask that is
    not the rectangle stays refused everywhere."""
    src = raw(A)
    cli("--size", "14x12", "--dtype", "u8", "--measure", "glcm-contrast", "--window", "3", src,
        path("w3.raw"))
    want = np.fromfile(path("w3.raw"), np.float32).reshape(A.shape)
    ones = np.ones((3, 3), np.uint8)
    st, msg, m = engine_map(A, c_opts(A, "glcm-contrast", footprint=ones)[0])
    check("engine, footprint of ones, glcm-contrast: computed", st == 0, msg)
    check("engine: --window 3's bits", m is not None and np.array_equal(m, want, equal_nan=True))
    o, keep = c_opts(A, "glcm-contrast", footprint=ones)
    st, msg = c_job(o, src, path("f3.raw"), 14, 12)
    check("winent_job, footprint of ones, glcm-contrast: runs", st == 0, msg)
    got = np.fromfile(path("f3.raw"), np.float32).reshape(A.shape) if st == 0 else None
    check("winent_job: --window 3's bits", got is not None and
          np.array_equal(got, want, equal_nan=True))
    cross = np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]], np.uint8)
    st, msg, _ = engine_map(A, c_opts(A, "glcm-contrast", footprint=cross)[0])
    check("engine, a cross footprint, glcm-contrast: refused", st == 2 and "rectangular" in msg,
          (st, msg))
    even = np.ones((3, 4), np.uint8)
    st, msg, _ = engine_map(A, c_opts(A, "glcm-contrast", footprint=even)[0])
    check("engine, a 4x3 footprint of ones, glcm-contrast: refused", st == 2, (st, msg))


def test_majority_past_float32():
    """A majority of bins over (-1e39, 1e39): the centres pass float32's
    largest value, infinities in the map; refused on every door, and a
    --range auto that finds such a range refused by the run."""
    src = raw(A)
    code, err = cli("--size", "14x12", "--dtype", "u8", "--measure", "majority", "--bins", "4",
                    "--range", "-1e39:1e39", src, path("m.zst"), expect=2)
    check("CLI: refused, naming float32", "float32" in err, err)
    expect_raises("entropy(measure='majority', range=(-1e39, 1e39))", winent.UsageError,
                  winent.entropy, A, measure="majority", bins=4, range=(-1e39, 1e39),
                  contains="range=")
    st, msg, _ = engine_map(A, c_opts(A, "majority", bins=4, rng=(-1e39, 1e39))[0])
    check("engine: refused", st == 2 and "float32" in msg, (st, msg))
    cli("--size", "14x12", "--dtype", "u8", "--measure", "majority", "--bins", "4", "--range",
        "-1e38:1e38", src, path("m.zst"))
    big = (A.astype(np.float64) - 2.5) * 1e300
    src64 = raw(big, "big.raw")
    code, err = cli("--size", "14x12", "--dtype", "f64", "--measure", "majority", src64,
                    path("m.zst"), expect=2)
    check("CLI, f64 of +-2.5e300, --range auto: refused at the run", "float32" in err, err)
    expect_raises("entropy(f64 of +-2.5e300, measure='majority')", winent.UsageError,
                  winent.entropy, big, measure="majority", contains="measures='majority'")
    m = winent.entropy(big / 1e290, measure="majority")
    check("f64 of +-2.5e10: a finite majority", np.isfinite(m).all())


def test_range_digits():
    """--range with its ends written out in 301 digits: the numbers
    1e300 and -1e300, the map of --range -1e300:1e300."""
    src = raw(A)
    lo, hi = "-%d" % int(1e300), "%d" % int(1e300)
    cli("--size", "14x12", "--dtype", "u8", "--bins", "8", "--range", "%s:%s" % (lo, hi), src,
        path("d1.raw"))
    cli("--size", "14x12", "--dtype", "u8", "--bins", "8", "--range", "-1e300:1e300", src,
        path("d2.raw"))
    check("301 digits: the map of -1e300:1e300",
          open(path("d1.raw"), "rb").read() == open(path("d2.raw"), "rb").read())


def test_run_measures():
    """winent.run(measure=[...], levels, distances, angles, symmetric):
    the CLI's bytes; what the CLI refuses, refused."""
    src = raw(A)
    cli("--size", "14x12", "--dtype", "u8", "--measure", "glcm-contrast,simpson,renyi:2",
        "--window", "5,3", "--levels", "4", "--distance", "2", "--angles", "0,90",
        "--asymmetric", src, path("c.raw"))
    winent.run(src, path("p.raw"), size=(14, 12), dtype="u8",
               measure=["glcm-contrast", "simpson", "renyi:2"], windows=[5, 3], levels=4,
               distances=2, angles=[0, 90], symmetric=False)
    names = sorted(f for f in __import__("os").listdir(path("")) if f.startswith("c_b1_"))
    check("CLI: six maps", len(names) == 6, names)
    for f in names:
        a = open(path(f), "rb").read()
        b = open(path("p" + f[1:]), "rb").read()
        check("winent.run: the CLI's %s" % f, a == b)
    winent.run(src, path("one.zst"), size=(14, 12), dtype="u8", measure="richness")
    cli("--size", "14x12", "--dtype", "u8", "--measure", "richness", src, path("onec.zst"))
    check("winent.run measure='richness': the CLI's map",
          np.array_equal(winent.read_zst(path("one.zst"))[0],
                         winent.read_zst(path("onec.zst"))[0]))
    kw = dict(size=(14, 12), dtype="u8")
    expect_raises("levels with bins", winent.UsageError, winent.run, src, path("x.zst"),
                  measure="glcm-contrast", levels=8, bins=8, contains="levels=", **kw)
    cli("--size", "14x12", "--dtype", "u8", "--measure", "glcm-contrast", "--levels", "8",
        "--bins", "8", src, path("x.zst"), expect=2)
    expect_raises("an unknown measure", winent.UsageError, winent.run, src, path("x.zst"),
                  measure=["entropy", "glcm"], contains="measure=", **kw)
    expect_raises("a measure twice", winent.UsageError, winent.run, src, path("x.zst"),
                  measure=["simpson", "simpson"], contains="given twice", **kw)
    expect_raises("pairs that never fit", winent.UsageError, winent.run, src, path("x.zst"),
                  measure="glcm-asm", window=3, distances=5, contains="distances=", **kw)
    expect_raises("a co-occurrence measure of u16 without levels", winent.UsageError,
                  winent.run, raw(A.astype(np.uint16), "u16.raw"), path("x.zst"),
                  size=(14, 12), dtype="u16", measure="glcm-asm", contains="levels")
    expect_raises("measure with decode", winent.UsageError, winent.run, path("onec.zst"),
                  path("x.tif"), decode=True, measure="simpson", contains="measure")


def test_window_before_measure():
    """A 256-wide window with a co-occurrence measure: every door names
    the window's limit (the job's validation told the CLI and winent.run
    to give odd sides, where texture() named the window)."""
    src = raw(A)
    want = "--window: '256x9': give K or WxH, sides from 1 to 255"
    for ms in ("glcm-asm", "entropy,glcm-asm"):
        code, err = cli("--size", "14x12", "--dtype", "u8", "--measure", ms, "--window", "256x9",
                        src, path("x.zst"), expect=2)
        check("CLI --measure %s --window 256x9: the window's line" % ms, want in err, err)
        for f, args in ((winent.run, (src, path("x.zst"))), (winent.texture, (A,))):
            kw = dict(size=(14, 12), dtype="u8", measure=ms.split(",")) if f is winent.run \
                else dict(measures=ms.split(","))
            expect_raises("%s %s window=(9, 256): the window's line" % (f.__name__, ms),
                          winent.UsageError, f, *args, window=(9, 256),
                          contains="window=(9, 256): give K or (rows, cols)", **kw)
    # A list of windows, one with no pair at 135 degrees, and an empty
    # range: the range's line first, as texture() of the first window
    # says it (the list's pairs were checked before the range).
    code, err = cli("--size", "14x12", "--dtype", "u8", "--measure", "glcm-dissimilarity",
                    "--window", "3x7,1x3", "--angles", "135", "--levels", "16", "--range",
                    "-2:-2", src, path("x.zst"), expect=2)
    check("CLI: a list's empty range named first", "--range: '-2:-2'" in err, err)
    for f, args, kw in ((winent.run, (src, path("x.zst")),
                         dict(size=(14, 12), dtype="u8", measure="glcm-dissimilarity",
                              windows=[(7, 3), (3, 1)])),
                        (winent.texture, (A,), dict(measures=["glcm-dissimilarity"],
                                                    window=(7, 3)))):
        expect_raises("%s: the empty range named first" % f.__name__, winent.UsageError, f,
                      *args, angles=[135], levels=16, range=(-2, -2), contains="range=(-2, -2)",
                      **kw)


def test_samples_before_measure():
    """u16 samples, nodata 70000 (no sample can equal it), glcm-asm in a
    disk: every door names the nodata first (the measure's rules come
    after the options of their own; texture() checked without the
    array's type and named the disk, winent.run the nodata)."""
    a16 = A.astype(np.uint16)
    src = raw(a16, "a16.raw")
    code, err = cli("--size", "14x12", "--dtype", "u16", "--measure", "glcm-asm", "--window",
                    "disk1", "--nodata", "70000", src, path("x.zst"), expect=2)
    check("CLI: the nodata named first", "--nodata: '70000'" in err, err)
    expect_raises("winent.run: the nodata named first", winent.UsageError, winent.run, src,
                  path("x.zst"), size=(14, 12), dtype="u16", measure="glcm-asm",
                  window=("disk", 1), nodata=70000, contains="nodata=70000")
    expect_raises("texture: the nodata named first", winent.UsageError, winent.texture, a16,
                  ["glcm-asm"], window=("disk", 1), nodata=70000, contains="nodata=70000")
    # A masked array's nodata is the package's to choose: its mask counts.
    m = np.ma.masked_array(a16, a16 == 3)
    got = winent.texture(m, ["simpson"], nodata=70000)
    check("texture of a masked u16, nodata 70000: computed", got.shape == (1,) + A.shape)


for t in (test_raw_scale, test_nan_code, test_out_type, test_majority_classes,
          test_pairs_that_never_fit,
          test_footprint_shapes, test_zarr_describes_measures, test_saturation_words,
          test_engine_nodata, test_footprint_rectangle_glcm, test_majority_past_float32,
          test_range_digits, test_run_measures, test_window_before_measure,
          test_samples_before_measure):
    run_test(t)
finish()
