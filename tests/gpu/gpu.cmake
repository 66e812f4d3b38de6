# SPDX-License-Identifier: BSD-3-Clause
# Tests of the CUDA engine: labelled `gpu`; each exits 77 (skipped) where no
# GPU is usable, so they pass on machines without one.
# The CLI's --device gpu against the CPU, bit for bit.
winent_sh_test(test_cli_gpu test_cli_gpu.sh)
set_tests_properties(test_cli_gpu PROPERTIES LABELS gpu)
# --footprint FILE on the GPU: the CPU's bytes for several shapes and planes
winent_sh_test(test_gpu_footprint test_gpu_footprint.sh)
set_tests_properties(test_gpu_footprint PROPERTIES LABELS gpu)
winent_unit_test(test_gpu_identity)
# Every measure on --device gpu against --device cpu through the CLI, bit
# for bit (histogram measures on squares, rectangles and disks; glcm-*).
winent_sh_test(test_measures_cli_gpu test_measures_cli_gpu.sh)
set_tests_properties(test_measures_cli_gpu PROPERTIES LABELS gpu TIMEOUT 900)
# The measures on the GPU engine through the library: the CPU's bits where
# a GPU is usable, the majority too (its auto case runs without a GPU)
winent_unit_test(test_gpu_measures)
set_tests_properties(test_gpu_identity PROPERTIES LABELS gpu TIMEOUT 600)
# winent-bench kernels --quick: every GPU kernel variant against the CPU
# engine, bit for bit.
winent_sh_test(test_bench_kernels_gpu test_bench_kernels_gpu.sh)
# A memory job on the caller's pinned buffers (copied directly, not
# staged) against the CPU, bit for bit.
winent_unit_test(test_gpu_pinned)
set_tests_properties(test_gpu_pinned PROPERTIES LABELS gpu TIMEOUT 300)
set_tests_properties(test_bench_kernels_gpu PROPERTIES LABELS gpu TIMEOUT 600)
# Host twins of CUDA code (no GPU needed: they run wherever the CUDA code
# compiles), against the CPU engine.
function(winent_gpu_twin_test name timeout)
  add_executable(${name} ${CMAKE_CURRENT_LIST_DIR}/${name}.cu)
  target_link_libraries(${name} PRIVATE winent_pipeline)
  target_include_directories(${name} PRIVATE ${WINENT_TESTS_LIB}
                             ${PROJECT_SOURCE_DIR}/src/kernels)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES TIMEOUT ${timeout})
endfunction()
if(WINENT_HAVE_CUDA)
  # The groups kernel's steps, a thread and a lane at a time.
  winent_gpu_twin_test(test_gpu_groups_twin 600)
  # Ranks dense within a chunk.
  winent_gpu_twin_test(test_gpu_dense_twin 300)
  # Equal-code cliques of 32-bit planes.
  winent_gpu_twin_test(test_gpu_sparse_twin 300)
  # The compare kernels: scalar, and 16-bit codes two to a word.
  winent_gpu_twin_test(test_gpu_cmp_twin 300)
  # The disk kernels' slide (--disk R), on both histograms.
  winent_gpu_twin_test(test_gpu_disk_twin 300)
  # The choice of kernel families (the table gpu_families), as a table of
  # cases: plan and asks -> the engine's path name.
  winent_gpu_twin_test(test_gpu_choose 60)
  # The GLCM engine's thread work (glcm_slide.h) segment by segment, and
  # where a GPU is usable the device engine, against the CPU, bit for bit.
  winent_gpu_twin_test(test_gpu_glcm_twin 300)
endif()
# The CUDA_VISIBLE_DEVICES a --device list sets (issue 31), as a table; no
# GPU needed.
winent_unit_test(test_cuda_visible)
