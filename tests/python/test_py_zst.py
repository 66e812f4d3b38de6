# SPDX-License-Identifier: BSD-3-Clause
"""winent.read_zst and winent.open_zst against `zstd -d` of the same file
and the CLI's raw map of the same job; the header against the tests' own
reader (tests/lib/zst_read.py); lazy reads decompress only the frames their
rows are in; damaged and foreign files refused with the message of
--info; the README's recipe with the zstandard module alone."""
import json
import os
import shutil
import subprocess
import sys

from py_harness import (CHILD_ENV, SRC, T, check, cli, expect_raises, finish, mksample, need,
                        path, run_test, same_bits)

need("numpy", "zstandard")
import numpy as np  # noqa: E402
import zstandard  # noqa: E402

import winent  # noqa: E402

HAVE_ZSTD = shutil.which("zstd") is not None


def zstd_d(p):
    """`zstd -d` of the file: its decompressed bytes as float32 (the header
    and seek table frames are skippable: zstd passes over them)."""
    r = subprocess.run(["zstd", "-dcq", p], stdout=subprocess.PIPE, check=True, env=CHILD_ENV)
    return np.frombuffer(r.stdout, dtype="<f4")


def make(name, w, h, frame_rows=None, extra=()):
    """A .zst map and the raw map of the same job (both by the CLI)."""
    raw_in = mksample(name + ".in", w, h, "u16", "--kind", "landscape", "--values", "300",
                      "--holes", "0.1", "--nodata", "0")
    opts = ["--size", "%dx%d" % (w, h), "--dtype", "u16", "--nodata", "0"] + list(extra)
    if frame_rows:
        opts += ["--frame-rows", str(frame_rows)]
    cli(*(opts + [raw_in, path(name + ".zst")]))
    cli(*(opts + [raw_in, path(name + ".raw")]))
    ref = np.fromfile(path(name + ".raw"), dtype="<f4").reshape(h, w)
    make.input = np.fromfile(raw_in, dtype="<u2").reshape(h, w)
    return path(name + ".zst"), ref


CASES = [("frames16", 211, 100, 16), ("oneframe", 64, 50, None), ("rowframes", 40, 7, 1),
         ("exact", 33, 64, 16)]


def test_read_zst():
    for name, w, h, fr in CASES:
        p, ref = make(name, w, h, fr, ["--window", "7x5"])
        m, header = winent.read_zst(p)
        check("%s: float32 %dx%d" % (name, w, h), m.dtype == np.float32 and m.shape == (h, w))
        check("%s: the CLI's raw map" % name, same_bits(m, ref))
        check("%s: NaN exactly where nodata is the centre" % name,
              np.array_equal(np.isnan(m), make.input == 0) and not np.isnan(m).all())
        if HAVE_ZSTD:
            check("%s: zstd -d's bytes" % name, m.astype("<f4").tobytes() == zstd_d(p).tobytes())
        r = subprocess.run([sys.executable, os.path.join(SRC, "tests", "lib", "zst_read.py"), "header",
                            p], stdout=subprocess.PIPE, check=True)
        check("%s: the header as tests/lib/zst_read.py reads it" % name,
              json.loads(r.stdout) == header)
        check("%s: the header's facts" % name, header["width"] == w and header["height"] == h and
              header["window"] == [7, 5] and header["format"] == "winent-stream/1")
    if not HAVE_ZSTD:
        print("SKIP part: no zstd command (apt-get install zstd): zstd -d comparisons")


def test_open_zst():
    p, ref = make("lazy", 211, 100, 16)
    with winent.open_zst(p) as m:
        check("shape, dtype, len", m.shape == (100, 211) and m.dtype == np.float32 and
              len(m) == 100 and m.ndim == 2)
        check("header", m.header["rows_per_frame"] == 16 and m.frames == 7)
        decoded = []
        real = m._decode

        def counting(i, dest, k=0):
            decoded.append(i)
            return real(i, dest, k)

        m._decode = counting
        for (sl, frames) in [(slice(0, 16), [0]), (slice(20, 40), [1, 2]), (slice(96, 100), [6]),
                             (slice(95, 97), [5, 6]),
                             (slice(31, 33), [1, 2]), (slice(50, 50), [])]:
            decoded.clear()
            m._cache = {}
            got = m[sl]
            check("rows %d:%d: the map's" % (sl.start, sl.stop), same_bits(got, ref[sl]))
            check("rows %d:%d: only frames %s decompressed, once each (got %s)"
                  % (sl.start, sl.stop, frames, decoded), decoded == frames)
        m._cache = {}
        decoded.clear()
        rows = [m[y] for y in range(16, 32)]
        check("16 rows of one frame one by one: it is decompressed once",
              decoded == [1] and same_bits(np.array(rows), ref[16:32]), decoded)
        del m._decode
        for key in [5, -1, (7, 3), (slice(3, 90, 7), slice(4, 9)), slice(None, None, -5),
                    [0, 99, 50], (slice(10, 20), 7), np.arange(100) % 3 == 0, (Ellipsis, 3)]:
            check("m[%r]" % (key,), same_bits(m[key], ref[key]))
        check("numpy.asarray(m)", same_bits(np.asarray(m), ref))
        check("numpy.asarray(m, float64)", np.array_equal(np.asarray(m, np.float64),
                                                          ref.astype(np.float64), equal_nan=True))
        blocks = list(m.blocks())
        check("blocks(): every frame in order", [y for y, _ in blocks] == list(range(0, 100, 16))
              and same_bits(np.concatenate([b for _, b in blocks]), ref))
        expect_raises("row 100 of 100: IndexError", IndexError, lambda: m[100])
    expect_raises("after close: ValueError", ValueError, lambda: m[0])
    check("repr says closed", "closed" in repr(m))


def test_refused():
    p, ref = make("good", 64, 40, 8)
    data = open(p, "rb").read()

    def bad_file(name, content):
        q = path(name)
        with open(q, "wb") as f:
            f.write(content)
        return q

    raw = bad_file("plain.bin", ref.tobytes())
    fifo = path("fifo.zst")
    os.mkfifo(fifo)
    # (what, file, words of the message, whether --info says the same)
    cases = [("a raw map", raw, "no winent-stream header", True),
             ("a plain zstd stream", bad_file("plain.zst", zstandard.ZstdCompressor().compress(
                 ref.tobytes())), "a zstd stream without the winent-stream header", True),
             ("cut in the middle", bad_file("cut.zst", data[:len(data) // 2]), "truncated", True),
             ("missing", path("missing.zst"), "cannot open", True),
             ("an empty file", bad_file("empty.zst", b""), "truncated", True),
             ("a folder", T, "regular file", False),
             ("a FIFO (not waited on)", fifo, "regular file", False)]
    for what, q, why, same_as_info in cases:
        e = expect_raises("%s: InputError" % what, winent.InputError, winent.read_zst, q,
                          status=3, contains=why)
        if e is not None and same_as_info:
            code, err = cli("--info", q, expect=3)
            msg = err.strip().replace("winent-stream: ", "", 1)
            check("%s: --info's message %r (got %r)" % (what, msg, str(e)), str(e) == msg)

    # A damaged frame: the file opens, the frame's read says which.
    hdr = 8 + int.from_bytes(data[4:8], "little")
    # Frame 0's compressed size: the seek table's second entry.
    nentries = int.from_bytes(data[-9:-5], "little")
    first_entry = len(data) - 9 - 12 * nentries
    frame_len = int.from_bytes(data[first_entry + 12:first_entry + 16], "little")
    damaged = bytearray(data)
    damaged[hdr + 2 * frame_len // 3] ^= 0x55
    q = bad_file("damaged.zst", bytes(damaged))
    with winent.open_zst(q) as m:
        check("a damaged frame 0: the other frames read", same_bits(m[8:40], ref[8:40]))
        expect_raises("a damaged frame 0: InputError naming it", winent.InputError,
                      lambda: m[0:3], contains="frame 0 (rows 0-7)")
    expect_raises("read_zst of a damaged file: InputError", winent.InputError, winent.read_zst, q)


def test_readme_recipe():
    """The README's recipe (section "Python", reading .zst with the
    zstandard module alone) and the trap it avoids."""
    p, ref = make("recipe", 120, 50, 16)
    import struct
    with open(p, "rb") as f:
        magic, size = struct.unpack("<II", f.read(8))
        header = json.loads(f.read(size))
        emap = np.empty((header["height"], header["width"]), "<f4")
        reader = zstandard.ZstdDecompressor().stream_reader(f, read_across_frames=True)
        view, got = memoryview(emap).cast("B"), 0
        while got < len(view):
            n = reader.readinto(view[got:])
            if n == 0:
                raise EOFError("map.zst is cut short")
            got += n
    check("the recipe: the map", same_bits(emap, ref))
    with open(p, "rb") as f:
        f.read(8 + size)
        raw = zstandard.ZstdDecompressor().stream_reader(f, read_across_frames=True).read()
    check("read() of the stream: the same bytes", raw == ref.astype("<f4").tobytes())
    check("the trap: decompress() of the whole file gives 0 bytes",
          len(zstandard.ZstdDecompressor().decompress(open(p, "rb").read())) == 0)


for t in (test_read_zst, test_open_zst, test_refused, test_readme_recipe):
    run_test(t)
finish()
