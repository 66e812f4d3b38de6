# SPDX-License-Identifier: BSD-3-Clause
# libwinent: the whole library (base, kernels, tiles, pipeline; the CUDA
# runtime inside when built with CUDA) as a shared library, libwinent.so.0,
# and a static one, libwinent.a, both made of the objects of the internal
# static libraries (src/CMakeLists.txt compiles those position-independent,
# hidden but for WINENT_API). The CLI links the shared one (README,
# "Install", says why); the tests and tools keep linking the internal
# libraries, whose internals they use. Also here: the
# pkg-config file, the CMake package (winent::winent, winent::winent_static)
# and their install rules.

# The header's version is the project's: one number, checked here.
file(STRINGS ${PROJECT_SOURCE_DIR}/include/winent.h winent_header_version
     REGEX "^#define WINENT_VERSION_STRING ")
string(REGEX REPLACE ".*\"(.*)\".*" "\\1" winent_header_version "${winent_header_version}")
if(NOT winent_header_version STREQUAL PROJECT_VERSION)
  message(FATAL_ERROR "include/winent.h says version '${winent_header_version}', "
                      "CMakeLists.txt ${PROJECT_VERSION}: make them equal")
endif()

set(WINENT_LIB_PARTS winent_base winent_kernels winent_tiles winent_pipeline)

# ---- What the library links -------------------------------------------
# Each dependency in three forms: the item this build links (an imported
# target), the item the installed winent::winent_static carries (found
# again by winentConfig.cmake, or a plain library name), and its flags in
# the pkg-config file's Libs.private.
set(WINENT_LINK_BUILD "")
set(WINENT_LINK_INSTALL "")
set(WINENT_PC_LIBS_PRIVATE "")
function(winent_dep build install pc)
  set(WINENT_LINK_BUILD ${WINENT_LINK_BUILD} ${build} PARENT_SCOPE)
  set(WINENT_LINK_INSTALL ${WINENT_LINK_INSTALL} ${install} PARENT_SCOPE)
  string(STRIP "${WINENT_PC_LIBS_PRIVATE} ${pc}" pc)
  set(WINENT_PC_LIBS_PRIVATE "${pc}" PARENT_SCOPE)
endfunction()
# A pkg_check_modules(PREFIX ... IMPORTED_TARGET) dependency: installed as
# its plain library names, after -L for a folder the linker does not search
# by itself (CMake asks pkg-config for the system ones too).
set(winent_system_libdirs ${CMAKE_C_IMPLICIT_LINK_DIRECTORIES}
    ${CMAKE_PLATFORM_IMPLICIT_LINK_DIRECTORIES})
function(winent_pkg_dep prefix)
  set(install "")
  foreach(d ${${prefix}_LIBRARY_DIRS})
    if(NOT d IN_LIST winent_system_libdirs)
      list(APPEND install "-L${d}")
    endif()
  endforeach()
  set(pc "${install}")
  foreach(l ${${prefix}_LIBRARIES})
    list(APPEND install ${l})
    list(APPEND pc "-l${l}")
  endforeach()
  string(REPLACE ";" " " pc "${pc}")
  winent_dep(PkgConfig::${prefix} "${install}" "${pc}")
  set(WINENT_LINK_BUILD ${WINENT_LINK_BUILD} PARENT_SCOPE)
  set(WINENT_LINK_INSTALL ${WINENT_LINK_INSTALL} PARENT_SCOPE)
  set(WINENT_PC_LIBS_PRIVATE "${WINENT_PC_LIBS_PRIVATE}" PARENT_SCOPE)
endfunction()

winent_pkg_dep(ZSTD)
winent_pkg_dep(TIFF)
winent_pkg_dep(ZLIB)
winent_pkg_dep(CJSON) # the .zst header and --info (src/base/json.c)
if(TARGET PkgConfig::PNG) # --preview (libpng), where the build has it
  winent_pkg_dep(PNG)
endif()
if(CMAKE_DL_LIBS) # dlopen: GDAL and PROJ are opened at first use, not linked
  winent_dep(${CMAKE_DL_LIBS} ${CMAKE_DL_LIBS} "-l${CMAKE_DL_LIBS}")
endif()
if(LIBDEFLATE_FOUND) # GeoTIFF deflate tiles, where the build has libdeflate
  winent_pkg_dep(LIBDEFLATE)
endif()
if(WINENT_HAVE_CUDA)
  # cudart_static needs dl and rt; the host code nvcc compiles, libstdc++.
  get_filename_component(winent_cudart_dir "${CUDA_cudart_static_LIBRARY}" DIRECTORY)
  winent_dep(CUDA::cudart_static CUDA::cudart_static
    "-L${winent_cudart_dir} -lcudart_static -ldl -lrt -lstdc++")
  winent_dep(stdc++ stdc++ "")
endif()
winent_dep(OpenMP::OpenMP_C OpenMP::OpenMP_C "${OpenMP_C_FLAGS}")
winent_dep(Threads::Threads Threads::Threads "-lpthread")
winent_dep(m m "-lm")

# Every library the internal ones link must be listed above, or the
# installed library would be missing it: check, so the two cannot drift.
foreach(part ${WINENT_LIB_PARTS})
  get_target_property(deps ${part} INTERFACE_LINK_LIBRARIES)
  if(NOT deps)
    continue()
  endif()
  foreach(dep ${deps})
    string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" dep "${dep}")
    if(dep MATCHES "^\\$<" OR dep IN_LIST WINENT_LIB_PARTS OR dep IN_LIST WINENT_LINK_BUILD)
      continue()
    endif()
    message(FATAL_ERROR "${part} links ${dep}, which libwinent does not declare: "
                        "add it in cmake/WinentLibrary.cmake (winent_dep)")
  endforeach()
endforeach()

# ---- The two libraries ---------------------------------------------------
set(winent_objects "")
foreach(part ${WINENT_LIB_PARTS})
  list(APPEND winent_objects $<TARGET_OBJECTS:${part}>)
endforeach()
if(WINENT_HAVE_CUDA)
  set(winent_link_language CUDA)
else()
  set(winent_link_language C)
endif()

add_library(winent SHARED ${winent_objects})
add_library(winent_static STATIC ${winent_objects})
foreach(t winent winent_static)
  set_target_properties(${t} PROPERTIES
    OUTPUT_NAME winent
    LINKER_LANGUAGE ${winent_link_language}
    LIBRARY_OUTPUT_DIRECTORY ${WINENT_BUILD_LIBDIR}
    ARCHIVE_OUTPUT_DIRECTORY ${WINENT_BUILD_LIBDIR})
  target_include_directories(${t} INTERFACE
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
endforeach()

# libwinent.so.0 -> libwinent.so.0.2.0: the SONAME follows the major
# version (0: the API may still change between minor versions).
set_target_properties(winent PROPERTIES
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR})
target_link_libraries(winent PRIVATE ${WINENT_LINK_BUILD})
# WINENT_API decides the exports; the version script keeps anything else
# that would be global (OpenMP's named-critical locks, cudart_static) local.
set(winent_map ${PROJECT_SOURCE_DIR}/cmake/libwinent.map)
target_link_options(winent PRIVATE "LINKER:--version-script=${winent_map}")
set_target_properties(winent PROPERTIES LINK_DEPENDS ${winent_map})
if(NOT WINENT_SANITIZE AND NOT WINENT_FUZZ)
  # Every symbol resolved at link time: a dependency missing from the list
  # above fails here, not in a user's program. (The sanitizer runtimes are
  # the executable's, so those builds cannot ask it.)
  target_link_options(winent PRIVATE "LINKER:-z,defs")
endif()

# The static library carries its dependencies for whoever links it.
set_target_properties(winent_static PROPERTIES EXPORT_NAME winent_static)
# (LINK_ONLY: a program linking it is not compiled with -fopenmp and such.)
foreach(item ${WINENT_LINK_BUILD})
  target_link_libraries(winent_static INTERFACE "$<BUILD_INTERFACE:$<LINK_ONLY:${item}>>")
endforeach()
foreach(item ${WINENT_LINK_INSTALL})
  target_link_libraries(winent_static INTERFACE "$<INSTALL_INTERFACE:$<LINK_ONLY:${item}>>")
endforeach()

# ---- Installing: library, header, pkg-config, CMake package ----------------
# Components: "runtime" (the CLI, libwinent.so.0, man page, completion) and
# "dev" (header, libwinent.so link, libwinent.a, pkg-config, CMake); the
# .deb packages split along them (cmake/WinentPackage.cmake).
set(WINENT_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/winent)
install(TARGETS winent EXPORT winentTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT dev)
install(TARGETS winent_static EXPORT winentStaticTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(FILES ${PROJECT_SOURCE_DIR}/include/winent.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
install(EXPORT winentTargets NAMESPACE winent:: DESTINATION ${WINENT_CMAKEDIR} COMPONENT dev)
install(EXPORT winentStaticTargets NAMESPACE winent:: DESTINATION ${WINENT_CMAKEDIR}
  COMPONENT dev)

include(CMakePackageConfigHelpers)
set(WINENT_CONFIG_CUDA_NOTE "")
if(WINENT_HAVE_CUDA)
  set(WINENT_CONFIG_CUDA_NOTE ", the CUDA toolkit")
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/winentConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/winentConfig.cmake
  INSTALL_DESTINATION ${WINENT_CMAKEDIR})
# 0.x: only the same minor version promises the same API.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/winentConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/winentConfig.cmake
  ${CMAKE_BINARY_DIR}/cmake/winentConfigVersion.cmake
  DESTINATION ${WINENT_CMAKEDIR} COMPONENT dev)

# winent.pc: written when installing, so its prefix is the one installed
# to (cmake --install --prefix, or /usr in the .deb), not the configured one.
set(WINENT_PC_PREFIX "@CMAKE_INSTALL_PREFIX@")
foreach(d LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${d}}")
    set(WINENT_PC_${d} "${CMAKE_INSTALL_${d}}")
  else()
    set(WINENT_PC_${d} "\${prefix}/${CMAKE_INSTALL_${d}}")
  endif()
endforeach()
# pkg-config's URL field only where the project has a homepage.
set(WINENT_PC_URL_LINE "")
if(WINENT_HOMEPAGE)
  set(WINENT_PC_URL_LINE "URL: ${WINENT_HOMEPAGE}")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/winent.pc.in ${CMAKE_BINARY_DIR}/cmake/winent.pc.in
  @ONLY)
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(winent_pc_dest "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
else()
  set(winent_pc_dest "\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig")
endif()
install(CODE "
  configure_file(\"${CMAKE_BINARY_DIR}/cmake/winent.pc.in\"
                 \"${CMAKE_BINARY_DIR}/cmake/pkgconfig/winent.pc\" @ONLY)
  file(INSTALL DESTINATION \"${winent_pc_dest}\" TYPE FILE
       FILES \"${CMAKE_BINARY_DIR}/cmake/pkgconfig/winent.pc\")"
  COMPONENT dev)
