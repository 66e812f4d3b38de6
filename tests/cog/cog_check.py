# SPDX-License-Identifier: BSD-3-Clause
"""Checks of a winent-stream GeoTIFF through GDAL (tests/cog/test_cog.sh).

    cog_check.py pixels OUT.tif WANT.raw      full resolution = the raw map, bit for bit
    cog_check.py overviews OUT.tif TILE       the overview rule, against numpy on the
                                              full resolution GDAL reads back
    cog_check.py same OUT1.tif OUT2.tif       the same full-resolution pixels
    cog_check.py plain OUT.tif TILE           today's plain tiled layout: one directory,
                                              no overviews, no ghost, directory after the data
    cog_check.py meta OUT.tif DESC KEY=VALUE...  band description and metadata items

Exits 1 with one line saying what differs.
"""
import struct
import sys

import numpy as np
from osgeo import gdal

gdal.UseExceptions()


def fail(msg):
    print(msg)
    sys.exit(1)


def full(path):
    ds = gdal.Open(path)
    return ds, ds.GetRasterBand(1).ReadAsArray()


def cmd_pixels(path, raw):
    ds, a = full(path)
    want = np.fromfile(raw, "<f4").reshape(ds.RasterYSize, ds.RasterXSize)
    if not np.array_equal(a.view("u4"), want.view("u4")):
        fail("%s: full resolution differs from %s" % (path, raw))


def block_means(a, f):
    """Mean of the non-NaN pixels of each f x f block (clipped), NaN if none."""
    h, w = -(-a.shape[0] // f), -(-a.shape[1] // f)
    pad = np.full((h * f, w * f), np.nan)
    pad[: a.shape[0], : a.shape[1]] = a
    blocks = pad.reshape(h, f, w, f).transpose(0, 2, 1, 3).reshape(h, w, f * f)
    valid = ~np.isnan(blocks)
    count = valid.sum(axis=2)
    total = np.where(valid, blocks, 0.0).sum(axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def cmd_overviews(path, tile):
    tile = int(tile)
    ds, a = full(path)
    b = ds.GetRasterBand(1)
    a = a.astype(np.float64)
    # GDAL's COG rule: levels while the last one is larger than a tile.
    w, h, dims = ds.RasterXSize, ds.RasterYSize, []
    while w > tile or h > tile:
        w, h = -(-w // 2), -(-h // 2)
        dims.append((w, h))
    n = b.GetOverviewCount()
    if n != len(dims):
        fail("%s: %d overviews, want %d %s" % (path, n, len(dims), dims))
    for i, (w, h) in enumerate(dims):
        o = b.GetOverview(i)
        if (o.XSize, o.YSize) != (w, h):
            fail("%s: overview %d is %dx%d, want %dx%d" % (path, i, o.XSize, o.YSize, w, h))
        if o.GetBlockSize() != [tile, tile]:
            fail("%s: overview %d blocks %s" % (path, i, o.GetBlockSize()))
        got = o.ReadAsArray().astype(np.float64)
        want = block_means(a, 2 ** (i + 1))
        if not np.array_equal(np.isnan(got), np.isnan(want)):
            fail("%s: overview %d: NaN at %d pixels, want %d" % (
                path, i, np.isnan(got).sum(), np.isnan(want).sum()))
        ok = ~np.isnan(want)
        # The promise (docs/SPEC.md): the block mean rounded once to float32,
        # within 2^-24 of the exact mean (and a hair for double summation).
        err = np.abs(got[ok] - want[ok])
        lim = np.maximum(np.abs(want[ok]), 1e-30) * 2.0 ** -24 * (1 + 1e-9)
        if np.any(err > lim):
            k = np.argmax(err / lim)
            fail("%s: overview %d: %g, want %g (relative error %.3g > 2^-24)" % (
                path, i, got[ok][k], want[ok][k], err[k] / max(abs(want[ok][k]), 1e-30)))
        if o.GetMetadataItem("RESAMPLING") != "AVERAGE":
            fail("%s: overview %d: RESAMPLING=%r" % (path, i, o.GetMetadataItem("RESAMPLING")))
        if b.GetNoDataValue() is not None and not np.isnan(o.GetNoDataValue() or 0.0):
            fail("%s: overview %d: nodata %r" % (path, i, o.GetNoDataValue()))


def cmd_same(p1, p2):
    _, a = full(p1)
    _, b = full(p2)
    if a.shape != b.shape or not np.array_equal(a.view("u4"), b.view("u4")):
        fail("%s and %s: different pixels" % (p1, p2))


def cmd_plain(path, tile):
    tile = int(tile)
    ds = gdal.Open(path)
    b = ds.GetRasterBand(1)
    if b.GetOverviewCount() != 0:
        fail("%s: %d overviews" % (path, b.GetOverviewCount()))
    if b.GetBlockSize() != [tile, tile]:
        fail("%s: blocks %s" % (path, b.GetBlockSize()))
    with open(path, "rb") as f:
        head = f.read(64)
    big = head[2:4] == b"\x2b\x00"
    first = struct.unpack("<Q", head[8:16])[0] if big else struct.unpack("<I", head[4:8])[0]
    if b"GDAL_STRUCTURAL_METADATA" in head:
        fail("%s: a ghost area" % path)
    # libtiff writes the directory when the file is closed, after the tiles.
    data = int(b.GetMetadataItem("BLOCK_OFFSET_0_0", "TIFF"))
    if first < data:
        fail("%s: the directory (%d) comes before the data (%d)" % (path, first, data))
    if ds.GetMetadata("IMAGE_STRUCTURE").get("LAYOUT") == "COG":
        fail("%s: says LAYOUT=COG" % path)


def cmd_meta(path, desc, *items):
    ds = gdal.Open(path)
    b = ds.GetRasterBand(1)
    if b.GetDescription() != desc:
        fail("%s: description %r, want %r" % (path, b.GetDescription(), desc))
    md = ds.GetMetadata()
    for kv in items:
        k, v = kv.split("=", 1)
        if md.get(k) != v:
            fail("%s: metadata %s=%r, want %r" % (path, k, md.get(k), v))


if __name__ == "__main__":
    cmds = {"pixels": cmd_pixels, "overviews": cmd_overviews, "same": cmd_same,
            "plain": cmd_plain, "meta": cmd_meta}
    cmds[sys.argv[1]](*sys.argv[2:])
