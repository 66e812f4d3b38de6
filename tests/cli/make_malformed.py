#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Crafts the inputs of the malformed-input suite (tests/cli/test_malformed.sh),
byte by byte, with the standard library only (struct, zlib): TIFFs that lie
about themselves in every way the suite covers, a few good ones beside them
(so that a refusal is known to come from the defect, not from the writer),
and raw files.

    make_malformed.py DIR

writes the files into DIR and prints the manifest on stdout, one case a
line, fields separated by tabs:

    NAME  EXIT  INPUT  OPTIONS  MESSAGE  SAME_AS

NAME names the case; EXIT is the exit code winent-stream must give; INPUT
the file (in DIR); OPTIONS extra options ('-' for none); MESSAGE a text
the one-line error must hold ('-' for none); SAME_AS, for cases that must
succeed, the raw file and options of the same pixels (their map must be
byte-identical), '-' otherwise. Options hold no spaces inside a word.
"""
import os
import struct
import sys
import zlib

# TIFF field types
BYTE, ASCII, SHORT, LONG, DOUBLE = 1, 2, 3, 4, 12
TYPE_SIZE = {BYTE: 1, ASCII: 1, SHORT: 2, LONG: 4, DOUBLE: 8}
TYPE_FMT = {BYTE: "B", SHORT: "H", LONG: "I", DOUBLE: "d"}

# Tags
WIDTH, LENGTH, BPS, COMPRESSION, PHOTOMETRIC = 256, 257, 258, 259, 262
STRIP_OFFSETS, SPP, RPS, STRIP_COUNTS = 273, 277, 278, 279
PLANAR, TILE_W, TILE_H, TILE_OFFSETS, TILE_COUNTS = 284, 322, 323, 324, 325
SAMPLE_FORMAT = 339

OMIT = object()  # a tag value that leaves the tag out


def tiff(width, height, blocks, bps=8, spp=1, sf=1, compression=1, rps=None, tile=None,
         offsets=None, counts=None, extra=None, ifd_first=False, cut=None, e="<"):
    """A one-IFD classic TIFF: header, then the blocks (or the IFD first when
    ifd_first), then the IFD and its out-of-line values. `offsets`/`counts`
    replace the computed block arrays (OMIT drops the tag); `extra` maps
    more tags to (type, values) or OMIT; `cut` keeps only that many bytes."""
    tags = {
        WIDTH: (LONG, [width]),
        LENGTH: (LONG, [height]),
        BPS: (SHORT, [bps] * max(spp, 1)),
        COMPRESSION: (SHORT, [compression]),
        PHOTOMETRIC: (SHORT, [1]),
        SPP: (SHORT, [spp]),
        PLANAR: (SHORT, [1]),
        SAMPLE_FORMAT: (SHORT, [sf] * max(spp, 1)),
    }
    if tile:
        tags[TILE_W] = (LONG, [tile[0]])
        tags[TILE_H] = (LONG, [tile[1]])
    else:
        tags[RPS] = (LONG, [rps if rps is not None else height])
    for k, v in (extra or {}).items():
        tags[k] = v

    def ifd_bytes(ifd_at, data_at):
        real_offsets, o = [], data_at
        for b in blocks:
            real_offsets.append(o)
            o += len(b)
        t = dict(tags)
        off_tag, cnt_tag = (TILE_OFFSETS, TILE_COUNTS) if tile else (STRIP_OFFSETS, STRIP_COUNTS)
        t[off_tag] = (LONG, real_offsets if offsets is None else offsets)
        t[cnt_tag] = (LONG, [len(b) for b in blocks] if counts is None else counts)
        t = {k: v for k, v in t.items() if v is not OMIT and v[1] is not OMIT}
        n = len(t)
        out_of_line = ifd_at + 2 + 12 * n + 4
        head, tail = struct.pack(e + "H", n), b""
        for tag in sorted(t):
            typ, vals = t[tag]
            raw = b"".join(struct.pack(e + TYPE_FMT[typ], v) for v in vals)
            if len(raw) <= 4:
                head += struct.pack(e + "HHI", tag, typ, len(vals)) + raw.ljust(4, b"\0")
            else:
                head += struct.pack(e + "HHII", tag, typ, len(vals), out_of_line + len(tail))
                tail += raw
                if len(tail) % 2:
                    tail += b"\0"
        return head + struct.pack(e + "I", 0) + tail

    magic = (b"II" if e == "<" else b"MM") + struct.pack(e + "H", 42)
    data_len = sum(len(b) for b in blocks)
    if ifd_first:
        # The IFD's size does not depend on where the data goes: build once to measure.
        size = len(ifd_bytes(8, 0))
        data_at = 8 + size + (size % 2)
        ifd = ifd_bytes(8, data_at)
        out = magic + struct.pack(e + "I", 8) + ifd + b"\0" * (size % 2) + b"".join(blocks)
    else:
        ifd_at = 8 + data_len + (data_len % 2)
        out = (magic + struct.pack(e + "I", ifd_at) + b"".join(blocks) + b"\0" * (data_len % 2) +
               ifd_bytes(ifd_at, 8))
    return out[:cut] if cut is not None else out


def pixels(width, height, mod=16, seed=7):
    """Deterministic values 0..mod-1 with some structure."""
    v, out = seed, []
    for y in range(height):
        for x in range(width):
            v = (v * 1103515245 + 12345) & 0x7FFFFFFF
            out.append(((x // 3 + y // 2) + (v >> 16)) % mod)
    return out


def strips(row_bytes, rows_per_strip, height, data):
    return [data[y * row_bytes:min(y + rows_per_strip, height) * row_bytes]
            for y in range(0, height, rows_per_strip)]


def pack_bits(values, bits, width):
    """Rows of `bits`-bit samples, most significant bit first, each row
    padded to a whole byte (TIFF's packing)."""
    out = bytearray()
    for y in range(len(values) // width):
        acc, n = 0, 0
        for v in values[y * width:(y + 1) * width]:
            acc, n = (acc << bits) | v, n + bits
            while n >= 8:
                out.append((acc >> (n - 8)) & 0xFF)
                n -= 8
        if n:
            out.append((acc << (8 - n)) & 0xFF)
            acc, n = 0, 0
    return bytes(out)


def main():
    d = sys.argv[1]
    lines = []

    def case(name, want, data, opts="-", message="-", same_as="-", ext="tif"):
        path = "%s.%s" % (name, ext)
        with open(os.path.join(d, path), "wb") as f:
            f.write(data)
        lines.append("\t".join([name, str(want), path, opts, message, same_as]))

    def raw(name, data):
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)

    W, H = 20, 16
    px = pixels(W, H)
    u8 = bytes(px)
    raw("good.raw", u8)
    R = "good.raw --size %dx%d --dtype u8" % (W, H)
    s4 = strips(W, 4, H, u8)  # four strips of 4 rows

    # Controls: the writer makes files libtiff and winent-stream read.
    case("good-strips", 0, tiff(W, H, s4, rps=4), same_as=R)
    case("good-strips-ifd-first", 0, tiff(W, H, s4, rps=4, ifd_first=True), same_as=R)
    tiles = []
    for ty in range(0, H, 16):
        for tx in range(0, W, 16):
            t = bytearray(16 * 16)
            for y in range(16):
                for x in range(16):
                    if ty + y < H and tx + x < W:
                        t[y * 16 + x] = px[(ty + y) * W + tx + x]
            tiles.append(bytes(t))
    case("good-tiles", 0, tiff(W, H, tiles, tile=(16, 16)), same_as=R)
    case("good-big-endian", 0, tiff(W, H, s4, rps=4, e=">"), same_as=R)

    # Truncated files.
    case("truncated-header", 3, b"II*\x00\x08\x00")
    good = tiff(W, H, s4, rps=4)
    ifd_at = struct.unpack_from("<I", good, 4)[0]
    case("truncated-ifd", 3, good[:ifd_at + 2 + 12 * 3])
    case("ifd-past-end", 3, good[:ifd_at])
    whole = tiff(W, H, s4, rps=4, ifd_first=True)
    case("truncated-data", 3, whole[:-30], message="end of the file")
    case("truncated-data-one-byte", 3, whole[:-1], message="end of the file")

    # Blocks that are not where the file says.
    case("offset-past-end", 3, tiff(W, H, s4, rps=4, offsets=[8, 88, 1000000, 248]),
         message="end of the file")
    case("count-past-end", 3, tiff(W, H, s4, rps=4, counts=[80, 80, 80, 5000]),
         message="end of the file")
    case("offset-0-with-bytes", 3, tiff(W, H, s4, rps=4, offsets=[8, 0, 168, 248]),
         message="strip 1")
    # GDAL's SPARSE_OK blocks (offset 0, byte count 0) stay legal: the fill value.
    sparse = bytearray(u8)
    sparse[4 * W:8 * W] = bytes(4 * W)
    raw("sparse.raw", bytes(sparse))
    case("sparse-strip", 0, tiff(W, H, [s4[0], s4[2], s4[3]], rps=4,
                                 offsets=[8, 0, 88, 168], counts=[80, 0, 80, 80]),
         same_as="sparse.raw --size %dx%d --dtype u8" % (W, H))

    # Counts that disagree with the layout: libtiff pads them with zeros.
    case("strip-offsets-2-of-4", 3, tiff(W, H, s4, rps=4, offsets=[8, 88]),
         message='"StripOffsets"')
    case("strip-counts-2-of-4", 3, tiff(W, H, s4, rps=4, counts=[80, 80]),
         message='"StripByteCounts"')
    t4 = [tiles[0]] * 4
    case("tile-offsets-1-of-4", 3, tiff(32, 32, t4, tile=(16, 16), offsets=[8]),
         message='"TileOffsets"')
    case("strip-counts-missing", 3, tiff(W, H, s4, rps=4, counts=OMIT),
         message="StripByteCounts")
    # One uncompressed strip without StripByteCounts: libtiff computes the
    # count from the size, as GDAL does, and the whole strip is in the file.
    case("strip-counts-missing-one-strip", 0, tiff(W, H, [u8], counts=OMIT), same_as=R)
    case("strip-counts-missing-one-strip-short", 3, tiff(W, H, [u8], counts=OMIT,
                                                         ifd_first=True, cut=-10))

    # Impossible geometry.
    case("tile-size-0", 3, tiff(W, H, tiles, tile=(0, 16)))
    case("tile-width-2147483648", 3, tiff(W, H, tiles, tile=(1 << 31, 16), offsets=[8], counts=[256]))
    case("width-height-overflow", 3, tiff(0x7FFFFFFF, 0x7FFFFFFF, [u8], bps=64, sf=3, rps=1,
                                          offsets=[8], counts=[len(u8)]))
    case("width-height-overflow-tiled", 3, tiff(0x7FFFFFF0, 0x7FFFFFF0, [tiles[0]], bps=16,
                                                tile=(16, 16), offsets=[8], counts=[256]))
    case("width-4-billion", 3, tiff(0xFFFFFFFF, 1, [u8], rps=1))
    case("width-0", 3, tiff(0, H, s4, rps=4))

    # Sample layouts.
    v13 = pixels(W, H, mod=8192, seed=3)
    raw("bits13.raw", b"".join(struct.pack("<H", v) for v in v13))
    case("bits-13", 0, tiff(W, H, [pack_bits(v13, 13, W)], bps=13),
         same_as="bits13.raw --size %dx%d --dtype u16" % (W, H))
    case("bits-13-signed", 3, tiff(W, H, [pack_bits(v13, 13, W)], bps=13, sf=2),
         message="13-bit")
    case("bits-64-unsigned", 3, tiff(W, H, [bytes(8 * W * H)], bps=64, sf=1),
         message="64-bit integer")
    case("bits-64-signed", 3, tiff(W, H, [bytes(8 * W * H)], bps=64, sf=2),
         message="64-bit integer")
    case("complex-int", 3, tiff(W, H, [bytes(4 * W * H)], bps=32, sf=5), message="complex")
    case("complex-float", 3, tiff(W, H, [bytes(8 * W * H)], bps=64, sf=6), message="complex")
    case("samples-per-pixel-0", 3, tiff(W, H, [u8], spp=0, extra={BPS: (SHORT, [8])}))
    case("bits-0", 3, tiff(W, H, [u8], bps=0))

    # Corrupt compressed data in the last strip: found mid-run, after the
    # output was opened.
    HB = 256
    pb = pixels(W, HB)
    raw_big = bytes(pb)
    deflated = [zlib.compress(s) for s in strips(W, 16, HB, raw_big)]
    deflated[-1] = deflated[-1][:2] + bytes(b ^ 0x5A for b in deflated[-1][2:])
    case("deflate-corrupt-last-strip", 3, tiff(W, HB, deflated, rps=16, compression=8),
         message="strip 15")

    # Raw inputs: shorter than the options say (exit 3 naming both sizes),
    # longer (accepted, as GDAL's raw drivers do).
    raw_u16 = bytes(W * H * 2)
    case("raw-short", 3, raw_u16[:600], opts="--size %dx%d --dtype u16" % (W, H),
         message="640 bytes", ext="raw")
    case("raw-short-bands", 3, u8 * 2, opts="--size %dx%d --dtype u8 --bands 3" % (W, H),
         message="960 bytes", ext="raw")
    case("raw-short-header", 3, b"\0" * 10 + u8[:-1],
         opts="--size %dx%d --dtype u8 --header-bytes 10" % (W, H), message="330 bytes",
         ext="raw")
    case("raw-empty", 3, b"", opts="--size %dx%d --dtype u8" % (W, H), message="0 bytes",
         ext="raw")
    case("raw-long", 0, u8 + b"trailing bytes", opts="--size %dx%d --dtype u8" % (W, H),
         same_as=R, ext="raw")

    print("\n".join(lines))


if __name__ == "__main__":
    main()
