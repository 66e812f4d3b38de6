# SPDX-License-Identifier: BSD-3-Clause
"""The client of examples/slurm/entropy.sbatch: the entropy map of INPUT
(any raster GDAL opens) as OUTPUT.zarr, computed by the dask workers of
the scheduler in SCHEDULER_FILE, then the cluster shut down.

    entropy_client.py SCHEDULER_FILE NWORKERS INPUT OUTPUT.zarr [WINDOW]

Waits (10 minutes at most) for NWORKERS workers; the blocks are
WINENT_CHUNK pixels square (default 1024). The map keeps the CRS, the
transform and the nodata of the input (rioxarray), and has the bytes of
`winent-stream --window WINDOW INPUT OUT.tif`.
"""
import os
import sys

import rioxarray
from distributed import Client

import winent  # noqa: F401  (the .winent accessor)


def main(argv):
    sched, nworkers, src, dst = argv[1], int(argv[2]), argv[3], argv[4]
    window = int(argv[5]) if len(argv) > 5 else 9
    chunk = int(os.environ.get("WINENT_CHUNK", "1024"))
    with Client(scheduler_file=sched, timeout="120s") as client:
        try:
            client.wait_for_workers(nworkers, timeout=600)
            hosts = sorted({w["host"] for w in client.scheduler_info()["workers"].values()})
            print("winent: %d dask workers on %s" % (nworkers, ", ".join(hosts)), flush=True)
            scene = rioxarray.open_rasterio(src, chunks=(1, chunk, chunk))
            emap = scene.winent.entropy(window=window)
            emap.to_dataset().to_zarr(dst, mode="w")  # computed by the workers
            print("winent: %s written, %s" % (dst, emap.attrs.get("long_name", "")), flush=True)
        finally:
            client.shutdown()  # the scheduler and the workers end with the job's work
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
