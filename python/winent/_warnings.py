# SPDX-License-Identifier: BSD-3-Clause
"""The warnings of winent, as Python warnings with their own categories,
so that ``warnings.filterwarnings("error", category=winent.RangeWarning)``
or ``warnings.simplefilter("ignore", winent.SaturationWarning)`` picks
exactly one kind. Each is the CLI's notice for the same map (docs/SPEC.md
section 2), worded with Python's arguments."""
import builtins


class Warning(builtins.UserWarning):  # noqa: A001 - winent.Warning, as numpy's names go
    """The base of every warning winent gives (a UserWarning)."""


class RangeWarning(Warning):
    """``bins``/``range`` put the samples in few bins: more than 1 % of the
    valid samples lie outside ``range`` (put in the end bins), or they span
    less than 5 % of it."""


class SaturationWarning(Warning):
    """More than a quarter of the map's valid pixels are at the largest
    entropy the options allow (each pixel of their window in a bin of its
    own): the map shows where values differ, not how much; quantize the
    values (``bins=16, range="auto"``)."""

