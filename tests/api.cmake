# SPDX-License-Identifier: BSD-3-Clause
# The public C API (include/winent.h): jobs at once in one process, each
# cancelled on its own (no process globals); winent_entropy against the
# reference engine; one validation (and its messages) for the CLI and the
# library; the command line's getopt_long behaviours.
winent_unit_test(test_api_jobs)
# winent_job_discard_temporaries: the temporary files of a held run, and no other.
winent_unit_test(test_api_temporaries)
set_tests_properties(test_api_temporaries PROPERTIES LABELS pipeline)
winent_unit_test(test_api_entropy)
add_executable(test_api_validate test_api_validate.c)
target_link_libraries(test_api_validate PRIVATE winent_pipeline)
target_include_directories(test_api_validate PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
add_test(NAME test_api_validate COMMAND test_api_validate $<TARGET_FILE:winent-stream>)
winent_sh_test(test_cli_options test_cli_options.sh)
set_tests_properties(test_api_jobs test_api_validate test_cli_options PROPERTIES LABELS pipeline)
# The public .zst reader (winent_zst_open/read_frame, issue 28 item 6): a
# file of several maps read back from four threads at once, cut while open.
winent_unit_test(test_api_zst Threads::Threads)
set_tests_properties(test_api_zst PROPERTIES LABELS pipeline)
# The rough edges of a first hour (issue 30): raw options for a TIFF,
# --level per codec, --nodata outside the type, --info on a TIFF, remote
# outputs, the completion, --help without build details.
winent_sh_test(test_rough_edges test_rough_edges.sh)
# The same with every chunk of a memory job staged (copied into the
# chunks' own buffers and back by the pool), as with GPUs named.
add_test(NAME test_api_entropy_staged COMMAND test_api_entropy)
set_tests_properties(test_api_entropy_staged PROPERTIES ENVIRONMENT WINENT_STAGE_MEMORY=1
  LABELS pipeline)
