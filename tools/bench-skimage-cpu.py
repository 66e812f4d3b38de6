#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The CPU engine against scikit-image, side by side, against its targets:

  1. an 8192 x 8192 u8 land-cover-like map of 64 classes, 31 x 31 windows
     (target: winent-stream --device cpu at least 50x an ideal all-core
     scikit-image, that is its one-thread time / the cores);
  2. 8192 x 8192 u8 imagery of about 256 values (scikit-image's camera
     photograph, mirrored to fill it), 15 x 15 windows (target 30x).

For each: scikit-image's skimage.filters.rank.entropy on one thread times a
slice of --slice output rows (with the window's halo rows) and is scaled to
the whole image by rows; winent-stream computes the whole job, raw u8 file
to a raw float32 map, base 2, best of --repeat; its rows of the slice are
checked against scikit-image's (1e-5, as tests/engine/skimage_compare.py). The
files go to /dev/shm where it exists (--work to change): the job's floor
there is writing the map, so the table also gives numpy's time to write the
same float32 map to the same folder ("write alone") and the ratio that floor
allows. Prints a Markdown table with the ratios; exit 1 when a map
differs.

Needs Python 3 with numpy and scikit-image only (no GDAL, no libtiff): it
runs on the device machines.

    /usr/bin/python3 tools/bench-skimage-cpu.py [--winent build/src/winent-stream]
        [--size 8192] [--slice 512] [--cores N] [--repeat 3] [--work DIR]
        [--cases landscape64,imagery256]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")  # scikit-image on one thread

import numpy as np  # noqa: E402
from skimage import data  # noqa: E402
from skimage.filters.rank import entropy  # noqa: E402
from skimage.transform import resize  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)


def landscape(size, classes, seed):
    """A smooth random field of a few octaves (random lattices resized with
    bilinear interpolation), cut at its own quantiles into `classes` classes
    of about equal area, the labels shuffled: patches of a few to a few
    hundred pixels, as in a land-cover map."""
    rng = np.random.default_rng(seed)
    field = np.zeros((size, size), np.float32)
    for cell, amp in ((256, 1.0), (96, 0.5), (32, 0.3), (11, 0.15)):
        n = size // cell + 2
        lat = rng.random((n, n)).astype(np.float32)
        up = resize(lat, (n * cell, n * cell), order=1, mode="edge", anti_aliasing=False,
                    preserve_range=True).astype(np.float32)
        field += amp * up[:size, :size]
    cuts = np.quantile(field[::7, ::7], np.linspace(0, 1, classes + 1)[1:-1])
    labels = rng.permutation(classes).astype(np.uint8)
    return labels[np.searchsorted(cuts, field)]


def imagery(size):
    """scikit-image's 512 x 512 camera photograph, mirrored to fill size x size."""
    cam = data.camera()
    reps = -(-size // cam.shape[0])
    tiled = np.pad(cam, ((0, reps * cam.shape[0] - cam.shape[0]),
                         (0, reps * cam.shape[1] - cam.shape[1])), mode="symmetric")
    return np.ascontiguousarray(tiled[:size, :size])


CASES = {
    "landscape64": ("u8 landscape, 64 classes", lambda n: landscape(n, 64, 7), 31, 50.0),
    "imagery256": ("u8 imagery (camera, mirrored)", imagery, 15, 30.0),
}


def time_skimage(img, k, rows):
    """Seconds scikit-image takes for output rows [y0, y0 + rows) of img
    (the middle of the image), and those rows."""
    h = img.shape[0]
    y0 = max(0, (h - rows) // 2)
    r = k // 2
    a, b = max(0, y0 - r), min(h, y0 + rows + r)
    t0 = time.perf_counter()
    out = entropy(img[a:b], np.ones((k, k), np.uint8))
    t = time.perf_counter() - t0
    return t, y0, out[y0 - a:y0 - a + rows]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--winent", default=os.path.join(SRC, "build", "src", "winent-stream"))
    ap.add_argument("--size", type=int, default=8192)
    ap.add_argument("--slice", type=int, default=512, help="output rows scikit-image times")
    ap.add_argument("--cores", type=int, default=os.cpu_count(),
                    help="cores of the ideal scikit-image (default: this host's)")
    ap.add_argument("--threads", type=int, default=0, help="winent-stream --threads (0: all)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--work", default=None,
                    help="folder for the inputs and maps (default: a new one in /dev/shm, "
                         "else in the temporary folder)")
    ap.add_argument("--cases", default=",".join(CASES))
    o = ap.parse_args()
    if not os.access(o.winent, os.X_OK):
        sys.exit("bench-skimage-cpu: %s: not an executable (--winent)" % o.winent)
    shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    work = o.work or tempfile.mkdtemp(prefix="bench-skimage-", dir=shm)
    os.makedirs(work, exist_ok=True)
    n = o.size
    rows = []
    bad = 0
    try:
        for name in o.cases.split(","):
            title, make, k, target = CASES[name]
            img = make(n)
            src = os.path.join(work, name + ".u8")
            dst = os.path.join(work, name + ".f32")
            img.tofile(src)
            t_slice, y0, ref = time_skimage(img, k, min(o.slice, n))
            t1 = t_slice * n / ref.shape[0]
            cmd = [o.winent, "--quiet", "--device", "cpu", "--size", "%dx%d" % (n, n),
                   "--dtype", "u8", "--window", str(k), "--base", "2", src, dst]
            if o.threads:
                cmd[1:1] = ["--threads", str(o.threads)]
            best = None
            for _ in range(o.repeat):
                t0 = time.perf_counter()
                subprocess.run(cmd, check=True)
                t = time.perf_counter() - t0
                best = t if best is None else min(best, t)
            ours = np.fromfile(dst, dtype="<f4").reshape(n, n)[y0:y0 + ref.shape[0]]
            os.remove(dst)
            # The floor of a job writing this map: the bytes alone, best of 3.
            blank = np.ones((n, n), np.float32)
            write = None
            for _ in range(3):
                t0 = time.perf_counter()
                blank.tofile(dst)
                t = time.perf_counter() - t0
                write = t if write is None else min(write, t)
                os.remove(dst)
            del blank
            diff = float(np.abs(ours.astype(np.float64) - ref.astype(np.float32)).max())
            ok = diff <= 1e-5
            bad += not ok
            ideal = t1 / o.cores
            rows.append((title, k, len(np.unique(img)), t1, ideal, best, ideal / best, target,
                         write, ideal / write, diff, ok))
            print("# %s %dx%d: scikit-image %.2f s for %d rows (%.1f s whole, one thread), "
                  "winent-stream %.3f s, max diff %.2g" % (name, k, k, t_slice, ref.shape[0],
                                                          t1, best, diff), flush=True)
    finally:
        if o.work is None:
            shutil.rmtree(work, ignore_errors=True)
    print("\n%dx%d, base 2, %d cores; scikit-image on one thread (a %d-row slice, scaled), "
          "winent-stream --device cpu, whole job, raw to raw, best of %d\n"
          % (n, n, o.cores, min(o.slice, n), o.repeat))
    print("| input | window | values | scikit-image 1 thread (s) | ideal %d cores (s) | "
          "winent-stream (s) | ratio to ideal | target | write alone (s) | ratio it allows | "
          "max diff |" % o.cores)
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for (title, k, vals, t1, ideal, best, ratio, target, write, bound, diff, ok) in rows:
        print("| %s | %dx%d | %d | %.1f | %.2f | %.3f | %.1fx | %.0fx%s | %.3f | %.0fx | %.2g%s |"
              % (title, k, k, vals, t1, ideal, best, ratio, target,
                 "" if ratio >= target else " (missed)", write, bound, diff,
                 "" if ok else " DIFFERS"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
