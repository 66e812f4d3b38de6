# SPDX-License-Identifier: BSD-3-Clause
"""Circular windows in Python: winent.entropy(footprint="disk", radius=R),
window=("disk", R) and window="diskR" give one map, bit for bit the CLI's
--disk R, and scikit-image's filters.rank.entropy(footprint=disk(R))
within one float32 ulp (base 2, given explicitly); winent.run with
windows=[5, ("disk", 3)] gives the single runs' maps; bad disks are usage
errors with the library's message; preview_range (--preview-range)."""
from py_harness import (check, cli_map, expect_raises, finish, need, path, run_test,
                        same_bits)

need("numpy")
import numpy as np  # noqa: E402

import winent  # noqa: E402

RNG = np.random.default_rng(30)
W, H = 71, 53


def test_spellings_and_cli():
    img = RNG.integers(0, 40, size=(H, W)).astype(np.uint8)
    raw = path("img.raw")
    img.tofile(raw)
    for r in (0, 1, 4, 9):
        a = winent.entropy(img, footprint="disk", radius=r, base=2, device="cpu")
        b = winent.entropy(img, window=("disk", r), base=2, device="cpu")
        c = winent.entropy(img, window="disk%d" % r, base=2, device="cpu")
        ref = cli_map(raw, W, H, "u8", "--disk", r, "--base", 2, "--device", "cpu")
        check("disk %d: footprint, ('disk', R) and 'diskR' give one map" % r,
              same_bits(a, b) and same_bits(a, c))
        check("disk %d: the CLI's --disk map, bit for bit" % r,
              ref is not None and same_bits(a, ref))
    # A disk is not its square: radius 2 differs from the 5 x 5 window.
    check("disk 2 differs from 5x5",
          not same_bits(winent.entropy(img, window=("disk", 2), base=2),
                        winent.entropy(img, window=5, base=2)))


def test_skimage():
    try:
        from skimage.filters.rank import entropy as sk_entropy
        from skimage.morphology import disk
    except ImportError:
        print("SKIP part: no scikit-image (Debian: apt-get install python3-skimage)")
        return
    for dtype, values in ((np.uint8, 256), (np.uint16, 4000)):
        img = RNG.integers(0, values, size=(H, W)).astype(dtype)
        for r in (1, 3, 6):
            ours = winent.entropy(img, footprint="disk", radius=r, base=2)
            check("footprint=disk(%d), scikit-image's array: the same map" % r,
                  same_bits(ours, winent.entropy(img, footprint=disk(r), base=2)))
            ref = sk_entropy(img, disk(r)).astype(np.float32)
            ulps = np.abs(ours.astype(np.float64) - ref) / np.spacing(np.maximum(ref, 1e-30))
            check("%s disk(%d) within one float32 ulp of scikit-image (worst %.3g ulp)"
                  % (np.dtype(dtype).name, r, float(ulps.max())), float(ulps.max()) <= 1.0)


def test_run_windows():
    img = RNG.integers(0, 256, size=(H, W)).astype(np.uint8)
    raw = path("run.raw")
    img.tofile(raw)
    out = path("maps.f32")
    winent.run(raw, out, size=(W, H), dtype="u8", base=2, windows=[5, ("disk", 3)],
               device="cpu", mem="64M")
    m5 = np.fromfile(path("maps_b1_w5.f32"), "<f4").reshape(H, W)
    md = np.fromfile(path("maps_b1_disk3.f32"), "<f4").reshape(H, W)
    check("windows=[5, ('disk', 3)]: the 5x5 map", same_bits(m5, winent.entropy(img, 5, base=2)))
    check("windows=[5, ('disk', 3)]: the disk map",
          same_bits(md, winent.entropy(img, ("disk", 3), base=2)))
    both = path("maps.zst")
    winent.run(raw, both, size=(W, H), dtype="u8", base=2, windows=[5, ("disk", 3)],
               device="cpu", mem="64M")
    with winent.open_zst(both) as m:
        check("open_zst labels the maps as the raw files are named: b1_w5, b1_disk3",
              m.labels == ["b1_w5", "b1_disk3"], str(m.labels))
        check("open_zst's disk map is the raw file's", same_bits(m.map(1)[:], md))
    one = path("one.zst")
    winent.run(raw, one, size=(W, H), dtype="u8", base=2, footprint="disk", radius=3)
    try:
        import zstandard  # noqa: F401
    except ImportError:
        print("SKIP part: no zstandard (Debian: apt-get install python3-zstandard)")
        return
    with winent.open_zst(one) as m:
        check("the .zst header names the disk: window [7, 7], disk 3",
              m.header.get("window") == [7, 7] and m.header.get("disk") == 3, str(m.header))
        check("the .zst map is the disk's", same_bits(m[:], winent.entropy(img, ("disk", 3),
                                                                            base=2)))


def test_errors():
    img = np.zeros((5, 5), np.uint8)
    expect_raises("radius 128", winent.UsageError, winent.entropy, img, window=("disk", 128))
    expect_raises("footprint without radius", winent.UsageError, winent.entropy, img,
                  footprint="disk")
    expect_raises("unknown footprint", winent.UsageError, winent.entropy, img,
                  footprint="star", radius=2)
    expect_raises("'diskx'", winent.UsageError, winent.entropy, img, window="diskx")
    # Any other footprint is computed (test_py_footprint.py); one with no
    # pixel, or a 3-D one, is refused.
    expect_raises("a footprint with no pixel", winent.UsageError, winent.entropy,
                  img, footprint=np.zeros((3, 4), dtype=np.uint8))
    expect_raises("a 3-D footprint", winent.UsageError, winent.entropy,
                  img, footprint=np.ones((3, 3, 3), dtype=np.uint8))
    check("footprint=np.ones((3, 7)) is window (3, 7)",
          same_bits(winent.entropy(np.arange(99, dtype=np.uint8).reshape(9, 11),
                                   footprint=np.ones((3, 7), np.uint8)),
                    winent.entropy(np.arange(99, dtype=np.uint8).reshape(9, 11), window=(3, 7))))


def test_preview_range():
    """preview_range=(lo, hi) is --preview-range: the PNG's Description
    states the stretch; a bad one is the library's usage error."""
    img = RNG.integers(0, 50, size=(H, W)).astype(np.uint8)
    raw = path("pr.raw")
    img.tofile(raw)
    png = path("pr.png")
    winent.run(raw, path("pr.zst"), size=(W, H), dtype="u8", base=2, preview=png,
               preview_range=(0.5, 4))
    data = open(png, "rb").read()
    check("preview_range=(0.5, 4): the PNG states the stretch 0.5 to 4 bit",
          b"colours from 0.5 bit" in data and b"to 4 bit" in data)
    expect_raises("preview_range=(4, 1)", winent.UsageError, winent.run, raw, path("x.zst"),
                  size=(W, H), dtype="u8", preview=path("x.png"), preview_range=(4, 1))


for t in (test_spellings_and_cli, test_skimage, test_run_windows, test_errors,
          test_preview_range):
    run_test(t)
finish()
