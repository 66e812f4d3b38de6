# SPDX-License-Identifier: BSD-3-Clause
"""winent: the local Shannon entropy maps of winent-stream from Python.

    import numpy as np, winent
    m = winent.entropy(np.arange(100, dtype=np.uint8).reshape(10, 10) % 7, window=5)
    stats = winent.run("big.tif", "map.zst", window=9, progress=print)
    data, header = winent.read_zst("map.zst")

- :func:`entropy`: the map of an array, as the kind of array given: numpy,
  numpy masked, dask (lazy, block by block, on any dask scheduler or
  cluster), xarray.DataArray of any dims (spatial dims by name, the others
  mapped over; coordinates, CRS and attrs kept; also as
  ``data_array.winent.entropy(window=9)``, registered when winent is
  imported); libwinent's winent_entropy. ``window=(rows, columns)``.
- :func:`texture`: several measures of each window (the diversity family:
  Renyi, Simpson, richness, evenness, majority; the co-occurrence (GLCM)
  measures with scikit-image's levels, distances, angles, symmetric),
  stacked on a first axis (a ``measure`` dim for xarray), one task per
  dask block; also ``data_array.winent.texture([...])``.
- :func:`entropy_block`: the map of one block that carries a halo of its
  neighbours (the function each dask task runs), for schedulers of your own;
  the process keeps its engines warm across blocks, shared by its threads
  (:func:`free_engines`).
- :func:`run` and :class:`Job`: file and stream jobs as the CLI runs them,
  with a progress callback and cancellation (libwinent's job handle).
- :func:`read_zst` and :func:`open_zst`: the .zst maps (one map or the
  several of a --band/--window list), read through libwinent with the
  checks of ``winent-stream --info --check``, the latter lazily by frames.

A thin ctypes layer over libwinent.so.0 (no compiled extension): the
library is found through the environment variable WINENT_LIBRARY, beside
the package (where pip installs it), in the library folder of the install it came with, or the
system's library path, in that order (winent.library_path() says which).
Every failure raises a subclass of :class:`Error` with the library's
status and one-line message; the CLI's notices about a map are warnings
of their own categories (:class:`SaturationWarning`, :class:`RangeWarning`,
:class:`Notice`, all :class:`Warning`). ``python -m winent ARGS`` runs the
winent-stream program.
"""
from ._api import entropy, texture
from ._blocks import entropy_block
from ._errors import (Cancelled, DeviceError, Error, InputError, InternalError, LibraryNotFound,
                      OutputError, UsageError)
from ._job import Job, Notice, Progress, run
from ._lib import library_path
from ._version import __version__
from ._warm import free_engines
from .zst import ZstMap, ZstMapPlane, open_zst, read_zst
from ._warnings import RangeWarning, SaturationWarning, Warning


def gpu_count():
    """The number of usable CUDA devices (0 without a GPU or a CUDA build)."""
    from ._lib import lib
    return lib().winent_gpu_count()


__all__ = [
    "entropy", "texture", "entropy_block", "free_engines", "run", "Job", "Progress", "Notice",
    "read_zst",
    "open_zst",
    "ZstMap", "ZstMapPlane", "library_path", "gpu_count", "Error", "UsageError", "InputError",
    "OutputError",
    "DeviceError", "InternalError", "Cancelled", "LibraryNotFound", "Warning", "RangeWarning",
    "SaturationWarning", "__version__",
]
