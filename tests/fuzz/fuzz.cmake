# SPDX-License-Identifier: BSD-3-Clause
# tests of the fuzz area: the libFuzzer harnesses of this folder (docs/FUZZING.md).
#
# With WINENT_FUZZ (clang) each harness is a libFuzzer binary; without it,
# the same harness with a main() that replays the files it is given, so the
# regression inputs below run in every build (under ASan and UBSan in the
# sanitizer build). run.sh runs the fuzzers themselves.
set(WINENT_FUZZERS tiff raw zst_info options zst_readers)
# The GDAL source (VRT, ENVI header + samples, NetCDF, ...) where GDAL is
# built in, and a TIFF through each of GDAL's doors (GTIFF_DIR:, VRT,
# /vsizip/, /vsigzip/, /vsisubfile/).
if(WINENT_HAVE_GDAL)
  list(APPEND WINENT_FUZZERS gdal gdal_doors)
endif()
foreach(f ${WINENT_FUZZERS})
  set(srcs ${CMAKE_CURRENT_LIST_DIR}/fuzz_${f}.c)
  if(f STREQUAL "options")
    list(APPEND srcs ${PROJECT_SOURCE_DIR}/src/cli/options.c
                     ${PROJECT_SOURCE_DIR}/src/cli/footprint.c)
  endif()
  if(WINENT_FUZZ)
    add_executable(fuzz_${f} ${srcs})
    target_compile_options(fuzz_${f} PRIVATE -fsanitize=fuzzer)
    target_link_options(fuzz_${f} PRIVATE -fsanitize=fuzzer)
  else()
    add_executable(fuzz_${f} ${srcs} ${CMAKE_CURRENT_LIST_DIR}/replay_main.c)
  endif()
  target_link_libraries(fuzz_${f} PRIVATE winent_pipeline)
  # Each crash a fuzzer found, kept as a regression input.
  file(GLOB regress ${CMAKE_CURRENT_LIST_DIR}/regress/${f}/*)
  if(regress)
    add_test(NAME fuzz_regress_${f} COMMAND fuzz_${f} ${regress})
  endif()
endforeach()

# The seed corpora (made by the CLI and GDAL) through every harness once:
# the harnesses work, and good inputs pass under the sanitizers.
winent_sh_test(fuzz_seeds test_fuzz_seeds.sh)
set_property(TEST fuzz_seeds APPEND PROPERTY ENVIRONMENT
  "WINENT_FUZZ_BIN=$<TARGET_FILE_DIR:fuzz_tiff>")
