# SPDX-License-Identifier: BSD-3-Clause
"""examples/dask_entropy.py (winent.entropy of a dask array: a halo of
window // 2 from the neighbouring blocks, none beyond the image's edges)
gives the CLI's bytes: windows square and oblong, blocks that do not
divide the image, a last block smaller than the halo, bins and a range,
range auto (one range for the whole image, not one per block), nodata and
NaN; blocks too small for the window: the error says what to rechunk."""
import os
import subprocess
import sys

from py_harness import SRC, T, check, cli, finish, mksample, need, path, run_test

need("numpy", "dask", "dask.array")
import numpy as np  # noqa: E402

EXAMPLE = os.path.join(SRC, "examples", "dask_entropy.py")


def compare(name, raw, w, h, dtype, options, chunks, fails_with=None):
    size = "%dx%d" % (w, h)
    cli_out, dask_out = path(name + "-cli.raw"), path(name + "-dask.raw")
    code, _ = cli("--size", size, "--dtype", dtype, *options, raw, cli_out)
    r = subprocess.run([sys.executable, EXAMPLE, "--size", size, "--dtype", dtype, "--chunks",
                        chunks] + list(options) + [raw, dask_out],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=T)
    if fails_with is not None:
        check("%s: refused with %r" % (name, fails_with),
              r.returncode == 2 and fails_with in r.stderr.decode(), r.stderr.decode()[-2000:])
        return
    if not check("%s: the example ran" % name, r.returncode == 0, r.stderr.decode()[-2000:]):
        return
    if code != 0:
        return
    a, b = open(cli_out, "rb").read(), open(dask_out, "rb").read()
    check("%s (%s, blocks %s): the CLI's bytes" % (name, " ".join(options), chunks), a == b,
          "%d and %d bytes, first difference at float %s" % (
              len(a), len(b), next((i // 4 for i in range(min(len(a), len(b))) if a[i] != b[i]),
                                   None)))


def test_against_cli():
    w, h = 203, 151
    u8 = mksample("u8.raw", w, h, "u8", "--kind", "landscape", "--values", "12")
    compare("u8-5", u8, w, h, "u8", [], "64x48")
    compare("u8-7x3", u8, w, h, "u8", ["--window", "7x3", "--base", "2"], "40x50")
    compare("u8-15-small-blocks", u8, w, h, "u8", ["--window", "15"], "5x9",
            fails_with="rechunk to at least 7 pixels")
    compare("u8-15-blocks-of-the-reach", u8, w, h, "u8", ["--window", "15"], "7x9")
    compare("u8-9-range-auto", u8, w, h, "u8", ["--window", "9", "--range", "auto"], "30x30")
    compare("u8-9-nodata", u8, w, h, "u8", ["--window", "9", "--nodata", "3"], "100x100")
    compare("u8-one-block", u8, w, h, "u8", ["--window", "3x11"], "1000x1000")
    f = np.random.default_rng(2).normal(size=(h, w)).astype("<f4")
    f[np.random.default_rng(3).random((h, w)) < 0.05] = np.nan
    f.tofile(path("f32.raw"))
    compare("f32-bins", path("f32.raw"), w, h, "f32",
            ["--window", "5x9", "--bins", "32", "--range=-2:2"], "37x29")
    compare("f32-range-auto", path("f32.raw"), w, h, "f32",
            ["--window", "5", "--range", "auto", "--bins", "64"], "20x25")



def test_refused_when_made():
    """A value the library refuses is refused when the lazy array is made,
    with the numpy path's line, before any block is computed."""
    sys.path.insert(0, os.path.join(SRC, "python"))
    import dask.array as da
    import winent
    a = (np.arange(120 * 90) % 251).astype(np.uint16).reshape(90, 120)
    x = da.from_array(a, chunks=40)
    for kw in ({"nodata": -1}, {"nodata": 2.5}, {"range": (1, 0)}, {"bins": 0},
               {"footprint": "disk", "radius": 3}):
        want = got = None
        try:
            winent.entropy(a, window=5, **kw)
        except winent.UsageError as e:
            want = str(e)
        try:
            winent.entropy(x, window=5, **kw)  # no compute()
        except winent.UsageError as e:
            got = str(e)
        check("dask %r: refused as numpy is, before computing" % (kw,),
              want is not None and got == want, "numpy %r, dask %r" % (want, got))


run_test(test_against_cli)
run_test(test_refused_when_made)
finish()
