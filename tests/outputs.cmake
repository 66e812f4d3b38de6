# Tests of the outputs (issue 12): files through a temporary name, fsync
# and rename; devices, FIFOs, pipes and /dev/fd/N in place; the input never
# the output; signals and limits. One ctest test per group of cases, so a
# group impossible here (mknod without CAP_MKNOD, strace without ptrace)
# skips alone.
foreach(group devices mknod streams same names failures tiff fsync)
  winent_sh_test(outputs_${group} test_cli_outputs.sh ${group})
endforeach()
