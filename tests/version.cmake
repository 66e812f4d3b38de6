# SPDX-License-Identifier: BSD-3-Clause
# --version (issue 14): the version, the engines built in, and each linked
# library's version as the library reports it at run time, held against
# what CMake found at configure time (pkg-config, FindOpenMP, the CUDA
# toolkit).
if(WINENT_HAVE_CUDA)
  set(winent_cuda_ver "${CUDAToolkit_VERSION_MAJOR}.${CUDAToolkit_VERSION_MINOR}")
  string(REPLACE ";" "," winent_cuda_archs "${CMAKE_CUDA_ARCHITECTURES}")
else()
  set(winent_cuda_ver "none")
  set(winent_cuda_archs "none")
endif()
winent_sh_test(test_version test_version.sh
  "${PROJECT_VERSION}" "${winent_cuda_ver}" "${winent_cuda_archs}" "${ZSTD_VERSION}"
  "${TIFF_VERSION}" "${ZLIB_VERSION}" "${PNG_VERSION}" "${OpenMP_C_SPEC_DATE}"
  "${GDAL_VERSION}")
