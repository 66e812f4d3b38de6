# SPDX-License-Identifier: BSD-3-Clause
# tests of the command line: its options and their one validation with the
# library, errors, known maps, the outputs and what is never written, the
# inputs refused, honest notices, --version.
winent_sh_test(test_cli_known test_cli_known.sh)
winent_sh_test(test_cli_errors test_cli_errors.sh)
set_tests_properties(test_cli_known test_cli_errors PROPERTIES LABELS pipeline)
# One validation (and its messages) for the CLI and the library; the
# command line's getopt_long behaviours.
add_executable(test_api_validate ${CMAKE_CURRENT_LIST_DIR}/test_api_validate.c)
target_link_libraries(test_api_validate PRIVATE winent_pipeline)
target_include_directories(test_api_validate PRIVATE ${WINENT_TESTS_LIB})
add_test(NAME test_api_validate COMMAND test_api_validate $<TARGET_FILE:winent-stream>)
winent_sh_test(test_cli_options test_cli_options.sh)
set_tests_properties(test_api_validate test_cli_options PROPERTIES LABELS pipeline)
# The rough edges of a first hour: raw options for a TIFF,
# --level per codec, --nodata outside the type, --info on a TIFF, remote
# outputs, the completion, --help without build details.
winent_sh_test(test_rough_edges test_rough_edges.sh)

# The outputs: files through a temporary name, fsync and
# rename; devices, FIFOs, pipes and /dev/fd/N in place; the input never
# the output; signals and limits. One ctest test per group of cases, so a
# group impossible here (mknod without CAP_MKNOD, strace without ptrace)
# skips alone.
foreach(group devices mknod streams same names failures tiff fsync)
  winent_sh_test(outputs_${group} test_cli_outputs.sh ${group})
endforeach()
# --sidecar: the ENVI header beside a raw map, opened by GDAL
# with the input's georeferencing (the real files of ../shared too).
winent_sh_test(test_sidecar test_sidecar.sh)
# Nothing but the outputs is ever written: no
# output is a file the job reads (the input's sidecars, GDAL's file list)
# or another output; a descriptor is written only where it was opened for
# writing; --help/--version/--info to a failing standard output and the
# libraries' diagnostics each give one line.
foreach(group guard descriptors oneline)
  winent_sh_test(out_safety_${group} test_out_safety.sh ${group})
endforeach()
winent_unit_test(test_file_guard)
# --ot float16|uint16|uint8: every format against the float32
# map within the stated rounding, scale/offset/nodata read back by GDAL.
winent_sh_test(test_out_type test_out_type.sh)

# The inputs: malformed TIFFs (crafted by make_malformed.py), raw files and
# standard input of the wrong length; what is refused, what is accepted,
# and that a refusal leaves the output folder as it was.
winent_sh_test(test_malformed test_malformed.sh)

# --bins/--range: the clamp counts and the span of the samples
# against numpy, the warning, --range auto from GDAL's statistics
# (.aux.xml, the TIFF's GDAL metadata) or a first pass.
winent_sh_test(test_range test_range.sh)
set_tests_properties(test_range PROPERTIES LABELS pipeline)
# Honest warnings: a saturated map, --range auto on GDAL's names
# (NetCDF, /vsizip/), the float-without-range message, alpha bands.
winent_sh_test(test_honest_notices test_honest_notices.sh)

# --version: the version, the engines built in, and each linked
# library's version as the library reports it at run time, held against
# what CMake found at configure time (pkg-config, FindOpenMP, the CUDA
# toolkit).
if(WINENT_HAVE_CUDA)
  set(winent_cuda_ver "${CUDAToolkit_VERSION_MAJOR}.${CUDAToolkit_VERSION_MINOR}")
  string(REPLACE ";" "," winent_cuda_archs "${CMAKE_CUDA_ARCHITECTURES}")
else()
  set(winent_cuda_ver "none")
  set(winent_cuda_archs "none")
endif()
winent_sh_test(test_version test_version.sh
  "${PROJECT_VERSION}" "${winent_cuda_ver}" "${winent_cuda_archs}" "${ZSTD_VERSION}"
  "${TIFF_VERSION}" "${ZLIB_VERSION}" "${PNG_VERSION}" "${OpenMP_C_SPEC_DATE}"
  "${GDAL_VERSION}")
# Every function of winent.h given NULL for each pointer argument: a usage
# error naming it, never a crash (winent.h's conventions).
winent_unit_test(test_api_null)
# No new output takes a name GDAL looks up beside a file read (a sidecar
# in any letter case): E.HDR beside e.bil, T.TFW beside t.tif, a VRT's
# sources' sidecars, --sidecar's and --preview's own files.
winent_sh_test(test_shadow test_shadow.sh)
# Every "give at least --mem XM" runs at X and fails at X - 1 MiB, for
# each kind of output, several maps, a preview and a TIFF input.
winent_sh_test(test_mem_advice test_mem_advice.sh)
# Messages quote what was typed (--window 5,5x5, --disk 2,2, --band 1,01)
# and print a file's UTF-8 text as UTF-8.
winent_sh_test(test_messages test_messages.sh)
