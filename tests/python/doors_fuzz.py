# SPDX-License-Identifier: BSD-3-Clause
"""Differential checker of the doors: random jobs (measures, windows of
every shape, footprints, bases, bins/levels and ranges, nodata, pair
options, output types and formats, and options near or past each limit)
run through the CLI, through winent_job_create/run with the options set
field by field (not by the CLI's parser), through winent.run, through
winent_engine_create/compute with the compute options set field by field,
and through Python's winent.entropy / winent.texture (numpy, dask), each
map compared with a brute-force oracle written apart from the engine (per
window, plain float64) and with the CLI's bits, and a refusal on one door
held to be a refusal on the others (the CLI's exit 2, the C API's
WINENT_ERR_USAGE with the CLI's line, Python's UsageError with
texture()'s line); the engine must refuse what winent_job_opts_validate
refuses in what is computed, and compute nothing else wrong.

    doors_fuzz.py WINENT_STREAM [--seed S] [--cases N] [--seconds T] [-v]

Prints one line per failure (the CLI command that shows it) and a last
line "N cases, N failed". ctest runs a short fixed seed (doors_fuzz_short);
run it longer by hand (--seconds 1800, other seeds) after a change to the
measures, windows, --ot or an output format. The classes it found are kept
as small regression tests in tests/python/test_py_measure_doors.py.
"""
import argparse
import math
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
import warnings

try:  # ctest's environment (a sanitizer build's children get theirs back)
    from py_harness import CHILD_ENV
except ImportError:
    CHILD_ENV = dict(os.environ)

for _m in ("numpy", "rasterio", "xarray", "zarr", "dask"):
    try:
        __import__(_m)
    except ImportError as _e:
        print("SKIP: no Python module %s (%s)" % (_m, _e))
        sys.exit(77)

import numpy as np  # noqa: E402

import winent  # noqa: E402

HIST = ["entropy", "renyi:0", "renyi:0.5", "renyi:2", "renyi:3", "simpson", "richness",
        "evenness", "majority"]
GLCM = ["glcm-entropy", "glcm-asm", "glcm-energy", "glcm-contrast", "glcm-dissimilarity",
        "glcm-homogeneity", "glcm-correlation", "glcm-mean", "glcm-variance",
        "glcm-cluster-shade", "glcm-cluster-prominence", "glcm-cond-entropy",
        "glcm-mutual-info"]
DT = {"u8": np.uint8, "i8": np.int8, "u16": np.uint16, "i16": np.int16, "i32": np.int32,
      "f32": np.float32}
LNB = {"2": math.log(2.0), "e": 1.0, "10": math.log(10.0)}
OFF = {0: (1, 0), 45: (1, 1), 90: (0, 1), 135: (-1, 1)}


# ---- the oracle --------------------------------------------------------

def window_offsets(job):
    """(dy, dx) of the window's pixels around its centre."""
    if job["shape"] == "disk":
        r = job["r"]
        return [(dy, dx) for dy in range(-r, r + 1) for dx in range(-r, r + 1)
                if dx * dx + dy * dy <= r * r]
    if job["shape"] == "foot":
        f = job["foot"]
        h, w = f.shape
        return [(r - h // 2, c - w // 2) for r in range(h) for c in range(w) if f[r, c]]
    kx, ky = job["kx"], job["ky"]
    return [(dy, dx) for dy in range(-(ky // 2), ky - ky // 2)
            for dx in range(-(kx // 2), kx - kx // 2)]


def quantize(img, valid, job):
    """Each pixel's class (an int) and, for the majority, its value."""
    bins = job["bins"]
    if bins:
        lo, hi = job["lo"], job["hi"]
        v = img.astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            b = np.floor(((v - lo) * bins) / (hi - lo))
        b = np.where(np.isnan(b), 0, b)
        b = np.clip(b, 0, bins - 1).astype(np.int64)
        val = lo + (b + 0.5) * (hi - lo) / bins
        return b, val
    return img.astype(np.int64), img.astype(np.float64)


def hist_measure(m, cls, vals, base):
    u, idx, c = np.unique(cls, return_index=True, return_counts=True)
    n = c.sum()
    p = c / n
    h = -(p * np.log(p)).sum()
    if m == "entropy":
        return h / LNB[base]
    if m.startswith("renyi:"):
        q = float(m[6:])
        if q == 1.0:
            return h / LNB[base]
        return math.log((p ** q).sum()) / (1 - q) / LNB[base]
    if m == "simpson":
        return 1 - (p * p).sum()
    if m == "richness":
        return float(len(u))
    if m == "evenness":
        return h / math.log(len(u)) if len(u) > 1 else 0.0
    k = int(np.argmax(c))  # majority: ties to the smallest class
    return float(np.float32(vals[idx[k]]))


def glcm_one(m, ii, jj, pp, L, base):
    """Measure `m` of a normalized co-occurrence matrix given by its
    nonzero cells: levels ii, jj with probabilities pp (sparse: a window's
    matrix of 1024 levels has a million cells and a few dozen pairs)."""
    lb = LNB[base]
    hij = -(pp * np.log(pp)).sum() / lb
    pi, pj = np.bincount(ii, pp, L), np.bincount(jj, pp, L)
    mi, mj = (ii * pp).sum(), (jj * pp).sum()
    si = math.sqrt(max(((ii - mi) ** 2 * pp).sum(), 0))
    sj = math.sqrt(max(((jj - mj) ** 2 * pp).sum(), 0))

    def ent(q):
        q = q[q > 0]
        return -(q * np.log(q)).sum() / lb
    return {
        "glcm-entropy": lambda: hij,
        "glcm-asm": lambda: (pp * pp).sum(),
        "glcm-energy": lambda: math.sqrt((pp * pp).sum()),
        "glcm-contrast": lambda: ((ii - jj) ** 2 * pp).sum(),
        "glcm-dissimilarity": lambda: (abs(ii - jj) * pp).sum(),
        "glcm-homogeneity": lambda: (pp / (1 + (ii - jj) ** 2)).sum(),
        "glcm-correlation": lambda: 1.0 if si < 1e-12 or sj < 1e-12 else
        ((ii - mi) * (jj - mj) * pp).sum() / (si * sj),
        "glcm-mean": lambda: mi,
        "glcm-variance": lambda: ((ii - mi) ** 2 * pp).sum(),
        "glcm-cluster-shade": lambda: ((ii + jj - mi - mj) ** 3 * pp).sum(),
        "glcm-cluster-prominence": lambda: ((ii + jj - mi - mj) ** 4 * pp).sum(),
        "glcm-cond-entropy": lambda: hij - ent(pi),
        "glcm-mutual-info": lambda: ent(pi) + ent(pj) - hij,
    }[m]()


def glcm_levels(img, valid, job):
    if job["bins"]:
        return quantize(img, valid, job)[0], job["bins"]
    if img.dtype == np.int8:
        return img.astype(np.int64) + 128, 256
    return img.astype(np.int64), 256


def oracle(img, valid, job):
    """float64 maps, one per measure, NaN where the engine gives NaN."""
    h, w = img.shape
    offs = window_offsets(job)
    cls, vals = quantize(img, valid, job)
    out = []
    lev = L = None
    for m in job["measures"]:
        o = np.full((h, w), np.nan)
        if m.startswith("glcm-"):
            if lev is None:
                lev, L = glcm_levels(img, valid, job)
            kx, ky, d = job["kx"], job["ky"], job["distance"]
            for y in range(h):
                for x in range(w):
                    if not valid[y, x]:
                        continue
                    y0, y1 = max(0, y - ky // 2), min(h, y + ky // 2 + 1)
                    x0, x1 = max(0, x - kx // 2), min(w, x + kx // 2 + 1)
                    got = []
                    for a in job["angles"]:
                        ox, oy = OFF[a][0] * d, OFF[a][1] * d
                        pairs = []
                        for py in range(y0, y1):
                            qy = py + oy
                            if not y0 <= qy < y1:
                                continue
                            for px in range(x0, x1):
                                qx = px + ox
                                if x0 <= qx < x1 and valid[py, px] and valid[qy, qx]:
                                    pairs.append((lev[py, px], lev[qy, qx]))
                        if not pairs:
                            continue
                        pr = np.array(pairs, np.int64)
                        if job["sym"]:
                            pr = np.concatenate([pr, pr[:, ::-1]])
                        cells, n = np.unique(pr[:, 0] * L + pr[:, 1], return_counts=True)
                        got.append(glcm_one(m, cells // L, cells % L, n / n.sum(), L,
                                            job["base"]))
                    if got:
                        o[y, x] = sum(got) / len(got)
        else:
            for y in range(h):
                for x in range(w):
                    if not valid[y, x]:
                        continue
                    ys = [y + dy for dy, dx in offs]
                    xs = [x + dx for dy, dx in offs]
                    keep = [(a, b) for a, b in zip(ys, xs) if 0 <= a < h and 0 <= b < w and valid[a, b]]
                    if not keep:
                        o[y, x] = np.nan if m == "majority" else 0.0
                        continue
                    ii = tuple(np.array(keep).T)
                    o[y, x] = hist_measure(m, cls[ii], vals[ii], job["base"])
        out.append(o)
    return out


# ---- random jobs -------------------------------------------------------

def random_image(rng, dt, h, w):
    t = DT[dt]
    kind = rng.integers(0, 3)
    if dt == "f32":
        img = (rng.random((h, w)) * rng.choice([1.0, 100.0, 1e4])).astype(np.float32)
        if kind == 0:
            img = np.round(img * 3) / 3
        return img.astype(np.float32)
    info = np.iinfo(t)
    if kind == 0:
        lo = int(rng.integers(max(info.min, -300), min(info.max, 300) - 6))
        img = rng.integers(lo, lo + rng.integers(2, 7), (h, w))
    elif kind == 1:
        img = rng.integers(info.min, int(info.max) + 1, (h, w), dtype=np.int64)
    else:
        img = rng.integers(0, min(int(info.max), 40) + 1, (h, w))
    return img.astype(t)


def random_job(rng):
    dt = str(rng.choice(list(DT)))
    big = rng.random() < 0.1
    h, w = int(rng.integers(1, 40 if big else 15)), int(rng.integers(1, 40 if big else 15))
    img = random_image(rng, dt, h, w)
    job = dict(dtype=dt, base=str(rng.choice(["2", "e", "10"])), bins=0, lo=None, hi=None,
               range_arg=None, nodata=None, distance=1, angles=[0, 45, 90, 135], sym=True,
               ot="float32", fmt=str(rng.choice(["zst", "tif", "raw", "zarr"])))
    glcm = rng.random() < 0.4
    pool = GLCM if glcm else HIST
    k = int(rng.integers(1, 4))
    ms = list(dict.fromkeys(str(x) for x in rng.choice(pool, k)))
    if glcm and rng.random() < 0.3:
        ms.append(str(rng.choice(HIST)))
        ms = list(dict.fromkeys(ms))
    job["measures"] = ms
    shape = rng.choice(["rect", "rect", "disk", "foot"]) if not glcm else "rect"
    job["shape"] = str(shape)
    if shape == "rect":
        odd = glcm or rng.random() < 0.5
        kx = int(rng.integers(0, 5)) * 2 + 1 if odd else int(rng.integers(1, 9))
        ky = int(rng.integers(0, 5)) * 2 + 1 if odd else int(rng.integers(1, 9))
        job.update(kx=kx, ky=ky)
    elif shape == "disk":
        r = int(rng.integers(0, 4))
        job.update(r=r, kx=2 * r + 1, ky=2 * r + 1)
    else:
        fh, fw = int(rng.integers(1, 7)), int(rng.integers(1, 7))
        f = rng.random((fh, fw)) < 0.6
        if not f.any():
            f[0, 0] = True
        job.update(foot=f.astype(np.uint8), kx=fw, ky=fh)
    if glcm:
        job["distance"] = int(rng.choice([1, 1, 2, 3]))
        if rng.random() < 0.5:
            job["angles"] = sorted(set(int(a) for a in rng.choice([0, 45, 90, 135],
                                                                  int(rng.integers(1, 4)))))
        job["sym"] = bool(rng.random() < 0.7)
    # quantization
    q = rng.random()
    if dt == "f32" or (glcm and dt not in ("u8", "i8")) or q < 0.35:
        job["bins"] = int(rng.choice([2, 4, 8, 16, 32]))
        if rng.random() < 0.5:
            job["range_arg"] = "auto"
        else:
            a, b = float(img.min()), float(img.max())
            span = (b - a) or 1.0
            lo = a - span * float(rng.choice([0, 0, 0.3]))
            hi = b + span * float(rng.choice([0, 0.2, 5]))
            if rng.random() < 0.2:
                lo, hi = a + span * 0.3, b - span * 0.3  # clamps
            if not hi > lo:
                hi = lo + 1
            job["range_arg"] = (float(np.float32(lo)), float(np.float32(hi)))
    # nodata
    if rng.random() < 0.4 and img.size > 0:
        v = img.flat[int(rng.integers(0, img.size))]
        job["nodata"] = float(v)
    job["ot"] = str(rng.choice(["float32", "float32", "float16", "uint16", "uint8"]))
    if job["shape"] != "foot" and job["fmt"] != "raw" and rng.random() < 0.3:
        # a second window in the same job (the maps: window-major)
        if rng.random() < 0.5 or glcm:
            k2 = (int(rng.integers(0, 4)) * 2 + 1, int(rng.integers(0, 4)) * 2 + 1)
            w2 = dict(shape="rect", kx=k2[0], ky=k2[1])
        else:
            r2 = int(rng.integers(0, 4))
            w2 = dict(shape="disk", r=r2, kx=2 * r2 + 1, ky=2 * r2 + 1)
        same = w2["shape"] == job["shape"] and w2["kx"] == job["kx"] and w2["ky"] == job["ky"]
        if not same:
            job["win2"] = w2
    if dt == "f32" and rng.random() < 0.3:
        img[rng.random(img.shape) < 0.15] = np.nan
    if rng.random() < 0.2:
        mutate(rng, img, job)
    return img, job


def mutate(rng, img, job):
    """Options near or past a limit, which every door must take or refuse
    alike: a co-occurrence measure with an even side, a disk or a
    footprint, a distance no pair fits, too many levels, a wide type
    without levels, a Renyi order too large for the window, a nodata no
    sample can equal, a range empty, reversed or too wide for its bins, a
    window side past the limits, renyi:1 (Shannon's), a NaN nodata, one
    bin, a majority's range at float32's largest value, --levels for the
    histogram measures."""
    k = int(rng.integers(0, 16))
    glcm = any(m.startswith("glcm-") for m in job["measures"])
    if k == 0 and glcm:
        job["kx"] += 1
    elif k == 1 and glcm:
        job.update(shape="disk", r=int(rng.integers(0, 3)))
        job.update(kx=2 * job["r"] + 1, ky=2 * job["r"] + 1)
    elif k == 2 and glcm:
        job["distance"] = int(rng.integers(2, 9))
    elif k == 3:
        job["bins"] = int(rng.choice([1024, 1025, 4096]))
        job["range_arg"] = job["range_arg"] or "auto"
    elif k == 4 and glcm and img.dtype.itemsize > 1:
        job["bins"], job["range_arg"] = 0, None
    elif k == 5:
        job["measures"] = list(dict.fromkeys(job["measures"] + ["renyi:%d" % rng.integers(3, 12)]))
        if job["shape"] == "rect":
            job["kx"], job["ky"] = int(rng.integers(9, 60)), int(rng.integers(9, 60))
    elif k == 6 and glcm:
        f = (rng.random((3, 3)) < 0.7).astype(np.uint8)
        f[1, 1] = 1
        if rng.random() < 0.3:
            f[:] = 1  # the rectangle, as a footprint
        job.update(shape="foot", foot=f, kx=3, ky=3)
        job.pop("win2", None)
    elif k == 7:
        # nodata outside the samples' type, or not a whole number for integers
        info = np.iinfo(img.dtype) if img.dtype.kind in "iu" else None
        job["nodata"] = float(rng.choice([info.max + 1.0, info.min - 1.0, 2.5])) if info \
            else float(rng.choice([1e39, -1e39]))
    elif k == 8:
        lo = float(rng.choice([0.0, 3.0, -2.0]))
        hi = float(rng.choice([lo, lo - 1.0]))  # an empty or reversed range
        job["bins"], job["range_arg"] = job["bins"] or 8, (lo, hi)
    elif k == 9:
        job["bins"], job["range_arg"] = 1 << 20, (-1e300, 1e300)  # its width overflows
        job["measures"] = [m for m in job["measures"] if not m.startswith("glcm-")] or ["entropy"]
    elif k == 10 and job["shape"] == "rect":
        job["kx"] = int(rng.choice([0, 256]))
        job.pop("win2", None)
    elif k == 11:
        job["measures"] = list(dict.fromkeys(job["measures"] + ["renyi:1"]))
    elif k == 12:
        job["nodata"] = float("nan")
    elif k == 13:
        job["bins"], job["range_arg"] = 1, job["range_arg"] or "auto"
    elif k == 14:
        job["measures"] = list(dict.fromkeys(job["measures"] + ["majority"]))
        top = float(rng.choice([3.3e38, 3.4028234663852886e38, 3.5e38, 1e39]))
        job["bins"], job["range_arg"] = int(rng.choice([1, 2, 1000])), (-top, top)
    elif k == 15 and job["bins"] and not any(m.startswith("glcm-") for m in job["measures"]):
        job["levels"] = True  # --levels N for the histogram measures: --bins N


def valid_of(img, job):
    v = np.ones(img.shape, bool)
    if img.dtype.kind == "f":
        v &= ~np.isnan(img)
    nd = job["nodata"]
    if nd is not None and not math.isnan(nd):
        if img.dtype.kind == "f":  # the kernels' rule: against nodata cast to float32
            with np.errstate(over="ignore"):
                v &= img != np.float32(nd)
        else:
            v &= img.astype(np.float64) != nd
    return v


def resolve_range(img, valid, job):
    """The range the engine takes (auto: the valid samples' min, max); a
    float band without bins takes 256 over it."""
    if not job["bins"] and img.dtype.kind == "f":
        job["bins"], job["range_arg"] = 256, "auto"
    if not job["bins"]:
        return
    if job["range_arg"] == "auto":
        vals = img[valid & (np.isfinite(img) if img.dtype.kind == "f" else True)]
        if vals.size == 0:
            job["lo"], job["hi"] = 0.0, 1.0
        else:
            a, b = float(vals.min()), float(vals.max())
            job["lo"], job["hi"] = (a, a + 1) if a == b else (a, b)
    else:
        job["lo"], job["hi"] = job["range_arg"]


# ---- the doors ---------------------------------------------------------

def num(v):
    return repr(float(v)) if not float(v).is_integer() else str(int(v))


def cli_words(job, tmp):
    words = ["--device", "cpu", "--base", job["base"], "--measure", ",".join(job["measures"])]
    if job["shape"] == "disk":
        words += ["--window", "disk%d" % job["r"]]
    elif job["shape"] == "foot":
        path = os.path.join(tmp, "foot.npy")
        np.save(path, job["foot"])
        words += ["--footprint", path]
    else:
        words += ["--window", "%dx%d" % (job["kx"], job["ky"])]
    if "win2" in job and job["shape"] != "foot":
        w2 = job["win2"]
        words[-1] += ",disk%d" % w2["r"] if w2["shape"] == "disk" else \
            ",%dx%d" % (w2["kx"], w2["ky"])
    glcm = any(m.startswith("glcm-") for m in job["measures"])
    if job["bins"]:
        words += ["--levels" if glcm or job.get("levels") else "--bins", str(job["bins"])]
        ra = job["range_arg"]
        words += ["--range", "auto" if ra == "auto" else "%s:%s" % (num(ra[0]), num(ra[1]))]
    if job["nodata"] is not None:
        words += ["--nodata", num(job["nodata"])]
    if glcm:
        if job["distance"] != 1:
            words += ["--distance", str(job["distance"])]
        if job["angles"] != [0, 45, 90, 135]:
            words += ["--angles", ",".join(str(a) for a in job["angles"])]
        if not job["sym"]:
            words += ["--asymmetric"]
    if job["ot"] != "float32":
        words += ["--ot", job["ot"]]
    return words


def read_cli(job, out, h, w):
    """The maps (float64, decoded from their codes) and each one's
    description, or raise."""
    n = len(job["measures"])
    fmt = job["fmt"]
    if fmt == "zst":
        maps, hdr = winent.read_zst(out)
        maps = np.asarray(maps, np.float64).reshape(n, h, w)
        descr = [e.get("measure", "") for e in hdr.get("maps", [hdr])]
        return maps, descr, hdr
    if fmt == "tif":
        import rasterio
        with rasterio.open(out) as src:
            a = src.read().astype(np.float64)
            nd = src.nodata
            if nd is not None and not math.isnan(nd):
                a[a == nd] = np.nan
            sc = np.array(src.scales).reshape(-1, 1, 1)
            of = np.array(src.offsets).reshape(-1, 1, 1)
            descr = list(src.descriptions)
        return a * sc + of, descr, None
    if fmt == "zarr":
        import xarray as xr
        ds = xr.open_zarr(out)
        a = ds["entropy"].values.astype(np.float64).reshape(n, h, w)
        descr = list(ds["measure"].values) if "measure" in ds.coords else \
            [ds["entropy"].attrs.get("measure", "")]
        return a, descr, None
    # raw: one file per map (in the order of the measures), each with its
    # ENVI header (the scale of integer codes, the band's name)
    d = os.path.dirname(out)
    if n == 1:
        files = [out]
    else:
        names = [f for f in os.listdir(d) if f.startswith("out_b1_") and f.endswith(".raw")]
        files = []
        for m in job["measures"]:
            mt = "" if m == "entropy" else m.replace(":", "")
            hit = [f for f in names if (f[:-4].split("_", 3) + [""])[3] == mt or
                   (m.startswith("glcm-") and (f[:-4].split("_", 3) + [""])[3].startswith(mt) and
                    (f[:-4].split("_", 3) + [""])[3][len(mt):len(mt) + 1] in ("d", "a"))]
            if len(hit) != 1:
                raise RuntimeError("raw files for %s: %s of %s" % (m, hit, names))
            files.append(os.path.join(d, hit[0]))
    t = {"float32": "<f4", "float16": "<f2", "uint16": "<u2", "uint8": "u1"}[job["ot"]]
    maps, descr, scales = [], [], []
    for f in files:
        a = np.fromfile(f, t).astype(np.float64).reshape(h, w)
        hdr = open(f + ".hdr").read() if os.path.exists(f + ".hdr") else ""
        g = re.search(r"data gain values = \{([^}]*)\}", hdr)
        ign = re.search(r"data ignore value = (\S+)", hdr)
        if ign and ign.group(1) != "nan":
            a[a == float(ign.group(1))] = np.nan
        if g:
            a *= float(g.group(1))
            scales.append(float(g.group(1)))
        nm = re.search(r"band names = \{([^}]*)\}", hdr)
        descr.append(nm.group(1) if nm else "")
        maps.append(a)
    return np.stack(maps), descr, {"raw_scales": scales}


def run_src(tmp):
    return os.path.join(tmp, "in.raw")


def run_cli(ws, img, job, tmp):
    h, w = img.shape
    src = run_src(tmp)
    img.tofile(src)
    out = os.path.join(tmp, "out." + job["fmt"])
    side = ["--sidecar"] if job["fmt"] == "raw" and job["ot"] != "float16" else []
    cmd = [ws, "--quiet", "--size", "%dx%d" % (w, h), "--dtype", job["dtype"]] + \
        cli_words(job, tmp) + side + [src, out]
    p = subprocess.run(cmd, capture_output=True, text=True, env=CHILD_ENV)
    return p, out, cmd


def run_py(img, job, dask=False):
    a = img
    if dask:
        import dask.array as da
        a = da.from_array(img, chunks=(max(1, img.shape[0] // 2 + 1), max(1, img.shape[1] // 2 + 1)))
    kw = dict(base=job["base"], device="cpu")
    if job["nodata"] is not None:
        kw["nodata"] = job["nodata"]
    ra = job["range_arg"]
    if job["bins"]:
        kw["range"] = ra
    if job["shape"] == "disk":
        win = ("disk", job["r"])
    elif job["shape"] == "foot":
        win = None
    else:
        win = (job["ky"], job["kx"])
    glcm = any(m.startswith("glcm-") for m in job["measures"])
    f = job.get("foot")
    if job["shape"] == "foot" and glcm and f.all() and f.shape[0] % 2 and f.shape[1] % 2:
        win = f.shape  # a rectangle of ones is that window (texture has no footprint=)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if job["shape"] == "foot" and win is None:
            if job["bins"]:
                kw["bins"] = job["bins"]
            if glcm:  # entropy() takes one measure at its defaults' pairs
                kw["range"] = ra if job["bins"] else None
            maps = [winent.entropy(a, footprint=job["foot"].astype(bool), measure=m, **kw)
                    for m in job["measures"]]
            maps = [np.asarray(m) for m in maps]
            return np.stack(maps).astype(np.float64)
        if glcm:
            kw.update(distances=job["distance"], angles=job["angles"], symmetric=job["sym"])
        if job["bins"]:
            kw["levels"] = job["bins"]
        m = winent.texture(a, job["measures"], window=win, **kw)
        return np.asarray(m).astype(np.float64)


# ---- the C doors: the engine and a job, options built directly ----------

def c_compute(img, job, win, measure):
    """winent_compute_opts of one map, filled field by field (no parser):
    the window `win` (job's or its second), the measure, the range
    resolved as the job resolves it (the engine has no "auto"). Returns
    (opts, what keeps the footprint's bytes alive)."""
    import ctypes
    from winent import _lib
    L = _lib.lib()
    o = _lib.winent_compute_opts()
    L.winent_compute_opts_default(ctypes.byref(o))
    keep = None
    if win["shape"] == "foot":
        f = np.ascontiguousarray(win["foot"], np.uint8)
        keep = (ctypes.c_ubyte * f.size).from_buffer_copy(f.tobytes())
        o.kx, o.ky = f.shape[1], f.shape[0]
        o.footprint = ctypes.cast(keep, ctypes.POINTER(ctypes.c_ubyte))
    elif win["shape"] == "disk":  # the CLI's diskR, whatever a mutation did to kx
        o.kx = o.ky = 2 * win["r"] + 1
        o.disk = 1
    else:
        o.kx, o.ky = win["kx"], win["ky"]
    o.base = _lib.BASES[job["base"]]
    o.dtype = _lib.DTYPES.index(job["dtype"])
    bins, ra = job["bins"], job["range_arg"]
    if not bins and img.dtype.kind == "f":
        bins, ra = 256, "auto"
    o.bins = bins
    if bins:
        if ra == "auto":
            from winent._compute import _auto_range
            o.range_lo, o.range_hi = _auto_range(img, job["nodata"])
        else:
            o.range_lo, o.range_hi = ra
    if job["nodata"] is not None:
        o.has_nodata, o.nodata = int(not math.isnan(job["nodata"])), job["nodata"]
    name = measure
    o.measure = _lib.MEASURES.index("renyi" if name.startswith("renyi:") else name)
    o.renyi_q = float(name[6:]) if name.startswith("renyi:") else 0.0
    o.glcm_distance = job["distance"]
    bits = sum(1 << (a // 45) for a in job["angles"])
    o.glcm_angles = 0 if bits == 15 else bits
    o.glcm_asymmetric = int(not job["sym"])
    return o, keep


def windows_of(job):
    return [job] + ([job["win2"]] if "win2" in job else [])


def run_engine(img, job):
    """Every map of the job through winent_engine_create / compute on the
    CPU, window-major as the job's: (maps, None), or (None, (status,
    message)) for the first refusal."""
    import ctypes
    from winent import _lib
    L = _lib.lib()
    h, w = img.shape
    a = np.ascontiguousarray(img)
    maps = []
    for win in windows_of(job):
        for m in job["measures"]:
            o, keep = c_compute(img, job, win, m)
            e = ctypes.c_void_p()
            err = _lib.winent_error()
            st = L.winent_engine_create(ctypes.byref(o), 0, 0, w, h, 1, ctypes.byref(e),
                                        ctypes.byref(err))
            if st != 0:
                return None, (st, _lib.message_of(err))
            out = np.full((h, w), -7.0, np.float32)
            try:
                st = L.winent_engine_compute(e, a.ctypes.data, a.strides[0], w, h, 0, h, 0, h,
                                             out.ctypes.data, w)
                if st != 0:
                    return None, (st, _lib.message_of(L.winent_engine_error(e).contents))
            finally:
                L.winent_engine_free(e)
            del keep
            maps.append(out.astype(np.float64))
    return np.stack(maps), None


OT_CODE = {"float32": 0, "float16": 1, "uint16": 2, "uint8": 3}
FMT_CODE = {"raw": 1, "zst": 2, "tif": 3, "zarr": 4}


def c_job_opts(img, job, src, out, ot=None, fmt=None):
    """winent_job_opts of the CLI's job, filled field by field (not through
    the CLI's parser): the footprint as given (the parser would take a
    rectangle of ones for that window), the range "auto" as the flag."""
    import ctypes
    from winent import _lib
    L = _lib.lib()
    jo = _lib.winent_job_opts()
    L.winent_job_opts_default(ctypes.byref(jo))
    keep = [src.encode(), out.encode(), b"cpu"]
    jo.input, jo.output, jo.device = keep[0], keep[1], keep[2]
    jo.width, jo.height = img.shape[1], img.shape[0]
    jo.dtype_given = 1
    jo.threads = 1
    c, k = c_compute(img, job, job, job["measures"][0])
    keep.append(k)
    if job["bins"] and job["range_arg"] == "auto":
        c.range_lo = c.range_hi = 0.0
        jo.range_auto = 1
    elif not job["bins"] and img.dtype.kind == "f":
        c.bins, c.range_lo, c.range_hi = 0, 0.0, 0.0  # the job's default: auto, 256 bins
    jo.compute = c
    jo.nodata_given = int(job["nodata"] is not None)
    ms = job["measures"]
    if len(ms) > 1:
        codes = (ctypes.c_int * len(ms))(*[_lib.MEASURES.index(m.split(":")[0]) for m in ms])
        qs = (ctypes.c_double * len(ms))(*[float(m[6:]) if m.startswith("renyi:") else 0.0
                                           for m in ms])
        keep += [codes, qs]
        jo.measure_list = ctypes.cast(codes, ctypes.POINTER(ctypes.c_int))
        jo.measure_q = ctypes.cast(qs, ctypes.POINTER(ctypes.c_double))
        jo.nmeasure_list = len(ms)
    if "win2" in job:
        ws = windows_of(job)
        sides = [(2 * x["r"] + 1,) * 2 if x["shape"] == "disk" else (x["kx"], x["ky"])
                 for x in ws]
        arr = (ctypes.c_int * 4)(*[v for x in sides for v in x])
        disk = (ctypes.c_int * 2)(*[int(x["shape"] == "disk") for x in ws])
        keep += [arr, disk]
        jo.window_list = ctypes.cast(arr, ctypes.POINTER(ctypes.c_int))
        jo.window_disk = ctypes.cast(disk, ctypes.POINTER(ctypes.c_int))
        jo.nwindow_list = 2
    jo.out_type = OT_CODE[ot or job["ot"]]
    jo.format = FMT_CODE[fmt or job["fmt"]]
    jo.sidecar = int((fmt or job["fmt"]) == "raw" and (ot or job["ot"]) != "float16")
    return jo, keep


def run_c_job(img, job, src, out):
    """The job through winent_job_create / run: (status, message)."""
    import ctypes
    from winent import _lib
    L = _lib.lib()
    jo, keep = c_job_opts(img, job, src, out)
    err = _lib.winent_error()
    h = _lib.c_job_p()
    st = L.winent_job_create(ctypes.byref(jo), ctypes.byref(h), ctypes.byref(err))
    if st != 0:
        return st, _lib.message_of(err)
    try:
        st = L.winent_job_run(h)
        msg = _lib.message_of(L.winent_job_error(h).contents)
    finally:
        L.winent_job_free(h)
    del keep
    return st, msg


def c_validates(img, job, src):
    """Whether winent_job_opts_validate takes what is computed (a float32
    .zst of the same compute options): what an engine must refuse where
    it does not."""
    import ctypes
    from winent import _lib
    jo, keep = c_job_opts(img, job, src, src + ".zst", ot="float32", fmt="zst")
    jo.sidecar = 0
    err = _lib.winent_error()
    st = _lib.lib().winent_job_opts_validate(ctypes.byref(jo), ctypes.byref(err))
    del keep
    return st, _lib.message_of(err)


def run_py_job(img, job, src, out):
    """The job through winent.run with Python's keywords (measure=,
    levels=, distances=, angles=, symmetric=): None, or the UsageError's
    text."""
    glcm = any(m.startswith("glcm-") for m in job["measures"])
    kw = dict(size=(img.shape[1], img.shape[0]), dtype=job["dtype"], base=job["base"],
              measure=job["measures"], device="cpu", threads=1, ot=job["ot"],
              sidecar=job["fmt"] == "raw" and job["ot"] != "float16")
    if job["shape"] == "foot":
        kw["footprint"] = job["foot"].astype(bool)
    elif "win2" in job:
        kw["windows"] = [("disk", x["r"]) if x["shape"] == "disk" else (x["ky"], x["kx"])
                         for x in windows_of(job)]
    else:
        kw["window"] = ("disk", job["r"]) if job["shape"] == "disk" else (job["ky"], job["kx"])
    if job["bins"]:
        kw["levels" if glcm or job.get("levels") else "bins"] = job["bins"]
        kw["range"] = job["range_arg"]
    if job["nodata"] is not None:
        kw["nodata"] = job["nodata"]
    if glcm:
        kw.update(distances=job["distance"], angles=job["angles"], symmetric=job["sym"])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            winent.run(src, out, **kw)
    except winent.UsageError as e:
        return str(e)
    return None


def other_doors(img, job, tmp, p, cli_maps, want, fails, py_err=None):
    """The engine, the C job and winent.run beside the CLI's outcome `p`
    (its maps `cli_maps`, the oracle's `want`)."""
    cli_usage = p.returncode == 2
    src = run_src(tmp)
    c_doors = job["range_arg"] != (0.0, 0.0)  # the C fields' 0:0 is "no range", not one given
    if c_doors:
        c_job_door(img, job, src, tmp, p, cli_maps, fails)
    py_job_door(img, job, src, tmp, cli_usage, cli_maps, fails, py_err)
    if c_doors:
        engine_door(img, job, src, p, cli_maps, want, fails)


def unquoted(lines):
    """Lines without their quoted values: the CLI quotes a value as typed
    ('1e39' or its 40 digits), the C door as the library writes it."""
    return [re.sub(r"'[^']*'", "''", x) for x in lines]


def c_job_door(img, job, src, tmp, p, cli_maps, fails):
    """The C job: the CLI's outcome (a refusal in the CLI's line), the
    same maps."""
    cli_usage = p.returncode == 2
    d = os.path.join(tmp, "cjob")
    os.mkdir(d)
    out = os.path.join(d, "out." + job["fmt"])
    st, msg = run_c_job(img, job, src, out)
    cli_foot = job["shape"] == "foot"  # the CLI's parser takes a full footprint as its window
    if st == 2 and not cli_usage:
        fails.append("winent_job refuses (%s), the CLI takes" % msg)
    elif st != 2 and cli_usage:
        fails.append("the CLI refuses, winent_job gives %d (%s)" % (st, msg))
    elif st not in (0, 2):
        fails.append("winent_job status %d: %s" % (st, msg))
    elif st == 2 and unquoted(p.stderr.strip().splitlines()[-1:]) != \
            unquoted(["winent-stream: " + msg]):
        fails.append("the CLI says %r, winent_job %r" % (p.stderr.strip()[-200:], msg))
    elif st == 0 and cli_maps is not None:
        got = read_cli(dict(job, measures=job["measures"] * len(windows_of(job))), out,
                       *img.shape)
        if not np.array_equal(got[0], cli_maps[0], equal_nan=True):
            fails.append("winent_job's maps differ from the CLI's")
        elif not cli_foot and [str(x) for x in got[1]] != [str(x) for x in cli_maps[1]]:
            fails.append("winent_job's maps described %r, the CLI's %r" % (got[1], cli_maps[1]))


def py_job_door(img, job, src, tmp, cli_usage, cli_maps, fails, py_err):
    """winent.run: the CLI's outcome, the same maps; where winent.texture
    (entropy) refuses too, the same line."""
    d = os.path.join(tmp, "pyjob")
    os.mkdir(d)
    out = os.path.join(d, "out." + job["fmt"])
    err = run_py_job(img, job, src, out)
    if err is not None and not cli_usage:
        fails.append("winent.run refuses (%s), the CLI takes" % err)
    elif err is None and cli_usage:
        fails.append("the CLI refuses, winent.run takes")
    elif err is not None and py_err is not None and job["ot"] == "float32" and \
            unquoted([err.split(":")[0]]) != unquoted([py_err.split(":")[0]]):
        # The same rule named first (an array's and a file's own words may
        # differ after it: "the array holds", "the input holds"); --ot is
        # the job's alone.
        fails.append("winent.run says %r, winent.texture %r" % (err, py_err))
    elif err is None and cli_maps is not None:
        got = read_cli(dict(job, measures=job["measures"] * len(windows_of(job))), out,
                       *img.shape)
        if not np.array_equal(got[0], cli_maps[0], equal_nan=True):
            fails.append("winent.run's maps differ from the CLI's")


def engine_door(img, job, src, p, cli_maps, want, fails):
    """The engine: what the job's validation refuses in what is computed,
    refused alike; else the oracle's maps, the CLI's bits in float32."""
    vst, vmsg = c_validates(img, job, src)
    maps, refused = run_engine(img, job)
    if refused is not None:
        if refused[0] != 2:
            fails.append("winent_engine_create status %d: %s" % refused)
        elif vst == 0 and p.returncode != 2:
            # A refusal of the samples themselves (a majority's classes
            # past float32's integers) is the run's, not the options'.
            fails.append("the engine refuses (%s), the CLI takes" % refused[1])
    else:
        if vst != 0:
            fails.append("the engine computes what winent_job_opts_validate refuses (%s)" % vmsg)
        elif want is not None:
            jall = dict(job, measures=job["measures"] * len(windows_of(job)), ot="float32")
            fails += compare("engine", maps, want, jall)
            if cli_maps is not None and job["ot"] == "float32" and \
                    not np.array_equal(maps.astype(np.float32), cli_maps[0].astype(np.float32),
                                       equal_nan=True):
                fails.append("the engine's maps and the CLI's differ in their bits")


# ---- the comparisons ---------------------------------------------------

def compare(name, got, want, job, scale=None):
    """Worst error against the tolerance of the output type, or a text."""
    bad = []
    for k, m in enumerate(job["measures"]):
        g, o = got[k], want[k]
        nan_g, nan_o = np.isnan(g), np.isnan(o)
        if (nan_g != nan_o).any():
            y, x = np.argwhere(nan_g != nan_o)[0]
            bad.append("%s %s: NaN differs at (%d,%d): got %r want %r" % (name, m, y, x, g[y, x], o[y, x]))
            continue
        ok = ~nan_o
        if not ok.any():
            continue
        err = np.abs(g[ok] - o[ok])
        if job["ot"] == "float32":
            tol = 3e-6 * np.maximum(1.0, np.abs(o[ok]))
            if m.startswith("renyi:") and not float(m[6:]).is_integer():
                tol = tol + 1e-6 * np.maximum(1.0, np.abs(o[ok]))
        elif job["ot"] == "float16":
            tol = 2.0 ** -11 * np.abs(o[ok]) + 6e-8 + 3e-6 * np.abs(o[ok])
        else:
            tol = scale[k] / 2 * (1 + 1e-6) + 3e-6 * np.abs(o[ok])
            if np.isfinite(scale[k]):
                code = np.round(o[ok] / scale[k])
                top = 254 if job["ot"] == "uint8" else 65534
                if (code > top + 0.5).any() or (code < -0.5).any():
                    bad.append("%s %s: values %r..%r past the codes 0..%d of scale %r" % (
                        name, m, o[ok].min(), o[ok].max(), top, scale[k]))
                    continue
        if (err > tol).any() or not np.isfinite(g[ok]).all():
            i = int(np.argmax(np.where(np.isfinite(err), err - tol, np.inf)))
            bad.append("%s %s: got %r want %r (worst of %d)" % (name, m, g[ok][i], o[ok][i], ok.sum()))
    return bad


def int_scales(job, hdr, out):
    """Each map's scale for integer --ot (from the file: header or tags)."""
    n = len(job["measures"])
    if job["fmt"] == "zst" and hdr is not None:
        return [e.get("scale", hdr.get("scale")) for e in hdr.get("maps", [hdr])]
    if job["fmt"] == "tif":
        import rasterio
        with rasterio.open(out) as src:
            return list(src.scales)
    if hdr and hdr.get("raw_scales"):
        return hdr["raw_scales"]
    return None


def one_case(ws, rng, tmp, verbose):
    img, job = random_job(rng)
    job0 = dict(job)  # as given (the oracle's resolve_range fills in the range)
    valid = valid_of(img, job)
    p, out, cmd = run_cli(ws, img, job, tmp)
    text = " ".join(shlex.quote(c) for c in cmd)
    fails = []
    # Python's door (the float32 maps), numpy and dask
    sub = [job] + ([dict(job, **job["win2"])] if "win2" in job else [])
    jall = dict(job, measures=job["measures"] * len(sub))
    py_err = py = None
    try:
        py = np.concatenate([run_py(img, j) for j in sub])
    except winent.UsageError as e:
        py_err = str(e)
    except Exception as e:  # noqa: BLE001 - any other exception is a failure
        fails.append("python raised %s: %s" % (type(e).__name__, e))
    if py is not None and rng.random() < 0.25 and job["shape"] != "foot":
        try:
            pd = np.concatenate([run_py(img, j, dask=True) for j in sub])
            if not np.array_equal(pd, py, equal_nan=True):
                fails.append("dask's maps differ from numpy's")
        except winent.UsageError as e:
            if "rechunk" not in str(e) and "halo" not in str(e):
                fails.append("dask refuses what numpy takes: %s" % e)
    cli_usage = p.returncode == 2
    # The job's own refusals that Python's array doors have no word for.
    job_only = job["fmt"] in ("raw", "zarr", "tif", "zst") and job["ot"] != "float32"
    if p.returncode not in (0, 2):
        fails.append("CLI exit %d: %s" % (p.returncode, p.stderr.strip()))
    if cli_usage and py_err is None and py is not None and not job_only:
        fails.append("CLI refuses, Python takes: %s" % p.stderr.strip())
    if not cli_usage and py_err is not None:
        fails.append("Python refuses, CLI takes: %s" % py_err)
    want = cli_maps = None
    if p.returncode == 0 or py is not None or c_validates(img, job0, run_src(tmp))[0] == 0:
        for j in sub:
            resolve_range(img, valid, j)
        jall = dict(sub[0], measures=job["measures"] * len(sub))
        want = np.concatenate([oracle(img, valid, j) for j in sub])
        if py is not None:
            fails += compare("python", py, want, dict(jall, ot="float32"))
        if p.returncode == 0:
            try:
                got, descr, hdr = read_cli(jall, out, *img.shape)
                cli_maps = (got, descr)
                scale = int_scales(jall, hdr, out) if job["ot"] in ("uint8", "uint16") else None
                if job["ot"] in ("uint8", "uint16") and not scale:
                    scale = [np.inf] * len(jall["measures"])
                fails += compare("cli/" + job["fmt"], got, want, jall, scale)
                if py is not None and job["ot"] == "float32" and \
                        not np.array_equal(got.astype(np.float32), py.astype(np.float32),
                                           equal_nan=True):
                    fails.append("Python's maps and the CLI's differ in their bits")
                if len(jall["measures"]) > 1 and \
                        not (job["fmt"] == "raw" and job["ot"] == "float16"):
                    for k, m in enumerate(jall["measures"]):
                        if m.split(":")[0] not in str(descr[k]):
                            fails.append("band %d described %r, holds %s" % (k + 1, descr[k], m))
            except Exception as e:  # noqa: BLE001
                fails.append("reading the CLI's %s: %s: %s" % (job["fmt"], type(e).__name__, e))
    try:
        other_doors(img, job0, tmp, p, cli_maps, want, fails, py_err)
    except Exception as e:  # noqa: BLE001 - any exception is a failure
        fails.append("the C doors / winent.run raised %s: %s" % (type(e).__name__, e))
    if verbose or fails:
        print(("FAIL " if fails else "ok   ") + text)
        if verbose and (p.returncode or py_err):
            print("     refused: CLI %r / Python %r" % (p.stderr.strip()[-160:], py_err))
        for f in fails:
            print("     " + f)
        if fails:
            print("     image %s %r nodata %r" % (img.dtype, img.tolist() if img.size <= 64 else img.shape, job["nodata"]))
        sys.stdout.flush()
    return not fails


def main():
    warnings.simplefilter("ignore")
    ap = argparse.ArgumentParser()
    ap.add_argument("ws")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=0)
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    t0, n, failed = time.time(), 0, 0
    with tempfile.TemporaryDirectory(prefix="doors-") as tmp:
        while n < a.cases or (a.seconds and time.time() - t0 < a.seconds):
            for f in os.listdir(tmp):
                p = os.path.join(tmp, f)
                subprocess.run(["rm", "-rf", p])
            failed += not one_case(a.ws, rng, tmp, a.v)
            n += 1
            if a.seconds and time.time() - t0 >= a.seconds and n >= a.cases:
                break
    print("%d cases, %d failed" % (n, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
