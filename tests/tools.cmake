# SPDX-License-Identifier: BSD-3-Clause
# tests of the tools area: test rasters (raw and tiled TIFF), the CPU engine against the
# reference, scikit-image against the CLI.
winent_unit_test(test_engine_random)
# circular windows (--disk): their shape, the reference, the CPU engine against it
winent_unit_test(test_engine_disk)
winent_unit_test(test_engine_codes)
winent_sh_test(test_mksample test_mksample.sh)
winent_sh_test(test_skimage test_skimage.sh)
winent_sh_test(test_skimage_disk test_skimage_disk.sh)
winent_sh_test(test_mksample_tiff test_mksample_tiff.sh)
winent_sh_test(test_bench_job test_bench_job.sh)
# winent-bench kernels on the CPU alone, tiny (the GPU run is in gpu.cmake).
winent_sh_test(test_bench_kernels test_bench_kernels.sh)
