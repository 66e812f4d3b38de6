#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The entropy map of a raw raster with dask, in the memory of a few
blocks: winent.entropy() of a dask array is itself lazy and block by block
(each block with a halo of window // 2 rows and columns from its
neighbours, none beyond the image's edges; range "auto" one range for the
whole image). It gives the same bytes as

    winent-stream --size WxH --dtype T --window K [...] IN.raw OUT.raw

    python3 dask_entropy.py [--window K|WxH] [--base 2|e|10]
                            [--bins N] [--range LO:HI|auto] [--nodata V]
                            [--chunks ROWSxCOLS] [--threads N]
                            --size WxH --dtype T IN.raw OUT.raw

Any raster GDAL opens goes the same way through rioxarray (docs/PYTHON.md,
docs/SCALING.md):

    m = rioxarray.open_rasterio("in.tif", chunks=(1, 2048, 2048)).winent.entropy(window=9)
    m.to_dataset().to_zarr("map.zarr")

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


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--window", default="5")
    p.add_argument("--base", default=None, help="2 (the default), e or 10")
    p.add_argument("--bins", type=int)
    p.add_argument("--range", help="LO:HI or auto")
    p.add_argument("--nodata", type=float)
    p.add_argument("--chunks", default="1024x1024", help="rows x columns of a block")
    p.add_argument("--threads", type=int, default=1, help="CPU threads per block")
    p.add_argument("--size", required=True, help="WxH of the raw input")
    p.add_argument("--dtype", required=True, choices=sorted(DTYPES))
    p.add_argument("input")
    p.add_argument("output")
    a = p.parse_args(argv)
    width, height = pair(a.size)
    # --window K or WxH as the CLI reads it: entropy() takes that text as it is.
    options = {"window": a.window, "base": a.base, "bins": a.bins, "nodata": a.nodata,
               "threads": a.threads}
    if a.range == "auto":
        options["range"] = "auto"
    elif a.range is not None:
        lo, hi = a.range.split(":")
        options["range"] = (float(lo), float(hi))
    src = np.memmap(a.input, dtype=DTYPES[a.dtype], mode="r", shape=(height, width))
    image = da.from_array(src, chunks=pair(a.chunks))
    try:
        emap = winent.entropy(image, **options)
    except winent.UsageError as e:
        print("dask_entropy.py: %s" % e, file=sys.stderr)
        return 2
    out = np.memmap(a.output, dtype="<f4", mode="w+", shape=(height, width))
    with dask.config.set(scheduler="threads"):
        da.store(emap, out, lock=False)
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
