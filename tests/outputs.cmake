# SPDX-License-Identifier: BSD-3-Clause
# Tests of the outputs (issue 12): files through a temporary name, fsync
# and rename; devices, FIFOs, pipes and /dev/fd/N in place; the input never
# the output; signals and limits. One ctest test per group of cases, so a
# group impossible here (mknod without CAP_MKNOD, strace without ptrace)
# skips alone.
foreach(group devices mknod streams same names failures tiff fsync)
  winent_sh_test(outputs_${group} test_cli_outputs.sh ${group})
endforeach()
# --sidecar (issue 13): the ENVI header beside a raw map, opened by GDAL
# with the input's georeferencing (the real files of ../shared too).
winent_sh_test(test_sidecar test_sidecar.sh)
# Several bands and windows in one pass (issue 13): each map of one run
# equals the single run of its band and window, in every output and from
# every input layout; the errors.
foreach(group raw zst tif errors stats memory)
  winent_sh_test(multimap_${group} test_multimap.sh ${group})
endforeach()
winent_unit_test(test_multimap_reference)
# Nothing but the outputs is ever written (issue 28, items 1, 2 and 8): no
# output is a file the job reads (the input's sidecars, GDAL's file list)
# or another output; a descriptor is written only where it was opened for
# writing; --help/--version/--info to a failing standard output and the
# libraries' diagnostics each give one line.
foreach(group guard descriptors oneline)
  winent_sh_test(out_safety_${group} test_out_safety.sh ${group})
endforeach()
winent_unit_test(test_file_guard)
# --ot float16|uint16|uint8 (issue 30): every format against the float32
# map within the stated rounding, scale/offset/nodata read back by GDAL.
winent_sh_test(test_out_type test_out_type.sh)
