# SPDX-License-Identifier: BSD-3-Clause
"""Python values of the options (window=9, base=2, range=(0, 1), ...) to
the fields of winent_compute_opts. Only the Python side is checked here
(types, values a C int cannot hold); the library's own validation
(winent_compute_opts_validate) says what is wrong with a value, with the
same one-line message as the CLI."""
import math
import numbers
import operator
import os
import re

from ._errors import UsageError

INT_MAX = 2**31 - 1

# A whole number as C's strtol reads all of a text (the CLI's numbers):
# leading C white space (not Unicode's), ASCII digits.
_C_INT = r"[ \t\n\v\f\r]*[+-]?[0-9]+"


def as_int(name, value, lo=-INT_MAX - 1, hi=INT_MAX, over=None, sentinel=None, nonzero=False):
    """`value` as a Python int in [lo, hi] (a bool is refused: True is no count).

    `nonzero`: 0 is the C field's "default", not a value (level, tile,
    frame_rows, preview_size): given, it is refused as the CLI refuses it,
    through a stand-in as below (None is the way to ask for the default).

    Without `over`, anything else is refused here. With `over` (a dict), the
    library says what is wrong, in the CLI's words: a whole number past
    [lo, hi] (the C field's range), a number that is not whole (5.5, nan)
    or a text that is no whole number ("abc"; "12" is 12, as the CLI reads
    it) gets a stand-in that the library refuses (`sentinel`, by default the
    bound passed, another for each value), and over[str(stand-in)] = the
    value as given lets cli_words() quote it in the message."""
    if isinstance(value, bool):
        raise UsageError("%s: %r: give a whole number" % (name, value))
    if over is not None and isinstance(value, str) and re.fullmatch(_C_INT, value):
        value = int(value)
    try:
        v = operator.index(value)
        given = None if lo <= v <= hi and not (nonzero and v == 0) else str(v)
    except TypeError:
        if over is None or not isinstance(value, (str, numbers.Real)):
            raise UsageError("%s: %r: give a whole number" % (name, value)) from None
        v, given = hi + 1, str(value)
    if given is None:
        return v
    if over is None:
        raise UsageError("%s: %d: give a number from %d to %d" % (name, v, lo, hi))
    s = sentinel if sentinel is not None else (hi if v > hi else lo)
    while str(s) in over:  # one stand-in per value
        s += -1 if s > 0 else 1
    over[str(s)] = given
    return s


def cli_words(message, over):
    """The library's message with the numbers that stood in for values past
    a C field's range (as_int's `over`) given back as the caller gave them,
    as the CLI quotes what it was given."""
    for s, v in (over or {}).items():
        message = re.sub(r"(?<![\d.])%s(?![\d.])" % re.escape(s), v, message)
    return message


def c_string(name, value):
    """`value` (str, bytes or os.PathLike) as the bytes of a C string; a NUL
    byte, which would cut the string there in C (a path naming another
    file), is a UsageError (a ValueError)."""
    try:
        b = os.fsencode(value)
    except TypeError:
        raise UsageError("%s: %r: give a path (str, bytes or os.PathLike)" % (name, value)) \
            from None
    if b"\0" in b:
        raise UsageError("%s: %r: a NUL byte cannot be in a name (it would end it there)"
                         % (name, value))
    return b


def as_float(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise UsageError("%s: %r: give a number" % (name, value))
    return float(value)


def _disk_radius(r, window_text=None):
    """A disk's radius R (0..127): its window is 2R + 1 square. What is no
    such radius (a whole number as C's strtol reads one, "3" too) is refused
    with the CLI's line: --disk R's, or --window diskR's where the radius
    came in `window_text` ("disk300")."""
    v = None
    if isinstance(r, numbers.Integral) and not isinstance(r, bool):
        v = int(r)
    elif isinstance(r, str) and re.fullmatch(_C_INT, r):
        v = int(r)
    if v is None or not 0 <= v <= 127:
        if window_text is not None:
            raise UsageError("--window: '%s': give K or WxH, odd sides from 1 to 255, or diskR "
                             "with R from 0 to 127" % window_text)
        raise UsageError("--disk: '%s': give a radius R from 0 to 127 (the pixels within "
                         "distance R), or a list of them (3,5)" % (r,))
    return v


def window_spec(window, footprint=None, radius=None, over=None):
    """The window as (kx, ky, disk): window=K, (ROWS, COLUMNS), "K" / "KXxKY" as
    the CLI's --window, or a disk: ("disk", R), "diskR", or footprint="disk"
    with radius=R (scikit-image's morphology.disk(R); kx = ky = 2R + 1); or
    scikit-image's footprint array itself (disk(R), or a rectangle of ones),
    which overrides `window`."""
    if footprint is not None and hasattr(footprint, "shape") and radius is None:
        return _footprint_array(footprint)
    if footprint is not None or radius is not None:
        if not isinstance(footprint, str) or footprint not in ("disk", "square", "rectangle"):
            raise UsageError("footprint: %r: use 'disk' (with radius=R), or give window=K"
                             % (footprint,))
        if footprint == "disk":
            if radius is None:
                raise UsageError("footprint='disk' needs radius=R (0 to 127)")
            r = _disk_radius(radius)
            return 2 * r + 1, 2 * r + 1, 1
        if radius is not None:
            raise UsageError("radius goes with footprint='disk'")
    if isinstance(window, str) and window.startswith("disk"):  # as the CLI: lower case
        r = _disk_radius(window[4:], window)
        return 2 * r + 1, 2 * r + 1, 1
    if isinstance(window, (tuple, list)) and len(window) == 2 and window[0] == "disk":
        r = _disk_radius(window[1])
        return 2 * r + 1, 2 * r + 1, 1
    kx, ky = window_sides(window, over)
    return kx, ky, 0


def _footprint_array(fp):
    """scikit-image's own footprint arrays: morphology.disk(R) (a disk) or
    footprint_rectangle / np.ones((KY, KX)) (a window), odd sides; any
    other shape is refused, since only those two are computed."""
    import numpy as np
    a = np.asarray(fp)
    if a.ndim != 2 or a.shape[0] % 2 == 0 or a.shape[1] % 2 == 0:
        raise UsageError("footprint: an array of shape %r: give morphology.disk(R) or a "
                         "rectangle of ones with odd sides" % (a.shape,))
    ky, kx = a.shape
    on = a != 0
    if on.all():
        return as_int("footprint", kx), as_int("footprint", ky), 0
    r = kx // 2
    yy, xx = np.mgrid[-r:r + 1, -r:r + 1]
    if kx == ky and (on == (xx * xx + yy * yy <= r * r)).all():
        return _disk_radius(r) * 2 + 1, 2 * r + 1, 1
    raise UsageError("footprint: only rectangles of ones and morphology.disk(R) are computed; "
                     "this %dx%d footprint is neither" % (kx, ky))


def window_sides(window, over=None):
    """window=K, (ROWS, COLUMNS) as scipy.ndimage's size=, or "K" / "KXxKY"
    as the CLI's --window (width first): (kx, ky).
    With `over` (as_int's), what is no window is quoted in the library's
    message as the CLI quotes its word."""
    square = False
    if isinstance(window, str):
        parts = window.lower().split("x")
        sides = [p for p in parts if re.fullmatch(_C_INT, p)]
        if len(parts) not in (1, 2) or len(sides) != len(parts):
            if over is None:
                raise UsageError("window: %r: give K or 'WxH', odd sides from 1 to 255" % window)
            sides = [window]  # no window at all: one stand-in quoting the text
        square = len(sides) == 1
        kx, ky = sides[0], sides[-1]
    elif isinstance(window, (tuple, list)):
        # (rows, columns), as scipy.ndimage's size= and a footprint's shape;
        # the text "WxH" is the CLI's --window, width first.
        if len(window) != 2:
            raise UsageError("window: %r: give K or (rows, columns), odd sides from 1 to 255"
                             % (window,))
        ky, kx = window
    else:
        kx = ky = window
        square = True
    kx = as_int("window", kx, over=over)
    # A square window's one value, one stand-in: the message quotes it once.
    return kx, kx if square else as_int("window", ky, over=over)


def base_code(base):
    """base=2 | "e" | 10 (or "2", "10"): the winent_base value."""
    from ._lib import BASES
    key = base if isinstance(base, str) else None
    if not isinstance(base, (str, bool)) and isinstance(base, numbers.Real) and base in (2, 10):
        key = str(int(base))
    if key not in BASES:
        raise UsageError("--base: '%s': use e, 2 or 10" % (base,))
    return BASES[key]


def range_pair(rng):
    """range=(lo, hi): two floats (finiteness and order: the library checks).
    (0, 0) is the C fields' "no range": refused here with the library's
    words, as the CLI refuses --range 0:0."""
    if isinstance(rng, (str, bytes)) or not hasattr(rng, "__len__") or len(rng) != 2:
        raise UsageError("range: %r: give (lo, hi), or 'auto'" % (rng,))
    lo, hi = as_float("range", rng[0]), as_float("range", rng[1])
    if lo == 0 and hi == 0:
        raise UsageError("--range: '%.15g:%.15g': give finite numbers LO:HI with LO < HI, or auto"
                         % (lo, hi))
    return lo, hi


def fill_compute(o, window, base, bins, rng, nodata, footprint=None, radius=None, over=None):
    """Set the fields of winent_compute_opts `o` (its defaults already in)
    from the Python values; `rng` is None, (lo, hi) or "auto" (the caller
    handles "auto" itself). Returns nothing; raises UsageError. `over`: as
    as_int's."""
    o.kx, o.ky, o.disk = window_spec(window, footprint, radius, over)
    if base is not None:  # None: the library's default (winent_compute_opts_default)
        o.base = base_code(base)
    if rng is not None and not (isinstance(rng, str) and rng == "auto"):
        o.range_lo, o.range_hi = range_pair(rng)
    if bins is not None:
        # 0 is the C default (distinct values), not a count: refused as --bins 0.
        o.bins = as_int("bins", bins, 1, 2**32 - 1, over, sentinel=2**32 - 1)
    elif rng is not None:
        # As the CLI: a range without bins quantizes into 256.
        o.bins = 256
    if nodata is not None:
        v = as_float("nodata", nodata)
        # NaN is always nodata; nodata=nan only says so.
        o.has_nodata = 0 if math.isnan(v) else 1
        o.nodata = v
