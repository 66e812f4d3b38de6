# SPDX-License-Identifier: BSD-3-Clause
# tests of the docs area: the README's examples run as a user runs them
# (test_readme_examples.sh), and those of docs/PYTHON.md and
# docs/SCALING.md (test_py_docs.py); the performance chart and table made
# from docs/PERFORMANCE.md by tools/perf-chart.py; the licence on every
# source file (test_licence.sh); the .zst header's schema against
# docs/FORMATS.md; every path under tests/ that the tree names exists
# (test_doc_paths.sh).
winent_sh_test(test_licence test_licence.sh)
winent_sh_test(test_perf_chart test_perf_chart.sh)
winent_sh_test(test_readme_examples test_readme_examples.sh)
set_property(TEST test_readme_examples APPEND PROPERTY ENVIRONMENT
  "WINENT_BUILD=${CMAKE_BINARY_DIR}" "CMAKE=${CMAKE_COMMAND}" "CC=${CMAKE_C_COMPILER}"
  "WINENT_SAN_FLAGS=${winent_san_flags_for_users}")
# The header's schema: zst_schema.c and docs/FORMATS.md name the same
# members, required and nullable alike.
winent_sh_test(test_zst_schema_doc test_zst_schema_doc.sh)
# The examples of docs/PYTHON.md and docs/SCALING.md run and print what the
# pages show (readme_examples.py).
winent_py_test(test_py_docs test_py_docs.py)
set_tests_properties(test_py_docs PROPERTIES TIMEOUT 900)
# Every tests/ path the docs, tools, build files and tests name exists.
winent_sh_test(test_doc_paths test_doc_paths.sh)
