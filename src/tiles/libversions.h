/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libversions.h - the versions of the libraries the sources and sinks are
 * linked with or open, asked of each library at run time (--version).
 */
#ifndef WINENT_LIBVERSIONS_H
#define WINENT_LIBVERSIONS_H

#include <stddef.h>

/* One library: its usual name and the version it reports. */
typedef struct winent_lib_version {
    const char *name; /* static: "zstd", "libtiff", "zlib", "libpng", "GDAL" */
    char version[48]; /* "1.5.4"; "?" when the library's answer is unreadable */
} winent_lib_version;

/* Fill up to `max` entries, in a fixed order (zstd, libtiff, zlib, libpng,
 * then GDAL where built with it: WINENT_HAVE_GDAL); returns how many.
 * Each version comes from the library itself (ZSTD_versionString,
 * TIFFGetVersion, zlibVersion, png_get_libpng_ver, GDALVersionInfo), so
 * it is the library loaded, not the headers compiled against; GDAL, opened
 * at first use, is loaded here ("not loadable" when it cannot be).
 * Thread-safe. */
int winent_lib_versions(winent_lib_version *out, int max);

#endif
