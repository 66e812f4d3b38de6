#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""A reader of winent-stream .zst files written apart from the C code, for
the tests: it parses the header with Python's json module and walks the
seek table the way the zstd seekable format's reference reader does
(frame offsets are sums of compressed sizes counted from the start of the
file), decoding single frames with the zstd command.

    zst_read.py header FILE            print the header JSON (strictly parsed)
    zst_read.py frame FILE I           the decompressed bytes of data frame I
                                       (found through the seek table) on stdout
    zst_read.py range FILE OFF LEN     LEN decompressed bytes from offset OFF,
                                       found as the reference reader finds them
    zst_read.py check FILE             header, seek table and frames agree
    zst_read.py map FILE M             the decompressed bytes of map M (0-based) of a
                                       file of several (the header's "maps"), found
                                       through its list and the seek table
    zst_read.py same FILE1 FILE2       the same map, byte for byte: equal frames
                                       and seek table entries, and equal headers
                                       but for "command_line" (the provenance
                                       differs with the output's name and with
                                       --threads, --mem, --device, ...)

Files written before "command_line", "source_band" and "source_dtype" joined
the header read the same: none of these keys is required here.
"""
import json
import struct
import subprocess
import sys


def fail(why):
    sys.stderr.write("zst_read.py: %s\n" % why)
    sys.exit(1)


def no_constants(name):
    fail("bare %s in the JSON header" % name)


def read_header(data):
    magic, size = struct.unpack_from("<II", data, 0)
    if magic != 0x184D2A50:
        fail("no header frame")
    text = data[8:8 + size].decode("utf-8")  # must be valid UTF-8
    return json.loads(text, parse_constant=no_constants), 8 + size


def seek_table(data):
    """Entries (c_offset, d_offset, c_size, d_size, checksum) of every frame."""
    nframes, desc, magic = struct.unpack_from("<IBI", data, len(data) - 9)
    if magic != 0x8F92EAB1:
        fail("no seekable magic at the end")
    if desc & 0x7C:
        fail("reserved descriptor bits set")
    esize = 12 if desc & 0x80 else 8
    tsize = 8 + nframes * esize + 9
    start = len(data) - tsize
    smagic, fsize = struct.unpack_from("<II", data, start)
    if smagic != 0x184D2A5E or fsize + 8 != tsize:
        fail("bad seek table frame")
    out, coff, doff = [], 0, 0
    for i in range(nframes):
        c, d = struct.unpack_from("<II", data, start + 8 + i * esize)
        s = struct.unpack_from("<I", data, start + 16 + i * esize)[0] if esize == 12 else None
        out.append((coff, doff, c, d, s))
        coff += c
        doff += d
    if coff != start:
        fail("the seek table covers %d bytes, the frames %d" % (coff, start))
    return out


def xxh64(data):
    """XXH64 (the digest zstd frames and seek tables carry), from the xxhash
    module (Debian python3-xxhash), computed apart from zstd and the C code.
    Imported here: only `check` needs it."""
    try:
        import xxhash
    except ImportError:
        fail("check needs the xxhash module (Debian python3-xxhash, tools/setup-debian.sh)")
    return xxhash.xxh64_intdigest(data)


def unzstd(frame):
    r = subprocess.run(["zstd", "-dcq"], input=frame, stdout=subprocess.PIPE, check=True)
    return r.stdout


def read_range(data, off, n):
    """What ZSTD_seekable_decompress does: the last frame whose decompressed
    offset is <= off, then frames onwards."""
    t = seek_table(data)
    lo, hi = 0, len(t)
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        if t[mid][1] <= off:
            lo = mid
        else:
            hi = mid
    out = b""
    i = lo
    while len(out) < n and i < len(t):
        coff, doff, c, d, _ = t[i]
        chunk = unzstd(data[coff:coff + c]) if d else b""
        if len(chunk) != d:
            fail("frame %d: %d bytes, the table says %d" % (i, len(chunk), d))
        skip = max(0, off - doff)
        out += chunk[skip:skip + n - len(out)]
        i += 1
    return out


def check(data):
    h, hsize = read_header(data)
    t = seek_table(data)
    if len(t) != h["frames"] + 1:
        fail("%d seek table entries for %d frames" % (len(t), h["frames"]))
    if t[0][:4] != (0, 0, hsize, 0):
        fail("the first entry is not the header frame: %r" % (t[0],))
    row = h["width"] * 4
    # Several maps: each one's frames in turn, cut alike.
    per_map = h["frames"] // len(h.get("maps", [None]))
    for i, (coff, doff, c, d, s) in enumerate(t[1:]):
        rows = min(h["rows_per_frame"], h["height"] - i % per_map * h["rows_per_frame"])
        if d != rows * row:
            fail("frame %d holds %d bytes, not %d rows" % (i, d, rows))
        frame = data[coff:coff + c]
        if struct.unpack_from("<I", frame, 0)[0] != 0xFD2FB528:
            fail("frame %d is not a zstd frame" % i)
        if not frame[4] & 0x04:
            fail("frame %d has no checksum" % i)
        if s != struct.unpack_from("<I", frame, len(frame) - 4)[0]:
            fail("frame %d: the table's checksum is not the frame's" % i)
        content = unzstd(frame)
        if len(content) != d or s != xxh64(content) & 0xFFFFFFFF:
            fail("frame %d: the checksum is not XXH64 of its content" % i)
    if t[0][4] != xxh64(b"") & 0xFFFFFFFF:
        fail("the header entry's checksum is not XXH64 of nothing")
    print("ok")


def same(a, b):
    ha, na = read_header(a)
    hb, nb = read_header(b)
    ha.pop("command_line", None)
    hb.pop("command_line", None)
    if ha != hb:
        fail("the headers differ: %r != %r" % (ha, hb))
    ta, tb = seek_table(a), seek_table(b)
    if [e[2:] for e in ta[1:]] != [e[2:] for e in tb[1:]]:
        fail("the seek tables differ")
    ea, eb = ta[-1][0] + ta[-1][2], tb[-1][0] + tb[-1][2]
    if a[na:ea] != b[nb:eb]:
        fail("the frames differ")
    print("same")


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    data = open(path, "rb").read()
    if cmd == "same":
        same(data, open(sys.argv[3], "rb").read())
        return
    if cmd == "header":
        print(json.dumps(read_header(data)[0], ensure_ascii=True))
    elif cmd == "map":
        h, _ = read_header(data)
        m = h["maps"][int(sys.argv[3])]
        size = h["width"] * h["height"] * 4
        first = m["first_frame"]
        if m["frames"] != h["frames"] // len(h["maps"]):
            fail("map %s: %d frames" % (sys.argv[3], m["frames"]))
        sys.stdout.buffer.write(read_range(data, first // m["frames"] * size, size))
    elif cmd == "frame":
        t = seek_table(data)
        coff, _, c, _, _ = t[1 + int(sys.argv[3])]
        sys.stdout.buffer.write(unzstd(data[coff:coff + c]))
    elif cmd == "range":
        sys.stdout.buffer.write(read_range(data, int(sys.argv[3]), int(sys.argv[4])))
    elif cmd == "check":
        check(data)
    else:
        fail("unknown command " + cmd)


if __name__ == "__main__":
    main()
