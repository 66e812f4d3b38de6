# tests of the tiff area

winent_sh_test(tiff_variants test_tiff_variants.sh)
winent_sh_test(tiff_gdal test_tiff_gdal.sh)
winent_sh_test(tiff_corpus test_tiff_corpus.sh)
