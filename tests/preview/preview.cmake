# SPDX-License-Identifier: BSD-3-Clause
# --preview: the module alone (colour map, sizes, block means in
# any order and from several threads, limits, its file), and whole jobs
# read back in Python against numpy and the colour map's construction.
winent_unit_test(test_preview)
winent_sh_test(test_preview_cli test_preview.sh)
# Its world file and PAM file, read back by GDAL; --preview-range.
winent_sh_test(test_preview_world test_preview_world.sh)
set_tests_properties(test_preview test_preview_cli test_preview_world PROPERTIES LABELS pipeline)
# The same with the GPU computing (skipped where none is usable).
winent_sh_test(test_preview_gpu test_preview_gpu.sh)
set_tests_properties(test_preview_gpu PROPERTIES LABELS gpu TIMEOUT 600)
