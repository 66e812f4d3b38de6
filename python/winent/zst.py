# SPDX-License-Identifier: BSD-3-Clause
"""Reading the .zst maps of winent-stream in pure Python (numpy and the
zstandard module; no libwinent needed).

The layout (docs/SPEC.md, section 4; src/tiles/formats/zst_format.h):

    [skippable frame 0x184D2A50: u32 size, UTF-8 JSON header]
    [zstd frame: rows [0, R)] [zstd frame: rows [R, 2R)] ...
    [skippable frame 0x184D2A5E: the seek table of the zstd seekable format]

The seek table has one entry per frame, the header frame's first
(compressed size u32, decompressed size u32, checksum u32), then the
footer: frame count u32, descriptor byte (0x80: checksums), magic
0x8F92EAB1. All little-endian. Frame i of the map holds rows
[i R, min((i + 1) R, height)) of little-endian samples of the header's
"dtype": float32, or (--ot) float16, uint16 or uint8, whose codes this
reader turns into float32 entropy (code * "scale" + "offset", NaN for the
"output_nodata" code).

read_zst() decompresses the whole map; open_zst() maps the file into
memory and decompresses only the frames the rows asked for need.
"""
import json
import mmap
import os
import stat
import struct
import threading

import numpy as np

from ._errors import InputError

HEADER_MAGIC = 0x184D2A50
SEEK_MAGIC = 0x184D2A5E
SEEKABLE_MAGIC = 0x8F92EAB1
FRAME_MAGIC = 0xFD2FB528
CHECKSUM_FLAG = 0x80
FORMAT_NAME = "winent-stream/1"
MAX_HEADER = 16 << 20
_ENTRY = 12
_FOOTER = 9
# The samples a map may hold ("dtype"; --ot), little-endian.
_STORED = {"float32": np.dtype("<f4"), "float16": np.dtype("<f2"), "uint16": np.dtype("<u2"),
           "uint8": np.dtype("u1")}


def _zstandard():
    try:
        import zstandard
    except ImportError:
        raise ImportError("winent's .zst reader needs the zstandard module (Debian: apt-get "
                          "install python3-zstandard)") from None
    return zstandard


class ZstMap:
    """A .zst map of winent-stream, opened lazily: the file is memory-mapped
    and its header and seek table checked; rows are decompressed when asked
    for, one whole frame (``rows_per_frame`` rows) at a time, through the
    seek table.

    ``shape`` (height, width), ``dtype`` (float32), ``header`` (the JSON
    header as a dict), ``rows_per_frame``, ``frames``; ``m[y]`` a row,
    ``m[y0:y1]`` or ``m[y0:y1, x0:x1]`` a block (any numpy index after the
    rows), ``numpy.asarray(m)`` the whole map, ``m.blocks()`` the frames
    one after the other. Every frame read is checked: its size against the
    seek table, its content checksum by zstd. Reads are thread-safe.
    Close it (``with open_zst(p) as m:``) to unmap the file.
    """

    def __init__(self, path):
        self.path = os.fspath(path)
        self._zstd = _zstandard()
        self._lock = threading.Lock()
        self._cache = None  # (frame index, rows): the last frame decompressed
        name = os.fsdecode(self.path)
        try:
            # O_NONBLOCK: a FIFO's open would wait for a writer.
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as e:
            raise InputError("%s: cannot open: %s" % (name, e.strerror or e)) from None
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            os.close(fd)
            raise InputError("%s: a .zst map is read from a regular file (its seek table is at "
                             "the end), not a folder, a pipe or a device" % name)
        self._file = os.fdopen(fd, "rb")
        try:
            size = st.st_size
            if size == 0:
                raise self._bad("empty")
            try:
                self._mm = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
            except (OSError, ValueError) as e:
                raise InputError("%s: cannot map it into memory: %s" % (name, e)) from None
            self._mv = memoryview(self._mm)
            self._parse(size)
        except BaseException:
            self.close()
            raise

    # ---- the layout ------------------------------------------------------

    def _bad(self, why):
        return InputError("%s: not a winent-stream .zst file: %s" % (os.fsdecode(self.path), why))

    def _u32(self, off):
        return struct.unpack_from("<I", self._mm, off)[0]

    def _parse(self, size):
        if size < 8:
            raise self._bad("truncated")
        magic, jlen = struct.unpack_from("<II", self._mm, 0)
        if magic != HEADER_MAGIC:
            raise self._bad("a zstd stream without the winent-stream header"
                            if magic == FRAME_MAGIC else "no winent-stream header")
        if jlen > MAX_HEADER or jlen > size - 8:
            raise self._bad("the header frame is truncated")
        try:
            header = json.loads(bytes(self._mv[8:8 + jlen]).decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise self._bad("the header is not winent-stream JSON") from None
        if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
            raise self._bad("the header is not winent-stream JSON")

        def count(key):
            v = header.get(key)
            return v if isinstance(v, int) and not isinstance(v, bool) else -1

        w, h, rpf, frames = count("width"), count("height"), count("rows_per_frame"), \
            count("frames")
        if (w < 1 or h < 1 or rpf < 1 or frames < 0 or w > 2**31 - 1 or h > 2**31 - 1 or
                frames != (h + rpf - 1) // rpf):
            raise self._bad("the header's sizes do not add up")
        stored = _STORED.get(header.get("dtype", "float32"))
        if stored is None or header.get("byteorder", "little") != "little":
            raise self._bad("samples of %s %s, not float32, float16, uint16 or uint8 "
                            "little-endian" % (header.get("dtype"), header.get("byteorder")))
        if stored.kind == "u":
            scale, offset = header.get("scale"), header.get("offset", 0)
            if not (isinstance(scale, (int, float)) and scale > 0 and
                    isinstance(offset, (int, float))):
                raise self._bad("an integer map without a positive scale")
            self._unscale = (float(scale), float(offset), np.iinfo(stored).max)
        header_end = 8 + jlen

        # The seek table, from the end.
        if size < header_end + 8 + _FOOTER:
            raise self._bad("truncated (no seek table)")
        nentries, desc, smagic = struct.unpack_from("<IBI", self._mm, size - _FOOTER)
        if smagic != SEEKABLE_MAGIC:
            raise self._bad("truncated (no seek table at the end)")
        if desc != CHECKSUM_FLAG:
            raise self._bad("unexpected seek table descriptor")
        if nentries != frames + 1:
            raise self._bad("the seek table does not list the header's frames")
        tsize = 8 + nentries * _ENTRY + _FOOTER
        if tsize > size - header_end:
            raise self._bad("the seek table is truncated")
        tstart = size - tsize
        if self._u32(tstart) != SEEK_MAGIC or self._u32(tstart + 4) != tsize - 8:
            raise self._bad("the seek table frame is damaged")
        entries = np.frombuffer(self._mm, dtype="<u4", count=nentries * 3,
                                offset=tstart + 8).reshape(nentries, 3).astype(np.int64)
        if entries[0, 0] != header_end or entries[0, 1] != 0:
            raise self._bad("the seek table does not start with the header frame")
        offsets = np.concatenate(([0], np.cumsum(entries[:, 0])))
        if offsets[-1] != tstart:
            raise self._bad("the seek table does not match the zstd frames")
        rows = np.minimum(rpf, h - np.arange(frames, dtype=np.int64) * rpf)
        if frames and not np.array_equal(entries[1:, 1], rows * w * stored.itemsize):
            raise self._bad("a frame of the seek table does not hold its band of rows")
        for i in range(frames):
            off = int(offsets[i + 1])
            if entries[i + 1, 0] < 4 or self._u32(off) != FRAME_MAGIC:
                raise self._bad("the seek table does not match the zstd frames")
        self.header = header
        self.shape = (h, w)
        self.dtype = np.dtype(np.float32)
        self._stored = stored  # the file's samples (float32 unless --ot)
        self.rows_per_frame = rpf
        self.frames = frames
        self._offsets = offsets[1:-1]  # data frame i starts at _offsets[i]
        self._csizes = entries[1:, 0]
        self._checksums = entries[1:, 2]

    # ---- frames ----------------------------------------------------------

    def _frame_rows(self, i):
        y0 = i * self.rows_per_frame
        return y0, min(y0 + self.rows_per_frame, self.shape[0])

    def _decode(self, i, dest):
        """Decompress data frame ``i`` into ``dest`` (an array of its rows,
        little-endian float32), checking its size against the seek table
        and, by zstd, its content checksum."""
        with self._lock:
            mv = self._mv
            if mv is None:
                raise ValueError("the map is closed")
        off, c = int(self._offsets[i]), int(self._csizes[i])
        y0, y1 = self._frame_rows(i)
        where = "%s: frame %d (rows %d-%d) at byte %d" % (os.fsdecode(self.path), i, y0, y1 - 1,
                                                          off)
        out = memoryview(dest).cast("B")
        want, got = len(out), 0
        src = mv[off:off + c]
        reader = None
        try:
            if struct.unpack_from("<I", src, c - 4)[0] != self._checksums[i]:
                raise InputError("%s: the seek table's checksum is not the frame's" % where)
            # Straight into the rows (no bytes object in between); one byte
            # more is asked for so that zstd reaches the frame's end and
            # checks its checksum.
            reader = self._zstd.ZstdDecompressor().stream_reader(src)
            while got < want:
                k = reader.readinto(out[got:])
                if k == 0:
                    break
                got += k
            extra = len(reader.read(1)) if got == want else 0
        except self._zstd.ZstdError as e:
            raise InputError("%s: %s" % (where, e)) from None
        finally:
            del reader  # it holds a view of the mapped file until it goes
            out.release()
            src.release()
        if got != want or extra:
            raise InputError("%s: %s bytes, the seek table says %d"
                             % (where, "more than %d" % got if extra else got, want))

    def frame(self, i):
        """The rows of data frame ``i`` (0-based), a read-only float32 array."""
        if not 0 <= i < self.frames:
            raise IndexError("frame %d of %d" % (i, self.frames))
        with self._lock:
            if self._cache is not None and self._cache[0] == i:
                return self._cache[1]
        y0, y1 = self._frame_rows(i)
        rows = np.empty((y1 - y0, self.shape[1]), self._stored)
        self._decode(i, rows)
        rows = self._as_float(rows)
        rows.flags.writeable = False
        with self._lock:
            self._cache = (i, rows)
        return rows

    def _as_float(self, stored):
        """The file's samples as float32 entropy: integer codes scaled (NaN
        for the nodata code), float16 widened; float32 as it is."""
        if stored.dtype.kind == "u":
            scale, offset, nodata = self._unscale
            out = (stored * scale + offset).astype(self.dtype)
            out[stored == nodata] = np.nan
            return out
        return stored if stored.dtype == self.dtype else stored.astype(self.dtype)

    def blocks(self):
        """Each frame in turn: (first row, rows as a float32 array). Streams
        a map of any size in the memory of one frame."""
        for i in range(self.frames):
            yield self._frame_rows(i)[0], self.frame(i)

    def rows(self, y0, y1):
        """Rows [y0, y1) as a new float32 array, decompressing only the
        frames that hold them."""
        h, w = self.shape
        if not 0 <= y0 <= y1 <= h:
            raise IndexError("rows %d:%d of %d" % (y0, y1, h))
        out = np.empty((y1 - y0, w), self.dtype)
        if y1 == y0:
            return out
        rpf = self.rows_per_frame
        for i in range(y0 // rpf, (y1 - 1) // rpf + 1):
            f0, f1 = self._frame_rows(i)
            a, b = max(f0, y0), min(f1, y1)
            out[a - y0:b - y0] = self.frame(i)[a - f0:b - f0]
        return out

    def _gather(self, idx):
        out = np.empty((len(idx), self.shape[1]), self.dtype)
        if len(idx) == 0:
            return out
        frame_of = idx // self.rows_per_frame
        for i in np.unique(frame_of):
            sel = np.nonzero(frame_of == i)[0]
            out[sel] = self.frame(int(i))[idx[sel] - int(i) * self.rows_per_frame]
        return out

    # ---- numpy's protocols --------------------------------------------------

    def __len__(self):
        return self.shape[0]

    @property
    def ndim(self):
        return 2

    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        if not key:
            return self.rows(0, self.shape[0])
        rowkey, rest = key[0], key[1:]
        if rowkey is Ellipsis:
            return self.rows(0, self.shape[0])[key]
        h = self.shape[0]
        if isinstance(rowkey, slice):
            start, stop, step = rowkey.indices(h)
            if step == 1:
                block = self.rows(start, max(start, stop))
            else:
                block = self._gather(np.arange(start, stop, step))
        elif isinstance(rowkey, (int, np.integer)) and not isinstance(rowkey, bool):
            y = int(rowkey)
            if y < -h or y >= h:
                raise IndexError("row %d of a map of %d rows" % (y, h))
            y %= h
            row = self.rows(y, y + 1)[0]
            return row[rest] if rest else row
        else:
            idx = np.arange(h)[np.asarray(rowkey)]
            if idx.ndim != 1:
                raise IndexError("rows must be an integer, a slice or a 1-D index")
            block = self._gather(idx)
        return block[(slice(None),) + rest] if rest else block

    def __array__(self, dtype=None, copy=None):
        a = self.rows(0, self.shape[0])
        return a if dtype is None else a.astype(dtype, copy=False)

    def __repr__(self):
        state = "closed " if self._mv is None else ""
        return "<%swinent.ZstMap %r %dx%d, %d frames of %d rows>" % (
            state, self.path, self.shape[1], self.shape[0], self.frames, self.rows_per_frame)

    # ---- closing --------------------------------------------------------------

    def close(self):
        """Unmap the file (arrays already returned stay valid)."""
        with self._lock:
            self._cache = None
            mv, self._mv = getattr(self, "_mv", None), None
        if mv is not None:
            mv.release()
        mm = getattr(self, "_mm", None)
        if mm is not None:
            mm.close()
            self._mm = None
        f = getattr(self, "_file", None)
        if f is not None:
            f.close()
            self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def open_zst(path):
    """Open a .zst map of winent-stream lazily: a :class:`ZstMap`. Raises
    InputError (a winent.Error) when the file is missing or not such a map."""
    return ZstMap(path)


def read_zst(path):
    """Read a whole .zst map of winent-stream: ``(map, header)``, the map a
    float32 array of shape (height, width), the header the file's JSON
    header as a dict ("width", "height", "window", "base", "bins",
    "range", "nodata", "source", "command_line", "georef", ...; NaN and
    infinities are the strings "NaN", "Infinity", "-Infinity"). Every
    frame's size and checksum is checked; InputError names a bad one."""
    with ZstMap(path) as m:
        out = np.empty(m.shape, "<f4")
        for i in range(m.frames):
            y0, y1 = m._frame_rows(i)
            if m._stored == np.dtype("<f4"):
                m._decode(i, out[y0:y1])
            else:
                rows = np.empty((y1 - y0, m.shape[1]), m._stored)
                m._decode(i, rows)
                out[y0:y1] = m._as_float(rows)
        return out.astype(m.dtype, copy=False), m.header
