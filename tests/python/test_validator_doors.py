# SPDX-License-Identifier: BSD-3-Clause
"""One validator, one message (docs/SPEC.md section 6): each case below goes
through every door that takes its options -- the CLI; from C, winent_entropy
and winent_run (validate_door, the options set as C fields); from Python,
winent.entropy on a numpy array, an xarray DataArray and a dask array, and
winent.run -- and every door must give the same verdict. The doors that
speak the CLI's words (the CLI and C) give the very same line (the CLI
quoting a value as typed: the cases type each as the library writes it); Python's
doors give one line among them, naming the option by its keyword, and for
a refused value the advice of the same row of the library's table of
options (winent_options) as the CLI's line.

    test_validator_doors.py PATH/TO/validate_door
"""
import math
import os
import subprocess
import sys

from py_harness import CHILD_ENV, check, cli_message, finish, need, path, run_test

need("numpy", "xarray", "dask")
import dask.array as da  # noqa: E402
import numpy as np  # noqa: E402
import xarray as xr  # noqa: E402

import winent  # noqa: E402
from winent._options import options_table  # noqa: E402

DOOR = sys.argv[1]
NAN, INF = float("nan"), float("inf")
NP = {"u8": np.uint8, "i8": np.int8, "u16": np.uint16, "i16": np.int16, "u32": np.uint32,
      "i32": np.int32, "f32": np.float32, "f64": np.float64}
COMPUTE = ("cli", "c_entropy", "c_run", "np", "xr", "dask", "run")
JOB = ("cli", "c_run", "run")
PY = ("np", "xr", "dask", "run")

# (what, dtype, verdict "ok" or "usage", doors, CLI words, C fields, Python keywords)
CASES = [
    # nodata against the samples' type: whole numbers the type holds.
    ("nodata -1, u16", "u16", "usage", COMPUTE, "--nodata -1", "nodata=-1", dict(nodata=-1)),
    ("nodata 70000, u16", "u16", "usage", COMPUTE, "--nodata 70000", "nodata=70000",
     dict(nodata=70000)),
    ("nodata 2.5, u16", "u16", "usage", COMPUTE, "--nodata 2.5", "nodata=2.5", dict(nodata=2.5)),
    ("nodata inf, u16", "u16", "usage", COMPUTE, "--nodata inf", "nodata=inf", dict(nodata=INF)),
    ("nodata 1e-310, u16", "u16", "usage", COMPUTE, "--nodata 1e-310", "nodata=1e-310",
     dict(nodata=1e-310)),
    ("nodata 300, u8", "u8", "usage", COMPUTE, "--nodata 300", "nodata=300", dict(nodata=300)),
    ("nodata -1, u8", "u8", "usage", COMPUTE, "--nodata -1", "nodata=-1", dict(nodata=-1)),
    ("nodata 2.5, u8", "u8", "usage", COMPUTE, "--nodata 2.5", "nodata=2.5", dict(nodata=2.5)),
    ("nodata -32769, i16", "i16", "usage", COMPUTE, "--nodata -32769", "nodata=-32769",
     dict(nodata=-32769)),
    ("nodata 4294967296, u32", "u32", "usage", COMPUTE, "--nodata 4294967296",
     "nodata=4294967296", dict(nodata=4294967296)),
    ("nodata 1e39, f32", "f32", "usage", COMPUTE, "--nodata 1e+39 --range 0:10",
     "nodata=1e39 lo=0 hi=10 bins=256", dict(nodata=1e39, range=(0, 10))),
    ("nodata 0, u16", "u16", "ok", COMPUTE, "--nodata 0", "nodata=0", dict(nodata=0)),
    ("nodata 65535, u16", "u16", "ok", COMPUTE, "--nodata 65535", "nodata=65535",
     dict(nodata=65535)),
    ("nodata -0.0, u16 (it is 0)", "u16", "ok", COMPUTE, "--nodata -0.0", "nodata=-0.0",
     dict(nodata=-0.0)),
    ("nodata nan, u16 (NaN is never counted)", "u16", "ok", COMPUTE, "--nodata nan",
     "nodata=nan", dict(nodata=NAN)),
    ("nodata -128, i8", "i8", "ok", COMPUTE, "--nodata -128", "nodata=-128", dict(nodata=-128)),
    ("nodata inf, f32", "f32", "ok", COMPUTE, "--nodata inf --range 0:10",
     "nodata=inf lo=0 hi=10 bins=256", dict(nodata=INF, range=(0, 10))),
    ("nodata 1e-310, f64", "f64", "ok", COMPUTE, "--nodata 1e-310 --range 0:10",
     "nodata=1e-310 lo=0 hi=10 bins=256", dict(nodata=1e-310, range=(0, 10))),
    # Windows: sides 1..255 of either parity, a disk's radius 0..127.
    ("window 4", "u8", "ok", COMPUTE, "--window 4", "kx=4 ky=4", dict(window=4)),
    ("window 0", "u8", "usage", COMPUTE, "--window 0", "kx=0 ky=0", dict(window=0)),
    ("window -1", "u8", "usage", COMPUTE, "--window -1", "kx=-1 ky=-1", dict(window=-1)),
    ("window 257", "u8", "usage", COMPUTE, "--window 257", "kx=257 ky=257", dict(window=257)),
    ("window 7x4", "u8", "ok", COMPUTE, "--window 7x4", "kx=7 ky=4", dict(window=(4, 7))),
    ("window 3x256", "u8", "usage", COMPUTE, "--window 3x256", "kx=3 ky=256",
     dict(window=(256, 3))),
    ("window 255x1", "u8", "ok", COMPUTE, "--window 255x1", "kx=255 ky=1", dict(window=(1, 255))),
    ("window 3x7", "u8", "ok", COMPUTE, "--window 3x7", "kx=3 ky=7", dict(window=(7, 3))),
    ("disk 128", "u8", "usage", COMPUTE, "--window disk128", "kx=257 ky=257 disk=1",
     dict(window=("disk", 128))),
    ("disk -1", "u8", "usage", COMPUTE, "--window disk-1", "kx=-1 ky=-1 disk=1",
     dict(window=("disk", -1))),
    ("disk 0", "u8", "ok", COMPUTE, "--disk 0", "kx=1 ky=1 disk=1",
     dict(footprint="disk", radius=0)),
    ("disk 3", "u8", "ok", COMPUTE, "--disk 3", "kx=7 ky=7 disk=1", dict(window=("disk", 3))),
    # Bins and ranges.
    ("bins 0 with a range", "u8", "usage", COMPUTE, "--bins 0 --range 0:1", "bins=0 lo=0 hi=1",
     dict(bins=0, range=(0, 1))),
    ("bins 2^30 + 1", "u8", "usage", COMPUTE, "--bins 1073741825 --range 0:1",
     "bins=1073741825 lo=0 hi=1", dict(bins=2**30 + 1, range=(0, 1))),
    ("bins without a range, u16", "u16", "usage", COMPUTE, "--bins 16", "bins=16",
     dict(bins=16)),
    ("range 1:0", "u8", "usage", COMPUTE, "--range 1:0", "bins=256 lo=1 hi=0",
     dict(range=(1, 0))),
    ("range 2:2", "u8", "usage", COMPUTE, "--range 2:2", "bins=256 lo=2 hi=2",
     dict(range=(2, 2))),
    ("range nan:1", "u8", "usage", COMPUTE, "--range nan:1", "bins=256 lo=nan hi=1",
     dict(range=(NAN, 1))),
    ("range 0:inf", "u8", "usage", COMPUTE, "--range 0:inf", "bins=256 lo=0 hi=inf",
     dict(range=(0, INF))),
    ("range -1e308:1e308", "f32", "usage", COMPUTE, "--range -1e+308:1e+308",
     "bins=256 lo=-1e308 hi=1e308", dict(range=(-1e308, 1e308))),
    ("range 0:10", "u8", "ok", COMPUTE, "--range 0:10", "bins=256 lo=0 hi=10",
     dict(range=(0, 10))),
    ("base 3", "u8", "usage", COMPUTE, "--base 3", "base=3", dict(base=3)),
    # A float band without a range: --range auto, 256 bins, everywhere.
    ("f32, no range", "f32", "ok", COMPUTE, "", "", dict()),
    ("f64, bins 16, no range", "f64", "ok", COMPUTE, "--bins 16", "bins=16", dict(bins=16)),
    # Running options.
    ("threads -1", "u8", "usage", COMPUTE, "--threads -1", "threads=-1", dict(threads=-1)),
    ("threads 5000", "u8", "usage", COMPUTE, "--threads 5000", "threads=5000",
     dict(threads=5000)),
    ("device 0,0", "u8", "usage", COMPUTE, "--device 0,0", "device=0,0", dict(device="0,0")),
    ("device gpu7x", "u8", "usage", COMPUTE, "--device gpu7x", "device=gpu7x",
     dict(device="gpu7x")),
    ("device cpu", "u8", "ok", COMPUTE, "--device cpu --threads 2", "device=cpu threads=2",
     dict(device="cpu", threads=2)),
    # A job's own options.
    ("level 23", "u8", "usage", JOB, "--level 23", "level=23", dict(level=23)),
    ("tile 17", "u8", "usage", JOB, "--tile 17", "tile=17", dict(tile=17)),
    ("frame rows 2^21", "u8", "usage", JOB, "--frame-rows 2097152", "frame_rows=2097152",
     dict(frame_rows=2**21)),
    ("preview size 20000", "u8", "usage", JOB, "--preview-size 20000", "preview_size=20000",
     dict(preview_size=20000)),
    ("preview size without preview", "u8", "usage", JOB, "--preview-size 64",
     "preview_size=64", dict(preview_size=64)),
    ("mem 100K", "u8", "usage", JOB, "--mem 100K", "mem=102400", dict(mem=102400)),
]

# The measures: Python's door is winent.texture (measures=, levels=,
# distances=, angles=, symmetric=), C's the compute fields and the job's
# measure list, the CLI's --measure, --levels, --distance, --angles.
TEX = ("cli", "c_entropy", "c_run", "np", "xr", "dask")
TEX_JOB = ("cli", "c_run", "np", "xr", "dask")
MEASURE_CASES = [
    ("glcm on u16 without levels", "u16", "usage", TEX, "--measure glcm-asm",
     "measure=glcm-asm", dict(measures="glcm-asm")),
    ("levels 2000", "u8", "usage", TEX, "--measure glcm-asm --levels 2000 --range 0:256",
     "measure=glcm-asm bins=2000 lo=0 hi=256",
     dict(measures="glcm-asm", levels=2000, range=(0, 256))),
    ("distance 200", "u8", "usage", TEX, "--measure glcm-contrast --distance 200",
     "measure=glcm-contrast distance=200", dict(measures="glcm-contrast", distances=200)),
    ("glcm on a disk", "u8", "usage", TEX, "--measure glcm-asm --disk 2",
     "measure=glcm-asm kx=5 ky=5 disk=1", dict(measures="glcm-asm", window=("disk", 2))),
    ("glcm at an even side", "u8", "usage", TEX, "--measure glcm-asm --window 5x4",
     "measure=glcm-asm kx=5 ky=4", dict(measures="glcm-asm", window=(4, 5))),
    ("renyi:99 at 255x255", "u8", "usage", TEX, "--measure renyi:99 --window 255",
     "measure=renyi:99 kx=255 ky=255", dict(measures="renyi:99", window=255)),
    ("a measure twice", "u8", "usage", TEX_JOB, "--measure simpson,glcm-asm,simpson",
     "measures=simpson,glcm-asm,simpson", dict(measures=["simpson", "glcm-asm", "simpson"])),
    ("glcm-contrast, 16 levels of u16, d=2, 0 and 90, asymmetric", "u16", "ok", TEX,
     "--measure glcm-contrast --levels 16 --range 0:16 --distance 2 --angles 0,90 --asymmetric",
     "measure=glcm-contrast bins=16 lo=0 hi=16 distance=2 angles=5 asymmetric=1",
     dict(measures="glcm-contrast", levels=16, range=(0, 16), distances=2, angles=[0, 90],
          symmetric=False)),
    ("every histogram measure", "u8", "ok", TEX_JOB,
     "--measure entropy,renyi:2,simpson,richness,evenness,majority",
     "measures=entropy,renyi:2,simpson,richness,evenness,majority",
     dict(measures=["entropy", "renyi:2", "simpson", "richness", "evenness", "majority"])),
]

# Two ways of one window, given together: refused, never one winning.
CONFLICTS = [
    ("window disk3 and disk 4", "--window disk3 --disk 4",
     dict(window=("disk", 3), footprint="disk", radius=4)),
    ("window 5 and disk 2", "--window 5 --disk 2", dict(window=5, footprint="disk", radius=2)),
]

# The known lines, pinned (the CLI's, Python's).
PINNED = {
    "distance 200": ("--distance: '200': give a distance from 1 to 127",
                     "distances=200: give one distance from 1 to 127 (an int, or [D])"),
    "nodata -1, u16": ("--nodata: '-1': a u16 band holds whole numbers from 0 to 65535, so no "
                       "pixel can equal it: give a value the band can hold",
                       "nodata=-1: a uint16 band holds whole numbers from 0 to 65535, so no "
                       "pixel can equal it: give a value the band can hold"),
    "range 1:0": ("--range: '1:0': give finite numbers LO:HI with LO < HI, or auto",
                  "range=(1, 0): give finite numbers (lo, hi) with lo < hi, or 'auto'"),
    "window 7x4": ("--window: '7x4': give K or WxH, odd sides from 1 to 255, or diskR with R "
                   "from 0 to 127",
                   "window=(4, 7): give K or (rows, cols), odd sides from 1 to 255, or "
                   "('disk', R) with R from 0 to 127"),
}

ROWS = options_table()


def raw_input(dtype):
    p = path("in-%s.raw" % dtype)
    if not os.path.exists(p):
        (np.arange(64) % 7).astype(NP[dtype]).tofile(p)
    return p


def verdict_of(door, dtype, args, fields, kw):
    """(0, None) or (status, message) from one door."""
    a = (np.arange(64) % 7).astype(NP[dtype]).reshape(8, 8)
    out = path("out.raw")
    if os.path.exists(out):
        os.unlink(out)
    if door == "cli":
        code, line = cli_message("--size", "8x8", "--dtype", dtype, *args.split(),
                                 raw_input(dtype), out)
        return code, (line if code else None)
    if door.startswith("c_"):
        cmd = [DOOR, door[2:], "dtype=" + dtype] + fields.split()
        if door == "c_run":
            cmd += ["input=" + raw_input(dtype), "output=" + out, "width=8", "height=8"]
        r = subprocess.run(cmd, env=CHILD_ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = r.stdout.decode("utf-8", "replace").strip()
        if r.returncode != 0 or not line:
            return -1, "validate_door failed: %s" % r.stderr.decode("utf-8", "replace")
        st, _, msg = line.partition(" ")
        return int(st), (msg or None)
    try:
        if "measures" in kw:  # winent.texture's door
            x = {"np": a, "xr": xr.DataArray(a, dims=("y", "x")),
                 "dask": da.from_array(a, chunks=8)}[door]
            m = winent.texture(x, **kw)
            if door == "dask":
                m.compute()
        elif door == "np":
            winent.entropy(a, **kw)
        elif door == "xr":
            winent.entropy(xr.DataArray(a, dims=("y", "x")), **kw)
        elif door == "dask":
            winent.entropy(da.from_array(a, chunks=8), **kw).compute()
        else:
            winent.run(raw_input(dtype), out, size=(8, 8), dtype=dtype, notice=lambda s: None,
                       **kw)
    except winent.Error as e:
        return e.status, str(e)
    return 0, None


def rows_named(cli_msg):
    """The rows of the table whose CLI option the CLI's line names first."""
    word = cli_msg.split(":")[0].split(" ")[0]
    return [r for r in ROWS if r["cli"] and word == "--" + r["cli"]]


def same_rule(what, cli_msg, py_msg):
    """Python's line names the option the CLI's names, and a refused value
    gets the advice of the same row in Python's words."""
    rows = rows_named(cli_msg)
    keywords = {r["python"] for r in rows if r["python"]}
    if rows and rows[0]["cli"] in ("window", "disk"):
        keywords |= {"window", "windows", "radius", "footprint"}
    head = py_msg.split(":")[0].split("=")[0].split(" ")[0]
    check("%s: Python's line %r names the option of the CLI's %r" % (what, py_msg, cli_msg),
          rows and head in keywords)
    for r in rows:
        if r["cli_advice"] and cli_msg.endswith(": " + r["cli_advice"]):
            check("%s: Python's line %r gives the advice of row %s in its words"
                  % (what, py_msg, r["cli"]),
                  any(py_msg.endswith(": " + q["python_advice"]) for q in rows
                      if q["python_advice"]))
            break
    check("%s: no CLI word in Python's line %r" % (what, py_msg),
          "--" not in py_msg and "'%s'" % "LO:HI" not in py_msg)


def test_cases(cases=CASES):
    for what, dtype, want, doors, args, fields, kw in cases:
        got = {d: verdict_of(d, dtype, args, fields, kw) for d in doors}
        status = 0 if want == "ok" else 2
        for d, (st, msg) in got.items():
            check("%s: %s gives %s (got %d: %s)" % (what, d, want, st, msg), st == status)
        if want == "ok":
            continue
        cli_words = {got[d][1] for d in doors if d not in PY}
        py_words = {got[d][1] for d in doors if d in PY}
        check("%s: one line from the CLI and C (%s)" % (what, cli_words), len(cli_words) == 1)
        check("%s: one line from Python's doors (%s)" % (what, py_words), len(py_words) == 1)
        same_rule(what, got["cli"][1], got["run"][1] if "run" in got else got["np"][1])
        if what in PINNED:
            py = got["run"][1] if "run" in got else got["np"][1]
            check("%s: the CLI's line %r" % (what, got["cli"][1]), got["cli"][1] == PINNED[what][0])
            check("%s: Python's line %r" % (what, py), py == PINNED[what][1])


def test_measure_cases():
    test_cases(MEASURE_CASES)


def test_conflicts():
    for what, args, kw in CONFLICTS:
        code, cli_msg = verdict_of("cli", "u8", args, "", {})
        check("%s: CLI refuses (exit %d: %s)" % (what, code, cli_msg), code == 2)
        msgs = set()
        for d in PY:
            st, msg = verdict_of(d, "u8", "", "", kw)
            check("%s: %s refuses (got %d: %s)" % (what, d, st, msg), st == 2)
            msgs.add(msg)
        check("%s: one line from Python (%s)" % (what, msgs), len(msgs) == 1)
        msg = msgs.pop()
        check("%s: the lines say the same in each door's words (%r, %r)" % (what, cli_msg, msg),
              cli_msg is not None and msg is not None and
              cli_msg.split(": ", 1)[-1] == msg.split(": ", 1)[-1] and
              "does not go with" in cli_msg and "does not go with" in msg)


def test_float_default_range():
    """A float band without a range takes --range auto and 256 bins: the
    CLI and Python give the same map, the notice says the range."""
    a = (np.arange(64).reshape(8, 8) % 9).astype(np.float32) * 0.5
    a.tofile(path("f.raw"))
    code, _ = cli_message("--size", "8x8", "--dtype", "f32", path("f.raw"), path("c.raw"))
    check("CLI: f32 without a range runs (exit %d)" % code, code == 0)
    notices = []
    winent.run(path("f.raw"), path("p.raw"), size=(8, 8), dtype="f32", notice=notices.append)
    check("run: a notice states the range taken (%s)" % notices,
          any("range='auto' took (0, 4)" in n for n in notices))
    cli_auto = cli_message("--size", "8x8", "--dtype", "f32", "--range", "auto", path("f.raw"),
                           path("a.raw"))[0]
    check("CLI --range auto runs", cli_auto == 0)
    same = open(path("c.raw"), "rb").read() == open(path("a.raw"), "rb").read() == \
        open(path("p.raw"), "rb").read()
    check("no range, --range auto, and Python's run: the same map", same)
    m = winent.entropy(a)
    check("winent.entropy: the same map", m.tobytes() == open(path("c.raw"), "rb").read())
    check("the map is not all zeros", float(np.nanmax(m)) > 0 and not math.isnan(float(m[4, 4])))


for t in (test_cases, test_measure_cases, test_conflicts, test_float_default_range):
    run_test(t)
finish()
