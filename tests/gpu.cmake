# Tests of the CUDA engine: labelled `gpu`; each exits 77 (skipped) where no
# GPU is usable, so they pass on machines without one.
winent_unit_test(test_gpu_identity)
set_tests_properties(test_gpu_identity PROPERTIES LABELS gpu TIMEOUT 600)
# winent-bench kernels --quick: every GPU kernel variant against the CPU
# engine, bit for bit.
winent_sh_test(test_bench_kernels_gpu test_bench_kernels_gpu.sh)
set_tests_properties(test_bench_kernels_gpu PROPERTIES LABELS gpu TIMEOUT 600)
