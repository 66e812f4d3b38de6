# SPDX-License-Identifier: BSD-3-Clause
"""The CLI's --measure maps against a numpy oracle: each window's values
counted with numpy.unique and measured with the plain float64 formulas.
Inputs: u8 few classes with nodata, i16 with nodata, f32 with --bins and
NaN; square, oblong and disk windows, one wider than the image. Each map
of a several-measure run is compared: float32 rounding for the sums,
equality for richness and majority. Usage: measures_numpy.py WINENT_STREAM DIR"""
import subprocess
import sys

import numpy as np

WS, TMP = sys.argv[1], sys.argv[2]
MEASURES = ["entropy", "renyi:2", "renyi:0.5", "simpson", "richness", "evenness", "majority"]
failed = 0


def oracle(vals, measure, base):
    """The measure of one window's valid values (plain float64)."""
    u, c = np.unique(vals, return_counts=True)
    p = c / c.sum()
    lnb = {"2": np.log(2.0), "e": 1.0, "10": np.log(10.0)}[base]
    h = -(p * np.log(p)).sum()
    if measure == "entropy":
        return h / lnb
    if measure.startswith("renyi:"):
        q = float(measure[6:])
        return np.log((p ** q).sum()) / (1 - q) / lnb
    if measure == "simpson":
        return 1 - (p * p).sum()
    if measure == "richness":
        return len(u)
    if measure == "evenness":
        return h / np.log(len(u)) if len(u) > 1 else 0.0
    return u[np.argmax(c)]  # majority: the first (smallest) of the largest count


def check(name, img, valid, args, win, disk, base, centre):
    global failed
    h, w = img.shape
    raw = f"{TMP}/{name}.raw"
    img.tofile(raw)
    out = f"{TMP}/{name}.f32"
    wopt = f"disk{win // 2}" if disk else (f"{win[0]}x{win[1]}" if isinstance(win, tuple) else str(win))
    kx, ky = win if isinstance(win, tuple) else (win, win)
    cmd = [WS, "--quiet", "--device", "cpu", "--size", f"{w}x{h}", "--dtype", str(img.dtype.name).replace("uint", "u").replace("int", "i").replace("float", "f"),
           "--window", wopt, "--base", base, "--measure", ",".join(MEASURES), raw, out] + args
    subprocess.run(cmd, check=True)
    yy, xx = np.mgrid[-(ky // 2):ky // 2 + 1, -(kx // 2):kx // 2 + 1]
    foot = (xx * xx + yy * yy <= (kx // 2) ** 2) if disk else np.ones_like(xx, bool)
    for mi, m in enumerate(MEASURES):
        tag = m.replace(":", "")
        suffix = f"disk{kx // 2}" if disk else (f"w{kx}" if kx == ky else f"w{kx}x{ky}")
        got = np.fromfile(f"{TMP}/{name}_b1_{suffix}{'' if m == 'entropy' else '_' + tag}.f32", np.float32).reshape(h, w)
        worst = 0.0
        for y in range(h):
            for x in range(w):
                if not valid[y, x]:
                    if not np.isnan(got[y, x]):
                        worst = np.inf
                    continue
                vals = []
                for dy in range(-(ky // 2), ky // 2 + 1):
                    for dx in range(-(kx // 2), kx // 2 + 1):
                        if foot[dy + ky // 2, dx + kx // 2] and 0 <= y + dy < h and 0 <= x + dx < w and valid[y + dy, x + dx]:
                            vals.append(centre(img[y + dy, x + dx]))
                want = oracle(np.array(vals), m, base)
                d = abs(float(got[y, x]) - float(want)) / max(1.0, abs(float(want)))
                if m in ("richness", "majority"):
                    d = 0.0 if float(got[y, x]) == np.float32(want) else 1.0
                worst = max(worst, d)
        ok = worst <= 2e-6
        failed += not ok
        print(f"{'ok' if ok else 'FAILED'}: {name} {m} window {wopt} base {base}: worst {worst:.3g}")


rng = np.random.default_rng(7)
u8 = rng.integers(0, 6, (23, 31)).astype(np.uint8)
u8[3:9, 4:12] = 2  # a one-class patch (evenness 0, richness 1)
check("u8", u8, u8 != 5, ["--nodata", "5"], 5, False, "2", lambda v: v)
check("u8disk", u8, u8 != 5, ["--nodata", "5"], 7, True, "e", lambda v: v)
i16 = rng.integers(-300, -290, (17, 13)).astype(np.int16)
check("i16", i16, i16 != -295, ["--nodata", "-295"], (7, 3), False, "10", lambda v: v)
check("i16wide", i16, i16 != -295, ["--nodata", "-295"], 41, False, "2", lambda v: v)
f32 = rng.random((19, 21)).astype(np.float32)
f32[rng.random((19, 21)) < 0.1] = np.nan
lo, hi, bins = 0.0, 1.0, 8


def bin_centre(v):
    b = min(bins - 1, max(0, int(np.floor((float(v) - lo) * bins / (hi - lo)))))
    return np.float32(lo + (b + 0.5) * (hi - lo) / bins)


check("f32", f32, ~np.isnan(f32), ["--bins", str(bins), "--range", f"{lo}:{hi}"], 5, False, "2", bin_centre)
sys.exit(1 if failed else 0)
