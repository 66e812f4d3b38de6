# SPDX-License-Identifier: BSD-3-Clause
# Debian packages, made from the build folder with `cpack -G DEB`:
#
#   winent-stream_0.2.0_amd64.deb   the CLI, libwinent.so.0, the man page and
#                                   the bash completion (component "runtime")
#   libwinent-dev_0.2.0_amd64.deb   winent.h, libwinent.so, libwinent.a,
#                                   winent.pc, the CMake package ("dev")
#   python3-winent_0.2.0_amd64.deb  the Python package winent ("python"; its
#                                   _install.py names the library's folder,
#                                   so it is built per architecture)
#
# Depends comes from dpkg-shlibdeps (dpkg-dev) reading the binaries, so it
# follows what the build linked (libtiff, libpng, CUDA's static runtime...).
# GDAL and PROJ are opened at first use, not linked (src/tiles/dynlib.h), so
# the runtime package Recommends the library packages the build compiled
# against: without them, TIFF and raw still read, and the rest says why not.
# Installed under /usr. Each package carries the Debian copyright file
# (packaging/copyright: BSD-3-Clause, and the licences of what is linked) as
# /usr/share/doc/PACKAGE/copyright. The Homepage field is written only where
# WINENT_HOMEPAGE is set (the project has no public home yet).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME winent-stream)
set(CPACK_PACKAGE_VENDOR "winent-stream")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${WINENT_MAINTAINER}")
if(WINENT_HOMEPAGE)
  set(CPACK_PACKAGE_HOMEPAGE_URL "${WINENT_HOMEPAGE}")
  set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${WINENT_HOMEPAGE}")
endif()
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
foreach(winent_deb_comp runtime:winent-stream dev:libwinent-dev python:python3-winent)
  string(REPLACE ":" ";" winent_deb_comp "${winent_deb_comp}")
  list(GET winent_deb_comp 0 winent_comp)
  list(GET winent_deb_comp 1 winent_pkg)
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/copyright
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${winent_pkg} COMPONENT ${winent_comp})
endforeach()
set(CPACK_SOURCE_GENERATOR TGZ)
set(CPACK_SOURCE_IGNORE_FILES "/\\\\.git/" "/\\\\.git$" "/build[^/]*/" "/_CPack_Packages/")

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev)
if(WINENT_PYTHON_INSTALL)
  list(APPEND CPACK_COMPONENTS_ALL python)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # NAME_VERSION_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME winent-stream)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION science)
set(winent_runtime_recommends "")
foreach(lib WINENT_GDAL_LIB WINENT_PROJ_LIB)
  if(${lib}_PACKAGE)
    list(APPEND winent_runtime_recommends ${${lib}_PACKAGE})
  endif()
endforeach()
if(winent_runtime_recommends)
  string(REPLACE ";" ", " winent_runtime_recommends "${winent_runtime_recommends}")
  set(CPACK_DEBIAN_RUNTIME_PACKAGE_RECOMMENDS "${winent_runtime_recommends}")
endif()
# Each package's description: its summary line, then the long text. (No
# CPACK_PACKAGE_DESCRIPTION_SUMMARY: CPack would put that one line above both.)
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION "${WINENT_SUMMARY}
winent-stream computes the local Shannon entropy of every pixel of a raster
(the entropy of the values in the window around it) with a bounded streaming
pipeline: TIFF, BigTIFF or raw in, from a file or a pipe; the CPU and any
NVIDIA GPU computing; zstd frames or a tiled float32 GeoTIFF out. Memory stays
flat whatever the image size, and every engine gives the same bits.
This package holds the winent-stream command and libwinent.so.0, its library.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libwinent-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "winent-stream (= ${PROJECT_VERSION})")
# What `pkg-config --static --libs winent` and winent::winent_static link.
set(winent_dev_recommends "pkg-config, libzstd-dev, libtiff-dev, zlib1g-dev, libcjson-dev")
if(TARGET PkgConfig::PNG)
  string(APPEND winent_dev_recommends ", libpng-dev")
endif()
set(CPACK_DEBIAN_DEV_PACKAGE_RECOMMENDS "${winent_dev_recommends}")
set(CPACK_DEBIAN_DEV_DESCRIPTION "${WINENT_SUMMARY} (development files)
The C header winent.h, libwinent.so and the static libwinent.a, with the
pkg-config file winent.pc and the CMake package (find_package(winent):
winent::winent, winent::winent_static), to use the winent-stream library
from C or C++ programs.")

set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-winent)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "winent-stream (= ${PROJECT_VERSION}), python3, python3-numpy")
set(CPACK_DEBIAN_PYTHON_PACKAGE_RECOMMENDS "python3-zstandard")
set(CPACK_DEBIAN_PYTHON_PACKAGE_SUGGESTS "python3-dask")
set(CPACK_DEBIAN_PYTHON_DESCRIPTION "${WINENT_SUMMARY} (Python)
The Python package winent: winent.entropy() computes the local entropy map of
a numpy array, winent.run() and winent.Job run file jobs as the
winent-stream command does, with a progress callback and cancellation, and
winent.read_zst() and winent.open_zst() read its .zst maps into numpy (the
latter lazily, frame by frame). A ctypes layer over libwinent.so.0.")
# Python writes __pycache__ beside the modules when root imports them: the
# package's prerm removes it, so the folder goes with the package.
set(winent_deb_pydir "${WINENT_PYTHON_INSTALL_DIR}")
if(NOT IS_ABSOLUTE "${winent_deb_pydir}")
  set(winent_deb_pydir "/usr/${winent_deb_pydir}") # the .deb's prefix
endif()
file(WRITE ${CMAKE_BINARY_DIR}/cmake/prerm.in "#!/bin/sh
set -e
rm -rf '${winent_deb_pydir}/winent/__pycache__'
")
file(COPY ${CMAKE_BINARY_DIR}/cmake/prerm.in DESTINATION ${CMAKE_BINARY_DIR}/cmake/python3-winent
     FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                      WORLD_READ WORLD_EXECUTE)
file(RENAME ${CMAKE_BINARY_DIR}/cmake/python3-winent/prerm.in
     ${CMAKE_BINARY_DIR}/cmake/python3-winent/prerm)
set(CPACK_DEBIAN_PYTHON_PACKAGE_CONTROL_EXTRA ${CMAKE_BINARY_DIR}/cmake/python3-winent/prerm)

find_program(WINENT_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(WINENT_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  message(STATUS "winent-stream: dpkg-shlibdeps not found: a .deb made here lists no "
                 "dependencies (apt-get install dpkg-dev)")
endif()
# DEBIAN/shlibs and the ldconfig trigger for libwinent.so.0. A 0.x API may
# change in any release: programs depend on this exact version.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY "=")

include(CPack)
