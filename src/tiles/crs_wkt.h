/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * crs_wkt.h - the ESRI WKT of an EPSG coordinate reference system, the
 * form an ENVI header's "coordinate system string" holds and GDAL reads.
 * Built with PROJ (Debian libproj-dev): its database knows every EPSG
 * code. Built without it: no WKT, and the sidecar falls back to ENVI's own
 * names for the few systems GDAL knows by name (UTM on WGS 84, WGS 84
 * latitude/longitude).
 */
#ifndef WINENT_CRS_WKT_H
#define WINENT_CRS_WKT_H

/* The ESRI WKT of EPSG:`epsg` (malloc'd, the caller frees it), or NULL
 * when the build has no PROJ, PROJ's database does not know the code, or
 * memory runs out. Prints nothing (PROJ's log is silenced). Thread-safe:
 * a PROJ context of its own per call. */
char *winent_crs_esri_wkt(int epsg);

/* 1 when EPSG codes can be turned into WKT: built with PROJ, and PROJ
 * loads (it is opened at the first call). */
int winent_crs_have_proj(void);

#endif
