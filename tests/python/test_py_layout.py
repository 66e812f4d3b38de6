# SPDX-License-Identifier: BSD-3-Clause
"""The ctypes structures of python/winent/_lib.py against the C compiler's
layout of include/winent.h (tests/python/py_layout.c prints it): every size and
every field's offset and size the same, and no field on one side only.

    test_py_layout.py PY_LAYOUT_PROGRAM
"""
import ctypes
import subprocess
import sys

from py_harness import CHILD_ENV, check, finish, need

need("numpy")  # the package imports it

from winent import _lib  # noqa: E402

out = subprocess.run([sys.argv[1]], env=CHILD_ENV, stdout=subprocess.PIPE, check=True)
c_sizes, c_fields = {}, {}
for line in out.stdout.decode().splitlines():
    name, a, b = line.split()
    if a == "size":
        c_sizes[name] = int(b)
    else:
        c_fields[name] = (int(a), int(b))

for struct in sorted(c_sizes):
    cls = getattr(_lib, struct, None)
    if not check("winent._lib has %s" % struct, cls is not None):
        continue
    check("sizeof(%s): C %d, ctypes %d" % (struct, c_sizes[struct], ctypes.sizeof(cls)),
          c_sizes[struct] == ctypes.sizeof(cls))
    py_names = [f[0] for f in cls._fields_]
    c_names = [k.split(".", 1)[1] for k in c_fields if k.startswith(struct + ".")]
    check("%s: the same fields in the same order (C %s, ctypes %s)" % (struct, c_names, py_names),
          c_names == py_names)
    for name in py_names:
        key = "%s.%s" % (struct, name)
        if key in c_fields:
            d = getattr(cls, name)
            check("%s: C offset %d size %d, ctypes offset %d size %d"
                  % (key, c_fields[key][0], c_fields[key][1], d.offset, d.size),
                  c_fields[key] == (d.offset, d.size))
finish()
