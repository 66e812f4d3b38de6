# SPDX-License-Identifier: BSD-3-Clause
"""The options of winent.entropy() resolved once, how an array's axes are
read (channel_axis), and the map of a numpy (or masked) array. The
arithmetic is always libwinent's winent_entropy (winent._compute);
winent._api routes each kind of array here, to winent._dask or to
winent._xarray."""
import ctypes
import operator

import numpy as np

from . import _checks, _lib
from ._blocks import entropy_2d
from ._errors import UsageError
from ._options import (Footprint, base_code, check_compute, fill_compute, set_window,
                       window_name, window_spec)
from ._options import check_measures as _check_list

# winent_base value -> (the CLI's name, the unit a map is in)
_UNITS = {"e": "nats", "2": "bits", "10": "bans"}
BASE_NAMES = {code: (name, _UNITS[name]) for name, code in _lib.BASES.items()}


def default_base():
    """The base libwinent uses when none is given (winent_compute_opts_default)."""
    o = _lib.winent_compute_opts()
    _lib.lib().winent_compute_opts_default(ctypes.byref(o))
    return BASE_NAMES[o.base][0]


def resolve(window, base, footprint=None, radius=None):
    """(kx, ky, disk, base): the window's sides; `disk` 0 for a rectangle, 1
    for a circular window (its sides 2R + 1), or a Footprint (any other
    footprint array: its box's sides); and the base actually used, as the CLI's name ("e", "2",
    "10"; None: the library's default). A window the library refuses is a
    UsageError with the CLI's line."""
    kx, ky, disk = window_spec(window, footprint, radius)
    o = _lib.winent_compute_opts()
    _lib.lib().winent_compute_opts_default(ctypes.byref(o))
    set_window(o, kx, ky, disk)
    check_compute(o)
    base = default_base() if base is None else BASE_NAMES[base_code(base)][0]
    return kx, ky, disk, base


def window_option(kx, ky, disk):
    """The window as entropy()'s lower layers take it: (ROWS, COLUMNS) or
    ("disk", R), or the Footprint itself."""
    if isinstance(disk, Footprint):
        return disk
    return ("disk", kx // 2) if disk else (ky, kx)


# The measures in the unit of the base; the others have none (a ratio, a
# count, a value of the input).
_LOG_MEASURES = ("entropy", "renyi", "glcm-entropy", "glcm-cond-entropy", "glcm-mutual-info")


def measure_unit(base, measure=None):
    """The unit of a measure's map: "bits", "nats" or "bans" for the
    entropies, None for the others."""
    if measure is not None and _lib.MEASURES[measure[0]] not in _LOG_MEASURES:
        return None
    return BASE_NAMES[base_code(base)][1]


def describe(kx, ky, base, disk=0, measure=None):
    """What a map is, for its long_name: the CLI's band description (the
    measure as it names it, the window) and the unit: "entropy 9x9
    (bits)", "entropy disk4 (bits)", "glcm-contrast:d2 15x15", "simpson 5x5"."""
    shape = window_name(kx, ky, disk)
    name = "entropy" if measure is None else measure.text()
    unit = measure_unit(base, measure)
    return "%s %s (%s)" % (name, shape, unit) if unit else "%s %s" % (name, shape)


def library_dtype(dtype):
    """The winent_dtype the library will read an array of numpy `dtype`
    as, where the type alone says it (bool as u8, float16 as float32,
    either byte order); None for the integers read as the narrowest type
    that holds their values (int64, uint64)."""
    import numpy as np
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return 0
    if dt == np.float16:
        dt = np.dtype(np.float32)
    name = {"u1": "u8", "i1": "i8", "u2": "u16", "i2": "i16", "u4": "u32", "i4": "i32",
            "f4": "f32", "f8": "f64"}.get("%s%d" % (dt.kind, dt.itemsize))
    return None if name is None else _lib.DTYPES.index(name)


def check_measures(kx, ky, disk, base, options, dtype=None):
    """The library's checks of texture's measure list (each measure with
    the window, none twice) before any array is read; with the array's
    `dtype` (None for a masked array, whose nodata the package chooses),
    the checks of the samples' type too (levels of a wide type, a nodata
    no sample can equal), in the order a job makes them."""
    measures = options.get("measures")
    if not measures:
        return
    o = _lib.winent_compute_opts()
    _lib.lib().winent_compute_opts_default(ctypes.byref(o))
    rng = options.get("range")
    fill_compute(o, window_option(kx, ky, disk), base, options.get("bins"),
                 None if isinstance(rng, str) else rng, options.get("nodata"))
    auto = isinstance(rng, str)
    if auto and o.bins == 0:
        o.bins = 256 if options.get("bins") is None else options["bins"]
    code = None if dtype is None else library_dtype(dtype)
    if code is not None:
        o.dtype = code
    _check_list(o, measures, range_auto=auto, dtype_given=code is not None,
                nodata_given=options.get("nodata") is not None and code is not None)


def check_layout(shape, channel_axis, what="array"):
    """The axis holding the bands (`channel_axis`, scikit-image's argument)
    as a non-negative index, or None: the planes are the last two axes and
    any leading axes are mapped over. A 3-D array that looks like an image
    with its colours last (H x W x 3 or 4, scikit-image's and PIL's layout)
    is refused without channel_axis: read bands first, it would be 512
    maps of 512 x 3."""
    ndim = len(shape)
    if ndim < 2:
        raise UsageError("entropy: the %s must be 2-D (rows, columns) or more, not %d-D"
                         % (what, ndim))
    if channel_axis is not None:
        try:
            ax = operator.index(channel_axis)
        except TypeError:
            raise UsageError("entropy: channel_axis=%r: give an axis number, e.g. -1"
                             % (channel_axis,)) from None
        if ndim < 3 or not -ndim <= ax < ndim:
            raise UsageError("entropy: channel_axis=%d: the %s of shape %r has no such axis "
                             "besides its rows and columns" % (ax, what, tuple(shape)))
        return ax % ndim
    if ndim == 3 and shape[2] in (3, 4) and shape[0] > shape[2] and shape[1] > shape[2]:
        raise UsageError(
            "entropy: a %s of shape %r looks like an image with its %d channels last "
            "(scikit-image's layout): give channel_axis=-1 for a map per channel, or "
            "channel_axis=0 if it really is %d bands of %d x %d"
            % (what, tuple(shape), shape[2], shape[0], shape[1], shape[2]))
    return None


def entropy_numpy(array, out=None, checks=None, **options):
    """entropy() of a numpy (or masked) array, options resolved: 2-D, or a
    map per plane of the last two axes (leading axes mapped over; range
    "auto": one range per plane, as the CLI's --band all). `checks`: a
    _checks.Spec to count the map against and warn (None: no warnings).
    With ``measures=`` (winent.texture) the maps are stacked on a new first
    axis."""
    masked = isinstance(array, np.ma.MaskedArray)
    a = array if masked else np.asarray(array)
    if a.ndim < 2:
        raise UsageError("entropy: the array must be 2-D (rows, columns) or more, not %d-D"
                         % a.ndim)
    if a.ndim == 2:
        if out is not None:
            options["out"] = out
        m = entropy_2d(a, **options)
    else:
        if out is not None:
            raise UsageError("entropy: out is for 2-D arrays only")
        planes = a.reshape((-1,) + a.shape[-2:])
        measures = options.get("measures")
        nm = () if measures is None else (len(measures),)
        m = np.empty(nm + planes.shape, np.float32)
        for b in builtin_range(planes.shape[0]):
            m[..., b, :, :] = entropy_2d(planes[b], **dict(options))
        m = m.reshape(nm + a.shape)
    if checks is not None:
        _checks.warn(_checks.counts(a, m, checks), checks)  # at the caller outside the package
    if masked:
        return np.ma.masked_invalid(m, copy=False)
    return m


def spec_for(kx, ky, disk, base, options):
    """The _checks.Spec of resolved options (the range the caller gave)."""
    bins = options.get("bins")
    rng = options.get("range")
    if bins is None and rng is not None:
        bins = 256
    measures = options.get("measures", options.get("measure"))
    return _checks.Spec(kx, ky, disk, base, bins, rng, options.get("nodata"), measures)


builtin_range = range
