# SPDX-License-Identifier: BSD-3-Clause
"""entropy_block's warm engines (winent._warm) on the CPU engine: an image
cut into blocks with their halos, each block computed twice through the
process's kept engine and once cold (a job per block, winent_entropy), for
rectangles odd and even, a disk, a footprint, nodata, float bins and
range with NaN, leading dims: every block the bits of the CLI's map of the
whole image. The engine is made once per option set and reused (grown
when a larger block comes), threads share it (blocks computed by eight
threads at once through one engine, the CLI's bits), free_engines()
frees them all (one in use when its call returns), a failed engine is not
reused, several measures of a dask block
give the numpy path's bits, a device the warm way does not take is
refused with winent.entropy's own error, and a child forked after the
engines ran computes its blocks (cold: an engine's OpenMP team and GPU
state do not survive a fork; GNU OpenMP hung there)."""
import os
import signal
import threading
import time

from py_harness import check, cli, finish, need, path, run_test, same_bits

need("numpy", "dask", "dask.array")
import dask  # noqa: E402
import dask.array as da  # noqa: E402
import numpy as np  # noqa: E402

import winent  # noqa: E402
from winent import _warm  # noqa: E402

H, W = 157, 131
RNG = np.random.default_rng(40)


def cli_whole(a, dtype, *options):
    """The CLI's map of the whole of `a` (raw input)."""
    src, out = path("in.raw"), path("out.raw")
    a.astype({"u8": "<u1", "u16": "<u2", "f32": "<f4"}[dtype]).tofile(src)
    code, _ = cli("--size", "%dx%d" % (a.shape[1], a.shape[0]), "--dtype", dtype, *options, src,
                  out)
    return np.fromfile(out, "<f4").reshape(a.shape) if code == 0 else None


def blocks(a, reach, step):
    """(block with its halo, halo, where its own pixels lie) for every
    block of `step` rows and columns, as the dask path cuts them."""
    (ry, rx), (sy, sx) = reach, step
    h, w = a.shape[-2:]
    for y0 in range(0, h, sy):
        for x0 in range(0, w, sx):
            y1, x1 = min(h, y0 + sy), min(w, x0 + sx)
            top, bottom = min(ry, y0), min(ry, h - y1)
            left, right = min(rx, x0), min(rx, w - x1)
            yield (a[..., y0 - top:y1 + bottom, x0 - left:x1 + right], (top, bottom, left, right),
                   (slice(y0, y1), slice(x0, x1)))


def engines():
    with _warm._lock:
        return dict(_warm._engines)


def case(name, a, dtype, cli_options, reach, step=(48, 40), **options):
    want = cli_whole(a, dtype, *cli_options)
    if not check("%s: the CLI ran" % name, want is not None):
        return
    before = set(engines())
    made = None
    for rep in range(2):
        good = True
        for block, halo, (ys, xs) in blocks(a, reach, step):
            warm = winent.entropy_block(block, halo, device="cpu", **options)
            cold = winent.entropy_block(block, halo, device="cpu", warm=False, **options)
            if not (same_bits(warm, want[ys, xs]) and same_bits(cold, want[ys, xs])):
                good = False
                check("%s, pass %d, block at %d,%d: warm and cold the CLI's bits"
                      % (name, rep + 1, ys.start, xs.start), False,
                      "warm %s, cold %s" % (same_bits(warm, want[ys, xs]),
                                            same_bits(cold, want[ys, xs])))
                break
        check("%s, pass %d over %s blocks: every block warm and cold the CLI's bits"
              % (name, rep + 1, step), good)
        new = {k: e for k, e in engines().items() if k not in before}
        if rep == 0:
            made = {k: e.handle.value for k, e in new.items()}
            check("%s: one warm engine made for the option set" % name, len(made) == 1,
                  "%d made" % len(made))
        else:
            check("%s: the second pass reused it (no engine made again)" % name,
                  {k: e.handle.value for k, e in new.items()} == made)


def test_options():
    u16 = (RNG.integers(0, 40, (H, W)) + (np.arange(W) // 20)).astype(np.uint16)
    case("u16 9x9", u16, "u16", ["--window", "9"], (4, 4), window=9)
    case("u16 (6, 4) even", u16, "u16", ["--window", "4x6"], (3, 2), window=(6, 4))
    case("u16 disk 3", u16, "u16", ["--disk", "3"], (3, 3), window=("disk", 3))
    fp = np.zeros((5, 7), np.uint8)
    fp[2, :] = 1
    fp[:, 3] = 1
    fp[0, 0] = 1
    np.save(path("fp.npy"), fp)
    case("u16 footprint", u16, "u16", ["--footprint", path("fp.npy")], (2, 3), footprint=fp)
    case("u16 nodata", u16, "u16", ["--window", "7", "--nodata", "3"], (3, 3), window=7,
         nodata=3)
    f = RNG.normal(size=(H, W)).astype(np.float32)
    f[RNG.random((H, W)) < 0.05] = np.nan
    case("f32 bins range", f, "f32", ["--window", "5x9", "--bins", "32", "--range=-2:2"],
         (4, 2), window=(9, 5), bins=32, range=(-2, 2))


def test_growth_and_planes():
    a = RNG.integers(0, 9, (3, 90, 100)).astype(np.uint8)
    want = np.stack([cli_whole(a[b], "u8", "--window", "5") for b in range(3)])
    winent.free_engines()
    small = winent.entropy_block(a[:, :20, :20], (0, 2, 0, 2), window=5, device="cpu")
    check("planes: a small block first", same_bits(small, want[:, :18, :18]))
    (key, e), = engines().items()
    check("the engine made for the small block's size", (e.width, e.rows) == (20, 20),
          (e.width, e.rows))
    whole = winent.entropy_block(a, window=5, device="cpu")
    check("planes: then the whole image, the CLI's bits", same_bits(whole, want))
    e = engines()[key]
    check("the engine grown to the larger block", (e.width, e.rows) == (100, 90),
          (e.width, e.rows))
    again = winent.entropy_block(a[:, 10:40, 10:50], (2, 2, 2, 2), window=5, device="cpu")
    check("a smaller block after it reuses it", engines()[key] is e and
          same_bits(again, want[:, 12:38, 12:48]))


def test_threads_and_free():
    a = RNG.integers(0, 20, (200, 180)).astype(np.uint16)
    want = cli_whole(a, "u16", "--window", "5")
    winent.free_engines()
    got, errors = {}, []
    start = threading.Barrier(8)

    def worker(t):
        try:
            start.wait()
            for rep in range(3):
                for k, (block, halo, (ys, xs)) in enumerate(blocks(a, (2, 2), (40, 36))):
                    if k % 8 == t:
                        got[(ys.start, xs.start)] = (
                            winent.entropy_block(block, halo, window=5, device="cpu",
                                                 threads=1), ys, xs)
        except Exception as e:  # reported below
            errors.append(e)

    ts = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    check("eight threads at once: no error", not errors, errors)
    check("eight threads at once: every block the CLI's bits",
          len(got) == 25 and all(same_bits(m, want[ys, xs]) for m, ys, xs in got.values()),
          len(got))
    check("the threads shared one engine", len(engines()) == 1, len(engines()))
    (e,) = engines().values()
    check("it is not in use after the calls", e.users == 0, e.users)
    # An engine in use when free_engines() runs is freed when its call returns.
    with _warm._lock:
        e.users += 1
    winent.free_engines()
    check("free_engines() drops them", len(engines()) == 0)
    check("one in use stays until its call returns", e.handle is not None and e.retired)
    _warm._release(None, e, False)
    check("then it is freed", e.handle is None)
    check("a block after free_engines() makes a new one, the CLI's bits",
          same_bits(winent.entropy_block(a, window=5, device="cpu"), want) and
          len(engines()) == 1)
    (key, e), = engines().items()
    with _warm._lock:
        e.users += 1
    _warm._release(key, e, True)  # as after a call the engine failed
    check("an engine that failed is dropped and freed", len(engines()) == 0 and e.handle is None)


def test_measures_dask():
    a = RNG.integers(0, 16, (90, 80)).astype(np.uint8)
    ms = ["renyi:2", "simpson", "majority", "glcm-contrast", "glcm-entropy"]
    want = winent.texture(a, ms, window=7, levels=16, device="cpu")
    with dask.config.set(scheduler="threads"):
        got = winent.texture(da.from_array(a, chunks=(32, 30)), ms, window=7, levels=16,
                             device="cpu").compute()
    check("several measures of dask blocks (warm, one engine per measure and thread): the "
          "numpy path's bits", same_bits(got, want))


def test_errors_as_cold():
    a = RNG.integers(0, 20, (30, 30)).astype(np.uint16)
    for device in ("gpu", "cpu,0") if winent.gpu_count() == 0 else ():
        try:
            winent.entropy(a, window=5, device=device)
            cold = None
        except winent.Error as e:
            cold = (type(e), str(e))
        try:
            winent.entropy_block(a, window=5, device=device)
            warm = None
        except winent.Error as e:
            warm = (type(e), str(e))
        check("device=%r without a GPU: the block function raises winent.entropy's error"
              % device, cold is not None and warm == cold, (warm, cold))
    if winent.gpu_count() == 0:
        # As if this thread saw a GPU whose engine cannot be made (this
        # library has none): auto falls back to a warm CPU engine, "gpu"
        # goes cold and says why, as winent.entropy does.
        want = winent.entropy(a, window=5, device="cpu")
        winent.free_engines()
        _warm._gpus = 1
        try:
            m = winent.entropy_block(a, window=5, device="auto")
            kinds = sorted(k[0] for k in engines())
            check("auto, a GPU engine that cannot be made: a warm CPU engine, the same bits",
                  same_bits(m, want) and kinds == [_warm.ENGINE_CPU] and len(_warm._cold) == 1,
                  (kinds, len(_warm._cold)))
            try:
                winent.entropy_block(a, window=5, device="gpu")
                got = None
            except winent.Error as e:
                got = type(e)
            check("gpu, a GPU engine that cannot be made: the cold job's DeviceError",
                  got is winent.DeviceError, got)
        finally:
            _warm._gpus = None
            winent.free_engines()


def test_fork():
    a = RNG.integers(0, 9, (120, 110)).astype(np.uint8)
    want = winent.entropy_block(a, (2, 0, 0, 2), window=5, device="cpu")
    check("an engine in use before the fork", len(engines()) >= 1)
    pid = os.fork()
    if pid == 0:
        ok = len(engines()) == 0
        m = winent.entropy_block(a, (2, 0, 0, 2), window=5, device="cpu")
        os._exit(0 if ok and same_bits(m, want) and len(engines()) == 0 else 1)
    end = time.time() + 120
    status = None
    while time.time() < end:
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = st
            break
        time.sleep(0.1)
    if status is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    check("a forked child: no inherited engine, the block computed cold, the same bits "
          "(not hung)", status == 0, "status %r" % (status,))
    check("the parent keeps its engines", len(engines()) >= 1)


run_test(test_options)
run_test(test_growth_and_planes)
run_test(test_threads_and_free)
run_test(test_measures_dask)
run_test(test_errors_as_cold)
run_test(test_fork)
finish()
