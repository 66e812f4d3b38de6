# SPDX-License-Identifier: BSD-3-Clause
"""The Python API validates as the CLI does: for each bad value,
winent.run / winent.Job and winent.entropy raise UsageError where the CLI
exits 2, with the line of the same rule in Python's words (the option's
keyword, not the CLI's --word; for a value refused, the advice of the same
row of the library's table of options): bins=0 with a range, a range whose
width (or width times the bins) overflows a double, NaN and infinite range
ends, whole numbers past a C int, a raw layout past 2^63 bytes. A NUL byte
in any string option (paths, device, command line) is a ValueError, and
nothing is written."""
import os

from py_harness import T, check, cli, cli_message, expect_raises, finish, need, path, run_test

need("numpy")
import numpy as np  # noqa: E402

import winent  # noqa: E402
from winent._options import options_table  # noqa: E402

ROWS = options_table()


def same_rule(cli_msg, py_msg):
    """Python's line says the CLI's in Python's words: no --word in it, the
    option named by a keyword of the same row (a window's any of its ways),
    and a refused value told the same row's advice."""
    word = cli_msg.split(":")[0].split(" ")[0]
    rows = [r for r in ROWS if r["cli"] and word == "--" + r["cli"]]
    names = {r["python"] for r in rows if r["python"]}
    if rows and rows[0]["cli"] in ("window", "disk"):
        names |= {"window", "windows", "radius", "footprint"}
    head = py_msg.split(":")[0].split("=")[0].split(" ")[0]
    if not rows or head not in names or "--" in py_msg:
        return False
    for r in rows:
        if r["cli_advice"] and cli_msg.endswith(": " + r["cli_advice"]):
            return any(py_msg.endswith(": " + q["python_advice"]) for q in ROWS
                       if q["python_advice"] and q["python"] in names)
    return True

NAN, INF = float("nan"), float("inf")

# (Python keywords, the CLI's options for the same values)
CASES = [
    (dict(bins=0, range=(0, 1)), "--bins 0 --range 0:1"),
    (dict(bins=0, range="auto"), "--bins 0 --range auto"),
    (dict(bins=0), "--bins 0"),
    (dict(range=(-1e308, 1e308)), "--range -1e308:1e308"),
    (dict(bins=2**30, range=(0, 1e300)), "--bins 1073741824 --range 0:1e300"),
    (dict(range=(NAN, 1)), "--range nan:1"),
    (dict(range=(0, INF)), "--range 0:inf"),
    (dict(bins=8, range=(-INF, 0)), "--bins 8 --range -inf:0"),
    (dict(range=(5, 1)), "--range 5:1"),
    (dict(bins=2**40, range=(0, 1)), "--bins 1099511627776 --range 0:1"),
    (dict(bins=-1, range=(0, 1)), "--bins -1 --range 0:1"),
    (dict(window=2**40), "--window 1099511627776"),
    (dict(window=(3, 2**40)), "--window 1099511627776x3"),
    (dict(window=-2**40), "--window -1099511627776"),
    (dict(threads=2**64), "--threads 18446744073709551616"),
    (dict(threads=-1), "--threads -1"),
    (dict(level=2**31), "--level 2147483648"),
    (dict(frame_rows=2**35), "--frame-rows 34359738368"),
    (dict(tile=-16), "--tile -16"),
    (dict(band=2**33), "--band 8589934592"),
    (dict(bands=-2**33), "--bands -8589934592"),
    (dict(size=(2**33, 4)), "--size 8589934592x4"),
    (dict(size=(4, 2**40)), "--size 4x1099511627776"),
    (dict(size=(2**31 - 1, 2**31 - 1), bands=65535, dtype="u16"),
     "--size 2147483647x2147483647 --bands 65535 --dtype u16"),
    (dict(header_bytes=9300000000000000000), "--header-bytes 9.3e18"),
    # Numbers that are not whole, and texts, quoted as the CLI quotes them.
    (dict(window=5.5), "--window 5.5"),
    (dict(window=NAN), "--window nan"),
    (dict(window="abc"), "--window abc"),
    (dict(window="3x4.5"), "--window 3x4.5"),
    (dict(threads=2.5), "--threads 2.5"),
    (dict(threads="abc"), "--threads abc"),
    (dict(bins=INF, range=(0, 1)), "--bins inf --range 0:1"),
    (dict(level=NAN), "--level nan"),
    (dict(level=2**40, threads=2**41), "--level 1099511627776 --threads 2199023255552"),
    # Sizes: what the CLI reads as no size, and what the library refuses.
    (dict(mem=2**70), "--mem 1180591620717411303424"),
    (dict(mem=NAN), "--mem nan"),
    (dict(mem="lots"), "--mem lots"),
    (dict(mem=-5), "--mem -5"),
    (dict(mem=100 * 1024), "--mem 102400"),
    (dict(header_bytes=2**65), "--header-bytes 36893488147419103232"),
    # Lists of bands and windows: each item, and repeats.
    (dict(windows=[0, 5]), "--window 0,5"),
    (dict(windows=[5, 3, (5, 5)]), "--window 5,3,5x5"),
    (dict(windows=[3, 2**40]), "--window 3,1099511627776"),
    (dict(windows=[(3, 7), "9x256"]), "--window 7x3,9x256"),
    (dict(band=[2, 2], bands=3), "--band 2,2 --bands 3"),
    (dict(band=[0, 1], bands=3), "--band 0,1 --bands 3"),
    (dict(band=[1, 70000], bands=3), "--band 1,70000 --bands 3"),
    # 0 where the C fields take 0 as "default" or "none": the CLI refuses
    # the value given, and so does Python (None asks for the default).
    (dict(range=(0, 0)), "--range 0:0"),
    (dict(bins=8, range=(-0.0, 0.0)), "--bins 8 --range -0:0"),
    (dict(level=0), "--level 0"),
    (dict(level=0, format="zst"), "--level 0 --format zst"),
    (dict(level="abc", format="tif"), "--level abc --format tif"),
    (dict(frame_rows=0), "--frame-rows 0"),
    (dict(tile=0), "--tile 0"),
    (dict(preview_size=0), "--preview-size 0"),
    (dict(mem=0), "--mem 0"),
    (dict(mem="0.5"), "--mem 0.5"),
    (dict(header_bytes=0.5), "--header-bytes 0.5"),
    (dict(size=(0, 4)), "--size 0x4"),
    # Words as the CLI reads them, refused with its line.
    (dict(size="\uff14x4"), "--size \uff14x4"),
    (dict(interleave="BSQ"), "--interleave BSQ"),
    (dict(byteorder="BIG"), "--byteorder BIG"),
    (dict(format="ZST"), "--format ZST"),
    (dict(compress="ZSTD"), "--compress ZSTD"),
    (dict(tif_layout="COG"), "--tif-layout COG"),
    (dict(dtype="U8"), "--dtype U8"),
    (dict(base="E"), "--base E"),
    # A disk's radius, as --disk R and --window diskR take it.
    (dict(footprint="disk", radius=128), "--disk 128"),
    (dict(footprint="disk", radius=2.5), "--disk 2.5"),
    (dict(window=("disk", 2**40)), "--disk 1099511627776"),
    (dict(window="disk-1"), "--window disk-1"),
    (dict(window="Disk3"), "--window Disk3"),
]


def test_job_messages():
    for kw, args in CASES:
        opts = dict(size=(4, 4), dtype="u8")
        opts.update(kw)
        cli_args = args.split()
        if "--size" not in cli_args:
            cli_args = ["--size", "4x4"] + cli_args
        if "--dtype" not in cli_args:
            cli_args = ["--dtype", "u8"] + cli_args
        code, want = cli_message(*(cli_args + [path("in.raw"), path("out.raw")]))
        e = expect_raises("run(%s): UsageError" % kw, winent.UsageError, winent.run,
                          path("in.raw"), path("out.raw"), **opts)
        check("run(%s): the CLI's line %r (exit %d) in Python's words, got %r"
              % (kw, want, code, str(e)), code == 2 and e is not None and same_rule(want, str(e)))
    check("nothing written", not os.path.exists(path("out.raw")))


def test_numeric_texts():
    """A whole number as a text is read as the CLI reads it."""
    with open(path("in.raw"), "wb") as f:
        f.write(bytes(16))
    winent.run(path("in.raw"), path("t.raw"), size=(4, 4), dtype="u8", threads="2",
               window="3")
    ref = np.fromfile(path("t.raw"), "<f4")
    winent.run(path("in.raw"), path("t2.raw"), size=(4, 4), dtype="u8", threads=2, window=3)
    check("threads='2', window='3': as 2 and 3", ref.tobytes() == open(path("t2.raw"),
                                                                       "rb").read())
    os.unlink(path("t.raw"))
    os.unlink(path("t2.raw"))


def test_entropy_messages():
    a = np.zeros((6, 7), np.uint8)
    for kw, args in CASES[:13]:
        code, want = cli_message(*(["--size", "4x4", "--dtype", "u8"] + args.split() +
                                   [path("in.raw"), path("out.raw")]))
        e = expect_raises("entropy(%s): UsageError" % kw, winent.UsageError, winent.entropy,
                          a, **kw) if kw.get("range") != "auto" else None
        if e is not None:
            check("entropy(%s): the CLI's line %r in Python's words, got %r" % (kw, want, str(e)),
                  same_rule(want, str(e)))


def test_nul_bytes():
    with open(path("in.raw"), "wb") as f:
        f.write(bytes(16))
    before = sorted(os.listdir(T))
    for what, kw in [("output", dict(output=path("out") + "\0.raw")),
                     ("output as bytes", dict(output=os.fsencode(path("o.raw")) + b"\0x")),
                     ("input", dict(input=path("in.raw") + "\0junk")),
                     ("preview", dict(preview=path("p.png") + "\0")),
                     ("device", dict(device="cpu\0,0")),
                     ("command_line", dict(command_line="made by\0 me"))]:
        opts = dict(input=path("in.raw"), output=path("ok.raw"), size=(4, 4), dtype="u8")
        opts.update(kw)
        e = expect_raises("a NUL byte in %s: ValueError" % what, ValueError,
                          lambda: winent.run(**opts))
        check("a NUL byte in %s: a winent.UsageError naming it" % what,
              isinstance(e, winent.UsageError) and str(e).startswith(what.split()[0]), e)
    check("nothing written (%s)" % sorted(os.listdir(T)), sorted(os.listdir(T)) == before)
    expect_raises("entropy(device with a NUL byte): ValueError", ValueError, winent.entropy,
                  np.zeros((3, 3), np.uint8), device="cpu\0")


def test_cli_words():
    """Values the CLI reads alike from Python, whether taken or refused;
    texts with spaces and newlines (no shell splitting here)."""
    with open(path("in.raw"), "wb") as f:
        f.write(bytes(range(16)))
    base = dict(size=(4, 4), dtype="u8")
    cbase = ["--size", "4x4", "--dtype", "u8"]
    for kw, args in [(dict(threads="2\n"), ["--threads", "2\n"]),
                     (dict(threads="\u00a02"), ["--threads", "\u00a02"]),
                     (dict(threads="2\x0b"), ["--threads", "2\x0b"]),
                     (dict(threads="2\u2028x"), ["--threads", "2\u2028x"]),
                     (dict(window="5\x1b[2J"), ["--window", "5\x1b[2J"]),
                     (dict(mem="1G "), ["--mem", "1G "]),
                     (dict(mem="1 G"), ["--mem", "1 G"]),
                     (dict(header_bytes=""), ["--header-bytes", ""]),
                     (dict(size="4x4\n"), ["--size", "4x4\n"]),
                     (dict(window="5\n"), ["--window", "5\n"])]:
        code, err = cli(*(cbase + args + [path("in.raw"), path("out.raw")]), expect=None)
        check("CLI %r: one line, exit 2 (got %d: %r)" % (args, code, err),
              code == 2 and len(err.splitlines()) == 1 and "\x1b" not in err)
        opts = dict(base)
        opts.update(kw)
        e = expect_raises("run(%r): UsageError" % kw, winent.UsageError, winent.run,
                          path("in.raw"), path("out.raw"), **opts)
        check("run(%r): the CLI's one line %r in Python's words, got %r" % (kw, err, str(e)),
              e is not None and len(str(e).splitlines()) == 1 and
              same_rule(err[len("winent-stream: "):].rstrip("\n"), str(e)))
    # Alike from both (taken, the same map; or refused, the same line): a
    # hexadecimal size, --header-bytes 0, a subnormal nodata or range end
    # (a number, if a small one).
    for kw, args in [(dict(mem="0x40000000"), ["--mem", "0x40000000"]),
                     (dict(header_bytes="0"), ["--header-bytes", "0"]),
                     (dict(nodata=1e-310), ["--nodata", "1e-310"]),
                     (dict(bins=4, range=(0, 5e-324)), ["--bins", "4", "--range", "0:5e-324"])]:
        code, err = cli(*(cbase + args + [path("in.raw"), path("c.raw")]), expect=None)
        opts = dict(base, notice=lambda line: None)
        opts.update(kw)
        try:
            winent.run(path("in.raw"), path("p.raw"), **opts)
            got = None
        except winent.Error as e:
            got = str(e)
        check("%r: alike from the CLI (exit %d: %s) and Python (%s)" % (args, code, err, got),
              (code == 0 and got is None) or
              (code == 2 and got is not None and
               same_rule(err[len("winent-stream: "):].rstrip("\n"), got)))
        if code == 0 and got is None:
            check("%r: the same map" % args,
                  open(path("c.raw"), "rb").read() == open(path("p.raw"), "rb").read())
        for f in ("c.raw", "p.raw"):
            if os.path.exists(path(f)):
                os.unlink(path(f))


def test_decode_options():
    """--decode computes nothing: a compute or raw-input option given is
    refused by the CLI, the library and Python with one line, not
    dropped."""
    p = path("m.zst")
    with open(path("in.raw"), "wb") as f:
        f.write(bytes(range(16)))
    cli("--size", "4x4", "--dtype", "u8", path("in.raw"), p)
    for kw, args in [(dict(size=(4, 4)), ["--size", "4x4"]),
                     (dict(window=5), ["--window", "5"]),
                     (dict(nodata=0), ["--nodata", "0"]),
                     (dict(bins=8, range=(0, 1)), ["--bins", "8", "--range", "0:1"]),
                     (dict(header_bytes=0), ["--header-bytes", "0"]),
                     (dict(preview=path("p.png")), ["--preview", path("p.png")])]:
        code, want = cli_message(*(["--decode"] + args + [p, path("d.raw")]))
        e = expect_raises("decode with %r: UsageError" % kw, winent.UsageError, winent.run, p,
                          path("d.raw"), decode=True, **kw)
        check("decode with %r: the CLI's line %r (exit %d) in Python's words, got %r"
              % (kw, want, code, str(e)),
              code == 2 and e is not None and "does not go with decode=True" in str(e) and
              "--" not in str(e))
    check("nothing decoded, no preview",
          not os.path.exists(path("d.raw")) and not os.path.exists(path("p.png")))
    winent.run(p, path("d.raw"), decode=True, threads=1)
    check("decode with running options only: the map", os.path.getsize(path("d.raw")) == 64)


for t in (test_job_messages, test_numeric_texts, test_entropy_messages, test_nul_bytes,
          test_cli_words, test_decode_options):
    run_test(t)
finish()
