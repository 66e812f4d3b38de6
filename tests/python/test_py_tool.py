# SPDX-License-Identifier: BSD-3-Clause
"""python -m winent (the module the winent-stream command of a pip install
runs) is the winent-stream program: the same output, map bytes, messages
and exit codes for the same arguments; the program found through
WINENT_CLI or on PATH, never the Python launcher itself; a clear message
where there is none; the command's launcher (python/_winent_stream.py)
imports neither the package nor numpy. (tests/python/test_py_venv.py runs the installed
command and the program packaged beside the library.)"""
import os
import stat
import subprocess
import sys

from py_harness import CHILD_ENV, WS, check, finish, need, path, run_test

need("numpy")
import numpy as np  # noqa: E402


def pym(args, **env):
    e = dict(CHILD_ENV)
    e.pop("WINENT_CLI", None)
    e.update(env)
    return subprocess.run([sys.executable, "-m", "winent"] + list(args), env=e,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def prog(args):
    return subprocess.run([WS] + list(args), env=CHILD_ENV, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)


def test_same_as_the_program():
    for args in (["--version"], ["--help"], ["--window", "0", "a.raw", "b.raw"]):
        a, b = pym(args, WINENT_CLI=WS), prog(args)
        check("python -m winent %s: the program's exit code, output and message"
              % " ".join(args), (a.returncode, a.stdout, a.stderr) ==
              (b.returncode, b.stdout, b.stderr), (a.returncode, a.stderr, b.returncode,
                                                   b.stderr))
    img = np.random.default_rng(6).integers(0, 20, (40, 50), dtype=np.uint8)
    raw = path("in.raw")
    img.tofile(raw)
    opts = ["--quiet", "--size", "50x40", "--dtype", "u8", "--window", "7x3"]
    a = pym(opts + [raw, path("a.raw")], WINENT_CLI=WS)
    b = prog(opts + [raw, path("b.raw")])
    check("python -m winent ... in.raw a.raw: exit 0", a.returncode == 0 and b.returncode == 0,
          a.stderr)
    check("... the program's map, byte for byte",
          open(path("a.raw"), "rb").read() == open(path("b.raw"), "rb").read())


def test_found_on_path():
    # A Python launcher named winent-stream first on PATH (what pip writes)
    # is skipped: the compiled program after it runs.
    d = path("launcher")
    os.makedirs(d)
    fake = os.path.join(d, "winent-stream")
    with open(fake, "w") as f:
        f.write("#!/bin/sh\necho launcher ran\nexit 9\n")
    os.chmod(fake, os.stat(fake).st_mode | stat.S_IXUSR)
    r = pym(["--version"], PATH=os.pathsep.join([d, os.path.dirname(WS), "/usr/bin", "/bin"]))
    check("on PATH: the program, not a script of the same name",
          r.returncode == 0 and r.stdout == prog(["--version"]).stdout, (r.stdout, r.stderr))
    r = pym(["--version"], PATH=os.pathsep.join([d, "/nonexistent"]))
    check("no program anywhere: exit 2 and what to do",
          r.returncode == 2 and b"WINENT_CLI" in r.stderr and b"launcher ran" not in r.stdout,
          (r.returncode, r.stdout, r.stderr))


def test_launcher():
    # The command pip writes (python/_winent_stream.py) runs the program
    # without importing the package (numpy, xarray): it starts as fast.
    e = dict(CHILD_ENV, WINENT_CLI=WS)
    r = subprocess.run([sys.executable, "-c", "import sys, _winent_stream; "
                        "sys.argv[1:] = ['--version']; sys.exit(_winent_stream.main())"], env=e,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check("the launcher: the program's version line",
          r.returncode == 0 and r.stdout == prog(["--version"]).stdout, r.stderr)
    e.pop("WINENT_CLI")
    e["PATH"] = "/nonexistent"
    r = subprocess.run([sys.executable, "-c", "import sys, _winent_stream; "
                        "sys.argv[1:] = ['--version']; c = _winent_stream.main(); "
                        "print(c, 'winent' in sys.modules, 'numpy' in sys.modules)"], env=e,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check("the launcher imports neither winent nor numpy",
          r.stdout.split() == [b"2", b"False", b"False"], (r.stdout, r.stderr))


run_test(test_same_as_the_program)
run_test(test_launcher)
run_test(test_found_on_path)
finish()
