# SPDX-License-Identifier: BSD-3-Clause
"""Python values of the options (window=9, base=2, range=(0, 1), ...) to
the fields of winent_compute_opts. Only the Python side is checked here
(types, values a C int cannot hold); the library's own validation
(winent_compute_opts_validate) says what is wrong with a value, with the
same one-line message as the CLI."""
import math
import numbers
import operator

from ._errors import UsageError

INT_MAX = 2**31 - 1


def as_int(name, value, lo=-INT_MAX - 1, hi=INT_MAX):
    """`value` as a Python int in [lo, hi] (a bool is refused: True is no count)."""
    if isinstance(value, bool):
        raise UsageError("%s: %r: give a whole number" % (name, value))
    try:
        v = operator.index(value)
    except TypeError:
        raise UsageError("%s: %r: give a whole number" % (name, value)) from None
    if not lo <= v <= hi:
        raise UsageError("%s: %d: give a number from %d to %d" % (name, v, lo, hi))
    return v


def as_float(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise UsageError("%s: %r: give a number" % (name, value))
    return float(value)


def _disk_radius(r):
    """A disk's radius R (0..127): its window is 2R + 1 square."""
    r = as_int("window", r)
    if not 0 <= r <= 127:
        raise UsageError("window: disk %d: give a radius from 0 to 127" % r)
    return r


def window_spec(window, footprint=None, radius=None):
    """The window as (kx, ky, disk): window=K, (KX, KY), "K" / "KXxKY" as
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
    if isinstance(window, str) and window.lower().startswith("disk"):
        try:
            r = int(window[4:])
        except ValueError:
            raise UsageError("window: %r: give 'diskR', R from 0 to 127" % window) from None
        r = _disk_radius(r)
        return 2 * r + 1, 2 * r + 1, 1
    if isinstance(window, (tuple, list)) and len(window) == 2 and window[0] == "disk":
        r = _disk_radius(window[1])
        return 2 * r + 1, 2 * r + 1, 1
    kx, ky = window_sides(window)
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


def window_sides(window):
    """window=K, (KX, KY), or "K" / "KXxKY" as the CLI's --window: (kx, ky)."""
    if isinstance(window, str):
        parts = window.lower().split("x")
        try:
            sides = [int(p) for p in parts]
        except ValueError:
            sides = []
        if len(sides) == 1:
            sides = sides * 2
        if len(sides) != 2:
            raise UsageError("window: %r: give K or 'WxH', odd sides from 1 to 255" % window)
        kx, ky = sides
    elif isinstance(window, (tuple, list)):
        if len(window) != 2:
            raise UsageError("window: %r: give K or (width, height), odd sides from 1 to 255"
                             % (window,))
        kx, ky = window
    else:
        kx = ky = window
    return as_int("window", kx), as_int("window", ky)


def base_code(base):
    """base="e" | 2 | 10 (or "2", "10"): the winent_base value."""
    from ._lib import BASES
    key = base if isinstance(base, str) else None
    if not isinstance(base, (str, bool)) and isinstance(base, numbers.Real) and base in (2, 10):
        key = str(int(base))
    if key not in BASES:
        raise UsageError("base: %r: use 'e', 2 or 10" % (base,))
    return BASES[key]


def range_pair(rng):
    """range=(lo, hi): two floats (finiteness and order: the library checks)."""
    if isinstance(rng, (str, bytes)) or not hasattr(rng, "__len__") or len(rng) != 2:
        raise UsageError("range: %r: give (lo, hi), or 'auto'" % (rng,))
    return as_float("range", rng[0]), as_float("range", rng[1])


def fill_compute(o, window, base, bins, rng, nodata, footprint=None, radius=None):
    """Set the fields of winent_compute_opts `o` (its defaults already in)
    from the Python values; `rng` is None, (lo, hi) or "auto" (the caller
    handles "auto" itself). Returns nothing; raises UsageError."""
    o.kx, o.ky, o.disk = window_spec(window, footprint, radius)
    o.base = base_code(base)
    if rng is not None and not (isinstance(rng, str) and rng == "auto"):
        o.range_lo, o.range_hi = range_pair(rng)
    if bins is not None:
        o.bins = as_int("bins", bins, 0, 2**32 - 1)
    elif rng is not None:
        # As the CLI: a range without bins quantizes into 256.
        o.bins = 256
    if nodata is not None:
        v = as_float("nodata", nodata)
        # NaN is always nodata; nodata=nan only says so.
        o.has_nodata = 0 if math.isnan(v) else 1
        o.nodata = v
