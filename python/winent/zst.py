# SPDX-License-Identifier: BSD-3-Clause
"""Reading the .zst maps of winent-stream: read_zst() reads a whole file,
open_zst() opens it lazily and decompresses only the frames the rows
asked for need.

The layout (docs/SPEC.md, section 4; docs/FORMATS.md):

    [skippable frame 0x184D2A50: u32 size, UTF-8 JSON header]
    [zstd frame: rows [0, R)] [zstd frame: rows [R, 2R)] ...
    [skippable frame 0x184D2A5E: the seek table of the zstd seekable format]

A file of several maps (``--band 1,3 --window 5,9``) holds their frames
one map after the other, and its header lists them (``"maps"``).
The samples are float32, or (``--ot``) float16, uint16 or uint8, whose
codes the library turns back into float32 entropy (code * "scale" +
"offset", NaN for the "output_nodata" code): the readers always return
float32.

The file is read through libwinent (``winent_zst_open``,
``winent_zst_read_frame``): the one definition of a valid file that
``winent-stream --info --check`` and ``--decode`` use too, so a damaged
or foreign file is refused by all of them or by none, with the same words.
The file is read with pread, never memory-mapped: a file cut while it is
open raises InputError, it cannot kill the process with SIGBUS. (Reading
with the zstandard module alone, without libwinent, is the recipe of
docs/FORMATS.md.)
"""
import ctypes
import json
import os
import threading

import numpy as np

from ._errors import InputError, error_for
from ._lib import lib, message_of, winent_error
from ._options import c_string


def _label(band, window, disk=None, footprint=None):
    """The CLI's name of a map: b3_w9, w7x3, b1_disk3, b1_fp4x3 (as its raw
    files are named)."""
    parts = []
    if isinstance(band, int) and not isinstance(band, bool):
        parts.append("b%d" % band)
    if isinstance(footprint, str) and isinstance(window, (list, tuple)) and len(window) == 2:
        parts.append("fp%dx%d" % (int(window[0]), int(window[1])))
    elif isinstance(disk, int) and not isinstance(disk, bool):
        parts.append("disk%d" % disk)
    elif isinstance(window, (list, tuple)) and len(window) == 2:
        kx, ky = (int(v) for v in window)
        parts.append("w%d" % kx if kx == ky else "w%dx%d" % (kx, ky))
    return "_".join(parts) or "map"


class ZstMapPlane:
    """One map of a .zst file, read lazily (``ZstMap.map(k)``; a file of
    one map reads the same way through its ZstMap): ``shape`` (height,
    width), ``m[y]``, ``m[y0:y1, x0:x1]`` (any numpy index after the
    rows), ``numpy.asarray(m)``, ``frame(i)``, ``rows(y0, y1)``,
    ``blocks()``; ``band``, ``window`` and ``label`` say which map it is."""

    def __init__(self, parent, k):
        self._parent = parent
        self.index = k
        self.info = parent.maps[k]
        self.band = self.info.get("band")
        self.window = self.info.get("window")
        self.label = parent.labels[k]
        self.shape = parent.shape[-2:]
        self.dtype = parent.dtype
        self.rows_per_frame = parent.rows_per_frame
        self.frames = parent.frames

    ndim = 2

    def __len__(self):
        return self.shape[0]

    def frame(self, i):
        return self._parent.frame(i, self.index)

    def rows(self, y0, y1):
        return self._parent.rows(y0, y1, self.index)

    def blocks(self):
        """Each frame in turn: (first row, rows as a float32 array)."""
        for i in range(self.frames):
            yield i * self.rows_per_frame, self.frame(i)

    def _gather(self, idx):
        out = np.empty((len(idx), self.shape[1]), self.dtype)
        if len(idx) == 0:
            return out
        frame_of = idx // self.rows_per_frame
        for i in np.unique(frame_of):
            sel = np.nonzero(frame_of == i)[0]
            out[sel] = self.frame(int(i))[idx[sel] - int(i) * self.rows_per_frame]
        return out

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
        return "<winent.ZstMapPlane %s of %r %dx%d>" % (self.label, self._parent.path,
                                                         self.shape[1], self.shape[0])


class ZstMap:
    """A .zst map of winent-stream, opened lazily: the header, the seek
    table and every frame's header are checked at open (as ``--info``
    checks them); rows are decompressed when asked for, one whole frame
    (``rows_per_frame`` rows) at a time, each checked as ``--info --check``
    checks it (content size, zstd's XXH64, the seek table's size and
    checksum).

    ``header`` (the JSON header as a dict), ``dtype`` (float32),
    ``rows_per_frame``, ``frames`` (of one map); ``maps`` (a dict per map:
    ``band``, ``window``, ``range``, ``nodata``, ``first_frame``,
    ``frames``) and ``labels`` (the CLI's names of the maps: ``b3_w9``).

    A file of one map is 2-D: ``shape`` (height, width), ``m[y]`` a row,
    ``m[y0:y1]`` or ``m[y0:y1, x0:x1]`` a block (any numpy index after the
    rows), ``numpy.asarray(m)`` the whole map, ``m.blocks()`` yields
    (first row, rows) frame after frame. A file of several maps is 3-D,
    band-major as the CLI made them: ``shape`` (maps, height, width),
    ``m[k]`` map k, ``m[k, y0:y1]`` its rows, ``m.map(k)`` map k read
    lazily (a :class:`ZstMapPlane`), ``m.blocks()`` yields (map, first row,
    rows). Reads are thread-safe. Close it (``with open_zst(p) as m:``).
    """

    def __init__(self, path):
        self.path = path if isinstance(path, (str, bytes)) else os.fspath(path)
        cpath = c_string("path", path)
        self._lib = lib()
        self._cond = threading.Condition()
        self._busy = 0  # reads in progress: close() waits for them
        self._cache = {}  # map: (frame index, rows), the last frame decompressed
        self._handle = None
        err = winent_error()
        handle = ctypes.c_void_p()
        st = self._lib.winent_zst_open(cpath, ctypes.byref(handle), ctypes.byref(err))
        if st != 0:
            raise error_for(st, message_of(err))
        self._handle = handle
        try:
            text = ctypes.string_at(self._lib.winent_zst_header(handle)).decode("utf-8")
            try:
                # The library held the text to RFC 8259 and the schema.
                self.header = json.loads(text)
            except (ValueError, RecursionError):
                raise InputError("%s: not a winent-stream .zst file: the header is not "
                                 "winent-stream JSON" % os.fsdecode(self.path)) from None
        except BaseException:
            self.close()
            raise
        hd = self.header
        h, w = int(hd["height"]), int(hd["width"])
        self.rows_per_frame = int(hd["rows_per_frame"])
        listed = hd.get("maps")
        if listed:
            self.maps = [dict(e) for e in listed]
        else:
            self.maps = [{"band": hd.get("source_band"), "window": hd.get("window"),
                          "range": hd.get("range"), "nodata": hd.get("nodata"),
                          "footprint": hd.get("footprint"),
                          "first_frame": 0, "frames": int(hd["frames"])}]
        self.frames = int(hd["frames"]) // len(self.maps)
        self.labels = [_label(e.get("band"), e.get("window"), e.get("disk"), e.get("footprint"))
                       for e in self.maps]
        self.shape = (h, w) if len(self.maps) == 1 else (len(self.maps), h, w)
        self.dtype = np.dtype(np.float32)

    # ---- frames ----------------------------------------------------------

    def _frame_rows(self, i):
        y0 = i * self.rows_per_frame
        return y0, min(y0 + self.rows_per_frame, self.shape[-2])

    def _decode(self, i, dest, k=0):
        """Decompress data frame ``i`` of map ``k`` into ``dest`` (a
        C-contiguous little-endian float32 array of its rows), checked by
        the library."""
        with self._cond:
            if self._handle is None:
                raise ValueError("the map is closed")
            self._busy += 1
        try:
            err = winent_error()
            st = self._lib.winent_zst_read_frame(self._handle, k, i,
                                                 dest.ctypes.data_as(ctypes.c_void_p),
                                                 ctypes.byref(err))
        finally:
            with self._cond:
                self._busy -= 1
                self._cond.notify_all()
        if st != 0:
            raise error_for(st, message_of(err))

    def _check_map(self, k):
        if not 0 <= k < len(self.maps):
            raise IndexError("map %d of %d" % (k, len(self.maps)))

    def frame(self, i, map=0):
        """The rows of data frame ``i`` (0-based) of map ``map``, a
        read-only float32 array."""
        self._check_map(map)
        if not 0 <= i < self.frames:
            raise IndexError("frame %d of %d" % (i, self.frames))
        with self._cond:
            hit = self._cache.get(map)
            if hit is not None and hit[0] == i:
                return hit[1]
        y0, y1 = self._frame_rows(i)
        rows = np.empty((y1 - y0, self.shape[-1]), "<f4")
        self._decode(i, rows, map)
        if rows.dtype != self.dtype:  # a big-endian machine
            rows = rows.astype(self.dtype)
        rows.flags.writeable = False
        with self._cond:
            self._cache[map] = (i, rows)
        return rows

    def map(self, k):
        """Map ``k`` (0-based, in the file's order) read lazily."""
        self._check_map(k)
        return ZstMapPlane(self, k)

    def blocks(self):
        """Each frame in turn, in the file's order: (first row, rows) for a
        file of one map, (map, first row, rows) for several. Streams a file
        of any size in the memory of one frame."""
        for k in range(len(self.maps)):
            for i in range(self.frames):
                y0 = self._frame_rows(i)[0]
                if len(self.maps) == 1:
                    yield y0, self.frame(i)
                else:
                    yield k, y0, self.frame(i, k)

    def rows(self, y0, y1, map=0):
        """Rows [y0, y1) of map ``map`` as a new float32 array,
        decompressing only the frames that hold them."""
        self._check_map(map)
        h, w = self.shape[-2:]
        if not 0 <= y0 <= y1 <= h:
            raise IndexError("rows %d:%d of %d" % (y0, y1, h))
        out = np.empty((y1 - y0, w), self.dtype)
        if y1 == y0:
            return out
        rpf = self.rows_per_frame
        for i in range(y0 // rpf, (y1 - 1) // rpf + 1):
            f0, f1 = self._frame_rows(i)
            a, b = max(f0, y0), min(f1, y1)
            out[a - y0:b - y0] = self.frame(i, map)[a - f0:b - f0]
        return out

    # ---- numpy's protocols --------------------------------------------------

    def __len__(self):
        return self.shape[0]

    @property
    def ndim(self):
        return len(self.shape)

    def __getitem__(self, key):
        if len(self.maps) == 1:
            return ZstMapPlane(self, 0)[key]
        if not isinstance(key, tuple):
            key = (key,)
        if not key:
            return np.asarray(self)
        first, rest = key[0], key[1:]
        n = len(self.maps)
        if first is Ellipsis:
            return np.asarray(self)[key]
        if isinstance(first, (int, np.integer)) and not isinstance(first, bool):
            k = int(first)
            if k < -n or k >= n:
                raise IndexError("map %d of %d" % (k, n))
            return ZstMapPlane(self, k % n)[rest]
        idx = np.arange(n)[first]
        if np.ndim(idx) != 1:
            raise IndexError("maps must be an integer, a slice or a 1-D index")
        planes = [np.asarray(ZstMapPlane(self, int(k))[rest]) for k in idx]
        if not planes:
            return np.empty((0,) + self.shape[1:], self.dtype)[(slice(None),) + rest]
        return np.stack(planes)

    def __array__(self, dtype=None, copy=None):
        out = np.empty(self.shape, "<f4")
        _read_all(self, out)
        out = out.astype(self.dtype, copy=False)
        return out if dtype is None else out.astype(dtype, copy=False)

    def __repr__(self):
        state = "closed " if self._handle is None else ""
        several = "" if len(self.maps) == 1 else "%d maps of " % len(self.maps)
        return "<%swinent.ZstMap %r %s%dx%d, %d frames of %d rows>" % (
            state, self.path, several, self.shape[-1], self.shape[-2], self.frames,
            self.rows_per_frame)

    # ---- closing --------------------------------------------------------------

    def close(self):
        """Close the file (arrays already returned stay valid); waits for
        reads in progress on other threads."""
        with self._cond:
            handle, self._handle = getattr(self, "_handle", None), None
            self._cache = {}
            while self._busy:
                self._cond.wait()
        if handle is not None:
            self._lib.winent_zst_close(handle)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def _read_all(m, out):
    """Every frame of every map of `m` into `out` (its shape, "<f4")."""
    planes = out if out.ndim == 3 else out[np.newaxis]
    for k in range(len(m.maps)):
        for i in range(m.frames):
            y0, y1 = m._frame_rows(i)
            m._decode(i, planes[k, y0:y1], k)


def open_zst(path):
    """Open a .zst map of winent-stream lazily: a :class:`ZstMap`. Raises
    InputError (a winent.Error) when the file is missing or not such a map,
    with the words of ``winent-stream --info``; UsageError (a ValueError)
    for a path with a NUL byte. Needs libwinent."""
    return ZstMap(path)


def read_zst(path):
    """Read a whole .zst map of winent-stream: ``(map, header)``. The map
    is a float32 array of shape (height, width), or (maps, height, width)
    for a file of several maps (``--band 1,3 --window 5,9``: band-major, in
    the order of ``header["maps"]``, whose entries give each map's
    ``band``, ``window``, ``range`` and ``nodata``). The header is the
    file's JSON header as a dict ("width", "height", "window", "base",
    "bins", "range", "nodata", "source", "command_line", "georef", "maps",
    ...; NaN and infinities are the strings "NaN", "Infinity",
    "-Infinity"). Every frame is checked as ``winent-stream --info
    --check`` checks it; InputError names a bad one. UsageError (a
    ValueError) for a path with a NUL byte. Needs libwinent."""
    with ZstMap(path) as m:
        out = np.empty(m.shape, "<f4")
        _read_all(m, out)
        return out.astype(m.dtype, copy=False), m.header
