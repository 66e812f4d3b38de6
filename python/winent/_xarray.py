# SPDX-License-Identifier: BSD-3-Clause
"""entropy() of an xarray.DataArray, and the accessor
``data_array.winent.entropy(...)``.

The rows and columns are the dims found by their names (spatial_dims),
in any order; every other dim is mapped over (a map of each plane). The
map keeps the input's dims in their order, every coordinate (so
rioxarray's CRS and transform, carried by the ``spatial_ref`` coordinate)
and the attrs, minus those that describe the input's values (units,
scale, nodata, statistics), plus the provenance the CLI's GeoTIFF carries
(map_attrs). A window may be a distance in map units (map_window). Nodata is read from
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
import numbers
import re
import sys

import numpy as np

from . import _arrays, _dask, _options
from ._blocks import finish_range, nodata_fits
from ._errors import UsageError
from ._version import __version__

try:
    import xarray as xr
except ImportError:  # numpy and dask arrays need no xarray
    xr = None  # type: ignore[assignment]

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


# The names spatial dims go by (lower case), y's then x's: xarray's and
# rioxarray's, CF's, GDAL's and numpy's habits.
_Y_NAMES = ("y", "lat", "latitude", "rows", "row", "northing")
_X_NAMES = ("x", "lon", "long", "longitude", "cols", "col", "columns", "easting")
_CF_AXES = {"Y": ("projection_y_coordinate", "latitude", "grid_latitude"),
            "X": ("projection_x_coordinate", "longitude", "grid_longitude")}


def _by_cf(da, axis):
    """The dims whose coordinate says it is the `axis` ("X"/"Y") in CF's
    attrs (axis, standard_name)."""
    found = []
    for d in da.dims:
        c = da.coords.get(d)
        if c is None:
            continue
        a = c.attrs
        if str(a.get("axis", "")).upper() == axis or a.get("standard_name") in _CF_AXES[axis]:
            found.append(d)
    return found


def _one(da, names, axis, what):
    """The one dim of `da` named as in `names` (else CF's attrs say so)."""
    found = [d for d in da.dims if str(d).lower() in names]
    if not found:
        found = _by_cf(da, axis)
    if len(found) > 1:
        raise UsageError("entropy: the DataArray's dims %r are all %s: keep one (rename the "
                         "others), or select along them" % (tuple(found), what))
    return found[0] if found else None


def spatial_dims(da):
    """(y dim, x dim) of a DataArray, by their names whatever their order:
    y/x, lat/lon, latitude/longitude, rows/cols and the like, else the
    coordinates CF's attrs call Y and X; dims of other names that
    rioxarray was told are spatial (rio.set_spatial_dims) where it is
    imported. The same answer with and without rioxarray for the usual
    names; a DataArray whose spatial dims cannot be told is refused, its
    dims named."""
    rio = _rio(da)
    if rio is not None:
        try:
            y, x = rio.y_dim, rio.x_dim
        except Exception:  # rioxarray raises its own MissingSpatialDimensionError
            y = x = None
        named = set(_Y_NAMES) | set(_X_NAMES)
        if y in da.dims and x in da.dims and y != x and \
                not (str(y).lower() in named and str(x).lower() in named):
            return y, x
    y = _one(da, _Y_NAMES, "Y", "rows (y)")
    x = _one(da, _X_NAMES, "X", "columns (x)")
    if y is None or x is None or y == x:
        raise UsageError(
            "entropy: which dims of the DataArray %r are its rows and columns? None is named "
            "y/x, lat/lon, latitude/longitude or rows/cols: rename them, e.g. "
            "data_array.rename({%r: 'y', %r: 'x'}), or rio.set_spatial_dims(...)"
            % (tuple(da.dims), da.dims[-2] if da.ndim >= 2 else "dim_0",
               da.dims[-1] if da.ndim >= 2 else "dim_1"))
    return y, x


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
    return finish_range(lo - abs(lo) * 1e-13, hi + abs(hi) * 1e-13, True)


# A distance: a number and metres or kilometres ("90m", "1.5 km").
_DISTANCE = re.compile(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*(m|km)\s*", re.IGNORECASE)
_METRES = ("m", "metre", "meter", "metres", "meters")


def _spacing(da, dim):
    """The step of a regular coordinate along `dim`, as a positive number."""
    c = da.coords.get(dim)
    if c is not None and c.ndim == 1 and c.size >= 2 and c.dtype.kind in "iuf":
        v = np.asarray(c.values, np.float64)
        d = np.diff(v)
        if np.all(np.abs(d - d[0]) <= 1e-6 * abs(d[0])) and d[0] != 0:
            return abs(float(d[0]))
        raise UsageError("entropy: a window in map units needs regular coordinates, and "
                         "those of dim %r are not evenly spaced" % (dim,))
    rio = _rio(da)
    if rio is not None:
        try:
            rx, ry = rio.resolution()
            return abs(float(ry if dim == rio.y_dim else rx))
        except Exception:
            pass
    raise UsageError("entropy: a window in map units needs the pixel size: dim %r has no "
                     "regular coordinate (and rioxarray knows no transform)" % (dim,))


def _crs_in_metres(da, dims):
    """Whether the DataArray's CRS (rioxarray's) or its spatial
    coordinates' units are metres; None when nothing says."""
    rio = _rio(da)
    crs = None
    if rio is not None:
        try:
            crs = rio.crs
        except Exception:
            crs = None
    if crs is not None:
        if crs.is_geographic:
            return False
        unit = (getattr(crs, "linear_units", "") or "").lower()
        return unit in _METRES
    units = {str(da.coords[d].attrs.get("units", "")).lower() for d in dims if d in da.coords}
    if units and units <= set(_METRES):
        return True
    return False if units - {""} else None


def _odd_pixels(distance, step):
    p = distance / step
    n = 2 * math.floor((p - 1) / 2 + 0.5) + 1
    return max(n, 1)


def map_window(da, ydim, xdim, window, units):
    """The window in pixels (rows, columns) and the distance as given, for a
    window in map units ("90m", "1.5km", or numbers with units="map"); the
    window unchanged and None for one in pixels. Each side is the nearest
    odd number of pixels to the distance over the pixel's size."""
    if units not in ("pixels", "map"):
        raise UsageError("entropy: units=%r: use 'pixels' or 'map'" % (units,))
    sides = window if isinstance(window, (tuple, list)) and len(window) == 2 else (window,
                                                                                   window)
    texts = [isinstance(v, str) and _DISTANCE.fullmatch(v) for v in sides]
    if units == "pixels" and not any(texts):
        return window, None
    if any(isinstance(v, str) and v.startswith("disk") for v in sides) or \
            (isinstance(window, (tuple, list)) and len(window) == 2 and window[0] == "disk"):
        raise UsageError("entropy: a disk's radius is in pixels: give window=('disk', R)")
    dist = []
    for v, t in zip(sides, texts):
        if t:
            metres = float(t.group(1)) * (1000.0 if t.group(2).lower() == "km" else 1.0)
            ok = _crs_in_metres(da, (ydim, xdim))
            if not ok:
                raise UsageError(
                    "entropy: window=%r is in metres, but the DataArray's CRS %s: give the "
                    "distance in its own units with units='map'"
                    % (window, "is not in metres" if ok is False else "is unknown"))
            dist.append(metres)
        elif units == "map" and not isinstance(v, (str, bool)) and \
                isinstance(v, numbers.Real) and v > 0 and math.isfinite(v):
            dist.append(float(v))
        else:
            raise UsageError("entropy: window=%r: give a distance such as '90m' or '1.5km', or "
                             "positive numbers with units='map'" % (window,))
    rows = _odd_pixels(dist[0], _spacing(da, ydim))
    cols = _odd_pixels(dist[1], _spacing(da, xdim))
    given = window if isinstance(window, str) else \
        ("%s" % list(window) if isinstance(window, (tuple, list)) else "%g" % window)
    if units == "map" and not any(texts):
        given += " (map units)"
    return (rows, cols), given


def _single_range(data, nodata):
    """range="auto" of one plane (numpy or dask), as the library finds it."""
    if _dask.is_dask_array(data):
        return _dask.auto_range(data.reshape(data.shape[-2:]), nodata)
    from ._compute import _auto_range
    return _auto_range(np.asarray(data).reshape(data.shape[-2:]), nodata)


# The map's provenance, as the CLI's GeoTIFF carries it (docs/SPEC.md
# section 4): replaced, never inherited from the input.
_MAP_ATTRS = ("software", "version", "window", "window_size", "window_distance", "base",
              "bins", "range", "units", "measure", "measures", "distance", "angles", "symmetric")


def map_attrs(da, kx, ky, disk, base, bins, rng, nodata, distance, float_input, measure=None):
    """The map's attrs: the input's less those about its values, with the
    CLI's provenance items."""
    attrs = {k: v for k, v in da.attrs.items()
             if k not in _VALUE_ATTRS and k not in _MAP_ATTRS
             and not str(k).startswith("STATISTICS_")}
    # As the CLI's GDAL_NODATA: NaN where some pixel of the map can be NaN
    # (a nodata value, or float samples).
    if (nodata is not None and not math.isnan(float(nodata))) or float_input:
        attrs["_FillValue"] = np.float32(np.nan)
    attrs["long_name"] = _arrays.describe(kx, ky, base, disk, measure)
    unit = _arrays.measure_unit(base, measure)
    if unit:
        attrs["units"] = unit
    if measure is not None:
        attrs["measure"] = _options.Measure(*measure).text()
    attrs["software"] = "winent %s" % __version__
    attrs["version"] = __version__
    attrs["window"] = _options.window_name(kx, ky, disk)  # the CLI's WxH
    attrs["window_size"] = [ky, kx]  # (rows, columns), as scipy.ndimage's size=
    if distance is not None:
        attrs["window_distance"] = distance
    attrs["base"] = base
    if bins is None and rng is not None:
        bins = 256
    attrs["bins"] = int(bins) if bins is not None else "distinct values"
    if rng is not None and not isinstance(rng, str):
        attrs["range"] = "%.17g:%.17g" % (float(rng[0]), float(rng[1]))
    if nodata is not None and not math.isnan(float(nodata)):
        attrs["nodata"] = float(nodata)
    return attrs


def _read_back(src, nodata):
    """(src, nodata): nodata as given, else the raster's; integers decoded
    to floats with NaN for nodata read back as their integers."""
    if nodata is not None:
        return src, nodata
    back = _decoded_integers(src)
    if back is not None:
        dt, fill = back
        return src.fillna(fill).astype(dt), fill
    return src, nodata_of(src)


def entropy(da, window=None, base=None, bins=None, range=None, nodata=None, device="auto",
            threads=None, footprint=None, radius=None, units="pixels", measure=None,
            measures=None):
    """winent.entropy() (with `measure`) and winent.texture() (with
    `measures`) of a DataArray (see there)."""
    ydim, xdim = spatial_dims(da)
    others = [d for d in da.dims if d not in (ydim, xdim)]
    src = da.transpose(*others, ydim, xdim)
    window, distance = map_window(src, ydim, xdim, window, units)
    kx, ky, disk, base = _arrays.resolve(window, base, footprint, radius)
    src, nodata = _read_back(src, nodata)
    range = _options.default_range(src.dtype, range)  # float samples: "auto" unless told
    planes = 1
    for d in others:
        planes *= src.sizes[d]
    data = src.data
    options = dict(window=_arrays.window_option(kx, ky, disk), base=base, bins=bins,
                   range=range, nodata=nodata, device=device)
    if measure is not None:
        options["measure"] = measure
    if measures is not None:
        options["measures"] = measures
    masked = isinstance(data, np.ma.MaskedArray) or \
        isinstance(getattr(data, "_meta", None), np.ma.MaskedArray)
    _arrays.check_measures(kx, ky, disk, base, options, None if masked else src.dtype)
    spec = _arrays.spec_for(kx, ky, disk, base, options)
    if isinstance(range, str) and range == "auto" and planes == 1:
        # One range, found here so that the attrs can state it.
        options["range"] = recorded_range(src) or _single_range(data, nodata)
        if bins is None:
            options["bins"] = 256  # as --range auto
    if _dask.is_dask_array(data):
        options["threads"] = 1 if threads is None else threads
        axes = tuple(("dim %r" % d, "data_array.chunk({%r: 1024})" % d) for d in (ydim, xdim))
        m = _dask.entropy(data, kx, ky, axes=axes, checks=spec, **options)
    else:
        options["threads"] = 0 if threads is None else threads
        m = _arrays.entropy_numpy(np.asarray(data), checks=spec, **options)
    attrs = map_attrs(da, kx, ky, disk, base, options["bins"], options["range"], nodata,
                      distance, data.dtype.kind == "f", measure)
    if measures is not None:
        return _texture_array(da, src, m, attrs, kx, ky, disk, base, measures)
    name = "entropy" if measure is None else _options.Measure(*measure).text()
    out = xr.DataArray(m, dims=src.dims, coords=src.coords, attrs=attrs,
                       name=name).transpose(*da.dims)
    return _encoding(da, out, attrs)


def _encoding(da, out, attrs):
    """The map's encoding: no _FillValue where no NaN can occur (to_zarr and
    to_netcdf would write NaN), the input's grid mapping."""
    if "_FillValue" not in attrs:
        out.encoding["_FillValue"] = None
    gm = da.encoding.get("grid_mapping")
    if gm is not None:
        out.encoding["grid_mapping"] = gm
    return out


def _texture_array(da, src, m, attrs, kx, ky, disk, base, measures):
    """texture()'s maps as a DataArray: a first dim `measure` (the CLI's
    names of the maps), each map's description and unit as coordinates
    along it; the attrs those the maps share."""
    names = [_options.Measure(*ms).text() for ms in measures]
    desc = [_arrays.describe(kx, ky, base, disk, _options.Measure(*ms)) for ms in measures]
    unit = [_arrays.measure_unit(base, ms) or "" for ms in measures]
    attrs["long_name"] = "texture %s: %s" % (attrs["window"], ", ".join(names))
    attrs.pop("units", None)
    attrs["measures"] = names
    glcm = [ms for ms in measures if _options.Measure(*ms).is_glcm]
    if glcm:
        d, bits, asym = glcm[0][2:]
        attrs["distance"] = int(d)
        attrs["angles"] = [45 * k for k in builtins_range(4) if (bits or 15) & (1 << k)]
        attrs["symmetric"] = int(not asym)
    coords = dict(src.coords)
    coords["measure"] = ("measure", names)
    coords["description"] = ("measure", desc)
    coords["units"] = ("measure", unit)
    out = xr.DataArray(m, dims=("measure",) + src.dims, coords=coords, attrs=attrs,
                       name="texture").transpose("measure", *da.dims)
    return _encoding(da, out, attrs)


builtins_range = range
