# SPDX-License-Identifier: BSD-3-Clause
"""The overviews of a COG's class maps (tests/cog/test_cog_classes.sh),
read back through GDAL and checked against numpy.

    cog_classes.py mode OUT.tif BAND       band BAND's overviews: each level the
                                           2x2 mode of the level below (ties to the
                                           smallest value), every value a class of
                                           the full resolution; RESAMPLING=MODE
    cog_classes.py same-ovr A.tif BA B.tif BB   band BA of A and band BB of B have
                                           the same overviews, bit for bit, and
                                           the same RESAMPLING item
    cog_classes.py mean-band OUT.tif BAND  band BAND says RESAMPLING=AVERAGE
    cog_classes.py close A.tif B.tif       band 1's full resolutions hold the same
                                           values, as GDAL's scale and offset decode
                                           them, within half a code step

The oracle works on the stored samples (integer codes as they are, the
nodata code or NaN as no value), as a reader of the file sees them, and
is vectorised numpy: all four values of every block compared with each
other at once, not the C's running count. Exits 1 with one line saying
what differs.
"""
import sys

import numpy as np
from osgeo import gdal

gdal.UseExceptions()


def fail(msg):
    print(msg)
    sys.exit(1)


def as_values(band, a):
    """Stored samples as float64, NaN where there is no value."""
    a = a.astype(np.float64)
    nd = band.GetNoDataValue()
    if nd is not None and not np.isnan(nd):
        a[a == nd] = np.nan
    return a


def mode_level(a):
    """One level up: each 2x2 block's most frequent valid value, ties to
    the smallest, NaN where the block has none (blocks clipped)."""
    h, w = a.shape
    H, W = -(-h // 2), -(-w // 2)
    pad = np.full((2 * H, 2 * W), np.nan)
    pad[:h, :w] = a
    quad = pad.reshape(H, 2, W, 2).transpose(0, 2, 1, 3).reshape(H, W, 4)
    valid = ~np.isnan(quad)
    counts = (quad[..., :, None] == quad[..., None, :]).sum(axis=-1)
    counts[~valid] = 0
    best = counts.max(axis=-1)
    winners = valid & (counts == best[..., None])
    out = np.where(winners, quad, np.inf).min(axis=-1)
    out[best == 0] = np.nan
    return out


def same_nan(a, b):
    return np.array_equal(np.isnan(a), np.isnan(b)) and np.array_equal(
        a[~np.isnan(a)], b[~np.isnan(b)])


def cmd_mode(path, band_no):
    ds = gdal.Open(path)
    band = ds.GetRasterBand(int(band_no))
    full = as_values(band, band.ReadAsArray())
    classes = np.unique(full[~np.isnan(full)])
    n = band.GetOverviewCount()
    if n == 0:
        fail("%s: band %s has no overviews" % (path, band_no))
    want = full
    for i in range(n):
        o = band.GetOverview(i)
        got = as_values(band, o.ReadAsArray())
        want = mode_level(want)
        if got.shape != want.shape:
            fail("%s band %s: overview %d is %s, want %s" % (path, band_no, i, got.shape,
                                                           want.shape))
        foreign = np.setdiff1d(np.unique(got[~np.isnan(got)]), classes)
        if foreign.size:
            fail("%s band %s: overview %d holds %d values that are no class of the map, "
                 "e.g. %r" % (path, band_no, i, foreign.size, foreign[:5].tolist()))
        if not same_nan(got, want):
            bad = ~((got == want) | (np.isnan(got) & np.isnan(want)))
            fail("%s band %s: overview %d: %d pixels differ from the 2x2 mode" % (
                path, band_no, i, int(bad.sum())))
        r = o.GetMetadataItem("RESAMPLING")
        if r != "MODE":
            fail("%s band %s: overview %d says RESAMPLING=%r, want MODE" % (path, band_no, i, r))
    if n > 0 and np.isnan(want).all():
        fail("%s band %s: every overview pixel is nodata (the case checks nothing)" % (
            path, band_no))


def cmd_same_ovr(a, ba, b, bb):
    da, db = gdal.Open(a), gdal.Open(b)
    x, y = da.GetRasterBand(int(ba)), db.GetRasterBand(int(bb))
    if x.GetOverviewCount() != y.GetOverviewCount():
        fail("%s/%s: %d and %d overviews" % (a, b, x.GetOverviewCount(), y.GetOverviewCount()))
    for i in range(x.GetOverviewCount()):
        p, q = x.GetOverview(i).ReadAsArray(), y.GetOverview(i).ReadAsArray()
        if p.dtype != q.dtype or p.tobytes() != q.tobytes():
            fail("%s band %s, %s band %s: overview %d differs" % (a, ba, b, bb, i))
        ra = x.GetOverview(i).GetMetadataItem("RESAMPLING")
        rb = y.GetOverview(i).GetMetadataItem("RESAMPLING")
        if ra != rb:
            fail("overview %d: RESAMPLING %r and %r" % (i, ra, rb))


def cmd_mean_band(path, band_no):
    ds = gdal.Open(path)  # kept: a band outlives no dataset
    band = ds.GetRasterBand(int(band_no))
    for i in range(band.GetOverviewCount()):
        r = band.GetOverview(i).GetMetadataItem("RESAMPLING")
        if r != "AVERAGE":
            fail("%s band %s: overview %d says RESAMPLING=%r, want AVERAGE" % (
                path, band_no, i, r))


def decoded(path):
    ds = gdal.Open(path)
    band = ds.GetRasterBand(1)
    a = as_values(band, band.ReadAsArray())
    scale, offset = band.GetScale() or 1.0, band.GetOffset() or 0.0
    return a * scale + offset, scale


def cmd_close(a, b):
    (x, sx), (y, sy) = decoded(a), decoded(b)
    tol = max(sx, sy) / 2 * (1 + 1e-6)
    if x.shape != y.shape or not np.array_equal(np.isnan(x), np.isnan(y)):
        fail("%s, %s: not the same pixels with values" % (a, b))
    d = np.abs(x - y)[~np.isnan(x)]
    if d.size and d.max() > tol:
        fail("%s, %s: values %g apart (at most %g)" % (a, b, d.max(), tol))


if __name__ == "__main__":
    cmds = {"mode": cmd_mode, "same-ovr": cmd_same_ovr, "mean-band": cmd_mean_band,
            "close": cmd_close}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        fail(__doc__)
    cmds[sys.argv[1]](*sys.argv[2:])
