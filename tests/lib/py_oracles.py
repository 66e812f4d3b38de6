# SPDX-License-Identifier: BSD-3-Clause
"""Oracles of the windows' tests in Python (tests/python/test_py_footprint.py,
test_py_even_window.py): scikit-image's rank.entropy with a footprint,
"within one float32 ulp" of it, a brute-force count of each window made
here from its definition, and the images with nodata that count runs on.

Import after py_harness.need("numpy", "skimage")."""
import warnings

import numpy as np
from skimage.filters import rank


def theirs(img, fp):
    """scikit-image's rank.entropy of `img` over footprint `fp` (bits)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Bad rank filter performance" on u16
        return rank.entropy(img, np.asarray(fp).astype(np.uint8))


def close(a, b):
    """Within one float32 ulp of scikit-image's float64 value."""
    b32 = np.asarray(b).astype(np.float32)
    return a.shape == b32.shape and bool(
        np.all(np.abs(a - b32) <= np.spacing(np.maximum(np.abs(b32), 1.0)) * 2))


def brute(img, fp, nodata):
    """Entropy in bits of each window counted here: the footprint's pixels
    (its centre at row rows // 2, column cols // 2, scikit-image's) inside
    the image and not nodata; NaN where the pixel is nodata, 0 where none
    is counted."""
    fp = np.asarray(fp) != 0
    ky, kx = fp.shape
    h, w = img.shape
    out = np.zeros((h, w))
    for y in range(h):
        for x in range(w):
            if img[y, x] == nodata:
                out[y, x] = np.nan
                continue
            vals = [img[y + r - ky // 2, x + c - kx // 2] for r in range(ky) for c in range(kx)
                    if fp[r, c] and 0 <= y + r - ky // 2 < h and 0 <= x + c - kx // 2 < w]
            vals = [v for v in vals if v != nodata]
            if not vals:
                continue
            _, cnt = np.unique(vals, return_counts=True)
            p = cnt / cnt.sum()
            out[y, x] = -(p * np.log2(p)).sum()
    return out


def nodata_images(rng):
    """(dtype, nodata, image) of u8 and u16, 23 x 29, 15 % of it nodata."""
    for dtype, nodata, top in ((np.uint8, 3, 9), (np.uint16, 7, 2000)):
        img = rng.integers(0, top, (23, 29)).astype(dtype)
        img[rng.random(img.shape) < 0.15] = nodata
        yield dtype, nodata, img


def same_as_brute(m, img, fp, nodata):
    """Map `m` is brute()'s: NaN at the same pixels, the rest within 2e-6."""
    ref = brute(img, fp, nodata).astype(np.float32)
    return bool(np.array_equal(np.isnan(m), np.isnan(ref))) and bool(
        np.all(np.abs(np.nan_to_num(m) - np.nan_to_num(ref)) <= 2e-6))


def skimage_test_entropy():
    """scikit-image's own test_entropy cases (skimage/filters/rank/tests/
    test_rank.py): (bits per pixel, tiled data, side of its footprint of
    ones); the data's largest entropy is its bits, exactly."""
    t = np.tile
    cases = [
        (1, t(np.asarray([0, 1]), (100, 100)).astype(np.uint8)),
        (2, t(np.asarray([[0, 1], [2, 3]]), (10, 10)).astype(np.uint8)),
        (3, t(np.asarray([[0, 1, 2, 3], [4, 5, 6, 7]]), (10, 10)).astype(np.uint8)),
        (4, t(np.reshape(np.arange(16), (4, 4)), (10, 10)).astype(np.uint8)),
        (6, t(np.reshape(np.arange(64), (8, 8)), (10, 10)).astype(np.uint8)),
        (8, t(np.reshape(np.arange(256), (16, 16)), (10, 10)).astype(np.uint8)),
    ]
    out = [(bits, data, 16) for bits, data in cases]
    data = np.zeros((65, 65), dtype=np.uint16)
    data[:64, :64] = np.reshape(np.arange(4096), (64, 64))
    return out + [(12, data, 64)]
