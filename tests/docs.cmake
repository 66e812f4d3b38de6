# SPDX-License-Identifier: BSD-3-Clause
# tests of the docs area: the README's examples run as a user runs them
# (tests/test_readme_examples.sh), the performance chart and table made
# from docs/PERFORMANCE.md by tools/perf-chart.py; the licence on every
# source file (tests/test_licence.sh).
winent_sh_test(test_licence test_licence.sh)
winent_sh_test(test_perf_chart test_perf_chart.sh)
winent_sh_test(test_readme_examples test_readme_examples.sh)
set_property(TEST test_readme_examples APPEND PROPERTY ENVIRONMENT
  "WINENT_BUILD=${CMAKE_BINARY_DIR}" "CMAKE=${CMAKE_COMMAND}" "CC=${CMAKE_C_COMPILER}"
  "WINENT_SAN_FLAGS=${winent_san_flags_for_users}")
