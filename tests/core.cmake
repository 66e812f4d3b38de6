# SPDX-License-Identifier: BSD-3-Clause
winent_unit_test(test_known_answer)
winent_sh_test(test_cli_known test_cli_known.sh)
winent_sh_test(test_cli_errors test_cli_errors.sh)
winent_sh_test(test_cli_signal test_cli_signal.sh)
winent_sh_test(test_cli_memory test_cli_memory.sh)
winent_sh_test(test_cli_valgrind test_cli_valgrind.sh)
winent_sh_test(test_cli_determinism test_cli_determinism.sh)
winent_sh_test(test_cli_gpu test_cli_gpu.sh)
set_tests_properties(test_cli_gpu PROPERTIES LABELS gpu)
# Whole jobs (winent_run) against the reference engine on 200 random cases
# (a fresh seed each run, printed first).
winent_unit_test(test_differential)
# The chunk queue's choice between engines, on made-up engines: a READY
# chunk is never left by all of them (the hang two H100s found).
winent_unit_test(test_sched)
# The tests that drive the pipeline's threads, queues, pools and cancel
# paths: the TSan build runs these (tools/test-sanitizers.sh), with
# test_zst_cli and tiff_gdal (zst.cmake, tiff.cmake: decode and encode
# threads).
set_tests_properties(test_cli_known test_cli_errors test_cli_signal test_cli_determinism
  test_differential test_sched PROPERTIES LABELS pipeline)
if(WINENT_SANITIZE)
  # Not in sanitizer builds: valgrind cannot run an ASan or TSan binary
  # (both reserve terabytes of shadow address space that valgrind's own
  # memcheck cannot map, and two checkers of one heap would fight), and the
  # peak-RSS bound of test_cli_memory measures the allocator, which ASan
  # inflates on purpose (shadow memory, freed-memory quarantine).
  set_tests_properties(test_cli_valgrind test_cli_memory PROPERTIES DISABLED TRUE)
endif()
# Several writers of a raw map (pwrite by offset from the pool) against the
# one ordered writer, and the job's timeline (WINENT_TRACE).
winent_sh_test(test_pipeline_writers test_pipeline_writers.sh)
set_tests_properties(test_pipeline_writers PROPERTIES LABELS pipeline)
# auto's launch decisions as tables of rate snapshots (decide.c).
winent_unit_test(test_decide)
set_tests_properties(test_decide PROPERTIES LABELS pipeline)
