# SPDX-License-Identifier: BSD-3-Clause
"""Jobs on files and streams: the job handle of libwinent (winent_job_create,
winent_job_run, winent_job_cancel, winent_job_get_stats, winent_job_free)
with a progress callback, cancellation and Ctrl-C."""
import collections
import ctypes
import math
import numbers
import os
import re
import sys
import threading
import warnings

from . import _lib
from ._errors import OK, Cancelled, UsageError, error_for
from ._options import (as_float, as_int, c_string, fill_compute, measure_list, pair_options,
                       refuse, window_spec)
from ._warnings import Warning


class Notice(Warning):
    """A notice of a job (a GPU that fell back to the CPU, samples clamped
    by ``range``, a pipe copied to a temporary file): the line the CLI
    prints on standard error, given as a warning when no ``notice``
    callable is set."""


class Progress(collections.namedtuple("Progress", "rows_done rows_total width seconds")):
    """What the progress callback gets: rows written of the map's total,
    its width, seconds since the start."""

    __slots__ = ()

    @property
    def fraction(self):
        """Rows done over rows in all, 0.0 .. 1.0."""
        return self.rows_done / self.rows_total if self.rows_total else 1.0


def _path(name, value):
    if value is None:
        return None
    return c_string(name, value)


def _choice(name, value, table):
    """A word option's value: one of `table`'s words, else the library's line."""
    if not isinstance(value, str) or value not in table:
        refuse(name, value)
    return table[value]


def _out_type_name(value):
    """ot="uint16" (the CLI's --ot names) or a numpy dtype (np.uint16,
    "float16", ...): the --ot name; anything else as given (refused by
    _choice with the names)."""
    if isinstance(value, str):
        return value
    try:
        import numpy as np
        return np.dtype(value).name
    except (TypeError, ImportError):
        return value


# What the CLI's strtod, then a unit and "B"/"iB", read as a whole size
# (src/cli/options.c, parse_size): leading C white space, a decimal or
# hexadecimal number, inf or nan; nothing after.
_SIZE = re.compile(r"[ \t\n\v\f\r]*([+-]?(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)"
                   r"(?:[pP][+-]?[0-9]+)?|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|"
                   r"(?i:inf(?:inity)?|nan)))([kKmMgGtT]?)((?i:i?b)?)")


def _number(text):
    """The float of a number _SIZE matched (a hexadecimal one too)."""
    t = text.lstrip("+-")
    v = float.fromhex(t) if t[:2] in ("0x", "0X") else float(t)
    return -v if text.startswith("-") else v


def parse_size(name, value):
    """A byte count: an int, or a string as the CLI's --mem takes ("512M",
    "4G", "1.5G": binary units). What the CLI would refuse as no size (not
    a number, not above 0, 1.8e19 or more) is refused with the library's
    line for the option."""
    if isinstance(value, bool):
        refuse(name, value)
    if isinstance(value, str):
        if name == "header_bytes" and value == "0":
            return 0  # as the CLI's --header-bytes 0
        m = _SIZE.fullmatch(value)
        if not m:
            refuse(name, value)
        v = _number(m.group(1)) * 1024 ** " KMGT".index(m.group(2).upper() or " ")
    elif isinstance(value, numbers.Integral):
        v = int(value)
    elif isinstance(value, numbers.Real):
        v = float(value)
    else:
        refuse(name, value)
    # Less than a byte would be 0, the library's "automatic": no size, as
    # the CLI says (mem=0 too: None asks for the default).
    if not 1 <= v < 1.8e19:  # NaN too
        refuse(name, value)
    return int(v)


def _dtype_name(value):
    """dtype="u16" (the CLI's names) or a numpy dtype: (winent_dtype, big endian
    or None when the dtype does not say)."""
    if isinstance(value, str) and value in _lib.DTYPES:
        return _lib.DTYPES.index(value), None
    try:
        import numpy as np
        dt = np.dtype(value)
    except (TypeError, ImportError):
        dt = None
    names = {"u1": "u8", "i1": "i8", "u2": "u16", "i2": "i16", "u4": "u32", "i4": "i32",
             "f4": "f32", "f8": "f64"}
    key = None if dt is None else names.get("%s%d" % (dt.kind, dt.itemsize))
    if key is None:
        refuse("dtype", value)
    big = None
    if dt.byteorder in "<>" and dt.itemsize > 1:
        big = dt.byteorder == ">"
    elif dt.byteorder == "=" and dt.itemsize > 1:
        big = sys.byteorder == "big"
    return _lib.DTYPES.index(key), big


def _range_figures(c):
    """The --bins/--range figures of a job or of one of its bands (the
    fields winent_job_stats and winent_band_counts share), as --stats
    prints them."""
    valid = c.valid_samples
    return {
        "range": [c.range_lo, c.range_hi],
        "range_from": c.range_from.decode("utf-8", "replace"),
        "samples": None if math.isnan(c.samples_min) else [c.samples_min, c.samples_max],
        "clamped": {
            "below": c.clamped_below,
            "above": c.clamped_above,
            "valid": valid,
            "percent": 100.0 * (c.clamped_below + c.clamped_above) / valid if valid else 0.0,
        },
    }


def _stats_dict(s, notices):
    """winent_job_stats as the dictionary the CLI's --stats prints (and
    "gpus", "notices")."""
    stages = {}
    for name in ("read", "compute", "encode", "write"):
        st = getattr(s, name)
        stages[name] = {"threads": st.threads, "busy_s": st.busy_s, "wait_s": st.wait_s}
    d = {
        "wall_s": s.wall_s,
        "setup_s": s.setup_s,
        "pixels": s.pixels,
        "mpixel_per_s": s.pixels / s.wall_s / 1e6 if s.wall_s > 0 else 0.0,
        "bytes_in": s.bytes_in,
        "bytes_out": s.bytes_out,
        "engine": s.engine.decode("utf-8", "replace"),
        "chunk_rows": s.chunk_rows,
        "chunks": s.chunks,
        "gpus": s.gpus,
        "stages": stages,
        "range": None,
        "range_from": None,
        "samples": None,
        "clamped": None,
    }
    if s.range_counted:
        d.update(_range_figures(s))
    if s.nbands > 1:
        # Several bands read: the figures above are the first band's.
        d["maps"] = s.maps
        d["bands"] = []
        for b in s.band[:min(s.nbands, _lib.STATS_BANDS)]:
            e = {"band": b.band, "range": None, "clamped": None}
            if s.range_counted:
                e.update(_range_figures(b))
            d["bands"].append(e)
    d["notices"] = list(notices)
    return d


def print_progress(p):
    """The CLI's progress line on standard error (progress=True)."""
    mpx = p.rows_done * p.width / p.seconds / 1e6 if p.seconds > 0 else 0.0
    frac = p.fraction
    eta = p.seconds * (1.0 - frac) / frac if frac > 0 else 0.0
    sys.stderr.write("\rwinent: %d/%d rows (%3.0f%%), %.1f Mpixel/s, ETA %d:%02d   "
                     % (p.rows_done, p.rows_total, 100.0 * frac, mpx, int(eta / 60),
                        int(eta) % 60))
    if p.rows_done >= p.rows_total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def _refuse_with_decode(**given):
    """What the CLI refuses with --decode, by its name, in its order: a
    value given is refused even where it is the default. (The library's
    line for such an option: it cannot tell a default given from one left
    out.)"""
    for name, v in given.items():
        if v is not None:
            raise UsageError("%s does not go with decode=True: the map is computed "
                             "already (only the output and running options apply)" % name)


def _fill_layout(o, keep, size, dtype, byteorder, bands, band, interleave, header_bytes):
    """The raw input's layout and the bands read, into winent_job_opts `o`
    (`keep` holds the arrays the fields point at)."""
    if size is not None:
        if isinstance(size, str):
            # As the CLI reads --size: two whole numbers (C's strtol:
            # ASCII digits, leading white space) around one x or X.
            m = re.fullmatch(r"([ \t\n\v\f\r]*[+-]?[0-9]+)[xX]([ \t\n\v\f\r]*[+-]?[0-9]+)",
                             size)
            if not m:
                refuse("size", size)
            size = (int(m.group(1)), int(m.group(2)))
        if not isinstance(size, (tuple, list)) or len(size) != 2:
            refuse("size", size)
        # 0 is the C fields' "no size": given, it is no size.
        o.width = as_int("size", size[0], lo=1, shown=repr(tuple(size)))
        o.height = as_int("size", size[1], lo=1, shown=repr(tuple(size)))
    big = None
    if dtype is not None:
        o.compute.dtype, big = _dtype_name(dtype)
        o.dtype_given = 1
    if byteorder is not None:
        big = _choice("byteorder", byteorder, {"little": False, "big": True})
    if big is not None:
        o.big_endian = int(big)
    if bands is not None:
        o.bands = as_int("bands", bands)
    if isinstance(band, str) and band == "all":
        o.band_all = 1
    elif isinstance(band, (list, tuple)):
        items = [as_int("band", b, shown=repr(band)) for b in band]
        if not items:
            refuse("band", band)
        o.band = items[0]
        if len(items) > 1:
            arr = (ctypes.c_int * len(items))(*items)
            keep.append(arr)
            o.band_list = ctypes.cast(arr, ctypes.POINTER(ctypes.c_int))
            o.nband_list = len(items)
    elif band is not None:
        o.band = as_int("band", band)
    if interleave is not None:
        o.interleave = _choice("interleave", interleave, _lib.INTERLEAVES)
    if header_bytes is not None:
        # 0 as the CLI's "--header-bytes 0"; any other size as --mem's.
        zero = header_bytes == "0" or (isinstance(header_bytes, numbers.Integral) and
                                       not isinstance(header_bytes, bool) and
                                       header_bytes == 0)
        o.header_bytes = 0 if zero else parse_size("header_bytes", header_bytes)


def _fill_windows(o, keep, windows):
    """windows=[...]: the first into o.compute, the list into the job's."""
    if windows is not None:
        if isinstance(windows, (str, bytes)) or not hasattr(windows, "__iter__") or \
                (isinstance(windows, tuple) and len(windows) == 2 and windows[0] == "disk"):
            windows = [windows]  # windows=9 (or "7x3", ("disk", 3)): one window, as [9]
        sides = [window_spec(5 if w is None else w) for w in windows]
        if not sides:
            refuse("windows", windows)
        o.compute.kx, o.compute.ky, o.compute.disk = sides[0]
        if len(sides) > 1:
            arr = (ctypes.c_int * (2 * len(sides)))(*[v for w in sides for v in w[:2]])
            disks = (ctypes.c_int * len(sides))(*[w[2] for w in sides])
            keep.extend([arr, disks])
            o.window_list = ctypes.cast(arr, ctypes.POINTER(ctypes.c_int))
            o.window_disk = ctypes.cast(disks, ctypes.POINTER(ctypes.c_int))
            o.nwindow_list = len(sides)


def _fill_output(o, cstr, format, level, frame_rows, tile, compress, tif_layout, bigtiff, ot,
                 preview, preview_size, preview_range, sidecar, decode):
    """The output's options and the preview's, into winent_job_opts `o`."""
    if format is not None:
        o.format = _choice("format", format, _lib.FORMATS)
    if level is not None:
        o.level = as_int("level", level, nonzero=True)
    if frame_rows is not None:
        o.frame_rows = as_int("frame_rows", frame_rows, nonzero=True)
    if tile is not None:
        o.tile = as_int("tile", tile, nonzero=True)
    if compress is not None:
        o.compress = _choice("compress", compress, _lib.COMPRESSIONS)
    if tif_layout is not None:
        o.tif_layout = _choice("tif_layout", tif_layout, _lib.TIF_LAYOUTS)
    o.bigtiff = int(bool(bigtiff))
    if ot is not None:
        o.out_type = _choice("ot", _out_type_name(ot), _lib.OUT_TYPES)
    o.preview = cstr(_path("preview", preview))
    if preview_size is not None:
        o.preview_size = as_int("preview_size", preview_size, nonzero=True)
    if preview_range is not None:
        if isinstance(preview_range, (str, bytes)) or not hasattr(preview_range, "__len__") \
                or len(preview_range) != 2:
            refuse("preview_range", preview_range)
        o.preview_range = 1
        o.preview_lo = as_float("preview_range", preview_range[0], preview_range)
        o.preview_hi = as_float("preview_range", preview_range[1], preview_range)
    o.sidecar = int(bool(sidecar))
    o.decode = int(bool(decode))


def _fill_measures(o, keep, measure, distances, angles, symmetric):
    """measure= (one name or a list, as --measure) and the co-occurrence
    pairs' options into winent_job_opts `o`: the first measure in
    o.compute, the list in the job's; the pairs' distance, angles and
    symmetry in o.compute, which every co-occurrence measure of the job
    reads (the library checks them with each measure, and ignores them
    for the others, as the CLI's --distance)."""
    d, bits, asym = pair_options(1 if distances is None else distances, angles,
                                 True if symmetric is None else symmetric)
    if measure is not None:
        ms = measure_list("measure", measure, (d, bits, asym))
        o.compute.measure, o.compute.renyi_q = ms[0][0], ms[0][1]
        if len(ms) > 1:
            codes = (ctypes.c_int * len(ms))(*[m[0] for m in ms])
            qs = (ctypes.c_double * len(ms))(*[m[1] for m in ms])
            keep.extend([codes, qs])
            o.measure_list = ctypes.cast(codes, ctypes.POINTER(ctypes.c_int))
            o.measure_q = ctypes.cast(qs, ctypes.POINTER(ctypes.c_double))
            o.nmeasure_list = len(ms)
    o.compute.glcm_distance, o.compute.glcm_angles, o.compute.glcm_asymmetric = d, bits, asym


class Job:
    """One job of winent-stream: INPUT -> entropy map -> OUTPUT, as the CLI
    ``winent-stream [options] INPUT OUTPUT`` runs it, in this process.

    The keyword arguments are the CLI's options (``frame_rows`` for
    ``--frame-rows``, ...); see :func:`winent.run`. Creating the job checks
    them (UsageError, with the CLI's message); :meth:`run` runs it once.

    Stopping it: :meth:`cancel` from any thread (or a signal handler);
    the progress callback returning ``False``; the progress (or notice)
    callback raising an exception; Ctrl-C while :meth:`run` waits. The job
    then stops at once, removes its temporary output (an existing file at
    the output's name is left as it was) and :meth:`run` raises
    :class:`Cancelled`, the callback's exception, or KeyboardInterrupt.

    A Job holds a C handle: use it in a ``with`` block, or call
    :meth:`close` (the garbage collector frees it too).
    """

    def __init__(self, input, output, *, window=None, windows=None, base=None, bins=None,
                 range=None, nodata=None, band=None, size=None, dtype=None, bands=None, interleave=None,
                 byteorder=None, header_bytes=None, format=None, level=None, frame_rows=None,
                 tile=None, compress=None, tif_layout=None, bigtiff=False, ot=None, preview=None,
                 preview_size=None, sidecar=False, decode=False, device="auto", threads=0,
                 mem=None, progress=None, notice=None, command_line=None, footprint=None,
                 radius=None, preview_range=None, measure=None, levels=None, distances=None,
                 angles=None, symmetric=None):
        L = _lib.lib()
        self._handle = None
        self._lock = threading.RLock()
        self._running = False
        self._ran = False
        self._progress = print_progress if progress is True else progress
        self._notice = notice
        self._notices = []
        self._callback_error = None
        self._cancelled_by_callback = False
        if self._progress is not None and not callable(self._progress):
            raise UsageError("progress: give a callable (or True), not %r" % (progress,))
        if notice is not None and not callable(notice):
            raise UsageError("notice: give a callable, not %r" % (notice,))

        o = _lib.winent_job_opts()
        L.winent_job_opts_default(ctypes.byref(o))
        o.words = _lib.WORDS_PYTHON  # the library's messages name the keywords
        keep = []  # the bytes the options point at, until winent_job_create copied them

        def cstr(v):
            keep.append(v)
            return v

        o.input = cstr(_path("input", input))
        o.output = cstr(_path("output", output))
        if o.input is None or o.output is None:
            raise UsageError("give an input and an output")
        if decode:
            _refuse_with_decode(window=window, windows=windows, radius=radius, measure=measure,
                                footprint=footprint, base=base, levels=levels,
                                distances=distances, angles=angles, symmetric=symmetric,
                                bins=bins, range=range, nodata=nodata, size=size, dtype=dtype,
                                bands=bands, band=band, interleave=interleave,
                                byteorder=byteorder, header_bytes=header_bytes)
        if windows is not None and (window is not None or footprint is not None or
                                    radius is not None):
            from ._options import conflict
            conflict("windows", "window" if window is not None else
                     "footprint" if footprint is not None else "radius")
        if levels is not None:
            # --levels N is --bins N, over range "auto" unless a range is
            # given; both given, one would be dropped (the CLI refuses it too).
            if bins is not None:
                raise UsageError("levels= does not go with bins=: both are the number of bins "
                                 "every measure of the job sees: give one")
            bins = as_int("levels", levels, 1, 2**32 - 1)
            if range is None:
                range = "auto"
        fill_compute(o.compute, window, base, bins, range, nodata, footprint, radius)
        if isinstance(range, str) and range == "auto":
            o.range_auto = 1
        _fill_measures(o, keep, measure, distances, angles, symmetric)
        if nodata is not None:
            o.nodata_given = 1
        _fill_layout(o, keep, size, dtype, byteorder, bands, band, interleave, header_bytes)
        if windows is not None:
            _fill_windows(o, keep, windows)
        _fill_output(o, cstr, format, level, frame_rows, tile, compress, tif_layout, bigtiff, ot,
                     preview, preview_size, preview_range, sidecar, decode)
        if device is not None:
            o.device = cstr(c_string("device", str(device)))
        o.threads = as_int("threads", threads)
        if mem is not None:
            o.mem_bytes = parse_size("mem", mem)
        if command_line is not None:
            o.command_line = cstr(c_string("command_line", str(command_line)))
        # Callbacks: the thunks live as long as the job (self holds them).
        self._progress_thunk = _lib.PROGRESS_FN(self._on_progress)
        self._notice_thunk = _lib.NOTICE_FN(self._on_notice)
        if self._progress is not None:
            o.on_progress = self._progress_thunk
        o.on_notice = self._notice_thunk

        err = _lib.winent_error()
        handle = _lib.c_job_p()
        st = L.winent_job_create(ctypes.byref(o), ctypes.byref(handle), ctypes.byref(err))
        if st != OK:
            raise error_for(st, _lib.message_of(err))
        self._handle = handle.value
        self._lib = L

    # ---- callbacks, on the thread that runs the job ----------------------

    def _stop_for_callback(self, exc):
        if self._callback_error is None:
            self._callback_error = exc
        self.cancel()

    def _on_progress(self, user, p):
        if self._callback_error is not None or self._cancelled_by_callback:
            return
        q = p.contents
        try:
            r = self._progress(Progress(q.rows_done, q.rows_total, q.width, q.seconds))
        except BaseException as e:  # noqa: B036 - handed back to run()'s caller
            self._stop_for_callback(e)
            return
        if r is False:
            self._cancelled_by_callback = True
            self.cancel()

    def _on_notice(self, user, line):
        text = line.decode("utf-8", "replace") if line else ""
        self._notices.append(text)
        if self._notice is not None and self._callback_error is None:
            try:
                self._notice(text)
            except BaseException as e:  # noqa: B036
                self._stop_for_callback(e)

    # ---- the public methods ---------------------------------------------

    def run(self):
        """Run the job (once) and return its figures (see :attr:`stats`).

        The job runs on a worker thread while this one waits, so Ctrl-C
        (KeyboardInterrupt) is seen at once: it cancels the job, waits for
        it to stop cleanly and is raised again. Raises the Error of a
        failed job, Cancelled after :meth:`cancel` or a progress callback
        that returned False, or the exception a callback raised."""
        with self._lock:
            if self._handle is None:
                raise UsageError("the job is closed: make a new Job")
            if self._running or self._ran:
                raise UsageError("a job runs once: make a new Job")
            self._running = True
            self._ran = True
        handle, L = self._handle, self._lib
        done = threading.Event()
        result = []
        # Whether the worker got to the C call, decided under the lock: a
        # Ctrl-C that comes before the worker starts (even inside
        # Thread.start) abandons the run, and the worker, if it ever runs,
        # does nothing. Once entered, the run is waited for to its end.
        state = {"entered": False, "abandoned": False}

        def body():
            try:
                with self._lock:
                    if state["abandoned"]:
                        return
                    state["entered"] = True
                result.append(L.winent_job_run(handle))
            finally:
                done.set()

        interrupt = None
        try:
            try:
                threading.Thread(target=body, name="winent-job", daemon=True).start()
                # In slices: a SIGINT the kernel hands to one of the job's own
                # threads interrupts no wait of this one, and Python runs its
                # handler (KeyboardInterrupt) only between bytecodes here.
                while not done.wait(0.05):
                    pass
            except KeyboardInterrupt as e:
                interrupt = e
                self.cancel()
                with self._lock:
                    if not state["entered"]:
                        state["abandoned"] = True
                while state["entered"]:  # the job must end before anything else happens to it
                    try:
                        while not done.wait(0.05):
                            pass
                        break
                    except KeyboardInterrupt:
                        self.cancel()
        finally:
            with self._lock:
                self._running = False
        if self._notice is None:
            for line in self._notices:
                warnings.warn(line, Notice, stacklevel=2)
        if interrupt is not None:
            raise interrupt
        if self._callback_error is not None:
            raised, self._callback_error = self._callback_error, None
            raise raised
        st = result[0] if result else None
        if st != OK:
            if st == Cancelled.status and self._cancelled_by_callback:
                raise Cancelled("cancelled: the progress callback returned False")
            failure = L.winent_job_error(handle)
            msg = _lib.message_of(failure.contents) if failure else ""
            raise error_for(st if st is not None else 1, msg)
        return self.stats

    def cancel(self):
        """Ask the job to stop: from any thread, the progress callback, or a
        signal handler; before run() (which then stops at once), during
        it, or after (no effect). Returns at once; run() raises Cancelled."""
        with self._lock:
            if self._handle is not None:
                self._lib.winent_job_cancel(self._handle)

    @property
    def stats(self):
        """The figures of the run, as the CLI's --stats prints them: wall_s,
        setup_s, pixels, mpixel_per_s, bytes_in, bytes_out, engine,
        chunk_rows, chunks, gpus, stages (read, compute, encode, write:
        threads, busy_s, wait_s), range, range_from, samples, clamped (with
        bins/range), and the notices of the job. Zeros before run()."""
        s = _lib.winent_job_stats()
        with self._lock:
            if self._handle is None:
                raise UsageError("the job is closed")
            if self._running:
                raise UsageError("the job is running: its figures come when run() returns")
            self._lib.winent_job_get_stats(self._handle, ctypes.byref(s))
        return _stats_dict(s, self._notices)

    @property
    def notices(self):
        """The notice lines of the job so far."""
        return list(self._notices)

    def close(self):
        """Free the C job (not while it runs). Closing twice is fine."""
        with self._lock:
            if self._running:
                raise UsageError("the job is running: cancel() it and let run() return first")
            if self._handle is not None:
                self._lib.winent_job_free(self._handle)
                self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_handle", None) is not None and not self._running:
            try:
                self._lib.winent_job_free(self._handle)
            except Exception:
                pass
            self._handle = None


def run(input, output, **options):
    """Run one job, ``winent-stream [options] INPUT OUTPUT`` in this process,
    and return its figures (a dict, as ``--stats``).

    input: a path (a TIFF, raw samples with ``size`` and ``dtype``, any
        raster GDAL opens in a build with GDAL), or "-" for standard input.
    output: a path; the format from its name (``.zst``, ``.tif``,
        ``.zarr``: a Zarr store ``xarray.open_zarr`` reads, ``.raw``) or
        ``format``. An output appears only when complete.

    Options (keywords, each as the CLI's ``--option``; None: the default):
    window (K, (ROWS, COLUMNS) as entropy()'s, "7x3" as --window WxH, or a disk: ("disk", R) or "diskR", as
    ``--disk R``), footprint="disk" with radius=R (the same disk, as
    scikit-image's footprint=disk(R)) or any 2-D footprint array (as
    ``--footprint FILE``; not with windows), windows (a list: a map of each, as
    ``--window 5,9,disk3``: [5, 9, ("disk", 3)]), base,
    bins, range ((lo, hi) or "auto"), nodata;
    measure (as ``--measure``: one name, "entropy" by default, or a list
    of them, a map of each at each window in the order given, as
    :func:`winent.texture` names them: "renyi:2", "simpson", "richness",
    "evenness", "majority", "glcm-contrast", ...); the co-occurrence
    measures' options as :func:`winent.texture` takes them: levels (as
    ``--levels N``: N bins over range, "auto" unless given; not with
    bins), distances (as ``--distance``: one distance, D or [D]), angles
    (as ``--angles``: degrees 0, 45, 90, 135 or graycomatrix's radians;
    None: all four, averaged), symmetric (True, the default; False is
    ``--asymmetric``); band (a number, a list of
    them or "all": a map of each, as ``--band``); raw input: size ((width,
    height) or "WxH"), dtype ("u16" or a numpy dtype, whose byte order
    counts), bands, interleave ("bsq", "bip", "bil"),
    byteorder ("little", "big"), header_bytes; output: format ("zst",
    "tif", "raw", "zarr"), level, frame_rows, tile, compress, tif_layout ("cog",
    "tiled"), bigtiff, ot (the map's sample type, as ``--ot``: "float32",
    the default, "float16", "uint16" or "uint8", or the numpy dtype;
    integers are round(H / scale) with GDAL's scale and offset recorded),
    preview (a PNG path; its colours stretched over the map's 2nd-98th
    percentiles, a world file and .aux.xml beside it for a georeferenced
    map), preview_size, preview_range ((lo, hi): the stretch, as
    ``--preview-range``), sidecar, decode;
    running: device, threads, mem (bytes or "512M"), command_line (the
    provenance recorded in the output; default none).

    progress: a callable taking a :class:`Progress` (rows_done, rows_total,
        width, seconds, fraction), called from the job's thread as rows are
        written; return False to stop the job (Cancelled is raised), or
        raise to stop it with that exception. True prints the CLI's line.
    notice: a callable taking each notice line; without it the lines are
        given as :class:`Notice` warnings when the job ends (and are in the
        result's "notices" either way).

    Ctrl-C stops the job cleanly (no output left behind) and raises
    KeyboardInterrupt. To cancel from another thread, use :class:`Job`.
    """
    with Job(input, output, **options) as job:
        return job.run()
