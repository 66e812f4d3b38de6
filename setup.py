# SPDX-License-Identifier: BSD-3-Clause
"""Build hooks of the Python package (metadata: pyproject.toml).

``pip install .`` and ``pip wheel .`` build libwinent.so.0 and the
winent-stream program with CMake from this tree and put them inside the
package (winent/libwinent.so.0, which winent._lib loads first, and
winent/bin/winent-stream, which the ``winent-stream`` command pip writes
and ``python -m winent`` run), so the install needs no .deb and no
LD_LIBRARY_PATH. The library links the system's libtiff, libzstd, ... (the
build's -dev packages: tools/setup-debian.sh), so a wheel is for the
system it was built on.

Environment variables:

WINENT_PREBUILT_LIBRARY
    the path of a libwinent.so.0 built already (cmake --build build): it is
    copied into the package and CMake does not run (CI reuses its build).
WINENT_PREBUILT_CLI
    with WINENT_PREBUILT_LIBRARY, the winent-stream program built with it
    (default: src/winent-stream of the same build folder, where it exists;
    without one, the installed command runs a winent-stream found on PATH).
WINENT_CUDA
    OFF (or 0) builds the CPU engine alone.
WINENT_CUDA_ARCHITECTURES
    where nvcc is found (CMake decides), the GPUs to build the CUDA engine
    for: "native" (the GPUs of this machine), a list such as "80;90", or
    "all-default" (CMake's list of every supported GPU, for a wheel built
    on a machine without GPUs; compiling it takes many minutes). Unset:
    "native" where nvidia-smi sees a GPU, else the CPU engine alone, so a
    plain install on a machine without a GPU never compiles CUDA.
CMAKE_ARGS
    more arguments for CMake's configure step (split on spaces).
"""
import os
import shutil
import subprocess
import sys

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

try:
    from wheel.bdist_wheel import bdist_wheel
except ImportError:  # no wheel module: pip install still works through setuptools
    bdist_wheel = None

ROOT = os.path.dirname(os.path.abspath(__file__))
SONAME = "libwinent.so.0"
CLI = "winent-stream"
# Not build/: that is the developer's own CMake build folder.
BUILD_BASE = "build-python"


def _log(text):
    sys.stderr.write("winent setup: %s\n" % text)
    sys.stderr.flush()


def _gpu_visible():
    """Whether nvidia-smi lists a GPU on this machine."""
    try:
        r = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return r.returncode == 0 and b"GPU" in r.stdout


def cuda_args():
    """CMake's CUDA options for this build (see the module's text)."""
    if os.environ.get("WINENT_CUDA", "").upper() in ("OFF", "0", "NO", "FALSE"):
        return ["-DWINENT_CUDA=OFF"]
    arch = os.environ.get("WINENT_CUDA_ARCHITECTURES", "")
    if arch == "all-default":
        return []
    if arch:
        return ["-DWINENT_CUDA_ARCHITECTURES=" + arch]
    if _gpu_visible():
        return ["-DWINENT_CUDA_ARCHITECTURES=native"]
    _log("no GPU seen (nvidia-smi): the CPU engine alone; set WINENT_CUDA_ARCHITECTURES "
         "(e.g. 90, or all-default) to build the CUDA engine here")
    return ["-DWINENT_CUDA=OFF"]


def build_library(build_temp):
    """Configure and build the targets winent and winent-stream; the paths of
    libwinent.so.0 and of the program."""
    cmake = shutil.which("cmake")
    if cmake is None:
        raise SystemExit("winent setup: cmake is needed to build libwinent (Debian: "
                         "sh tools/setup-debian.sh), or set WINENT_PREBUILT_LIBRARY")
    args = [cmake, "-S", ROOT, "-B", build_temp, "-DCMAKE_BUILD_TYPE=Release",
            "-DWINENT_PYTHON_INSTALL=OFF"] + cuda_args()
    args += os.environ.get("CMAKE_ARGS", "").split()
    _log(" ".join(args))
    subprocess.run(args, check=True)
    jobs = str(os.cpu_count() or 1)
    subprocess.run([cmake, "--build", build_temp, "--target", "winent", CLI, "-j", jobs],
                   check=True)
    lib = _built(build_temp, SONAME)
    if lib is None:
        raise SystemExit("winent setup: CMake built no %s under %s" % (SONAME, build_temp))
    return lib, _built(build_temp, CLI)


def _built(build_dir, name):
    """Where CMake put `name` in a build folder, or None."""
    for sub in ("lib", "src", "bin", "."):
        p = os.path.join(build_dir, sub, name)
        if os.path.exists(p):
            return p
    return None


def _install_file(src, dest):
    """The file itself (not a link to it), executable."""
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    shutil.copyfile(os.path.realpath(src), dest)
    os.chmod(dest, 0o755)


class BuildPyWithLibrary(build_py):
    """build_py, then libwinent.so.0 into the built package."""

    def run(self):
        super().run()
        lib = os.environ.get("WINENT_PREBUILT_LIBRARY")
        if lib:
            if not os.path.isfile(lib):
                raise SystemExit("winent setup: WINENT_PREBUILT_LIBRARY=%s: no such file" % lib)
            _log("using the prebuilt %s" % lib)
            cli = os.environ.get("WINENT_PREBUILT_CLI") or _built(
                os.path.dirname(os.path.dirname(os.path.abspath(lib))), CLI)
        else:
            lib, cli = build_library(os.path.abspath(os.path.join(BUILD_BASE, "cmake")))
        _install_file(lib, os.path.join(self.build_lib, "winent", SONAME))
        if cli and os.path.isfile(cli):
            _install_file(cli, os.path.join(self.build_lib, "winent", "bin", CLI))
        else:
            _log("no %s program to package: the winent-stream command will look on PATH" % CLI)


cmdclass = {"build_py": BuildPyWithLibrary}

if bdist_wheel is not None:
    class PlatformWheel(bdist_wheel):
        """A wheel for this platform (it holds a shared library), for any
        Python 3 (the library is loaded through ctypes, no extension)."""

        def get_tag(self):
            _, _, plat = super().get_tag()
            return "py3", "none", plat

    cmdclass["bdist_wheel"] = PlatformWheel



class BinaryDistribution(Distribution):
    """The package holds a shared library: installed to the platform's
    folder, its wheel tagged for the platform."""

    def has_ext_modules(self):
        return True


# setuptools' metadata folder there too, not in python/ beside the package.
os.makedirs(BUILD_BASE, exist_ok=True)
setup(distclass=BinaryDistribution, cmdclass=cmdclass,
      options={"build": {"build_base": BUILD_BASE}, "egg_info": {"egg_base": BUILD_BASE}},
      zip_safe=False)
