# SPDX-License-Identifier: BSD-3-Clause
"""The winent package: import, version, where libwinent is found (each
place of the documented order, and the message when it is nowhere), and
the mapping of the library's statuses to exceptions."""
import os
import shutil
import subprocess
import sys

from py_harness import T, check, finish, need, run_test

need("numpy")
import winent  # noqa: E402
from winent import _errors  # noqa: E402

BUILD_LIB = os.environ["WINENT_LIBRARY"]
PKG = os.path.dirname(winent.__file__)


def test_version_and_library():
    check("winent.__version__ %s is the project's %s" % (winent.__version__,
                                                          os.environ.get("WINENT_VERSION")),
          winent.__version__ == os.environ.get("WINENT_VERSION"))
    check("the library named by WINENT_LIBRARY is loaded",
          winent.library_path() == BUILD_LIB, winent.library_path())
    check("gpu_count() is a count", winent.gpu_count() >= 0)


def test_errors_mapped():
    want = {1: winent.InternalError, 2: winent.UsageError, 3: winent.InputError,
            4: winent.OutputError, 5: winent.DeviceError, 130: winent.Cancelled}
    for status, cls in want.items():
        e = _errors.error_for(status, "why %d" % status)
        check("status %d is %s" % (status, cls.__name__),
              type(e) is cls and e.status == status and str(e) == "why %d" % status and
              e.message == "why %d" % status and isinstance(e, winent.Error))
    check("a usage error is a ValueError", issubclass(winent.UsageError, ValueError))
    check("LibraryNotFound is an ImportError and a winent.Error",
          issubclass(winent.LibraryNotFound, ImportError) and
          issubclass(winent.LibraryNotFound, winent.Error))
    e = _errors.error_for(77, "")
    check("an unknown status is a plain Error with a message",
          type(e) is winent.Error and e.status == 77 and "77" in str(e))


def python(code, env_changes, cwd=None):
    """Run `code` in a fresh Python with the environment changed (None
    removes a variable); returns (exit code, stdout, stderr)."""
    env = dict(os.environ)
    for k, v in env_changes.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    r = subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd or T,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return r.returncode, r.stdout.decode().strip(), r.stderr.decode().strip()


def package_copy(name):
    """A copy of the package in T/name/winent (its parent goes on PYTHONPATH)."""
    root = os.path.join(T, name)
    shutil.copytree(PKG, os.path.join(root, "winent"),
                    ignore=shutil.ignore_patterns("__pycache__", "_install.py",
                                                  "libwinent.so*"))
    return root


SHOW = ("import winent, numpy; "
        "m = winent.entropy(numpy.arange(36, dtype=numpy.uint8).reshape(6, 6) % 5); "
        "print(winent.library_path()); print(m.dtype, m.shape)")


def test_lookup_order():
    system_has_it = subprocess.run("ldconfig -p 2>/dev/null | grep -q libwinent.so.0",
                                   shell=True).returncode == 0

    # 1. WINENT_LIBRARY, and nothing past it when it is wrong.
    code, out, err = python(SHOW, {"WINENT_LIBRARY": os.path.join(T, "nowhere.so")})
    check("a WINENT_LIBRARY that does not load is an error naming it",
          code != 0 and "LibraryNotFound" in err and "WINENT_LIBRARY=" in err and
          "nowhere.so" in err, err)
    zstd_so = None
    for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib", "/lib/x86_64-linux-gnu"):
        if os.path.exists(os.path.join(d, "libzstd.so.1")):
            zstd_so = os.path.join(d, "libzstd.so.1")
    if zstd_so:
        code, out, err = python(SHOW, {"WINENT_LIBRARY": zstd_so})
        check("a library that is not libwinent is refused, naming what it lacks",
              code != 0 and "lacks winent_" in err, err)

    # 2. Beside the package.
    root = package_copy("beside")
    os.symlink(BUILD_LIB, os.path.join(root, "winent", "libwinent.so.0"))
    code, out, err = python(SHOW, {"WINENT_LIBRARY": None, "PYTHONPATH": root})
    check("libwinent.so.0 beside the package is found",
          code == 0 and out.splitlines()[0] == os.path.join(root, "winent", "libwinent.so.0"),
          out + err)

    # 3. The install's library folder (_install.py, as cmake --install writes it).
    root = package_copy("installed")
    libdir = os.path.dirname(BUILD_LIB)
    with open(os.path.join(root, "winent", "_install.py"), "w") as f:
        f.write("LIBDIR = %r\n" % os.path.relpath(libdir, os.path.join(root, "winent")))
    code, out, err = python(SHOW, {"WINENT_LIBRARY": None, "PYTHONPATH": root})
    check("the install's library folder (relative LIBDIR) is found",
          code == 0 and os.path.realpath(out.splitlines()[0]) ==
          os.path.realpath(os.path.join(libdir, "libwinent.so.0")), out + err)

    # 4. The dynamic loader's search.
    root = package_copy("system")
    code, out, err = python(SHOW, {"WINENT_LIBRARY": None, "PYTHONPATH": root,
                                   "LD_LIBRARY_PATH": libdir})
    check("the dynamic loader's search (LD_LIBRARY_PATH) finds it",
          code == 0 and out.splitlines()[0] == "libwinent.so.0", out + err)

    # Nowhere: one clear message; the .zst reader still works.
    if system_has_it:
        print("SKIP part: a libwinent.so.0 is installed on this system (ldconfig -p): "
              "the not-found message cannot be seen")
    else:
        code, out, err = python(SHOW, {"WINENT_LIBRARY": None, "PYTHONPATH": root,
                                       "LD_LIBRARY_PATH": None})
        last = err.splitlines()[-1] if err else ""
        check("without the library: LibraryNotFound saying where it looked and what to do",
              code != 0 and "LibraryNotFound" in last and "cannot find libwinent.so.0" in last
              and "WINENT_LIBRARY" in last and "beside the package" in last, err)
        code, out, err = python("import winent; print(winent.read_zst.__name__)",
                                {"WINENT_LIBRARY": None, "PYTHONPATH": root,
                                 "LD_LIBRARY_PATH": None})
        check("import winent needs no library", code == 0 and out == "read_zst", err)


for t in (test_version_and_library, test_errors_mapped, test_lookup_order):
    run_test(t)
finish()
