# SPDX-License-Identifier: BSD-3-Clause
# tests of the install area: libwinent exports exactly include/winent.h,
# and what `cmake --install` and `cpack -G DEB` put in place works for a
# user (test_install.sh). Label "install".

# The example compiles in every build, against the build tree's libwinent,
# so it keeps up with the API; test_install builds it against installs.
add_executable(example_entropy_of_file ${PROJECT_SOURCE_DIR}/examples/entropy_of_file.c)
target_link_libraries(example_entropy_of_file PRIVATE winent)

winent_sh_test(test_exports test_exports.sh)
set_property(TEST test_exports APPEND PROPERTY ENVIRONMENT
  "WINENT_SO=$<TARGET_FILE:winent>" "WINENT_A=$<TARGET_FILE:winent_static>"
  "CC=${CMAKE_C_COMPILER}")

set(winent_san_flags_for_users "")
if(WINENT_SANITIZE)
  # The installed library is instrumented: the programs built on it too.
  set(winent_san_flags_for_users "-fsanitize=${WINENT_SANITIZE}")
endif()
set(winent_man OFF)
if(WINENT_HELP2MAN AND NOT CMAKE_CROSSCOMPILING)
  set(winent_man ON)
endif()
# The Python package's folder ("" when it is not installed).
set(winent_python_dir "")
if(WINENT_PYTHON_INSTALL)
  set(winent_python_dir "${WINENT_PYTHON_INSTALL_DIR}")
endif()
winent_sh_test(test_install test_install.sh)
set_property(TEST test_install APPEND PROPERTY ENVIRONMENT
  "WINENT_BUILD=${CMAKE_BINARY_DIR}" "CMAKE=${CMAKE_COMMAND}" "CPACK=${CMAKE_CPACK_COMMAND}"
  "CMAKE_GENERATOR=${CMAKE_GENERATOR}" "CC=${CMAKE_C_COMPILER}"
  "WINENT_C_COMPILER_ID=${CMAKE_C_COMPILER_ID}"
  "WINENT_SAN_FLAGS=${winent_san_flags_for_users}"
  "WINENT_LIBDIR=${CMAKE_INSTALL_LIBDIR}" "WINENT_INCLUDEDIR=${CMAKE_INSTALL_INCLUDEDIR}"
  "WINENT_VERSION=${PROJECT_VERSION}" "WINENT_MAN=${winent_man}"
  "WINENT_PREFIX=${CMAKE_INSTALL_PREFIX}" "WINENT_PYTHON_DIR=${winent_python_dir}")
set_tests_properties(test_exports test_install PROPERTIES LABELS install)
