# Tests of the CUDA engine: labelled `gpu`; each exits 77 (skipped) where no
# GPU is usable, so they pass on machines without one.
winent_unit_test(test_gpu_identity)
set_tests_properties(test_gpu_identity PROPERTIES LABELS gpu TIMEOUT 600)
# winent-bench kernels --quick: every GPU kernel variant against the CPU
# engine, bit for bit.
winent_sh_test(test_bench_kernels_gpu test_bench_kernels_gpu.sh)
set_tests_properties(test_bench_kernels_gpu PROPERTIES LABELS gpu TIMEOUT 600)
# The groups kernel's steps on the host against the CPU engine (no GPU
# needed: it runs wherever the CUDA code compiles).
if(WINENT_HAVE_CUDA)
  add_executable(test_gpu_groups_twin test_gpu_groups_twin.cu)
  target_link_libraries(test_gpu_groups_twin PRIVATE winent_pipeline)
  target_include_directories(test_gpu_groups_twin PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
                             ${PROJECT_SOURCE_DIR}/src/kernels)
  add_test(NAME test_gpu_groups_twin COMMAND test_gpu_groups_twin)
  set_tests_properties(test_gpu_groups_twin PROPERTIES TIMEOUT 600)
  # Ranks dense within a chunk, on the host, against the CPU engine.
  add_executable(test_gpu_dense_twin test_gpu_dense_twin.cu)
  target_link_libraries(test_gpu_dense_twin PRIVATE winent_pipeline)
  target_include_directories(test_gpu_dense_twin PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
                             ${PROJECT_SOURCE_DIR}/src/kernels)
  add_test(NAME test_gpu_dense_twin COMMAND test_gpu_dense_twin)
  set_tests_properties(test_gpu_dense_twin PROPERTIES TIMEOUT 300)
endif()
