/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gdal_api.h - the GDAL functions winent-stream calls, found in libgdal at
 * first use (dynlib.h) instead of linked: a job that reads TIFF through
 * libtiff or raw samples never loads GDAL. The prototypes are the headers'
 * own (the slots are typed by them), so the calls are checked as if linked.
 */
#ifndef WINENT_GDAL_API_H
#define WINENT_GDAL_API_H

#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_minixml.h>
#include <cpl_string.h>
#include <cpl_vsi.h>
#include <gdal.h>

#define WINENT_GDAL_FUNCTIONS(X) \
    X(CPLDestroyXMLNode) \
    X(CPLGetConfigOption) \
    X(CPLGetErrorHandlerUserData) \
    X(CPLGetXMLNode) \
    X(CPLGetXMLValue) \
    X(CPLParseXMLString) \
    X(CPLPopErrorHandler) \
    X(CPLPushErrorHandlerEx) \
    X(CPLSetThreadLocalConfigOption) \
    X(CPLTestBool) \
    X(CSLDestroy) \
    X(CSLFetchNameValue) \
    X(GDALAllRegister) \
    X(GDALClose) \
    X(GDALCreate) \
    X(GDALDataTypeIsComplex) \
    X(GDALDatasetRasterIOEx) \
    X(GDALFlushCache) \
    X(GDALGetBandDataset) \
    X(GDALGetBlockSize) \
    X(GDALGetCacheMax64) \
    X(GDALGetDataTypeName) \
    X(GDALGetDataTypeSizeBytes) \
    X(GDALGetDatasetDriver) \
    X(GDALGetDriverByName) \
    X(GDALGetDriverShortName) \
    X(GDALGetFileList) \
    X(GDALGetGCPCount) \
    X(GDALGetGCPSpatialRef) \
    X(GDALGetGCPs) \
    X(GDALGetGeoTransform) \
    X(GDALGetMaskBand) \
    X(GDALGetMaskFlags) \
    X(GDALGetMetadata) \
    X(GDALGetMetadataItem) \
    X(GDALGetRasterBand) \
    X(GDALGetRasterColorInterpretation) \
    X(GDALGetRasterCount) \
    X(GDALGetRasterDataType) \
    X(GDALGetRasterNoDataValue) \
    X(GDALGetRasterStatistics) \
    X(GDALGetRasterXSize) \
    X(GDALGetRasterYSize) \
    X(GDALGetSpatialRef) \
    X(GDALIdentifyDriverEx) \
    X(GDALOpenEx) \
    X(GDALRasterIOEx) \
    X(GDALSetCacheMax64) \
    X(GDALSetGCPs2) \
    X(GDALSetGeoTransform) \
    X(GDALSetMetadataItem) \
    X(GDALSetSpatialRef) \
    X(GDALVersionInfo) \
    X(VSIFCloseL) \
    X(VSIFileFromMemBuffer) \
    X(VSIFOpenL) \
    X(VSIFReadL) \
    X(VSIFSeekL) \
    X(VSIFTellL) \
    X(VSIGetMemFileBuffer) \
    X(VSIRmdirRecursive) \
    X(VSIStatL) \
    X(VSIUnlink)

typedef struct winent_gdal_api {
#define WINENT_GDAL_SLOT(f) __typeof__(&f) f;
    WINENT_GDAL_FUNCTIONS(WINENT_GDAL_SLOT)
#undef WINENT_GDAL_SLOT
    /* Optional (NULL when absent), found through GDAL's handle (its HDF5
     * and netCDF drivers link HDF5): HDF5's automatic error printing,
     * which otherwise prints its error stack on standard error, is handed
     * to a function of the source (H5Eset_auto2), which reads the stack
     * (H5Ewalk2). hid_t is int64_t since HDF5 1.10: both are NULL for an
     * older HDF5. `h5_per_thread`: the library is thread-safe, so the
     * setting is per thread. */
    int (*H5Eset_auto2)(int64_t estack, int (*func)(int64_t estack, void *client_data),
                        void *client_data);
    int (*H5Ewalk2)(int64_t estack, int direction,
                    int (*func)(unsigned n, const void *err_desc, void *client_data),
                    void *client_data);
    int h5_per_thread;
} winent_gdal_api;

/* The functions, loaded on the first call (once per process, from any
 * thread); NULL when libgdal cannot be opened or lacks one of them, with
 * the reason in words in *why (static) when `why` is not NULL. */
const winent_gdal_api *winent_gdal_api_get(const char **why);

#endif
