# tests of the tiff area

# Until src/CMakeLists.txt lists them, the TIFF helpers join winent_tiles
# from here (the lead moves these two lines into src/CMakeLists.txt).
if(NOT WINENT_TIFF_SOURCES_LISTED)
  pkg_check_modules(ZLIB REQUIRED IMPORTED_TARGET zlib)
  target_sources(winent_tiles PRIVATE ${PROJECT_SOURCE_DIR}/src/tiles/tiff_common.c
    ${PROJECT_SOURCE_DIR}/src/tiles/tile_codec.c)
  target_link_libraries(winent_tiles PUBLIC PkgConfig::ZLIB)
endif()

winent_sh_test(tiff_variants test_tiff_variants.sh)
winent_sh_test(tiff_gdal test_tiff_gdal.sh)
winent_sh_test(tiff_corpus test_tiff_corpus.sh)
