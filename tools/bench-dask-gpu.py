#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench-dask-gpu.py - one worker process with one GPU against N worker
processes with one GPU each, through the block function every dask task
of winent.entropy calls (winent.entropy_block), without dask
(the GPU machines need not have it): what a dask.distributed
cluster of one worker per GPU does, minus the scheduler.

    python3 tools/bench-dask-gpu.py [--size 32768] [--window 31]
        [--block 4096] [--workers 1,4] [--gpus 0,1,2,3] [--device gpu]
        [--threads N] [--worker-threads 1[,2,...]] [--modes warm] [--data field]
        [--lib build/lib/libwinent.so.0] [--check]

Needs Python 3 with numpy, and libwinent built with CMake (./build, else
./build-dev; or --lib, or WINENT_LIBRARY); the package is taken from
python/ beside this script.

The job is a SIZE x SIZE u16 image (--data field: a smooth field of about
200 values with noise; random: 200 values at random) held in worker
memory, cut into BLOCK x BLOCK blocks as dask chunks it; each block is handed to entropy_block with a halo of window //
2 from its neighbours (none beyond the image's edges), exactly as the
dask path does. With W workers, worker k holds the k-th strip of block
rows (and its halo rows), generated in the worker itself, and runs with
CUDA_VISIBLE_DEVICES set to its own GPU (GPU k of --gpus) and `threads`
CPU threads (default: the cores over W and the worker threads); each
worker takes its blocks on --worker-threads threads, as a dask worker's
threads take tasks (a list, "1,2,4": each count in turn in the same
workers, on the same data). --modes says how the block
function computes: "warm" (entropy_block's default: an engine per worker
kept across blocks, with its GPU buffers and pinned staging, shared by
the worker's threads),
"cold" (warm=False: a whole job set up and torn down per block), each
timed over the same blocks in the same workers; "whole" computes each
worker's rows as one winent.entropy job instead (the in-memory pipeline on
the same data, the rate the block function is measured against). Before each mode's timing
every worker computes its largest block once (the GPU context and, warm, its
engine, which a dask worker has after its first task), then all start
together; the time is from the common start to the last worker's end.
Prints Mpixel/s for each worker count and mode and the ratio to the first
worker count of that mode. --check compares a CRC of every block's map
across the worker counts and modes (the same bits on every GPU, warm or
cold); the CRCs are taken after each mode's clock stops (each block's map
held until then)."""
import argparse
import multiprocessing as mp
import os
import queue
import sys
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def find_library(given):
    if given:
        return os.path.abspath(given)
    if os.environ.get("WINENT_LIBRARY"):
        return os.environ["WINENT_LIBRARY"]
    for b in ("build", "build-dev"):
        p = os.path.join(ROOT, b, "lib", "libwinent.so.0")
        if os.path.exists(p):
            return p
    return None


def image_rows(r0, r1, size, data="field"):
    """Rows r0..r1-1 of the test image (the same in every worker): "field",
    a smooth field of about 200 values with noise; "random", 200 values
    uniformly at random (a hash of each pixel's place), as winent-bench
    pipeline's --values 200."""
    import numpy as np
    out = np.empty((r1 - r0, size), np.uint16)
    c = np.arange(size, dtype=np.float64)
    for s in range(r0, r1, 512):
        e = min(r1, s + 512)
        r = np.arange(s, e, dtype=np.float64)[:, None]
        if data == "random":
            x = (r.astype(np.uint64) * np.uint64(size) + c.astype(np.uint64)) * \
                np.uint64(0x9E3779B97F4A7C15)
            x ^= x >> np.uint64(29)
            x *= np.uint64(0xBF58476D1CE4E5B9)
            x ^= x >> np.uint64(32)
            out[s - r0:e - r0] = (x % np.uint64(200)).astype(np.uint16)
            continue
        field = 60.0 * (np.sin(r / 97.0) + np.cos(c / 131.0) + 2.0)
        noise = ((r.astype(np.int64) * 7919 + c.astype(np.int64) * 104729) >> 3) % 9
        out[s - r0:e - r0] = (field + noise).astype(np.uint16)
    return out


def blocks_of(size, block):
    edges = list(range(0, size, block)) + [size]
    return [(edges[i], edges[i + 1]) for i in range(len(edges) - 1)]


def worker(k, nworkers, gpu, args, barrier, results):
    if gpu is not None:
        os.environ["CUDA_VISIBLE_DEVICES"] = gpu
    os.environ["WINENT_LIBRARY"] = args.lib
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import winent
    size, reach = args.size, args.window // 2
    spans = blocks_of(size, args.block)
    mine = spans[k * len(spans) // nworkers:(k + 1) * len(spans) // nworkers]
    r_lo = max(0, mine[0][0] - reach) if mine else 0
    r_hi = min(size, mine[-1][1] + reach) if mine else 0
    held = image_rows(r_lo, r_hi, size, args.data) if mine else None
    options = dict(window=args.window, device=args.device, threads=args.threads)
    jobs = []
    for (y0, y1) in mine:
        top, bottom = min(reach, y0), min(reach, size - y1)
        for (x0, x1) in spans:
            left, right = min(reach, x0), min(reach, size - x1)
            jobs.append(((y0, x0), (y0 - top - r_lo, y1 + bottom - r_lo, x0 - left, x1 + right),
                         (top, bottom, left, right)))
    cores = os.cpu_count() or 1
    for mode in args.modes:
        if mode == "whole":
            options["threads"] = args.threads or max(1, cores // nworkers)
            whole(k, held, options, barrier, results)
            continue
        for n in args.worker_threads:
            options["threads"] = args.threads or max(1, cores // (nworkers * n))
            blocks(k, held, jobs, mode == "warm", n, options, args, barrier, results)
        winent.free_engines()


def blocks(k, held, jobs, warm, n, options, args, barrier, results):
    """One mode's blocks in this worker, on `n` threads
    taking them in turn (a dask worker's threads), each thread first
    computing the largest block once (the GPU context and, warm, its
    engine, which a dask worker's thread has after its first task)."""
    import threading

    import numpy as np

    import winent
    lock, todo = threading.Lock(), iter(jobs)
    crcs, maps = {}, {}
    ready, go = threading.Barrier(n + 1), threading.Barrier(n + 1)
    big = max(jobs, key=lambda j: (j[1][1] - j[1][0]) * (j[1][3] - j[1][2])) if jobs else None

    def loop():
        if big is not None:
            _, (a, b, c, d), halo = big
            winent.entropy_block(held[a:b, c:d], halo, warm=warm, **options)
        else:
            winent.entropy_block(image_rows(0, 64, 256), warm=warm, **options)
        ready.wait()
        go.wait()
        while True:
            with lock:
                job = next(todo, None)
            if job is None:
                return
            at, (a, b, c, d), halo = job
            m = winent.entropy_block(held[a:b, c:d], halo, warm=warm, **options)
            if args.check:
                maps[at] = m  # its CRC once the clock stops

    threads = [threading.Thread(target=loop) for _ in range(n)]
    for t in threads:
        t.start()
    ready.wait()
    barrier.wait()
    t0 = time.time()
    go.wait()
    for t in threads:
        t.join()
    t1 = time.time()
    # The checks after the clock: a CRC taken meanwhile would compete with
    # the other threads' blocks for the cores and the memory.
    for at, m in maps.items():
        crcs[at] = zlib.crc32(np.ascontiguousarray(m).tobytes())
    maps.clear()
    results.put((k, ("warm" if warm else "cold", n), t0, t1, crcs, winent.gpu_count()))


def whole(k, held, options, barrier, results):
    """Mode "whole": the worker's rows (its blocks and their halo rows) as
    one winent_entropy job (the package's call of it, without
    winent.entropy's counting of the map for its warnings): the in-memory
    pipeline on the same data, its setup included; into a map computed
    once before (its pages touched), as winent-bench pipeline's repeats
    are."""
    import winent
    from winent._compute import entropy as job
    o = dict(options)
    out = None if held is None else job(held, **o)
    barrier.wait()
    t0 = time.time()
    if held is not None:
        job(held, out=out, **o)
    results.put((k, ("whole", 0), t0, time.time(), {}, winent.gpu_count()))


def run(nworkers, gpus, args):
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(nworkers)
    results = ctx.Queue()
    procs = []
    for k in range(nworkers):
        gpu = gpus[k % len(gpus)] if gpus else None
        p = ctx.Process(target=worker, args=(k, nworkers, gpu, args, barrier, results))
        p.start()
        procs.append(p)
    runs = [(m, 0) if m == "whole" else (m, n) for m in args.modes
            for n in ([0] if m == "whole" else args.worker_threads)]
    got = []
    while len(got) < len(procs) * len(runs):
        try:
            got.append(results.get(timeout=1.0))
        except queue.Empty:
            # A worker that died (an import that failed in the spawned
            # interpreter, a crash) never answers: stop, never wait forever.
            dead = [p for p in procs if p.exitcode not in (None, 0)]
            if dead:
                for p in procs:
                    p.terminate()
                raise SystemExit("bench-dask-gpu: a worker failed (exit %d)" % dead[0].exitcode)
    for p in procs:
        p.join()
        if p.exitcode != 0:
            raise SystemExit("bench-dask-gpu: a worker failed (exit %d)" % p.exitcode)
    out = {}
    for mode in runs:
        mine = [g for g in got if g[1] == mode]
        crcs = {}
        for g in mine:
            crcs.update(g[4])
        out[mode] = (max(g[3] for g in mine) - min(g[2] for g in mine), crcs,
                     [g[5] for g in sorted(mine)])
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--size", type=int, default=32768)
    p.add_argument("--window", type=int, default=31)
    p.add_argument("--block", type=int, default=4096)
    p.add_argument("--workers", default="1,4")
    p.add_argument("--gpus", default="0,1,2,3", help="one GPU per worker ('' for none)")
    p.add_argument("--device", default="gpu", help="gpu, auto or cpu (entropy's device)")
    p.add_argument("--threads", type=int, default=0,
                   help="CPU threads per worker (0: the cores over the worker count)")
    p.add_argument("--modes", default="warm",
                   help="any of warm, cold, whole (comma-separated): the block function's "
                   "engines kept across blocks, a job per block, or one job over each "
                   "worker's rows")
    p.add_argument("--data", default="field", choices=("field", "random"),
                   help="field: a smooth field of about 200 values with noise; random: 200 "
                   "values at random, as winent-bench pipeline --values 200")
    p.add_argument("--worker-threads", default="1",
                   help="threads per worker taking its blocks in turn (dask's --nthreads); a "
                   "list (1,2,4) runs each in turn")
    p.add_argument("--lib")
    p.add_argument("--check", action="store_true")
    args = p.parse_args()
    args.modes = [m for m in args.modes.split(",") if m]
    args.worker_threads = [int(t) for t in str(args.worker_threads).split(",") if t]
    if not args.worker_threads or min(args.worker_threads) < 1:
        raise SystemExit("bench-dask-gpu: --worker-threads takes counts of 1 or more")
    if not args.modes or any(m not in ("warm", "cold", "whole") for m in args.modes):
        raise SystemExit("bench-dask-gpu: --modes takes warm, cold and whole, comma-separated")
    try:
        import numpy  # noqa: F401  (each spawned worker imports it again)
    except ImportError:
        print("SKIP: bench-dask-gpu needs numpy in %s" % sys.executable)
        sys.exit(77)
    args.lib = find_library(args.lib)
    if not args.lib or not os.path.exists(args.lib):
        raise SystemExit("bench-dask-gpu: no libwinent.so.0: build with CMake in ./build, or "
                         "give --lib")
    gpus = [g for g in args.gpus.split(",") if g != ""]
    counts = [int(w) for w in args.workers.split(",")]
    px = args.size * args.size
    print("| workers (one GPU each) | device | block function | wall | Mpixel/s | vs %d worker%s |"
          % (counts[0], "" if counts[0] == 1 else "s"))
    print("|---|---|---|---|---|---|")
    first, first_crcs, same = {}, None, True
    cores = os.cpu_count() or 1
    for n in counts:
        for (mode, wt), (wall, crcs, seen) in run(n, gpus, args).items():
            first.setdefault((mode, wt), wall)
            if mode == "whole":
                pass
            elif first_crcs is None:
                first_crcs = crcs
            elif args.check and crcs != first_crcs:
                same = False
            threads = args.threads or max(1, cores // (n * max(wt, 1)))
            print("| %d (CUDA_VISIBLE_DEVICES %s; %s of %d threads each; GPUs "
                  "seen per worker %s) | %s | %s | %.2f s | %.0f | %.2fx |"
                  % (n, ",".join(gpus[:n]) if gpus else "unset",
                     "one job" if mode == "whole" else
                     "%d worker thread%s" % (wt, "" if wt == 1 else "s"), threads,
                     "/".join(map(str, seen)), args.device, mode, wall, px / wall / 1e6,
                     first[(mode, wt)] / wall))
            sys.stdout.flush()
    print()
    print("%d x %d u16 (%s), %d x %d window, blocks of %d x %d, library %s"
          % (args.size, args.size, args.data, args.window, args.window, args.block, args.block,
             args.lib))
    if args.check:
        print("every block's map the same bits for every worker count and mode: %s"
              % ("yes" if same else "NO"))
        if not same:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
