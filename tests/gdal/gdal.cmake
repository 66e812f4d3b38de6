# SPDX-License-Identifier: BSD-3-Clause
# tests of the GDAL source (src/tiles/sources/source_gdal.c): formats GDAL reads,
# masks, standard input copied to a temporary file, georeferencing. In a
# build without GDAL (WINENT_GDAL=OFF, or no libgdal-dev) each skips (77)
# and says so.
winent_sh_test(gdal_source test_gdal_source.sh)
winent_sh_test(gdal_spool test_gdal_spool.sh)
# Pipes, signals and the decode threads of the GDAL source.
set_tests_properties(gdal_source gdal_spool PROPERTIES LABELS pipeline)
# Reads of a server that never answers: GDAL's HTTP time limits, and
# signals that end a job blocked in GDAL (the CLI's watchdog).
winent_sh_test(gdal_hang test_gdal_hang.sh)
set_tests_properties(gdal_hang PROPERTIES LABELS pipeline TIMEOUT 300)
# Files shorter than their headers (ENVI, EHdr, ISCE, GTX, PAux, NetCDF,
# a VRT's sources and raw bands): input errors, never zeros.
winent_sh_test(gdal_lost_data test_gdal_lost_data.sh)
# Every door to a TIFF (GTIFF_DIR:, VRTs, /vsizip/, /vsigzip/, /vsitar/,
# /vsisubfile/, /vsimem/): a corpus of mutated TIFFs gets the verdict and
# the map of the file given directly.
winent_sh_test(gdal_tiff_doors test_gdal_tiff_doors.sh)
set_tests_properties(gdal_tiff_doors PROPERTIES TIMEOUT 900)
# Every driver GDAL writes here, its file cut short: an input error or the
# whole file's map; drivers that read a cut file as zeros are refused.
winent_py_test(gdal_truncation test_gdal_truncation.py)
set_tests_properties(gdal_truncation PROPERTIES TIMEOUT 900)
