# SPDX-License-Identifier: BSD-3-Clause
"""libwinent through ctypes: finding and loading the library, and the C
declarations of include/winent.h that the package uses.

The structures below mirror winent.h field for field; the test
tests/python/test_py_layout.py compares their sizes and offsets with the C
compiler's (tests/python/py_layout.c), so a change of the header cannot go
unnoticed here.

Which library is loaded (the first that exists wins):

1. the file named by the environment variable ``WINENT_LIBRARY``;
2. ``libwinent.so.0`` inside this package's folder (where ``pip install``
   puts the library it builds: pyproject.toml, setup.py);
3. ``libwinent.so.0`` in the library folder of the install this package
   came with (``_install.py``, written by ``cmake --install``);
4. the system's search: ``libwinent.so.0`` through the dynamic loader
   (``LD_LIBRARY_PATH``, the ldconfig cache), then
   ``ctypes.util.find_library("winent")``.

The library is loaded on first use, so ``import winent`` works without
it. Loading is thread-safe.
"""
import ctypes
import ctypes.util
import os
import threading

from ._errors import LibraryNotFound

SONAME = "libwinent.so.0"
MSG_LEN = 512  # WINENT_MSG_LEN


# ---- The types of winent.h ------------------------------------------------

c_status = ctypes.c_int  # winent_status: an enum, int-sized


class winent_error(ctypes.Structure):
    _fields_ = [("status", c_status), ("message", ctypes.c_char * MSG_LEN)]


class winent_compute_opts(ctypes.Structure):
    _fields_ = [
        ("kx", ctypes.c_int),
        ("ky", ctypes.c_int),
        ("base", ctypes.c_int),
        ("dtype", ctypes.c_int),
        ("bins", ctypes.c_uint32),
        ("range_lo", ctypes.c_double),
        ("range_hi", ctypes.c_double),
        ("has_nodata", ctypes.c_int),
        ("nodata", ctypes.c_double),
        ("disk", ctypes.c_int),
        ("measure", ctypes.c_int),       # winent_measure (MEASURES' order)
        ("renyi_q", ctypes.c_double),    # the order of renyi
        ("glcm_distance", ctypes.c_int),
        ("glcm_angles", ctypes.c_uint),
        ("glcm_asymmetric", ctypes.c_int),
        ("footprint", ctypes.POINTER(ctypes.c_ubyte)),  # a Footprint's mask, or NULL
    ]


class winent_progress(ctypes.Structure):
    _fields_ = [
        ("rows_done", ctypes.c_int64),
        ("rows_total", ctypes.c_int64),
        ("width", ctypes.c_int64),
        ("seconds", ctypes.c_double),
    ]


class winent_stage_stats(ctypes.Structure):
    _fields_ = [("busy_s", ctypes.c_double), ("wait_s", ctypes.c_double), ("threads", ctypes.c_int)]


STATS_BANDS = 64  # WINENT_STATS_BANDS


class winent_band_counts(ctypes.Structure):
    _fields_ = [
        ("band", ctypes.c_int),
        ("range_lo", ctypes.c_double),
        ("range_hi", ctypes.c_double),
        ("range_from", ctypes.c_char * 160),
        ("clamped_below", ctypes.c_uint64),
        ("clamped_above", ctypes.c_uint64),
        ("valid_samples", ctypes.c_uint64),
        ("samples_min", ctypes.c_double),
        ("samples_max", ctypes.c_double),
    ]


class winent_job_stats(ctypes.Structure):
    _fields_ = [
        ("wall_s", ctypes.c_double),
        ("setup_s", ctypes.c_double),
        ("pixels", ctypes.c_uint64),
        ("bytes_in", ctypes.c_uint64),
        ("bytes_out", ctypes.c_uint64),
        ("read", winent_stage_stats),
        ("compute", winent_stage_stats),
        ("encode", winent_stage_stats),
        ("write", winent_stage_stats),
        ("chunk_rows", ctypes.c_int),
        ("chunks", ctypes.c_int),
        ("gpus", ctypes.c_int),
        ("engine", ctypes.c_char * 64),
        ("range_counted", ctypes.c_int),
        ("range_lo", ctypes.c_double),
        ("range_hi", ctypes.c_double),
        ("range_from", ctypes.c_char * 160),
        ("clamped_below", ctypes.c_uint64),
        ("clamped_above", ctypes.c_uint64),
        ("valid_samples", ctypes.c_uint64),
        ("samples_min", ctypes.c_double),
        ("samples_max", ctypes.c_double),
        ("nbands", ctypes.c_int),
        ("maps", ctypes.c_int),
        ("band", winent_band_counts * STATS_BANDS),
    ]


PROGRESS_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(winent_progress))
NOTICE_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p)


class winent_job_opts(ctypes.Structure):
    _fields_ = [
        ("input", ctypes.c_char_p),
        ("output", ctypes.c_char_p),
        ("compute", winent_compute_opts),
        ("nodata_given", ctypes.c_int),
        ("width", ctypes.c_int),
        ("height", ctypes.c_int),
        ("dtype_given", ctypes.c_int),
        ("bands", ctypes.c_int),
        ("band", ctypes.c_int),
        ("interleave", ctypes.c_int),
        ("big_endian", ctypes.c_int),
        ("header_bytes", ctypes.c_uint64),
        ("format", ctypes.c_int),
        ("level", ctypes.c_int),
        ("frame_rows", ctypes.c_int),
        ("tile", ctypes.c_int),
        ("compress", ctypes.c_int),
        ("preview", ctypes.c_char_p),
        ("preview_size", ctypes.c_int),
        ("preview_range", ctypes.c_int),
        ("preview_lo", ctypes.c_double),
        ("preview_hi", ctypes.c_double),
        ("tif_layout", ctypes.c_int),
        ("bigtiff", ctypes.c_int),
        ("command_line", ctypes.c_char_p),
        ("device", ctypes.c_char_p),
        ("threads", ctypes.c_int),
        ("mem_bytes", ctypes.c_uint64),
        ("range_auto", ctypes.c_int),
        ("sidecar", ctypes.c_int),
        ("decode", ctypes.c_int),
        ("on_progress", PROGRESS_FN),
        ("on_notice", NOTICE_FN),
        ("user", ctypes.c_void_p),
        ("band_list", ctypes.POINTER(ctypes.c_int)),
        ("nband_list", ctypes.c_int),
        ("band_all", ctypes.c_int),
        ("window_list", ctypes.POINTER(ctypes.c_int)),
        ("nwindow_list", ctypes.c_int),
        ("window_disk", ctypes.POINTER(ctypes.c_int)),
        ("release_gpus", ctypes.c_int),  # 0: a Python process may use CUDA otherwise
        ("out_type", ctypes.c_int),      # winent_out_type (--ot)
        ("words", ctypes.c_int),         # winent_words: WORDS_PYTHON from this package
        ("measure_list", ctypes.POINTER(ctypes.c_int)),
        ("measure_q", ctypes.POINTER(ctypes.c_double)),
        ("nmeasure_list", ctypes.c_int),
    ]


class winent_option(ctypes.Structure):
    """One row of the library's table of options (winent_options)."""
    _fields_ = [(name, ctypes.c_char_p) for name in (
        "cli", "python", "metavar", "group", "help", "cli_advice", "python_advice", "words")] + [
        ("type", ctypes.c_int),     # winent_opt_type
        ("field", ctypes.c_long),   # offsetof(winent_job_opts, its field), or -1
        ("lo", ctypes.c_double),
        ("hi", ctypes.c_double)]


# winent_words: whose words a usage message is in.
WORDS_CLI = 0
WORDS_PYTHON = 1


# Enumerations (values as in winent.h).
DTYPES = ("u8", "i8", "u16", "i16", "u32", "i32", "f32", "f64")  # winent_dtype order
BASES = {"e": 0, "2": 1, "10": 2}
MEASURES = ("entropy", "renyi", "simpson", "richness", "evenness", "majority",  # winent_measure
            "glcm-entropy", "glcm-asm", "glcm-energy", "glcm-contrast", "glcm-dissimilarity",
            "glcm-homogeneity", "glcm-correlation", "glcm-mean", "glcm-variance",
            "glcm-cluster-shade", "glcm-cluster-prominence", "glcm-cond-entropy",
            "glcm-mutual-info")
INTERLEAVES = {"bsq": 0, "bip": 1, "bil": 2}
FORMATS = {None: 0, "auto": 0, "raw": 1, "zst": 2, "tif": 3, "tiff": 3, "zarr": 4}
COMPRESSIONS = {"zstd": 0, "deflate": 1, "lzw": 2, "none": 3}
TIF_LAYOUTS = {"cog": 0, "tiled": 1}
OUT_TYPES = {"float32": 0, "float16": 1, "uint16": 2, "uint8": 3}

c_job_p = ctypes.c_void_p  # winent_job *: opaque

# name: (restype, argtypes). Everything the package calls; a library
# without one of them is too old for it.
_PROTOTYPES = {
    "winent_compute_opts_default": (None, [ctypes.POINTER(winent_compute_opts)]),
    "winent_compute_top": (ctypes.c_double, [ctypes.POINTER(winent_compute_opts)]),
    "winent_compute_opts_validate": (
        c_status, [ctypes.POINTER(winent_compute_opts), ctypes.POINTER(winent_error)]),
    "winent_compute_opts_check": (
        c_status, [ctypes.POINTER(winent_compute_opts), ctypes.c_int,
                   ctypes.POINTER(winent_error)]),
    "winent_options": (ctypes.POINTER(winent_option), [ctypes.POINTER(ctypes.c_int)]),
    "winent_option_refuse": (
        c_status, [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(winent_error)]),
    "winent_option_conflict": (
        c_status, [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(winent_error)]),
    "winent_job_opts_default": (None, [ctypes.POINTER(winent_job_opts)]),
    "winent_job_opts_validate": (
        c_status, [ctypes.POINTER(winent_job_opts), ctypes.POINTER(winent_error)]),
    "winent_entropy": (c_status, [
        ctypes.POINTER(winent_compute_opts), ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
        ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_int,
        ctypes.POINTER(winent_error)]),
    "winent_texture": (c_status, [
        ctypes.POINTER(winent_compute_opts), ctypes.POINTER(ctypes.c_int),
        ctypes.POINTER(ctypes.c_double), ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t,
        ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p,
        ctypes.c_int, ctypes.POINTER(winent_error)]),
    "winent_job_create": (c_status, [
        ctypes.POINTER(winent_job_opts), ctypes.POINTER(c_job_p), ctypes.POINTER(winent_error)]),
    "winent_job_run": (c_status, [c_job_p]),
    "winent_job_cancel": (None, [c_job_p]),
    "winent_job_error": (ctypes.POINTER(winent_error), [c_job_p]),
    "winent_job_get_stats": (None, [c_job_p, ctypes.POINTER(winent_job_stats)]),
    "winent_job_free": (None, [c_job_p]),
    # Engines kept warm across a dask worker's blocks (_warm.py).
    "winent_engine_create": (c_status, [
        ctypes.POINTER(winent_compute_opts), ctypes.c_int, ctypes.c_int, ctypes.c_int,
        ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p),
        ctypes.POINTER(winent_error)]),
    "winent_engine_compute": (c_status, [
        ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
        ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_void_p,
        ctypes.c_size_t]),
    "winent_engine_submit": (c_status, [
        ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
        ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_void_p,
        ctypes.c_size_t, ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(winent_error)]),
    "winent_engine_wait": (c_status, [
        ctypes.c_void_p, ctypes.c_uint64, ctypes.POINTER(winent_error)]),
    "winent_engine_error": (ctypes.POINTER(winent_error), [ctypes.c_void_p]),
    "winent_engine_free": (None, [ctypes.c_void_p]),
    "winent_status_name": (ctypes.c_char_p, [c_status]),
    "winent_dtype_name": (ctypes.c_char_p, [ctypes.c_int]),
    "winent_gpu_count": (ctypes.c_int, []),
    "winent_measure_text": (ctypes.c_int, [
        ctypes.POINTER(winent_compute_opts), ctypes.c_char_p, ctypes.c_size_t]),
    # .zst maps (zst.py): the readers' one definition of a valid file.
    "winent_zst_open": (c_status, [
        ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(winent_error)]),
    "winent_zst_header": (ctypes.c_void_p, [ctypes.c_void_p]),
    "winent_zst_read_frame": (c_status, [
        ctypes.c_void_p, ctypes.c_int, ctypes.c_int64, ctypes.c_void_p,
        ctypes.POINTER(winent_error)]),
    "winent_zst_close": (None, [ctypes.c_void_p]),
}


# ---- Finding and loading the library ------------------------------------

_lock = threading.Lock()
_lib = None
_lib_path = None


def _install_libdir():
    """The library folder of the install this package belongs to, or None
    (the source tree has no _install.py)."""
    try:
        from . import _install  # written by cmake --install
    except ImportError:
        return None
    libdir = _install.LIBDIR
    if not os.path.isabs(libdir):
        libdir = os.path.normpath(os.path.join(os.path.dirname(__file__), libdir))
    return libdir


def _candidates():
    """(path or soname, what it is) in the order they are tried."""
    env = os.environ.get("WINENT_LIBRARY")
    if env:
        # Named on purpose: no fallback past it.
        return [(env, "WINENT_LIBRARY")], True
    out = [(os.path.join(os.path.dirname(os.path.abspath(__file__)), SONAME),
            "beside the package")]
    libdir = _install_libdir()
    if libdir:
        out.append((os.path.join(libdir, SONAME), "the install's library folder"))
    return out, False


def _load():
    global _lib, _lib_path
    tried = []
    cands, named = _candidates()
    for path, what in cands:
        if named or os.path.exists(path):
            try:
                lib = ctypes.CDLL(path)
            except OSError as e:
                if named:
                    raise LibraryNotFound(
                        "winent: WINENT_LIBRARY=%s cannot be loaded: %s" % (path, e)) from None
                tried.append("%s (%s: %s)" % (path, what, e))
                continue
            return lib, path
        tried.append("%s (%s: absent)" % (path, what))
    try:
        return ctypes.CDLL(SONAME), SONAME
    except OSError:
        tried.append("%s through the dynamic loader (not found)" % SONAME)
    found = ctypes.util.find_library("winent")
    if found:
        try:
            return ctypes.CDLL(found), found
        except OSError as e:
            tried.append("%s (ctypes.util.find_library: %s)" % (found, e))
    raise LibraryNotFound(
        "winent: cannot find %s; looked at: %s. Install winent-stream (cmake --install, or "
        "its .deb), or set WINENT_LIBRARY to the library's path" % (SONAME, "; ".join(tried)))


def lib():
    """The loaded libwinent with its prototypes declared (loaded once)."""
    global _lib, _lib_path
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is None:
            handle, path = _load()
            missing = [n for n in _PROTOTYPES if not hasattr(handle, n)]
            if missing:
                raise LibraryNotFound(
                    "winent: %s lacks %s: it is an older libwinent than this package (%s) "
                    "needs; install the matching winent-stream, or set WINENT_LIBRARY"
                    % (path, ", ".join(missing), _package_version()))
            for name, (restype, argtypes) in _PROTOTYPES.items():
                fn = getattr(handle, name)
                fn.restype = restype
                fn.argtypes = argtypes
            _lib_path = path
            _lib = handle
    return _lib


def library_path():
    """The path (or soname) of the libwinent that is loaded, loading it."""
    lib()
    return _lib_path


def _package_version():
    from ._version import __version__
    return __version__


def message_of(err):
    """The text of a winent_error's message."""
    return err.message.decode("utf-8", "replace")
