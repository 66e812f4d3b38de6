# SPDX-License-Identifier: BSD-3-Clause
"""A majority of integer classes keeps every class or is refused, on every
door: a float32 map holds every integer only up to 2^24, float16 up to
2^11, so a u32/i32 class past 2^24 (or an i16 class past 2048 in a float16
output) would be rounded into its neighbour, a class that is nowhere in
the input. The refusal depends on the samples, so each door checks them as
it reads them: the CLI's job (every format, the output left absent),
Python's arrays (numpy, dask, texture), winent.run, and the C engine
(winent_engine_compute, the warm path of dask blocks). Classes within the
limit give the exact mode, checked against a brute-force oracle."""
import collections
import os

from py_harness import check, cli, expect_raises, finish, need, path, run_test

need("numpy", "dask")
import numpy as np  # noqa: E402

import winent  # noqa: E402
from winent import _compute, _options, _warm  # noqa: E402

RNG = np.random.default_rng(24)
H, W, K = 20, 23, 5


def mode_oracle(a, nodata=None):
    """Each pixel's most frequent value of its cropped K x K window, ties to
    the smallest, `nodata` not counted: Counter per window, nothing shared
    with the engines."""
    r = K // 2
    out = np.empty(a.shape, np.float64)
    for y in range(a.shape[0]):
        for x in range(a.shape[1]):
            w = a[max(0, y - r):y + r + 1, max(0, x - r):x + r + 1].ravel().tolist()
            c = collections.Counter(v for v in w if v != nodata)
            top = max(c.values())
            out[y, x] = min(v for v, n in c.items() if n == top)
    return out


def raw(a, name):
    a.tofile(path(name))
    return path(name)


def labels(dtype, base):
    return (RNG.integers(0, 6, (H, W)) * 3 + base).astype(dtype)


def test_cli():
    big = labels(np.uint32, 3000000001)
    src = raw(big, "big.u32")
    for fmt in ("raw", "zst", "tif"):
        out = path("big." + fmt)
        err = cli("--size", "%dx%d" % (W, H), "--dtype", "u32", "--measure", "majority",
                  "--window", K, "--format", fmt, src, out, expect=2)[1]
        check("CLI %s: u32 classes past 2^24 refused, naming the value" % fmt,
              "rounded together" in err and str(int(big.max())) in err, err)
        check("CLI %s: no output left" % fmt, not os.path.exists(out))
    neg = labels(np.int32, -20000000)
    cli("--size", "%dx%d" % (W, H), "--dtype", "i32", "--measure", "majority", "--window", K,
        raw(neg, "neg.i32"), path("neg.raw"), expect=2)
    i16 = labels(np.int16, 2990)
    err = cli("--size", "%dx%d" % (W, H), "--dtype", "i16", "--measure", "majority", "--window",
              K, "--ot", "float16", raw(i16, "c.i16"), path("c16.raw"), expect=2)[1]
    check("CLI: i16 classes past 2048 in float16 refused, advising float32",
          "--ot float32" in err, err)
    # Within the limits: the exact classes.
    for dt, base, ot, t in ((np.uint32, 16777000, "float32", "<f4"),
                            (np.int32, -16777216, "float32", "<f4"),
                            (np.int16, -2048, "float16", "<f2")):
        a = labels(dt, base)
        name = np.dtype(dt).str[1:].replace("u", "u").replace("i", "i")
        cdt = {"u4": "u32", "i4": "i32", "i2": "i16"}[name]
        out = path("ok-%s.raw" % cdt)
        cli("--size", "%dx%d" % (W, H), "--dtype", cdt, "--measure", "majority", "--window", K,
            "--ot", ot, raw(a, "ok." + cdt), out)
        got = np.fromfile(out, t).astype(np.float64).reshape(H, W)
        check("CLI %s %s: the classes exactly" % (cdt, ot),
              np.array_equal(got, mode_oracle(a.astype(np.int64))))
    # A nodata value past the limit is no class: not counted, not refused.
    nd = labels(np.uint32, 100)
    nd[::4, ::3] = 4294967295
    out = path("nd.raw")
    cli("--size", "%dx%d" % (W, H), "--dtype", "u32", "--nodata", "4294967295", "--measure",
        "majority", "--window", K, raw(nd, "nd.u32"), out)
    got = np.fromfile(out, "<f4").reshape(H, W)
    want = mode_oracle(nd.astype(np.int64), nodata=4294967295)
    check("CLI: u32 classes with nodata 4294967295 accepted",
          np.array_equal(got[nd != 4294967295], want[nd != 4294967295]))
    # The GPU's chunks are counted by the CPU's pool: the same refusal and
    # the same classes, where a GPU is usable.
    ok = labels(np.uint32, 16777000)
    gpu = cli("--size", "%dx%d" % (W, H), "--dtype", "u32", "--measure", "majority", "--window",
              K, "--device", "gpu", raw(ok, "gpu.u32"), path("gpu.raw"), expect=None)[0] == 0
    if gpu:
        got = np.fromfile(path("gpu.raw"), "<f4").astype(np.float64).reshape(H, W)
        check("CLI --device gpu: the classes exactly",
              np.array_equal(got, mode_oracle(ok.astype(np.int64))))
        cli("--size", "%dx%d" % (W, H), "--dtype", "u32", "--measure", "majority", "--window",
            K, "--device", "gpu", src, path("gpu2.raw"), expect=2)
        check("CLI --device gpu: no output left", not os.path.exists(path("gpu2.raw")))
    else:
        print("no usable GPU: the --device gpu part not run")
    # --decode --ot checks the file's maps as a job checks its own: u8
    # classes in uint8 share codes, i16 classes pass float16's integers.
    cli("--size", "%dx%d" % (W, H), "--dtype", "u8", "--measure", "majority", "--window", K,
        raw(labels(np.uint8, 200), "c.u8"), path("c8.zst"))
    cli("--decode", "--ot", "uint8", path("c8.zst"), path("c8d.tif"), expect=2)
    cli("--decode", "--ot", "uint16", path("c8.zst"), path("c8d.tif"))
    cli("--size", "%dx%d" % (W, H), "--dtype", "i16", "--measure", "majority", "--window", K,
        raw(labels(np.int16, 10), "d.i16"), path("d16.zst"))
    err = cli("--decode", "--ot", "float16", path("d16.zst"), path("d16.tif"), expect=2)[1]
    check("--decode: i16 classes to float16 refused", "float32" in err, err)
    # Binned: bin centres, not classes, so no check of the samples.
    cli("--size", "%dx%d" % (W, H), "--dtype", "u32", "--measure", "majority", "--window", K,
        "--bins", "16", "--range", "3000000000:3000000100", src, path("binned.raw"))


def test_python():
    big = labels(np.uint32, 3000000001)
    for what, a in (("uint32", big), ("int64", big.astype(np.int64)),
                    ("masked", np.ma.masked_array(big, mask=big == big.min()))):
        expect_raises("winent.entropy of %s classes past 2^24" % what, winent.UsageError,
                      winent.entropy, a, window=K, measure="majority", contains="range=")
    import dask.array as da
    d = da.from_array(big, chunks=(10, 12))
    expect_raises("dask blocks of classes past 2^24", winent.UsageError,
                  lambda: winent.entropy(d, window=K, measure="majority").compute(),
                  contains="rounded together")
    expect_raises("texture with a majority of classes past 2^24", winent.UsageError,
                  winent.texture, big, window=K, measures=["entropy", "majority"],
                  contains="rounded together")
    src = raw(big, "py.u32")
    expect_raises("winent.run of classes past 2^24", winent.UsageError, winent.run, src,
                  path("run.tif"), size=(W, H), dtype="u32", measure="majority", window=K,
                  contains="rounded together")
    check("winent.run: no output left", not os.path.exists(path("run.tif")))
    small = labels(np.int64, 16777000)
    got = winent.entropy(small, window=K, measure="majority")
    check("winent.entropy: int64 classes below 2^24 exactly",
          np.array_equal(got.astype(np.float64), mode_oracle(small)))
    got = winent.entropy(da.from_array(small, chunks=(10, 12)), window=K,
                         measure="majority").compute()
    check("dask: int64 classes below 2^24 exactly",
          np.array_equal(got.astype(np.float64), mode_oracle(small)))


def test_engine_door():
    """The C engine checks the samples itself: a warm engine made for small
    classes, then given rows with a class past 2^24."""
    small = labels(np.uint32, 1000)
    job = _compute.prepare(small, window=K, threads=1, device="cpu",
                           measure=_options._one_measure("measure", "majority", ()))
    first = _warm.compute(job, 0, H)
    if first is None:
        check("a warm CPU engine", False, "the warm path did not apply")
        return
    job.a = labels(np.uint32, 3000000001)
    expect_raises("winent_engine_compute: classes past 2^24 refused", winent.UsageError,
                  _warm.compute, job, 0, H, contains="rounded together")
    job.a = small
    again = _warm.compute(job, 0, H)
    check("the engine stays usable after the refusal",
          again is not None and np.array_equal(again, first))
    winent.free_engines()


run_test(test_cli)
run_test(test_python)
run_test(test_engine_door)
finish()
