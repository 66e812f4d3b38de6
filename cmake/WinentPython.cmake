# SPDX-License-Identifier: BSD-3-Clause
# The Python package winent (python/winent: pure Python, ctypes over
# libwinent.so.0), installed by `cmake --install` (component "python") where
# Debian's /usr/bin/python3 finds it:
#
#   prefix /usr         lib/python3/dist-packages      (Debian's own packages' place)
#   any other prefix    lib/python3.X/dist-packages    (X of WINENT_PYTHON; for the
#                                                       default /usr/local, Debian's
#                                                       python3.X searches it)
#
# Debian's site.py puts /usr/local/lib/python3.X/dist-packages and
# /usr/lib/python3/dist-packages on sys.path, but not /usr/local/lib/python3/
# dist-packages. WINENT_PYTHON_DIR (relative: under the prefix) overrides the
# choice; WINENT_PYTHON_INSTALL=OFF leaves the package out.
#
# The installed package finds the installed library through _install.py,
# written when installing: the library folder relative to the package's,
# so that the pair can move together (cmake --install --prefix, DESTDIR,
# the .deb).

# The Python with numpy (scikit-image, GDAL, zstandard, dask) the tests
# compare against, whose version also names the default package folder:
# Debian's on a developer or CI machine (tools/setup-debian.sh installs it).
set(WINENT_PYTHON "/usr/bin/python3" CACHE FILEPATH "Python with numpy for the tests")
option(WINENT_PYTHON_INSTALL "Install the Python package winent (cmake --install)" ON)
set(WINENT_PYTHON_DIR "" CACHE STRING
    "Folder of the Python package, relative to the prefix (empty: lib/python3/dist-packages for /usr, else lib/python3.X/dist-packages)")

if(WINENT_PYTHON_DIR)
  set(WINENT_PYTHON_INSTALL_DIR "${WINENT_PYTHON_DIR}")
elseif(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(WINENT_PYTHON_INSTALL_DIR "lib/python3/dist-packages")
else()
  execute_process(
    COMMAND "${WINENT_PYTHON}" -c "import sys; print('%d.%d' % sys.version_info[:2])"
    OUTPUT_VARIABLE winent_py_version OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE winent_py_rc ERROR_QUIET)
  if(winent_py_rc EQUAL 0 AND winent_py_version MATCHES "^3\\.[0-9]+$")
    set(WINENT_PYTHON_INSTALL_DIR "lib/python${winent_py_version}/dist-packages")
  else()
    # No Python to ask: the version-free folder (on sys.path under /usr only).
    set(WINENT_PYTHON_INSTALL_DIR "lib/python3/dist-packages")
    message(STATUS "winent-stream: no ${WINENT_PYTHON} to ask its version: the Python "
                   "package goes to ${WINENT_PYTHON_INSTALL_DIR} (set WINENT_PYTHON_DIR)")
  endif()
endif()

if(WINENT_PYTHON_INSTALL)
  message(STATUS "winent-stream: Python package to <prefix>/${WINENT_PYTHON_INSTALL_DIR}/winent")
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/winent
    DESTINATION ${WINENT_PYTHON_INSTALL_DIR} COMPONENT python
    FILES_MATCHING PATTERN "*.py" PATTERN "py.typed"
    PATTERN "__pycache__" EXCLUDE PATTERN "_install.py" EXCLUDE)
  # _install.py, with the prefix actually installed to (cmake --install
  # --prefix, or /usr in the .deb), as winent.pc is written.
  install(CODE "
    set(pydir \"${WINENT_PYTHON_INSTALL_DIR}\")
    set(libdir \"${CMAKE_INSTALL_LIBDIR}\")
    if(NOT IS_ABSOLUTE \"\${pydir}\")
      set(pydir \"\${CMAKE_INSTALL_PREFIX}/\${pydir}\")
    endif()
    if(NOT IS_ABSOLUTE \"\${libdir}\")
      set(libdir \"\${CMAKE_INSTALL_PREFIX}/\${libdir}\")
    endif()
    file(RELATIVE_PATH rel \"\${pydir}/winent\" \"\${libdir}\")
    file(WRITE \"${CMAKE_BINARY_DIR}/python/_install.py\"
      \"\\\"\\\"\\\"Written by cmake --install: where this install's libwinent.so.0 is.\\\"\\\"\\\"\\n\"
      \"# The library folder, relative to this package's folder.\\n\"
      \"LIBDIR = \\\"\${rel}\\\"\\n\")
    file(INSTALL DESTINATION \"\${pydir}/winent\" TYPE FILE
         FILES \"${CMAKE_BINARY_DIR}/python/_install.py\")"
    COMPONENT python)
endif()
