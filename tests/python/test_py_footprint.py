# SPDX-License-Identifier: BSD-3-Clause
"""Footprints of any shape, as scikit-image takes them.

- scikit-image's own test_entropy cases (skimage/filters/rank/tests/
  test_rank.py: 16 x 16 and 64 x 64 footprints of ones on tiled data of 1,
  2, 3, 4, 6, 8 and 12 bits) run against winent.entropy: the same maxima,
  exactly, and every pixel within one float32 ulp of rank.entropy;
- diamond, octagon, star, a ring with a hole, even and odd rectangles and
  random masks against rank.entropy on u8 and u16, border windows
  included (scikit-image puts an even side's centre at n // 2, as we do);
- the same footprints with nodata against a brute-force count made here
  per window;
- the CLI's --footprint FILE (PBM P1 and P4, text, .npy of bool, uint8 and
  float64) against footprint= in Python, bit for bit, and the .zst header
  that records it;
- the refusals: an empty footprint, sides past 255, a footprint with a
  window list, a bad file."""
from py_harness import (check, cli, cli_map, cli_message, expect_raises, finish, need, path,
                        run_test, same_bits)

need("numpy", "skimage")
import warnings  # noqa: E402

import numpy as np  # noqa: E402
from skimage.morphology import diamond, disk, octagon, star  # noqa: E402

from py_oracles import (close, nodata_images, same_as_brute, skimage_test_entropy,  # noqa: E402
                        theirs)
import winent  # noqa: E402

RNG = np.random.default_rng(40)


def ring(r_out, r_in):
    """disk(r_out) without disk(r_in): its centre is not in it."""
    m = disk(r_out).astype(bool)
    c = r_out
    yy, xx = np.mgrid[-c:c + 1, -c:c + 1]
    m[xx * xx + yy * yy <= r_in * r_in] = False
    return m


def ours(img, fp, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # saturation: expected on random data
        return winent.entropy(img, footprint=fp, base=2, **kw)


def test_skimage_test_entropy():
    """scikit-image's test_entropy, case by case, on the package."""
    for bits, data, side in skimage_test_entropy():
        fp = np.ones((side, side), dtype=np.uint8)
        m = ours(data, fp)
        check("test_entropy %d bits per pixel (%dx%d footprint): max %r"
              % (bits, side, side, float(m.max())), float(m.max()) == bits)
        check("test_entropy %d bits: every pixel scikit-image's" % bits,
              close(m, theirs(data, fp)))
    fp = np.ones((16, 16), dtype=np.uint8)
    out = ours(data, fp)  # the 12 bits' u16 data
    check("test_entropy 16x16 on u16: scikit-image's", close(out, theirs(data, fp)))
    check("the map is float32", out.dtype == np.float32)


FOOTPRINTS = {
    "diamond(3)": diamond(3),
    "octagon(3, 2)": octagon(3, 2),
    "star(3)": star(3),
    "ring(5, 2)": ring(5, 2),
    "ones(16, 16)": np.ones((16, 16)),
    "ones(4, 7)": np.ones((4, 7)),
    "ones(1, 6)": np.ones((1, 6)),
    "random(6, 9)": RNG.integers(0, 2, (6, 9)),
    "random(10, 10)": RNG.integers(0, 2, (10, 10)) > 0,
    "disk(4) (the disk's path)": disk(4),
}


def test_shapes_against_skimage():
    u8 = RNG.integers(0, 24, (47, 53)).astype(np.uint8)
    u16 = RNG.integers(0, 3000, (31, 37)).astype(np.uint16)
    tiny = RNG.integers(0, 5, (3, 4)).astype(np.uint8)  # smaller than the footprints
    for name, fp in FOOTPRINTS.items():
        for what, img in (("u8", u8), ("u16", u16), ("3x4 u8", tiny)):
            check("%s on %s: scikit-image's" % (name, what), close(ours(img, fp), theirs(img, fp)))


def test_nodata_brute_force():
    for dtype, nodata, img in nodata_images(RNG):
        for name in ("ring(5, 2)", "star(3)", "diamond(3)", "ones(4, 7)"):
            fp = FOOTPRINTS[name]
            check("%s, %s with nodata %d: the brute-force count" % (name, dtype.__name__, nodata),
                  same_as_brute(ours(img, fp, nodata=nodata), img, fp, nodata))


def pbm_p1(m):
    h, w = m.shape
    rows = "\n".join(" ".join("1" if v else "0" for v in row) for row in m)
    return ("P1\n# a footprint\n%d %d\n%s\n" % (w, h, rows)).encode()


def pbm_p4(m):
    h, w = m.shape
    packed = np.packbits(m.astype(np.uint8), axis=1)
    return b"P4\n%d %d\n" % (w, h) + packed.tobytes()


def text(m):
    return ("# 0/1 rows\n" + "\n".join("".join("1" if v else "0" for v in row)
                                       for row in m) + "\n").encode()


def test_cli_files():
    img = RNG.integers(0, 30, (41, 37)).astype(np.uint8)
    raw = path("img.raw")
    img.tofile(raw)
    for name in ("star(3)", "ring(5, 2)", "ones(4, 7)", "random(6, 9)"):
        fp = np.asarray(FOOTPRINTS[name]) != 0
        py = ours(img, fp, device="cpu")
        files = {"p1.pbm": pbm_p1(fp), "p4.pbm": pbm_p4(fp), "mask.txt": text(fp)}
        for kind, data in files.items():
            with open(path(kind), "wb") as f:
                f.write(data)
        np.save(path("bool.npy"), fp)
        np.save(path("u8.npy"), fp.astype(np.uint8))
        np.save(path("f8.npy"), fp.astype(np.float64))
        np.save(path("fortran.npy"), np.asfortranarray(fp))
        for kind in ("p1.pbm", "p4.pbm", "mask.txt", "bool.npy", "u8.npy", "f8.npy",
                     "fortran.npy"):
            m = cli_map(raw, 37, 41, "u8", "--footprint", path(kind), "--base", 2,
                        "--device", "cpu")
            check("%s: --footprint %s gives footprint='s bytes" % (name, kind),
                  m is not None and same_bits(m, py))


def test_zst_header():
    """A .zst map records its footprint (rows of 0 and 1 joined by '/'),
    reads back as the raw map, and names its maps b1_fp4x3."""
    from winent import zst
    img = RNG.integers(0, 30, (40, 50)).astype(np.uint8)
    two = np.stack([img, img[::-1]])
    two.tofile(path("two.raw"))
    fp = np.asarray([[0, 1, 1, 0], [1, 1, 1, 1], [0, 1, 1, 0]], dtype=bool)
    np.save(path("fp.npy"), fp)
    code, _ = cli("--size", "50x40", "--dtype", "u8", "--bands", 2, "--band", "all",
                  "--footprint", path("fp.npy"), "--base", 2, "--device", "cpu", path("two.raw"),
                  path("two.zst"))
    if code != 0:
        return
    maps, hdr = zst.read_zst(path("two.zst"))
    entries = hdr.get("maps", [])
    check("the header's maps record the footprint (%r)" % entries,
          len(entries) == 2 and all(e.get("footprint") == "0110/1111/0110" and
                                    e.get("window") == [4, 3] for e in entries))
    check("the maps are footprint='s", same_bits(maps[0], ours(img, fp, device="cpu")) and
          same_bits(maps[1], ours(img[::-1].copy(), fp, device="cpu")))
    check("the maps' labels", zst.open_zst(path("two.zst")).labels == ["b1_fp4x3", "b2_fp4x3"])


def test_run():
    """winent.run(footprint=) is --footprint: entropy()'s bytes; with a
    windows= list it is refused."""
    img = RNG.integers(0, 30, (33, 45)).astype(np.uint8)
    img.tofile(path("run.raw"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        winent.run(path("run.raw"), path("run-out.raw"), size=(45, 33), dtype="u8",
                   footprint=star(2), base=2, device="cpu")
    m = np.fromfile(path("run-out.raw"), dtype="<f4").reshape(33, 45)
    check("run(footprint=star(2)): entropy()'s bytes", same_bits(m, ours(img, star(2))))
    expect_raises("run(footprint=, windows=)", winent.UsageError, winent.run, path("run.raw"),
                  path("x.raw"), size=(45, 33), dtype="u8", footprint=star(2), windows=[3, 5])


def test_refusals():
    img = np.zeros((9, 9), np.uint8)
    expect_raises("an empty footprint", winent.UsageError, ours, img, np.zeros((3, 3)),
                  contains="no pixel")
    expect_raises("a 256-row footprint", winent.UsageError, ours, img, np.ones((256, 1)),
                  contains="1 to 255")
    expect_raises("footprint= and window=", winent.UsageError, winent.entropy, img, window=3,
                  footprint=star(2))
    with open(path("empty.txt"), "w") as f:
        f.write("000\n000\n")
    with open(path("ragged.txt"), "w") as f:
        f.write("010\n11\n")
    with open(path("fp.txt"), "w") as f:
        f.write("010\n111\n010\n")
    raw = path("z.raw")
    img.tofile(raw)
    _, msg = cli_message("--size", "9x9", "--dtype", "u8", "--footprint", path("empty.txt"), raw,
                      path("o.raw"))
    check("an empty file's footprint: a usage error (%r)" % msg, "no pixel" in msg)
    _, msg = cli_message("--size", "9x9", "--dtype", "u8", "--footprint", path("ragged.txt"), raw,
                      path("o.raw"))
    check("ragged rows: named (%r)" % msg, "--footprint" in msg and "line 2" in msg)
    _, msg = cli_message("--size", "9x9", "--dtype", "u8", "--footprint", path("nope.pbm"), raw,
                      path("o.raw"))
    check("a missing file: named (%r)" % msg, "--footprint" in msg and "nope.pbm" in msg)
    _, msg = cli_message("--size", "9x9", "--dtype", "u8", "--footprint", path("fp.txt"),
                      "--window", "5", raw, path("o.raw"))
    check("--footprint with --window: a conflict (%r)" % msg,
          "--footprint" in msg and "--window" in msg)
    _, msg = cli_message("--size", "9x9", "--dtype", "u8", "--footprint", path("fp.txt"),
                      "--measure", "glcm-contrast", raw, path("o.raw"))
    check("--footprint with a GLCM measure: refused (%r)" % msg, "rectangular" in msg)
    code, _ = cli("--size", "9x9", "--dtype", "u8", "--footprint", path("fp.txt"), raw,
                  path("o.raw"))
    check("a text footprint runs", code == 0)


for t in (test_skimage_test_entropy, test_shapes_against_skimage, test_nodata_brute_force,
          test_cli_files, test_zst_header, test_run, test_refusals):
    run_test(t)
finish()
