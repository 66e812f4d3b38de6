# SPDX-License-Identifier: BSD-3-Clause
"""Every GDAL driver the build reads either detects a file cut short or is
refused (docs/SPEC.md section 3, "Drivers that are read").

For each raster driver GDAL can write here, a small image is written (the
first of a few shapes and types the driver takes) and read whole: it must
give a map, or be refused as a driver not on the checked list. A driver
that is read is then read with its largest file cut to half, by one block
and by a few bytes: each must be an input error or give the whole file's
map, never another map. PCRaster and PCIDSK, which GDAL reads past a cut
as zeros without a word, must be refused, and so must a VRT whose source
is one of them. The drivers are run in this process through winent.run
(the CLI's job, GDAL loaded once); a few through the CLI for its exit
codes. A table of what each driver did is printed.
"""
import os
import shutil

from py_harness import T, bad, check, cli, finish, need, ok, path, run_test

need("numpy", "osgeo")
import numpy as np  # noqa: E402
from osgeo import gdal, osr  # noqa: E402

import winent  # noqa: E402

gdal.UseExceptions()

REFUSED = "not among the drivers known here to report a file cut short"
# Shapes and types tried in turn until the driver writes one.
# (width, height, bands, type, georeferenced: some drivers refuse either)
SHAPES = [(96, 80, 1, gdal.GDT_Byte, True), (96, 80, 1, gdal.GDT_Byte, False),
          (96, 80, 1, gdal.GDT_Int16, True), (96, 80, 1, gdal.GDT_Float32, True),
          (96, 80, 3, gdal.GDT_Byte, True), (1201, 1201, 1, gdal.GDT_Int16, True)]
# Drivers that write no file of their own here, or only through a service.
SKIP = {"MEM", "VRT", "GTiff", "COG", "WMS", "WMTS", "PostGISRaster", "NGW", "KMLSUPEROVERLAY"}


def files_of(names):
    out = []
    for f in names or []:
        if os.path.isdir(f):
            for r, _, fs in os.walk(f):
                out += [os.path.join(r, x) for x in fs]
        elif os.path.isfile(f):
            out.append(f)
    return out


def make(driver):
    """(file to read, its files, block bytes) of a small image written by
    `driver`, or None where it writes none of the shapes."""
    md = driver.GetMetadata()
    ext = (md.get("DMD_EXTENSION") or md.get("DMD_EXTENSIONS") or "dat").split(" ")[0].split("/")[0]
    srs = osr.SpatialReference()
    srs.ImportFromEPSG(4326)
    for w, h, nb, t, geo in SHAPES:
        d = os.path.join(T, driver.ShortName)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        name = os.path.join(d, "f." + ext)
        src = gdal.GetDriverByName("MEM").Create("", w, h, nb, t)
        if geo:
            src.SetGeoTransform([10, 1.0 / w, 0, 21, 0, -1.0 / h])
            src.SetSpatialRef(srs)
        y, x = np.mgrid[0:h, 0:w]
        for b in range(nb):
            src.GetRasterBand(b + 1).WriteArray((x * 7 + y * 13 + (x * y) % 11 + b) % 200)
        gdal.PushErrorHandler("CPLQuietErrorHandler")
        try:
            driver.CreateCopy(name, src)
            ds = gdal.Open(name)
            files = files_of(ds.GetFileList())
            bw, bh = ds.GetRasterBand(1).GetBlockSize()
            block = bw * bh * (gdal.GetDataTypeSize(t) // 8)
            ds = None
        except RuntimeError:
            continue
        finally:
            gdal.PopErrorHandler()
        if files:
            return name, files, block
    return None


def read(name, out):
    """The map of `name` (bytes), or the input error's message."""
    if os.path.exists(out):
        os.remove(out)
    try:
        winent.run(name, out, window=5, range=(0, 255), threads=2, device="cpu")
    except winent.InputError as e:
        return str(e)
    return open(out, "rb").read()


table = []


def sweep_driver(driver):
    made = make(driver)
    if made is None:
        table.append((driver.ShortName, "not written here"))
        return None
    name, files, block = made
    out = os.path.join(T, "out.raw")
    whole = read(name, out)
    if isinstance(whole, str):
        if REFUSED in whole:
            ok()
            table.append((driver.ShortName, "refused"))
            return "refused"
        bad("%s: the whole file is not read: %s" % (driver.ShortName, whole))
        return None
    data = max(files, key=os.path.getsize)
    size = os.path.getsize(data)
    keep = open(data, "rb").read()
    verdicts = []
    for what, cut in (("half", size // 2), ("a block", size - min(block, size // 2)),
                      ("3 bytes", size - 3)):
        with open(data, "wb") as f:
            f.write(keep[:cut])
        got = read(name, out)
        with open(data, "wb") as f:
            f.write(keep)
        if isinstance(got, str):
            verdicts.append("error")
            ok()
        elif got == whole:
            verdicts.append("same map")
            ok()
        else:
            verdicts.append("WRONG MAP")
            bad("%s: %s cut by %s (%d of %d bytes): a map other than the whole file's, "
                "without an error" % (driver.ShortName, os.path.basename(data), what, cut, size))
    table.append((driver.ShortName, "read; cut: " + ", ".join(verdicts)))
    return "read"


@run_test
def test_every_driver():
    results = {}
    for i in range(gdal.GetDriverCount()):
        d = gdal.GetDriver(i)
        md = d.GetMetadata()
        if md.get("DCAP_RASTER") != "YES" or d.ShortName in SKIP:
            continue
        if md.get("DCAP_CREATE") != "YES" and md.get("DCAP_CREATECOPY") != "YES":
            continue
        results[d.ShortName] = sweep_driver(d)
    for name, what in table:
        print("%-16s %s" % (name, what))
    read_ones = [k for k, v in results.items() if v == "read"]
    check("the sweep read drivers (%d: %s)" % (len(read_ones), " ".join(read_ones)),
          len(read_ones) >= 10)
    for zero_fill in ("PCRaster", "PCIDSK"):
        if zero_fill in results:
            check("%s, which reads a cut file as zeros, is refused" % zero_fill,
                  results[zero_fill] == "refused", results[zero_fill])


@run_test
def test_cli_and_vrt():
    """The CLI's exit codes for a refused driver, directly and as a VRT's source."""
    if gdal.GetDriverByName("PCRaster") is None:
        return
    src = gdal.GetDriverByName("MEM").Create("", 64, 48, 1, gdal.GDT_Float32)
    src.GetRasterBand(1).WriteArray(np.arange(64 * 48, dtype=np.float32).reshape(48, 64) % 13)
    m = path("z.map")
    gdal.GetDriverByName("PCRaster").CreateCopy(m, src)
    gdal.Translate(path("z.vrt"), m, format="VRT")
    for name in (m, path("z.vrt")):
        _, err = cli("--threads", "2", "--range", "0:13", name, path("o.raw"), expect=3)
        check("%s: the message names the driver (%s)" % (name, err.strip()),
              "PCRaster driver" in err and REFUSED in err)
    # The whole of what a checked driver writes still reads.
    gdal.GetDriverByName("HFA").CreateCopy(path("z.img"), src)
    cli("--threads", "2", "--range", "0:13", path("z.img"), path("o.raw"), expect=0)


finish()
