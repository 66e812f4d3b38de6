# SPDX-License-Identifier: BSD-3-Clause
"""The CLI's two warnings about a map (docs/SPEC.md section 2), for
arrays and every measure: samples that ``range`` clamps or squeezes into
few bins or levels (RangeWarning), and a saturated map of a measure that
can be (SaturationWarning: the entropy, renyi, simpson and richness). Counted over the
whole array and said once: for an array in memory after its map is made,
for a dask array when the last of its blocks is computed (each block
adds the counts of its own pixels, never of its halo)."""
import ctypes
import math
import os
import sys
import threading
import warnings
from typing import Any, Dict, Tuple

import numpy as np

from . import _lib, _options
from ._blocks import valid_mask
from ._warnings import RangeWarning, SaturationWarning

# valid samples, below LO, above HI, smallest and largest valid finite
# sample; then for each map (measure): its valid pixels and its pixels at
# the top.
_FIELDS = 5

# The measures whose map can be saturated (the CLI's job_figures.c): their
# largest value means every pixel of the window in a bin of its own (or the
# bins filled evenly), whatever the texture. Not the evenness (1 for any
# even window), the majority (a value) or the co-occurrence measures.
_SATURABLE = ("entropy", "renyi", "simpson", "richness")


def top_of(kx, ky, disk, base_name, bins, measure=None, dtype=None):
    """The largest value of the measure (winent_compute_top)."""
    o = _lib.winent_compute_opts()
    L = _lib.lib()
    L.winent_compute_opts_default(ctypes.byref(o))
    _options.set_window(o, kx, ky, disk)
    o.base = _lib.BASES[base_name]
    o.bins = bins or 0
    if measure is not None:
        measure.fill(o)
    return float(L.winent_compute_top(ctypes.byref(o)))


def window_area(kx, ky, disk):
    """The pixels of a whole window: kx * ky, or a disk's or footprint's."""
    if isinstance(disk, _options.Footprint):
        return disk.mask.count(1)
    if not disk:
        return kx * ky
    r = kx // 2
    yy, xx = np.mgrid[-r:r + 1, -r:r + 1]
    return int((xx * xx + yy * yy <= r * r).sum())


class Spec:
    """What the counts are held against: the options of one call, and its
    measures (None: the entropy; a list: winent.texture's maps, on the
    map's first axis)."""

    def __init__(self, kx, ky, disk, base_name, bins, rng, nodata, measures=None):
        self.bins = bins or 0
        # Only a range the caller gave can be wrong (range="auto" holds every sample).
        self.range = tuple(rng) if self.bins and not isinstance(rng, str) and rng is not None \
            else None
        self.nodata = nodata
        self.stacked = isinstance(measures, (list, tuple)) and not isinstance(
            measures, _options.Measure)
        ms = list(measures) if self.stacked else [measures]
        self.names = [_lib.MEASURES[m[0]] if m is not None else "entropy" for m in ms]
        self.texts = [m.text() if m is not None else "entropy" for m in ms]
        self.tops = [top_of(kx, ky, disk, base_name, self.bins, m) for m in ms]
        self.at_tops = [np.float32(t * (1.0 - 5e-7)) if t > 0 and name in _SATURABLE
                        else np.float32(np.inf) for t, name in zip(self.tops, self.names)]
        self.area = window_area(kx, ky, disk)
        self.base_name = base_name

    @property
    def nfields(self):
        return _FIELDS + 2 * len(self.names)


def counts(samples, emap, spec):
    """The counts of one piece: `samples` (its input, numpy or masked) and
    `emap` (its map, the same pixels; the maps on a first axis where the
    spec holds several measures)."""
    c = np.zeros(spec.nfields)
    c[3], c[4] = np.inf, -np.inf
    m = np.asarray(emap)
    maps = m if spec.stacked else m[None]
    for k, at in enumerate(spec.at_tops):
        c[_FIELDS + 2 * k] = np.count_nonzero(~np.isnan(maps[k]))
        c[_FIELDS + 2 * k + 1] = np.count_nonzero(maps[k] >= at)
    if spec.range is None:
        return c
    data = np.ma.getdata(samples)
    valid = valid_mask(data, spec.nodata)
    if isinstance(samples, np.ma.MaskedArray):
        keep = ~np.ma.getmaskarray(samples)
        valid = keep if valid is None else valid & keep
    if valid is None:
        valid = np.ones(data.shape, bool)
    elif data.dtype.kind == "f":
        valid = valid | np.isinf(data)  # infinities are clamped samples (valid_mask drops them)
        if spec.nodata is not None and not math.isnan(float(spec.nodata)):
            valid &= data != data.dtype.type(spec.nodata)
    lo, hi = spec.range
    c[0] = np.count_nonzero(valid)
    c[1] = np.count_nonzero(valid & (data < lo))
    c[2] = np.count_nonzero(valid & (data > hi))
    finite = valid & np.isfinite(data) if data.dtype.kind == "f" else valid
    if finite.any():
        c[3] = float(data.min(where=finite, initial=np.inf if data.dtype.kind == "f"
                              else np.iinfo(data.dtype).max))
        c[4] = float(data.max(where=finite, initial=-np.inf if data.dtype.kind == "f"
                              else np.iinfo(data.dtype).min))
    return c


def merge(parts):
    parts = list(parts)
    c = np.zeros(len(parts[0]))
    c[3], c[4] = np.inf, -np.inf
    for p in parts:
        c[:3] += p[:3]
        c[_FIELDS:] += p[_FIELDS:]
        c[3], c[4] = min(c[3], p[3]), max(c[4], p[4])
    return c


def _range_text(rng):
    return "range=(%.6g, %.6g)" % rng


def range_message(c, spec):
    """RangeWarning's line for the counts, or None."""
    if spec.range is None or c[0] == 0:
        return None
    lo, hi = spec.range
    valid, below, above = int(c[0]), int(c[1]), int(c[2])
    if (below + above) * 100 > valid:
        return ("%.1f %% of the samples (%d of %d) lie outside %s and were put in the end "
                "bins (%d below, %d above): check the range, or use range='auto'"
                % (100.0 * (below + above) / valid, below + above, valid, _range_text(spec.range),
                   below, above))
    smin, smax = c[3], c[4]
    if not smax > smin or (smax - smin) >= 0.05 * (hi - lo):
        return None
    bins = spec.bins
    a = min(max(math.floor((smin - lo) * bins / (hi - lo)), 0), bins - 1)
    b = min(max(math.floor((smax - lo) * bins / (hi - lo)), 0), bins - 1)
    return ("the samples (%.6g to %.6g) span only %.2f %% of %s and fall in %d of its %d bins: "
            "check the range, or use range='auto'"
            % (smin, smax, 100.0 * (smax - smin) / (hi - lo), _range_text(spec.range), b - a + 1,
               bins))


def _top_text(name, text, top, n, base_name):
    """The largest value, as the line names it: "entropy, log2(9) = 3.17
    bits", "richness, 9 values"."""
    logs = {"e": "ln", "2": "log2", "10": "log10"}
    units = {"e": "nats", "2": "bits", "10": "bans"}
    if name == "richness":
        return "richness, %d values" % n
    if name == "simpson":
        return "Gini-Simpson index, 1 - 1/%d = %.4g" % (n, top)
    what = "entropy" if name == "entropy" else "%s entropy" % text
    return "%s, %s(%d) = %.4g %s" % (what, logs[base_name], n, top, units[base_name])


def saturation_messages(c, spec):
    """SaturationWarning's lines for the counts, one per saturated map."""
    lines = []
    n = spec.bins if 0 < spec.bins < spec.area else spec.area
    for k, name in enumerate(spec.names):
        valid, top = int(c[_FIELDS + 2 * k]), int(c[_FIELDS + 2 * k + 1])
        if spec.tops[k] <= 0 or valid == 0 or top * 4 <= valid:
            continue
        fix = ("give fewer bins, e.g. bins=%d" % (16 if spec.bins > 64 else spec.bins // 4 + 1)
               if spec.bins else "quantize the values, e.g. bins=16, range='auto'")
        if 0 < spec.bins < spec.area:
            why = ("every one of the %d bins in their window" % spec.bins if name == "richness"
                   else "their window's pixels spread evenly over all %d bins" % spec.bins)
        else:
            why = "each pixel of their window in a bin of its own"
        which = "%s: " % spec.texts[k] if len(spec.names) > 1 else ""
        lines.append("%sthe map is saturated: %.1f %% of its valid pixels (%d of %d) are at the "
                     "largest %s, %s, so it shows where values differ, not how much; %s"
                     % (which, 100.0 * top / valid, top, valid,
                        _top_text(name, spec.texts[k], spec.tops[k], n, spec.base_name), why, fix))
    return lines


def saturation_message(c, spec):
    """The first of saturation_messages, or None."""
    lines = saturation_messages(c, spec)
    return lines[0] if lines else None


def _caller_level():
    """The stacklevel of the first frame outside this package, seen from
    warn(): the warning points at the user's line whichever of the
    package's layers (entropy, the xarray door, the accessor) led here."""
    pkg = os.path.dirname(os.path.abspath(__file__))
    f, level = sys._getframe(1), 1
    while f is not None and os.path.dirname(os.path.abspath(f.f_code.co_filename)) == pkg:
        f, level = f.f_back, level + 1
    return level


def warn(c, spec, stacklevel=None):
    """Give the warnings the counts call for (each at most once), pointing
    at the caller outside the package (or `stacklevel` frames up)."""
    level = _caller_level() if stacklevel is None else stacklevel + 1
    line = range_message(c, spec)
    if line is not None:
        warnings.warn(line, RangeWarning, stacklevel=level)
    for line in saturation_messages(c, spec):
        warnings.warn(line, SaturationWarning, stacklevel=level)


# Blocks of dask arrays whose last block is not computed yet, by the
# graph's name: {name: {block location: counts}}. Per process: on a
# distributed cluster each worker counts the blocks it computes.
_pending: Dict[str, Dict[Tuple[int, ...], Any]] = {}
_pending_lock = threading.Lock()


def add_block(name, nblocks, location, c, spec):
    """A block's counts; the warnings once every block of `name` is in (a
    block computed twice counts once). Computing the array again counts
    again."""
    with _pending_lock:
        seen = _pending.setdefault(name, {})
        seen[tuple(location)] = c
        if len(seen) < nblocks:
            return
        del _pending[name]
    warn(merge(seen.values()), spec, stacklevel=2)
