# SPDX-License-Identifier: BSD-3-Clause
# Sanitizer builds (WINENT_SANITIZE, tools/test-sanitizers.sh): every test
# runs with the options below, and every report of every instrumented
# process (the CLI inside a shell test too, whose stderr the test may keep
# to itself) lands in a file under sanitizer-logs/. The fixture's last test,
# sanitizer_reports, prints them and fails when there is any: an exit code
# alone would not do (ASan exits 1, which the CLI also uses, and some shell
# tests look only at the output).
if(NOT WINENT_SANITIZE)
  return()
endif()

set(san_logs ${CMAKE_BINARY_DIR}/sanitizer-logs)
# Only the variables of the build's sanitizers: each runtime also reads the
# others' common flags (a TSan build takes log_path from UBSAN_OPTIONS too).
set(san_env "WINENT_SANITIZE=${WINENT_SANITIZE}")
if("address" IN_LIST winent_san_list)
  list(APPEND san_env "ASAN_OPTIONS=detect_leaks=1:log_path=${san_logs}/asan"
                      "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/lsan.supp:print_suppressions=0")
endif()
if("undefined" IN_LIST winent_san_list)
  list(APPEND san_env "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=${san_logs}/ubsan")
endif()

if("thread" IN_LIST winent_san_list)
  # OpenMP under TSan: libgomp (GCC) and libomp synchronise their threads
  # (barriers, the end of a parallel region) with code TSan does not see,
  # so every parallel loop would look racy. Clang's libomp ships Archer, an
  # OMPT tool that tells TSan about that synchronisation; with it, and TSan
  # ignoring the accesses made inside the uninstrumented runtime itself
  # (ignore_noninstrumented_modules), a race in our code, inside a parallel
  # region or between pipeline threads, is still reported: the test
  # tsan_canary_race proves it on every run. GCC's libgomp has no such tool.
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "WINENT_SANITIZE=thread needs clang (libomp + Archer): "
                        "with libgomp every OpenMP region gives false races")
  endif()
  get_filename_component(omp_dir "${OpenMP_omp_LIBRARY}" DIRECTORY)
  find_library(WINENT_ARCHER NAMES archer HINTS "${omp_dir}" NO_DEFAULT_PATH)
  if(NOT WINENT_ARCHER)
    message(FATAL_ERROR "WINENT_SANITIZE=thread: no libarcher.so beside ${OpenMP_omp_LIBRARY}")
  endif()
  set(tsan_opts "suppressions=${CMAKE_CURRENT_SOURCE_DIR}/tsan.supp:ignore_noninstrumented_modules=1:halt_on_error=0")
  list(APPEND san_env "TSAN_OPTIONS=${tsan_opts}:log_path=${san_logs}/tsan"
                      "OMP_TOOL_LIBRARIES=${WINENT_ARCHER}")

  # The canaries: an OpenMP program with a deliberate race must be reported
  # under the very settings above (reports to stderr, not to the logs);
  # its race-free twin must not be.
  add_executable(tsan_canary tsan_canary.c)
  target_link_libraries(tsan_canary PRIVATE OpenMP::OpenMP_C)
  add_test(NAME tsan_canary_race COMMAND tsan_canary race)
  set_tests_properties(tsan_canary_race PROPERTIES LABELS pipeline
    ENVIRONMENT "TSAN_OPTIONS=${tsan_opts};OMP_TOOL_LIBRARIES=${WINENT_ARCHER}"
    PASS_REGULAR_EXPRESSION "WARNING: ThreadSanitizer: data race.*canary_racy_sum")
  add_test(NAME tsan_canary_clean COMMAND tsan_canary clean)
  set_tests_properties(tsan_canary_clean PROPERTIES LABELS pipeline)
endif()

add_test(NAME sanitizer_logs_clear
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${san_logs})
add_test(NAME sanitizer_reports
  COMMAND ${CMAKE_COMMAND} -DLOGS=${san_logs} -P ${CMAKE_CURRENT_SOURCE_DIR}/sanitizer_reports.cmake)
set_tests_properties(sanitizer_logs_clear PROPERTIES FIXTURES_SETUP sanitizer)
set_tests_properties(sanitizer_reports PROPERTIES FIXTURES_CLEANUP sanitizer)

# Checks that read the tree and run none of the project's compiled code
# (the rooms' structure, licences, documents' paths and schemas, the
# package's types), the dask.distributed test, whose calls into the
# library are test_py_dask's and whose cluster adds only Python, and the
# install's test, whose library calls are the API tests' and whose own
# work is CMake's, cpack's and the compiler's: the plain build runs them;
# under a sanitizer they would only take the cores' time again.
foreach(t test_structure test_licence test_doc_paths test_zst_schema_doc test_perf_chart
          test_py_mypy test_py_distributed test_install)
  if(TEST ${t})
    set_tests_properties(${t} PROPERTIES DISABLED TRUE)
  endif()
endforeach()

get_property(all_tests DIRECTORY PROPERTY TESTS)
foreach(t ${all_tests})
  if(NOT t MATCHES "^(sanitizer_logs_clear|sanitizer_reports|tsan_canary_race)$")
    set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT ${san_env})
    set_property(TEST ${t} APPEND PROPERTY FIXTURES_REQUIRED sanitizer)
  endif()
endforeach()
