# SPDX-License-Identifier: BSD-3-Clause
"""The co-occurrence engine (through tools/winent-glcm) against scikit-image.

  glcm_skimage.py WINENT_GLCM

For each case, every window of the image is cropped as the engine crops it
and handed to scikit-image's graycomatrix (the pairs with both ends inside
the crop, levels as given, nodata as one more level whose row and column
are cut from the matrix before graycoprops), then graycoprops' contrast, dissimilarity, homogeneity, energy,
correlation and ASM, and the entropy -sum P log2 P of the normalized
matrix. The engine's per-angle mean is over the angles whose matrix holds a
pair (scikit-image would count an empty one as zeros), so the reference is
too. Float32 rounding: within 2e-6 relative.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
from skimage.feature import graycomatrix, graycoprops

PROPS = ["contrast", "dissimilarity", "homogeneity", "energy", "correlation", "ASM"]
ANGLES = {0: 0.0, 45: np.pi / 4, 90: np.pi / 2, 135: 3 * np.pi / 4}


def dist(d, a):
    """scikit-image's offset at angle a is round(d sin a), round(d cos a):
    the engine's (d, d) on a diagonal is its distance d sqrt(2)."""
    return d * np.sqrt(2) if a in (45, 135) else d


def reference(lev, levels, kx, ky, d, angles, symmetric):
    """Per pixel, the measures averaged over the angles with pairs."""
    h, w = lev.shape
    names = PROPS + ["entropy"]
    out = {p: np.full((h, w), np.nan) for p in names}
    rx, ry = kx // 2, ky // 2
    for y in range(h):
        for x in range(w):
            if lev[y, x] == levels:
                continue
            win = lev[max(0, y - ry):y + ry + 1, max(0, x - rx):x + rx + 1]
            vals = {p: [] for p in names}
            for a in angles:
                g = graycomatrix(win, [dist(d, a)], [ANGLES[a]], levels=levels + 1,
                                 symmetric=symmetric)[:levels, :levels]
                tot = g.sum()
                if tot == 0:
                    continue
                for p in PROPS:
                    vals[p].append(graycoprops(g, p)[0, 0])
                pm = g[:, :, 0, 0] / tot
                nz = pm[pm > 0]
                vals["entropy"].append(-(nz * np.log2(nz)).sum())
            if not vals["entropy"]:
                continue
            for p in names:
                out[p][y, x] = np.mean(vals[p])
    return out


def engine(tool, raw, dtype, w, h, opts, tmp):
    measures = ["glcm-" + p.lower() for p in PROPS] + ["glcm-entropy"]
    out = os.path.join(tmp, "out.f32")
    cmd = [tool, "--size", "%dx%d" % (w, h), "--dtype", dtype, "--base", "2",
           "--measure", ",".join(measures)] + opts + [raw, out]
    subprocess.run(cmd, check=True)
    planes = np.fromfile(out, dtype=np.float32).reshape(len(measures), h, w)
    return dict(zip(PROPS + ["entropy"], planes))


def case(tool, tmp, name, lev, levels, kx, ky, d, angles, symmetric, nodata=None):
    """lev: int levels, -1 where nodata; the engine reads them as u16,
    scikit-image with nodata as level `levels`."""
    h, w = lev.shape
    raw = os.path.join(tmp, "in.raw")
    data = lev.astype(np.int64)
    if nodata is not None:
        data[lev < 0] = nodata
    data.astype(np.uint16).tofile(raw)
    opts = ["--window", "%dx%d" % (kx, ky), "--levels", str(levels),
            "--range", "0:%d" % levels, "--distance", str(d),
            "--angles", ",".join(str(a) for a in angles)]
    if not symmetric:
        opts.append("--asymmetric")
    if nodata is not None:
        opts += ["--nodata", str(nodata)]
    got = engine(tool, raw, "u16", w, h, opts, tmp)
    sk = lev.copy()
    sk[lev < 0] = levels
    ref = reference(sk.astype(np.uint16), levels, kx, ky, d, angles, symmetric)
    bad = 0
    for p in ref:
        e, g = ref[p], got[p].astype(np.float64)
        ok = np.where(np.isnan(e), np.isnan(g),
                      np.abs(g - e) <= 2e-6 * np.maximum(1.0, np.abs(e)))
        if not ok.all():
            y, x = np.argwhere(~ok)[0]
            print("FAILED: %s: %s: %d pixels differ, first (%d, %d): %r vs %r"
                  % (name, p, (~ok).sum(), x, y, g[y, x], e[y, x]))
            bad += 1
    return bad


def main():
    tool = sys.argv[1]
    rng = np.random.default_rng(7)
    failed = passed = 0
    with tempfile.TemporaryDirectory() as tmp:
        yy, xx = np.mgrid[0:30, 0:37]
        land = ((xx // 6 + yy // 5) % 5) * 3 + (rng.random((30, 37)) < 0.1)
        noisy = rng.integers(0, 32, (30, 37))
        holes = rng.integers(0, 16, (26, 29))
        holes[rng.random(holes.shape) < 0.08] = -1
        cases = [
            ("landscape 16 levels 5x5 d1 all", land, 16, 5, 5, 1, [0, 45, 90, 135], True, None),
            ("noise 32 levels 7x5 d2 all", noisy, 32, 7, 5, 2, [0, 45, 90, 135], True, None),
            ("noise 32 levels 5x5 d1 45 asym", noisy, 32, 5, 5, 1, [45], False, None),
            ("noise 32 levels 3x7 d1 135 asym", noisy, 32, 3, 7, 1, [135], False, None),
            ("landscape 16 levels 9x9 d3 0,90", land, 16, 9, 9, 3, [0, 90], True, None),
            ("holes nodata 5x5 d1 all", holes, 16, 5, 5, 1, [0, 45, 90, 135], True, 65535),
            ("holes nodata 3x3 d1 90 asym", holes, 16, 3, 3, 1, [90], False, 65535),
            ("window wider than the image", noisy[:6, :5], 32, 15, 11, 1, [0, 45, 90, 135],
             True, None),
        ]
        for c in cases:
            n = case(tool, tmp, *c)
            failed += n
            passed += n == 0
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
