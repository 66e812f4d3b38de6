# SPDX-License-Identifier: BSD-3-Clause
# The public C API (include/winent.h): jobs at once in one process, each
# cancelled on its own (no process globals); winent_entropy against the
# reference engine; one validation (and its messages) for the CLI and the
# library; the command line's getopt_long behaviours.
winent_unit_test(test_api_jobs)
winent_unit_test(test_api_entropy)
add_executable(test_api_validate test_api_validate.c)
target_link_libraries(test_api_validate PRIVATE winent_pipeline)
target_include_directories(test_api_validate PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
add_test(NAME test_api_validate COMMAND test_api_validate $<TARGET_FILE:winent-stream>)
winent_sh_test(test_cli_options test_cli_options.sh)
set_tests_properties(test_api_jobs test_api_validate test_cli_options PROPERTIES LABELS pipeline)
# The same with every chunk of a memory job staged (copied into the
# chunks' own buffers and back by the pool), as with GPUs named.
add_test(NAME test_api_entropy_staged COMMAND test_api_entropy)
set_tests_properties(test_api_entropy_staged PROPERTIES ENVIRONMENT WINENT_STAGE_MEMORY=1
  LABELS pipeline)
