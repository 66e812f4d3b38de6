# SPDX-License-Identifier: BSD-3-Clause
"""Shared by the Python tests (tests/python/test_py_*.py,
tests/docs/test_py_docs.py), as tests/lib/cli_lib.sh is by the shell ones:
the build's paths, a temporary folder, the CLI to compare with, and checks
counted to a last line "N passed, N failed".

Run by tests/lib/py_test.sh with ctest's environment: WINENT_BIN (the CLI's
folder), WINENT_TOOLS (winent-mksample's), WINENT_SRC, WINENT_LIBRARY
(the build's libwinent.so.0) and PYTHONPATH (the tree's python/, and
tests/lib for this module).
"""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import traceback

SRC = os.environ.get("WINENT_SRC", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
WS = os.path.join(os.environ.get("WINENT_BIN", ""), "winent-stream")
MK = os.path.join(os.environ.get("WINENT_TOOLS", ""), "winent-mksample")

# A sanitizer build's Python runs with the sanitizer runtime preloaded
# (tests/lib/py_test.sh); the programs it starts (instrumented themselves)
# must not inherit that.
CHILD_ENV = dict(os.environ)
for _k in ("LD_PRELOAD", "ASAN_OPTIONS"):
    _v = os.environ.get("WINENT_CHILD_" + _k)
    if _v is not None:
        if _v:
            CHILD_ENV[_k] = _v
        else:
            CHILD_ENV.pop(_k, None)


def skip(why):
    print("SKIP: " + why)
    sys.stdout.flush()
    os._exit(77)


def need(*modules):
    """Skip (77) with the reason where this Python lacks a module."""
    for m in modules:
        try:
            __import__(m)
        except ImportError as e:
            skip("no Python module %s (%s; Debian: apt-get install python3-%s)"
                 % (m, e, {"skimage": "skimage", "osgeo": "gdal"}.get(m, m)))


T = tempfile.mkdtemp(prefix="winent-py-")
atexit.register(shutil.rmtree, T, True)

_count = {"passed": 0, "failed": 0}
_count_lock = threading.Lock()


def ok():
    with _count_lock:
        _count["passed"] += 1


def bad(what):
    with _count_lock:
        _count["failed"] += 1
    print("FAILED: " + what, file=sys.stderr)
    sys.stderr.flush()


def check(what, cond, detail=""):
    if cond:
        ok()
    else:
        bad(what + (": " + str(detail) if detail != "" else ""))
    return bool(cond)


def expect_raises(what, exc_type, fn, *args, status=None, contains=None, **kw):
    """fn(*args, **kw) must raise exc_type (with that status, a message
    holding `contains`); returns the exception or None."""
    try:
        fn(*args, **kw)
    except exc_type as e:
        if status is not None and getattr(e, "status", None) != status:
            bad("%s: status %r, want %r (%s)" % (what, getattr(e, "status", None), status, e))
            return e
        if contains is not None and contains not in str(e):
            bad("%s: message %r lacks %r" % (what, str(e), contains))
            return e
        ok()
        return e
    except BaseException as e:  # noqa: B036
        bad("%s: raised %s: %s, want %s" % (what, type(e).__name__, e, exc_type.__name__))
        return None
    bad("%s: no exception, want %s" % (what, exc_type.__name__))
    return None


def run_test(fn):
    """Run one test function; an exception is one failure, with its traceback."""
    try:
        fn()
    except Exception:
        bad("%s raised:\n%s" % (fn.__name__, traceback.format_exc()))


def finish():
    print("%d passed, %d failed" % (_count["passed"], _count["failed"]))
    sys.stdout.flush()
    shutil.rmtree(T, True)
    # os._exit: no waiting on threads a failed test may have left blocked.
    os._exit(0 if _count["failed"] == 0 else 1)


def watchdog(seconds, what):
    """Fail and exit if still running after `seconds` (a hung job would
    otherwise hold the test until ctest's timeout); cancel() it when done."""
    timer = threading.Timer(seconds, lambda: (bad("%s: still running after %d s" % (what, seconds)),
                                              finish()))
    timer.daemon = True
    timer.start()
    return timer


def path(name):
    return os.path.join(T, name)


def cli(*args, expect=0):
    """Run winent-stream --quiet ARGS; returns (exit code, stderr text).
    A different exit code than `expect` is a failure."""
    r = subprocess.run([WS, "--quiet"] + [str(a) for a in args], env=CHILD_ENV,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err = r.stderr.decode("utf-8", "replace")
    if expect is not None and r.returncode != expect:
        bad("winent-stream %s: exit %d, want %d: %s" % (" ".join(map(str, args)), r.returncode,
                                                        expect, err.strip()))
    return r.returncode, err


def cli_message(*args):
    """The one-line message winent-stream prints for ARGS, without its
    "winent-stream: " prefix (and its exit code)."""
    code, err = cli(*args, expect=None)
    line = err.strip().splitlines()[-1] if err.strip() else ""
    prefix = "winent-stream: "
    return code, line[len(prefix):] if line.startswith(prefix) else line


def cli_map(raw_in, width, height, dtype, *options):
    """The CLI's raw float32 map of a raw input, as a numpy array."""
    import numpy as np
    out = path("cli-%d.raw" % _count_next())
    code, _ = cli("--size", "%dx%d" % (width, height), "--dtype", dtype, *options, raw_in, out)
    if code != 0:
        return None
    m = np.fromfile(out, dtype="<f4").reshape(height, width)
    os.unlink(out)
    return m


_seq = [0]


def _count_next():
    with _count_lock:
        _seq[0] += 1
        return _seq[0]


def mksample(name, width, height, dtype, *args):
    """A raw test raster from winent-mksample."""
    p = path(name)
    subprocess.run([MK, "--size", "%dx%d" % (width, height), "--dtype", dtype] + list(args) + [p],
                   env=CHILD_ENV, check=True, stdout=subprocess.DEVNULL)
    return p


def same_bits(a, b):
    """Two float32 maps equal bit for bit (NaN where the other has NaN)."""
    import numpy as np
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.astype("<f4").tobytes() == b.astype("<f4").tobytes()
