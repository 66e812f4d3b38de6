/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gdal_tiff.h - every TIFF a GDAL dataset reads, checked as strictly as a
 * TIFF given directly (docs/SPEC.md section 3, "Every door to a TIFF"),
 * and every driver it reads through held to the list of drivers known to
 * report a truncated file.
 *
 * GDAL's GTiff driver decodes a block only as far as its pixels and reads
 * a block index that points past the end of the file as empty blocks: a
 * TIFF reached through a GDAL name (GTIFF_DIR:2:f.tif, /vsizip/a.zip/f.tif,
 * /vsigzip/, /vsisubfile/, /vsimem/, a VRT's source, a VRT's VRT's source)
 * would give a wrong map where the libtiff reader refuses the file. Here
 * the libtiff reader itself (source_tiff.c: block index, every block
 * decoded, compressed streams checked to their end) reads the same bytes,
 * through GDAL's VSI layer, at the directory GDAL reads.
 */
#ifndef WINENT_GDAL_TIFF_H
#define WINENT_GDAL_TIFF_H

#include "gdal_api.h"
#include "source_internal.h"

/* For the dataset `ds` that GDAL opened from `open_path` (the input
 * `o->path`): every dataset it reads, itself and a VRT's sources to any
 * depth, must be of a driver on the checked list (else WINENT_ERR_INPUT
 * naming the driver); every TIFF it reads other than itself (a VRT's
 * sources, a TIFF among another driver's files) is read whole by the
 * libtiff reader now, its first failure returned; when `ds` is itself a
 * TIFF, *verify (else NULL) is a libtiff source over its bytes, to be read
 * row for row beside GDAL's (winent_source.verify). GDAL's messages go to
 * the caller's handler. */
winent_status winent_gdal_check_tiffs(const winent_source_opts *o, GDALDatasetH ds,
                                      const char *open_path, winent_source **verify,
                                      winent_err *err);

/* 1 when GDAL's driver `driver` (a short name) is read: it reports a file
 * cut short (an error, or a size check of ours before reading), as the
 * truncation sweep (tests/gdal/test_gdal_truncation.py) shows. */
int winent_gdal_driver_checked(const char *driver);

#endif
