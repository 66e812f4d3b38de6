# SPDX-License-Identifier: BSD-3-Clause
"""winent.entropy(): the map of the user's own kind of array, returned as
that kind: numpy, numpy masked, dask, xarray (numpy- or dask-backed).
The arithmetic is always libwinent's winent_entropy (winent._compute);
this module only routes, resolves the options once and shapes the
result."""
import ctypes

import numpy as np

from . import _lib
from ._blocks import entropy_2d
from ._errors import UsageError
from ._options import base_code, check_compute, default_range, window_spec

# winent_base value -> (the CLI's name, the unit a map is in)
_UNITS = {"e": "nats", "2": "bits", "10": "bans"}
BASE_NAMES = {code: (name, _UNITS[name]) for name, code in _lib.BASES.items()}


def default_base():
    """The base libwinent uses when none is given (winent_compute_opts_default)."""
    o = _lib.winent_compute_opts()
    _lib.lib().winent_compute_opts_default(ctypes.byref(o))
    return BASE_NAMES[o.base][0]


def resolve(window, base, footprint=None, radius=None):
    """(kx, ky, disk, base): the window's sides, 1 for a circular window (its
    sides 2R + 1), and the base actually used, as the CLI's name ("e", "2",
    "10"; None: the library's default). A window the library refuses is a
    UsageError with the CLI's line."""
    kx, ky, disk = window_spec(window, footprint, radius)
    o = _lib.winent_compute_opts()
    _lib.lib().winent_compute_opts_default(ctypes.byref(o))
    o.kx, o.ky, o.disk = kx, ky, disk
    check_compute(o)
    base = default_base() if base is None else BASE_NAMES[base_code(base)][0]
    return kx, ky, disk, base


def window_option(kx, ky, disk):
    """The window as entropy()'s lower layers take it: (KX, KY) or ("disk", R)."""
    return ("disk", kx // 2) if disk else (kx, ky)


def describe(kx, ky, base, disk=0):
    """What a map is, for its long_name: "entropy 9x9 (bits)", "entropy
    disk4 (bits)"."""
    shape = "disk%d" % (kx // 2) if disk else "%dx%d" % (kx, ky)
    return "entropy %s (%s)" % (shape, BASE_NAMES[base_code(base)][1])


def entropy(array, window=None, base=None, bins=None, range=None, nodata=None, device="auto",
            threads=None, out=None, footprint=None, radius=None):
    """The local Shannon entropy map of an image, as the kind of array given.

    For every pixel, the entropy of the values in the window centred on it:
    border windows cropped (never padded), nodata, masked and NaN samples
    not counted, NaN where the centre is one of them (docs/SPEC.md, section
    1). The same bits as ``winent-stream`` with the same options, on every
    engine, whatever the array kind, chunking or scheduler.

    array:
        - a numpy array (rows, columns), or (bands, rows, columns) for a map
          per band: uint8, int8, uint16, int16, uint32, int32, float32 or
          float64 (bool is read as uint8), either byte order, any strides
          (rows sliced from a bigger array are read in place). Returns a
          float32 numpy array of the same shape (``out`` if given).
        - a numpy masked array: masked pixels are nodata (not counted, NaN
          in the map); returns a masked array, masked where the map is NaN.
        - a dask array (2-D, or 3-D with bands first; dask.array.ma masked
          arrays too): returns a lazy dask array of float32 with the same
          chunks (masked where the input is), computed block by block
          with a halo of window // 2 rows and columns from the neighbouring
          blocks and nothing beyond the image's edges; nothing is loaded
          whole. A chunk smaller than the window's reach can lend no halo:
          UsageError, saying what to rechunk (a last chunk that small is
          merged into the one before it).
        - an xarray.DataArray, 2-D (y, x) or 3-D with a band dimension,
          numpy- or dask-backed: returns a DataArray of the same kind with
          the same dims, coordinates (the rioxarray CRS and transform) and
          attrs, nodata from ``nodata``, else ``rio.nodata``, else
          ``_FillValue`` (attrs or encoding); the map's ``_FillValue`` is
          NaN where it can hold NaN (a nodata value, or float samples: the
          CLI's GDAL_NODATA rule) and its ``long_name`` says what it is
          ("entropy 9x9 (bits)").
          Also as ``data_array.winent.entropy(...)``.
    window: K, (KX, KY) (width first, as ``--window 7x3``), or "7x3";
        odd sides 1..255. A circular window: ``("disk", R)`` or "diskR"
        (as ``--disk R``): the pixels with dx^2 + dy^2 <= R^2, R 0..127.
    footprint, radius: ``footprint="disk", radius=R`` is the same disk,
        scikit-image's ``footprint=morphology.disk(R)``; scikit-image's
        footprint arrays are taken too: ``footprint=disk(3)``, or a
        rectangle of ones ``np.ones((3, 7))`` (7 wide, 3 high).
    base: 2 (bits: scikit-image's filters.rank.entropy), "e" (nats) or 10;
        None (the default): libwinent's default, base 2, as the CLI's.
    bins, range: quantize ``bin = floor((v - lo) * bins / (hi - lo))``,
        clamped; ``range=(lo, hi)`` or ``"auto"``: the valid samples' min
        and max over the whole array (per band for 3-D), found before any
        block is computed (a dask reduction for dask arrays). A range
        without bins means 256 bins. Integer arrays without them: each
        distinct value is a bin. Float arrays need a range.
    nodata: samples equal to it are not counted (NaN never is).
    device: "auto", "cpu", "gpu", or a list of GPUs such as "0,1". On a
        dask cluster each worker uses its own GPUs (set CUDA_VISIBLE_DEVICES
        per worker, one worker per GPU).
    threads: CPU threads per call: None means all cores for an array in
        memory, and 1 per block for a dask array (dask's own threads, one
        block each, keep the cores busy; a worker with N threads computes N
        blocks at once).
    out: numpy input only: a float32 array of the same shape for the map
        (columns contiguous).

    Raises UsageError (a ValueError) for a bad option or an unsupported
    array, DeviceError where a GPU asked for cannot be used. Thread-safe:
    calls on different arrays may run at once (the GIL is released during
    the computation).
    """
    from . import _xarray
    if _xarray.is_data_array(array):
        if out is not None:
            raise UsageError("entropy: out is for numpy arrays only")
        return _xarray.entropy(array, window=window, base=base, bins=bins, range=range,
                               nodata=nodata, device=device, threads=threads,
                               footprint=footprint, radius=radius)
    kx, ky, disk, base = resolve(window, base, footprint, radius)
    range = default_range(getattr(array, "dtype", None), range)  # float: "auto" unless told
    options = dict(window=window_option(kx, ky, disk), base=base, bins=bins, range=range,
                   nodata=nodata, device=device)
    from . import _dask
    if _dask.is_dask_array(array):
        if out is not None:
            raise UsageError("entropy: out is for numpy arrays only")
        options["threads"] = 1 if threads is None else threads
        return _dask.entropy(array, kx, ky, **options)
    options["threads"] = 0 if threads is None else threads
    return entropy_numpy(array, out=out, **options)


def entropy_numpy(array, out=None, **options):
    """entropy() of a numpy (or masked) array, 2-D or 3-D, options resolved."""
    masked = isinstance(array, np.ma.MaskedArray)
    a = array if masked else np.asarray(array)
    if a.ndim == 2:
        if out is not None:
            options["out"] = out
        m = entropy_2d(a, **options)
    elif a.ndim == 3:
        if out is not None:
            raise UsageError("entropy: out is for 2-D arrays only")
        # A map per band (the CLI's --band all; range "auto": one range per band).
        m = np.empty(a.shape, np.float32)
        for b in builtin_range(a.shape[0]):
            m[b] = entropy_2d(a[b], **dict(options))
    else:
        raise UsageError("entropy: the array must be 2-D (rows, columns) or 3-D (bands, rows, "
                         "columns), not %d-D" % a.ndim)
    if masked:
        return np.ma.masked_invalid(m, copy=False)
    return m


builtin_range = range
