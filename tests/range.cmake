# SPDX-License-Identifier: BSD-3-Clause
# tests of --bins/--range (issue 13): the clamp counts and the span of the
# samples against plain restatements and numpy, the warning, --range auto
# from GDAL's statistics (.aux.xml, the TIFF's GDAL metadata) or a first
# pass; the small parsers behind them (band statistics, ENVI map info, the
# .zst header's JSON values).
winent_unit_test(test_range_count)
winent_sh_test(test_range test_range.sh)
set_tests_properties(test_range PROPERTIES LABELS pipeline)
# Honest warnings (issue 30): a saturated map, --range auto on GDAL's names
# (NetCDF, /vsizip/), the float-without-range message, alpha bands.
winent_sh_test(test_honest_notices test_honest_notices.sh)
