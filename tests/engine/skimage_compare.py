# SPDX-License-Identifier: BSD-3-Clause
"""Compare a winent-stream map with scikit-image's rank entropy.

    skimage_compare.py IN.raw OUT.raw W H DTYPE KX KY [disk]

IN is the raw input (u8 or u16), OUT our raw float32 map (base 2). With
`disk` (KX = KY = 2R + 1) the footprint is morphology.disk(R), the map's
--disk R, and the hand count keeps dx^2 + dy^2 <= R^2. Exits 1
with a line on stderr when they differ by more than 1e-5 after rounding
scikit-image's value to float32, or when scikit-image does not crop border
windows the way SPEC section 1 does (checked on the corner directly).
"""
import sys

import numpy as np
from skimage.filters.rank import entropy
from skimage.morphology import disk as disk_footprint


def direct(img, y, x, kx, ky, is_disk=False):
    """Entropy in bits of the cropped window at (y, x), counted by hand."""
    h, w = img.shape
    ys, xs = np.mgrid[max(0, y - ky // 2):min(h, y + ky // 2 + 1),
                      max(0, x - kx // 2):min(w, x + kx // 2 + 1)]
    keep = np.ones(ys.shape, dtype=bool)
    if is_disk:
        keep = (ys - y) ** 2 + (xs - x) ** 2 <= (kx // 2) ** 2
    win = img[ys[keep], xs[keep]]
    _, counts = np.unique(win, return_counts=True)
    p = counts / counts.sum()
    return float(-(p * np.log2(p)).sum())


def main():
    src, ours_path, w, h, dtype, kx, ky = sys.argv[1:8]
    w, h, kx, ky = int(w), int(h), int(kx), int(ky)
    is_disk = len(sys.argv) > 8 and sys.argv[8] == "disk"
    if is_disk and kx != ky:
        sys.exit("skimage_compare: a disk's window is square (KX = KY = 2R + 1)")
    img = np.fromfile(src, dtype={"u8": np.uint8, "u16": np.uint16}[dtype]).reshape(h, w)
    ours = np.fromfile(ours_path, dtype="<f4").reshape(h, w)
    footprint = disk_footprint(kx // 2) if is_disk else np.ones((ky, kx), dtype=np.uint8)
    ref = entropy(img, footprint).astype(np.float32)
    bad = []
    diff = np.abs(ours.astype(np.float64) - ref.astype(np.float64))
    worst = float(diff.max())
    # A disk is held to float32 rounding: at most one unit in the last
    # place of scikit-image's value rounded to float32 (ours is within
    # 2^-32 of the exact value before its own rounding).
    ulps = diff / np.spacing(np.maximum(np.abs(ref), np.float32(1e-30))).astype(np.float64)
    if is_disk and not float(ulps.max()) <= 1.0:
        y, x = np.unravel_index(int(ulps.argmax()), ulps.shape)
        bad.append("ours and skimage differ by %g float32 ulps at (x=%d, y=%d): ours %.9g, "
                   "skimage %.9g" % (float(ulps.max()), x, y, ours[y, x], ref[y, x]))
    if not worst <= 1e-5:
        y, x = np.unravel_index(int(diff.argmax()), diff.shape)
        bad.append("max |ours - skimage| = %g at (x=%d, y=%d): ours %.7f, skimage %.7f"
                   % (worst, x, y, ours[y, x], ref[y, x]))
    # Border windows are cropped: the corners and an edge pixel, by hand.
    for (y, x) in [(0, 0), (h - 1, w - 1), (0, w // 2), (h // 2, 0)]:
        d = direct(img, y, x, kx, ky, is_disk)
        if abs(d - float(ref[y, x])) > 1e-5 or abs(d - float(ours[y, x])) > 1e-5:
            bad.append("pixel (x=%d, y=%d): cropped window %.7f, skimage %.7f, ours %.7f"
                       % (x, y, d, ref[y, x], ours[y, x]))
    # A map of zeros would pass the comparison on a constant input; ours is not.
    if kx * ky > 1 and float(ours.max()) <= 0.0:
        bad.append("the map is all zero")
    for line in bad:
        print("skimage_compare: " + line, file=sys.stderr)
    print("%s %dx%d %s %s: max diff %.3g" % (src.split("/")[-1], w, h, dtype,
                                          "disk(%d)" % (kx // 2) if is_disk else
                                          "%dx%d" % (kx, ky), worst))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
