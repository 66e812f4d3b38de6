# SPDX-License-Identifier: BSD-3-Clause
"""One block of a bigger image: the map of a block that carries a halo of
its neighbours' pixels, and the pieces of range="auto" that are counted
block by block. numpy and the package only (no dask): the dask path
(winent._dask) calls these in its tasks, and tools/bench-dask-gpu.py calls
the same function in worker processes of its own.

A block's map is byte-identical to that part of the whole image's map
when the halo holds every neighbour pixel of the window's reach (window
// 2 rows above and below, columns left and right) that lies inside the
image, and nothing beyond the image's edges: border windows are then
cropped exactly where the image ends, as the CLI crops them (docs/SPEC.md
section 1). Padding the image (dask's boundary "reflect" or a constant)
would count pixels that are not in the image."""
import math
from typing import Any, Optional, Sequence, Tuple

import numpy as np

from . import _warm
from ._compute import entropy as _entropy_2d
from ._compute import texture as _texture_2d
from ._compute import prepare, run_cold
from ._errors import UsageError


def nodata_fits(dtype, nodata):
    """Whether integer samples of `dtype` can equal `nodata` (a whole number
    inside the type's limits)."""
    if nodata is None:
        return False
    v = float(nodata)
    if math.isnan(v) or v != math.floor(v):
        return False
    info = np.iinfo(dtype)
    return info.min <= v <= info.max


# Integer types widened to hold one more value for masked pixels, as the
# library's GDAL source widens a masked band (docs/SPEC.md section 3, Masks).
_WIDER = {np.dtype(np.uint8): (np.uint16, 256), np.dtype(np.int8): (np.int16, -129),
          np.dtype(np.uint16): (np.int32, -1), np.dtype(np.int16): (np.int32, -32769)}


def _unused_value(valid, dtype):
    """A value of `dtype` that no sample of `valid` holds."""
    info = np.iinfo(dtype)
    if valid.size == 0:
        return 0
    lo, hi = int(valid.min()), int(valid.max())
    if lo > info.min:
        return lo - 1
    if hi < info.max:
        return hi + 1
    u = np.unique(valid)
    gaps = np.nonzero(np.diff(u.astype(np.int64)) > 1)[0]
    return int(u[gaps[0]]) + 1


def fill_masked(a, nodata):
    """A numpy masked array as (plain array, nodata) the library reads with
    its masked pixels as nodata: NaN for floats; `nodata` where the type
    holds it; else u8/i8/u16/i16 widened with a value outside the type
    (256, -129, -1, -32769) and u32/i32 with a value no unmasked sample
    holds. The map is then byte for byte the map of the unmasked samples."""
    mask = np.ma.getmaskarray(a)
    data = np.ma.getdata(a)
    if not mask.any():
        return data, nodata
    if data.dtype == np.bool_:
        data = data.view(np.uint8)
    if data.dtype.kind == "f":
        out = data.copy()
        out[mask] = np.nan
        return out, nodata
    if data.dtype.kind not in "iu":
        raise UsageError("entropy: masked arrays of %s are not supported" % data.dtype)
    if nodata_fits(data.dtype, nodata):
        out = data.copy()
        out[mask] = data.dtype.type(int(float(nodata)))
        return out, nodata
    # A nodata value the type cannot hold matches no sample: only the mask counts.
    wider = _WIDER.get(data.dtype.newbyteorder("="))
    if wider is not None:
        out = data.astype(wider[0])
        out[mask] = wider[1]
        return out, wider[1]
    v = _unused_value(data[~mask], data.dtype)
    out = data.copy()
    out[mask] = v
    return out, v


def _cropped(a, warm, crop, options):
    """One map of 2-D `a` (options as winent.entropy's, ``measure=`` too)
    without `crop` = (top, bottom, left, right) rows and columns, warm
    (winent._warm: the process's kept engine) or cold (winent_entropy)."""
    top, bottom, left, right = crop
    if not warm:
        m = _entropy_2d(a, **options)
    else:
        job = prepare(a, **options)
        h, w = job.shape
        m = None if job.a is None else _warm.compute(job, top, h - bottom)
        if m is None:
            m = run_cold(job)[top:h - bottom]
        top = bottom = 0
    return m[top:m.shape[0] - bottom, left:m.shape[1] - right]


def entropy_2d(a, measures=None, warm=False, crop=(0, 0, 0, 0), **options):
    """The map of one 2-D numpy or masked array (options as
    winent.entropy's, resolved: an explicit base); with `measures` (a list
    of winent._options.Measure), the map of each, stacked on a first axis.
    warm: through the process's kept engines (winent._warm; several
    measures on the CPU alone: one cold pass); crop: (top, bottom, left,
    right) rows and columns of the map left out."""
    if isinstance(a, np.ma.MaskedArray):
        a, options["nodata"] = fill_masked(a, options.get("nodata"))
    if measures is None:
        if not warm and crop == (0, 0, 0, 0):
            return _entropy_2d(a, **options)
        return _cropped(a, warm, crop, options)
    top, bottom, left, right = crop
    # One pass for them all (the co-occurrence measures then count each
    # window's pairs once), where the block is cold or the engines kept
    # would be CPU engines (a kept engine computes one measure; a GPU's
    # setup, which kept engines save, would take most of a block's time).
    if not warm or (len(measures) > 1 and _warm.cpu_only(options.get("device"))):
        m = _texture_2d(a, measures, **options)
        return m[:, top:m.shape[1] - bottom, left:m.shape[2] - right]
    shape = (a.shape[0] - top - bottom, a.shape[1] - left - right)
    out = np.empty((len(measures),) + shape, np.float32)
    for k, m in enumerate(measures):  # a kept engine computes one measure
        out[k] = _cropped(a, warm, crop, dict(options, measure=m))
    return out


def entropy_block(block: Any, halo: Tuple[int, int, int, int] = (0, 0, 0, 0),
                  band_ranges: Optional[Sequence[Tuple[float, float]]] = None, band0: int = 0,
                  warm: bool = True, **options: Any) -> np.ndarray:
    """The map of one block of a bigger image, without its halo.

    block: (rows, columns), or with leading dims (bands, ..., rows,
        columns), a map per plane: a numpy (or masked)
        array of the block with `halo` = (top, bottom, left, right) rows
        and columns of its neighbours around it (0 on a side where the
        block touches the image's edge).
    band_ranges: None, or one (lo, hi) per plane of the whole image (range
        "auto" per band), the leading dims flattened in C order; `band0` is
        the block's first plane in it.
    options: winent.entropy's (window, base, bins, range, nodata, device,
        threads, measure), or ``measures=`` (a list of measures) for a map of
        each, stacked on a new first axis (winent.texture's blocks).
    warm: True (the default) computes through an engine the process keeps
        for these options and device, with its GPU buffers and pinned
        staging, made at its first block and reused by the next ones, and
        shared by the process's threads: their blocks go through it
        together, a GPU's copies of one block overlapping the kernels of
        another (freed by winent.free_engines()); False
        sets a whole job up and tears it down for the block
        (winent_entropy), as winent.entropy does for an array. Several
        measures (``measures=``) computed on the CPU alone are one such
        job for them all (winent_texture: one pass, each window's pairs
        counted once), since a kept engine computes one measure. The same
        bits either way.

    Returns the float32 map of the block's own pixels: byte-identical to
    those pixels of the whole image's map when the halo holds the window's
    reach (window // 2) on every side that has a neighbour (the
    co-occurrence pairs too: both ends of a pair lie in the window)."""
    top, bottom, left, right = halo
    crop = (int(top), int(bottom), int(left), int(right))
    if block.ndim == 2:
        return entropy_2d(block, warm=warm, crop=crop, **options)
    if block.ndim < 2:
        raise UsageError("entropy: a block must be 2-D (rows, columns), or have leading dims "
                         "(bands, ..., rows, columns)")
    lead = block.shape[:-2]
    planes = block.reshape((-1,) + block.shape[-2:])
    h, w = block.shape[-2] - top - bottom, block.shape[-1] - left - right
    measures = options.get("measures")
    nm = () if measures is None else (len(measures),)
    out = np.empty(nm + (planes.shape[0], h, w), np.float32)
    for b in range(planes.shape[0]):
        o = dict(options)
        if band_ranges is not None:
            o["range"] = tuple(band_ranges[band0 + b])
        out[..., b, :, :] = entropy_2d(planes[b], warm=warm, crop=crop, **o)
    return out.reshape(nm + lead + (h, w))


def valid_mask(a, nodata):
    """The samples of `a` (numpy or dask) that range="auto" counts: finite,
    and not nodata by the kernels' rule (float32 samples against nodata
    cast to float32; integers against a whole nodata value)."""
    has_nodata = nodata is not None and not math.isnan(float(nodata))
    if a.dtype.kind == "f":
        valid = np.isfinite(a)
        if has_nodata:
            valid = valid & (a != a.dtype.type(nodata))
        return valid
    if has_nodata:
        v = float(nodata)
        if v == math.floor(v) and abs(v) < 9.2e18:
            return a != np.int64(v)
    return None


def sample_limits(dtype):
    """(smallest, largest) a sample of `dtype` can be: the neutral values of
    the min and max over the valid samples."""
    if dtype.kind == "f":
        return -np.inf, np.inf
    if dtype.kind == "b":
        return False, True
    info = np.iinfo(dtype)
    return info.min, info.max


def finish_range(lo, hi, any_valid):
    """range="auto" from the valid samples' min and max, as the library's
    first pass over a file ends it: none valid, 0..1; one value v,
    v .. v + max(1, |v| 2^-20)."""
    if not any_valid:
        lo, hi = 0.0, 1.0
    lo, hi = float(lo), float(hi)
    if not hi > lo:
        hi = lo + max(abs(lo) * 2.0**-20, 1.0)
    return lo, hi
