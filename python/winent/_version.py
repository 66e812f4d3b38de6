# SPDX-License-Identifier: BSD-3-Clause
"""The version of the winent package: the version of winent-stream it
belongs to (tests/python/test_py_basics.py holds it to CMakeLists.txt's)."""
__version__ = "0.2.0"
