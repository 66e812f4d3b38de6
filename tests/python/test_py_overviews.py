# SPDX-License-Identifier: BSD-3-Clause
"""A class map's COG overviews through Python's door: winent.run(decode=True)
of a majority .zst (the one measure the package's file jobs can write
besides the entropy, through the .zst's header) gives overviews that are
the 2x2 mode of the level below, every value one of the map's classes,
RESAMPLING=MODE, the same bytes as the CLI's COG; an entropy map's
winent.run COG keeps the means (RESAMPLING=AVERAGE). Checked through GDAL
with tests/cog/cog_classes.py's numpy oracle.
"""
import os
import subprocess
import sys

from py_harness import SRC, T, check, cli, finish, mksample, need, path, run_test  # noqa: F401

need("numpy", "osgeo.gdal")

import winent  # noqa: E402

W, H = 611, 433
SIZE = "%dx%d" % (W, H)
RAW = mksample("classes.u8", W, H, "u8", "--kind", "landscape", "--values", "6", "--holes",
               "0.1", "--nodata", "0", "--seed", "8")
CC = os.path.join(SRC, "tests", "cog", "cog_classes.py")


def oracle(*args):
    r = subprocess.run([sys.executable, CC] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    return r.returncode == 0, r.stdout.decode("utf-8", "replace").strip()


def test_decoded_majority():
    zst, cli_tif, py_tif = path("maj.zst"), path("cli.tif"), path("py.tif")
    cli("--device", "cpu", "--size", SIZE, "--dtype", "u8", "--nodata", "0", "--measure",
        "majority", "--window", "5", RAW, zst)
    cli("--device", "cpu", "--size", SIZE, "--dtype", "u8", "--nodata", "0", "--measure",
        "majority", "--window", "5", "--tile", "32", RAW, cli_tif)
    winent.run(zst, py_tif, decode=True, tile=32)
    good, why = oracle("mode", py_tif, "1")
    check("winent.run(decode=True): the majority's overviews are the 2x2 mode", good, why)
    good, why = oracle("same-ovr", py_tif, "1", cli_tif, "1")
    check("winent.run(decode=True): the CLI's overviews, bit for bit", good, why)


def test_entropy_means():
    tif = path("ent.tif")
    winent.run(RAW, tif, size=SIZE, dtype="u8", nodata=0, window=5, tile=32, device="cpu")
    good, why = oracle("mean-band", tif, "1")
    check("winent.run: an entropy's overviews say AVERAGE", good, why)


run_test(test_decoded_majority)
run_test(test_entropy_means)
finish()
