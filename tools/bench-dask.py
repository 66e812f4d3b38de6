#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench-dask.py - the entropy map of a COG on a dask.distributed
LocalCluster, to Zarr, against winent-stream on the same file
(docs/PERFORMANCE.md, "dask.distributed").

    WINENT_LIBRARY=build/lib/libwinent.so.0 PYTHONPATH=python \\
        /usr/bin/python3 tools/bench-dask.py [--size 8192] [--window 9]
        [--workers 2] [--chunks 2048,1024] [--repeat 3] [--build build]
        [--work DIR]

The input: a u16 landscape of SIZE x SIZE (winent-mksample --tiff, then
gdal_translate -of COG with zstd), made once in DIR. Then, --repeat rounds of:
- winent-stream --threads WORKERS --window K IN.tif OUT.zst (and OUT.tif,
  its COG);
- rioxarray.open_rasterio(IN.tif, chunks=C).winent.entropy(window=K),
  .to_dataset().to_zarr(...) on a LocalCluster of WORKERS worker processes
  of one thread each (the cluster started and one untimed run done before
  the clock: warm workers, as a cluster that has run a job), for each C.
The jobs run in rounds, each once per round, and the ratio to the CLI's
.zst is taken within each round (a machine other jobs load loads both
alike); the table has the best and median wall times and the median
ratio. Every map is compared with the CLI's (the same bits). Per worker:
the peak resident memory of each dask run (sampled every 5 ms in the
worker), for the run where it rose most, and that rise, also in chunks'
worth (a chunk's u16 input and its float32 map: C x C x 6 bytes). The
workers' GDAL block cache is --gdal-cache MB (GDAL's default, 5 % of the
machine's memory, would fill with the file's decoded tiles). CPU seconds:
of the CLI's process, or of every worker and the client: on a machine
other jobs load, their ratio says more than the wall times' (the load
average is printed). Prints a Markdown table and the command."""
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
    load0 = " ".join("%.2f" % v for v in os.getloadavg())
    out_raw = os.path.join(a.work, "cli.raw")
    subprocess.run([ws, "--quiet", "--window", str(a.window), cog, out_raw], check=True)
    ref = np.fromfile(out_raw, "<f4").reshape(a.size, a.size)
    chunk_sizes = [int(v) for v in a.chunks.split(",")]

    env = {"GDAL_CACHEMAX": str(a.gdal_cache)} if a.gdal_cache else {}
    with LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True,
                      dashboard_address=None, env=env) as cluster, Client(cluster) as client:
        def cluster_cpu():
            return sum(client.run(cpu_seconds).values()) + cpu_seconds()

        def timed(fn, cpu):
            c, t = cpu(), time.perf_counter()
            fn()
            return time.perf_counter() - t, cpu() - c

        def cli_job(out):
            cmd = [ws, "--quiet", "--threads", str(a.workers), "--window", str(a.window), cog,
                   out]
            return (" ".join(["`winent-stream"] + cmd[1:]).replace(a.work + "/", "") + "`",
                    lambda: subprocess.run(cmd, check=True))

        def dask_job(c):
            store = os.path.join(a.work, "map-%d.zarr" % c)

            def job():
                shutil.rmtree(store, ignore_errors=True)
                src = rioxarray.open_rasterio(cog, chunks=(1, c, c))
                src.winent.entropy(window=a.window).to_dataset().to_zarr(store, mode="w")
            return store, job

        client.run(lambda: __import__("winent").library_path())
        client.run(start_sampler)
        for c in chunk_sizes:
            dask_job(c)[1]()  # warm: the workers import rioxarray, GDAL and zarr
        rise = {}  # chunk -> worker -> (peak, rise) of its highest run
        # Rounds: each job once per round, so that a machine other jobs load
        # loads them alike; the ratios are taken within a round.
        clis = [cli_job(os.path.join(a.work, n)) for n in ("cli.zst", "cli.tif")]
        runs = {}
        for _ in range(a.repeat):
            for name, fn in clis:
                runs.setdefault(name, []).append(timed(fn, children_cpu_seconds))
            for c in chunk_sizes:
                before = client.run(reset_peak)
                runs.setdefault(c, []).append(timed(dask_job(c)[1], cluster_cpu))
                after = client.run(read_peak)
                for w in after:
                    old = rise.setdefault(c, {}).get(w, (0, 0))
                    if after[w] - before[w] >= old[1]:
                        rise[c][w] = (after[w], after[w] - before[w])

    def median(v):
        v = sorted(v)
        return v[len(v) // 2] if len(v) % 2 else 0.5 * (v[len(v) // 2 - 1] + v[len(v) // 2])

    zst = clis[0][0]
    rows = []
    for key in [n for n, _ in clis] + chunk_sizes:
        walls = [w for w, _ in runs[key]]
        cpus = [c for _, c in runs[key]]
        if isinstance(key, str):
            what, note = key, ""
        else:
            store = dask_job(key)[0]
            back = xr.open_zarr(store)["entropy"].values[0]
            same = back.tobytes() == ref.tobytes()
            ratios = [z[0] / d[0] for z, d in zip(runs[zst], runs[key])]
            cpu_ratios = [z[1] / d[1] for z, d in zip(runs[zst], runs[key])]
            what = ("rioxarray chunks %d x %d -> winent.entropy -> Zarr, LocalCluster %d workers "
                    "x 1 thread%s" % (key, key, a.workers, ", GDAL_CACHEMAX=%d" % a.gdal_cache
                                      if a.gdal_cache else ""))
            note = ("against the CLI's .zst in the same round: %.2fx wall (rounds: %s), "
                    "%.2fx CPU; the CLI's bits: %s"
                    % (median(ratios), " ".join("%.2f" % r for r in ratios), median(cpu_ratios),
                       "yes" if same else "NO"))
        rows.append((what, min(walls), median(walls), px / median(walls) / 1e6, median(cpus),
                     note))
    mems = []
    for c in chunk_sizes:
        mems.append("chunks %d: %s" % (c, ", ".join(
            "%.0f MiB (+%.0f MiB = %.1f chunks)" % (pk / 2**20, r / 2**20, r / (c * c * 6))
            for pk, r in (rise[c][w] for w in sorted(rise[c])))))
    print("| job (%d x %d u16 COG, %d x %d window) | wall, best of %d | median | Mpixel/s "
          "(median) | CPU s (median) | notes |"
          % (a.size, a.size, a.window, a.window, a.repeat))
    print("|---|---|---|---|---|---|")
    for what, b, m, mpx, cpu, note in rows:
        print("| %s | %.2f s | %.2f s | %.0f | %.2f | %s |" % (what, b, m, mpx, cpu, note))
    print()
    print("peak resident memory per worker in a run (its rise during the run): %s"
          % "; ".join(mems))
    print()
    print("command: %s" % " ".join(sys.argv))
    print("load average before and after: %s; %s" % (load0, " ".join(
        "%.2f" % v for v in os.getloadavg())))
    print("winent %s, library %s" % (winent.__version__, winent.library_path()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
