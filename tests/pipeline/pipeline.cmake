# SPDX-License-Identifier: BSD-3-Clause
# tests of the pipeline: the chunk queue and auto's decisions, jobs of the
# public C API (include/winent.h), whole CLI jobs under signals, memory
# bounds, valgrind and repetition, the writers, several maps in one pass.
#
# The tests that drive the pipeline's threads, queues, pools and cancel
# paths are labelled `pipeline`: the TSan build runs these
# (tools/test-sanitizers.sh), from every area.

# The chunk queue's choice between engines, on made-up engines: a READY
# chunk is never left by all of them (the hang two H100s found).
winent_unit_test(test_sched)
# auto's launch decisions as tables of rate snapshots (decide.c).
winent_unit_test(test_decide)
# The job's plan as tables of made-up jobs, no file opened (plan.c).
winent_unit_test(test_plan)
# Jobs at once in one process, each cancelled on its own (no process
# globals); winent_entropy against the reference engine.
winent_unit_test(test_api_jobs)
winent_unit_test(test_api_entropy)
# The same with every chunk of a memory job staged (copied into the
# chunks' own buffers and back by the pool), as with GPUs named.
add_test(NAME test_api_entropy_staged COMMAND test_api_entropy)
set_tests_properties(test_api_entropy_staged PROPERTIES ENVIRONMENT WINENT_STAGE_MEMORY=1
  LABELS pipeline)
# The public engine's asynchronous pair (winent_engine_submit/wait) on the
# reference, CPU and GPU engines: blocks in flight waited for in any order,
# four threads sharing an engine, against the reference engine's bits; the
# calls' errors. With a GPU band failing to start (fault injection): that
# block's wait says why, the next block is right, the engine computes on.
winent_unit_test(test_engine_async)
add_test(NAME test_engine_async_gpu_fault COMMAND test_engine_async fault)
set_tests_properties(test_engine_async PROPERTIES LABELS pipeline)
set_tests_properties(test_engine_async_gpu_fault PROPERTIES LABELS gpu SKIP_RETURN_CODE 77
  ENVIRONMENT WINENT_FAULT_INJECT=submit:3)
# winent_job_discard_temporaries: the temporary files of a held run, and no other.
winent_unit_test(test_api_temporaries)
winent_sh_test(test_cli_signal test_cli_signal.sh)
winent_sh_test(test_cli_memory test_cli_memory.sh)
winent_sh_test(test_cli_valgrind test_cli_valgrind.sh)
winent_sh_test(test_cli_determinism test_cli_determinism.sh)
set_tests_properties(test_sched test_decide test_api_jobs test_api_temporaries
  test_cli_signal test_cli_determinism PROPERTIES LABELS pipeline)
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
# Several bands and windows in one pass: each map of one run
# equals the single run of its band and window, in every output and from
# every input layout; the errors.
foreach(group raw zst tif errors stats memory)
  winent_sh_test(multimap_${group} test_multimap.sh ${group})
endforeach()
winent_unit_test(test_multimap_reference)
