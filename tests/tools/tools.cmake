# SPDX-License-Identifier: BSD-3-Clause
# tests of the tools area: test rasters (raw and tiled TIFF) from
# winent-mksample, winent-bench's job and kernels.
winent_sh_test(test_mksample test_mksample.sh)
winent_sh_test(test_mksample_tiff test_mksample_tiff.sh)
winent_sh_test(test_bench_job test_bench_job.sh)
# tools/bench-alternate.sh: engines alternated round by round, its table.
winent_sh_test(test_bench_alternate test_bench_alternate.sh)
# winent-bench kernels on the CPU alone, tiny (the GPU run is in gpu/gpu.cmake).
winent_sh_test(test_bench_kernels test_bench_kernels.sh)
# The library's structure from this build's objects: no circle of files,
# no call against the layers, no long function in src/pipeline.
winent_sh_test(test_structure test_structure.sh)
