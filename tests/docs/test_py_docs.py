# SPDX-License-Identifier: BSD-3-Clause
"""The examples of docs/PYTHON.md and docs/SCALING.md run as a user runs
them and print what the pages show (tests/docs/readme_examples.py, as the
README's: blocks whose needs this machine lacks skip with the reason);
among them the README's pip install and its xarray/dask example."""
import os
import subprocess
import sys

from py_harness import SRC, T, check, finish, run_test

BUILD = os.path.dirname(os.environ.get("WINENT_BIN", ""))

if os.environ.get("WINENT_SANITIZE"):
    # The pages' examples start the build's programs from an interpreter
    # that has the sanitizer's runtime preloaded: they are a user's runs,
    # checked in the normal build.
    print("SKIP: the docs' examples run in the normal build, not under the sanitizers")
    sys.exit(77)


def test_page(page):
    work = os.path.join(T, os.path.basename(page))
    os.makedirs(work)
    env = dict(os.environ, WINENT_BUILD=BUILD)
    r = subprocess.run([sys.executable, os.path.join(SRC, "tests", "docs", "readme_examples.py"),
                        os.path.join(SRC, "docs", page), work], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=900)
    out = r.stdout.decode("utf-8", "replace")
    print(out)
    last = out.strip().splitlines()[-1] if out.strip() else ""
    check("docs/%s's examples: %s" % (page, last), r.returncode in (0, 77), out[-3000:])


for page in ("PYTHON.md", "SCALING.md"):
    run_test(lambda page=page: test_page(page))
finish()
