# tests of the install area: libwinent exports exactly include/winent.h.
# Label "install".

# The example compiles in every build, against the build tree's libwinent,
# so it keeps up with the API.
add_executable(example_entropy_of_file ${PROJECT_SOURCE_DIR}/examples/entropy_of_file.c)
target_link_libraries(example_entropy_of_file PRIVATE winent)

winent_sh_test(test_exports test_exports.sh)
set_property(TEST test_exports APPEND PROPERTY ENVIRONMENT
  "WINENT_SO=$<TARGET_FILE:winent>" "WINENT_A=$<TARGET_FILE:winent_static>"
  "CC=${CMAKE_C_COMPILER}")
set_tests_properties(test_exports PROPERTIES LABELS install)
