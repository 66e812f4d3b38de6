# SPDX-License-Identifier: BSD-3-Clause
"""make_tiff_streams.py DIR: small one-tile TIFFs whose compressed stream is
whole, or corrupt where libtiff alone would not look (tests/tiff/
test_tiff_streams.sh). Each file is a 64 x 48 u8 image in one 64 x 48 tile
(or one strip), written byte by byte here so that the stream is exactly
the one wanted. Writes DIR/NAME.tif and DIR/cases (NAME EXPECTED lines:
ok, or bad)."""
import struct
import sys
import zlib

d = sys.argv[1]
W, H = 64, 48
pixels = bytes((x * 7 + y * 3) % 13 for y in range(H) for x in range(W))


def tiff(name, stream, comp, tiled=True, nodata=None, size=None):
    """A little-endian TIFF holding `stream` as its one block."""
    W, H = size or (globals()['W'], globals()['H'])
    tags = [(256, 3, 1, W), (257, 3, 1, H), (258, 3, 1, 8), (259, 3, 1, comp),
            (262, 3, 1, 1), (277, 3, 1, 1)]
    if tiled:
        tags += [(322, 3, 1, W), (323, 3, 1, H), (324, 4, 1, 'OFF'), (325, 4, 1, len(stream))]
    else:
        tags += [(273, 4, 1, 'OFF'), (278, 3, 1, H), (279, 4, 1, len(stream))]
    extra = b''
    if nodata is not None:
        extra = nodata.encode() + b'\0'
        tags.append((42113, 2, len(extra), 'EXTRA'))
    tags.sort()
    ifd_at = 8
    ifd_len = 2 + 12 * len(tags) + 4
    extra_at = ifd_at + ifd_len
    data_at = extra_at + len(extra) + (len(extra) & 1)
    out = bytearray(b'II*\0' + struct.pack('<I', ifd_at))
    out += struct.pack('<H', len(tags))
    for tag, typ, count, value in tags:
        if value == 'OFF':
            value = data_at
        if value == 'EXTRA':
            if count <= 4:
                out += struct.pack('<HHI', tag, typ, count) + extra.ljust(4, b'\0')
                continue
            value = extra_at
        fmt = '<HHIHH' if typ == 3 else '<HHII'
        out += struct.pack(fmt, tag, typ, count, value, 0) if typ == 3 else \
            struct.pack(fmt, tag, typ, count, value)
    out += struct.pack('<I', 0)
    out += extra + (b'\0' if len(extra) & 1 else b'')
    assert len(out) == data_at
    out += stream
    with open(f'{d}/{name}.tif', 'wb') as f:
        f.write(out)


def lzw(data):
    """TIFF LZW (MSB first; the decoder, one entry behind, widens one code early)."""
    table = {bytes([i]): i for i in range(256)}
    nxt, width, bits, nbits = 258, 9, 0, 0
    out = bytearray()

    def put(code):
        nonlocal bits, nbits, width
        bits = (bits << width) | code
        nbits += width
        while nbits >= 8:
            out.append((bits >> (nbits - 8)) & 0xFF)
            nbits -= 8
    put(256)
    w = b''
    for c in data:
        wc = w + bytes([c])
        if wc in table:
            w = wc
            continue
        put(table[w])
        table[wc] = nxt
        nxt += 1
        if nxt > (1 << width) - 1 and width < 12:
            width += 1
        if nxt >= 4093:
            put(256)
            table = {bytes([i]): i for i in range(256)}
            nxt, width = 258, 9
        w = bytes([c])
    if w:
        put(table[w])
    put(257)
    if nbits:
        out.append((bits << (8 - nbits)) & 0xFF)
    return bytes(out)


cases = []
good = zlib.compress(pixels, 6)
tiff('deflate-ok', good, 8)
cases.append(('deflate-ok', 'ok'))
tiff('deflate-strip-ok', good, 32946, tiled=False)
cases.append(('deflate-strip-ok', 'ok'))
# 30 bytes more than the tile: libtiff stops when the tile is full.
shifted = pixels[:W * H - 100] + bytes(30) + pixels[W * H - 100:]
tiff('deflate-longer', zlib.compress(shifted, 6), 8)
cases.append(('deflate-longer', 'bad'))
tiff('deflate-strip-longer', zlib.compress(shifted, 6), 8, tiled=False)
cases.append(('deflate-strip-longer', 'bad'))
# The adler32 checksum of other data (the stream itself decodes whole).
bad_sum = bytearray(good)
bad_sum[-1] ^= 0x5A
tiff('deflate-adler32', bytes(bad_sum), 8)
cases.append(('deflate-adler32', 'bad'))
# The stream cut before its checksum.
tiff('deflate-cut', good[:-4], 8)
cases.append(('deflate-cut', 'bad'))
# A stored (uncompressed) deflate block with a changed byte: only the
# checksum can tell.
stored = zlib.compressobj(0)
stored = stored.compress(pixels) + stored.flush()
flipped = bytearray(stored)
flipped[len(flipped) // 2] ^= 0x01
tiff('deflate-stored-flip', bytes(flipped), 8)
cases.append(('deflate-stored-flip', 'bad'))
tiff('lzw-ok', lzw(pixels), 5)
cases.append(('lzw-ok', 'ok'))
tiff('lzw-longer', lzw(shifted), 5)
cases.append(('lzw-longer', 'bad'))
try:
    import zstandard
    zc = zstandard.ZstdCompressor(write_checksum=True, write_content_size=True)
    z = zc.compress(pixels)
    tiff('zstd-ok', z, 50000)
    cases.append(('zstd-ok', 'ok'))
    zb = bytearray(z)
    zb[-1] ^= 0x5A
    tiff('zstd-checksum', bytes(zb), 50000)
    cases.append(('zstd-checksum', 'bad'))
    tiff('zstd-longer', zc.compress(shifted), 50000)
    cases.append(('zstd-longer', 'bad'))
except ImportError:
    pass
# PackBits (literal runs) holding 30 bytes more than the tile: libtiff
# discards them with a warning, and the pixels are shifted.
def packbits(data):
    out = bytearray()
    for i in range(0, len(data), 128):
        chunk = data[i:i + 128]
        out.append(len(chunk) - 1)
        out += chunk
    return bytes(out)


tiff('packbits-ok', packbits(pixels), 32773)
cases.append(('packbits-ok', 'ok'))
tiff('packbits-longer', packbits(shifted), 32773)
cases.append(('packbits-longer', 'bad'))
# LZMA (.xz per block, as libtiff writes it, with a CRC64 check here).
import lzma
good_xz = lzma.compress(pixels, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64)
tiff('lzma-ok', good_xz, 34925)
cases.append(('lzma-ok', 'ok'))
tiff('lzma-longer', lzma.compress(shifted, format=lzma.FORMAT_XZ), 34925)
cases.append(('lzma-longer', 'bad'))
bad_xz = bytearray(good_xz)
bad_xz[-20] ^= 0x5A  # in the CRC64 after the block, or the index
tiff('lzma-check', bytes(bad_xz), 34925)
cases.append(('lzma-check', 'bad'))
# GDAL_NODATA: a number, or not.
tiff('nodata-ok', good, 8, nodata=' 3 ')
cases.append(('nodata-ok', 'ok'))
tiff('nodata-word', good, 8, nodata='abc')
cases.append(('nodata-word', 'bad'))
tiff('nodata-trailing', good, 8, nodata='5x')
cases.append(('nodata-trailing', 'bad'))
# One strip of 4000 x 2000 (8 MB decoded): read in slices of rows under a
# small --mem (the test gives it), its stream checked a piece at a time.
BW, BH = 4000, 2000
big = bytes((x * 7 + y * 3) % 13 for y in range(BH) for x in range(BW))
tiff('big-deflate-ok', zlib.compress(big, 6), 8, tiled=False, size=(BW, BH))
cases.append(('big-deflate-ok', 'ok'))
big_shifted = big[:BW * BH - 100] + bytes(30) + big[BW * BH - 100:]
tiff('big-deflate-longer', zlib.compress(big_shifted, 6), 8, tiled=False, size=(BW, BH))
cases.append(('big-deflate-longer', 'bad'))
bz = bytearray(zlib.compress(big, 6))
bz[-2] ^= 0x21
tiff('big-deflate-adler32', bytes(bz), 8, tiled=False, size=(BW, BH))
cases.append(('big-deflate-adler32', 'bad'))
tiff('big-lzw-longer', lzw(big_shifted), 5, tiled=False, size=(BW, BH))
cases.append(('big-lzw-longer', 'bad'))
try:
    import zstandard
    zc = zstandard.ZstdCompressor(write_checksum=True, write_content_size=True)
    zb = bytearray(zc.compress(big))
    zb[-1] ^= 0x5A
    tiff('big-zstd-checksum', bytes(zb), 50000, tiled=False, size=(BW, BH))
    cases.append(('big-zstd-checksum', 'bad'))
    tiff('big-zstd-ok', zc.compress(big), 50000, tiled=False, size=(BW, BH))
    cases.append(('big-zstd-ok', 'ok'))
except ImportError:
    pass
with open(f'{d}/cases', 'w') as f:
    f.writelines(f'{n} {e}\n' for n, e in cases)
