# SPDX-License-Identifier: BSD-3-Clause
"""entropy() of an xarray.DataArray, and the accessor
``data_array.winent.entropy(...)``.

The map keeps the input's dims (2-D y, x; or 3-D with a band dim, a map
per band), coordinates (so rioxarray's CRS and transform, carried by the
``spatial_ref`` coordinate) and attrs, minus those that describe the
input's values (units, scale, nodata, statistics). Nodata is read from
rioxarray (``rio.nodata``, ``rio.encoded_nodata``), else ``_FillValue``,
``missing_value`` or ``nodata`` in the attrs or the encoding; the map's
``_FillValue`` is NaN where the map can hold NaN (a nodata value, or float
samples), as the CLI writes GDAL_NODATA. An integer raster that rioxarray or xarray decoded
to floats with NaN for nodata (``masked=True``, ``mask_and_scale``, no
scale or offset) is read back as its integers with its nodata value, so
that each distinct value is a bin, as the CLI reads the file. range="auto"
of a single band takes the statistics the raster records, where it
records them, as the CLI does; else it is computed from the samples.
numpy-backed in, numpy-backed out; dask-backed in, lazy out."""
import math
import sys

import numpy as np

from ._errors import UsageError

# Attrs that describe the input's values, not the map's.
_VALUE_ATTRS = ("_FillValue", "missing_value", "nodata", "nodatavals", "scale_factor",
                "add_offset", "scales", "offsets", "units", "valid_range", "valid_min",
                "valid_max", "long_name", "standard_name", "actual_range", "_Unsigned")


def is_data_array(x):
    """Whether `x` is an xarray.DataArray (without importing xarray)."""
    t = type(x)
    return t.__name__ == "DataArray" and (t.__module__ or "").startswith("xarray.")


def _rio(da):
    """rioxarray's accessor where rioxarray is imported, else None."""
    if "rioxarray" not in sys.modules:
        return None
    try:
        return da.rio
    except AttributeError:
        return None


def spatial_dims(da):
    """(y, x) dims: rioxarray's where it knows them, else the last two."""
    rio = _rio(da)
    if rio is not None:
        try:
            return rio.y_dim, rio.x_dim
        except Exception:  # rioxarray raises its own MissingSpatialDimensionError
            pass
    if da.ndim < 2:
        raise UsageError("entropy: the DataArray must be 2-D (y, x) or 3-D (band, y, x), "
                         "not %d-D" % da.ndim)
    return da.dims[-2], da.dims[-1]


def _first(*dicts, keys=("_FillValue", "missing_value", "nodata")):
    for d in dicts:
        for k in keys:
            v = d.get(k)
            if v is not None:
                return v
    return None


def _decoded_integers(da):
    """(integer dtype, encoded nodata) where `da` holds integers decoded to
    floats with NaN for nodata (and no scale or offset), else None."""
    enc = da.encoding
    dt = enc.get("rasterio_dtype", enc.get("dtype"))
    try:
        dt = np.dtype(dt) if dt is not None else None
    except TypeError:
        return None
    if dt is None or dt.kind not in "iu" or da.dtype.kind != "f":
        return None
    if enc.get("scale_factor", 1) != 1 or enc.get("add_offset", 0) != 0:
        return None
    if da.attrs.get("scale_factor", 1) != 1 or da.attrs.get("add_offset", 0) != 0:
        return None
    fill = _first(enc)
    rio = _rio(da)
    if fill is None and rio is not None:
        fill = rio.encoded_nodata
    if fill is None or np.isnan(float(fill)):
        return None
    from ._blocks import nodata_fits
    if not nodata_fits(dt, fill):
        return None
    return dt, fill


def nodata_of(da):
    """The nodata value of a DataArray's samples, or None."""
    rio = _rio(da)
    if rio is not None:
        v = rio.nodata
        if v is not None:
            return v
    return _first(da.attrs, da.encoding)


def recorded_range(da):
    """range="auto" from the statistics the raster records, as the CLI takes
    them (docs/SPEC.md section 2): STATISTICS_MINIMUM and _MAXIMUM in the
    attrs (rioxarray puts a single band's GDAL metadata, PAM .aux.xml
    included, there), unless STATISTICS_APPROXIMATE=YES, widened by 1e-13
    of their size (GDAL writes 14 digits). None where there are none, or
    for several bands (their statistics are not in the attrs)."""
    a = da.attrs
    if "STATISTICS_MINIMUM" not in a or "STATISTICS_MAXIMUM" not in a:
        return None
    if str(a.get("STATISTICS_APPROXIMATE", "")).upper() == "YES":
        return None
    try:
        lo, hi = float(a["STATISTICS_MINIMUM"]), float(a["STATISTICS_MAXIMUM"])
    except (TypeError, ValueError):
        return None
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return None
    from ._blocks import finish_range
    return finish_range(lo - abs(lo) * 1e-13, hi + abs(hi) * 1e-13, True)


def entropy(da, window=None, base=None, bins=None, range=None, nodata=None, device="auto",
            threads=None, footprint=None, radius=None):
    """winent.entropy() of a DataArray (see there)."""
    import xarray as xr

    from . import _arrays, _options, _dask
    ydim, xdim = spatial_dims(da)
    if ydim not in da.dims or xdim not in da.dims:
        raise UsageError("entropy: the DataArray has no dims %r and %r" % (ydim, xdim))
    others = [d for d in da.dims if d not in (ydim, xdim)]
    if len(others) > 1:
        raise UsageError("entropy: the DataArray must be 2-D (y, x) or 3-D (band, y, x); it "
                         "has dims %r: select or stack the others first" % (da.dims,))
    src = da.transpose(*others, ydim, xdim)
    kx, ky, disk, base = _arrays.resolve(window, base, footprint, radius)
    if nodata is None:
        back = _decoded_integers(src)
        if back is not None:
            dt, fill = back
            src = src.fillna(fill).astype(dt)
            nodata = fill
        else:
            nodata = nodata_of(src)
    range = _options.default_range(src.dtype, range)  # float samples: "auto" unless told
    bands = 1
    for d in others:
        bands *= src.sizes[d]
    if isinstance(range, str) and range == "auto" and bands == 1:
        range = recorded_range(src) or range
        if not isinstance(range, str) and bins is None:
            bins = 256  # as --range auto
    data = src.data
    options = dict(window=_arrays.window_option(kx, ky, disk), base=base, bins=bins,
                   range=range, nodata=nodata, device=device)
    if _dask.is_dask_array(data):
        options["threads"] = 1 if threads is None else threads
        axes = tuple(("dim %r" % d, "data_array.chunk({%r: 1024})" % d) for d in (ydim, xdim))
        m = _dask.entropy(data, kx, ky, axes=axes, **options)
    else:
        options["threads"] = 0 if threads is None else threads
        m = _arrays.entropy_numpy(np.asarray(data), **options)
    attrs = {k: v for k, v in da.attrs.items()
             if k not in _VALUE_ATTRS and not str(k).startswith("STATISTICS_")}
    # As the CLI's GDAL_NODATA: NaN where some pixel of the map can be NaN
    # (a nodata value, or float samples).
    if (nodata is not None and not math.isnan(float(nodata))) or data.dtype.kind == "f":
        attrs["_FillValue"] = np.float32(np.nan)
    attrs["long_name"] = _arrays.describe(kx, ky, base, disk)
    out = xr.DataArray(m, dims=src.dims, coords=src.coords, attrs=attrs,
                       name="entropy").transpose(*da.dims)
    if "_FillValue" not in attrs:
        # No NaN can occur: none written (to_zarr and to_netcdf would write NaN).
        out.encoding["_FillValue"] = None
    gm = da.encoding.get("grid_mapping")
    if gm is not None:
        out.encoding["grid_mapping"] = gm
    return out


class EntropyAccessor:
    """``data_array.winent``: ``.entropy(window=9, ...)`` is
    ``winent.entropy(data_array, window=9, ...)``."""

    def __init__(self, data_array):
        self._da = data_array

    def entropy(self, window=None, base=None, bins=None, range=None, nodata=None, device="auto",
                threads=None, footprint=None, radius=None):
        """The entropy map of this DataArray: winent.entropy(data_array, ...)."""
        return entropy(self._da, window=window, base=base, bins=bins, range=range,
                       nodata=nodata, device=device, threads=threads, footprint=footprint,
                       radius=radius)


def register_accessor():
    """Register ``DataArray.winent`` where xarray is installed."""
    try:
        import xarray as xr
    except ImportError:
        return
    if not hasattr(xr.DataArray, "winent"):
        xr.register_dataarray_accessor("winent")(EntropyAccessor)


class _RegisterWhenImported:
    """A finder on sys.meta_path that, when xarray is first imported, lets
    the usual finders find it and registers the accessor once its module
    has run: ``import winent`` does not pay for importing xarray (and
    pandas), and the accessor is there whichever of the two comes first."""

    def find_spec(self, name, path=None, target=None):
        if name != "xarray":
            return None
        import importlib.util
        if self in sys.meta_path:
            sys.meta_path.remove(self)  # one shot; and find the real one below
        spec = importlib.util.find_spec(name)
        loader = getattr(spec, "loader", None)
        run = getattr(loader, "exec_module", None)
        if run is None:
            return spec

        def exec_module(module):
            run(module)
            register_accessor()

        loader.exec_module = exec_module
        return spec


def register_accessor_when_imported():
    """The accessor now where xarray is imported already, else as soon as
    it is."""
    if "xarray" in sys.modules:
        register_accessor()
    elif not any(isinstance(f, _RegisterWhenImported) for f in sys.meta_path):
        sys.meta_path.insert(0, _RegisterWhenImported())
