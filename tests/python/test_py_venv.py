# SPDX-License-Identifier: BSD-3-Clause
"""pip install from the source tree, offline with the
system's build tools, as a user of a venv runs it:

1. a fresh venv (--system-site-packages: numpy, dask, xarray from the
   system), ``pip install --no-build-isolation .`` of a copy of the tree:
   CMake builds libwinent into the package by itself; ``import winent``
   then works with no PYTHONPATH, WINENT_LIBRARY or LD_LIBRARY_PATH, the
   library loaded from inside the venv, the ``winent-stream`` command on
   the venv's PATH and ``python -m winent`` run the packaged program, and
   the Python tests
   (test_py_entropy, test_py_gis) pass when run from that venv;
2. ``pip wheel`` (reusing the build's library, WINENT_PREBUILT_LIBRARY)
   gives a wheel holding the package, libwinent.so.0 and LICENSE, tagged
   for the platform, that installs into another venv and works.

The CPU engine alone (WINENT_CUDA=OFF): the CUDA engine's build is
CMake's decision, tested by the CMake build itself."""
import glob
import importlib.util
import os
import shutil
import subprocess
import sys
import zipfile

from py_harness import CHILD_ENV, SRC, T, check, finish, need, run_test, skip

need("numpy")
for mod in ("venv", "ensurepip", "pip", "setuptools", "wheel"):
    # Found, not imported (setuptools refuses to come after pip's distutils).
    if importlib.util.find_spec(mod) is None:
        skip("no Python module %s for a venv install (Debian: apt-get install python3-venv "
             "python3-pip python3-setuptools python3-wheel)" % mod)
if shutil.which("cmake") is None:
    skip("no cmake to build libwinent")
if os.environ.get("WINENT_SANITIZE"):
    skip("a sanitizer build: pip builds a plain libwinent of its own, which this build's "
         "tests are not for (the plain build runs this test)")

BUILD_LIB = os.environ["WINENT_LIBRARY"]
TESTS = os.path.join(SRC, "tests", "python")
TESTS_LIB = os.path.join(SRC, "tests", "lib")  # py_harness.py


def clean_env(**more):
    """The environment of a user's shell: nothing pointing at the build."""
    env = dict(CHILD_ENV)
    for k in ("PYTHONPATH", "WINENT_LIBRARY", "LD_LIBRARY_PATH", "PYTHONHOME"):
        env.pop(k, None)
    env.update(more)
    return env


def run(args, env, what, cwd=None):
    r = subprocess.run(args, env=env, cwd=cwd or T, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    out = r.stdout.decode("utf-8", "replace")
    check(what, r.returncode == 0, out[-3000:])
    return r.returncode == 0, out


def source_copy():
    """The tree as a clean clone has it (no build folders, no git)."""
    dst = os.path.join(T, "src")
    shutil.copytree(SRC, dst, ignore=shutil.ignore_patterns(
        ".git", "build*", "Testing", "__pycache__", "*.egg-info", "libwinent.so*",
        "_install.py", ".devdebs", ".whl", "demo", "venv"))
    return dst


def venv(name):
    d = os.path.join(T, name)
    ok, _ = run([sys.executable, "-m", "venv", "--system-site-packages", d], clean_env(),
                "python3 -m venv --system-site-packages %s" % name)
    return os.path.join(d, "bin", "python") if ok else None


SHOW = ("import winent, numpy; "
        "m = winent.entropy(numpy.arange(36, dtype=numpy.uint8).reshape(6, 6) % 5, window=3); "
        "print(winent.__file__); print(winent.library_path()); print(m.dtype, m.shape)")


def test_install_and_tests():
    src = source_copy()
    py = venv("v1")
    if py is None:
        return
    ok, out = run([py, "-m", "pip", "install", "--no-build-isolation", "--no-index", "."],
                  clean_env(WINENT_CUDA="OFF"), "pip install --no-build-isolation . (CMake "
                  "builds libwinent)", cwd=src)
    if not ok:
        return
    ok, out = run([py, "-c", SHOW], clean_env(), "import winent in the venv")
    lines = out.split()
    venv_dir = os.path.join(T, "v1")
    check("the package and its library are the venv's: %s" % " ".join(lines[:2]),
          ok and len(lines) >= 2 and lines[0].startswith(venv_dir) and
          lines[1] == os.path.join(os.path.dirname(lines[0]), "libwinent.so.0"))
    # The whole tool: the winent-stream command on the venv's PATH and
    # python -m winent run the packaged program, as the build's does.
    pkg = os.path.dirname(lines[0]) if lines else ""
    check("the package holds py.typed and bin/winent-stream",
          os.path.isfile(os.path.join(pkg, "py.typed")) and
          os.access(os.path.join(pkg, "bin", "winent-stream"), os.X_OK), pkg)
    want = subprocess.run([os.path.join(os.environ.get("WINENT_BIN", ""), "winent-stream"),
                           "--version"], env=CHILD_ENV, stdout=subprocess.PIPE).stdout
    for cmd in ([os.path.join(venv_dir, "bin", "winent-stream"), "--version"],
                [py, "-m", "winent", "--version"]):
        env = clean_env(PATH="/usr/bin:/bin")  # not the build's, nor the venv's bin
        r = subprocess.run(cmd, env=env, cwd=T, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        # The version and the libraries; the engines may differ (pip builds
        # the CUDA engine only where it sees a GPU: setup.py).
        same = [ln for ln in r.stdout.splitlines() if not ln.startswith(b"engines:")] == \
            [ln for ln in want.splitlines() if not ln.startswith(b"engines:")]
        check("%s: the program's version line" % " ".join(cmd[-2:]),
              r.returncode == 0 and same and want, (r.stdout, r.stderr, want))
    # The Python tests, from the venv (the harness of tests/lib; the CLI of the build).
    for test in ("test_py_entropy.py", "test_py_gis.py"):
        env = clean_env(PYTHONPATH=TESTS_LIB)
        for k in ("WINENT_BIN", "WINENT_TOOLS", "WINENT_SRC"):
            env[k] = os.environ.get(k, "")
        r = subprocess.run([py, os.path.join(TESTS, test)], env=env, cwd=T,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = r.stdout.decode("utf-8", "replace")
        last = out.strip().splitlines()[-1] if out.strip() else ""
        check("%s from the venv: %s" % (test, last), r.returncode in (0, 77), out[-3000:])


def test_wheel():
    src = os.path.join(T, "src")
    if not os.path.isdir(src):
        src = source_copy()
    py = venv("v2")
    if py is None:
        return
    wheels = os.path.join(T, "wheels")
    ok, _ = run([py, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                 "-w", wheels, "."], clean_env(WINENT_PREBUILT_LIBRARY=BUILD_LIB),
                "pip wheel --no-deps --no-build-isolation .", cwd=src)
    found = glob.glob(os.path.join(wheels, "winent-*.whl"))
    if not ok or not check("one wheel made", len(found) == 1, found):
        return
    whl = found[0]
    names = zipfile.ZipFile(whl).namelist()
    check("the wheel %s is for this platform, any Python 3" % os.path.basename(whl),
          "-py3-none-linux_" in os.path.basename(whl))
    check("the wheel holds the package, libwinent.so.0, the program, py.typed and LICENSE",
          "winent/__init__.py" in names and "winent/libwinent.so.0" in names and
          "winent/bin/winent-stream" in names and "winent/py.typed" in names and
          any(n.endswith(".dist-info/LICENSE") for n in names), names)
    py3 = venv("v3")
    if py3 is None:
        return
    ok, _ = run([py3, "-m", "pip", "install", "--no-index", whl], clean_env(),
                "the wheel installs into another venv")
    ok, out = run([py3, "-c", SHOW], clean_env(), "import winent from the wheel's install")
    lines = out.split()
    check("the wheel's library is loaded", ok and len(lines) >= 2 and
          lines[1].startswith(os.path.join(T, "v3")), out)


run_test(test_install_and_tests)
run_test(test_wheel)
finish()
