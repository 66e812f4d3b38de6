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
    """base=2 | "e" | 10 (or "2", "10"): the winent_base value."""
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


def fill_compute(o, window, base, bins, rng, nodata):
    """Set the fields of winent_compute_opts `o` (its defaults already in)
    from the Python values; `rng` is None, (lo, hi) or "auto" (the caller
    handles "auto" itself). Returns nothing; raises UsageError."""
    o.kx, o.ky = window_sides(window)
    if base is not None:  # None: the library's default (winent_compute_opts_default)
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
