#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Makes the TIFF mutation corpus of test_gdal_tiff_doors.sh and the doors
each mutant is read through.

    tiff_mutants.py DIR

Writes into DIR a few whole TIFFs written by GDAL (each compression the
block checks cover, tiles and strips, one and two bands) and mutants of
each: a byte flipped at the start, the middle and the end of a block's
stream (where only the checksum would tell), a block's byte count a few
bytes short, a block moved past the end of the file, the file cut inside
its last block, a block's bytes zeroed. Beside them, every door GDAL
offers to the same bytes: a VRT over each, a VRT over that VRT, one zip
and one tar of all, a .gz of each, and a container file that holds each
after 100 bytes of something else (for /vsisubfile/).

Prints one line per input, tab-separated: NAME, then the names to read,
the first the file itself (the direct path), each other one door. The
mutants are drawn from a fixed seed: the same corpus every run.
"""
import gzip
import os
import random
import struct
import sys
import tarfile
import zipfile

import numpy as np
from osgeo import gdal

gdal.UseExceptions()

W, H = 96, 72

BASES = [
    # name, GDAL creation options, bands, type
    ("deflate_tiles", ["TILED=YES", "BLOCKXSIZE=32", "BLOCKYSIZE=32", "COMPRESS=DEFLATE"], 1,
     gdal.GDT_Byte),
    ("lzw_strips_pred", ["COMPRESS=LZW", "PREDICTOR=2", "BLOCKYSIZE=16"], 1, gdal.GDT_UInt16),
    ("zstd_tiles", ["TILED=YES", "BLOCKXSIZE=48", "BLOCKYSIZE=32", "COMPRESS=ZSTD"], 1,
     gdal.GDT_Int16),
    ("packbits_planes", ["COMPRESS=PACKBITS", "INTERLEAVE=BAND", "BLOCKYSIZE=24"], 2,
     gdal.GDT_Byte),
    ("raw_tiles", ["TILED=YES", "BLOCKXSIZE=32", "BLOCKYSIZE=32"], 1, gdal.GDT_Byte),
]

TYPE_NAME = {gdal.GDT_Byte: "Byte", gdal.GDT_UInt16: "UInt16", gdal.GDT_Int16: "Int16"}


def write_base(path, opts, bands, dtype):
    ds = gdal.GetDriverByName("GTiff").Create(path, W, H, bands, dtype, opts)
    y, x = np.mgrid[0:H, 0:W]
    for b in range(bands):
        a = ((x * 7 + y * 13 + b * 5 + (x * y) % 11) % 61).astype(np.int32)
        ds.GetRasterBand(b + 1).WriteArray(a)
    ds = None


def blocks(path):
    """(offset, size) of every block of every band, from GDAL's TIFF metadata."""
    ds = gdal.Open(path)
    out = []
    for b in range(1, ds.RasterCount + 1):
        band = ds.GetRasterBand(b)
        bw, bh = band.GetBlockSize()
        for by in range((H + bh - 1) // bh):
            for bx in range((W + bw - 1) // bw):
                off = band.GetMetadataItem("BLOCK_OFFSET_%d_%d" % (bx, by), "TIFF")
                n = band.GetMetadataItem("BLOCK_SIZE_%d_%d" % (bx, by), "TIFF")
                if off and n and (int(off), int(n)) not in out:
                    out.append((int(off), int(n)))
    return out


def ifd_array(data, tags):
    """(file offset, item size) of the first array among `tags` in IFD 0
    of a classic little-endian TIFF."""
    ifd = struct.unpack_from("<I", data, 4)[0]
    (n,) = struct.unpack_from("<H", data, ifd)
    for i in range(n):
        tag, typ, count, value = struct.unpack_from("<HHII", data, ifd + 2 + 12 * i)
        if tag in tags:
            size = {3: 2, 4: 4, 16: 8}[typ]
            at = ifd + 2 + 12 * i + 8 if size * count <= 4 else value
            return at, size
    raise ValueError("no tag %s" % (tags,))


def set_item(data, tags, k, value):
    at, size = ifd_array(data, tags)
    struct.pack_into("<H" if size == 2 else "<I", data, at + k * size, value)


def mutants(whole, blks, rnd):
    """(suffix, bytes) of each mutant of the file `whole`."""
    out = []
    k = rnd.randrange(len(blks))
    off, n = blks[k]
    for where, at in (("start", off + 2), ("mid", off + n // 2), ("end", off + n - 2)):
        d = bytearray(whole)
        d[at] ^= 0x5A
        out.append(("flip_%s" % where, d))
    d = bytearray(whole)
    set_item(d, (279, 325), k, max(n - 3, 1))
    out.append(("count_short", d))
    d = bytearray(whole)
    set_item(d, (273, 324), k, len(whole) + 64)
    out.append(("past_end", d))
    last = max(blks)
    out.append(("cut", bytearray(whole[: last[0] + last[1] // 2])))
    d = bytearray(whole)
    d[off:off + n] = bytes(n)
    out.append(("zeroed", d))
    return out


def vrt(path, src, bands, dtype, relative=True):
    with open(path, "w") as f:
        f.write('<VRTDataset rasterXSize="%d" rasterYSize="%d">\n' % (W, H))
        for b in range(1, bands + 1):
            f.write('  <VRTRasterBand dataType="%s" band="%d"><SimpleSource>'
                    '<SourceFilename relativeToVRT="%d">%s</SourceFilename>'
                    '<SourceBand>%d</SourceBand></SimpleSource></VRTRasterBand>\n'
                    % (TYPE_NAME[dtype], b, 1 if relative else 0, src, b))
        f.write("</VRTDataset>\n")


def main():
    os.chdir(sys.argv[1])
    rnd = random.Random(20261128)
    made = []  # (name, bands, dtype)
    for name, opts, bands, dtype in BASES:
        try:
            write_base(name + ".tif", opts, bands, dtype)
        except RuntimeError:
            continue  # a compression this GDAL lacks
        whole = open(name + ".tif", "rb").read()
        made.append((name, bands, dtype))
        for suffix, data in mutants(whole, blocks(name + ".tif"), rnd):
            open("%s_%s.tif" % (name, suffix), "wb").write(data)
            made.append(("%s_%s" % (name, suffix), bands, dtype))
    zf = zipfile.ZipFile("all.zip", "w", zipfile.ZIP_DEFLATED)
    tf = tarfile.open("all.tar", "w")
    for name, bands, dtype in made:
        tif = name + ".tif"
        data = open(tif, "rb").read()
        zf.write(tif)
        tf.add(tif)
        with gzip.open(tif + ".gz", "wb") as g:
            g.write(data)
        with open(name + ".box", "wb") as f:
            f.write(b"\xee" * 100 + data + b"\xee" * 7)
        vrt(name + ".vrt", tif, bands, dtype)
        vrt(name + ".vrt.vrt", name + ".vrt", bands, dtype)
        doors = [
            tif,
            "GTIFF_DIR:1:" + tif,
            name + ".vrt",
            name + ".vrt.vrt",
            "/vsizip/all.zip/" + tif,
            "/vsigzip/" + tif + ".gz",
            "/vsitar/all.tar/" + tif,
            "/vsisubfile/100_%d,%s.box" % (len(data), name),
        ]
        print("\t".join([name] + doors))
    zf.close()
    tf.close()


if __name__ == "__main__":
    main()
