#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench-dask.py - the entropy map of a COG on a dask.distributed
LocalCluster, to Zarr, against winent-stream on the same file (issue 29,
"Measure"; docs/PERFORMANCE.md, "dask.distributed on this machine").

    WINENT_LIBRARY=build/lib/libwinent.so.0 PYTHONPATH=python \\
        /usr/bin/python3 tools/bench-dask.py [--size 8192] [--window 9]
        [--workers 2] [--chunks 2048,1024] [--repeat 3] [--build build]
        [--work DIR]

The input: a u16 landscape of SIZE x SIZE (winent-mksample --tiff, then
gdal_translate -of COG with zstd), made once in DIR. Then, best of
--repeat runs each:
- winent-stream --threads WORKERS --window K IN.tif OUT.zst (and OUT.tif,
  its COG);
- rioxarray.open_rasterio(IN.tif, chunks=C).winent.entropy(window=K),
  .to_dataset().to_zarr(...) on a LocalCluster of WORKERS worker processes
  of one thread each (the cluster started and one untimed run done before
  the clock: warm workers, as a cluster that has run a job), for each C.
Every map is compared with the CLI's (the same bits). Per worker: the
peak resident memory during the runs (sampled every 5 ms in the worker),
and its rise over what the worker held before, also in chunks' worth (a
chunk's u16 input and its float32 map: C x C x 6 bytes). The workers' GDAL block cache is --gdal-cache MB (GDAL's
default, 5 % of the machine's memory, would fill with the file's decoded
tiles). CPU seconds: of the CLI's process, or of every worker and the
client: on a machine other jobs load, their ratio says more than the wall
times' (the load average is printed). Prints a Markdown table and the
command."""
import argparse
import os
import shutil
import subprocess
import sys
import time


def start_sampler(dask_worker):
    """In a worker: a thread that samples its resident memory every 5 ms."""
    import threading
    page = os.sysconf("SC_PAGE_SIZE")
    state = {"peak": 0, "now": 0}

    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * page

    def loop():
        while True:
            state["now"] = rss()
            state["peak"] = max(state["peak"], state["now"])
            time.sleep(0.005)

    state["now"] = state["peak"] = rss()
    threading.Thread(target=loop, daemon=True, name="rss-sampler").start()
    dask_worker.winent_bench_rss = state
    return state["now"]


def reset_peak(dask_worker):
    """The worker's resident memory now, and the peak restarted from it."""
    st = dask_worker.winent_bench_rss
    st["peak"] = st["now"]
    return st["now"]


def read_peak(dask_worker):
    return dask_worker.winent_bench_rss["peak"]


def cpu_seconds():
    """User and system CPU seconds of this process so far."""
    import resource
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def children_cpu_seconds():
    import resource
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--size", type=int, default=8192)
    p.add_argument("--window", type=int, default=9)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--chunks", default="2048,1024")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--build", default="build")
    p.add_argument("--work", default="/tmp/winent-bench-dask")
    p.add_argument("--gdal-cache", type=int, default=64,
                   help="GDAL_CACHEMAX (MB) of each worker (0: GDAL's default, 5%% of RAM)")
    a = p.parse_args()
    import numpy as np
    import rioxarray
    import xarray as xr
    from distributed import Client, LocalCluster

    import winent

    ws = os.path.join(a.build, "src", "winent-stream")
    mk = os.path.join(a.build, "tools", "winent-mksample")
    os.makedirs(a.work, exist_ok=True)
    cog = os.path.join(a.work, "in-%d-u16-cog.tif" % a.size)
    if not os.path.exists(cog):
        tiled = os.path.join(a.work, "in-tiled.tif")
        subprocess.run([mk, "--size", "%dx%d" % (a.size, a.size), "--dtype", "u16", "--kind",
                        "landscape", "--values", "200", "--tiff", "--tile", "512",
                        "--georef", "32633,500000,4600000,30", tiled], check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run(["gdal_translate", "-q", "-of", "COG", "-co", "COMPRESS=ZSTD",
                        "-co", "BLOCKSIZE=512", "-co", "OVERVIEWS=NONE", tiled, cog], check=True)
        os.unlink(tiled)
    px = a.size * a.size
    rows = []
    load0 = " ".join("%.2f" % v for v in os.getloadavg())

    def best(fn, cpu):
        """(best wall seconds, CPU seconds of that run) of --repeat runs;
        cpu() counts the CPU seconds of whatever runs the job."""
        runs = []
        for _ in range(a.repeat):
            c, t = cpu(), time.perf_counter()
            fn()
            runs.append((time.perf_counter() - t, cpu() - c))
        return min(runs)

    out_zst = os.path.join(a.work, "cli.zst")
    out_tif = os.path.join(a.work, "cli.tif")
    out_raw = os.path.join(a.work, "cli.raw")
    for out in (out_zst, out_tif):
        cmd = [ws, "--quiet", "--threads", str(a.workers), "--window", str(a.window), cog, out]
        s, cpu = best(lambda: subprocess.run(cmd, check=True), children_cpu_seconds)
        rows.append(("`%s`" % " ".join(["winent-stream"] + cmd[1:]).replace(a.work + "/", ""),
                     s, px / s / 1e6, cpu, ""))
    subprocess.run([ws, "--quiet", "--window", str(a.window), cog, out_raw], check=True)
    ref = np.fromfile(out_raw, "<f4").reshape(a.size, a.size)
    cli_s, cli_cpu = rows[0][1], rows[0][3]

    env = {"GDAL_CACHEMAX": str(a.gdal_cache)} if a.gdal_cache else {}
    with LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True,
                      dashboard_address=None, env=env) as cluster, Client(cluster) as client:
        def cluster_cpu():
            return sum(client.run(cpu_seconds).values()) + cpu_seconds()

        client.run(lambda: __import__("winent").library_path())
        client.run(start_sampler)
        for c in [int(v) for v in a.chunks.split(",")]:
            store = os.path.join(a.work, "map-%d.zarr" % c)

            def job():
                shutil.rmtree(store, ignore_errors=True)
                src = rioxarray.open_rasterio(cog, chunks=(1, c, c))
                m = src.winent.entropy(window=a.window)
                m.to_dataset().to_zarr(store, mode="w")

            job()  # warm: the workers import rioxarray, GDAL and zarr on their first task
            base = client.run(reset_peak)
            s, cpu = best(job, cluster_cpu)
            peak = client.run(read_peak)
            back = xr.open_zarr(store)["entropy"].values[0]
            same = back.tobytes() == ref.tobytes()
            chunk_bytes = c * c * 6
            mem = ", ".join("%.0f MiB (+%.0f MiB = %.1f chunks)" % (
                peak[w] / 2**20, (peak[w] - base[w]) / 2**20,
                (peak[w] - base[w]) / chunk_bytes) for w in sorted(peak))
            rows.append(("rioxarray chunks %d x %d -> winent.entropy -> Zarr, LocalCluster %d "
                         "workers x 1 thread%s" % (c, c, a.workers,
                                                   ", GDAL_CACHEMAX=%d" % a.gdal_cache
                                                   if a.gdal_cache else ""),
                         s, px / s / 1e6, cpu,
                         "%.2fx the CLI's .zst in wall time, %.2fx in CPU time; the CLI's "
                         "bits: %s; peak RSS per worker: %s"
                         % (cli_s / s, cli_cpu / cpu, "yes" if same else "NO", mem)))
    print("| job (%d x %d u16 COG, %d x %d window) | wall, best of %d | Mpixel/s | CPU s "
          "(that run) | notes |" % (a.size, a.size, a.window, a.window, a.repeat))
    print("|---|---|---|---|---|")
    for what, s, mpx, cpu, note in rows:
        print("| %s | %.2f s | %.0f | %.2f | %s |" % (what, s, mpx, cpu, note))
    print()
    print("command: %s" % " ".join(sys.argv))
    print("load average before and after: %s; %s" % (load0, " ".join(
        "%.2f" % v for v in os.getloadavg())))
    print("winent %s, library %s" % (winent.__version__, winent.library_path()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
