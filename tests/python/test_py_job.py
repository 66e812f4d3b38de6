# SPDX-License-Identifier: BSD-3-Clause
"""winent.run() and winent.Job: file jobs held to the CLI's outputs (.zst,
raw, GeoTIFF through GDAL where installed, --decode), the figures, notices
as warnings, the progress callback, cancellation (from another thread,
from the callback by returning False or raising, before the run), Ctrl-C
during run(), two jobs at once in two threads, and errors mapped with the
CLI's messages.

Jobs that must still be running when they are cancelled read a pipe
(/dev/fd/N) that the test feeds: a job cannot end before its input does,
so no timing is assumed anywhere.
"""
import os
import signal
import threading
import warnings

from py_harness import (T, bad, check, cli, cli_message, expect_raises, finish, mksample, need,
                        ok, path, run_test, same_bits, watchdog)

need("numpy", "zstandard")
import numpy as np  # noqa: E402

import winent  # noqa: E402

W, H = 300, 200
SIZE = "%dx%d" % (W, H)
RAW = mksample("in.raw", W, H, "u8", "--kind", "landscape", "--values", "12", "--seed", "3")
PIPE_W, PIPE_H = 512, 512  # 256 KiB of u8: 4 times a pipe's buffer
PIPE_DATA = np.random.default_rng(5).integers(0, 20, size=(PIPE_H, PIPE_W)).astype(np.uint8)
PIPE_RAW = path("pipe-data.raw")
PIPE_DATA.tofile(PIPE_RAW)


def leftovers(folder=T):
    """Temporary outputs left in `folder` (NAME.tmp-XXXXXX, .winent-XXXXXX)."""
    return [n for n in os.listdir(folder) if ".tmp-" in n or n.startswith(".winent-")]


class PipeInput:
    """A pipe the job reads as /dev/fd/N; write() blocks until the job has
    taken all but a pipe buffer of it, so a write that returns means the
    job is running."""

    def __init__(self, data):
        self.r, self.w = os.pipe()
        self.name = "/dev/fd/%d" % self.r
        self.data = memoryview(data.tobytes())
        self.pos = 0

    def write(self, n):
        end = min(len(self.data), self.pos + n)
        while self.pos < end:
            try:
                self.pos += os.write(self.w, self.data[self.pos:end])
            except BrokenPipeError:
                return False
        return True

    def close(self):
        for fd in (self.w, self.r):
            try:
                os.close(fd)
            except OSError:
                pass


def read_map(p):
    return np.fromfile(p, dtype="<f4").reshape(H, W)


def test_against_cli():
    cli("--size", SIZE, "--dtype", "u8", "--window", "7", "--frame-rows", "16", RAW,
        path("cli.zst"))
    stats = winent.run(RAW, path("py.zst"), size=(W, H), dtype="u8", window=7, frame_rows=16)
    a, ha = winent.read_zst(path("cli.zst"))
    b, hb = winent.read_zst(path("py.zst"))
    winent.run(RAW, path("w5.zst"), size=(W, H), dtype="u8")
    a5 = winent.read_zst(path("w5.zst"))[0]  # the float32 map of the defaults
    check(".zst: the CLI's map", same_bits(a, b))
    ha.pop("command_line", None)
    cl = hb.pop("command_line", None)
    check(".zst: the CLI's header but for the command line", ha == hb, (ha, hb))
    check(".zst: no command line recorded unless given", cl in (None, ""), cl)
    winent.run(RAW, path("py-cl.zst"), size=(W, H), dtype="u8",
               command_line="my_script.py --window 5")
    check("command_line= is recorded",
          winent.read_zst(path("py-cl.zst"))[1].get("command_line") == "my_script.py --window 5")

    check("stats: pixels", stats["pixels"] == W * H, stats)
    check("stats: bytes out are the file's",
          stats["bytes_out"] == os.path.getsize(path("py.zst")), stats)
    for key in ("wall_s", "setup_s", "mpixel_per_s", "bytes_in", "engine", "chunk_rows", "chunks",
                "gpus", "stages", "range", "clamped", "notices"):
        check("stats has %r" % key, key in stats)
    check("stats: the four stages", sorted(stats["stages"]) == ["compute", "encode", "read",
                                                                 "write"])
    check("stats: no range without bins", stats["range"] is None and stats["clamped"] is None)

    # Raw, with the options as strings too.
    cli("--size", SIZE, "--dtype", "u8", "--window", "5x3", "--base", "2", RAW, path("cli.raw"))
    winent.run(RAW, path("py.raw"), size=SIZE, dtype="u8", window="5x3", base=2, device="cpu",
               threads=2, mem="64M")
    check("raw: the CLI's bytes",
          open(path("cli.raw"), "rb").read() == open(path("py.raw"), "rb").read())

    # Several bands, big-endian, interleaved by pixel: --band 2.
    two = np.random.default_rng(9).integers(0, 3000, size=(H, W, 2)).astype(">u2")
    two.tofile(path("bip.raw"))
    cli("--size", SIZE, "--dtype", "u16", "--byteorder", "big", "--bands", "2",
        "--interleave", "bip", "--band", "2", path("bip.raw"), path("cli-bip.raw"))
    winent.run(path("bip.raw"), path("py-bip.raw"), size=(W, H), dtype=np.dtype(">u2"), bands=2,
               interleave="bip", band=2)
    check("2 bands, big-endian (from the numpy dtype), bip, band 2: the CLI's bytes",
          open(path("cli-bip.raw"), "rb").read() == open(path("py-bip.raw"), "rb").read())
    check("... and the map of band 2 in memory",
          same_bits(read_map(path("py-bip.raw")), winent.entropy(two[:, :, 1])))

    # Several maps in one pass: every band at two windows, one raw file per
    # map (NAME_bB_wK.raw), each the map of that band in memory.
    st = winent.run(path("bip.raw"), path("multi.raw"), size=(W, H), dtype=np.dtype(">u2"),
                    bands=2, interleave="bip", band="all", windows=[3, (3, 5)])
    check("band='all', windows=[3, (3, 5)] (3 rows, 5 columns): 4 maps, 2 bands in the figures",
          st.get("maps") == 4 and [b["band"] for b in st.get("bands", [])] == [1, 2])
    for b in (1, 2):
        for name, win in (("w3", 3), ("w5x3", (3, 5))):
            f = path("multi_b%d_%s.raw" % (b, name))
            check("map of band %d at %s: the band's map in memory" % (b, name),
                  os.path.exists(f) and same_bits(read_map(f),
                                                  winent.entropy(two[:, :, b - 1], window=win)))
    st = winent.run(path("bip.raw"), path("multi2.raw"), size=(W, H), dtype=np.dtype(">u2"),
                    bands=2, interleave="bip", band=[2], windows=[5])
    check("band=[2], windows=[5]: one map at the plain name, band 2's",
          same_bits(read_map(path("multi2.raw")), winent.entropy(two[:, :, 1])))

    # windows=9 is windows=[9]: one map at the plain name.
    winent.run(RAW, path("w9.raw"), size=(W, H), dtype="u8", windows=9)
    winent.run(RAW, path("w9b.raw"), size=(W, H), dtype="u8", window=9)
    check("windows=9: the map of window=9",
          open(path("w9.raw"), "rb").read() == open(path("w9b.raw"), "rb").read())

    # ot= (--ot): the CLI's bytes, by name or numpy dtype; read_zst gives
    # the entropy back within the stated rounding.
    for ot, name in (("uint16", "uint16"), (np.uint8, "uint8"), ("float16", "float16")):
        cli("--size", SIZE, "--dtype", "u8", "--ot", name, RAW, path("cli-%s.zst" % name))
        winent.run(RAW, path("py-%s.zst" % name), size=(W, H), dtype="u8", ot=ot)
        m1, h1 = winent.read_zst(path("cli-%s.zst" % name))
        m2, h2 = winent.read_zst(path("py-%s.zst" % name))
        check("ot=%r: the CLI's map and dtype" % (ot,), same_bits(m1, m2) and
              h1["dtype"] == h2["dtype"] == name, (h1["dtype"], h2["dtype"]))
        top = np.log2(25)
        bound = top / 65534 / 2 if name == "uint16" else top / 254 / 2 if name == "uint8" \
            else np.nanmax(np.abs(a5)) * 2.0**-11
        check("ot=%r: read_zst within the rounding of the float32 map" % (ot,),
              m2.dtype == np.float32 and np.nanmax(np.abs(m2 - a5)) <= bound * (1 + 1e-6))
    with winent.open_zst(path("py-uint8.zst")) as m:
        check("open_zst of a uint8 map: rows as read_zst's",
              m.dtype == np.float32 and same_bits(np.asarray(m[3:40]),
                                                  winent.read_zst(path("py-uint8.zst"))[0][3:40]))
    expect_raises("ot='int16'", winent.UsageError, winent.run, RAW, path("x.zst"),
                  size=(W, H), dtype="u8", ot="int16")

    # --decode.
    winent.run(path("cli.zst"), path("decoded.raw"), decode=True)
    check("decode=True: the map's raw bytes", same_bits(read_map(path("decoded.raw")), a))

    # GeoTIFF, read back with GDAL where it is installed.
    try:
        from osgeo import gdal
    except ImportError:
        print("SKIP part: no GDAL Python module (python3-gdal): the GeoTIFF output")
        return
    cli("--size", SIZE, "--dtype", "u8", RAW, path("cli.tif"))
    winent.run(RAW, path("py.tif"), size=(W, H), dtype="u8")
    ga, gb = gdal.Open(path("cli.tif")), gdal.Open(path("py.tif"))
    check(".tif: the CLI's map (GDAL)", ga is not None and gb is not None and same_bits(
        ga.GetRasterBand(1).ReadAsArray(), gb.GetRasterBand(1).ReadAsArray()))
    check(".tif: overviews as the CLI's", gb is not None and
          gb.GetRasterBand(1).GetOverviewCount() == ga.GetRasterBand(1).GetOverviewCount())


def test_notices():
    # 0..11 over a range 0:5: samples clamped, which the job says.
    opts = dict(size=(W, H), dtype="u8", range=(0, 5), bins=16)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        stats = winent.run(RAW, path("clamp.raw"), **opts)
    mine = [w for w in caught if issubclass(w.category, winent.Notice)]
    check("a clamping range: a Notice warning", len(mine) == 1 and
          "outside --range" in str(mine[0].message), [str(w.message) for w in caught])
    check("the warning is the notice of the stats", len(mine) == 1 and
          stats["notices"] == [str(mine[0].message)], stats["notices"])
    check("stats: the range and its clamped samples",
          stats["range"] == [0.0, 5.0] and stats["clamped"]["above"] > 0 and
          stats["clamped"]["valid"] == W * H and stats["range_from"] == "--range", stats)
    lines = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        winent.run(RAW, path("clamp2.raw"), notice=lines.append, **opts)
    check("notice=callable: the line to it, and no warning",
          len(lines) == 1 and "outside --range" in lines[0] and
          not [w for w in caught if issubclass(w.category, winent.Notice)], lines)


def test_progress():
    seen = []
    winent.run(RAW, path("prog.zst"), size=(W, H), dtype="u8", frame_rows=8, mem="16M",
               progress=seen.append)
    check("progress: called", len(seen) >= 1)
    if not seen:
        return
    check("progress: Progress tuples", all(isinstance(p, winent.Progress) for p in seen))
    check("progress: rows in order",
          all(a.rows_done <= b.rows_done for a, b in zip(seen, seen[1:])))
    last = seen[-1]
    check("progress: the last says every row, of the map's width",
          last.rows_done == H and last.rows_total == H and last.width == W and
          last.fraction == 1.0, last)


def test_cancel_from_thread():
    src = PipeInput(PIPE_DATA)
    out = path("cancel-thread.zst")
    job = winent.Job(src.name, out, size=(PIPE_W, PIPE_H), dtype="u8")
    errors = []

    def feed_then_cancel():
        src.write(PIPE_DATA.size // 2)  # returns once the job reads: it is running
        job.cancel()

    t = threading.Thread(target=feed_then_cancel)
    t.start()
    dog = watchdog(300, "a job cancelled from another thread")
    try:
        job.run()
        errors.append("run() returned")
    except winent.Cancelled as e:
        check("cancel() from another thread: Cancelled, status 130", e.status == 130, e.status)
    except Exception as e:
        errors.append("%s: %s" % (type(e).__name__, e))
    dog.cancel()
    t.join()
    src.close()
    check("cancel() from another thread: raised Cancelled", not errors, errors)
    check("cancel() from another thread: no output, no temporary",
          not os.path.exists(out) and not leftovers())
    check("a cancelled job's figures can be read", isinstance(job.stats, dict))
    expect_raises("a second run(): UsageError", winent.UsageError, job.run)
    job.close()
    job.close()
    job.cancel()  # after close: nothing
    ok()
    expect_raises("run() after close(): UsageError", winent.UsageError, job.run)

    # Before the run: it returns at once.
    with winent.Job(RAW, path("cancel-before.raw"), size=(W, H), dtype="u8") as job:
        job.cancel()
        expect_raises("cancel() before run(): Cancelled", winent.Cancelled, job.run)
    check("cancel() before run(): no output", not os.path.exists(path("cancel-before.raw")))


def test_cancel_from_callback():
    out = path("cancel-cb.zst")
    calls = []

    def stop(p):
        calls.append(p)
        return False

    e = expect_raises("progress returning False: Cancelled", winent.Cancelled, winent.run, RAW,
                      out, size=(W, H), dtype="u8", progress=stop, status=130)
    check("progress returning False: called once", len(calls) == 1, len(calls))
    check("progress returning False: the message says why", e is None or "callback" in str(e))
    check("progress returning False: no output, no temporary",
          not os.path.exists(out) and not leftovers())

    class Mine(Exception):
        pass

    def boom(p):
        raise Mine("from the callback")

    expect_raises("progress raising: that exception from run()", Mine, winent.run, RAW, out,
                  size=(W, H), dtype="u8", progress=boom)
    check("progress raising: no output", not os.path.exists(out) and not leftovers())

    # Any other return value goes on.
    winent.run(RAW, out, size=(W, H), dtype="u8", progress=lambda p: None)
    check("progress returning None: the job completes", os.path.exists(out))

    # A file that exists is left as it was by a cancelled job.
    before = open(out, "rb").read()
    expect_raises("a cancelled job over an existing file", winent.Cancelled, winent.run, RAW, out,
                  size=(W, H), dtype="u8", window=9, progress=lambda p: False)
    check("a cancelled job leaves the existing file as it was", open(out, "rb").read() == before)


def test_two_jobs_at_once():
    """Two jobs in two Python threads, both certainly inside their runs at
    the same time: each then gets the CLI's map."""
    cli("--size", "%dx%d" % (PIPE_W, PIPE_H), "--dtype", "u8", PIPE_RAW, path("cli-pipe.raw"))
    ref = open(path("cli-pipe.raw"), "rb").read()
    srcs = [PipeInput(PIPE_DATA), PipeInput(PIPE_DATA)]
    outs = [path("two-%d.raw" % i) for i in range(2)]
    results = [None, None]

    def job(i):
        try:
            results[i] = winent.run(srcs[i].name, outs[i], size=(PIPE_W, PIPE_H), dtype="u8",
                                    threads=1)
        except Exception as e:
            results[i] = e

    threads = [threading.Thread(target=job, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    dog = watchdog(300, "two jobs at once")
    half = PIPE_DATA.size // 2
    srcs[0].write(half)  # job 0 is running, and cannot end before the rest comes
    srcs[1].write(half)  # job 1 is running too: both at once
    srcs[0].write(PIPE_DATA.size)
    srcs[1].write(PIPE_DATA.size)
    for s in srcs:
        os.close(s.w)
    for t in threads:
        t.join()
    dog.cancel()
    for s in srcs:
        os.close(s.r)
    for i in range(2):
        check("two jobs at once: job %d succeeded" % i, isinstance(results[i], dict), results[i])
        check("two jobs at once: job %d has the CLI's bytes" % i,
              os.path.exists(outs[i]) and open(outs[i], "rb").read() == ref)

    # One cancelled while the other goes on.
    srcs = [PipeInput(PIPE_DATA), PipeInput(PIPE_DATA)]
    jobs = [winent.Job(srcs[i].name, path("pair-%d.raw" % i), size=(PIPE_W, PIPE_H), dtype="u8")
            for i in range(2)]
    results = [None, None]

    def run_job(i):
        try:
            results[i] = jobs[i].run()
        except Exception as e:
            results[i] = e

    threads = [threading.Thread(target=run_job, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    dog = watchdog(300, "one job cancelled beside another")
    srcs[0].write(half)
    srcs[1].write(half)
    jobs[0].cancel()
    threads[0].join()
    srcs[1].write(PIPE_DATA.size)
    os.close(srcs[1].w)
    threads[1].join()
    dog.cancel()
    for s in srcs:
        s.close()
    check("the cancelled job: Cancelled", isinstance(results[0], winent.Cancelled), results[0])
    check("the cancelled job: no output", not os.path.exists(path("pair-0.raw")))
    check("the other job: completed with the CLI's bytes",
          isinstance(results[1], dict) and open(path("pair-1.raw"), "rb").read() == ref,
          results[1])
    for j in jobs:
        j.close()


def test_ctrl_c():
    """SIGINT while run() waits: the job is cancelled cleanly and
    KeyboardInterrupt comes out of run()."""
    if threading.current_thread() is not threading.main_thread():
        bad("test_ctrl_c must run on the main thread")
        return
    src = PipeInput(PIPE_DATA)
    out = path("ctrl-c.zst")
    job = winent.Job(src.name, out, size=(PIPE_W, PIPE_H), dtype="u8")

    def interrupt():
        src.write(PIPE_DATA.size // 2)  # the job is running (run() is waiting on it)
        os.kill(os.getpid(), signal.SIGINT)

    t = threading.Thread(target=interrupt)
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    dog = watchdog(300, "a job interrupted by SIGINT")
    got = None
    try:
        t.start()
        job.run()
        got = "run() returned"
    except KeyboardInterrupt:
        got = "KeyboardInterrupt"
    except Exception as e:
        got = "%s: %s" % (type(e).__name__, e)
    finally:
        dog.cancel()
        signal.signal(signal.SIGINT, old)
    t.join()
    src.close()
    check("Ctrl-C during run(): KeyboardInterrupt", got == "KeyboardInterrupt", got)
    check("Ctrl-C during run(): no output, no temporary",
          not os.path.exists(out) and not leftovers())
    check("Ctrl-C during run(): the job is done with (close works)", job.close() is None)


def test_errors():
    out = path("err.zst")
    cases = [
        ("missing input", (path("missing.raw"), out), {"size": (W, H), "dtype": "u8"},
         winent.InputError, ["--size", SIZE, "--dtype", "u8", path("missing.raw"), out]),
        ("unknown extension", (RAW, path("out.png")), {"size": (W, H), "dtype": "u8"},
         winent.UsageError, ["--size", SIZE, "--dtype", "u8", RAW, path("out.png")]),
        ("output in a missing folder", (RAW, path("no/such/dir/out.zst")),
         {"size": (W, H), "dtype": "u8"}, winent.OutputError,
         ["--size", SIZE, "--dtype", "u8", RAW, path("no/such/dir/out.zst")]),
        ("output is the input", (RAW, RAW), {"size": (W, H), "dtype": "u8", "format": "raw"},
         winent.UsageError, ["--size", SIZE, "--dtype", "u8", "--format", "raw", RAW, RAW]),
        ("window 256", (RAW, out), {"size": (W, H), "dtype": "u8", "window": 256},
         winent.UsageError, ["--size", SIZE, "--dtype", "u8", "--window", "256", RAW, out]),
        ("nodata no u8 sample can equal", (RAW, out),
         {"size": (W, H), "dtype": "u8", "nodata": 300},
         winent.UsageError, ["--size", SIZE, "--dtype", "u8", "--nodata", "300", RAW, out]),
        ("raw without a size", (RAW, out), {}, winent.UsageError, [RAW, out]),
    ]
    if winent.gpu_count() == 0:
        cases.append(("device gpu without a GPU", (RAW, out),
                      {"size": (W, H), "dtype": "u8", "device": "gpu"}, winent.DeviceError,
                      ["--size", SIZE, "--dtype", "u8", "--device", "gpu", RAW, out]))
    for what, args, opts, cls, cli_args in cases:
        e = expect_raises("%s: %s" % (what, cls.__name__), cls, winent.run, *args, **opts)
        code, msg = cli_message(*cli_args)
        if e is not None:
            # A usage error in Python's words (keyword=value), the CLI's otherwise.
            py = str(e).replace("window=256", "--window: '256'").replace("nodata=300: a uint8",
                                                                      "--nodata: '300': a u8")
            check("%s: status %d and message as the CLI's (%d, %r), got %r"
                  % (what, e.status, code, msg, str(e)),
                  e.status == code and (py == msg or (code == 2 and "--" not in str(e) and
                                                      py.split(": ", 1)[0] ==
                                                      msg.split(": ", 1)[0])))
    check("the failed jobs left no output", not os.path.exists(out) and not leftovers())
    expect_raises("mem='lots'", winent.UsageError, winent.run, RAW, out, size=(W, H),
                  dtype="u8", mem="lots")
    expect_raises("format='png'", winent.UsageError, winent.run, RAW, out, format="png")
    expect_raises("dtype='u64'", winent.UsageError, winent.run, RAW, out, dtype="u64")
    expect_raises("size='big'", winent.UsageError, winent.run, RAW, out, size="big")
    expect_raises("progress=3", winent.UsageError, winent.run, RAW, out, progress=3)
    expect_raises("an unknown keyword: TypeError", TypeError, winent.run, RAW, out, windw=5)


# Ctrl-C first: on the main thread, before other tests start threads.
for t in (test_ctrl_c, test_against_cli, test_notices, test_progress, test_cancel_from_thread,
          test_cancel_from_callback, test_two_jobs_at_once, test_errors):
    run_test(t)
finish()
