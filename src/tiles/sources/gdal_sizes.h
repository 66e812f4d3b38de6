/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gdal_sizes.h - a GDAL dataset's files against what their headers declare,
 * before any pixel is read (docs/SPEC.md section 3: lost data is an input
 * error, never zeros).
 */
#ifndef WINENT_GDAL_SIZES_H
#define WINENT_GDAL_SIZES_H

#include "base/werr.h"
#include "gdal_api.h"

/* WINENT_OK when every file of `ds` holds what its header declares, as far
 * as this can tell: the raw layouts (ENVI, EHdr .bil/.bip/.bsq, ISCE, GTX,
 * PAux, ... : the samples of every band, after the header's offset),
 * classic NetCDF (every variable's data, records included), and the same
 * for each such file a VRT reads. Else WINENT_ERR_INPUT naming `name`, the
 * short file, and the band and row (raw) or the variable (NetCDF) from
 * which data are lost. GDAL's messages go to the caller's handler. */
winent_status winent_gdal_check_sizes(GDALDatasetH ds, const char *name, winent_err *err);

/* Before GDAL opens the local file `path`: a classic NetCDF header that declares more
 * than the whole file holds (or values no NetCDF file has) is
 * WINENT_ERR_INPUT naming `name`, so that the netCDF library never sizes
 * its tables from it (a 300-byte file asked it for 10 GB). Anything else,
 * or a name that is no file, passes. */
winent_status winent_gdal_check_netcdf_header(const char *path, const char *name,
                                              winent_err *err);

#endif
