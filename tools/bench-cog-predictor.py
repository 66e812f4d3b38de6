# SPDX-License-Identifier: BSD-3-Clause
"""The tile sizes of real entropy maps by zstd level and TIFF predictor,
and by --ot: the tables of docs/PERFORMANCE.md, "Output
sizes".

    /usr/bin/python3 tools/bench-cog-predictor.py BUILD/src/winent-stream DIR

Three real maps, made in DIR from inputs a new user has at hand:
scikit-image's camera (u8, 512 x 512, the defaults), matplotlib's sample
DEM (jacksboro_fault_dem.npz, i16 403 x 344, --bins 16 --range auto as the
saturation notice advises) and PROJ's EGM96 geoid grid (egm96_15.gtx, f32
1440 x 721, --range auto). Each float32 map is written again by GDAL's
GTiff driver in 512 x 512 tiles at zstd levels 1, 3, 9 and 19, without a
predictor (1) and with the floating-point one (3), so the comparison is
GDAL's own; the same for the samples of --ot float16 (GDAL's NBITS=16),
uint16 and uint8 (codes by docs/SPEC.md's rule), without a predictor and
with their own (3 for float16, 2 for the integers); then winent-stream's
COG of each --ot; then the uint16 codes of each map at windows 5, 7, 9
and 31 (and of Rasterio's RGB.byte.tif, a Landsat band, where the test
data has it), as winent-stream writes them, again by GDAL with zstd 3,
deflate 6 and LZW, without and with the horizontal predictor: the rule
tile_codec.c follows (the predictor from 81 pixels on). Prints markdown.
Needs numpy, GDAL's Python bindings, scikit-image and matplotlib.
"""
import os
import subprocess
import sys

import numpy as np


def inputs(d):
    import matplotlib.cbook as cbook
    import skimage.data
    from osgeo import gdal
    gdal.UseExceptions()
    cam = os.path.join(d, "camera.u8")
    skimage.data.camera().astype("u1").tofile(cam)
    dem = os.path.join(d, "jacksboro.i16")
    e = np.load(cbook.get_sample_data("jacksboro_fault_dem.npz", asfileobj=False))["elevation"]
    e.astype("<i2").tofile(dem)
    geoid = "/usr/share/proj/egm96_15.gtx"
    if not os.path.exists(geoid):
        sys.exit("no %s (Debian: apt-get install proj-data)" % geoid)
    return [
        ("camera (u8 512x512, defaults)", ["--size", "512x512", "--dtype", "u8", cam]),
        ("jacksboro DEM (i16 403x344, --bins 16 --range auto)",
         ["--size", "%dx%d" % (e.shape[1], e.shape[0]), "--dtype", "i16", "--bins", "16",
          "--range", "auto", dem]),
        ("EGM96 geoid (f32 1440x721, --range auto)", ["--range", "auto", geoid]),
    ]


def main(argv):
    ws, d = argv[1], argv[2]
    os.makedirs(d, exist_ok=True)
    from osgeo import gdal
    gdal.UseExceptions()
    levels = (1, 3, 9, 19)
    print("| map | predictor | " + " | ".join("zstd %d" % lv for lv in levels) + " |")
    print("|---|---|" + "---|" * len(levels))
    ot_rows, typed_rows = [], []
    for k, (name, args) in enumerate(inputs(d)):
        f32 = os.path.join(d, "m%d.tif" % k)
        subprocess.run([ws, "--quiet", "--tif-layout", "tiled"] + args + [f32], check=True)
        src = gdal.Open(f32)
        for pred in (1, 3):
            sizes = []
            for lv in levels:
                out = os.path.join(d, "m%d_p%d_l%d.tif" % (k, pred, lv))
                gdal.Translate(out, src, creationOptions=[
                    "TILED=YES", "BLOCKXSIZE=512", "BLOCKYSIZE=512", "COMPRESS=ZSTD",
                    "ZSTD_LEVEL=%d" % lv, "PREDICTOR=%d" % pred])
                sizes.append(os.path.getsize(out))
            print("| %s | %d | %s |" % (name, pred, " | ".join("%d" % s for s in sizes)))
        # The other types, as --ot writes them (codes by SPEC's rule), by
        # GDAL: no predictor against their own (3 for float16: NBITS=16).
        a = src.GetRasterBand(1).ReadAsArray()
        top = float(np.nanmax(a))
        typed = [("float16", a, gdal.GDT_Float32, ["NBITS=16"], 3)]
        for t, code, dt in (("uint16", 65535, gdal.GDT_UInt16), ("uint8", 255, gdal.GDT_Byte)):
            c = np.where(np.isnan(a), code, np.floor(a / (top / (code - 1)) + 0.5))
            typed.append((t, c.astype("u2" if code == 65535 else "u1"), dt, [], 2))
        for t, arr, dt, extra, own in typed:
            for pred in (1, own):
                sizes = []
                for lv in levels:
                    out = os.path.join(d, "t.tif")
                    ds = gdal.GetDriverByName("GTiff").Create(
                        out, arr.shape[1], arr.shape[0], 1, dt,
                        ["TILED=YES", "BLOCKXSIZE=512", "BLOCKYSIZE=512", "COMPRESS=ZSTD",
                         "ZSTD_LEVEL=%d" % lv, "PREDICTOR=%d" % pred] + extra)
                    ds.GetRasterBand(1).WriteArray(arr)
                    ds = None
                    sizes.append(os.path.getsize(out))
                typed_rows.append("| %s | %s | %d | %s |" % (name, t, pred,
                                                           " | ".join("%d" % s for s in sizes)))
        src = None
        row = []
        for ot in ("float32", "float16", "uint16", "uint8"):
            out = os.path.join(d, "m%d_%s.tif" % (k, ot))
            subprocess.run([ws, "--quiet", "--ot", ot] + args + [out], check=True)
            row.append(os.path.getsize(out))
        ot_rows.append((name, row))
    print()
    print("| map | --ot | predictor | " + " | ".join("zstd %d" % lv for lv in levels) + " |")
    print("|---|---|---|" + "---|" * len(levels))
    print("\n".join(typed_rows))
    print()
    print("| map (COG, zstd 3, overviews) | float32 | float16 | uint16 | uint8 |")
    print("|---|---|---|---|---|")
    for name, row in ot_rows:
        print("| %s | %s |" % (name, " | ".join("%d" % s for s in row)))
    print()
    uint16_by_window(ws, d)
    return 0


def uint16_by_window(ws, d):
    """uint16 codes by window: bytes without / with PREDICTOR=2, by codec."""
    from osgeo import gdal
    codecs = (("ZSTD", ["ZSTD_LEVEL=3"]), ("DEFLATE", ["ZLEVEL=6"]), ("LZW", []))
    maps = inputs(d)
    landsat = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared",
                           "data", "tiff", "RGB.byte.tif")
    if os.path.exists(landsat):
        maps.append(("RGB.byte.tif band 1 (u8 791x718)", [landsat]))
    print("| map, uint16 | window | " + " | ".join("%s p1 / p2" % c for c, _ in codecs) + " |")
    print("|---|---|" + "---|" * len(codecs))
    for name, args in maps:
        for w in ("5", "7", "9", "31"):
            out = os.path.join(d, "w.tif")
            subprocess.run([ws, "--quiet", "--ot", "uint16", "--window", w] + args + [out],
                           check=True)
            src = gdal.Open(out)  # held: its band dies with it
            a = src.GetRasterBand(1).ReadAsArray()
            src = None
            cells = []
            for c, extra in codecs:
                sizes = []
                for pred in (1, 2):
                    t = os.path.join(d, "t.tif")
                    ds = gdal.GetDriverByName("GTiff").Create(
                        t, a.shape[1], a.shape[0], 1, gdal.GDT_UInt16,
                        ["TILED=YES", "BLOCKXSIZE=512", "BLOCKYSIZE=512", "COMPRESS=" + c,
                         "PREDICTOR=%d" % pred] + extra)
                    ds.GetRasterBand(1).WriteArray(a)
                    ds = None
                    sizes.append(os.path.getsize(t))
                cells.append("%d / %d (%+.0f %%)" % (sizes[0], sizes[1],
                                                      100.0 * (sizes[1] - sizes[0]) / sizes[0]))
            print("| %s | %sx%s | %s |" % (name, w, w, " | ".join(cells)), flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
