# SPDX-License-Identifier: BSD-3-Clause
# tests of the Cloud-Optimized GeoTIFF output: the overview rule
# against brute force, then whole jobs read back by GDAL and checked by
# GDAL's COG validator. One ctest test per group of cases (test_cog.sh).

winent_unit_test(test_cog_pyramid)
foreach(group layout values tiled spill memory)
  winent_sh_test(cog_${group} test_cog.sh ${group})
endforeach()
set_tests_properties(cog_values PROPERTIES LABELS pipeline)
# A class map's overviews (--measure majority): the 2x2 mode, per band,
# against numpy through GDAL; the entropy beside it unchanged.
winent_sh_test(test_cog_classes test_cog_classes.sh)
# Integer maps with GDAL's horizontal predictor where it makes them
# smaller; GDAL reads the same codes back.
winent_sh_test(test_cog_predictor test_cog_predictor.sh)
if(WINENT_SANITIZE)
  # The peak-RSS bound measures the allocator, which ASan inflates on
  # purpose (as test_cli_memory, pipeline/pipeline.cmake).
  set_tests_properties(cog_memory PROPERTIES DISABLED TRUE)
endif()
