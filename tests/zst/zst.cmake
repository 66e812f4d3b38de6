# SPDX-License-Identifier: BSD-3-Clause
# tests of the zst area: the .zst sink, --info, --decode and the public reader

# JSON of the header and --info (src/base/json.c over cJSON): numbers read
# back bit for bit, text stays UTF-8, the reader refuses what is not JSON.
winent_unit_test(test_json)
winent_unit_test(test_zst_sink)
# The test runs the tree's Python reader (tests/lib/zst_read.py).
target_compile_definitions(test_zst_sink PRIVATE WINENT_TEST_SRC="${PROJECT_SOURCE_DIR}")
winent_sh_test(test_zst_cli test_zst_cli.sh)
# --info --check / --test: every frame decompressed and held against the
# seek table; damaged files name their first bad frame.
winent_sh_test(test_zst_check test_zst_check.sh)
# --info's JSON: numbers as JSON numbers (the base too), and the unit.
winent_sh_test(test_info_numbers test_info_numbers.sh)
set_tests_properties(test_zst_cli PROPERTIES LABELS pipeline)
# --decode: .zst maps back to GeoTIFF and raw, checked frame by
# frame; old headers without the provenance keys.
winent_sh_test(test_decode test_decode.sh)
set_tests_properties(test_decode PROPERTIES LABELS pipeline)
# The public .zst reader (winent_zst_open/read_frame): a
# file of several maps read back from four threads at once, cut while open.
winent_unit_test(test_api_zst Threads::Threads)
set_tests_properties(test_api_zst PROPERTIES LABELS pipeline)
