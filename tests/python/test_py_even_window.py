# SPDX-License-Identifier: BSD-3-Clause
"""Rectangular windows with an even side, as scikit-image and scipy take
them (the centre at row rows // 2, column cols // 2: one more pixel before
it than after).

- window=(rows, cols) with even sides (16x16, 64x64 as in scikit-image's
  test_entropy, 4x6, 2x1, 1x2, 6x3) against rank.entropy(img,
  np.ones((rows, cols))) on u8 and u16, border windows included;
- the same with nodata against a brute-force count made here per window;
- the CLI's --window 4x6 (4 wide, 6 high) and window=(6, 4) in Python, bit
  for bit; --window 16 and a list 4,5x2 against window= and footprint=;
- the other measures (simpson, richness, majority) at an even window
  against the same measure through footprint=np.ones (the same pixels);
- dask arrays of several chunkings and xarray give numpy's bytes;
- the .zst header records an even window as [KX, KY] with no footprint;
- the refusals: 0 and 256, and the co-occurrence measures at an even side,
  in each door's words."""
from py_harness import (check, cli, cli_map, cli_message, expect_raises, finish, need, path,
                        run_test, same_bits)

need("numpy", "skimage")
import warnings  # noqa: E402

import numpy as np  # noqa: E402

from py_oracles import close, nodata_images, same_as_brute, skimage_test_entropy  # noqa: E402
from py_oracles import theirs as rank_entropy  # noqa: E402
import winent  # noqa: E402

RNG = np.random.default_rng(41)


def ours(img, window, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # saturation: expected on random data
        return winent.entropy(img, window=window, base=2, **kw)


def theirs(img, rows, cols):
    """scikit-image's rank.entropy over np.ones((rows, cols))."""
    return rank_entropy(img, np.ones((rows, cols)))


def test_skimage_cases():
    """scikit-image's test_entropy cases with window= rather than a footprint
    (K and (rows, cols))."""
    for bits, data, side in skimage_test_entropy():
        w = side if side == 16 else (side, side)
        m = ours(data, w)
        check("window=%r on %d bits: max %r" % (w, bits, float(m.max())), float(m.max()) == bits)
        check("window=%r on %d bits: every pixel scikit-image's" % (w, bits),
              close(m, theirs(data, side, side)))


SIDES = [(16, 16), (4, 6), (6, 4), (2, 1), (1, 2), (6, 3), (3, 8), (2, 2)]


def test_against_skimage():
    u8 = RNG.integers(0, 24, (47, 53)).astype(np.uint8)
    u16 = RNG.integers(0, 3000, (31, 37)).astype(np.uint16)
    tiny = RNG.integers(0, 5, (3, 4)).astype(np.uint8)  # smaller than some windows
    for rows, cols in SIDES:
        for what, img in (("u8", u8), ("u16", u16), ("3x4 u8", tiny)):
            check("window=(%d, %d) on %s: scikit-image's" % (rows, cols, what),
                  close(ours(img, (rows, cols)), theirs(img, rows, cols)))
    # The CLI's text is width first.
    check("window='6x4' is window=(4, 6)", same_bits(ours(u8, "6x4"), ours(u8, (4, 6))))


def test_nodata_brute_force():
    for dtype, nodata, img in nodata_images(RNG):
        for rows, cols in ((4, 6), (2, 1), (8, 8)):
            check("(%d, %d), %s with nodata %d: the brute-force count"
                  % (rows, cols, dtype.__name__, nodata),
                  same_as_brute(ours(img, (rows, cols), nodata=nodata), img,
                                np.ones((rows, cols)), nodata))


def test_cli():
    img = RNG.integers(0, 30, (41, 37)).astype(np.uint8)
    raw = path("img.raw")
    img.tofile(raw)
    m = cli_map(raw, 37, 41, "u8", "--window", "4x6", "--base", 2, "--device", "cpu")
    check("--window 4x6 gives window=(6, 4)'s bytes",
          m is not None and same_bits(m, ours(img, (6, 4), device="cpu")))
    check("--window 4x6 is scikit-image's ones((6, 4))",
          m is not None and close(m, theirs(img, 6, 4)))
    m = cli_map(raw, 37, 41, "u8", "--window", "16", "--base", 2, "--device", "cpu")
    check("--window 16 gives window=16's bytes",
          m is not None and same_bits(m, ours(img, 16, device="cpu")))
    check("window=16 is footprint=np.ones((16, 16))'s bytes",
          same_bits(ours(img, 16), winent.entropy(img, footprint=np.ones((16, 16)), base=2)))
    code, _ = cli("--size", "37x41", "--dtype", "u8", "--window", "4,5x2", "--base", 2,
                  "--device", "cpu", raw, path("list.raw"))
    if code == 0:
        maps = [np.fromfile(path("list_b1_w4.raw"), "<f4").reshape(41, 37),
                np.fromfile(path("list_b1_w5x2.raw"), "<f4").reshape(41, 37)]
        check("--window 4,5x2: window=4 and window=(2, 5)'s bytes",
              same_bits(maps[0], ours(img, 4)) and same_bits(maps[1], ours(img, (2, 5))))
    else:
        check("--window 4,5x2 runs", False)


def test_other_measures():
    img = RNG.integers(0, 12, (29, 31)).astype(np.uint8)
    for m in ("simpson", "richness", "majority", "renyi:2"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = winent.entropy(img, window=(4, 6), measure=m)
            b = winent.entropy(img, footprint=np.ones((4, 6)), measure=m)
        check("%s at window=(4, 6): footprint=np.ones((4, 6))'s bytes" % m, same_bits(a, b))


def test_dask_xarray():
    """Blocks with halos of window // 2 (more than the after side needs):
    the numpy map's bytes, whatever the chunks."""
    try:
        import dask.array as da
        import xarray as xr
    except ImportError:
        print("SKIP part: no dask or xarray")
        return
    img = RNG.integers(0, 40, (61, 47)).astype(np.uint8)
    for w in ((4, 6), 16, (2, 1), (6, 3)):
        want = ours(img, w)
        for chunks in ((20, 15), (9, 30)):
            got = ours(da.from_array(img, chunks=chunks), w).compute()
            check("dask %r, window=%r: numpy's bytes" % (chunks, w), same_bits(got, want))
        x = xr.DataArray(img, dims=("y", "x"))
        check("xarray, window=%r: numpy's bytes" % (w,), same_bits(ours(x, w).values, want))


def test_zst_header():
    from winent import zst
    img = RNG.integers(0, 30, (40, 50)).astype(np.uint8)
    img.tofile(path("z.raw"))
    code, _ = cli("--size", "50x40", "--dtype", "u8", "--window", "4x6", "--base", 2,
                  "--device", "cpu", path("z.raw"), path("z.zst"))
    if code != 0:
        check("--window 4x6 to .zst runs", False)
        return
    m, hdr = zst.read_zst(path("z.zst"))
    entries = hdr.get("maps") or [hdr]
    check("the header records [4, 6] and no footprint (%r)" % entries,
          all(e.get("window") == [4, 6] and e.get("footprint") is None for e in entries))
    check("the map reads back as window=(6, 4)'s", same_bits(m, ours(img, (6, 4))))
    code, out = cli("--info", "--check", path("z.zst"))
    check("--info --check takes the even window's header", code == 0)


def test_refusals():
    img = np.zeros((9, 9), np.uint8)
    for w in (0, 256, (3, 0), (256, 2)):
        expect_raises("window=%r" % (w,), winent.UsageError, ours, img, w,
                      contains="sides from 1 to 255")
    expect_raises("glcm at window=(4, 5)", winent.UsageError, winent.texture, img,
                  window=(4, 5), measures="glcm-contrast", levels=8, contains="odd sides")
    raw = path("r.raw")
    img.tofile(raw)
    _, msg = cli_message("--size", "9x9", "--dtype", "u8", "--window", "4x5", "--measure",
                         "glcm-contrast", "--levels", 8, raw, path("o.raw"))
    check("--measure glcm-contrast at --window 4x5: refused (%r)" % msg,
          "--measure glcm-contrast" in msg and "odd sides" in msg and "4x5" in msg)
    _, msg = cli_message("--size", "9x9", "--dtype", "u8", "--window", "3,4",
                         "--measure", "glcm-contrast", "--levels", 8, raw, path("o.raw"))
    check("a window list with an even item and a GLCM measure: refused (%r)" % msg,
          "odd sides" in msg)
    _, msg = cli_message("--size", "9x9", "--dtype", "u8", "--window", "256", raw,
                         path("o.raw"))
    check("--window 256: refused (%r)" % msg, "sides from 1 to 255" in msg)


for t in (test_skimage_cases, test_against_skimage, test_nodata_brute_force, test_cli,
          test_other_measures, test_dask_xarray, test_zst_header, test_refusals):
    run_test(t)
finish()
