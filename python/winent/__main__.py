# SPDX-License-Identifier: BSD-3-Clause
"""``python -m winent ARGS`` and the ``winent-stream`` command a pip
install puts on the environment's PATH: the winent-stream program itself,
with the same arguments, exit codes and output (``python -m winent --help``).

The program is found (the first that exists wins): the file named by the
environment variable ``WINENT_CLI``; ``bin/winent-stream`` inside this
package (where ``pip install`` puts the program it builds, beside its
libwinent.so.0); a ``winent-stream`` program on PATH (a compiled one: the
script pip writes under that name is this module, and is skipped)."""
import os
import sys
from typing import List, Optional

_NAME = "winent-stream"


def _is_program(path: str) -> bool:
    """An executable ELF file (not a script, so never this module's own
    launcher again)."""
    try:
        with open(path, "rb") as f:
            magic = f.read(4)
    except OSError:
        return False
    return magic == b"\x7fELF" and os.access(path, os.X_OK)


def cli_path() -> Optional[str]:
    """The winent-stream program this package runs, or None."""
    env = os.environ.get("WINENT_CLI")
    if env:
        return env
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", _NAME)
    if _is_program(here):
        return here
    for d in os.environ.get("PATH", os.defpath).split(os.pathsep):
        p = os.path.join(d or ".", _NAME)
        if _is_program(p):
            return p
    return None


def main(argv: Optional[List[str]] = None) -> int:
    """Run winent-stream with `argv` (default: this process's arguments) in
    place of this process; returns only where no program is found (2)."""
    args = sys.argv[1:] if argv is None else list(argv)
    exe = cli_path()
    if exe is None:
        sys.stderr.write("winent-stream: the program is not installed beside the Python "
                         "package nor on PATH: pip install the package from the source tree "
                         "(it builds the program too), install winent-stream, or set "
                         "WINENT_CLI to its path\n")
        return 2
    env = dict(os.environ)
    pkg = os.path.dirname(os.path.abspath(__file__))
    if os.path.dirname(os.path.abspath(exe)) == os.path.join(pkg, "bin"):
        # The packaged program links the packaged library (no rpath to it).
        env["LD_LIBRARY_PATH"] = pkg + (os.pathsep + env["LD_LIBRARY_PATH"]
                                        if env.get("LD_LIBRARY_PATH") else "")
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execve(exe, [_NAME] + args, env)
    except OSError as e:
        sys.stderr.write("winent-stream: cannot run %s: %s\n" % (exe, e.strerror))
        return 2
    return 0  # not reached: execve returns only on failure


if __name__ == "__main__":
    sys.exit(main())
