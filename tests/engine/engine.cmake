# SPDX-License-Identifier: BSD-3-Clause
# tests of the engines: the known answers, the CPU engine against the
# reference, whole jobs against the reference, scikit-image against the CLI.
winent_unit_test(test_known_answer)
# Whole jobs (winent_run) against the reference engine on 200 random cases
# (a fresh seed each run, printed first).
winent_unit_test(test_differential)
set_tests_properties(test_differential PROPERTIES LABELS pipeline)
winent_unit_test(test_engine_random)
# circular windows (--disk): their shape, the reference, the CPU engine against it
winent_unit_test(test_engine_disk)
# any footprint: its runs, the reference against a count per window, the
# CPU engine against the reference for every histogram measure
winent_unit_test(test_engine_footprint)
set_tests_properties(test_engine_footprint PROPERTIES ENVIRONMENT "OMP_WAIT_POLICY=passive")
winent_unit_test(test_engine_codes)
# the CPU path choice as a table (engine_cpu_choose.c), no kernel run
winent_unit_test(test_cpu_choose)
# the measures (--measure) against the reference and a brute-force oracle
winent_unit_test(test_engine_measures)
# thousands of small two-thread computes: OpenMP's spinning waits would
# crawl on a loaded machine
set_tests_properties(test_engine_measures PROPERTIES ENVIRONMENT "OMP_WAIT_POLICY=passive")
# --bins/--range (issue 13): the clamp counts and the span of the samples
# against plain restatements; the small parsers behind --range auto (band
# statistics, ENVI map info, the .zst header's JSON values). The CLI's side
# is test_range (cli/cli.cmake).
winent_unit_test(test_range_count)
winent_sh_test(test_skimage test_skimage.sh)
winent_sh_test(test_skimage_disk test_skimage_disk.sh)
# The co-occurrence (GLCM) engine against its brute-force oracle
# (glcm_oracle.h), and its bits across bands, chunks and measure sets.
winent_unit_test(test_glcm)
set_tests_properties(test_glcm PROPERTIES TIMEOUT 600)
# The same engine against scikit-image's graycomatrix/graycoprops, per
# window, through tools/winent-glcm.
winent_sh_test(test_glcm_skimage test_glcm_skimage.sh)
set_tests_properties(test_glcm_skimage PROPERTIES TIMEOUT 600)
winent_sh_test(test_measures_numpy test_measures_numpy.sh)
# The co-occurrence measures through the CLI: the engine's bits on every
# pipeline path (test_glcm_cli.sh).
winent_sh_test(test_glcm_cli test_glcm_cli.sh)
