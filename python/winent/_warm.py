# SPDX-License-Identifier: BSD-3-Clause
"""Engines kept warm across calls, for the block function every dask task
runs (winent.entropy_block): one libwinent engine (winent_engine_create)
per thread, options and device, with its device buffers and pinned
staging, reused by every block of the same options that thread computes.

A cold call (winent_entropy) sets a whole job up and tears it down: the
pool of threads, the plan, a GPU's buffers and the pinning of its chunks,
tens of milliseconds, where a 4096 x 4096 block takes a GPU a few. A warm
engine pays that once per worker thread. The maps are the same bits: every
engine gives them (docs/SPEC.md section 1).

Which engine: device "cpu" the CPU engine; "auto" and "gpu" a GPU when the
process sees one (auto: else the CPU), the threads of a process taking
the GPUs in turn (a dask worker with one GPU: that one), auto falling
back to the CPU where a GPU engine cannot be made (a measure the GPUs do
not compute); a list of GPUs ("0,1") likewise among those. A device given
as anything else (a list with "cpu" in it), or a GPU engine that "gpu" or
a list asks for and that cannot be made, goes the cold way, which says
why where it fails.

An engine is freed when its thread ends, by free_engines(), at the
interpreter's exit, or when a thread holds more than MAX_PER_THREAD
option sets (the least recently used goes). A child forked after engines
were used forgets them and computes cold (_forget_in_child)."""
import atexit
import collections
import ctypes
import itertools
import os
import threading
import weakref
from typing import Optional

import numpy as np

from . import _lib
from ._errors import OK, error_for

ENGINE_CPU, ENGINE_GPU = 0, 1  # winent_engine_kind
MAX_PER_THREAD = 32

_local = threading.local()
_threads = itertools.count()
_registry: "weakref.WeakSet[_Engines]" = weakref.WeakSet()
_registry_lock = threading.Lock()


class _Engine:
    """One winent_engine and the sizes it was made for; `o` (a copy of the
    options) keeps a footprint's mask alive for the engine's plan."""

    def __init__(self, handle, o, width, rows):
        self.handle, self.o, self.width, self.rows = handle, o, width, rows

    def free(self):
        if self.handle:
            _lib.lib().winent_engine_free(self.handle)
            self.handle = None


class _Engines:
    """One thread's engines, by (kind, device, threads, options); the lock
    keeps free_engines() from another thread off an engine in use."""

    def __init__(self):
        self.lock = threading.Lock()
        self.by_key = collections.OrderedDict()
        self.cold = set()  # keys whose engine could not be made
        self.index = next(_threads)
        self.gpus = None
        with _registry_lock:
            _registry.add(self)

    def clear(self):
        with self.lock:
            for e in self.by_key.values():
                e.free()
            self.by_key.clear()
            self.cold.clear()

    def __del__(self):  # the thread ended (or the interpreter is going)
        try:
            self.clear()
        except Exception:  # a library already unloaded at exit: nothing left to free
            pass


def _mine():
    es = getattr(_local, "engines", None)
    if es is None:
        es = _local.engines = _Engines()
    return es


def free_engines() -> None:
    """Free every warm engine of this process (each thread's; one in use
    is freed once its call returns): the GPU memory and pinned host memory
    they hold. Later blocks make new ones."""
    with _registry_lock:
        every = list(_registry)
    for es in every:
        es.clear()


atexit.register(free_engines)


# Set in a child forked after any engine was used: that child computes cold.
_forked = False


def _forget_in_child():
    """A forked child holds copies of its parent's engines: their GPU
    buffers and streams are the parent's, not to be used nor freed there,
    and the OpenMP team of the thread that forked (an engine's threads)
    does not exist there: GNU OpenMP hangs at the next parallel loop of
    that thread. So the child forgets the engines (leaving their copies'
    memory be) and computes cold (a job's own threads), as it would
    without them."""
    global _local, _forked
    with _registry_lock:
        every = list(_registry)
        _registry.clear()
    for es in every:
        _forked = True
        for e in es.by_key.values():
            e.handle = None  # before anything can free it
        es.by_key.clear()
    _local = threading.local()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


def _targets(es, device):
    """The (kind, device number) engines to try for `device` (bytes or
    None) on this thread, in order; none: the cold way. "auto" falls back
    to the CPU where its GPU's engine cannot be made (a measure the GPUs
    do not compute), as a job does."""
    d = (device or b"auto").decode("utf-8", "replace").strip().lower()
    if d == "cpu":
        return [(ENGINE_CPU, 0)]
    if d in ("auto", "gpu"):
        if es.gpus is None:
            es.gpus = _lib.lib().winent_gpu_count()
        if es.gpus == 0:
            return [(ENGINE_CPU, 0)] if d == "auto" else []
        gpu = (ENGINE_GPU, es.index % es.gpus)
        return [gpu, (ENGINE_CPU, 0)] if d == "auto" else [gpu]
    parts = [p.strip() for p in d.split(",")]
    if not all(p.isdigit() for p in parts):
        return []
    gpus = [int(p) for p in parts]
    return [(ENGINE_GPU, gpus[es.index % len(gpus)])]


def _key(job, kind, device):
    o = _lib.winent_compute_opts.from_buffer_copy(job.o)
    mask = b""
    if job.o.footprint:
        mask = ctypes.string_at(job.o.footprint, job.o.kx * job.o.ky)
    o.footprint = None
    return (kind, device, job.threads, bytes(o), mask)


def _engine(es, job, key, kind, device):
    """The thread's engine for `key`, big enough for the job's array; None
    where it cannot be made (then the key goes cold)."""
    h, w = job.shape
    e = es.by_key.get(key)
    if e is not None and e.width >= w and e.rows >= h:
        es.by_key.move_to_end(key)
        return e
    width, rows = (w, h) if e is None else (max(w, e.width), max(h, e.rows))
    if e is not None:
        del es.by_key[key]
        e.free()
    o = _lib.winent_compute_opts.from_buffer_copy(job.o)
    o.footprint = job.o.footprint  # the pointer, and the mask it keeps alive
    handle = ctypes.c_void_p()
    err = _lib.winent_error()
    st = _lib.lib().winent_engine_create(ctypes.byref(o), kind, device, width, rows, job.threads,
                                         ctypes.byref(handle), ctypes.byref(err))
    if st != OK or not handle:
        es.cold.add(key)
        return None
    e = es.by_key[key] = _Engine(handle, o, width, rows)
    while len(es.by_key) > MAX_PER_THREAD:
        es.by_key.popitem(last=False)[1].free()
    return e


def compute(job, y0: int, y1: int) -> Optional[np.ndarray]:
    """Output rows [y0, y1) of a Prepared job (winent._compute.prepare)
    through this thread's warm engine: a float32 array of y1 - y0 rows of
    the array's width; None where the warm way does not apply (the caller
    computes it cold)."""
    if _forked:
        return None
    es = _mine()
    h, w = job.shape
    with es.lock:
        e = key = None
        for target in _targets(es, job.device):
            key = _key(job, *target)
            e = None if key in es.cold else _engine(es, job, key, *target)
            if e is not None:
                break
        if e is None:
            return None
        out = np.empty((y1 - y0, w), np.float32)
        L = _lib.lib()
        st = L.winent_engine_compute(e.handle, job.a.ctypes.data, job.row_bytes, w, h, 0, h, y0,
                                     y1, out.ctypes.data, w)
        if st != OK:
            msg = _lib.message_of(L.winent_engine_error(e.handle).contents)
            # A failed engine (a GPU's error) is not reused.
            del es.by_key[key]
            e.free()
            raise error_for(st, msg)
    return out
