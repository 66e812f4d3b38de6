# SPDX-License-Identifier: BSD-3-Clause
"""entropy() of a dask array: lazy, block by block, each block with a halo
of exactly the window's reach taken from its neighbours and nothing
beyond the image's edges, so that the map is byte-identical to the CLI's
and to winent.entropy of the whole array in memory.

The graph is dask's own: dask.array.overlap.overlap(boundary="none") lends
each block window // 2 rows and columns of its neighbours (none at the
image's edges), and one task per block (winent._blocks.entropy_block)
computes the map and drops the halo. It runs on any scheduler: threads,
processes, dask.distributed (the ctypes library loads in each worker the
first time a task there calls it).

range="auto" is one range for the whole array (one per plane of an
array with leading axes, as the CLI's --band all), a dask reduction computed at once when
entropy() is called, before any block runs: the input is read twice, as
the CLI's first pass reads a file twice, and never held whole."""
import functools

import numpy as np

from . import _checks
from ._blocks import entropy_block, finish_range, sample_limits, valid_mask
from ._errors import UsageError


def is_dask_array(x):
    """Whether `x` is a dask.array.Array (without importing dask)."""
    mod = type(x).__module__ or ""
    return mod.startswith("dask.") and hasattr(x, "__dask_graph__") and hasattr(x, "chunks")


def auto_range(x, nodata):
    """range="auto" of a dask array, computed now: one (lo, hi) for a 2-D
    array, a list of one per plane (leading axes in C order) otherwise."""
    import dask
    import dask.array as da
    masked = isinstance(getattr(x, "_meta", None), np.ma.MaskedArray)
    data = da.ma.getdata(x) if masked else x
    valid = valid_mask(data, nodata)
    if masked:
        keep = ~da.ma.getmaskarray(x)
        valid = keep if valid is None else valid & keep
    axes = (-2, -1)
    small, big = sample_limits(data.dtype)
    if valid is None:
        lo, hi = data.min(axis=axes), data.max(axis=axes)
        anyv = da.full(lo.shape, data.shape[-1] * data.shape[-2] > 0, dtype=bool)
    else:
        lo = da.where(valid, data, big).min(axis=axes)
        hi = da.where(valid, data, small).max(axis=axes)
        anyv = valid.any(axis=axes)
    lo, hi, anyv = dask.compute(lo, hi, anyv)
    if x.ndim == 2:
        return finish_range(lo, hi, bool(anyv))
    return [finish_range(a, b, bool(c)) for a, b, c in zip(lo.ravel(), hi.ravel(), anyv.ravel())]


def _fit_chunks(chunks, reach, axis):
    """The chunks of one axis with a halo of `reach` lendable by every
    neighbour: a last chunk smaller than the reach is merged into the one
    before it; any other chunk smaller than the reach is an error that
    says what to rechunk to."""
    chunks = list(chunks)
    if reach == 0 or len(chunks) == 1:
        return tuple(chunks)
    if chunks[-1] < reach:
        chunks[-2:] = [chunks[-2] + chunks[-1]]
    small = [c for c in chunks[:-1] if c < reach]
    if small:
        raise UsageError(
            "entropy: the window reaches %d pixels beyond a block along %s, but chunks there "
            "hold as few as %d, so a block's neighbours cannot lend its halo: rechunk to at "
            "least %d pixels along %s (512 to 4096 keep the halo's cost small), e.g. %s"
            % (reach, axis[0], min(small), reach, axis[0], axis[1]))
    return tuple(chunks)


def _block(block, block_info=None, reach=(0, 0), band_ranges=None, checks=None, name=None,
           **options):
    """One task: the block's location says which sides carry a halo; its
    planes' ranges (range "auto") are sliced from `band_ranges` (one per
    plane of the whole array, in its leading shape); `checks` counts its
    own pixels for the warnings (winent._checks), said once all blocks are."""
    info = block_info[0]
    loc = info["chunk-location"]
    n = info["num-chunks"]
    i, j = loc[-2], loc[-1]
    ry, rx = reach
    halo = (ry if i > 0 else 0, ry if i < n[-2] - 1 else 0,
            rx if j > 0 else 0, rx if j < n[-1] - 1 else 0)
    ranges = None
    if band_ranges is not None:
        where = tuple(slice(a, b) for a, b in info["array-location"][:-2])
        ranges = band_ranges[where].reshape(-1, 2)
    m = entropy_block(block, halo, band_ranges=ranges, **options)
    want = block_info[None]["chunk-shape"]
    if m.shape != tuple(want):
        raise AssertionError("winent: block %r: map %r, want %r" % (loc, m.shape, want))
    if checks is not None:
        top, bottom, left, right = halo
        own = block[..., top:block.shape[-2] - bottom, left:block.shape[-1] - right]
        _checks.add_block(name, int(np.prod(n)), loc, _checks.counts(own, m, checks), checks)
    return m


def entropy(x, kx, ky, axes=(("axis -2 (rows)", "array.rechunk({-2: 1024})"),
                             ("axis -1 (columns)", "array.rechunk({-1: 1024})")), checks=None,
            **options):
    """The lazy map of a dask array: 2-D (rows, columns), or a map per
    plane of the last two axes (leading axes mapped over, chunked as they
    are). `options` are winent.entropy's, resolved (an explicit base);
    range "auto" is computed here, one per plane. `axes` (name, rechunk
    example) word the error where chunks are too small for the window (a
    DataArray's dims). `checks`: a winent._checks.Spec for the warnings
    (None: none). Returns a dask array of float32 with the chunks of `x`
    (a last chunk smaller than the halo merged); masked (dask.array.ma)
    where `x` is. With ``measures=`` (winent.texture), the maps of each
    block's measures come from one task, on a new first axis of one chunk."""
    import dask.array as da
    from dask.array.overlap import overlap
    if x.ndim < 2:
        raise UsageError("entropy: the array must be 2-D (rows, columns) or more, not %d-D"
                         % x.ndim)
    if x.dtype.kind not in "biuf":
        raise UsageError("entropy: arrays of %s are not supported" % x.dtype)
    ry, rx = ky // 2, kx // 2
    chunks = list(x.chunks)
    chunks[-2] = _fit_chunks(chunks[-2], ry, axes[0])
    chunks[-1] = _fit_chunks(chunks[-1], rx, axes[1])
    if tuple(chunks) != x.chunks:
        x = x.rechunk(tuple(chunks))
    rng = options.get("range")
    band_ranges = None
    if isinstance(rng, str) and rng == "auto":
        r = auto_range(x, options.get("nodata"))
        if x.ndim == 2:
            options["range"] = r
        else:
            band_ranges = np.array(r, np.float64).reshape(x.shape[:-2] + (2,))
            options["range"] = tuple(band_ranges.reshape(-1, 2)[0]) if band_ranges.size \
                else None
    # What the library refuses is refused here, when the lazy array is
    # made, as for the other array kinds: one pixel of the array's type
    # through the block function every task calls (its values are checked
    # block by block, at compute time; the device, on the worker that
    # computes: a client may have no GPU where its workers do).
    probe = np.zeros((1, 1), np.dtype(x.dtype))
    if isinstance(getattr(x, "_meta", None), np.ma.MaskedArray):
        probe = np.ma.masked_array(probe, mask=False)
    entropy_block(probe, warm=False, **dict(options, threads=1, device="cpu"))
    depth = {d: 0 for d in range(x.ndim - 2)}
    depth[x.ndim - 2] = ry if len(x.chunks[-2]) > 1 else 0
    depth[x.ndim - 1] = rx if len(x.chunks[-1]) > 1 else 0
    xo = overlap(x, depth=depth, boundary="none", allow_rechunk=False) \
        if any(depth.values()) else x
    masked = isinstance(getattr(x, "_meta", None), np.ma.MaskedArray)
    name = "winent-entropy-" + _token(x, kx, ky, options, band_ranges, masked)
    fn = functools.partial(_block, reach=(depth[x.ndim - 2], depth[x.ndim - 1]),
                           band_ranges=band_ranges, checks=checks, name=name, **options)
    measures = options.get("measures")
    if measures is None:
        m = da.map_blocks(fn, xo, chunks=x.chunks, dtype=np.float32,
                          meta=np.empty((0,) * x.ndim, np.float32), name=name)
    else:  # winent.texture: the maps of one block's measures from one task
        m = da.map_blocks(fn, xo, chunks=((len(measures),),) + x.chunks, new_axis=0,
                          dtype=np.float32, meta=np.empty((0,) * (x.ndim + 1), np.float32),
                          name=name)
    # A masked array in, a masked array out (masked where the map is NaN).
    return da.ma.masked_invalid(m) if masked else m


def _token(*parts):
    from dask.base import tokenize
    return tokenize(*parts)
