# SPDX-License-Identifier: BSD-3-Clause
"""entropy(): the map of a numpy array, in memory, through winent_entropy."""
import ctypes
import math

import numpy as np

from . import _lib
from ._errors import OK, UsageError, error_for
from ._options import as_int, c_string, check_compute, default_range, fill_compute, raise_for

# numpy type -> winent_dtype (native byte order; the order of winent.h).
_DTYPES = {np.dtype(t): i for i, t in enumerate(
    (np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.float32, np.float64))}


# The integer types the library reads, narrowest first: an integer array
# of another type (int64, numpy's default; uint64; ...) is read as the
# first of them that holds its values (and nodata), never wrapped.
_NARROW = tuple(np.dtype(t) for t in (np.uint8, np.int8, np.uint16, np.int16, np.uint32,
                                      np.int32))


def _narrowed(a, nodata):
    """An integer array the library has no type for, as the narrowest of its
    types that holds every value (and a whole `nodata`); a UsageError
    naming the values' range where none does."""
    lo, hi = (int(a.min()), int(a.max())) if a.size else (0, 0)
    if nodata is not None:
        v = float(nodata)
        if math.isfinite(v) and v == math.floor(v):
            lo, hi = min(lo, int(v)), max(hi, int(v))
    for t in _NARROW:
        info = np.iinfo(t)
        if info.min <= lo and hi <= info.max:
            return a.astype(t), _DTYPES[t]
    raise UsageError(
        "entropy: %s values from %d to %d%s do not fit the library's integer types: they must "
        "lie within int32 (-2147483648 to 2147483647) or uint32 (0 to 4294967295)"
        % (a.dtype, lo, hi, " (nodata included)" if nodata is not None else ""))


def _winent_dtype(a, nodata=None):
    """(array as the library can read it, winent_dtype): native byte order,
    booleans as u8, float16 as float32, other integers narrowed where
    their values fit (_narrowed)."""
    dt = a.dtype
    if dt == np.bool_:
        return a.view(np.uint8), 0
    if not dt.isnative:
        native = dt.newbyteorder("=")
        if native in _DTYPES:
            return a.astype(native), _DTYPES[native]
        dt = native
        a = a.astype(native)
    if dt in _DTYPES:
        return a, _DTYPES[dt]
    if dt.kind in "iu":
        return _narrowed(a, nodata)
    if dt == np.float16:
        return a.astype(np.float32), _DTYPES[np.dtype(np.float32)]
    raise UsageError(
        "entropy: arrays of %s are not supported: give integers, bool, float16, float32 or "
        "float64" % dt)


def _readable_rows(a):
    """`a` with contiguous, aligned columns and its row stride in bytes: the
    array itself when it already is (a slice of rows or columns of a bigger
    array, a strided view), else a C-contiguous copy."""
    h, w = a.shape
    item = a.itemsize
    s0, s1 = a.strides
    if (a.flags.aligned and (s1 == item or w <= 1) and
            (h <= 1 or (s0 > 0 and s0 % item == 0 and s0 >= w * item))):
        return a, (s0 if h > 1 else w * item)
    a = np.ascontiguousarray(a)
    return a, w * item


def _auto_range(a, nodata):
    """range="auto" for an array: the valid finite samples' [min, max], as
    the library's first pass over a file finds it (none valid: 0..1; one
    value v: v .. v + max(1, |v| 2^-20))."""
    valid = None
    has_nodata = nodata is not None and not math.isnan(float(nodata))
    if a.dtype.kind == "f":
        valid = np.isfinite(a)
        if has_nodata:
            # The kernels compare float32 samples with nodata cast to float32.
            valid &= a != a.dtype.type(nodata)
    elif has_nodata:
        v = float(nodata)
        if v == math.floor(v) and abs(v) < 9.2e18:
            valid = a != np.int64(v)
    if valid is None:
        lo, hi, any_valid = a.min(), a.max(), a.size > 0
    else:
        any_valid = bool(valid.any())
        if any_valid:
            big = np.inf if a.dtype.kind == "f" else np.iinfo(a.dtype).max
            small = -np.inf if a.dtype.kind == "f" else np.iinfo(a.dtype).min
            lo = a.min(where=valid, initial=big)
            hi = a.max(where=valid, initial=small)
    if not any_valid:
        lo, hi = 0.0, 1.0
    lo, hi = float(lo), float(hi)
    if not hi > lo:
        hi = lo + max(abs(lo) * 2.0**-20, 1.0)
    return lo, hi


def _validate(o, device, threads, rng):
    """winent_entropy's checks of `o`, the device and the threads (a job's
    options, winent_job_opts_validate) in Python's words."""
    jo = _lib.winent_job_opts()
    L = _lib.lib()
    L.winent_job_opts_default(ctypes.byref(jo))
    jo.words = _lib.WORDS_PYTHON
    jo.input = b"memory"
    jo.compute = o
    jo.dtype_given = 1
    jo.nodata_given = o.has_nodata
    jo.range_auto = int(isinstance(rng, str) and rng == "auto")
    if jo.range_auto:
        jo.compute.range_lo = jo.compute.range_hi = 0.0
    if device is not None:
        jo.device = device
    jo.threads = threads
    err = _lib.winent_error()
    raise_for(L.winent_job_opts_validate(ctypes.byref(jo), ctypes.byref(err)), err)


def _check_out(out, h, w):
    if not isinstance(out, np.ndarray) or out.dtype != np.float32 or not out.dtype.isnative:
        raise UsageError("entropy: out must be a numpy array of native float32")
    if out.shape != (h, w):
        raise UsageError("entropy: out has shape %r, the map is %r" % (out.shape, (h, w)))
    s0, s1 = out.strides
    if (not out.flags.writeable or not out.flags.aligned or (s1 != 4 and w > 1) or
            (h > 1 and (s0 <= 0 or s0 % 4 or s0 < 4 * w))):
        raise UsageError("entropy: out must be writeable, with contiguous columns and rows "
                         "in order (a slice of rows or columns of a C-ordered array will do)")
    return (s0 // 4) if h > 1 else w


def entropy(array, window=None, base=None, bins=None, range=None, nodata=None, device="auto",
            threads=0, out=None, footprint=None, radius=None, measure=None):
    """The local Shannon entropy map of a 2-D array (rows, columns).

    For every pixel, the entropy of the values in the window centred on it:
    border windows cropped (never padded), nodata and NaN not counted, NaN
    where the centre is nodata (docs/SPEC.md, section 1 of the contract).
    The same bits as ``winent-stream`` with the same options, on every
    engine.

    array: any integer type whose values fit int32 or uint32 (int64 and
        uint64 too, read as the narrowest type that holds them; never
        wrapped), bool (read as uint8), float16, float32 or float64, either
        byte order, any strides: rows that
        are a slice of a bigger array are read in place, anything else
        (non-native byte order, columns not contiguous) is copied first.
    window: K, (ROWS, COLUMNS) as scipy.ndimage's size=, or "7x3" (the CLI's WxH, width first);
        sides 1..255, odd or even (centre at index n // 2, scikit-image's).
        A circular window: ``("disk", R)`` or "diskR"
        (as ``--disk R``): the pixels with dx^2 + dy^2 <= R^2, R 0..127.
    footprint, radius: ``footprint="disk", radius=R`` is the same disk,
        scikit-image's ``footprint=morphology.disk(R)``; scikit-image's
        footprint arrays are taken too: ``footprint=disk(3)``, a
        rectangle of ones ``np.ones((3, 7))`` (7 wide, 3 high), or any
        other 2-D array up to 255 x 255 (``diamond(3)``, ``star(3)``, a
        ring, ``np.ones((16, 16))``: nonzero is in the window), centred
        at row rows // 2, column cols // 2 as scikit-image centres it.
    base: 2 (bits: scikit-image's filters.rank.entropy), "e" (nats) or 10;
        None (the default): the library's default, base 2.
    bins, range: quantize ``bin = floor((v - lo) * bins / (hi - lo))``,
        clamped; ``range=(lo, hi)`` or ``"auto"`` (the valid samples'
        min and max); a range without bins means 256 bins. Integer arrays
        without them: each distinct value is a bin. Float arrays need a range.
    nodata: samples equal to it are not counted (NaN never is).
    device: "auto", "cpu", "gpu", or a list of GPUs such as "0,1".
    threads: CPU threads (0: all cores).
    out: optional float32 array of the same shape for the map (columns
        contiguous).
    measure: None (the entropy) or a winent._options.Measure.

    Returns the map, a float32 array of the same shape (``out`` if given).
    Raises UsageError (a ValueError) for a bad option or an unsupported
    array, DeviceError where a GPU asked for cannot be used. Thread-safe:
    calls on different arrays may run at once (the GIL is released during
    the computation).
    """
    job = prepare(array, window, base, bins, range, nodata, device, threads, footprint, radius,
                  measure)
    return run_cold(job, out)


class Prepared:
    """One array's call, checked and resolved as winent_entropy takes it:
    the samples (`a`, rows `row_bytes` apart), the compute options `o`
    (range "auto" resolved; a footprint's mask, which `o.footprint` points
    into, lives as long as `o`), the device (bytes or None), the threads,
    and the array's (rows, columns)."""
    __slots__ = ("a", "row_bytes", "o", "device", "threads", "shape")

    def __init__(self, a, row_bytes, o, device, threads, shape):
        self.a, self.row_bytes, self.o, self.device = a, row_bytes, o, device
        self.threads, self.shape = threads, shape


def prepare(array, window=None, base=None, bins=None, range=None, nodata=None, device="auto",
            threads=0, footprint=None, radius=None, measure=None):
    """entropy()'s checks and conversions, without computing: a Prepared
    (its `a` None for an empty array). Raises UsageError as entropy()."""
    a = np.asarray(array)
    if a.ndim != 2:
        raise UsageError("entropy: the array must be 2-D (rows, columns), not %d-D" % a.ndim)
    a, dtype = _winent_dtype(a, nodata)
    h, w = a.shape
    if h > _INT_MAX or w > _INT_MAX:
        raise UsageError("entropy: %d x %d is larger than the library takes" % (w, h))
    threads = as_int("threads", threads)
    L = _lib.lib()
    o = _lib.winent_compute_opts()
    L.winent_compute_opts_default(ctypes.byref(o))
    range = default_range(a.dtype, range)  # float samples: "auto" unless told
    fill_compute(o, window, base, bins, range, nodata, footprint, radius)
    if measure is not None:
        measure.fill(o)
    o.dtype = dtype
    dev = None if device is None else c_string("device", str(device))
    # Every check winent_entropy makes, in Python's words, before it runs.
    _validate(o, dev, threads, range)
    if isinstance(range, str) and range == "auto":
        o.range_lo, o.range_hi = _auto_range(a, nodata)
        # What depends on the range found (a majority's bins past float32)
        # in Python's words, before winent_entropy checks it in the CLI's.
        check_compute(o)
    if h == 0 or w == 0:
        return Prepared(None, 0, o, dev, threads, (h, w))
    _check_classes(a, o, nodata)
    a, row_bytes = _readable_rows(a)
    return Prepared(a, row_bytes, o, dev, threads, (h, w))


# Integer classes a float32 map holds exactly: up to 2^24 (the library's
# winent_class_limit; it refuses the same samples in its own words).
_CLASS_LIMIT = 2.0**24
_MAJORITY = _lib.MEASURES.index("majority")


def _check_classes(a, o, nodata):
    """A majority of integer classes (not binned) of 32-bit samples: every
    valid one within the float32 map's exact integers, else UsageError
    (the map would round classes together)."""
    if o.measure != _MAJORITY or o.bins or a.dtype.kind not in "iu" or a.dtype.itemsize < 4:
        return
    v = a if nodata is None else a[a != nodata]
    if v.size == 0:
        return
    lo, hi = int(v.min()), int(v.max())
    if hi > _CLASS_LIMIT or lo < -_CLASS_LIMIT:
        raise UsageError(
            "majority: the classes would be rounded together: the array holds the value %d, and "
            "the float32 map holds every integer only up to %d: recode the classes below it, or "
            "give bins=N with range=(lo, hi) (the bins' centres then stand for the values)"
            % (hi if hi > _CLASS_LIMIT else lo, _CLASS_LIMIT))


def run_cold(job, out=None):
    """The map of a Prepared call through winent_entropy (a whole job: its
    engines, buffers and threads made and freed within the call)."""
    h, w = job.shape
    if job.a is None:
        return np.empty((h, w), np.float32) if out is None else out
    if out is None:
        out = np.empty((h, w), np.float32)
    out_row_floats = _check_out(out, h, w)
    err = _lib.winent_error()
    st = _lib.lib().winent_entropy(ctypes.byref(job.o), job.a.ctypes.data, job.row_bytes, w, h,
                                   out.ctypes.data, out_row_floats, job.device, job.threads,
                                   ctypes.byref(err))
    if st != OK:
        raise error_for(st, _lib.message_of(err))
    return out


def texture(array, measures, **options):
    """The maps of several measures (winent._options.Measure, sharing their
    pair options) of a 2-D array in one pass (winent_texture: the
    co-occurrence measures share one count of each window's pairs),
    stacked on a first axis: float32 (len(measures), rows, columns), each
    map the bits entropy(array, measure=m, **options) gives. Options and
    errors as entropy()'s (out aside)."""
    # The options of a co-occurrence measure's pairs (every one's: the
    # list shares them) go to the call; a histogram measure's are defaults.
    first = next((m for m in measures if m.is_glcm), measures[0])
    job = prepare(array, measure=first, **options)
    h, w = job.shape
    out = np.empty((len(measures), h, w), np.float32)
    if job.a is None:
        return out
    nodata = options.get("nodata")
    for m in measures:  # each measure's checks in Python's words, as prepare's
        o = _lib.winent_compute_opts.from_buffer_copy(job.o)
        m.fill(o)
        check_compute(o)
        _check_classes(job.a, o, nodata)
    codes = (ctypes.c_int * len(measures))(*[m[0] for m in measures])
    orders = (ctypes.c_double * len(measures))(*[m[1] for m in measures])
    err = _lib.winent_error()
    st = _lib.lib().winent_texture(ctypes.byref(job.o), codes, orders, len(measures),
                                   job.a.ctypes.data, job.row_bytes, w, h, out.ctypes.data, w,
                                   job.device, job.threads, ctypes.byref(err))
    if st != OK:
        raise error_for(st, _lib.message_of(err))
    return out


_INT_MAX = 2**31 - 1
