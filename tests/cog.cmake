# tests of the Cloud-Optimized GeoTIFF output (issue 13): the overview rule
# against brute force and the hand-laid TIFF directories.

winent_unit_test(test_cog_pyramid)
