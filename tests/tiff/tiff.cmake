# SPDX-License-Identifier: BSD-3-Clause
# tests of the tiff area: the TIFF source and sink (libtiff and GDAL)

winent_sh_test(tiff_variants test_tiff_variants.sh)
winent_sh_test(tiff_gdal test_tiff_gdal.sh)
winent_sh_test(tiff_corpus test_tiff_corpus.sh)
# Known bugs of the TIFF source, found by fuzz_tiff and reported: each
# skips (77) with its reason until fixed (test_tiff_known_bugs.sh).
foreach(bug tiff-sparse-strip tiff-strip-memory tiff-tall-tile)
  winent_sh_test(known_bug_${bug} test_tiff_known_bugs.sh ${bug})
endforeach()
if(WINENT_SANITIZE)
  # Its peak-RSS bound measures the allocator, which ASan inflates on
  # purpose (as test_cli_memory, pipeline/pipeline.cmake).
  set_tests_properties(known_bug_tiff-strip-memory PROPERTIES DISABLED TRUE)
endif()
# GeoTIFF in and out through the whole pipeline: decode and encode threads.
set_tests_properties(tiff_gdal PROPERTIES LABELS pipeline)
# Compressed blocks checked to the end of their stream (checksums), the same
# verdict through libtiff and GDAL, and one rule for an unparsable GDAL_NODATA.
winent_sh_test(tiff_streams test_tiff_streams.sh)
# Memory bounded by --mem whatever a file declares: blocks too big are
# refused with the --mem that would do (strips are read in slices).
winent_sh_test(tiff_mem_bound test_tiff_mem_bound.sh)
