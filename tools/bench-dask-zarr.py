# SPDX-License-Identifier: BSD-3-Clause
"""The rounds of tools/bench-dask-zarr.sh (which makes the input): the CLI
to a COG and the dask path to Zarr on a LocalCluster, alternated.

    bench-dask-zarr.py WINENT-STREAM DIR WINDOW ROUNDS WORKERS CHUNK SIZE

A file, not a here-document: the cluster's worker processes start by
importing the main module again (multiprocessing's spawn)."""
import os
import shutil
import statistics
import subprocess
import sys
import time


def run_cli(cli, tif, cog, k):
    if os.path.exists(cog):
        os.unlink(cog)
    subprocess.run(["sync"])
    t = time.perf_counter()
    subprocess.run([cli, "--quiet", "--window", str(k), tif, cog], check=True)
    return time.perf_counter() - t


def run_dask(tif, store, k, chunk):
    import rioxarray
    shutil.rmtree(store, ignore_errors=True)
    subprocess.run(["sync"])
    t = time.perf_counter()
    src = rioxarray.open_rasterio(tif, chunks=(1, chunk, chunk))
    src.winent.entropy(window=k).to_dataset().to_zarr(store, mode="w")
    return time.perf_counter() - t


def run_io(tif, store, chunk):
    """The dask path without the map: read the GeoTIFF, write its samples
    to Zarr (what the path costs besides winent's blocks)."""
    import rioxarray
    shutil.rmtree(store, ignore_errors=True)
    subprocess.run(["sync"])
    t = time.perf_counter()
    src = rioxarray.open_rasterio(tif, chunks=(1, chunk, chunk))
    src.to_dataset(name="band_data").to_zarr(store, mode="w")
    return time.perf_counter() - t


def main():
    import winent
    from distributed import Client, LocalCluster
    cli, d = sys.argv[1:3]
    k, rounds, workers, chunk, n = (int(v) for v in sys.argv[3:8])
    tif, cog, store = (os.path.join(d, f) for f in ("in.tif", "cli.tif", "map.zarr"))
    t0 = time.perf_counter()
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    client = Client(cluster)
    client.run(winent.library_path)  # each worker loads libwinent, as a user's has already
    print("cluster: %d workers of 1 thread up in %.2f s" % (workers, time.perf_counter() - t0),
          file=sys.stderr)
    times = {"cli": [], "dask": [], "io": []}
    for r in range(rounds):
        for what in ("cli", "dask", "io"):
            s = run_cli(cli, tif, cog, k) if what == "cli" else \
                run_dask(tif, store, k, chunk) if what == "dask" else run_io(tif, store, chunk)
            times[what].append(s)
            print("round %d %s: %.3f s, %.1f Mpixel/s" % (r + 1, what, s, n * n / s / 1e6),
                  file=sys.stderr)
    client.close()
    cluster.close()
    mc, md = statistics.median(times["cli"]), statistics.median(times["dask"])
    print("| path | median s | Mpixel/s |")
    print("|---|---|---|")
    print("| `winent-stream --window %d in.tif out.tif` (COG) | %.3f | %.1f |"
          % (k, mc, n * n / mc / 1e6))
    print("| dask LocalCluster %dx1 thread, chunks %d, to Zarr | %.3f | %.1f |"
          % (workers, chunk, md, n * n / md / 1e6))
    mi = statistics.median(times["io"])
    print("| the same dask path without the map (GeoTIFF read, samples to Zarr) | %.3f | %.1f |"
          % (mi, n * n / mi / 1e6))
    print("\ndask over the CLI: %.2fx the throughput" % (mc / md))


if __name__ == "__main__":
    main()
