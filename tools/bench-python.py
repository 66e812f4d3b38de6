#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""What the Python package costs beside the command (docs/PERFORMANCE.md,
"The Python package"): best of N wall times of

  1. the map of a W x H u8 image: winent-stream (raw file to a raw file,
     and to /dev/null) against winent.entropy() on the array in memory,
     and against examples/dask_entropy.py (blocks of 1024 x 1024: the
     script, and winent.entropy of a dask array in this process);
  2. winent.entropy() of a 64 x 64 array: the fixed cost of one call;
  3. reading the map's .zst: zstd -dc, winent.read_zst, the README's
     zstandard-only recipe, and open_zst of 16 rows (one frame).

    PYTHONPATH=python WINENT_LIBRARY=build/lib/libwinent.so.0 \\
        /usr/bin/python3 tools/bench-python.py [--size 4096] [--threads N] [--repeat 3]

The command is build/src/winent-stream (WINENT_BIN to change the folder).
"""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

import winent

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--size", type=int, default=4096)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    ws = os.path.join(os.environ.get("WINENT_BIN", os.path.join(SRC, "build", "src")),
                      "winent-stream")
    n, t, r = a.size, a.threads, a.repeat
    tmp = tempfile.mkdtemp(prefix="winent-bench-py-")
    try:
        img = np.random.default_rng(1).integers(0, 12, (n, n)).astype(np.uint8)
        raw = os.path.join(tmp, "in.raw")
        img.tofile(raw)
        out = os.path.join(tmp, "out.raw")
        size = "%dx%d" % (n, n)
        rows = {}
        rows["winent-stream in.raw out.raw"] = best(lambda: subprocess.run(
            [ws, "--quiet", "--threads", str(t), "--size", size, "--dtype", "u8", raw, out],
            check=True), r)
        rows["winent-stream in.raw /dev/null"] = best(lambda: subprocess.run(
            [ws, "--quiet", "--threads", str(t), "--size", size, "--dtype", "u8", raw,
             "/dev/null"], check=True), r)
        rows["winent.entropy(array)"] = best(lambda: winent.entropy(img, threads=t), r)
        rows["examples/dask_entropy.py (1024x1024 blocks, 1 thread each)"] = best(
            lambda: subprocess.run([sys.executable, os.path.join(SRC, "examples",
                                                                 "dask_entropy.py"),
                                    "--size", size, "--dtype", "u8", "--chunks", "1024x1024",
                                    raw, os.path.join(tmp, "dask.raw")], check=True), r)
        import dask
        import dask.array as da
        for th in (1, t):
            def in_process(th=th):
                with dask.config.set(scheduler="threads"):
                    winent.entropy(da.from_array(img, chunks=(1024, 1024)), window=5,
                                   threads=th).compute()
            rows["dask: winent.entropy(dask array, 1024x1024 blocks, %d thread(s) each)"
                 ".compute()" % th] = best(in_process, r)
        small = img[:64, :64].copy()
        calls = 200
        rows["winent.entropy(64 x 64), per call"] = best(
            lambda: [winent.entropy(small, threads=1) for _ in range(calls)], r) / calls

        zst = os.path.join(tmp, "map.zst")
        subprocess.run([ws, "--quiet", "--size", size, "--dtype", "u8", raw, zst], check=True)
        rows["zstd -dc map.zst > /dev/null"] = best(lambda: subprocess.run(
            "zstd -dcq '%s' > /dev/null" % zst, shell=True, check=True), r)
        rows["winent.read_zst(map.zst)"] = best(lambda: winent.read_zst(zst), r)

        import zstandard

        def recipe():  # README, "Reading .zst maps"
            with open(zst, "rb") as f:
                magic, size = struct.unpack("<II", f.read(8))
                header = json.loads(f.read(size))
                emap = np.empty((header["height"], header["width"]), "<f4")
                reader = zstandard.ZstdDecompressor().stream_reader(f, read_across_frames=True)
                view, got = memoryview(emap).cast("B"), 0
                while got < len(view):
                    k = reader.readinto(view[got:])
                    if k == 0:
                        raise EOFError("map.zst is cut short")
                    got += k

        def read_all():
            with open(zst, "rb") as f:
                _, hsize = struct.unpack("<II", f.read(8))
                json.loads(f.read(hsize))
                zstandard.ZstdDecompressor().stream_reader(f, read_across_frames=True).read()

        rows["zstandard stream_reader, readinto a numpy array (README recipe)"] = best(recipe, r)
        rows["zstandard stream_reader(...).read() (bytes of unknown size)"] = best(read_all, r)

        def rows16():
            with winent.open_zst(zst) as m:
                m[n // 2:n // 2 + 16]

        rows["open_zst + 16 rows"] = best(rows16, r)
        print("| %s, %d threads | best of %d |" % ("%d x %d u8, window 5" % (n, n), t, r))
        print("|---|---|")
        for k, v in rows.items():
            print("| %s | %s |" % (k, "%.1f ms" % (v * 1e3) if v < 1 else "%.2f s" % v))
    finally:
        shutil.rmtree(tmp, True)


if __name__ == "__main__":
    main()
