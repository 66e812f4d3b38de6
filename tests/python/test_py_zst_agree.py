# SPDX-License-Identifier: BSD-3-Clause
"""The three .zst readers agree: `winent-stream --info
--check`, `--decode` and winent.read_zst refuse a damaged or foreign file
all together or accept it all together, on crafted members of each class
(a header against its schema, the seek table and its checksums, the
frames' own headers, cut files), and read the same maps when they accept.
Also: read_zst/open_zst read files of several maps (--band/--window lists)
with their labels; a file cut under an open open_zst raises InputError
(no SIGBUS); a path with a NUL byte is a ValueError."""
import json
import os
import struct

from py_harness import (T, check, cli, expect_raises, finish, mksample, need, path, run_test,
                        same_bits)

need("numpy", "zstandard")
import numpy as np  # noqa: E402
import zstandard  # noqa: E402

import winent  # noqa: E402

EMPTY_CHECKSUM = 0x51D8E999


# ---- taking a file apart and putting it back ------------------------------

def parse(data):
    """(header text, data frames' bytes, [(csize, dsize, checksum)] of the
    data frames) of a winent-stream .zst."""
    jlen = struct.unpack_from("<I", data, 4)[0]
    n = struct.unpack_from("<I", data, len(data) - 9)[0]
    table = len(data) - 9 - 12 * n - 8
    entries = [struct.unpack_from("<III", data, table + 8 + 12 * i) for i in range(n)]
    return data[8:8 + jlen].decode("utf-8"), data[8 + jlen:table], entries[1:]


def build(text, frames, entries, desc=0x80, header_sum=EMPTY_CHECKSUM):
    """A .zst of the header `text`, the frames' bytes and their entries, its
    header frame's own entry made to fit."""
    hb = text.encode("utf-8") if isinstance(text, str) else text
    out = struct.pack("<II", 0x184D2A50, len(hb)) + hb + frames
    rows = [(8 + len(hb), 0, header_sum)] + list(entries)
    table = b"".join(struct.pack("<III", *e) for e in rows)
    table += struct.pack("<IBI", len(rows), desc, 0x8F92EAB1)
    return out + struct.pack("<II", 0x184D2A5E, len(table)) + table


def with_header(data, edit):
    """The file with its header dict changed by `edit` (returns nothing) or
    its text replaced by what `edit` returns for the text."""
    text, frames, entries = parse(data)
    if callable(edit):
        h = json.loads(text)
        r = edit(h)
        new = json.dumps(h, indent="\t") if r is None else r
    else:
        new = text.replace(*edit)
    return build(new, frames, entries)


def with_entry(data, i, csize=None, dsize=None, checksum=None):
    text, frames, entries = parse(data)
    c, d, s = entries[i]
    entries[i] = (c if csize is None else csize, d if dsize is None else dsize,
                  s if checksum is None else checksum)
    return build(text, frames, entries)


def with_frame(data, i, new_frame):
    """Frame i replaced by `new_frame`, its entry's size and checksum (the
    frame's last 4 bytes) made to fit."""
    text, frames, entries = parse(data)
    off = sum(e[0] for e in entries[:i])
    frames = frames[:off] + new_frame + frames[off + entries[i][0]:]
    entries[i] = (len(new_frame), entries[i][1], struct.unpack("<I", new_frame[-4:])[0])
    return build(text, frames, entries)


def frame_bytes(data, i):
    text, frames, entries = parse(data)
    off = sum(e[0] for e in entries[:i])
    return frames[off:off + entries[i][0]]


# ---- the three verdicts -----------------------------------------------------

def verdicts(name, content):
    """(--info --check, --decode, read_zst): each None for accepted, else
    its message; and read_zst's map when it accepted."""
    p = path(name + ".zst")
    with open(p, "wb") as f:
        f.write(content)
    code, err = cli("--info", "--check", p, expect=None)
    check_v = None if code == 0 else (code, err.strip())
    out = path(name + ".out.zst")
    code, err = cli("--decode", p, out, expect=None)
    decode_v = None if code == 0 else (code, err.strip())
    try:
        m, _ = winent.read_zst(p)
        py_v = None
    except winent.Error as e:
        m, py_v = None, (e.status, str(e))
    return check_v, decode_v, py_v, m


def agree(name, content, accepted, ref=None):
    c, d, p, m = verdicts(name, content)
    got = [v is None for v in (c, d, p)]
    check("%s: --info --check, --decode, read_zst all %s (got %s: %s %s %s)"
          % (name, "accept" if accepted else "refuse", got, c, d, p), got == [accepted] * 3)
    if not accepted:
        check("%s: all exit 3 / InputError" % name,
              (c or (3,))[0] == 3 and (d or (3,))[0] == 3 and (p or (3,))[0] == 3, (c, d, p))
        if d and p:
            check("%s: read_zst's words are --decode's (%r, %r)" % (name, p[1], d[1]),
                  "winent-stream: " + p[1] == d[1])
    if accepted and ref is not None:
        check("%s: read_zst reads the map" % name, same_bits(m, ref))


def make(name, w, h, extra=()):
    raw_in = mksample(name + ".in", w, h, "u8", "--kind", "landscape", "--values", "9")
    opts = ["--size", "%dx%d" % (w, h), "--dtype", "u8", "--frame-rows", "8"] + list(extra)
    cli(*(opts + [raw_in, path(name + ".zst")]))
    cli(*(opts + [raw_in, path(name + ".raw")]))
    ref = np.fromfile(path(name + ".raw"), dtype="<f4").reshape(h, w)
    return open(path(name + ".zst"), "rb").read(), ref


def test_header_schema():
    data, ref = make("good", 37, 30, ["--bins", "16", "--range", "0:9"])
    agree("the good file", data, True, ref)
    agree("rewritten alike", with_header(data, lambda h: None), True, ref)
    # Accepted by all: what the schema allows.
    agree("an unknown member", with_header(data, lambda h: h.update(later=[1, {"x": 2}])), True,
          ref)
    agree("width as 3.7e1", with_header(data, ('"width":\t37', '"width":\t3.7e1')), True, ref)
    agree("an even window, [4, 6]", with_header(data, lambda h: h.update(window=[4, 6])), True,
          ref)
    agree("command_line null", with_header(data, lambda h: h.update(command_line=None)), True,
          ref)
    agree("no optional member", with_header(
        data, lambda h: [h.pop(k) for k in ("dtype", "byteorder", "window", "base", "bins",
                                            "range", "nodata", "output_nodata", "source",
                                            "source_band", "source_dtype", "command_line",
                                            "version")] and None), True, ref)
    # Refused by all: each member out of its type or range.
    bad = [("dtype float64", lambda h: h.update(dtype="float64")),
           ("byteorder big", lambda h: h.update(byteorder="big")),
           ("bins 0", lambda h: h.update(bins=0)),
           ("bins 2^31", lambda h: h.update(bins=2**31)),
           ("window of 0", lambda h: h.update(window=[0, 5])),
           ("window past 255", lambda h: h.update(window=[3, 256])),
           ("window of 3", lambda h: h.update(window=[5, 5, 5])),
           ("range reversed", lambda h: h.update(range=[9, 0])),
           ("range NaN", lambda h: h.update(range=["NaN", 9])),
           ("range infinite", lambda h: h.update(range=[0, "Infinity"])),
           ("bins without range", lambda h: h.update(range=None)),
           ("bins, no range member", lambda h: h.pop("range") and None),
           ("a range, no bins member", lambda h: h.pop("bins") and None),
           ("base 3", lambda h: h.update(base="3")),
           ("nodata a word", lambda h: h.update(nodata="none")),
           ("output_nodata 0", lambda h: h.update(output_nodata=0)),
           ("source a number", lambda h: h.update(source=7)),
           ("source_band 0", lambda h: h.update(source_band=0)),
           ("source_dtype u64", lambda h: h.update(source_dtype="u64")),
           ("version null", lambda h: h.update(version=None)),
           ("width 0", lambda h: h.update(width=0)),
           ("width a text", lambda h: h.update(width="37")),
           ("height 2.5", lambda h: h.update(height=2.5)),
           ("rows_per_frame missing", lambda h: h.pop("rows_per_frame") and None),
           ("frames one more", lambda h: h.update(frames=h["frames"] + 1)),
           ("format 2", lambda h: h.update(format="winent-stream/2")),
           ("georef a list", lambda h: h.update(georef=[1])),
           ("georef geotransform of 5", lambda h: h.update(georef={"geotransform": [1] * 5})),
           ("georef geokeys -1", lambda h: h.update(georef={"geokeys": [1, 1, 0, -1]})),
           ("maps empty", lambda h: h.update(maps=[])),
           ("maps of one with 3 frames", lambda h: h.update(maps=[
               {"band": 1, "window": [5, 5], "range": [0, 9], "nodata": None,
                "first_frame": 0, "frames": 3}]))]
    for what, edit in bad:
        agree(what, with_header(data, edit), False)
    agree("a member twice", with_header(data, ('"height":', '"width":\t37,\n\t"height":')),
          False)
    agree("not an object", with_header(data, lambda h: "[1]"), False)
    # cJSON reads these; JSON (and Python's json) does not: refused by all.
    agree("width as 037", with_header(data, ('"width":\t37', '"width":\t037')), False)
    agree("width as 37.", with_header(data, ('"width":\t37', '"width":\t37.')), False)
    agree("a tab inside a text", with_header(data, lambda h: json.dumps(
        dict(h, source="a\tb"), indent="\t").replace("\\t", "\t")), False)
    agree("a \\u0000 inside a text", with_header(data, lambda h: json.dumps(
        dict(h, source="a\0b"), indent="\t")), False)
    agree("nested 100 deep", with_header(data, lambda h: json.dumps(
        dict(h, later=json.loads("[" * 100 + "]" * 100)))), False)
    agree("not UTF-8", build(parse(data)[0].encode() + b" \xff", *parse(data)[1:]), False)


def test_seek_table_and_frames():
    data, ref = make("frames", 41, 27)
    agree("the file", data, True, ref)
    agree("header entry's checksum", build(*parse(data), header_sum=0), False)
    agree("seek table descriptor 0", build(*parse(data), desc=0), False)
    agree("frame 1's checksum entry", with_entry(data, 1, checksum=0x12345678), False)
    agree("frame 2's size entry", with_entry(data, 2, dsize=8 * 41 * 4 - 4), False)
    # A frame without its checksum (the table holding its last 4 bytes).
    f0 = frame_bytes(data, 0)
    plain = zstandard.ZstdDecompressor().decompress(f0)
    no_sum = zstandard.ZstdCompressor(write_checksum=False, write_content_size=True).compress(
        plain)
    agree("a frame without checksum", with_frame(data, 0, no_sum), False)
    # Valid bytes, recompressed: accepted by all.
    again = zstandard.ZstdCompressor(level=9, write_checksum=True,
                                     write_content_size=True).compress(plain)
    agree("a frame recompressed", with_frame(data, 0, again), True, ref)
    # Bytes after the frame, inside its entry (ending with its checksum).
    agree("a frame with a tail", with_frame(data, 1, frame_bytes(data, 1) + f0[-4:]), False)
    # A skippable frame in place of a data frame.
    skip = struct.pack("<II", 0x184D2A51, len(plain)) + plain
    agree("a skippable frame for a data frame", with_frame(data, 0, skip), False)
    # A damaged byte inside frame 2.
    text, frames, entries = parse(data)
    off = entries[0][0] + entries[1][0] + entries[2][0] // 2
    dam = bytearray(frames)
    dam[off] ^= 0x40
    agree("a damaged frame", build(text, bytes(dam), entries), False)
    for cut in (1, 9, len(data) // 3, len(data) - 30, len(data) - 1):
        agree("cut at byte %d" % cut, data[:cut], False)
    agree("a byte more", data + b"\0", False)


def test_several_maps():
    w, h = 45, 21
    bands = [mksample("mb%d.raw" % b, w, h, "u8", "--kind", "landscape", "--values",
                      str(4 + 3 * b), "--seed", str(b)) for b in (1, 2)]
    bsq = path("mb.raw")
    with open(bsq, "wb") as f:
        for b in bands:
            f.write(open(b, "rb").read())
    R = ["--size", "%dx%d" % (w, h), "--dtype", "u8", "--bands", "2", "--frame-rows", "8"]
    cli(*(R + ["--band", "all", "--window", "3,7x5", bsq, path("m.zst")]))
    refs, labels = [], []
    for b in (1, 2):
        for win, lab in (("3", "w3"), ("7x5", "w7x5")):
            cli(*(R + ["--band", str(b), "--window", win, bsq, path("s.raw")]))
            refs.append(np.fromfile(path("s.raw"), "<f4").reshape(h, w))
            labels.append("b%d_%s" % (b, lab))
    stack = np.stack(refs)
    m, header = winent.read_zst(path("m.zst"))
    check("read_zst: (4, h, w), the single runs band-major", same_bits(m, stack), m.shape)
    check("the header's maps: band and window of each",
          [(e["band"], e["window"]) for e in header["maps"]] ==
          [(1, [3, 3]), (1, [7, 5]), (2, [3, 3]), (2, [7, 5])])
    with winent.open_zst(path("m.zst")) as z:
        check("open_zst: shape, ndim, len", z.shape == (4, h, w) and z.ndim == 3 and len(z) == 4)
        check("labels", z.labels == labels, z.labels)
        check("m[2]: map 3", same_bits(z[2], stack[2]))
        check("m[-1, 5:17, 3:9]", same_bits(z[-1, 5:17, 3:9], stack[-1, 5:17, 3:9]))
        check("m[1:3, ::4]", same_bits(z[1:3, ::4], stack[1:3, ::4]))
        check("m[[3, 0], 7]", same_bits(z[[3, 0], 7], stack[[3, 0], 7]))
        plane = z.map(1)
        check("map(1): band 1, window 7x5, its rows",
              plane.band == 1 and plane.window == [7, 5] and plane.label == "b1_w7x5" and
              same_bits(plane[9:20], stack[1, 9:20]) and same_bits(np.asarray(plane), stack[1]))
        got = np.zeros_like(stack)
        for k, y0, rows in z.blocks():
            got[k, y0:y0 + len(rows)] = rows
        check("blocks(): (map, first row, rows) over every map", same_bits(got, stack))
        check("numpy.asarray", same_bits(np.asarray(z), stack))
        # Several threads at once (the library reads with pread, a context
        # per frame): what dask's threads do with da.from_array(z).
        from concurrent.futures import ThreadPoolExecutor
        keys = [(k, slice(y, y + 5)) for k in range(4) for y in range(0, h, 5)] * 3
        with ThreadPoolExecutor(4) as pool:
            parts = list(pool.map(lambda key: (key, z[key]), keys))
        check("reads from 4 threads at once",
              all(same_bits(got, stack[key]) for key, got in parts))
        expect_raises("map 4 of 4: IndexError", IndexError, lambda: z[4])
    with winent.open_zst(path("good.zst")) as one:
        check("one map: 2-D, one label, its maps entry",
              one.ndim == 2 and len(one.labels) == 1 and one.maps[0]["window"] == [5, 5])
    # A map's damaged frame: named with its map by all readers alike.
    data = open(path("m.zst"), "rb").read()
    text, frames, entries = parse(data)
    i = 2 * 3 + 1  # map 2 (counted from 0, as read_frame's map), its frame 1
    off = sum(e[0] for e in entries[:i]) + entries[i][0] // 2
    dam = bytearray(frames)
    dam[off] ^= 0x10
    c, d, p, _ = verdicts("m-damaged", build(text, bytes(dam), entries))
    check("a damaged frame 1 of map 2: refused by all, named so",
          c and d and p and all("frame 1 (rows 8-15 of map 2)" in v[1] for v in (c, d, p)),
          (c, d, p))


def test_cut_while_open():
    data, ref = make("cut", 64, 64)
    p = path("cut.zst")
    with winent.open_zst(p) as m:
        check("before: rows 0-7", same_bits(m[0:8], ref[0:8]))
        os.truncate(p, len(data) // 2)
        expect_raises("cut under the open map: InputError (no SIGBUS)", winent.InputError,
                      lambda: m[60:64], status=3, contains="truncated")
        os.truncate(p, 0)
        expect_raises("cut to nothing: InputError", winent.InputError, lambda: m[10:12])
        with open(p, "wb") as f:
            f.write(data)
        check("whole again: the rows read", same_bits(m[40:64], ref[40:64]))


def test_nul_paths():
    for fn in (winent.read_zst, winent.open_zst):
        expect_raises("%s of a path with a NUL byte: ValueError" % fn.__name__, ValueError, fn,
                      path("good.zst") + "\0x")
        expect_raises("%s of bytes with a NUL byte: ValueError" % fn.__name__, ValueError, fn,
                      os.fsencode(path("good.zst")) + b"\0")


for t in (test_header_schema, test_seek_table_and_frames, test_several_maps, test_cut_while_open,
          test_nul_paths):
    run_test(t)
print("in", T)
finish()
