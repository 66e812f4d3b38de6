#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The entropy map of a raw raster with dask: winent.entropy on every block
of a dask array, under dask.array.map_overlap, in the memory of a few
blocks. It gives the same bytes as

    winent-stream --size WxH --dtype T --window K [...] IN.raw OUT.raw

    python3 dask_entropy.py [--window K|WxH] [--base 2|e|10]
                            [--bins N --range LO:HI] [--nodata V]
                            [--chunks ROWSxCOLS] [--threads N]
                            --size WxH --dtype T IN.raw OUT.raw

Why it is the same map:
- each block is given depth = window // 2 more rows and columns of its
  neighbours on every side (for a 7 x 3 window: 1 row, 3 columns), so every
  window of a pixel of the block lies inside what winent.entropy sees;
- boundary="none" adds nothing beyond the image's edges, so the blocks at
  the edge end where the image ends and winent.entropy crops the windows
  there, as winent-stream does (docs/SPEC.md: border windows are cropped,
  never padded; "reflect" or a constant would count pixels that are not
  in the image, as MATLAB's symmetric padding does);
- the overlap is then trimmed, and the float32 blocks are stored in order.

Each block runs with --threads (default 1) CPU threads: dask's own
threads, one block each, keep the cores busy.
"""
import argparse
import sys

import dask
import dask.array as da
import numpy as np

import winent

DTYPES = {"u8": "u1", "i8": "i1", "u16": "<u2", "i16": "<i2", "u32": "<u4", "i32": "<i4",
          "f32": "<f4", "f64": "<f8"}


def pair(text):
    """"7x3" -> (7, 3); "5" -> (5, 5)."""
    parts = [int(p) for p in text.lower().split("x")]
    return (parts[0], parts[0]) if len(parts) == 1 else (parts[0], parts[1])


def entropy_map(image, window=(5, 5), chunks=(1024, 1024), **options):
    """The entropy map of a 2-D dask (or numpy) array, as a lazy dask array
    of float32. `window` is (width, height); `options` go to
    winent.entropy (base, bins, range, nodata, threads, device)."""
    kx, ky = window
    # (map_overlap itself merges blocks smaller than the overlap they lend.)
    image = da.asarray(image).rechunk(chunks)
    return image.map_overlap(
        winent.entropy, depth={0: ky // 2, 1: kx // 2}, boundary="none", trim=True,
        dtype=np.float32, meta=np.empty((0, 0), np.float32), window=(kx, ky), **options)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--window", default="5")
    p.add_argument("--base", default=None, help="2 (the default), e or 10")
    p.add_argument("--bins", type=int)
    p.add_argument("--range")
    p.add_argument("--nodata", type=float)
    p.add_argument("--chunks", default="1024x1024", help="rows x columns of a block")
    p.add_argument("--threads", type=int, default=1, help="CPU threads per block")
    p.add_argument("--size", required=True, help="WxH of the raw input")
    p.add_argument("--dtype", required=True, choices=sorted(DTYPES))
    p.add_argument("input")
    p.add_argument("output")
    a = p.parse_args(argv)
    width, height = pair(a.size)
    options = {"base": a.base, "threads": a.threads}
    if a.bins is not None:
        options["bins"] = a.bins
    if a.range is not None:
        lo, hi = a.range.split(":")
        options["range"] = (float(lo), float(hi))
    if a.nodata is not None:
        options["nodata"] = a.nodata
    src = np.memmap(a.input, dtype=DTYPES[a.dtype], mode="r", shape=(height, width))
    emap = entropy_map(src, pair(a.window), pair(a.chunks), **options)
    out = np.memmap(a.output, dtype="<f4", mode="w+", shape=(height, width))
    with dask.config.set(scheduler="threads"):
        da.store(emap, out, lock=False)
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
