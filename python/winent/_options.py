# SPDX-License-Identifier: BSD-3-Clause
"""Python values of the options (window=9, base=2, range=(0, 1), ...) to
the fields of winent_compute_opts and winent_job_opts.

What a value may be is the library's to say, in Python's words: its
validators (winent_compute_opts_check, winent_job_opts_validate with
``words`` set) and its table of options (winent_options) word every
refusal, naming the keyword (``range=(1, 0): give finite numbers (lo, hi)
with lo < hi, or 'auto'``). This module only turns Python values into C
fields; a value no C field can hold (5.5 for a count, 2**40 for a C int,
"abc") is refused with the table's line for that option
(winent_option_refuse), so every door says the same thing."""
import ctypes
import math
import numbers
import operator
import os
import re

from ._errors import OK, UsageError, error_for

INT_MAX = 2**31 - 1

# A whole number as C's strtol reads all of a text (the CLI's numbers):
# leading C white space (not Unicode's), ASCII digits.
_C_INT = r"[ \t\n\v\f\r]*[+-]?[0-9]+"


def _lib():
    from . import _lib as lib_module
    return lib_module


def raise_for(st, err):
    """Raise the error of a non-OK status from the library, its message as is."""
    if st != OK:
        raise error_for(st, _lib().message_of(err))


def refuse(name, value, text=None):
    """The UsageError the library words for option `name` given `value`
    (shown as `text`, else its repr): "name=value: what to give"."""
    L = _lib()
    err = L.winent_error()
    shown = text if text is not None else repr(value)
    st = L.lib().winent_option_refuse(name.encode(), shown.encode("utf-8", "replace"),
                                      L.WORDS_PYTHON, ctypes.byref(err))
    raise error_for(st, L.message_of(err))


def conflict(name, other):
    """The UsageError for two options that give the window two ways."""
    L = _lib()
    err = L.winent_error()
    st = L.lib().winent_option_conflict(name.encode(), other.encode(), L.WORDS_PYTHON,
                                        ctypes.byref(err))
    raise error_for(st, L.message_of(err))


def options_table():
    """The library's table of options: a list of dicts (cli, python,
    metavar, group, help, cli_advice, python_advice, words as str or None;
    type, field, lo, hi as numbers)."""
    L = _lib()
    n = ctypes.c_int()
    rows = L.lib().winent_options(ctypes.byref(n))
    out = []
    for i in range(n.value):
        r = rows[i]
        out.append({k: (getattr(r, k).decode() if isinstance(getattr(r, k), bytes)
                        else getattr(r, k))
                    for k, _ in L.winent_option._fields_})
    return out


def num_text(v):
    """A float as the library quotes it (shortest text, no trailing .0)."""
    r = repr(float(v))
    return r[:-2] if r.endswith(".0") else r


def as_int(name, value, lo=-INT_MAX - 1, hi=INT_MAX, nonzero=False, shown=None):
    """`value` as a Python int that the C field holds ([lo, hi]); its own
    range is the library's to check. A bool, a number that is not whole, a
    text that is no whole number ("12" is 12, as the CLI reads it), one past
    the C field, or 0 where 0 is the field's "default" (`nonzero`: level,
    tile, frame_rows, preview_size; None asks for the default) is refused
    with the library's line for the option (quoting `shown`, else the
    value)."""
    given = value
    if isinstance(value, str) and re.fullmatch(_C_INT, value):
        value = int(value)
    if isinstance(value, bool):
        refuse(name, given, shown)
    try:
        v = operator.index(value)
    except TypeError:
        refuse(name, given, shown)
    if not lo <= v <= hi or (nonzero and v == 0):
        refuse(name, given, shown if shown is not None else str(v))
    return v


def c_string(name, value):
    """`value` (str, bytes or os.PathLike) as the bytes of a C string; a NUL
    byte, which would cut the string there in C (a path naming another
    file), is a UsageError (a ValueError)."""
    try:
        b = os.fsencode(value)
    except TypeError:
        raise UsageError("%s=%r: give a path (str, bytes or os.PathLike)" % (name, value)) \
            from None
    if b"\0" in b:
        raise UsageError("%s=%r: a NUL byte cannot be in a name (it would end it there)"
                         % (name, value))
    return b


def as_float(name, value, shown=None):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        refuse(name, shown if shown is not None else value)
    return float(value)


def _disk_radius(r, shown):
    """A disk's radius as a whole number (its range: the library's)."""
    if isinstance(r, str) and re.fullmatch(_C_INT, r):
        r = int(r)
    if isinstance(r, bool) or not isinstance(r, numbers.Integral) or not -2**20 <= r <= 2**20:
        refuse(*shown)
    return int(r)


def window_spec(window, footprint=None, radius=None):
    """The window as (kx, ky, shape), shape 0 (a rectangle), 1 (a disk) or
    a Footprint (any other footprint array): window=K, (rows, cols), "K" or "WxH"
    as the CLI's --window, or a disk: ("disk", R), "diskR", or
    footprint="disk" with radius=R (scikit-image's morphology.disk(R); kx =
    ky = 2R + 1); or scikit-image's footprint array itself (disk(R), or a
    rectangle of ones). window=None is the default, 5; a window given
    together with footprint= or radius= is refused (the library's line),
    never one silently winning."""
    if isinstance(window, Footprint):  # the lower layers' own window=
        return window.kx, window.ky, window
    if window is not None and (footprint is not None or radius is not None):
        conflict("footprint" if footprint is not None else "radius", "window")
    if footprint is not None and hasattr(footprint, "shape") and radius is None:
        return _footprint_array(footprint)
    if footprint is not None or radius is not None:
        if not isinstance(footprint, str) or footprint not in ("disk", "square", "rectangle"):
            refuse("footprint", footprint)
        if footprint == "disk":
            if radius is None:
                refuse("radius", None)
            r = _disk_radius(radius, ("radius", radius))
            return 2 * r + 1, 2 * r + 1, 1
        refuse("radius", radius)
    if window is None:
        return 5, 5, 0
    if isinstance(window, str) and window.startswith("disk"):  # as the CLI: lower case
        r = _disk_radius(window[4:], ("window", window))
        return 2 * r + 1, 2 * r + 1, 1
    if isinstance(window, (tuple, list)) and len(window) == 2 and window[0] == "disk":
        r = _disk_radius(window[1], ("window", window))
        return 2 * r + 1, 2 * r + 1, 1
    kx, ky = window_sides(window)
    return kx, ky, 0


class Footprint:
    """A footprint array of any shape, as the library takes it
    (winent_compute_opts.footprint): `kx` columns, `ky` rows, `mask` their
    bytes row by row (1: in the window). Its centre is row ky // 2, column
    kx // 2, scikit-image's. Picklable (dask ships it to workers) and
    tokenized by its contents."""

    def __init__(self, mask):
        import numpy as np
        m = np.ascontiguousarray(np.asarray(mask) != 0, dtype=np.uint8)
        self.ky, self.kx = m.shape
        self.mask = m.tobytes()
        self._buf = None

    def __getstate__(self):
        return {"kx": self.kx, "ky": self.ky, "mask": self.mask}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._buf = None

    def __eq__(self, other):
        return isinstance(other, Footprint) and (self.kx, self.ky, self.mask) == \
            (other.kx, other.ky, other.mask)

    def __hash__(self):
        return hash((self.kx, self.ky, self.mask))

    def __repr__(self):
        return "Footprint(%dx%d, %d pixels)" % (self.kx, self.ky, self.mask.count(1))

    def __dask_tokenize__(self):
        return ("winent.Footprint", self.kx, self.ky, self.mask)

    def pointer(self):
        """The mask as a C pointer, valid while this object lives."""
        if self._buf is None:
            self._buf = (ctypes.c_ubyte * len(self.mask)).from_buffer_copy(self.mask)
        return ctypes.cast(self._buf, ctypes.POINTER(ctypes.c_ubyte))


def set_window(o, kx, ky, shape):
    """Put window_spec's (kx, ky, shape) into winent_compute_opts `o`:
    shape 0 (a rectangle), 1 (a disk) or a Footprint."""
    o.kx, o.ky = kx, ky
    fp = shape if isinstance(shape, Footprint) else None
    o.disk = 0 if fp is not None else int(shape)
    o.footprint = fp.pointer() if fp is not None else None


def is_disk(shape):
    """1 when window_spec's shape is a disk (not a rectangle nor a Footprint)."""
    return not isinstance(shape, Footprint) and bool(shape)


def window_name(kx, ky, shape):
    """The window as the CLI's outputs name it: "9x9", "disk4",
    "footprint16x16" (a footprint: its box)."""
    if isinstance(shape, Footprint):
        return "footprint%dx%d" % (kx, ky)
    return "disk%d" % (kx // 2) if shape else "%dx%d" % (kx, ky)


def _footprint_array(fp):
    """scikit-image's footprint arrays: a rectangle of ones with odd sides
    (the rectangle's fast paths), morphology.disk(R) (a disk), or any other 2-D array of
    up to 255 x 255, even sides too (nonzero: in the window; a Footprint,
    as the CLI's --footprint FILE names it)."""
    import numpy as np
    a = np.asarray(fp)
    if a.ndim != 2 or a.size == 0 or a.dtype.kind not in "biuf":
        raise UsageError("footprint: an array of shape %r: give a 2-D boolean array (any shape "
                         "up to 255x255, e.g. morphology.diamond(3)), or 'disk' with radius=R"
                         % (a.shape,))
    ky, kx = a.shape
    on = a != 0
    if kx % 2 and ky % 2:
        if on.all():
            return kx, ky, 0
        r = kx // 2
        yy, xx = np.mgrid[-r:r + 1, -r:r + 1]
        if kx == ky and (on == (xx * xx + yy * yy <= r * r)).all():
            return kx, ky, 1
    return kx, ky, Footprint(on)


def window_sides(window):
    """window=K, (rows, cols) as scipy.ndimage's size=, or "K" / "WxH" as
    the CLI's --window (width first there): (kx, ky). What is no window is
    refused with the library's line."""
    if isinstance(window, str):
        parts = window.lower().split("x")
        if len(parts) not in (1, 2) or not all(re.fullmatch(_C_INT, p) for p in parts):
            refuse("window", window)
        kx, ky = int(parts[0]), int(parts[-1])
    elif isinstance(window, (tuple, list)):
        # (rows, columns), as scipy.ndimage's size= and a footprint's shape;
        # the text "WxH" is the CLI's --window, width first.
        if len(window) != 2:
            refuse("window", window)
        ky, kx = window
    else:
        kx = ky = window
    return (as_int("window", kx, hi=2**20, lo=-2**20), as_int("window", ky, hi=2**20, lo=-2**20))


def base_code(base):
    """base=2 | "e" | 10 (or "2", "10"): the winent_base value."""
    from ._lib import BASES
    key = base if isinstance(base, str) else None
    if not isinstance(base, (str, bool)) and isinstance(base, numbers.Real) and base in (2, 10):
        key = str(int(base))
    if key not in BASES:
        refuse("base", base)
    return BASES[key]


def range_pair(rng):
    """range=(lo, hi): two floats (finiteness and order: the library checks).
    (0, 0) is the C fields' "no range": refused here with the library's
    line, as the CLI refuses --range 0:0."""
    if isinstance(rng, (str, bytes)) or not hasattr(rng, "__len__") or len(rng) != 2:
        refuse("range", rng)
    lo, hi = as_float("range", rng[0], rng), as_float("range", rng[1], rng)
    if lo == 0 and hi == 0:
        refuse("range", rng, "(%s, %s)" % (num_text(lo), num_text(hi)))
    return lo, hi


def default_range(dtype, rng):
    """range=None for float samples: "auto" (the valid samples' min and
    max, 256 bins), as the CLI's default for a float band."""
    kind = getattr(dtype, "kind", None)
    if rng is None and kind == "f":
        return "auto"
    return rng


def fill_compute(o, window, base, bins, rng, nodata, footprint=None, radius=None):
    """Set the fields of winent_compute_opts `o` (its defaults already in)
    from the Python values; `rng` is None, (lo, hi) or "auto" (the caller
    handles "auto" itself). Returns nothing; raises UsageError."""
    set_window(o, *window_spec(window, footprint, radius))
    if base is not None:  # None: the library's default (winent_compute_opts_default)
        o.base = base_code(base)
    if isinstance(rng, str):
        if rng != "auto":
            refuse("range", rng)
    elif rng is not None:
        o.range_lo, o.range_hi = range_pair(rng)
    if bins is not None:
        # 0 is the C default (distinct values), not a count: refused as --bins 0.
        o.bins = as_int("bins", bins, 1, 2**32 - 1)
    elif rng is not None:
        # As the CLI: a range without bins quantizes into 256.
        o.bins = 256
    if nodata is not None:
        v = as_float("nodata", nodata)
        # NaN is always nodata; nodata=nan only says so.
        o.has_nodata = 0 if math.isnan(v) else 1
        o.nodata = v


def check_compute(o):
    """The library's checks of what is computed (dtype set), in Python's words."""
    L = _lib()
    err = L.winent_error()
    raise_for(L.lib().winent_compute_opts_check(ctypes.byref(o), L.WORDS_PYTHON,
                                                ctypes.byref(err)), err)


# ---- Measures (texture(measures=...), entropy(measure=...)) ---------------

class Measure(tuple):
    """One measure resolved: (code, renyi order, pair distance, angle bits,
    asymmetric), the winent_compute_opts fields it sets."""

    __slots__ = ()

    def __new__(cls, code, q=0.0, distance=1, angles=0, asymmetric=0):
        return tuple.__new__(cls, (code, float(q), distance, angles, asymmetric))

    def __getnewargs__(self):
        return tuple(self)  # pickled to dask's worker processes as its fields

    def fill(self, o):
        """Set the measure's fields of winent_compute_opts `o`."""
        o.measure, o.renyi_q, o.glcm_distance, o.glcm_angles, o.glcm_asymmetric = self

    @property
    def is_glcm(self):
        return self[0] >= _lib().MEASURES.index("glcm-entropy")

    def text(self):
        """The measure as the CLI names its map: "simpson", "renyi:2",
        "glcm-entropy:d2:a0+90:asym" (winent_measure_text)."""
        L = _lib()
        o = L.winent_compute_opts()
        L.lib().winent_compute_opts_default(ctypes.byref(o))
        self.fill(o)
        buf = ctypes.create_string_buffer(96)
        L.lib().winent_measure_text(ctypes.byref(o), buf, len(buf))
        return buf.value.decode()


def _one_measure(name, value, pairs):
    """A measure's name ("simpson", "renyi:2", "glcm-contrast") or
    ("renyi", Q) as a Measure with the pair options `pairs`; what the
    library has no measure for is refused with the table's line."""
    L = _lib()
    q = 0.0
    if isinstance(value, (tuple, list)) and len(value) == 2 and value[0] == "renyi":
        q = as_float(name, value[1], repr(value))
        text = "renyi"
    elif isinstance(value, str) and value.startswith("renyi:"):
        try:
            q = float(value[6:])
        except ValueError:
            refuse(name, value)
        text = "renyi"
    elif isinstance(value, str) and value != "renyi":
        text = value
    else:
        refuse(name, value)
    if text not in L.MEASURES:
        refuse(name, value)
    code = L.MEASURES.index(text)
    if code < L.MEASURES.index("glcm-entropy"):
        return Measure(code, q)
    return Measure(code, q, *pairs)


def measure_list(name, measures, pairs):
    """measures=: one name or a sequence of them, as Measures, in order."""
    if isinstance(measures, str) or (isinstance(measures, tuple) and len(measures) == 2 and
                                     measures[0] == "renyi"):
        measures = [measures]
    if measures is None or not hasattr(measures, "__iter__"):
        refuse(name, measures)
    out = [_one_measure(name, m, pairs) for m in measures]
    if not out:
        refuse(name, measures)
    return out


_RIGHT = math.pi / 4  # 45 degrees in radians


def _angle_bit(a, shown):
    """An angle in degrees (0, 45, 90, 135) or in radians as
    scikit-image's graycomatrix takes it (0, pi/4, pi/2, 3*pi/4): its bit."""
    if isinstance(a, bool) or not isinstance(a, numbers.Real):
        refuse("angles", None, shown)
    v = float(a)
    for k in builtin_range(4):
        if v == 45 * k or abs(v - k * _RIGHT) <= 1e-9:
            return 1 << k
    refuse("angles", None, shown)


builtin_range = range


def pair_options(distances, angles, symmetric):
    """(distance, angle bits, asymmetric) of the co-occurrence measures from
    scikit-image's graycomatrix arguments: one distance (an int, or a
    sequence of one), the angles in degrees or radians (None: all four),
    symmetric True or False."""
    d = distances
    if not isinstance(d, (str, bytes)) and hasattr(d, "__len__"):
        if len(d) != 1:
            raise UsageError(
                "distances=%r: the co-occurrence measures take one distance per call: give "
                "distances=D (or [D]) and call again for another" % (distances,))
        d = d[0]
    # 0 is the C field's "default" (1): refused as the CLI refuses --distance 0.
    d = as_int("distances", d, lo=1, hi=2**20, shown=repr(distances))
    bits = 0
    if angles is not None:
        items = angles if hasattr(angles, "__iter__") and not isinstance(angles, str) \
            else [angles]
        for a in items:
            bits |= _angle_bit(a, repr(angles))
        if bits == 0:
            refuse("angles", None, repr(angles))
    if not isinstance(symmetric, (bool, np_bool())):
        raise UsageError("symmetric=%r: give True or False" % (symmetric,))
    return d, (0 if bits == 15 else bits), 0 if symmetric else 1


def np_bool():
    try:
        import numpy as np
        return np.bool_
    except ImportError:  # pragma: no cover
        return bool


def check_measures(o, measures, range_auto=False, dtype_given=False, nodata_given=False):
    """The library's checks of a measure list with the compute options `o`
    (a copy is made): each measure's, none twice, in Python's words
    (winent_job_opts_validate); those of o.dtype and o's nodata where
    given."""
    L = _lib()
    jo = L.winent_job_opts()
    L.lib().winent_job_opts_default(ctypes.byref(jo))
    jo.words = L.WORDS_PYTHON
    jo.input = b"memory"
    jo.dtype_given, jo.nodata_given = int(dtype_given), int(nodata_given)
    jo.compute = o  # a copy
    measures[0].fill(jo.compute)
    codes = (ctypes.c_int * len(measures))(*[m[0] for m in measures])
    qs = (ctypes.c_double * len(measures))(*[m[1] for m in measures])
    if len(measures) > 1:
        jo.measure_list = ctypes.cast(codes, ctypes.POINTER(ctypes.c_int))
        jo.measure_q = ctypes.cast(qs, ctypes.POINTER(ctypes.c_double))
        jo.nmeasure_list = len(measures)
    jo.range_auto = int(range_auto)
    if range_auto:
        jo.compute.range_lo = jo.compute.range_hi = 0.0
    err = L.winent_error()
    raise_for(L.lib().winent_job_opts_validate(ctypes.byref(jo), ctypes.byref(err)), err)
