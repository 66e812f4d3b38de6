# SPDX-License-Identifier: BSD-3-Clause
"""Engines kept warm across calls, for the block function every dask task
runs (winent.entropy_block): one libwinent engine (winent_engine_create)
per process, options and device, with its device buffers and pinned
staging, shared by every thread of the process (a dask worker's threads)
and reused by every block of the same options.

A cold call (winent_entropy) sets a whole job up and tears it down: the
pool of threads, the plan, a GPU's buffers and the pinning of its chunks,
tens of milliseconds, where a 4096 x 4096 block takes a GPU a few. A warm
engine pays that once per worker. The threads' blocks go through the
shared engine together (winent_engine_submit and winent_engine_wait): on
a GPU, one block's last bands are copied back while another's compute,
and the threads copy side by side, where an engine per thread would leave
the GPU idle between a thread's blocks and its threads' copies
competing for the cores. The maps are the same bits: every engine gives
them (docs/SPEC.md section 1).

Which engine: device "cpu" the CPU engine; "auto" and "gpu" a GPU when the
process sees one (auto: else the CPU), the threads of a process taking
the GPUs in turn (a dask worker with one GPU: that one, for all its
threads), auto falling back to the CPU where a GPU engine cannot be made
(a measure the GPUs do not compute); a list of GPUs ("0,1") likewise
among those. A device given as anything else (a list with "cpu" in it),
or a GPU engine that "gpu" or a list asks for and that cannot be made,
goes the cold way, which says why where it fails.

An engine is freed by free_engines(), at the interpreter's exit, when a
larger block needs a larger one, after a failure, or when the process
holds more than MAX_ENGINES option sets (the least recently used goes);
one in use is freed when its last call returns. A child forked after
engines were used forgets them and computes cold (_forget_in_child)."""
import atexit
import collections
import ctypes
import itertools
import os
import threading
from typing import Optional

import numpy as np

from . import _lib
from ._errors import ERR_USAGE, OK, error_for

ENGINE_CPU, ENGINE_GPU = 0, 1  # winent_engine_kind
MAX_ENGINES = 32

_lock = threading.Lock()  # the engines below, their users, the cold keys
_engines: "collections.OrderedDict[tuple, _Engine]" = collections.OrderedDict()
_cold: set = set()  # keys whose engine could not be made
_gpus: Optional[int] = None  # GPUs this process sees (asked once)
_local = threading.local()  # .index: this thread's place among the process's threads
_threads = itertools.count()


class _Engine:
    """One winent_engine and the sizes it was made for; `o` (a copy of the
    options) keeps a footprint's mask alive for the engine's plan. `users`
    counts the calls on it now; a retired engine (replaced, failed, freed)
    takes no new call and is freed when the last one returns."""

    def __init__(self, handle, o, width, rows):
        self.handle, self.o, self.width, self.rows = handle, o, width, rows
        self.users, self.retired = 0, False

    def free(self):
        if self.handle:
            _lib.lib().winent_engine_free(self.handle)
            self.handle = None


def _retire_locked(e):
    e.retired = True
    if e.users == 0:
        e.free()


def free_engines() -> None:
    """Free every warm engine of this process (one in use is freed once
    its calls return): the GPU memory and pinned host memory they hold.
    Later blocks make new ones."""
    with _lock:
        for e in _engines.values():
            _retire_locked(e)
        _engines.clear()
        _cold.clear()


def _at_exit():
    try:
        free_engines()
    except Exception:  # a library already unloaded at exit: nothing left to free
        pass


atexit.register(_at_exit)


# Set in a child forked after any engine was used: that child computes cold.
_forked = False


def _forget_in_child():
    """A forked child holds copies of its parent's engines: their GPU
    buffers and streams are the parent's, not to be used nor freed there,
    and the OpenMP teams of the threads that copied for them do not exist
    there: GNU OpenMP hangs at the next parallel loop of such a thread. So
    the child forgets the engines (leaving their copies' memory be) and
    computes cold (a job's own threads), as it would without them. The
    lock is made anew: another thread of the parent may have held it."""
    global _lock, _local, _forked
    _lock = threading.Lock()
    if _engines:
        _forked = True
    for e in _engines.values():
        e.handle = None  # before anything can free it
    _engines.clear()
    _local = threading.local()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


def _index():
    i = getattr(_local, "index", None)
    if i is None:
        i = _local.index = next(_threads)
    return i


def _targets(device):
    """The (kind, device number) engines to try for `device` (bytes or
    None) on this thread, in order; none: the cold way. "auto" falls back
    to the CPU where its GPU's engine cannot be made (a measure the GPUs
    do not compute), as a job does. Lock held."""
    global _gpus
    d = (device or b"auto").decode("utf-8", "replace").strip().lower()
    if d == "cpu":
        return [(ENGINE_CPU, 0)]
    if d in ("auto", "gpu"):
        if _gpus is None:
            _gpus = _lib.lib().winent_gpu_count()
        if _gpus == 0:
            return [(ENGINE_CPU, 0)] if d == "auto" else []
        gpu = (ENGINE_GPU, _index() % _gpus)
        return [gpu, (ENGINE_CPU, 0)] if d == "auto" else [gpu]
    parts = [p.strip() for p in d.split(",")]
    if not all(p.isdigit() for p in parts):
        return []
    gpus = [int(p) for p in parts]
    return [(ENGINE_GPU, gpus[_index() % len(gpus)])]


def cpu_only(device):
    """1 where `device` ("auto", "cpu", ... or None) computes on the CPU
    alone in this process (no GPU, or "cpu"): its kept engines are then
    CPU engines, whose setup is a few milliseconds of a block's work."""
    d = device.encode() if isinstance(device, str) else device
    with _lock:
        return _targets(d) == [(ENGINE_CPU, 0)]


def _key(job, kind, device):
    o = _lib.winent_compute_opts.from_buffer_copy(job.o)
    mask = b""
    if job.o.footprint:
        mask = ctypes.string_at(job.o.footprint, job.o.kx * job.o.ky)
    o.footprint = None
    return (kind, device, job.threads, bytes(o), mask)


def _engine_locked(job, key, kind, device):
    """The process's engine for `key`, big enough for the job's array; None
    where it cannot be made (then the key goes cold). Lock held."""
    h, w = job.shape
    e = _engines.get(key)
    if e is not None and e.width >= w and e.rows >= h:
        _engines.move_to_end(key)
        return e
    width, rows = (w, h) if e is None else (max(w, e.width), max(h, e.rows))
    if e is not None:
        del _engines[key]
        _retire_locked(e)
    o = _lib.winent_compute_opts.from_buffer_copy(job.o)
    o.footprint = job.o.footprint  # the pointer, and the mask it keeps alive
    handle = ctypes.c_void_p()
    err = _lib.winent_error()
    st = _lib.lib().winent_engine_create(ctypes.byref(o), kind, device, width, rows, job.threads,
                                         ctypes.byref(handle), ctypes.byref(err))
    if st != OK or not handle:
        _cold.add(key)
        return None
    e = _engines[key] = _Engine(handle, o, width, rows)
    while len(_engines) > MAX_ENGINES:
        _retire_locked(_engines.popitem(last=False)[1])
    return e


def _acquire(job):
    """The engine this thread's block goes through, counted as in use; None:
    the cold way."""
    with _lock:
        for target in _targets(job.device):
            key = _key(job, *target)
            e = None if key in _cold else _engine_locked(job, key, *target)
            if e is not None:
                e.users += 1
                return key, e
    return None, None


def _release(key, e, failed):
    with _lock:
        e.users -= 1
        if failed and not e.retired:
            # A failed engine (a GPU's error) is not reused.
            if _engines.get(key) is e:
                del _engines[key]
            e.retired = True
        if e.retired and e.users == 0:
            e.free()


def compute(job, y0: int, y1: int) -> Optional[np.ndarray]:
    """Output rows [y0, y1) of a Prepared job (winent._compute.prepare)
    through the process's warm engine for its options: a float32 array of
    y1 - y0 rows of the array's width; None where the warm way does not
    apply (the caller computes it cold). Other threads' blocks go through
    the same engine at the same time (winent_engine_submit/wait)."""
    if _forked:
        return None
    key, e = _acquire(job)
    if e is None:
        return None
    h, w = job.shape
    failed = False
    try:
        out = np.empty((y1 - y0, w), np.float32)
        L = _lib.lib()
        ticket = ctypes.c_uint64(0)
        err = _lib.winent_error()
        st = L.winent_engine_submit(e.handle, job.a.ctypes.data, job.row_bytes, w, h, 0, h, y0,
                                    y1, out.ctypes.data, w, ctypes.byref(ticket),
                                    ctypes.byref(err))
        if st == OK:
            st = L.winent_engine_wait(e.handle, ticket.value, ctypes.byref(err))
        if st != OK:
            # A refusal of the block's values (a usage error) leaves the
            # engine sound; a GPU's error does not.
            failed = st != ERR_USAGE
            raise error_for(st, _lib.message_of(err))
    finally:
        _release(key, e, failed)
    return out
