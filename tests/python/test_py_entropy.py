# SPDX-License-Identifier: BSD-3-Clause
"""winent.entropy(): the map of a numpy array, held to the CLI's map of the
same samples as a raw file bit for bit (every dtype, windows, bases, bins
and ranges, nodata and NaN, range="auto"), to scikit-image's
filters.rank.entropy (base 2, as tests/engine/skimage_compare.py compares), and
to itself through strides, byte orders and threads; its errors mapped."""
import os
import threading

from py_harness import (check, cli_map, cli_message, expect_raises, finish, need, path,
                        run_test, same_bits)

need("numpy")
import numpy as np  # noqa: E402

import winent  # noqa: E402
from winent import _compute  # noqa: E402

RNG = np.random.default_rng(14)
W, H = 83, 57  # odd sizes: windows cut at every border

DTYPES = {"u8": np.uint8, "i8": np.int8, "u16": np.uint16, "i16": np.int16, "u32": np.uint32,
          "i32": np.int32, "f32": np.float32, "f64": np.float64}


def sample(dtype, values=9, shape=(H, W)):
    """Clustered values of `dtype` (small counts per window, negative ones
    for signed types, NaN for floats)."""
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


def to_raw(a, name):
    p = path(name)
    a.astype(a.dtype.newbyteorder("<")).tofile(p)
    return p


def against_cli(a, dtype, what, cli_opts, nonzero=True, **py_opts):
    """winent.entropy(a, **py_opts) and the CLI with cli_opts: the same bits
    (and, unless `nonzero` is False, a map that is not all zero)."""
    raw = to_raw(a, "in-%s.raw" % dtype)
    ref = cli_map(raw, a.shape[1], a.shape[0], dtype, *cli_opts)
    got = winent.entropy(a, **py_opts)
    if ref is None:
        return
    check("%s %s: float32 of the array's shape" % (dtype, what),
          got.dtype == np.float32 and got.shape == a.shape)
    if not check("%s %s: the CLI's bits" % (dtype, what), same_bits(got, ref),
                 "max diff %g" % float(np.nanmax(np.abs(got.astype(np.float64) - ref)))
                 if got.shape == ref.shape and not np.isnan(got).all() else got.shape):
        return
    if nonzero:  # two maps of zeros would be equal too
        check("%s %s: the map is not all zero" % (dtype, what), np.nanmax(got) > 0)


def test_dtypes_against_cli():
    for dtype in DTYPES:
        a = sample(dtype)
        is_float = dtype in ("f32", "f64")
        rng = (-1.0, 2.5) if is_float else (float(a.min()), float(a.max()) + 1)
        rng_cli = ["--range", "%r:%r" % rng]
        if is_float:
            against_cli(a, dtype, "5x5 base e, 256 bins", rng_cli + ["--base", "e"], range=rng,
                        base="e")
            against_cli(a, dtype, "7x3 base 2, 16 bins, nodata", rng_cli +
                        ["--window", "7x3", "--base", "2", "--bins", "16", "--nodata", "-1"],
                        range=rng, window=(3, 7), base=2, bins=16, nodata=-1.0)
        else:
            against_cli(a, dtype, "5x5 base e, distinct values", ["--base", "e"], base="e")
            against_cli(a, dtype, "the defaults (base 2)", [])
            against_cli(a, dtype, "3x9 base 10", ["--window", "3x9", "--base", "10"],
                        window=(9, 3), base=10)
            nd = a[3, 4].item()
            against_cli(a, dtype, "9x9 base 2, nodata", ["--window", "9", "--base", "2",
                                                         "--nodata", str(nd)],
                        window=9, base="2", nodata=nd)
            against_cli(a, dtype, "5x5, 7 bins over a range", rng_cli + ["--bins", "7"],
                        range=rng, bins=7)
        against_cli(a, dtype, "1x1", rng_cli * is_float + ["--window", "1"], nonzero=False,
                    window=1, range=rng if is_float else None)


def test_range_auto():
    """range="auto" in memory finds what the CLI's first pass over a file finds."""
    a = sample("f32")
    against_cli(a, "f32", "range auto", ["--range", "auto"], range="auto")
    against_cli(a, "f32", "range auto, nodata", ["--range", "auto", "--nodata", "-1"],
                range="auto", nodata=-1.0)
    a16 = sample("i16")
    against_cli(a16, "i16", "range auto, 32 bins", ["--range", "auto", "--bins", "32"],
                range="auto", bins=32)
    const = np.full((20, 30), 7.25, np.float64)
    against_cli(const, "f64", "range auto of a constant", ["--range", "auto"], nonzero=False,
                range="auto")
    nan = np.full((20, 30), np.nan, np.float32)
    against_cli(nan, "f32", "range auto of all NaN", ["--range", "auto"], nonzero=False,
                range="auto")
    got = winent.entropy(nan, range="auto")
    check("all NaN in, all NaN out", np.isnan(got).all())


def test_skimage():
    try:
        from skimage.filters.rank import entropy as sk_entropy
    except ImportError:
        print("SKIP part: no scikit-image (Debian: apt-get install python3-skimage)")
        return
    for dtype, values, shape, (kx, ky) in [("u8", 12, (151, 203), (5, 5)),
                                           ("u8", 40, (151, 203), (7, 3)),
                                           ("u8", 256, (90, 120), (31, 31)),
                                           ("u16", 4000, (120, 160), (9, 5)),
                                           ("u8", 16, (3, 4), (5, 5))]:
        a = RNG.integers(0, values, size=shape).astype(DTYPES[dtype])
        ours = winent.entropy(a, window=(ky, kx), base=2)  # (rows, columns)
        ref = sk_entropy(a, np.ones((ky, kx), dtype=np.uint8)).astype(np.float32)
        diff = float(np.abs(ours.astype(np.float64) - ref.astype(np.float64)).max())
        what = "%s %dx%d window %dx%d" % (dtype, shape[1], shape[0], kx, ky)
        check("%s: scikit-image's values within 1e-5 (max diff %.3g)" % (what, diff), diff <= 1e-5)
        # Cropped border windows, by hand (skimage_compare.py's check).
        h, w = shape
        for y, x in [(0, 0), (h - 1, w - 1), (0, w // 2), (h // 2, 0)]:
            win = a[max(0, y - ky // 2):min(h, y + ky // 2 + 1),
                    max(0, x - kx // 2):min(w, x + kx // 2 + 1)]
            _, counts = np.unique(win, return_counts=True)
            p = counts / counts.sum()
            direct = float(-(p * np.log2(p)).sum())
            check("%s: the cropped window at (%d, %d)" % (what, x, y),
                  abs(direct - float(ours[y, x])) <= 1e-5, (direct, float(ours[y, x])))


def test_strides_and_byte_orders():
    base = sample("u16", shape=(H + 9, W + 13))
    a = np.ascontiguousarray(base[4:4 + H, 6:6 + W])
    ref = winent.entropy(a, window=(5, 7))
    view = base[4:4 + H, 6:6 + W]
    got, row_bytes = _compute._readable_rows(view)
    check("a block of a bigger array is read in place, its rows %d bytes apart"
          % base.strides[0], got is view and row_bytes == base.strides[0])
    check("a block of a bigger array: the same map", same_bits(winent.entropy(view, window=(5, 7)),
                                                            ref))
    variants = {
        "Fortran order": np.asfortranarray(a),
        "a view of a view": base[4:4 + H, ::1][:, 6:6 + W],
        "rows reversed twice": a[::-1][::-1],
        "big-endian": a.astype(">u2"),
        "big-endian, strided": base.astype(">u2")[4:4 + H, 6:6 + W],
        "a transpose of the transpose": np.ascontiguousarray(a.T).T,
        "read-only": np.frombuffer(a.tobytes(), dtype=np.uint16).reshape(a.shape),
    }
    for name, v in variants.items():
        check("%s: the same map" % name, same_bits(winent.entropy(v, window=(5, 7)), ref))
    # Columns not contiguous: copied, and the map of what they hold.
    sparse = base[:, ::2]
    check("every other column: the map of the copy",
          same_bits(winent.entropy(sparse), winent.entropy(np.ascontiguousarray(sparse))))
    flipped = a[::-1]
    check("rows reversed: the map of the reversed image",
          same_bits(winent.entropy(flipped, window=(5, 7)),
                    winent.entropy(np.ascontiguousarray(flipped), window=(5, 7))))
    # Every dtype in both byte orders.
    for dtype in DTYPES:
        x = sample(dtype)
        opts = {"range": (-1.0, 2.5)} if dtype.startswith("f") else {}
        native = winent.entropy(x, **opts)
        for order in "<>":
            swapped = x.astype(x.dtype.newbyteorder(order))
            check("%s %s: the same map" % (dtype, order), same_bits(winent.entropy(swapped,
                                                                                 **opts), native))
    # Booleans are u8.
    b = RNG.random((30, 40)) < 0.3
    check("bool is read as u8", same_bits(winent.entropy(b), winent.entropy(b.astype(np.uint8))))
    # Lists work (numpy.asarray), as 64-bit integers would not.
    small = [[1, 2, 3], [4, 5, 6]]
    check("a list of uint8 rows via numpy", same_bits(
        winent.entropy(np.array(small, dtype=np.uint8)), winent.entropy(np.uint8(small))))


def test_out_and_shapes():
    a = sample("u8")
    ref = winent.entropy(a)
    big = np.full((H + 4, W + 10), -1.0, np.float32)
    out = big[2:2 + H, 5:5 + W]
    r = winent.entropy(a, out=out)
    check("out=: the map written there, rows of a bigger array", r is out and same_bits(out, ref))
    check("out=: nothing around it touched",
          (big[:2] == -1).all() and (big[:, :5] == -1).all() and (big[-2:] == -1).all())
    for shape in [(1, 1), (1, 17), (17, 1), (0, 5), (5, 0), (0, 0)]:
        x = RNG.integers(0, 5, size=shape).astype(np.uint8)
        m = winent.entropy(x)
        check("shape %r: the same shape back" % (shape,),
              m.shape == shape and m.dtype == np.float32)
    one_row = RNG.integers(0, 5, size=(1, 40)).astype(np.uint8)
    against_cli(one_row, "u8", "one row", [])
    one_col = RNG.integers(0, 5, size=(40, 1)).astype(np.uint8)
    against_cli(one_col, "u8", "one column", [])


def test_threads():
    """entropy() in several Python threads at once: the GIL is released,
    and each gets its own map."""
    arrays = [sample("i16") for _ in range(4)]
    refs = [winent.entropy(x, window=7, threads=1) for x in arrays]
    results = [None] * 8

    def work(i):
        results[i] = winent.entropy(arrays[i % 4], window=7, threads=2)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check("8 calls in 4 threads at once: each its own map",
          all(same_bits(results[i], refs[i % 4]) for i in range(8)))


def test_errors():
    a = sample("u8")
    raw = to_raw(a, "err.raw")
    size = "%dx%d" % (W, H)
    # The library's messages: the CLI's rule in Python's words.
    cases = [("window 0", {"window": 0}, ["--window", "0"],
              "window=0: give K or (rows, cols), sides from 1 to 255, or ('disk', R) "
              "with R from 0 to 127"),
             ("window 257x3", {"window": (3, 257)}, ["--window", "257x3"],
              "window=(3, 257): give K or (rows, cols), sides from 1 to 255, or "
              "('disk', R) with R from 0 to 127"),
             ("bins without range", {"bins": 8}, ["--bins", "8"],
              "bins: needs range=(lo, hi) (or range='auto')")]
    for what, opts, cli_opts, want in cases:
        e = expect_raises("entropy(%s): UsageError" % what, winent.UsageError, winent.entropy, a,
                          status=2, **opts)
        code, msg = cli_message("--size", size, "--dtype", "u8", *cli_opts, raw,
                                path("err.f32"))
        check("entropy(%s): refused as the CLI refuses it (exit %d: %s)" % (what, code, msg),
              code == 2)
        if e is not None:
            check("entropy(%s): the line %r (got %r)" % (what, want, str(e)), str(e) == want)
    # A float array without a range: range="auto" and 256 bins, as the CLI's.
    f = sample("f32")
    code, _ = cli_message("--size", size, "--dtype", "f32", to_raw(f, "errf.raw"),
                          path("errf.f32"))
    check("float without a range: the CLI runs (exit %d)" % code, code == 0)
    if code == 0:
        check("float without a range: the CLI's map",
              same_bits(winent.entropy(f), np.fromfile(path("errf.f32"), "<f4").reshape(f.shape)))
    expect_raises("a ValueError", ValueError, winent.entropy, a, window=256)
    check("int64 whose values fit: the map of the same values",
          same_bits(winent.entropy(a.astype(np.int64)), winent.entropy(a)))
    expect_raises("complex: unsupported", winent.UsageError, winent.entropy,
                  a.astype(np.complex64))
    check("4-D: a map of each plane", same_bits(winent.entropy(a.reshape(1, 1, H, W)),
                                                winent.entropy(a).reshape(1, 1, H, W)))
    expect_raises("1-D: refused", winent.UsageError, winent.entropy, a.ravel(), contains="2-D")
    expect_raises("base 3", winent.UsageError, winent.entropy, a, base=3, contains="base")
    expect_raises("window 'big'", winent.UsageError, winent.entropy, a, window="big")
    expect_raises("threads -1", winent.UsageError, winent.entropy, a, threads=-1)
    expect_raises("range (1,)", winent.UsageError, winent.entropy, a, range=(1,))
    expect_raises("out of the wrong shape", winent.UsageError, winent.entropy, a,
                  out=np.empty((H, W + 1), np.float32))
    expect_raises("out of float64", winent.UsageError, winent.entropy, a,
                  out=np.empty((H, W), np.float64))
    if winent.gpu_count() == 0:
        e = expect_raises("device='gpu' without a GPU: DeviceError", winent.DeviceError,
                          winent.entropy, a, device="gpu", status=5)
        code, msg = cli_message("--device", "gpu", "--size", size, "--dtype", "u8", raw,
                                path("err.f32"))
        if e is not None and os.environ.get("WINENT_LIBRARY"):
            check("device='gpu' without a GPU: the CLI's message %r (got %r)" % (msg, str(e)),
                  code == 5 and str(e) == msg)
        elif e is not None:
            # A package's own library (pip's build) may be built without
            # CUDA where the CLI has it: the same line but for the reason.
            check("device='gpu' without a GPU: the CLI's line %r, its reason aside (got %r)"
                  % (msg, str(e)), code == 5 and str(e).split("(")[0] == msg.split("(")[0])
    else:
        print("SKIP part: a GPU is usable here: device='gpu' works")
    expect_raises("device='cpu,x'", winent.UsageError, winent.entropy, a, device="cpu,x")


for t in (test_dtypes_against_cli, test_range_auto, test_skimage, test_strides_and_byte_orders,
          test_out_and_shapes, test_threads, test_errors):
    run_test(t)
finish()
