# SPDX-License-Identifier: BSD-3-Clause
"""The ``winent-stream`` command a pip install writes: it runs
winent/__main__.py (which runs the packaged winent-stream program) without
importing the winent package, whose import brings numpy and xarray: the
command starts as fast as the program."""
import importlib.util
import os
import sys


def main() -> int:
    spec = importlib.util.find_spec("winent")  # located, not imported
    folder = list(spec.submodule_search_locations or [])[0] if spec else None
    if folder is None:
        sys.stderr.write("winent-stream: the winent package is not installed\n")
        return 2
    run = importlib.util.spec_from_file_location("_winent_main",
                                                 os.path.join(folder, "__main__.py"))
    if run is None or run.loader is None:
        sys.stderr.write("winent-stream: %s has no __main__.py\n" % folder)
        return 2
    module = importlib.util.module_from_spec(run)
    run.loader.exec_module(module)
    return int(module.main())


if __name__ == "__main__":
    sys.exit(main())
