# SPDX-License-Identifier: BSD-3-Clause
"""The package's type hints (it ships py.typed): Debian's mypy checks the
package, accepts a user's correct calls and flags wrong ones. Skips (77)
where mypy is absent (Debian: apt-get install mypy)."""
import os
import shutil
import subprocess

from py_harness import CHILD_ENV, SRC, check, finish, path, run_test, skip

MYPY = shutil.which("mypy")
if MYPY is None:
    skip("no mypy to check the type hints (Debian: apt-get install mypy)")
PKG = os.path.join(SRC, "python")


# Kept between runs in the build folder: a first run analyses a lot.
CACHE = os.path.join(os.path.dirname(os.environ.get("WINENT_BIN", path("."))), "mypy-cache")


def mypy(*targets):
    env = dict(CHILD_ENV, MYPYPATH=PKG)
    # The package's own hints, not numpy's or xarray's (without the site's
    # packages they are Any): minutes less on a loaded machine.
    r = subprocess.run([MYPY, "--no-color-output", "--ignore-missing-imports",
                        "--no-site-packages", "--cache-dir", CACHE] + list(targets), env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return r.returncode, r.stdout.decode("utf-8", "replace")


def test_package():
    check("py.typed is in the package", os.path.isfile(os.path.join(PKG, "winent", "py.typed")))
    code, out = mypy("-p", "winent")
    check("mypy -p winent: no errors", code == 0, out[-3000:])


def test_user_code():
    good = path("good.py")
    with open(good, "w") as f:
        f.write("import warnings\n"
                "import numpy as np\n"
                "import winent\n"
                "img = np.zeros((40, 50), np.uint8)\n"
                "m = winent.entropy(img, window=(3, 7), base=2, channel_axis=None)\n"
                "b = winent.entropy_block(img, (0, 0, 0, 0), window=5)\n"
                "warnings.simplefilter('error', winent.SaturationWarning)\n"
                "c: type = winent.RangeWarning\n"
                "from typing import Optional\n"
                "from winent.__main__ import cli_path\n"
                "exe: Optional[str] = cli_path()\n")
    code, out = mypy(good)
    check("a correct use type-checks", code == 0, out)
    bad = path("bad.py")
    with open(bad, "w") as f:
        f.write("import numpy as np\n"
                "import winent\n"
                "img = np.zeros((40, 50), np.uint8)\n"
                "winent.entropy(img, base=2.5j)\n"
                "winent.entropy(img, channel_axis='last')\n"
                "winent.entropy(img, units=3)\n")
    code, out = mypy(bad)
    check("wrong argument types are flagged (3 errors)",
          code != 0 and out.count("error:") == 3 and "bad.py:4" in out and "bad.py:5" in out
          and "bad.py:6" in out, out)


run_test(test_package)
run_test(test_user_code)
finish()
