# --preview (issue 14): the module alone (colour map, sizes, block means in
# any order and from several threads, limits, its file).
winent_unit_test(test_preview)
set_tests_properties(test_preview PROPERTIES LABELS pipeline)
