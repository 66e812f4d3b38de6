# SPDX-License-Identifier: BSD-3-Clause
"""winent.entropy(): the map of the user's own kind of array, returned as
that kind: numpy, numpy masked, dask, xarray (numpy- or dask-backed).
This module only routes: the layers below it (winent._xarray over
winent._dask and winent._arrays) never import it back."""
from typing import Any, Optional, Sequence, Tuple, Union

import numpy as np

from ._options import default_range
from . import _arrays, _dask, _options, _xarray
from ._errors import UsageError

# window=: K, (rows, columns), "7x3", ("disk", R), "diskR", "90m".
Window = Union[int, str, Tuple[Any, Any], Sequence[Any]]
Range = Union[str, Tuple[float, float], Sequence[float], None]


def entropy(array: Any, window: Optional[Window] = None, base: Union[int, str, None] = None,
            bins: Optional[int] = None, range: Range = None, nodata: Optional[float] = None,
            device: Union[str, int, None] = "auto", threads: Optional[int] = None,
            out: Optional[np.ndarray] = None, footprint: Any = None,
            radius: Optional[int] = None, channel_axis: Optional[int] = None,
            units: str = "pixels", measure: Any = None) -> Any:
    """The local Shannon entropy map of an image, as the kind of array given.

    For every pixel, the entropy of the values in the window centred on it:
    border windows cropped (never padded), nodata, masked and NaN samples
    not counted, NaN where the centre is one of them (docs/SPEC.md, section
    1). The same bits as ``winent-stream`` with the same options, on every
    engine, whatever the array kind, chunking or scheduler.

    array:
        - a numpy array (rows, columns), or with leading axes (bands,
          rows, columns; time, bands, rows, columns; ...): a map of each
          plane of the last two axes. Any integer type whose values fit
          int32 or uint32 (int64 and uint64 too: checked, never wrapped),
          bool, float16, float32, float64, either byte order, any strides
          (rows sliced from a bigger array are read in place). Returns a
          float32 numpy array of the same shape (``out`` if given).
        - a numpy masked array: masked pixels are nodata (not counted, NaN
          in the map); returns a masked array, masked where the map is NaN.
        - a dask array (dask.array.ma masked arrays too), the same
          layouts: returns a lazy dask array of float32 with the same
          chunks (masked where the input is), computed block by block
          with a halo of window // 2 rows and columns from the neighbouring
          blocks and nothing beyond the image's edges; nothing is loaded
          whole. A chunk smaller than the window's reach can lend no halo:
          UsageError, saying what to rechunk (a last chunk that small is
          merged into the one before it).
        - an xarray.DataArray, numpy- or dask-backed, of any dims: the
          spatial ones found by their names (y/x, lat/lon,
          latitude/longitude, rows/cols, rioxarray's spatial dims, CF's
          axis attrs), in any order; every other dim (band, time, ...) is
          mapped over. Returns a DataArray of the same kind with the same
          dims in the same order, coordinates (the rioxarray CRS and
          transform) and attrs, nodata from ``nodata``, else ``rio.nodata``,
          else ``_FillValue`` (attrs or encoding), and the provenance the
          CLI's GeoTIFF carries (units, long_name, window, base, bins,
          range, version). Also as ``data_array.winent.entropy(...)``.
    window: K, or (rows, columns) as scipy.ndimage's ``size=`` and a
        footprint's shape (``window=(3, 7)`` is 3 high, 7 wide); or the
        CLI's text "7x3" (width first, as ``--window 7x3``); sides
        1..255, odd or even (an even side has one more pixel before the
        centre than after, as scipy's ``size=`` and scikit-image's
        ``np.ones((rows, cols))`` footprint). A circular window: ``("disk", R)`` or "diskR" (as ``--disk
        R``): the pixels with dx^2 + dy^2 <= R^2, R 0..127. For a
        georeferenced DataArray, a distance: "90m", "1.5km", or numbers
        with ``units="map"`` (the CRS's units): each side the nearest odd
        number of pixels, stated in the result's attrs.
    units: "pixels" (the default) or "map": ``window`` in the CRS's units
        (a DataArray with regular coordinates).
    footprint, radius: ``footprint="disk", radius=R`` is the same disk,
        scikit-image's ``footprint=morphology.disk(R)``; scikit-image's
        footprint arrays are taken too: ``footprint=disk(3)``, a
        rectangle of ones ``np.ones((3, 7))`` (3 high, 7 wide), or any
        other 2-D array up to 255 x 255 (``diamond(3)``, ``star(3)``, a
        ring, ``np.ones((16, 16))``: nonzero is in the window), centred
        at row rows // 2, column cols // 2 as scikit-image centres it.
    channel_axis: numpy and dask arrays: the axis of the bands, as
        scikit-image's argument (``channel_axis=-1`` for an RGB image of
        shape (rows, columns, 3)); the map has the input's shape. A 3-D
        array whose last axis is 3 or 4 and whose others are larger is
        refused without it (read bands first it would be hundreds of maps
        3 pixels wide); ``channel_axis=0`` says it is bands first.
    base: 2 (bits: scikit-image's filters.rank.entropy), "e" (nats) or 10;
        None (the default): libwinent's default, base 2, as the CLI's.
    bins, range: quantize ``bin = floor((v - lo) * bins / (hi - lo))``,
        clamped; ``range=(lo, hi)`` or ``"auto"``: the valid samples' min
        and max over the whole array (per plane), found before any block
        is computed (a dask reduction for dask arrays). A range without
        bins means 256 bins. Integer arrays without them: each distinct
        value is a bin. Float arrays need a range.
    nodata: samples equal to it are not counted (NaN never is).
    device: "auto", "cpu", "gpu", or a list of GPUs such as "0,1". On a
        dask cluster each worker uses its own GPUs (set CUDA_VISIBLE_DEVICES
        per worker, one worker per GPU).
    threads: CPU threads per call: None means all cores for an array in
        memory, and 1 per block for a dask array (dask's own threads, one
        block each, keep the cores busy).
    out: numpy input only: a float32 array of the same shape for the map
        (columns contiguous).
    measure: what each window gives, the CLI's ``--measure``: None or
        "entropy" (the default: this map), "renyi:Q" (or ("renyi", Q)),
        "simpson", "richness", "evenness", "majority", or a co-occurrence
        measure ("glcm-contrast", ...) at distance 1 over the four angles,
        symmetric; the same map as ``winent.texture(array, [measure],
        ...)[0]`` (texture takes the pairs' options and several measures).
        A DataArray's map is then named after the measure.

    Warnings (the CLI's notices, counted over the whole array and given
    once): winent.RangeWarning where more than 1 % of the valid samples lie
    outside ``range`` or they span under 5 % of it; winent.SaturationWarning
    where over a quarter of the map's valid pixels are at the largest
    entropy the options allow. For a dask array they come when the last
    block of the map is computed, counted per process: whole with dask's
    threaded scheduler, not given on a cluster of several worker processes.

    Raises UsageError (a ValueError) for a bad option or an unsupported
    array, DeviceError where a GPU asked for cannot be used. Thread-safe:
    calls on different arrays may run at once (the GIL is released during
    the computation).
    """
    m = None if measure is None else _options.measure_list("measure", measure, (1, 0, 0))
    if m is not None and len(m) != 1:
        raise UsageError("entropy: measure=%r: give one measure (winent.texture makes several "
                         "maps)" % (measure,))
    extra = {} if m is None else {"measure": m[0]}
    return _map(array, window, base, bins, range, nodata, device, threads, out, footprint,
                radius, channel_axis, units, extra)


def texture(array: Any, measures: Any, window: Optional[Window] = None,
            levels: Optional[int] = None, distances: Any = 1, angles: Any = None,
            symmetric: bool = True, base: Union[int, str, None] = None, range: Range = None,
            nodata: Optional[float] = None, device: Union[str, int, None] = "auto",
            threads: Optional[int] = None, channel_axis: Optional[int] = None,
            units: str = "pixels") -> Any:
    """Several measures of each window, maps stacked in the order given.

    The maps of ``winent-stream --measure M1,M2,... --window ... --levels N
    --distance D --angles ... [--asymmetric]``, bit for bit, on every kind
    of array :func:`entropy` takes (numpy, masked, dask, xarray; the
    accessor ``data_array.winent.texture(...)``), with the same layouts,
    windows, nodata, devices and threads.

    measures: one name or a list of them, each "entropy", "renyi:Q" (or
        ("renyi", Q)), "simpson", "richness", "evenness", "majority", or a
        co-occurrence (GLCM) measure: "glcm-entropy", "glcm-asm",
        "glcm-energy", "glcm-contrast", "glcm-dissimilarity",
        "glcm-homogeneity", "glcm-correlation", "glcm-mean",
        "glcm-variance", "glcm-cluster-shade", "glcm-cluster-prominence",
        "glcm-cond-entropy", "glcm-mutual-info" (docs/SPEC.md says each).
        Each at most once.
    window: as :func:`entropy`'s (the co-occurrence measures take
        rectangles with odd sides only).
    levels: quantize into N levels over ``range`` (default "auto": the
        valid samples' min and max), as ``--levels N``; at most 1024 for
        the co-occurrence measures. Without it integer samples are their
        own levels (8-bit ones only for co-occurrence: wider types need
        ``levels``), float samples 256 levels over their range.
    distances: the co-occurrence pairs' distance in pixels, 1 to 127: an
        int, or a list of one as scikit-image's graycomatrix takes it (a
        list of several is refused: one distance per call, as the CLI's
        ``--distance``; call again for another).
    angles: the pairs' directions: None (all four, each measured and the
        values averaged, as GRASS r.texture), or a list of angles in
        radians as graycomatrix takes them (0, np.pi/4, np.pi/2,
        3*np.pi/4) or in degrees (0, 45, 90, 135): 0 is the pixel to the
        right, 90 the one below (graycomatrix's offsets).
    symmetric: True (the default, as Haralick, GRASS and graycomatrix's
        symmetric=True): each pair counted both ways; False: (i, j) only.
    base, range, nodata, device, threads, channel_axis, units: as
        :func:`entropy`'s.

    Returns float32 maps: for a numpy (or masked, or dask) array, an array
    of shape (len(measures),) + array.shape; for a DataArray, a DataArray
    named "texture" with a first dim ``measure`` whose coordinate holds
    the measures as the CLI names its maps ("glcm-contrast",
    "glcm-entropy:d2:a0+90:asym") and whose ``description`` and ``units``
    coordinates hold each map's description ("glcm-entropy 15x15 (bits)")
    and unit. A dask array's blocks make every measure's map in one task
    (a halo of window // 2, as for the entropy: a pair never leaves its
    window). Raises UsageError (a ValueError) naming the argument for what
    the library refuses.
    """
    d, bits, asym = _options.pair_options(distances, angles, symmetric)
    ms = _options.measure_list("measures", measures, (d, bits, asym))
    if levels is not None:
        levels = _options.as_int("levels", levels, 1, 2**32 - 1)  # the library says how many
    if levels is not None and range is None:
        range = "auto"  # as the CLI's --levels N alone: N levels over the samples' range
    return _map(array, window, base, levels, range, nodata, device, threads, None, None, None,
                channel_axis, units, {"measures": ms}, what="texture")


def _map(array: Any, window: Any, base: Any, bins: Any, range: Any, nodata: Any, device: Any,
         threads: Any, out: Any, footprint: Any, radius: Any, channel_axis: Any, units: str,
         extra: dict, what: str = "entropy") -> Any:
    """entropy() and texture() of each kind of array; `extra` holds the
    measure (measure=) or the measures (measures=)."""
    if _xarray.is_data_array(array):
        if out is not None:
            raise UsageError("%s: out is for numpy arrays only" % what)
        if channel_axis is not None:
            raise UsageError("%s: channel_axis is for numpy and dask arrays: a DataArray's "
                             "spatial dims are found by their names, every other dim is mapped "
                             "over" % what)
        return _xarray.entropy(array, window=window, base=base, bins=bins, range=range,
                               nodata=nodata, device=device, threads=threads,
                               footprint=footprint, radius=radius, units=units, **extra)
    if units != "pixels":
        raise UsageError("%s: units=%r: a window in map units needs a georeferenced "
                         "DataArray; give window in pixels" % (what, units))
    is_dask = _dask.is_dask_array(array)
    if not is_dask and not isinstance(array, np.ma.MaskedArray):
        array = np.asarray(array)
    ax = _arrays.check_layout(array.shape, channel_axis)
    if out is not None and (is_dask or ax is not None):
        raise UsageError("entropy: out is for numpy arrays of (rows, columns) only")
    kx, ky, disk, base = _arrays.resolve(window, base, footprint, radius)
    range = default_range(array.dtype, range)  # float samples: "auto" unless told
    options = dict(window=_arrays.window_option(kx, ky, disk), base=base, bins=bins,
                   range=range, nodata=nodata, device=device, **extra)
    masked = isinstance(array, np.ma.MaskedArray) or \
        isinstance(getattr(array, "_meta", None), np.ma.MaskedArray)
    _arrays.check_measures(kx, ky, disk, base, options, None if masked else array.dtype)
    spec = _arrays.spec_for(kx, ky, disk, base, options)
    lead = 1 if "measures" in extra else 0  # texture's maps: a first axis of measures
    if ax is not None:
        array = _move(array, ax, 0, is_dask)
    if is_dask:
        options["threads"] = 1 if threads is None else threads
        m = _dask.entropy(array, kx, ky, checks=spec, **options)
    else:
        options["threads"] = 0 if threads is None else threads
        m = _arrays.entropy_numpy(array, out=out, checks=spec, **options)
    return m if ax is None else _move(m, lead, ax + lead, is_dask)


def _move(a: Any, src: int, dst: int, is_dask: bool) -> Any:
    if is_dask:
        import dask.array as da
        return da.moveaxis(a, src, dst)
    return np.moveaxis(a, src, dst)


class EntropyAccessor:
    """``data_array.winent``: ``.entropy(window=9, ...)`` is
    ``winent.entropy(data_array, window=9, ...)``."""

    def __init__(self, data_array):
        self._da = data_array

    def entropy(self, window=None, base=None, bins=None, range=None, nodata=None, device="auto",
                threads=None, footprint=None, radius=None, units="pixels", measure=None):
        """The entropy map of this DataArray: winent.entropy(data_array, ...)."""
        return entropy(self._da, window=window, base=base, bins=bins, range=range,
                       nodata=nodata, device=device, threads=threads, footprint=footprint,
                       radius=radius, units=units, measure=measure)

    def texture(self, measures, **options):
        """The maps of several measures of this DataArray, on a first dim
        ``measure``: winent.texture(data_array, measures, ...)."""
        return texture(self._da, measures, **options)


# The accessor, as rioxarray registers its own: at import, where xarray is.
if _xarray.xr is not None and not hasattr(_xarray.xr.DataArray, "winent"):
    _xarray.xr.register_dataarray_accessor("winent")(EntropyAccessor)
