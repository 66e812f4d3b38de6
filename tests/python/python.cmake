# SPDX-License-Identifier: BSD-3-Clause
# tests of the Python package (python/winent): Debian's
# /usr/bin/python3 ($WINENT_PYTHON) with the tree's package and the build's
# libwinent.so.0 (winent_py_test, tests/CMakeLists.txt). Label "python".
# Each skips (77, with the reason) where that Python lacks numpy,
# zstandard, scikit-image or dask.

# The C compiler's layout of winent.h's structures, for the ctypes mirror.
add_executable(py_layout ${CMAKE_CURRENT_LIST_DIR}/py_layout.c)

winent_py_test(test_py_layout test_py_layout.py $<TARGET_FILE:py_layout>)
# Import, version, where the library is found, errors mapped.
winent_py_test(test_py_basics test_py_basics.py)
# entropy(): against the CLI and scikit-image; dtypes, strides, byte orders.
winent_py_test(test_py_entropy test_py_entropy.py)
# circular windows: footprint="disk", radius=R; window=("disk", R); windows lists
winent_py_test(test_py_disk test_py_disk.py)
# any footprint: scikit-image's own test_entropy cases, diamond/star/ring/
# even sides against rank.entropy, nodata against a brute-force count,
# --footprint FILE (PBM, text, .npy) against footprint=
winent_py_test(test_py_footprint test_py_footprint.py)
# rectangles with an even side (window=16, (4, 6), --window 4x6) against
# scikit-image's rank.entropy(img, np.ones((rows, cols))), the CLI's bytes
# and a brute-force count with nodata; the GLCM measures refuse them
winent_py_test(test_py_even_window test_py_even_window.py)
# run() and Job: against the CLI; progress, cancel, Ctrl-C, two jobs at once.
winent_py_test(test_py_job test_py_job.py)
# read_zst and open_zst against zstd -d and the CLI's raw map; the README's
# recipe with the zstandard module alone.
winent_py_test(test_py_zst test_py_zst.py)
# examples/dask_entropy.py (winent.entropy of a dask array) gives the CLI's bytes.
winent_py_test(test_py_dask test_py_dask.py)
# The three .zst readers (--info --check, --decode, read_zst) accept and
# refuse the same files; several maps; a file cut while
# open; NUL bytes in paths.
winent_py_test(test_py_zst_agree test_py_zst_agree.py)
# The API validates as the CLI does: the CLI's line for
# each bad value; NUL bytes in string options.
winent_py_test(test_py_validate test_py_validate.py)
# winent.entropy on masked, dask and xarray (rioxarray) arrays against the
# CLI.
winent_py_test(test_py_gis test_py_gis.py)
# A majority's COG overviews through winent.run(decode=True): the 2x2
# mode, the CLI's bytes; an entropy's stay means (GDAL and numpy).
winent_py_test(test_py_overviews test_py_overviews.py)
set_tests_properties(test_py_gis PROPERTIES TIMEOUT 600)
# A dask.distributed LocalCluster (3 worker processes, one thread each), the
# threaded scheduler, numpy and the CLI give the same bytes; Zarr and a COG
# from the cluster.
winent_py_test(test_py_distributed test_py_distributed.py)
set_tests_properties(test_py_distributed PROPERTIES TIMEOUT 900)
# pip install . into a fresh venv (CMake builds libwinent into the package),
# the Python tests run from it; pip wheel into another venv.
winent_py_test(test_py_venv test_py_venv.py)
set_tests_properties(test_py_venv PROPERTIES TIMEOUT 1200)
# tools/bench-dask-gpu.py runs (small, on the CPU, 1 and 2 worker processes)
# and its blocks have the same bits for both worker counts.
winent_py_test(test_py_bench_dask_gpu ../../tools/bench-dask-gpu.py --size 700 --block 256
  --window 11 --device cpu --gpus= --workers 1,2 --modes cold,warm --check)
# entropy_block's warm engines on the CPU: blocks computed twice warm and
# once cold, the CLI's bits (rectangles, even, disk, footprint, nodata,
# f32 bins, planes); engines reused, grown, freed with their thread and by
# free_engines(); measures of dask blocks; errors as winent.entropy's.
winent_py_test(test_py_warm test_py_warm.py)
# (test_py_docs: docs/docs.cmake.)
# One validator, one message (docs/SPEC.md section 6): each case through
# every door (the CLI; winent_entropy and winent_run from C; winent.entropy
# on numpy, xarray and dask; winent.run), the same verdict everywhere and
# the same line in each door's words.
add_executable(validate_door ${CMAKE_CURRENT_LIST_DIR}/validate_door.c)
target_link_libraries(validate_door PRIVATE winent m)
winent_py_test(test_validator_doors test_validator_doors.py $<TARGET_FILE:validate_door>)
set_tests_properties(test_validator_doors PROPERTIES TIMEOUT 600)
# How arrays are read: dims by name, channel_axis, window=(rows, columns) and
# in map units, int64/uint64, the warnings, datacubes and their attrs, no
# import circle.
winent_py_test(test_py_arrays test_py_arrays.py)
set_tests_properties(test_py_arrays PROPERTIES TIMEOUT 600)
# python -m winent and the winent-stream command of a pip install run the
# CLI.
winent_py_test(test_py_tool test_py_tool.py)
# winent.texture and entropy(measure=): every measure the CLI's bytes on
# numpy, masked, xarray, dask and a LocalCluster; numpy and scikit-image
# oracles per window; errors naming Python's arguments.
winent_py_test(test_py_texture test_py_texture.py)
set_tests_properties(test_py_texture PROPERTIES TIMEOUT 900)
# The type hints (py.typed) pass Debian's mypy; skips where mypy is absent.
winent_py_test(test_py_mypy test_py_mypy.py)
# The measures through every door, by class: one scale per several-map
# output, a nodata code where a map can be NaN, --ot against the values,
# pairs that never fit, Zarr's measures, saturation in each measure's words.
winent_py_test(test_py_measure_doors test_py_measure_doors.py)
winent_py_test(test_py_classes test_py_classes.py)
# The differential checker of the doors (random jobs through the CLI, the
# C job and engine with options set field by field, winent.run and
# Python's arrays against a per-window oracle), a short fixed seed.
winent_py_test(doors_fuzz_short doors_fuzz.py $<TARGET_FILE:winent-stream> --seed 11 --cases 25)
set_tests_properties(doors_fuzz_short PROPERTIES TIMEOUT 900)
